"""What the host checks before it sends anything: model limits, servo ranges, speeds, gripper —
and the tool-position error that whole servo degrees cost, through FK.

A command that would leave a limit is refused with `CommandRefused` naming the joint, the value
and the limit; nothing is ever clipped (a clipped servo puts the arm somewhere else, silently).
Model joint values go to servo degrees by `km.to_servo`, then the `Calibration`; the board takes
whole degrees, so the arm reaches the q of the rounded degrees, not q itself:
`quantisation_error` says how far apart the two tool points are (the robot's length unit).

>>> import kinematica as km, numpy as np
>>> braccio = km.load("braccio")
>>> servo_degrees(braccio, Calibration(), np.radians([0, 100, 0, 0, 0]), 10, pr.DEFAULT_BANNER)
Traceback (most recent call last):
...
kinematica.hardware.limits.CommandRefused: joint 'M2 shoulder' = 100° is outside its limits [-75°, 75°]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import KinematicaError
from ..kinematics import fk
from ..model import Robot, to_servo
from ..model.servo import servo_mapping
from . import protocol as pr
from .calibration import Calibration

__all__ = ["CommandRefused", "gripper_name", "check_robot", "servo_degrees", "gripper_degrees",
           "whole_degrees", "check_speed", "check_stream_speed", "check_stream_steps", "check_stream_accel",
           "reached_q", "quantisation_error"]

_TOL = 1e-9  # degrees or radians: float noise of the conversions, not a real excess


class CommandRefused(KinematicaError, ValueError):
    """A command the host will not send: it leaves a model limit, a servo range or a speed limit."""


def _joint_names(robot: Robot) -> list[str]:
    return [*robot.joint_names, gripper_name(robot)]


def gripper_name(robot: Robot) -> str:
    return str((robot.extras.get("gripper") or {}).get("name", "M6 gripper"))


def check_robot(robot: Robot) -> None:
    """The bridge drives 5 arm servos plus the gripper: a robot with 5 servo-mapped joints."""
    if robot.n != 5 or not robot.extras.get("servo"):
        raise CommandRefused(f"robot {robot.name!r}: the Braccio bridge needs 5 joints with servo mappings "
                             f"(M1…M5; the gripper is M6), got {robot.n} joints")


def servo_degrees(robot: Robot, cal: Calibration, q: ArrayLike, gripper: ArrayLike,
                  banner: pr.Banner) -> np.ndarray:
    """Physical servo degrees (..., 6), unrounded, for joint values q (..., 5) in rad and gripper
    degrees (..., or scalar); CommandRefused naming the first joint outside its model limits, its
    servo range (after calibration) or the banner's ranges."""
    q = np.asarray(q, dtype=float)
    if q.ndim == 0 or q.shape[-1] != robot.n or not np.all(np.isfinite(q)):
        raise CommandRefused(f"q: expected {robot.n} finite joint values for {robot.name!r}, got {q.tolist()!r}")
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    bad = np.argwhere((q < lo - _TOL) | (q > hi + _TOL))
    if bad.size:
        *k, j = bad[0]
        s = robot.angle_scale[j]
        raise CommandRefused(f"joint {robot.joint_names[j]!r} = {q[(*k, j)] * s:.6g}° is outside its limits "
                             f"[{lo[j] * s:g}°, {hi[j] * s:g}°]" + (f" at point {k[0]}" if k else ""))
    try:
        nominal_arm = to_servo(robot, q)
    except ValueError as e:
        raise CommandRefused(str(e)) from None
    g = np.broadcast_to(np.asarray(gripper, dtype=float), q.shape[:-1])
    physical = cal.to_physical(np.concatenate([nominal_arm, g[..., None]], axis=-1))
    ranges = np.array(banner.ranges, dtype=float)
    bad = np.argwhere((physical < ranges[:, 0] - _TOL) | (physical > ranges[:, 1] + _TOL) | ~np.isfinite(physical))
    if bad.size:
        *k, j = bad[0]
        what = "gripper" if j == 5 else "joint"
        raise CommandRefused(f"{what} {_joint_names(robot)[j]!r} needs servo {physical[(*k, j)]:.6g}° "
                             f"(calibrated), outside its range [{ranges[j, 0]:g}°, {ranges[j, 1]:g}°]"
                             + (f" at point {k[0]}" if k else ""))
    return physical


def gripper_degrees(robot: Robot, cal: Calibration, gripper: float, banner: pr.Banner) -> float:
    """The gripper servo's physical degrees for `gripper` (nominal degrees, 10 open … 73
    closed), after calibration; CommandRefused outside its range."""
    if isinstance(gripper, bool) or not isinstance(gripper, (int, float, np.integer, np.floating)) \
            or not np.isfinite(gripper):
        raise CommandRefused(f"gripper: expected a finite number of degrees, got {gripper!r}")
    physical = float(cal.to_physical(np.r_[np.zeros(5), gripper])[5])
    lo, hi = banner.ranges[5]
    if not lo - _TOL <= physical <= hi + _TOL:
        raise CommandRefused(f"gripper {gripper_name(robot)!r} needs servo {physical:.6g}° (calibrated), outside "
                             f"its range [{lo:g}°, {hi:g}°]")
    return physical


def whole_degrees(physical: ArrayLike) -> np.ndarray:
    """The board's whole degrees, rounded half up (within range when physical is, as the
    ranges are whole degrees)."""
    return np.floor(np.asarray(physical) + 0.5).astype(int)


def check_speed(speed: float, banner: pr.Banner) -> int:
    """A move speed (°/s) within the board's range, as the whole number sent."""
    lo, hi = banner.speed
    if not (isinstance(speed, (int, float, np.integer, np.floating)) and lo <= speed <= hi and speed == int(speed)):
        raise CommandRefused(f"speed {speed!r} °/s is outside the board's range [{lo}, {hi}] °/s (whole numbers)")
    return int(speed)


def check_stream_speed(robot: Robot, t: np.ndarray, physical: np.ndarray, banner: pr.Banner) -> None:
    """Every step of a stream within the speed limit: |Δ servo| / Δt ≤ banner.speed[1] for
    each servo between consecutive points (unrounded degrees: the trajectory's own speed).
    CommandRefused naming the joint, the points, the speed and the limit."""
    if len(t) < 2:
        return
    rate = np.abs(np.diff(physical, axis=0)) / np.diff(t)[:, None]
    vmax = banner.speed[1]
    bad = np.argwhere(rate > vmax * (1 + 1e-9))
    if bad.size:
        k, j = bad[0]
        raise CommandRefused(f"joint {_joint_names(robot)[j]!r} would turn at {rate[k, j]:.4g} °/s between "
                             f"points {k} and {k + 1} (t = {t[k]:.4g} s), over the limit of {vmax} °/s: "
                             "slow the trajectory down (retime it) or lower the rate")


def check_stream_steps(robot: Robot, ms: np.ndarray, degrees: np.ndarray, banner: pr.Banner) -> None:
    """The board's own rule on what is sent: |Δ whole degrees|·1000 ≤ top speed·ms for every
    servo and point (ms[k]: from point k−1 to k; ms[0] from where the arm is, degrees[0] there).
    Whole degrees step by 1° at a time, so a point less than 1000/top speed ms (10 ms) after the
    last cannot move a servo at all: CommandRefused says to lower the rate."""
    vmax = banner.speed[1]
    steps = np.abs(np.diff(np.asarray(degrees, dtype=np.int64), axis=0))
    bad = np.argwhere(steps * 1000 > vmax * np.asarray(ms[1:], dtype=np.int64)[:, None])
    if bad.size:
        k, j = bad[0]
        raise CommandRefused(f"joint {_joint_names(robot)[j]!r} would step {steps[k, j]}° (whole servo degrees) "
                             f"in {ms[k + 1]} ms between points {k} and {k + 1}, over the board's {vmax} °/s: give "
                             f"a rate of at most {vmax} Hz (one whole degree a point at the top speed) or slow the "
                             "trajectory down")


def check_stream_accel(robot: Robot, t: np.ndarray, physical: np.ndarray, banner: pr.Banner) -> None:
    """The trajectory's acceleration within the board's `accel`, from rest at its start to rest
    at its end: |v_k+1 − v_k| / Δt ≤ accel for each servo, v_k the speed of step k (unrounded
    degrees over its seconds), v = 0 before the first point and after the last, Δt the mean of
    the two steps' durations (one step's at either end). CommandRefused naming the joint."""
    if len(t) < 2:
        return
    dt = np.diff(t)
    v = np.diff(physical, axis=0) / dt[:, None]
    zero = np.zeros((1, v.shape[1]))
    dv = np.abs(np.diff(np.concatenate([zero, v, zero]), axis=0))
    span = np.concatenate([dt[:1], (dt[:-1] + dt[1:]) / 2, dt[-1:]])
    acc = dv / span[:, None]
    amax = banner.accel
    bad = np.argwhere(acc > amax * (1 + 1e-9))
    if bad.size:
        k, j = bad[0]
        where = ("from rest at its start" if k == 0 else "to rest at its end" if k == len(v) else
                 f"at point {k} (t = {t[k]:.4g} s)")
        raise CommandRefused(f"joint {_joint_names(robot)[j]!r} would accelerate at {acc[k, j]:.4g} °/s² {where}, "
                             f"over the board's {amax} °/s²: a trajectory must start and end at rest and change "
                             "speed smoothly (a quintic or trapezoidal timing, or a longer duration)")


def reached_q(robot: Robot, cal: Calibration, degrees: ArrayLike) -> np.ndarray:
    """The joint values (..., 5) the arm takes at whole physical servo degrees (..., 6)."""
    zero, sign, _ = servo_mapping(robot)  # not from_servo: a calibrated, rounded degree may sit a
    nominal = cal.to_nominal(degrees)[..., :5]  # fraction outside the nominal range
    return sign * (nominal - zero) / robot.angle_scale + 0.0


def quantisation_error(robot: Robot, cal: Calibration, q: ArrayLike, degrees: ArrayLike) -> np.ndarray:
    """|p(q) − p(q reached at `degrees`)|: how far the tool point moves (robot length unit, shape
    (...,)) because the servos take whole degrees — up to ~2.5 mm on a stretched Braccio."""
    p_wanted = fk(robot, q)[..., :3, 3]
    p_reached = fk(robot, reached_q(robot, cal, degrees))[..., :3, 3]
    return np.linalg.norm(p_wanted - p_reached, axis=-1)
