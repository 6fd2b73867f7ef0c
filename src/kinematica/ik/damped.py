"""The damped least-squares step of Levenberg–Marquardt (and of DLS with a fixed λ):

  Δq = (J_eᵀ J_e + λI)⁻¹ J_eᵀ e      (n x n system, when J_e has at least as many rows k as columns n)
     = J_eᵀ (J_e J_eᵀ + λI)⁻¹ e      (k x k system otherwise: the same Δq, the smaller system)

e is the (weighted) residual, J_e its Jacobian, λ ≥ 0 the damping; Δq in joint units. λ is
floored at 1e-12·‖J_e‖²_F (= 1e-12·tr JᵀJ: the system stays solvable at an exact singularity)
and at the smallest normal float (a zero Jacobian with λ = 0, a zero-length arm).

`damped_steps` solves a batch (the batch on the last axis, as the batch engine keeps it);
`damped_step` one problem, for the NumPy single-target loop, by the compiled core's Cholesky
solve (`_core.damped_step`, the one the core's LM takes; src/core/lm.cpp), with least squares
where the system is not positive definite in floating point.
"""

from __future__ import annotations

import numpy as np

from .linsolve import spd_solve_last

SMALL = 64  # below this many problems LAPACK per system beats ~40 calls of the unrolled Cholesky
_TINY = float(np.finfo(float).tiny)


def damped_steps(Je: np.ndarray, e: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Δq (n, P) for P problems: Je (k, n, P), e (k, P), λ (P,); formed and solved with the
    batch on the last axis, through the smaller of the n x n and k x k systems."""
    k, n, P = Je.shape
    m = min(n, k)
    A = np.empty((m, m, P))
    if n <= k:
        for i in range(n):  # lower triangle, column i: Σ_r J_r,i · J_r,i:
            np.einsum("rjP,rP->jP", Je[:, i:], Je[:, i], out=A[i:, i])
        b = np.einsum("rnP,rP->nP", Je, e)
    else:
        for i in range(k):
            np.einsum("jnP,nP->jP", Je[i:], Je[i], out=A[i:, i])
        b = e
    diag = A[range(m), range(m)]
    A[range(m), range(m)] = diag + np.maximum(np.maximum(lam, 1e-12 * diag.sum(axis=0)), _TINY)
    if P < SMALL:
        low = np.tril(np.ones((m, m), bool))[..., None]
        A = np.where(low, A, A.transpose(1, 0, 2))  # symmetric, for LAPACK
        x = np.linalg.solve(A.transpose(2, 0, 1), b.T[..., None])[..., 0].T
    else:
        x = spd_solve_last(A, b)
    return x if n <= k else np.einsum("rnP,rP->nP", Je, x)


def damped_step(Je: np.ndarray, e: np.ndarray, lam: float) -> np.ndarray:
    """Δq (n,) for one problem, Je (k, n) and e (k,): the core's Cholesky solve, or least squares
    where the damped system is not positive definite in floating point."""
    from .._core import (
        damped_step as solve,  # (the core loads at the first solve, not at import)
    )

    dq = solve(Je, e, lam)
    if dq is not None:
        return dq
    k, n = Je.shape
    A, b = (Je.T.dot(Je), Je.T.dot(e)) if n <= k else (Je.dot(Je.T), e)
    A.ravel()[::A.shape[0] + 1] += max(lam, 1e-12 * float(np.vdot(Je, Je)), _TINY)  # tr A = ‖J‖²_F
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    return x if n <= k else Je.T.dot(x)
