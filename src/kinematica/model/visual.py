"""What a robot looks like: visual shapes fixed to its bodies (URDF `<visual>`, a robot file's
`visuals:`), placed at a configuration. Plain data and numpy; no file is read here.

Body 0 is the base (the frame `robot.base`), body k = 1..n link frame k (`km.fk_frames`), so a
shape's `origin` is a 4x4 placement in its body's frame, lengths in the robot's unit. Shapes
are those of URDF: a box (`size` x, y, z), a cylinder along its local z (`size` radius,
length), a sphere (`size` radius), or a mesh file (`path`, `scale` per axis, the file's own
units times the scale giving the robot's unit). A shape with `grip` moves with the gripper
(the Braccio's M6): it turns about (or slides along) `grip.axis` through `grip.pivot` (body
frame) by an amount interpolated between `grip.open` and `grip.closed` (rad or length unit)
as the gripper goes from open to closed:

    pose = F_body · T(pivot) · M(axis, a) · T(−pivot) · origin,  a = open + f · (closed − open)

>>> import kinematica as km
>>> r = km.load("braccio")
>>> len(r.visuals) > 0 and {v.kind for v in r.visuals} <= {"box", "cylinder", "sphere", "mesh"}
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import spatial
from ..errors import InputError

__all__ = ["KINDS", "Grip", "Visual", "turn", "visuals", "gripper_fraction", "placements", "lowest_point",
           "missing_bodies", "rgba", "color_of", "from_dicts", "to_dicts", "rescaled_dicts"]

KINDS = ("box", "cylinder", "sphere", "mesh")
_SIZES = {"box": 3, "cylinder": 2, "sphere": 1, "mesh": 0}


@dataclass(frozen=True, eq=False)
class Grip:
    """How a shape moves with the gripper: about/along `axis` through `pivot` (body frame),
    `open` at the open gripper, `closed` at the closed one (rad when turning, length when
    sliding)."""

    axis: tuple[float, float, float]
    pivot: tuple[float, float, float] = (0.0, 0.0, 0.0)
    open: float = 0.0
    closed: float = 0.0
    slide: bool = False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grip) and self.slide == other.slide and _close(
            (*self.axis, *self.pivot, self.open, self.closed), (*other.axis, *other.pivot, other.open, other.closed))

    __hash__ = None  # type: ignore[assignment]

    def motion(self, fraction: float) -> np.ndarray:
        """The 4x4 motion at `fraction` of the way from open (0) to closed (1)."""
        a = self.open + float(fraction) * (self.closed - self.open)
        u = np.asarray(self.axis, float) / np.linalg.norm(self.axis)
        p = np.asarray(self.pivot, float)
        if self.slide:
            return spatial.homogeneous(np.eye(3), u * a)
        M = spatial.homogeneous(turn(u, a), np.zeros(3))
        return spatial.transl(p) @ M @ spatial.transl(-p)


def rgba(color: Sequence[float]) -> tuple[float, float, float, float]:
    """A colour of 3 or 4 numbers in [0, 1] as (r, g, b, a), opaque (a = 1) when a is not given."""
    given = [float(x) for x in color]
    c = (*given, 1.0) if len(given) == 3 else tuple(given)
    if len(c) != 4 or not all(0.0 <= x <= 1.0 for x in c):
        raise InputError(f"visual color: expected 3 or 4 numbers in [0, 1], got {given}")
    return c


@dataclass(frozen=True, eq=False)
class Visual:
    """One visual shape on one body (see the module's docstring for the fields' meaning)."""

    body: int
    kind: str
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    size: tuple[float, ...] = ()
    color: tuple[float, float, float, float] | None = None
    path: str | None = None
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    name: str = ""
    grip: Grip | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"visual kind {self.kind!r} unknown: use one of {', '.join(KINDS)}")
        if not isinstance(self.body, (int, np.integer)) or self.body < 0:
            raise InputError(f"visual body must be an index >= 0 (0 the base), got {self.body!r}")
        size = tuple(float(s) for s in self.size)
        if len(size) != _SIZES[self.kind] or not all(np.isfinite(s) and s > 0 for s in size):
            raise InputError(f"a {self.kind} visual needs {_SIZES[self.kind]} positive size numbers, got {list(size)}")
        if self.kind == "mesh" and not self.path:
            raise InputError("a mesh visual needs the path of its file")
        origin = np.array(self.origin, dtype=float)
        if origin.shape != (4, 4) or not np.all(np.isfinite(origin)):
            raise InputError(f"visual origin: expected a finite 4x4 transform, got shape {origin.shape}")
        origin.setflags(write=False)
        scale = tuple(float(s) for s in np.atleast_1d(np.asarray(self.scale, float)).ravel())
        scale = scale * 3 if len(scale) == 1 else scale
        if len(scale) != 3 or not all(np.isfinite(s) and s != 0 for s in scale):
            raise InputError(f"visual scale must be 1 or 3 finite, non-zero numbers, got {list(scale)}")
        color = None if self.color is None else rgba(self.color)
        for key, value in (("body", int(self.body)), ("size", size), ("origin", origin), ("scale", scale),
                           ("color", color)):
            object.__setattr__(self, key, value)

    def __eq__(self, other: object) -> bool:
        """Equal up to the rounding of a robot file's 15 significant digits."""
        if not isinstance(other, Visual):
            return NotImplemented
        same = (self.body, self.kind, self.path, self.name, self.color is None, self.grip) == \
            (other.body, other.kind, other.path, other.name, other.color is None, other.grip)
        return same and _close((*self.origin.ravel(), *self.size, *self.scale, *(self.color or ())),
                               (*other.origin.ravel(), *other.size, *other.scale, *(other.color or ())))

    __hash__ = None  # type: ignore[assignment]

    @property
    def mesh_path(self) -> str:
        """The file of a mesh visual (each has one: checked when it is made); an InputError for a
        primitive, which has none."""
        if self.path is None:
            raise InputError(f"a {self.kind} visual has no mesh file (only a mesh visual has one)")
        return self.path

    @property
    def hex_color(self) -> str | None:
        """The colour as #rrggbb (alpha left out), None when the shape has none of its own."""
        if self.color is None:
            return None
        return "#" + "".join(f"{round(255 * c):02x}" for c in self.color[:3])

    def corners(self) -> np.ndarray:
        """The 8 corners of the shape's box in its own frame (a primitive's exact bounds), or an
        empty (0, 3) array for a mesh (its extent is in its file)."""
        if self.kind == "mesh":
            return np.zeros((0, 3))
        half = {"box": lambda s: np.array(s) / 2, "cylinder": lambda s: np.array([s[0], s[0], s[1] / 2]),
                "sphere": lambda s: np.array([s[0]] * 3)}[self.kind](self.size)
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
        return signs * half


def _close(a, b) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(a).max(initial=0))))


def turn(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix by `angle` (rad) about the unit vector `axis` (Rodrigues)."""
    x, y, z = axis
    K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]], float)
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def visuals(robot: Any) -> tuple[Visual, ...]:
    """The robot's visual shapes (empty when it has none)."""
    return tuple(robot.extras.get("visuals", ()))


def gripper_fraction(robot: Any, value: float | None = None) -> float:
    """How far the gripper is from open (0) to closed (1) at gripper `value` (the units of the
    robot file's `gripper.servo`, e.g. servo degrees); None: its `home`, else open."""
    g = robot.extras.get("gripper") or {}
    servo = g.get("servo") or {}
    if "open" not in servo or "closed" not in servo or servo["open"] == servo["closed"]:
        return 0.0
    at = g.get("home", servo["open"]) if value is None else value
    return float(np.clip((float(at) - servo["open"]) / (servo["closed"] - servo["open"]), 0.0, 1.0))


def placements(robot: Any, frames: np.ndarray, fraction: float = 0.0,
               shapes: Sequence[Visual] | None = None) -> np.ndarray:
    """World poses (k, 4, 4) of the visual shapes, given the body frames `frames` ((≥ n + 1, 4, 4):
    `km.fk_frames(robot, q)`) and the gripper's closing `fraction` (0 open, 1 closed)."""
    shapes = visuals(robot) if shapes is None else shapes
    out = np.empty((len(shapes), 4, 4))
    for k, v in enumerate(shapes):
        X = frames[v.body] if v.grip is None else frames[v.body] @ v.grip.motion(fraction)
        out[k] = X @ v.origin
    return out


def lowest_point(robot: Any) -> float | None:
    """The lowest z (world frame, robot units) of the base's primitive shapes — where the floor
    goes under a robot whose base frame sits above its pedestal (the Puma 560's at the
    shoulder); None when the base has no primitive shape."""
    base = [v for v in visuals(robot) if v.body == 0 and v.kind != "mesh"]
    if not base:
        return None
    pts = [(robot.base @ v.origin @ np.c_[v.corners(), np.ones(8)].T)[2] for v in base]
    return float(np.min(pts))


def missing_bodies(robot: Any) -> tuple[int, ...]:
    """Bodies 0..n without a visual shape: drawn as the skeleton when meshes are shown."""
    have = {v.body for v in visuals(robot)}
    return tuple(k for k in range(robot.n + 1) if k not in have)


# --- robot files ------------------------------------------------------------------------------
def color_of(value: Any) -> tuple[float, float, float, float] | None:
    """A colour given as "#rrggbb" or as 3–4 numbers in [0, 1], as (r, g, b, a)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.lstrip("#")
        if len(text) != 6 or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise InputError(f"color {value!r}: expected #rrggbb")
        return rgba([int(text[i:i + 2], 16) / 255 for i in (0, 2, 4)])
    return rgba(value)


def _size_of(kind: str, spec: dict) -> tuple:
    """A robot file shape's size numbers, in `Visual.size` order."""
    if kind == "box":
        return tuple(spec["size"])
    if kind == "cylinder":
        return (spec["radius"], spec["length"])
    return (spec["radius"],) if kind == "sphere" else ()


def from_dicts(data: dict, deg: bool, where: str, folder: Any = None) -> tuple[tuple[Visual, ...], str]:
    """(shapes, source) of a robot file's `visuals:` mapping ({source, shapes: [...]}); angles
    of rpy and of a turning grip in degrees when `deg`. Mesh files are found beside the robot
    file (`folder`) or at an absolute path."""
    from pathlib import Path

    from .placement import placement

    out = []
    for i, d in enumerate(data.get("shapes", ())):
        kind = next(k for k in KINDS if k in d)
        spec = d[kind]
        size = _size_of(kind, spec)
        path = None
        if kind == "mesh":
            p = Path(spec["file"])
            path = str(p if p.is_absolute() or folder is None else Path(folder) / p)
        grip = None
        if "grip" in d:
            g = d["grip"]
            k = np.pi / 180 if deg and not g.get("slide", False) else 1.0
            grip = Grip(tuple(g["axis"]), tuple(g.get("pivot", (0, 0, 0))), g.get("open", 0) * k,
                        g.get("closed", 0) * k, bool(g.get("slide", False)))
        try:
            out.append(Visual(d["body"], kind, placement({k: d[k] for k in ("xyz", "rpy") if k in d}, deg),
                              size, color_of(d.get("color")), path, spec.get("scale", (1, 1, 1)) if kind == "mesh"
                              else (1, 1, 1), d.get("name", ""), grip))
        except InputError as e:
            raise InputError(f"{where}: visuals.shapes[{i}]: {e}") from None
    return tuple(out), data.get("source", "")


def to_dicts(shapes: Sequence[Visual], source: str, deg: bool) -> dict:
    """The robot-file mapping of `shapes` (inverse of `from_dicts`)."""
    def num(x):  # 15 significant digits, as robot files write numbers
        return [float(f"{float(v):.15g}") + 0.0 for v in np.atleast_1d(x)]

    rows = []
    for v in shapes:
        if v.kind == "box":
            spec: dict = {"size": num(v.size)}
        elif v.kind == "cylinder":
            spec = {"radius": num(v.size[0])[0], "length": num(v.size[1])[0]}
        elif v.kind == "sphere":
            spec = {"radius": num(v.size[0])[0]}
        else:
            spec = {"file": v.path, "scale": num(v.scale)}
        row: dict = {"body": v.body, **({"name": v.name} if v.name else {}), v.kind: spec}
        if not np.allclose(v.origin[:3, 3], 0):
            row["xyz"] = num(v.origin[:3, 3])
        rpy = spatial.matrix_to_rpy(v.origin[:3, :3])
        if not np.allclose(rpy, 0):
            row["rpy"] = num(np.degrees(rpy) if deg else rpy)
        if v.color is not None:  # "#rrggbb" when that is exact, else the numbers
            exact = color_of(v.hex_color) == v.color  # opaque, and exactly its #rrggbb
            row["color"] = v.hex_color if exact else num(v.color)
        if v.grip is not None:
            k = 1.0 if v.grip.slide or not deg else 180 / np.pi
            row["grip"] = {"axis": num(v.grip.axis), "pivot": num(v.grip.pivot), "open": num(v.grip.open * k)[0],
                           "closed": num(v.grip.closed * k)[0]} | ({"slide": True} if v.grip.slide else {})
        rows.append(row)
    return ({"source": source} if source else {}) | {"shapes": rows}


def rescaled_dicts(data: dict, factor: float, deg_in: bool, deg_out: bool = True) -> dict:
    """A robot file's `visuals:` mapping with every length ×`factor` (a new length unit) and
    every angle from degrees (`deg_in`) or rad to degrees (`deg_out`) or rad."""
    import copy

    k = (1.0 if deg_in else 180 / np.pi) * (1.0 if deg_out else np.pi / 180)
    out = copy.deepcopy(data)
    for d in out.get("shapes", ()):
        if "xyz" in d:
            d["xyz"] = [v * factor for v in d["xyz"]]
        if "rpy" in d:
            d["rpy"] = [v * k for v in d["rpy"]]
        for kind, keys in (("box", ("size",)), ("cylinder", ("radius", "length")), ("sphere", ("radius",)),
                           ("mesh", ("scale",))):
            for key in keys if kind in d else ():
                v = d[kind].get(key)
                if v is not None:
                    d[kind][key] = [x * factor for x in v] if isinstance(v, list) else v * factor
        if "grip" in d:
            g = d["grip"]
            if "pivot" in g:
                g["pivot"] = [v * factor for v in g["pivot"]]
            for key in ("open", "closed"):
                if key in g:
                    g[key] = g[key] * (factor if g.get("slide") else k)
    return out
