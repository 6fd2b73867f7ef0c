"""Convex pieces that contain a shape: the compiled core's second, tighter model of a body (after
its covering spheres, `spheres.cover`), measured by GJK (src/core/convex.hpp).

A piece is conv(V) ⊕ ball(r), the points within r of the convex hull of its vertices V. In the
shape's own frame, lengths as the shape's:

- sphere: its centre, r = its radius; capsule (radius R, length l along z): its two end
  points ±l/2 ẑ, r = R — both exact.
- box: its 8 corners, exact.
- cylinder: a prism on the regular 16-gon circumscribing its end circles (corners at
  R / cos(π/16), 2 % out), which contains it.
- mesh: its convex hull's vertices — or, for a body's own mesh (`pieces(shape, slabs=True)`),
  the hulls of its parts in k slabs across its longest principal axis (k up to `SLABS`, about
  its length over its width), which follow a long link's waist and elbows where one hull would
  fill them in: slab i's piece is the hull of the mesh's vertices inside the slab and the points
  where the mesh's edges cross its two faces — the corners of every triangle clipped to the slab,
  so the pieces together contain every triangle. A hull of more than `MOST` vertices is thinned
  by farthest-point sampling to `MOST`, and r is the farthest any hull vertex lies from the kept
  ones: every hull point is a convex combination of vertices, each within r of a kept one, so it
  lies within r of the kept ones' hull.

A mesh's piece also carries its hull's edges (`Piece.edges`), with which the core finds a support
point — the vertex farthest along a direction, GJK's one question — by climbing from vertex to
better neighbour instead of reading every vertex: on a convex polytope a vertex that no
neighbour beats is the farthest. The piece's vertices are its hull's (`with_edges`), and r grows by
`SLACK` of the piece's size for what round-off may still hide from a climb.

>>> from kinematica.scene.shapes import make_shape
>>> [(V, r, edges)] = pieces(make_shape("box", size=(0.2, 0.1, 0.4)))
>>> V.shape, r, float(V[:, 2].max()), edges is None
((8, 3), 0.0, 0.2, True)
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from .shapes import Shape, mesh_derived

SLABS = 8  # a body mesh's slabs at most
MOST = 256  # a mesh hull's vertices at most: GJK's support step reads them all (more: 3 mm on a 4 094-vertex hull)
SIDES = 16  # a cylinder's prism
SLACK = 1e-9  # × a mesh piece's size, added to its radius: what round-off may hide from a support climb


class Piece(NamedTuple):
    """conv(vertices) ⊕ ball(radius); `edges` its hull's edges as (first (k + 1,), next): vertex
    i's neighbours are next[first[i]:first[i + 1]] (None: too few vertices to need them)."""

    vertices: np.ndarray
    radius: float
    edges: tuple[np.ndarray, np.ndarray] | None = None


def pieces(shape: Shape, slabs: bool = False) -> list[Piece]:
    """Convex pieces that together contain `shape`, in its own frame (module text): one, or a
    mesh's slabs with `slabs`."""
    if shape.kind == "sphere":
        return [Piece(np.zeros((1, 3)), shape.round_radius)]
    if shape.kind == "capsule":
        h = 0.5 * shape.axis_length
        return [Piece(np.array([[0.0, 0.0, -h], [0.0, 0.0, h]]), shape.round_radius)]
    if shape.kind == "box":
        half = 0.5 * np.asarray(shape.box_size, dtype=float)
        return [Piece(np.array(list(itertools.product((-1.0, 1.0), repeat=3))) * half, 0.0)]
    if shape.kind == "cylinder":
        a = 2 * np.pi * np.arange(SIDES) / SIDES
        R, h = shape.round_radius / math.cos(math.pi / SIDES), 0.5 * shape.axis_length
        ring = np.column_stack([R * np.cos(a), R * np.sin(a)])
        return [Piece(np.concatenate([np.column_stack([ring, np.full(SIDES, z)]) for z in (-h, h)]), 0.0)]
    if slabs:
        return mesh_derived(shape, "slab pieces", _mesh_slabs)
    return mesh_derived(shape, "piece", lambda v, _: [_hull(v)])


def _hull(P: np.ndarray) -> Piece:
    """The piece of points P: their hull's vertices, thinned to `MOST`, with the edges between them."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        V = P[ConvexHull(P).vertices]
    except (QhullError, ValueError):  # flat or degenerate: the points themselves (their hull is it)
        V = np.unique(P, axis=0)
    return with_edges(*_thinned(V, MOST))


def with_edges(V: np.ndarray, r: float) -> Piece:
    """The piece conv(V) ⊕ ball(r) with its hull's edges: V cut to the hull's vertices — a point
    qhull leaves off is inside the hull, or outside it by round-off, and then r grows by its
    distance to the nearest hull triangle — and r by `SLACK` of its size. V as it is, without
    edges, when qhull refuses it (flat: its points are read whole).

    >>> P = with_edges(np.vstack([np.eye(3), np.zeros((2, 3)), [[0.1, 0.1, 0.1]]]), 0.0)
    >>> len(P.vertices), P.edges[0].tolist()  # the inner point and the duplicate left off
    (4, [0, 3, 6, 9, 12])
    """
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(V)
    except (QhullError, ValueError):
        V = V.copy()
        V.flags.writeable = False
        return Piece(V, r)
    off = np.setdiff1d(np.arange(len(V)), hull.vertices)
    out = off[(V[off] @ hull.equations[:, :3].T + hull.equations[:, 3]).max(axis=1) > 0]
    if len(out):
        r += max(_to_triangles(x, V[hull.simplices]) for x in V[out])
    index = np.full(len(V), -1)
    index[hull.vertices] = np.arange(len(hull.vertices))
    tri = index[hull.simplices]
    pairs = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [0, 2]]])
    pairs = np.unique(np.concatenate([pairs, pairs[:, ::-1]]), axis=0)  # both ways, sorted by vertex
    W = V[hull.vertices]
    first = np.searchsorted(pairs[:, 0], np.arange(len(W) + 1)).astype(np.int32)
    nxt = pairs[:, 1].astype(np.int32)
    for x in (W, first, nxt):
        x.flags.writeable = False  # shared by every scene that uses the file
    return Piece(W, r + SLACK * float(np.ptp(W, axis=0).max()), (first, nxt))


def _to_triangles(x: np.ndarray, T: np.ndarray) -> float:
    """The distance from the point x (3,) to the nearest of the triangles T (m, 3, 3): to its
    plane where x projects inside it, else to its nearest side."""
    a, b, c = T[:, 0], T[:, 1], T[:, 2]
    n = np.cross(b - a, c - a)
    nn = np.einsum("ij,ij->i", n, n)
    h = np.einsum("ij,ij->i", x - a, n)
    p = x - (h / np.where(nn > 0, nn, 1.0))[:, None] * n  # x projected on the plane
    inside = nn > 0
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("ij,ij->i", np.cross(v - u, p - u), n) >= 0

    def side(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        e = v - u
        t = np.clip(np.einsum("ij,ij->i", x - u, e) / np.maximum(np.einsum("ij,ij->i", e, e), 1e-300), 0.0, 1.0)
        return np.linalg.norm(x - (u + t[:, None] * e), axis=1)

    d = np.minimum(np.minimum(side(a, b), side(b, c)), side(c, a))
    d[inside] = np.abs(h[inside]) / np.sqrt(nn[inside])
    return float(d.min())


def _mesh_slabs(verts: np.ndarray, faces: np.ndarray) -> list[Piece]:
    axis = np.linalg.svd(verts - verts.mean(axis=0), full_matrices=False)[2][0]
    t = verts @ axis
    lo, hi = float(t.min()), float(t.max())
    d = verts - verts.mean(axis=0)
    across = float(np.linalg.norm(d - np.outer(d @ axis, axis), axis=1).max())  # its radius about the axis
    k = int(np.clip(round((hi - lo) / max(across, 1e-300)), 1, SLABS))
    if k == 1:
        return [_hull(verts)]
    edges = np.unique(np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [0, 2]]]), axis=1), axis=0)
    a, b, ta, tb = verts[edges[:, 0]], verts[edges[:, 1]], t[edges[:, 0]], t[edges[:, 1]]
    cuts = np.linspace(lo, hi, k + 1)
    faces_at = [_crossings(a, b, ta, tb, c) for c in cuts]
    out = []
    for i in range(k):
        P = np.concatenate([verts[(t >= cuts[i]) & (t <= cuts[i + 1])], faces_at[i], faces_at[i + 1]])
        if len(P):
            out.append(_hull(P))
    return out


def _crossings(a: np.ndarray, b: np.ndarray, ta: np.ndarray, tb: np.ndarray, c: float) -> np.ndarray:
    """The points where the segments a → b (projections ta, tb on the axis) cross the plane t = c."""
    cross = (ta - c) * (tb - c) < 0
    w = (c - ta[cross]) / (tb[cross] - ta[cross])
    return a[cross] + w[:, None] * (b[cross] - a[cross])


def _thinned(V: np.ndarray, most: int) -> tuple[np.ndarray, float]:
    """(at most `most` of the points V, the farthest any point of V is from them): farthest-point
    sampling from the point farthest from the centroid."""
    if len(V) <= most:
        return V.copy(), 0.0
    keep = [int(np.argmax(np.linalg.norm(V - V.mean(axis=0), axis=1)))]
    d = np.linalg.norm(V - V[keep[0]], axis=1)
    while len(keep) < most:
        keep.append(int(np.argmax(d)))
        d = np.minimum(d, np.linalg.norm(V - V[keep[-1]], axis=1))
    return V[keep], float(d.max())


def placed_pieces(shape: Shape, placement: np.ndarray, slabs: bool = False) -> list[Piece]:
    """`pieces(shape, slabs)` with their vertices moved by `placement` (4, 4) into the frame it is placed in."""
    return [Piece(V @ placement[:3, :3].T + placement[:3, 3], r, e) for V, r, e in pieces(shape, slabs)]


__all__ = ["Piece", "pieces", "placed_pieces", "with_edges", "MOST", "SLABS"]
