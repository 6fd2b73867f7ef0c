"""The simulator's work as a project: a plain JSON-able dict (robot, joint values, mode, IK
target and method, the pose lists, how they are played, the view, the workspace scene), written to a `.kinematica.json`
file and kept in the browser session's storage so a page reload loses nothing.

Joint values are stored as the panels show them (degrees for revolute joints, the robot's length
unit for prismatic ones), so a project file reads like the screen. A robot that is not bundled
(read from a file, or edited in the Robot tab) is embedded as its robot-file dict, so the
project opens on a machine that never saw that file.

>>> from kinematica.app.state import Session
>>> s = Session()
>>> s.set_joint(0, 30.0)
>>> again = from_dict(to_dict(s))
>>> again.robot_name, again.display_q().round(6).tolist()
('braccio', [30.0, -45.0, 90.0, 90.0, 0.0])
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import yaml

import kinematica as km
from kinematica.model.robotfile import read_text, robot_to_dict
from kinematica.model.schema import dump
from kinematica.scene import dump_scene, read_scene_text

from ..errors import KinematicaError
from .playlist import check_name
from .state import (
    METHODS,
    MODES,
    PLAN_KINDS,
    PROJECTIONS,
    FieldError,
    PlanSpec,
    Pose,
    Session,
    TargetSpec,
    ViewSpec,
    bundled,
    check_joints,
    check_seconds,
    check_speed,
    target_kinds,
    to_display,
)

FORMAT = "kinematica-project"
VERSION = 1
SUFFIX = ".kinematica.json"


class ProjectError(KinematicaError, ValueError):
    """A project file that cannot be opened; the message says which field and why."""


def to_dict(s: Session) -> dict[str, Any]:
    """The session as a JSON-able dict (see the module docstring)."""
    robots = {label: robot_to_dict(r) for label, r in s.loaded.items()}
    poses = {label: [{"name": p.name, "q": _numbers(to_display(_robot(s, label), p.q))} for p in items]
             for label, items in s.pose_lists.items() if items}
    t = s.target
    return {
        "format": FORMAT, "version": VERSION,
        "robot": s.robot_name,
        "robots": robots,
        "q": _numbers(s.display_q()),
        "mode": s.mode,
        "target": {"kind": t.kind, "position": _numbers(t.position), "rpy_deg": _numbers(t.rpy_deg),
                   "pitch_deg": float(t.pitch_deg)},
        "method": s.method if s.method in METHODS else "lm",  # a learned model's file is not in the project
        "ghosts_outside": bool(s.ghosts_outside),
        "poses": poses,
        "plan": {"kind": s.plan.kind, "seconds": float(s.plan.seconds), "speed": float(s.plan.speed),
                 "loop": bool(s.plan.loop), "t": float(s.t)},
        "view": {"projection": s.view.projection, "frames": bool(s.view.frames), "looks": bool(s.view.looks),
                 "collision": bool(s.view.collision)},
    } | ({"workspace": {"seat": s.seat, "scene": yaml.safe_load(dump_scene(s.scene.to_dict()))}}
         if s.scene is not None else {})


def from_dict(data: Any) -> Session:
    """A session from `to_dict`'s output; raises `ProjectError` naming the bad field. Every
    value is checked by the rule of the field that shows it (`state.check_joints`,
    `check_seconds`, `check_speed`, `playlist.check_name`, the selects' choices), so a project
    opens only with values the panels themselves could have produced."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProjectError(f"not a Kinematica project (expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ProjectError(f"project version {data.get('version')!r} is not supported (this is version {VERSION})")
    try:
        return _session(data)
    except FieldError as e:  # a value no field would take: the message names it
        raise ProjectError(str(e)) from None


def _session(data: dict) -> Session:
    loaded = {}
    for label, robot in _get(data, "robots", dict, {}).items():
        try:
            # through the robot file's own reader, so the schema and meaning checks apply
            loaded[str(label)] = read_text(dump(robot), f"project robot {label!r}")
        except (ValueError, TypeError, yaml.YAMLError) as e:
            raise ProjectError(str(e)) from None
    name = _get(data, "robot", str, km.robot_names()[0])
    if name not in loaded and name not in km.robot_names():
        raise ProjectError(f"robot {name!r} is neither bundled nor embedded in the project")
    s = Session(robot_name=name, loaded=loaded)
    if "q" not in data:
        raise ProjectError("q is missing")
    s.set_q(check_joints(s.robot, data["q"], "q"))
    s.mode = _choice(data, "mode", MODES, "fk")
    t = _get(data, "target", dict, {})
    s.target = TargetSpec(_choice(t, "kind", target_kinds(s.robot), s.target.kind, "target.kind"),
                          tuple(_vector(t, "position", 3, "target.position")),
                          tuple(_vector(t, "rpy_deg", 3, "target.rpy_deg")),
                          float(_vector(t, "pitch_deg", None, "target.pitch_deg")))
    s.method = _choice(data, "method", METHODS, "lm")
    s.ghosts_outside = _flag(data, "ghosts_outside")
    for label, items in _get(data, "poses", dict, {}).items():
        if label not in loaded and label not in km.robot_names():
            raise ProjectError(f"poses for robot {label!r}, which is neither bundled nor embedded")
        if not isinstance(items, list):
            raise ProjectError(f"poses[{label!r}]: expected a list of {{name, q}}, got {type(items).__name__}")
        robot = loaded.get(label) or bundled(label)
        s.pose_lists[label] = poses = []
        for i, item in enumerate(items):
            poses.append(_pose(robot, poses, item, f"poses[{label!r}][{i}]"))
    p = _get(data, "plan", dict, {})
    s.plan = PlanSpec(_choice(p, "kind", PLAN_KINDS, "joint", "plan.kind"),
                      check_seconds(p.get("seconds", 2.0), "plan.seconds"),
                      check_speed(p.get("speed", 1.0), "plan.speed"), _flag(p, "loop", "plan.loop"))
    s.t = float(_vector(p, "t", None, "plan.t")) if "t" in p else 0.0
    if s.t < 0:
        raise ProjectError(f"plan.t: the player's time cannot be negative, got {s.t:g}")
    v = _get(data, "view", dict, {})
    s.view = ViewSpec(_choice(v, "projection", PROJECTIONS, s.view.projection, "view.projection"),
                      _flag(v, "frames", "view.frames"), _flag(v, "looks", "view.looks", default=True),
                      _flag(v, "collision", "view.collision"))
    if "workspace" in data:
        s.scene, s.seat = _workspace(_get(data, "workspace", dict, {}), s)
    return s


def _workspace(w: dict, s: Session) -> tuple[km.Scene, str]:
    """The open scene and the arm's seat in it, read through the scene file's own checks."""
    try:
        plain = json.loads(json.dumps(_get(w, "scene", dict, {})))  # the browser storage's dicts → plain
        scene = read_scene_text(dump(plain), "project workspace.scene")
    except (ValueError, TypeError, yaml.YAMLError) as e:
        raise ProjectError(str(e)) from None
    seat = w.get("seat")
    if not isinstance(seat, str) or seat not in scene.robots or scene.robots[seat].robot.name != s.robot_name:
        raise ProjectError(f"workspace.seat: {seat!r} is not a robot of the scene that the arm "
                           f"({s.robot_name}) can be")
    return scene, seat


def dumps(s: Session) -> str:
    """The project file's text."""
    return json.dumps(to_dict(s), indent=1, ensure_ascii=False) + "\n"


def loads(text: str | bytes) -> Session:
    """A session from a project file's text; `ProjectError` on anything malformed."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ProjectError(f"not JSON: {e}") from None
    return from_dict(data)


# --- checking fields --------------------------------------------------------------------------
def _get(d: dict, key: str, kind: type, default: Any) -> Any:
    value = d.get(key, default)
    if not isinstance(value, kind):
        raise ProjectError(f"{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _choice(d: dict, key: str, allowed, default: str, where: str | None = None) -> str:
    value = d.get(key, default)
    if not isinstance(value, str) or value not in allowed:
        raise ProjectError(f"{where or key}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _flag(d: dict, key: str, where: str | None = None, default: bool = False) -> bool:
    """A checkbox: true or false (absent: `default`), nothing else."""
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ProjectError(f"{where or key}: expected true or false, got {value!r}")
    return value


def _vector(d: dict, key: str, n: int | None, where: str | None = None) -> np.ndarray:
    where = where or key
    try:
        v = np.asarray(d[key], dtype=float)
    except KeyError:
        raise ProjectError(f"{where} is missing") from None
    except (TypeError, ValueError):
        raise ProjectError(f"{where}: expected numbers, got {d[key]!r}") from None
    if (n is None and v.shape != ()) or (n is not None and v.shape != (n,)):
        raise ProjectError(f"{where}: expected {'a number' if n is None else f'{n} numbers'}, got {d[key]!r}")
    if not np.all(np.isfinite(v)):
        raise ProjectError(f"{where}: expected finite numbers, got {d[key]!r}")
    return v


def _pose(robot: km.Robot, poses: list[Pose], item: Any, where: str) -> Pose:
    """One saved pose, its name and joint values checked as the Poses card checks them."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ProjectError(f"{where}: expected {{name, q}}")
    try:
        name = check_name(poses, item["name"])
    except ValueError as e:
        raise ProjectError(f"{where}.name: {e}") from None
    if "q" not in item:
        raise ProjectError(f"{where}.q is missing")
    return Pose(name, check_joints(robot, item["q"], f"{where}.q"))


def _robot(s: Session, label: str) -> km.Robot:
    if label == s.robot_name:
        return s.robot
    return s.loaded[label] if label in s.loaded else bundled(label)


def _numbers(values) -> list[float]:
    return [float(v) + 0.0 for v in np.asarray(values, dtype=float).ravel()]
