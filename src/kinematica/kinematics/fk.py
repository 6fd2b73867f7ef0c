"""Forward kinematics: the end pose and every intermediate frame, batched over (..., n)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import compiled
from ..model.robot import Robot
from .cache import single_call
from .chain import check_q, end_checked, end_pass, end_single, frames_pass, frames_single, not_finite, shaped_q
from ..model.coerce import takes_robot
from ..typing import Poses, Q

_SMALL = 4  # up to this many configurations, single-configuration calls are cheaper
_F8 = np.dtype(float)


@takes_robot
def fk(robot: Robot, q: Q) -> Poses:
    """End-effector pose T = base · B1 · J1(q1) · A1 · … · Jn(qn) · An · tool.

    q: joint values, shape (n,) or (..., n) — rad for revolute, robot.length_unit for prismatic.
    Returns the base-to-tool homogeneous transforms, shape (..., 4, 4).

    >>> import kinematica as km, numpy as np
    >>> km.fk(km.load("planar-3r"), np.radians([30, 30, 20]))[:2, 3].round(2)
    array([30.79, 47.02])
    """
    k = compiled.ready("chain")
    if k is not None and type(q) is np.ndarray and q.dtype is _F8:  # as `jacobian`'s fast path
        fast = single_call(robot)
        if q.shape == fast[2]:
            T = np.empty((4, 4))
            if k.pose(fast[0], fast[1], q, T):
                return T
            not_finite()
    q = shaped_q(robot, q)
    if q.ndim == 1:  # the common single call: its finiteness check rides on the kernel
        return end_checked(robot, q, False)[0]
    check_q(robot, q)
    Q = q.reshape(-1, robot.n)
    if 0 < Q.shape[0] <= _SMALL:
        T = np.stack([end_single(robot, qi, False)[0] for qi in Q])
    else:
        T = end_pass(robot, Q, False)[0]
    return T.reshape(q.shape[:-1] + (4, 4))


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
    q = check_q(robot, q)
    if q.ndim == 1:
        return frames_single(robot, q)
    Q = q.reshape(-1, robot.n)
    F = np.stack([frames_single(robot, qi) for qi in Q]) if 0 < Q.shape[0] <= _SMALL else frames_pass(robot, Q)
    return F.reshape(q.shape[:-1] + (robot.n + 2, 4, 4))
