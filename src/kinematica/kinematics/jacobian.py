"""Geometric Jacobians: J = [J_v; J_ω] with column i = [z_i × (p_e − p_i); z_i] for a revolute
joint and [z_i; 0] for a prismatic one (z_i, p_i: axis and a point of joint i; p_e: the tool)."""

from __future__ import annotations

from ..errors import InputError

import numpy as np
from numpy.typing import ArrayLike

from .. import compiled
from ..model.robot import Robot
from .cache import single_call
from .chain import check_q, end_checked, end_pass, end_single, jacobian_checked, not_finite, shaped_q
from .fk import _SMALL
from ..model.coerce import takes_robot
from ..typing import Jacobians, Q

FRAMES = ("base", "tool", "space", "body")
_F8 = np.dtype(float)


@takes_robot
def fk_jacobian(robot: Robot, q: ArrayLike, frame: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """End pose (..., 4, 4) and Jacobian (..., 6, n) from one pass along the chain (`jacobian`
    says what each frame gives)."""
    if frame not in FRAMES:
        raise InputError(f"frame must be one of {', '.join(map(repr, FRAMES))}, got {frame!r}")
    q = shaped_q(robot, q)
    if q.ndim == 1:  # the common single call: stacking and reshaping would double its time
        T, J = end_checked(robot, q, True)
    else:
        check_q(robot, q)
        Q = q.reshape(-1, robot.n)
        if 0 < Q.shape[0] <= _SMALL:
            pairs = [end_single(robot, qi, True) for qi in Q]
            T = np.stack([p[0] for p in pairs])
            J = np.stack([p[1] for p in pairs])
        else:
            T, J = end_pass(robot, Q, True)
        T, J = T.reshape(q.shape[:-1] + (4, 4)), J.reshape(q.shape[:-1] + (6, robot.n))
    if frame == "tool":
        J = to_tool_frame(J, T)
    elif frame == "space":
        J = space_twist(J, T)
    elif frame == "body":
        J = to_tool_frame(J, T)[..., [3, 4, 5, 0, 1, 2], :]
    return T, J


def space_twist(J: np.ndarray, T: np.ndarray) -> np.ndarray:
    """The space Jacobian J_s = [J_ω; J_v + p × J_ω] (rows ω; v) from base-frame Jacobians (v; ω)
    at the tool point p: v_s is the velocity of the body point passing the base origin,
    ṗ − ω × p."""
    Jw = J[..., 3:, :]
    p = T[..., :3, 3]
    return np.concatenate([Jw, J[..., :3, :] + np.cross(p[..., None, :], np.swapaxes(Jw, -1, -2)).swapaxes(-1, -2)],
                          axis=-2)


@takes_robot
def jacobian(robot: Robot, q: Q, frame: str = "base") -> Jacobians:
    """Jacobian (..., 6, n) mapping q̇ to the tool's twist.

    frame="base" (default): rows (v; ω) in base coordinates, v the velocity of the tool point —
    the geometric Jacobian of Siciliano and of Robotics Toolbox's `jacob0`;
    frame="tool": the same rows expressed in the tool frame (`jacobe`);
    frame="space" and "body": *Modern Robotics*' J_s and J_b, rows (ω; v) — note the order —
    where v_s is the velocity of the body point at the base origin (ṗ − ω × p, not ṗ) and J_b
    is the tool frame's twist, (ω; v) in tool coordinates (`JacobianSpace`, `JacobianBody`).
    Units: length_unit/rad for revolute columns, dimensionless for prismatic ones.

    >>> import kinematica as km
    >>> km.jacobian(km.load("arm-4dof"), [0, 0, 0, 0])[:3].round(3) + 0.0  # + 0.0 drops −0
    array([[  0.,   0.,   0.,   0.],
           [270.,   0.,   0.,   0.],
           [  0., 270., 188.,  60.]])
    """
    if frame == "base":  # the common single call, straight to the chain's kernel
        k = compiled.ready("chain")
        if k is not None and type(q) is np.ndarray and q.dtype is _F8:  # a float array: the
            fast = single_call(robot)                                    # checks are its shape …
            if q.shape == fast[2]:
                J = np.empty(fast[3])
                if k.jacobian(fast[0], fast[1], q, J):  # … and the kernel's finiteness test
                    return J
                not_finite()
        q = shaped_q(robot, q)
        if q.ndim == 1:
            return jacobian_checked(robot, q)
    return fk_jacobian.__wrapped__(robot, q, frame)[1]


def to_tool_frame(J: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Re-express base-frame Jacobians in the tool frame: blockdiag(Rᵀ, Rᵀ) · J."""
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out = np.empty_like(J)
    out[..., :3, :] = Rt @ J[..., :3, :]
    out[..., 3:, :] = Rt @ J[..., 3:, :]
    return out
