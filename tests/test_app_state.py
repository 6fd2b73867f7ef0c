"""The simulator's session (kinematica/app/state.py) and drawing helpers (scene.py), without a
page: every transition the panels trigger, checked against the core."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from kinematica.app.grid import GridScale, along, nice_step, turn_y_to
from kinematica.app.state import (
    Session,
    TargetSpec,
    from_display,
    slider_range,
    target_kinds,
    to_display,
)


def test_a_new_session_is_the_braccio_at_home_in_fk_mode() -> None:
    s = Session()
    assert (s.robot_name, s.mode, s.method) == ("braccio", "fk", "lm")
    np.testing.assert_array_equal(s.q, km.load("braccio").q_home)
    assert s.target.kind == "position"
    np.testing.assert_allclose(s.target.position, s.readout().position, atol=1e-6)


def test_display_units_are_degrees_and_lengths() -> None:
    robot = km.from_dh([{"a": 0.2, "alpha": 0, "d": 0, "theta": 0},
                        {"a": 0, "alpha": 0, "d": 0, "theta": 0, "type": "prismatic"}],
                       limits=[[-np.inf, np.inf], [0, 0.5]])
    q = np.array([np.pi / 2, 0.25])
    np.testing.assert_allclose(to_display(robot, q), [90, 0.25])
    np.testing.assert_allclose(from_display(robot, to_display(robot, q)), q)
    assert slider_range(robot, 0, reach=1.0) == (-180.0, 180.0)  # unlimited revolute
    assert slider_range(robot, 1, reach=1.0) == (0.0, 0.5)


def test_set_joint_takes_degrees() -> None:
    s = Session()
    s.set_joint(0, 30.0)
    assert s.q[0] == pytest.approx(np.radians(30))
    with pytest.raises(ValueError, match="finite"):
        s.set_q([0, 0, np.nan, 0, 0])


def test_readout_is_the_core_fk_and_the_singularity_verdict() -> None:
    s = Session(robot_name="kuka-kr6-r900")
    r = s.readout()
    np.testing.assert_allclose(r.T, km.fk(s.robot, s.q))
    assert r.singular and "wrist" in r.singularity  # home: axes 4 and 6 aligned
    np.testing.assert_allclose(km.spatial.rpy_to_matrix(np.radians(r.rpy_deg)), r.T[:3, :3], atol=1e-12)


def test_solve_moves_to_a_solution_that_reaches_the_target() -> None:
    s = Session()
    s.target = TargetSpec("position", (150.0, 50.0, 100.0))
    out = s.solve()
    assert out.solved and s.status == "ok" and s.message.startswith("Solved")
    np.testing.assert_allclose(km.fk(s.robot, s.q)[:3, 3], [150, 50, 100], atol=1e-3)
    assert s.robot.within_limits(s.q)
    assert s.solutions and np.allclose(s.solutions[0].q, s.q)
    inside = [sol.within_limits for sol in s.solutions]
    assert inside == sorted(inside, reverse=True)  # those within the limits first


def test_an_unreachable_target_changes_nothing() -> None:
    s = Session()
    s.set_joint(0, 20.0)
    q = s.q.copy()
    s.target = TargetSpec("position", (500.0, 0.0, 0.0))
    out = s.solve()
    assert not out.solved and s.status == "error"
    assert "target out of reach" in s.message and "not moved" in s.message
    np.testing.assert_array_equal(s.q, q)
    assert s.solutions == []


def test_refusals_in_words_change_nothing() -> None:
    planar = Session(robot_name="planar-3r")
    q = planar.q.copy()
    planar.target = TargetSpec("position", (-10.0, 35.0, 5.0))
    assert not planar.solve().solved
    assert "off it" in planar.message and planar.status == "error"
    np.testing.assert_array_equal(planar.q, q)
    assert "approach" not in target_kinds(planar.robot)

    panda = Session(robot_name="panda")
    panda.method = "analytic"
    panda.target = panda.target_from_tool("pose")
    assert not panda.solve().solved
    assert "No analytic solver" in panda.message

    s = Session()
    s.target = TargetSpec("approach", (0.0, 0.0, 0.0), pitch_deg=float("nan"))
    assert not s.solve().solved and "NaN" in s.message


def test_analytic_branches_are_labelled_and_adopted() -> None:
    s = Session(robot_name="kuka-kr6-r900")
    goal = np.radians([30, 20, -30, 40, 50, 60])
    T = km.fk(s.robot, goal)
    s.target = TargetSpec("pose", tuple(T[:3, 3]), tuple(np.degrees(km.spatial.matrix_to_rpy(T[:3, :3]))))
    s.method = "analytic"
    assert s.solve().solved
    assert len(s.solutions) >= 4
    assert all("/" in sol.label or sol.label == "this solve" for sol in s.solutions)
    for i, sol in enumerate(s.solutions):
        np.testing.assert_allclose(km.fk(s.robot, sol.q), T, atol=1e-8)
        out = s.adopt(i)
        assert out.solved == sol.within_limits
        if sol.within_limits:
            np.testing.assert_array_equal(s.q, sol.q)
        else:
            assert "outside the joint limits" in out.message


def test_switching_robot_resets_q_target_and_solutions() -> None:
    s = Session()
    s.target = TargetSpec("position", (150.0, 50.0, 100.0))
    s.solve()
    s.set_robot("kuka-kr6-r900")
    assert s.robot.n == 6 and s.solutions == [] and s.message == ""
    np.testing.assert_array_equal(s.q, s.robot.q_home)
    assert s.target.kind == "pose"


def test_a_robot_file_is_offered_beside_the_bundled_ones(tmp_path) -> None:
    path = tmp_path / "arm.yaml"
    km.save(km.load("planar-3r").replace(name="my-arm"), path)
    s = Session()
    label = s.add_robot_file(path)
    assert label == "my-arm" and s.robot.name == "my-arm"
    path2 = tmp_path / "puma.yaml"
    km.save(km.load("puma560"), path2)
    assert s.add_robot_file(path2) == "puma560 (puma.yaml)"  # a bundled name is not shadowed
    s.set_robot("my-arm")
    assert s.robot.n == 3
    with pytest.raises(FileNotFoundError):
        s.add_robot_file(tmp_path / "missing.yaml")


def test_target_pose_marker() -> None:
    T = TargetSpec("pose", (1.0, 2.0, 3.0), (10.0, 20.0, 30.0)).pose()
    np.testing.assert_allclose(T[:3, :3], km.spatial.rpy_to_matrix(np.radians([10, 20, 30])))
    A = TargetSpec("approach", (1.0, 0.0, 0.0), pitch_deg=-90.0).pose()
    np.testing.assert_allclose(A[:3, 2], [0, 0, -1], atol=1e-12)
    np.testing.assert_array_equal(TargetSpec("position", (1.0, 2.0, 3.0)).pose()[:3, :3], np.eye(3))


def test_grid_scale_follows_the_length_unit() -> None:
    braccio, kuka = GridScale.for_robot(km.load("braccio")), GridScale.for_robot(km.load("kuka-kr6-r900"))
    assert braccio.caption == "grid squares of 100 mm"
    assert kuka.caption == "grid squares of 0.2 m"
    for g in (braccio, kuka):
        assert 3 <= g.reach / g.step <= 10  # the arm spans a few squares, whatever the unit
    assert nice_step(7.0) == 5.0 and nice_step(1.0) == 1.0 and nice_step(0.0199) == 0.01


def test_cylinders_are_laid_along_their_segment() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rng.normal(size=3), rng.normal(size=3)
        mid, R, length = along(a, b)
        R = np.array(R)
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-12)
        assert np.linalg.det(R) == pytest.approx(1.0)
        np.testing.assert_allclose(mid + R @ [0, length / 2, 0], b, atol=1e-12)
    np.testing.assert_allclose(np.array(turn_y_to([1.0, 0, 0])) @ [0, 1, 0], [1, 0, 0], atol=1e-12)
    assert along(np.ones(3), np.ones(3))[2] == 0.0
