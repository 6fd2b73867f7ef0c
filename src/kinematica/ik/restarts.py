"""The restart policy of Levenberg–Marquardt, one target at a time (the core's src/core/lm.cpp
and its NumPy reference `single.solve_one` follow it alike): which attempts clip to the limits
and damp by accept/reject, the random seeds, and the constants of the stopping rules.

An attempt ends converged inside the limits (the target is solved), or failed: stalled, no
halving of its best error in `NO_PROGRESS` iterations, at its iteration cap (`RESTART_ITER`
for random seeds), or converging outside the limits (`OUTSIDE`: abandoned within `NEAR` of the
target); the next random seed is then tried while the target has restarts left.
"""

from __future__ import annotations

import numpy as np

from ..model.robot import Robot
from .limits import random_seeds, snapped
from .options import Options

RESTART_ITER = 30  # a good random seed converges in ~10 iterations; a bad one is not worth more
NO_PROGRESS = 8  # iterations without halving the best error: an orbit or a crawl, reseed
NEAR = 1e-2  # within this (relative position, rad) of the target an attempt converging outside the limits is abandoned
HARD = 2  # after this many random seeds, every other one runs clipped with accept/reject


def modes(seed_no: np.ndarray, opts: Options) -> tuple[np.ndarray, np.ndarray]:
    """(clip, adaptive) of attempts by seed number: the caller's seed (0) runs the caller's
    settings; random seeds iterate freely with Chan's λ — except, for a target that has used
    more than HARD of them, every odd one runs bound-constrained (clipped, with the joints a
    limit holds left out of the step: `limits.pinned`) with accept/reject. Free iteration
    rarely finds in-limit solutions that sit on a corner of the joint box (a Panda target
    reached with all 7 joints on limits: 87 % of 2 000 solved by free seeds and plain clipped
    ones; 99.8 % with these). Their seeds hold some joints on a limit (`limits.snapped`).
    A free attempt that converged outside the limits by less than `limits.polish_margin` (the
    exact solution may lie on a limit, approached from outside; for a redundant arm, anywhere on
    the self-motion manifold it met) is polished: it goes on from its end clipped onto the
    limits, with accept/reject, keeping its attempt number (and so its iteration cap)."""
    first = seed_no == 0
    hard = (seed_no > HARD) & (seed_no % 2 == 1)
    return (first & opts.clip_limits) | hard, (first & (opts.damping == "adaptive")) | hard


def restart_seeds(robot: Robot, numbers: np.ndarray, opts: Options, rng: np.random.Generator) -> np.ndarray:
    """Seeds (k, n) for the restarts numbered `numbers` (k,): uniform inside the limits, and
    for the bound-constrained ones (`modes`) with some joints on a limit (`limits.snapped`)."""
    seeds = random_seeds(robot, len(numbers), rng)
    hard = np.flatnonzero(modes(np.asarray(numbers), opts)[0])
    if hard.size:
        seeds[hard] = snapped(robot, seeds[hard], rng.random((hard.size, robot.n)))
    return seeds
