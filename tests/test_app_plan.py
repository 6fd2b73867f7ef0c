"""The Workspace card's Plan (issue 27): the simulator's controls over `km.plan`, through NiceGUI's
simulated user — the same app the browser tests (tests/browser/test_plan_button.py) drive in
Chromium. The planner really runs (OMPL, in a worker thread)."""

from __future__ import annotations

import asyncio

import pytest
from app_user import one
from nicegui.testing import User

from kinematica.app.state import PLANNERS
from kinematica.app.trail import TRAIL

pytest.importorskip("ompl", reason="the plan extra (OMPL) is not installed")

# kuka-table: the tool pointing down 0.13 m over the table, either side of the box on it; the
# straight joint motion between them takes link6 through the box
START = [14, -32, -6, 0, -52, 104]  # deg
GOAL = [-37, -47, 21, 0, -64, 53]


def trail_objects(user: User) -> list:
    return [o for o in one(user, "arm-scene").objects.values() if o.color == TRAIL]


async def set_joints(user: User, q_deg: list[float]) -> None:
    for i, v in enumerate(q_deg):
        one(user, f"joint-{i + 1}-slider").value = v


async def plan_to_the_pose_over_the_box(user: User) -> None:
    """In kuka-table, GOAL kept as pose P1, the arm at START, and Plan pressed with P1 as the goal."""
    one(user, "workspace-scene").value = "kuka-table"
    await user.should_see("no collision")
    await set_joints(user, GOAL)
    user.find(marker="pose-add").click()
    await set_joints(user, START)
    one(user, "path-goal").value = "pose:P1"
    user.find(marker="path-plan").click()


async def wait_for(user: User, marker: str, words: str, timeout: float = 20.0) -> str:
    for _ in range(int(timeout / 0.05)):
        text = one(user, marker).text
        if words in text:
            return text
        await asyncio.sleep(0.05)
    raise AssertionError(f"{marker} never said {words!r}: {one(user, marker).text!r}")


def test_the_planner_names_are_the_libraries() -> None:
    from kinematica.plan import PLANNERS as LIBRARY

    assert set(PLANNERS) == set(LIBRARY)


@pytest.mark.asyncio
async def test_plan_to_a_pose_around_the_box_draws_a_trail_and_plays_it(user: User) -> None:
    await plan_to_the_pose_over_the_box(user)
    words = await wait_for(user, "path-status", "Planned (RRT-Connect to pose P1): collision-free path of")
    assert "waypoints" in words and "checks" in words and "after the press" in words
    assert len(trail_objects(user)) > 6
    assert one(user, "plan-note").text.startswith("Planned (RRT-Connect to pose P1)")
    assert "/" in one(user, "player-time").text


@pytest.mark.asyncio
async def test_a_goal_in_the_box_says_why_and_clears_the_last_trail(user: User) -> None:
    await plan_to_the_pose_over_the_box(user)
    await wait_for(user, "path-status", "Planned (RRT-Connect to pose P1): collision-free path of")
    assert trail_objects(user)
    one(user, "mode").value = "ik"
    for name, v in zip("xyz", (0.15, 0.6, 0.38)):
        one(user, f"target-{name}").value = v
    one(user, "path-goal").value = "target"
    user.find(marker="path-plan").click()
    words = await wait_for(user, "path-status", "Not planned")
    assert "box" in words, words
    assert not trail_objects(user)

