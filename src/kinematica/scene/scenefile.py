"""YAML scene files: validated like robot files (errors name the file, line and field).

    name: two-braccios
    length_unit: mm            # of every position and size in the file (default m)
    angle_unit: deg            # of rpy angles and robot q (default rad)
    robots:
      - name: left             # no '/' or '=' in names
        robot: braccio         # a bundled robot, or a .yaml/.urdf file (relative to this file)
        base: {xyz: [-250, 0, 20], rpy: [0, 0, 0]}
        q: [0, -45, 90, 90, 0] # optional: its configuration in the scene (default its home)
        collision: {radius: 20, exclude: [[base, forearm]], include: []}
    obstacles:
      - {name: table, shape: box, size: [800, 400, 20], pose: {xyz: [0, 0, 10]}}
      - {name: can, shape: cylinder, radius: 30, length: 120, pose: {xyz: [0, 150, 80]}}
      - {name: part, shape: mesh, path: part.stl, scale: 1, pose: {xyz: [0, 0, 20]}}
    allow:                     # pairs never checked: "robot/link", a robot (all its links) or an obstacle
      - [left/base, table]

Placements take `xyz`, and `rpy` (roll, pitch, yaw about fixed x, y, z) or a `rotation`
matrix, or a 4x4 `matrix`, as in robot files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .. import spatial
from ..bounds import BOUND_WORDS, joint_bounds
from ..model.placement import placement
from ..model.robot import MAX_LENGTH
from ..model.schema import (
    COLLISION,
    RobotFileError,
    dump,
    field_name,
    line_of,
    load_yaml,
    validate,
)
from .shapes import SHAPES, SIZES, SceneError, make_shape

_num = {"type": "number"}
_vec3 = {"type": "array", "items": _num, "minItems": 3, "maxItems": 3}
_mat3 = {"type": "array", "items": _vec3, "minItems": 3, "maxItems": 3}
_mat4 = {"type": "array", "minItems": 4, "maxItems": 4,
         "items": {"type": "array", "items": _num, "minItems": 4, "maxItems": 4}}
_placement = {"type": "object", "additionalProperties": False,
              "properties": {"xyz": _vec3, "rpy": _vec3, "rotation": _mat3, "matrix": _mat4}}
_name = {"type": "string", "minLength": 1}
_pair = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 2}

ROBOT = {"type": "object", "additionalProperties": False, "required": ["name", "robot"],
         "properties": {"name": _name, "robot": {"type": "string", "minLength": 1}, "base": _placement,
                        "q": {"type": "array", "items": _num}, "collision": COLLISION}}
OBSTACLE = {"type": "object", "additionalProperties": False, "required": ["name", "shape"],
            "properties": {"name": _name, "shape": {"enum": list(SHAPES)}, "size": _vec3,
                           "radius": {"type": "number", "exclusiveMinimum": 0},
                           "length": {"type": "number", "exclusiveMinimum": 0},
                           "path": {"type": "string", "minLength": 1},
                           "scale": {"type": "number", "exclusiveMinimum": 0}, "pose": _placement}}
SCHEMA = {"type": "object", "additionalProperties": False,
          "properties": {"name": {"type": "string"}, "description": {"type": "string"},
                         "length_unit": {"enum": ["m", "mm"]}, "angle_unit": {"enum": ["deg", "rad"]},
                         "robots": {"type": "array", "items": ROBOT},
                         "obstacles": {"type": "array", "items": OBSTACLE},
                         "allow": {"type": "array", "items": _pair}}}


class SceneFileError(SceneError):
    """A scene file is malformed; the message names the file, line and field."""


def _fail(root, where: str, path: list, message: str) -> SceneFileError:
    return SceneFileError(f"{where} line {line_of(root, path)}: {field_name(path)}: {message}")


def _rigid(p: dict | None, deg: bool, root, where: str, path: list) -> np.ndarray:
    if p is None:
        return np.eye(4)
    given = [k for k in ("matrix", "rotation", "rpy") if k in p]
    if len(given) > 1 or ("matrix" in p and "xyz" in p):
        both = given[1] if len(given) > 1 else "xyz"
        raise _fail(root, where, path + [both], f"give only one of {', '.join(given + (['xyz'] if both == 'xyz' else []))}")
    T = placement(p, deg)
    if not np.all(np.isfinite(T)) or not (spatial.is_rotation(T[:3, :3], tol=1e-6) and np.allclose(T[3], [0, 0, 0, 1])):
        raise _fail(root, where, path, "not a rigid placement (finite; rotation orthonormal, det +1; "
                                       "last matrix row 0 0 0 1)")
    if np.abs(T[:3, 3]).max() > MAX_LENGTH:
        raise _fail(root, where, path, f"position {T[:3, 3].tolist()} is beyond ±{MAX_LENGTH:g}")
    return T


def _check_name(name: str, seen: dict, root, where: str, path: list) -> None:
    if "/" in name or "=" in name or not name.strip():
        raise _fail(root, where, path + ["name"], f"{name!r}: a name may not be blank or contain '/' or '=' "
                                                  "('/' joins robot and link, '=' ends a name on the command line)")
    if name in seen:
        raise _fail(root, where, path + ["name"], f"name {name!r} is used twice (first at line "
                                                  f"{line_of(root, seen[name] + ['name'])})")


def _shape(o: dict, folder: Path, root, where: str, path: list):
    """The obstacle's `Shape`; an error at the line of a size it lacks or should not have."""
    kind = o["shape"]
    takes = SIZES[kind]
    for key in ("size", "radius", "length", "path", "scale"):
        if key in o and key not in takes:
            raise _fail(root, where, path + [key], f"a {kind} takes {', '.join(takes)}, not {key!r}")
    for key in takes:
        if key not in o and key != "scale":
            raise _fail(root, where, path, f"a {kind} needs {key!r}")
    size = {k: o[k] for k in takes if k in o}
    if kind == "mesh":
        p = Path(size["path"])
        size["path"] = str(p if p.is_absolute() else folder / p)
        if not Path(size["path"]).is_file():
            raise _fail(root, where, path + ["path"], f"mesh file not found: {size['path']}")
    try:
        return make_shape(kind, **size)
    except SceneError as e:
        raise _fail(root, where, path, str(e)) from None


def parse(text: str, where: str = "<scene file>", folder: Path | None = None) -> dict[str, Any]:
    """A validated scene-file mapping, normalised: robots and obstacles as lists of dicts with
    `base`/`pose` 4x4 arrays (scene length unit), robot `q` in rad, obstacle `shape` a `Shape`
    (mesh paths resolved against `folder`, the file must exist), robot `robot` a `Robot`.
    SceneFileError names the file, line and field of the first problem."""
    from ..model.coerce import as_robot

    try:
        data, root = load_yaml(text, where)
        validate(data, SCHEMA, root, where)
    except RobotFileError as e:
        raise SceneFileError(str(e)) from None
    if not isinstance(data, dict):
        raise SceneFileError(f"{where} line 1: (top level): expected a mapping of name, robots, obstacles, ...")
    deg = data.get("angle_unit", "rad") == "deg"
    folder = folder or Path(".")
    seen: dict[str, list] = {}
    robots, obstacles = [], []
    for i, r in enumerate(data.get("robots", [])):
        path = ["robots", i]
        _check_name(r["name"], seen, root, where, path)
        seen[r["name"]] = path
        ref = r["robot"]
        local = folder / ref
        try:
            robot = as_robot(str(local) if Path(ref).suffix and not Path(ref).is_absolute() else ref)
        except (ValueError, OSError) as e:
            raise _fail(root, where, path + ["robot"], str(e)) from None
        q = None
        if "q" in r:
            if len(r["q"]) != robot.n:
                raise _fail(root, where, path + ["q"], f"{robot.name} has {robot.n} joints, got {len(r['q'])} values")
            q = np.asarray(r["q"], dtype=float)
            q = np.where(robot.revolute, np.radians(q), q) if deg else q
            beyond = np.flatnonzero(~(np.abs(q) <= joint_bounds(robot.revolute, robot.length_unit)))
            if beyond.size:
                raise _fail(root, where, path + ["q"], f"{robot.joint_names[beyond[0]]} = {r['q'][beyond[0]]} "
                                                       f"is beyond {BOUND_WORDS[0]}")
        robots.append({"name": r["name"], "robot": robot, "source": ref, "q": q,
                       "base": _rigid(r.get("base"), deg, root, where, path + ["base"]),
                       "collision": r.get("collision", {}), "path": path})
    for i, o in enumerate(data.get("obstacles", [])):
        path = ["obstacles", i]
        _check_name(o["name"], seen, root, where, path)
        seen[o["name"]] = path
        shape = _shape(o, folder, root, where, path)
        obstacles.append({"name": o["name"], "shape": shape, "path": path,
                          "pose": _rigid(o.get("pose"), deg, root, where, path + ["pose"])})
    return {"name": data.get("name", Path(where).stem), "description": data.get("description", ""),
            "length_unit": data.get("length_unit", "m"), "robots": robots, "obstacles": obstacles,
            "allow": [tuple(p) for p in data.get("allow", [])], "root": root, "where": where}


def fail_at(parsed: dict[str, Any], path: list, message: str) -> SceneFileError:
    """A SceneFileError at `path` of a parsed file (for checks made while building the scene)."""
    return _fail(parsed["root"], parsed["where"], path, message)


def _pose_dict(T: np.ndarray, deg: bool) -> dict | None:
    if np.allclose(T, np.eye(4), atol=1e-15):
        return None
    rpy = spatial.matrix_to_rpy(T[:3, :3])
    out = {"xyz": [_short(v) for v in T[:3, 3]]}
    if np.abs(rpy).max() > 0:
        out["rpy"] = [_short(v) for v in (np.degrees(rpy) if deg else rpy)]
    return out


def _short(v: float) -> float:
    """15 significant digits: short in the file, within ~1e-15 relative of the value."""
    x = float(f"{float(v):.15g}")
    return 0.0 if x == 0 else x


def dump_scene(data: dict[str, Any]) -> str:
    """YAML text of a scene mapping (as `Scene.to_dict` gives: base/pose 4x4, q in rad)."""
    deg = data.get("angle_unit", "deg") == "deg"
    out: dict[str, Any] = {"name": data["name"]}
    if data.get("description"):
        out["description"] = data["description"]
    out |= {"length_unit": data["length_unit"], "angle_unit": "deg" if deg else "rad", "robots": []}
    for r in data["robots"]:
        e: dict[str, Any] = {"name": r["name"], "robot": r["source"]}
        base = _pose_dict(r["base"], deg)
        if base:
            e["base"] = base
        if r.get("q") is not None:
            rev = r["revolute"]
            e["q"] = [_short(np.degrees(v) if deg and rv else v) for v, rv in zip(r["q"], rev, strict=True)]
        if r.get("collision"):
            e["collision"] = r["collision"]
        out["robots"].append(e)
    out["obstacles"] = []
    for o in data["obstacles"]:
        e = {"name": o["name"], "shape": o["shape"].kind,
             **{k: ([_short(x) for x in v] if isinstance(v, list) else (_short(v) if isinstance(v, float) else v))
                for k, v in o["shape"].params().items()}}
        pose = _pose_dict(o["pose"], deg)
        if pose:
            e["pose"] = pose
        out["obstacles"].append(e)
    if data.get("allow"):
        out["allow"] = [list(p) for p in data["allow"]]
    return dump(out)
