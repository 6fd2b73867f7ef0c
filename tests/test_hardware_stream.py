"""The bridge against the emulator over real TCP (pyserial `socket://127.0.0.1:PORT`): moves,
a 1000-point stream acknowledged in order, and every fault — a dropped, late or garbled
acknowledgement, a port that vanishes, Ctrl+C — ending the stream with the last acknowledged
point right and nothing sent after it."""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pytest

import kinematica as km
from kinematica import hardware as hw
from kinematica.hardware import protocol as pr

pytest.importorskip("serial")

BRACCIO = km.load("braccio")
HALF_DEGREE = np.radians(0.5) + 1e-12  # whole servo degrees: at most half a degree from the plan


def T_lines(lines):
    return [line for line in lines if line.startswith("T ")]


def acks(lines):
    """The sequence numbers of the readable acknowledgements among `lines` (a garbled one skipped)."""
    out = []
    for line in lines:
        try:
            reply = pr.parse_reply(line)
        except pr.ProtocolError:
            continue
        if isinstance(reply, pr.Ack):
            out.append(reply.seq)
    return out


def ramp(points: int, rate: float, reach_deg=(40, 10, 40, 30, -60)) -> km.Trajectory:
    """A quintic from home over `points` samples `1/rate` s apart (well under the speed limit)."""
    q1 = BRACCIO.q_home + np.radians(reach_deg) * np.array([1, 1, -1, -1, 1])
    return km.trajectory.quintic(BRACCIO.q_home, q1, (points - 1) / rate, steps=points - 1, robot=BRACCIO)


@pytest.fixture
def emulator(request):
    mis = getattr(request, "param", hw.Misbehaviour())
    with hw.Emulator(mis) as emu:
        yield emu


def test_connect_waits_for_ready_and_reads_the_commanded_state(emulator):
    with hw.Braccio(emulator.url) as arm:
        assert arm.banner == pr.DEFAULT_BANNER
        s = arm.state()
        assert s.degrees == pr.HOME and s.gripper == 10 and "not measured" in s.note
        np.testing.assert_allclose(s.q, BRACCIO.q_home, atol=1e-12)  # the safety position is the model's home


def test_move_gripper_home_and_stop(emulator):
    with hw.Braccio(emulator.url) as arm:
        q = np.radians([10.3, -30, 80, 90, 0])
        rep = arm.move(q, speed=100)
        assert rep.degrees == (80, 60, 170, 180, 90, 10) and emulator.degrees() == list(rep.degrees)
        # the error whole degrees cost equals FK at the degrees reached (from_servo: the oracle)
        q_reached = km.from_servo(BRACCIO, rep.degrees[:5])
        want = np.linalg.norm(km.fk(BRACCIO, q)[:3, 3] - km.fk(BRACCIO, q_reached)[:3, 3])
        assert rep.quantisation_error == pytest.approx(want, rel=1e-9) and rep.quantisation_error > 0
        assert arm.gripper(73, speed=100).degrees == (80, 60, 170, 180, 90, 73)
        assert arm.state().degrees == (80, 60, 170, 180, 90, 73)
        arm.home(speed=100)
        assert emulator.degrees() == list(pr.HOME)
        assert arm.stop().degrees == pr.HOME and arm.state().degrees == pr.HOME


def test_out_of_range_commands_are_refused_before_anything_is_sent(emulator):
    with hw.Braccio(emulator.url) as arm:
        before = emulator.log()[0]
        with pytest.raises(hw.CommandRefused, match=r"'M2 shoulder' = 80° is outside its limits \[-75°, 75°\]"):
            arm.move(np.radians([0, 80, 0, 0, 0]))
        with pytest.raises(hw.CommandRefused, match=r"speed 200 °/s is outside the board's range \[20, 100\]"):
            arm.move(BRACCIO.q_home, speed=200)
        with pytest.raises(hw.CommandRefused, match=r"speed 140 °/s is outside the board's range \[20, 100\]"):
            arm.move(BRACCIO.q_home, speed=140)
        with pytest.raises(hw.CommandRefused, match=r"gripper 'M6 gripper' needs servo 80° .*\[10°, 73°\]"):
            arm.gripper(80)
        with pytest.raises(hw.CommandRefused, match=r"'M1 base' would turn at .* °/s between points 0 and 1 .* "
                                                    r"over the limit of 100 °/s"):
            arm.play(km.trajectory.joint([BRACCIO.q_home, BRACCIO.q_home + np.radians([90, 0, 0, 0, 0])], 0.5,
                                         steps=10, robot=BRACCIO))
        with pytest.raises(hw.CommandRefused, match=r"'M3 elbow' = 91.25° is outside its limits \[-90°, 90°\] "
                                                    r"at point 1"):
            arm.play(km.trajectory.joint([BRACCIO.q_home, np.radians([0, -45, 95, 90, 0])], 5.0, steps=4,
                                         robot=BRACCIO))
        assert emulator.log()[0] == before  # nothing reached the board
        assert emulator.degrees() == list(pr.HOME)


def test_calibrated_servo_range_is_checked_on_the_physical_degrees(emulator):
    cal = hw.Calibration(offset=(0, 0, 5, 0, 0, 0))  # the elbow's horn sits 5° on
    with hw.Braccio(emulator.url, calibration=cal) as arm:
        with pytest.raises(hw.CommandRefused, match=r"'M3 elbow' needs servo 185° \(calibrated\), outside .*180°"):
            arm.move(np.radians([0, -45, 90, 90, 0]))
        rep = arm.move(np.radians([0, -45, 80, 90, 0]), speed=100)
        assert rep.degrees[2] == 175 and rep.quantisation_error < 1e-9  # whole degrees: no error
        np.testing.assert_allclose(arm.state().q, np.radians([0, -45, 80, 90, 0]), atol=1e-12)


def test_a_500_point_trajectory_is_acknowledged_in_order_and_ends_on_its_last_point(emulator):
    rate = 100.0  # Hz: 10 ms a point (a whole degree may move in 10 ms at 100 °/s), 5 s in all
    tr = ramp(500, rate)
    with hw.Braccio(emulator.url) as arm:
        res = arm.play(tr)
    assert res.ok and res.reason == "all 500 points acknowledged in order" and res.last_executed == 499
    assert (res.points, res.sent, res.acknowledged, res.last_acknowledged) == (500, 500, 500, 499)
    received, sent = emulator.log()
    assert acks(sent) == list(range(500))  # the board acknowledged every point, in order
    assert [pr.parse_command(t).seq for t in T_lines(received)] == list(range(500))
    assert emulator.board.max_queued <= pr.DEPTH and emulator.board.errors == []
    # the final state is the last point, within the whole-degree quantisation
    last = km.to_servo(BRACCIO, tr.q[-1])
    assert emulator.degrees()[:5] == [int(np.floor(d + 0.5)) for d in last]
    assert np.all(np.abs(res.final_state.q - tr.q[-1]) <= HALF_DEGREE)
    # the emulator moves in real time: it cannot be done before the motion's own duration
    assert res.elapsed >= tr.duration - 0.01
    assert 0 < res.max_quantisation_error < 10  # mm: half a degree on each joint of a ~400 mm arm


FAULT_AT = 12  # the acknowledgement of point 12 is the one that goes wrong
TIMEOUT = 1.0  # s per reply beyond its due time: no spurious timeout on a loaded machine, and
#               well short of the 3 s the delayed acknowledgement comes late


def ack_line(k):  # lines the board sends: the READY of connect()'s V, its Q, then A 0, A 1, …
    return k + 3


@pytest.mark.parametrize("emulator, words", [
    (hw.Misbehaviour(drop=ack_line(FAULT_AT)), f"acknowledgement out of order: expected A {FAULT_AT}, got A 13"),
    (hw.Misbehaviour(garble=ack_line(FAULT_AT)), f"garbage instead of the acknowledgement of point {FAULT_AT}"),
    (hw.Misbehaviour(delay=(ack_line(FAULT_AT), 3.0)), f"no acknowledgement of point {FAULT_AT} within {TIMEOUT:g} s"),
], indirect=["emulator"], ids=["drop", "garble", "delay"])
def test_a_bad_acknowledgement_ends_the_stream_and_nothing_is_sent_after_it(emulator, words):
    tr = ramp(60, 50.0)
    with hw.Braccio(emulator.url, timeout=TIMEOUT) as arm:
        res = arm.play(tr)
        assert not res.ok and words in res.reason and "nothing more sent but S" in res.reason
        assert res.last_acknowledged == FAULT_AT - 1 and res.acknowledged == FAULT_AT
        received, sent = emulator.log()
        assert received[-1] == "S"  # the one line after the fault: the board holds at once
        if emulator.misbehaviour.delay:  # the board's answers are 3 s late: the host cannot know how far it went
            assert "S sent but not answered within 1 s" in res.reason and res.last_executed == FAULT_AT - 1
        else:  # the acknowledgements that came before the OK to S count as executed
            assert res.last_executed == acks(sent)[-1] > FAULT_AT - 1 and sent[-1] == "OK"
            assert f"the board answered S: it stopped after point {res.last_executed}" in res.reason
        # the host had the window full when the fault came, and sent nothing after it
        assert res.sent == FAULT_AT + pr.DEPTH
        written = T_lines(line for _, line in arm.link.written)
        assert len(written) == res.sent
        time.sleep(0.3)
        assert len(T_lines(emulator.log()[0])) == res.sent  # the board got exactly those, no more
        with pytest.raises(hw.LinkError, match="the link failed earlier"):
            arm.move(BRACCIO.q_home)
        assert len(T_lines(emulator.log()[0])) == res.sent
        assert res.final_state is None


@pytest.mark.parametrize("emulator", [hw.Misbehaviour(disconnect_after=2 + 30)], indirect=True)
def test_a_port_that_vanishes_mid_stream_stops_it_at_the_last_acknowledged_point(emulator):
    tr = ramp(60, 50.0)
    with hw.Braccio(emulator.url, timeout=TIMEOUT) as arm:
        res = arm.play(tr)
        received, sent = emulator.log()
        assert not res.ok and "failed while" in res.reason and "nothing more sent" in res.reason
        assert len(T_lines(received)) == 30  # the cable went after the 30th point
        assert res.last_acknowledged == acks(sent)[-1]  # what the board acknowledged before it went
        assert res.acknowledged == res.last_acknowledged + 1 <= 30
        n_written = len(arm.link.written)
        with pytest.raises(hw.LinkError, match="failed earlier"):
            arm.home()
        assert len(arm.link.written) == n_written


@pytest.mark.parametrize("emulator", [hw.Misbehaviour(garble=ack_line(3))], indirect=True)
def test_after_a_host_side_fault_s_holds_the_arm_at_once(emulator):
    """Slow points (0.2 s), the acknowledgement of point 3 damaged: the host sends S, so the arm
    holds on the way to point 4 — not at the end of the 8 points queued, nor after the watchdog."""
    tr = ramp(20, 5.0)
    with hw.Braccio(emulator.url, timeout=TIMEOUT) as arm:
        res = arm.play(tr)
    assert not res.ok and res.last_acknowledged == 2 and res.sent == 3 + pr.DEPTH
    assert "the board answered S: it stopped after point 2" in res.reason  # A 3 was unreadable: not counted
    held = emulator.degrees()
    assert not emulator.board.busy and not any(e.startswith("E5") for e in emulator.board.errors)
    point = [int(np.floor(d + 0.5)) for d in km.to_servo(BRACCIO, tr.q[3])]
    later = [int(np.floor(d + 0.5)) for d in km.to_servo(BRACCIO, tr.q[5])]
    assert all(min(a, b) <= h <= max(a, b) for h, a, b in zip(held[:5], point, later))  # between points 3 and 5
    time.sleep(0.3)
    assert emulator.degrees() == held


def test_ctrl_c_sends_stop_before_closing(emulator):
    tr = ramp(400, 100.0)

    def interrupt_after_some_points():
        while len(acks(emulator.log()[1])) < 50:
            time.sleep(0.01)
        _thread.interrupt_main()

    threading.Thread(target=interrupt_after_some_points, daemon=True).start()
    with hw.Braccio(emulator.url) as arm:
        with pytest.raises(KeyboardInterrupt):
            arm.play(tr)
        res = arm.last_result
    received, sent = emulator.log()
    assert received[-2:] == ["S", "?"] and sent[-2] == "OK"  # S, then the board's state
    assert not emulator.board.busy
    n = len(acks(sent))
    assert 50 <= n < 400 and res.acknowledged == n and res.last_executed == n - 1
    held = emulator.degrees()
    assert res.final_state.degrees == tuple(held) and sent[-1] == "Q " + ",".join(map(str, held))
    assert res.reason == f"interrupted (Ctrl+C) after point {n - 1}: S sent; the arm holds at servo degrees {held}"
    time.sleep(0.1)
    assert emulator.degrees() == held and held[:5] != [int(np.floor(d + 0.5)) for d in km.to_servo(BRACCIO, tr.q[-1])]


def test_a_silent_port_is_refused_with_a_reason():
    import socket
    with socket.create_server(("127.0.0.1", 0)) as srv:  # a port that accepts and never speaks
        url = f"socket://127.0.0.1:{srv.getsockname()[1]}"
        with pytest.raises(hw.LinkError, match="no READY banner .* within 0.4 s"):
            hw.Braccio(url, ready_timeout=0.4).connect()


def test_a_board_of_another_protocol_version_is_refused():
    from dataclasses import replace
    with hw.Emulator(banner=replace(pr.DEFAULT_BANNER, version=1)) as emu:
        with pytest.raises(hw.LinkError, match="protocol v1, this kinematica v2"):
            hw.Braccio(emu.url).connect()


def test_connecting_does_not_reset_the_board_and_finds_the_arm_where_it_was():
    with hw.Emulator() as emu:
        with hw.Braccio(emu.url) as arm:
            arm.move(np.radians([20, -30, 80, 90, 0]), speed=100)
            assert arm.notices == []
        with hw.Braccio(emu.url) as arm:  # a second session: V brings the banner, boot=0
            assert arm.state().degrees == (70, 60, 170, 180, 90, 10) and arm.notices == []
        received, sent = emu.log()
        assert received.count("V") == 2 and emu.boots == 1
        assert [line[-6:] for line in sent if line.startswith("READY")] == ["boot=0", "boot=0"]


def test_a_board_that_resets_when_its_port_opens_is_told_apart():
    """An Uno whose DTR still pulses: deaf through its boot and soft start, then its boot banner."""
    with hw.Emulator(reset_on_open=True, soft_start=0.3) as emu:
        t0 = time.monotonic()
        with hw.Braccio(emu.url, timeout=0.2) as arm:
            waited = time.monotonic() - t0
            assert arm.banner.boot and arm.notices[0].startswith("the board reset when its port opened")
            assert "stty -F PORT -hupcl" in arm.notices[0] and "10 µF" in arm.notices[0]
        assert 0.3 <= waited < 2.0  # the soft start of 0.3 s before the banner


def test_the_emulator_also_serves_a_pseudo_terminal():
    emu = hw.Emulator()
    path = emu.start_pty()
    try:
        with hw.Braccio(path, ready_timeout=1.0) as arm:  # no banner on open: V after 0.5 s
            assert arm.move(np.radians([5, -45, 90, 90, 0]), speed=100).degrees == (85, 45, 180, 180, 90, 10)
    finally:
        emu.stop()


def test_a_board_that_resets_mid_session_is_reported_and_the_link_goes_on(emulator):
    with hw.Braccio(emulator.url) as arm:
        arm.move(np.radians([20, -30, 80, 90, 0]), speed=100)
        emulator.reset()  # a power dip: the board starts again, its servos home under the soft start
        time.sleep(0.2)  # its boot banner is waiting on the line
        with pytest.raises(hw.LinkError, match="the board restarted"):
            arm.move(np.radians([0, -30, 80, 90, 0]), speed=100)  # nothing sent: it might move from home
        assert not any(line.startswith("P 90,60") for line in emulator.log()[0])
        assert arm.link.fault is None and arm.commanded == pr.HOME and "at home" in arm.notices[-1]
        assert arm.state().degrees == pr.HOME == tuple(emulator.degrees())
        arm.link.send("V")  # a banner answering V (boot=0) is no reset
        assert arm.state().degrees == pr.HOME and len(arm.notices) == 1


def test_a_calibrated_gripper_stays_where_it_is_when_not_named(emulator):
    cal = hw.Calibration(offset=(0, 0, 0, 0, 0, 3))  # the gripper horn sits 3° on
    with hw.Braccio(emulator.url, calibration=cal) as arm:
        assert arm.move(np.radians([5, -45, 90, 90, 0]), speed=100).degrees[5] == 10  # not moved by the offset
        assert arm.gripper(40, speed=100).degrees[5] == 43
        with pytest.raises(hw.CommandRefused, match=r"gripper 'M6 gripper' needs servo 76° \(calibrated\)"):
            arm.gripper(73)
        with pytest.raises(hw.CommandRefused, match="gripper: expected a finite number"):
            arm.gripper(float("nan"))


def test_stream_speeds_are_checked_on_the_whole_milliseconds_sent():
    """Points 1/300 s apart go out 3, 3 and 4 ms apart: a step that is 99 °/s over 3.33 ms is
    110 °/s over the 3 ms the board is given, and is refused."""
    t = np.arange(31) / 300
    q = np.tile(BRACCIO.q_home, (31, 1))
    q[:, 0] += np.radians(99) * t
    tr = km.Trajectory(t, q, np.gradient(q, t, axis=0), np.zeros_like(q), BRACCIO.joint_names, BRACCIO.revolute)
    with pytest.raises(hw.CommandRefused, match=r"'M1 base' would turn at 110 °/s between points 0 and 1"):
        hw.Braccio("loop://").check_play(tr)


def test_a_stream_finer_than_a_degree_per_10_ms_is_refused_and_a_rate_fixes_it():
    """A smooth 1 s quintic of the base sampled at 250 Hz: some 4 ms steps move a whole degree
    (250 °/s to the board), so it is refused as the board would; at 100 Hz it goes."""
    tr = km.trajectory.quintic(BRACCIO.q_home, BRACCIO.q_home + np.radians([40, 0, 0, 0, 0]), 1.0, steps=250,
                               robot=BRACCIO)
    arm = hw.Braccio("loop://")
    with pytest.raises(hw.CommandRefused, match=r"'M1 base' would step 1° \(whole servo degrees\) in 4 ms .* give a "
                                                r"rate of at most 100 Hz"):
        arm.check_play(tr)
    t_sent, _, _ = arm.check_play(tr, rate=100)
    assert len(t_sent) == 101


def test_a_stop_requested_from_another_thread_ends_the_play_and_holds_the_arm(emulator):
    tr = ramp(300, 100.0)
    with hw.Braccio(emulator.url) as arm:
        def stop_after_some_points():
            while arm.progress[0] < 40:
                time.sleep(0.01)
            arm.request_stop()

        threading.Thread(target=stop_after_some_points, daemon=True).start()
        res = arm.play(tr)
        assert not res.ok and res.reason.startswith(f"stopped on request after point {res.last_acknowledged}")
        assert 40 <= res.acknowledged < 300 and arm.progress == (res.acknowledged, 300)
        received, sent = emulator.log()
        assert received[-2:] == ["S", "?"] and sent[-2] == "OK" and not emulator.board.busy
        assert res.final_state.degrees == tuple(emulator.degrees())  # the board's state, read after its OK
        assert acks(sent) == list(range(res.acknowledged))  # every acknowledgement counted, none lost
        held = emulator.degrees()
        assert arm.state().degrees == tuple(held)  # the link is still good: the arm answers
        assert arm.reached == tuple(int(np.floor(d + 0.5)) for d in
                                    [*km.to_servo(BRACCIO, tr.q[res.last_acknowledged]), 10])


def test_a_stop_requested_during_a_move_holds_the_arm_on_the_way(emulator):
    with hw.Braccio(emulator.url) as arm:
        threading.Timer(0.4, arm.request_stop).start()
        rep = arm.move(np.radians([-80, -45, 90, 90, 0]), speed=20)  # 80° of the base at 20 °/s: 4.05 s
        assert rep.stopped
        held = arm.state().degrees
        assert 90 < held[0] < 170 and held[1:] == pr.HOME[1:]  # the base stopped on its way
        assert emulator.log()[0][-3:] == ["S", "?", "?"] and emulator.degrees() == list(held)
        assert not arm.move(np.radians([0, -45, 90, 90, 0]), speed=100).stopped  # the link goes on
