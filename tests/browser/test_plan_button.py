"""The Workspace card's Plan (issue 27) in a real headless Chromium: `kinematica serve` in a
subprocess, the page driven as a user would, the planner (OMPL) really running in the server.
What the page shows is checked against the library on its own: the downloaded trajectory's
every sample by `scene.check`, a refusal's reason by `km.plan` on the same query."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("playwright", reason="Playwright for Python is not installed (pip install playwright)")
pytest.importorskip("ompl", reason="the plan extra (OMPL) is not installed")
from harness import (
    add_pose,
    choose,
    joint_values,
    pose,
    set_joints,
    set_target,
    wait_for_end,
    wait_for_scene,
)
from playwright.sync_api import expect

import kinematica as km
from kinematica.trajectory import files

pytestmark = pytest.mark.browser

# kuka-table: the tool pointing down 0.13 m over the table, either side of the box on it; the
# straight joint motion between them takes link6 through the box (checked below)
START = [14, -32, -6, 0, -52, 104]  # deg
GOAL = [-37, -47, 21, 0, -64, 53]
KUKA = km.load("kuka-kr6-r900")


def trail_pixels(page) -> int:
    """Pixels of the view in the trail's cyan (#00b8d4 at 35 % over the light background or the
    arm): red well below green and blue, green and blue close — no other drawing is so."""
    import io

    from PIL import Image

    png = page.locator(".nicegui-scene").first.screenshot()
    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    return int(((g - r > 45) & (b - r > 55) & (np.abs(g - b) < 40)).sum())


def kuka_table(page, goal: list[float] | None = GOAL) -> None:
    """The kuka-table scene open, pose P1 at `goal`, the arm at START."""
    choose(page, "workspace-scene", "kuka-table")
    expect(page.get_by_test_id("scene-caption")).to_contain_text("kuka-kr6-r900")
    wait_for_scene(page)
    expect(page.get_by_test_id("workspace-status")).to_contain_text("no collision")
    if goal is not None:
        add_pose(page, dict(enumerate(goal, 1)))
    set_joints(page, dict(enumerate(START, 1)))


FOUND = "Planned (RRT-Connect to pose P1): collision-free path of"


def plan(page, goal: str | None, words: str, timeout_ms: int = 30_000) -> str:
    """Pick the goal (None: as it is), press Plan, and wait for `words` in the card's verdict.
    Every path found is timed: a path TOPP-RA's spline took past a limit is slowed, not refused
    (once 1 of RRT-Connect's paths in 50 here, 1 of BIT*'s in 12, said "Planned (…) but not timed")."""
    if goal is not None:
        choose(page, "path-goal", goal)
    status = page.get_by_test_id("path-status")
    page.get_by_test_id("path-plan").click()
    expect(status).to_contain_text(words, timeout=timeout_ms)
    return status.inner_text()


def test_a_path_around_the_box_is_drawn_played_and_free_at_every_state(page):
    kuka_table(page)
    scene = km.Scene.load("kuka-table")
    start, goal = np.radians(START), np.radians(GOAL)
    straight = scene.check({"kuka": np.linspace(start, goal, 60)})
    assert straight.colliding.any() and ("kuka/link6", "box") in {p for c in straight.collisions for p in c}
    assert not scene.check({"kuka": np.stack([start, goal])}).colliding.any()
    before = trail_pixels(page)

    choose(page, "path-goal", "pose P1")
    t0 = time.monotonic()
    words = plan(page, None, FOUND)
    print(f"\nPlan pressed → its verdict on the page {time.monotonic() - t0:.2f} s later: {words}")  # noqa: T201
    assert "waypoints" in words and "planning" in words and "simplification" in words and "checks" in words
    page.wait_for_timeout(300)
    drawn = trail_pixels(page)
    assert drawn > before + 400, (before, drawn)  # the trail's ghosts and dots

    played = wait_for_end(page)  # the player took the path and plays it to its end
    duration = float(words.split("plays in ")[1].split(" s")[0])
    assert played.endswith(f"/ {duration:.2f} s"), (played, duration)
    np.testing.assert_allclose(joint_values(page, 6), GOAL, atol=1e-6)  # the path ends on the pose exactly
    np.testing.assert_allclose(pose(page)[:3], km.fk(KUKA, goal)[:3, 3], atol=1e-3)
    expect(page.get_by_test_id("plan-note")).to_contain_text("Planned (RRT-Connect to pose P1)")

    with page.expect_download() as download:  # the player's trajectory, as the Poses card exports it
        page.get_by_test_id("trajectory-export-json").click()
    tr = files.from_json(Path(download.value.path()).read_text())
    np.testing.assert_allclose(tr.q[0], start, atol=1e-9)
    np.testing.assert_allclose(tr.q[-1], goal, atol=1e-9)
    assert tr.duration == pytest.approx(duration, abs=0.006)
    assert len(tr.q) > 50 and not any(scene.check({"kuka": tr.q}).collisions), "a timed state collides"


def test_a_goal_inside_the_box_says_why_and_leaves_nothing_stale(page):
    kuka_table(page)
    plan(page, "pose P1", FOUND)  # a path first: its trail and trajectory must go with the refusal
    page.wait_for_timeout(300)
    assert trail_pixels(page) > 400
    page.get_by_test_id("mode").get_by_text("IK").click()
    set_target(page, x=0.15, y=0.6, z=0.38)  # the box's centre, the tool's orientation as it stands
    rpy = [float(page.get_by_test_id(f"target-{a}").input_value()) for a in ("roll", "pitch", "yaw")]
    q = np.radians(joint_values(page, 6))

    words = plan(page, "the IK target", "Not planned (RRT-Connect to the IK target): ")
    target = km.targets.orientation([0.15, 0.6, 0.38], rpy=np.radians(rpy))
    expected = km.plan(km.Scene.load("kuka-table"), q, target)
    assert not expected.success and "box" in expected.reason
    assert words == f"Not planned (RRT-Connect to the IK target): {expected.reason}.", words
    page.wait_for_timeout(300)
    assert trail_pixels(page) < 50  # the earlier path's trail is gone
    expect(page.get_by_test_id("player-time")).to_have_text("no trajectory")  # one pose: nothing to play


def test_the_page_stays_live_while_a_long_plan_runs_and_a_second_press_is_refused(page):
    kuka_table(page)
    page.get_by_test_id("path-time").fill("8")
    # unseeded, BIT* refines its path until the time limit (RRT* too, but it found no path at all in
    # 4 s in 2 runs of 6 here, sharing two cores with the browser)
    choose(page, "path-planner", "BIT*")
    choose(page, "path-goal", "pose P1")
    x_before = pose(page)[0]
    t0 = time.monotonic()
    page.get_by_test_id("path-plan").click()
    status = page.get_by_test_id("path-status")
    expect(status).to_contain_text("Planning (BIT* to pose P1, up to 8 s)")
    t1 = time.monotonic()
    page.get_by_test_id("joint-1-number").fill("40")  # a joint moved while the planner runs
    expect(page.get_by_test_id("pose-x")).not_to_have_text(f"{x_before:.4f}", timeout=6_000)
    answered = time.monotonic() - t0
    print(f"\nthe joint typed {t1 - t0:.2f} s after the press, shown {time.monotonic() - t1:.2f} s later")  # noqa: T201
    assert "Planning" in status.inner_text() and answered < 8.0, (answered, status.inner_text())
    np.testing.assert_allclose(pose(page)[:3], km.fk(KUKA, np.radians([40, *START[1:]]))[:3, 3], atol=1e-3)
    page.get_by_test_id("path-plan").click()  # again, while planning: refused, not queued
    expect(page.get_by_text("Already planning (BIT*, up to 8 s): this press is refused.")).to_be_visible()
    words = plan_finished(page)
    assert words.startswith("Planned (BIT* to pose P1): collision-free path of") and words.count("Planned") == 1, words
    wait_for_end(page)
    np.testing.assert_allclose(joint_values(page, 6), GOAL, atol=1e-6)


def plan_finished(page) -> str:
    """The card's verdict once the plan has ended (and its path is played)."""
    status = page.get_by_test_id("path-status")
    expect(status).to_contain_text(re.compile("after the press|Not planned"), timeout=30_000)
    return status.inner_text()
