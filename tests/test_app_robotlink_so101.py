"""The Robot link card on the SO-101 through NiceGUI's simulated user, against the project's
SO-101 bus emulator over real TCP on 127.0.0.1: connect (the emulator button, a port, a
calibration file), send the pose — the measured arm drawn where the polled state says, within
the emulator's stated sag, backlash and noise of the command, the commanded ghost at the goal
sent — play and stop, home, the speed field clamped, and each injected fault stopping the link
with the joint and the reason in the card."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import numpy as np
import pytest
from app_user import one
from nicegui.testing import User

import kinematica as km
from kinematica.app.grid import GridScale
from kinematica.app.mirror import MEASURED, MIRROR
from kinematica.hardware import (
    BusFault,
    Imperfection,
    So101Calibration,
    So101Emulator,
    save_so101_calibration,
)
from kinematica.hardware import feetech as ft
from kinematica.hardware.so101_calibration import CENTRE, PER_DEG, PER_RAD

pytestmark = pytest.mark.asyncio
pytest.importorskip("serial")

SO101 = km.load("so101")
GRID = GridScale.for_robot(SO101)
SAG, BACKLASH, NOISE = 5.0, 4.0, 1.0  # ticks: what the emulator adds to each reading
POSE = np.array([20.0, -15.0, 25.0, 10.0, -20.0])  # degrees, each joint off its middle


def tool(user: User, colour: str) -> np.ndarray | None:
    """Where the reported arm drawn in `colour` has its tool (scene units), or None if none is drawn."""
    found = [o for o in one(user, "arm-scene").objects.values() if o.type == "sphere" and o.color == colour]
    assert len(found) <= 1
    return np.array([found[0].x, found[0].y, found[0].z]) if found else None


def tool_at(q: np.ndarray) -> np.ndarray:
    return GRID.to_scene(km.fk(SO101, q)[:3, 3])


def table(user: User) -> dict[str, dict[str, str]]:
    return {row["joint"]: row for row in one(user, "link-readout").rows}


async def choose_so101(user: User) -> None:
    one(user, "robot-select").value = "so101"
    await user.should_see(marker="link-calibration", retries=100)


async def connect_to(user: User, url: str, calibration: str = "") -> None:
    one(user, "link-port").value = url
    one(user, "link-calibration").value = calibration
    user.find(marker="link-connect").click()
    await user.should_see("six STS3215 servos answer", retries=100)


async def settle(user: User, seconds: float = 0.4) -> None:
    """Let the poller read a few times (10 Hz) and the page's timer draw it."""
    await asyncio.sleep(seconds)


async def test_the_emulator_button_connects_and_draws_the_measured_arm_only_until_a_command(user: User) -> None:
    await choose_so101(user)
    assert tool(user, MEASURED) is None
    user.find(marker="link-emulator").click()
    await user.should_see("connected to socket://127.0.0.1:", retries=100)
    await user.should_see("nothing commanded since connecting", retries=20)
    assert tool(user, MEASURED) is not None and tool(user, MIRROR) is None  # no goal sent: no commanded ghost
    await user.should_see("The arm labelled “measured” is measured")
    user.find(marker="link-connect").click()
    await user.should_see("not connected", retries=20)
    assert tool(user, MEASURED) is None
    await user.should_not_see(marker="link-readout")


async def test_send_pose_measured_within_the_emulators_bounds_and_the_commanded_ghost_at_the_goal(user: User) -> None:
    emu = So101Emulator(Imperfection(noise=NOISE, backlash=BACKLASH, sag=SAG), seed=3)
    try:
        await choose_so101(user)
        await connect_to(user, emu.start_tcp())
        for j, v in enumerate(POSE):
            one(user, f"joint-{j + 1}-slider").value = v
        one(user, "link-speed").value = 1000  # past the top: clamped, and the field shows what is used
        user.find(marker="link-send").click()
        await user.should_see("speed 1000 °/s is outside 10 … 280 °/s: 280 °/s used", retries=20)
        await user.should_see("pose sent at 280 °/s: arrived", retries=100)
        assert one(user, "link-speed").value == 280
        await settle(user)

        goal = np.rint(CENTRE + np.radians(POSE) * PER_RAD).astype(int)  # the whole ticks sent (default calibration)
        q_goal = (goal - CENTRE) / PER_RAD
        truth = emu.positions()
        assert [round(truth[i + 1]) for i in range(5)] == goal.tolist()  # the shafts stand on the goals

        # the commanded ghost is the command; the table lists it
        np.testing.assert_allclose(tool(user, MIRROR), tool_at(q_goal), atol=1e-9)
        rows = table(user)
        shown_goal = np.array([float(rows[n]["commanded"]) for n in SO101.joint_names])
        np.testing.assert_allclose(shown_goal, np.degrees(q_goal), atol=0.005)  # two decimals

        # the measured arm is the polled state: whole ticks, shown to 0.01° (a tick is 0.088°)
        ticks = np.rint(CENTRE + np.array([float(rows[n]["measured"]) for n in SO101.joint_names]) * PER_DEG)
        np.testing.assert_allclose(tool(user, MEASURED), tool_at((ticks - CENTRE) / PER_RAD), atol=1e-9)
        # … and reads the goal less the sag and half the backlash against the way each joint moved
        # (from the middle tick), give or take 4 σ of noise and the reading's rounding
        expected = goal - SAG - np.sign(goal - CENTRE) * BACKLASH / 2
        assert np.all(np.abs(ticks - expected) <= 4 * NOISE + 0.5), (ticks, expected)
        differences = np.array([float(rows[n]["difference"]) for n in SO101.joint_names])
        np.testing.assert_allclose(differences, (ticks - goal) / PER_DEG, atol=0.011)
        gap = np.linalg.norm(km.fk(SO101, (ticks - CENTRE) / PER_RAD)[:3, 3] - km.fk(SO101, q_goal)[:3, 3]) * 1000
        summary = one(user, "link-summary").text
        assert re.search(rf"tool {gap:.1f} mm apart", summary), (summary, gap)
        assert "servos at 12.0 V" in summary
        assert all(float(rows[n]["load"]) < 0 for n in SO101.joint_names)  # holding against the sag

        user.find(marker="link-home").click()
        await user.should_see("home at 280 °/s: arrived", retries=100)
        await settle(user)
        np.testing.assert_allclose(tool(user, MIRROR), tool_at(SO101.q_home), atol=1e-9)
    finally:
        emu.stop()


async def test_play_the_pose_list_then_stop_a_play_and_a_move_at_once(user: User) -> None:
    with So101Emulator() as emu:
        await choose_so101(user)
        user.find(marker="pose-add").click()
        one(user, "joint-1-slider").value = 30
        one(user, "joint-3-slider").value = -30
        user.find(marker="pose-add").click()
        await user.should_see(marker="pose-2-name")
        await connect_to(user, emu.url)
        user.find(marker="link-play").click()
        await user.should_see("points streamed at 50 Hz", retries=300)
        await user.should_see("tracking error RMS up to")
        assert one(user, "link-progress").value == pytest.approx(1.0)

        user.find(marker="link-play").click()  # again: back to the first pose, then the list
        await user.should_see("playing", retries=20)
        for _ in range(100):  # until the stream runs (after the move back to its first point)
            if one(user, "link-progress").value > 0:
                break
            await asyncio.sleep(0.05)
        user.find(marker="link-stop").click()  # answers at once; the worker stops the arm
        await user.should_see("stopped on request after", retries=100)
        assert 0 < one(user, "link-progress").value < 1
        assert "reconnect" not in one(user, "link-status").text  # stopped, not lost

        one(user, "link-speed").value = 10
        one(user, "joint-2-slider").value = -60  # ~6 s away at 10 °/s
        user.find(marker="link-send").click()
        await user.should_see("moving at 10 °/s", retries=20)
        await asyncio.sleep(0.3)
        user.find(marker="link-stop").click()
        await user.should_see("stopped on request: the arm holds where it was read", retries=100)
        await settle(user)
        rows = table(user)  # held where it was read: the goal is (within the servos' braking) the reading
        assert abs(float(rows["shoulder_lift"]["difference"])) < 1.0
        assert float(rows["shoulder_lift"]["measured"]) > -30


@pytest.mark.parametrize("fault, words", [
    (BusFault(overload=(4, 12)), "wrist_flex (servo 4) reports overload; the arm stopped"),
    (BusFault(overheat=(5, 12)), "wrist_roll (servo 5) reports over-temperature; the arm stopped"),
    (BusFault(silent=(2, 12)), "shoulder_lift (servo 2): did not answer in time"),
])
async def test_a_fault_stops_the_link_with_the_joint_and_the_reason_in_the_card(user: User, fault, words) -> None:
    """The faults come while the poller reads (the 12th packet a servo gets: ~1 s after connecting)."""
    with So101Emulator(fault=fault) as emu:
        await choose_so101(user)
        await connect_to(user, emu.url)
        await user.should_see(words, retries=100)
        status = one(user, "link-status")
        assert "reconnect to go on" in status.text and "text-negative" in status.classes
        assert one(user, "link-connect").text == "connect"  # the link is closed
        assert tool(user, MEASURED) is None
        await user.should_not_see(marker="link-readout")
        received = len(emu.log()[0])
        await asyncio.sleep(0.5)
        assert len(emu.log()[0]) == received  # nothing more was sent


async def test_a_calibration_file_is_used_and_a_missing_one_is_refused_in_words(user: User, tmp_path) -> None:
    with So101Emulator() as emu:
        await choose_so101(user)
        one(user, "link-port").value = emu.url
        one(user, "link-calibration").value = str(tmp_path / "nowhere.json")
        user.find(marker="link-connect").click()
        await user.should_see("not connected: calibration file not found:", retries=20)
        # a calibration whose range for the elbow stops at +10°: a pose past it is refused, nothing sent
        cal = So101Calibration.default(SO101)
        servos = list(cal.servos)
        servos[2] = replace(servos[2], range=(servos[2].range[0], round(CENTRE + 10 * PER_DEG)))
        path = save_so101_calibration(So101Calibration(tuple(servos)), tmp_path / "cal.json")
        await connect_to(user, emu.url, str(path))
        one(user, "joint-3-slider").value = 20
        user.find(marker="link-send").click()
        await user.should_see("not sent: elbow_flex", retries=20)


async def test_another_robot_chosen_while_connected_sends_nothing_and_draws_no_arm(user: User) -> None:
    with So101Emulator() as emu:
        await choose_so101(user)
        await connect_to(user, emu.url)
        one(user, "robot-select").value = "braccio"  # the SO-101 stays connected: its card stays
        await user.should_see("SO-101, or its emulator", retries=100)
        written = len(emu.log()[0])
        user.find(marker="link-send").click()
        await user.should_see("connected to the so101 arm: choose the so101 robot to drive it", retries=20)
        assert tool(user, MEASURED) is None
        await user.should_not_see(marker="link-readout")
        await settle(user, 0.2)
        received = emu.log()[0][written:]
        assert all(p[4] == ft.SYNC_READ for p in received)  # the poller's sync reads only: no goal was sent
        user.find(marker="link-connect").click()  # disconnected: the card is the Braccio's now
        await user.should_see("Braccio, or its emulator", retries=20)
        await user.should_see("not connected")
