"""Hobby-servo degrees ↔ model joint values, from each joint's `servo` mapping in a robot file.

A joint's mapping is `{zero: z, sign: s, range: [lo, hi]}` (servo degrees): the servo reads z
when the model angle is 0 and turns with sign s, so for a revolute joint

    servo = z + s · degrees(q)        q = radians(s · (servo − z))

(a prismatic joint uses its length unit in place of degrees). Commands outside `range` are
refused rather than clipped: a silently clipped servo would put the arm somewhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .coerce import takes_robot
from .robot import Robot

_TOL = 1e-9  # servo degrees: float noise of the deg/rad conversions, not a real excess


def servo_mapping(robot: Robot) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """zero (n,), sign (n,), range (n, 2) of every joint; ValueError if any is missing."""
    maps: Sequence[Any] | None = robot.extras.get("servo")
    if not maps:
        raise InputError(f"robot {robot.name!r} has no servo mapping (no joint has a 'servo' entry)")
    if len(maps) != robot.n:
        raise InputError(f"robot {robot.name!r}: {len(maps)} servo mappings for {robot.n} joints")
    zero, sign, rng = np.empty(robot.n), np.empty(robot.n), np.empty((robot.n, 2))
    for i, m in enumerate(maps):
        if not m:
            raise InputError(f"robot {robot.name!r}: joint {robot.joint_names[i]!r} has no servo mapping")
        zero[i], sign[i] = float(m["zero"]), float(m["sign"])
        rng[i] = m.get("range", (-np.inf, np.inf))
    return zero, sign, rng


def _values(robot: Robot, x: ArrayLike, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what}: expected numbers, got {x!r}") from None
    if arr.ndim == 0 or arr.shape[-1] != robot.n:
        raise InputError(f"{what}: expected {robot.n} values for {robot.name!r} (shape (..., {robot.n})), "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{what}: contains NaN or infinity")
    return arr


def _check_range(robot: Robot, servo: np.ndarray, rng: np.ndarray, what: str) -> None:
    bad = (servo < rng[:, 0] - _TOL) | (servo > rng[:, 1] + _TOL)
    if np.any(bad):
        k = np.argwhere(bad)[0]
        j = int(k[-1])
        raise InputError(f"{what}: joint {robot.joint_names[j]!r} needs servo {servo[tuple(k)]:.6g} deg, "
                         f"outside its range [{rng[j, 0]:g}, {rng[j, 1]:g}]")


@takes_robot
def to_servo(robot: Robot, q: ArrayLike) -> np.ndarray:
    """Servo degrees for joint values q (..., n): servo = zero + sign · degrees(q).

    Raises ValueError for a robot without servo mappings or a q that needs a servo outside its
    range (the message names the joint).

    >>> import kinematica as km, numpy as np
    >>> braccio = km.load("braccio")
    >>> km.to_servo(braccio, braccio.q_home).round(9)
    array([ 90.,  45., 180., 180.,  90.])
    >>> km.to_servo(braccio, np.radians([[0, 0, 0, 0, 0], [30, 10, -20, 5, 45]])).round(9)
    array([[ 90.,  90.,  90.,  90.,  90.],
           [ 60., 100.,  70.,  95.,  45.]])
    """
    zero, sign, rng = servo_mapping(robot)
    q = _values(robot, q, "q")
    servo = zero + sign * (q * robot.angle_scale)
    _check_range(robot, servo, rng, "to_servo")
    return servo


@takes_robot
def from_servo(robot: Robot, degrees: ArrayLike) -> np.ndarray:
    """Joint values (..., n) for servo degrees (..., n): q = radians(sign · (servo − zero)).

    Raises ValueError for a robot without servo mappings or servo degrees outside a joint's
    range.

    >>> import kinematica as km, numpy as np
    >>> np.degrees(km.from_servo(km.load("braccio"), [90, 45, 180, 180, 90])).round(9)
    array([  0., -45.,  90.,  90.,   0.])
    """
    zero, sign, rng = servo_mapping(robot)
    servo = _values(robot, degrees, "servo degrees")
    _check_range(robot, servo, rng, "from_servo")
    return sign * (servo - zero) / robot.angle_scale + 0.0  # + 0.0: no −0 for a sign −1 joint at zero
