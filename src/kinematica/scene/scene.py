"""`km.Scene`: several robots, each at its base pose, and obstacles, in one workspace.

Positions in a scene are in its `length_unit` (m by default); a robot in another unit (the
Braccio's mm) is converted on the way in and out. Names: robots and obstacles are named by
the user ("left", "table"); a robot's link is "robot/link" ("left/forearm", the link names of
the robot file, else link1..n and "base" for the fixed part below joint 1).

>>> import kinematica as km, numpy as np
>>> s = km.Scene(length_unit="mm")
>>> _ = s.add_robot("arm", "braccio")
>>> _ = s.add_obstacle("ball", "sphere", pose=km.spatial.transl([0, 0, 30]), radius=10)
>>> s.check({"arm": km.load("braccio").q_home}).collisions
[('arm/base', 'ball'), ('arm/link0', 'ball'), ('arm/upper arm', 'ball')]
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .. import atomic, spatial
from ..bounds import BOUND_WORDS, joint_bounds
from ..keywords import accepted, refuse, strict
from ..model.coerce import as_robot
from ..model.robot import MAX_LENGTH, Robot
from .library import scene_text
from .linkgeom import LinkGeometry, link_geometry
from .query import check, distance
from .scenefile import fail_at, parse
from .selfpairs import excluded_pairs
from .shapes import SIZE_NAMES, SceneError, Shape, make_shape

if TYPE_CHECKING:
    from .compiled import Compiled

UNIT_IN_M = {"m": 1.0, "mm": 1e-3}


def _pose(T: ArrayLike | None, what: str) -> np.ndarray:
    if T is None:
        return np.eye(4)
    T = np.array(T, dtype=float)
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise SceneError(f"{what}: expected a finite 4x4 transform, got shape {T.shape}")
    if not (spatial.is_rotation(T[:3, :3], tol=1e-6) and np.allclose(T[3], [0, 0, 0, 1])):
        raise SceneError(f"{what}: not a rigid transform (rotation orthonormal, det +1; last row 0 0 0 1)")
    if np.abs(T[:3, 3]).max() > MAX_LENGTH:
        raise SceneError(f"{what}: position {T[:3, 3].tolist()} is beyond ±{MAX_LENGTH:g}")
    T.setflags(write=False)
    return T


def _joint_values(robot: Robot, q: ArrayLike, name: str) -> np.ndarray:
    qq = np.array(q, dtype=float)
    if qq.shape != (robot.n,) or not np.all(np.isfinite(qq)):
        raise SceneError(f"{name}: q: {robot.name} has {robot.n} joints, expected {robot.n} finite values, "
                         f"got {qq.tolist()}")
    beyond = np.flatnonzero(np.abs(qq) > joint_bounds(robot.revolute, robot.length_unit))
    if beyond.size:
        raise SceneError(f"{name}: q: {robot.joint_names[beyond[0]]} = {qq[beyond[0]]:g} is beyond {BOUND_WORDS[0]}")
    qq.setflags(write=False)
    return qq


def _name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip() or "/" in name or "=" in name:
        raise SceneError(f"{what} name must be a non-empty text without '/' or '=', got {name!r}")
    return name


@dataclass(frozen=True, eq=False)
class SceneRobot:
    """A robot placed in a scene: `base` (4, 4, scene unit) puts the robot's own base frame in
    the scene; `q` its configuration when a query does not give one (default its home);
    `source` the bundled name or file it came from (None: written next to the scene on save);
    `collision` its overrides: radius (robot unit), exclude / include link pairs; `scale` the
    factor from the robot's length unit to the scene's."""

    name: str
    robot: Robot
    base: np.ndarray
    q: np.ndarray
    source: str | None = None
    collision: Mapping[str, Any] = field(default_factory=dict)
    scale: float = 1.0  # robot length unit → scene length unit


@dataclass(frozen=True, eq=False)
class Obstacle:
    """A fixed shape at `pose` (4, 4) in the scene."""

    name: str
    shape: Shape
    pose: np.ndarray


class Scene:
    """Robots and obstacles sharing one workspace, with collision and distance queries.

    Build with `add_robot` / `add_obstacle`, or `Scene.load(path or bundled name)`; query with
    `check(q)`, `distance(q)` (q: a dict robot name → joint values (n,) or a batch (..., n);
    robots left out stay at their scene `q`); `kinematica.scene.sweep.check_trajectory` checks
    motions. `excluded()` lists every pair left out of the checks, with the reason.
    """

    @strict
    def __init__(self, name: str = "scene", *, length_unit: str = "m", description: str = ""):
        if length_unit not in UNIT_IN_M:
            raise SceneError(f"length unit {length_unit!r} unknown: use 'm' or 'mm'")
        self.name, self.length_unit, self.description = name, length_unit, description
        self._robots: dict[str, SceneRobot] = {}
        self._obstacles: dict[str, Obstacle] = {}
        self._allowed: list[tuple[str, str]] = []
        self._geometry: dict[tuple, tuple[LinkGeometry, dict]] = {}
        self._compiled: Any = None
        self._revision = 0  # counts the changes: what a snapshot of the scene (a planner's bound) checks

    # --- contents ------------------------------------------------------------------------
    @property
    def robots(self) -> Mapping[str, SceneRobot]:
        return MappingProxyType(self._robots)

    @property
    def obstacles(self) -> Mapping[str, Obstacle]:
        return MappingProxyType(self._obstacles)

    @property
    def allowed(self) -> tuple[tuple[str, str], ...]:
        """Pairs never checked, as given (names of links, robots or obstacles)."""
        return tuple(self._allowed)

    def _free(self, name: str, what: str) -> str:
        name = _name(name, what)
        if name in self._robots or name in self._obstacles:
            raise SceneError(f"the scene already has a robot or obstacle named {name!r}")
        return name

    @strict
    def add_robot(self, name: str, robot: Robot | str | os.PathLike[str], base: ArrayLike | None = None, *,
                  q: ArrayLike | None = None, radius: float | None = None,
                  exclude: Sequence[Sequence[str]] = (), include: Sequence[Sequence[str]] = (),
                  source: str | None = None) -> SceneRobot:
        """Place `robot` (a Robot, bundled name or robot file) at `base` (4x4, scene unit)
        under `name`. q: its configuration when a query leaves it out (default its home);
        radius: capsule radius in the robot's unit (default: its file's, else 5 % of the arm's
        length); exclude / include: link pairs for its self-collision check; source: how
        `save` refers to a Robot object (a bundled name or file; default: write it beside)."""
        name = self._free(name, "robot")
        if isinstance(robot, (str, os.PathLike)):
            source = os.fspath(robot)
        r = as_robot(robot)
        qq = r.q_home if q is None else _joint_values(r, q, name)
        coll: dict[str, Any] = {}
        if radius is not None:
            coll["radius"] = radius
        if exclude:
            coll["exclude"] = [list(p) for p in exclude]
        if include:
            coll["include"] = [list(p) for p in include]
        entry = SceneRobot(name, r, _pose(base, f"{name}: base"), qq, source, MappingProxyType(coll),
                           UNIT_IN_M[r.length_unit] / UNIT_IN_M[self.length_unit])
        self._geometry_of(entry)  # a bad radius or link name fails here, before the robot joins
        self._robots[name] = entry
        self._compiled = None
        self._revision += 1
        return entry

    @strict
    def add_obstacle(self, name: str, shape: str | Shape, pose: ArrayLike | None = None, **size: Any) -> Obstacle:
        """A fixed obstacle: shape "box" (size=(x, y, z)), "sphere" (radius), "cylinder" or
        "capsule" (radius, length; along z), "mesh" (path, scale) — or a `Shape` — at `pose`."""
        unknown = set(size) - set(SIZE_NAMES)
        if unknown:
            raise refuse("Scene.add_obstacle()", unknown, accepted(Scene.add_obstacle) + SIZE_NAMES)
        name = self._free(name, "obstacle")
        s = shape if isinstance(shape, Shape) else make_shape(shape, **size)
        ob = Obstacle(name, s, _pose(pose, f"{name}: pose"))
        self._obstacles[name] = ob
        self._compiled = None
        self._revision += 1
        return ob

    @strict
    def set_q(self, name: str, q: ArrayLike) -> None:
        """Robot `name`'s configuration when a query leaves it out (rad / length unit)."""
        r = self.robot_entry(name)
        self._robots[name] = SceneRobot(name, r.robot, r.base, _joint_values(r.robot, q, name), r.source,
                                        r.collision, r.scale)  # the engine reads q from here: it stays
        self._revision += 1

    @strict
    def move(self, name: str, pose: ArrayLike) -> None:
        """Move an obstacle to `pose`, or a robot's base to `pose` (4x4, scene unit)."""
        self._revision += 1
        if name in self._obstacles:
            ob = self._obstacles[name]
            self._obstacles[name] = Obstacle(name, ob.shape, _pose(pose, f"{name}: pose"))
            if self._compiled is not None:  # the engine stays: only the obstacle's pose changes
                self._compiled.poses[self._compiled.names.index(name)] = self._obstacles[name].pose
                return
        else:
            r = self.robot_entry(name)
            self._robots[name] = SceneRobot(name, r.robot, _pose(pose, f"{name}: base"), r.q, r.source, r.collision,
                                            r.scale)
        self._compiled = None

    @strict
    def remove(self, name: str) -> None:
        """Take a robot or obstacle out of the scene (and the allowed pairs naming it)."""
        if name not in self._robots and name not in self._obstacles:
            raise SceneError(self._unknown(name))
        self._robots.pop(name, None)
        self._obstacles.pop(name, None)
        self._allowed = [p for p in self._allowed if all(x.split("/")[0] != name for x in p)]
        self._compiled = None
        self._revision += 1

    @strict
    def allow(self, a: str, b: str) -> None:
        """Never check the pair (a, b): "robot/link", a robot's name (all its links), or an obstacle."""
        self._bodies_named(a)
        self._bodies_named(b)
        self._allowed.append((a, b))
        self._compiled = None
        self._revision += 1

    @property
    def revision(self) -> int:
        """A number that changes with every change to the scene (robots, obstacles, poses, q,
        allowed pairs): a snapshot taken at one revision holds while it is unchanged."""
        return self._revision

    @strict
    def robot_entry(self, name: str) -> SceneRobot:
        if name not in self._robots:
            raise SceneError(self._unknown(name, "robot"))
        return self._robots[name]

    def _unknown(self, name: str, what: str = "robot or obstacle") -> str:
        have = list(self._robots) if what == "robot" else list(self._robots) + list(self._obstacles)
        return f"unknown {what} {name!r}: the scene has {', '.join(have) or 'none'}"

    # --- geometry ------------------------------------------------------------------------
    def _geometry_of(self, entry: SceneRobot) -> tuple[LinkGeometry, dict]:
        key = (id(entry.robot), repr(sorted(entry.collision.items())))
        if key not in self._geometry:
            coll = entry.collision
            geom = link_geometry(entry.robot, coll.get("radius"))
            ex = excluded_pairs(entry.robot, geom, coll.get("exclude", ()), coll.get("include", ()))
            self._geometry[key] = (geom, ex)
        return self._geometry[key]

    @strict
    def geometry(self, robot: str) -> LinkGeometry:
        """The collision geometry of a robot in the scene (its own length unit)."""
        return self._geometry_of(self.robot_entry(robot))[0]

    @strict
    def excluded(self) -> list[tuple[str, str, str]]:
        """Every pair left out of the checks: (name a, name b, reason) — each robot's own
        (adjacent, always touching, listed) and the scene's allowed pairs."""
        out = []
        for r in self._robots.values():
            geom, ex = self._geometry_of(r)
            out += [(f"{r.name}/{geom.names[a]}", f"{r.name}/{geom.names[b]}", why) for (a, b), why in ex.items()]
        return out + [(a, b, "allowed in the scene") for a, b in self._allowed]

    def _bodies_named(self, name: str) -> list[str]:
        """Full body names a name stands for: a link, every link of a robot, or an obstacle."""
        if name in self._obstacles:
            return [name]
        robot, _, link = name.partition("/")
        entry = self.robot_entry(robot)
        geom = self._geometry_of(entry)[0]
        if not link:
            return [f"{robot}/{n}" for n in geom.names]
        return [f"{robot}/{geom.names[geom.index(link, robot)]}"]

    @strict
    def compiled(self) -> Compiled:
        """The collision engine of the scene as it is now (rebuilt after any change)."""
        if self._compiled is None:
            from .compiled import (
                Compiled,  # compiled.py builds from a Scene: imported when first needed
            )

            self._compiled = Compiled.build(self)
        return self._compiled

    # --- queries -------------------------------------------------------------------------
    @strict
    def check(self, q: Mapping[str, ArrayLike] | None = None, *, shapes: bool = False, margin: float = 0.0):
        """Which pairs collide at q (dict robot → (n,) or (..., n)): see `query.CheckReport`;
        shapes=True also names the links whose shapes touch (a URDF base's column, say);
        margin > 0 counts pairs nearer than it (scene length unit) as colliding too."""
        return check(self, q, shapes=shapes, margin=margin)

    @strict
    def distance(self, q: Mapping[str, ArrayLike] | None = None, self_pairs: bool = True):
        """The smallest distance at q, its pair and witness points: see `query.DistanceReport`;
        `self_pairs=False` leaves out the pairs of two links of one robot."""
        return distance(self, q, self_pairs)

    @strict
    def for_robot(self, name: str, q: Mapping[str, ArrayLike] | None = None) -> Seat:
        """Robot `name` of this scene with the others held at q (default their scene q): what
        `km.ik(..., scene=...)` and `km.ik_all` take to judge their solutions."""
        entry = self.robot_entry(name)
        others = {k: v for k, v in (q or {}).items()}
        if name in others:
            raise SceneError(f"for_robot({name!r}): q gives {name!r} itself; it holds the other robots")
        return Seat(self, entry.name, others)

    # --- files ---------------------------------------------------------------------------
    @strict
    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "length_unit": self.length_unit,
                "robots": [{"name": r.name, "source": r.source, "base": r.base, "q": r.q,
                            "revolute": r.robot.revolute,
                            "collision": dict(r.collision)}
                           for r in self._robots.values()],
                "obstacles": [{"name": o.name, "shape": o.shape, "pose": o.pose} for o in self._obstacles.values()],
                "allow": list(self._allowed)}

    @strict
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the scene as YAML; a robot added as a `Robot` object is written beside it
        (`<scene>.<robot>.yaml`) and referenced from the scene file."""
        from ..model.library import save as save_robot
        from .scenefile import dump_scene

        path = atomic.check(path)  # before a robot file is written beside it
        data = self.to_dict()
        for r, d in zip(self._robots.values(), data["robots"], strict=True):
            if d["source"] is None:
                own = path.with_name(f"{path.stem}.{r.name}.yaml")
                save_robot(r.robot, own)
                d["source"] = own.name
            elif Path(d["source"]).suffix:  # a robot file: referenced from where the scene is written
                d["source"] = Path(os.path.relpath(Path(d["source"]).resolve(), path.parent.resolve())).as_posix()
        return atomic.write_text(path, dump_scene(data))

    @classmethod
    @strict
    def load(cls, name_or_path: str | os.PathLike[str]) -> Scene:
        """A bundled scene by name (`kinematica.scene.scene_names()`) or a YAML scene file;
        SceneFileError naming the file, line and field of the first problem."""
        return read_scene_text(*scene_text(name_or_path))

    def __repr__(self) -> str:
        return (f"Scene({self.name!r}, robots {list(self._robots)}, obstacles {list(self._obstacles)}, "
                f"unit {self.length_unit})")


@dataclass(frozen=True)
class Seat:
    """One robot of a scene, the others held at `others` (dict name → q): the scene argument
    of `km.ik` and `km.ik_all`."""

    scene: Scene
    robot: str
    others: Mapping[str, ArrayLike]

    def check(self, q: ArrayLike):
        """`scene.check` with this robot at q (n,) or (..., n)."""
        return self.scene.check({**self.others, self.robot: q})


def read_scene(name_or_path: str | os.PathLike[str]) -> Scene:
    """`Scene.load`: a bundled scene by name, or a YAML scene file."""
    return Scene.load(name_or_path)


def read_scene_text(text: str, where: str = "<scene>", folder: Path | None = None) -> Scene:
    """A scene from the text of a YAML scene file (robot and mesh files relative to `folder`)."""
    folder = folder or Path(".")
    return _build(parse(text, where, folder), folder)


def _build(parsed: dict, folder: Path) -> Scene:
    scene = Scene(parsed["name"], length_unit=parsed["length_unit"], description=parsed["description"])
    for r in parsed["robots"]:
        src = r["source"]
        if Path(src).suffix and not Path(src).is_absolute():
            src = str(folder / src)
        c = r["collision"]
        try:
            scene.add_robot(r["name"], r["robot"], r["base"], q=r["q"], radius=c.get("radius"),
                            exclude=c.get("exclude", ()), include=c.get("include", ()), source=src)
        except SceneError as e:
            raise fail_at(parsed, r["path"] + (["collision"] if c else []), str(e)) from None
    for o in parsed["obstacles"]:
        scene.add_obstacle(o["name"], o["shape"], o["pose"])
    for i, (a, b) in enumerate(parsed["allow"]):
        try:
            scene.allow(a, b)
        except SceneError as e:
            raise fail_at(parsed, ["allow", i], str(e)) from None
    return scene
