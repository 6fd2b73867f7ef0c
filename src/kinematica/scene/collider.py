"""The query engine: coal's narrow phase on the pairs a vectorised broad phase leaves.

A `Collider` holds parts (a coal geometry rigidly placed on a body) and the part pairs worth
testing (never two parts of one body, nor pairs whose bodies are excluded). Given the world
poses of every body over a batch of B configurations, `collide` answers which body pairs
touch and `distance` the smallest distance with its pair and witness points.

The broad phase is one NumPy pass over the whole batch: each part's bounding sphere gives
the lower bound |c_a − c_b| − ρ_a − ρ_b on the distance of a pair. A pair whose bound is
positive cannot touch, so `collide` calls coal only on the rest; `distance` visits a
configuration's pairs in increasing bound and stops once the bound passes the best distance
found, which is therefore exact. coal's own broad-phase managers work one configuration at a
time: driven from Python per configuration they cost ~4x more per configuration than this
pass over a batch, and ~0.6x a `check` call of a single configuration, whose NumPy fixed costs
dominate (`benchmarks/scene.py` measures all of them). Distances are signed: negative is
coal's penetration depth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..extras import need
from .shapes import Shape, bounding_sphere, coal_geometry, coal_hull


@dataclass(frozen=True)
class Contact:
    """Result of `distance` for one configuration: the signed distance, the part pair and
    the witness points (2, 3) — nearest points of the two parts, world frame."""

    distance: float
    parts: tuple[int, int]
    points: np.ndarray


class Collider:
    """Parts on bodies, and which part pairs to test.

    shapes: the parts' shapes; bodies (P,): the body of each part; placements (P, 4, 4): the
    part in its body's frame; body_pairs: the (body a, body b) pairs to test, a < b.
    """

    def __init__(self, shapes: list[Shape], bodies: ArrayLike, placements: ArrayLike,
                 body_pairs: list[tuple[int, int]]):
        self._coal = coal = need("coal", "scene", "collision checking")
        self.bodies = np.asarray(bodies, dtype=int)
        self.placements = np.asarray(placements, dtype=float).reshape(-1, 4, 4)
        self.shapes = list(shapes)
        self.geoms = [coal_geometry(s) for s in shapes]
        spheres = [bounding_sphere(s) for s in shapes]
        self.centres = np.array([c for c, _ in spheres]).reshape(-1, 3)
        self._centres4 = np.hstack([self.centres, np.ones((len(spheres), 1))])[:, :, None]  # homogeneous
        self.radii = np.array([r for _, r in spheres], dtype=float)
        wanted = {tuple(sorted(p)) for p in body_pairs}
        pa, pb = [], []
        for i in range(len(shapes)):
            for j in range(i + 1, len(shapes)):
                if tuple(sorted((self.bodies[i], self.bodies[j]))) in wanted:
                    pa.append(i)
                    pb.append(j)
        self.pa, self.pb = np.array(pa, dtype=int), np.array(pb, dtype=int)
        # plain ints: fast in the loops
        self._pairs = [(i, j, (int(self.bodies[i]), int(self.bodies[j]))) for i, j in zip(pa, pb, strict=True)]
        self._collide = [coal.ComputeCollision(self.geoms[i], self.geoms[j]) for i, j in zip(pa, pb, strict=True)]
        # a pair with a mesh is first tested on the meshes' convex hulls (which contain them): no
        # contact there, none on the meshes (on the UR5's gripper: 11 µs a pair against 37)
        hulls = [coal_hull(sh) for sh in shapes]
        hulled = [None if hulls[i] is None and hulls[j] is None else
                  (self.geoms[i] if hulls[i] is None else hulls[i], self.geoms[j] if hulls[j] is None else hulls[j])
                  for i, j in zip(pa, pb, strict=True)]
        self._hull_collide = [None if h is None else coal.ComputeCollision(*h) for h in hulled]
        self._hull_distance = [None if h is None else coal.ComputeDistance(*h) for h in hulled]
        self._distance = [coal.ComputeDistance(self.geoms[i], self.geoms[j]) for i, j in zip(pa, pb, strict=True)]
        self._T = (coal.Transform3s(), coal.Transform3s())
        self.pair_bodies = sorted({p[2] for p in self._pairs})  # the body pairs tested, a < b
        where = {p: k for k, p in enumerate(self.pair_bodies)}
        self._pair_index = np.array([where[p[2]] for p in self._pairs], dtype=int)

    @property
    def n_pairs(self) -> int:
        return len(self.pa)

    def part_poses(self, body_poses: np.ndarray) -> np.ndarray:
        """World poses (B, P, 4, 4) of every part from the bodies' poses (B, nb, 4, 4)."""
        return body_poses[:, self.bodies] @ self.placements

    def bounds(self, W: np.ndarray) -> np.ndarray:
        """Lower bounds (B, K) on the distance of each tested part pair (bounding spheres)."""
        c = (W @ self._centres4)[..., :3, 0]
        gap = np.linalg.norm(c[:, self.pa] - c[:, self.pb], axis=-1)
        return gap - self.radii[self.pa] - self.radii[self.pb]

    def _set(self, W: np.ndarray, b: int, k: int) -> tuple:
        Ta, Tb = self._T
        i, j, _ = self._pairs[k]
        A, B = W[b, i], W[b, j]
        Ta.setRotation(A[:3, :3])
        Ta.setTranslation(A[:3, 3])
        Tb.setRotation(B[:3, :3])
        Tb.setTranslation(B[:3, 3])
        return Ta, Tb

    def collide(self, body_poses: np.ndarray, parts: bool = False, margin: float = 0.0,
                only: np.ndarray | None = None) -> list[set[tuple[int, int]]]:
        """Per configuration, the set of (body a, body b) pairs in contact — or nearer than
        `margin` (coal's security margin) —; with `parts`, the (part a, part b) pairs instead
        (every part pair is then tested, not only until its bodies' first contact). `only`
        (B, part pairs) bool: per configuration, the part pairs (`pa`, `pb`) worth testing — a
        caller's finer broad phase, as the planner's spheres."""
        W = self.part_poses(body_poses)
        out: list[set[tuple[int, int]]] = [set() for _ in range(len(W))]
        if not self.n_pairs:
            return out
        near = self.bounds(W) <= margin
        if only is not None:
            near &= np.asarray(only, bool)
        near = np.argwhere(near)
        req = self._coal.CollisionRequest()
        req.security_margin = float(margin)
        res = self._coal.CollisionResult()
        for b, k in near.tolist():
            i, j, pair = self._pairs[k]
            if parts:
                pair = (i, j)
            elif pair in out[b]:
                continue
            poses = self._set(W, b, k)
            hull = self._hull_collide[k]
            if hull is not None:
                res.clear()
                if not hull(*poses, req, res):
                    continue
            res.clear()
            if self._collide[k](*poses, req, res):
                out[b].add(pair)
        return out

    def distance(self, body_poses: np.ndarray, only: np.ndarray | None = None, *, parts: np.ndarray | None = None,
                 below: float = np.inf) -> list[Contact | None]:
        """Per configuration, the smallest signed distance over the tested pairs, or over those
        `only` (a bool per body pair, `pair_bodies`' order) keeps, or — per configuration —
        those `parts` (B, part pairs) keeps; None when there is no pair, or (with `below`) when
        no kept pair is nearer than `below` (the search stops at it: cheaper)."""
        W = self.part_poses(body_poses)
        keep = np.ones(self.n_pairs, bool) if only is None else np.asarray(only, bool)[self._pair_index]
        if parts is not None:
            keep = keep & np.asarray(parts, bool)
        if not keep.any():
            return [None] * len(W)
        lb = np.where(keep, self.bounds(W), np.inf)  # a pair left out is never nearer
        order = np.argsort(lb, axis=1)
        bound = np.take_along_axis(lb, order, axis=1)
        req = self._coal.DistanceRequest()
        res = self._coal.DistanceResult()
        out: list[Contact | None] = []
        for b, (ks, lbs) in enumerate(zip(order.tolist(), bound.tolist(), strict=True)):
            best, where, pts = float(below), None, None
            for k, low in zip(ks, lbs, strict=True):
                if low >= best:
                    break
                poses = self._set(W, b, k)
                hull = self._hull_distance[k]
                if hull is not None and best < np.inf:  # the hulls' distance is at most the meshes'
                    res.clear()
                    if float(hull(*poses, req, res)) >= best:
                        continue
                res.clear()
                d = float(self._distance[k](*poses, req, res))
                if d < best:
                    best, where = d, k
                    pts = np.array([res.getNearestPoint1(), res.getNearestPoint2()])
            if where is None or pts is None:  # (both set by the nearest pair)
                out.append(None)
                continue
            i, j, _ = self._pairs[where]
            out.append(Contact(best, (i, j), pts))
        return out
