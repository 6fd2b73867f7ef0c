"""The `kinematica` command line: every subcommand, its JSON, and one-line errors on bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica import demo
from cli_run import run, run_json
import readme

KUKA_HOME = ["kuka-kr6-r900", "0", "0", "0", "0", "0", "0"]






# --- robots and show -----------------------------------------------------------------------
def test_robots_table_lists_every_bundled_robot(capsys):
    code, out, err = run(capsys, "robots")
    assert code == 0 and err == ""
    for name in km.robot_names():
        assert name in out
    assert "RRRRRR" in out and "kuka-kr6-r900" in out


def test_robots_json(capsys):
    data = run_json(capsys, "robots")
    assert [r["name"] for r in data] == km.robot_names()
    by_name = {r["name"]: r for r in data}
    assert by_name["kuka-kr6-r900"]["dof"] == 6
    assert by_name["planar-3r"]["length_unit"] == "mm"
    for r in data:
        assert {"name", "dof", "length_unit", "description"} <= set(r)


def test_show_table_as_written(capsys):
    code, out, err = run(capsys, "show", "arm-4dof")
    assert code == 0 and err == ""
    assert "standard DH" in out and "alpha (deg)" in out and "d (mm)" in out
    assert "-360.00" in out  # limits in degrees
    assert "Mydynskyi" in out  # source


def test_show_json(capsys):
    data = run_json(capsys, "show", "kuka-kr6-r900")
    assert data["name"] == "kuka-kr6-r900" and data["dof"] == 6
    assert data["table"]["kind"] == "frames"
    assert data["table"]["rows"][1][2] == [0, 0.025, 0.176]
    np.testing.assert_allclose(data["limits_deg"][0], [-170, 170])
    np.testing.assert_allclose(data["tool"], km.load("kuka-kr6-r900").tool)
    assert "Golomazdin" in data["source"] and data["notes"]


def test_show_unlimited_joints_are_null_in_json(capsys):
    data = run_json(capsys, "show", "arm-5dof")
    assert data["limits"][0] == [None, None]
    assert data["inertials"][0]["mass"] == pytest.approx(0.102)


# --- fk --------------------------------------------------------------------------------------
def test_fk_json_kuka_home(capsys):
    data = run_json(capsys, "fk", *KUKA_HOME)
    for key in ("robot", "length_unit", "q", "q_deg", "T", "position", "rpy", "frames"):
        assert key in data
    assert data["robot"] == "kuka-kr6-r900" and data["length_unit"] == "m"
    np.testing.assert_allclose(data["position"], [0, 0.5615, 0.89], atol=1e-12)
    np.testing.assert_allclose(data["T"], km.fk(km.load("kuka-kr6-r900"), np.zeros(6)), atol=1e-12)
    assert len(data["frames"]) == 6 + 2
    np.testing.assert_allclose(data["frames"][-1], data["T"], atol=1e-12)


def test_fk_deg_converts_revolute_values(capsys):
    data = run_json(capsys, "fk", "kuka-kr6-r900", "-90", "0", "0", "0", "-90", "0", "--deg")
    np.testing.assert_allclose(data["position"], [0.445, 0, 0.7735], atol=1e-12)
    np.testing.assert_allclose(data["q"], [-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])
    np.testing.assert_allclose(data["q_deg"], [-90, 0, 0, 0, -90, 0])
    rad = run_json(capsys, "fk", "kuka-kr6-r900", str(-np.pi / 2), "0", "0", "0", str(-np.pi / 2), "0")
    np.testing.assert_allclose(rad["T"], data["T"], atol=1e-12)


def test_fk_table_paper000(capsys):
    code, out, err = run(capsys, "fk", "planar-3r", "30", "30", "20", "--deg", "--frames")
    assert code == 0 and err == ""
    assert "(30.7935, 47.0167, 0.0000)" in out
    assert "position (mm)" in out and "RPY (deg)" in out and "80.0000" in out
    assert "Frame origins (mm)" in out and "tool" in out


def test_fk_accepts_negative_exponent_values(capsys):
    data = run_json(capsys, "fk", "planar-3r", "1", "-1e-3", "2")
    np.testing.assert_allclose(data["q"], [1, -1e-3, 2])


# --- jacobian --------------------------------------------------------------------------------
def test_jacobian_json_arm4dof_stretched_is_rank_2(capsys):
    data = run_json(capsys, "jacobian", "arm-4dof", "0", "0", "0", "0")
    for key in ("robot", "length_unit", "q", "q_deg", "J", "rows", "rank", "manipulability",
                "det_JJT", "condition", "singular_values", "singularity"):
        assert key in data
    assert np.shape(data["J"]) == (6, 4)
    assert data["rows"] == "position" and data["rank"] == 2
    assert data["det_JJT"] == pytest.approx(0, abs=1e-9)
    assert data["condition"] is None  # infinite
    assert data["singularity"]["singular"] is True and data["singularity"]["kind"] == "elbow"
    np.testing.assert_allclose(data["J"][2], [0, 270, 188, 60], atol=1e-9)


def test_jacobian_frame_and_rows_options(capsys):
    q = ["10", "-20", "30", "0", "45", "0"]
    base = run_json(capsys, "jacobian", "kuka-kr6-r900", *q, "--deg")
    tool = run_json(capsys, "jacobian", "kuka-kr6-r900", *q, "--deg", "--frame", "tool")
    pos = run_json(capsys, "jacobian", "kuka-kr6-r900", *q, "--deg", "--rows", "position")
    robot = km.load("kuka-kr6-r900")
    qr = np.radians([10, -20, 30, 0, 45, 0])
    np.testing.assert_allclose(tool["J"], km.jacobian(robot, qr, frame="tool"), atol=1e-12)
    assert base["rows"] == "full" and base["rank"] == 6 and base["singularity"]["singular"] is False
    assert tool["singular_values"] == pytest.approx(base["singular_values"])
    assert pos["rows"] == "position" and len(pos["singular_values"]) == 3


def test_jacobian_table(capsys):
    code, out, err = run(capsys, "jacobian", "planar-3r", "30", "30", "20", "--deg")
    assert code == 0 and err == ""
    assert "task rows" in out and "planar" in out and "rank" in out and "regular" in out


# --- demo ------------------------------------------------------------------------------------
def test_demo_table(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0 and err == ""
    for text in ("(30.7935, 47.0167)", "(-9.998, 34.984)", "36.40", "(270.000, 0.000, 70.000)",
                 "(0.409, 0.000, 0.236)", "(0.0000, 0.5615, 0.8900)", "(0.4450, 0.0000, 0.7735)",
                 "wrist", "erratum"):
        assert text in out
    for paper in ("000", "001", "002", "003", "004"):
        assert f"Paper {paper}" in out


def test_demo_json_values(capsys):
    data = run_json(capsys, "demo")
    assert [e["paper"] for e in data[:5]] == ["000", "001", "002", "003", "004"]
    checks = {e["paper"]: e["checks"] for e in data[:5]}
    np.testing.assert_allclose(checks["000"][0]["value"], [30.79, 47.02], atol=5e-3)
    np.testing.assert_allclose(checks["000"][3]["value"], [-10, 35], atol=0.02)
    assert checks["000"][2]["value"]["reachable"] is True
    assert checks["001"][1]["value"] == 2
    assert checks["001"][3]["value"]["singular"] is True
    np.testing.assert_allclose(checks["002"][0]["value"], [0.409, 0, 0.236], atol=1e-12)
    assert checks["002"][2]["value"] < 1e-12  # corrected closed forms == FK
    np.testing.assert_allclose(checks["003"][0]["value"]["position"], [59.98, 21.83, 42.33], atol=0.01)
    np.testing.assert_allclose(checks["004"][0]["value"], [0, 0.5615, 0.89], atol=1e-12)
    assert checks["004"][2]["value"]["kind"] == "wrist"
    np.testing.assert_allclose(checks["004"][3]["value"], [0.445, 0, 0.7735], atol=1e-12)


def test_demo_ik_rows(capsys):
    data = run_json(capsys, "demo")
    ik = data[5:]
    assert [e["paper"] for e in ik] == ["000", "001", "003", "004"]
    c000, c001, c003, c004 = (e["checks"] for e in ik)
    tight, loose, far, stuck = (c["value"] for c in c000)
    np.testing.assert_allclose(tight["q_deg"], [38.509, 68.800, 62.749], atol=5e-4)
    assert tight["success"] and tight["iterations"] == 6 and tight["position_error"] < 1e-9
    np.testing.assert_allclose(loose["q_deg"], tight["q_deg"], atol=1e-3)
    assert loose["success"] and loose["iterations"] == 5
    assert not far["success"] and far["iterations"] == 0
    assert far["reason"].startswith("target out of reach: |p| = 70.71 mm > 60 mm")
    assert not stuck["success"] and stuck["reason"].startswith("stalled at joint limit")
    transpose_p, transpose_m, dls_p, dls_m = (c["value"] for c in c001)
    for v, sign in ((transpose_p, 1), (transpose_m, -1)):
        np.testing.assert_allclose(v["q_deg"], [sign * 33.69, 39.07, -67.97, -56.74], atol=0.01)
        assert v["success"] and v["method"] == "transpose" and 50 <= v["iterations"] <= 60
        assert v["det_JJT"] == pytest.approx(1.107e13, rel=1e-3)
    for v, sign in ((dls_p, 1), (dls_m, -1)):
        np.testing.assert_allclose(v["q_deg"], [sign * 33.69, 51.84, -102.37, 14.07], atol=0.01)
        assert v["success"] and v["method"] == "dls" and v["iterations"] == 11
    assert "57 iterations" in c001[1]["note"] and "7 iterations" in c001[3]["note"]
    down, up, every = (c["value"] for c in c003)
    np.testing.assert_allclose(down["q_deg"][:4], [20.00, 16.30, 44.22, -15.52], atol=0.01)
    np.testing.assert_allclose(up["q_deg"][:4], [20.00, 45.10, -44.22, 44.13], atol=0.01)
    assert down["method"] == up["method"] == "analytic"
    assert "elbow down" in down["branch"] and "elbow up" in up["branch"]
    assert "erratum" in c003[0]["note"] and len(every) == 4
    line, printed, newton, exact, branches = (c["value"] for c in c004)
    end = [-np.pi / 2, 0, 0, 0, -np.pi / 2, 0]
    np.testing.assert_allclose(line["q"], end, atol=1e-12)
    assert printed["position_error"] == pytest.approx(0.0176, abs=1e-4)
    assert np.degrees(printed["orientation_error"]) == pytest.approx(3.9, abs=0.05)
    assert newton["success"] and newton["method"] == "newton"
    kuka = km.load("kuka-kr6-r900")
    np.testing.assert_allclose(km.fk(kuka, newton["q"]), km.fk(kuka, end), atol=1e-8)
    np.testing.assert_allclose(exact["q"], end, atol=1e-12)
    assert len(branches) == 8 and len({b["branch"] for b in branches}) == 8
    assert sum(b["within_limits"] for b in branches) == 4


def test_demo_ik_table(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0 and err == ""
    for text in ("(38.509, 68.800, 62.749)°, 6 iterations", "(38.509, 68.800, 62.749)°, 5 iterations",
                 "target out of reach: |p| = 70.71 mm > 60 mm", "stalled at joint limit",
                 "(33.69, 39.07, -67.97, -56.74)°, 54 iterations",
                 "(-33.69, 51.84, -102.37, 14.07)°, 11 iterations",
                 "(20.00, 16.30, 44.22, -15.52)° [front / elbow down]",
                 "(20.00, 45.10, -44.22, 44.13)° [front / elbow up]",
                 "tool 17.6 mm and 3.9° from the end pose", "8 solutions, 4 within",
                 "(-1.5708, 0.0000, 0.0000, 0.0000, -1.5708, 0.0000) [shoulder front / elbow up"):
        assert text in out


def test_demo_examples_are_a_list_of_entries():
    assert all(isinstance(e, demo.Example) for e in demo.EXAMPLES)
    for e in demo.EXAMPLES:
        assert e.robot in km.robot_names()
        assert all(isinstance(c, demo.Check) for c in demo.run(e))


# --- ik --------------------------------------------------------------------------------------
IK_KEYS = {"robot", "length_unit", "reachable", "message", "solutions"}
SOLUTION_KEYS = {"q", "q_deg", "position_error", "orientation_error", "iterations", "method",
                 "within_limits", "branch", "near_singular"}
KUKA_END = [-np.pi / 2, 0, 0, 0, -np.pi / 2, 0]
Q_SAMPLE = [0.3, 0.2, -0.4, 0.5, 0.6, 0.7]


def _one_solution(data):
    assert IK_KEYS <= set(data)
    assert data["reachable"] is True and len(data["solutions"]) == 1
    sol = data["solutions"][0]
    assert set(sol) == SOLUTION_KEYS
    np.testing.assert_allclose(sol["q_deg"], np.degrees(sol["q"]))
    return sol


def test_ik_json_paper000_planar(capsys):
    data = run_json(capsys, "ik", "planar-3r", "--position", "-10", "35", "--q0", "30", "30", "20",
                    "--deg")
    sol = _one_solution(data)
    assert data["robot"] == "planar-3r" and data["length_unit"] == "mm"
    assert data["message"] == "converged" and data["target"]["kind"] == "planar"
    np.testing.assert_allclose(sol["q_deg"], [38.509, 68.800, 62.749], atol=5e-4)
    assert sol["iterations"] == 5 and sol["method"] == "lm" and sol["branch"] is None
    assert sol["within_limits"] is True and sol["near_singular"] is False
    assert sol["position_error"] < 1e-3
    np.testing.assert_allclose(km.fk(km.load("planar-3r"), sol["q"])[:2, 3], [-10, 35], atol=1e-3)
    tight = run_json(capsys, "ik", "planar-3r", "--position", "-10", "35", "--q0", "30", "30", "20",
                     "--deg", "--tol", "1e-9")
    assert tight["solutions"][0]["iterations"] == 6
    assert tight["solutions"][0]["position_error"] < 1e-9


def test_ik_planar_heading_phi(capsys):
    robot = km.load("planar-3r")
    q = np.radians([40.0, 60.0, 50.0])
    x, y = km.fk(robot, q)[:2, 3]
    data = run_json(capsys, "ik", "planar-3r", "--position", str(x), str(y), "--phi", "150", "--deg",
                    "--method", "analytic")
    sol = _one_solution(data)
    np.testing.assert_allclose(sol["q"], q, atol=1e-9)
    assert sol["method"] == "analytic" and "elbow" in sol["branch"]
    assert data["target"]["phi"] == pytest.approx(np.radians(150))
    rad = run_json(capsys, "ik", "planar-3r", "--position", str(x), str(y), "--phi",
                   str(np.radians(150)))  # lm, angles in rad
    T = km.fk(robot, rad["solutions"][0]["q"])
    np.testing.assert_allclose(T[:2, 3], [x, y], atol=1e-3)
    assert np.degrees(np.arctan2(T[1, 0], T[0, 0])) == pytest.approx(150, abs=1e-4)


def _kuka_pose_forms():
    from scipy.spatial.transform import Rotation
    T = km.fk(km.load("kuka-kr6-r900"), Q_SAMPLE)
    R = Rotation.from_matrix(T[:3, :3])
    return T, {"--rpy": km.spatial.matrix_to_rpy(T[:3, :3]), "--euler-zyz": R.as_euler("ZYZ"),
               "--quat": R.as_quat(scalar_first=True)}


@pytest.mark.parametrize("flag", ["--rpy", "--euler-zyz", "--quat"])
@pytest.mark.parametrize("method", ["lm", "gn", "analytic"])
def test_ik_json_pose_forms(capsys, flag, method):
    T, forms = _kuka_pose_forms()
    data = run_json(capsys, "ik", "kuka-kr6-r900", "--position", *map(str, T[:3, 3]),
                    flag, *map(str, forms[flag]), "--method", method)
    sol = _one_solution(data)
    assert data["target"]["kind"] == "pose" and data["target"]["constraints"] == 6
    assert sol["method"] == method and sol["position_error"] < 1e-6
    np.testing.assert_allclose(km.fk(km.load("kuka-kr6-r900"), sol["q"]), T, atol=1e-6)
    assert (sol["branch"] is not None) == (method == "analytic")


def test_ik_deg_applies_to_every_angle_input(capsys):
    T, forms = _kuka_pose_forms()
    pos = list(map(str, T[:3, 3]))
    for flag in ("--rpy", "--euler-zyz"):
        rad = run_json(capsys, "ik", "kuka-kr6-r900", "--position", *pos, flag, *map(str, forms[flag]),
                       "--q0", *map(str, Q_SAMPLE))
        deg = run_json(capsys, "ik", "kuka-kr6-r900", "--position", *pos, flag,
                       *map(str, np.degrees(forms[flag])), "--q0", *map(str, np.degrees(Q_SAMPLE)),
                       "--deg")
        np.testing.assert_allclose(deg["q0"], rad["q0"], atol=1e-12)
        np.testing.assert_allclose(deg["solutions"][0]["q"], rad["solutions"][0]["q"], atol=1e-9)


def test_ik_json_pitch_and_approach_paper003(capsys):
    p = ["59.98", "21.83", "42.33"]
    data = run_json(capsys, "ik", "arm-5dof-geo", "--position", *p, "--pitch", "45", "--deg",
                    "--method", "analytic")
    sol = _one_solution(data)
    assert data["target"]["kind"] == "approach"
    np.testing.assert_allclose(sol["q_deg"][:4], [20.00, 16.30, 44.22, -15.52], atol=0.01)
    assert sol["branch"] == "front / elbow down"
    a = data["target"]["approach"]
    by_vector = run_json(capsys, "ik", "arm-5dof-geo", "--position", *p, "--approach", *map(str, a))
    T = km.fk(km.load("arm-5dof-geo"), by_vector["solutions"][0]["q"])
    np.testing.assert_allclose(T[:3, 3], [59.98, 21.83, 42.33], atol=1e-3)
    np.testing.assert_allclose(T[:3, 2], a, atol=1e-6)


@pytest.mark.parametrize("method, expected, iterations", [
    ("transpose", [33.69, 39.07, -67.97, -56.74], 54),
    ("dls", [33.69, 51.84, -102.37, 14.07], 11),
])
def test_ik_json_position_only_paper001(capsys, method, expected, iterations):
    data = run_json(capsys, "ik", "arm-4dof", "--position", "150", "100", "0", "--q0", "0", "0", "0",
                    "0", "--method", method)
    sol = _one_solution(data)
    assert data["target"]["kind"] == "position"
    np.testing.assert_allclose(sol["q_deg"], expected, atol=0.01)
    assert sol["iterations"] == iterations and sol["orientation_error"] == 0


def test_ik_all_kuka_end_pose_eight_branches(capsys):
    data = run_json(capsys, "ik", "kuka-kr6-r900", "--position", "0.445", "0", "0.7735",
                    "--rpy", "180", "0", "0", "--deg", "--all")
    assert data["reachable"] is True and data["all"] is True
    sols = data["solutions"]
    assert len(sols) == 8 and data["message"].startswith("8 solutions, 4 within the joint limits")
    labels = [s["branch"] for s in sols]
    assert len(set(labels)) == 8
    for label in labels:
        assert "shoulder" in label and "elbow" in label and "wrist" in label
    assert all(set(s) == SOLUTION_KEYS and s["method"] == "analytic" for s in sols)
    np.testing.assert_allclose(sols[0]["q"], KUKA_END, atol=1e-12)  # nearest to home
    kuka = km.load("kuka-kr6-r900")
    for s in sols:
        np.testing.assert_allclose(km.fk(kuka, s["q"]), km.fk(kuka, KUKA_END), atol=1e-9)
        assert s["within_limits"] == bool(kuka.within_limits(s["q"]))
    d = [np.linalg.norm((np.array(s["q"]) + np.pi) % (2 * np.pi) - np.pi) for s in sols]
    assert np.all(np.diff(d) >= -1e-9)  # nearest to q0 first (ties in either order)


def test_ik_all_redundant_planar_samples_the_family(capsys):
    data = run_json(capsys, "ik", "planar-3r", "--position", "-10", "35", "--all")
    assert len(data["solutions"]) > 2 and "degree of freedom free" in data["message"]
    robot = km.load("planar-3r")
    for s in data["solutions"]:
        np.testing.assert_allclose(km.fk(robot, s["q"])[:2, 3], [-10, 35], atol=1e-3)
    assert any(s["within_limits"] for s in data["solutions"])


@pytest.mark.parametrize("extra", [[], ["--all"], ["--method", "transpose"]])
def test_ik_unreachable_is_a_normal_answer(capsys, extra):
    data = run_json(capsys, "ik", "planar-3r", "--position", "50", "50", *extra)
    assert data["reachable"] is False and data["solutions"] == []
    assert data["message"] == "target out of reach: |p| = 70.71 mm > 60 mm (the arm's full reach)"
    code, out, err = run(capsys, "ik", "planar-3r", "--position", "50", "50", *extra)
    assert code == 0 and err == ""
    assert "unreachable: target out of reach" in out and "No solution." in out


def test_ik_unsolved_is_a_normal_answer(capsys):
    data = run_json(capsys, "ik", "planar-3r", "--position", "-10", "35", "--q0", "80", "-50", "30",
                    "--deg", "--restarts", "0")
    assert data["reachable"] is True and data["solutions"] == []
    assert data["message"].startswith("stalled at joint limit θ2 = -100°")


def test_ik_table_views(capsys):
    code, out, err = run(capsys, "ik", "kuka-kr6-r900", "--position", "0.445", "0", "0.7735",
                         "--rpy", "180", "0", "0", "--deg", "--all")
    assert code == 0 and err == ""
    for text in ("target:", "pose, 6 constraints", "8 solutions, 4 within the joint limits",
                 "Solutions (joint values in degrees)", "shoulder front / elbow up / wrist flip",
                 "in limits", "branch", "-90.000"):
        assert text in out
    code, out, err = run(capsys, "ik", "planar-3r", "--position", "-10", "35", "--q0", "30", "30",
                         "20", "--deg")
    assert code == 0 and "solved: converged" in out and "38.509" in out and "62.749" in out
    code, out, _ = run(capsys, "ik", "panda", "--position", "0.4", "0.1", "0.5", "--rpy", "3.1", "0", "0")
    assert code == 0 and "q7 = panda_joint7" in out  # long joint names get a legend


def test_ik_limits_modes(capsys):
    T = km.fk(km.load("kuka-kr6-r900"), Q_SAMPLE)
    pos = list(map(str, T[:3, 3]))
    rpy = list(map(str, km.spatial.matrix_to_rpy(T[:3, :3])))
    for mode in ("clip", "wrap", "ignore"):
        data = run_json(capsys, "ik", "kuka-kr6-r900", "--position", *pos, "--rpy", *rpy,
                        "--limits", mode)
        assert data["limits"] == mode and len(data["solutions"]) == 1


# --- global options --------------------------------------------------------------------------
def test_version_and_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"kinematica {km.__version__}"
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for sub in ("robots", "show", "fk", "jacobian", "ik", "demo"):
        assert sub in out


def test_robot_file_path(capsys, tmp_path):
    path = km.save(km.load("arm-4dof"), tmp_path / "mine.yaml")
    data = run_json(capsys, "fk", str(path), "0", "0", "0", "0")
    np.testing.assert_allclose(data["position"], [270, 0, 70], atol=1e-9)


# --- bad input: one line on stderr, exit code 2, no traceback -------------------------------
BAD_YAML = "name: bad\nkind: dh\nlength_unit: cm\njoints:\n  - {a: 1}\n"


@pytest.mark.parametrize("argv, needle", [
    (["fk", "kuka", "0", "0", "0", "0", "0", "0"], "unknown robot 'kuka'"),
    (["show", "puma-560"], "puma560"),
    (["fk", "kuka-kr6-r900", "0", "0", "0"], "expected 6 joint values, got 3"),
    (["fk", "planar-3r", "1", "nan", "2"], "finite"),
    (["jacobian", "planar-3r", "1", "inf", "2"], "finite"),
    (["fk", "planar-3r", "1", "-inf", "2"], "finite"),
    (["fk", "planar-3r", "1", "abc", "2"], "not a number: 'abc'"),
    (["jacobian", "arm-4dof", "0", "0", "0"], "expected 4 joint values"),
    (["show", "no-such-file.yaml"], "not found"),
    (["fk", "no-such-file.urdf", "0"], "not found"),
    (["jacobian", "arm-4dof", "0", "0", "0", "0", "--rows", "bogus"], "invalid choice"),
    (["fk", "planar-3r", "1", "2", "3", "--frame", "tool"], "unrecognized arguments"),
    (["frobnicate"], "invalid choice"),
    (["fk"], "required"),
    (["ik", "kuka", "--position", "0", "0", "0"], "unknown robot 'kuka'"),
    (["ik", "planar-3r", "--position", "1", "2", "--q0", "1", "2"], "--q0: planar-3r has 3 joints"),
    (["ik", "planar-3r", "--position", "1", "nan"], "--position: value 2 is nan"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "inf"], "--position: value 3 is inf"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--rpy", "0", "nan", "0"], "--rpy"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--q0", "0", "0", "0", "0", "0", "nan"],
     "--q0: joint value 6"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--pitch", "abc"], "not a number"),
    (["ik", "planar-3r", "--position", "1"], "--position takes 3 values"),
    (["ik", "planar-3r", "--position", "1", "2", "3", "4"], "--position takes 3 values"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--rpy", "0", "0", "0", "--quat", "1",
      "0", "0", "0"], "not allowed with argument --rpy"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--pitch", "0", "--approach", "0", "0",
      "1"], "not allowed with"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--rpy", "0", "0"], "expected 3 arguments"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0.2"], "planar target"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0.2", "--all"], "planar target"),
    (["ik", "planar-3r", "--position", "10", "20", "--rpy", "0", "0", "0"], "--rpy needs a 3-D target"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--phi", "1"], "--phi is the heading"),
    (["ik", "panda", "--position", "0.4", "0", "0.5", "--rpy", "3", "0", "0", "--method", "analytic"],
     "no analytic solver fits panda"),
    (["ik", "panda", "--position", "0.4", "0", "0.5", "--rpy", "3", "0", "0", "--method", "analytic",
      "--all"], "no analytic solver fits panda"),
    (["ik", "planar-3r", "--position", "10", "20", "--method", "analytic"], "without its heading --phi"),
    (["ik", "arm-5dof-geo", "--position", "50", "0", "40", "--method", "analytic"],
     "no analytic solver fits arm-5dof-geo with a position target"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--quat", "0", "0", "0", "0"], "quaternion"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--approach", "0", "0", "0"], "zero"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--method", "bogus"], "invalid choice"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--limits", "bogus"], "invalid choice"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--tol", "0"], "--tol: must be > 0"),
    (["ik", "kuka-kr6-r900", "--position", "0.4", "0", "0.5", "--restarts", "-1"], "--restarts"),
    (["ik", "kuka-kr6-r900"], "required: --position"),
])
def test_bad_input_is_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kinematica: error: ")
    assert needle in err
    assert "Traceback" not in err


def test_malformed_robot_file_names_line_and_field(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_YAML, encoding="utf-8")
    code, out, err = run(capsys, "show", str(path))
    assert code == 2 and out == ""
    assert err == f"kinematica: error: {path} line 3: length_unit: 'cm' is not one of ['m', 'mm']\n"


def test_invalid_yaml_is_one_line(capsys, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\nkind: dh\n", encoding="utf-8")
    code, _, err = run(capsys, "fk", str(path), "0")
    assert code == 2 and err.count("\n") == 1 and "not valid YAML" in err


# --- docs/robot-files.md: every example in it loads, and its printed outputs are real --------
DOC = Path(__file__).resolve().parents[1] / "docs" / "robot-files.md"


def _doc_yaml_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]


def test_robot_files_doc_examples(capsys, tmp_path):
    blocks = _doc_yaml_blocks()
    good = [b for b in blocks if "alpah" not in b]
    assert len(good) == 6
    kinds = set()
    for i, block in enumerate(good):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block, encoding="utf-8")
        data = run_json(capsys, "show", str(path))
        kinds.add(data["table"]["kind"])
    assert kinds == {"dh", "mdh", "planar", "frames"}  # a poe file is built (and shown) as link frames
    poe = tmp_path / "example4.yaml"
    assert "kind: poe" in poe.read_text()
    fk = run_json(capsys, "fk", str(poe), "0", "-90", "0", "0", "90", "0", "--deg")  # Modern Robotics' Example 4.5
    np.testing.assert_allclose(fk["position"], [0.095, 0.109, 0.988], atol=1e-12)
    looks = run_json(capsys, "show", str(tmp_path / "example5.yaml"))  # the Visuals section's file
    assert looks["visuals"]["source"].startswith("measured") and len(looks["visuals"]["shapes"]) == 3
    scara = tmp_path / "example0.yaml"
    fk = run_json(capsys, "fk", str(scara), "0", "90", "50", "--deg")
    np.testing.assert_allclose(fk["position"], [200, 150, 30], atol=1e-9)
    bad = tmp_path / "my-arm.yaml"
    bad.write_text(next(b for b in blocks if "alpah" in b), encoding="utf-8")
    code, _, err = run(capsys, "show", str(bad))
    message = err.strip().split("my-arm.yaml ", 1)[1]  # "line 5: joints[0].alpah: unknown …"
    assert code == 2 and f"my-arm.yaml {message}" in DOC.read_text(encoding="utf-8")


# --- README/docs: the `kinematica ik` examples and the Python IK snippet show real output -------


def test_readme_ik_console_examples_are_real(capsys):
    examples = [b for b in readme.blocks("console") if b.startswith("$ kinematica ik ")]
    assert len(examples) >= 4
    for block in examples:
        command, expected = block.split("\n", 1)
        code, out, err = run(capsys, *command.split()[2:])
        readme.assert_same_text(out + err, expected, what=command)


def test_readme_ik_python_snippet_is_real(capsys):
    snippet = next(b for b in readme.blocks("python", "## Inverse kinematics", "docs/python.md") if "km.ik(" in b)
    exec(compile(snippet, "docs/python.md", "exec"), {})
    out = capsys.readouterr().out
    assert any(readme.same_text(out, t) for t in readme.blocks("text")), out


def test_readme_quick_start_is_real(capsys):
    """The README's first example prints what the README shows under it."""
    snippet = readme.blocks("python", "## Quick start")[0]
    exec(compile(snippet, "README.md", "exec"), {})
    readme.assert_same_text(capsys.readouterr().out, readme.blocks("text", "## Quick start")[0])


# --- the installed script ----------------------------------------------------------------------
def test_installed_script_runs():
    exe = shutil.which("kinematica") or str(Path(sys.executable).parent / "kinematica")
    if not os.path.exists(exe):
        pytest.skip("the kinematica script is not installed (pip install -e .)")
    ok = subprocess.run([exe, "fk", *KUKA_HOME, "--json"], capture_output=True, text=True,
                        timeout=60, encoding="utf-8")
    assert ok.returncode == 0, ok.stderr
    np.testing.assert_allclose(json.loads(ok.stdout)["position"], [0, 0.5615, 0.89], atol=1e-12)
    bad = subprocess.run([exe, "fk", "kuka-kr6-r900", "0"], capture_output=True, text=True,
                         timeout=60, encoding="utf-8")
    assert bad.returncode == 2
    assert bad.stderr.startswith("kinematica: error: ") and bad.stderr.count("\n") == 1
    ascii_env = {**os.environ, "PYTHONIOENCODING": "ascii"}  # θ, ω on a terminal that lacks them
    plain = subprocess.run([exe, "fk", "planar-3r", "0", "0", "0"], capture_output=True,
                           timeout=60, env=ascii_env)
    assert plain.returncode == 0 and b"(60.0000, 0.0000, 0.0000)" in plain.stdout
