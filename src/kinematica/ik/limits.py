"""Joint limits in IK: wrapping revolute joints by 2π into their range, and random seeds."""

from __future__ import annotations

import numpy as np

from ..model.robot import Robot

TWO_PI = 2 * np.pi


def wrap_into_limits(robot: Robot, q: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    """Add multiples of 2π to revolute joints so they fall inside their limits, choosing the
    candidate nearest `ref` when the range spans more than 2π; prismatic joints are never
    wrapped, and a joint with no candidate in range is left nearest its range (still outside)."""
    q = np.array(q, dtype=float)
    ref = np.broadcast_to(q if ref is None else ref, q.shape)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    rev = robot.revolute
    finite_lo = np.where(np.isfinite(lo), lo, -np.pi)
    # candidate nearest ref, then shifted up/down to the range if needed
    k = np.round((ref - q) / TWO_PI)
    cand = q + k * TWO_PI
    cand = np.where(cand < lo, cand + np.ceil((lo - cand) / TWO_PI) * TWO_PI, cand)
    cand = np.where(cand > hi, cand - np.ceil((cand - hi) / TWO_PI) * TWO_PI, cand)
    inside = (cand >= lo) & (cand <= hi)
    # no 2π shift lands inside (range < 2π and q in the gap): stay nearest to the range
    nearest = q - np.round((q - (finite_lo + np.where(np.isfinite(hi), hi, np.pi)) / 2) / TWO_PI) * TWO_PI
    out = np.where(inside, cand, nearest)
    return np.where(rev, out, q)


def random_seeds(robot: Robot, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` configurations uniform inside the limits (±π for unlimited revolute joints,
    ±1 length unit for unlimited prismatic ones), shape (count, n)."""
    lo, hi = robot.limits[:, 0].copy(), robot.limits[:, 1].copy()
    span = np.where(robot.revolute, np.pi, 1.0)
    lo = np.where(np.isfinite(lo), lo, -span)
    hi = np.where(np.isfinite(hi), hi, span)
    return rng.uniform(lo, hi, size=(count, robot.n))
