"""States and straight joint-space edges of one robot checked against a scene, finely enough
that no point of its links moves more than `resolution` between two checks.

On an edge q(s) = qa + s·(qb − qa), s ∈ [0, 1], a point of any link moves at most
L = Σ_j c_j |qb_j − qa_j|, with c_j the bound of `scene.sweep.motion_bounds`: for a revolute
joint the farthest any point of the links after it can be from its axis, for a prismatic one 1
(scene length unit per rad or per length unit). `motion_bounds` is taken over the corners of
the planning box (the joint limits), so one c serves every edge. The edge is checked at
k + 1 evenly spaced states, k = ceil(L / resolution): consecutive checked states are at most
`resolution` apart for every link point. A contact shorter than that can slip between two
checks; a longer one cannot.

All the states of one edge go to the scene in one batched `scene.check` call (in chunks of
`CHUNK`, stopping at the first chunk that collides), not one call per state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..scene.sweep import motion_bounds

CHUNK = 256  # states per scene query: the first colliding chunk ends an edge's check early


@dataclass
class EdgeChecker:
    """Robot `robot` of `scene` (the other robots at their scene q) inside the box lo ≤ q ≤ hi;
    `weights` the c_j above; `resolution` in the scene's length unit. `checks` counts the
    configurations given to the scene so far (states and edge samples)."""

    scene: Any
    robot: str
    lo: np.ndarray
    hi: np.ndarray
    weights: np.ndarray
    resolution: float
    checks: int = field(default=0)

    @classmethod
    def build(cls, scene: Any, robot: str, lo: np.ndarray, hi: np.ndarray, resolution: float) -> "EdgeChecker":
        entry = scene.robots[robot]
        c = motion_bounds(entry, scene.geometry(robot), np.stack([lo, hi]))
        return cls(scene, robot, lo, hi, c, float(resolution))

    def sweep(self, qa: np.ndarray, qb: np.ndarray) -> float:
        """L: the most any link point moves from qa to qb in a straight joint-space line (scene unit)."""
        return float(np.abs(np.asarray(qb) - np.asarray(qa)) @ self.weights)

    def samples(self, qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
        """The k + 1 states checked on the edge qa → qb, both ends included (see the module text)."""
        k = max(1, math.ceil(self.sweep(qa, qb) / self.resolution - 1e-12))
        s = np.linspace(0.0, 1.0, k + 1)[:, None]
        return qa + s * (qb - qa)

    def free(self, Q: np.ndarray) -> np.ndarray:
        """Per state of Q (m, n): inside the box and touching nothing (bool (m,))."""
        Q = np.atleast_2d(Q)
        inside = np.all((Q >= self.lo) & (Q <= self.hi), axis=1)
        ok = inside.copy()
        for a in range(0, len(Q), CHUNK):
            part = inside[a:a + CHUNK]
            if not part.any():
                continue
            self.checks += int(part.sum())
            hit = np.atleast_1d(self.scene.check({self.robot: Q[a:a + CHUNK][part]}).colliding)
            ok[a:a + CHUNK][part] = ~hit
        return ok

    def edge_free(self, qa: np.ndarray, qb: np.ndarray) -> bool:
        """Whether every checked state of the edge qa → qb is free; stops at the first colliding chunk."""
        Q = self.samples(np.asarray(qa, dtype=float), np.asarray(qb, dtype=float))
        for a in range(0, len(Q), CHUNK):
            if not self.free(Q[a:a + CHUNK]).all():
                return False
        return True

    def first_blocked(self, path: np.ndarray) -> int | None:
        """The index of the first edge of `path` (k, n) that is not free (an edge i joins states
        i and i + 1), or None when the whole path is free at the resolution."""
        for i in range(len(path) - 1):
            if not self.edge_free(path[i], path[i + 1]):
                return i
        if len(path) == 1 and not self.free(path[:1])[0]:
            return 0
        return None


__all__ = ["EdgeChecker", "CHUNK"]
