"""Paper 000's closed forms for a planar chain of revolute joints (links along x, axes along z).

  φ_k = θ1 + … + θk                      (cumulative angles)
  x = Σ L_k cos φ_k,   y = Σ L_k sin φ_k   (forward kinematics)
  ∂x/∂θ_i = −Σ_{k≥i} L_k sin φ_k,   ∂y/∂θ_i = Σ_{k≥i} L_k cos φ_k   (the analytic 2 x n Jacobian)

They equal the general `fk` / `jacobian` of `from_planar(L)`; the tests hold them to that.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..keywords import strict


def _inputs(lengths: ArrayLike, theta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    L = np.asarray(lengths, dtype=float)
    th = np.asarray(theta, dtype=float)
    if L.ndim != 1 or th.shape[-1:] != L.shape:
        raise InputError(f"theta must have shape (..., {L.size}) to match {L.size} link lengths, got {th.shape}")
    if not (np.all(np.isfinite(L)) and np.all(np.isfinite(th))):
        raise InputError("lengths and angles must be finite")
    return L, np.cumsum(th, axis=-1)


@strict
def planar_fk(lengths: ArrayLike, theta: ArrayLike) -> np.ndarray:
    """End point (x, y), shape (..., 2), of a planar chain; theta in rad, shape (..., n).

    >>> planar_fk([20, 20, 20], np.radians([38.5, 68.8, 62.8])).round(3)
    array([-9.998, 34.984])
    """
    L, phi = _inputs(lengths, theta)
    return np.stack([np.sum(L * np.cos(phi), axis=-1), np.sum(L * np.sin(phi), axis=-1)], axis=-1)


@strict
def planar_jacobian(lengths: ArrayLike, theta: ArrayLike) -> np.ndarray:
    """Analytic Jacobian ∂(x, y)/∂θ, shape (..., 2, n), of a planar chain (paper 000, eqs. 9–10).

    >>> planar_jacobian([20, 20, 20], [0, 0, 0])
    array([[-0., -0., -0.],
           [60., 40., 20.]])
    """
    L, phi = _inputs(lengths, theta)
    # Sum over k ≥ i: a reversed cumulative sum of each link's contribution.
    dx = -np.flip(np.cumsum(np.flip(L * np.sin(phi), -1), -1), -1)
    dy = np.flip(np.cumsum(np.flip(L * np.cos(phi), -1), -1), -1)
    return np.stack([dx, dy], axis=-2)
