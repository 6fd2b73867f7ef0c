"""Tables of the exact distance of a robot's self pairs that are always close, for the planner's
clearance bound.

Two links of one robot with one or two joints between them (a wrist: the Panda's forearm and its
hand, ~2 cm apart at the median pose) sit within any sphere model's slack of each other: the
spheres cannot tell such a pair apart, so coal would be asked about it at nearly every state.
But their relative pose depends on those joints alone, so their distance d(q_j, q_k) is a
function of one or two variables: coal measures it once on a grid over the joint box, and at a
state q the core takes the nearest grid point's value less Σ c_j |q_j − g_j| (`PairTable`,
src/core/clearance.hpp), c_j the most any point of the links beyond joint j moves per unit of
it (`sweep.motion_bounds`: a distance between rigid bodies changes no faster than they move).

The grid spacing makes every c_j·step_j equal, with at most `CELLS` points: the bound's slack is
then Σ c_j·step_j / 2 (~9 mm on the Panda's wrist). A table is made once per robot and pair in
a process (the planner rebuilds its bound for every scene; the robot is the same).

Any lower bound on the distance at a grid point serves as well as the exact one (the argument
above only needs d ≤ the distance there), so the grid is first measured by the core on the pair's
convex pieces (GJK, microseconds a point; within 0–2 mm of coal's distance at the median on the
UR5's and the Panda's wrists), and coal's exact mesh distance is asked only where the pieces
touch — the states a table is for, where meshes are apart but their pieces are not. The UR5's
four tables took 15 s of coal on every point, 1.5 s this way.

Which pairs: `scene.bound` asks for the pairs its spheres leave touching at most of a sample of
states (`ClearanceBound.build`); a pair with more joints between, or of two robots, has none.

>>> import numpy as np
>>> step, m = grid(np.array([0.0, -1.0]), np.array([2.0, 1.0]), np.array([0.2, 0.1]), cells=800)
>>> [round(float(x), 4) for x in step], m.tolist(), round(float(0.2 * step[0]), 4) == round(float(0.1 * step[1]), 4)
([0.05, 0.1], [41, 21], True)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .pairrate import pair_rates
from .query import joint_batch
from .sweep import motion_bounds

CELLS = 6_000  # grid points of a table at most (measured once: ~0.5 s for the Panda's wrist, coal on 11 % of them)


@dataclass(frozen=True)
class Table:
    """Self pair `pair` (its index among the bound's self pairs) over the state's joints `joints`:
    the grid origin `lo`, spacing `step`, Lipschitz constants `c` and distances `d` (one axis per
    joint)."""

    pair: int
    joints: tuple[int, ...]
    lo: np.ndarray
    step: np.ndarray
    c: np.ndarray
    d: np.ndarray


_MADE: dict[tuple, tuple[weakref.ref, np.ndarray, np.ndarray, np.ndarray]] = {}


def grid(lo: np.ndarray, hi: np.ndarray, c: np.ndarray, cells: int = CELLS) -> tuple[np.ndarray, np.ndarray]:
    """(step, points per joint) of a grid over [lo, hi] with c_j·step_j all equal and at most
    about `cells` points (the nearest point is then within step_j / 2 along each joint)."""
    span = np.maximum(hi - lo, 1e-12)
    c = np.maximum(c, 1e-12)
    each = (np.prod(span * c) / cells) ** (1.0 / len(span))  # c_j · step_j
    step = each / c
    return step, np.ceil(span / step - 1e-9).astype(int) + 1


def joint_box(robot: Any) -> np.ndarray:
    """(2, n): the robot's joint limits, a free end taken at ±π (the box tables and probes span)."""
    return np.stack([np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -math.pi),
                     np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], math.pi)])


def tables(scene: Any, robots: tuple[str, ...], self_of: list[tuple[int, int]], wanted: list[int],
           lower: Callable[[np.ndarray, int], np.ndarray] | None = None) -> list[Table]:
    """The tables of the self pairs `wanted` (indices into `self_of`, the bound's self pairs as
    scene body pairs) that have one or two joints of one robot between their bodies; the moving
    robots' joint values are `robots`' one after the other in a state. `lower(Q, k)`, if given:
    per state of Q (the moving robots' joint values), a lower bound on pair k's distance (the
    core's, on its convex pieces) — coal is then asked only where it is not positive."""
    comp = scene.compiled()
    q0, out = 0, []
    offsets = {}
    for r in robots:
        offsets[r] = q0
        q0 += scene.robots[r].robot.n
    for k in wanted:
        a, b = self_of[k]
        owner = [r for r in robots if comp.slices[r].start <= a < comp.slices[r].stop
                 and comp.slices[r].start <= b < comp.slices[r].stop]
        if not owner:
            continue  # two robots' links: no joints of one chain between them
        r = owner[0]
        ka, kb = sorted((a - comp.slices[r].start, b - comp.slices[r].start))
        if not 1 <= kb - ka <= 2:
            continue
        joints = tuple(range(ka, kb))  # body k is link k: joints ka+1 … kb (1-based) move b against a
        at = offsets[r]
        bound = None if lower is None else (lambda Q, k=k, r=r, at=at: lower(_group_states(scene, robots, r, at, Q), k))
        made = _table(scene, r, (a, b), joints, bound)
        if made is not None:
            lo, step, c, d = made
            out.append(Table(k, tuple(offsets[r] + j for j in joints), lo, step, c, d))
    return out


def _group_states(scene: Any, robots: tuple[str, ...], name: str, at: int, Q: np.ndarray) -> np.ndarray:
    """States of the moving robots (theirs side by side) with robot `name`'s joints from Q, the
    others at their scene q (a self pair of `name` depends on its joints alone)."""
    rest = np.concatenate([scene.robots[r].q for r in robots])
    out = np.repeat(rest[None], len(Q), axis=0)
    out[:, at:at + Q.shape[1]] = Q
    return out


def _table(scene: Any, name: str, pair: tuple[int, int], joints: tuple[int, ...],
           lower: Callable[[np.ndarray], np.ndarray] | None = None):
    """(lo, step, c, d) for one pair, made or remembered; None when a joint has no finite range.
    `lower(Q)`: a lower bound on the pair's distance at robot `name`'s states Q, or None (coal
    everywhere)."""
    entry = scene.robots[name]
    robot = entry.robot
    idx = list(joints)
    if not np.all(robot.revolute[idx] | np.isfinite(robot.limits[idx]).all(axis=1)):
        return None  # a slide without limits: no finite grid
    box = joint_box(robot)
    lo, hi = box[0, idx], box[1, idx]
    comp = scene.compiled()
    start = comp.slices[name].start
    key = (id(robot), float(entry.scale), pair[0] - start, pair[1] - start, joints, lo.tobytes(), hi.tobytes())
    known = _MADE.get(key)
    if known is not None and known[0]() is robot:
        return (lo, *known[1:])
    # the pair's own rates where they are smaller (a base about its pan axis: its radius, not the arm's reach)
    geom = scene.geometry(name)
    c = np.minimum(motion_bounds(entry, geom, box)[list(joints)], pair_rates(entry, geom, *sorted((pair[0] - start, pair[1] - start))))
    step, m = grid(lo, hi, c)
    axes = [lo[i] + step[i] * np.arange(m[i]) for i in range(len(joints))]
    Q = np.repeat(np.clip(entry.q, box[0], box[1])[None], int(np.prod(m)), axis=0)
    mesh = np.meshgrid(*axes, indexing="ij")
    for i, j in enumerate(joints):
        Q[:, j] = mesh[i].ravel()
    col = comp.collider
    only = np.array([p == tuple(sorted(pair)) for p in col.pair_bodies])
    d = np.full(len(Q), -np.inf) if lower is None else lower(Q)
    ask = np.flatnonzero(~(d > 0))  # coal where the pieces do not show the pair apart
    for a in range(0, len(ask), 2048):
        at = ask[a:a + 2048]
        poses = comp.body_poses(joint_batch(scene, {name: Q[at]})[0], len(at))
        d[at] = [f.distance for f in col.distance(poses, only)]
    d = d.reshape(tuple(m))
    _MADE[key] = (weakref.ref(robot), step, c, d)
    return lo, step, c, d


__all__ = ["Table", "tables", "grid", "joint_box", "CELLS"]
