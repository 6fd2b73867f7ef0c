"""Spheres that cover a shape: the conservative model the core's clearance bound runs on.

Every point of the shape lies in some sphere, so a distance measured between spheres is never
more than the distance between the shapes they cover (a positive one proves a state free).
In the shape's own frame, lengths as the shape's:

- sphere: itself.
- capsule (radius R, length l along z) — and a cylinder, which its capsule contains: k =
  ⌈l / R⌉ spheres along the axis, centres at the middles of k equal pieces of half length
  h = l / 2k, radius √(R² + h²) (a point of the round side lies at most R across and h along
  from its piece's middle), and a sphere of radius R at each end for the caps. At most 12 % over R.
- box (full sizes a): cut into k_i cells along each axis, k_i = ⌈a_i / c⌉ with c the larger of
  twice its smallest size and its largest size / 8; each cell's sphere passes through its corners.
- mesh: its convex hull (which contains it), cut into k slabs across its longest principal
  axis; each slab's part of the hull is the hull of the vertices inside the slab and the points
  where hull edges cross the slab's faces, and its sphere is centred on their box and reaches
  the farthest of them.

>>> from kinematica.scene.shapes import make_shape
>>> c, r = cover(make_shape("capsule", radius=0.05, length=0.3))
>>> len(r), round(float(r.max()), 4), float(c[:, 2].min()), float(c[:, 2].max())
(8, 0.0559, -0.15, 0.15)
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .shapes import Shape, mesh_derived

MAX_CELLS = 64  # spheres of one box or mesh at most
SLABS = 8  # a mesh's slabs at most


def cover(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """Centres (k, 3) and radii (k,) of spheres covering `shape`, in its own frame (module text)."""
    if shape.kind == "sphere":
        return np.zeros((1, 3)), np.array([float(shape.round_radius)])
    if shape.kind in ("capsule", "cylinder"):
        return _rod(float(shape.round_radius), float(shape.axis_length))
    if shape.kind == "box":
        return _box(np.asarray(shape.box_size, dtype=float))
    return mesh_derived(shape, "cover", _mesh_cover)


def _mesh_cover(verts: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c, r = _hull_slabs(verts)
    c.flags.writeable = r.flags.writeable = False  # shared by every scene that uses the file
    return c, r


def _rod(R: float, length: float) -> tuple[np.ndarray, np.ndarray]:
    k = max(1, math.ceil(length / R))
    h = length / (2 * k)
    z = np.concatenate([-length / 2 + h * (2 * np.arange(k) + 1), [-length / 2, length / 2]])
    radii = np.concatenate([np.full(k, math.hypot(R, h)), [R, R]])
    return np.stack([np.zeros_like(z), np.zeros_like(z), z], axis=1), radii


def _box(size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cell = max(2 * size.min(), size.max() / 8)
    k = np.maximum(1, np.ceil(size / cell - 1e-9)).astype(int)
    while k.prod() > MAX_CELLS:  # (a cube of thin plates: coarser cells)
        k = np.maximum(1, k // 2)
    step = size / k
    axes = [-size[i] / 2 + step[i] * (np.arange(k[i]) + 0.5) for i in range(3)]
    centres = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    return centres, np.full(len(centres), 0.5 * float(np.linalg.norm(step)))


def _hull_slabs(verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy.spatial import ConvexHull, QhullError

    mid = 0.5 * (verts.min(axis=0) + verts.max(axis=0))
    try:
        hull = ConvexHull(verts)
        pts, simplices = hull.points, hull.simplices
    except (QhullError, ValueError):  # flat or degenerate: its vertices' one sphere
        return mid[None], np.array([float(np.linalg.norm(verts - mid, axis=1).max())])
    axis = np.linalg.svd(verts - verts.mean(axis=0), full_matrices=False)[2][0]
    t = pts @ axis
    lo, hi = float(t.min()), float(t.max())
    d = pts - pts.mean(axis=0)
    across = float(np.linalg.norm(d - np.outer(d @ axis, axis), axis=1).max())  # the hull's radius about the axis
    k = int(np.clip(round((hi - lo) / max(2 * across, 1e-300)), 1, SLABS))
    cuts = np.linspace(lo, hi, k + 1)
    edges = np.unique(np.sort(np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [0, 2]]]),
                              axis=1), axis=0)
    a, b = pts[edges[:, 0]], pts[edges[:, 1]]
    ta, tb = t[edges[:, 0]], t[edges[:, 1]]
    centres, radii = [], []
    for s0, s1 in itertools.pairwise(cuts):
        inside = pts[(t >= s0) & (t <= s1)]
        crossing = [_crossings(a, b, ta, tb, c) for c in (s0, s1)]
        P = np.concatenate([inside] + crossing)
        if not len(P):
            continue
        c = 0.5 * (P.min(axis=0) + P.max(axis=0))
        centres.append(c)
        radii.append(float(np.linalg.norm(P - c, axis=1).max()))
    return np.array(centres), np.array(radii)


def _crossings(a: np.ndarray, b: np.ndarray, ta: np.ndarray, tb: np.ndarray, c: float) -> np.ndarray:
    """The points where the segments a → b (projections ta, tb) cross the plane t = c."""
    cross = (ta - c) * (tb - c) < 0
    w = (c - ta[cross]) / (tb[cross] - ta[cross])
    return a[cross] + w[:, None] * (b[cross] - a[cross])


def placed(shape: Shape, placement: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`cover(shape)` with the centres moved by `placement` (4, 4) into its body's frame."""
    c, r = cover(shape)
    return c @ placement[:3, :3].T + placement[:3, 3], r


__all__ = ["cover", "placed"]
