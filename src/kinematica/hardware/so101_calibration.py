"""The SO-ARMs' servo calibration (the SO-101, and the SO-100 with the same servos): each
servo's homing offset, range and sense, ticks ↔ the URDF's joint values, and the file that keeps
them (JSON), which says which arm it was made on.

A servo reads ticks (4096 a turn) in the frame its homing offset sets (present = raw − offset).
Calibrating as LeRobot does puts tick 2048 in the middle of each joint's travel, with the arm in
its middle pose: the robot file's home m (the SO-101's URDF zero; the middle of each range of the
SO-100's, whose zero is its folded rest pose). So for the five arm joints

    q = sign · (ticks − zero) · 2π / 4096            (rad)
    ticks = zero + sign · q · 4096 / 2π
    zero = 2048 − sign · m · 4096 / 2π               (the tick at the URDF's q = 0)

with each servo's sense `sign` in its joint's angle (the robot file's extras.servo_signs: the
SO-100's shoulder pan turns against its servo; +1 without them), and for the gripper (id 6)
g = sign · (ticks − zero) · 360 / 4096 degrees of jaw opening, zero = 2048. `range` is the ticks
the joint was seen to travel (moved by hand, torque off): commands outside it are refused.
Without a file every servo has offset 0, the robot file's sense and middle, and the range of the
model's limits. A kinematic calibration (`km.identify_offsets`: the joint offsets δ that make the
readings agree with known tool positions) moves each joint's `zero` by −sign · δ · 4096/2π ticks
(`with_offsets`), a fraction of a tick kept as it is: the servos' EEPROM is not touched.

The file's `arm` names the arm it was made on (so100, so101): the two arms' joint values differ,
so the driver refuses a file made on the other one (`check_arm`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from .. import atomic
from ..errors import InputError
from ..model import Robot
from . import feetech as ft

__all__ = ["CENTRE", "PER_RAD", "PER_DEG", "NAMES", "GRIPPER_RANGE", "ARMS", "So101CalibrationError",
           "ServoCalibration", "middle_and_senses", "So101Calibration", "check_arm", "save_so101_calibration",
           "load_so101_calibration"]

CENTRE = ft.TICKS // 2
PER_RAD = ft.TICKS / (2 * math.pi)
PER_DEG = ft.TICKS / 360.0
NAMES = ("shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper")
GRIPPER_RANGE = (-10.0, 100.0)  # degrees of jaw opening the robot file allows
ARMS = {"so100": "SO-100", "so101": "SO-101"}  # the arms a file can be made on, and their names in words


class So101CalibrationError(InputError):
    """A calibration file that cannot be read or does not describe six servos."""


@dataclass(frozen=True)
class ServoCalibration:
    id: int
    homing_offset: int = 0
    range: tuple[int, int] = (0, ft.TICKS - 1)
    sign: int = 1
    zero: float = float(CENTRE)  # the tick where the joint is at the URDF's zero


def middle_and_senses(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    """(m (5, rad), sign (6,)): where each arm joint's servo reads its middle tick — the robot
    file's home, the middle pose — and each servo's sense in its joint's angle (the file's
    extras.servo_signs, +1 each without them; the gripper's last)."""
    signs = (robot.extras.get("extras") or {}).get("servo_signs", [1] * 6)
    if not isinstance(signs, list) or len(signs) != 6 or any(v not in (1, -1) for v in signs):
        raise InputError(f"{robot.name}: extras.servo_signs must be six values of 1 or -1 (the arm's five "
                         f"joints and the gripper), got {signs!r}")
    return np.asarray(robot.q_home[:5], float), np.asarray(signs, int)


@dataclass(frozen=True)
class So101Calibration:
    """Six servos' calibration, in the order of `NAMES` (ids 1–6 unless the file says otherwise),
    made on `arm` (a key of ARMS, or a robot's name)."""

    servos: tuple[ServoCalibration, ...]
    arm: str = "so101"

    @staticmethod
    def default(robot: Robot) -> So101Calibration:
        """Offset 0, the robot file's senses and middle pose, ranges from the model's joint limits
        (rad, within the servo's 0 … 4095 ticks) and the gripper's."""
        middle, signs = middle_and_senses(robot)
        rows = []
        for i, (sign, m, limits) in enumerate(zip(signs[:5], middle, robot.limits[:5], strict=True)):
            zero = CENTRE - sign * m * PER_RAD
            lo, hi = sorted(np.clip(np.rint(zero + sign * limits * PER_RAD), 0, ft.TICKS - 1).astype(int).tolist())
            rows.append(ServoCalibration(i + 1, 0, (lo, hi), int(sign), float(zero)))
        g = sorted(round(CENTRE + int(signs[5]) * d * PER_DEG) for d in GRIPPER_RANGE)  # (the jaw's sense too)
        return So101Calibration((*rows, ServoCalibration(6, 0, (g[0], g[1]), int(signs[5]))), robot.name)

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.servos]

    def to_ticks(self, q: np.ndarray, gripper: float) -> np.ndarray:
        """Goal ticks (6,) of joint values q (5, rad) and the gripper (degrees)."""
        sign = np.array([s.sign for s in self.servos], float)
        values = np.r_[np.asarray(q, float) * PER_RAD, gripper * PER_DEG]
        return np.rint(self._zeros() + sign * values).astype(int)

    def to_q(self, ticks: ArrayLike) -> tuple[np.ndarray, float]:
        """(q (5, rad), gripper degrees) of servo readings (6 ticks)."""
        sign = np.array([s.sign for s in self.servos], float)
        d = sign * (np.asarray(ticks, float) - self._zeros())
        return d[:5] / PER_RAD, float(d[5] / PER_DEG)

    def _zeros(self) -> np.ndarray:
        return np.array([s.zero for s in self.servos], float)

    def with_offsets(self, offsets: np.ndarray) -> So101Calibration:
        """This calibration with joint offsets δ (5, rad, from `km.identify_offsets`) added to
        what the joints read: each zero moved by −sign · δ · 4096/2π ticks."""
        d = np.asarray(offsets, float)
        if d.shape != (5,) or not np.all(np.isfinite(d)) or np.abs(d).max() > np.pi / 4:
            raise InputError(f"offsets: expected 5 finite joint offsets within ±π/4 rad, got {offsets!r}")
        return replace(self, servos=tuple(replace(s, zero=s.zero - s.sign * float(v) * PER_RAD)
                                          for s, v in zip(self.servos, [*d, 0.0], strict=True)))

    def angle_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) (6,): each servo's calibrated range as its joint's angle, rad — the five
        arm joints' q and the gripper servo's angle (radians of its degrees)."""
        sign = np.array([s.sign for s in self.servos], float)
        ends = sign[:, None] * (np.array([s.range for s in self.servos], float) - self._zeros()[:, None]) / PER_RAD
        return ends.min(axis=1), ends.max(axis=1)

    def outside(self, ticks: np.ndarray) -> str | None:
        """Words for the first servo whose goal lies outside its calibrated range, else None."""
        for name, s, t in zip(NAMES, self.servos, np.atleast_2d(ticks).max(axis=0), strict=True):
            if t > s.range[1]:
                return f"{name} (servo {s.id}) to tick {t}: beyond its calibrated range {s.range[0]} … {s.range[1]}"
        for name, s, t in zip(NAMES, self.servos, np.atleast_2d(ticks).min(axis=0), strict=True):
            if t < s.range[0]:
                return f"{name} (servo {s.id}) to tick {t}: below its calibrated range {s.range[0]} … {s.range[1]}"
        return None


def check_arm(cal: So101Calibration, robot: Robot, where: str = "calibration") -> None:
    """So101CalibrationError, in words, when `cal` was made on the other SO-ARM than `robot`
    models (a robot of another name is not checked: which arm it models is not known)."""
    if cal.arm != robot.name and cal.arm in ARMS and robot.name in ARMS:
        raise So101CalibrationError(
            f"{where}: made on an {ARMS[cal.arm]} (arm: {cal.arm}), but this is the {ARMS[robot.name]} model: their "
            f"joint values differ, so its ranges and zeros do not fit. Calibrate this arm as the {ARMS[robot.name]} "
            f"(`kinematica so101 calibrate --arm {robot.name}`), or drive it as the {ARMS[cal.arm]} it was "
            f"calibrated as (--arm {cal.arm})")


def save_so101_calibration(cal: So101Calibration, path: str | Path) -> Path:
    data = {"arm": cal.arm, "ticks_per_turn": ft.TICKS,
            "servos": {name: {**asdict(s), "range": list(s.range)} for name, s in zip(NAMES, cal.servos, strict=True)}}
    return atomic.write_text(Path(path), json.dumps(data, indent=2) + "\n")


def load_so101_calibration(path: str | Path) -> So101Calibration:
    """A calibration file written by `save_so101_calibration` (`kinematica so101 calibrate`)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        arm = data.get("arm", "so101")  # every file before the SO-100 said so101
        if not isinstance(arm, str) or not arm:
            raise ValueError(f"'arm' must name the arm the file was made on, got {arm!r}")
        rows = data["servos"]
        servos = tuple(ServoCalibration(int(rows[n]["id"]), int(rows[n]["homing_offset"]),
                                        (int(rows[n]["range"][0]), int(rows[n]["range"][1])), int(rows[n]["sign"]),
                                        float(rows[n].get("zero", CENTRE)))  # files before kinematic calibration
                       for n in NAMES)
    except FileNotFoundError:
        raise So101CalibrationError(f"calibration file not found: {path}") from None
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise So101CalibrationError(f"{path}: not an SO-ARM calibration file ({type(e).__name__}: {e}); "
                                    "write one with `kinematica so101 calibrate`") from None
    for n, s in zip(NAMES, servos, strict=True):
        if s.sign not in (1, -1) or not 0 <= s.range[0] < s.range[1] <= ft.TICKS - 1 or not 0 <= s.id <= 253 \
                or not 0 <= s.zero <= ft.TICKS - 1:
            raise So101CalibrationError(f"{path}: {n}: expected an id 0 … 253, sign ±1, a range and a zero within "
                                        f"0 … {ft.TICKS - 1}, got {s}")
    return So101Calibration(servos, arm)
