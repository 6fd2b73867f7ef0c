"""`kinematica traj`: paper 004's line ends on the exact joints, files written and read back,
arcs, splines and joint moves equal the Python API, problem points reported per point, files
withheld for unsolved points (exit 1), and one-line errors on bad input (exit 2)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import kinematica as km
from cli_run import run, run_json
import readme

KUKA = "kuka-kr6-r900"
PAPER004 = ["line", "--to", "0.445", "0", "0.7735", "--rpy", "180", "0", "0", "--deg", "--n", "50"]
Q_END_004 = np.radians([-90, 0, 0, 0, -90, 0])
KUKA_WRIST_TURNED = ["--q0", "0", "0", "0", "-0.372862", "0", "0.372862"]  # home pose, wrist pre-turned
PUMA_Q0 = ["--q0", "0", "45", "-180", "0", "45", "0", "--deg"]  # a regular, in-limit configuration
PUMA_Q0_RAD = np.radians([0, 45, -180, 0, 45, 0])






def puma_points(*offsets) -> tuple[np.ndarray, list[str]]:
    """Points at offsets from the Puma's tool at PUMA_Q0, as arrays and as command-line values."""
    p0 = km.fk(km.load("puma560"), PUMA_Q0_RAD)[:3, 3]
    pts = np.array([p0 + np.asarray(o, float) for o in offsets])
    return pts, [[repr(float(x)) for x in p] for p in pts]


# --- paper 004's straight line ------------------------------------------------------------------
def test_paper004_line_ends_on_the_exact_joints(capsys):
    d = run_json(capsys, "traj", KUKA, *PAPER004)
    assert d["robot"] == KUKA and d["length_unit"] == "m" and d["mode"] == "line" and d["task"] == "pose"
    assert d["points"] == 51 and d["solved"] == 51 and d["duration"] == 1.0
    np.testing.assert_allclose(d["q_end"], Q_END_004, atol=1e-9)
    np.testing.assert_allclose(d["q_end_deg"], [-90, 0, 0, 0, -90, 0], atol=1e-9)
    np.testing.assert_allclose(d["q_start"], np.zeros(6), atol=0)
    np.testing.assert_allclose(d["end_pose"]["position"], [0.445, 0, 0.7735], atol=1e-12)
    assert d["end_position_error"] < 1e-12 and d["end_orientation_error"] < 1e-12
    assert d["motion"]["start_at_q0"] and d["q0_given"] is False
    np.testing.assert_allclose(d["motion"]["start"], [0, 0.5615, 0.89], atol=1e-12)
    np.testing.assert_allclose(d["motion"]["turn_deg"], 120.0, atol=1e-9)
    # home is a wrist singularity: the first step spins the wrist, reported in words, not hidden
    assert d["ok"] is False and d["problems"] == {"not_solved": 0, "joint_jumps": 1, "outside_limits": 0}
    assert [f["index"] for f in d["failures"]] == [1]
    assert d["failures"][0]["t"] == pytest.approx(0.02)
    assert "joint jump" in d["failures"][0]["reason"] and "A4" in d["failures"][0]["reason"]
    assert d["warnings"][0]["index"] == 0 and "singularity" in d["warnings"][0]["reason"]
    assert d["written"] == [] and d["withheld"] is None


def test_line_values_equal_the_python_api(capsys):
    robot = km.load(KUKA)
    d = run_json(capsys, "traj", KUKA, *PAPER004)
    T1 = np.eye(4)
    T1[:3, :3], T1[:3, 3] = km.spatial.rpy_to_matrix([np.pi, 0, 0]), [0.445, 0, 0.7735]
    tr, report = km.trajectory.follow(robot, km.trajectory.line(km.fk(robot, robot.q_home), T1, 50))
    speed = np.abs(tr.qd).max(axis=0)
    np.testing.assert_allclose(d["max_joint_speed"], speed, rtol=1e-13)
    np.testing.assert_allclose(d["max_joint_speed_deg"], np.degrees(speed), rtol=1e-13)
    assert d["units"]["max_joint_speed"] == ["rad/s"] * 6 and d["units"]["max_joint_speed_deg"] == ["deg/s"] * 6
    assert [(f["index"], f["reason"]) for f in d["failures"]] == report.failures
    np.testing.assert_allclose([f["t"] for f in d["failures"]], [tr.t[i] for i, _ in report.failures], rtol=1e-15)


def test_paper004_line_writes_csv_and_scenarios_that_load_back(capsys, tmp_path):
    csv, folder = tmp_path / "line.csv", tmp_path / "scen"
    d = run_json(capsys, "traj", KUKA, *PAPER004, "--out", str(csv), "--scenarios", str(folder))
    assert [w["format"] for w in d["written"]] == ["CSV"] + ["scenario"] * 6
    assert all(w["angle_unit"] == "deg" for w in d["written"])
    tr = km.trajectory.load(csv)
    assert len(tr) == 51 and tr.joint_names == ("A1", "A2", "A3", "A4", "A5", "A6")
    np.testing.assert_allclose(tr.q[-1], Q_END_004, atol=1e-9)
    np.testing.assert_allclose(tr.q[-1], d["q_end"], atol=1e-12)
    assert tr.poses is not None and np.allclose(tr.poses[-1][:3, 3], [0.445, 0, 0.7735], atol=1e-12)
    assert csv.read_text(encoding="utf-8").startswith("# kinematica-trajectory: length_unit=m angle_unit=deg")
    for j, name in enumerate(tr.joint_names):
        data = np.loadtxt(folder / f"{name}.txt")  # '#' header line, then "time value" in deg
        np.testing.assert_allclose(data[:, 0], tr.t, atol=1e-12)
        np.testing.assert_allclose(np.radians(data[:, 1]), tr.q[:, j], atol=1e-9)
    np.testing.assert_allclose(np.loadtxt(folder / "A5.txt")[-1, 1], -90.0, atol=1e-9)


def test_json_output_file_in_radians_round_trips(capsys, tmp_path):
    path = tmp_path / "line.json"
    d = run_json(capsys, "traj", KUKA, *KUKA_WRIST_TURNED, "line", "--to", "0.445", "0", "0.7735",
                 "--rpy", repr(np.pi), "0", "0", "--out", str(path))
    assert d["written"] == [{"path": str(path), "format": "JSON", "angle_unit": "rad"}]
    assert json.loads(path.read_text(encoding="utf-8"))["angle_unit"] == "rad"
    tr = km.trajectory.load(path)
    np.testing.assert_allclose(tr.q[-1], Q_END_004, atol=1e-9)
    np.testing.assert_allclose(tr.q[0], [0, 0, 0, -0.372862, 0, 0.372862], atol=1e-15)


def test_paper004_line_from_the_turned_wrist_is_clean(capsys):
    d = run_json(capsys, "traj", KUKA, *KUKA_WRIST_TURNED, "line", "--to", "0.445", "0", "0.7735",
                 "--rpy", repr(np.pi), "0", "0")
    assert d["ok"] is True and d["failures"] == [] and d["q0_given"] is True
    np.testing.assert_allclose(d["q_end"], Q_END_004, atol=1e-9)


def test_paper004_line_table(capsys):
    code, out, err = run(capsys, "traj", KUKA, *PAPER004)
    assert code == 0 and err == ""
    assert out.startswith("kuka-kr6-r900: 6 joints RRRRRR, lengths in m")
    for needle in ("straight line from the tool at q0 (0.0000, 0.5615, 0.8900)", "51 points over 1 s",
                   "RPY (180.0000, 0.0000, 0.0000)°", "1 problem point of 51: 1 joint jump",
                   "Problem points:", "point 1 (t = 0.02 s): joint jump", "Warnings:",
                   "written:   nothing", "A5      0.0000  -90.0000"):
        assert needle in out, needle
    assert max(len(line) for line in out.splitlines()) <= 100


def test_line_with_speed_start_and_position_task(capsys):
    d = run_json(capsys, "traj", "arm-5dof", "line", "--q0", "0", "30", "-30", "0", "0", "--deg",
                 "--to", "0.376", "0.05", "0.309", "--speed", "0.05", "--n", "20")
    assert d["task"] == "position" and d["ok"] and d["points"] == 21  # a 5-DOF arm follows the position
    assert d["duration"] == pytest.approx(np.hypot(0.05, 0.05) / 0.05)
    assert d["end_orientation_error"] is None and d["end_position_error"] < 1e-9
    assert d["motion"]["law"] == "constant tool speed" and d["motion"]["speed"] == pytest.approx(0.05)
    d = run_json(capsys, "traj", KUKA, *KUKA_WRIST_TURNED, "line", "--start", "0.4", "0.3", "0.7",
                 "--start-rpy", "180", "0", "0", "--to", "0.445", "0", "0.7735", "--deg",
                 "--vmax", "0.5", "--amax", "2")
    assert d["motion"]["start_at_q0"] is False and d["motion"]["turn"] == 0
    assert d["motion"]["law"].startswith("trapezoidal") and d["motion"]["speed"] <= 0.5
    assert d["notes"] and "away from the tool at q0" in d["notes"][0]
    np.testing.assert_allclose(d["end_pose"]["position"], [0.445, 0, 0.7735], atol=1e-12)


# --- arc and spline ----------------------------------------------------------------------------
def test_arc_through_three_points_on_the_puma(capsys):
    pts, args = puma_points([0, 0, 0], [0.05, 0.05, 0], [0.1, 0, 0])
    d = run_json(capsys, "traj", "puma560", "arc", *PUMA_Q0, "--through", *args[0], "--through", *args[1],
                 "--through", *args[2], "--n", "40")
    assert d["ok"] and d["points"] == 41  # 40 intervals; the middle point, at 90°, is sample 20
    m = d["motion"]
    np.testing.assert_allclose(m["centre"], pts[0] + [0.05, 0, 0], atol=1e-12)
    assert m["radius"] == pytest.approx(0.05) and m["angle_deg"] == pytest.approx(180)
    assert d["end_position_error"] < 1e-12
    np.testing.assert_allclose(d["end_pose"]["position"], pts[2], atol=1e-12)


def test_arc_from_the_tool_and_full_circle_written(capsys, tmp_path):
    pts, args = puma_points([0, 0, 0], [0.05, 0.05, 0], [0.1, 0, 0])
    path = tmp_path / "circle.csv"
    d = run_json(capsys, "traj", "puma560", "arc", *PUMA_Q0, "--through", *args[1], "--through", *args[2],
                 "--full", "--out", str(path))
    assert d["motion"]["kind"] == "circle" and d["motion"]["start_at_q0"] and d["ok"]
    assert d["points"] == 101 and d["motion"]["angle_deg"] == pytest.approx(360)  # 100 intervals
    np.testing.assert_allclose(d["q_end"], PUMA_Q0_RAD, atol=1e-9)  # back where it started
    tr = km.trajectory.load(path)
    P = tr.poses[:, :3, 3]
    c, n = np.array(d["motion"]["centre"]), np.array(d["motion"]["normal"])
    np.testing.assert_allclose(np.linalg.norm(P - c, axis=1), d["motion"]["radius"], atol=1e-12)
    np.testing.assert_allclose((P - c) @ n, 0, atol=1e-12)
    for p in pts:  # it passes through every given point
        assert np.linalg.norm(P - p, axis=1).min() < 1e-12
    q_fk = km.fk(km.load("puma560"), tr.q)[:, :3, 3]
    np.testing.assert_allclose(q_fk, P, atol=1e-12)


def test_spline_through_points(capsys):
    pts, args = puma_points([0, 0, 0], [0.05, 0.05, 0], [0.1, 0, 0.05], [0.15, 0.02, 0])
    flat = [a for p in args for a in ("--points", *p)]
    d = run_json(capsys, "traj", "puma560", "spline", *PUMA_Q0, *flat, "--n", "60")
    assert d["ok"] and d["motion"]["spline"] == "cubic" and d["points"] == 63  # + the 2 inner points
    assert d["notes"] == []  # the first point is the tool at q0
    robot = km.load("puma560")
    path = km.trajectory.spline(pts, 60, R=km.fk(robot, PUMA_Q0_RAD))
    tr, _ = km.trajectory.follow(robot, path, PUMA_Q0_RAD)
    np.testing.assert_allclose(d["q_end"], tr.q[-1], atol=1e-12)
    np.testing.assert_allclose(d["end_pose"]["position"], pts[-1], atol=1e-12)
    code, out, _ = run(capsys, "traj", "puma560", "spline", *PUMA_Q0, *flat, "--kind", "cubic")
    assert code == 0 and "C² cubic spline through 4 points" in out


def test_glued_spline(capsys):
    pts, args = puma_points([0, 0, 0], [0.05, 0.02, 0], [0.1, 0, 0], [0.15, -0.02, 0], [0.2, 0, 0])
    flat = [a for p in args for a in ("--points", *p)]
    d = run_json(capsys, "traj", "puma560", "spline", *PUMA_Q0, *flat, "--kind", "glued")
    assert d["ok"] and d["motion"]["spline"] == "glued" and d["motion"]["kink_deg"] == pytest.approx(0, abs=1e-6)
    np.testing.assert_allclose(d["end_pose"]["position"], pts[-1], atol=1e-12)


# --- joint mode --------------------------------------------------------------------------------
def test_joint_linear_through_poses_equals_the_api(capsys):
    robot = km.load("planar-3r")
    poses = [[30, 30, 20], [38.5, 68.8, 62.8], [60, 40, 10]]
    argv = [a for p in poses for a in ("--poses", *map(str, p))]
    d = run_json(capsys, "traj", "planar-3r", "joint", *argv, "--deg", "--duration", "4", "--n", "40")
    tr = km.trajectory.joint(np.radians(poses), 4, steps=40, robot=robot)
    assert d["ok"] and d["points"] == len(tr) and d["duration"] == 4 and d["task"] is None
    np.testing.assert_allclose(d["max_joint_speed"], np.abs(tr.qd).max(axis=0), rtol=1e-13)
    np.testing.assert_allclose(d["q_end_deg"], poses[-1], atol=1e-12)
    assert d["q0"] is None and d["motion"]["start_at_q0"] is False
    assert d["end_position_error"] is None


@pytest.mark.parametrize("profile", ["cubic", "quintic"])
def test_joint_polynomial_from_q0(capsys, profile):
    robot = km.load(KUKA)
    d = run_json(capsys, "traj", KUKA, "joint", "--to", "-90", "0", "0", "0", "-90", "0", "--deg",
                 "--profile", profile, "--duration", "2", "--n", "20")
    plan = getattr(km.trajectory, profile)
    tr = plan(np.zeros(6), Q_END_004, 2.0, steps=20, robot=robot)
    assert d["motion"]["start_at_q0"] and d["q0_given"] is False and d["points"] == 21
    np.testing.assert_allclose(d["max_joint_speed"], np.abs(tr.qd).max(axis=0), rtol=1e-13)
    # rest to rest: the top speed is 1.5 (cubic) or 1.875 (quintic) times the mean speed
    factor = {"cubic": 1.5, "quintic": 1.875}[profile]
    assert d["max_joint_speed_deg"][0] == pytest.approx(factor * 90 / 2)
    np.testing.assert_allclose(d["end_pose"]["position"], [0.445, 0, 0.7735], atol=1e-12)


def test_joint_trapezoidal_shortest_and_within_limits(capsys, tmp_path):
    d = run_json(capsys, "traj", KUKA, "joint", "--from", "0", "0", "0", "0", "0", "0", "--to", "-90", "0", "0",
                 "0", "-90", "0", "--deg", "--profile", "trapezoidal", "--vmax", "90", "--amax", "180")
    T = km.trajectory.min_duration(np.zeros(6), Q_END_004, np.radians(90), np.radians(180))
    assert d["duration"] == pytest.approx(T) == pytest.approx(1.5)
    assert max(d["max_joint_speed_deg"]) <= 90 + 1e-9
    assert d["motion"]["start_at_q0"] is False and d["q0"] is None
    # per-joint limits, stretched to a longer duration
    d = run_json(capsys, "traj", KUKA, "joint", "--to", "-90", "0", "0", "0", "-90", "0", "--deg",
                 "--profile", "trapezoidal", "--vmax", "90", "90", "90", "90", "45", "90", "--amax", "180",
                 "--duration", "3")
    assert d["duration"] == pytest.approx(3) and max(d["max_joint_speed_deg"]) <= 45 + 1e-9
    code, out, _ = run(capsys, "traj", KUKA, "joint", "--to", "-90", "0", "0", "0", "-90", "0", "--deg",
                       "--profile", "trapezoidal", "--vmax", "90", "--amax", "180")
    assert code == 0 and "(the shortest the limits allow)" in out and "vmax 90 deg/s, amax 180 deg/s²" in out


@pytest.mark.parametrize("blend", ["stop", "parabolic"])
def test_joint_trapezoidal_via_poses(capsys, tmp_path, blend):
    poses = [[0, 0, 0, 0, 0, 0], [-45, 10, 0, 0, -45, 0], [-90, 0, 0, 0, -90, 0]]
    argv = [a for p in poses for a in ("--poses", *map(str, p))]
    path = tmp_path / "via.csv"
    d = run_json(capsys, "traj", KUKA, "joint", *argv, "--deg", "--profile", "trapezoidal", "--vmax", "60",
                 "--amax", "120", "--blend", blend, "--out", str(path))
    assert d["ok"] and d["motion"]["blend"] == blend and max(d["max_joint_speed_deg"]) <= 60 + 1e-9
    tr = km.trajectory.load(path)
    np.testing.assert_allclose(np.degrees(tr.q[-1]), poses[-1], atol=1e-9)  # radians in the file
    if blend == "stop":  # at rest on the middle pose, which it passes exactly
        k = int(np.argmin(np.abs(np.degrees(tr.q) - poses[1]).max(axis=1)))
        np.testing.assert_allclose(np.degrees(tr.q[k]), poses[1], atol=1e-9)


def test_joint_move_outside_the_limits_is_reported_and_not_written(capsys, tmp_path):
    argv = ["traj", "planar-3r", "joint", "--to", "0", "90", "0", "--deg", "--n", "10"]
    d = run_json(capsys, *argv)  # θ1 = 0° is below planar-3r's lower limit of 20°
    assert d["ok"] is False and d["problems"]["outside_limits"] == len(d["failures"]) > 0
    assert all("θ1" in f["reason"] and "[20°, 160°]" in f["reason"] for f in d["failures"])
    path = tmp_path / "out.csv"
    d = run_json(capsys, *argv, "--out", str(path), code=1)
    assert d["written"] == [] and "outside the joint limits" in d["withheld"]
    assert not path.exists()


# --- problem points ----------------------------------------------------------------------------
def test_unreachable_waypoint_is_reported_per_point(capsys, tmp_path):
    argv = ["traj", KUKA, *KUKA_WRIST_TURNED, "spline", "--points", "0", "0.5615", "0.89",
            "--points", "0.9", "0.9", "0.9", "--points", "0.445", "0", "0.7735", "--n", "40"]
    d = run_json(capsys, *argv)  # the middle point is 1.6 m from the base: out of reach
    assert d["ok"] is False and 0 < d["solved"] < d["points"]
    unsolved = [f for f in d["failures"] if f["reason"].startswith("not solved")]
    assert len(unsolved) == d["problems"]["not_solved"] == d["points"] - d["solved"]
    assert any("out of reach" in f["reason"] for f in unsolved)
    assert all(f["index"] not in (0, d["points"] - 1) for f in unsolved)  # the ends are reachable
    code, out, err = run(capsys, *argv)
    assert code == 0 and "not solved" in out and "Problem points:" in out
    assert re.search(r"points \d+–\d+ \(t = ", out)  # a run of alike points on one line
    # asked for files: the report is printed, the files are withheld, exit 1 with one line
    path, folder = tmp_path / "s.csv", tmp_path / "scen"
    code, out, err = run(capsys, *argv, "--out", str(path), "--scenarios", str(folder))
    assert code == 1 and "withheld" in out and not path.exists() and not folder.exists()
    assert err.startswith("kinematica: error: not written (") and err.count("\n") == 1
    assert "points not solved" in err


def test_nothing_reachable_is_still_a_report(capsys):
    d = run_json(capsys, "traj", KUKA, *KUKA_WRIST_TURNED, "line", "--start", "2", "0", "0.5",
                 "--to", "2.5", "0", "0.5")
    assert d["solved"] == 0 and d["problems"]["not_solved"] == d["points"] == 51
    assert all("out of reach" in f["reason"] for f in d["failures"])


# --- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, needle", [
    (["arc", "--through", "0", "0.6", "0.9", "--through", "0", "0.7", "0.9", "--through", "0", "0.8", "0.9"],
     "collinear"),
    (["arc", "--through", "0", "0.6", "0.9"], "--through X Y Z three times"),
    (["line", "--to", "0", "0.5615", "0.89"], "zero-length path"),
    (["line", "--to", "0.4", "nan", "0.7"], "--to: value 2 is nan"),
    (["line", "--to", "0.4", "abc", "0.7"], "--to: value 2 is not a number"),
    (["line", "--to", "0.4", "0.7"], "a point is X Y Z in m, got 2"),
    (["line"], "the line mode needs --to"),
    (["line", "--to", "0.4", "0", "0.7", "--through", "1", "2", "3"], "--through goes with the arc mode"),
    (["joint", "--to", "0", "0", "0", "0", "0", "0", "--rpy", "0", "0", "0"], "--rpy goes with the line"),
    (["line", "--to", "0.4", "0", "0.7", "--n", "0"], "--n: expected a whole number >= 1"),
    (["line", "--to", "0.4", "0", "0.7", "--n", "ten"], "invalid int value"),
    (["line", "--to", "0.4", "0", "0.7", "--out", "x.txt"], "cannot tell the format"),
    (["line", "--to", "0.4", "0", "0.7", "--out", "no/such/folder/x.csv"], "does not exist"),
    (["line", "--to", "0.4", "0", "0.7", "--duration", "-1"], "--duration: must be > 0"),
    (["line", "--to", "0.4", "0", "0.7", "--duration", "2", "--speed", "1"], "not two"),
    (["line", "--to", "0.4", "0", "0.7", "--vmax", "1"], "--vmax and --amax go together"),
    (["line", "--to", "0.4", "0", "0.7", "--vmax", "1", "2", "--amax", "1"], "takes one value"),
    (["line", "--to", "0.4", "0", "0.7", "--start-rpy", "0", "0", "0"], "--start-rpy goes with --start"),
    (["line", "--to", "0.4", "0", "0.7", "--q0", "0", "0"], "--q0: kuka-kr6-r900 has 6 joints"),
    (["spline", "--points", "0", "0", "0.5", "--points", "0.1", "0", "0.5"], "at least three times"),
    (["spline", "--points", "0.4", "0", "0.5", "--points", "0.4", "0", "0.5", "--points", "0.5", "0", "0.5"],
     "coincide"),
    (["spline", "--points", "0.4", "0", "0.5", "--points", "0.5", "0", "0.5", "--points", "0.45", "0", "0.5",
      "--kind", "glued"], "--kind cubic"),
    (["joint"], "the joint mode needs --to"),
    (["joint", "--to", "0", "0", "0"], "--to: kuka-kr6-r900 has 6 joints"),
    (["joint", "--to", "0", "0", "0", "0", "0", "1", "--profile", "trapezoidal"], "needs --vmax and --amax"),
    (["joint", "--to", "0", "0", "0", "0", "0", "1", "--vmax", "1"], "--vmax goes with --profile trapezoidal"),
    (["joint", "--to", "0", "0", "0", "0", "0", "0", "--profile", "trapezoidal", "--vmax", "1", "--amax", "1"],
     "zero-length move"),
    (["joint", "--to", "0", "0", "0", "0", "0", "1", "--profile", "trapezoidal", "--vmax", "1", "2",
      "--amax", "1"], "--vmax: one value for every joint or 6"),
    (["joint", "--to", "0", "0", "0", "0", "0", "1", "--profile", "trapezoidal", "--vmax", "0", "--amax", "1"],
     "--vmax: must be > 0"),
    (["joint", "--to", "0", "0", "0", "0", "0", "1", "--profile", "trapezoidal", "--vmax", "1", "--amax", "1",
      "--duration", "0.1"], "shorter than the shortest"),
    (["joint", "--from", "0", "0", "0", "0", "0", "0", "--to", "0", "0", "0", "0", "0", "1", "--q0", "0", "0",
      "0", "0", "0", "0"], "--q0 and the first pose"),
    (["joint", "--poses", "0", "0", "0", "0", "0", "1", "--to", "0", "0", "0", "0", "0", "1"], "not both"),
    (["joint", "--poses", "0", "0", "0", "0", "0", "1", "--poses", "0", "0", "0", "0", "1", "1", "--poses",
      "0", "0", "0", "1", "1", "1", "--profile", "trapezoidal", "--vmax", "1", "--amax", "1", "--duration", "9"],
     "--duration: a trapezoidal move through via poses"),
    (["circle"], "invalid choice"),
    (["line", "--to", "0.4", "0", "0.7", "--task", "bogus"], "invalid choice"),
])
def test_bad_input_is_one_line(capsys, argv, needle):
    code, out, err = run(capsys, "traj", KUKA, *argv)
    assert code == 2, err
    assert out == "" and err.count("\n") == 1 and err.startswith("kinematica: error: ")
    assert needle in err, err
    assert "Traceback" not in err


def test_mode_after_an_option_of_several_values(capsys):
    """`traj ROBOT --q0 0 … 0 line …`: argparse reads `line` as a value of --q0; it is the mode."""
    a = run_json(capsys, "traj", KUKA, *KUKA_WRIST_TURNED, "line", "--to", "0.445", "0", "0.7735")
    b = run_json(capsys, "traj", KUKA, "line", *KUKA_WRIST_TURNED, "--to", "0.445", "0", "0.7735")
    assert a == b and a["mode"] == "line"
    d = run_json(capsys, "traj", KUKA, "--poses", "0", "0", "0", "0", "0", "0", "joint", "--poses", "1", "0", "0",
                 "0", "0", "0", "--deg")
    assert d["points"] == 101 and d["q_end_deg"][0] == pytest.approx(1)
    d = run_json(capsys, "traj", KUKA, "joint", "--poses", "1", "0", "0", "0", "0", "0", "--deg")  # from home
    assert d["motion"]["start_at_q0"] and len(d["motion"]["poses"]) == 2
    for argv, needle in ((["--q0", "line", "--to", "1", "2", "3"], "--q0: expected values before line"),
                         (["--to", "1", "2", "3"], "MODE is missing")):
        code, out, err = run(capsys, "traj", KUKA, *argv)
        assert code == 2 and needle in err and err.count("\n") == 1
    code, out, err = run(capsys, "traj", "line", "--to", "1", "2", "3")
    assert code == 2 and "ROBOT is missing" in err


def test_scenarios_must_be_a_folder(capsys, tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x", encoding="utf-8")
    code, out, err = run(capsys, "traj", KUKA, "joint", "--to", "0", "0", "0", "0", "0", "1", "--scenarios", str(f))
    assert code == 2 and "is a file; give a folder" in err


def test_help_lists_traj(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "traj" in out
    code, out, _ = run(capsys, "traj", "--help")
    assert code == 0
    for flag in ("--poses", "--profile", "--through", "--full", "--points", "--kind", "--task", "--scenarios"):
        assert flag in out


# --- README.md: the traj examples show real output --------------------------------------------
_SECTION = "## Trajectories: `kinematica traj`"


def test_readme_traj_examples_are_real(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples write files in the working directory
    examples = [b for b in readme.blocks("console", _SECTION) if b.startswith("$ kinematica traj ")]
    assert len(examples) >= 3
    for block in examples:
        command, expected = block.split("\n", 1)
        code, out, err = run(capsys, *command.split()[2:])
        readme.assert_same_text(out + err, expected, what=command)
    snippet = readme.blocks("python", _SECTION)[0]
    exec(compile(snippet, "docs/cli.md", "exec"), {})
    printed = capsys.readouterr().out
    assert any(readme.same_text(printed, t) for t in readme.blocks("text", _SECTION)), printed
