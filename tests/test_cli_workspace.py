"""`kinematica workspace`: maps written to NPZ, CSV and PLY, their summaries, and bad input."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

import kinematica as km
from kinematica.model.robotfile import read_text
from kinematica.workspace import envelope
from kinematica.workspace.io import read, save

from cli_run import run, run_json

SMALL = ["--samples", "20000", "--voxel", "0.3", "--orientations", "4", "--rolls", "2"]


def ws_json(capsys, *argv: str) -> dict:
    """The --json summary of a workspace run; stderr may hold progress lines (a run past 1 s on a
    busy machine reports its progress) and warnings, nothing else."""
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert all(line.startswith("kinematica: warning: ")
               or (line.startswith("kinematica: workspace ") and " blocks " in line) for line in err.splitlines()), err
    return json.loads(out)


def one_error(code: int, out: str, err: str, expected_code: int) -> str:
    assert code == expected_code and out == "" and err.count("\n") == 1, err
    assert err.startswith("kinematica: error: ")
    return err


def test_an_envelope_npz_says_how_it_was_made(capsys, tmp_path):
    path = tmp_path / "env.npz"
    d = ws_json(capsys, "workspace", "planar-3r", "--voxel", "2", "--samples", "50000", "--seed", "4",
                 "--out", str(path))
    assert d["kind"] == "envelope" and d["length_unit"] == "mm" and d["volume_unit"] == "mm^2"
    m = read(path)
    again = envelope("planar-3r", samples=50_000, voxel=2.0, seed=4)  # the same job through the API
    assert np.array_equal(m["voxels"], again.voxels) and m["meta"]["voxels"] == again.voxels.size
    assert m["meta"]["seed"] == 4 and "SeedSequence" in m["meta"]["seeding"]
    assert np.isclose(d["volume"], again.volume) and np.isclose(d["volume_uncertainty"], again.volume_uncertainty)
    robot = read_text(m["robot"])  # the robot file inside the map rebuilds the arm
    q = np.radians([40, 10, -20])
    np.testing.assert_allclose(km.fk(robot, q), km.fk(km.load("planar-3r"), q), atol=1e-12)
    assert not (tmp_path / "env.npz.parts").exists()  # partial results go once the map is written


def test_a_dexterity_map_as_csv_and_ply(capsys, tmp_path):
    d = ws_json(capsys, "workspace", "puma560", "--kind", "dexterity", *SMALL, "--out", str(tmp_path / "m.csv"))
    assert d["solves"] == d["voxels"] * d["orientations"] and d["solves_per_s"] > 0
    rows = np.genfromtxt(tmp_path / "m.csv", delimiter=",", names=True)
    assert len(rows) == d["voxels"]
    assert set(rows.dtype.names) >= {"x", "y", "z", "share", "manipulability_min", "condition_max", "singular"}
    assert np.count_nonzero(rows["reached"]) == d["reachable_voxels"]
    code, out, err = run(capsys, "workspace", "puma560", "--kind", "reach", *SMALL, "--out", str(tmp_path / "m.ply"))
    assert code == 0 and "reachable voxels" in out, err
    lines = (tmp_path / "m.ply").read_text().splitlines()
    n = int(next(x for x in lines if x.startswith("element vertex")).split()[-1])
    body = lines[lines.index("end_header") + 1:]
    assert n == d["voxels"] == len(body) and len(body[0].split()) == 6  # x y z samples reached share


@pytest.mark.parametrize("voxel", ["0", "-2", "nan", "inf"])
def test_a_voxel_that_is_not_a_positive_length(capsys, tmp_path, voxel):
    err = one_error(*run(capsys, "workspace", "planar-3r", "--voxel", voxel, "--out", str(tmp_path / "m.npz")), 2)
    assert "voxel" in err
    assert list(tmp_path.iterdir()) == []


def test_options_that_do_not_fit_the_kind_or_the_limits(capsys, tmp_path):
    out = str(tmp_path / "m.npz")
    assert "--orientations" in one_error(*run(capsys, "workspace", "planar-3r", "--orientations", "4",
                                              "--out", out), 2)
    assert "ORIENTATIONS" in one_error(*run(capsys, "workspace", "puma560", "--kind", "reach", "--orientations",
                                            "100000", "--out", out), 2)
    assert "ENVELOPE" in one_error(*run(capsys, "workspace", "puma560", "--samples", str(10 ** 10), "--out", out), 2)
    assert "format" in one_error(*run(capsys, "workspace", "puma560", "--out", str(tmp_path / "m.txt")), 2)
    assert list(tmp_path.iterdir()) == []


def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    err = one_error(*run(capsys, "workspace", "planar-3r", "--out", str(blocker / "m.npz")), 1)
    assert "does not exist" in err
    (tmp_path / "dir.npz").mkdir()
    assert "is a folder" in one_error(*run(capsys, "workspace", "planar-3r", "--out", str(tmp_path / "dir.npz")), 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.npz", "file"]  # nothing else written


def test_a_failed_write_leaves_nothing_half_written(tmp_path, monkeypatch):
    env = envelope("planar-3r", samples=5000, voxel=5.0)
    target = tmp_path / "m.npz"
    target.write_bytes(b"the previous map")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", full_disk)  # the rename that completes the write fails
    with pytest.raises(ValueError, match="No space left"):
        save(env, target)
    assert target.read_bytes() == b"the previous map" and [p.name for p in tmp_path.iterdir()] == ["m.npz"]


def test_a_scheduler_that_does_not_answer(capsys, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = one_error(*run(capsys, "workspace", "planar-3r", "--samples", "1000", "--scheduler",
                         f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "m.npz")), 2)
    assert "did not answer within 3 s" in err
    assert list(tmp_path.iterdir()) == []  # no partial-results folder for a job that never started


# --- figures of map files: `kinematica plot ROBOT map --map FILE` --------------------------------
@pytest.fixture(scope="module")
def puma_npz(tmp_path_factory):
    path = tmp_path_factory.mktemp("maps") / "puma.npz"
    save(km.workspace.reachability("puma560", voxel=0.3, orientations=4, rolls=2, samples=20_000), path)
    return path


def test_a_section_shows_the_voxels_of_its_layer(puma_npz):
    from kinematica.viz.maps import _section

    m = read(puma_npz)
    h = m["meta"]["grid"]["voxel"]
    image, extent, where = _section(m["meta"]["grid"], m["voxels"], m["share"], "xz", 0.1)
    # independently: the voxels whose centre lies within half a voxel of the plane y = 0.1
    layer = np.abs(m["points"][:, 1] - 0.1) <= h / 2
    assert np.count_nonzero(np.isfinite(image)) == np.count_nonzero(layer)
    cols = np.floor((m["points"][layer, 0] - extent[0]) / h).astype(int)
    rows = np.floor((m["points"][layer, 2] - extent[2]) / h).astype(int)
    np.testing.assert_array_equal(image[rows, cols], m["share"][layer])


def test_plot_map_writes_sections_and_scatters(capsys, tmp_path, puma_npz):
    for view in ("xz", "3d"):
        d = run_json(capsys, "plot", "puma560", "map", "--map", str(puma_npz), "--view", view, "--value", "share",
                     "--out", str(tmp_path / f"{view}.png"))
        assert d["written"]["width_px"] > 0 and (tmp_path / f"{view}.png").stat().st_size > 1000


def test_plot_map_bad_input(capsys, tmp_path, puma_npz):
    out = str(tmp_path / "x.png")
    assert "not of 'ur5'" in one_error(*run(capsys, "plot", "ur5", "map", "--map", str(puma_npz), "--out", out), 2)
    assert "value must be" in one_error(*run(capsys, "plot", "puma560", "map", "--map", str(puma_npz), "--value",
                                             "manipulability_min", "--out", out), 2)
    assert "outside the map" in one_error(*run(capsys, "plot", "puma560", "map", "--map", str(puma_npz), "--at",
                                               "50", "--out", out), 2)
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    assert "not a map" in one_error(*run(capsys, "plot", "puma560", "map", "--map", str(tmp_path / "other.npz"),
                                         "--out", out), 2)
    assert "needs --map" in one_error(*run(capsys, "plot", "puma560", "map", "--out", out), 2)
    assert not (tmp_path / "x.png").exists()


def test_an_undersampled_envelope_says_so(capsys, tmp_path):
    code, out, err = run(capsys, "workspace", "puma560", "--voxel", "0.03", "--samples", "20000",
                         "--out", str(tmp_path / "m.npz"))
    assert code == 0 and "note:" in out and "undersampled" in out and "raise --samples" in out, err
    d = ws_json(capsys, "workspace", "planar-3r", "--voxel", "5", "--samples", "100000",
                 "--out", str(tmp_path / "p.npz"))
    assert d["voxels_with_one_sample"] <= 0.05 * d["voxels"]  # dense: every voxel hit many times, no note
    code, out, err = run(capsys, "workspace", "planar-3r", "--voxel", "5", "--samples", "100000",
                         "--out", str(tmp_path / "p.npz"))
    assert code == 0 and "note:" not in out  # (the tmp path holds the test's name: look for the note)


def test_a_voxel_larger_than_the_workspace_is_one_line_and_leaves_nothing(capsys, tmp_path):
    """`--voxel 1e308` was an OverflowError traceback that left w1.npz.parts/ behind (issue 30)."""
    err = one_error(*run(capsys, "workspace", "planar-3r", "--samples", "1000", "--voxel", "1e308",
                         "--out", str(tmp_path / "w1.npz")), 2)
    assert "larger than the arm's whole workspace" in err
    assert list(tmp_path.iterdir()) == []


class Stop(Exception):
    pass


def test_parts_of_another_job_do_not_block_a_run_with_other_options(capsys, tmp_path):
    """FILE.parts belongs to FILE: an interrupted job with seed 7 leaves its chunks there; a run
    with seed 0 replaces them, says so, and writes the map of seed 0."""
    out = tmp_path / "w.npz"
    parts = tmp_path / "w.npz.parts"

    def stop(done, total):
        raise Stop

    with pytest.raises(Stop):
        envelope("planar-3r", samples=20_000, voxel=5.0, seed=7, chunk=8192, resume=str(parts), progress=stop)
    assert (parts / "job.json").is_file()
    code, text, err = run(capsys, "workspace", "planar-3r", "--samples", "20000", "--voxel", "5", "--out", str(out))
    assert code == 0 and f"{parts} held the partial results of another job" in err, err
    assert not parts.exists()
    assert np.array_equal(read(out)["voxels"], envelope("planar-3r", samples=20_000, voxel=5.0).voxels)


def test_a_failed_run_removes_the_parts_it_made(capsys, tmp_path, monkeypatch):
    def no_room(m, path):
        raise km.workspace.WorkspaceError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr("kinematica.workspace.io.save", no_room)  # the map is made, its file fails
    err = one_error(*run(capsys, "workspace", "planar-3r", "--samples", "20000", "--voxel", "5",
                         "--chunk", "8192", "--out", str(tmp_path / "w.npz")), 1)
    assert "No space left" in err
    assert list(tmp_path.iterdir()) == []


def test_an_empty_reach_map_says_why(capsys, tmp_path):
    puma = km.load("puma560")
    stiff = tmp_path / "stiff.yaml"
    km.save(puma.replace(limits=np.column_stack([puma.q_home - 0.01, puma.q_home + 0.01]), name="stiff"), stiff)
    code, out, err = run(capsys, "workspace", str(stiff), "--kind", "reach", "--samples", "2000", "--voxel", "0.01",
                         "--orientations", "4", "--rolls", "1", "--out", str(tmp_path / "m.npz"))
    assert code == 0, err
    assert "reachable voxels  0" in out and "note: no voxel of" in out and "narrow joint limits" in out
    assert read(tmp_path / "m.npz")["meta"]["note"].startswith("no voxel of")
