"""Compiled (Numba) Levenberg–Marquardt for pose targets: single.py's rules, one target at a time.

  pose error    e = [p_d − p; log(R_d Rᵀ)],  E = ½‖e‖²,  with the pose and Jacobian of q
                (kinematics/kernels.py's chain product)                         `pose_error`
  damped step   ik/damped.py's Δq = (JᵀJ + λI)⁻¹ Jᵀe, or Jᵀ(JJᵀ + λI)⁻¹e when J has fewer rows
                than columns (the smaller system), with its floors on λ, by Cholesky  `damped_step`
  one attempt   single.attempt: accept/reject or Chan's λ, joints pinned on a limit, clipping,
                stall, no progress, iteration cap, abandoning a solution outside   `attempt`
  one target    single.solve_one: the seed, then random restarts, wrapping into the limits,
                polishing a solution just outside; for N targets in one call    `solve_many`

single.py runs `_solve_one` for one target inside `single_kernel.solve` (seed, solve and verdict
in one call) and `solve_many` for a batch, both with restarts from Numba's generator seeded from
the caller's seed (so a batch of one is a single call), once `kinematica.compiled` has loaded this
module; `attempt` runs the attempts of single.py's own loop where that one runs (a history asked
for, a planar arm's pose); NumPy code (and batch.py's engine) otherwise. A damped system that is not
positive definite hands the attempt back to NumPy (FALLBACK), which solves it by least squares.

log(M) for M = R_d Rᵀ is `spatial.rotation_error_floats` compiled as it stands (the NumPy
single-target loop runs the same function on Python floats; `spatial.rotation_error` is its
batch form).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from ..kinematics.cache import JOINT_COLUMNS, REVOLUTE
from ..kinematics.kernels import pose_jacobian
from ..spatial import rotation_error_floats
from .limits import SNAP, wrap_floats

_F8 = types.float64
_TINY = float(np.finfo(np.float64).tiny)
_RO1, _RO2, _RO3 = (types.Array(_F8, d, "A", readonly=True) for d in (1, 2, 3))
_W1, _W2 = types.Array(_F8, 1, "A"), types.Array(_F8, 2, "A")
# the chain's constants and the pose/Jacobian buffers as kinematics/kernels.py takes them
_C2, _C3, _CW2 = (types.Array(_F8, 2, "C", readonly=True), types.Array(_F8, 3, "C", readonly=True),
                  types.Array(_F8, 2, "C"))


@njit(cache=True)
def _m(Rd, T, i, j):
    """Entry (i, j) of M = R_d Rᵀ."""
    return Rd[i, 0] * T[j, 0] + Rd[i, 1] * T[j, 1] + Rd[i, 2] * T[j, 2]


_rotation_error = njit(cache=True, inline="always")(rotation_error_floats)  # the NumPy path's very function


@njit(cache=True)
def _log_error(Rd, T, e):
    """e[3:6] = log(R_d Rᵀ) (e[0:3] holding p_d − p already); (E, |p_d − p|, θ)."""
    e[3], e[4], e[5], theta = _rotation_error(_m(Rd, T, 0, 0), _m(Rd, T, 0, 1), _m(Rd, T, 0, 2),
                                              _m(Rd, T, 1, 0), _m(Rd, T, 1, 1), _m(Rd, T, 1, 2),
                                              _m(Rd, T, 2, 0), _m(Rd, T, 2, 1), _m(Rd, T, 2, 2))
    pos2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
    E = 0.5 * (pos2 + e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
    return E, math.sqrt(pos2), theta


@njit(types.UniTuple(_F8, 3)(_C3, _C2, _RO1, _RO1, _RO2, _W1, _CW2, _CW2), cache=True)
def pose_error(C, joints, q, pd, Rd, e, T, J):
    """Pose T (4, 4) and Jacobian J (6, n) of q, the error e (6,) towards (pd, Rd); returns
    (E, position error, orientation error θ)."""
    pose_jacobian(C, joints, q, T, J)
    for r in range(3):
        e[r] = pd[r] - T[r, 3]
    return _log_error(Rd, T, e)


@njit(cache=True)
def _damped_step(Je, e, lam, dq, A, b):
    """`damped_step` with scratch A (k, k) and b (k,), k = min(m, n); dq also serves as scratch
    for the reciprocals of L's diagonal (multiplications instead of divisions)."""
    m, n = Je.shape
    small = n if n <= m else m
    for i in range(small):
        b[i] = 0.0
        for j in range(i + 1):
            A[i, j] = 0.0
    frob = 0.0
    if n <= m:  # JᵀJ (n, n) and Jᵀe, accumulated row by row of J (contiguous reads)
        for r in range(m):
            er = e[r]
            for i in range(n):
                x = Je[r, i]
                frob += x * x
                b[i] += x * er
                for j in range(i + 1):
                    A[i, j] += x * Je[r, j]
    else:  # JJᵀ (m, m), e
        for i in range(m):
            b[i] = e[i]
            for j in range(i + 1):
                acc = 0.0
                for c in range(n):
                    acc += Je[i, c] * Je[j, c]
                A[i, j] = acc
            frob += A[i, i]
    damp = max(lam, 1e-12 * frob, _TINY)  # damped.py's floors
    inv = dq  # 1 / L[j, j]
    for j in range(small):  # Cholesky A + λI = L Lᵀ in the lower triangle
        d = A[j, j] + damp
        for k in range(j):
            d -= A[j, k] * A[j, k]
        if not d > 0.0:
            return False
        d = math.sqrt(d)
        A[j, j] = d
        inv[j] = 1.0 / d
        for i in range(j + 1, small):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s * inv[j]
    for i in range(small):  # L y = b, then Lᵀ x = y (in b)
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s * inv[i]
    for i in range(small - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, small):
            s -= A[k, i] * b[k]
        b[i] = s * inv[i]
    if n <= m:
        for i in range(n):
            dq[i] = b[i]
    else:
        for c in range(n):
            acc = 0.0
            for r in range(m):
                acc += Je[r, c] * b[r]
            dq[c] = acc
    return True


@njit(types.boolean(_RO2, _RO1, _F8, _W1), cache=True)
def damped_step(Je, e, lam, dq):
    """Δq (n,) into dq for the residual e (m,) with Jacobian Je (m, n) and damping λ; False if
    the damped system is not positive definite in floating point (the caller then solves it
    by least squares)."""
    small = min(Je.shape[0], Je.shape[1])
    return _damped_step(Je, e, lam, dq, np.empty((small, small)), np.empty(small))


# single.attempt's settings, in this order in the `settings` array of `attempt`
SETTINGS = ("max_iter", "eps2", "lambda0", "lambda_down", "lambda_up", "chan_factor", "tol_position",
            "tol_orientation", "near_position", "near_orientation", "margin", "limit_tol", "no_progress",
            "restart_iter", "hard")
# statuses of numeric.py and pool.py, and one of this module: the attempt needs the NumPy path
_CONVERGED, _STALLED, _LIMIT, _AT_LIMIT, _OUTSIDE, FALLBACK = 0, 1, 2, 3, 4, -2


_wrapped = njit(cache=True)(wrap_floats)  # the NumPy single-target loop's very function


@njit(cache=True)
def _outside(q, lo, hi, rev, margin, limit_tol, scratch):
    """single.Problem.outside: a joint beyond its limits by more than margin once revolute
    joints are turned by 2π towards their range (`limits.wrap_floats`, into scratch)."""
    _wrapped(q, lo, hi, rev, limit_tol, scratch)
    for i in range(q.shape[0]):
        if scratch[i] < lo[i] - margin or scratch[i] > hi[i] + margin:
            return True
    return False


@njit(cache=True)
def _attempt(C, joints, pd, Rd, q0, lo, hi, settings, cap, clip, adaptive, active, enforce, q):
    """`attempt` with its iteration cap given."""
    n = q0.shape[0]
    eps2, lam = settings[1], settings[2]
    down, up, chan, tol_p, tol_o = settings[3], settings[4], settings[5], settings[6], settings[7]
    near_p, near_o, margin, limit_tol = settings[8], settings[9], settings[10], settings[11]
    no_progress = int(settings[12])
    qt, dq, Jh, qw = q0.copy(), np.empty(n), np.empty((6, n)), np.empty(n)
    rev = joints[:, 0] == REVOLUTE  # the joints a turn of 2π leaves in place (Robot.wraps)
    A, b = np.empty((min(6, n), min(6, n))), np.empty(min(6, n))
    e, e_t, T = np.empty(6), np.empty(6), np.empty((4, 4))
    Je, J_t = np.empty((6, n)), np.empty((6, n))
    E, it, best, since = math.inf, 0, math.inf, 0
    for j in range(n):
        q[j] = q0[j]
    while True:
        E_t, pos, ori = pose_error(C, joints, qt, pd, Rd, e_t, T, J_t)
        fresh = E == math.inf
        if not fresh:
            it += 1
        acc = (E_t < E) if adaptive else True
        if adaptive and not fresh:
            lam = lam / down if acc else lam * up
        if acc:  # the evaluated state becomes the current one: swap buffers, copy q
            e, e_t = e_t, e
            Je, J_t = J_t, Je
            E = E_t
            for j in range(n):
                q[j] = qt[j]
        if not adaptive:
            lam = chan * E
        if acc and pos < tol_p and ori < tol_o:
            return _CONVERGED, it
        held = False
        if active:  # limits.pinned: joints on a limit the descent direction pushes further out
            for j in range(n):
                g = 0.0
                for r in range(6):
                    g += Je[r, j] * e[r]
                pin = (q[j] <= lo[j] and g < 0) or (q[j] >= hi[j] and g > 0)
                held = held or pin
                for r in range(6):
                    Jh[r, j] = 0.0 if pin else Je[r, j]
        if not _damped_step(Jh if held else Je, e, lam, dq, A, b):
            return FALLBACK, it
        dd, qq = 0.0, 0.0
        for j in range(n):
            x = q[j] + dq[j]
            if clip:
                x = min(max(x, lo[j]), hi[j])
            qt[j] = x
            d = x - q[j] if clip else dq[j]
            dd += d * d
            qq += q[j] * q[j]
        if E < 0.5 * best:
            best, since = E, it
        if enforce and pos < near_p and ori < near_o and _outside(q, lo, hi, rev, margin, limit_tol, qw):
            return _OUTSIDE, it
        if (dd < eps2 * 1e12 and dd < eps2 * (1.0 + qq)) or it - since >= no_progress:
            at = False
            if clip:
                for j in range(n):
                    at = at or q[j] <= lo[j] or q[j] >= hi[j]
            return (_AT_LIMIT if at else _STALLED), it
        if it >= cap:
            return _LIMIT, it


@njit(types.UniTuple(types.int64, 2)(_C3, _C2, _RO1, _RO2, _RO1, _RO1, _RO1, _RO1, types.boolean,
                                     types.boolean, types.boolean, types.boolean, _W1), cache=True)
def attempt(C, joints, pd, Rd, q0, lo, hi, settings, clip, adaptive, active, enforce, q):
    """single.attempt for a pose target without history, from q0, at most settings[0]
    iterations: the end configuration into q and (status, iterations); status FALLBACK if a
    damped system was not positive definite (the caller reruns the attempt in NumPy, which
    then solves by least squares)."""
    return _attempt(C, joints, pd, Rd, q0, lo, hi, settings, int(settings[0]), clip, adaptive, active, enforce, q)


@njit(cache=True)
def _modes(seed_no, clip_first, adaptive_first, hard):
    """pool.modes for one attempt number: (clip, adaptive)."""
    late = seed_no > hard and seed_no % 2 == 1
    return (seed_no == 0 and clip_first) or late, (seed_no == 0 and adaptive_first) or late


@njit(cache=True)
def _solve_one(C, joints, pd, Rd, q0, lo, hi, slo, shi, settings, restarts, clip_first, adaptive_first,
               enforce, q_out, rseed=-1):
    """single.solve_one: the seed q0, then up to `restarts` random seeds (uniform in [slo, shi],
    Numba's generator, seeded with rseed before the first one unless rseed < 0) until an
    attempt converges within the limits; (status, iterations)."""
    n = q0.shape[0]
    max_iter, limit_tol, margin = int(settings[0]), settings[11], settings[10]
    short, hard = min(max_iter, int(settings[13])), int(settings[14])
    qa, told, qw, qp, seed = np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    rev, scratch = joints[:, 0] == REVOLUTE, np.empty(n)
    clip, adaptive = _modes(0, clip_first, adaptive_first, hard)
    status, iters = _attempt(C, joints, pd, Rd, q0, lo, hi, settings, max_iter, clip, adaptive, False, enforce, qa)
    if status == FALLBACK:
        return FALLBACK, iters
    told[:] = qa
    told_status = status
    for k in range(restarts + 1):
        if status == _CONVERGED:
            if not enforce:
                q_out[:] = qa
                return status, iters
            if _wrapped(qa, lo, hi, rev, limit_tol, qw):
                q_out[:] = qw
                return status, iters
            if not _modes(k, clip_first, adaptive_first, hard)[0] and not _outside(qa, lo, hi, rev, margin,
                                                                                   limit_tol, scratch):
                for j in range(n):  # just outside: pull it in, clipped, with accept/reject
                    qw[j] = min(max(qw[j], lo[j]), hi[j])
                sp, it = _attempt(C, joints, pd, Rd, qw, lo, hi, settings, max_iter if k == 0 else short,
                                  True, True, True, enforce, qp)
                if sp == FALLBACK:
                    return FALLBACK, iters
                iters += it
                if sp == _CONVERGED:
                    q_out[:] = qp
                    return sp, iters
        if (status == _CONVERGED or status == _OUTSIDE) and not (told_status == _CONVERGED
                                                                 or told_status == _OUTSIDE):
            told[:] = qa
            told_status = status
        if k == restarts:
            break
        if k == 0 and rseed >= 0:  # seeding costs ~1 µs: only for a target that restarts
            np.random.seed(rseed)
        clip, adaptive = _modes(k + 1, clip_first, adaptive_first, hard)
        for j in range(n):
            seed[j] = slo[j] + (shi[j] - slo[j]) * np.random.random()
        if clip:  # a bound-constrained restart: limits.snapped's rule on Numba's draws
            for j in range(n):
                u = np.random.random()
                if np.isfinite(lo[j]) and np.isfinite(hi[j]):
                    if u < SNAP / 2:
                        seed[j] = lo[j]
                    elif u > 1 - SNAP / 2:
                        seed[j] = hi[j]
        status, it = _attempt(C, joints, pd, Rd, seed, lo, hi, settings, short, clip, adaptive, clip, enforce, qa)
        if status == FALLBACK:
            return FALLBACK, iters
        iters += it
    if enforce:
        _wrapped(told, lo, hi, rev, limit_tol, q_out)
    else:
        q_out[:] = told
    return told_status, iters


@njit(types.void(_C3, _C2, _RO2, _RO3, _RO2, _RO1, _RO1, _RO1, _RO1, _RO1, types.int64, types.boolean,
                 types.boolean, types.boolean, types.int64, _W2, types.Array(types.int64, 1, "A"),
                 types.Array(types.int64, 1, "A")), cache=True)
def solve_many(C, joints, pd, Rd, seeds, lo, hi, slo, shi, settings, restarts, clip_first, adaptive_first,
               enforce, rseed, q, status, iters):
    """`_solve_one` for N pose targets (pd (N, 3), Rd (N, 3, 3)) from seeds (N, n): answers into
    q (N, n), statuses and iteration counts into status and iters (N,). Random restarts come
    from Numba's generator seeded with rseed: the same rseed, the same answers."""
    np.random.seed(rseed)
    for t in range(seeds.shape[0]):
        status[t], iters[t] = _solve_one(C, joints, pd[t], Rd[t], seeds[t], lo, hi, slo, shi, settings, restarts,
                                         clip_first, adaptive_first, enforce, q[t])


def warm() -> None:
    """Run the kernels once (compiled at import; this proves they run)."""
    C = np.broadcast_to(np.eye(4), (2, 4, 4)).copy()
    joints, q = np.zeros((1, JOINT_COLUMNS)), np.zeros(1)  # one revolute joint
    e, T, J, dq = np.empty(6), np.empty((4, 4)), np.empty((6, 1)), np.empty(1)
    pose_error(C, joints, q, np.zeros(3), np.eye(3), e, T, J)
    if not damped_step(J, e, 1e-3, dq):
        raise RuntimeError("the damped step kernel failed on a well-posed system")
    settings = np.array([10, 1e-24, 1e-3, 10, 10, 0.1, 1e-6, 1e-6, 1e-2, 1e-2, 0.05, 1e-9, 8, 5, 2], dtype=float)
    lim = np.array([-1.0]), np.array([1.0])
    attempt(C, joints, np.zeros(3), np.eye(3), q, *lim, settings, True, True, True, True, dq)
    status, iters = np.empty(1, np.int64), np.empty(1, np.int64)
    solve_many(C, joints, np.zeros((1, 3)), np.eye(3)[None], q[None], *lim, *lim, settings, 2, True, True, True, 1,
               dq[None], status, iters)
