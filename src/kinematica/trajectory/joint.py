"""Linear interpolation between saved joint poses (paper 000's "Trajectory Player").

Between knots (t_k, q_k) and (t_{k+1}, q_{k+1}):

    q(t) = q_k + (t − t_k)/(t_{k+1} − t_k) · (q_{k+1} − q_k),   q̇ = (q_{k+1} − q_k)/(t_{k+1} − t_k)

The velocity jumps at every knot (the acceleration there is an impulse, reported as 0): this is
the simplest playback of poses, not a motion to send to a real drive — use `trapezoidal`, `via`
or `quintic` for that.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from ._common import build, grid, points
from ._common import duration as _duration
from .value import Trajectory, TrajectoryError


@strict
def joint(poses: ArrayLike, duration: float | None = None, *, times: ArrayLike | None = None,
          steps: int = 100, dt: float | None = None, robot=None) -> Trajectory:
    """Piecewise-linear motion through joint poses (k, n), k ≥ 2 (rad or the length unit).

    times: the knot times (k,) in s, strictly increasing; otherwise each segment lasts
    duration/(k − 1) s (duration default: 1 s per segment). Sampled at `steps` equal intervals
    (or every `dt` s) with the knots always included. q̇ is the segment's velocity (right-
    continuous; the last sample takes the last segment's), q̈ = 0. robot: a Robot, joint names
    or None.

    >>> tr = joint([[0, 0], [1, 2], [1, 0]], times=[0, 1, 3], steps=3)
    >>> tr.t.tolist(), tr.q[:, 1].tolist(), tr.qd[:, 1].tolist()
    ([0.0, 1.0, 2.0, 3.0], [0.0, 2.0, 1.0, 0.0], [2.0, -1.0, -1.0, -1.0])
    """
    P = points(poses, "poses")
    k = len(P)
    if times is not None:
        if duration is not None:
            raise TrajectoryError("give either times or duration, not both")
        tk = np.array(times, dtype=float).ravel()
        if tk.shape != (k,) or not np.all(np.isfinite(tk)):
            raise TrajectoryError(f"times: expected {k} finite values, got {np.shape(times)}")
        if np.any(np.diff(tk) <= 0):
            raise TrajectoryError("times: must be strictly increasing (a zero-duration segment has infinite speed)")
    else:
        T = _duration(k - 1.0 if duration is None else duration)
        tk = np.linspace(0.0, T, k)
    t = grid(tk[-1] - tk[0], steps, dt, tk[1:-1] - tk[0]) + tk[0]
    j = np.clip(np.searchsorted(tk, t, side="right") - 1, 0, k - 2)
    vel = np.diff(P, axis=0) / np.diff(tk)[:, None]
    q = P[j] + vel[j] * (t - tk[j])[:, None]
    q[-1] = P[-1]
    return build(robot, t, q, vel[j], np.zeros_like(q), meta={"kind": "linear", "knots": tk.tolist()})
