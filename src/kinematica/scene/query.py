"""`scene.check(q)` and `scene.distance(q)`: what collides, and how far apart things are.

q is a dict robot name → joint values (n,) or a batch (..., n) (rad, or the robot's length
unit for prismatic joints); a robot left out stays at its scene configuration, and the
batches of the robots given must have the same leading shape (one robot may give a single
configuration against another's batch). Names in the answers: "robot/link" or the obstacle's
name, in the order the scene lists them.

>>> import kinematica as km, numpy as np
>>> s = km.Scene(length_unit="mm")
>>> _ = s.add_robot("arm", "braccio")
>>> tool = km.fk("braccio", km.load("braccio").q_home)[:3, 3]
>>> _ = s.add_obstacle("ball", "sphere", pose=km.spatial.transl(tool), radius=5)
>>> s.check().collisions
[('arm/gripper', 'ball')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import QUERY, count
from ..errors import InputTypeError
from .shapes import SceneError

CHUNK = 2048  # configurations per pass of the engine: its arrays (128 B per part and body each) stay small


def joint_batch(scene: Any, q: Mapping[str, ArrayLike] | None) -> tuple[dict[str, np.ndarray], tuple[int, ...]]:
    """({robot: (B, n)}, leading shape) of a query's q; SceneError on unknown names, wrong
    joint counts, NaN, or batches that do not match."""
    q = {} if q is None else q
    if not isinstance(q, Mapping):
        raise SceneError(f"q: expected a dict robot name → joint values, got {type(q).__name__}")
    for name in q:
        if name not in scene.robots:
            raise SceneError(f"q: unknown robot {name!r}: the scene has {', '.join(scene.robots) or 'no robots'}")
    arrays, shape = {}, None
    for name, entry in scene.robots.items():
        try:
            a = np.asarray(q.get(name, entry.q), dtype=float)
        except (TypeError, ValueError):
            raise SceneError(f"q[{name!r}]: expected numbers, got {q[name]!r}") from None
        n = entry.robot.n
        if a.ndim == 0 or a.shape[-1] != n:
            raise SceneError(f"q[{name!r}]: {entry.robot.name} has {n} joints ({', '.join(entry.robot.joint_names)}); "
                             f"expected shape ({n},) or (..., {n}), got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise SceneError(f"q[{name!r}]: contains NaN or infinity")
        if a.ndim > 1:
            if shape is not None and a.shape[:-1] != shape[0]:
                raise SceneError(f"q[{name!r}]: batch shape {a.shape[:-1]} differs from q[{shape[1]!r}]'s {shape[0]}")
            shape = (a.shape[:-1], name)
        arrays[name] = a
    lead = shape[0] if shape else ()
    B = int(np.prod(lead)) if lead else 1
    count(B, "q: the batch's configurations", QUERY, minimum=0, error=SceneError)
    if not lead:
        return {k: v.reshape(1, -1) for k, v in arrays.items()}, lead
    return {k: np.broadcast_to(v, lead + v.shape[-1:]).reshape(B, v.shape[-1]) for k, v in arrays.items()}, lead


def _shaped(values: list, lead: tuple[int, ...]) -> Any:
    if not lead:
        return values[0]
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(lead)


@dataclass(frozen=True)
class CheckReport:
    """colliding: bool (an array over a batch); collisions: the colliding pairs of names,
    sorted (a list, or an object array of lists over a batch); shapes (with `check(q,
    shapes=True)`, else None): the same at the level of the links the touching shapes belong
    to — ("t/arm_1_link", "t/torso_fixed_column_link") where a URDF base folds that column into
    body "t/base"."""

    colliding: Any
    collisions: Any
    shapes: Any = None

    def __str__(self) -> str:
        if np.ndim(self.colliding):
            k = int(np.sum(self.colliding))
            return f"{k} of {np.size(self.colliding)} configurations collide"
        if not self.colliding:
            return "no collision"
        text = "collision: " + "; ".join(f"{a} with {b}" for a, b in self.collisions)
        if self.shapes and self.shapes != self.collisions:
            text += " (shapes of " + "; ".join(f"{a} with {b}" for a, b in self.shapes) + ")"
        return text


@dataclass(frozen=True)
class DistanceReport:
    """min_distance: smallest signed distance over the checked pairs (scene length unit;
    negative: penetration depth; inf when nothing is checked), pair: its two names, points
    (2, 3): the witness points on each (world frame) — arrays over a batch."""

    min_distance: Any
    pair: Any
    points: np.ndarray
    length_unit: str

    def words(self) -> str:
        """"left/forearm is 12 mm from table" (single configuration)."""
        if np.ndim(self.min_distance):
            raise InputTypeError("words() describes one configuration: index the batch first")
        if self.pair is None:
            return "nothing to check"
        a, b = self.pair
        d = float(self.min_distance)
        if d <= 0:
            return f"{a} touches {b}" + (f" ({-d:.4g} {self.length_unit} deep)" if d < 0 else "")
        return f"{a} is {d:.4g} {self.length_unit} from {b}"


def _chunks(qs: dict[str, np.ndarray], B: int):
    """(start, stop, the robots' q over configurations start … stop − 1) in passes of CHUNK."""
    for a in range(0, B, CHUNK):
        yield a, min(a + CHUNK, B), {k: v[a:a + CHUNK] for k, v in qs.items()}


def _name_pairs(pairs: set[tuple[int, int]], names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The named pairs, each in the scene's order (the lower number first), sorted, no repeats."""
    return sorted({(names[min(a, b)], names[max(a, b)]) for a, b in pairs})


def check(scene: Any, q: Mapping[str, ArrayLike] | None = None, *, shapes: bool = False,
          margin: float = 0.0) -> CheckReport:
    """Which pairs collide at q (see the module text); `shapes`: also which links' shapes touch
    (every near shape pair is then tested: slower on a batch); `margin` (scene length unit ≥ 0):
    pairs nearer than it count as colliding too (a padding, as MoveIt's). A batch is checked
    CHUNK configurations at a time, so memory stays bounded; an empty batch answers empty arrays."""
    if not (isinstance(margin, (int, float)) and np.isfinite(margin) and margin >= 0):
        raise SceneError(f"margin: expected a length ≥ 0 (scene length unit), got {margin!r}")
    qs, lead = joint_batch(scene, q)
    c = scene.compiled()
    B = int(np.prod(lead)) if lead else 1
    pairs: list = []
    touching: list = []
    for a, b, part in _chunks(qs, B):
        poses = c.body_poses(part, b - a)
        pairs += [_name_pairs(h, c.names) for h in c.collider.collide(poses, margin=margin)]
        if shapes:
            touching += [_name_pairs(h, c.part_names) for h in c.collider.collide(poses, parts=True, margin=margin)]
    if not lead:
        return CheckReport(bool(pairs[0]), pairs[0], touching[0] if shapes else None)
    colliding = np.array([bool(p) for p in pairs], dtype=bool).reshape(lead)
    return CheckReport(colliding, _shaped(pairs, lead), _shaped(touching, lead) if shapes else None)


def distance(scene: Any, q: Mapping[str, ArrayLike] | None = None, self_pairs: bool = True) -> DistanceReport:
    """The smallest distance at q, its pair and witness points (see the module text); with
    `self_pairs` False only between different bodies of the scene (robot ↔ obstacle, robot ↔
    robot), not between two links of one robot. In passes of CHUNK configurations, as `check`."""
    qs, lead = joint_batch(scene, q)
    c = scene.compiled()
    B = int(np.prod(lead)) if lead else 1
    owner = [n.split("/")[0] if "/" in n else n for n in c.names]
    only = None if self_pairs else np.array([owner[a] != owner[b] for a, b in c.collider.pair_bodies], bool)
    found = []
    for a, b, part in _chunks(qs, B):
        found += c.collider.distance(c.body_poses(part, b - a), only)
    d = np.array([np.inf if f is None else f.distance for f in found], dtype=float)
    pts = np.array([np.full((2, 3), np.nan) if f is None else f.points for f in found], dtype=float).reshape(-1, 2, 3)
    pairs = [None if f is None else (c.names[c.collider.bodies[f.parts[0]]], c.names[c.collider.bodies[f.parts[1]]])
             for f in found]
    if not lead:
        return DistanceReport(float(d[0]), pairs[0], pts[0], scene.length_unit)
    return DistanceReport(d.reshape(lead), _shaped(pairs, lead), pts.reshape(lead + (2, 3)), scene.length_unit)
