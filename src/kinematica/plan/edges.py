"""States and straight joint-space edges of one robot checked against a scene: sampled so that
no point of its links moves more than `resolution` between two checked states, and certified
free between them by the clearances found there.

On an edge q(s) = qa + s·(qb − qa), s ∈ [0, 1], a point of any link moves at most
L = Σ_j c_j |qb_j − qa_j|, with c_j the bound of `scene.sweep.motion_bounds`: for a revolute
joint the farthest any point of the links after it can be from its axis, for a prismatic one 1
(scene length unit per rad or per length unit). `motion_bounds` is taken over the corners of
the planning box (the joint limits), so one c serves every edge. The same L bounds how far a
link moves relative to any other link or obstacle (a link moves relative to an earlier link
only by the joints between them), so distances change by at most L along the edge.

The edge is sampled at k + 1 evenly spaced states, k = ceil(L / resolution), and the scene's
signed distance d (coal, exact) found at each. Between two neighbouring states i, i + 1, with
L_i the bound over that piece, nothing can touch if d_i + d_(i+1) > L_i: a contact at a
fraction t of the piece needs t·L_i ≥ d_i and (1 − t)·L_i ≥ d_(i+1). A piece that this does
not clear is bisected (its midpoint's distance found), down to `DEPTH` levels; a piece still
uncleared then counts as blocked. So an edge passed as free is free along its whole straight
motion, not only at its samples, and no checked states are more than `resolution` apart.

All the states of one edge (and each level of bisection) go to the scene in one batched query
(in chunks of `CHUNK`), not one call per state.

The distances need not be exact: any d_i at most the true distance proves the same, since the
true distance changes by at most L_i over the piece. So each state first gets the compiled
core's lower bound (`scene.bound.ClearanceBound`: the links as covering spheres, ~1/15 of
coal's cost). A state it leaves within m = MARGIN · resolution goes to coal's collision check
with that margin (a security margin: far cheaper than a distance), and one clear by m has
d_i ≥ m: with every piece's L_i ≤ resolution < 2m, two such ends clear their piece. Only the
few states within m of something get coal's exact distance (one in contact blocks the edge),
and a piece their distances do not clear is bisected as above. A state the bound finds positive
is free; one it does not goes to coal, so no answer differs from coal's alone.

The core tries every edge first, in one call (`ClearanceBound.edge_clear`, src/core/clearance.hpp),
with the same argument made pair by pair: the two sides of a pair move relative to each other by
at most L_p, the sum over only the joints between them (the Panda's forearm and hand: its two
wrist joints), so a pair that is always close but whose joints barely move still clears long
pieces. Over a piece, each side's motion is bounded more tightly still from its ends: a point
moves at Σ_j ρ_j |Δq_j|, ρ_j its distance from joint j's axis, which is known at the piece's ends
(c_j is the farthest it could be anywhere) up to how far the joints after j move the point along
the piece. It measures the grid above coarse to fine — the middle grid state of any piece its ends
do not clear — so an edge through open space takes a few states, a blocked one is found blocked
after a few wherever its contact lies, and every grid state is measured or inside a piece proven
free. Each pair is measured on its spheres first and on its convex pieces (GJK) only where the
spheres fail to clear a piece.

That is the exact mode (`exact=True`). Without it the planner plans on the core's model alone:
a state is free when the bound is positive, an edge when the core's certificate above proves it
from the bound alone (`ClearanceBound.edge_clear`), and nothing goes to coal. The model contains
every link's geometry (covering spheres, convex pieces of its meshes, exact tables of the
always-close pairs), so a path free under it is free under the meshes; what it gives up is
the few states where the meshes are free but their pieces touch (a gripper around a post, two
links nested closer than a table's slack), which it takes as blocked.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import KinematicaError
from ..scene.bound import ClearanceBound
from ..scene.query import joint_batch
from ..scene.sweep import motion_bounds
from .group import names_of, split

CHUNK = 256  # states per scene query: the first colliding chunk ends an edge's check early
SEEN = 262144  # edges remembered (the planner's and the simplifier's retries of one edge)
TIMED = 64  # states per coal query between looks at the deadline (~15 ms of coal on the UR5's gripper meshes)
DEPTH = 12  # bisections of a piece not cleared by its ends' distances: 4096 pieces of it, then blocked
MARGIN = 0.6  # × resolution: a state with nothing nearer clears both its pieces (each moves ≤ resolution)


@dataclass
class EdgeChecker:
    """Robot `robot` of `scene` — or a group of them planned together, `robot` their names, their
    joint values one after the other in a state — (the other robots at their scene q) inside the
    box lo ≤ q ≤ hi;
    `weights` the c_j above; `resolution` in the scene's length unit. `checks` counts the
    configurations given to the scene so far (states and edge samples)."""

    scene: Any
    robot: str | tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    weights: np.ndarray
    resolution: float
    fast: ClearanceBound | None = None
    exact: bool = True  # coal wherever the bound cannot tell; False: the bound alone (module text)
    checks: int = field(default=0)
    exact_checks: int = field(default=0)
    deadline: float = math.inf  # time.monotonic() after which an edge still being judged counts as blocked
    progress: Any = None  # progress(seconds since `started`, checks) after each edge judged, or None
    started: float = 0.0  # time.monotonic() when the plan began
    _seen: dict = field(default_factory=dict, repr=False)  # edge (*qa, *qb) as floats → free
    _revision: int = field(default=-1, repr=False)  # the scene's, when `fast` and `_seen` were made

    @classmethod
    def build(cls, scene: Any, robot: str | tuple[str, ...], lo: np.ndarray, hi: np.ndarray,
              resolution: float, exact: bool = True) -> EdgeChecker:
        # a group: the bound on how far a point moves adds up over its robots (a link of one
        # moves relative to a link of another by both robots' motions at most)
        c, k = [], 0
        for name in names_of(robot):
            entry = scene.robots[name]
            n = entry.robot.n
            c.append(motion_bounds(entry, scene.geometry(name), np.stack([lo[k:k + n], hi[k:k + n]])))
            k += n
        return cls(scene, robot, lo, hi, np.concatenate(c), float(resolution),
                   ClearanceBound.build(scene, robot, refine=float(resolution)), bool(exact), _revision=scene.revision)

    def _current(self) -> None:
        """Remade bound and forgotten edges when the scene changed since they were made (an
        obstacle moved between a plan and its timing, say): they describe the scene then."""
        if self.scene.revision != self._revision:
            self._seen.clear()
            if self.fast is not None:
                self.fast = ClearanceBound.build(self.scene, self.robot, refine=self.resolution)
            self._revision = self.scene.revision

    def _q(self, Q: np.ndarray) -> dict[str, np.ndarray]:
        return split(self.scene, self.robot, Q)

    def sweep(self, qa: np.ndarray, qb: np.ndarray) -> float:
        """L: the most any link point moves from qa to qb in a straight joint-space line (scene unit)."""
        return float(np.abs(np.asarray(qb) - np.asarray(qa)) @ self.weights)

    def samples(self, qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
        """The k + 1 states checked on the edge qa → qb, both ends included (see the module text)."""
        k = max(1, math.ceil(self.sweep(qa, qb) / self.resolution - 1e-12))
        s = np.linspace(0.0, 1.0, k + 1)[:, None]
        return qa + s * (qb - qa)

    def free(self, Q: np.ndarray) -> np.ndarray:
        """Per state of Q (m, n): inside the box and touching nothing (bool (m,)); a collision
        check, cheaper than `clearance`: what a planner asks of a single state."""
        Q = np.atleast_2d(Q)
        ok = np.all((self.lo <= Q) & (self.hi >= Q), axis=1)
        self.checks += int(ok.sum())
        if not self.exact:
            return ok & (self._bound(Q) > 0)
        ask = ok & ~(self._bound(Q) > 0)  # (the bound proves the others free)
        for a in range(0, len(Q), CHUNK):
            part = ask[a:a + CHUNK]
            if not part.any():
                continue
            self.exact_checks += int(part.sum())
            hit = self._touching(Q[a:a + CHUNK][part], 0.0)
            ok[a:a + CHUNK][part] = ~hit
        return ok

    def free_one(self, q: np.ndarray | Sequence[float]) -> bool:
        """`free` of one state q (n,) — what OMPL asks thousands of times — in one core call
        (`Clearance.state_free`: the box, then every pair apart on its spheres or else its convex
        pieces), and coal only where that cannot tell and the checker is exact."""
        self._current()
        q = np.asarray(q, dtype=float)
        if self.fast is not None:
            self.checks += 1
            if self.fast.core.state_free(q, self.lo, self.hi, self.resolution):
                return True
            if not self.exact:
                return False
            self.checks -= 1  # (counted again by `free`)
        return bool(self.free(q[None])[0])

    def model_free(self, Q: np.ndarray) -> np.ndarray | None:
        """Per state of Q (m, n): whether the core's model alone finds it free — the question
        `free_one` asks it for the planner (GJK stopped within its tolerance, so a state nearer
        than that to something is not free under it, though its bound may be positive) — or
        None without a model."""
        if self.fast is None:
            return None
        self._current()
        core, res = self.fast.core, self.resolution
        return np.array([core.state_free(np.asarray(q, dtype=float), self.lo, self.hi, res) for q in np.atleast_2d(Q)],
                        dtype=bool)

    def clearance(self, Q: np.ndarray, exact: bool = False) -> np.ndarray:
        """Per state of Q (m, n): at most the smallest signed distance in the scene (scene unit;
        ≤ 0 touching, inf with nothing to check; −inf outside the box) — the core's bound where
        it is positive, else (or with `exact`) coal's distance, capped at the resolution (what
        a piece of an edge needs: see the module text)."""
        Q = np.atleast_2d(Q)
        d = np.full(len(Q), -np.inf)
        inside = np.all((self.lo <= Q) & (self.hi >= Q), axis=1)
        self.checks += int(inside.sum())
        if not exact:
            d[inside] = self._bound(Q[inside])
            if not self.exact:
                return d  # (the model alone)
        ask = inside & ~(d > 0)
        if ask.any():
            self.exact_checks += int(ask.sum())
            d[ask] = self._near(Q[ask], self.resolution)
        return d

    def _near(self, Q: np.ndarray, cap: float) -> np.ndarray:
        """Per state of Q (m, n): min(cap, coal's distance) over the pairs the core's spheres bring
        within `cap` — never above the true distance, since the others are at least `cap` apart."""
        parts = None if self.fast is None else self.fast.near_pairs(Q, cap)
        found = self.scene.compiled().collider.distance(self._poses(Q), parts=parts, below=cap)
        return np.array([cap if f is None else f.distance for f in found])

    def _poses(self, Q: np.ndarray) -> np.ndarray:
        """The scene's body poses (m, bodies, 4, 4) with the moving robots at the states Q."""
        return self.scene.compiled().body_poses(joint_batch(self.scene, self._q(Q))[0], len(Q))

    def _touching(self, Q: np.ndarray, margin: float) -> np.ndarray:
        """Per state of Q (m, n): whether coal finds anything within `margin` (0: a contact), over
        the moving robots' pairs — only those the core's spheres bring within the margin (the
        others are clear by it), so coal sees few pairs of each state."""
        only = None if self.fast is None else self.fast.near_pairs(Q, margin)
        hits = self.scene.compiled().collider.collide(self._poses(Q), margin=margin, only=only)
        return np.array([bool(h) for h in hits], dtype=bool)

    def _bound(self, Q: np.ndarray) -> np.ndarray:
        self._current()
        # capped at the resolution: a piece of an edge (≤ resolution) needs no more of its ends
        return np.full(len(Q), -np.inf) if self.fast is None or not len(Q) else self.fast.bound(Q, self.resolution)

    def edge_free(self, qa: np.ndarray | Sequence[float], qb: np.ndarray | Sequence[float]) -> bool:
        """Whether the straight motion qa → qb touches nothing (see the module text): first the
        core's bound alone, the whole edge in one call; where it cannot prove the edge free, the
        states it leaves go to coal — a contact among them blocks the edge at once. An edge asked
        again (OMPL's simplifier retries the same vertex pairs) is answered from memory. (OMPL's
        states come as lists: looking one up costs no arrays.)"""
        a = qa.tolist() if isinstance(qa, np.ndarray) else qa
        b = qb.tolist() if isinstance(qb, np.ndarray) else qb
        self._current()
        key = (*a, *b)
        known = self._seen.get(key)
        if known is None:
            if time.monotonic() > self.deadline:
                return False  # time is up: not judged (nor remembered), so the simplifier keeps its path
            try:
                known = self._edge_free(np.array(a, dtype=float), np.array(b, dtype=float))
            except _Late:
                return False  # (not remembered: the edge was not judged)
            if len(self._seen) >= SEEN:
                self._seen.clear()
            self._seen[key] = known
            if self.progress is not None:
                self.progress(time.monotonic() - self.started, self.checks)
        return known

    def _edge_free(self, qa: np.ndarray, qb: np.ndarray) -> bool:
        if self.fast is not None:  # (the box checked there too: no states measured when an end is out)
            clear, states = self.fast.edge_clear(qa, qb, self.weights, self.resolution, DEPTH, self.lo, self.hi)
            self.checks += states
            if clear or not self.exact or not states:
                return clear
        ends_inside = bool(np.all((qa >= self.lo) & (qa <= self.hi) & (qb >= self.lo) & (qb <= self.hi)))
        if not ends_inside:  # (the box is convex: an edge between states inside it stays inside)
            return False
        Q = self.samples(qa, qb)
        self.checks += len(Q)
        d = self._bound(Q)
        exact = np.zeros(len(Q), bool)  # whether d is coal's own distance (capped at the resolution)
        margin = MARGIN * self.resolution
        near = np.flatnonzero(~(d > margin))
        if len(near):
            self._on_time()
            deepest = Q[[near[int(np.argmin(d[near]))]]]  # most likely in contact: one coal check often settles the edge
            self.exact_checks += 1 + len(near)
            if self._touching(deepest, 0.0)[0]:
                return False
            close = near[self._timed(lambda X: self._touching(X, margin), Q[near])]
            d[near] = np.maximum(d[near], margin)  # nothing within the margin: at least that far
            if len(close):  # within the margin of something: how far exactly (none in contact: blocked)
                # capped at the resolution, as `_cleared` would ask again of a piece they leave uncleared
                d[close] = self._timed(lambda X: self._near(X, self.resolution), Q[close])
                if np.any(d[close] <= 0):
                    return False
                exact[close] = True
        return self._cleared(Q[:-1], Q[1:], d[:-1], d[1:], exact[:-1], exact[1:])

    def path_free(self, Q: np.ndarray) -> bool:
        """Whether the polyline through the states Q (m, n) touches nothing: each of its edges
        sampled and certified as in `edge_free`, all of them in one batch (for a long path
        such as a timed trajectory's samples, where a planner's early exit gains nothing)."""
        Q = np.asarray(Q, dtype=float)
        if len(Q) == 1:
            return bool(self.clearance(Q)[0] > 0)
        S = np.concatenate([Q[:1]] + [self.samples(a, b)[1:] for a, b in itertools.pairwise(Q)])
        d = np.concatenate([self.clearance(S[a:a + CHUNK]) for a in range(0, len(S), CHUNK)])
        return bool(np.all(d > 0)) and self._cleared(S[:-1], S[1:], d[:-1], d[1:])

    def _on_time(self) -> None:
        """_Late past `deadline`: the edge being judged is given up (coal's part of one edge can
        take a few hundred ms, and OMPL looks at its clock only between edges)."""
        if time.monotonic() > self.deadline:
            raise _Late

    def _timed(self, fn: Any, Q: np.ndarray) -> np.ndarray:
        """fn over the states Q in chunks of `TIMED`, the deadline looked at before each (a deep
        bisection's level can hold thousands of states: seconds of coal in one call)."""
        parts = []
        for a in range(0, len(Q), TIMED):
            self._on_time()
            parts.append(fn(Q[a:a + TIMED]))
        return np.concatenate(parts) if parts else np.zeros(0)

    def _cleared(self, a: np.ndarray, b: np.ndarray, da: np.ndarray, db: np.ndarray,
                 ea: np.ndarray | None = None, eb: np.ndarray | None = None) -> bool:
        """Whether every piece a_i → b_i, its ends clear by da_i, db_i > 0 (lower bounds; ea_i,
        eb_i: already coal's own distance), is free: cleared by its ends' distances — made exact
        where bounds do not clear it — else bisected, `DEPTH` levels at most (see the module text)."""
        ea = np.zeros(len(a), bool) if ea is None else ea.copy()
        eb = np.zeros(len(b), bool) if eb is None else eb.copy()
        for level in range(DEPTH + 1):
            self._on_time()
            still = da + db <= np.abs(b - a) @ self.weights
            if still.any() and self.fast is not None and self.exact:  # the exact ends may clear what bounds do not
                for d, e, x in ((da, ea, a), (db, eb, b)):
                    up = still & ~e
                    if up.any():
                        d[up], e[up] = self._timed(lambda X: self.clearance(X, exact=True), x[up]), True
                if np.any(da[still] <= 0) or np.any(db[still] <= 0):
                    return False
                still = da + db <= np.abs(b - a) @ self.weights
            if not still.any():
                return True
            if level == DEPTH:
                return False  # too close to tell at 2^-DEPTH of a piece: taken as blocked
            a, b, da, db, ea, eb = a[still], b[still], da[still], db[still], ea[still], eb[still]
            m = 0.5 * (a + b)
            dm = self._timed(self.clearance, m)
            if np.any(dm <= 0):
                return False
            fresh = np.zeros(len(m), bool)
            a, b = np.concatenate([a, m]), np.concatenate([m, b])
            da, db = np.concatenate([da, dm]), np.concatenate([dm, db])
            ea, eb = np.concatenate([ea, fresh]), np.concatenate([fresh, eb])
        return False

    def first_blocked(self, path: np.ndarray) -> int | None:
        """The index of the first edge of `path` (k, n) that is not free (an edge i joins states
        i and i + 1), or None when the whole path is free (see `edge_free`)."""
        for i in range(len(path) - 1):
            if not self.edge_free(path[i], path[i + 1]):
                return i
        if len(path) == 1 and not self.free(path[:1])[0]:
            return 0
        return None


class _Late(KinematicaError):
    """The planner's time is up while an edge is being judged (EdgeChecker.deadline); caught
    by `edge_free`, never seen outside."""


__all__ = ["EdgeChecker", "CHUNK", "DEPTH"]
