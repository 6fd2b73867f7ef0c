"""One planning query handed to OMPL (2.x, nanobind bindings): a real-vector state space over
the joint box, the scene's checks as OMPL's state validity checker and motion validator, one of
OMPL's planners by name, then OMPL's path simplifier (shortcutting and B-spline smoothing).

Reproducibility: OMPL draws every planner's and sampler's random numbers from generators seeded,
in turn, by one global seed generator; `ompl.util.RNG.setSeed(seed)` just before the planner
and simplifier are made fixes them all. A run that stops on a clock is only reproducible if it
stops at the same point: RRT-Connect stops at its first solution anyway; with a seed the
anytime planners RRT* and BIT* are given a path-length objective whose threshold any path
meets, so they too stop at their first solution (skipping their refinement); and the
simplifier's steps are bounded by counts of tries, not by a clock. OMPL's PRM grows its
roadmap in a second thread while the first looks for a path, so no seed can make it
reproducible: `problem` refuses a seed for it.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from ..extras import need
from .edges import EdgeChecker

# name → OMPL geometric planner class; anytime ones refine their path until the time is up
PLANNERS = {"rrtconnect": "RRTConnect", "rrtstar": "RRTstar", "bitstar": "BITstar", "prm": "PRM"}
ANYTIME = frozenset({"rrtstar", "bitstar"})


@dataclass(frozen=True)
class Solved:
    """What OMPL returned: `path` (k, n) simplified and `raw` as the planner found it (None
    without an exact solution), OMPL's `status` text, the planning and simplification times (s)."""

    path: np.ndarray | None
    raw: np.ndarray | None
    status: str
    planning_time: float
    simplification_time: float


def _ompl() -> tuple[Any, Any, Any]:
    need("ompl", "plan", "km.plan")
    import ompl.base as ob
    import ompl.geometric as og
    import ompl.util as ou

    return ob, og, ou


@contextmanager
def _quiet(ou: Any) -> Iterator[None]:
    """OMPL logs every planner run to the console (and an error when a seed is set twice): the
    verdict is the Plan's, and a CLI's --json output must stay clean."""
    before = ou.getLogLevel()
    ou.setLogLevel(ou.LOG_NONE)
    try:
        yield
    finally:
        ou.setLogLevel(before)


def _validator(ob: Any, si: Any, checker: EdgeChecker, n: int) -> Any:
    class EdgeValidator(ob.MotionValidator):
        """Every OMPL edge check goes to `checker.edge_free` (the stated resolution)."""

        def checkMotion(self, a: Any, b: Any) -> bool:  # noqa: N802 (OMPL's name)
            return checker.edge_free(np.array(a[0:n]), np.array(b[0:n]))

    return EdgeValidator(si)


def _state(si: Any, q: np.ndarray) -> Any:
    s = si.allocState()
    s[0:len(q)] = [float(v) for v in q]
    return s


def _simplify(ps: Any, path: Any) -> None:
    """OMPL's simplifier steps, each bounded by a count of tries (not a clock, so a seeded
    plan stays reproducible): drop needless vertices, shortcut, merge close vertices, drop
    again, then smooth the corners with B-splines. Every change is edge-checked by OMPL
    through our motion validator."""
    ps.reduceVertices(path)
    ps.partialShortcutPath(path)
    ps.collapseCloseVertices(path)
    ps.reduceVertices(path)
    ps.smoothBSpline(path, 3)


def solve(checker: EdgeChecker, start: np.ndarray, goal: np.ndarray, planner: str, time_limit: float,
          seed: int | None, simplify: bool = True) -> Solved:
    """Plan start → goal with OMPL's `planner` within `time_limit` s (see the module text)."""
    ob, og, ou = _ompl()
    n = len(start)
    with _quiet(ou):
        if seed is not None:
            ou.RNG.setSeed(int(seed))
        space = ob.RealVectorStateSpace(n)
        bounds = ob.RealVectorBounds(n)
        for j in range(n):
            bounds.setLow(j, float(checker.lo[j]))
            bounds.setHigh(j, float(checker.hi[j]))
        space.setBounds(bounds)
        ss = og.SimpleSetup(space)
        si = ss.getSpaceInformation()
        ss.setStateValidityChecker(lambda s: bool(checker.free(np.array([s[0:n]]))[0]))
        validator = _validator(ob, si, checker, n)  # held here: OMPL keeps only a reference
        si.setMotionValidator(validator)
        ss.setStartAndGoalStates(_state(si, start), _state(si, goal))
        ss.setPlanner(getattr(og, PLANNERS[planner])(si))
        if seed is not None and planner in ANYTIME:
            # any path meets an infinite cost threshold: the planner stops at its first one
            objective = ob.PathLengthOptimizationObjective(si)
            objective.setCostThreshold(ob.Cost(math.inf))
            ss.setOptimizationObjective(objective)
        status = ss.solve(time_limit)
        planning_time = ss.getLastPlanComputationTime()
        text = status.asString()
        if not ss.haveExactSolutionPath():
            return Solved(None, None, text, planning_time, 0.0)
        path = ss.getSolutionPath()
        raw = np.array([s[0:n] for s in path.getStates()], dtype=float)
        t0 = time.perf_counter()
        if simplify:
            _simplify(ss.getPathSimplifier(), path)
        simplification_time = time.perf_counter() - t0
        Q = np.array([s[0:n] for s in path.getStates()], dtype=float)
        del validator
    return Solved(Q, raw, text, planning_time, simplification_time)


__all__ = ["PLANNERS", "ANYTIME", "Solved", "solve"]
