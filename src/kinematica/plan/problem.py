"""A planning query's input, checked: which robot of the scene moves — or which robots, planned
together in one joint space (start and goal given per robot) — its start and goal, the joint
box it plans in, the resolution, the planner, the time limit and the seed. Wrong input raises
`PlanError` naming what is wrong; a start or goal that is well formed but unusable (outside the
limits, in collision) is not an error but a verdict, in words (`endpoint_fault`).

The box is the robot's joint limits (a group's: its robots' one after the other); a revolute
joint without limits is planned in [−2π, 2π] rad (`FREE_TURN`), a prismatic joint needs limits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError, InputTypeError
from ..ik.target import Target
from ..scene.linkgeom import arm_length
from .group import names_of, split
from .solver import PLANNERS

FREE_TURN = 2 * math.pi  # rad: the box of a revolute joint without limits is ±FREE_TURN
MAX_TIME = 3600.0  # s: a longer time limit is a typo, not a plan


class PlanError(InputError):
    """A planning query given wrong input: a shape, a NaN, an unknown robot or planner."""


@dataclass(frozen=True)
class Problem:
    """The checked query: `robot` (its name in `scene`, or a tuple of names for robots planned
    together, whose joint values then follow one another in start, goal and the box), start
    (n,), the goal as joint values (n,) or an IK `target` (then `goal` is None), the box
    lo ≤ q ≤ hi, `resolution` (scene length unit), planner name, time limit (s) and seed."""

    scene: Any
    robot: str | tuple[str, ...]
    start: np.ndarray
    goal: np.ndarray | None
    lo: np.ndarray
    hi: np.ndarray
    resolution: float
    planner: str
    time_limit: float
    seed: int | None
    target: Target | None = None


def _robot(scene: Any, robot: str | None) -> str:
    names = list(scene.robots)
    if robot is None:
        if len(names) != 1:
            raise PlanError(f"the scene has {len(names)} robots ({', '.join(names) or 'none'}): "
                            "name the one to plan for with robot=")
        return names[0]
    if robot not in scene.robots:
        raise PlanError(f"robot: unknown robot {robot!r}: the scene has {', '.join(names) or 'none'}")
    return robot


def _joints(q: ArrayLike, n: int, what: str, joint_names: tuple[str, ...]) -> np.ndarray:
    if isinstance(q, (str, bytes)):
        raise PlanError(f"{what}: expected {n} joint values, got the text {q!r}")
    try:
        a = np.array(q, dtype=float)
    except (TypeError, ValueError):
        raise PlanError(f"{what}: expected {n} numbers, got {q!r}") from None
    if a.shape != (n,):
        raise PlanError(f"{what}: the robot has {n} joints ({', '.join(joint_names)}); expected shape ({n},), "
                        f"got {a.shape}")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise PlanError(f"{what}: {joint_names[bad[0]]} is {a[bad[0]]} (NaN or infinity)")
    return a


def _box(robot: Any) -> tuple[np.ndarray, np.ndarray]:
    lim = np.array(robot.limits, dtype=float)
    for j in np.flatnonzero(~np.all(np.isfinite(lim), axis=1)):
        if not robot.revolute[j]:
            raise PlanError(f"{robot.joint_names[j]}: a prismatic joint without limits; a planner needs a bounded box")
    lo = np.where(np.isfinite(lim[:, 0]), lim[:, 0], -FREE_TURN)
    hi = np.where(np.isfinite(lim[:, 1]), lim[:, 1], FREE_TURN)
    return lo, hi


def _positive(x: Any, what: str, top: float = math.inf) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise PlanError(f"{what}: expected a positive number, got {x!r}")
    v = float(x)
    if not (math.isfinite(v) and 0 < v <= top):
        raise PlanError(f"{what}: expected a positive finite number{'' if top == math.inf else f' ≤ {top:g}'}, "
                        f"got {x!r}")
    return v


def default_resolution(scene: Any, robot: str) -> float:
    """Half the robot's capsule radius (as `check_trajectory`), else 1 % of its arm's length
    (a robot with its own URDF shapes), in the scene's length unit."""
    entry, geom = scene.robots[robot], scene.geometry(robot)
    return 0.5 * geom.radius * entry.scale if geom.radius else 0.01 * arm_length(entry.robot) * entry.scale


def _group(scene: Any, start: Mapping, goal: Any, robot: Any) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """(names, start, goal) of robots planned together: start and goal per robot by name."""
    if robot is not None:
        raise PlanError("robot: with start and goal given per robot (a dict), the robots planned are its keys; "
                        "leave robot= out")
    names = tuple(start)
    for name in names:
        if not isinstance(name, str) or name not in scene.robots:
            raise PlanError(f"start: unknown robot {name!r}: the scene has {', '.join(scene.robots) or 'none'}")
    if isinstance(goal, Target) or not isinstance(goal, Mapping):
        raise PlanError(f"goal: with start given per robot, give the goal per robot too, as joint values "
                        f"{{{', '.join(repr(n) for n in names)}}}")
    if set(goal) != set(names):
        raise PlanError(f"goal: expected the robots of start ({', '.join(names)}), got {', '.join(map(str, goal))}")
    parts = []
    for which, q in (("start", start), ("goal", goal)):
        parts.append(np.concatenate([_joints(q[name], scene.robots[name].robot.n, f"{which}[{name!r}]",
                                             scene.robots[name].robot.joint_names) for name in names]))
    return names, parts[0], parts[1]


def problem(scene: Any, start: Any, goal: Any, robot: str | None, planner: str, time_limit: float,
            resolution: float | None, seed: int | None) -> Problem:
    """The checked `Problem`, or PlanError naming the first wrong input."""
    if not (hasattr(scene, "robots") and hasattr(scene, "check")):
        raise InputTypeError(f"scene: expected a km.Scene, got {type(scene).__name__}")
    target = None
    if isinstance(start, Mapping):
        names, s, g = _group(scene, start, goal, robot)
        name: str | tuple[str, ...] = names[0] if len(names) == 1 else names
    else:
        name = _robot(scene, robot)
        r = scene.robots[name].robot
        s = _joints(start, r.n, "start", r.joint_names)
        if isinstance(goal, Target):
            target, g = goal, None
            if target.shape != ():
                raise PlanError(f"goal: one target, not a stack of shape {target.shape}")
        else:
            g = _joints(goal, r.n, "goal", r.joint_names)
    if not isinstance(planner, str) or planner not in PLANNERS:
        raise PlanError(f"planner: unknown planner {planner!r}; planners: {', '.join(PLANNERS)}")
    t = _positive(time_limit, "time_limit", MAX_TIME)
    res = (min(default_resolution(scene, n) for n in names_of(name)) if resolution is None
           else _positive(resolution, "resolution"))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 < seed < 2 ** 32):
        raise PlanError(f"seed: expected a whole number from 1 to {2 ** 32 - 1}, got {seed!r}")
    if seed is not None and planner == "prm":
        raise PlanError("seed: OMPL's PRM grows its roadmap in a second thread, so its plans cannot be "
                        "reproduced; give no seed, or use rrtconnect, rrtstar or bitstar")
    boxes = [_box(scene.robots[n].robot) for n in names_of(name)]
    lo, hi = np.concatenate([b[0] for b in boxes]), np.concatenate([b[1] for b in boxes])
    return Problem(scene, name, s, g, lo, hi, res, planner, t, None if seed is None else int(seed), target)


def endpoint_fault(p: Problem, which: str, q: np.ndarray) -> str | None:
    """Why `q` (the start or goal) cannot be planned from or to, in words; None when it can."""
    k = 0
    for name in names_of(p.robot):
        r = p.scene.robots[name].robot
        qr, lo, hi = q[k:k + r.n], p.lo[k:k + r.n], p.hi[k:k + r.n]
        k += r.n
        out = np.flatnonzero((qr < lo) | (qr > hi))
        if out.size:
            j = out[0]
            u = "rad" if r.revolute[j] else r.length_unit
            whose = "" if isinstance(p.robot, str) else f"{name}'s "
            return (f"the {which} is outside the joint limits: {whose}{r.joint_names[j]} = {qr[j]:.6g} {u} is not in "
                    f"[{lo[j]:.6g}, {hi[j]:.6g}] {u}")
    rep = p.scene.check(split(p.scene, p.robot, q))
    if rep.colliding:
        return f"the {which} is in collision: " + "; ".join(f"{a} touches {b}" for a, b in rep.collisions)
    return None


__all__ = ["PlanError", "Problem", "problem", "endpoint_fault", "default_resolution", "FREE_TURN"]
