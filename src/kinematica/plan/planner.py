"""`km.plan`: a collision-free joint path for one robot of a scene, found by an OMPL planner.

>>> import kinematica as km, numpy as np
>>> s = km.Scene()
>>> _ = s.add_robot("arm", "puma560")
>>> p = km.plan(s, np.zeros(6), np.full(6, 0.3), seed=1)
>>> p.success, p.path[0].tolist() == [0.0] * 6, np.allclose(p.path[-1], 0.3)
(True, True, True)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike

from ..ik.target import Target
from ..keywords import strict
from .edges import EdgeChecker
from .goals import goal_set
from .problem import Problem, endpoint_fault, problem
from .result import Plan
from .solver import Solved, solve


def _failed(p: Problem, reason: str, checks: int, got: Solved | None = None) -> Plan:
    """A Plan without a path: refused before planning (`got` None) or after OMPL's run."""
    status, t_plan, t_simple = ("not run", 0.0, 0.0) if got is None else \
        (got.status, got.planning_time, got.simplification_time)
    return Plan(False, reason, None, p.robot, p.planner, status, t_plan, t_simple, checks, p.resolution,
                p.scene.length_unit, p.seed, scene=p.scene)


def _sweep(checker: EdgeChecker, path: np.ndarray) -> float:
    return float(sum(checker.sweep(a, b) for a, b in itertools.pairwise(path)))


def _recertified(checker: EdgeChecker, got: Solved) -> tuple[np.ndarray | None, str]:
    """(the path certified edge by edge, a note for the reason) — or (None, why not). The
    simplified path's edges were mostly judged by the simplifier (remembered: look-ups); one not
    judged yet is judged until the time limit. Smoothing leaves some unjudged: OMPL's B-spline
    pass halves every edge first and judges only the halves beside a corner it moved, and half
    of a free edge can fail the certificate its whole passed. Where the smoothed path is blocked,
    or its re-check runs late, the path before smoothing (its edges all judged) stands in, then
    the planner's own."""
    assert got.path is not None and got.raw is not None  # an exact solution: the caller returned before otherwise
    candidates = [(got.path, " (simplification cut short by the time limit)" if got.cut else "")]
    if got.unsmoothed is not None:
        candidates.append((got.unsmoothed, " (smoothing left out: {})"))
    late = False
    for path, note in candidates:
        checker.deadline = got.deadline
        try:
            bad = checker.first_blocked(path)
        finally:
            checker.deadline = math.inf
        if bad is None:
            return path, note.format("its re-check ran into the time limit" if late else
                                     "the smoothed path failed its re-check")
        late = time.monotonic() > got.deadline
    bad = checker.first_blocked(got.raw)  # (judged whole: its edges were all judged while planning)
    if bad is not None:
        return None, f"the planner's path touches the scene on edge {bad} when re-checked"
    return got.raw, (" (unsimplified: its re-check ran into the time limit)" if late else
                     " (unsimplified: the simplified path failed its re-check)")


@strict
def plan(scene, start: ArrayLike | Mapping[str, ArrayLike], goal: ArrayLike | Target | Mapping[str, ArrayLike], *,
         robot: str | None = None, planner: str = "rrtconnect", time_limit: float = 1.0,
         resolution: float | None = None, seed: int | None = None, simplify: bool = True,
         exact: bool | None = None, progress: Callable[[float, int], None] | None = None) -> Plan:
    """A path from `start` to `goal` (joint values (n,): rad, or the robot's length unit; or a
    `km.Target` — `km.targets.pose(T)`, `km.targets.position(p)`, … in the robot's own base
    frame and unit, as `km.ik` takes it — reached at whichever of its collision-free IK
    solutions within the limits (`km.ik_all` with the scene) OMPL gets to first) for
    `robot` (the scene's only robot by default; the others stay at their scene q) that touches
    nothing in `scene`, found by OMPL's `planner` ("rrtconnect", "rrtstar", "bitstar", "prm")
    within `time_limit` s, then shortcut and smoothed by OMPL's path simplifier (`simplify`).

    Several robots plan together when start and goal are dicts of joint values by robot name
    (``start={"left": qa, "right": qb}``): one joint space, theirs side by side, in which no
    robot may touch another, itself or the scene; the path's rows hold their joint values one
    after the other (`Plan.paths` splits them) and the default resolution is the finest of theirs.

    Every edge of the search and of the returned path is a straight joint-space line, sampled
    so that no point of any link moves more than `resolution` (scene length unit; default half
    the robot's capsule radius) between two checked states, and certified free between them:
    with c_j bounding the motion of a link point per unit of joint j (the farthest point of the
    links after joint j from its axis), a piece moving points by at most L_i = Σ c_j |Δq_j| is
    free when the scene's distances at its ends add up to more than L_i, and bisected until
    they do (see `plan.edges`). The distances are the compiled core's lower bounds: the links
    covered by spheres and by convex pieces of their meshes, which contain them, so a path free
    under them is free under the meshes (`exact=False`: the fast model alone); with `exact=True`
    coal measures the meshes wherever the bounds cannot tell (complete where pieces touch but
    meshes do not, such as fingers around a post; several times slower). By default (None) the
    model alone, unless the start or a goal is free but not clear under it (then exact). The
    returned path is re-checked that way after simplification
    (falling back to the unsimplified path if smoothing had cut a corner). `time_limit` bounds
    planning and simplification together (the simplifier gets what the planner left; when it
    runs out the path simplified so far is returned, certified as above, and the reason says
    so); checking the input, a goal target's IK and the robot's one-off bound tables come before
    it. A `seed` (1 … 2³² − 1) makes the plan reproducible when it finishes within its time
    limit: the planner then stops at its first solution (see `plan.solver`).

    `progress(seconds, checks)`, if given, is called after every edge judged (the command line
    prints a line on stderr now and then from it: a long plan never looks like a hang).

    Returns a `Plan`; a start or goal outside the limits or in collision, or no path in time,
    gives success False with the reason in words. Wrong input raises `PlanError`.
    """
    p = problem(scene, start, goal, robot, planner, time_limit, resolution, seed)
    return answer(p, None, lambda checker, goals: solve(checker, p.start, goals, p.planner, p.time_limit, p.seed,
                                                         simplify), exact, progress)


def answer(p: Problem, checker: EdgeChecker | None, run: Callable[[EdgeChecker, np.ndarray], Solved],
           exact: bool | None, progress: Callable[[float, int], None] | None) -> Plan:
    """The `Plan` of the checked query `p`: its start and goal judged, the goal set made, then
    `run(checker, goals)` (OMPL) and the path re-certified — on `checker`, or one built for it."""
    fault = endpoint_fault(p, "start", p.start)
    goals, goal_fault = goal_set(p) if fault is None else (None, None)
    if fault or goal_fault or goals is None:
        return _failed(p, fault or goal_fault or "", 1 if fault else 2)
    if checker is None:
        checker = EdgeChecker.build(p.scene, p.robot, p.lo, p.hi, p.resolution)
    # whether the core's model clears the start and each goal (free, as endpoint_fault found, but
    # maybe nearer than its slack) as the planner will ask it: by default coal's exact checks only
    # when it does not (a goal 0.13 mm from a shelf had a positive bound, yet OMPL found it invalid)
    clear = checker.model_free(np.vstack([p.start[None], goals]))
    checker.exact = bool(exact) if exact is not None else clear is None or not bool(clear.all())
    if not checker.exact and clear is not None and not clear.all():  # (exact=False: the model must clear them)
        which = "the start" if not clear[0] else "every goal" if not clear[1:].any() else None
        if which is not None:
            return _failed(p, f"{which} is free but not clear under the planning model (the links' convex "
                              "pieces touch something): plan with exact=True to check the meshes", 1 + len(goals))
        goals = goals[clear[1:]]
    checker.checks = 1 + len(goals)
    checker.progress, checker.started = progress, time.monotonic()
    got = run(checker, goals)
    if got.path is None:
        why = (f"no path found within {p.time_limit:g} s" if got.status in ("Timeout", "Approximate solution")
               else f"the planner gave no path ({got.status})")
        return _failed(p, why, checker.checks, got)
    t0 = time.perf_counter()
    path, note = _recertified(checker, got)
    got = dataclasses.replace(got, simplification_time=got.simplification_time + time.perf_counter() - t0)
    if path is None:
        return _failed(p, note, checker.checks, got)
    reached = int(np.argmin(np.abs(goals - path[-1]).max(axis=1)))
    path[0], path[-1] = p.start, goals[reached]  # the exact joint values, not OMPL's copies
    sweep = _sweep(checker, path)
    reason = (f"collision-free path of {len(path)} waypoints, links moving up to {sweep:.4g} "
              f"{p.scene.length_unit}{note}")
    if p.target is not None:
        reason += f", to IK solution {reached + 1} of the {len(goals)} collision-free ones of the goal target"
    return Plan(True, reason, path, p.robot, p.planner, got.status, got.planning_time, got.simplification_time,
                checker.checks, p.resolution, p.scene.length_unit, p.seed, sweep, got.raw, p.scene, checker)


__all__ = ["plan", "answer"]
