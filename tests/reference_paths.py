"""`numpy_only()`: run `km.ik` on its NumPy reference path — the oracle the compiled core's IK
(src/core/lm.cpp, closed.cpp) is tested against — by having the core's entry points decline for
the block (each returns None where it declines a target it does not take, and the NumPy path
then answers, as it does for position, approach, planar and weighted targets)."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def numpy_only():
    from kinematica.ik import closed, fast, solve

    def decline(*args, **kwargs):
        return None

    saved = fast.solve_single, solve.solve_single, solve.solve_batch, closed._one_compiled
    fast.solve_single = solve.solve_single = solve.solve_batch = closed._one_compiled = decline
    try:
        yield
    finally:
        fast.solve_single, solve.solve_single, solve.solve_batch, closed._one_compiled = saved
