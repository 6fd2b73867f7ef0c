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
from kinematica.cli import main

KUKA_HOME = ["kuka-kr6-r900", "0", "0", "0", "0", "0", "0"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


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
    assert [e["paper"] for e in data] == ["000", "001", "002", "003", "004"]
    checks = {e["paper"]: e["checks"] for e in data}
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


def test_demo_examples_are_a_list_of_entries():
    assert all(isinstance(e, demo.Example) for e in demo.EXAMPLES)
    for e in demo.EXAMPLES:
        assert e.robot in km.robot_names()
        assert all(isinstance(c, demo.Check) for c in demo.run(e))


# --- global options --------------------------------------------------------------------------
def test_version_and_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"kinematica {km.__version__}"
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for sub in ("robots", "show", "fk", "jacobian", "demo"):
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
    assert len(good) == 4
    kinds = set()
    for i, block in enumerate(good):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block, encoding="utf-8")
        data = run_json(capsys, "show", str(path))
        kinds.add(data["table"]["kind"])
    assert kinds == {"dh", "mdh", "planar", "frames"}
    scara = tmp_path / "example0.yaml"
    fk = run_json(capsys, "fk", str(scara), "0", "90", "50", "--deg")
    np.testing.assert_allclose(fk["position"], [200, 150, 30], atol=1e-9)
    bad = tmp_path / "my-arm.yaml"
    bad.write_text(next(b for b in blocks if "alpah" in b), encoding="utf-8")
    code, _, err = run(capsys, "show", str(bad))
    message = err.strip().split("my-arm.yaml ", 1)[1]  # "line 5: joints[0].alpah: unknown …"
    assert code == 2 and f"my-arm.yaml {message}" in DOC.read_text(encoding="utf-8")


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
