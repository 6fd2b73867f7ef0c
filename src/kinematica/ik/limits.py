"""Joint limits in IK: wrapping revolute joints by 2π into their range, and random seeds."""

from __future__ import annotations

import math

import numpy as np

from ..model.robot import LIMIT_TOL, Robot

TWO_PI = 2 * np.pi
# An attempt converging this far (rad, or length unit) beyond a limit is on a branch outside the
# limits: abandoned. One converging nearer may have an exact solution on the limit itself,
# reached from outside by rounding: it is clipped onto the limits and polished (`POLISH`).
MARGIN = 0.05
# km.ik's `limits`: "auto" (wrap from home or random seeds, clip from a given q0), or one of the others
LIMIT_MODES = ("auto", "clip", "wrap", "ignore")


def wrap_into_limits(robot: Robot, q: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    """Add multiples of 2π to revolute joints so they fall inside their limits, choosing the
    candidate nearest `ref` when the range spans more than 2π; prismatic joints are never
    wrapped, and a joint with no candidate in range is left nearest its range (still outside)."""
    q = np.array(q, dtype=float)
    ref = np.broadcast_to(q if ref is None else ref, q.shape)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    rev = robot.wraps  # not a helical joint: a turn of 2π moves it 2π·pitch along its axis
    finite_lo = np.where(np.isfinite(lo), lo, -np.pi)
    # candidate nearest ref, then shifted up/down to the range if needed
    k = np.round((ref - q) / TWO_PI)
    cand = q + k * TWO_PI
    cand = np.where(cand < lo, cand + np.ceil((lo - cand) / TWO_PI) * TWO_PI, cand)
    cand = np.where(cand > hi, cand - np.ceil((cand - hi) / TWO_PI) * TWO_PI, cand)
    inside = (cand >= lo - LIMIT_TOL) & (cand <= hi + LIMIT_TOL)
    # no 2π shift lands inside (range < 2π and q in the gap): stay nearest to the range
    nearest = q - np.round((q - (finite_lo + np.where(np.isfinite(hi), hi, np.pi)) / 2) / TWO_PI) * TWO_PI
    out = np.where(inside, cand, nearest)
    return np.where(rev, out, q)


def polish_margin(robot: Robot, dof: int) -> float:
    """How far beyond the limits a free attempt may converge and still be polished (clipped onto
    them and iterated on, bound-constrained) rather than abandoned: `MARGIN` for an arm with no
    more joints than the task constrains (its solutions are isolated: one farther out is another
    branch), unbounded for a redundant one. A redundant arm's solutions form a self-motion
    manifold, which may enter the joint box far from where an attempt met it — at a single
    corner for a Panda pose reached with all 7 joints on limits, which random seeds almost never
    hit; from the clamped end of any converged attempt the bound-constrained steps find it
    (Panda targets with random joints on limits: 99.7–99.9 % solved → 100 % of 3 × 1 600)."""
    return MARGIN if robot.n <= dof else math.inf


SNAP = 0.5  # share of a bound-constrained restart's joints that start on a limit (half each side)


def snapped(robot: Robot, seeds: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Seeds (k, n) with each joint that has two finite limits put on its lower limit where the
    uniform draw u (k, n) is below SNAP/2 and on its upper one where it is above 1 − SNAP/2:
    the seeds of the bound-constrained restarts (`pool.modes`). A solution on a corner of the
    joint box (all 7 Panda joints on limits) lies where the self-motion curve leaves the box,
    which the bound-constrained steps reach from a seed that already holds some of its joints
    there far more often than from one inside (202 of 202 such targets against 198, with 37 %
    fewer iterations). The core's restarts (src/core/lm.cpp) apply the same rule to its own draws."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    both = np.isfinite(lo) & np.isfinite(hi)
    out = np.where(both & (u < SNAP / 2), lo, seeds)
    return np.where(both & (u > 1 - SNAP / 2), hi, out)


def random_seeds(robot: Robot, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` configurations uniform inside the limits (±π for unlimited revolute joints,
    ±1 length unit for unlimited prismatic ones), shape (count, n)."""
    lo, hi = robot.limits[:, 0].copy(), robot.limits[:, 1].copy()
    span = np.where(robot.revolute, np.pi, 1.0)
    lo = np.where(np.isfinite(lo), lo, -span)
    hi = np.where(np.isfinite(hi), hi, span)
    return lo + (hi - lo) * rng.random((count, robot.n))  # rng.uniform(lo, hi) broadcasts slowly


def wrap_inside(robot: Robot, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The batch-last form the solver uses, q (n, k): each revolute joint outside its limits
    (beyond `LIMIT_TOL`) turned by the fewest turns of 2π towards its range,
        w = q + 2π·⌈(lo − q)/2π⌉ below the range,  w = q − 2π·⌈(q − hi)/2π⌉ above it,
    kept where that lands it inside (to `LIMIT_TOL`), and whether each column then lies within
    all the limits (as `Robot.within_limits`). Only the joints outside are worked on.
    `wrap_floats` is the same rule for one configuration on floats."""
    lo, hi = robot.limits[:, :1], robot.limits[:, 1:]
    out = (q < lo - LIMIT_TOL) | (q > hi + LIMIT_TOL)
    if not out.any():
        return q, np.ones(q.shape[1], bool)
    q = q.copy()
    i, k = np.nonzero(out & robot.wraps[:, None])  # a joint beyond a limit: that limit is finite
    v, a, b = q[i, k], lo[i, 0], hi[i, 0]
    w = np.where(v < a, v + TWO_PI * np.ceil((a - v) / TWO_PI), v - TWO_PI * np.ceil((v - b) / TWO_PI))
    fits = (w >= a - LIMIT_TOL) & (w <= b + LIMIT_TOL)
    q[i[fits], k[fits]] = w[fits]
    out[i[fits], k[fits]] = False
    return q, np.asarray(~out.any(axis=0))  # (an array of the NumPy hints' array-or-scalar)


def wrap_floats(q, lo, hi, rev, limit_tol: float, out) -> bool:
    """`wrap_inside` for one configuration: q, lo, hi (n,) and rev (n,), whether a joint turns
    by 2π, as lists of floats (the NumPy single-target loop: ~10x cheaper than arrays of one)
    or arrays (src/core/lm.cpp `wrap_into` is its C++ form). The
    wrapped q goes into out (n,); returns whether all joints are then inside."""
    inside = True
    for j in range(len(q)):
        qj, a, b = q[j], lo[j], hi[j]
        if rev[j] and not a - limit_tol <= qj <= b + limit_tol:
            w = qj + TWO_PI * math.ceil((a - qj) / TWO_PI) if qj < a else qj - TWO_PI * math.ceil((qj - b) / TWO_PI)
            if a - limit_tol <= w <= b + limit_tol:
                qj = w
        inside = inside and a - limit_tol <= qj <= b + limit_tol
        out[j] = qj
    return inside


def pinned(Je: np.ndarray, e: np.ndarray, q: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The joints a bound-constrained step holds still: those on a limit (q ≤ lo or q ≥ hi)
    that the descent direction g = J_eᵀe of ½‖e‖² pushes further out. Their Jacobian columns
    are zeroed, so the damped step moves the other joints only (an active-set projected LM):
    a clipped full step would spend the free joints' motion on one the limit then cancels, and
    a solution on a corner of the joint box would be approached only by luck.
    Shapes batch-last or single: Je (k, n[, P]), e (k[, P]), q (n[, P]), lo and hi (n[, 1])."""
    g = np.einsum("rn...,r...->n...", Je, e)
    return ((q <= lo) & (g < 0)) | ((q >= hi) & (g > 0))


def outside_by(robot: Robot, q: np.ndarray, margin: float) -> np.ndarray:
    """Whether some joint of q (n, k), revolute ones wrapped by 2π, lies beyond its limits by
    more than `margin` — too far for the last iterations of a converging solver to bring back."""
    qw, _ = wrap_inside(robot, q)
    lo, hi = robot.limits[:, :1], robot.limits[:, 1:]
    return np.any((qw < lo - margin) | (qw > hi + margin), axis=0)
