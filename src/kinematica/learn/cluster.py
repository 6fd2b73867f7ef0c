"""Fuzzy c-means (Bezdek): rule centres for an ANFIS with many inputs, where a grid partition
would need m^d rules.

Minimises J = Σ_n Σ_r u_nr^m ‖x_n − v_r‖² over centres v (R, d) and memberships u (N, R),
Σ_r u_nr = 1, by alternating u_nr = 1 / Σ_s (‖x_n − v_r‖/‖x_n − v_s‖)^(2/(m−1)) and
v_r = Σ_n u_nr^m x_n / Σ_n u_nr^m. Each cluster's width per input is its fuzzy standard
deviation, the Gaussian membership of a rule centred there.

>>> rng = np.random.default_rng(0)
>>> x = np.concatenate([rng.normal(-0.5, 0.05, (50, 1)), rng.normal(0.5, 0.05, (50, 1))])
>>> v, s = fuzzy_c_means(x, 2, rng=np.random.default_rng(1))
>>> np.sort(v[:, 0]).round(1).tolist()
[-0.5, 0.5]
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

FUZZINESS = 2.0  # the exponent m: the usual choice


def fuzzy_c_means(x: np.ndarray, R: int, *, iterations: int = 100, tol: float = 1e-6, fuzziness: float = FUZZINESS,
                  rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Centres (R, d) and widths (R, d) of R fuzzy clusters of x (N, d), started from R
    distinct samples; stops when no centre moves more than `tol`. fuzziness: the exponent m > 1
    (near 1: crisp clusters, like k-means; 2, the usual choice, blurs them in many dimensions)."""
    if not fuzziness > 1:
        raise InputError(f"fuzziness must be > 1, got {fuzziness!r}")
    rng = np.random.default_rng(0) if rng is None else rng
    v = x[rng.choice(len(x), R, replace=False)].copy()
    for _ in range(iterations):
        um = _memberships(x, v, fuzziness) ** fuzziness
        new = (um.T @ x) / um.sum(axis=0)[:, None]
        moved = np.abs(new - v).max()
        v = new
        if moved < tol:
            break
    um = _memberships(x, v, fuzziness) ** fuzziness
    var = np.einsum("nr,nrd->rd", um, (x[:, None, :] - v[None]) ** 2) / um.sum(axis=0)[:, None]
    return v, np.sqrt(var)


def _memberships(x: np.ndarray, v: np.ndarray, fuzziness: float) -> np.ndarray:
    """u (N, R), from distances relative to each sample's nearest centre: that one's term is 1,
    the others' (d_s/d_near)^(−2/(m−1)) ≤ 1, so no power overflows (a sample on a centre too)."""
    d2 = np.maximum(((x[:, None, :] - v[None]) ** 2).sum(axis=-1), 1e-300)  # (N, R)
    inv = (d2 / d2.min(axis=1, keepdims=True)) ** (-1.0 / (fuzziness - 1))
    return inv / inv.sum(axis=1, keepdims=True)
