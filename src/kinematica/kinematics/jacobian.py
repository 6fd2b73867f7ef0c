"""Geometric Jacobians: J = [J_v; J_ω] with column i = [z_i × (p_e − p_i); z_i] for a revolute
joint, [z_i; 0] for a prismatic one and [z_i × (p_e − p_i) + h_i z_i; z_i] for a helical one of
pitch h_i (z_i, p_i: axis and a point of joint i; p_e: the tool), and the same re-expressed in
the tool frame or as *Modern Robotics*' space and body Jacobians — all computed by the compiled
core (`kinematics.handle`) for every call."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..typing import Jacobians, Q
from .cache import CACHE_KEY, RobotCache
from .chain import check_q, not_finite, shaped_q
from .handle import chain_handle

FRAMES = ("base", "tool", "space", "body")
_CODES = {name: code for code, name in enumerate(FRAMES)}  # the core's frame numbers


def _frame_code(frame: object) -> int:
    code = _CODES.get(frame) if isinstance(frame, str) else None
    if code is None:
        raise InputError(f"frame must be one of {', '.join(map(repr, FRAMES))}, got {frame!r}")
    return code


@takes_robot
def fk_jacobian(robot: Robot, q: ArrayLike, frame: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """End pose (..., 4, 4) and Jacobian (..., 6, n) from one pass along the chain (`jacobian`
    says what each frame gives)."""
    code = _frame_code(frame)
    q = shaped_q(robot, q)
    try:
        return chain_handle(robot)[0].fk_jacobian(q, code)
    except ValueError:
        not_finite()


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
    code = 0 if frame is FRAMES[0] else _frame_code(frame)  # the default, without a lookup
    cache: RobotCache | None = robot.__dict__.get(CACHE_KEY)  # chain_handle's lookup, inline: this is the hot path
    h = (cache.core if cache is not None and cache.core is not None else chain_handle(robot))[0]
    try:  # the core takes float64 (..., n) as it is and converts other numbers (np.ascontiguousarray)
        return h.jacobian(q, code)
    except (IndexError, TypeError, ValueError):  # a shape, non-numbers or NaN: said in words
        return h.jacobian(check_q(robot, q), code)
