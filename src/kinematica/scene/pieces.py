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

>>> from kinematica.scene.shapes import make_shape
>>> [(V, r)] = pieces(make_shape("box", size=(0.2, 0.1, 0.4)))
>>> V.shape, r, float(V[:, 2].max())
((8, 3), 0.0, 0.2)
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .shapes import Shape, mesh_derived

SLABS = 8  # a body mesh's slabs at most
MOST = 256  # a mesh hull's vertices at most: GJK's support step reads them all (more: 3 mm on a 4 094-vertex hull)
SIDES = 16  # a cylinder's prism


Piece = tuple[np.ndarray, float]  # vertices (k, 3), radius


def pieces(shape: Shape, slabs: bool = False) -> list[Piece]:
    """Convex pieces that together contain `shape`, in its own frame (module text): one, or a
    mesh's slabs with `slabs`."""
    if shape.kind == "sphere":
        return [(np.zeros((1, 3)), shape.round_radius)]
    if shape.kind == "capsule":
        h = 0.5 * shape.axis_length
        return [(np.array([[0.0, 0.0, -h], [0.0, 0.0, h]]), shape.round_radius)]
    if shape.kind == "box":
        half = 0.5 * np.asarray(shape.box_size, dtype=float)
        return [(np.array(list(itertools.product((-1.0, 1.0), repeat=3))) * half, 0.0)]
    if shape.kind == "cylinder":
        a = 2 * np.pi * np.arange(SIDES) / SIDES
        R, h = shape.round_radius / math.cos(math.pi / SIDES), 0.5 * shape.axis_length
        ring = np.column_stack([R * np.cos(a), R * np.sin(a)])
        return [(np.concatenate([np.column_stack([ring, np.full(SIDES, z)]) for z in (-h, h)]), 0.0)]
    if slabs:
        return mesh_derived(shape, "slab pieces", _mesh_slabs)
    return mesh_derived(shape, "piece", lambda v, _: [_hull(v)])


def _hull(P: np.ndarray) -> Piece:
    """The piece of points P: their hull's vertices, thinned to `MOST`."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        V = P[ConvexHull(P).vertices]
    except (QhullError, ValueError):  # flat or degenerate: the points themselves (their hull is it)
        V = np.unique(P, axis=0)
    V, r = _thinned(V, MOST)
    V.flags.writeable = False  # shared by every scene that uses the file
    return V, r


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
    return [(V @ placement[:3, :3].T + placement[:3, 3], r) for V, r in pieces(shape, slabs)]


__all__ = ["Piece", "pieces", "placed_pieces", "MOST", "SLABS"]
