"""The simulator's work as a project (kinematica/app/project.py): the dict and file round trip,
robots embedded when they are not bundled, malformed files refused in words; and through the
page, a reload restores everything, and the project menu saves and opens files."""

from __future__ import annotations

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
from kinematica.app.state import PlanSpec, Pose, Session, TargetSpec, ViewSpec


def busy_session() -> Session:
    """A session with something in every saved field."""
    s = Session(robot_name="puma560")
    s.set_q([0.1, -0.4, 0.3, 0.2, -0.5, 0.6])
    s.mode, s.method, s.ghosts_outside = "ik", "analytic", True
    s.target = TargetSpec("pose", (0.5, 0.1, 0.2), (10.0, 20.0, 30.0), 5.0)
    s.poses.extend([Pose("start", s.robot.q_home), Pose("reach", s.q.copy())])
    s.plan = PlanSpec("line", 1.5, 2.0, True)
    s.t = 0.75
    s.view = ViewSpec("xz", True)
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
    (lambda d: d.update(q=[1, 2]), "q: expected 6 numbers"),
    (lambda d: d.update(q=[0, 0, "x", 0, 0, 0]), "q: expected numbers"),
    (lambda d: d.update(mode="fly"), "mode: 'fly' is not one of fk, ik"),
    (lambda d: d["plan"].update(seconds=-1), "plan.seconds: expected a positive number"),
    (lambda d: d["poses"]["puma560"][0].update(q=[0.0] * 5), r"poses\['puma560'\]\[0\].q: expected 6 numbers"),
    (lambda d: d["robots"].update(bad={"kind": "dh"}), "bad"),
])
def test_malformed_projects_are_refused_naming_the_field(mutate, words) -> None:
    data = project.to_dict(busy_session())
    data["robots"] = {}
    mutate(data)
    with pytest.raises(project.ProjectError, match=words):
        project.from_dict(data)


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
        await user.should_see("broken.kinematica.json: not JSON")
        assert one(user, "robot-select").value == "braccio"  # nothing changed
        text = project.dumps(busy_session()).encode()
        await upload.handle_uploads([SmallFileUpload("puma.kinematica.json", "application/json", text)])
        await user.open("/")  # what the reload after opening shows
        assert one(user, "robot-select").value == "puma560"
        assert one(user, "joint-2-number").value == pytest.approx(np.degrees(-0.4), abs=1e-4)
        assert one(user, "pose-2-name").value == "reach"
