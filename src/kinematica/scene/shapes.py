"""Collision shapes — box, sphere, cylinder, capsule, mesh — and their coal geometry.

A `Shape` is plain data (what a scene file holds); `coal_geometry` turns it into the coal
object that collision and distance queries run on, and `bounding_sphere` gives the sphere
that encloses it (the broad phase's cheap test). Each shape sits at the origin of its own
frame: a box centred, with edges `size` = (x, y, z) along the axes; a sphere of `radius`;
a cylinder and a capsule of `radius` along z, `length` the full length of the axis (a
capsule's hemispherical caps add `radius` beyond it at each end, as coal's `Capsule` does);
a mesh the triangles of an STL/OBJ/PLY file (read with trimesh), its vertices multiplied by
`scale`. A mesh collides by its surface: a body wholly inside a closed mesh does not touch it.

>>> s = make_shape("capsule", radius=0.05, length=0.4)
>>> s.kind, bounding_sphere(s)[1]
('capsule', 0.25)
>>> make_shape("box", size=(1, 2))
Traceback (most recent call last):
...
kinematica.scene.shapes.SceneError: box: size must be 3 positive finite numbers (x, y, z), got (1, 2)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import KinematicaError
from ..extras import need
from ..model.robot import MAX_LENGTH

SHAPES = ("box", "sphere", "cylinder", "capsule", "mesh")
SIZES = {"box": ("size",), "sphere": ("radius",), "cylinder": ("radius", "length"),
         "capsule": ("radius", "length"), "mesh": ("path", "scale")}
SIZE_NAMES = tuple(dict.fromkeys(k for ks in SIZES.values() for k in ks))  # every shape's, once
MESH_SUFFIXES = (".stl", ".obj", ".ply", ".off", ".glb", ".gltf", ".dae")


class SceneError(KinematicaError, ValueError):
    """A scene, a shape or a query is malformed; the message names what is wrong."""


@dataclass(frozen=True)
class Shape:
    """One collision shape in its own frame (see the module text for each kind's conventions).

    kind: one of SHAPES; size: (x, y, z) edges of a box; radius, length: sphere, cylinder,
    capsule; path, scale: a mesh file and the factor applied to its vertices.
    """

    kind: str
    size: tuple[float, float, float] | None = None
    radius: float | None = None
    length: float | None = None
    path: str | None = None
    scale: float = 1.0

    # size, radius and length are Optional because each kind has only some of them (make_shape
    # checks that it has those); code that has chosen by kind reads them here, typed as numbers,
    # with a SceneError naming the kind if it chose wrong
    @property
    def box_size(self) -> tuple[float, float, float]:
        """The edges (x, y, z) of a box."""
        if self.size is None:
            raise SceneError(f"a {self.kind} has no box edges (size): only a box has them")
        return self.size

    @property
    def round_radius(self) -> float:
        """The radius of a sphere, a cylinder or a capsule."""
        if self.radius is None:
            raise SceneError(f"a {self.kind} has no radius: only a sphere, a cylinder or a capsule has one")
        return self.radius

    @property
    def axis_length(self) -> float:
        """The full length of a cylinder's or a capsule's axis."""
        if self.length is None:
            raise SceneError(f"a {self.kind} has no axis length: only a cylinder or a capsule has one")
        return self.length

    def params(self) -> dict[str, Any]:
        """The keyword arguments of `make_shape` that rebuild this shape."""
        out: dict[str, Any] = {}
        for key in SIZES[self.kind]:
            value = getattr(self, key)
            if key == "scale" and value == 1.0:
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


def _positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise SceneError(f"{what} must be a positive finite number, got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise SceneError(f"{what} must be a positive finite number, got {value!r}")
    if v > MAX_LENGTH:
        raise SceneError(f"{what} = {v:g} is beyond {MAX_LENGTH:g}, larger than any workspace")
    return v


def make_shape(kind: str, **size: Any) -> Shape:
    """A validated `Shape`: ``make_shape("box", size=(x, y, z))``, ``("sphere", radius=r)``,
    ``("cylinder"|"capsule", radius=r, length=l)``, ``("mesh", path=p, scale=1.0)``.
    Raises SceneError naming the shape and the bad or missing size (a mesh file must exist)."""
    if kind not in SHAPES:
        raise SceneError(f"unknown shape {kind!r}: use one of {', '.join(SHAPES)}")
    allowed = SIZES[kind]
    extra = sorted(set(size) - set(allowed))
    if extra:
        raise SceneError(f"{kind}: unknown size {extra[0]!r} (a {kind} takes {', '.join(allowed)})")
    missing = [k for k in allowed if k not in size and k != "scale"]
    if missing:
        raise SceneError(f"{kind}: missing {missing[0]!r} (a {kind} takes {', '.join(allowed)})")
    if kind == "box":
        s = size["size"]
        try:
            dims = tuple(_positive(v, "size") for v in s)
        except (SceneError, TypeError):
            dims = ()
        if len(dims) != 3:
            shown = tuple(s) if isinstance(s, (list, tuple, np.ndarray)) else s
            raise SceneError(f"box: size must be 3 positive finite numbers (x, y, z), got {shown!r}")
        return Shape("box", size=dims)  # type: ignore[arg-type]
    if kind == "mesh":
        path = Path(str(size["path"]))
        if not path.is_file():
            raise SceneError(f"mesh: file not found: {path}")
        if path.suffix.lower() not in MESH_SUFFIXES:
            raise SceneError(f"mesh: {path.name}: unknown mesh format (use {', '.join(MESH_SUFFIXES)})")
        shape = Shape("mesh", path=str(path), scale=_positive(size.get("scale", 1.0), "mesh: scale"))
        mesh_data(shape)  # read now: a corrupt file is refused here, not at the first query
        return shape
    radius = _positive(size["radius"], f"{kind}: radius")
    length = _positive(size["length"], f"{kind}: length") if "length" in size else None
    return Shape(kind, radius=radius, length=length)


@functools.lru_cache(maxsize=64)
def _mesh(path: str, scale: float, stamp: float) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (v, 3), triangles (t, 3)) of a mesh file, read once per file version."""
    trimesh = need("trimesh", "scene", "a mesh shape")
    try:
        m = trimesh.load(path, force="mesh", process=False)
    except Exception as e:  # noqa: BLE001 — trimesh raises many kinds on a corrupt file
        raise SceneError(f"mesh: cannot read {path}: {e}") from None
    faces = np.asarray(getattr(m, "faces", ()), dtype=int)
    if faces.ndim != 2 or len(faces) == 0:
        raise SceneError(f"mesh: {path} holds no triangles")
    verts = np.asarray(m.vertices, dtype=float) * scale
    if not np.all(np.isfinite(verts)):
        raise SceneError(f"mesh: {path} has vertices that are not finite numbers")
    return verts, faces


def mesh_data(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (scaled) and triangles of a mesh shape."""
    path = Path(shape.path or "")
    if not path.is_file():
        raise SceneError(f"mesh: file not found: {path}")
    return _mesh(str(path), shape.scale, path.stat().st_mtime)


def coal_geometry(shape: Shape):
    """The coal collision geometry of `shape` (a BVH of triangles for a mesh, built once per
    file version and shared: a planner makes a scene per problem, and coal's models are not
    changed once built)."""
    coal = need("coal", "scene", "collision checking")
    if shape.kind == "box":
        return coal.Box(*shape.box_size)
    if shape.kind == "sphere":
        return coal.Sphere(shape.round_radius)
    if shape.kind == "cylinder":
        return coal.Cylinder(shape.round_radius, shape.axis_length)
    if shape.kind == "capsule":
        return coal.Capsule(shape.round_radius, shape.axis_length)
    return mesh_derived(shape, "coal", _coal_models)[0]


def coal_hull(shape: Shape):
    """A mesh's convex hull as a coal `Convex` (None for a primitive): it contains the mesh, so
    no contact with it means none with the mesh — a test ~3× cheaper on fine meshes."""
    return None if shape.kind != "mesh" else mesh_derived(shape, "coal", _coal_models)[1]


_DERIVED: dict[tuple[int, str], tuple] = {}  # (id of mesh_data's vertex array, what) → (the array, the value)


def mesh_derived(shape: Shape, what: str, make: Callable[[np.ndarray, np.ndarray], Any]) -> Any:
    """make(vertices, triangles) of a mesh shape, made once per file version and kept (a planner
    makes a scene per problem, and a robot's meshes are the same files each time); `what` names
    the kind of value. The value is shared: it must not be changed."""
    verts, faces = mesh_data(shape)
    known = _DERIVED.get((id(verts), what))
    if known is not None and known[0] is verts:  # (the array kept alive here: its id is not reused)
        return known[1]
    if len(_DERIVED) >= 512:  # (as many files as mesh_data keeps, a few kinds each: start afresh)
        _DERIVED.clear()
    value = make(verts, faces)
    _DERIVED[id(verts), what] = (verts, value)
    return value


def _coal_models(verts: np.ndarray, faces: np.ndarray) -> tuple:
    """coal's BVH of a mesh's triangles, and its convex hull (None when qhull refuses it)."""
    coal = need("coal", "scene", "collision checking")
    vs, tris = coal.StdVec_Vec3s(), coal.StdVec_Triangle()
    vs.extend(list(verts))
    tris.extend([coal.Triangle(int(a), int(b), int(c)) for a, b, c in faces])
    bvh = coal.BVHModelOBBRSS()
    bvh.beginModel(len(faces), len(verts))
    bvh.addSubModel(vs, tris)
    bvh.endModel()
    try:
        hull = coal.Convex.convexHull(vs, False, None)
    except Exception:  # noqa: BLE001 — qhull refuses a flat or degenerate mesh: no hull, the mesh alone
        hull = None
    return bvh, hull


def bounding_sphere(shape: Shape) -> tuple[np.ndarray, float]:
    """(centre (3,), radius) of a sphere enclosing `shape`, in the shape's own frame."""
    if shape.kind == "box":
        return np.zeros(3), 0.5 * float(np.linalg.norm(shape.box_size))
    if shape.kind == "sphere":
        return np.zeros(3), float(shape.round_radius)
    if shape.kind in ("cylinder", "capsule"):
        r, length = shape.round_radius, shape.axis_length
        return np.zeros(3), float(math.hypot(r, length / 2) if shape.kind == "cylinder" else length / 2 + r)
    verts, _ = mesh_data(shape)
    centre = 0.5 * (verts.min(axis=0) + verts.max(axis=0))
    return centre, float(np.linalg.norm(verts - centre, axis=1).max())


def scaled(shape: Shape, s: float) -> Shape:
    """`shape` with every length multiplied by s (a robot's mm geometry in a scene in m)."""
    if s == 1.0:
        return shape
    if shape.kind == "box":
        return Shape("box", size=tuple(v * s for v in shape.size))  # type: ignore[arg-type]
    if shape.kind == "mesh":
        return Shape("mesh", path=shape.path, scale=shape.scale * s)
    assert shape.radius is not None  # a sphere, cylinder or capsule has its radius (make_shape checks it)
    return Shape(shape.kind, radius=shape.radius * s, length=None if shape.length is None else shape.length * s)
