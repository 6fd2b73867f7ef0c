"""`numpy_only()`: run `km.ik` on its NumPy reference path — the oracle the compiled core's IK
(src/core/lm.cpp, residual.cpp, closed.cpp) is tested against: `single.solve_one` for each
target (a batch as a loop of it), `single.verdict_one`, and the NumPy closed forms."""

from __future__ import annotations

import contextlib

import numpy as np


def _numpy_batch(robot, t, seeds, s, rng, scale, in_core):
    """`lm_core.solve_batch` by the NumPy loop: (q, status, iterations) of each target."""
    from kinematica.ik.closed import closed_form_seeds
    from kinematica.ik.single import Problem, solve_one

    if in_core:  # the core would seed from the closed form: the NumPy closed forms do here
        seeds = closed_form_seeds(robot, t, seeds, s.enforce)
    N = len(seeds)
    out = [solve_one(Problem(robot, t.reshape(N)[i], s.opts, s.enforce, scale), seeds[i], s.restarts, rng)
           for i in range(N)]
    return (np.array([o[0] for o in out]).reshape(N, robot.n), np.array([o[1] for o in out]),
            np.array([o[2] for o in out]))


@contextlib.contextmanager
def numpy_only():
    from kinematica.ik import closed, fast, many, one

    def decline(*args, **kwargs):
        return None

    saved = fast.solve_single, one.solve_single, many.solve_batch, closed._one_compiled
    fast.solve_single = one.solve_single = closed._one_compiled = decline
    many.solve_batch = _numpy_batch
    try:
        yield
    finally:
        fast.solve_single, one.solve_single, many.solve_batch, closed._one_compiled = saved
