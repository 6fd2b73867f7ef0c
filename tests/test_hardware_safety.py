"""Issue 25 on the emulator over real transports (a pseudo-terminal, 127.0.0.1 TCP): every byte
value in a command or a reply has a defined outcome and the emulator answers `?` after it; a
move at 140 °/s and 1 ms steps of 1° are refused by the board, the emulator and the bridge
alike; a starved queue is a warning with its stall time; a board that resets mid-stream is
reported and the link goes on; no wait of the hardware API is unbounded."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import kinematica as km
from kinematica import hardware as hw
from kinematica.hardware import protocol as pr
from kinematica.hardware.board import Board

serial = pytest.importorskip("serial")

BRACCIO = km.load("braccio")


def ack_line(k):  # lines the board sends: the READY of connect()'s V, its Q, then A 0, A 1, …
    return k + 3


def ramp(points: int, rate: float, reach_deg=(10, 5, 10, 5, -10)) -> km.Trajectory:
    q1 = BRACCIO.q_home + np.radians(reach_deg) * np.array([1, 1, -1, -1, 1])
    return km.trajectory.quintic(BRACCIO.q_home, q1, (points - 1) / rate, steps=points - 1, robot=BRACCIO)


@pytest.fixture
def pty_emulator():
    emu = hw.Emulator()
    path = emu.start_pty()
    deadline = time.monotonic() + 10
    while not any(line.endswith(" boot=1") for line in emu.log()[1]):  # its power-up banner, which
        assert time.monotonic() < deadline  # opening the port then discards (pyserial flushes the input)
        time.sleep(0.01)
    port = serial.Serial(path, pr.BAUD, timeout=2.0)
    port.write(b"?\n")  # as the host does: read past a banner still on the line, up to the Q
    while not port.readline().startswith(b"Q "):
        assert time.monotonic() < deadline
    try:
        yield emu, port
    finally:
        port.close()
        emu.stop()


def ask(port, data: bytes, replies: int) -> list[str]:
    port.write(data)
    return [port.readline().decode("ascii").rstrip("\n") for _ in range(replies)]


def test_every_byte_value_in_a_command_gets_a_defined_answer_from_the_emulator(pty_emulator):
    emu, port = pty_emulator
    for value in range(256):
        line = bytes([value]) + b"?\n"
        if value in (0x20, 0x0D, 0x0A):  # "?" after a space, a CR (dropped) or an empty line
            expected = ["Q 90,45,180,180,90,10"]
        elif value == ord("T"):  # "T?": a streamed point without its checksum
            expected = ["E2 bad checksum"]
        else:
            expected = ["E0 malformed line"]
        assert ask(port, line, 1) == expected, value
        assert ask(port, b"?\n", 1) == ["Q 90,45,180,180,90,10"], value  # still serving
    assert ask(port, b"x" * 100_000 + b"\n?\n", 2) == ["E0 malformed line", "Q 90,45,180,180,90,10"]
    assert len(emu.board.reader._line) == 0  # the 100 kB line was never held


def test_a_fast_move_and_1_ms_steps_are_refused_by_board_emulator_and_bridge_alike(pty_emulator):
    emu, port = pty_emulator
    fast = "P 0,45,180,180,90,10,140"  # issue 25: accepted at 140 °/s from home before
    step = pr.format_stream(pr.Stream(0, 1, (91, 45, 180, 180, 90, 10)))  # 1° in 1 ms: 1000 °/s
    for line, words in [(fast, "E1 speed=140 outside 20..100"), (step, "E1 M1 step 1 in 1 ms over 100 deg/s")]:
        assert Board(now=0.0).feed(line, 0.0) == [words]
        assert ask(port, line.encode() + b"\n", 1) == [words]
    assert emu.degrees() == list(pr.HOME)
    arm = hw.Braccio("loop://")  # the bridge refuses both before anything is sent
    with pytest.raises(hw.CommandRefused, match=r"speed 140 °/s is outside the board's range \[20, 100\]"):
        arm.check_move(np.radians([90, 0, 90, 90, 0]), speed=140)
    t = np.arange(11) / 1000  # 1 ms apart, 1° each: the stream of issue 25
    q = BRACCIO.q_home + np.radians(np.outer(np.arange(11), [1, 0, 0, 0, 0]))
    tr = km.Trajectory(t, q, np.zeros_like(q), np.zeros_like(q), BRACCIO.joint_names, BRACCIO.revolute)
    with pytest.raises(hw.CommandRefused, match=r"'M1 base' would turn at 1000 °/s .* over the limit of 100 °/s"):
        arm.check_play(tr)


@pytest.mark.parametrize("byte", [0x00, 0x0A, 0x0D, 0x1C, 0x1F, 0x7F, 0x80, 0xC3, 0xFF])
def test_a_noisy_byte_in_an_acknowledgement_takes_the_fault_path(byte):
    """Issue 25: one byte >= 0x80 in an acknowledgement crashed play() with a codec error. Now:
    a garbled line, S sent, the link latched, the last acknowledged point reported."""
    with hw.Emulator(hw.Misbehaviour(noise=(ack_line(5), byte))) as emu:
        with hw.Braccio(emu.url) as arm:
            res = arm.play(ramp(30, 50.0))
            assert not res.ok and res.last_acknowledged == 4 and "garbage instead of the acknowledgement of " \
                                                                 "point 5" in res.reason
            assert emu.log()[0][-1] == "S" and arm.link.fault is not None and res.final_state is None
            assert f"the board answered S: it stopped after point {res.last_executed}" in res.reason
        held, sent = tuple(emu.degrees()), len(emu.log()[0])
        with hw.Braccio(emu.url) as arm:  # the emulator serves on; the arm holds where S stopped it
            assert arm.state().degrees == tuple(emu.degrees()) == held
        # connecting and reading only asked (V, ?): nothing moved it (where S stopped it depends on
        # how many points the board ran first: home itself when a loaded machine ran few)
        assert {line[:1] for line in emu.log()[0][sent:]} == {"V", "?"}, emu.log()[0][sent:]


def test_every_byte_value_in_a_reply_is_a_protocol_error_at_the_host():
    for value in range(256):
        line = pr.format_reply(pr.Ack(5))
        noisy = line[:3] + chr(value) + line[3:]
        with pytest.raises(pr.ProtocolError):
            pr.parse_reply(noisy)


def test_a_starved_queue_is_a_warning_with_its_stall_time():
    """Acknowledgements 0.5 s late from point 3 on: the host sends each next point only as an
    acknowledgement comes, so the board waits between points; the play succeeds, with a warning."""
    tr = ramp(41, 50.0)  # 0.8 s of motion
    with hw.Emulator(hw.Misbehaviour(delay=(ack_line(3), 0.5))) as emu, hw.Braccio(emu.url, timeout=2.0) as arm:
        res = arm.play(tr)
    assert res.ok and res.acknowledged == 41
    assert res.stall > 1.0 and res.stalls >= 3 and res.elapsed > tr.duration + res.stall - 0.1
    assert res.warning.startswith(f"the board's queue ran dry {res.stalls} time(s): the arm stood still for "
                                  f"{res.stall:.2f} s in all mid-motion")
    with hw.Emulator() as emu, hw.Braccio(emu.url) as arm:  # on a good link: no stall, no warning
        res = arm.play(tr)
    assert res.ok and res.warning == "" and res.stall < 0.1


def test_a_board_that_resets_mid_stream_is_reported_and_the_link_goes_on():
    tr = ramp(41, 50.0)
    with hw.Emulator(hw.Misbehaviour(reset_after=2 + 12)) as emu, hw.Braccio(emu.url) as arm:
        res = arm.play(tr)  # the board resets as it reads point 11
        assert not res.ok and "the board restarted" in res.reason and res.board_reset is not None
        assert arm.link.fault is None and "at home" in arm.notices[-1]
        assert res.final_state.degrees == pr.HOME == tuple(emu.degrees())
        assert not arm.move(np.radians([10, -30, 80, 90, 0]), speed=100).stopped  # the link goes on
        assert emu.boots == 2


@pytest.mark.parametrize("kwargs, words", [
    ({"ready_timeout": 1e308}, r"ready_timeout: expected seconds in \(0, 120\], got 1e\+308"),
    ({"ready_timeout": float("inf")}, r"ready_timeout: expected seconds in \(0, 120\], got inf"),
    ({"timeout": float("nan")}, r"timeout: expected seconds in \(0, 60\], got nan"),
    ({"timeout": 0}, r"timeout: expected seconds in \(0, 60\], got 0"),
    ({"timeout": True}, "timeout: expected seconds"),
    ({"timeout": "1"}, "timeout: expected seconds")])
def test_unbounded_waits_are_refused_naming_the_parameter_and_its_range(kwargs, words):
    with pytest.raises(km.InputError, match=words):
        hw.Braccio("loop://", **kwargs)


@pytest.mark.parametrize("kwargs, words", [
    ({"soft_start": 1e308}, r"soft_start: expected seconds in \[0, 60\]"),
    ({"boot_delay": float("nan")}, r"boot_delay: expected seconds in \[0, 60\]"),
    ({"misbehaviour": hw.Misbehaviour(delay=(1, float("inf")))}, r"misbehaviour.delay: expected seconds in \[0, 3600\]")])
def test_the_emulator_refuses_unbounded_waits(kwargs, words):
    with pytest.raises(km.InputError, match=words):
        hw.Emulator(**kwargs)


def test_the_other_waits_are_bounded_too():
    emu = hw.Emulator()
    with pytest.raises(km.InputError, match=r"timeout: expected None \(until stop\(\)\) or seconds in \[0, 86400\], "
                                            r"got 1e\+308"):
        emu.wait(1e308)
    assert emu.wait(0) is False
    with hw.Emulator() as emu, hw.Braccio(emu.url) as arm:
        with pytest.raises(km.InputError, match=r"wait: expected seconds in \(0, 120\], got inf"):
            arm.recover(float("inf"))
        assert arm.recover(0.01)  # a sound link: nothing to recover


def test_the_soft_start_measured_on_the_emulator():
    """A board that resets when its port opens, with the real soft start (6 s, as Braccio.begin()):
    the banner comes boot_delay + 6 s after the port opens, and the bridge waits for it."""
    soft = pr.SOFT_START_MS[1] / 1000
    with hw.Emulator(reset_on_open=True, soft_start=soft, boot_delay=0.05) as emu:  # an Uno's bootloader
        t0 = time.monotonic()
        with hw.Braccio(emu.url) as arm:
            waited = time.monotonic() - t0
            assert arm.banner.boot and arm.state().degrees == pr.HOME
    assert soft + emu.boot_delay - 0.01 <= waited < soft + emu.boot_delay + 1.0


@pytest.mark.parametrize("late", [-0.01, 0.0, 0.01, 0.02])
def test_a_stop_at_the_end_of_a_move_with_link_lag_reads_past_the_late_oks(late):
    """Issue 25: with ~30 ms of lag, a stop as a move ends found the move's OK and its own OK
    in the wrong places (`unexpected reply 'OK' to '?'`). The state is read past both now."""
    with hw.Emulator(hw.Misbehaviour(delay=(3, 0.03))) as emu, hw.Braccio(emu.url) as arm:  # line 3: the move's OK
        target = np.radians([30, -45, 90, 90, 0])  # the base 90 → 60: 0.25 s + 0.3 s at 100 °/s
        timer = threading.Timer(0.55 + late, arm.request_stop)
        timer.start()
        rep = arm.move(target, speed=100)
        timer.join()
        assert arm.state().degrees == tuple(emu.degrees()) and arm.link.fault is None
        assert rep.stopped or rep.degrees == tuple(emu.degrees())
        assert not arm.move(BRACCIO.q_home, speed=100).stopped  # the link goes on
