"""Piecewise-linear velocity profiles ("ramps"): trapezoids, triangles, and their chains.

A motion whose velocity is piecewise linear in time is fixed by its start value q(0) and the
velocity at breakpoints t_0 ≤ t_1 ≤ … ≤ t_m:

    v(t) = v_j + (v_{j+1} − v_j)(t − t_j)/(t_{j+1} − t_j)           on [t_j, t_{j+1}]
    q(t) = q_j + v_j (t − t_j) + ½ a_j (t − t_j)²,  a_j = (v_{j+1} − v_j)/(t_{j+1} − t_j)

with q_j the running integral. LSPB (trapezoidal) profiles, parabolic blends through via points
and the speed profiles of Cartesian paths are all of this form, so one evaluator serves them.

The trapezoid for a distance L ≥ 0 under |v| ≤ v_max, |a| ≤ a_max (the shortest one):

    L ≥ v_max²/a_max:  v = v_max,            T = L/v_max + v_max/a_max  (cruise)
    otherwise:         v = √(L·a_max),        T = 2√(L/a_max)           (triangle, no cruise)

and, stretched to a longer duration T at full acceleration, the cruise speed is the smaller root
of v² − a T v + a L = 0:  v = 2L / (T + √(T² − 4L/a)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .value import TrajectoryError

__all__ = ["evaluate", "trapezoid", "trapezoid_knots", "inverse"]


def evaluate(t: ArrayLike, knots: ArrayLike, v: ArrayLike, q0: ArrayLike = 0.0):
    """(q, q̇, q̈) at times t (k,) of the ramp through velocities v (m+1, ...) at knot times
    (m+1,) (nondecreasing; t outside is clamped to the ends, where the motion holds still only if
    the end velocity is 0). Shapes: (k, ...) each.

    >>> q, qd, qdd = evaluate([0, 0.5, 1, 2, 3], [0, 1, 2, 3], [0, 1, 1, 0])
    >>> q.tolist(), qd.tolist(), qdd.tolist()
    ([0.0, 0.125, 0.5, 1.5, 2.0], [0.0, 0.5, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, -1.0, -1.0])
    """
    t = np.asarray(t, dtype=float)
    tk = np.asarray(knots, dtype=float)
    vk = np.asarray(v, dtype=float)
    dtk = np.diff(tk)
    tail = (slice(None),) + (None,) * (vk.ndim - 1)
    real = dtk > 1e-9 * max(tk[-1] - tk[0], 1e-300)  # shorter pieces are rounding: a velocity step
    with np.errstate(invalid="ignore", divide="ignore"):
        ak = np.where(real[tail], np.diff(vk, axis=0) / np.where(real, dtk, 1.0)[tail], 0.0)
    qk = np.concatenate([np.zeros((1,) + vk.shape[1:]), np.cumsum(0.5 * (vk[:-1] + vk[1:]) * dtk[tail], axis=0)])
    qk = qk + np.asarray(q0, dtype=float)
    tc = np.clip(t, tk[0], tk[-1])
    j = np.clip(np.searchsorted(tk, tc, side="right") - 1, 0, len(tk) - 2)
    tau = (tc - tk[j])[tail]
    a = ak[j]
    q = qk[j] + vk[j] * tau + 0.5 * a * tau ** 2
    qd = vk[j] + a * tau
    return q, qd, a


def trapezoid(L: float, vmax: float, amax: float, T: float | None = None) -> tuple[float, float, float]:
    """(duration, cruise speed, blend time) of the trapezoid covering L with |v| ≤ vmax,
    |a| ≤ amax: the shortest, or stretched to last T (full acceleration, lower cruise).

    >>> trapezoid(1.0, 1.0, 1.0)   # reaches 1 at t = 1, cruises, brakes: T = L/v + v/a
    (2.0, 1.0, 1.0)
    >>> trapezoid(0.25, 1.0, 1.0)  # a triangle: T = 2√(L/a)
    (1.0, 0.5, 0.5)
    """
    if L < 0 or not np.isfinite(L):
        raise TrajectoryError(f"distance must be finite and >= 0, got {L}")
    if L == 0:
        if T is None:
            raise TrajectoryError("zero-length move: start and end coincide, there is nothing to time "
                                  "(give a duration to hold still)")
        return float(T), 0.0, 0.0
    if vmax ** 2 / amax <= L:
        Tmin, v = L / vmax + vmax / amax, vmax
    else:
        v = np.sqrt(L * amax)
        Tmin = 2.0 * v / amax
    if T is None:
        return float(Tmin), float(v), float(v / amax)
    if Tmin * (1 - 1e-12) > T:
        raise TrajectoryError(f"duration {T:.6g} s is shorter than the shortest {Tmin:.6g} s these limits allow")
    if Tmin * (1 + 1e-9) >= T:  # the shortest profile itself (avoids the double root's cancellation)
        return float(Tmin), float(v), float(v / amax)
    v = min(2.0 * L / (T + np.sqrt(max(T * T - 4.0 * L / amax, 0.0))), vmax)
    return float(T), float(v), float(v / amax)


def trapezoid_knots(T: float, v: float, tb: float) -> tuple[np.ndarray, np.ndarray]:
    """Knot times and velocities of a trapezoid (rest → v → rest) of duration T, blend tb."""
    return np.array([0.0, tb, T - tb, T]), np.array([0.0, v, v, 0.0])


def inverse(s: ArrayLike, knots: ArrayLike, v: ArrayLike) -> np.ndarray:
    """Times at which a forward-moving scalar ramp (v ≥ 0) reaches the distances s (solving the
    quadratic on each piece); s beyond the end gives the end time.

    >>> inverse([0, 0.125, 1.5, 2], [0, 1, 2, 3], [0, 1, 1, 0]).tolist()
    [0.0, 0.5, 2.0, 3.0]
    """
    s = np.asarray(s, dtype=float)
    tk = np.asarray(knots, dtype=float)
    vk = np.asarray(v, dtype=float)
    dtk = np.diff(tk)
    qk = np.concatenate([[0.0], np.cumsum(0.5 * (vk[:-1] + vk[1:]) * dtk)])
    j = np.clip(np.searchsorted(qk, s, side="right") - 1, 0, len(tk) - 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(dtk[j] > 0, (vk[j + 1] - vk[j]) / np.where(dtk[j] > 0, dtk[j], 1.0), 0.0)
    ds = np.clip(s - qk[j], 0.0, None)
    # ½ a τ² + v τ − ds = 0, the smaller non-negative root, written to avoid cancellation
    disc = np.sqrt(np.maximum(vk[j] ** 2 + 2.0 * a * ds, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(vk[j] + disc > 0, 2.0 * ds / (vk[j] + disc), 0.0)
    return np.clip(tk[j] + np.minimum(tau, dtk[j]), tk[0], tk[-1])
