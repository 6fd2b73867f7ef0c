"""Per-servo calibration of a physical Braccio: an offset and a direction on top of `km.to_servo`.

A servo horn is fitted on a spline with 15-25 teeth, so a real arm's "90°" is rarely the model's
straight pose, and a horn fitted mirrored turns the joint the other way. For each servo M1…M6:

    physical = c + direction · (nominal − c) + offset        (degrees)
    nominal  = c + direction · (physical − offset − c)

where `nominal` is what `km.to_servo` gives (the robot file's mapping) and c the middle of the
servo's range (90° for M1…M5, 41.5° for the gripper's 10…73°): a mirrored horn turns about it.
A calibration file is YAML (or JSON) listing only the servos that differ:

    servos:
      M2: {offset: -3}        # the shoulder reads 87 where the model says 90
      M5: {direction: -1}     # the wrist roll horn is mirrored

>>> cal = Calibration.from_data({"servos": {"M2": {"offset": -3}, "M5": {"direction": -1}}})
>>> cal.to_physical([90, 45, 180, 180, 60, 10]).tolist()
[90.0, 42.0, 180.0, 180.0, 120.0, 10.0]
>>> cal.to_nominal(cal.to_physical([90, 45, 180, 180, 60, 10])).tolist()
[90.0, 45.0, 180.0, 180.0, 60.0, 10.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from numpy.typing import ArrayLike

from .. import atomic
from ..errors import KinematicaError
from .protocol import RANGES, SERVOS

CENTRE = np.array([(lo + hi) / 2 for lo, hi in RANGES])  # degrees: the middle of each servo's range
MAX_OFFSET = 45.0  # degrees: more than this is a horn on the wrong spline, not a calibration


class CalibrationError(KinematicaError, ValueError):
    """A calibration file or value that is malformed (the message names the servo and field)."""


@dataclass(frozen=True)
class Calibration:
    """Offsets (degrees) and directions (+1 or −1) of the servos M1…M6; the identity by default."""

    offset: tuple[float, ...] = (0.0,) * 6
    direction: tuple[int, ...] = (1,) * 6

    def __post_init__(self) -> None:
        if len(self.offset) != 6 or len(self.direction) != 6:
            raise CalibrationError("a calibration has 6 offsets and 6 directions (M1…M6)")
        for name, off, sign in zip(SERVOS, self.offset, self.direction, strict=True):
            if not (isinstance(off, (int, float)) and math.isfinite(off) and abs(off) <= MAX_OFFSET):
                raise CalibrationError(f"{name}: offset must be a number within ±{MAX_OFFSET:g} deg, got {off!r}")
            if sign not in (1, -1):
                raise CalibrationError(f"{name}: direction must be 1 or -1, got {sign!r}")

    def to_physical(self, nominal: ArrayLike) -> np.ndarray:
        """Degrees to write to the servos (..., 6) for the model's nominal degrees (..., 6)."""
        return CENTRE + np.asarray(self.direction) * (np.asarray(nominal, float) - CENTRE) + np.asarray(self.offset)

    def to_nominal(self, physical: ArrayLike) -> np.ndarray:
        """The model's nominal degrees (..., 6) for physical servo degrees (..., 6)."""
        return CENTRE + np.asarray(self.direction) * (np.asarray(physical, float) - np.asarray(self.offset) - CENTRE)

    @classmethod
    def from_data(cls, data: Any, where: str = "calibration") -> Calibration:
        if not isinstance(data, dict) or not isinstance(data.get("servos", {}), dict):
            raise CalibrationError(f"{where}: expected a mapping with a 'servos' mapping (M1…M6)")
        unknown = set(data) - {"servos"} | set(data.get("servos", {})) - set(SERVOS)
        if unknown:
            raise CalibrationError(f"{where}: unknown entries {sorted(map(str, unknown))}; expected 'servos' "
                                   f"with any of {', '.join(SERVOS)}")
        offset, direction = [0.0] * 6, [1] * 6
        for i, name in enumerate(SERVOS):
            entry = data.get("servos", {}).get(name) or {}
            if not isinstance(entry, dict) or set(entry) - {"offset", "direction"}:
                raise CalibrationError(f"{where}: {name}: expected {{offset: DEG, direction: 1 or -1}}, got {entry!r}")
            off, sign = entry.get("offset", 0.0), entry.get("direction", 1)
            if isinstance(off, bool) or isinstance(sign, bool):
                raise CalibrationError(f"{where}: {name}: offset and direction are numbers, not {off!r}, {sign!r}")
            offset[i], direction[i] = off, sign
        try:
            return cls(tuple(float(o) if isinstance(o, (int, float)) else o for o in offset), tuple(direction))
        except CalibrationError as e:
            raise CalibrationError(f"{where}: {e}") from None

    def to_data(self) -> dict[str, Any]:
        return {"servos": {name: {"offset": off, "direction": sign}
                           for name, off, sign in zip(SERVOS, self.offset, self.direction, strict=True)}}


def load_calibration(path: str | Path) -> Calibration:
    """A calibration file (YAML or JSON); CalibrationError naming the file and what is wrong."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationError(f"cannot read calibration {path}: {e}") from None
    except yaml.YAMLError as e:
        raise CalibrationError(f"{path}: not YAML or JSON: {str(e).splitlines()[0]}") from None
    return Calibration.from_data(data, str(path))


def save_calibration(cal: Calibration, path: str | Path) -> Path:
    return atomic.write_text(path, yaml.safe_dump(cal.to_data(), sort_keys=False))
