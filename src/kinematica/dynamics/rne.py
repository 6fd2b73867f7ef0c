"""Recursive Newton–Euler inverse dynamics τ = M(q) q̈ + C(q, q̇) q̇ + g(q) (+ friction, armature,
external wrench), batched over (..., n).

The recursion runs in the joints' own frames, where each link's inertia is constant
(newton_euler.py states the formulas; local.py the frames and constants). It is traced once per
robot into a straight-line program with the robot's constants folded in (trace.py), which runs
on Python floats for one state and on NumPy rows of a chunk of states for a batch
(programs.py). Once `kinematica.compiled` has loaded the Numba kernels, one state runs the
compiled recursion of rne_kernel.py instead (the same formulas, 1–3 µs).
Friction: τ_f = b q̇ + τ_c sign(q̇) (viscous, Coulomb) and the armature term J_m q̈.
All in SI: N·m for revolute joints, N for prismatic ones.
"""

from __future__ import annotations

from ..errors import InputError

import math

import numpy as np
from numpy.typing import ArrayLike

from .. import compiled
from ..kinematics.cache import cache_of
from ..kinematics.chain import check_q, shaped_q
from ..model.robot import Robot
from . import programs as pg
from .local import Local, local
from .params import GRAVITY
from ..model.coerce import takes_robot
from ..typing import QD, QDD, Q, Torques

SMALL = 16  # up to this many states a loop over single states beats the vectorised pass


def check_vector(x: ArrayLike, size: int, what: str) -> np.ndarray:
    """x as a float array with a last axis of `size`; a ValueError for NaN, inf or another shape."""
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[-1] != size:
        raise InputError(f"{what}: expected shape (..., {size}), got {a.shape}")
    if not math.isfinite(a.sum()) and not np.isfinite(a).all():
        raise InputError(f"{what}: contains NaN or infinity")
    return a


def gravity_kind(gravity: ArrayLike) -> tuple[list[float], tuple[bool, bool, bool]]:
    """The non-zero gravity components (the programs' inputs) and which ones they are."""
    g = np.asarray(gravity, dtype=float)
    if g.shape != (3,):
        raise InputError(f"gravity: expected one vector of shape (3,), got {g.shape}")
    g = g.tolist()
    if not all(map(math.isfinite, g)):
        raise InputError("gravity: contains NaN or infinity")
    return [v for v in g if v != 0.0], (g[0] != 0.0, g[1] != 0.0, g[2] != 0.0)


def check_like(robot: Robot, q: np.ndarray, x: ArrayLike, what: str) -> np.ndarray:
    """x checked as joint values and broadcast to q's shape."""
    x = check_q(robot, x, what)
    return x if x.shape == q.shape else np.broadcast_to(x, q.shape)


@takes_robot
def rne(robot: Robot, q: Q, qd: QD, qdd: QDD, *, gravity: ArrayLike = GRAVITY,
        wrench: ArrayLike | None = None, friction: bool = True) -> Torques:
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
    k = compiled.ready("rne")
    if k is not None and gravity is GRAVITY and wrench is None and type(q) is type(qd) is type(qdd) is np.ndarray:
        packed = cache_of(robot).rne  # filled by the first call below: then one lookup, no checks
        if packed is not None and q.dtype is qd.dtype is qdd.dtype is _F8 and \
                q.shape == qd.shape == qdd.shape == packed[2]:
            tau = np.empty(q.shape)
            if k.rne_standard(packed[0], q, qd, qdd, friction and packed[1], tau):
                return tau  # (else NaN or infinity: the general code below names which input)
    q = shaped_q(robot, q)
    if q.ndim == 1:  # one state: the compiled kernel when loaded (kinematica.compiled)
        k = compiled.kernels("rne")
        if k is not None:
            tau = _rne_compiled(k, robot, q, qd, qdd, gravity, wrench, friction)
            if tau is not None:
                return tau
    q = check_q(robot, q)
    qd, qdd = check_like(robot, q, qd, "qd"), check_like(robot, q, qdd, "qdd")
    L = local(robot)
    g, g_on = gravity_kind(gravity)
    W = None if wrench is None else check_vector(wrench, 6, "wrench")
    kind = pg.Kind("rne", True, True, g_on, W is not None)
    if q.ndim == 1:  # one state: floats all along
        w = None if W is None else np.broadcast_to(W, (6,)).tolist()
        return np.array(_rne_single(L, kind, q.tolist(), qd.tolist(), qdd.tolist(), g, w, friction))
    if q.size <= SMALL * robot.n:  # a few states: a loop of the above beats a vectorised pass
        Q, QD, QDD = (x.reshape(-1, robot.n).tolist() for x in (q, qd, qdd))
        Ws = [None] * len(Q) if W is None else np.broadcast_to(W, q.shape[:-1] + (6,)).reshape(-1, 6).tolist()
        tau = [_rne_single(L, kind, a, b, c, g, w, friction) for a, b, c, w in zip(Q, QD, QDD, Ws)]
        return np.array(tau).reshape(q.shape)
    Q, QD, QDD = (x.reshape(-1, robot.n) for x in (q, qd, qdd))
    if W is not None and W.ndim > 1:
        W = np.broadcast_to(W, q.shape[:-1] + (6,)).reshape(-1, 6)
    tau = np.empty(Q.shape)
    pg.run_rows(L, kind, pg.columns(tau), Q, QD, QDD, g, W)
    extra = pg.friction_rows(L, QD, QDD) if friction else None
    return (tau if extra is None else tau + extra).reshape(q.shape)


_F8 = np.dtype(float)
_NO_WRENCH = np.zeros(6)
_NO_WRENCH.setflags(write=False)


def _rne_compiled(k, robot: Robot, q: np.ndarray, qd: ArrayLike, qdd: ArrayLike, gravity: ArrayLike,
                  wrench: ArrayLike | None, friction: bool) -> np.ndarray | None:
    """`rne` of one state q (n,) through the kernel module k (rne_kernel.py); None when qd, qdd
    or the wrench hold several states (the general code broadcasts them). Input errors are
    those of the general code, in its order: NaN and infinity are caught by the kernel."""
    if not (type(qd) is np.ndarray and qd.dtype is _F8 and qd.shape == q.shape):  # (else: the same
        qd = shaped_q(robot, qd, "qd")                                             # checks, slower)
    if not (type(qdd) is np.ndarray and qdd.dtype is _F8 and qdd.shape == q.shape):
        qdd = shaped_q(robot, qdd, "qdd")
    if qd.ndim != 1 or qdd.ndim != 1:
        return None
    D, rough, _ = cache_of(robot).rne or rne_kernel_constants(robot)
    if gravity is GRAVITY:
        g = GRAVITY
    else:
        gravity_kind(gravity)  # the checks: one finite vector of shape (3,)
        g = np.asarray(gravity, dtype=float)
    W = _NO_WRENCH if wrench is None else check_vector(wrench, 6, "wrench")
    if W.ndim != 1:
        return None
    tau = np.empty(len(q))
    if not k.rne(D, q, qd, qdd, g, W, friction and rough, tau):
        for x, what in ((q, "q"), (qd, "qd"), (qdd, "qdd")):
            check_q(robot, x, what)
    return tau


def rne_kernel_constants(robot: Robot) -> tuple[np.ndarray, bool, tuple[int]]:
    """The kernel's packed constants of the robot, whether it has friction or armature and
    the shape (n,) of one state, kept in its cache (a DynamicsError, from `local`, if it lacks
    inertials)."""
    cache = cache_of(robot)
    if cache.rne is None:
        from .rne_kernel import pack  # with Numba: only once the kernels are loaded
        L = local(robot)
        cache.rne = (pack(L), L.rough, (robot.n,))
    return cache.rne


def _rne_single(L: Local, kind: pg.Kind, q, qd, qdd, g, wrench, friction: bool) -> list[float]:
    """τ of one state, floats in and out."""
    tau = pg.run_single(L, kind, q, qd, qdd, g, wrench)
    if not (friction and L.rough):
        return tau
    return [t + f for t, f in zip(tau, pg.friction_single(L, qd, qdd))]
