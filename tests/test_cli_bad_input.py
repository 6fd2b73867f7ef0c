"""Bad input to the command line: absurd joint values, joints outside their limits, unbounded
counts, unknown output formats, a run that would never end, Ctrl+C, a closed stdout and a
broken pipe — each a clear line, never a traceback or a hang.

Ctrl+C, the closed stdout and the broken pipe are tested on a real `kinematica` process (a
SIGINT sent to it, its file descriptors really closed), since that is where they happen.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import kinematica as km
from kinematica.cli import EXIT_INTERRUPTED, build_parser
from kinematica.cli.progress import Progress
from kinematica.textfmt import num

from cli_run import run, run_json
from serving import Server

PUMA_OUT = ["3", "0", "0", "0", "0", "0"]  # q1 = 3 rad, past the Puma's ±160°
PUMA_IN = ["0.1", "0.2", "-0.3", "0.2", "0.5", "0.1"]


def kinematica(*argv: str) -> list[str]:
    """The command line of a real `kinematica` process."""
    return [sys.executable, "-c", "import sys; from kinematica.cli import main; sys.exit(main())", *argv]


def one_error(code: int, out: str, err: str, expected_code: int = 2) -> str:
    assert code == expected_code and out == "" and err.count("\n") == 1, err
    assert err.startswith("kinematica: error: ")
    return err


# --- joint values beyond any meaning ----------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["fk", "puma560", "1e308", "0", "0", "0", "0", "0"], "joint value 1 (q1) is 1e308 rad: beyond ±6283.19 rad"),
    (["fk", "puma560", "0", "0", "0", "0", "0", "400000", "--deg"], "joint value 6 (q6) is 400000 deg"),
    (["jacobian", "puma560", "0", "-7000", "0", "0", "0", "0"], "joint value 2 (q2) is -7000 rad"),
    (["dynamics", "puma560", "--q", *PUMA_IN, "--qd", "1e300", "0", "0", "0", "0", "0"],
     "--qd: joint value 1 (q1) is 1e300 rad/s: beyond ±1e+06 rad/s"),
    (["dynamics", "puma560", "--q", *PUMA_IN, "--qdd", "0", "0", "0", "0", "0", "-2e6"], "rad/s²"),
    (["simulate", "puma560", "--duration", "1", "--q0", "1e10", "0", "0", "0", "0", "0"], "--q0: joint value 1"),
    (["ik", "puma560", "--position", "0.4", "0.1", "0.3", "--q0", "0", "0", "9e9", "0", "0", "0"], "--q0"),
    (["explain", "puma560", "fk", "--q", "0", "0", "0", "0", "1e200", "0"], "--q: joint value 5"),
])
def test_absurd_joint_values_are_refused_naming_the_bound(capsys, argv, words):
    err = one_error(*run(capsys, *argv))
    assert words in err and "the largest accepted" in err


def test_a_prismatic_joint_has_a_length_bound(capsys, tmp_path):
    robot = km.from_dh([{"a": 0.0, "alpha": 0.0, "d": 0.0, "theta": 0.0, "type": "prismatic",
                         "limits": [0.0, 0.5]},
                        {"a": 0.3, "alpha": 0.0, "d": 0.0, "theta": 0.0}], name="slider", length_unit="mm")
    path = tmp_path / "slider.yaml"
    km.save(robot, path)
    err = one_error(*run(capsys, "fk", str(path), "2e9", "0"))
    assert "2e9 mm: beyond ±1e+09 mm" in err
    data = run_json(capsys, "fk", str(path), "5e8", "0")  # accepted, far outside its limits
    assert data["position"][2] == pytest.approx(5e8, rel=1e-12)
    assert data["limit_warnings"][0]["joint"] == robot.joint_names[0]


def test_huge_numbers_print_in_scientific_notation():
    # The old fixed-point column spelled 1e308 out in 309 digits.
    assert num(1e308) == "1.0000e+308" and num(-2.5e12, 2) == "-2.50e+12"
    assert num(123456.25) == "123456.2500"  # everyday numbers stay as they were


# --- joints outside their limits: a warning in every command that reads joint values --------------
OUTSIDE = {  # (command, option dest) -> argv with q1 = 3 rad on the Puma
    ("fk", "q"): ["fk", "puma560", *PUMA_OUT],
    ("jacobian", "q"): ["jacobian", "puma560", *PUMA_OUT],
    ("dynamics", "q"): ["dynamics", "puma560", "--q", *PUMA_OUT],
    ("simulate", "q0"): ["simulate", "puma560", "--duration", "0.02", "--q0", *PUMA_OUT, "--hold"],
    ("ik", "q0"): ["ik", "puma560", "--position", "0.4", "0.1", "0.3", "--q0", *PUMA_OUT],
    ("explain", "q"): ["explain", "puma560", "fk", "--q", *PUMA_OUT],
    ("explain", "q0"): ["explain", "puma560", "ik", "--position", "0.4", "0.1", "0.3", "--q0", *PUMA_OUT],
    ("plot", "q"): ["plot", "puma560", "arm", "--q", *PUMA_OUT, "--out", "{tmp}/arm.png"],
    ("plot", "q0"): ["plot", "puma560", "convergence", "--position", "0.4", "0.1", "0.3", "--q0", *PUMA_OUT,
                     "--out", "{tmp}/conv.png"],
    ("traj", "q0"): ["traj", "puma560", "joint", "--q0", *PUMA_OUT, "--to", *PUMA_IN],
    ("traj", "from_"): ["traj", "puma560", "joint", "--from", *PUMA_OUT, "--to", *PUMA_IN],
    ("traj", "to"): ["traj", "puma560", "joint", "--from", *PUMA_IN, "--to", *PUMA_OUT],
    ("traj", "poses"): ["traj", "puma560", "joint", "--poses", *PUMA_IN, "--poses", *PUMA_OUT],
    ("scene", "q"): ["scene", "check", "{tmp}/puma-scene.yaml", "--q", "arm=" + ",".join(PUMA_OUT)],
    ("plan", "start"): ["plan", "{tmp}/puma-scene.yaml", "--start", *PUMA_OUT, "--goal", *PUMA_IN],
    ("plan", "goal"): ["plan", "{tmp}/puma-scene.yaml", "--start", *PUMA_IN, "--goal", *PUMA_OUT],
}
JOINT_DESTS = {"q", "q0", "from_", "to", "poses"}  # (plan's start and goal are listed above too)


def test_every_command_reading_joint_values_is_covered():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    found = {(name, a.dest) for name, p in sub.choices.items() for a in p._actions if a.dest in JOINT_DESTS}
    assert found <= set(OUTSIDE), f"not tested for the limit warning: {sorted(found - set(OUTSIDE))}"


@pytest.mark.parametrize("key", sorted(OUTSIDE), ids=["-".join(k) for k in sorted(OUTSIDE)])
def test_joint_values_outside_the_limits_are_warned_about(capsys, tmp_path, key):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in OUTSIDE[key]]
    (tmp_path / "puma-scene.yaml").write_text("robots: [{name: arm, robot: puma560}]\n", encoding="utf-8")
    code, out, err = run(capsys, *argv, "--json")
    warnings = [line for line in err.splitlines() if line.startswith("kinematica: warning: ")]
    assert len(warnings) == 1, err
    assert "q1 = 3 rad is outside its limits [-2.79253 rad, 2.79253 rad]" in warnings[0]
    if code == 0:  # (a joint-space move from outside the limits is refused, exit 1, after the warning)
        data = json.loads(out)
        [w] = data["limit_warnings"]
        assert w["joint"] == "q1" and w["value"] == 3.0 and w["message"] in warnings[0]
        assert w["limits"] == pytest.approx(np.radians([-160, 160]))
    else:
        assert code == 1 and "kinematica: error: " in err


def test_limit_warning_in_degrees_with_deg(capsys):
    code, out, err = run(capsys, "fk", "puma560", "170", "0", "0", "0", "0", "0", "--deg")
    assert code == 0 and err == "kinematica: warning: q1 = 170° is outside its limits [-160°, 160°]\n"


def test_values_inside_the_limits_give_no_warning(capsys):
    code, out, err = run(capsys, "fk", "puma560", *PUMA_IN, "--json")
    assert code == 0 and err == "" and "limit_warnings" not in json.loads(out)


def test_a_usage_error_drops_the_warnings(capsys):
    # The command did nothing: only the error is worth a line.
    err = one_error(*run(capsys, "dynamics", "puma560", "--q", *PUMA_OUT, "--qd", "x", "0", "0", "0", "0", "0"))
    assert "warning" not in err


# --- counts and formats -----------------------------------------------------------------------------
def test_ik_restarts_are_bounded(capsys):
    err = one_error(*run(capsys, "ik", "puma560", "--position", "0.4", "0.1", "0.3", "--restarts", "100000000"))
    assert "--restarts = 100000000 is over the limit of 10,000" in err and "kinematica.bounds.RESTARTS" in err


@pytest.mark.parametrize("value", ["0", "1000000000000"])
def test_simulate_max_evaluations_is_bounded(capsys, value):
    err = one_error(*run(capsys, "simulate", "puma560", "--duration", "1", "--max-evaluations", value))
    assert "--max-evaluations" in err


def test_a_runaway_simulation_stops_with_one_line_saying_where_and_why(capsys):
    # The hang: 10⁶ N·m on every Puma joint, which no step size follows for long.
    code, out, err = run(capsys, "simulate", "puma560", "--duration", "1", "--torque", *["1e6"] * 6,
                         "--max-evaluations", "2000")
    lines = [line for line in err.splitlines() if not line.startswith("kinematica: simulating")]  # progress
    assert code == 1 and out == "" and len(lines) == 1, err
    assert lines[0].startswith("kinematica: error: puma560: stopped at t = ")
    assert "(--max-evaluations = 2,000)" in lines[0] and "rad/s" in lines[0]


def test_explain_refuses_an_output_suffix_it_cannot_tell(capsys, tmp_path):
    path = tmp_path / "e.xyz"
    err = one_error(*run(capsys, "explain", "puma560", "fk", "--out", str(path)))
    assert "cannot tell the format of 'e.xyz'" in err and ".md" in err and ".html" in err and ".tex" in err
    assert not path.exists()
    code, out, err = run(capsys, "explain", "puma560", "fk", "--out", str(path), "--format", "md")
    assert code == 0 and path.read_text(encoding="utf-8").startswith("#")  # a stated format is kept


def test_progress_lines_come_after_a_second_and_then_every_two():
    times = iter([100.0, 100.5, 101.0, 102.0, 103.1]).__next__  # the clock at start and at each call
    lines: list[str] = []

    class Sink:
        def write(self, s):
            lines.append(s)

        def flush(self):
            pass

    report = Progress(Sink(), "simulating puma560", "s", 1.0, clock=times)
    for t in (0.1, 0.2, 0.3, 0.4):
        report(t, 1000)
    assert lines == ["kinematica: simulating puma560: t = 0.2 of 1 s, 1,000 evaluations (Ctrl+C stops)\n",
                     "kinematica: simulating puma560: t = 0.4 of 1 s, 1,000 evaluations (Ctrl+C stops)\n"]


# --- Ctrl+C, a closed stdout, a broken pipe: a real process ---------------------------------------
def test_ctrl_c_stops_serve_with_one_line():
    with Server(None) as server:
        server.process.send_signal(signal.SIGINT)
        code = server.process.wait(60)
        output = server.output()
    assert "Traceback" not in output, output
    lines = output.strip().splitlines()
    assert lines[0].startswith("Kinematica simulator with braccio at ") and "Ctrl+C stops it" in lines[0]
    assert lines[1:] == ["kinematica: serve stopped (Ctrl+C)"] and code == EXIT_INTERRUPTED


def test_ctrl_c_stops_a_long_simulation_with_one_line():
    process = subprocess.Popen(kinematica("simulate", "puma560", "--duration", "1", "--torque", *["1e6"] * 6,
                                          "--max-evaluations", "100000000"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stderr.readline()  # its first progress line: it is well under way
        assert first.startswith("kinematica: simulating puma560: t = "), first
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = [line for line in err.splitlines() if not line.startswith("kinematica: simulating")]
    assert lines == ["kinematica: simulate stopped (Ctrl+C)"] and out == ""
    assert process.returncode == EXIT_INTERRUPTED


def test_a_closed_stdout_is_one_line():
    # `kinematica robots >&-`: the shell starts it with file descriptor 1 closed.
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *kinematica("robots")],
                          stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == "kinematica: error: standard output is closed: nothing to write the answer to\n"


@pytest.mark.parametrize("argv", [["robots"], ["show", "puma560", "--json"], ["fk", "ur5", *PUMA_IN, "--frames"]])
def test_a_reader_that_left_is_no_error(argv):
    # `kinematica robots | head -0`: the pipe's reading end is closed before anything is written.
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(kinematica(*argv), stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr == ""


def test_head_reading_one_line_is_no_error():
    done = subprocess.run(["sh", "-c", '"$@" | head -1', "sh", *kinematica("show", "puma560", "--json")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "" and done.stdout == "{\n"
