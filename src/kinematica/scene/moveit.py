"""MoveIt planning-scene YAML (a `moveit_msgs/PlanningScene` as MoveIt and MotionBenchMaker
write it) read as a `km.Scene`, and a scene written back in that form.

Read: `world.collision_objects`, each an `id` with `primitives` (box: dimensions [x, y, z];
sphere: [radius]; cylinder: [height, radius], along z) at `primitive_poses`, optionally
placed by the object's own `pose` (then the primitive poses are relative to it). A pose is
`position` (x, y, z) and `orientation` (a quaternion x, y, z, w), each a list or a mapping
{x: …}. One primitive makes an obstacle named by the id; several make `id.0`, `id.1`, ….
`robot_state.joint_state` (name, position) sets the robot's scene q by joint name (joints the
robot lacks, such as a gripper's, are ignored); `multi_dof_joint_state.transforms[0]` places
its base. `allowed_collision_matrix` (entry_names, entry_values) becomes allowed pairs.
Anything that would be lost is refused in words (SceneFileError naming file, line and field):
meshes and planes, an operation other than ADD, attached objects, a frame other than the
world, an unknown primitive. The scene is built whole before it is returned: a bad file
leaves nothing half-read.

MoveIt's pairs name URDF links, while a Kinematica robot's body may hold several (a hand and
fingers folded into the last link): a pair of bodies is allowed only when every pair of their
links that carries geometry is (`allowed_bodies`), so no checked pair is ever dropped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from ..model.schema import RobotFileError, dump, field_name, line_of, load_yaml
from .scene import UNIT_IN_M, Scene, _name
from .scenefile import SceneFileError
from .shapes import SceneError, Shape

_DIMS = {"box": 3, "sphere": 1, "cylinder": 2}
_ADD = ("ADD", 0, None)


class YamlFile:
    """A parsed MoveIt YAML file and its nodes: `fail(path, message)` names the file, line and field."""

    def __init__(self, text: str, where: str):
        try:
            self.data, self.root = load_yaml(text, where)
        except RobotFileError as e:
            raise SceneFileError(str(e)) from None
        self.where = where

    def fail(self, path: list, message: str) -> SceneFileError:
        return SceneFileError(f"{self.where} line {line_of(self.root, path)}: {field_name(path)}: {message}")

    def get(self, path: list, kind: type | tuple, default: Any = None) -> Any:
        """The value at `path` (default when a key is absent), refused unless of `kind`."""
        v: Any = self.data
        for i, k in enumerate(path):
            if isinstance(k, str):
                if not isinstance(v, dict):
                    raise self.fail(path[:i], "expected a mapping")
                if k not in v:
                    return default
            v = v[k]
        if not isinstance(v, kind) or (isinstance(v, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
            raise self.fail(path, f"expected {_kind_words(kind)}, got {v!r}")
        return v

    def numbers(self, path: list, n: int, keys: str = "xyz") -> np.ndarray:
        """n finite numbers at `path`: a list, or a mapping with the keys `keys` (x, y, z[, w])."""
        v = self.get(path, (list, dict))
        if isinstance(v, dict):
            missing = [k for k in keys[:n] if k not in v]
            if missing:
                raise self.fail(path, f"missing {missing[0]!r}")
            v = [v[k] for k in keys[:n]]
        ok = len(v) == n and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
        out = np.array(v, dtype=float) if ok else np.empty(0)
        if not ok or not np.all(np.isfinite(out)):
            raise self.fail(path, f"expected {n} finite numbers, got {v!r}")
        return out


def _kind_words(kind: type | tuple) -> str:
    words = {dict: "a mapping", list: "a list", str: "a text", float: "a number", int: "a number"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(dict.fromkeys(words.get(k, k.__name__) for k in kinds))


def _pose(f: YamlFile, path: list) -> np.ndarray:
    """A geometry_msgs/Pose at `path` as a 4x4 transform (identity when absent)."""
    if f.get(path, dict) is None:
        return np.eye(4)
    T = np.eye(4)
    if f.get(path + ["position"], (list, dict)) is not None:
        T[:3, 3] = f.numbers(path + ["position"], 3)
    if f.get(path + ["orientation"], (list, dict)) is not None:
        T[:3, :3] = _rotation(f, path + ["orientation"])
    return T


def _rotation(f: YamlFile, path: list) -> np.ndarray:
    """The rotation matrix of the quaternion (x, y, z, w) at `path`."""
    quat = f.numbers(path, 4, "xyzw")
    norm = float(np.linalg.norm(quat))
    if not 0.5 < norm < 1.5:  # a quaternion far from unit length is a wrong field, not rounding
        raise f.fail(path, f"not a unit quaternion (x, y, z, w): length {norm:.6g}")
    return Rotation.from_quat(quat / norm).as_matrix()


def _primitive(f: YamlFile, path: list) -> Shape:
    kind = f.get(path + ["type"], (str, int))
    if kind not in _DIMS:
        raise f.fail(path + ["type"], f"primitive {kind!r} is not read: use {', '.join(_DIMS)}")
    dims = f.numbers(path + ["dimensions"], _DIMS[kind])
    try:
        if kind == "box":
            return Shape("box", size=tuple(dims)) if np.all(dims > 0) else _bad(dims)
        if kind == "sphere":
            return _checked("sphere", radius=dims[0])
        return _checked("cylinder", radius=dims[1], length=dims[0])  # MoveIt: [height, radius]
    except SceneError as e:
        raise f.fail(path + ["dimensions"], str(e)) from None


def _checked(kind: str, **size: float) -> Shape:
    from .shapes import make_shape

    return make_shape(kind, **{k: float(v) for k, v in size.items()})


def _bad(dims: np.ndarray) -> Shape:
    raise SceneError(f"box: dimensions must be 3 positive numbers, got {dims.tolist()}")


def _objects(f: YamlFile) -> list[tuple[str, str, Shape, np.ndarray]]:
    """(obstacle name, object id, shape, pose) of every primitive of the world's objects."""
    out: list[tuple[str, str, Shape, np.ndarray]] = []
    objects = f.get(["world", "collision_objects"], list, [])
    for i, _ in enumerate(objects):
        at = ["world", "collision_objects", i]
        oid = f.get(at + ["id"], str)
        if oid is None:
            raise f.fail(at, "a collision object needs an 'id'")
        try:
            _name(oid, "collision object")
        except SceneError as e:
            raise f.fail(at + ["id"], str(e)) from None
        if f.get(at + ["operation"], (str, int)) not in _ADD:
            raise f.fail(at + ["operation"], "only ADD objects are read (a scene, not a diff)")
        if f.get(at + ["header", "frame_id"], str, "") not in ("", "world"):
            raise f.fail(at + ["header", "frame_id"], "objects are read in the world frame only")
        for lost in ("meshes", "planes", "subframe_names"):
            if f.get(at + [lost], list, []):
                raise f.fail(at + [lost], f"{lost} are not read (only box, sphere and cylinder primitives)")
        prims = f.get(at + ["primitives"], list, [])
        poses = f.get(at + ["primitive_poses"], list, [])
        if len(prims) != len(poses):
            raise f.fail(at + ["primitive_poses"], f"{len(poses)} poses for {len(prims)} primitives")
        T_obj = _pose(f, at + ["pose"])
        for k in range(len(prims)):
            name = oid if len(prims) == 1 else f"{oid}.{k}"
            out.append((name, oid, _primitive(f, at + ["primitives", k]), T_obj @ _pose(f, at + ["primitive_poses", k])))
    return out


def _robot_state(f: YamlFile, scene: Scene, robot: str) -> None:
    """The robot's q from `robot_state.joint_state` by joint name, its base from the virtual joint."""
    entry = scene.robots[robot]
    if f.get(["robot_state", "attached_collision_objects"], list, []):
        raise f.fail(["robot_state", "attached_collision_objects"], "attached objects are not read")
    names = f.get(["robot_state", "joint_state", "name"], list, [])
    values = f.get(["robot_state", "joint_state", "position"], list, [])
    if names:
        q = joint_vector(f, ["robot_state", "joint_state"], names, values, entry.robot, entry.q)
        try:
            scene.set_q(robot, q)
        except SceneError as e:
            raise f.fail(["robot_state", "joint_state", "position"], str(e)) from None
    if f.get(["robot_state", "multi_dof_joint_state", "transforms"], list, []):
        at = ["robot_state", "multi_dof_joint_state", "transforms", 0]
        T = np.eye(4)
        T[:3, 3] = f.numbers(at + ["translation"], 3)
        T[:3, :3] = _rotation(f, at + ["rotation"])
        scene.move(robot, T)


def joint_vector(f: YamlFile, at: list, names: list, values: list, robot: Any, q0: np.ndarray) -> np.ndarray:
    """q0 with the values (rad, m) of the robot's joints among `names` (joints it lacks are skipped)."""
    if len(names) != len(values):
        raise f.fail(at + ["position"], f"{len(values)} positions for {len(names)} joint names")
    q = np.array(q0, dtype=float)
    for name, v in zip(names, values, strict=True):
        if name in robot.joint_names:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
                raise f.fail(at + ["position"], f"{name}: expected a finite number, got {v!r}")
            j = robot.joint_names.index(name)
            q[j] = float(v) if robot.revolute[j] else float(v) / UNIT_IN_M[robot.length_unit]  # MoveIt's m
    return q


def _acm(f: YamlFile) -> set[frozenset[str]]:
    """The allowed pairs of `allowed_collision_matrix` (names as MoveIt gives them)."""
    at = ["allowed_collision_matrix"]
    names = f.get(at + ["entry_names"], list, [])
    rows = f.get(at + ["entry_values"], list, [])
    if len(rows) != len(names):
        raise f.fail(at + ["entry_values"], f"{len(rows)} rows for {len(names)} entry names")
    pairs = set()
    for i, row in enumerate(rows):
        row = f.get(at + ["entry_values", i], list)
        if len(row) != len(names) or not all(isinstance(x, bool) for x in row):
            raise f.fail(at + ["entry_values", i], f"expected {len(names)} true/false values")
        pairs |= {frozenset((names[i], names[j])) for j, ok in enumerate(row) if ok and j != i}
    return pairs


def members(scene: Scene, robot: str | None, ids: dict[str, str]) -> dict[str, set[str]]:
    """Scene body name (robot/body, or obstacle) → the MoveIt names it stands for: the URDF
    links folded into a body (its own name for a capsule), an obstacle's object id."""
    out: dict[str, set[str]] = {}
    if robot is not None:
        geom = scene.geometry(robot)
        for p in geom.parts:
            out.setdefault(f"{robot}/{geom.names[p.body]}", set()).add(p.link or geom.names[p.body])
    return out | {ob: {ids.get(ob, ob)} for ob in scene.obstacles}


def allowed_bodies(scene: Scene, robot: str, pairs: set[frozenset[str]], ids: dict[str, str]) -> list[tuple[str, str]]:
    """Scene pairs (robot/body or obstacle) whose every pair of MoveIt names is in `pairs`
    (see the module text); `ids` maps obstacle names to their object ids."""
    names = members(scene, robot, ids)
    keys = list(names)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:]
            if not (a in scene.obstacles and b in scene.obstacles)  # never checked against each other
            and all(frozenset((x, y)) in pairs for x in names[a] for y in names[b])]


def srdf_disabled(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The link pairs of an SRDF's `<disable_collisions link1 link2>` (MoveIt's pairs never
    checked: adjacent, never or always touching), for `read_moveit(..., allow=)`."""
    import lxml.etree as etree  # (lxml/__init__ does not name etree: type checkers find it this way)

    p = Path(path)
    if not p.is_file():
        raise SceneError(f"SRDF file not found: {p}")
    try:
        root = etree.parse(str(p), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    except etree.XMLSyntaxError as e:
        raise SceneFileError(f"{p}: not valid XML: {e}") from None
    pairs = []
    for el in root.iter("disable_collisions"):
        a, b = el.get("link1"), el.get("link2")
        if not a or not b:
            raise SceneFileError(f"{p} line {el.sourceline}: disable_collisions needs link1 and link2")
        pairs.append((a, b))
    return pairs


def read_moveit(path: str | os.PathLike[str], robot: Any = None, *, robot_name: str | None = None,
                allow: Iterable[tuple[str, str]] = ()) -> Scene:
    """A `km.Scene` from a MoveIt planning-scene YAML file (see the module text), with `robot`
    (a Robot, bundled name or URDF/robot file; None for the obstacles alone) placed at the
    file's virtual joint under `robot_name` (default the file's robot_model_name, else
    "robot") at the file's robot_state. `allow`: more allowed pairs of link names (an SRDF's
    disabled collisions, say), mapped to bodies as the file's own matrix is."""
    p = Path(path)
    if not p.is_file():
        raise SceneError(f"MoveIt scene file not found: {p}")
    f = YamlFile(p.read_text(encoding="utf-8"), str(p))
    if not isinstance(f.data, dict) or not {"world", "robot_state"} & set(f.data):
        raise SceneFileError(f"{p} line 1: (top level): not a MoveIt planning scene (a mapping with world or "
                             "robot_state)")
    scene, ids = Scene(p.stem), {}  # (in m, MoveIt's unit)
    for name, oid, shape, T in _objects(f):
        try:
            scene.add_obstacle(name, shape, T)
        except SceneError as e:
            raise SceneFileError(f"{p}: collision object {name!r}: {e}") from None
        ids[name] = oid
    pairs = _acm(f) | {frozenset(x) for x in allow}
    if robot is not None:
        name = robot_name or f.get(["robot_model_name"], str) or "robot"
        scene.add_robot(name, robot)
        _robot_state(f, scene, name)
        for a, b in allowed_bodies(scene, name, pairs, ids):
            scene.allow(a, b)
    return scene


def _pose_msg(T: np.ndarray, u: float) -> dict[str, Any]:
    x, y, z, w = Rotation.from_matrix(T[:3, :3]).as_quat()
    return {"position": dict(zip("xyz", map(float, u * T[:3, 3]), strict=True)),
            "orientation": {"x": float(x), "y": float(y), "z": float(z), "w": float(w)}}


def _primitive_msg(name: str, shape: Shape, u: float) -> dict[str, Any]:
    if shape.kind == "box" and shape.size is not None:
        return {"type": "box", "dimensions": [float(u * v) for v in shape.size]}
    if shape.kind == "sphere" and shape.radius is not None:
        return {"type": "sphere", "dimensions": [float(u * shape.radius)]}
    if shape.kind == "cylinder" and shape.radius is not None and shape.length is not None:
        return {"type": "cylinder", "dimensions": [float(u * shape.length), float(u * shape.radius)]}
    raise SceneError(f"obstacle {name!r}: a {shape.kind} has no MoveIt primitive (box, sphere, cylinder)")


def moveit_text(scene: Scene) -> str:
    """The scene as MoveIt planning-scene YAML (see the module text): its obstacles as
    collision objects, its robot's q and base as robot_state, its allowed pairs as the
    allowed collision matrix. SceneError for what MoveIt's form cannot hold: more than one
    robot, a capsule or mesh obstacle. Lengths are written in m, as MoveIt's are."""
    u = UNIT_IN_M[scene.length_unit]
    if len(scene.robots) > 1:
        raise SceneError(f"a MoveIt planning scene holds one robot; this one has {', '.join(scene.robots)}")
    objects = [{"id": o.name, "operation": "ADD", "primitives": [_primitive_msg(o.name, o.shape, u)],
                "primitive_poses": [_pose_msg(o.pose, u)]} for o in scene.obstacles.values()]
    out: dict[str, Any] = {"name": scene.name, "world": {"collision_objects": objects}}
    robot = next(iter(scene.robots.values()), None)
    if robot is not None:
        x, y, z, w = Rotation.from_matrix(robot.base[:3, :3]).as_quat()
        out["robot_model_name"] = robot.name
        out["robot_state"] = {
            "joint_state": {"name": list(robot.robot.joint_names), "position": [
                float(v if rev else v * UNIT_IN_M[robot.robot.length_unit])
                for v, rev in zip(robot.q, robot.robot.revolute, strict=True)]},
            "multi_dof_joint_state": {"joint_names": ["virtual_joint"], "transforms": [
                {"translation": [float(u * v) for v in robot.base[:3, 3]], "rotation": [float(x), float(y), float(z),
                                                                                    float(w)]}]}}
    names = members(scene, None if robot is None else robot.name, {})
    allowed = {frozenset((x, y)) for a, b in scene.allowed for ba in scene._bodies_named(a)
               for bb in scene._bodies_named(b) for x in names.get(ba, ()) for y in names.get(bb, ())}
    if allowed:
        entries = sorted({x for p in allowed for x in p})
        out["allowed_collision_matrix"] = {"entry_names": entries, "entry_values": [
            [frozenset((a, b)) in allowed for b in entries] for a in entries]}
    return dump(out)


__all__ = ["YamlFile", "read_moveit", "moveit_text", "srdf_disabled", "allowed_bodies", "members", "joint_vector"]
