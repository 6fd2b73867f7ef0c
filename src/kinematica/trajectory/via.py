"""Multi-segment joint motion through via poses P_0 … P_m under per-joint limits v_i, a_i.

blend="parabolic" (Craig's linear segments with parabolic blends, synchronised joints):
  segment k is crossed at the constant velocity u_k = Δ_k / d_k (Δ_k = P_{k+1} − P_k), except
  the first and last, u = Δ / (d − t_b/2), whose start/end blends from and to rest lie inside
  them; at each interior via a blend of duration t_b,k = max_i |u_k,i − u_k−1,i| / a_i, centred
  on the via's time, changes the velocity at constant acceleration. End blends solve
  t_b(d − t_b/2) = max_i |Δ_i|/a_i, i.e. t_b = d − √(d² − 2 max_i |Δ_i|/a_i). Durations start at
  d_k = max_i |Δ_k,i|/v_i and grow until every blend fits and every |u| ≤ v. The motion starts
  on P_0 and ends on P_m exactly at rest; it passes *near* each interior via, missing it by
  |u_k − u_k−1|·t_b,k/8 (reported in meta["via_deviation"]) — it never stops.
blend="stop": a synchronised trapezoid per segment, at rest on every via (passes them exactly).

The velocity is piecewise linear in both cases (see `ramp`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from . import ramp
from ._common import build, grid, points, positive
from .trapezoidal import trapezoidal
from .value import Trajectory, TrajectoryError, concatenate

BLENDS = ("parabolic", "stop")
MAX_ROUNDS = 2000


def _check_segments(P: np.ndarray) -> np.ndarray:
    D = np.diff(P, axis=0)
    still = ~np.any(D != 0, axis=1)
    if still.any():
        k = int(np.argmax(still))
        raise TrajectoryError(f"zero-length segment: via poses {k} and {k + 1} are the same (drop one)")
    return D


def _parabolic_plan(P: np.ndarray, v: np.ndarray, a: np.ndarray):
    """(knot times, knot velocities, segment durations, blend times, segment velocities)."""
    D = _check_segments(P)
    m = len(D)
    d = np.max(np.abs(D) / v, axis=1)
    cstart, cend = np.max(np.abs(D[0]) / a), np.max(np.abs(D[-1]) / a)
    for _ in range(MAX_ROUNDS):
        d[0] = max(d[0], np.sqrt(2 * cstart) * (1 + 1e-12))
        d[-1] = max(d[-1], np.sqrt(2 * cend) * (1 + 1e-12))
        tb0 = d[0] - np.sqrt(d[0] ** 2 - 2 * cstart)
        tbm = d[-1] - np.sqrt(d[-1] ** 2 - 2 * cend)
        u = D / d[:, None]
        u[0] = D[0] / (d[0] - tb0 / 2)
        u[-1] = D[-1] / (d[-1] - tbm / 2)
        tb = np.concatenate([[tb0], np.max(np.abs(np.diff(u, axis=0)) / a, axis=1), [tbm]])
        # linear part of each segment: what the blends at its two ends leave of it
        left = tb[:-1] / 2
        left[0] = tb[0]
        right = tb[1:] / 2
        right[-1] = tb[-1]
        slack = d - left - right
        fast = np.any(np.abs(u) > v * (1 + 1e-12), axis=1)
        bad = (slack < -1e-12 * d) | fast
        if not bad.any():
            break
        d = np.where(bad, d * 1.02, d)
    else:
        raise TrajectoryError("could not fit the blends between these via poses under the limits")
    Tk = np.concatenate([[0.0], np.cumsum(d)])
    tk = [0.0, tb[0]]
    vk = [np.zeros(P.shape[1]), u[0]]
    for k in range(1, m):
        tk += [Tk[k] - tb[k] / 2, Tk[k] + tb[k] / 2]
        vk += [u[k - 1], u[k]]
    tk += [Tk[-1] - tb[-1], Tk[-1]]
    vk += [u[-1], np.zeros(P.shape[1])]
    tk = np.maximum.accumulate(np.array(tk))
    return tk, np.array(vk), Tk, tb, u


@strict
def via(poses: ArrayLike, vmax: ArrayLike, amax: ArrayLike, *, blend: str = "parabolic", steps: int = 200,
        dt: float | None = None, robot=None) -> Trajectory:
    """Motion through via poses (k, n), k ≥ 2, within per-joint limits vmax, amax (> 0, scalar
    or (n,)), starting and ending at rest. blend: "parabolic" (never stops; passes near the
    interior vias, the miss in meta["via_deviation"]) or "stop" (rests on each via, passes it
    exactly). Sampled at `steps` equal intervals (or every `dt` s) with the via times included
    (meta["via_times"]). robot: a Robot, joint names or None.

    >>> tr = via([[0.0], [1.0], [0.0]], vmax=1.0, amax=2.0, blend="stop")
    >>> round(tr.duration, 6), float(tr.q[:, 0].max())
    (3.0, 1.0)
    """
    P = points(poses, "poses")
    n = P.shape[1]
    v = positive(vmax, "vmax", n)
    a = positive(amax, "amax", n)
    if blend not in BLENDS:
        raise TrajectoryError(f"blend must be one of {', '.join(BLENDS)}, got {blend!r}")
    if len(P) == 2 or blend == "stop":
        _check_segments(P)
        parts = [trapezoidal(P[k], P[k + 1], v, a, steps=max(1, steps // (len(P) - 1)), dt=dt, robot=robot)
                 for k in range(len(P) - 1)]
        out = concatenate(parts)
        times = np.concatenate([[0.0], np.cumsum([p.duration for p in parts])])
        meta = {"kind": "via", "blend": "stop", "via_times": times.tolist(), "via_deviation": [0.0] * len(P)}
        return replace(out, meta=meta)
    tk, vk, Tk, tb, u = _parabolic_plan(P, v, a)
    t = grid(Tk[-1], steps, dt, Tk[1:-1])
    q, qd, qdd = ramp.evaluate(t, tk, vk, P[0])
    q[-1] = P[-1]
    deviation = np.zeros(len(P))
    deviation[1:-1] = np.max(np.abs(np.diff(u, axis=0)) * tb[1:-1, None] / 8, axis=1)
    meta = {"kind": "via", "blend": "parabolic", "via_times": Tk.tolist(), "blend_times": tb.tolist(),
            "via_deviation": deviation.tolist()}
    return build(robot, t, q, qd, qdd, meta=meta)
