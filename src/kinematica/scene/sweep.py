"""A motion checked for collisions along its samples, finely enough that no link moves more
than a stated distance between two checks.

Between two samples of a trajectory the joints are taken to move in a straight line (the
samples are what the robot is sent). On such a step a point of link k moves at most
Σ_j c_j |Δq_j| (j ≤ k): c_j = R_j for a revolute joint, with R_j a bound on the distance of
any point of the links beyond joint j from its axis (the lengths between joint origins plus
each part's extent; prismatic travel included), and c_j = 1 for a prismatic one. Each step
is cut into ceil(bound / resolution) pieces, so consecutive checks are at most `resolution`
apart for every point of every link (scene length unit). A contact that begins and ends
between two checks moved every point less than `resolution` and can be missed; one that
lasts longer cannot.

>>> import kinematica as km, numpy as np
>>> s = km.Scene()
>>> _ = s.add_robot("arm", "puma560")
>>> tr = km.trajectory.joint([np.zeros(6), np.full(6, 0.5)], duration=1.0, robot=km.load("puma560"))
>>> check_trajectory(s, {"arm": tr}, resolution=0.01).colliding
False
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import spatial
from ..bounds import SAMPLES
from .query import joint_batch
from .shapes import SceneError

CHUNK = 512  # configurations checked per batch: the first collision stops the rest


@dataclass(frozen=True)
class SweepReport:
    """colliding; time: the first checked time found colliding (s; None when clear);
    clear_until: the last checked time before it (all checks up to it were clear);
    collisions: the pairs colliding at `time`; checks: configurations checked; resolution:
    the largest motion of any link point between two checks (scene length unit)."""

    colliding: bool
    time: float | None
    clear_until: float | None
    collisions: list[tuple[str, str]]
    checks: int
    resolution: float
    length_unit: str
    q: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __str__(self) -> str:
        res = f"{self.checks} checks, no link moving more than {self.resolution:g} {self.length_unit} between them"
        if not self.colliding:
            return f"clear ({res})"
        pairs = "; ".join(f"{a} with {b}" for a, b in self.collisions)
        return f"first collision at t = {self.time:.6g} s: {pairs} (clear until {self.clear_until:.6g} s; {res})"


def motion_bounds(entry: Any, geom: Any, q: np.ndarray) -> np.ndarray:
    """Per joint j, c_j (scene length unit per rad or per robot length unit): how far any
    point of the links beyond joint j can move per unit of q_j, over configurations q (T, n)."""
    robot = entry.robot
    n = robot.n
    hop = np.array([np.linalg.norm((robot.after[i] @ robot.before[i + 1])[:3, 3]) if i < n - 1 else
                    np.linalg.norm((robot.after[i] @ robot.tool)[:3, 3]) for i in range(n)])
    # prismatic reach; a helical joint's slide pitch·θ
    travel = np.abs((q + robot.offsets) * np.where(robot.revolute, robot.pitch, 1.0)).max(axis=0)
    extent = np.zeros(n + 1)  # per body: farthest part point from its joint's origin
    from .shapes import bounding_sphere
    for p in geom.parts:
        c, rho = bounding_sphere(p.shape)
        start = np.zeros(3) if p.body == 0 else spatial.inv(robot.after[p.body - 1])[:3, 3]
        extent[p.body] = max(extent[p.body], np.linalg.norm(p.placement[:3, :3] @ c + p.placement[:3, 3] - start) + rho)
    c = np.empty(n)
    for j in range(n):
        if not robot.revolute[j]:
            c[j] = 1.0
            continue
        # joint j+1 (1-based) origin to body k's joint origin: the hops between, plus prismatic travel
        reach = [np.sum(hop[j:k - 1]) + np.sum(travel[j + 1:k]) + extent[k] for k in range(j + 1, n + 1)]
        c[j] = (max(reach) + abs(robot.pitch[j])) * entry.scale  # a helical joint also slides
    return np.where(robot.revolute, c, entry.scale)


def _samples(motion: Any, entry: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(motion, "t") and hasattr(motion, "q"):
        t, q = motion.t, motion.q
    elif isinstance(motion, (tuple, list)) and len(motion) == 2:
        t, q = motion
    else:
        raise SceneError(f"{name}: expected a Trajectory or a (t, q) pair, got {type(motion).__name__}")
    t, q = np.asarray(t, dtype=float), np.asarray(q, dtype=float)
    n = entry.robot.n
    if q.ndim != 2 or q.shape[1] != n or t.shape != (q.shape[0],):
        raise SceneError(f"{name}: expected t (T,) and q (T, {n}) for {entry.robot.name}, got {t.shape} and {q.shape}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(q))):
        raise SceneError(f"{name}: t or q contains NaN or infinity")
    if np.any(np.diff(t) <= 0):
        raise SceneError(f"{name}: times must increase strictly")
    return t, q


def _interp(t: np.ndarray, tk: np.ndarray, qk: np.ndarray) -> np.ndarray:
    """q at times t, straight lines between samples, held before the first and after the last."""
    return np.stack([np.interp(t, tk, qk[:, j]) for j in range(qk.shape[1])], axis=-1)


def _pieces(step: np.ndarray, resolution: float, unit: str) -> np.ndarray:
    """Checks per step: ceil(step / resolution), at least 1; SceneError in words when the total
    is over `bounds.SAMPLES` (counted in floats first: a tiny resolution overflows an int)."""
    with np.errstate(over="ignore"):
        k = np.maximum(1.0, np.ceil(step / resolution - 1e-12))
    total, path, room = float(np.sum(k)) + 1.0, float(np.sum(step)), SAMPLES.value - 1 - step.size
    if not total <= SAMPLES.value:
        hint = (f"use a resolution of at least {path / room:.3g} {unit}" if room > 0 else
                "the trajectory alone has more samples than that: check it in parts")
        raise SceneError(f"resolution = {resolution:g} {unit} asks for {total:.3g} checks along the trajectory "
                         f"(its links' points move up to {path:.4g} {unit} in all), over the limit of "
                         f"{SAMPLES.value:,} {SAMPLES.what} ({SAMPLES.name}): {hint}")
    return k.astype(np.int64)


def check_trajectory(scene: Any, motions: Mapping[str, Any], q: Mapping[str, ArrayLike] | None = None, *,
                     resolution: float | None = None) -> SweepReport:
    """Check the robots' motions (dict robot name → `Trajectory` or (t, q)) against the scene,
    the other robots held at q (default their scene configuration). resolution: the most any
    link point may move between checks (scene unit; default half the smallest robot link
    radius, see the module text). Returns a `SweepReport` with the first colliding time."""
    if not motions:
        raise SceneError("check_trajectory: give at least one robot's motion")
    both = sorted(set(q or {}) & set(motions))
    if both:
        raise SceneError(f"check_trajectory: {both[0]!r} has a motion; q holds the robots that stay still")
    static, lead = joint_batch(scene, {k: v for k, v in (q or {}).items()})
    if lead:
        raise SceneError("check_trajectory: q holds one configuration per robot, not a batch")
    for name in motions:
        if name not in scene.robots:
            raise SceneError(f"unknown robot {name!r}: the scene has {', '.join(scene.robots)}")
    if resolution is None:
        radii = [scene.geometry(r).radius * e.scale for r, e in scene.robots.items() if scene.geometry(r).radius]
        resolution = 0.5 * min(radii) if radii else None
    if resolution is None or not (isinstance(resolution, (int, float)) and math.isfinite(resolution) and resolution > 0):
        raise SceneError(f"resolution must be a positive finite length (scene unit), got {resolution!r}")
    given = {name: _samples(m, scene.robots[name], name) for name, m in motions.items()}
    grid = np.unique(np.concatenate([t for t, _ in given.values()]))
    at_grid = {name: _interp(grid, t, qk) for name, (t, qk) in given.items()}
    step = np.zeros(max(len(grid) - 1, 0))
    for name, qg in at_grid.items():
        c = motion_bounds(scene.robots[name], scene.geometry(name), qg)
        step = np.maximum(step, np.abs(np.diff(qg, axis=0)) @ c)
    pieces = _pieces(step, float(resolution), scene.length_unit)
    total = int(pieces.sum()) + 1
    times = np.concatenate([np.linspace(grid[i], grid[i + 1], k, endpoint=False) for i, k in enumerate(pieces)]
                           + [grid[-1:]]) if len(grid) > 1 else grid
    fixed = {k: v[0] for k, v in static.items() if k not in motions}
    for start in range(0, total, CHUNK):
        tt = times[start:start + CHUNK]
        qs = {**fixed, **{name: _interp(tt, grid, qg) for name, qg in at_grid.items()}}
        rep = scene.check(qs)
        hit = np.flatnonzero(np.atleast_1d(rep.colliding))
        if hit.size:
            i = start + int(hit[0])
            prev = float(times[i - 1]) if i > 0 else None
            at = {name: _interp(times[i:i + 1], grid, qg)[0] for name, qg in at_grid.items()}
            return SweepReport(True, float(times[i]), prev, list(np.atleast_1d(rep.collisions)[hit[0]]),
                               i + 1, float(resolution), scene.length_unit, at)
    return SweepReport(False, None, None, [], total, float(resolution), scene.length_unit)
