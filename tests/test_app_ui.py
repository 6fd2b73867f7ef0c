"""The simulator page through NiceGUI's simulated user (no browser): sliders, fields, the pose
readout, IK solve / refuse / adopt, robot switch. Values are checked against the core."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from app_user import one, shown, shown_q, solve
from nicegui import ui
from nicegui.testing import User, user_simulation

import kinematica as km
from kinematica import spatial
from kinematica.app import main as app_main

pytestmark = pytest.mark.asyncio


def readout(user: User) -> tuple[np.ndarray, np.ndarray]:
    p = np.array([float(one(user, f"pose-{a}").text) for a in "xyz"])
    rpy = np.array([float(one(user, f"pose-{a}").text) for a in ("roll", "pitch", "yaw")])
    return p, rpy


def scene_objects(user: User) -> dict:
    """Each shown object's placement (x, y, z and R) by id: hidden ones (the skeleton under the
    looks, the link frames) are placed only when shown."""
    scene = one(user, "arm-scene")
    return {k: (o.x, o.y, o.z, *np.ravel(o.R)) for k, o in scene.objects.items() if shown(o)}



def set_target(user: User, **values: float) -> None:
    for name, v in values.items():
        one(user, f"target-{name}").value = v


async def test_opens_with_the_braccio_at_home(user: User) -> None:
    braccio = km.load("braccio")
    await user.should_see("Kinematica")
    assert one(user, "robot-select").value == "braccio"
    np.testing.assert_allclose(shown_q(user, braccio), braccio.q_home, atol=1e-12)
    p, rpy = readout(user)
    T = km.fk(braccio, braccio.q_home)
    np.testing.assert_allclose(p, T[:3, 3], atol=0.006)
    np.testing.assert_allclose(rpy, np.degrees(spatial.matrix_to_rpy(T[:3, :3])), atol=0.006)
    await user.should_see("grid squares of 100 mm")
    await user.should_see("regular")


async def test_a_slider_moves_the_arm_and_the_readout(user: User) -> None:
    braccio = km.load("braccio")
    before = scene_objects(user)
    one(user, "joint-1-slider").value = 30
    q = braccio.q_home.copy()
    q[0] = np.radians(30)
    p, _ = readout(user)
    np.testing.assert_allclose(p, km.fk(braccio, q)[:3, 3], atol=0.006)
    assert one(user, "joint-1-number").value == pytest.approx(30)
    after = scene_objects(user)
    moved = [k for k in before if k in after and not np.allclose(before[k], after[k])]
    assert len(moved) >= 5  # the five bodies after the base turn with joint 1


async def test_a_number_field_moves_its_slider_and_the_readout(user: User) -> None:
    braccio = km.load("braccio")
    one(user, "joint-2-number").value = -10.5
    assert one(user, "joint-2-slider").value == pytest.approx(-10.5)
    q = braccio.q_home.copy()
    q[1] = np.radians(-10.5)
    np.testing.assert_allclose(readout(user)[0], km.fk(braccio, q)[:3, 3], atol=0.006)


async def test_a_field_rounding_itself_on_blur_does_not_move_the_joint(user: User) -> None:
    """A number field snaps to its format (2 decimals) when it loses focus; that echo is not a
    user change: the joint keeps its exact value."""
    braccio = km.load("braccio")
    one(user, "joint-1-slider").value = 30.123456
    one(user, "joint-1-number").sanitize()  # what NiceGUI does on blur
    assert shown_q(user, braccio)[0] == pytest.approx(np.radians(30.123456), abs=1e-12)
    assert one(user, "joint-1-number").value == pytest.approx(30.12)


async def test_a_field_typed_out_of_range_shows_what_the_arm_is_at_after_enter(user: User) -> None:
    """Typing 95 into M1 (range −90 … 90°) passes through 9, which the arm takes; the field then
    says in words that 95 is out of range, and Enter (like leaving the field) applies the nearest
    end, so field, slider and arm agree: 90. The same for 1e308 and for the plan's seconds."""
    braccio = km.load("braccio")
    field = one(user, "joint-1-number")
    for typed in (9.0, 95.0):  # what the page sends as the digits arrive
        field.value = typed
    assert shown_q(user, braccio)[0] == pytest.approx(np.radians(9))
    assert field.error is not None and "95 ° is outside -90 … 90 °" in field.error
    user.find(marker="joint-1-number").trigger("keydown.enter")
    assert field.value == pytest.approx(90) and field.error is None
    assert shown_q(user, braccio)[0] == pytest.approx(np.radians(90))
    field.value = 1e308
    user.find(marker="joint-1-number").trigger("keydown.enter")
    assert field.value == pytest.approx(90)
    assert shown_q(user, braccio)[0] == pytest.approx(np.radians(90))
    seconds = one(user, "plan-seconds")
    seconds.value = 1e308
    assert "outside 0.1 … 600 s" in seconds.error
    user.find(marker="plan-seconds").trigger("keydown.enter")
    assert seconds.value == pytest.approx(600) and seconds.error is None


async def test_a_target_with_no_solution_in_the_limits_says_so_and_lists_them(user: User) -> None:
    """The KR6 target of issue 32: LM converges outside the limits; the verdict says that none of
    the other solutions is within the limits, and the list shows every one, none adoptable."""
    one(user, "robot-select").value = "kuka-kr6-r900"
    await user.should_see("kuka-kr6-r900: 6 joints")
    await solve(user, "Not solved", x=-0.2633, y=0.7615, z=0.9763, roll=-17.64, pitch=-12.26, yaw=-31.55)
    message = one(user, "ik-message").text
    assert "none within the joint limits: listed below" in message and "see the list" not in message
    caption = one(user, "solutions-caption").text
    n = int(caption.split()[0])
    assert n >= 4 and "none within the joint limits" in caption
    for i in range(1, n + 1):
        assert not one(user, f"adopt-{i}").enabled


async def test_home_button(user: User) -> None:
    braccio = km.load("braccio")
    one(user, "joint-3-slider").value = 10
    user.find(marker="home").click()
    np.testing.assert_allclose(shown_q(user, braccio), braccio.q_home, atol=1e-12)


async def test_ik_solves_a_reachable_target_and_the_readout_matches(user: User) -> None:
    braccio = km.load("braccio")
    await solve(user, x=150.0, y=50.0, z=100.0)
    q = shown_q(user, braccio)
    assert not np.allclose(q, braccio.q_home)
    assert braccio.within_limits(q)
    p, _ = readout(user)
    np.testing.assert_allclose(p, km.fk(braccio, q)[:3, 3], atol=0.006)
    np.testing.assert_allclose(p, [150, 50, 100], atol=0.01)
    await user.should_see(marker="solution-1")
    assert not one(user, "adopt-1").enabled  # the arm is at solution 1 already


def ghost_numbers(user: User) -> list[str]:
    """The numbers written beside the drawn ghosts."""
    from nicegui.elements.scene.scene_objects import Text

    return [o.args[0] for o in one(user, "arm-scene").objects.values()
            if isinstance(o, Text) and o.args[0][:1].isdigit()]  # not the axis names


async def test_ghosts_belong_to_ik_mode(user: User) -> None:
    await solve(user, x=150.0, y=50.0, z=100.0)
    assert ghost_numbers(user)
    one(user, "mode").value = "fk"
    assert ghost_numbers(user) == []
    one(user, "joint-1-slider").value = 30  # moving the arm in FK mode must not bring them back
    assert ghost_numbers(user) == []
    one(user, "mode").value = "ik"
    assert ghost_numbers(user)


async def test_an_unreachable_target_says_why_and_changes_nothing(user: User) -> None:
    braccio = km.load("braccio")
    one(user, "joint-1-slider").value = 20
    q_before, p_before = shown_q(user, braccio), readout(user)[0]
    await solve(user, "target out of reach", x=500.0, y=0.0, z=0.0)
    await user.should_see("The arm was not moved")
    np.testing.assert_array_equal(shown_q(user, braccio), q_before)
    np.testing.assert_array_equal(readout(user)[0], p_before)
    await user.should_not_see(marker="solution-1")


async def test_an_empty_target_field_is_refused_in_words(user: User) -> None:
    braccio = km.load("braccio")
    one(user, "mode").value = "ik"
    user.find(marker="target-x").clear()
    user.find(marker="solve").click()
    await user.should_see("Fill in every target field")
    np.testing.assert_allclose(shown_q(user, braccio), braccio.q_home)


async def test_switching_robot_rebuilds_the_panels_in_its_units(user: User) -> None:
    kuka = km.load("kuka-kr6-r900")
    one(user, "robot-select").value = "kuka-kr6-r900"
    await user.should_see("kuka-kr6-r900: 6 joints, lengths in m; grid squares of 0.2 m")
    await user.should_see(marker="joint-6-slider")
    np.testing.assert_allclose(readout(user)[0], km.fk(kuka, kuka.q_home)[:3, 3], atol=6e-5)
    one(user, "mode").value = "ik"
    assert one(user, "target-kind").value == "pose"  # a 6-DOF arm: full pose by default
    one(user, "joint-2-slider").value = 20
    q = kuka.q_home.copy()
    q[1] = np.radians(20)
    np.testing.assert_allclose(readout(user)[0], km.fk(kuka, q)[:3, 3], atol=6e-5)


async def test_every_solution_is_listed_and_one_click_adopts_it(user: User) -> None:
    kuka = km.load("kuka-kr6-r900")
    one(user, "robot-select").value = "kuka-kr6-r900"
    one(user, "mode").value = "ik"
    q_goal = np.radians([30, 20, -30, 40, 50, 60])
    T = km.fk(kuka, q_goal)
    rpy = np.degrees(spatial.matrix_to_rpy(T[:3, :3]))
    await solve(user, x=T[0, 3], y=T[1, 3], z=T[2, 3], roll=rpy[0], pitch=rpy[1], yaw=rpy[2])
    await user.should_see(marker="solution-2")
    adopt = one(user, "adopt-2")
    assert adopt.enabled
    adopt_q = app_solutions_q(user, 2)
    user.find(marker="adopt-2").click()
    await user.should_see("Adopted solution 2")
    q = shown_q(user, kuka)
    np.testing.assert_allclose(q, adopt_q, atol=np.radians(0.051))  # the row shows 0.1°
    np.testing.assert_allclose(km.fk(kuka, q), T, atol=1e-6)
    np.testing.assert_allclose(readout(user)[0], T[:3, 3], atol=6e-5)


def app_solutions_q(user: User, number: int) -> np.ndarray:
    """The joint values listed in solution row `number` (degrees in the row's text)."""
    row = one(user, f"solution-{number}")
    texts = [e.text for e in row.descendants() if isinstance(e, ui.label)]
    values = next(t for t in texts if t.startswith("("))
    return np.radians([float(v.rstrip("°")) for v in values.strip("()").split(", ")])


async def test_target_kind_shows_its_fields_and_moves_the_marker(user: User) -> None:
    one(user, "mode").value = "ik"
    await user.should_not_see(marker="target-roll")
    one(user, "target-kind").value = "pose"
    await user.should_see(marker="target-roll")
    await user.should_not_see(marker="target-approach-pitch")
    one(user, "target-kind").value = "approach"
    await user.should_see(marker="target-approach-pitch")
    await user.should_not_see(marker="target-roll")
    scene = one(user, "arm-scene")
    marker = [o for o in scene.objects.values() if type(o).__name__ == "Sphere" and o.opacity < 0.5][0]
    set_target(user, x=120.0)
    assert marker.parent.x == pytest.approx(120.0 / 100.0)  # scene units: 100 mm grid squares


async def test_link_frames_toggle(user: User) -> None:
    scene = one(user, "arm-scene")
    groups = [o for o in scene.objects.values() if type(o).__name__ == "Group"]
    before = sum(g.visible_ for g in groups)
    user.find(marker="frames").click()
    assert sum(g.visible_ for g in groups) - before == km.load("braccio").n + 2  # base, links, tool
    user.find(marker="frames").click()
    assert sum(g.visible_ for g in groups) == before


async def test_workspace_overlay_toggle(user: User) -> None:
    scene = one(user, "arm-scene")

    def clouds():
        return [o for o in scene.objects.values() if type(o).__name__ == "PointCloud"]
    assert clouds() == []
    user.find(marker="workspace").click()
    cloud, = clouds()
    from kinematica.workspace.envelope import preview

    points = np.array(cloud.args[0]) * 100.0  # scene units: 100 mm grid squares
    # the envelope's voxel centres, as the workspace package computes them for the Braccio
    expected, _, _ = preview(km.load("braccio"), 20_000)
    assert len(points) > 100
    np.testing.assert_allclose(points, expected, atol=1e-9 * np.abs(expected).max())
    user.find(marker="workspace").click()
    assert clouds() == []


async def upload(user: User, name: str, data: bytes) -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    user.find(marker="open-robot-file").click()
    await user.should_see(marker="robot-upload")
    await one(user, "robot-upload").handle_uploads([SmallFileUpload(name, "application/x-yaml", data)])


async def test_a_robot_file_opened_in_the_page_joins_the_robot_list(user: User, tmp_path) -> None:
    path = tmp_path / "my-arm.yaml"
    km.save(km.load("planar-3r").replace(name="my-arm"), path)
    await upload(user, "my-arm.yaml", path.read_bytes())
    await user.should_see("my-arm: 3 joints, lengths in mm")
    select = one(user, "robot-select")
    assert select.value == "my-arm" and "my-arm" in select.options and "braccio" in select.options
    await user.should_not_see(marker="joint-4-slider")
    one(user, "robot-select").value = "braccio"
    await user.should_see(marker="joint-5-slider")


async def test_a_bad_robot_file_is_refused_in_words(user: User, tmp_path) -> None:
    """Named as the user knows the file, not by the server's temporary copy of it; nothing changes."""
    await upload(user, "broken.yaml", b"kind: dh\njoints: 3\n")
    await user.should_see("Not opened — broken.yaml line 1: (top level): 'name' is a required property")
    await user.should_not_see(tempfile.gettempdir())  # the server's scratch path is not the user's business
    assert one(user, "robot-select").value == "braccio"
    path = tmp_path / "my-arm.yaml"  # a good file next: the old error goes
    km.save(km.load("planar-3r").replace(name="my-arm"), path)
    await upload(user, "my-arm.yaml", path.read_bytes())
    await user.should_see("my-arm: 3 joints, lengths in mm")
    await user.should_not_see(marker="robot-upload-error")


async def test_serve_with_a_robot_file_opens_every_tab_on_it(tmp_path) -> None:
    path = tmp_path / "arm.yaml"
    km.save(km.load("planar-3r").replace(name="my-arm"), path)
    assert app_main.configure(str(path)) == "my-arm"
    try:
        async with user_simulation(root=app_main.root) as u:
            await u.open("/")
            await u.should_see("my-arm: 3 joints, lengths in mm")
            assert "my-arm" in one(u, "robot-select").options
    finally:
        app_main.configure(None)


async def test_a_urdf_tree_offers_its_chains_to_pick_from(user: User) -> None:
    """A tree with two equally long arms has no default chain: the page asks which tip (rather
    than refusing the file), opens the chain picked, and says which bodies it holds."""
    from test_urdf import heavy_tree

    data = heavy_tree().encode()  # arms j1 j2 j3 (to tcp) and j1 k1 k2 (to a3), fingers on the hand
    tips = km.urdf_tips(data)
    await upload(user, "two-arms.urdf", data)
    await user.should_see("Choose a chain of two-arms.urdf")
    picker = one(user, "chain-select")
    assert set(picker.options) == set(tips) and picker.value is None  # no default to offer
    picker.value = "a3"
    user.find(marker="chain-open").click()
    await user.should_see("heavy: 3 joints, lengths in m")
    assert one(user, "robot-select").value == "heavy to a3"
    await user.should_see("two-arms.urdf: ")  # what is held is said, with the file's own name
    await user.should_see("ride along rigidly")


async def test_serve_with_a_tip_opens_that_chain(tmp_path) -> None:
    from test_urdf import heavy_tree

    path = tmp_path / "two-arms.urdf"
    path.write_text(heavy_tree(), encoding="utf-8")
    with pytest.warns(km.OffChainBodiesWarning):
        assert app_main.configure(str(path), tip="a3", hold={"j2": 0.5}) == "heavy to a3"
    try:
        assert app_main.CONFIG.loaded["heavy to a3"].extras["urdf"]["held"]["j2"] == 0.5
        async with user_simulation(root=app_main.root) as u:
            await u.open("/")
            await u.should_see("heavy: 3 joints, lengths in m")
    finally:
        app_main.configure(None)


async def test_a_slider_event_draws_the_arm_once(user: User, monkeypatch) -> None:
    """The tab that moved the arm has shown it: the page's news of the new q must not make it
    draw the same q again (twice the server's CPU per slider event, issue 32 item 13)."""
    from kinematica.app.simulator import SimulatorTab

    refreshes = []
    original = SimulatorTab.refresh
    monkeypatch.setattr(SimulatorTab, "refresh", lambda self: (refreshes.append(1), original(self))[1])
    one(user, "joint-2-slider").value = -25
    one(user, "joint-2-number").value = -35
    assert len(refreshes) == 2
    assert shown_q(user, km.load("braccio"))[1] == pytest.approx(np.radians(-35))
