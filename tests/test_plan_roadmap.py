"""`kinematica.plan.Roadmap` (issue 27: "PRM (with a reusable roadmap)"): OMPL's PRM kept between
queries in one scene. Oracles: coal's own check of every path at a tenth of the resolution, and
the roadmap's own counts (states kept, states checked per query)."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from kinematica.plan import Roadmap
from kinematica.scene import check_trajectory

pytest.importorskip("ompl")

START = np.array([0.8, -0.3, 0.0, 0.0, 0.5, 0.0])
GOAL = np.array([-0.8, -0.3, 0.0, 0.0, 0.5, 0.0])  # straight across, the wrist would go through the box


def boxed() -> km.Scene:
    s = km.Scene()
    s.add_robot("arm", "puma560")
    s.add_obstacle("box", "box", pose=km.spatial.transl([0.6, -0.15, 0.28]), size=(0.15, 0.15, 0.15))
    return s


def clear(scene: km.Scene, p: km.Plan) -> bool:
    t = np.arange(len(p.path), dtype=float)
    return not check_trajectory(scene, {"arm": (t, p.path)}, resolution=p.resolution / 10).colliding


def test_later_queries_reuse_the_roadmap_and_every_path_is_clear():
    # the roadmap outlives its queries: each one adds to the states it holds (its start and goal,
    # and whatever it grew), none starts again from nothing, and every path is clear under coal
    s = boxed()
    rm = Roadmap(s)
    held = [rm.vertices]
    for a, b in [(START, GOAL), (GOAL, START), (START + 0.05, GOAL - 0.05)]:
        p = rm.plan(a, b, time_limit=1.0)
        assert p.success and p.planner == "prm" and clear(s, p), p.reason
        assert p.path[0].tolist() == a.tolist() and p.path[-1].tolist() == b.tolist()
        held.append(rm.vertices)
    assert held[0] == 0 and all(y > x for x, y in zip(held, held[1:], strict=False)), held
    assert rm.rebuilt == 0 and "states" in repr(rm)


def test_a_changed_scene_starts_a_new_roadmap_and_verdicts_are_km_plans():
    s = boxed()
    rm = Roadmap(s)
    assert rm.plan(START, GOAL, time_limit=1.0).success
    s.add_obstacle("post", "cylinder", pose=km.spatial.transl([0.0, -0.6, 0.3]), radius=0.05, length=0.6)
    p = rm.plan(START, GOAL, time_limit=1.0)
    assert rm.rebuilt == 1 and p.success and clear(s, p), p.reason
    inside = rm.plan(START, (START + GOAL) / 2, time_limit=0.5)  # the wrist in the box: refused in words
    assert not inside.success and inside.reason.startswith("the goal is in collision: arm/")
    with pytest.raises(km.PlanError, match="start"):
        rm.plan(START[:3], GOAL)
    with pytest.raises(TypeError):
        rm.plan(START, GOAL, seed=3)  # (PRM grows its roadmap in a second thread: no seed reproduces it)
