"""The Workspace card's Plan, without NiceGUI: the query taken from the session at the press, the
work done off the page's event loop, the verdict in words, and the states the view draws as the
path's trail.

The arm plans from where it stands to the goal — the IK target (solved by `km.plan`'s
collision-aware IK: any collision-free solution within the limits will do) or a pose of the
list — in the session's scene (its other robots where they stand, its obstacles), or in a scene
of the arm alone when none is open (then only its own links can collide). The scene is copied at
the press (`snapshot`): the planner works on it in another thread while the page may move an
obstacle, and a result is shown only while the session still has the robot, scene and seat it
was planned for (`key`). A path found is timed by TOPP-RA from rest to rest under VMAX and AMAX
per joint, the defaults of `kinematica plan --out`.

>>> from kinematica.app.state import Session
>>> s = Session(robot_name="planar-3r")
>>> s.path.goal = "pose:P1"
>>> request(s)
Traceback (most recent call last):
...
kinematica.errors.InputError: there is no pose named 'P1' in the list: add it, or pick another goal
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import kinematica as km
from kinematica.trajectory import TrajectoryError

from ..errors import InputError
from .state import PLANNERS, TIME_LIMIT_RANGE, Session

VMAX, AMAX = 1.0, 2.0  # rad/s, rad/s² (length unit/s, /s² for a prismatic joint): `kinematica plan`'s defaults
TRAIL_GHOSTS = 6  # ghost arms along the path (both ends included): a sweep to read, not a smear
TRAIL_POINTS = 120  # dots on the tool's path at most
ALONE = "arm"  # the arm's name in the scene of the arm alone


@dataclass(frozen=True)
class Request:
    """One press of Plan: a copy of the scene, the arm's name in it (`seat`), start q (core
    units), the goal (joint values or a `km.Target`) and how it is named in words, the planner,
    its time limit (s), and `key` (what the session must still hold for the result to apply)."""

    scene: km.Scene
    seat: str
    start: np.ndarray
    goal: np.ndarray | km.Target
    goal_words: str
    planner: str
    time_limit: float
    key: tuple


@dataclass(frozen=True)
class Outcome:
    """What the planning thread brings back: the plan (None when the query was refused as
    input), the timed trajectory (None on failure), the verdict in words, and the seconds the
    whole work took (IK of a target, planning, simplification, timing)."""

    plan: km.Plan | None
    trajectory: km.Trajectory | None
    words: str
    seconds: float


def goal_choices(s: Session) -> dict[str, str]:
    """What the goal select offers: the IK target, then every pose of the list by name."""
    return {"target": "the IK target"} | {f"pose:{p.name}": f"pose {p.name}" for p in s.poses}


def key(s: Session) -> tuple:
    """What a plan was made for: the robot, the scene (and its revision: an obstacle moved since
    makes the plan stale) and the seat."""
    return id(s.robot), id(s.scene), None if s.scene is None else s.scene.revision, s.seat


def snapshot(scene: km.Scene) -> km.Scene:
    """A copy of `scene` through its public API: its robots (at their q), obstacles and allowed
    pairs. Its collision engine is built afresh by whoever queries it first (the planning thread)."""
    out = km.Scene(scene.name, length_unit=scene.length_unit, description=scene.description)
    for e in scene.robots.values():
        c = e.collision
        out.add_robot(e.name, e.robot, e.base, q=e.q, radius=c.get("radius"), exclude=c.get("exclude", ()),
                      include=c.get("include", ()), source=e.source)
    for ob in scene.obstacles.values():
        out.add_obstacle(ob.name, ob.shape, ob.pose)
    for a, b in scene.allowed:
        out.allow(a, b)
    return out


def request(s: Session) -> Request:
    """The query of a press, from the session; InputError in words when the goal is not there
    (a pose no longer in the list, a target field that does not make a target)."""
    spec = s.path
    if spec.planner not in PLANNERS:
        raise InputError(f"unknown planner {spec.planner!r}: choose one of {', '.join(PLANNERS)}")
    lo, hi = TIME_LIMIT_RANGE
    if not lo <= float(spec.time_limit) <= hi:
        raise InputError(f"the time limit must be {lo:g} … {hi:g} s, got {spec.time_limit:g}")
    if spec.goal.startswith("pose:"):
        name = spec.goal.removeprefix("pose:")
        pose = next((p for p in s.poses if p.name == name), None)
        if pose is None:
            raise InputError(f"there is no pose named {name!r} in the list: add it, or pick another goal")
        goal: np.ndarray | km.Target = pose.q.copy()
        words = f"pose {name}"
    else:
        goal = s.target.build()  # a TargetError (ValueError) says which field
        words = "the IK target"
    current = s.open_scene
    if current is not None:
        scene, seat = snapshot(current.scene), current.seat
    else:
        scene, seat = km.Scene(f"{s.robot.name} alone", length_unit=s.robot.length_unit), ALONE
        scene.add_robot(ALONE, s.robot)
    return Request(scene, seat, s.q.copy(), goal, words, spec.planner, float(spec.time_limit), key(s))


def run(req: Request) -> Outcome:
    """Plan and time the request (in a worker thread: nothing here touches the page)."""
    t0 = time.perf_counter()
    head = f"{PLANNERS[req.planner]} to {req.goal_words}"
    try:
        plan = km.plan(req.scene, req.start, req.goal, robot=req.seat, planner=req.planner,
                       time_limit=req.time_limit)
    except ValueError as e:  # PlanError: input the planner refuses
        return Outcome(None, None, f"Not planned ({head}): {e}.", time.perf_counter() - t0)
    if not plan.success:
        return Outcome(plan, None, f"Not planned ({head}): {plan.reason}.", time.perf_counter() - t0)
    try:
        tr = plan.trajectory(vmax=VMAX, amax=AMAX)
    except TrajectoryError as e:
        return Outcome(plan, None, f"Planned ({head}) but not timed: {e}.", time.perf_counter() - t0)
    return Outcome(plan, tr, verdict(plan, tr, head), time.perf_counter() - t0)


def verdict(plan: km.Plan, tr: km.Trajectory, head: str) -> str:
    """A plan found, in words: the planner's verdict, its counts and times, how long it plays."""
    return (f"Planned ({head}): {plan.reason}; planning {_ms(plan.planning_time)} + simplification "
            f"{_ms(plan.simplification_time)}, {plan.checks} checks; plays in {tr.duration:.2f} s "
            f"(time-optimal, |q̇| ≤ {VMAX:g}, |q̈| ≤ {AMAX:g} rad/s, rad/s²).")


def _ms(seconds: float) -> str:
    return f"{1e3 * seconds:.3g} ms"


def trail(robot: km.Robot, tr: km.Trajectory, ghosts: int = TRAIL_GHOSTS,
          points: int = TRAIL_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(q of the ghosts (g, n), the tool's path (m, 3), robot units) for drawing the path: the
    ghosts evenly spaced in time from the start to the goal, the tool positions at up to
    `points` evenly spaced samples (every sample of a shorter trajectory)."""
    k = len(tr.t)
    at = np.unique(np.round(np.linspace(0, k - 1, min(ghosts, k))).astype(int))
    dots = np.unique(np.round(np.linspace(0, k - 1, min(points, k))).astype(int))
    return tr.q[at].copy(), km.fk(robot, tr.q[dots])[:, :3, 3].copy()
