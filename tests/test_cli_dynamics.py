"""`kinematica dynamics` and `kinematica simulate`: values equal the Python API, units, trajectory
files in and out, and one-line errors on bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica.model.inertial import Inertial
from cli_run import run, run_json
import readme

PUMA_Q = [0.3, -0.7, 1.1, 0.4, -0.9, 0.2]
PUMA_QD = [0.5, -1.0, 0.8, 2.0, -1.5, 3.0]
PUMA_QDD = [1.0, 2.0, -3.0, 0.5, 4.0, -2.0]
RTOL = 1e-13  # the JSON writer may move a value by one unit in the last place






def strs(values) -> list[str]:
    return [repr(float(v)) for v in values]


def close(a, b) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), b, rtol=RTOL, atol=1e-13)


@pytest.fixture
def scara(tmp_path) -> Path:
    """An RRP arm in millimetres with inertials, as a robot file: prismatic units and scaling."""
    rows = [{"a": 300, "alpha": 0, "d": 0, "theta": 0}, {"a": 200, "alpha": np.pi, "d": 0, "theta": 0},
            {"a": 0, "alpha": 0, "d": 0, "theta": 0, "type": "prismatic"}]
    robot = km.from_dh(rows, name="scara-mm", length_unit="mm", joint_names=["j1", "j2", "d3"], meta={"inertials": (
        Inertial(3.0, [-150, 0, 0], np.diag([1e3, 2e4, 2e4])),
        Inertial(2.0, [-100, 0, 0], np.diag([1e3, 8e3, 8e3])),
        Inertial(0.5, [0, 0, -50], np.diag([500, 500, 10])))})
    return km.save(robot, tmp_path / "scara.yaml")


@pytest.fixture
def bare(tmp_path) -> Path:
    """A robot file without inertial parameters."""
    robot = km.from_dh([{"a": 0.3, "alpha": 0, "d": 0, "theta": 0}, {"a": 0.2, "alpha": 0, "d": 0, "theta": 0}],
                       name="bare-2r")
    return km.save(robot, tmp_path / "bare.yaml")


def quintic_move(robot: km.Robot, q0, q1, duration: float = 2.0, samples: int = 41) -> km.Trajectory:
    """Rest-to-rest quintic motion from q0 to q1, built with NumPy."""
    t = np.linspace(0.0, duration, samples)
    s = t / duration
    h = 10 * s**3 - 15 * s**4 + 6 * s**5
    hd = (30 * s**2 - 60 * s**3 + 30 * s**4) / duration
    hdd = (60 * s - 180 * s**2 + 120 * s**3) / duration**2
    d = np.asarray(q1, float) - np.asarray(q0, float)
    return km.trajectory.for_robot(robot, t, q0 + np.outer(h, d), np.outer(hd, d), np.outer(hdd, d))


# --- dynamics at one state --------------------------------------------------------------------
def test_puma_json_equals_the_api(capsys):
    robot = km.load("puma560")
    data = run_json(capsys, "dynamics", "puma560", "--q", *strs(PUMA_Q), "--qd", *strs(PUMA_QD),
                    "--qdd", *strs(PUMA_QDD))
    for key in ("robot", "length_unit", "q", "q_deg", "qd", "qdd", "tau", "M", "gravity", "coriolis",
                "units"):
        assert key in data
    assert data["robot"] == "puma560" and data["length_unit"] == "m"
    close(data["q"], PUMA_Q)
    close(data["q_deg"], np.degrees(PUMA_Q))
    close(data["tau"], km.rne(robot, PUMA_Q, PUMA_QD, PUMA_QDD))
    close(data["M"], km.mass_matrix(robot, PUMA_Q))
    close(data["gravity"], km.gravity_torques(robot, PUMA_Q))
    close(data["coriolis"], km.coriolis(robot, PUMA_Q, PUMA_QD))
    np.testing.assert_allclose(np.add(data["inertial"], data["coriolis"]) + data["gravity"], data["tau"],
                               rtol=1e-12, atol=1e-12)
    assert data["units"]["tau"] == ["N·m"] * 6 and data["units"]["M"] == "kg·m²"
    assert data["units"]["qd"] == ["rad/s"] * 6 and data["gravity_vector"] == [0, 0, -9.80665]


def test_rates_default_to_zero(capsys):
    data = run_json(capsys, "dynamics", "puma560", "--q", *strs(PUMA_Q))
    assert data["qd"] == [0.0] * 6 and data["qdd"] == [0.0] * 6
    close(data["tau"], km.gravity_torques(km.load("puma560"), PUMA_Q))
    assert data["coriolis"] == [0.0] * 6


def test_deg_converts_q_qd_and_qdd(capsys):
    rad = run_json(capsys, "dynamics", "puma560", "--q", *strs(PUMA_Q), "--qd", *strs(PUMA_QD),
                   "--qdd", *strs(PUMA_QDD))
    deg = run_json(capsys, "dynamics", "puma560", "--q", *strs(np.degrees(PUMA_Q)), "--qd",
                   *strs(np.degrees(PUMA_QD)), "--qdd", *strs(np.degrees(PUMA_QDD)), "--deg")
    for key in ("q", "qd", "qdd", "tau", "M", "gravity", "coriolis"):
        np.testing.assert_allclose(deg[key], rad[key], rtol=1e-12, atol=1e-12)
    close(deg["qd_deg"], np.degrees(PUMA_QD))


def test_prismatic_joints_in_mm_keep_their_units(capsys, scara):
    robot = km.load(str(scara))
    q, qd, qdd = [0.5, -0.8, 100.0], [0.3, 0.2, 50.0], [0.1, 0.05, 200.0]  # d3 in mm, mm/s, mm/s²
    data = run_json(capsys, "dynamics", str(scara), "--q", *strs(q), "--qd", *strs(qd), "--qdd", *strs(qdd))
    close(data["tau"], km.rne(robot, q, qd, qdd))
    close(data["q_deg"], [np.degrees(0.5), np.degrees(-0.8), 100.0])
    assert data["units"]["tau"] == ["N·m", "N·m", "N"]
    assert data["units"]["qdd"] == ["rad/s²", "rad/s²", "mm/s²"]
    assert "kg·m revolute–prismatic" in data["units"]["M"]
    np.testing.assert_allclose(np.add(data["inertial"], data["coriolis"]) + data["gravity"], data["tau"],
                               rtol=1e-12, atol=1e-12)
    assert data["inertial"][2] == pytest.approx(0.5 * 0.2)  # 0.5 kg at 200 mm/s², in N


def test_gravity_option(capsys):
    robot = km.load("puma560")
    moon = run_json(capsys, "dynamics", "puma560", "--q", *strs(PUMA_Q), "--qdd", *strs(PUMA_QDD),
                    "--gravity", "0", "0", "-1.62")
    close(moon["tau"], km.rne(robot, PUMA_Q, np.zeros(6), PUMA_QDD, gravity=[0, 0, -1.62]))
    close(moon["gravity"], km.gravity_torques(robot, PUMA_Q, [0, 0, -1.62]))
    assert moon["gravity_vector"] == [0, 0, -1.62]
    free = run_json(capsys, "dynamics", "puma560", "--q", *strs(PUMA_Q), "--gravity", "0", "0", "0")
    assert np.allclose(free["tau"], 0, atol=1e-14) and np.allclose(free["gravity"], 0, atol=1e-14)


def test_table_view(capsys, scara):
    code, out, err = run(capsys, "dynamics", "puma560", "--q", "0", "45", "-90", "0", "30", "0", "--deg")
    assert code == 0 and err == ""
    for text in ("puma560: 6 joints RRRRRR", "gravity: (0, 0, -9.80665) m/s²", "Joint state:",
                 "deg, deg/s, deg/s²", "τ = M(q) q̈ + C(q, q̇) q̇ + g(q)", "g(q)", "N·m",
                 "Mass matrix M(q) (kg·m²):", "31.9601"):
        assert text in out, text
    code, out, _ = run(capsys, "dynamics", str(scara), "--q", "0", "0", "10")
    assert code == 0 and "mm, mm/s, mm/s²" in out and re.search(r"d3 .* N$", out, re.M)


# --- dynamics along a trajectory --------------------------------------------------------------
@pytest.mark.parametrize("suffix, deg", [(".csv", False), (".json", True)])
def test_trajectory_file_round_trip(capsys, tmp_path, suffix, deg):
    robot = km.load("puma560")
    move = quintic_move(robot, np.zeros(6), np.radians([90, 45, -90, 30, 60, 0]))
    src = km.trajectory.save(move, tmp_path / f"move{suffix}", degrees=not deg)
    out = tmp_path / f"with-tau{suffix}"
    argv = ["dynamics", "puma560", "--trajectory", str(src), "--out", str(out)] + (["--deg"] if deg else [])
    data = run_json(capsys, *argv)
    back = km.trajectory.load(out)
    expected = km.rne(robot, move.q, move.qd, move.qdd)
    np.testing.assert_allclose(back.tau, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(back.q, move.q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(back.t, move.t)
    assert back.joint_names == robot.joint_names
    assert data["samples"] == len(move) and data["duration"] == pytest.approx(2.0)
    np.testing.assert_allclose(data["peak_tau"], np.abs(expected).max(axis=0), rtol=1e-12)
    np.testing.assert_allclose(data["rms_tau"], np.sqrt((expected ** 2).mean(axis=0)), rtol=1e-12)
    assert data["units"]["tau"] == ["N·m"] * 6
    assert data["written"] == {"path": str(out), "format": suffix[1:].upper(),
                               "angle_unit": "deg" if deg else "rad"}
    written = out.read_text(encoding="utf-8")
    assert ("angle_unit=deg" in written or '"angle_unit": "deg"' in written) == deg
    assert "tau" in written


def test_trajectory_table_view_and_no_out(capsys, tmp_path):
    robot = km.load("arm-5dof")
    src = km.trajectory.save(quintic_move(robot, np.zeros(5), [1, 0.5, -0.5, 0.2, 0]), tmp_path / "m.csv")
    code, out, err = run(capsys, "dynamics", "arm-5dof", "--trajectory", str(src))
    assert code == 0 and err == ""
    for text in ("41 samples, t = 0 … 2 s (duration 2 s)", "written:    nothing", "peak |τ|", "rms τ",
                 "at t (s)", "N·m"):
        assert text in out, text


def test_trajectory_with_torques_replaces_them(capsys, tmp_path):
    robot = km.load("arm-5dof")
    move = quintic_move(robot, np.zeros(5), [1, 0.5, -0.5, 0.2, 0])
    src = km.trajectory.save(move.with_torques(np.ones((len(move), 5))), tmp_path / "m.json")
    data = run_json(capsys, "dynamics", "arm-5dof", "--trajectory", str(src), "--out", str(src))
    assert data["replaced_tau"] is True
    np.testing.assert_allclose(km.trajectory.load(src).tau, km.rne(robot, move.q, move.qd, move.qdd),
                               rtol=1e-12, atol=1e-12)


# --- simulate ---------------------------------------------------------------------------------
def test_simulate_writes_the_trajectory(capsys, tmp_path):
    out = tmp_path / "sim.csv"
    data = run_json(capsys, "simulate", "arm-5dof", "--duration", "0.2", "--q0", "0", "30", "-30", "0", "0",
                    "--deg", "--out", str(out))
    sim = km.trajectory.load(out)
    assert len(sim) == 21 and sim.tau is not None and sim.duration == pytest.approx(0.2)
    np.testing.assert_allclose(sim.q[0], np.radians([0, 30, -30, 0, 0]), atol=1e-12)
    assert data["controller"] == "none" and data["samples"] == 21
    assert np.all(sim.tau == 0)  # unactuated
    ref = km.simulate(km.load("arm-5dof"), 0.2, np.radians([0, 30, -30, 0, 0]))
    assert data["energy_start"] == pytest.approx(ref.meta["energy_start"], rel=1e-12)
    assert data["energy_end"] == pytest.approx(ref.meta["energy_end"], rel=1e-9)
    assert abs(data["energy_change"]) < 1e-5  # unactuated and frictionless: energy is kept
    assert data["written"]["angle_unit"] == "deg"
    assert "deg" in out.read_text(encoding="utf-8").splitlines()[1]


def test_simulate_hold_and_constant_torque(capsys, tmp_path):
    held = run_json(capsys, "simulate", "puma560", "--duration", "0.3", "--q0", "0", "45", "-90", "0",
                    "0", "0", "--deg", "--hold")
    assert held["controller"] == "hold"
    np.testing.assert_allclose(held["q_end"], held["q0"], atol=1e-9)
    np.testing.assert_allclose(held["peak_tau"], np.abs(km.gravity_torques(
        km.load("puma560"), np.radians([0, 45, -90, 0, 0, 0]))), rtol=1e-9, atol=1e-12)
    out = tmp_path / "push.json"
    pushed = run_json(capsys, "simulate", "arm-5dof", "--duration", "0.1", "--torque", "0", "3", "0", "0", "0",
                      "--dt", "0.02", "--out", str(out))
    assert pushed["controller"] == "torque" and pushed["torque"] == [0, 3, 0, 0, 0]
    np.testing.assert_allclose(km.trajectory.load(out).tau, np.tile([0, 3, 0, 0, 0], (6, 1)))


def test_simulate_table_view(capsys):
    code, out, err = run(capsys, "simulate", "arm-5dof", "--duration", "0.1")
    assert code == 0 and err == ""
    for text in ("simulated: 0.1 s, 11 samples every 0.01 s (LSODA", "torques:   none (unactuated)",
                 "J at the start", "the energy change is the integration error", "written:   nothing",
                 "q start", "q end", "max |q̇|", "deg, deg/s", "peak |τ|"):
        assert text in out, text


# --- errors: one line on stderr, exit code 2 --------------------------------------------------
def one_line_error(capsys, *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (code, out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("kinematica: error: ")
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("command", [["dynamics", "{bare}", "--q", "0", "0"],
                                     ["simulate", "{bare}", "--duration", "1"],
                                     ["dynamics", "planar-3r", "--q", "0", "0", "0"]])
def test_robot_without_inertials_is_one_line(capsys, bare, command):
    err = one_line_error(capsys, *(c.format(bare=bare) for c in command))
    assert "no inertial parameters for link 1" in err and "meaningless zeros" in err


PUMA = ["dynamics", "puma560"]
SIX = ["0"] * 6


@pytest.mark.parametrize("argv, needle", [
    (PUMA, "one of the arguments --q --trajectory is required"),
    (PUMA + ["--q", "0", "0"], "--q: puma560 has 6 joints (q1 q2 q3 q4 q5 q6): expected 6 joint values, got 2"),
    (PUMA + ["--q", *SIX, "--qd", "0"], "--qd: puma560 has 6 joints"),
    (PUMA + ["--q", *SIX, "--qdd", *SIX, "0"], "--qdd: puma560 has 6 joints"),
    (PUMA + ["--q", "0", "0", "nan", "0", "0", "0"], "--q: joint value 3 (q3) is nan"),
    (PUMA + ["--q", *SIX, "--qd", "0", "inf", "0", "0", "0", "0"], "--qd: joint value 2 (q2) is inf"),
    (PUMA + ["--q", *SIX, "--qdd", "0", "0", "0", "0", "0", "x"], "not a number: 'x'"),
    (PUMA + ["--q", *SIX, "--gravity", "0", "0"], "--gravity: expected 3 arguments"),
    (PUMA + ["--q", *SIX, "--gravity", "0", "nan", "0"], "--gravity: value 2 is nan"),
    (PUMA + ["--q", *SIX, "--out", "x.csv"], "--out writes the torques along a --trajectory"),
    (PUMA + ["--q", *SIX, "--trajectory", "m.csv"], "not allowed with argument --q"),
    (PUMA + ["--trajectory", "no-such-file.csv"], "trajectory file not found: no-such-file.csv"),
    (PUMA + ["--trajectory", "motion.txt"], "cannot tell the format of 'motion.txt'"),
    (PUMA + ["--trajectory", "m.csv", "--out", "x.txt"], "--out: cannot tell the format of 'x.txt'"),
    (PUMA + ["--trajectory", "m.csv", "--qd", *SIX], "--qd goes with --q"),
    (["dynamics", "kuka", "--q", *SIX], "unknown robot 'kuka'"),
    (["simulate", "arm-5dof"], "required: --duration"),
    (["simulate", "arm-5dof", "--duration", "0"], "--duration: must be > 0 s"),
    (["simulate", "arm-5dof", "--duration", "nan"], "--duration: value 1 is nan"),
    (["simulate", "arm-5dof", "--duration", "1", "--dt", "2"], "--dt: must be > 0 and at most"),
    (["simulate", "arm-5dof", "--duration", "1e9", "--dt", "1e-3"], "over the limit of 1,000,000"),
    (["simulate", "arm-5dof", "--duration", "1", "--q0", "0", "0"], "--q0: arm-5dof has 5 joints"),
    (["simulate", "arm-5dof", "--duration", "1", "--qd0", "0", "0", "0", "0", "-inf"], "--qd0: joint value 5"),
    (["simulate", "arm-5dof", "--duration", "1", "--torque", "1"], "--torque: arm-5dof has 5 joints"),
    (["simulate", "arm-5dof", "--duration", "1", "--torque", "0", "0", "nan", "0", "0"], "--torque: value 3"),
    (["simulate", "arm-5dof", "--duration", "1", "--hold", "--torque", *["0"] * 5], "not allowed with"),
    (["simulate", "arm-5dof", "--duration", "1", "--out", "sim.xlsx"], "--out: cannot tell the format"),
])
def test_bad_input_is_one_line(capsys, argv, needle):
    assert needle in one_line_error(capsys, *argv)


def test_mismatched_trajectory_is_one_line(capsys, tmp_path):
    ur5 = km.load("ur5")
    six = km.trajectory.save(quintic_move(ur5, np.zeros(6), np.ones(6)), tmp_path / "ur5.csv")
    err = one_line_error(capsys, "dynamics", "puma560", "--trajectory", str(six))
    assert "the trajectory's joints (shoulder_pan" in err and "are not puma560's (q1 q2" in err
    err = one_line_error(capsys, "dynamics", "arm-5dof", "--trajectory", str(six))
    assert "the trajectory has 6 joints" in err and "arm-5dof has 5" in err
    broken = tmp_path / "broken.csv"
    broken.write_text("t [s],q_q1 [rad]\n0,nan\n", encoding="utf-8")
    err = one_line_error(capsys, "dynamics", "puma560", "--trajectory", str(broken))
    assert "NaN" in err or "nan" in err


def test_help_lists_the_dynamics_commands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "dynamics" in out and "simulate" in out
    code, out, _ = run(capsys, "dynamics", "--help")
    assert code == 0 and "--trajectory" in out and "--gravity" in out


# --- docs/cli.md: the dynamics and simulate examples show real output -------------------------
_SECTION = "## Dynamics: `kinematica dynamics` and `kinematica simulate`"


def _unstable(text: str) -> str:
    """What may move with the last bits of the arithmetic: the integrator's evaluation count and
    the (tiny) energy change of an unactuated simulation."""
    text = re.sub(r"\d+ evaluations", "N evaluations", text)
    return re.sub(r"\(change [^ ]+ J\)", "(change x J)", text)


def test_readme_dynamics_examples_are_real(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples read and write files in the working directory
    snippet = next(b for b in readme.blocks("python", _SECTION) if "km.trajectory.save(" in b)
    exec(compile(snippet, "docs/cli.md", "exec"), {})
    examples = [b for b in readme.blocks("console", _SECTION)
                if b.startswith(("$ kinematica dynamics ", "$ kinematica simulate "))]
    assert len(examples) >= 5
    for block in examples:
        command, expected = block.split("\n", 1)
        code, out, err = run(capsys, *command.split()[2:])
        readme.assert_same_text(_unstable(out + err), _unstable(expected), what=command)
    assert (tmp_path / "move-tau.csv").is_file() and (tmp_path / "fall.csv").is_file()


def test_integrator_failure_is_one_line_exit_1(capsys, monkeypatch):
    def give_up(*args, **kwargs):
        raise RuntimeError("the integrator failed: Required step size is less than spacing between numbers.")
    monkeypatch.setattr(km, "simulate", give_up)
    code, out, err = run(capsys, "simulate", "arm-5dof", "--duration", "1")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("kinematica: error: arm-5dof: the integrator failed: Required step size")
