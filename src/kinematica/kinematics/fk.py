"""Forward kinematics: the end pose and every intermediate frame, batched over (..., n), computed
by the compiled core (`kinematics.handle`: the robot's packed tables) for every call."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..typing import Poses, Q
from .cache import CACHE_KEY, RobotCache
from .chain import check_q, not_finite, shaped_q
from .handle import chain_handle


@takes_robot
def fk(robot: Robot, q: Q) -> Poses:
    """End-effector pose T = base · B1 · J1(q1) · A1 · … · Jn(qn) · An · tool.

    q: joint values, shape (n,) or (..., n) — rad for revolute, robot.length_unit for prismatic.
    Returns the base-to-tool homogeneous transforms, shape (..., 4, 4).

    >>> import kinematica as km, numpy as np
    >>> km.fk(km.load("planar-3r"), np.radians([30, 30, 20]))[:2, 3].round(2)
    array([30.79, 47.02])
    """
    cache: RobotCache | None = robot.__dict__.get(CACHE_KEY)  # chain_handle's lookup, inline: this is the hot path
    h = (cache.core if cache is not None and cache.core is not None else chain_handle(robot))[0]
    try:  # the core takes float64 (..., n) as it is and converts other numbers (np.ascontiguousarray)
        return h.fk(q)
    except (IndexError, TypeError, ValueError):  # a shape, non-numbers or NaN: said in words
        return h.fk(check_q(robot, q))


@takes_robot
def fk_frames(robot: Robot, q: ArrayLike) -> np.ndarray:
    """Every frame from base to tool, shape (..., n + 2, 4, 4):
    index 0 the base, i = 1..n link frame i (the DH frame i for a DH robot, the joint frame for
    link-frame and URDF robots), n + 1 the tool. Joint positions are `frames[..., :3, 3]`.

    >>> import kinematica as km, numpy as np
    >>> km.fk_frames(km.load("planar-3r"), np.radians([90, 0, 0]))[:, :2, 3].round(6)
    array([[ 0.,  0.],
           [ 0.,  0.],
           [ 0., 20.],
           [ 0., 40.],
           [ 0., 60.]])
    """
    q = shaped_q(robot, q)
    try:
        return chain_handle(robot)[0].frames(q)
    except ValueError:
        not_finite()
