"""Pose lists as CSV and JSON files, in the units the panels show (degrees for revolute joints,
the robot's length unit for prismatic ones), with the joint names and units in the header and
the robot's name recorded; and the planned trajectory through the core's files.

CSV layout:
    # kinematica poses: robot=braccio length_unit=mm angle_unit=deg
    name,M1 base [deg],M2 shoulder [deg],…
    P1,0.0,-45.0,…
JSON: {"format": "kinematica-poses", "version": 1, "robot": …, "length_unit": …,
       "joints": [{"name": …, "unit": …}, …], "poses": [{"name": …, "q": [...]}, …]}

Reading checks the joint count and names against the robot (a file of another arm is refused
with both lists named); revolute columns may be in deg or rad, prismatic ones in m or mm — they
are converted. The robot name is not required to match: a list made on a copy of the arm
(same joints) opens.

>>> from kinematica.app.state import Session, Pose
>>> s = Session()
>>> s.poses.append(Pose("P1", s.q))
>>> [p.name for p in poses_from_csv(s.robot, poses_to_csv(s.robot, s.poses))]
['P1']
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np

import kinematica as km
from kinematica.trajectory import files as trajectory_files

from ..errors import InputError, KinematicaError
from .playlist import check_name
from .state import FieldError, Pose, check_joints, to_display

FORMAT = "kinematica-poses"
VERSION = 1
_HEAD = re.compile(r"^(?P<name>.+?)\s*\[(?P<unit>[^\]]*)\]$")
# Factor from a file's unit to the core's (rad, or the robot's length unit).
_ANGLE = {"deg": np.pi / 180.0, "°": np.pi / 180.0, "rad": 1.0}
_LENGTH_TO_M = {"m": 1.0, "mm": 1e-3}


class PoseFileError(KinematicaError, ValueError):
    """A pose file that cannot be read; the message says where and why."""


def units(robot: km.Robot) -> list[str]:
    """The unit of each joint as written: deg, or the length unit."""
    return ["deg" if r else robot.length_unit for r in robot.revolute]


def _display(robot: km.Robot, q: np.ndarray) -> list[float]:
    """Displayed values rounded to 1e-9 (deg or length unit): 30.0, not the 29.999999999999996
    that rad → deg leaves, at a cost far below any joint's resolution."""
    return [round(float(v), 9) + 0.0 for v in np.asarray(q, dtype=float) * robot.angle_scale]


def poses_to_csv(robot: km.Robot, poses: list[Pose]) -> str:
    """CSV text of the pose list (see the module docstring)."""
    out = io.StringIO()
    out.write(f"# {FORMAT}: robot={robot.name} length_unit={robot.length_unit} angle_unit=deg\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name"] + [f"{n} [{u}]" for n, u in zip(robot.joint_names, units(robot), strict=True)])
    for p in poses:
        w.writerow([p.name] + [repr(v) for v in _display(robot, p.q)])
    return out.getvalue()


def poses_to_json(robot: km.Robot, poses: list[Pose]) -> str:
    """JSON text of the pose list (see the module docstring)."""
    doc = {"format": FORMAT, "version": VERSION, "robot": robot.name, "length_unit": robot.length_unit,
           "angle_unit": "deg",
           "joints": [{"name": n, "unit": u} for n, u in zip(robot.joint_names, units(robot), strict=True)],
           "poses": [{"name": p.name, "q": _display(robot, p.q)} for p in poses]}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def _factors(robot: km.Robot, names: list[str], file_units: list[str], where: str) -> np.ndarray:
    """Per joint, the factor from the file's unit to core units; PoseFileError on a mismatch."""
    if len(names) != robot.n:
        raise PoseFileError(f"{where}: {len(names)} joints ({', '.join(names) or 'none'}), but "
                            f"{robot.name} has {robot.n} ({', '.join(robot.joint_names)})")
    wrong = [(a, b) for a, b in zip(names, robot.joint_names, strict=True) if a != b]
    if wrong:
        raise PoseFileError(f"{where}: joint {wrong[0][0]!r} where {robot.name} has {wrong[0][1]!r}; "
                            f"the file's joints are {', '.join(names)}, the robot's {', '.join(robot.joint_names)}")
    k = np.ones(robot.n)
    for i, (name, unit) in enumerate(zip(names, file_units, strict=True)):
        table = _ANGLE if robot.revolute[i] else _LENGTH_TO_M
        if unit not in table:
            kind = "an angle (deg or rad)" if robot.revolute[i] else "a length (m or mm)"
            raise PoseFileError(f"{where}: joint {name!r} is in {unit!r}, expected {kind}")
        k[i] = table[unit] if robot.revolute[i] else table[unit] / _LENGTH_TO_M[robot.length_unit]
    return k


def _pose(robot: km.Robot, name, values, k: np.ndarray, where: str) -> Pose:
    """One pose of a file: its name and joint values checked as the Poses card and the joint
    fields check them (`playlist.check_name`, `state.check_joints`); values in core units."""
    if not isinstance(name, str):
        raise PoseFileError(f"{where}: the pose needs a name")
    try:
        name = check_name([], name)
    except ValueError as e:
        raise PoseFileError(f"{where}: {e}") from None
    try:
        v = np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise PoseFileError(f"{where} ({name}): expected numbers, got {values!r}") from None
    if v.shape != k.shape:
        raise PoseFileError(f"{where} ({name}): expected {len(k)} joint values, got {np.size(v)}")
    try:
        return Pose(name, check_joints(robot, to_display(robot, v * k), f"{where} ({name})"))
    except FieldError as e:
        raise PoseFileError(str(e)) from None


def poses_from_csv(robot: km.Robot, text: str | bytes, where: str = "poses CSV") -> list[Pose]:
    """Poses from `poses_to_csv` text (or a hand-made file in the same layout), in core units."""
    text = _text(text, where)
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise PoseFileError(f"{where}: empty — expected a header (name, joints with [unit]) and rows")
    rows = list(csv.reader(lines))
    head = [h.strip() for h in rows[0]]
    if not head or head[0].lower() != "name":
        raise PoseFileError(f"{where}: the first column must be 'name', got {head[0] if head else ''!r}")
    found = [_HEAD.match(h) for h in head[1:]]
    matches = [m for m in found if m is not None]
    if len(matches) < len(found):
        bad = head[1:][[m is None for m in found].index(True)]
        raise PoseFileError(f"{where}: column {bad!r} has no [unit]")
    k = _factors(robot, [m["name"] for m in matches], [m["unit"] for m in matches], where)
    return [_pose(robot, r[0] if r else "", [x.strip() for x in r[1:]], k, f"{where} row {i + 2}")
            for i, r in enumerate(rows[1:])]


def poses_from_json(robot: km.Robot, text: str | bytes, where: str = "poses JSON") -> list[Pose]:
    """Poses from `poses_to_json` text, in core units."""
    try:
        doc = json.loads(_text(text, where))
    except json.JSONDecodeError as e:
        raise PoseFileError(f"{where}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise PoseFileError(f"{where}: not a Kinematica pose list (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise PoseFileError(f"{where}: version {doc.get('version')!r} is not supported (this is {VERSION})")
    joints, poses = doc.get("joints"), doc.get("poses")
    if not isinstance(joints, list) or not all(isinstance(j, dict) for j in joints):
        raise PoseFileError(f"{where}: 'joints' must be a list of {{name, unit}}")
    if not isinstance(poses, list) or not all(isinstance(p, dict) for p in poses):
        raise PoseFileError(f"{where}: 'poses' must be a list of {{name, q}}")
    k = _factors(robot, [str(j.get("name")) for j in joints], [str(j.get("unit")) for j in joints], where)
    return [_pose(robot, p.get("name"), p.get("q"), k, f"{where} pose {i + 1}") for i, p in enumerate(poses)]


def poses_from_file(robot: km.Robot, filename: str, content: str | bytes) -> list[Pose]:
    """Poses from a file's content, CSV or JSON by its extension (or its first character)."""
    lower = filename.lower()
    text = _text(content, filename)
    is_json = lower.endswith(".json") or (not lower.endswith(".csv") and text.lstrip().startswith("{"))
    return (poses_from_json if is_json else poses_from_csv)(robot, text, filename)


def _text(content: str | bytes, where: str) -> str:
    if isinstance(content, bytes):
        try:
            return content.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise PoseFileError(f"{where}: not UTF-8 text") from None
    return content


def trajectory_text(tr: km.Trajectory, fmt: str) -> str:
    """The planned trajectory as the core writes it, joint values in degrees: fmt "csv" or "json"."""
    if fmt == "csv":
        return trajectory_files.to_csv(tr, degrees=True)
    if fmt == "json":
        return trajectory_files.to_json(tr, degrees=True)
    raise InputError(f"trajectory format must be csv or json, got {fmt!r}")
