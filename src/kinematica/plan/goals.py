"""The goal of a plan as a set of configurations: the joint values given, or every collision-free
IK solution of a target within the joint box (`km.ik_all` with the scene, the other robots held
at their scene q) — OMPL then plans to whichever of them it reaches first.
"""

from __future__ import annotations

import numpy as np

from ..ik import ik, ik_all
from .problem import Problem, endpoint_fault


def goal_set(p: Problem) -> tuple[np.ndarray, str | None]:
    """(goals (m, n), None), or (empty, why there is no usable goal, in words)."""
    if p.goal is not None or p.target is None:  # (always so for a group: its goal is joint values)
        goal = p.start if p.goal is None else p.goal  # (a Problem always has one of goal, target)
        fault = endpoint_fault(p, "goal", goal)
        return (np.empty((0, len(p.start))) if fault else goal[None]), fault
    assert isinstance(p.robot, str)
    robot = p.scene.robots[p.robot].robot
    sols = ik_all(robot, p.target, p.start, scene=p.scene.for_robot(p.robot), colliding="mark")
    if not sols:
        return np.empty((0, robot.n)), f"the goal target cannot be reached: {ik(robot, p.target, p.start).reason}"
    inside = [s for s in sols if np.all((s.q >= p.lo) & (s.q <= p.hi))]
    free = [s for s in inside if s.success]
    if free:
        return np.array([s.q for s in free], dtype=float), None
    hits = sorted({f"{a} touches {b}" for s in inside for a, b in ([s.collision] if s.collision else [])})
    return np.empty((0, robot.n)), (f"every IK solution of the goal target ({len(sols)}) collides or is outside "
                                    f"the joint limits" + (f": {'; '.join(hits)}" if hits else ""))


__all__ = ["goal_set"]
