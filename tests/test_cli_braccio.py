"""`kinematica braccio`: ports, firmware, emulate (a real subprocess stopped by Ctrl+C), and home,
move and play against the emulator over TCP — reports, the commanded state, faults (exit 1 with
the report), refusals before the port opens (exit 2), one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica import hardware as hw
from kinematica.hardware import protocol as pr
from kinematica.hardware.sketch import sketch_text
from cli_run import run, run_json

pytest.importorskip("serial")

BRACCIO = km.load("braccio")


@pytest.fixture
def emulator():
    with hw.Emulator() as emu:
        yield emu


@pytest.fixture
def traj_file(tmp_path):
    """100 points over 0.99 s from home: a quintic under the speed limit (peak 1.875 × 40°/0.99 s)."""
    q1 = BRACCIO.q_home + np.radians([30, 20, -30, -20, 40])
    tr = km.trajectory.quintic(BRACCIO.q_home, q1, 0.99, steps=99, robot=BRACCIO)
    return km.trajectory.save(tr, tmp_path / "ramp.csv", degrees=True), tr


def test_ports_lists_devices(capsys):
    d = run_json(capsys, "braccio", "ports")
    assert isinstance(d["ports"], list)
    assert all({"device", "description", "hwid", "maker"} <= set(p) for p in d["ports"])
    code, out, _ = run(capsys, "braccio", "ports")
    assert code == 0 and ("Serial ports" in out or "No serial ports found" in out)


def test_firmware_writes_the_sketch_and_keeps_a_changed_one(capsys, tmp_path):
    d = run_json(capsys, "braccio", "firmware", "--out", str(tmp_path))
    path = Path(d["path"])
    assert path == tmp_path / "braccio_kinematica" / "braccio_kinematica.ino" and path.read_text() == sketch_text()
    assert d["protocol"] == pr.VERSION and "arduino-cli compile --upload" in d["upload"]
    path.write_text("// mine\n")
    code, out, err = run(capsys, "braccio", "firmware", "--out", str(tmp_path))
    assert code == 2 and out == "" and err.startswith("kinematica: error: --out:") and "--force" in err
    assert path.read_text() == "// mine\n"
    assert run(capsys, "braccio", "firmware", "--out", str(tmp_path), "--force")[0] == 0
    assert path.read_text() == sketch_text()


def test_move_home_and_the_commanded_state(capsys, emulator):
    d = run_json(capsys, "braccio", "move", "10.4", "-30", "80", "90", "0", "--deg", "--speed", "100",
                 "--gripper", "40", "--port", emulator.url)
    assert d["degrees_sent"] == [80, 60, 170, 180, 90, 40] and emulator.degrees() == [80, 60, 170, 180, 90, 40]
    assert d["state"]["degrees"] == [80, 60, 170, 180, 90, 40] and "not measured" in d["state"]["note"]
    assert d["state"]["measured"] is False  # the `Arm` flag, as `kinematica so101 state` says true
    np.testing.assert_allclose(d["state"]["q_deg"], [10, -30, 80, 90, 0], atol=1e-9)
    q = np.radians([10.4, -30, 80, 90, 0])
    want = np.linalg.norm(km.fk(BRACCIO, q)[:3, 3] - km.fk(BRACCIO, np.radians([10, -30, 80, 90, 0]))[:3, 3])
    assert d["quantisation_error"] == pytest.approx(want, rel=1e-9) and d["length_unit"] == "mm"
    code, out, err = run(capsys, "braccio", "home", "--port", emulator.url, "--speed", "100")
    assert code == 0 and err == ""
    assert "commanded, not measured: hobby servos report no position" in out and "M2 shoulder     servo  45°" in out


def test_play_reports_every_point_acknowledged(capsys, emulator, traj_file):
    path, tr = traj_file
    d = run_json(capsys, "braccio", "play", str(path), "--port", emulator.url)
    assert d["ok"] and (d["points"], d["sent"], d["acknowledged"], d["last_acknowledged"]) == (100, 100, 100, 99)
    last = np.floor(km.to_servo(BRACCIO, tr.q[-1]) + 0.5)
    assert d["state"]["degrees"][:5] == last.tolist() == emulator.degrees()[:5]
    code, out, _ = run(capsys, "braccio", "play", str(path), "--rate", "50", "--port", emulator.url)
    # 0.99 s at ≤ 50 Hz: ceil(49.5) = 50 equal steps, 51 points
    assert code == 0 and "51 points resampled at ≤ 50 Hz" in out and "last acknowledged point 50" in out


def test_play_on_a_failing_link_prints_the_report_and_exits_1(capsys, tmp_path, traj_file):
    path, _ = traj_file
    with hw.Emulator(hw.Misbehaviour(garble=3 + 40)) as emu:  # the acknowledgement of point 40 is damaged
        code, out, err = run(capsys, "braccio", "play", str(path), "--port", emu.url, "--json")
    d = json.loads(out)
    assert code == 1 and not d["ok"] and d["last_acknowledged"] == 39 and d["sent"] == 40 + pr.DEPTH
    assert d["state"] is None and d["last_executed"] > 39  # the acknowledgements before the OK to S count
    # one error line; a loaded machine may also delay the host's sends enough for the board's queue
    # to run dry, which the host reports honestly as a warning line before it
    *warned, said = err.splitlines()
    assert all(w.startswith("kinematica: warning: the board's queue ran dry") for w in warned), warned
    assert said.startswith(f"kinematica: error: the stream stopped after point {d['last_executed']}: garbage")


def test_refused_commands_never_open_the_port(capsys, emulator, tmp_path):
    """Opening an Uno's port resets it: a refused command must not even connect."""
    for argv, words in [
        (["move", "0", "80", "0", "0", "0", "--deg"], "joint 'M2 shoulder' = 80° is outside its limits [-75°, 75°]"),
        (["move", "0", "0", "0", "0", "0", "--gripper", "90"], "gripper 'M6 gripper' needs servo 90°"),
        (["move", "0", "0", "0", "0", "0", "--speed", "500"],
         "speed 500.0 °/s is outside the board's range [20, 100]"),
        (["move", "0", "0", "0", "0", "0", "--speed", "140"], "speed 140.0 °/s is outside the board's range [20, 100]"),
        (["home", "--speed", "5"], "speed 5.0 °/s is outside"),
    ]:
        code, out, err = run(capsys, "braccio", *argv, "--port", emulator.url)
        assert code == 2 and out == "" and words in err and err.splitlines()[-1].startswith("kinematica: error:")
    fast = km.trajectory.joint([BRACCIO.q_home, BRACCIO.q_home + np.radians([80, 0, 0, 0, 0])], 0.2, steps=4,
                               robot=BRACCIO)
    f = km.trajectory.save(fast, tmp_path / "fast.json")
    code, _, err = run(capsys, "braccio", "play", str(f), "--port", emulator.url)
    assert code == 2 and "'M1 base' would turn at 400 °/s between points 0 and 1" in err
    assert emulator.connections == 0 and emulator.log() == ([], [])


@pytest.mark.parametrize("argv, words", [
    (["play", "nope.csv", "--port", "loop://"], "trajectory file not found"),
    (["move", "0", "0", "--port", "loop://"], "braccio has 5 joints"),
    (["move", "0", "0", "0", "0", "0", "--port", "loop://", "--calibration", "missing.yaml"],
     "--calibration: cannot read calibration missing.yaml"),
    (["emulate", "--delay", "3"], "--delay: expected N:SECONDS"),
    (["emulate", "--drop", "0"], "--drop: expected a whole number >= 1"),
    (["emulate", "--garble", "x"], "--garble: expected a whole number"),
    (["emulate", "--tcp", "70000"], "--tcp must be a port between 0"),
    (["home", "--port", "loop://", "--timeout", "-1"], "--timeout/--ready-timeout: timeout: expected seconds in (0, 60]"),
    (["home", "--port", "loop://", "--ready-timeout", "1e308"],
     "--timeout/--ready-timeout: ready_timeout: expected seconds in (0, 120], got 1e+308"),
    (["emulate", "--soft-start", "inf"], "--soft-start: value 1 is inf"),
    (["emulate", "--soft-start", "61"], "--soft-start: expected seconds in [0, 60], got 61"),
    (["state", "--port", "loop://", "--socket", "/nonexistent/x.sock"], "--socket: no link answers at"),
    (["home", "--port", "loop://", "--robot", "puma560"],
     "--robot: robot 'puma560': the Braccio bridge needs 5 joints"),
    (["move", "0", "0", "0", "0", "0"], "the following arguments are required: --port"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, "braccio", *argv)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_a_port_with_no_board_exits_1(capsys):
    code, out, err = run(capsys, "braccio", "home", "--port", "loop://", "--ready-timeout", "0.4")
    assert code == 1 and out == ""
    # loop:// echoes what is sent and no banner ever comes
    assert err.startswith("kinematica: error: loop://: no READY banner from loop://") and err.count("\n") == 1


def test_a_trajectory_of_another_robot_is_refused(capsys, tmp_path):
    tr = km.trajectory.quintic(np.zeros(5), np.ones(5) * 0.1, 1.0, steps=10, robot=km.load("arm-5dof"))
    f = km.trajectory.save(tr, tmp_path / "other.csv")
    code, _, err = run(capsys, "braccio", "play", str(f), "--port", "loop://")
    assert code == 2 and "are not those of braccio" in err


def test_emulate_serves_until_ctrl_c(capsys):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["PYTHONPATH"] = str(Path(km.__file__).parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from kinematica.cli import main; "
                             "sys.exit(main(sys.argv[1:]))", "braccio", "emulate", "--tcp", "0", "--soft-start", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = proc.stdout.readline()
        assert first.startswith("Braccio emulator (protocol v2) on socket://127.0.0.1:") and "Ctrl+C stops it" in first
        url = first.split(" on ")[1].split(";")[0]
        d = run_json(capsys, "braccio", "move", "0", "-40", "90", "90", "0", "--deg", "--port", url, "--speed", "100")
        assert d["state"]["degrees"] == [90, 50, 180, 180, 90, 10]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out.startswith("Emulator stopped: 1 connection(s)") and "[90, 50, 180, 180, 90, 10]" in out


def test_the_readme_examples(capsys):
    """The README's `braccio move` example (its emulator URL replaced by this one's) and its
    Python snippet, run as printed."""
    import readme

    section = "## From the command line and Python"
    example = next(b for b in readme.blocks("console", section) if b.startswith("$ kinematica braccio move "))
    command, expected = example.split("\n", 1)
    with hw.Emulator() as emu:
        argv = command.split()[3:]  # after "$ kinematica braccio"
        argv[argv.index("--port") + 1] = emu.url
        code, out, err = run(capsys, "braccio", *argv)
    assert code == 0 and err == ""
    readme.assert_same_text(out, expected.replace("socket://127.0.0.1:5760", emu.url), what=command)
    snippet = readme.blocks("python", section)[0]
    exec(compile(snippet, "docs/hardware.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert printed[:2] == ["True", "200"]  # ok, the last point acknowledged


def test_emulate_stops_after_seconds_as_the_so101_one_does(capsys):
    code, out, err = run(capsys, "braccio", "emulate", "--seconds", "0.2", "--soft-start", "0")
    assert code == 0 and "socket://127.0.0.1:" in out and "Emulator stopped: 0 connection(s)" in out
    for bad in ("0", "-1", "nan"):
        code, out, err = run(capsys, "braccio", "emulate", "--seconds", bad)
        assert code == 2 and out == "" and "--seconds" in err and err.count("\n") == 1


def test_emulate_options_make_the_misbehaviour():
    from kinematica.cli import build_parser
    from kinematica.cli.braccio import misbehaviour

    args = build_parser().parse_args(["braccio", "emulate", "--drop", "5", "--delay", "7:2.5", "--garble", "9",
                                      "--disconnect-after", "30"])
    assert misbehaviour(args) == hw.Misbehaviour(drop=5, delay=(7, 2.5), garble=9, disconnect_after=30)
    args = build_parser().parse_args(["braccio", "emulate", "--reset-after", "4"])
    assert misbehaviour(args) == hw.Misbehaviour(reset_after=4)
    assert misbehaviour(build_parser().parse_args(["braccio", "emulate"])) == hw.Misbehaviour()
