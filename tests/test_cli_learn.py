"""`kinematica learn ik|dynamics|report` and `kinematica ik --method anfis --model M / --seed-model M`:
the files and numbers equal the Python API's, honest verdicts, one-line errors on bad input."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

import kinematica as km
from kinematica.cli.progress import Progress
from kinematica.learn import load_model
from cli_run import run

SMALL = ["--samples", "1500", "--rules", "27", "--epochs", "3", "--warm-start", "20"]


def _json(capsys, *argv, code=0):
    got, out, err = run(capsys, *argv, "--json")
    assert got == code, err
    # training may print progress lines on stderr; nothing else
    assert all(line.startswith("kinematica: training ") for line in err.splitlines()), err
    return json.loads(out)


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "p3.npz"
    from kinematica.cli import main

    assert main(["learn", "ik", "planar-3r", *SMALL, "--out", str(path)]) == 0
    return path


def test_learn_ik_writes_the_model_and_its_report(model_file, capsys, tmp_path):
    out = tmp_path / "again.npz"
    data = _json(capsys, "learn", "ik", "planar-3r", *SMALL, "--out", str(out))
    model = load_model(out)
    assert data["model"] == str(out) and data["rules"] == 27 and data["branch"] == "elbow+"
    assert data["alone"]["position_median"] == pytest.approx(model.report["alone"]["position_median"], rel=1e-12)
    assert data["unreachable"]["claimed_solved"] == 0 and set(data["warm_start"]) == {"home", "random", "nearest",
                                                                                        "anfis"}
    # same seed, same samples: the same network as the fixture's run
    assert np.array_equal(model.net.theta, load_model(model_file).net.theta)
    again = _json(capsys, "learn", "report", str(out))
    assert again["alone"] == data["alone"] and again["rmse_train"] == data["rmse_train"]


def test_learn_text_views(model_file, capsys):
    code, out, _ = run(capsys, "learn", "report", str(model_file))
    assert code == 0 and "an approximation, not a solver" in out and "LM warm start" in out
    assert re.search(r"unreachable: +0 of \d+ targets beyond the reach reported solved", out)


def test_ik_method_anfis_is_the_models_answer_judged_by_fk(model_file, capsys):
    model = load_model(model_file)
    target = km.targets.planar([30, 35], np.radians(120))
    data = _json(capsys, "ik", "planar-3r", "--position", "30", "35", "--phi", "120", "--deg", "--method", "anfis",
                 "--model", str(model_file))
    sol = data["solutions"][0]
    assert np.allclose(sol["q"], model.answer(target), rtol=1e-13, atol=1e-13)
    T = km.fk("planar-3r", sol["q"])
    assert sol["position_error"] == pytest.approx(np.hypot(T[0, 3] - 30, T[1, 3] - 35), rel=1e-9)
    assert data["solved"] is False and "misses the target by" in data["message"] and sol["iterations"] == 0
    code, out, _ = run(capsys, "ik", "planar-3r", "--position", "30", "35", "--phi", "120", "--deg",
                       "--method", "anfis", "--model", str(model_file))
    assert code == 0 and "not solved: the model's answer misses" in out
    far = _json(capsys, "ik", "planar-3r", "--position", "70", "10", "--phi", "0", "--method", "anfis",
                "--model", str(model_file), "--tol", "1000")
    assert far["solved"] is False and far["reachable"] is False and "out of reach" in far["message"]


def test_ik_seed_model_starts_lm_from_the_models_answer(model_file, capsys):
    model = load_model(model_file)
    # the target of q = (60°, 40°, −30°), inside the model's branch (θ2 > 0)
    xy = km.fk("planar-3r", np.radians([60, 40, -30]))[:2, 3]
    data = _json(capsys, "ik", "planar-3r", "--position", *(repr(float(v)) for v in xy), "--phi", "70", "--deg",
                 "--seed-model", str(model_file))
    assert data["solved"] is True and data["seed_model"] is True
    assert np.allclose(data["q0"], model.answer(km.targets.planar(xy, np.radians(70))), atol=1e-12)
    T = km.fk("planar-3r", data["solutions"][0]["q"])
    assert np.hypot(*(T[:2, 3] - xy)) < 1e-3  # the mm robot's default tolerance


def test_learn_explain_shows_the_layers_of_one_answer(model_file, capsys):
    from kinematica.learn.explain import explain_answer

    model = load_model(model_file)
    data = _json(capsys, "learn", "explain", str(model_file), "--position", "13.37", "55.81", "--phi", "70", "--deg",
                 "--top", "3")
    ref = explain_answer(model, km.targets.planar([13.37, 55.81], np.radians(70)), top=3)
    assert [j["sum"] for j in data["joints"]] == pytest.approx([j["sum"] for j in ref["joints"]], rel=1e-12)
    assert all(len(j["strongest"]) == 3 and "all_rules" not in j for j in data["joints"])
    code, out, _ = run(capsys, "learn", "explain", str(model_file), "--position", "13.37", "55.81", "--phi", "70",
                       "--deg")
    assert code == 0 and "layer 1, membership degrees" in out and out.count("Joint θ") == 3
    # without --phi the model picks the heading (issue 32 item 9), and the explanation says it did
    free = _json(capsys, "learn", "explain", str(model_file), "--position", "13.37", "55.81")
    assert free["picked"] is True and data["picked"] is False
    picked = explain_answer(model, km.targets.planar([13.37, 55.81]), top=3)
    assert free["inputs"] == pytest.approx(picked["inputs"], rel=1e-12)


def test_learn_dynamics(capsys, tmp_path):
    out = tmp_path / "dyn.npz"
    data = _json(capsys, "learn", "dynamics", "arm-5dof", "--trajectories", "20", "--rules", "6", "--epochs", "2",
                 "--out", str(out))
    assert data["kind"] == "dynamics" and len(data["rmse_percent_of_peak"]) == 5
    assert load_model(out).report["rmse"] == pytest.approx(data["rmse"], rel=1e-12)
    code, text, _ = run(capsys, "learn", "report", str(out))
    assert code == 0 and "RMSE % of peak" in text


@pytest.mark.parametrize("argv, words", [
    (["ik", "planar-3r", "--position", "30", "35", "--phi", "1", "--method", "anfis"], "needs --model"),
    (["ik", "planar-3r", "--position", "30", "35", "--phi", "1", "--model", "M"], "--model is for --method anfis"),
    (["learn", "ik", "planar-3r", "--samples", "500", "--out", "x.npz"], "too few for 125 rules"),
    (["learn", "ik", "ur5", "--out", "x.npz"], "no spherical wrist"),
    (["learn", "ik", "planar-3r", "--branch", "up", "--out", "x.npz"], "branch"),
    (["learn", "ik", "planar-3r", "--epochs", "0", "--out", "x.npz"], "--epochs"),
    (["learn", "report", "missing.npz"], "no such model file"),
])
def test_bad_input_is_one_line(capsys, argv, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if not ln.startswith("kinematica: training ")]
    assert len(lines) == 1 and lines[0].startswith("kinematica: error: ") and words in lines[0], err


def test_bad_model_files_are_one_line(model_file, capsys, tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"\x00" * 64)
    dyn = tmp_path / "dyn.npz"
    from kinematica.cli import main

    assert main(["learn", "dynamics", "arm-5dof", "--trajectories", "20", "--rules", "4", "--epochs", "1",
                 "--out", str(dyn)]) == 0
    capsys.readouterr()
    cases = [(["ik", "planar-3r", "--position", "30", "35", "--phi", "1", "--method", "anfis", "--model", str(junk)],
              "junk.npz: not a readable kinematica model file"),
             (["ik", "arm-5dof", "--position", "0.3", "0", "0.2", "--pitch", "0.1", "--seed-model", str(model_file)],
              "trained for 'planar-3r', not for 'arm-5dof'"),
             (["ik", "planar-3r", "--position", "30", "35", "--phi", "1", "--seed-model", str(dyn)],
              "a dynamics model; an ik model is needed")]
    for argv, words in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
    # a point without its heading is no refusal: the model answers it with the heading it picks (issue 32)
    code, out, err = run(capsys, "ik", "planar-3r", "--position", "30", "35", "--method", "anfis", "--model",
                         str(model_file))
    assert code in (0, 1) and "give the heading" not in err and out, err


def test_an_unwritable_model_file_is_refused_before_training(capsys, tmp_path):
    code, out, err = run(capsys, "learn", "ik", "planar-3r", *SMALL, "--warm-start", "0",
                         "--out", str(tmp_path / "no" / "such" / "dir.npz"))
    assert code == 2 and "--out: cannot write" in err and "does not exist" in err.splitlines()[-1]
    assert "epoch" not in err  # no training ran: the path was checked first
    code, out, err = run(capsys, "learn", "ik", "planar-3r", *SMALL, "--warm-start", "0", "--out", str(tmp_path))
    assert code == 2 and f"cannot write {tmp_path}: it is a folder" in err


def test_training_progress_line():
    clock = iter([0.0, 0.5, 1.5, 2.0, 4.0]).__next__
    err = io.StringIO()
    report = Progress(err, "training planar-3r IK (elbow+)", "epochs", 20, clock=clock,
                      detail=lambda done, rmse: f"epoch {done:.0f} of 20, training RMSE {rmse:.3g}")
    for epoch, rmse in ((1, 0.05), (2, 0.04), (3, 0.03), (4, 0.02)):
        report(epoch, rmse)
    assert err.getvalue().splitlines() == [
        "kinematica: training planar-3r IK (elbow+): epoch 2 of 20, training RMSE 0.04 (Ctrl+C stops)",
        "kinematica: training planar-3r IK (elbow+): epoch 4 of 20, training RMSE 0.02 (Ctrl+C stops)"]
