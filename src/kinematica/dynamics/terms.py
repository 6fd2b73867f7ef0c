"""The terms of the equation of motion  M(q) q̈ + C(q, q̇) q̇ + g(q) + τ_f(q̇) = τ − Jᵀ w,
each obtained from Newton–Euler (Walker & Orin's method), and forward dynamics.

  g(q)       = rne(q, 0, 0)                      gravity torques
  C(q, q̇) q̇  = rne(q, q̇, 0) with no gravity       Coriolis and centrifugal torques
  M(q) e_j   = rne(q, 0, e_j) with no gravity     column j of the mass matrix (+ armature)
  q̈          = M⁻¹ (τ − C q̇ − g − τ_f + Jᵀ w)    forward dynamics
All SI: N·m and kg·m² for revolute joints, N and kg for prismatic ones; prismatic rates and
accelerations in and out are in the robot's length unit per s (per s²).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.chain import check_q
from ..model.robot import Robot
from .params import GRAVITY, DynamicsError, link_params
from .rne import rne

_NO_GRAVITY = np.zeros(3)


def gravity_torques(robot: Robot, q: ArrayLike, gravity: ArrayLike = GRAVITY) -> np.ndarray:
    """g(q) (..., n): the torques that hold the arm still against gravity.

    >>> import kinematica as km
    >>> km.gravity_torques(km.load("arm-5dof"), [0, 0, 0, 0, 0]).round(4)
    array([0.    , 2.5443, 0.6075, 0.    , 0.    ])
    """
    q = check_q(robot, q)
    zero = np.zeros_like(q)
    return rne(robot, q, zero, zero, gravity=gravity, friction=False)


def coriolis(robot: Robot, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """C(q, q̇) q̇ (..., n): Coriolis and centrifugal torques at joint speeds q̇."""
    q = check_q(robot, q)
    return rne(robot, q, qd, np.zeros_like(q), gravity=_NO_GRAVITY, friction=False)


def mass_matrix(robot: Robot, q: ArrayLike) -> np.ndarray:
    """M(q) (..., n, n), symmetric positive definite, armature included on the diagonal.

    >>> import kinematica as km, numpy as np
    >>> M = km.mass_matrix(km.load("puma560"), np.zeros(6))
    >>> bool(np.allclose(M, M.T)) and bool(np.all(np.linalg.eigvalsh(M) > 0))
    True
    """
    q = check_q(robot, q)
    n = robot.n
    Q = np.repeat(q.reshape(-1, 1, n), n, axis=1)  # one problem per column of M
    E = np.broadcast_to(np.eye(n), Q.shape)
    cols = rne(robot, Q, np.zeros_like(Q), E, gravity=_NO_GRAVITY, friction=False)
    p = link_params(robot)
    # rne read e_j in the robot's units: a prismatic column came out scaled by metres per unit
    M = np.swapaxes(cols, -1, -2) * np.where(robot.revolute, 1.0, 1.0 / p.scale)
    M = 0.5 * (M + np.swapaxes(M, -1, -2)) + np.diag(p.armature)
    return M.reshape(q.shape[:-1] + (n, n))


def _check_invertible(robot: Robot, M: np.ndarray) -> None:
    """Forward dynamics needs M⁻¹: a link with no inertia about its own joint axis (point masses on
    the axis, as in models built from masses alone) leaves that joint without any inertia."""
    ev = np.linalg.eigvalsh(M)
    bad = ev[..., 0] <= 1e-12 * np.maximum(ev[..., -1], 1e-300)
    if np.any(bad):
        d = np.diagonal(M.reshape(-1, robot.n, robot.n)[np.flatnonzero(bad.reshape(-1))[0]])
        j = int(np.argmin(d))
        raise DynamicsError(
            f"{robot.name!r}: the mass matrix is singular (joint {robot.joint_names[j]} has "
            f"{d[j]:.3g} of inertia): forward dynamics needs every moving link to have inertia about "
            f"its joint axis — give the links inertia tensors or solid shapes, or an armature")


def forward_dynamics(robot: Robot, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *,
                     gravity: ArrayLike = GRAVITY, wrench: ArrayLike | None = None) -> np.ndarray:
    """Joint accelerations q̈ (..., n) under torques τ (N·m / N) at state (q, q̇).

    >>> import kinematica as km, numpy as np
    >>> r = km.load("puma560"); q = np.zeros(6)
    >>> bool(np.allclose(km.forward_dynamics(r, q, q, km.gravity_torques(r, q)), 0, atol=1e-12))
    True
    """
    q = check_q(robot, q)
    qd = np.broadcast_to(check_q(robot, qd, "qd"), q.shape)
    tau = np.broadcast_to(check_q(robot, tau, "tau"), q.shape)
    p = link_params(robot)
    bias = rne(robot, q, qd, np.zeros_like(q), gravity=gravity, wrench=wrench)  # includes friction
    M = mass_matrix(robot, q)
    _check_invertible(robot, M)
    a = np.linalg.solve(M, (tau - bias)[..., None])[..., 0]  # SI accelerations
    return a * np.where(robot.revolute, 1.0, 1.0 / p.scale)
