"""Recursive Newton–Euler inverse dynamics τ = M(q) q̈ + C(q, q̇) q̇ + g(q) (+ friction, armature,
external wrench), batched over (..., n).

The recursion runs in the joints' own frames, where each link's inertia is constant
(newton_euler.py states the formulas; local.py the frames and constants), in the compiled core
(src/core/rne.cpp) on the robot's packed tables (packing.py) for every call, one state or many.
The same formulas traced into straight-line programs (trace.py, programs.py) compute the other
terms of the equation of motion (terms.py).
Friction: τ_f = b q̇ + τ_c sign(q̇) (viscous, Coulomb) and the armature term J_m q̈.
All in SI: N·m for revolute joints, N for prismatic ones.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..kinematics.cache import cache_if_made
from ..kinematics.chain import check_q
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..typing import QD, QDD, Q, Torques
from .packing import dynamics_handle
from .params import GRAVITY

SMALL = 16  # up to this many states, a loop over single states beats a traced program's rows (terms.py)


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
    if x.shape == q.shape:
        return x
    try:
        return np.broadcast_to(x, q.shape)
    except ValueError:
        raise InputError(f"{what}: shape {x.shape} does not fit q's {q.shape}") from None


def _rne_default(robot: Robot, q: object, qd: object, qdd: object, friction: bool) -> np.ndarray | None:
    """τ of km.rne's default call (standard gravity, no wrench) when the core takes the inputs as
    they are — one state of float64 (n,) arrays, or arrays of one shape (..., n) — else None (and
    None for NaN or infinity): `rne`'s checks then name what is wrong. For a batch the Python
    checks were a tenth of the time."""
    cache = cache_if_made(robot)  # the handle, made by the first full call
    if cache is not None and cache.dynamics is not None:
        try:  # the core checks that q, qd, qdd are float64 arrays of shape (n,): None if not
            tau = cache.dynamics[0].rne_one(q, qd, qdd, friction)
            if tau is not None:
                return tau
        except ValueError:
            return None
    if not (type(q) is np.ndarray and type(qd) is np.ndarray and type(qdd) is np.ndarray
            and q.ndim > 1 and q.shape == qd.shape == qdd.shape):
        return None
    hd = dynamics_handle(robot)
    try:  # (states() checks the last axis is n; other dtypes are converted as np.asarray does)
        return hd.core.rne(q, qd, qdd, GRAVITY, None, hd.rough and bool(friction))
    except (IndexError, TypeError, ValueError):
        return None


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
    if gravity is GRAVITY and wrench is None:  # the default call: straight to the core
        tau = _rne_default(robot, q, qd, qdd, friction)
        if tau is not None:
            return tau
    q = check_q(robot, q)
    qd, qdd = check_like(robot, q, qd, "qd"), check_like(robot, q, qdd, "qdd")
    gravity_kind(gravity)  # the checks: one finite vector of shape (3,)
    g = GRAVITY if gravity is GRAVITY else np.asarray(gravity, dtype=float)
    W = None if wrench is None else check_vector(wrench, 6, "wrench")
    if W is not None and W.ndim > 1:  # one per state (NumPy's error if the shapes disagree)
        W = np.ascontiguousarray(np.broadcast_to(W, q.shape[:-1] + (6,)))
    hd = dynamics_handle(robot)
    qd, qdd = np.ascontiguousarray(qd), np.ascontiguousarray(qdd)  # (broadcast views: stride 0)
    return hd.core.rne(q, qd, qdd, g, W, hd.rough and bool(friction))

