"""Many small symmetric positive-definite systems A x = b at once.

NumPy's batched `solve` calls LAPACK once per matrix (≈1.5 µs for 6x6 here). With the batch
on the last axis, an unrolled Cholesky factorisation A = L Lᵀ is ~n³/6 vector operations over
all N systems together, each on contiguous arrays: an order of magnitude cheaper per system.
"""

from __future__ import annotations

import numpy as np


def spd_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A x = b for A (N, n, n) symmetric positive definite and b (N, n); returns x (N, n).

    >>> A = np.array([[[4.0, 2.0], [2.0, 3.0]]]); b = np.array([[2.0, 1.0]])
    >>> spd_solve(A, b).round(12)
    array([[0.5, 0. ]])
    """
    n = A.shape[-1]
    At = np.ascontiguousarray(np.moveaxis(A, 0, -1))  # (n, n, N)
    L = [[None] * n for _ in range(n)]
    for j in range(n):
        s = At[j, j].copy()
        for k in range(j):
            s -= L[j][k] * L[j][k]
        L[j][j] = np.sqrt(s)
        inv = 1.0 / L[j][j]
        for i in range(j + 1, n):
            s = At[i, j].copy()
            for k in range(j):
                s -= L[i][k] * L[j][k]
            L[i][j] = s * inv
    y = [None] * n
    for i in range(n):  # L y = b
        s = b[:, i].copy()
        for k in range(i):
            s -= L[i][k] * y[k]
        y[i] = s / L[i][i]
    x = [None] * n
    for i in reversed(range(n)):  # Lᵀ x = y
        s = y[i]
        for k in range(i + 1, n):
            s = s - L[k][i] * x[k]
        x[i] = s / L[i][i]
    return np.stack(x, axis=-1)
