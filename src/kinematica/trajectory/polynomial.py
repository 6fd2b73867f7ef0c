"""Cubic and quintic point-to-point polynomials with boundary velocities and accelerations.

With Δ = q1 − q0 and duration T, q(t) = Σ c_i t^i on [0, T]:

cubic (q, q̇ given at both ends):
    c0 = q0, c1 = v0, c2 = (3Δ − (2v0 + v1)T)/T², c3 = (−2Δ + (v0 + v1)T)/T³

quintic (q, q̇, q̈ given at both ends):
    c0 = q0, c1 = v0, c2 = a0/2,
    c3 = (20Δ − (8v1 + 12v0)T − (3a0 − a1)T²)/(2T³)
    c4 = (−30Δ + (14v1 + 16v0)T + (3a0 − 2a1)T²)/(2T⁴)
    c5 = (12Δ − 6(v1 + v0)T − (a0 − a1)T²)/(2T⁵)

Angles in rad (length unit for prismatic joints), velocities per s, accelerations per s².
A move with q1 = q0 and zero boundary rates holds still for T.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from ._common import build, grid, vector
from ._common import duration as _duration
from .value import Trajectory


def cubic_coefficients(q0, q1, T, v0=0.0, v1=0.0) -> np.ndarray:
    """Coefficients c0…c3 (4, ...) of the cubic; inputs broadcast (batch-first).

    >>> cubic_coefficients(0.0, 1.0, 1.0).tolist()
    [0.0, 0.0, 3.0, -2.0]
    """
    q0, q1, T, v0, v1 = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q0, q1, T, v0, v1)))
    d = q1 - q0
    return np.stack([q0, v0, (3 * d - (2 * v0 + v1) * T) / T ** 2, (-2 * d + (v0 + v1) * T) / T ** 3])


def quintic_coefficients(q0, q1, T, v0=0.0, v1=0.0, a0=0.0, a1=0.0) -> np.ndarray:
    """Coefficients c0…c5 (6, ...) of the quintic; inputs broadcast (batch-first).

    >>> quintic_coefficients(0.0, 1.0, 1.0).tolist()  # the minimum-jerk rest-to-rest move
    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0]
    """
    q0, q1, T, v0, v1, a0, a1 = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (q0, q1, T, v0, v1, a0, a1)))
    d = q1 - q0
    return np.stack([q0, v0, a0 / 2,
                     (20 * d - (8 * v1 + 12 * v0) * T - (3 * a0 - a1) * T ** 2) / (2 * T ** 3),
                     (-30 * d + (14 * v1 + 16 * v0) * T + (3 * a0 - 2 * a1) * T ** 2) / (2 * T ** 4),
                     (12 * d - 6 * (v1 + v0) * T - (a0 - a1) * T ** 2) / (2 * T ** 5)])


def polyval(c: np.ndarray, t: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, q̇, q̈) of Σ c_i t^i at times t (k,) for coefficients c (m, n): each (k, n)."""
    t = np.asarray(t, dtype=float)[:, None]
    q = np.zeros((t.shape[0],) + c.shape[1:])
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    for i in range(len(c) - 1, -1, -1):  # Horner, with the two derivatives alongside
        qdd = qdd * t + 2 * qd
        qd = qd * t + q
        q = q * t + c[i]
    return q, qd, qdd


def _plan(kind, coeffs, q0, q1, duration, steps, dt, robot, rates) -> Trajectory:
    a = vector(q0, "q0")
    n = len(a)
    b = vector(q1, "q1", n)
    T = _duration(duration)
    rates = [vector(r, name, n) for name, r in rates]
    c = coeffs(a, b, T, *rates)
    t = grid(T, steps, dt)
    q, qd, qdd = polyval(c, t)
    q[-1] = b  # exact end, whatever the rounding
    return build(robot, t, q, qd, qdd, meta={"kind": kind})


@strict
def cubic(q0: ArrayLike, q1: ArrayLike, duration: float, *, qd0: ArrayLike = 0.0, qd1: ArrayLike = 0.0,
          steps: int = 100, dt: float | None = None, robot=None) -> Trajectory:
    """Cubic from q0 to q1 (n,) in `duration` s with boundary velocities qd0, qd1 (scalars apply
    to every joint). Sampled at `steps` equal intervals or every `dt` s. robot: a Robot, joint
    names or None.

    >>> tr = cubic([0, 1], [1, 1], 2.0, steps=2)
    >>> tr.q.tolist(), tr.qd[1].tolist()
    ([[0.0, 1.0], [0.5, 1.0], [1.0, 1.0]], [0.75, 0.0])
    """
    return _plan("cubic", cubic_coefficients, q0, q1, duration, steps, dt, robot,
                 [("qd0", qd0), ("qd1", qd1)])


@strict
def quintic(q0: ArrayLike, q1: ArrayLike, duration: float, *, qd0: ArrayLike = 0.0, qd1: ArrayLike = 0.0,
            qdd0: ArrayLike = 0.0, qdd1: ArrayLike = 0.0, steps: int = 100, dt: float | None = None,
            robot=None) -> Trajectory:
    """Quintic from q0 to q1 (n,) in `duration` s with boundary velocities qd0, qd1 and
    accelerations qdd0, qdd1 (scalars apply to every joint): smooth to the jerk.

    >>> tr = quintic([0.0], [1.0], 1.0, steps=2)
    >>> tr.q[:, 0].tolist(), float(tr.qd[1, 0]), float(tr.qdd[0, 0])
    ([0.0, 0.5, 1.0], 1.875, 0.0)
    """
    return _plan("quintic", quintic_coefficients, q0, q1, duration, steps, dt, robot,
                 [("qd0", qd0), ("qd1", qd1), ("qdd0", qdd0), ("qdd1", qdd1)])
