"""Kinematic calibration of joint offsets (`km.identify_offsets`): exact recovery without noise,
poses that cannot see an offset said in words, bad input refused; and on the SO-101 bus
emulator, offsets injected into its servos (their homing offsets: every reading and goal shifted,
as an arm zeroed in a pose held a little off) recovered from noisy readings at known tool
positions within the bound the noise sets, then applied through the calibration file."""

from __future__ import annotations

import io
import json
import os
import re
import threading
import time

import numpy as np
import pytest

import kinematica as km
from cli_run import run
from kinematica.errors import InputError
from kinematica.hardware import Imperfection, So101, So101Emulator, load_so101_calibration, save_so101_calibration
from kinematica.hardware import feetech as ft
from kinematica.hardware.so101_calibration import CENTRE, PER_RAD

SO101 = km.load("so101")


def poses(k: int, seed: int) -> np.ndarray:
    """k joint vectors spread over 70 % of the SO-101's limits."""
    lo, hi = SO101.limits[:, 0], SO101.limits[:, 1]
    return np.random.default_rng(seed).uniform(0.7 * lo, 0.7 * hi, (k, 5))


def test_exact_readings_give_the_offsets_to_round_off():
    q = poses(12, 0)
    delta = np.radians([1.5, -2.0, 0.8, 3.0, -4.0])
    fit = km.identify_offsets(SO101, q - delta, km.fk(SO101, q)[:, :3, 3])
    assert fit.success, fit.reason
    # the wrist roll moves the tool point 7.9 mm off its axis: the weakest column, condition ~50
    np.testing.assert_allclose(fit.offsets, delta, atol=1e-10)
    assert fit.residual_max < 1e-12 and fit.condition < 1e3


def test_an_offset_the_poses_cannot_see_is_said_not_guessed():
    tool_on_axis = km.load("puma560")  # its tool point is the wrist centre: joints 4-6 cannot move it
    qp = np.random.default_rng(2).uniform(-1, 1, (10, 6))
    fit = km.identify_offsets(tool_on_axis, qp, km.fk(tool_on_axis, qp)[:, :3, 3])
    assert not fit.success and "cannot tell the offsets of q4, q5, q6 apart" in fit.reason
    assert np.all(fit.offsets == 0) and np.all(np.isnan(fit.std))
    q = poses(12, 1)  # the joints left out are held at 0, their std NaN
    fit = km.identify_offsets(SO101, q, km.fk(SO101, q)[:, :3, 3], joints=[0, 1, 2, 3])
    assert fit.success and np.isnan(fit.std[4]) and fit.offsets[4] == 0


def test_points_in_the_wrong_unit_are_not_called_a_fit():
    q = poses(12, 4)
    fit = km.identify_offsets(SO101, q, 1000 * km.fk(SO101, q)[:, :3, 3])  # mm given to a robot in m
    assert not fit.success and "do not match these poses (their unit must be m" in fit.reason


@pytest.mark.parametrize("q, p, joints, words", [
    (np.zeros((4, 4)), np.zeros((4, 3)), None, "shape (K, 5)"),
    (np.zeros((4, 5)), np.zeros((3, 3)), None, "one known tool point per pose"),
    (np.full((4, 5), np.nan), np.zeros((4, 3)), None, "NaN"),
    (np.zeros((1, 5)), np.zeros((1, 3)), None, "too few for 5 offsets"),
    (np.zeros((4, 5)), np.zeros((4, 3)), [0, 0], "distinct joint indices"),
    (np.zeros((4, 5)), np.zeros((4, 3)), [5], "distinct joint indices"),
])
def test_bad_input_is_refused_in_words(q, p, joints, words):
    with pytest.raises(InputError, match=re.escape(words)):
        km.identify_offsets(SO101, q, p, joints=joints)


# ticks: 1.2°, −1.9°, 1.5°, 0.8°, and the wrist roll −10.5° (a spline tooth off): its axis passes
# 7.9 mm from the tool point, so positions see its offset ~40 times less well than the others'
INJECTED = np.array([14, -22, 17, 9, -120])
NOISE = 1.0  # ticks, standard deviation of every reading


def miscalibrated() -> So101Emulator:
    """An emulated SO-101 whose servos' zeros are INJECTED ticks off (their homing offsets: every
    reading and goal shifted), its readings noisy."""
    emu = So101Emulator(imperfection=Imperfection(noise=NOISE), seed=7)
    for sid, d in enumerate(INJECTED, start=1):
        emu.servos[sid].write(ft.TABLE["homing_offset"].address, ft.encode("homing_offset", int(d)))
    return emu


def place(emu: So101Emulator, q: np.ndarray) -> None:
    """The tool put by hand where the true joints are q: the shafts turned there (torque off)."""
    where = emu.positions()  # shaft − homing offset
    for sid in range(1, 6):
        emu.turn(sid, CENTRE + q[sid - 1] * PER_RAD - (where[sid] + INJECTED[sid - 1]))


def noise_bound(q_true: np.ndarray) -> np.ndarray:
    """4 standard errors of each offset from the readings' noise and whole-tick rounding,
    σ² = NOISE² + 1/12 ticks²: linearised, δ̂ − δ = −(AᵀA)⁻¹ Σ_k J_kᵀ J_k n_k (a 6e-5 chance per
    joint of a larger error, for Gaussian noise)."""
    sigma = np.sqrt(NOISE ** 2 + 1 / 12) / PER_RAD
    J = km.jacobian(SO101, q_true)[:, :3, :]
    inv = np.linalg.inv(np.einsum("kia,kib->ab", J, J))
    middle = sigma ** 2 * sum(Jk.T @ Jk @ Jk.T @ Jk for Jk in J)
    return 4 * np.sqrt(np.diag(inv @ middle @ inv))


def test_offsets_injected_into_the_emulator_are_recovered_within_the_noise(tmp_path):
    q_true = poses(60, 3)
    with miscalibrated() as emu, So101(emu.url) as arm:
        arm.torque(False)
        read = []
        for q in q_true:
            place(emu, q)
            read.append(arm.state().q)
        fit = km.identify_offsets(SO101, np.array(read), km.fk(SO101, q_true)[:, :3, 3])
        assert fit.success, fit.reason
        delta, bound = INJECTED / PER_RAD, noise_bound(q_true)
        sigma = np.sqrt(NOISE ** 2 + 1 / 12) / PER_RAD
        assert np.all(np.abs(fit.offsets - delta) <= bound), (np.degrees(fit.offsets - delta), np.degrees(bound))
        assert np.all(bound < np.abs(delta) / 2)  # a real bound: under half of each injected offset
        # applied through the calibration file, the arm reads its true joints again (within the noise)
        path = save_so101_calibration(arm.calibration.with_offsets(fit.offsets), tmp_path / "cal.json")
        arm.calibration = load_so101_calibration(path)
        after = np.array([arm.state().q for _ in range(20)]).mean(axis=0)
        before = q_true[-1] - delta
    assert np.all(np.abs(after - q_true[-1]) <= bound + 4 * sigma / np.sqrt(20))
    assert np.all(np.abs(after - q_true[-1]) < np.abs(before - q_true[-1]))


def test_old_calibration_files_read_with_the_zero_in_the_middle(tmp_path):
    import json

    cal = So101(url="loop://").calibration
    path = save_so101_calibration(cal, tmp_path / "cal.json")
    data = json.loads(path.read_text())
    for row in data["servos"].values():
        del row["zero"]
    path.write_text(json.dumps(data))
    assert load_so101_calibration(path) == cal
    data["servos"]["elbow_flex"]["zero"] = float("nan")
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=re.escape("elbow_flex: expected an id 0 … 253, sign ±1, a range and a zero")):
        load_so101_calibration(path)


def test_the_offsets_command_prompts_for_each_point_and_writes_the_calibration(capsys, tmp_path, monkeypatch):
    q_true = poses(40, 5)
    points = tmp_path / "points.csv"
    np.savetxt(points, km.fk(SO101, q_true)[:, :3, 3], delimiter=",", header="x, y, z (m)")
    r, w = os.pipe()
    monkeypatch.setattr("sys.stdin", os.fdopen(r))
    with miscalibrated() as emu:
        def person():  # puts the tool on each point, then presses Enter, once the last reading is taken
            with os.fdopen(w, "w") as keys:
                while not any(p[4] == ft.SYNC_WRITE for p in emu.log()[0]):  # torque off
                    time.sleep(0.01)
                reads = lambda: sum(p[4] == ft.SYNC_READ for p in emu.log()[0])  # noqa: E731
                base = reads()
                for k, q in enumerate(q_true):
                    place(emu, q)
                    keys.write("\n")
                    keys.flush()
                    while reads() < base + k + 1:
                        time.sleep(0.002)
        th = threading.Thread(target=person, daemon=True)
        th.start()
        code, out, err = run(capsys, "so101", "offsets", "--port", emu.url, "--points", str(points), "--out",
                             str(tmp_path / "cal.json"), "--json")
        th.join()
    d = json.loads(out)
    assert code == 0 and d["ok"] and d["points"] == 40, err
    assert err.count("put the tool point on") == 40 and "Point 40 of 40" in err
    got = np.radians([j["offset_deg"] for j in d["joints"]])
    assert np.all(np.abs(got[:5] - INJECTED / PER_RAD) <= noise_bound(q_true))
    zeros = [s.zero for s in load_so101_calibration(tmp_path / "cal.json").servos]
    np.testing.assert_allclose(zeros[:5], CENTRE - got[:5] * PER_RAD, atol=1e-9)  # sign +1: zero − δ ticks


def test_the_offsets_command_writes_nothing_when_the_input_ends(capsys, tmp_path, monkeypatch):
    points = tmp_path / "points.csv"
    points.write_text("0.2, 0, 0.1\n0.25, 0.05, 0.1\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))  # Enter once, then the input ends
    with So101Emulator() as emu:
        code, out, err = run(capsys, "so101", "offsets", "--port", emu.url, "--points", str(points), "--out",
                             str(tmp_path / "cal.json"))
        assert code == 1 and "the input ended after 1 of 2 points: nothing written" in err
        assert not (tmp_path / "cal.json").exists()
        points.write_text("0.2, 0\n")
        code, out, err = run(capsys, "so101", "offsets", "--port", emu.url, "--points", str(points), "--out",
                             str(tmp_path / "cal.json"))
        assert code == 2 and "--points" in err and err.count("\n") == 1
