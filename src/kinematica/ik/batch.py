"""Levenberg–Marquardt for a batch of targets: a pool of problems in flight, reseeded in place.

`numeric.iterate` runs every method one round at a time; this engine is the fast path of
`km.ik(method="lm")` for many targets, built on what a NumPy sketch measured (DESIGN.md):

- at most `POOL` problems are in flight at once, so the working set stays in cache; a problem
  that finishes hands its slot to the next target in the queue, so the batch stays full and
  the fixed cost of ~150 NumPy calls per iteration is shared by thousands of problems;
- a failed attempt (stalled, no progress, the iteration cap, or converging outside the joint
  limits) is reseeded at once in the same slot with a random configuration inside the limits
  (at most `restarts` seeds per target), instead of waiting for a separate round;
- once the queue is empty the pool thins out to the slow targets, and every iteration's fixed
  cost falls on a few problems: each unsolved target then races several seeds at once;
- one FK + Jacobian pass per iteration (`soa.Workspace`), the orientation error taken from it
  (`pose_error.pose_error`), the normal equations formed and solved with the batch on the last axis;
- "chan" damping (λ = 0.1·E, every step taken) keeps nothing between iterations; "adaptive"
  (paper 000: accept when E falls and divide λ, else reject and multiply λ) keeps the last
  accepted e and J to step again from them.

Every array over the slots has the batch on its last axis: q (n, P), e (k, P), J (k, n, P).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.robot import Robot
from .limits import outside_by, pinned, polish_margin
from .damped import damped_steps
from .numeric import AT_LIMIT, CONVERGED, LIMIT, STALLED, Options
from .pool import OUTSIDE, RACE, TAIL, Goals, Out, Slots, bookkeep, new_slots
from .soa import Workspace

POOL = 4096  # problems in flight (4–16 k kept the sketch in cache; 4096 is the chain's chunk)
RESTART_ITER = 30  # a good random seed converges in ~10 iterations; a bad one is not worth more
NO_PROGRESS = 8  # iterations without halving the best error: an orbit or a crawl, reseed
NEAR = 1e-2  # within this (relative position, rad) of the target the solution is chosen …
# … so an attempt `Plan.margin` outside the limits is abandoned there (one nearer is pulled in)


@dataclass
class Plan:
    """One solve's settings."""

    opts: Options
    enforce: bool  # joint limits checked at convergence (revolute joints wrapped by 2π first)
    restarts: int  # random seeds per target at most
    scale: float  # a length for relative position errors (the arm's reach)
    margin: float  # beyond the limits by more: abandoned, else polished (`limits.polish_margin`)


def solve_lm(robot: Robot, target, seeds: np.ndarray, opts: Options, *, enforce: bool,
             restarts: int, rng: np.random.Generator, scale: float = 1.0) -> Out:
    """LM on N targets (target (N,), seeds (N, n)): each target's answer, the status of its
    first attempt when no attempt succeeded, and the iterations spent on it in all attempts."""
    N = len(seeds)
    plan = Plan(opts, enforce, restarts, scale, polish_margin(robot, target.dof))
    out = Out.empty(seeds)
    seedsT = np.ascontiguousarray(seeds.T)
    nxt = min(N, POOL)
    slots = new_slots(np.arange(nxt), seedsT[:, :nxt], opts)
    ws = Workspace(robot, max(nxt, min(N * RACE, TAIL)))
    goals = Goals(target, slots.tid)
    while slots.P:
        e, Je, E, pos, ori = goals.evaluate(ws, slots.qt)
        acc = _accept(slots, opts, e, Je, E)
        conv = acc & (pos < opts.tol_position) & (ori < opts.tol_orientation)
        if slots.e is not None:  # some attempt damps by accept/reject: step from the accepted state
            e, Je = slots.e, slots.Je
        near = ~conv & (pos < NEAR * scale) & (ori < NEAR)
        status = _step(robot, slots, plan, e, Je, conv, near)
        slots, nxt, changed = bookkeep(robot, slots, out, status, seedsT, nxt, plan, rng)
        if changed:
            goals.gather(slots.tid)
    return out


def _accept(slots: Slots, opts: Options, e, Je, E) -> np.ndarray:
    """Take the evaluated configurations: all of them (Chan: λ = 0.1·E), or, for the attempts
    that damp by accept/reject (`slots.adapt`), those that lowered E (λ ÷ λ_down on those,
    × λ_up on the others). A seed is always taken."""
    fresh = np.isinf(slots.E)
    slots.it += ~fresh  # an evaluation after a step completes one iteration
    if not slots.adapt.any():  # the common case: nothing to keep between iterations
        slots.q, slots.E = slots.qt, E
        slots.lam = opts.chan_factor * E
        slots.e = slots.Je = None
        return np.ones(len(E), bool)
    ad = slots.adapt
    acc = (E < slots.E) | ~ad
    if slots.e is None or slots.e.shape != e.shape:
        slots.e, slots.Je = e.copy(), Je.copy()
    slots.lam[ad & acc & ~fresh] /= opts.lambda_down
    slots.lam[ad & ~acc] *= opts.lambda_up
    slots.q[:, acc], slots.E[acc] = slots.qt[:, acc], E[acc]
    slots.e[:, acc], slots.Je[..., acc] = e[:, acc], Je[..., acc]
    slots.lam[~ad] = opts.chan_factor * slots.E[~ad]
    return acc


def _step(robot: Robot, slots: Slots, plan: Plan, e, Je, conv: np.ndarray, near: np.ndarray) -> np.ndarray:
    """The next trial configuration of every slot, and each slot's verdict: −1 to go on, else
    CONVERGED, STALLED, AT_LIMIT, LIMIT (this attempt's iteration cap) or OUTSIDE."""
    opts = plan.opts
    lo, hi = robot.limits[:, :1], robot.limits[:, 1:]
    clip = slots.clip
    active = clip & ((slots.attempt > 0) | (not opts.clip_limits))  # as `single.attempt`
    if active.any():
        held = pinned(Je, e, slots.q, lo, hi) & active
        if held.any():
            Je = np.where(held, 0.0, Je)
    dq = damped_steps(Je, e, slots.lam)  # the LM step
    qt = slots.q + dq
    if clip.any():
        qt = np.where(clip, np.clip(qt, lo, hi), qt)
        dq = qt - slots.q
    moved2 = np.einsum("nP,nP->P", dq, dq)
    slots.qt = qt
    better = slots.E < 0.5 * slots.best
    slots.best = np.where(better, slots.E, slots.best)
    slots.since = np.where(better, slots.it, slots.since)
    stuck = slots.it - slots.since >= NO_PROGRESS
    tiny = moved2 < opts.eps_step ** 2 * 1e12  # ‖Δq‖ < 1e-6 ε-steps: only then is ‖q‖ worth computing
    if tiny.any():
        stuck |= tiny & (moved2 < opts.eps_step ** 2 * (1 + np.einsum("nP,nP->P", slots.q, slots.q)))
    status = np.full(slots.P, -1)
    if slots.it.max(initial=0) >= min(opts.max_iter, RESTART_ITER):  # else no attempt is at its cap
        cap = np.where(slots.attempt == 0, opts.max_iter, min(opts.max_iter, RESTART_ITER))
        status[slots.it >= cap] = LIMIT
    if stuck.any():
        at_limit = clip & np.any((slots.q <= lo) | (slots.q >= hi), axis=0)
        status[stuck] = np.where(at_limit[stuck], AT_LIMIT, STALLED)
    if plan.enforce and near.any():
        rows = np.flatnonzero(near)
        status[rows[outside_by(robot, slots.q[:, rows], plan.margin)]] = OUTSIDE
    status[conv] = CONVERGED
    return status
