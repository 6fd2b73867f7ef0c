"""What is drawn for each body of a robot with Looks (`robot.visuals`), as points in the body's
frame that enclose it: the corners of a box; the rims of a cylinder as two regular 32-gons
circumscribing its end circles (their hull holds the cylinder); a sphere as points whose hull
holds it; a mesh's vertices (its file read with trimesh, times its per-axis scale). A shape
that turns with the gripper (`Visual.grip`) is taken at 9 steps from open to closed, so what
encloses the points encloses the fingers wherever they are.

>>> import kinematica as km
>>> P = drawn_points(km.load("kuka-kr6-r900"))
>>> sorted(P) == list(range(7)), P[2].shape   # 8 corners of the arm's box, 64 rim points
(True, (72, 3))
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..model.robot import Robot
from ..model.visual import Visual, visuals
from .capsulefit import FittedCapsule, fit_capsules
from .shapes import SceneError, make_shape, mesh_data

RIM = 32  # sides of the polygons around a cylinder's end circles
GRIP_STEPS = 9  # gripper fractions from open (0) to closed (1) a gripped shape is taken at
CACHED = 64  # looks whose fitted capsules are kept (`fitted_capsules`)
_fits: OrderedDict[tuple, dict] = OrderedDict()
_lock = threading.Lock()  # the simulator's sessions build scenes from several threads


def _cylinder(radius: float, length: float) -> np.ndarray:
    """Two regular RIM-gons circumscribing the end circles (vertex radius r / cos(π / RIM))."""
    a = 2 * np.pi * np.arange(RIM) / RIM
    R = radius / math.cos(math.pi / RIM)
    ring = np.c_[R * np.cos(a), R * np.sin(a)]
    return np.vstack([np.c_[ring, np.full(RIM, z)] for z in (-length / 2, length / 2)])


def _sphere(radius: float) -> np.ndarray:
    """Points whose convex hull holds the sphere: 42 near-uniform directions (an icosahedron
    and its edge midpoints, projected), pushed out until every hull face clears the sphere."""
    from scipy.spatial import ConvexHull

    g = (1 + 5**0.5) / 2
    ico = np.array([(s1, s2 * g, 0) for s1 in (-1, 1) for s2 in (-1, 1)], float)
    ico = np.vstack([ico, np.roll(ico, 1, axis=1), np.roll(ico, 2, axis=1)])
    edges = [(i, j) for i in range(12) for j in range(i + 1, 12) if np.linalg.norm(ico[i] - ico[j]) < 2.01]
    U = np.vstack([ico, [ico[i] + ico[j] for i, j in edges]])
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    inset = -ConvexHull(U).equations[:, 3].max()  # the nearest face's distance from the centre
    return U * (radius / inset)


def shape_points(v: Visual) -> np.ndarray:
    """Points (m, 3) in the shape's own frame whose convex hull holds the drawn shape."""
    if v.kind == "box":
        return v.corners()
    if v.kind == "cylinder":
        return _cylinder(*v.size)
    if v.kind == "sphere":
        return _sphere(v.size[0])
    try:
        verts = mesh_data(make_shape("mesh", path=v.path))[0]
    except SceneError as e:
        raise SceneError(f"a drawn mesh of body {v.body}: {e}") from None
    return verts * np.asarray(v.scale)


def placed_points(v: Visual) -> np.ndarray:
    """`shape_points(v)` in its body's frame: at its origin, and for a gripped shape at each of
    GRIP_STEPS gripper fractions."""
    S = shape_points(v)
    P = np.c_[S, np.ones(len(S))]
    moves = [np.eye(4)] if v.grip is None else [v.grip.motion(f) for f in np.linspace(0, 1, GRIP_STEPS)]
    return np.vstack([(M @ v.origin @ P.T).T[:, :3] for M in moves])


def drawn_points(robot: Robot) -> dict[int, np.ndarray]:
    """Body number → points (m, 3, body frame, robot length unit) enclosing what the Looks
    draw on it; bodies with nothing drawn are left out (empty when the robot has no Looks)."""
    return _points_of(visuals(robot))


def _points_of(shapes: tuple[Visual, ...]) -> dict[int, np.ndarray]:
    out: dict[int, list[np.ndarray]] = {}
    for v in shapes:
        out.setdefault(v.body, []).append(placed_points(v))
    return {k: np.vstack(p) for k, p in sorted(out.items())}


def fitted_capsules(robot: Robot, bodies: Iterable[int] | None = None) -> dict[int, list[FittedCapsule]]:
    """Body number → the capsules `capsulefit.fit_capsules` fits to its drawn points (body
    frame, robot length unit), for `bodies` (default all). A body whose drawn mesh cannot be
    read is left out, with a warning (it keeps skeleton capsules). Computed once per look:
    `km.load` gives a new Robot each call, so the fits are kept by what is drawn (shapes,
    placements, mesh files' versions) for the last `CACHED` looks, never by the robot object
    (which the cache would keep alive)."""
    wanted = None if bodies is None else set(bodies)
    shapes = tuple(v for v in visuals(robot) if wanted is None or v.body in wanted)
    key = tuple(_key(v) for v in shapes)
    with _lock:
        if key in _fits:
            _fits.move_to_end(key)
            return _fits[key]
    found = {}
    for body in sorted({v.body for v in shapes}):
        try:
            points = np.vstack([placed_points(v) for v in shapes if v.body == body])
        except SceneError as e:
            warnings.warn(f"{robot.name}: {e}: skeleton capsules for body {body}", stacklevel=3)
            continue
        found[body] = fit_capsules(points)
    with _lock:
        _fits[key] = found
        while len(_fits) > CACHED:
            _fits.popitem(last=False)
    return found


def _key(v: Visual) -> tuple:
    """What decides a shape's points: kind, sizes, placement, grip, the mesh file's version."""
    grip = None if v.grip is None else (v.grip.axis, v.grip.pivot, v.grip.open, v.grip.closed, v.grip.slide)
    stamp = Path(v.path).stat().st_mtime if v.path and Path(v.path).is_file() else None
    return (v.body, v.kind, v.origin.tobytes(), v.size, v.path, stamp, v.scale, grip)
