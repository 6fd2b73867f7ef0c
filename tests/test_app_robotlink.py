"""The Simulator tab's Robot link card through NiceGUI's simulated user, against the built-in
emulator over real TCP: connect, send the pose (the arm's ghost drawn at FK of what the board
commanded), play the pose list with its progress, stop mid-play, refusals in words, and the card
on a robot it cannot drive."""

from __future__ import annotations

import numpy as np
import pytest
from app_user import one
from nicegui.testing import User

import kinematica as km
from kinematica.app.grid import GridScale
from kinematica.app.mirror import MIRROR

pytestmark = pytest.mark.asyncio
pytest.importorskip("serial")

BRACCIO = km.load("braccio")


def mirror_tool(user: User) -> np.ndarray | None:
    """Where the arm's ghost has its tool (scene units), or None when there is no ghost."""
    scene = one(user, "arm-scene")
    found = [o for o in scene.objects.values() if o.type == "sphere" and o.color == MIRROR]
    assert len(found) <= 1
    return np.array([found[0].x, found[0].y, found[0].z]) if found else None


async def connect(user: User) -> None:
    user.find(marker="link-emulator").click()
    await user.should_see("connected to socket://127.0.0.1:", retries=100)


async def test_connect_send_the_pose_and_mirror_the_commanded_arm(user: User) -> None:
    assert mirror_tool(user) is None
    await connect(user)
    grid = GridScale.for_robot(BRACCIO)
    # connected: the ghost is at the board's home, which is the model's home
    np.testing.assert_allclose(mirror_tool(user), grid.to_scene(km.fk(BRACCIO, BRACCIO.q_home)[:3, 3]), atol=1e-9)
    one(user, "joint-1-slider").value = 30.4  # not a whole servo degree: the board gets 60
    one(user, "link-speed").value = 100  # the top speed (the Braccio library's)
    user.find(marker="link-send").click()
    await user.should_see("pose sent at 100 °/s: servo degrees [60, 45, 180, 180, 90, 10]", retries=100)
    q_sent = km.from_servo(BRACCIO, [60, 45, 180, 180, 90])
    np.testing.assert_allclose(mirror_tool(user), grid.to_scene(km.fk(BRACCIO, q_sent)[:3, 3]), atol=1e-9)
    user.find(marker="link-connect").click()  # disconnect: the ghost goes
    await user.should_see("not connected")
    assert mirror_tool(user) is None


async def test_play_the_pose_list_on_the_arm_and_stop_it(user: User) -> None:
    user.find(marker="pose-add").click()
    one(user, "joint-1-slider").value = 20
    user.find(marker="pose-add").click()
    one(user, "joint-3-slider").value = 60
    user.find(marker="pose-add").click()
    await user.should_see(marker="pose-3-name")
    await connect(user)
    user.find(marker="link-play").click()
    await user.should_see("points acknowledged in order", retries=200)
    assert one(user, "link-progress").value == pytest.approx(1.0)
    last = km.to_servo(BRACCIO, np.radians([20, -45, 60, 90, 0]))
    grid = GridScale.for_robot(BRACCIO)
    np.testing.assert_allclose(mirror_tool(user), grid.to_scene(km.fk(BRACCIO, km.from_servo(
        BRACCIO, np.floor(last + 0.5)))[:3, 3]), atol=1e-9)
    user.find(marker="link-play").click()  # again: back to the first pose, then the list
    await user.should_see("playing 121 points", retries=50)
    user.find(marker="link-stop").click()  # answers at once: the stream ends with S
    await user.should_see("stopped on request", retries=100)
    assert 0 <= one(user, "link-progress").value < 1


async def test_refusals_in_words_and_nothing_sent(user: User) -> None:
    await connect(user)
    user.find(marker="link-play").click()
    await user.should_see("No trajectory: add poses to the pose list")


async def test_an_empty_port_and_a_dead_one_say_what_to_do(user: User) -> None:
    user.find(marker="link-connect").click()
    await user.should_see("Give the arm's port")
    one(user, "link-port").value = "socket://127.0.0.1:9"  # the discard port: nothing listens
    user.find(marker="link-connect").click()
    await user.should_see("cannot open socket://127.0.0.1:9", retries=100)


async def test_another_robot_gets_a_note_instead_of_controls(user: User) -> None:
    one(user, "robot-select").value = "puma560"
    await user.should_see("The robot link drives a Tinkerkit Braccio")
    await user.should_not_see(marker="link-send")


async def test_an_empty_speed_field_falls_back_to_its_default_never_none(user: User) -> None:
    await connect(user)
    one(user, "link-speed").value = None
    user.find(marker="link-send").click()
    await user.should_see("pose sent at 60 °/s", retries=100)
    assert one(user, "link-speed").value == 60  # the field shows the speed used
    await user.should_not_see("None")


async def test_a_speed_past_the_range_is_clamped_and_the_field_shows_what_was_used(user: User) -> None:
    await connect(user)
    one(user, "link-speed").value = 1e9
    user.find(marker="link-send").click()
    await user.should_see("pose sent at 100 °/s", retries=100)
    await user.should_see("speed 1e+09 °/s is outside 20 … 100 °/s: 100 °/s used")
    assert one(user, "link-speed").value == 100
    one(user, "link-speed").value = 7.4
    user.find(marker="link-send").click()
    await user.should_see("pose sent at 20 °/s", retries=100)
    assert one(user, "link-speed").value == 20


async def test_a_connect_the_server_gave_up_on_leaves_the_arm_not_connected(user: User, monkeypatch) -> None:
    """NiceGUI's run.io_bound gives None instead of connect's words when the app is stopping (it
    runs nothing) or the wait is cancelled: no link was made, and the card says so."""
    from kinematica.app import robotlink

    async def given_up(*_: object, **__: object) -> None:
        return None

    monkeypatch.setattr(robotlink.run, "io_bound", given_up)
    user.find(marker="link-emulator").click()
    await user.should_see("not connected: the server is shutting down", retries=100)  # fails before the fix
    assert one(user, "link-connect").text == "connect"
    assert mirror_tool(user) is None
