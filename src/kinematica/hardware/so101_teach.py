"""The SO-101 (or SO-100) moved by hand, torque off: calibrating its servos (LeRobot's
procedure) and recording a motion as a trajectory.

Calibration, with the arm placed in its middle pose (every joint in the middle of its travel, as
the robot file's home shows: the SO-101's URDF zero, the SO-100's range middles): each servo's
homing offset is set so that it reads 2048 there (offset = raw − 2048, written to EEPROM with the
lock open, then locked again), and its zero (the tick at the URDF's q = 0) follows from that
pose and the servo's sense (`so101_calibration`); then
each joint is moved by hand through its whole travel while the servos are read every 20 ms, and
the least and greatest ticks seen become its range (also written as the servo's own position
limits). A joint that moved less than MIN_TRAVEL ticks fails the calibration (no range is
written): the range of a joint nobody moved would refuse every command.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import KinematicaError
from ..trajectory import for_robot
from . import feetech as ft
from .so101_calibration import (
    ARMS,
    CENTRE,
    NAMES,
    PER_RAD,
    ServoCalibration,
    So101Calibration,
    middle_and_senses,
)

__all__ = ["MIN_TRAVEL", "PERIOD", "set_zero", "CalibrationIncomplete", "calibrate", "record"]

MIN_TRAVEL = 100  # ticks (8.8°): less, and the joint was not moved through its range
PERIOD = 0.02  # s between readings while the arm is moved by hand


def _eeprom(arm: Any, sid: int, name: str, value: int) -> None:
    bus = arm._bus()
    bus.write_register(sid, "lock", 0)
    bus.write_register(sid, name, value)
    bus.write_register(sid, "lock", 1)


def set_zero(arm: Any) -> list[int]:
    """Torque off, then each servo's homing offset set so that it reads 2048 where it is now;
    returns the offsets (ticks)."""
    arm.torque(False)
    offsets = []
    for sid in arm.calibration.ids:
        _eeprom(arm, sid, "homing_offset", 0)
        raw = arm._bus().read_register(sid, "present_position")
        offsets.append(raw - CENTRE)
        _eeprom(arm, sid, "homing_offset", raw - CENTRE)
    return offsets


class CalibrationIncomplete(KinematicaError, ValueError):
    """A joint was not moved through its travel while calibrating."""


def calibrate(arm: Any, seconds: float, done: Callable[[], bool] | None = None) -> So101Calibration:
    """Zero where the arm is, then the ranges seen while it is moved by hand for `seconds` (or
    until `done()` says so); the arm's calibration is replaced. CalibrationIncomplete when a
    joint moved less than MIN_TRAVEL ticks."""
    offsets = set_zero(arm)
    lo = np.full(6, CENTRE)
    hi = np.full(6, CENTRE)
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (done is not None and done()):
        ticks = np.array(arm.state().ticks)
        lo, hi = np.minimum(lo, ticks), np.maximum(hi, ticks)
        time.sleep(PERIOD)
    short = [f"{n} moved only {b - a} ticks ({(b - a) * 360 / ft.TICKS:.0f}°)"
             for n, a, b in zip(NAMES, lo, hi, strict=True) if b - a < MIN_TRAVEL]
    if short:  # its range would refuse every command: keep the servos' limits as they were
        raise CalibrationIncomplete(f"{'; '.join(short)}: move every joint through its whole travel and calibrate "
                                    "again (the zero offsets were set; no range was written)")
    middle, signs = middle_and_senses(arm.robot)
    zeros = [*(CENTRE - signs[:5] * middle * PER_RAD), CENTRE]  # the gripper: 2048 at 0° of opening
    servos = []
    for sid, off, a, b, sign, zero in zip(arm.calibration.ids, offsets, lo, hi, signs, zeros, strict=True):
        _eeprom(arm, sid, "min_position", int(a))
        _eeprom(arm, sid, "max_position", int(b))
        servos.append(ServoCalibration(sid, int(off), (int(a), int(b)), int(sign), float(zero)))
    arm.calibration = So101Calibration(tuple(servos), arm.robot.name)
    return arm.calibration


def record(arm: Any, seconds: float, rate: float = 50.0) -> Any:
    """The arm moved by hand (torque off) for `seconds`, read at `rate` Hz, as a Trajectory
    (velocities and accelerations by finite differences)."""
    arm.torque(False)
    t, q = [], []
    start = time.monotonic()
    k = 0
    while True:
        due = start + k / rate
        if due - start > seconds:
            break
        time.sleep(max(0.0, due - time.monotonic()))
        q.append(arm.state().q)
        t.append(time.monotonic() - start)
        k += 1
    t_arr, q_arr = np.array(t), np.array(q)
    qd = np.gradient(q_arr, t_arr, axis=0) if len(t) > 1 else np.zeros_like(q_arr)
    qdd = np.gradient(qd, t_arr, axis=0) if len(t) > 1 else np.zeros_like(q_arr)
    which = ARMS.get(arm.robot.name, arm.robot.name)
    return for_robot(arm.robot, t_arr, q_arr, qd, qdd, meta={"source": f"recorded from the {which} at {arm.url}"})
