"""URDF trees on the command line: --tip chooses the chain, --hold-at holds joints off it, and
what the reading warns about is one `kinematica: warning:` line on stderr."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from cli_run import run, run_json
from test_urdf import heavy_tree, tree

import kinematica as km
from kinematica.cli import build_parser


@pytest.fixture
def trees(tmp_path):
    (tmp_path / "tree.urdf").write_text(tree(mimic=False), encoding="utf-8")
    (tmp_path / "heavy.urdf").write_text(heavy_tree(), encoding="utf-8")
    return tmp_path


def test_every_command_that_takes_a_robot_takes_tip_and_hold_at():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    takes = {name for name, p in sub.choices.items()
             if any(a.dest == "robot" for a in p._actions)}
    assert {"show", "fk", "jacobian", "ik", "dynamics", "simulate", "serve"} <= takes
    for name in takes:
        options = {o for a in sub.choices[name]._actions for o in a.option_strings}
        assert {"--tip", "--hold-at"} <= options, name


def test_a_branched_tree_says_to_pass_tip_and_lists_the_tips(capsys, trees):
    code, out, err = run(capsys, "fk", str(trees / "tree.urdf"), "0", "0", "0")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("kinematica: error: ") and "--tip LINK" in err
    assert "candidate tips: 'tcp' (3 joints), 'left' (4 joints), 'right' (4 joints)" in err


def test_tip_chooses_the_chain(capsys, trees):
    path = str(trees / "tree.urdf")
    data = run_json(capsys, "fk", path, "0.1", "0.2", "0.3", "0.4", "--tip", "right")
    robot = km.load(path, tip="right")
    np.testing.assert_allclose(data["T"], km.fk(robot, [0.1, 0.2, 0.3, 0.4]), atol=1e-12)
    assert run_json(capsys, "show", path, "--tip", "tcp")["joint_names"] == ["j1", "j2", "j3"]


def test_hold_at_moves_the_held_bodies_and_the_warning_is_one_line(capsys, trees):
    path = str(trees / "heavy.urdf")
    taus = []
    for hold in ([], ["--hold-at", "k1=1.5", "--hold-at", "f1 = 0.03"]):
        code, out, err = run(capsys, "dynamics", path, "--tip", "tcp", *hold, "--q", "0.3", "0.4", "0.5", "--json")
        assert code == 0, err
        assert err.startswith("kinematica: warning: ") and err.count("\n") == 1 and "ride along rigidly" in err
        taus.append(np.array(__import__("json").loads(out)["tau"]))
    with pytest.warns(km.OffChainBodiesWarning):
        robot = km.load(path, tip="tcp", hold={"k1": 1.5, "f1": 0.03})
    np.testing.assert_allclose(taus[1], km.gravity_torques(robot, [0.3, 0.4, 0.5]), rtol=1e-12, atol=1e-12)
    assert abs(taus[1][0] - taus[0][0]) > 0.1


@pytest.mark.parametrize("argv, words", [
    (["--hold-at", "k1"], "--hold-at: expected JOINT=VALUE with VALUE a number, got 'k1'"),
    (["--hold-at", "=1"], "--hold-at: expected JOINT=VALUE with a joint name"),
    (["--hold-at", "k1=inf"], "with a joint name and a finite value"),
    (["--hold-at", "k1=9"], "hold: joint 'k1' = 9.0 must be a finite number within its limits"),
    (["--hold-at", "j2=0"], "hold: joint 'j2' is on the chain"),
    (["--tip", "nowhere"], "tip link 'nowhere' not found"),
])
def test_bad_tip_or_hold_is_one_line(capsys, trees, argv, words):
    code, out, err = run(capsys, "fk", "--tip", "tcp", *argv, str(trees / "heavy.urdf"), "0", "0", "0")
    assert code == 2 and out == "" and err.startswith("kinematica: error: ") and words in err, err
    assert err.count("\n") == 1


def test_tip_on_a_yaml_robot_is_refused(capsys):
    code, _, err = run(capsys, "fk", "puma560", *["0"] * 6, "--tip", "link6")
    assert code == 2 and "tip chooses a chain of a URDF or MJCF tree" in err


def test_serve_refuses_a_tree_without_tip_before_serving(capsys, trees):
    code, out, err = run(capsys, "serve", "--no-browser", "--robot", str(trees / "tree.urdf"))
    assert code == 2 and out == "" and "--tip LINK" in err


def test_the_urdf_examples_in_the_robot_files_doc_are_real(capsys, tmp_path, monkeypatch):
    """docs/robot-files.md shows what `kinematica` prints for two-arms.urdf (heavy_tree)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "robot-files.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in doc.split("```console\n")[1:] if "two-arms.urdf" in b]
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    (tmp_path / "two-arms.urdf").write_text(heavy_tree(), encoding="utf-8")
    for block in blocks:
        command, printed = block.strip().split("\n", 1)
        argv = command.removeprefix("$ kinematica ").split()
        _, _, err = run(capsys, *argv)
        assert err.strip() == printed.strip()
