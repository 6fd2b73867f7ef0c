"""The Poses card and the player through NiceGUI's simulated user (no browser): add, rename,
delete, reorder, go to a pose, plan kinds, play / pause / scrub, export and import."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from app_user import one
from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User

import kinematica as km

pytestmark = pytest.mark.asyncio
BRACCIO = km.load("braccio")


def shown_q(user: User) -> np.ndarray:
    """q (core units) from the sliders."""
    return np.array([one(user, f"joint-{i + 1}-slider").value for i in range(BRACCIO.n)]) / BRACCIO.angle_scale


def names(user: User) -> list[str]:
    """The names in the list, top to bottom."""
    out = []
    while True:
        try:
            out.append(one(user, f"pose-{len(out) + 1}-name").value)
        except AssertionError:  # find() asserts when nothing carries the marker
            return out


P1 = np.radians([0.0, -30.0, 60.0, 60.0, 0.0])  # mid-workspace: every Cartesian plan reaches it all


async def add_three(user: User) -> None:
    """P1, then P2 with the base at 30°, then P3 with the base at 30° and the elbow at 40°."""
    for i, v in ((2, -30), (3, 60), (4, 60)):
        one(user, f"joint-{i}-slider").value = v
    user.find(marker="pose-add").click()
    one(user, "joint-1-slider").value = 30
    user.find(marker="pose-add").click()
    one(user, "joint-3-slider").value = 40
    user.find(marker="pose-add").click()
    await user.should_see(marker="pose-3-name")


async def test_add_rename_reorder_delete(user: User) -> None:
    await user.should_see("No poses yet")
    await add_three(user)
    assert names(user) == ["P1", "P2", "P3"]
    await user.should_see("3 poses, 4.0 s, joint space.")
    user.find(marker="pose-2-name").clear().type("middle").trigger("keydown.enter")
    assert names(user) == ["P1", "middle", "P3"]
    user.find(marker="pose-3-name").clear().type("middle").trigger("keydown.enter")
    await user.should_see("another pose is already named 'middle'")
    assert names(user) == ["P1", "middle", "P3"]
    user.find(marker="pose-1-name").clear().trigger("blur")
    await user.should_see("cannot be empty")
    assert names(user) == ["P1", "middle", "P3"]
    user.find(marker="pose-3-up").click()
    assert names(user) == ["P1", "P3", "middle"]
    user.find(marker="pose-1-up").click()  # the first cannot go further up
    assert names(user) == ["P1", "P3", "middle"]
    user.find(marker="pose-1-down").click()
    assert names(user) == ["P3", "P1", "middle"]
    user.find(marker="pose-2-delete").click()
    assert names(user) == ["P3", "middle"]
    await user.should_see("2 poses, 2.0 s, joint space.")
    user.find(marker="pose-1-delete").click()
    user.find(marker="pose-1-delete").click()
    await user.should_see("0 poses: add at least 2")
    assert one(user, "player-time").text == "no trajectory"


async def test_go_to_moves_the_arm_and_the_readout(user: User) -> None:
    await add_three(user)
    user.find(marker="pose-1-goto").click()
    np.testing.assert_allclose(shown_q(user), P1, atol=1e-9)
    user.find(marker="pose-3-goto").click()
    assert one(user, "joint-1-slider").value == pytest.approx(30)
    assert one(user, "joint-3-slider").value == pytest.approx(40)
    x = float(one(user, "pose-x").text)
    assert x == pytest.approx(km.fk(BRACCIO, shown_q(user))[0, 3], abs=0.006)


async def test_play_pause_and_scrub(user: User) -> None:
    await add_three(user)
    user.find(marker="pose-1-goto").click()
    one(user, "player-speed").value = 4.0
    user.find(marker="player-play").click()
    await asyncio.sleep(0.4)
    moved = shown_q(user)
    assert abs(moved[0] - P1[0]) > 1e-3  # the base turned towards P2
    x = float(one(user, "pose-x").text)
    assert x == pytest.approx(km.fk(BRACCIO, moved)[0, 3], abs=0.006)  # the readout follows
    user.find(marker="player-play").click()  # pause
    paused = shown_q(user)
    t = float(one(user, "player-time").text.split("/")[0])
    await asyncio.sleep(0.2)
    np.testing.assert_allclose(shown_q(user), paused)
    assert float(one(user, "player-time").text.split("/")[0]) == pytest.approx(t)
    one(user, "player-scrub").value = 2.0  # the knot of P2: base 30°, elbow 60°
    assert one(user, "joint-1-slider").value == pytest.approx(30, abs=1e-6)
    assert one(user, "joint-3-slider").value == pytest.approx(60, abs=1e-6)
    assert one(user, "player-time").text.startswith(" 2.00 / 4.00")


async def test_playing_to_the_end_stops_on_the_last_pose(user: User) -> None:
    await add_three(user)
    one(user, "plan-seconds").value = 0.2
    await user.should_see("3 poses, 0.4 s, joint space.")
    user.find(marker="pose-1-goto").click()
    user.find(marker="player-play").click()
    await asyncio.sleep(0.8)
    assert one(user, "joint-3-slider").value == pytest.approx(40, abs=1e-6)
    assert one(user, "player-time").text.startswith(" 0.40 / 0.40")


async def test_cartesian_plans_and_the_arc_rule(user: User) -> None:
    await add_three(user)
    one(user, "plan-kind").value = "line"
    await user.should_see("3 poses, 4.0 s, Cartesian lines: approach followed at 121 points, every point reached.")
    one(user, "plan-kind").value = "arc"
    await user.should_see("Cartesian arc (3 poses): approach followed at 122 points, every point reached.")
    one(user, "plan-kind").value = "spline"
    await user.should_see("Cartesian spline: approach followed at 122 points, every point reached.")
    before = shown_q(user)
    user.find(marker="player-play").click()
    await asyncio.sleep(0.3)
    assert not np.allclose(shown_q(user), before)  # the arm moves on the Cartesian plan
    user.find(marker="player-play").click()
    one(user, "plan-kind").value = "arc"
    user.find(marker="pose-3-delete").click()
    await user.should_see("An arc goes through exactly 3 poses; the list has 2.")
    assert one(user, "player-time").text == "no trajectory"


async def test_export_and_import(user: User) -> None:
    await add_three(user)
    user.find(marker="poses-export-csv").click()
    csv_text = (await user.download.next()).text
    assert csv_text.startswith("# kinematica-poses: robot=braccio")
    assert "name,M1 base [deg]" in csv_text and "\nP2,30.0,-30.0," in csv_text
    user.find(marker="poses-export-json").click()
    doc = json.loads((await user.download.next()).text)
    assert [p["name"] for p in doc["poses"]] == ["P1", "P2", "P3"]
    user.find(marker="trajectory-export-csv").click()
    assert "q_M1 base [deg]" in (await user.download.next()).text
    user.find(marker="poses-import").click()
    await user.should_see(marker="poses-import-upload")
    await one(user, "poses-import-upload").handle_uploads([SmallFileUpload("mine.csv", "text/csv", csv_text.encode())])
    await user.should_see("Imported 3 poses from mine.csv.")
    assert names(user) == ["P1", "P2", "P3", "P1 (2)", "P2 (2)", "P3 (2)"]
    await user.should_see("6 poses, 10.0 s, joint space.")


async def test_a_pose_file_of_another_arm_is_refused_in_words(user: User) -> None:
    user.find(marker="pose-add").click()
    user.find(marker="poses-import").click()
    await user.should_see(marker="poses-import-upload")
    bad = b"name,a [deg],b [deg]\nX,1,2\n"
    await one(user, "poses-import-upload").handle_uploads([SmallFileUpload("other.csv", "text/csv", bad)])
    await user.should_see("Not opened — other.csv: 2 joints (a, b), but braccio has 5")
    assert names(user) == ["P1"]
    far = ("name," + ",".join(f"{n} [deg]" for n in BRACCIO.joint_names) + "\nfar,0,0,0,0,1e308\n").encode()
    await one(user, "poses-import-upload").handle_uploads([SmallFileUpload("far.csv", "text/csv", far)])
    await user.should_see("far.csv row 2 (far): joint 5 (M5 wrist roll): 1e+308 ° is outside its range -90 … 90 °")
    assert names(user) == ["P1"]


async def test_fields_take_only_what_their_rule_takes(user: User) -> None:
    """A joint or seconds field typed past its range leaves the session as it was (the field
    puts itself back in range when it loses focus): the rule files are read by."""
    before = shown_q(user)
    one(user, "joint-1-number").value = 1e308
    one(user, "joint-2-number").value = -75.5  # the shoulder goes to -75°
    np.testing.assert_allclose(shown_q(user), before, atol=0)
    one(user, "joint-1-number").value = 45.0
    assert one(user, "joint-1-slider").value == pytest.approx(45.0)
    await add_three(user)
    await user.should_see("3 poses, 4.0 s, joint space.")
    for bad in (1e-300, 0.0, 601.0):
        one(user, "plan-seconds").value = bad
        await user.should_see("3 poses, 4.0 s, joint space.")
    one(user, "plan-seconds").value = 1.5
    await user.should_see("3 poses, 3.0 s, joint space.")
