"""`km.plan`: a collision-free joint path for one robot of a scene, found by an OMPL planner.

>>> import kinematica as km, numpy as np
>>> s = km.Scene()
>>> _ = s.add_robot("arm", "puma560")
>>> p = km.plan(s, np.zeros(6), np.full(6, 0.3), seed=1)
>>> p.success, p.path[0].tolist() == [0.0] * 6, np.allclose(p.path[-1], 0.3)
(True, True, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

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


@strict
def plan(scene, start: ArrayLike | Mapping[str, ArrayLike], goal: ArrayLike | Target | Mapping[str, ArrayLike], *,
         robot: str | None = None, planner: str = "rrtconnect", time_limit: float = 1.0,
         resolution: float | None = None, seed: int | None = None, simplify: bool = True) -> Plan:
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
    they do (see `plan.edges`). The returned path is re-checked that way after simplification
    (falling back to the unsimplified path if smoothing had cut a corner). A `seed`
    (1 … 2³² − 1) makes the plan reproducible: the planner then stops at its first solution
    (see `plan.solver`).

    Returns a `Plan`; a start or goal outside the limits or in collision, or no path in time,
    gives success False with the reason in words. Wrong input raises `PlanError`.
    """
    p = problem(scene, start, goal, robot, planner, time_limit, resolution, seed)
    fault = endpoint_fault(p, "start", p.start)
    goals, goal_fault = goal_set(p) if fault is None else (None, None)
    if fault or goal_fault or goals is None:
        return _failed(p, fault or goal_fault or "", 1 if fault else 2)
    checker = EdgeChecker.build(p.scene, p.robot, p.lo, p.hi, p.resolution)
    checker.checks = 1 + len(goals)
    got = solve(checker, p.start, goals, p.planner, p.time_limit, p.seed, simplify)
    if got.path is None:
        why = (f"no path found within {p.time_limit:g} s" if got.status in ("Timeout", "Approximate solution")
               else f"the planner gave no path ({got.status})")
        return _failed(p, why, checker.checks, got)
    path, note = got.path, ""
    if checker.first_blocked(path) is not None:  # a smoothed corner the simplifier's own checks let by
        path, note = got.raw, " (unsimplified: the smoothed path touched the scene)"
        bad = checker.first_blocked(path)
        if bad is not None:
            return _failed(p, f"the planner's path touches the scene on edge {bad} when re-checked",
                           checker.checks, got)
    reached = int(np.argmin(np.abs(goals - path[-1]).max(axis=1)))
    path[0], path[-1] = p.start, goals[reached]  # the exact joint values, not OMPL's copies
    sweep = _sweep(checker, path)
    reason = (f"collision-free path of {len(path)} waypoints, links moving up to {sweep:.4g} "
              f"{p.scene.length_unit}{note}")
    if p.target is not None:
        reason += f", to IK solution {reached + 1} of the {len(goals)} collision-free ones of the goal target"
    return Plan(True, reason, path, p.robot, p.planner, got.status, got.planning_time, got.simplification_time,
                checker.checks, p.resolution, p.scene.length_unit, p.seed, sweep, got.raw, p.scene, checker)


__all__ = ["plan"]
