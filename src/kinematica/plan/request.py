"""MoveIt motion-plan requests (`moveit_msgs/MotionPlanRequest` YAML, as MotionBenchMaker
writes them) read as the start and goal of `km.plan`.

`start_state.joint_state` (name, position) gives the start by joint name, on top of the
robot's scene q (joints the robot lacks, a gripper's, are ignored); the goal is
`goal_constraints[0].joint_constraints`, each {joint_name, position}, and must name every
joint of the robot. Refused in words (SceneFileError naming file, line and field): a goal
with position or orientation constraints, more than one goal constraint set, a joint named
twice, a robot joint the goal leaves out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..scene import SceneError, SceneFileError
from ..scene.moveit import YamlFile, joint_vector


@dataclass(frozen=True)
class Request:
    """A MoveIt request for robot `robot` of a scene: `start`, `goal` (n,) in rad (the
    robot's length unit for prismatic joints); `group` and `planner_id` as the file names them."""

    robot: str
    start: np.ndarray
    goal: np.ndarray
    group: str
    planner_id: str


def _robot(scene: Any, robot: str | None, where: str) -> str:
    if robot is not None:
        scene.robot_entry(robot)  # SceneError naming the scene's robots
        return robot
    if len(scene.robots) != 1:
        raise SceneError(f"{where}: the scene has {len(scene.robots)} robots; name the one the request is for")
    return next(iter(scene.robots))


def _goal(f: YamlFile, robot: Any, q0: np.ndarray) -> np.ndarray:
    sets = f.get(["goal_constraints"], list, [])
    if len(sets) != 1:
        raise f.fail(["goal_constraints"], f"expected one goal constraint set, got {len(sets)}")
    for kind in ("position_constraints", "orientation_constraints", "visibility_constraints"):
        if f.get(["goal_constraints", 0, kind], list, []):
            raise f.fail(["goal_constraints", 0, kind], "only joint constraints are read as a goal")
    at = ["goal_constraints", 0, "joint_constraints"]
    rows = f.get(at, list, [])
    names = [f.get(at + [i, "joint_name"], str) for i in range(len(rows))]
    values = [f.get(at + [i, "position"], (int, float)) for i in range(len(rows))]
    for i, (n, v) in enumerate(zip(names, values, strict=True)):
        if n is None or v is None:
            raise f.fail(at + [i], "a joint constraint needs joint_name and position")
        if names.index(n) != i:
            raise f.fail(at + [i, "joint_name"], f"{n} is constrained twice")
    missing = [j for j in robot.joint_names if j not in names]
    if missing:
        raise f.fail(at, f"the goal leaves out {', '.join(missing)} of {robot.name}")
    return joint_vector(f, at, names, values, robot, q0)


def read_request(path: str | os.PathLike[str], scene: Any, robot: str | None = None) -> Request:
    """The start and goal of the MoveIt request file `path` for robot `robot` of `scene`
    (its only robot by default); see the module text."""
    p = Path(path)
    if not p.is_file():
        raise SceneError(f"MoveIt request file not found: {p}")
    f = YamlFile(p.read_text(encoding="utf-8"), str(p))
    if not isinstance(f.data, dict):
        raise SceneFileError(f"{p} line 1: (top level): expected a MoveIt motion plan request (a mapping)")
    name = _robot(scene, robot, str(p))
    entry = scene.robots[name]
    at = ["start_state", "joint_state"]
    start = joint_vector(f, at, f.get(at + ["name"], list, []), f.get(at + ["position"], list, []), entry.robot,
                         entry.q)
    goal = _goal(f, entry.robot, entry.q)
    return Request(name, start, goal, f.get(["group_name"], str, ""), f.get(["planner_id"], str, ""))


__all__ = ["Request", "read_request"]
