"""Compiled (Numba) `km.ik` for one pose target in one call: seed, solve, verdict.

A single call spent ~230 small Python calls around ~10 µs of compiled arithmetic (issue 12:
236 µs a Puma 560 target against Robotics Toolbox's 53). Here the three steps of
`solve._ik_one` run in one kernel call:

  seed      where a closed form fits (spherical wrist, UR-type) and the call iterates freely
            ("wrap"): its branch nearest q0 inside the limits (`closed_kernel.nearest`); else q0
  solve     `lm_kernel._solve_one`: the seed, then random restarts until an attempt
            converges inside the limits
  verdict   a fresh FK of the returned q against the target (`lm_kernel.pose_error`: position
            error ‖p_d − p‖, orientation error θ = ∠(R_d Rᵀ)), the limits, and the
            singularity flag σ_min/σ_max < 1e-3 of J cleared by a bound where it can be:
            with G the smaller Gram matrix of J (J Jᵀ or Jᵀ J, eigenvalues σ²) and G = L Lᵀ,
            σ_min²/σ_max² ≥ 1/(tr G · ‖L⁻¹‖²_F); when that bound exceeds 1e-6 the flag is
            off, otherwise the caller takes the SVD (`verdict.near_singular`'s rule)

The verdict's FK sees only q and the target as the caller gave it (the robot's world frame:
used for spatial arms only, whose solver problem is the world problem itself).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from ..kinematics.cache import JOINT_COLUMNS
from . import closed_kernel, lm_kernel
from .closed_kernel import nearest
from .lm_kernel import FALLBACK, _solve_one, pose_error
from .verdict import NEAR_SINGULAR

_F8 = types.float64
_RO1, _RO2, _RO3 = (types.Array(_F8, d, "A", readonly=True) for d in (1, 2, 3))
_C2, _C3 = types.Array(_F8, 2, "C", readonly=True), types.Array(_F8, 3, "C", readonly=True)
_I1 = types.Array(types.int64, 1, "A", readonly=True)

CLEAR, UNDECIDED = 0.0, 1.0  # the singularity flag: off, or the SVD must decide
# flags of `solve`, in this order
FLAGS = ("clip_first", "adaptive_first", "enforce", "closed_form")


@njit(cache=True)
def _singular_bound(J):
    """tr G · ‖L⁻¹‖²_F for G = the smaller Gram matrix of J (m, n) (see the module
    docstring); inf when G is not positive definite in floating point."""
    m, n = J.shape
    k = min(m, n)
    G = np.empty((k, k))
    for i in range(k):
        for j in range(i + 1):
            acc = 0.0
            if m <= n:
                for c in range(n):
                    acc += J[i, c] * J[j, c]
            else:
                for r in range(m):
                    acc += J[r, i] * J[r, j]
            G[i, j] = acc
    trace = 0.0
    for i in range(k):
        trace += G[i, i]
    for j in range(k):  # Cholesky G = L Lᵀ in the lower triangle
        d = G[j, j]
        for c in range(j):
            d -= G[j, c] * G[j, c]
        if not d > 0.0:
            return math.inf
        d = math.sqrt(d)
        G[j, j] = d
        for i in range(j + 1, k):
            s = G[i, j]
            for c in range(j):
                s -= G[i, c] * G[j, c]
            G[i, j] = s / d
    inv2, x = 0.0, np.empty(k)
    for j in range(k):  # column j of L⁻¹ by forward substitution
        for i in range(k):
            if i < j:
                x[i] = 0.0
            elif i == j:
                x[i] = 1.0 / G[j, j]
            else:
                s = 0.0
                for c in range(j, i):
                    s -= G[i, c] * x[c]
                x[i] = s / G[i, i]
            inv2 += x[i] * x[i]
    return trace * inv2


@njit(cache=True)
def _verdict(C, joints, q, pd, Rd, lo, hi, settings, enforce):
    """(ok, position error, orientation error, inside the limits, singularity flag) of q from
    a fresh FK and Jacobian."""
    n = q.shape[0]
    e, T, J = np.empty(6), np.empty((4, 4)), np.empty((6, n))
    _, pos, ori = pose_error(C, joints, q, pd, Rd, e, T, J)
    limit_tol = settings[11]
    inside = True
    for j in range(n):
        inside = inside and lo[j] - limit_tol <= q[j] <= hi[j] + limit_tol
    ok = pos < settings[6] and ori < settings[7] and (inside or not enforce)
    clear = _singular_bound(J) < 1.0 / NEAR_SINGULAR ** 2
    return ok, pos, ori, inside, CLEAR if clear else UNDECIDED


@njit(types.UniTuple(_F8, 7)(_C3, _C2, _RO1, _RO2, _RO1, _RO2, _RO1, types.int64, _I1, types.int64, _RO1,
                              _RO3, _RO2, _RO2, types.Array(_F8, 1, "C")), cache=True)
def solve(C, joints, pd, Rd, q0, bounds, settings, restarts, flags, rseed, S, F, P, closed, q):
    """One pose target (pd (3,), Rd (3, 3)) from q0 (n,): bounds (4, n) the limits and the
    range of random seeds (lo, hi, slo, shi), settings in lm_kernel.SETTINGS order, flags in
    FLAGS order, rseed Numba's generator's seed for the restarts, (S, F, P, closed) the closed
    form's constants (`closed_kernel.constants`; any arrays of those shapes when flags[3] is
    0). The answer into q; returns (status, iterations, ok, position error, orientation error,
    inside, singularity flag), status lm_kernel.FALLBACK when NumPy must solve it."""
    lo, hi, slo, shi = bounds[0], bounds[1], bounds[2], bounds[3]
    enforce = flags[2] != 0
    seed = q0
    if flags[3] != 0:
        seed = np.empty(q0.shape[0])
        nearest(S, F, P, closed, pd, Rd, q0, enforce, seed)
    status, iters = _solve_one(C, joints, pd, Rd, seed, lo, hi, slo, shi, settings, restarts, flags[0] != 0,
                               flags[1] != 0, enforce, q, rseed)
    if status == FALLBACK:
        return float(status), float(iters), 0.0, 0.0, 0.0, 0.0, 0.0
    ok, pos, ori, inside, near = _verdict(C, joints, q, pd, Rd, lo, hi, settings, enforce)
    return float(status), float(iters), 1.0 if ok else 0.0, pos, ori, 1.0 if inside else 0.0, near


def warm() -> None:
    """Run the kernel once (compiled at import; this proves it runs), the closed forms too."""
    closed_kernel.warm()
    lm_kernel.warm()
    C = np.broadcast_to(np.eye(4), (2, 4, 4)).copy()
    joints, q = np.zeros((1, JOINT_COLUMNS)), np.zeros(1)  # one revolute joint
    settings = np.array([10, 1e-24, 1e-3, 10, 10, 0.1, 1e-6, 1e-6, 1e-2, 1e-2, 0.05, 1e-9, 8, 5, 2], dtype=float)
    bounds = np.array([[-1.0], [1.0], [-1.0], [1.0]])
    S, F, P, closed = np.zeros(closed_kernel.S_LEN), np.zeros((6, 3, 3)), np.zeros((2, 3)), np.zeros((6, 5))
    solve(C, joints, np.zeros(3), np.eye(3), q, bounds, settings, 2, np.array([1, 1, 1, 0]), 1, S, F, P, closed, q)
