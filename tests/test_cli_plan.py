"""`kinematica plan` (issue 27): a path around the box of the bundled kuka-table scene, written as
a trajectory file the scene check reads back clear; refusals in words; one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from cli_run import run, run_json

pytest.importorskip("ompl")

# joint 1 swings the KUKA's flange across the box on the table, 13 mm below its top (straight in
# joint space it hits it)
START = ["-0.9", "-0.56", "-0.24", "0", "0.03", "0"]
GOAL = ["0.3", "-0.56", "-0.24", "0", "0.03", "0"]
IN_BOX = ["-0.3", "-0.56", "-0.24", "0", "0.03", "0"]


def test_plan_writes_a_trajectory_the_scene_check_finds_clear(capsys, tmp_path):
    out = tmp_path / "plan.csv"
    d = run_json(capsys, "plan", "kuka-table", "--start", *START, "--goal", *GOAL, "--seed", "3",
                 "--out", str(out))
    assert d["success"] and d["robot"] == "kuka" and d["planner"] == "rrtconnect" and d["seed"] == 3
    assert d["status"] == "Exact solution" and d["length_unit"] == "m"
    path = np.array(d["path"])
    np.testing.assert_allclose(path[[0, -1]], np.array([START, GOAL], dtype=float), atol=1e-12)
    np.testing.assert_allclose(np.array(d["path_deg"]), np.degrees(path), rtol=1e-12)  # all joints revolute
    assert d["written"]["path"] == str(out) and d["trajectory"]["duration"] > 0
    # read back by the scene check, ten times finer than the plan's resolution
    chk = run_json(capsys, "scene", "check", "kuka-table", "--trajectory", f"kuka={out}",
                   "--resolution", str(d["resolution"] / 10))
    assert chk["trajectory"]["colliding"] is False
    # the straight line would not have been
    tr = km.trajectory.joint([np.array(START, float), np.array(GOAL, float)], duration=1.0,
                             robot=km.load("kuka-kr6-r900"))
    scene = km.Scene.load("kuka-table")
    assert km.scene.check_trajectory(scene, {"kuka": tr}, resolution=d["resolution"]).colliding


def test_plan_table_view(capsys):
    code, out, err = run(capsys, "plan", "kuka-table", "--start", *START, "--goal", *GOAL, "--seed", "3")
    assert code == 0 and err == ""
    assert out.startswith("plan for kuka in scene kuka-table with rrtconnect: OK\n")
    assert "OMPL status: Exact solution" in out and "waypoint" in out


def test_a_goal_in_the_box_is_reported_and_no_file_written(capsys, tmp_path):
    d = run_json(capsys, "plan", "kuka-table", "--start", *START, "--goal", *IN_BOX)
    assert d["success"] is False and d["reason"] == "the goal is in collision: kuka/link6 touches box"
    out = tmp_path / "plan.json"
    code, text, err = run(capsys, "plan", "kuka-table", "--start", *START, "--goal", *IN_BOX, "--out", str(out))
    assert code == 1 and not out.exists()
    assert "FAILED" in text
    assert err == (f"kinematica: error: not written ({out}): no path: the goal is in collision: "
                   "kuka/link6 touches box\n")


@pytest.mark.parametrize("extra, message", [
    (["--planner", "astar"], "argument --planner: invalid choice: 'astar'"),
    (["--time-limit", "0"], "--time-limit: expected seconds in (0, 3600], got 0"),
    (["--seed", "-2"], "--seed: expected a whole number from 1 to 4294967295, got -2"),
    (["--seed", "x"], "--seed: expected a whole number, got 'x'"),
    (["--robot", "arm"], "--robot: unknown robot 'arm': the scene has kuka"),
    (["--resolution", "nan"], "--resolution: value 1 is nan: give finite numbers"),
    (["--out", "plan.txt"], "--out: cannot tell the format of 'plan.txt': use .csv or .json"),
    (["--planner", "prm", "--seed", "4"], "seed: OMPL's PRM grows its roadmap in a second thread"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, extra, message):
    code, out, err = run(capsys, "plan", "kuka-table", "--start", *START, "--goal", *GOAL, *extra)
    assert code == 2 and out == ""
    assert err.startswith("kinematica: error: ") and message in err and err.count("\n") == 1


def test_a_wrong_count_of_joint_values_names_the_option(capsys):
    code, _, err = run(capsys, "plan", "kuka-table", "--start", *START[:5], "--goal", *GOAL)
    assert code == 2 and "--start: kuka-kr6-r900 has 6 joints (A1 A2 A3 A4 A5 A6): expected 6 joint values, got 5" in err


def test_a_goal_pose_as_position_and_rpy(capsys):
    # the flange pose of GOAL, given as a target: reached at one of its collision-free IK solutions
    robot = km.load("kuka-kr6-r900")
    T = km.fk(robot, np.array(GOAL, float))
    rpy = km.spatial.matrix_to_rpy(T[:3, :3])
    d = run_json(capsys, "plan", "kuka-table", "--start", *START, "--position", *map(repr, T[:3, 3].tolist()),
                 "--rpy", *map(repr, rpy.tolist()), "--seed", "3")
    assert d["success"], d["reason"]
    assert d["target"]["kind"] == "pose" and "of the goal target" in d["reason"]
    T_end = km.fk(robot, np.array(d["path"][-1]))
    assert np.abs(T_end[:3, 3] - T[:3, 3]).max() < 1e-6  # km.ik_all's FK check holds solutions to 1e-6 m
    # a position on the box: every posture reaching it collides
    d = run_json(capsys, "plan", "kuka-table", "--start", *START, "--position", "0.15", "0.6", "0.45")
    assert d["success"] is False and d["reason"].startswith("every IK solution of the goal target")
    assert "touches box" in d["reason"]


@pytest.mark.parametrize("goal, message", [
    ([], "give the goal: --goal joint values, or --position X Y Z (with an orientation)"),
    (["--goal", *GOAL, "--position", "1", "1", "1"], "give the goal as --goal joint values or as a --position"),
    (["--goal", *GOAL, "--rpy", "0", "0", "0"], "--rpy belongs to a --position goal, not to --goal"),
])
def test_the_goal_is_given_one_way(capsys, goal, message):
    code, out, err = run(capsys, "plan", "kuka-table", "--start", *START, *goal)
    assert code == 2 and out == "" and message in err


def test_a_long_plan_reports_progress_on_stderr(capsys, tmp_path):
    # a wall no path gets round (as in test_plan): the 2.5 s the planner searches is reported on
    # stderr (after the first second, then every 2 s) so the run never looks like a hang
    scene = tmp_path / "wall.yaml"
    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "planar-3r")
    s.add_obstacle("wall", "box", pose=km.spatial.transl([0, 16, 0]), size=(2, 10, 40))
    s.save(scene)
    code, out, err = run(capsys, "plan", str(scene), "--start", "0.8", "0", "0", "--goal", "2.3", "0", "0",
                         "--time-limit", "2.5")
    assert code == 0 and "no path found within 2.5 s" in out, (code, out, err)
    lines = [ln for ln in err.splitlines() if "planning with rrtconnect" in ln]
    assert lines and "of 2.5 s" in lines[0] and "states checked" in lines[0] and "Ctrl+C" in lines[0], err
