"""The SO-100 on the SO-101's bus emulator (the same six STS3215s) over TCP: `So101(url,
robot="so100")` and `kinematica so101 … --arm so100` read and command the SO-100's joint values —
the middle tick at its home (the middle of each range), its shoulder pan against its servo — and
a calibration file says which arm it was made on, refused for the other one in words."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run, run_json
from test_cli_so101 import _zeroed, hand
from test_so101_teleop import leader_hand

import kinematica as km
from kinematica.hardware import (
    So101,
    So101Calibration,
    So101Emulator,
    load_so101_calibration,
    save_so101_calibration,
)
from kinematica.hardware.so101_calibration import CENTRE, PER_RAD, So101CalibrationError

pytest.importorskip("serial")

SO100 = km.load("so100")
SIGNS = np.array([-1, 1, 1, 1, 1])  # the robot file's servo_signs (tests/test_so_arms.py: from the axes)
TICK = 1 / PER_RAD  # rad


def ticks_of(q: np.ndarray) -> np.ndarray:
    """The ticks a default-calibrated SO-100 servo reads at q: 2048 at home, each in its sense."""
    return CENTRE + SIGNS * (np.asarray(q) - SO100.home) * PER_RAD


def test_the_middle_tick_reads_the_so100s_home_and_the_default_ranges_fit_the_servo():
    cal = So101Calibration.default(SO100)
    assert cal.arm == "so100" and [s.sign for s in cal.servos] == [*SIGNS, 1]
    lo, hi = cal.angle_bounds()
    # every limit inside its servo's 0 … 4095 ticks, but the wrist roll's ±π (one tick past 4095)
    np.testing.assert_allclose(lo[:4], SO100.limits[:4, 0], atol=TICK / 2)
    np.testing.assert_allclose(hi[:4], SO100.limits[:4, 1], atol=TICK / 2)
    assert [s.range for s in cal.servos][4] == (0, 4095)
    with So101Emulator() as emu, So101(emu.url, robot="so100") as arm:
        np.testing.assert_allclose(arm.state().q, SO100.home, atol=1e-12)  # every servo at 2048


def test_a_move_sends_the_so100s_ticks_and_reads_them_back():
    q = SO100.home + np.radians([20, -30, 25, 15, -40])
    with So101Emulator() as emu, So101(emu.url, robot="so100") as arm:
        report = arm.move(q, speed=2.0)
        assert report.ok, report.reason
        np.testing.assert_array_equal(report.ticks[:5], np.rint(ticks_of(q)).astype(int))
        assert report.ticks[0] < CENTRE  # a positive pan turns the servo back: its sense is −1
        np.testing.assert_allclose(arm.state().q, q, atol=TICK / 2 + 1e-12)  # whole ticks, a perfect emulator


def test_the_cli_moves_and_reads_the_so100(capsys):
    q = np.degrees(SO100.home) + [-20, 30, -25, 10, 45]
    with So101Emulator() as emu:
        d = run_json(capsys, "so101", "move", *map(str, q), "--deg", "--arm", "so100", "--port", emu.url)
        assert d["ok"] and [j["ticks"] for j in d["joints"]][:5] == np.rint(ticks_of(np.radians(q))).astype(int).tolist()
        d = run_json(capsys, "so101", "state", "--arm", "so100", "--port", emu.url)
    got = [j["q_deg"] for j in d["joints"][:5]]
    np.testing.assert_allclose(got, q, atol=np.degrees(TICK) / 2 + 1e-9)


def test_a_move_outside_the_so100s_limits_is_refused_though_the_so101_would_go(capsys):
    with So101Emulator() as emu:  # the shoulder lift at −10°: inside the SO-101's ±100°, below the SO-100's 0
        code, out, err = run(capsys, "so101", "move", "0", "-10", "-90", "-37", "0", "--deg", "--arm", "so100",
                             "--port", emu.url)
        assert code == 2 and "shoulder_lift = -10.0° leaves its limits 0.0° … 200.5°" in err
        assert run(capsys, "so101", "move", "0", "-10", "-90", "-37", "0", "--deg", "--port", emu.url)[0] == 0


def test_play_and_record_with_the_so100(capsys, tmp_path):
    t = np.linspace(0, 1, 51)
    q = SO100.home + np.outer(t, [0.2, -0.1, 0.15, 0.1, -0.2])
    path = tmp_path / "wave.json"
    km.trajectory.save(km.trajectory.for_robot(SO100, t, q, np.gradient(q, t, axis=0), np.zeros_like(q)), path)
    with So101Emulator() as emu:
        d = run_json(capsys, "so101", "play", str(path), "--arm", "so100", "--port", emu.url)
        assert d["ok"] and d["sent"] == 51
        np.testing.assert_allclose(d["measured"][-1], q[-1], atol=2 * TICK)
        # error k = the reading one cycle after goal k − goal k (the report's rows k): a perfect
        # emulator holds the typical goal to whole ticks; a cycle a loaded machine held up adds the
        # steps it missed, which the RMS rightly shows (as in test_cli_so101's play test)
        rows = [k for k, m in enumerate(d["measured"]) if m is not None]
        e = np.degrees(np.array([d["measured"][k] for k in rows]) - np.array([d["commanded"][k] for k in rows]))
        for i, j in enumerate(d["joints"][:5]):
            assert np.median(np.abs(e[:, i])) < 0.1, j
            assert j["rms_deg"] == pytest.approx(np.sqrt(np.mean(e[:, i] ** 2)), rel=1e-9), j
    with So101Emulator() as emu:
        torque_off = lambda: any(p[4] == 0x83 and p[5] == 40 for p in emu.log()[0])  # noqa: E731
        turning = hand(emu, [(1, 100)] * 5, pause=0.1, after=torque_off)
        d = run_json(capsys, "so101", "record", "--arm", "so100", "--out", str(tmp_path / "rec.csv"),
                     "--seconds", "1.2", "--port", emu.url)
        turning.join()
    tr = km.trajectory.load(tmp_path / "rec.csv")
    np.testing.assert_allclose(tr.q[0], SO100.home, atol=1e-12)
    assert tr.q[-1, 0] - tr.q[0, 0] == pytest.approx(-500 / PER_RAD, abs=1e-9)  # 500 ticks up: the pan turned back


def test_calibrate_records_the_arm_and_the_so100s_zeros(capsys, tmp_path):
    start = (2100, 1990, 2048, 2000, 2300, 2048)
    with So101Emulator(positions=start) as emu:
        moves = [(i, d) for i in range(1, 7) for d in (-400, 800, -400)]
        turning = hand(emu, moves, pause=0.03, after=lambda: _zeroed(emu))
        run_json(capsys, "so101", "calibrate", "--arm", "so100", "--out", str(tmp_path / "cal.json"), "--seconds",
                 "3", "--port", emu.url)
        turning.join()
        data = json.loads((tmp_path / "cal.json").read_text())
        cal = load_so101_calibration(tmp_path / "cal.json")
        assert data["arm"] == "so100" and cal.arm == "so100"
        assert [s.sign for s in cal.servos] == [*SIGNS, 1]
        np.testing.assert_allclose([s.zero for s in cal.servos], [*(CENTRE - SIGNS * SO100.home * PER_RAD), CENTRE])
        with So101(emu.url, robot="so100", calibration=tmp_path / "cal.json") as arm:  # the middle pose reads home
            np.testing.assert_allclose(arm.state().q, SO100.home, atol=1e-12)


def test_a_file_made_on_one_arm_is_refused_for_the_other_in_words(capsys, tmp_path):
    so101 = save_so101_calibration(So101Calibration.default(km.load("so101")), tmp_path / "so101.json")
    so100 = save_so101_calibration(So101Calibration.default(SO100), tmp_path / "so100.json")
    with pytest.raises(So101CalibrationError, match=r"made on an SO-101 \(arm: so101\), but this is the SO-100 model"):
        So101("loop://", robot="so100", calibration=so101)
    with pytest.raises(So101CalibrationError, match="calibration: made on an SO-100"):
        So101("loop://", calibration=So101Calibration.default(SO100))
    with So101Emulator() as emu:
        code, out, err = run(capsys, "so101", "state", "--port", emu.url, "--calibration", str(so100))
        assert code == 2 and "made on an SO-100 (arm: so100), but this is the SO-101 model" in err
        assert "--arm so100" in err and "Traceback" not in err
        assert not emu.log()[0]  # refused before the bus was opened
        assert run(capsys, "so101", "state", "--port", emu.url, "--calibration", str(so100), "--arm", "so100")[0] == 0


def test_teleop_between_two_so100s(capsys):
    with So101Emulator() as le, So101Emulator() as fe:
        th = leader_hand(le, [(1, 50)] * 4 + [(2, -50)] * 4, pause=0.05)
        d = run_json(capsys, "so101", "teleop", "--arm", "so100", "--leader", le.url, "--follower", fe.url,
                     "--seconds", "1")
        th.join()
        held, led = fe.positions(), le.positions()
    assert d["ok"] and d["cycles"] == 50 and sum(j["limited"] for j in d["joints"]) == 0
    assert held == {i: round(led[i]) for i in range(1, 7)} and held[1] == CENTRE + 200 and held[2] == CENTRE - 200


@pytest.mark.parametrize("signs", [[1, -1], [-1, 1, 1, 1, 1, 2], "reversed"])
def test_a_robot_file_with_bad_servo_signs_is_refused_in_words(tmp_path, signs):
    import yaml

    data = yaml.safe_load(km.model.robotfile.write_text(SO100))
    data["extras"]["servo_signs"] = signs
    path = tmp_path / "so100-edited.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(km.InputError, match=r"extras.servo_signs must be six values of 1 or -1"):
        So101("loop://", robot=km.load(path))
