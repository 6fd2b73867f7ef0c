"""The simulator's work as a project (kinematica/app/project.py): the dict and file round trip,
robots embedded when they are not bundled, malformed files refused in words; and through the
page, a reload restores everything, and the project menu saves and opens files."""

from __future__ import annotations

import asyncio

import json

import numpy as np
import pytest
from app_user import one
from hypothesis import given, settings
from hypothesis import strategies as st
from nicegui.testing import user_simulation

import kinematica as km
from kinematica.app import main as app_main
from kinematica.app import project
from kinematica.app.state import ROUND_OFF, PlanSpec, Pose, Session, TargetSpec, ViewSpec


def busy_session() -> Session:
    """A session with something in every saved field."""
    s = Session(robot_name="puma560")
    s.set_q([0.1, -0.4, 0.3, 0.2, -0.5, 0.6])
    s.mode, s.method, s.ghosts_outside = "ik", "analytic", True
    s.target = TargetSpec("pose", (0.5, 0.1, 0.2), (10.0, 20.0, 30.0), 5.0)
    s.poses.extend([Pose("start", s.robot.q_home), Pose("reach", s.q.copy())])
    s.plan = PlanSpec("line", 1.5, 2.0, True)
    s.t = 0.75
    s.view = ViewSpec("xz", True, looks=False)
    return s


def test_every_saved_field_survives_the_file() -> None:
    s = busy_session()
    again = project.loads(project.dumps(s))
    assert again.robot_name == "puma560"
    np.testing.assert_allclose(again.q, s.q, atol=1e-12)
    assert (again.mode, again.method, again.ghosts_outside) == ("ik", "analytic", True)
    assert again.target == s.target
    assert [p.name for p in again.poses] == ["start", "reach"]
    np.testing.assert_allclose(again.poses[1].q, s.q, atol=1e-12)
    assert again.plan == s.plan and again.t == 0.75 and again.view == s.view


def test_the_file_reads_like_the_screen() -> None:
    """Joint values in degrees, as the sliders show them."""
    s = Session()
    s.set_joint(0, 30.0)
    data = json.loads(project.dumps(s))
    assert data["format"] == "kinematica-project" and data["robot"] == "braccio"
    assert data["q"] == pytest.approx([30.0, -45.0, 90.0, 90.0, 0.0])


def test_a_robot_from_a_file_travels_inside_the_project(tmp_path) -> None:
    path = tmp_path / "arm.yaml"
    km.save(km.load("planar-3r").replace(name="my-arm"), path)
    s = Session()
    label = s.add_robot_file(path)
    s.set_joint(1, 40.0)
    s.poses.append(Pose("bent", s.q.copy()))
    path.unlink()  # the project must not need the file any more
    again = project.loads(project.dumps(s))
    assert again.robot_name == label and again.robot.n == 3
    q = np.radians([10.0, 40.0, -20.0])
    np.testing.assert_allclose(km.fk(again.robot, q), km.fk(s.robot, q), atol=1e-12)
    np.testing.assert_allclose(again.poses[0].q, s.q, atol=1e-12)


def test_each_robot_keeps_its_own_poses() -> None:
    s = Session()
    s.poses.append(Pose("braccio pose", s.q.copy()))
    s.set_robot("kuka-kr6-r900")
    assert s.poses == []
    s.poses.append(Pose("kuka pose", s.q.copy()))
    again = project.loads(project.dumps(s))
    assert [p.name for p in again.poses] == ["kuka pose"]
    again.set_robot("braccio")
    assert [p.name for p in again.poses] == ["braccio pose"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-170, 170), min_size=6, max_size=6))
def test_joint_values_round_trip_exactly_enough(values) -> None:
    s = Session(robot_name="ur5")
    s.set_q(np.radians(values))
    np.testing.assert_allclose(project.loads(project.dumps(s)).q, s.q, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.update(format="something else"), "not a Kinematica project"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d.update(robot="no-such-robot"), "'no-such-robot' is neither bundled nor embedded"),
    (lambda d: d.update(q=[1, 2]), "q: expected 6 joint values"),
    (lambda d: d.update(q=[0, 0, "x", 0, 0, 0]), r"q: joint 3 \(.*\): expected a number, got 'x'"),
    (lambda d: d.pop("q"), "q is missing"),
    (lambda d: d.update(mode="fly"), "mode: 'fly' is not one of fk, ik"),
    (lambda d: d["plan"].update(seconds=-1), "plan.seconds: expected a number from 0.1 to 600 s"),
    (lambda d: d["poses"]["puma560"][0].update(q=[0.0] * 5), r"poses\['puma560'\]\[0\].q: expected 6 joint values"),
    (lambda d: d["robots"].update(bad={"kind": "dh"}), "bad"),
])
def test_malformed_projects_are_refused_naming_the_field(mutate, words) -> None:
    data = project.to_dict(busy_session())
    data["robots"] = {}
    mutate(data)
    with pytest.raises(project.ProjectError, match=words):
        project.from_dict(data)


PUMA = km.load("puma560")
PUMA_DEG = np.degrees(PUMA.limits)  # every Puma 560 joint is limited


# Values a field of the panels would not take, each in a place the project keeps one.
@pytest.mark.parametrize("mutate, words", [
    (lambda d: d["q"].__setitem__(0, 1e308), r"q: joint 1 \(.*\): 1e\+308 ° is outside its range"),
    (lambda d: d["q"].__setitem__(2, PUMA_DEG[2, 1] + 0.01), r"q: joint 3 \(.*\): .* is outside its range"),
    (lambda d: d["q"].__setitem__(1, float("nan")), r"q: joint 2 \(.*\): expected a finite number"),
    (lambda d: d["q"].__setitem__(1, True), r"q: joint 2 \(.*\): expected a number"),
    (lambda d: d["plan"].update(seconds=1e-300), "plan.seconds: expected a number from 0.1 to 600 s"),
    (lambda d: d["plan"].update(seconds=601), "plan.seconds: expected a number from 0.1 to 600 s"),
    (lambda d: d["plan"].update(seconds="2"), "plan.seconds"),
    (lambda d: d["plan"].update(speed=1e308), "plan.speed: expected one of 0.25, 0.5, 1, 2, 4"),
    (lambda d: d["plan"].update(t=-1.0), "plan.t: the player's time cannot be negative"),
    (lambda d: d["plan"].update(t=None), "plan.t: expected finite numbers, got None"),
    (lambda d: d["plan"].update(loop="no"), "plan.loop: expected true or false"),
    (lambda d: d["view"].update(frames=1), "view.frames: expected true or false"),
    (lambda d: d["view"].update(looks="skeleton"), "view.looks: expected true or false"),
    (lambda d: d["target"].update(position=[0, 0, 1e400]), "target.position: expected finite numbers"),
    (lambda d: d["poses"]["puma560"][1]["q"].__setitem__(4, -1e308), r"poses\['puma560'\]\[1\].q: joint 5"),
    (lambda d: d["poses"]["puma560"][1].update(name="start"), r"\[1\].name: another pose is already named 'start'"),
    (lambda d: d["poses"]["puma560"][1].update(name="x" * 41), r"\[1\].name: a pose name has at most 40"),
    (lambda d: d["poses"]["puma560"][1].update(name="  "), r"\[1\].name: a pose name cannot be empty"),
    (lambda d: d["poses"].update(puma560={"name": "a"}), r"poses\['puma560'\]: expected a list"),
])
def test_values_no_field_would_take_are_refused_naming_the_field(mutate, words) -> None:
    """The rule of each field (`state.check_joints`, `check_seconds`, …) is the rule of the file."""
    data = json.loads(project.dumps(busy_session()))
    mutate(data)
    with pytest.raises(project.ProjectError, match=words):
        project.loads(json.dumps(data))


def test_a_planar_arm_takes_no_pitch_target() -> None:
    """As its target select, which offers no pitch of the tool axis for a planar arm."""
    data = project.to_dict(Session(robot_name="planar-3r"))
    data["target"]["kind"] = "approach"
    with pytest.raises(project.ProjectError, match="target.kind: 'approach' is not one of position, pose"):
        project.from_dict(data)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5), st.floats(allow_nan=True, allow_infinity=True))
def test_a_joint_value_opens_exactly_when_its_field_takes_it(i, value) -> None:
    """Any number in a project's q: it opens iff the joint's field takes it (within the limits,
    up to ROUND_OFF of round-off), and then the arm is there."""
    data = project.to_dict(busy_session())
    data["q"][i] = value
    lo, hi = PUMA_DEG[i]
    takes = np.isfinite(value) and lo - ROUND_OFF <= value <= hi + ROUND_OFF
    if takes:
        shown = project.from_dict(data).display_q()
        assert shown[i] == pytest.approx(min(max(value, lo), hi), abs=1e-9)
    else:
        with pytest.raises(project.ProjectError, match=f"q: joint {i + 1}"):
            project.from_dict(data)


def test_an_unlimited_joint_opens_at_any_angle_as_the_same_position() -> None:
    """A revolute joint without limits turns past ±180° (a played path, a solve): its angle
    opens wrapped into ±180°, the same position of the arm."""
    s = Session(robot_name="arm-5dof")
    assert not np.isfinite(s.robot.limits[0]).any()
    data = project.to_dict(s)
    data["q"][0] = 190.0
    again = project.from_dict(data)
    assert again.display_q()[0] == pytest.approx(-170.0)
    np.testing.assert_allclose(km.fk(again.robot, again.q), km.fk(s.robot, np.radians(data["q"])), atol=1e-12)


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(project.ProjectError, match="not JSON"):
        project.loads("{nope")


# --- through the page -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_reload_restores_the_work() -> None:
    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        one(user, "robot-select").value = "kuka-kr6-r900"
        one(user, "joint-2-number").value = 25.0
        one(user, "mode").value = "ik"
        await user.open("/")  # the same browser comes back
        assert one(user, "robot-select").value == "kuka-kr6-r900"
        assert one(user, "joint-2-number").value == pytest.approx(25.0)
        assert one(user, "mode").value == "ik"
        kuka = km.load("kuka-kr6-r900")
        q = kuka.q_home.copy()
        q[1] = np.radians(25.0)
        assert float(one(user, "pose-x").text) == pytest.approx(km.fk(kuka, q)[0, 3], abs=1e-4)


@pytest.mark.asyncio
async def test_a_dragged_slider_is_saved_once_it_pauses_and_a_reload_misses_no_move(monkeypatch) -> None:
    """A run of joint moves alone is written to the store once, SAVE_AFTER s after the last
    (each write is a file write: ~1 ms of the server's CPU per slider event, issue 32 item 13);
    a reload right after the last move still opens at it."""
    from kinematica.app import page as page_module

    writes = []
    to_dict = project.to_dict
    monkeypatch.setattr(project, "to_dict", lambda s: (writes.append(1), to_dict(s))[1])
    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        writes.clear()
        for v in range(10, 30, 2):  # a drag: ten slider events
            one(user, "joint-1-slider").value = v
        assert writes == []
        await asyncio.sleep(page_module.SAVE_AFTER + 0.3)
        assert len(writes) == 1
        one(user, "joint-1-slider").value = 41
        await user.open("/")  # at once: the pending save is taken by the new page's restore
        assert one(user, "joint-1-number").value == pytest.approx(41.0)


def test_a_project_from_before_the_looks_were_kept_opens_in_looks() -> None:
    data = project.to_dict(busy_session())
    del data["view"]["looks"]
    assert project.from_dict(data).view.looks is True


@pytest.mark.asyncio
async def test_a_reload_keeps_looks_or_skeleton() -> None:
    """The Looks/Skeleton choice comes back after a reload, on this robot and the next (it had
    gone back to Looks)."""
    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        one(user, "view-looks").value = "skeleton"
        await user.open("/")  # the same browser comes back
        assert one(user, "view-looks").value == "skeleton"  # fails before: "meshes"
        one(user, "robot-select").value = "ur5"
        await user.should_see("ur5: 6 joints")
        assert one(user, "view-looks").value == "skeleton"
        one(user, "view-looks").value = "meshes"
        await user.open("/")
        assert one(user, "view-looks").value == "meshes"


@pytest.mark.asyncio
async def test_a_server_restarted_with_another_robot_opens_that_robot() -> None:
    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        one(user, "joint-1-number").value = 15.0
        app_main.configure("ur5")
        try:
            await user.open("/")
            assert one(user, "robot-select").value == "ur5"
            assert one(user, "joint-1-number").value == pytest.approx(0.0)
        finally:
            app_main.configure(None)


@pytest.mark.asyncio
async def test_the_project_menu_opens_a_file_and_refuses_a_bad_one() -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        upload = one(user, "project-upload")
        await upload.handle_uploads([SmallFileUpload("broken.kinematica.json", "application/json", b"{nope")])
        await user.should_see("Not opened — broken.kinematica.json: not JSON")
        assert one(user, "robot-select").value == "braccio"  # nothing changed
        far = json.loads(project.dumps(busy_session()))
        far["q"][0] = 1e308  # what no joint field takes
        await upload.handle_uploads([SmallFileUpload("far.kinematica.json", "application/json",
                                                      json.dumps(far).encode())])
        await user.should_see("Not opened — far.kinematica.json: q: joint 1 (")
        await user.should_see("1e+308 ° is outside its range -160 … 160 °")
        assert one(user, "robot-select").value == "braccio"
        text = project.dumps(busy_session()).encode()
        await upload.handle_uploads([SmallFileUpload("puma.kinematica.json", "application/json", text)])
        await user.open("/")  # what the reload after opening shows
        assert one(user, "robot-select").value == "puma560"
        assert one(user, "joint-2-number").value == pytest.approx(np.degrees(-0.4), abs=1e-4)
        assert one(user, "pose-2-name").value == "reach"


@pytest.mark.asyncio
async def test_the_project_dialog_opens_without_the_last_files_error() -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    app_main.configure(None)
    async with user_simulation(root=app_main.root) as user:
        await user.open("/")
        user.find(marker="project-open").click()
        upload = one(user, "project-upload")
        await upload.handle_uploads([SmallFileUpload("broken.kinematica.json", "application/json", b"{nope")])
        await user.should_see("Not opened — broken.kinematica.json: not JSON")
        error = one(user, "project-upload-error")
        assert error.visible
        user.find(marker="project-open").click()  # opened again (for another file)
        assert not error.visible and error.text == ""  # fails before: the old file's error was still there
