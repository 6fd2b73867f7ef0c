"""A PRM roadmap kept between plans: OMPL's probabilistic roadmap of one robot in a scene, grown
while it answers queries, so that later queries in the same scene reuse the states and edges it
has already checked (a pick-and-place cell asks the same region again and again).

>>> import kinematica as km, numpy as np
>>> from kinematica.plan import Roadmap
>>> s = km.Scene()
>>> _ = s.add_robot("arm", "puma560")
>>> rm = Roadmap(s)
>>> first = rm.plan(np.zeros(6), np.full(6, 0.3), time_limit=0.5)
>>> again = rm.plan(np.full(6, 0.3), np.zeros(6), time_limit=0.5)
>>> first.success, again.success, rm.vertices >= 2
(True, True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from .edges import EdgeChecker
from .planner import answer
from .problem import _robot, default_resolution, problem
from .result import Plan
from .solver import Search


class Roadmap:
    """OMPL's PRM for `robot` (the scene's only robot by default; the others held at their scene
    q) in `scene`, at `resolution` (scene length unit; default as `km.plan`'s). Each `plan`
    grows the roadmap within its time limit and answers from it; a query the roadmap already
    connects is answered at once. Every edge is certified as `km.plan`'s are (`plan.edges`) and
    remembered by the roadmap's checker. When the scene changes (an obstacle added or moved), the
    roadmap describes the old scene: the next `plan` starts a new one (`rebuilt` counts them).
    PRM grows its roadmap in a second thread, so its plans are not reproducible by a seed."""

    def __init__(self, scene: Any, *, robot: str | None = None, resolution: float | None = None) -> None:
        self.scene = scene
        self.robot = _robot(scene, robot)
        self.resolution = default_resolution(scene, self.robot) if resolution is None else resolution
        self.rebuilt = 0
        self._search: Search | None = None
        self._revision = -1

    @property
    def vertices(self) -> int:
        """States in the roadmap (0 before the first plan)."""
        return 0 if self._search is None else self._search.vertices()

    @strict
    def plan(self, start: ArrayLike, goal: Any, *, time_limit: float = 1.0, simplify: bool = True,
             exact: bool | None = None, progress: Callable[[float, int], None] | None = None) -> Plan:
        """`km.plan(scene, start, goal, planner="prm", ...)` on this roadmap: the same input,
        verdicts and `Plan`, the roadmap kept for the next query."""
        p = problem(self.scene, start, goal, self.robot, "prm", time_limit, self.resolution, None)
        if self._search is None or self.scene.revision != self._revision:
            checker = EdgeChecker.build(self.scene, p.robot, p.lo, p.hi, p.resolution)
            self.rebuilt += self._search is not None
            self._search, self._revision = Search(checker, "prm", len(p.start)), self.scene.revision
        search = self._search

        def run(checker: EdgeChecker, goals: np.ndarray):
            return search.run(p.start, goals, p.time_limit, False, simplify)

        return answer(p, search.checker, run, exact, progress)

    def __repr__(self) -> str:
        return f"Roadmap({self.robot!r}, {self.vertices} states, resolution {self.resolution:g} {self.scene.length_unit})"


__all__ = ["Roadmap"]
