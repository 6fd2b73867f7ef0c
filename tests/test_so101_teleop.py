"""Teleoperation (`hardware.so101_teleop`, `kinematica so101 teleop`) between two SO-101 bus
emulators, one the leader, one the follower, over TCP and a pseudo-terminal: the leader's shafts
are turned as a hand would once its torque is off; what the follower was sent is read back from
its emulator's log of packets."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

import kinematica as km
from cli_run import run, run_json
from test_cli_so101 import hand
from kinematica.hardware import BusFault, So101, So101Calibration, So101Emulator
from kinematica.hardware import feetech as ft
from kinematica.hardware.so101_calibration import CENTRE, PER_RAD, ServoCalibration
from kinematica.hardware.so101_teleop import teleop

pytest.importorskip("serial")

STEP = np.radians(5)
SCENE = """name: desk
length_unit: m
angle_unit: deg
robots:
  - {name: follower, robot: so101}
obstacles:
  - {name: block, shape: box, size: [0.06, 0.06, 0.06], pose: {xyz: [0.2, 0.0, 0.03]}}
"""


def torque_off(emu) -> bool:
    """Whether the leader has been told torque off (a sync write at torque_enable, 40)."""
    return any(p[4] == ft.SYNC_WRITE and p[5] == ft.TABLE["torque_enable"].address for p in emu.log()[0])


def leader_hand(emu, moves, pause=0.1):
    """Turn the leader's shafts as a hand would, (servo, ticks) one after another, once its torque is off."""
    return hand(emu, moves, pause, after=lambda: torque_off(emu))


def goals_sent(emu) -> np.ndarray:
    """Every sync write of goal positions the emulator received, (K, 6) ticks of servos 1-6."""
    address = ft.TABLE["goal_position"].address
    rows = []
    for p in emu.log()[0]:
        if p[4] == ft.SYNC_WRITE and p[5] == address:
            n = p[6]
            row = {p[k]: ft.decode("goal_position", p[k + 1:k + 3]) for k in range(7, len(p) - 1, n + 1)}
            rows.append([row[i] for i in range(1, 7)])
    return np.array(rows)


def test_the_follower_mirrors_the_leader_through_both_calibrations():
    # the leader's wrist_roll servo is mounted the other way round: its sign is −1
    default = So101Calibration.default(km.load("so101"))
    flipped = So101Calibration(tuple(ServoCalibration(s.id, 0, s.range, -1 if s.id == 5 else 1)
                                     for s in default.servos))
    with So101Emulator() as le, So101Emulator() as fe, So101(le.url, calibration=flipped) as leader, \
            So101(fe.url) as follower:
        th = leader_hand(le, [(1, 50)] * 6 + [(5, 50)] * 4 + [(6, 50)] * 3, pause=0.05)  # 4.4° a turn: under the step
        report = teleop(leader, follower, seconds=1.5)
        th.join()
        assert report.ok and report.cycles == 75, report.reason
        got = le.log()[0]
        off = next(k for k, p in enumerate(got) if p[4] == ft.SYNC_WRITE)  # torque off: the only write
        reads = [p[4] for p in got[off + 1:]]  # then one sync read a cycle (and its retries on a busy machine)
        assert set(reads) == {ft.SYNC_READ} and len(reads) >= report.cycles + 1
        held = fe.positions()
    # a perfect emulator: the follower's shafts are where the leader's map to, tick for tick
    assert held == {1: CENTRE + 300, 2: CENTRE, 3: CENTRE, 4: CENTRE, 5: CENTRE - 200, 6: CENTRE + 150}
    assert report.stepped.sum() == 0 and report.limited.sum() == 0 and report.collisions == 0


def test_a_jerk_is_followed_at_the_step_limit_and_a_limit_holds_the_follower():
    with So101Emulator() as le, So101Emulator() as fe, So101(le.url) as leader, So101(fe.url) as follower:
        th = leader_hand(le, [(2, 600), (3, 1500)])  # 52.7° at once; the elbow 132°, past its 96.8° limit
        report = teleop(leader, follower, seconds=1.5, max_step=STEP)
        th.join()
        lo, hi = follower.calibration.angle_bounds()
        held = fe.positions()
    goals = goals_sent(fe)
    steps = np.abs(np.diff(goals, axis=0))
    # goals are whole ticks of bounded angles: a step of at most max_step rounds to ≤ max_step + 1 tick
    assert steps.max() <= STEP * PER_RAD + 1 and report.stepped[1] >= 600 // int(STEP * PER_RAD)
    top = min(hi[2], km.load("so101").limits[2, 1])
    assert goals[:, 2].max() == round(CENTRE + top * PER_RAD) == held[3] and report.limited[2] > 0
    assert held[2] == CENTRE + 600  # caught up with the leader once it stood still
    assert report.limited[[0, 1, 3, 4, 5]].sum() == 0


def test_goals_that_would_collide_are_not_sent(tmp_path):
    path = tmp_path / "desk.yaml"
    path.write_text(SCENE)
    seat = km.Scene.load(path).for_robot("follower")
    with So101Emulator() as le, So101Emulator() as fe, So101(le.url) as leader, So101(fe.url) as follower:
        th = leader_hand(le, [(2, 150)] * 8)  # the shoulder lifts the forearm down into the block
        report = teleop(leader, follower, seconds=1.5, seat=seat)
        th.join()
    goals = goals_sent(fe)
    q = (goals[:, :5] - CENTRE) / PER_RAD
    assert report.ok and report.collisions > 0 and "with block" in report.collision
    assert not seat.check(q).colliding.any()  # every goal sent is collision-free, checked again
    assert seat.check(report.leader[-1][:5]).colliding  # where the leader ended, the follower is not
    with So101Emulator(positions=(2048, 2048 + 1200, 2048, 2048, 2048, 2048)) as le, So101Emulator() as fe, \
            So101(le.url) as leader, So101(fe.url) as follower:  # a leader already in the block
        report = teleop(leader, follower, seconds=1, seat=seat)
    assert not report.ok and report.reason.startswith("refused: the leader's pose would put the follower in collision")
    assert report.cycles == 0 and len(goals_sent(fe)) == 0  # the follower was sent nothing


def test_a_leader_that_stops_answering_stops_both_and_the_follower_holds():
    with So101Emulator(fault=BusFault(silent=(1, 25))) as le, So101Emulator() as fe, \
            So101(le.url) as leader, So101(fe.url) as follower:
        th = leader_hand(le, [(1, 200)])
        report = teleop(leader, follower, seconds=5)
        th.join()
        tries = [p for _, p in leader.bus.written[-3:]]
        held, last = fe.positions(), goals_sent(fe)[-1]
    assert not report.ok and report.reason.startswith("leader: shoulder_pan (servo 1): did not answer")
    assert report.reason.endswith("the follower holds where it is") and report.cycles < 5 * 50
    assert tries[0][4] == ft.SYNC_READ and tries[0] == tries[1] == tries[2]  # retried, then nothing more
    assert list(last) == [round(held[i]) for i in range(1, 7)]  # the last goal: where the follower stood


def test_a_follower_fault_stops_both_naming_the_joint():
    with So101Emulator() as le, So101Emulator(fault=BusFault(overload=(3, 40))) as fe, \
            So101(le.url) as leader, So101(fe.url) as follower:
        report = teleop(leader, follower, seconds=5)
        last_leader, last_follower = leader.bus.written[-1], follower.bus.written[-1]
    assert not report.ok and report.reason.startswith("follower: elbow_flex (servo 3) reports overload")
    assert report.reason.endswith("the leader (torque off) is read no more")
    assert last_follower[1][4] == ft.SYNC_READ  # nothing after the read that found the fault …
    assert last_leader[0] < last_follower[0]  # … nor on the leader's bus


def test_the_command_line_on_a_pseudo_terminal_and_tcp_streams_the_follower(capsys):
    le = So101Emulator()
    pty = le.start_pty()
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.settimeout(2.0)  # against hanging, not a speed check
    try:
        with So101Emulator() as fe:
            th = leader_hand(le, [(4, -300)])
            d = run_json(capsys, "so101", "teleop", "--leader", pty, "--follower", fe.url, "--seconds", "1",
                         "--max-step", "2", "--stream", f"udp://127.0.0.1:{rx.getsockname()[1]}")
            th.join()
            held = fe.positions()
        lines = [json.loads(rx.recv(65536)) for _ in range(d["cycles"])]
    finally:
        le.stop()
        rx.close()
    assert all(m["measured"] is True and m["source"] == "so101" for m in lines)
    assert lines[-1]["q"][3] == pytest.approx(np.radians(d["last_goal_deg"][3]), abs=3 * np.radians(2))
    assert d["ok"] and d["cycles"] == 50 and d["joints"][3]["stepped"] >= 300 // int(np.radians(2) * PER_RAD)
    assert held[4] == CENTRE - 300 and d["last_goal_deg"][3] == pytest.approx(-300 * 360 / 4096, abs=1e-9)


@pytest.mark.parametrize("argv, words", [
    (["--rate", "0"], "rate 0.0 Hz: expected a number in [1, 200]"),
    (["--max-step", "60"], "max_step"),
    (["--seconds", "-1"], "seconds -1.0"),
    (["--scene", "kuka-table"], "--scene-robot: 'kuka' has joints"),
    (["--stream", "tcp://x:1"], "--stream:"),
])
def test_bad_input_is_refused_before_a_bus_opens(capsys, argv, words):
    with So101Emulator() as le, So101Emulator() as fe:
        code, out, err = run(capsys, "so101", "teleop", "--leader", le.url, "--follower", fe.url, *argv)
        assert code == 2 and words in err and err.count("\n") == 1
        assert le.log() == ([], []) and fe.log() == ([], [])
        code, out, err = run(capsys, "so101", "teleop", "--leader", le.url, "--follower", le.url)
        assert code == 2 and "two arms on two buses" in err
