"""A lower bound on the clearance of robots moving in a scene, computed by the compiled core:
what a planner asks of thousands of states before the exact check (coal) looks at the few it
leaves.

`ClearanceBound.build(scene, robots)` packs, once, the moving robots' bodies as covering
spheres (`spheres.cover`), the scene's obstacles and the other robots' bodies (held at their
scene q) as things — exact boxes, spheres, capsules and cylinders; a mesh as its covering
spheres — and the scene's body pairs that involve a moving robot (the same pairs `scene.check`
tests: each robot's own non-excluded pairs, the moving robots against each other and against
every other robot and obstacle, minus the allowed ones). `bound(Q)` is then, per state, a number
never above the scene's signed distance over those pairs (src/core/clearance.hpp): a state it
finds positive is free without asking coal. It is a snapshot of the scene as it was built
(`Scene.revision` tells when it changed): the planner's checker makes it again after a change.

>>> import kinematica as km, numpy as np
>>> scene = km.Scene.load("kuka-table")
>>> b = ClearanceBound.build(scene, "kuka")
>>> q = scene.robots["kuka"].q
>>> bool(b.bound(q[None])[0] <= scene.distance({"kuka": q}).min_distance + 1e-12)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core import Clearance
from ..kinematics.handle import chain_handle
from .pairtable import joint_box, tables
from .pieces import Piece, placed_pieces
from .shapes import SceneError, Shape
from .spheres import placed

KINDS = {"sphere": 0, "box": 1, "capsule": 2, "cylinder": 3}  # src/core/clearance.hpp: Primitive
PROBES = 256  # states drawn to find the self pairs the spheres and pieces cannot separate
CLOSE = 0.2  # … by `refine` at this fraction of them or more: tabulated (scene/pairtable.py)


def _thing(shape: Shape, pose: np.ndarray) -> tuple[list[int], list[np.ndarray], list[np.ndarray]]:
    """(kinds, world poses, sizes) of one fixed part: a primitive as itself, a mesh as its spheres."""
    if shape.kind == "mesh":
        centres, radii = placed(shape, pose)
        poses = [np.block([[np.eye(3), c[:, None]], [np.zeros((1, 3)), np.ones((1, 1))]]) for c in centres]
        return [0] * len(radii), poses, [np.array([r, 0.0, 0.0]) for r in radii]
    if shape.kind == "box":
        size = 0.5 * np.asarray(shape.box_size, dtype=float)
    elif shape.kind == "sphere":
        size = np.array([shape.round_radius, 0.0, 0.0])
    else:
        size = np.array([shape.round_radius, 0.5 * shape.axis_length, 0.0])
    return [KINDS[shape.kind]], [pose], [size]


def _part_pairs(col: Any, self_of: list[tuple[int, int]], thing_of: list[tuple[int, int]]) -> np.ndarray:
    """(core pairs, collider part pairs) 0/1: the part pairs each core pair stands for — a self
    pair (bodies a, b) all of theirs; a thing pair (moving body, the part the thing came from)
    that part's pairs with the body's parts."""
    ba, bb = col.bodies[col.pa], col.bodies[col.pb]
    M = np.zeros((len(self_of) + len(thing_of), col.n_pairs), np.uint8)
    for r, (a, b) in enumerate(self_of):
        M[r] = ((ba == a) & (bb == b)) | ((ba == b) & (bb == a))
    for r, (body, part) in enumerate(thing_of, start=len(self_of)):
        M[r] = ((col.pa == part) & (bb == body)) | ((col.pb == part) & (ba == body))
    return M


def _tabulate(core: Any, scene: Any, names: tuple[str, ...], self_of: list[tuple[int, int]]) -> None:
    """Give the core an exact table (scene/pairtable.py) for each self pair its spheres leave
    within `core.refine` of touching at `CLOSE` of `PROBES` states drawn in the joint box (a wrist's
    links: always a centimetre or two apart, nearer than a planner's resolution)."""
    if not self_of:
        return
    lo, hi = np.concatenate([joint_box(scene.robots[r].robot) for r in names], axis=1)
    Q = np.random.default_rng(0).uniform(lo, hi, (PROBES, len(lo)))  # (fixed: the same tables every time)
    # on the spheres alone: a pair they leave near needs GJK on its pieces at nearly every state
    # of a plan (the Panda's forearm and hand: 52 piece pairs), where a table answers at once
    touching = core.pairs_near(Q, max(float(core.refine), 0.0), pieces=False)[:, :len(self_of)].mean(axis=0)
    for t in tables(scene, names, self_of, [k for k in range(len(self_of)) if touching[k] >= CLOSE],
                    lambda Q, k: core.pair_bounds(np.ascontiguousarray(Q, dtype=float), k)):
        core.add_table(t.pair, list(t.joints), t.lo.tolist(), t.step.tolist(), t.c.tolist(), t.d)


class _Pieces:
    """The convex pieces of the moving bodies (`body`, per body a list) and of the things (`thing`,
    one each), as `Clearance.set_pieces` takes them: the things' after the bodies'."""

    def __init__(self, bodies: int) -> None:
        self.body: list[list[Piece]] = [[] for _ in range(bodies)]
        self.thing: list[Piece] = []

    def give(self, core: Any) -> None:
        own = [p for b in self.body for p in b]
        shared = {id(p): p for p in self.thing}  # (one piece per mesh, however many spheres stand for it)
        order = own + list(shared.values())
        index = {id(p): len(own) + i for i, p in enumerate(shared.values())}
        piece_first = np.concatenate([[0], np.cumsum([len(b) for b in self.body])]).astype(int).tolist()
        vfirst = np.concatenate([[0], np.cumsum([len(p.vertices) for p in order])]).astype(int).tolist()
        verts = np.concatenate([p.vertices for p in order]) if order else np.zeros((0, 3))
        # the hull edges, for the core's support climbs: a piece without them lists no neighbours
        counts = [np.diff(p.edges[0]) if p.edges is not None else np.zeros(len(p.vertices), int) for p in order]
        edge_first = np.concatenate([[0], np.cumsum(np.concatenate(counts))]) if order else np.zeros(1)
        edge_next = np.concatenate([p.edges[1] for p in order if p.edges is not None] or [np.zeros(0)])
        core.set_pieces(piece_first, vfirst, np.ascontiguousarray(verts, dtype=float), [p.radius for p in order],
                        [index[id(p)] for p in self.thing], edge_first.astype(int).tolist(),
                        edge_next.astype(int).tolist())


@dataclass(frozen=True)
class ClearanceBound:
    """The core's clearance model of robots moving together in a scene — one, or a group planned
    in one joint space (module text); a state is their joint values one after the other.
    `radius` is the largest covering sphere's, in the scene's length unit."""

    core: Any
    robots: tuple[str, ...]
    radius: float
    pair_of: np.ndarray  # (core pairs, the collider's part pairs): 1 where a core pair stands for a part pair

    @classmethod
    def build(cls, scene: Any, robots: str | tuple[str, ...], refine: float = 0.0) -> ClearanceBound:
        """The model of `robots` in `scene` as it is now; a pair whose spheres come within `refine`
        (scene length unit) of touching is measured again on its convex pieces (`pieces.piece`)."""
        names = (robots,) if isinstance(robots, str) else tuple(robots)
        comp = scene.compiled()
        col = comp.collider
        slices = [comp.slices[r] for r in names]
        local, k = {}, 0  # scene body → the group's body number
        for sl in slices:
            for b in range(sl.start, sl.stop):
                local[b], k = k, k + 1
        at = comp.body_poses({r.name: r.q[None] for r in comp.entries}, 1)[0]  # everything else where it stands
        spheres: list[list[np.ndarray]] = [[] for _ in range(k)]
        pieces = _Pieces(k)
        things: dict[int, list[int]] = {}  # body of another robot or an obstacle → its things
        kinds, poses, sizes, source = [], [], [], []  # (source: the collider part a thing stands for)
        for part, (shape, body) in enumerate(zip(col.shapes, col.bodies, strict=True)):
            if int(body) in local:
                c, r = placed(shape, col.placements[part])
                spheres[local[int(body)]].append(np.column_stack([c, r]))
                pieces.body[local[int(body)]] += placed_pieces(shape, col.placements[part], slabs=True)
                continue
            pose = at[body] @ col.placements[part]
            kk, p, z = _thing(shape, pose)
            things.setdefault(int(body), []).extend(range(len(kinds), len(kinds) + len(kk)))
            pieces.thing += placed_pieces(shape, pose) * len(kk)  # (a mesh's spheres share its one piece)
            source += [part] * len(kk)
            kinds += kk
            poses += p
            sizes += z
        self_pairs, thing_pairs, self_of, thing_of = [], [], [], []  # (…_of: what each stands for in the scene)
        for a, b in col.pair_bodies:
            if a in local and b in local:
                self_pairs += [local[a], local[b]]
                self_of.append((a, b))
            elif a in local or b in local:
                body, other = (a, b) if a in local else (b, a)
                for t in things.get(other, ()):
                    thing_pairs += [local[body], t]
                    thing_of.append((body, source[t]))
        S = [np.concatenate(s) if s else np.zeros((0, 4)) for s in spheres]
        first = np.concatenate([[0], np.cumsum([len(s) for s in S])]).astype(int).tolist()
        allS = np.concatenate(S) if first[-1] else np.zeros((0, 4))
        entries = [scene.robots[r] for r in names]
        core = Clearance([chain_handle(e.robot)[0] for e in entries],
                         np.array([np.asarray(e.base, dtype=float) for e in entries]),
                         [float(e.scale) for e in entries], first, allS, kinds,
                         np.array(poses).reshape(-1, 4, 4), np.array(sizes).reshape(-1, 3), self_pairs, thing_pairs)
        pieces.give(core)
        core.refine = float(refine)
        _tabulate(core, scene, names, self_of)
        return cls(core, names, float(allS[:, 3].max()) if len(allS) else 0.0, _part_pairs(col, self_of, thing_of))

    def bound(self, Q: np.ndarray, cap: float = np.inf) -> np.ndarray:
        """Per state of Q (..., n) (the group's joint values, robot after robot): a lower bound on
        the robots' clearance (scene length unit; inf with nothing to test), or `cap` where it is
        at least that (found sooner: pairs that far apart are not measured)."""
        try:
            return self.core.clearances(np.ascontiguousarray(Q, dtype=float), float(cap))
        except ValueError:  # the core found NaN or infinity
            raise SceneError(f"q[{', '.join(map(repr, self.robots))}]: contains NaN or infinity") from None

    def near_pairs(self, Q: np.ndarray, margin: float) -> np.ndarray:
        """Per state of Q (B, n), per part pair of the scene's collider (`Collider.pa`, `pb`): whether
        the spheres bring it within `margin` — the pairs coal must look at; the others are at least
        `margin` clear (and a pair not involving the moving robots is never near)."""
        try:
            flags = self.core.pairs_near(np.ascontiguousarray(np.atleast_2d(Q), dtype=float), float(margin))
        except ValueError:
            raise SceneError(f"q[{', '.join(map(repr, self.robots))}]: contains NaN or infinity") from None
        return (flags.astype(np.uint8) @ self.pair_of) > 0

    def edge_clear(self, qa: np.ndarray, qb: np.ndarray, weights: np.ndarray, resolution: float,
                   depth: int, lo: np.ndarray | None = None, hi: np.ndarray | None = None) -> tuple[bool, int]:
        """(whether the bound alone proves the straight joint motion qa → qb free — sampled and
        certified as plan/edges.py states, in one core call — and the states it bounded); with a
        box lo ≤ q ≤ hi, (False, 0) when an end lies outside it."""
        box = (None, None) if lo is None or hi is None else \
            (np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float))
        return self.core.edge_clear(np.ascontiguousarray(qa, dtype=float), np.ascontiguousarray(qb, dtype=float),
                                    np.ascontiguousarray(weights, dtype=float), float(resolution), int(depth), *box)


__all__ = ["ClearanceBound"]
