"""The convex pieces the planner's bound refines with (scene/pieces.py) and GJK's lower bound on
their distance (src/core/convex.cpp). Oracles: coal's distance between the same convex hulls
(GJK/EPA, independent code), and the hulls' own half-space equations (qhull) for containment."""

from __future__ import annotations

import itertools
import math
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

import kinematica as km
from kinematica import spatial
from kinematica._core import convex_distance
from kinematica.scene.bound import ClearanceBound
from kinematica.scene.pieces import pieces, with_edges
from kinematica.scene.shapes import make_shape, mesh_data

coal = pytest.importorskip("coal")

MESHES = (Path(sysconfig.get_paths()["purelib"]) /
          "cmeel.prefix/share/example-robot-data/robots/panda_description/meshes/collision")


def _coal_distance(A: np.ndarray, Ta: np.ndarray, B: np.ndarray, Tb: np.ndarray) -> float:
    """coal's distance between the hulls' surfaces (triangle meshes from qhull): for disjoint
    hulls, the hulls' distance; 0 when they touch or cross."""
    models = []
    for V in (A, B):
        tris = ConvexHull(V).simplices
        vs, ts = coal.StdVec_Vec3s(), coal.StdVec_Triangle()
        vs.extend(list(V))
        ts.extend([coal.Triangle(int(a), int(b), int(c)) for a, b, c in tris])
        m = coal.BVHModelOBBRSS()
        m.beginModel(len(tris), len(V))
        m.addSubModel(vs, ts)
        m.endModel()
        models.append(m)
    req, res = coal.DistanceRequest(), coal.DistanceResult()
    d = coal.distance(models[0], coal.Transform3s(Ta[:3, :3], Ta[:3, 3]),
                      models[1], coal.Transform3s(Tb[:3, :3], Tb[:3, 3]), req, res)
    return max(d, 0.0)


clouds = st.integers(4, 40).flatmap(lambda k: st.lists(st.tuples(*[st.floats(-0.2, 0.2)] * 3), min_size=k,
                                                       max_size=k))
poses = st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5), st.floats(-0.5, 0.5),
                  st.floats(-math.pi, math.pi), st.floats(-1.5, 1.5), st.floats(-math.pi, math.pi))


def _pose(p) -> np.ndarray:
    return spatial.transl(p[:3]) @ spatial.rotz(p[3]) @ spatial.roty(p[4]) @ spatial.rotx(p[5])


@settings(max_examples=150, deadline=None)
@given(clouds, clouds, poses, poses, st.floats(0.0, 0.05), st.floats(0.0, 0.05))
@example([(0.0, 0.0, 0.1875), (0.0, 0.125, 0.0), (0.1875, -0.125, 0.0), (-0.125, 0.0, 0.0)],
         [(0.0, 0.0, 0.0), (0.0, 0.0, 0.0625), (0.0, 0.0625, -0.0625), (0.03125, 0.0, 0.0)],
         (0.0, 0.0, -0.09375, 0.0, 0.0, 0.0), (0.0,) * 6, 0.0, 0.0)  # B wholly inside A
def test_gjk_never_exceeds_the_distance_and_meets_it_when_apart(a, b, pa, pb, ra, rb):
    # the bound is what certifies a state free: it must never be above the true distance (coal's
    # between the hulls' surfaces, less the radii; one hull inside the other also gives a bound
    # ≤ 0 ≤ coal's). Apart, it is within its tolerance of it (GJK converges) — where coal's
    # surface distance is the hulls' distance: not when a corner of one lies inside the other
    # (hypothesis found a tetrahedron wholly inside another, 7.5 mm from its faces)
    A, B = np.array(a), np.array(b)
    for V in (A, B):
        try:
            ConvexHull(V)
        except Exception:  # noqa: BLE001 — flat clouds: coal's hull refuses them too
            return
    Ta, Tb = _pose(pa), _pose(pb)
    d = _coal_distance(A, Ta, B, Tb)
    lb = convex_distance(A, Ta, ra, B, Tb, rb, tol=1e-9)
    assert lb <= d - ra - rb + 1e-9, (lb, d)
    WA, WB = A @ Ta[:3, :3].T + Ta[:3, 3], B @ Tb[:3, :3].T + Tb[:3, 3]
    if d - ra - rb > 1e-3 and not _corner_inside(WA, WB):  # apart, radii included (touching, it stops as soon as it knows)
        assert lb >= d - ra - rb - 1e-5, (lb, d)


def _corner_inside(A: np.ndarray, B: np.ndarray) -> bool:
    """Whether a point of A lies inside the hull of B or one of B inside the hull of A."""
    for P, V in ((A, B), (B, A)):
        eq = ConvexHull(V).equations
        if np.any((P @ eq[:, :3].T + eq[:, 3]).max(axis=1) <= 0):
            return True
    return False


big_clouds = st.integers(24, 90).flatmap(lambda k: st.lists(st.tuples(*[st.floats(-0.2, 0.2)] * 3), min_size=k,
                                                            max_size=k))


@settings(max_examples=200, deadline=None)
@given(big_clouds, big_clouds, poses, poses, st.booleans())
def test_a_support_climbed_over_the_hulls_edges_gives_what_reading_every_vertex_gives(a, b, pa, pb, grid):
    # a piece's support point found by climbing its hull's edges must be the farthest vertex, so
    # GJK on the piece (hull vertices, edges, radius grown by SLACK) never exceeds — and meets —
    # GJK reading every point of the cloud. (24 vertices and more: fewer are read whole; on a
    # grid, many points are coplanar or repeated, which qhull leaves off.)
    A, B = np.array(a), np.array(b)
    if grid:
        A, B = np.round(A, 1), np.round(B, 1)
    ea, eb = with_edges(A, 0.0), with_edges(B, 0.0)
    if ea.edges is None or eb.edges is None:  # flat clouds: no edges, no climb
        return
    Ta, Tb = _pose(pa), _pose(pb)
    read = convex_distance(A, Ta, 0.0, B, Tb, 0.0, tol=1e-12)
    climbed = convex_distance(ea.vertices, Ta, ea.radius, eb.vertices, Tb, eb.radius, tol=1e-12,
                              first_a=ea.edges[0].tolist(), next_a=ea.edges[1].tolist(),
                              first_b=eb.edges[0].tolist(), next_b=eb.edges[1].tolist())
    # (the radii: SLACK, ~1e-10 here)
    assert read - 1e-9 <= climbed <= read + 1e-15, (climbed, read)


@pytest.mark.skipif(not MESHES.is_dir(), reason="example-robot-data (a test dependency) not installed")
def test_a_mesh_pieces_edges_join_every_vertex_both_ways():
    for V, r, edges in pieces(make_shape("mesh", path=str(MESHES / "link4.stl")), slabs=True):
        assert edges is not None
        first, nxt = edges
        assert len(first) == len(V) + 1 and first[0] == 0 and first[-1] == len(nxt)
        pairs = {(i, int(j)) for i in range(len(V)) for j in nxt[first[i]:first[i + 1]]}
        assert all((j, i) in pairs for i, j in pairs)
        assert all(first[i + 1] - first[i] >= 3 for i in range(len(V)))  # a corner of a solid: 3 edges at least


def test_a_pieces_edges_that_do_not_join_its_vertices_are_refused():
    # a climb can only reach the vertices the edges join: a broken list would hide a vertex
    V = np.array(list(itertools.product((0.0, 1.0), repeat=3)))
    with pytest.raises(ValueError, match="neighbour out of range"):
        convex_distance(V, np.eye(4), 0.0, V, np.eye(4), 0.0, first_a=[0] * 8 + [1], next_a=[9])
    scene = km.Scene()
    scene.add_robot("arm", "puma560")  # (no obstacles: no things)
    core = ClearanceBound.build(scene, "arm").core
    body0 = [0] + [1] * core.bodies  # one piece, the base's: a cube whose edges join vertices 0 and 1 only
    with pytest.raises(ValueError, match="edge"):
        core.set_pieces(body0, [0, 8], V, [0.0], [], [0, 1, 2, 2, 2, 2, 2, 2, 2], [1, 0])
    core.set_pieces(body0, [0, 8], V, [0.0], [], [], [])  # (no edges at all: read whole, accepted)


def test_gjk_stops_once_the_bound_is_enough():
    A = np.array(list(np.ndindex(2, 2, 2)), float)
    T = np.eye(4)
    T[0, 3] = 5.0
    full = convex_distance(A, np.eye(4), 0.0, A, T, 0.0)
    assert full == pytest.approx(4.0, abs=1e-9)
    early = convex_distance(A, np.eye(4), 0.0, A, T, 0.0, enough=1.0)
    assert 1.0 <= early <= 4.0 + 1e-12


@pytest.mark.parametrize("kind, size", [("box", dict(size=(0.2, 0.1, 0.4))), ("sphere", dict(radius=0.1)),
                                        ("capsule", dict(radius=0.05, length=0.3)),
                                        ("cylinder", dict(radius=0.05, length=0.3))])
def test_a_primitives_piece_contains_it(kind, size):
    shape = make_shape(kind, **size)
    [(V, r, _)] = pieces(shape)
    rng = np.random.default_rng(0)
    # points on the primitive's surface: each within r of the hull of V (half-spaces, qhull)
    if kind == "box":
        P = rng.uniform(-0.5, 0.5, (2000, 3)) * np.array(size["size"])
    else:
        u = rng.normal(size=(2000, 3))
        u /= np.linalg.norm(u, axis=1)[:, None]
        R = size["radius"]
        if kind == "sphere":
            P = R * u
        else:
            z = rng.uniform(-0.5, 0.5, 2000) * size["length"]
            ring = u[:, :2] / np.linalg.norm(u[:, :2], axis=1)[:, None] * R
            P = np.column_stack([ring, z])
    _assert_within(P, V, r)


def _assert_within(P: np.ndarray, V: np.ndarray, r: float) -> None:
    if len(V) < 4:  # a point or segment with a radius
        a, b = V[0], V[-1]
        ab = b - a
        t = np.clip(((P - a) @ ab) / max(ab @ ab, 1e-300), 0, 1)
        assert np.all(np.linalg.norm(P - (a + t[:, None] * ab), axis=1) <= r + 1e-12)
        return
    eq = ConvexHull(V).equations  # n·x + c ≤ 0 inside
    assert np.all((P @ eq[:, :3].T + eq[:, 3]).max(axis=1) <= r + 1e-9)


@pytest.mark.skipif(not MESHES.is_dir(), reason="example-robot-data (a test dependency) not installed")
@pytest.mark.parametrize("link", ["link2", "link4", "link6", "hand"])
def test_a_meshs_slab_pieces_together_contain_every_triangle(link):
    # each triangle clipped to a slab lies in that slab's piece: sample points on every triangle
    # and ask that each lie within its slab piece's hull (+ its radius from thinning)
    path = MESHES / f"{link}.stl"
    shape = make_shape("mesh", path=str(path))
    verts, faces = mesh_data(shape)
    parts = pieces(shape, slabs=True)
    assert 1 <= len(parts) <= 8
    rng = np.random.default_rng(1)
    w = rng.dirichlet(np.ones(3), size=len(faces))
    P = np.einsum("fk,fkx->fx", w, verts[faces])
    inside = np.zeros(len(P), bool)
    for V, r, _ in parts:
        if len(V) >= 4:
            eq = ConvexHull(V).equations
            inside |= (P @ eq[:, :3].T + eq[:, 3]).max(axis=1) <= r + 1e-9
    assert inside.all(), f"{(~inside).sum()} of {len(P)} points outside every piece"
