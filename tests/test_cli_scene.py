"""`kinematica scene check|show` (issue 15): tables, JSON equal to the Python API, trajectory
files, and one-line errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from cli_run import run, run_json

REACH_DEG = "0,-60,-30,-30,0"
REACH = np.radians([0, -60, -30, -30, 0])


def test_show_lists_robots_obstacles_and_excluded_pairs(capsys):
    code, out, err = run(capsys, "scene", "show", "two-braccios")
    assert code == 0 and err == ""
    assert "left   braccio" in out and "table     box" in out
    assert "left/base - table: allowed in the scene" in out and "left/base - left/upper arm: adjacent" in out
    d = run_json(capsys, "scene", "show", "kuka-table")
    assert [r["name"] for r in d["robots"]] == ["kuka"] and [o["name"] for o in d["obstacles"]] == ["table", "box"]
    assert d["obstacles"][1]["size"] == [0.12, 0.12, 0.12]
    assert d["obstacles"][1]["rpy_deg"][2] == pytest.approx(20, abs=1e-9)
    assert {"a": "kuka/link2", "b": "kuka/link4", "reason": "always touching"} in d["excluded"]


def test_check_two_braccios_meeting_in_the_middle(capsys):
    code, out, err = run(capsys, "scene", "check", "two-braccios", "--deg",
                         "--q", f"left={REACH_DEG}", "--q", f"right={REACH_DEG}")
    assert code == 0 and err == ""
    assert "COLLISION" in out and "left/gripper  with  right/wrist" in out  # the grippers pass each other
    d = run_json(capsys, "scene", "check", "two-braccios", "--deg", "--q", f"left={REACH_DEG}",
                 "--q", f"right={REACH_DEG}")
    api = km.Scene.load("two-braccios")
    rep, dist = api.check({"left": REACH, "right": REACH}), api.distance({"left": REACH, "right": REACH})
    assert d["colliding"] is True and [tuple(p) for p in d["collisions"]] == rep.collisions
    assert d["min_distance"] == pytest.approx(dist.min_distance, abs=1e-9) and d["length_unit"] == "mm"
    np.testing.assert_allclose(d["q"]["left"], REACH, atol=1e-15)
    assert d["q_deg"]["right"] == pytest.approx([0, -60, -30, -30, 0], abs=1e-12)
    home = run_json(capsys, "scene", "check", "two-braccios")
    assert home["colliding"] is False and home["min_distance"] > 0
    assert "is" in home["distance_words"] and "mm from" in home["distance_words"]


def test_check_a_trajectory_file(capsys, tmp_path):
    b = km.load("braccio")
    tr = km.trajectory.joint([b.q_home, REACH], duration=2.0, steps=20, robot=b)
    path = tmp_path / "left.csv"
    km.trajectory.save(tr, path)
    d = run_json(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}", "--deg",
                 "--q", f"right={REACH_DEG}", "--resolution", "2")
    api = km.Scene.load("two-braccios")
    sw = km.scene.check_trajectory(api, {"left": km.trajectory.load(path)}, {"right": REACH}, resolution=2.0)
    t = d["trajectory"]
    assert t["colliding"] is True and 0 < t["time"] < 2.0
    assert t["time"] == pytest.approx(sw.time, abs=1e-12) and [tuple(p) for p in t["collisions"]] == sw.collisions
    assert t["resolution"] == 2.0 and t["checks"] == sw.checks
    # the right arm turned aside and upright: out of the left gripper's way (at its home, leaning
    # towards the middle, its forearm is in it)
    clear = run_json(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}", "--deg",
                     "--q", "right=90,0,0,0,0")
    assert clear["trajectory"]["colliding"] is False and clear["trajectory"]["time"] is None
    code, out, _ = run(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}", "--deg",
                       "--q", f"right={REACH_DEG}")
    assert code == 0 and "trajectory: first collision at t = " in out


@pytest.mark.parametrize("argv,message", [
    (["scene", "check", "two-braccios", "--q", "middle=0,0,0,0,0"], "--q: unknown robot 'middle': the scene has left, right"),
    (["scene", "check", "two-braccios", "--q", "left=0,0,0"], "--q left: braccio has 5 joints .* got 3"),
    (["scene", "check", "two-braccios", "--q", "left=0,0,x,0,0"], "--q left: joint value 3 .* is not a number"),
    (["scene", "check", "two-braccios", "--q", "left"], "--q: expected ROBOT=..., got 'left'"),
    (["scene", "check", "two-braccios", "--q", "left=0,0,0,0,0", "--q", "left=1,0,0,0,0"], "robot 'left' is given twice"),
    (["scene", "check", "two-braccios", "--trajectory", "left=nothere.csv"], "trajectory file not found"),
    (["scene", "check", "two-braccios", "--resolution", "-1"], "--resolution: expected a positive"),
    (["scene", "show", "two-braccios", "--q", "left=0,0,0,0,0"], "--q belongs to 'scene check'"),
    (["scene", "check", "two-braccio"], "unknown scene 'two-braccio'.*did you mean two-braccios"),
    (["scene", "check", "nothere.yaml"], "scene file not found: nothere.yaml"),
    (["scene", "verify", "two-braccios"], "invalid choice: 'verify'"),
])
def test_bad_input_is_one_line(capsys, argv, message):
    import re

    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("kinematica: error: ") and err.count("\n") == 1
    assert re.search(message, err), err


def test_malformed_scene_file_and_wrong_trajectory_joints(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("robots:\n  - {name: a, robot: braccio, colour: red}\n", encoding="utf-8")
    code, _, err = run(capsys, "scene", "show", str(bad))
    assert code == 2 and f"{bad} line 2: robots[0].colour: unknown field 'colour'" in err
    mesh = tmp_path / "mesh.yaml"
    mesh.write_text("obstacles:\n  - {name: m, shape: mesh, path: gone.stl}\n", encoding="utf-8")
    code, _, err = run(capsys, "scene", "check", str(mesh))
    assert code == 2 and "line 2: obstacles[0].path: mesh file not found" in err
    k = km.load("kuka-kr6-r900")
    path = tmp_path / "kuka.json"
    km.trajectory.save(km.trajectory.joint([k.q_home, k.q_home + 0.1], robot=k), path)
    code, _, err = run(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}")
    assert code == 2 and "has 6 joints, braccio has 5" in err


def test_readme_scene_example_is_real(capsys):
    import readme

    examples = [b for b in readme.blocks("console") if b.startswith("$ kinematica scene ")]
    assert examples
    for block in examples:
        command, expected = block.split("\n", 1)
        code, out, err = run(capsys, *command.split()[2:])
        readme.assert_same_text(out + err, expected, what=command)


def _braccio_motion(tmp_path, nan_at: tuple[int, int] | None = None):
    tr = km.trajectory.joint([np.zeros(5), np.full(5, 0.3)], duration=1.0, steps=10, robot=km.load("braccio"))
    path = km.trajectory.save(tr, tmp_path / "br.csv")
    if nan_at:
        lines = path.read_text(encoding="utf-8").splitlines()
        row, col = nan_at
        cells = lines[row].split(",")
        cells[col] = "nan"
        lines[row] = ",".join(cells)
        path = tmp_path / "tr_nan.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_resolution_asking_for_too_many_checks_is_refused_in_words(capsys, tmp_path):
    """1e-300 mm used to overflow the checks' count into NumPy's "Number of samples, -9223372036854775808"
    after a RuntimeWarning (issue 30)."""
    path = _braccio_motion(tmp_path)
    for res in ("1e-300", "1e-4"):
        code, out, err = run(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}",
                             "--resolution", res)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "checks along the trajectory" in err and "kinematica.bounds.SAMPLES" in err
        assert "use a resolution of at least 0.000488 mm" in err  # 487.5 mm of link motion over 10⁶ checks


def test_a_nan_in_a_trajectory_file_names_the_file_and_the_line(capsys, tmp_path):
    path = _braccio_motion(tmp_path, nan_at=(4, 2))  # line 5: a comment, the header, then sample 3
    code, out, err = run(capsys, "scene", "check", "two-braccios", "--trajectory", f"left={path}")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{path}: line 5 (sample 3): q_M2 shoulder [rad] is nan: expected a finite number" in err


def test_a_check_names_the_shapes_that_touch(capsys):
    """A robot body made of several links' shapes (a URDF base) is named with them; for the
    bundled arms each shape is its own link's, so the JSON's shapes equal the collisions."""
    d = run_json(capsys, "scene", "check", "two-braccios", "--deg", "--q", f"left={REACH_DEG}", "--q",
                 f"right={REACH_DEG}")
    assert d["colliding"] and [tuple(p) for p in d["shapes"]] == [tuple(p) for p in d["collisions"]]
