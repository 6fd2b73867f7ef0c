"""The Braccio line protocol: every command and reply round-trips, checksums catch damage, the
banner carries the version and ranges; the board's state machine (the firmware's rules, clock
passed in) times moves, queues streams, refuses bad points and holds on its watchdog."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kinematica.hardware import protocol as pr
from kinematica.hardware.board import Board
from kinematica.hardware.emulator import garbled

deg = st.tuples(*[st.integers(-999, 999)] * 6)
commands = st.one_of(
    st.builds(pr.Move, deg, st.integers(0, 999)),
    st.builds(pr.Home, st.integers(0, 999)),
    st.builds(pr.Stream, st.integers(0, 999_999), st.integers(0, 99_999), deg),
    st.just(pr.Query()), st.just(pr.Stop()), st.just(pr.Version()), st.just(pr.KeepAlive()))
replies = st.one_of(
    st.builds(pr.Banner, st.integers(1, 99), st.integers(1, 64), st.integers(1, 9999),
              st.tuples(st.integers(0, 999), st.integers(0, 999)),
              st.tuples(*[st.tuples(st.integers(0, 999), st.integers(0, 999))] * 6), deg),
    st.just(pr.Ok()), st.builds(pr.Ack, st.integers(0, 999_999_999)), st.builds(pr.State, deg),
    st.builds(pr.Error, st.integers(0, 9), st.text("abcdefghijklmnopqrstuvwxyz =.0123456789", max_size=30)
              .map(str.strip)))


@settings(max_examples=150, deadline=None)
@given(commands)
def test_every_command_round_trips(cmd):
    line = pr.format_command(cmd)
    assert "\n" not in line and line.isascii()
    assert pr.parse_command(line) == cmd


@settings(max_examples=150, deadline=None)
@given(replies)
def test_every_reply_round_trips(reply):
    assert pr.parse_reply(pr.format_reply(reply)) == reply


def test_braccio_robot_compatible_lines_parse():
    """The BraccioRobot serial sketch's commands, as its users type them."""
    assert pr.parse_command("P 90,90,90,90,90,73,100") == pr.Move((90, 90, 90, 90, 90, 73), 100)
    assert pr.parse_command("H") == pr.Home(pr.HOME_SPEED)
    assert pr.parse_command("P90,90,90,90,90,73,100\r") == pr.Move((90, 90, 90, 90, 90, 73), 100)


def test_crc8_is_the_standard_one():
    # CRC-8/SMBUS (poly 0x07, init 0) check value of "123456789", from the CRC catalogue
    assert pr.crc8(b"123456789") == 0xF4
    assert pr.crc8(b"") == 0


@settings(max_examples=200, deadline=None)
@given(st.builds(pr.Stream, st.integers(0, 99_999), st.integers(1, 60_000), st.tuples(*[st.integers(0, 180)] * 6)),
       st.data())
def test_any_single_damaged_byte_of_a_streamed_line_is_caught(cmd, data):
    """CRC-8 detects every error confined to 8 consecutive bits: a changed byte never parses as
    the same or another valid point."""
    line = pr.format_command(cmd)
    k = data.draw(st.integers(0, len(line) - 1))
    new = data.draw(st.integers(32, 126).filter(lambda c: c != ord(line[k])))
    bad = line[:k] + chr(new) + line[k + 1:]
    try:
        got = pr.parse_command(bad)
    except pr.ProtocolError:
        return
    pytest.fail(f"{bad!r} parsed as {got!r}")


@pytest.mark.parametrize("seq", [0, 7, 12, 999])
def test_a_garbled_acknowledgement_is_refused(seq):
    line = pr.format_reply(pr.Ack(seq))
    with pytest.raises(pr.ProtocolError):
        pr.parse_reply(garbled(line))


@pytest.mark.parametrize("line, words", [
    ("X 1", "unknown command"), ("P 1,2,3", "expected 7 whole numbers"), ("P a,b,c,d,e,f,g", "whole numbers"),
    ("T 1,20,90,90,90,90,90,10", "no checksum"), ("T 1,20,90,90,90,90,90,10*00", "bad checksum"),
    ("", "empty"), ("P " + "9" * 70, "longer than 64")])
def test_malformed_commands_say_what_is_wrong(line, words):
    with pytest.raises(pr.ProtocolError, match=words):
        pr.parse_command(line)


@pytest.mark.parametrize("line, words", [
    ("READY v=1", "without depth"), ("READY v=x depth=8 watchdog=5 speed=1..2 accel=1 M1=0..1 M2=0..1 M3=0..1 "
                                     "M4=0..1 M5=0..1 M6=0..1 home=1,2,3,4,5,6 boot=0", "whole numbers"),
    ("A 5", "no checksum"), ("A 5*00", "bad checksum"), ("Q 1,2", "expected 6"), ("hello", "unexpected line"),
    ("A 1\ufffd*00", "garbled line from the board"), ("OK\x00", "garbled line"), ("A 1\t*00", "garbled"),
    ("Q 90,45,180,\u0661,90,10", "garbled"), ("A 5*c8".replace("c8", pr.crc8_hex("A 5").lower()), "bad checksum")])
def test_malformed_replies_say_what_is_wrong(line, words):
    with pytest.raises(pr.ProtocolError, match=words):
        pr.parse_reply(line)


def test_the_banner_states_version_depth_ranges_and_home():
    line = pr.format_reply(pr.DEFAULT_BANNER)
    assert line.startswith("READY v=2 ") and "M2=15..165" in line and "M6=10..73" in line and line.endswith(" boot=0")
    b = pr.parse_banner(line)
    assert (b.version, b.depth, b.speed, b.accel, b.home) == (pr.VERSION, pr.DEPTH, (20, 100), 400,
                                                              (90, 45, 180, 180, 90, 10))
    assert len(line) <= 160  # one println from the sketch; no length rule applies to board lines


# --- the board's state machine -------------------------------------------------------------------
def T(seq, ms, *deg):
    return pr.format_command(pr.Stream(seq, ms, tuple(deg)))


HOME = list(pr.HOME)


def test_a_move_finishes_every_joint_together_with_the_exact_target():
    b = Board(now=0.0)
    target = [60, 90, 150, 120, 30, 73]  # base 30°, shoulder 45°, wrist roll 60°, gripper 63°: furthest
    assert b.feed("P " + ",".join(map(str, target)) + ",40", 0.0) == []
    duration = (100 + 1575) / 1000  # 0.1 s to reach 40 °/s at 400 °/s², 63° / 40 °/s = 1.575 s more
    assert pr.move_profile(63, 40, 400) == (100, 1575)
    assert b.advance(duration / 2 + 0.0005) == []  # 838 ms: a whole ms past the middle (837.5)
    # the middle of the time is the middle of the path for every joint (the profile is symmetric)
    assert b.degrees() == [round(h + (g - h) / 2 + 1e-9) for h, g in zip(HOME, target)]
    assert b.advance(duration - 0.001) == [] and b.busy
    assert b.advance(duration) == ["OK"] and b.degrees() == target and not b.busy


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 180), st.integers(20, 100))
def test_a_move_profile_keeps_its_speed_and_acceleration_and_ends_on_time(far, speed):
    """Sampled every ms, the furthest joint's path (before rounding) never goes faster than the
    speed nor changes speed faster than accel (plus the discretisation of one ms), starts and
    ends at rest, and takes no longer than the speed with a ramp at each end allows."""
    ramp, length = pr.move_profile(far, speed, pr.ACCEL)
    D = ramp + length
    x = [far * n / d for n, d in (pr.profile_fraction(e, ramp, length) for e in range(D + 1))]
    v = [1000 * (b - a) for a, b in zip(x, x[1:])]  # °/s over each ms
    assert x[0] == 0 and x[-1] == far and all(0 <= s <= speed + 1e-9 for s in v)
    acc = [1000 * abs(b - a) for a, b in zip([0.0, *v], [*v, 0.0])]
    assert max(acc) <= pr.ACCEL * (1 + 1e-9) + 1e6 * far / (ramp * length) * 1e-3 + 1e-9
    assert D <= 1000 * far / speed + 1000 * speed / pr.ACCEL + 2  # the trapezoid's time, whole ms up


def test_a_move_out_of_range_or_too_fast_is_refused_and_nothing_moves():
    b = Board(now=0.0)
    assert b.feed("P 90,170,90,90,90,10,40", 0.0) == ["E1 M2=170 outside 15..165"]
    assert b.feed("P 90,90,90,90,90,80,40", 0.0) == ["E1 M6=80 outside 10..73"]
    assert b.feed("P 90,90,90,90,90,10,200", 0.0) == ["E1 speed=200 outside 20..100"]
    assert b.feed("P 0,45,180,180,90,10,140", 0.0) == ["E1 speed=140 outside 20..100"]  # issue 25's move
    assert b.advance(5.0) == [] and b.degrees() == HOME


def test_home_query_stop_and_version():
    b = Board(now=0.0)
    assert b.feed("?", 0.0) == ["Q 90,45,180,180,90,10"]
    assert b.feed("V", 0.0) == [pr.format_reply(pr.DEFAULT_BANNER)]
    b.feed("P 90,90,90,90,90,10,100", 0.0)  # 90° of the elbow at 100 °/s: 0.25 s + 0.9 s
    assert b.feed("P 90,90,90,90,90,10,100", 0.1)[0].startswith("E4 busy")
    assert b.feed("S", 0.575) == ["OK"] and not b.busy
    held = b.degrees()
    assert held == [90, 68, 135, 135, 90, 10]  # where the arm was at 0.575 s, halfway
    assert b.advance(2.0) == [] and b.degrees() == held
    b.feed("H", 2.0)
    assert b.advance(2.0 + sum(pr.move_profile(45, pr.HOME_SPEED, pr.ACCEL)) / 1000) == ["OK"] and b.degrees() == HOME


def test_a_stream_is_queued_acknowledged_in_order_and_ends_on_its_last_point():
    b = Board(now=0.0)
    replies = []
    for k in range(5):
        replies += b.feed(T(k, 100, 90 + 2 * (k + 1), 45, 180, 180, 90, 10), 0.0)
    assert replies == [] and b.max_queued == 5
    assert b.advance(0.25) == [pr.format_reply(pr.Ack(0)), pr.format_reply(pr.Ack(1))]
    assert b.degrees()[0] == 95  # halfway through point 2: 94 → 96
    assert b.feed("K", 0.29) == []  # the keep-alive that holds off the watchdog
    assert b.advance(0.5) == [pr.format_reply(pr.Ack(k)) for k in (2, 3, 4)]
    assert b.degrees() == [100, 45, 180, 180, 90, 10] and not b.busy


@pytest.mark.parametrize("line, reply", [
    (T(1, 100, 92, 45, 180, 180, 90, 10), "E3 expected 0 got 1"),
    ("T 0,100,92,45,180,180,90,10*00", "E2 bad checksum"),
    ("T 0,100,92,45*" + pr.crc8_hex("T 0,100,92,45"), "E0 malformed line"),
    (T(0, 100, 92, 45, 180, 180, 200, 10), "E1 M5=200 outside 0..180"),
    (T(0, 100, 101, 45, 180, 180, 90, 10), "E1 M1 step 11 in 100 ms over 100 deg/s"),
    (T(0, 1, 91, 45, 180, 180, 90, 10), "E1 M1 step 1 in 1 ms over 100 deg/s"),  # no slack for short steps
    (T(0, 9, 91, 45, 180, 180, 90, 10), "E1 M1 step 1 in 9 ms over 100 deg/s"),
    (T(0, 0, 90, 45, 180, 180, 90, 10), "E1 ms=0 outside 1..60000")])
def test_bad_streamed_points_are_refused(line, reply):
    assert Board(now=0.0).feed(line, 0.0)[0].startswith(reply)


def test_an_error_mid_stream_drops_the_queue_and_holds():
    b = Board(now=0.0)
    for k in range(3):
        b.feed(T(k, 100, 90 + 10 * (k + 1), 45, 180, 180, 90, 10), 0.0)
    assert b.feed(T(7, 100, 140, 45, 180, 180, 90, 10), 0.15) == ["A 0*" + pr.crc8_hex("A 0"), "E3 expected 3 got 7"]
    assert not b.busy and b.degrees()[0] == 105  # halfway through point 1 (100 → 110)
    assert b.advance(1.0) == []


def test_a_full_queue_is_refused():
    b = Board(now=0.0)
    for k in range(pr.DEPTH):
        assert b.feed(T(k, 100, 90, 45, 180, 180, 90, 10), 0.0) == []
    assert b.feed(T(pr.DEPTH, 100, 90, 45, 180, 180, 90, 10), 0.0)[0] == f"E4 queue full ({pr.DEPTH} points)"


def test_the_watchdog_holds_the_arm_when_the_host_goes_silent():
    b = Board(now=0.0)
    for k in range(pr.DEPTH):
        b.feed(T(k, 200, 90 + 10 * (k + 1), 45, 180, 180, 90, 10), 0.0)  # 1.6 s of motion queued
    out = b.advance(2.0)
    assert out[:2] == [pr.format_reply(pr.Ack(0)), pr.format_reply(pr.Ack(1))]
    assert out[2].startswith("E5 watchdog") and len(out) == 3
    assert b.degrees()[0] == 115 and not b.busy  # held where it was at 0.5 s: halfway through point 2
    assert b.advance(5.0) == []


def test_a_new_stream_starts_at_zero_when_the_last_one_is_done():
    b = Board(now=0.0)
    b.feed(T(0, 10, 91, 45, 180, 180, 90, 10), 0.0)
    assert b.advance(0.1) == [pr.format_reply(pr.Ack(0))]
    assert b.feed(T(0, 10, 92, 45, 180, 180, 90, 10), 0.2) == []
    assert b.advance(0.3) == [pr.format_reply(pr.Ack(0))] and b.degrees()[0] == 92


def test_the_hardware_package_loads_neither_pyserial_nor_scipy():
    """pyserial loads when a link opens, so the emulator and the checks work without it; the
    package keeps the start-up light (tests/test_startup.py)."""
    import json
    import subprocess
    import sys

    probe = ("import kinematica as km, sys, json\nkm.hardware.Braccio, km.hardware.Emulator\n"
             "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'serial', 'scipy', 'sympy'})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# --- any byte ---------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_no_bytes_break_the_board_and_it_answers_after_them(data):
    """Any bytes (NUL, control, ≥ 0x80, no newline for long stretches) get defined replies only,
    the reader's memory stays bounded, and `?` is answered afterwards."""
    import re

    b = Board(now=0.0)
    out = b.receive(data, 0.0)
    assert len(b.reader._line) <= pr.MAX_LINE
    out += b.receive(b"\n?\n", 5.0)
    assert out[-1].startswith("Q ")
    assert all(re.fullmatch(r"OK|E[0-5] [ -~]+|A [0-9]+\*[0-9A-F]{2}|Q [0-9,]+|READY [ -~]+", line) for line in out)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.binary(max_size=80).map(lambda b: b.decode("latin-1")))
def test_any_reply_line_parses_or_is_a_protocol_error(line):
    """Line noise in a reply is a ProtocolError (the host's fault path), never another exception."""
    try:
        pr.parse_reply(line)
    except pr.ProtocolError:
        pass


def test_the_reader_drops_cr_and_marks_bad_lines():
    r = pr.Reader()
    assert r.feed(b"P 9\r0,45,180,180,90,10,40\r\n") == ["P 90,45,180,180,90,10,40"]
    assert r.feed(b"?\t\n\x00\n\xff?\n" + b"x" * 65 + b"\n" + b"x" * 64 + b"\n") == [None, None, None, None, "x" * 64]
    assert r.feed(b"?") == [] and r.feed(b"\n") == ["?"]  # a line split across reads
