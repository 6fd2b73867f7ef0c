"""Collision capsules sit on the links as they are drawn (issue 32 item 7): on every bundled
robot, each link's capsules are checked against its Looks computed here independently — the
primitives' exact surfaces sampled densely (boxes by their corners, cylinders by 360 points on
each end circle, spheres by 2000 points), mesh vertices read with trimesh, gripped shapes at 17
gripper fractions — never through the fit's own points."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kinematica as km
from capsule_oracle import segment_distance
from kinematica.scene.capsulefit import fit_capsule, fit_capsules
from kinematica.scene.linkgeom import link_geometry

VOLUME_RATIO = 5.0  # capsules' volume over the drawn hull's, at most (see the test's text)


def _surface(v) -> np.ndarray:
    """Points on the drawn shape's surface, in its own frame."""
    if v.kind == "box":
        return np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * np.asarray(v.size) / 2
    if v.kind == "cylinder":
        r, length = v.size
        a = np.linspace(0, 2 * np.pi, 360, endpoint=False)
        ring = np.c_[r * np.cos(a), r * np.sin(a)]
        return np.vstack([np.c_[ring, np.full(len(a), z)] for z in (-length / 2, length / 2)])
    if v.kind == "sphere":
        u = np.random.default_rng(0).normal(size=(2000, 3))
        return v.size[0] * u / np.linalg.norm(u, axis=1, keepdims=True)
    import trimesh

    return np.asarray(trimesh.load(v.path, force="mesh", process=False).vertices, float) * np.asarray(v.scale)


def drawn(robot: km.Robot) -> dict[int, np.ndarray]:
    """Body → points of its drawn shapes in the body's frame (gripped ones swept open → closed)."""
    out: dict[int, list] = {}
    for v in robot.visuals:
        X = _surface(v)
        S = np.c_[X, np.ones(len(X))]
        moves = [np.eye(4)] if v.grip is None else [v.grip.motion(f) for f in np.linspace(0, 1, 17)]
        out.setdefault(v.body, []).extend((M @ v.origin @ S.T).T[:, :3] for M in moves)
    return {k: np.vstack(p) for k, p in out.items()}


def hull_solid(P: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(volume, centroid, covariance) of the convex hull of P as a solid of uniform density:
    tetrahedra from an inner point to each hull triangle, each's moments summed."""
    from scipy.spatial import ConvexHull

    h = ConvexHull(P)
    o = P[h.vertices].mean(axis=0)
    a, b, c = (P[h.simplices[:, i]] - o for i in range(3))  # (triangles, 3) each
    v = np.abs(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6
    s = a + b + c
    outer = sum(np.einsum("ij,ik->ijk", x, x) for x in (a, b, c, s))
    V = float(v.sum())
    C = (v[:, None] * s / 4).sum(axis=0) / V
    S = np.einsum("i,ijk->jk", v / 20, outer) / V  # ∫ x xᵀ over each tetrahedron, summed
    return V, C + o, S - np.outer(C, C)


def distances(P: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances of the points P (m, 3) from segment ab (clamped projection, as
    `capsule_oracle.segment_distance` for one point)."""
    d = b - a
    L2 = float(d @ d)
    t = np.zeros(len(P)) if L2 == 0 else np.clip((P - a) @ d / L2, 0.0, 1.0)
    return np.linalg.norm(P - (a + t[:, None] * d), axis=1)


def capsules(geom, body: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(end a, end b, radius) of the body's capsule parts (a sphere: a = b), body frame."""
    out = []
    for p in geom.parts:
        if p.body == body:
            half = 0.5 * p.shape.length if p.shape.kind == "capsule" else 0.0
            a, b = ((p.placement @ [0, 0, z, 1])[:3] for z in (-half, half))
            out.append((a, b, float(p.shape.radius)))
    return out


@pytest.mark.parametrize("name", km.robot_names())
def test_every_link_capsule_sits_on_the_link_as_drawn(name: str):
    """For each drawn body of each bundled robot:
    - contained: every drawn point is inside one of its capsules, to 1e-3 of the radius (the
      fit holds its own points to rounding; the Braccio's fingers swept in 9 steps sag between
      them by < 0.05 mm of a 49 mm capsule, less than this);
    - tight: the capsules' volume is at most VOLUME_RATIO times the drawn hull's (around a long
      box a capsule is π/2–2.4 times it; a flat turntable or base plate costs most: a sphere
      around a disc of radius R, height h is 4R/3h times it, which the fit's split into up to
      4 capsules brings to ≤ 4.9 here), and the capsules' centres are inside the drawn hull;
    - on its axis: where the drawn hull is elongated (its largest principal variance ≥ 2× the
      next, so the axis is well defined) and one capsule covers it, the capsule's axis is
      within 15° of the hull's principal axis and passes within 0.25 radii of its centroid —
      the skeleton capsules the scene used before missed the KR6's arm by 0.8 radii (its drawn
      points up to 77 mm outside them), the UR5's upper arm by 2.2 (146 mm outside)."""
    robot = km.load(name)
    geom = link_geometry(robot)
    points = drawn(robot)
    assert points, f"{name} has Looks"
    from scipy.spatial import ConvexHull

    for body, P in points.items():
        assert geom.source[body] == "looks"
        caps = capsules(geom, body)
        gaps = np.min([distances(P, a, b) - r for a, b, r in caps], axis=0)
        r_max = max(r for *_, r in caps)
        assert gaps.max() <= 1e-3 * r_max, (body, gaps.max())
        volume, centroid, cov = hull_solid(P)
        total = sum(math.pi * r**2 * np.linalg.norm(b - a) + 4 / 3 * math.pi * r**3 for a, b, r in caps)
        assert total <= VOLUME_RATIO * volume, (body, total / volume)
        eq = ConvexHull(P).equations
        for a, b, _ in caps:
            assert (eq[:, :3] @ ((a + b) / 2) + eq[:, 3]).max() <= 0, body
        w, E = np.linalg.eigh(cov)
        if w[2] >= 2 * w[1] and len(caps) == 1 and np.linalg.norm(caps[0][1] - caps[0][0]) > 0:
            a, b, r = caps[0]
            axis = (b - a) / np.linalg.norm(b - a)
            assert math.degrees(math.acos(min(1.0, abs(axis @ E[:, 2])))) <= 15, body
            off = centroid - a
            assert np.linalg.norm(off - (off @ axis) * axis) <= 0.25 * r, body


def test_a_user_radius_or_a_robot_without_looks_keeps_skeleton_capsules():
    """A radius given (scene file, `add_robot(radius=…)`, the robot file's `collision.radius`)
    is the user's own model: skeleton capsules of that radius, as before. A robot without
    Looks has nothing to fit."""
    kr6 = km.load("kuka-kr6-r900")
    given = link_geometry(kr6, radius=0.05)
    assert set(given.source) == {"capsule"} and given.radius == 0.05
    assert {p.shape.radius for p in given.parts} == {0.05}
    bare = kr6.replace(extras={k: v for k, v in kr6.extras.items() if k != "visuals"})
    assert set(link_geometry(bare).source) <= {"capsule", "none"}
    s = km.Scene.load("kuka-table")
    assert set(s.geometry("kuka").source) == {"looks"}
    t = km.Scene()
    t.add_robot("kuka", "kuka-kr6-r900", radius=0.05)
    assert set(t.geometry("kuka").source) == {"capsule"}


@pytest.mark.parametrize("sides", [(0.06, 0.12, 0.5), (0.02, 0.03, 0.2), (0.1, 0.1, 0.12)])
def test_a_box_gets_the_least_volume_capsule_along_its_long_side(sides):
    """A box of sides a ≤ b < c, turned and moved anywhere: the capsule along c through the box's
    centre holding its corners (at ρ = √(a² + b²)/2 from the axis) has, at radius r ≥ ρ, the
    volume V(r) = π r² max(c − 2√(r² − ρ²), 0) + 4/3 π r³ (each round end reaches the corners
    from √(r² − ρ²) inside the box). The fit's volume equals min V over a grid of 200 001 radii
    to 1e-4 (its own search: 48 radii, refined once; V is flat at its minimum), and its axis
    is the long side's."""
    a, b, c = sides
    corners = np.array([[x, y, z] for x in (-a, a) for y in (-b, b) for z in (-c, c)]) / 2
    Q, _ = np.linalg.qr(np.random.default_rng(1).normal(size=(3, 3)))
    fit = fit_capsule(corners @ Q.T + [0.3, -0.2, 0.1])
    rho = math.hypot(a, b) / 2
    r = np.linspace(rho, rho + c / 2, 200001)
    best = float(np.min(math.pi * r**2 * np.maximum(c - 2 * np.sqrt(r**2 - rho**2), 0) + 4 / 3 * math.pi * r**3))
    assert best * (1 - 1e-9) <= fit.volume <= best * (1 + 1e-4)
    if fit.length > 0:
        assert abs((fit.b - fit.a) @ Q[:, 2]) / fit.length == pytest.approx(1.0, abs=1e-9)


def test_a_flat_plate_is_covered_by_several_capsules_not_one_sphere():
    """A 0.26 × 0.26 × 0.02 plate: one capsule around it is nearly a sphere of radius 0.18 (28×
    the plate's volume); the split fit covers it with capsules taking under half of that, and
    every point of its surface (a 27 × 27 grid on each face, the edges included) stays inside
    one of them, to 1e-12 m."""
    corners = np.array([[x, y, z] for x in (-0.13, 0.13) for y in (-0.13, 0.13) for z in (-0.01, 0.01)])
    one = fit_capsule(corners)
    split = fit_capsules(corners)
    assert len(split) > 1
    assert sum(c.volume for c in split) < 0.5 * one.volume
    g = np.linspace(-0.13, 0.13, 27)
    faces = [[x, y, z] for x in g for y in g for z in (-0.01, 0.01)]
    sides = [[x, y, z] for x in g for y in (-0.13, 0.13) for z in np.linspace(-0.01, 0.01, 5)]
    for p in np.array(faces + sides + [[y, x, z] for x, y, z in sides]):
        assert min(segment_distance(p, c.a, c.b) - c.radius for c in split) <= 1e-12


def test_only_links_without_urdf_shapes_are_fitted_and_an_unreadable_mesh_falls_back():
    """A link with URDF `<collision>` shapes keeps them and its drawn meshes are never read
    (example-robot-data's UR5 and Panda draw DAE meshes: reading them for nothing took 18 s);
    a drawn mesh that cannot be read leaves its link on skeleton capsules, with a warning."""
    import sysconfig
    import warnings
    from pathlib import Path

    from kinematica.model.visual import Visual

    kr6 = km.load("kuka-kr6-r900")
    broken = kr6.replace(extras={**kr6.extras, "visuals": kr6.visuals + (Visual(2, "mesh", path="/nowhere/arm.stl"),)})
    with pytest.warns(UserWarning, match="body 2: mesh: file not found: /nowhere/arm.stl: skeleton capsules"):
        g = link_geometry(broken)
    assert g.source[2] == "capsule" and set(g.source) - {"capsule"} == {"looks"}
    urdf = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots/panda_description/urdf/panda.urdf"
    if not urdf.is_file():
        pytest.skip("example-robot-data (a test dependency) not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the URDF's own notes
        panda = km.load(str(urdf))
    unreadable = panda.replace(extras={**panda.extras, "visuals": (Visual(1, "mesh", path="/nowhere/link1.dae"),)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading the drawn mesh would warn: it is not read
        assert set(link_geometry(unreadable).source) == {"urdf"}
