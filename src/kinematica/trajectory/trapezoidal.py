"""Trapezoidal velocity (LSPB: linear segments with parabolic blends), synchronised joints.

Each joint i moves Δ_i = q1_i − q0_i under |q̇_i| ≤ v_i, |q̈_i| ≤ a_i (see `ramp.trapezoid` for
the profile). Two ways to make every joint arrive together:

  sync="line" (default): one profile s(t) ∈ [0, 1] for all, q(t) = q0 + s(t)·Δ; the joint path is
      the straight segment of paper 000's interpolation, and s obeys the tightest scaled limits
      V = min_i v_i/|Δ_i|, A = min_i a_i/|Δ_i|. All joints start, cruise and stop together.
  sync="time": each joint its own trapezoid at full acceleration a_i, stretched to the common
      duration T = max_i T_i (its cruise v_i = 2|Δ_i| / (T + √(T² − 4|Δ_i|/a_i)) ≤ v_i).
      T is exactly the slowest joint's shortest time; the joint path is not straight.

`min_duration` gives that shortest T; `trapezoidal(..., duration=T)` stretches to a longer T.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from . import ramp
from ._common import build, grid, positive, vector
from ._common import duration as _duration
from .value import Trajectory, TrajectoryError

SYNC = ("line", "time")


def _inputs(q0, q1, vmax, amax, sync):
    a = vector(q0, "q0")
    n = len(a)
    b = vector(q1, "q1", n)
    v = positive(vmax, "vmax", n)
    acc = positive(amax, "amax", n)
    if sync not in SYNC:
        raise TrajectoryError(f"sync must be one of {', '.join(SYNC)}, got {sync!r}")
    return a, b, v, acc


def _line_limits(d: np.ndarray, v: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    moving = d > 0
    if not moving.any():
        return np.inf, np.inf
    return float(np.min(v[moving] / d[moving])), float(np.min(a[moving] / d[moving]))


@strict
def min_duration(q0: ArrayLike, q1: ArrayLike, vmax: ArrayLike, amax: ArrayLike, *, sync: str = "line") -> float:
    """The shortest time (s) of a synchronised trapezoidal move q0 → q1 under per-joint limits
    vmax (rad/s or unit/s) and amax (rad/s² or unit/s²), scalars or (n,).

    >>> min_duration([0, 0], [1, 0.25], 1.0, 1.0)   # joint 1 limits: 1/v + v/a
    2.0
    """
    a, b, v, acc = _inputs(q0, q1, vmax, amax, sync)
    d = np.abs(b - a)
    if not np.any(d > 0):
        raise TrajectoryError("zero-length move: q0 and q1 are the same, there is nothing to time")
    if sync == "line":
        V, A = _line_limits(d, v, acc)
        return ramp.trapezoid(1.0, V, A)[0]
    return max(ramp.trapezoid(float(di), float(vi), float(ai))[0]
               for di, vi, ai in zip(d, v, acc, strict=True) if di > 0)


@strict
def trapezoidal(q0: ArrayLike, q1: ArrayLike, vmax: ArrayLike, amax: ArrayLike, *, duration: float | None = None,
                sync: str = "line", steps: int = 100, dt: float | None = None, robot=None) -> Trajectory:
    """Synchronised LSPB move q0 → q1 (n,) within per-joint limits vmax, amax (> 0, scalar or
    (n,)); the shortest one, or stretched to `duration` s (an error if shorter than possible).
    A zero-length move needs a duration (it then holds still). robot: a Robot, joint names or None.

    >>> tr = trapezoidal([0.0], [1.0], vmax=1.0, amax=1.0, steps=4)
    >>> tr.t.tolist(), tr.q[:, 0].tolist(), tr.qd[:, 0].tolist()
    ([0.0, 0.5, 1.0, 1.5, 2.0], [0.0, 0.125, 0.5, 0.875, 1.0], [0.0, 0.5, 1.0, 0.5, 0.0])
    """
    a, b, v, acc = _inputs(q0, q1, vmax, amax, sync)
    delta = b - a
    d = np.abs(delta)
    T_given = None if duration is None else _duration(duration)
    if not np.any(d > 0):
        if T_given is None:
            raise TrajectoryError("zero-length move: q0 and q1 are the same (give a duration to hold still)")
        t = grid(T_given, steps, dt)
        q = np.tile(a, (len(t), 1))
        return build(robot, t, q, np.zeros_like(q), np.zeros_like(q), meta={"kind": "trapezoidal", "sync": sync})
    if sync == "line":
        V, A = _line_limits(d, v, acc)
        T, vs, tb = ramp.trapezoid(1.0, V, A, T_given)
        t = grid(T, steps, dt)
        s, sd, sdd = ramp.evaluate(t, *ramp.trapezoid_knots(T, vs, tb))
        q, qd, qdd = a + s[:, None] * delta, sd[:, None] * delta, sdd[:, None] * delta
        blend = np.full(len(a), tb)
    else:
        T = T_given if T_given is not None else min_duration(a, b, v, acc, sync="time")
        t = grid(T, steps, dt)
        q, qd, qdd = (np.empty((len(t), len(a))) for _ in range(3))
        blend = np.zeros(len(a))
        for i in range(len(a)):
            if d[i] == 0:
                q[:, i], qd[:, i], qdd[:, i] = a[i], 0.0, 0.0
                continue
            Ti, vi, blend[i] = ramp.trapezoid(float(d[i]), float(v[i]), float(acc[i]), T)
            s, sd, sdd = ramp.evaluate(t, *ramp.trapezoid_knots(Ti, vi, blend[i]))
            sign = np.sign(delta[i])
            q[:, i], qd[:, i], qdd[:, i] = a[i] + sign * s, sign * sd, sign * sdd
    q[-1] = b
    return build(robot, t, q, qd, qdd, meta={"kind": "trapezoidal", "sync": sync, "blend_time": blend.tolist()})
