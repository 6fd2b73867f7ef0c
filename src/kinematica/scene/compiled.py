"""A scene turned into one `Collider`: every robot's links and every obstacle as numbered
bodies, the body pairs to test (self pairs not excluded, every pair across robots, robots
against obstacles — never the scene's allowed pairs, nor obstacles against each other), and
the world poses of the bodies at a batch of configurations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from .collider import Collider
from .linkgeom import body_poses
from .shapes import scaled


@dataclass(frozen=True)
class Compiled:
    """A scene turned into one `Collider`: body b's full name `names[b]`; robot r's bodies are
    `slices[r]`; obstacles' poses are fixed in `poses`; part p's link `part_names[p]`
    ("robot/link", the obstacle's name)."""

    collider: Collider
    names: tuple[str, ...]
    slices: Mapping[str, slice]
    poses: np.ndarray
    entries: tuple[Any, ...]
    part_names: tuple[str, ...] = ()

    @classmethod
    def build(cls, scene: Any) -> Compiled:
        names: list[str] = []
        slices, shapes, bodies, places, pairs, links = {}, [], [], [], [], []
        for r in scene._robots.values():
            geom, ex = scene._geometry_of(r)
            start = len(names)
            slices[r.name] = slice(start, start + len(geom.names))
            names += [f"{r.name}/{n}" for n in geom.names]
            s = r.scale
            for p in geom.parts:
                T = p.placement.copy()
                T[:3, 3] *= s
                shapes.append(scaled(p.shape, s))
                bodies.append(start + p.body)
                places.append(T)
                links.append(f"{r.name}/{p.link or geom.names[p.body]}")
            shaped = geom.bodies_with_geometry()
            pairs += [(start + a, start + b) for i, a in enumerate(shaped) for b in shaped[i + 1:] if (a, b) not in ex]
        robot_bodies = sorted(set(bodies))
        owner = {b: n.split("/")[0] for b, n in enumerate(names)}
        pairs += [(a, b) for i, a in enumerate(robot_bodies) for b in robot_bodies[i + 1:] if owner[a] != owner[b]]
        poses = [np.eye(4)] * len(names)
        for o in scene._obstacles.values():
            b = len(names)
            names.append(o.name)
            poses.append(o.pose)
            shapes.append(o.shape)
            bodies.append(b)
            places.append(np.eye(4))
            links.append(o.name)
            pairs += [(a, b) for a in robot_bodies]
        index = {n: i for i, n in enumerate(names)}
        allowed = {tuple(sorted((index[x], index[y]))) for a, b in scene._allowed
                   for x in scene._bodies_named(a) for y in scene._bodies_named(b)}
        pairs = [p for p in pairs if tuple(sorted(p)) not in allowed]
        col = Collider(shapes, np.array(bodies, dtype=int), np.array(places).reshape(-1, 4, 4), pairs)
        return cls(col, tuple(names), MappingProxyType(slices), np.array(poses).reshape(-1, 4, 4),
                   tuple(scene._robots.values()), tuple(links))

    def body_poses(self, qs: Mapping[str, np.ndarray], B: int) -> np.ndarray:
        """World poses (B, bodies, 4, 4): each robot at qs[name] (B, n), obstacles fixed."""
        P = np.empty((B,) + self.poses.shape)
        P[:] = self.poses
        for r in self.entries:
            q = qs[r.name]
            P[:, self.slices[r.name]] = body_poses(r.robot, q[0] if B == 1 else q, r.base, r.scale)
        return P
