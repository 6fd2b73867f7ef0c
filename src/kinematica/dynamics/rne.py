"""Recursive Newton–Euler inverse dynamics τ = M(q) q̈ + C(q, q̇) q̇ + g(q) (+ friction, armature,
external wrench), batched over (..., n), computed in base coordinates.

Forward pass, link i from link i−1 (o_i: the point of joint i on link i; z_i its axis):
  revolute   ω_i = ω_{i−1} + z_i q̇_i,   α_i = α_{i−1} + z_i q̈_i + ω_{i−1} × z_i q̇_i,
             a_i = a_{i−1} + α_{i−1} × r + ω_{i−1} × (ω_{i−1} × r),   r = o_i − o_{i−1}
  prismatic  ω_i = ω_{i−1},  α_i = α_{i−1},  a_i = (the same) + z_i q̈_i + 2 ω_{i−1} × z_i q̇_i
with a_0 = −g (gravity enters as an upward acceleration of the base). At the centre of mass
c_i: a_ci = a_i + α_i × d + ω_i × (ω_i × d), d = c_i − o_i; then
  F_i = m_i a_ci,   N_i = I_i α_i + ω_i × I_i ω_i   (I_i turned into base coordinates).
Backward pass, from the tool: f_i = F_i + f_{i+1},
  n_i = N_i + d × F_i + n_{i+1} + (o_{i+1} − o_i) × f_{i+1},
  τ_i = z_i · n_i (revolute) or z_i · f_i (prismatic).
A wrench w = (f, m) that the environment applies to the tool enters as f_{n+1} = −f, n_{n+1} = −m
at the tool point, i.e. τ = τ_free − Jᵀ w. All in SI: N·m for revolute joints, N for prismatic.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..model.robot import Robot
from .params import GRAVITY, link_params


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b for (..., 3) arrays (np.cross costs several times more on small batches)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _geometry(robot: Robot, Q: np.ndarray, s: float):
    """World axes z (N, n, 3), joint points o (N, n, 3), centres of mass c (N, n, 3), inertias
    I (N, n, 3, 3) and the tool point (N, 3), all in metres."""
    p = link_params(robot)
    F = fk_frames(robot, Q)
    joint = F[:, 1:-1] @ np.linalg.inv(robot.after)  # frame after J_i, before A_i: z is the axis
    R = F[:, 1:-1, :3, :3]
    z = joint[..., :3, 2]
    o = joint[..., :3, 3] * s
    c = np.einsum("knij,nj->kni", R, p.com) + F[:, 1:-1, :3, 3] * s
    I = R @ p.inertia @ np.swapaxes(R, -1, -2)
    return z, o, c, I, F[:, -1, :3, 3] * s


def _forward(robot, z, o, c, I, qd, qdd, gravity):
    """Link twists and the net force F (N, n, 3) and moment N (N, n, 3) of every link."""
    mass = link_params(robot).mass
    Nb, n = qd.shape
    w = np.zeros((Nb, 3))
    al = np.zeros((Nb, 3))
    a = np.broadcast_to(-np.asarray(gravity, float), (Nb, 3)).copy()
    o_prev = np.zeros((Nb, 3))
    Fo, No = np.empty((Nb, n, 3)), np.empty((Nb, n, 3))
    for i in range(n):
        zi, r = z[:, i], o[:, i] - o_prev
        a = a + _cross(al, r) + _cross(w, _cross(w, r))
        wz = _cross(w, zi) * qd[:, i, None]
        if robot.revolute[i]:
            al = al + zi * qdd[:, i, None] + wz
            w = w + zi * qd[:, i, None]
        else:
            a = a + zi * qdd[:, i, None] + 2.0 * wz
        d = c[:, i] - o[:, i]
        ac = a + _cross(al, d) + _cross(w, _cross(w, d))
        Fo[:, i] = mass[i] * ac
        Iw = np.einsum("kij,kj->ki", I[:, i], w)
        No[:, i] = np.einsum("kij,kj->ki", I[:, i], al) + _cross(w, Iw)
        o_prev = o[:, i]
    return Fo, No


def _backward(robot, z, o, c, Fo, No, tool, wrench):
    Nb, n = Fo.shape[:2]
    f = -wrench[:, :3]
    m = -wrench[:, 3:]
    o_next = tool
    tau = np.empty((Nb, n))
    for i in reversed(range(n)):
        m = No[:, i] + _cross(c[:, i] - o[:, i], Fo[:, i]) + m + _cross(o_next - o[:, i], f)
        f = Fo[:, i] + f
        tau[:, i] = np.einsum("kj,kj->k", z[:, i], m if robot.revolute[i] else f)
        o_next = o[:, i]
    return tau


def _state(robot: Robot, q, qd, qdd):
    q = check_q(robot, q)
    qd = np.broadcast_to(check_q(robot, qd, "qd"), q.shape)
    qdd = np.broadcast_to(check_q(robot, qdd, "qdd"), q.shape)
    return q, qd, qdd


def rne(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, gravity: ArrayLike = GRAVITY,
        wrench: ArrayLike | None = None, friction: bool = True) -> np.ndarray:
    """Joint torques/forces τ (..., n) that produce accelerations qdd at (q, qd).

    q, qd, qdd: (..., n), rad(/s, /s²) or the length unit for prismatic joints; gravity: base-frame
    vector in m/s² (default (0, 0, −9.80665)); wrench: (..., 6) force (N) and moment (N·m) the
    environment applies to the tool, base frame; friction: add the robot's viscous and Coulomb
    friction and armature terms when it has them. Result in N·m (revolute) and N (prismatic).

    >>> import kinematica as km
    >>> tau = km.rne(km.load("arm-5dof"), [0, 0, 0, 0, 0], [0] * 5, [0] * 5)
    >>> tau.round(4)  # holding the horizontal arm against gravity
    array([0.    , 2.5443, 0.6075, 0.    , 0.    ])
    """
    q, qd, qdd = _state(robot, q, qd, qdd)
    p = link_params(robot)
    s = p.scale
    shape = q.shape
    Q, QD, QDD = (x.reshape(-1, robot.n) for x in (q, qd, qdd))
    scale = np.where(robot.revolute, 1.0, s)  # prismatic rates to m/s
    Wr = np.zeros((Q.shape[0], 6)) if wrench is None else np.broadcast_to(
        np.asarray(wrench, float), shape[:-1] + (6,)).reshape(-1, 6)
    if not np.all(np.isfinite(Wr)):
        raise ValueError("wrench: contains NaN or infinity")
    z, o, c, I, tool = _geometry(robot, Q, s)
    Fo, No = _forward(robot, z, o, c, I, QD * scale, QDD * scale, gravity)
    tau = _backward(robot, z, o, c, Fo, No, tool, Wr)
    if friction:
        tau = tau + p.armature * QDD * scale + p.viscous * QD * scale + p.coulomb * np.sign(QD)
    return tau.reshape(shape)
