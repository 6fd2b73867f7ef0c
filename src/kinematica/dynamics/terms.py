"""The terms of the equation of motion  M(q) q̈ + C(q, q̇) q̇ + g(q) + τ_f(q̇) = τ − Jᵀ w,
and forward dynamics.

  g(q)       = rne(q, 0, 0)                      gravity torques
  C(q, q̇) q̇  = rne(q, q̇, 0) with no gravity       Coriolis and centrifugal torques
  M(q)       composite-rigid-body algorithm (crba.py; the compiled core's src/core/crba.cpp
             computes it), armature on the diagonal
  q̈          = M⁻¹ (τ − τ_f − rne(q, q̇, 0, g, w))  forward dynamics, M = L D Lᵀ
Each is its own traced program (programs.py): the zero velocity, acceleration or gravity of a
term is folded away rather than computed. All SI: N·m and kg·m² for revolute joints, N and kg
for prismatic ones; prismatic rates and accelerations in and out are in the robot's length
unit per s (per s²).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.cache import cache_if_made
from ..kinematics.chain import check_q, not_finite
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import programs as pg
from .local import local
from .packing import dynamics_handle
from .params import GRAVITY, DynamicsError
from .rne import SMALL, check_like, check_vector, gravity_kind

BOUND = 1e12  # tr(M) tr(M⁻¹) below this proves λ_min > 1e-12 λ_max, the test of a regular M


def _torques(robot: Robot, kind: pg.Kind, q: np.ndarray, qd: np.ndarray | None, g: list[float]) -> np.ndarray:
    """A program of n outputs over q (..., n) (and qd): floats for one or a few states, rows
    for many."""
    L = local(robot)
    if q.ndim == 1:
        return np.array(pg.run_single(L, kind, q.tolist(), None if qd is None else qd.tolist(), g=g))
    Q = q.reshape(-1, robot.n)
    QD = None if qd is None else qd.reshape(-1, robot.n)
    if q.size <= SMALL * robot.n:
        QDs = [None] * len(Q) if QD is None else QD.tolist()
        rows = [pg.run_single(L, kind, a, b, g=g) for a, b in zip(Q.tolist(), QDs, strict=True)]
        return np.array(rows).reshape(q.shape)
    tau = np.empty(Q.shape)
    pg.run_rows(L, kind, pg.columns(tau), Q, QD, g=g)
    return tau.reshape(q.shape)


@takes_robot
def gravity_torques(robot: Robot, q: ArrayLike, gravity: ArrayLike = GRAVITY) -> np.ndarray:
    """g(q) (..., n): the torques that hold the arm still against gravity.

    >>> import kinematica as km
    >>> km.gravity_torques(km.load("arm-5dof"), [0, 0, 0, 0, 0]).round(4)
    array([0.    , 2.5443, 0.6075, 0.    , 0.    ])
    """
    q = check_q(robot, q)
    g, g_on = gravity_kind(gravity)
    return _torques(robot, pg.Kind("rne", gravity=g_on), q, None, g)


@takes_robot
def coriolis(robot: Robot, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """C(q, q̇) q̇ (..., n): Coriolis and centrifugal torques at joint speeds q̇."""
    q = check_q(robot, q)
    return _torques(robot, pg.Kind("rne", velocity=True), q, check_like(robot, q, qd, "qd"), [])


@takes_robot
def mass_matrix(robot: Robot, q: ArrayLike) -> np.ndarray:
    """M(q) (..., n, n), symmetric positive definite, armature included on the diagonal.

    >>> import kinematica as km, numpy as np
    >>> M = km.mass_matrix(km.load("puma560"), np.zeros(6))
    >>> bool(np.allclose(M, M.T)) and bool(np.all(np.linalg.eigvalsh(M) > 0))
    True
    """
    cache = cache_if_made(robot)  # the handle, made by the first call below: then one lookup
    hd = cache.dynamics if cache is not None else None
    if hd is not None:
        try:  # the core checks that q is a float64 array of shape (n,): None if not
            M = hd.core.mass_one(q)
            if M is not None:
                return M
        except ValueError:  # NaN or infinity: the checks below name the input
            pass
    if not (hd is not None and type(q) is np.ndarray and q.dtype is _F8 and q.shape[-1:] == hd.shape):
        q = check_q(robot, q)  # (an input error before a robot without inertials is one)
        hd = dynamics_handle(robot)
    try:
        return hd.core.mass_matrix(q)
    except ValueError:  # the core found NaN or infinity
        not_finite()


_F8 = np.dtype(float)


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


@takes_robot
def forward_dynamics(robot: Robot, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *,
                     gravity: ArrayLike = GRAVITY, wrench: ArrayLike | None = None) -> np.ndarray:
    """Joint accelerations q̈ (..., n) under torques τ (N·m / N) at state (q, q̇).

    >>> import kinematica as km, numpy as np
    >>> r = km.load("puma560"); q = np.zeros(6)
    >>> bool(np.allclose(km.forward_dynamics(r, q, q, km.gravity_torques(r, q)), 0, atol=1e-12))
    True
    """
    q = check_q(robot, q)
    qd, tau = check_like(robot, q, qd, "qd"), check_like(robot, q, tau, "tau")
    L, n = local(robot), robot.n
    g, g_on = gravity_kind(gravity)
    W = None if wrench is None else np.broadcast_to(check_vector(wrench, 6, "wrench"), q.shape[:-1] + (6,))
    kind = pg.Kind("solve", velocity=True, gravity=g_on, wrench=W is not None)
    Q, QD, TAU = (x.reshape(-1, n) for x in (q, qd, tau))
    Wf = None if W is None else W.reshape(-1, 6)
    if q.size <= SMALL * n:  # one or a few states: floats all along
        Ws = [None] * len(Q) if Wf is None else Wf.tolist()
        A = [_solve_single(robot, L, kind, a, b, c, g, gravity, w)
             for a, b, c, w in zip(Q.tolist(), QD.tolist(), TAU.tolist(), Ws, strict=True)]
        return np.array(A).reshape(q.shape)
    return _solve_rows(robot, L, kind, Q, QD, TAU, g, gravity, Wf).reshape(q.shape)


def _solve_rows(robot, L, kind, Q, QD, TAU, g, gravity, W) -> np.ndarray:
    """q̈ (N, n) of many states by the traced L D Lᵀ solve in rows; the exact test and solve for
    the states whose bound cannot prove M regular."""
    n = robot.n
    fric = pg.friction_rows(L, QD)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a singular M: checked below
        A, check = np.empty(Q.shape), np.empty((len(Q), n + 1))  # q̈; the pivots D and the bound
        pg.run_rows(L, kind, pg.columns(A) + pg.columns(check), Q, QD, g=g, W=W,
                    U=TAU if fric is None else TAU - fric)
    bad = ~((check[:, :n].min(axis=1) > 0) & (check[:, n] < BOUND))  # NaN: not proven either
    if bad.any():
        A[bad] = _solve_plain(robot, Q[bad], QD[bad], TAU[bad], gravity, None if W is None else W[bad])
    return A if L.si is None else A / L.si


def _solve_single(robot, L, kind, q, qd, tau, g, gravity, wrench) -> list[float]:
    """q̈ of one state (lists of floats) by the traced L D Lᵀ solve; the exact test and solve
    when the bound cannot prove M regular."""
    u = tau if not L.rough else [a - b for a, b in zip(tau, pg.friction_single(L, qd), strict=True)]
    try:
        out = pg.run_single(L, kind, q, qd, g=g, wrench=wrench, u=u)
    except ZeroDivisionError:  # a pivot exactly zero
        out = None
    n = robot.n
    if out is None or not (all(d > 0 for d in out[n:2 * n]) and out[2 * n] < BOUND):  # NaN: False
        a = _solve_plain(robot, np.array(q), np.array(qd), np.array(tau), gravity,
                         None if wrench is None else np.array(wrench))
    else:
        a = out[:n]
    return [x / s for x, s in zip(a, L.scale, strict=True)]


def _solve_plain(robot: Robot, q, qd, tau, gravity, wrench) -> np.ndarray:
    """q̈ (SI) from an explicit M after the exact eigenvalue test (a DynamicsError if M is
    singular): the rare states whose L D Lᵀ bound was inconclusive."""
    from .rne import rne

    M = mass_matrix(robot, q)
    _check_invertible(robot, M)
    bias = rne(robot, q, qd, np.zeros_like(q), gravity=gravity, wrench=wrench)  # with friction
    return np.linalg.solve(M, (tau - bias)[..., None])[..., 0]
