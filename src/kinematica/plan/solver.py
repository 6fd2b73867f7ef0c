"""One planning query handed to OMPL (2.x, nanobind bindings): a real-vector state space over
the joint box, the scene's checks as OMPL's state validity checker and motion validator, one of
OMPL's planners by name, then OMPL's path simplifier (shortcutting and B-spline smoothing).

Reproducibility: OMPL draws every planner's and sampler's random numbers from generators seeded,
in turn, by one global seed generator; `ompl.util.RNG.setSeed(seed)` just before the planner
and simplifier are made fixes them all. A run that stops on a clock is only reproducible if it
stops at the same point: RRT-Connect stops at its first solution anyway; with a seed the
anytime planners RRT* and BIT* are given a path-length objective whose threshold any path
meets, so they too stop at their first solution (skipping their refinement); and the
simplifier's steps are bounded by counts of tries. OMPL's PRM grows its roadmap in a second
thread while the first looks for a path, so no seed can make it reproducible: `problem`
refuses a seed for it.

The time limit bounds planning and simplification together: the simplifier gets what the
planner left of it. Once it is spent every edge the simplifier proposes counts as blocked
(`EdgeChecker.deadline`), so it keeps the path it has — every change it made was certified —
and its remaining steps are skipped (`Solved.cut`). A seeded plan is therefore reproducible when
it finishes within its time limit; one cut short by the clock is cut where the clock says.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..extras import need
from .edges import EdgeChecker

# name → OMPL geometric planner class; anytime ones refine their path until the time is up
PLANNERS = {"rrtconnect": "RRTConnect", "rrtstar": "RRTstar", "bitstar": "BITstar", "prm": "PRM"}
ANYTIME = frozenset({"rrtstar", "bitstar"})
# A tree's longest step, as a fraction of the joint box's diagonal (OMPL's own default is 0.2).
# Measured on MotionBenchMaker's Panda cage, tall bookshelf and box (10 problems each, 1 s):
# 0.2 solves 14 of 30, 0.1 19, 0.05 22, 0.025 22 with slower simplification (more vertices).
RANGE = 0.05
# B-spline smoothing passes (OMPL's own `simplify` makes 3). Each pass halves the corners and checks
# twice as many edges as the last: on MotionBenchMaker's Panda (70 problems, 1 s) a third pass
# checked 1 576 more edges (~1.5 ms a plan) for timed motions (TOPP-RA, 1 rad/s, 2 rad/s²) 0.4 %
# shorter in all; one pass instead of two made them 10 % longer.
SMOOTHING = 2


@dataclass(frozen=True)
class Solved:
    """What OMPL returned: `path` (k, n) simplified and `raw` as the planner found it (None
    without an exact solution), OMPL's `status` text, the planning and simplification times (s)."""

    path: np.ndarray | None
    raw: np.ndarray | None
    status: str
    planning_time: float
    simplification_time: float
    cut: bool = False  # the time limit ended the simplification early
    unsmoothed: np.ndarray | None = None  # the path before B-spline smoothing (its edges all judged)
    deadline: float = math.inf  # time.monotonic() when the time limit ends


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


class _Guard:
    """Python exceptions must not cross OMPL's C++ frames: PRM runs the checks in a second
    thread too, where one ends the process (std::terminate — Ctrl+C did so). Every callback
    runs guarded: the first exception (KeyboardInterrupt included) is kept, the callbacks then
    answer `refuse` (a state or edge invalid), `stop` ends the planner's termination condition
    so OMPL winds down, and `solve` raises the exception once OMPL has returned. (The
    termination condition itself stays in C++: PRM's second thread evaluates it while the first
    holds the GIL, so a Python one deadlocks.)"""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.stop: Callable[[], None] = lambda: None

    def __call__(self, fn: Callable[..., bool], refuse: bool) -> Callable[..., bool]:
        def guarded(*args: Any) -> bool:
            if self.error is not None:
                return refuse
            try:
                return fn(*args)
            except BaseException as e:  # noqa: BLE001 — kept and raised after OMPL returns
                self.error = e
                self.stop()
                return refuse
        return guarded

    def reraise(self) -> None:
        error, self.error = self.error, None  # not kept: its traceback holds this frame's OMPL objects
        if error is not None:
            raise error

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Ctrl+C while OMPL runs, taken as a kept error rather than raised where it lands: Python
        raises KeyboardInterrupt at whatever line runs when the signal arrives, which may be a
        callback's own frame outside its guard — and one crossing OMPL's C++ frames while PRM's
        second thread runs ends the process. (In the main thread only: signals go there.)"""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def interrupted(signum: int, frame: Any) -> None:
            if self.error is None:
                self.error = KeyboardInterrupt()
            self.stop()

        before = signal.signal(signal.SIGINT, interrupted)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, before)


def _validator(ob: Any, si: Any, free: Callable[[Any, Any], bool]) -> Any:
    class EdgeValidator(ob.MotionValidator):
        """Every OMPL edge check goes to `free` (`EdgeChecker.edge_free`, guarded)."""

        def checkMotion(self, a: Any, b: Any) -> bool:  # OMPL's name
            return free(a, b)

    return EdgeValidator(si)


def _state(si: Any, q: np.ndarray) -> Any:
    s = si.allocState()
    s[0:len(q)] = [float(v) for v in q]
    return s


def _simplify(ps: Any, path: Any, deadline: float, n: int) -> tuple[bool, np.ndarray | None]:
    """OMPL's simplifier steps, each bounded by a count of tries: drop needless vertices,
    shortcut, merge close vertices, drop again, then smooth the corners with B-splines. Every
    change is edge-checked by OMPL through our motion validator, which refuses every edge past
    `deadline` (time.monotonic(), s): a step running then winds down keeping its path, and the
    steps after it are skipped. Returns whether the deadline cut it short, and the path (k, n)
    before smoothing (None when smoothing did not run)."""
    for step in (ps.reduceVertices, ps.partialShortcutPath, ps.collapseCloseVertices, ps.reduceVertices):
        if time.monotonic() > deadline:
            return True, None
        step(path)
    if time.monotonic() > deadline:
        return True, None
    before = np.array([s[0:n] for s in path.getStates()], dtype=float)
    ps.smoothBSpline(path, SMOOTHING)
    return time.monotonic() > deadline, before


def _setup(ob: Any, og: Any, checker: EdgeChecker, guard: _Guard, n: int) -> tuple[Any, Any]:
    """OMPL's SimpleSetup over the joint box with the guarded checks, and the motion validator
    (the caller holds it: OMPL keeps only a reference)."""
    space = ob.RealVectorStateSpace(n)
    bounds = ob.RealVectorBounds(n)
    for j in range(n):
        bounds.setLow(j, float(checker.lo[j]))
        bounds.setHigh(j, float(checker.hi[j]))
    space.setBounds(bounds)
    ss = og.SimpleSetup(space)
    si = ss.getSpaceInformation()
    idx = range(n)  # (an OMPL state read item by item: quicker than its slice)
    ss.setStateValidityChecker(guard(lambda s: checker.free_one([s[i] for i in idx]), False))
    validator = _validator(ob, si, guard(lambda a, b: checker.edge_free([a[i] for i in idx], [b[i] for i in idx]),
                                         False))
    si.setMotionValidator(validator)
    return ss, validator


def _goal(ob: Any, ss: Any, si: Any, start: np.ndarray, goals: np.ndarray) -> None:
    """One goal state, or OMPL's GoalStates: the planner reaches whichever it can."""
    if len(goals) == 1:
        ss.setStartAndGoalStates(_state(si, start), _state(si, goals[0]))
        return
    ss.setStartState(_state(si, start))
    region = ob.GoalStates(si)
    for q in goals:
        region.addState(_state(si, q))
    ss.setGoal(region)


class Search:
    """OMPL's SimpleSetup for one checker and planner, kept between queries: a PRM keeps its
    roadmap (OMPL's `clearQuery` forgets only the last start and goal), so a later query in the
    same scene often needs no new states. `run` plans one query (see `solve`)."""

    def __init__(self, checker: EdgeChecker, planner: str, n: int) -> None:
        ob, og, ou = _ompl()
        self.checker, self.planner, self.n, self.guard, self.runs = checker, planner, n, _Guard(), 0
        with _quiet(ou):
            self.ss, self.validator = _setup(ob, og, checker, self.guard, n)  # (the validator held: OMPL keeps a reference)
            si = self.ss.getSpaceInformation()
            chosen = getattr(og, PLANNERS[planner])(si)
            if hasattr(chosen, "setRange"):  # RRT-Connect, RRT*: a tree grows at most RANGE of the box's extent a step
                chosen.setRange(RANGE * si.getMaximumExtent())
            self.ss.setPlanner(chosen)

    def vertices(self) -> int:
        """States in the planner's graph (a PRM's roadmap; a tree's nodes)."""
        ob, _, _ = _ompl()
        data = ob.PlannerData(self.ss.getSpaceInformation())
        self.ss.getPlanner().getPlannerData(data)
        return int(data.numVertices())

    def run(self, start: np.ndarray, goals: np.ndarray, time_limit: float, seeded: bool,
            simplify: bool = True) -> Solved:
        """Plan start → any of `goals` (m, n), then simplify, both within `time_limit` s (module text)."""
        ob, _, ou = _ompl()
        n, ss, checker, guard = self.n, self.ss, self.checker, self.guard
        with _quiet(ou):
            if self.runs:  # (a new query on the same graph)
                ss.getPlanner().clearQuery()
                ss.getProblemDefinition().clearSolutionPaths()
            self.runs += 1
            si = ss.getSpaceInformation()
            _goal(ob, ss, si, start, goals)
            if seeded and self.planner in ANYTIME:
                # any path meets an infinite cost threshold: the planner stops at its first one
                objective = ob.PathLengthOptimizationObjective(si)
                objective.setCostThreshold(ob.Cost(math.inf))
                ss.setOptimizationObjective(objective)
            ptc = ob.timedPlannerTerminationCondition(time_limit)
            guard.stop = ptc.terminate
            deadline = time.monotonic() + time_limit
            checker.deadline = deadline  # an edge still being judged then is given up
            cut, unsmoothed = False, None
            try:
                with guard.interruptible():
                    status = ss.solve(ptc)
                guard.reraise()
                planning_time = ss.getLastPlanComputationTime()
                if not ss.haveExactSolutionPath():
                    return Solved(None, None, status.asString(), planning_time, 0.0)
                path = ss.getSolutionPath()
                raw = np.array([s[0:n] for s in path.getStates()], dtype=float)
                t0 = time.perf_counter()
                if simplify:  # a guarded error makes every edge invalid: it ends soon
                    with guard.interruptible():
                        cut, unsmoothed = _simplify(ss.getPathSimplifier(), path, deadline, n)
                    guard.reraise()
                simplification_time = time.perf_counter() - t0
            finally:
                checker.deadline = math.inf  # (the caller's re-certification judges every edge whole)
            Q = np.array([s[0:n] for s in path.getStates()], dtype=float)
        return Solved(Q, raw, status.asString(), planning_time, simplification_time, cut, unsmoothed, deadline)


def solve(checker: EdgeChecker, start: np.ndarray, goals: np.ndarray, planner: str, time_limit: float,
          seed: int | None, simplify: bool = True) -> Solved:
    """Plan start → any of `goals` (m, n) with OMPL's `planner`, then simplify, both within
    `time_limit` s (see the module text): a `Search` made for this one query, after the seed."""
    _, _, ou = _ompl()
    if seed is not None:
        with _quiet(ou):
            ou.RNG.setSeed(int(seed))
    return Search(checker, planner, len(start)).run(start, goals, time_limit, seed is not None, simplify)


__all__ = ["PLANNERS", "ANYTIME", "Solved", "Search", "solve"]
