"""The Braccio line protocol, version 2: every command and reply, formatted and parsed.

ASCII lines at 115200 baud, ended by "\\n". Servo positions are whole
degrees in the order M1 base, M2 shoulder, M3 elbow, M4 wrist pitch, M5 wrist roll, M6 gripper.
Host → board (the first two as in the BraccioRobot library's serial sketch):

  P b,s,e,w,r,g,v          move to b…g; v °/s is the speed of the joint that moves furthest, all
                           joints finish together; the exact target is written at the end → OK
  H [v]                    home (the safety position) at v °/s (default HOME_SPEED) → OK
  T seq,ms,b,s,e,w,r,g*CC  stream: queue a point reached ms milliseconds after the previous one;
                           seq counts 0, 1, 2 … within a stream → A seq*CC when the point is reached
  ?                        → Q b,s,e,w,r,g, the last commanded degrees (hobby servos report no
                           position: this is what the board last wrote, not a measurement)
  S                        stop now: drop the queue, hold where the arm is → OK
  V                        → the READY banner again (for a board that did not reset on open)
  K                        keep-alive during a stream (no reply)

What the board reads, byte by byte (`Reader`; the sketch's loop does the same): a line ends at
"\\n"; "\\r" is dropped wherever it is; a line of more than MAX_LINE characters, or with any
byte outside printable ASCII (0x20–0x7E: NUL, tab, other control bytes, ≥ 0x80), is answered
`E0 malformed line` whatever it says; spaces around a line are ignored, an empty line is.
Numbers are 1–6 digits with an optional "-", spaces allowed around them; CC is exactly two
upper-case hex digits. Any other line is `E0` (a `T` line with a missing or wrong CC is `E2`).

Moves (P, H) follow an acceleration-limited (trapezoidal) profile: the joint that moves furthest
speeds up at `accel` °/s² to at most v, cruises, and slows down at `accel` to stop on the
target (`move_profile`); the others scale with it. A streamed point moves linearly over its ms,
and its speed — |Δ degrees| / ms of every servo — must not exceed the banner's top speed: the
check is exact on the whole degrees and milliseconds sent, with no rounding slack.

Board → host: the banner `READY v=2 depth=8 watchdog=500 speed=20..100 accel=400 M1=0..180 …
M6=10..73 home=90,45,180,180,90,10 boot=1` after the soft start at power-up or reset (boot=1: a
host that sees it mid-session knows the board reset), the same with boot=0 on `V`; OK, A, Q, and errors
`E<code> <words>`: E0 malformed line, E1 value out of range, E2 bad checksum, E3 sequence out of
order, E4 busy (a move or stream in progress, or the queue full), E5 watchdog (the host went
silent for `watchdog` ms mid-stream: the queue is dropped and the arm holds where it is). Any
error during a stream ends it the same way.

CC is the CRC-8 (polynomial 0x07, initial value 0) of the bytes before "*", as two upper-case
hex digits; streamed points and their acknowledgements carry it, so a garbled line is caught: every error
within 8 consecutive bits, and all but 1 in 256 of random damage.

>>> format_stream(Stream(3, 20, (90, 45, 180, 180, 90, 10)))
'T 3,20,90,45,180,180,90,10*C3'
>>> parse_reply("A 3*" + crc8_hex("A 3"))
Ack(seq=3)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InputTypeError, KinematicaError

__all__ = ["VERSION", "BAUD", "SERVOS", "RANGES", "HOME", "SPEED_RANGE", "ACCEL", "HOME_SPEED",
           "SOFT_START_MS", "DEPTH", "WATCHDOG_MS", "MS_RANGE", "MAX_LINE", "Degrees", "ProtocolError", "degrees_of",
           "crc8", "crc8_hex", "with_checksum", "strip_checksum", "Move", "Home", "Stream", "Query", "Stop",
           "Version", "KeepAlive", "Command", "Reader", "format_command", "format_stream", "parse_command",
           "Banner", "Ok", "Ack", "State", "Error", "Reply", "ERRORS", "DEFAULT_BANNER", "format_reply",
           "parse_banner", "RESTARTED", "parse_reply", "move_profile", "profile_fraction"]

VERSION = 2
BAUD = 115200
SERVOS = ("M1", "M2", "M3", "M4", "M5", "M6")
RANGES = ((0, 180), (15, 165), (0, 180), (0, 180), (0, 180), (10, 73))  # Arduino Braccio library
HOME = (90, 45, 180, 180, 90, 10)  # the library's safety position (gripper open)
SPEED_RANGE = (20, 100)  # °/s: the Braccio library's ServoMovement steps 1° every 10…30 ms (≤ 100 °/s)
ACCEL = 400  # °/s²: moves reach 100 °/s in 0.25 s (12.5°), never a step change of speed
HOME_SPEED = 40  # °/s
SOFT_START_MS = (2000, 6000)  # the servos' supply (pin 12) at low duty until 2 s, then a little more until
#                                6 s, then on: the Braccio library's begin(); the banner comes after it
DEPTH = 8  # points queued on the board; the host keeps at most this many unacknowledged
WATCHDOG_MS = 500
MS_RANGE = (1, 60000)  # duration of one streamed segment
MAX_LINE = 64  # characters, without the newline: the board's line buffer

Degrees = tuple[int, int, int, int, int, int]


class ProtocolError(KinematicaError, ValueError):
    """A line that does not follow the protocol (the message says what is wrong)."""


def degrees_of(values: Iterable[float]) -> Degrees:
    """Whole servo degrees M1…M6 as a command carries them; ProtocolError unless there are six."""
    d = tuple(int(v) for v in values)
    if len(d) != 6:
        raise ProtocolError(f"expected 6 servo degrees (M1…M6), got {len(d)}")
    return d


def crc8(data: bytes) -> int:
    """CRC-8 with polynomial x⁸ + x² + x + 1 (0x07), initial value 0, no reflection.

    >>> hex(crc8(b"123456789"))  # the standard check value of CRC-8/SMBUS
    '0xf4'
    """
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def crc8_hex(text: str) -> str:
    return f"{crc8(text.encode('ascii')):02X}"


def with_checksum(text: str) -> str:
    return f"{text}*{crc8_hex(text)}"


def strip_checksum(line: str) -> str:
    """The text before "*CC" after checking CC; ProtocolError if it is missing or wrong."""
    text, star, cc = line.rpartition("*")
    if not star:
        raise ProtocolError(f"no checksum in {line!r}")
    if not re.fullmatch(r"[0-9A-F]{2}", cc) or cc != crc8_hex(text):
        raise ProtocolError(f"bad checksum in {line!r} (expected {crc8_hex(text)})")
    return text


# --- commands (host → board) ------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    degrees: Degrees
    speed: int


@dataclass(frozen=True)
class Home:
    speed: int = HOME_SPEED


@dataclass(frozen=True)
class Stream:
    seq: int
    ms: int
    degrees: Degrees


@dataclass(frozen=True)
class Query:
    pass


@dataclass(frozen=True)
class Stop:
    pass


@dataclass(frozen=True)
class Version:
    pass


@dataclass(frozen=True)
class KeepAlive:
    pass


Command = Move | Home | Stream | Query | Stop | Version | KeepAlive
_SIMPLE = {"?": Query(), "S": Stop(), "V": Version(), "K": KeepAlive()}


def _ints(text: str, count: int, what: str) -> list[int]:
    parts = text.split(",")
    if len(parts) != count or not all(re.fullmatch(r"-?[0-9]{1,6}", p.strip(" ")) for p in parts):
        raise ProtocolError(f"{what}: expected {count} whole numbers separated by commas, got {text!r}")
    return [int(p) for p in parts]


def _unprintable(line: str) -> str | None:
    """The first character outside printable ASCII (0x20–0x7E), or None."""
    return next((c for c in line if not " " <= c <= "~"), None)


class Reader:
    """The board's line reader, fed byte by byte as the sketch's loop() reads them: "\\r" dropped,
    a line ended by "\\n" returned as text, or None when it was malformed (a byte outside
    printable ASCII, or more than MAX_LINE characters). It never holds more than MAX_LINE bytes.

    >>> Reader().feed(b"?\\r\\nP\\x001\\n" + b"9" * 99 + b"\\nS")
    ['?', None, None]
    """

    def __init__(self) -> None:
        self._line = bytearray()
        self._bad = False

    def feed(self, data: bytes) -> list[str | None]:
        lines: list[str | None] = []
        for byte in data:
            if byte == 0x0A:
                lines.append(None if self._bad else self._line.decode("ascii"))
                self._line.clear()
                self._bad = False
            elif byte == 0x0D:
                continue
            elif not 0x20 <= byte <= 0x7E or len(self._line) >= MAX_LINE:
                self._bad = True
            else:
                self._line.append(byte)
        return lines


def format_command(cmd: Command) -> str:
    """The line (without its newline) for a command."""
    if isinstance(cmd, Move):
        return "P " + ",".join(map(str, (*cmd.degrees, cmd.speed)))
    if isinstance(cmd, Home):
        return f"H {cmd.speed}"
    if isinstance(cmd, Stream):
        return format_stream(cmd)
    for letter, value in _SIMPLE.items():
        if cmd == value:
            return letter
    raise InputTypeError(f"not a protocol command: {cmd!r}")


def format_stream(cmd: Stream) -> str:
    return with_checksum(f"T {cmd.seq},{cmd.ms}," + ",".join(map(str, cmd.degrees)))


def parse_command(line: str) -> Command:
    """The command of a line (as the board reads it); ProtocolError naming what is wrong.
    Ranges are not checked here: that is the board's (and the host's) business."""
    line = line.replace("\r", "")
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line longer than {MAX_LINE} characters")
    bad = _unprintable(line)
    if bad is not None:
        raise ProtocolError(f"character {bad!r} is not printable ASCII")
    line = line.strip(" ")
    if not line:
        raise ProtocolError("empty line")
    if line in _SIMPLE:
        return _SIMPLE[line]
    letter, rest = line[0], line[1:].strip(" ")
    if letter == "P":
        *deg, speed = _ints(rest, 7, "P")
        return Move(tuple(deg), speed)  # type: ignore[arg-type]
    if letter == "H":
        return Home(_ints(rest, 1, "H")[0]) if rest else Home()
    if letter == "T":
        seq, ms, *deg = _ints(strip_checksum(line)[1:], 8, "T")
        if seq < 0:
            raise ProtocolError(f"T: negative sequence number {seq}")
        return Stream(seq, ms, tuple(deg))  # type: ignore[arg-type]
    raise ProtocolError(f"unknown command {line[:12]!r}")


# --- replies (board → host) -------------------------------------------------------------------
@dataclass(frozen=True)
class Banner:
    version: int
    depth: int
    watchdog_ms: int
    speed: tuple[int, int]
    ranges: tuple[tuple[int, int], ...]
    home: Degrees
    accel: int = ACCEL  # °/s² of the moves' profile
    boot: bool = False  # True: sent by the board's setup (it has just powered up or reset), False: the answer to V


@dataclass(frozen=True)
class Ok:
    pass


@dataclass(frozen=True)
class Ack:
    seq: int


@dataclass(frozen=True)
class State:
    degrees: Degrees


@dataclass(frozen=True)
class Error:
    code: int
    text: str = ""


Reply = Banner | Ok | Ack | State | Error
ERRORS = {0: "malformed line", 1: "value out of range", 2: "bad checksum", 3: "sequence out of order",
          4: "busy", 5: "watchdog"}
DEFAULT_BANNER = Banner(VERSION, DEPTH, WATCHDOG_MS, SPEED_RANGE, RANGES, HOME)


def format_reply(reply: Reply) -> str:
    if isinstance(reply, Banner):
        ranges = " ".join(f"{name}={lo}..{hi}" for name, (lo, hi) in zip(SERVOS, reply.ranges, strict=True))
        return (f"READY v={reply.version} depth={reply.depth} watchdog={reply.watchdog_ms} "
                f"speed={reply.speed[0]}..{reply.speed[1]} accel={reply.accel} {ranges} home="
                + ",".join(map(str, reply.home)) + f" boot={int(reply.boot)}")
    if isinstance(reply, Ok):
        return "OK"
    if isinstance(reply, Ack):
        return with_checksum(f"A {reply.seq}")
    if isinstance(reply, State):
        return "Q " + ",".join(map(str, reply.degrees))
    if isinstance(reply, Error):
        return f"E{reply.code} {reply.text}".rstrip()
    raise InputTypeError(f"not a protocol reply: {reply!r}")


def _span(text: str, key: str) -> tuple[int, int]:
    m = re.fullmatch(r"([0-9]{1,6})\.\.([0-9]{1,6})", text)
    if not m:
        raise ProtocolError(f"READY: {key}={text!r} is not a range lo..hi")
    return int(m[1]), int(m[2])


def parse_banner(line: str) -> Banner:
    """The READY banner; ProtocolError naming a missing or malformed field."""
    fields = {key: value for key, _, value in (tok.partition("=") for tok in line.split(" ")[1:] if tok)}
    need = ["v", "depth", "watchdog", "speed", "accel", *SERVOS, "home", "boot"]
    missing = [k for k in need if k not in fields]
    if missing:
        raise ProtocolError(f"READY banner without {', '.join(missing)}: {line!r}")
    if not all(re.fullmatch(r"[0-9]{1,6}", fields[k]) for k in ("v", "depth", "watchdog", "accel")):
        raise ProtocolError(f"READY: v, depth, watchdog and accel must be whole numbers: {line!r}")
    if fields["boot"] not in ("0", "1"):
        raise ProtocolError(f"READY: boot must be 0 or 1: {line!r}")
    home = _ints(fields["home"], 6, "READY home")
    return Banner(int(fields["v"]), int(fields["depth"]), int(fields["watchdog"]), _span(fields["speed"], "speed"),
                  tuple(_span(fields[k], k) for k in SERVOS), tuple(home),  # type: ignore[arg-type]
                  int(fields["accel"]), fields["boot"] == "1")


RESTARTED = ("the board restarted (a READY banner mid-session: a power dip when the servos draw "
             "current, or a reset): its queue is lost and it drove its servos home under its soft start")


def parse_reply(line: str) -> Reply:
    """The reply of a line (as the host reads it); ProtocolError for anything else, a line with
    a byte outside printable ASCII (line noise) included."""
    line = line.strip(" \r")
    bad = _unprintable(line)
    if bad is not None:
        raise ProtocolError(f"garbled line from the board (character {bad!r}): {line[:40]!r}")
    if line.startswith("READY"):
        return parse_banner(line)
    if line == "OK":
        return Ok()
    if line.startswith("A"):
        text = strip_checksum(line)
        if not re.fullmatch(r"A [0-9]{1,9}", text):
            raise ProtocolError(f"malformed acknowledgement {line!r}")
        return Ack(int(text[2:]))
    if line.startswith("Q "):
        return State(tuple(_ints(line[2:], 6, "Q")))  # type: ignore[arg-type]
    m = re.fullmatch(r"E([0-9])(?: (.*))?", line)
    if m:
        return Error(int(m[1]), m[2] or "")
    raise ProtocolError(f"unexpected line from the board: {line[:40]!r}")


def move_profile(far: int, speed: int, accel: int) -> tuple[int, int]:
    """(R, L) in whole ms of a move whose furthest joint turns `far` degrees at up to `speed` °/s
    with `accel` °/s²: it speeds up for R ms, and slows down over the last R ms of its R + L.
    R = ⌈1000·v/a⌉ when far ≥ v²/a (a trapezoid), else ⌈1000·√(far/a)⌉ (a triangle); L =
    max(⌈1000·far/v⌉, R). The peak speed far/L ≤ v and the acceleration far/(R·L) ≤ a.

    >>> move_profile(45, 40, 400)  # 0.1 s up to 40 °/s, 1.225 s in all
    (100, 1125)
    """
    if far <= 0:
        return 0, 0
    if far * accel >= speed * speed:
        ramp = -(-1000 * speed // accel)
    else:
        ramp = math.isqrt(-(-1_000_000 * far // accel))
        while ramp * ramp * accel < 1_000_000 * far:  # the smallest R with R²·a ≥ 10⁶·far
            ramp += 1
    return ramp, max(-(-1000 * far // speed), ramp)


def profile_fraction(e: int, ramp: int, length: int) -> tuple[int, int]:
    """(num, den): how far along its path a segment is e ms after its start, as num/den in [0, 1].
    ramp 0: linear over `length` ms (a streamed point). Otherwise the trapezoid of `move_profile`
    (D = ramp + length): e²/(2RL) while speeding up, (2e − R)/(2L) cruising, and
    1 − (D − e)²/(2RL) slowing down."""
    if ramp == 0:
        return (min(e, length), length) if length > 0 else (1, 1)
    total = ramp + length
    e = min(max(e, 0), total)
    if e <= ramp:
        num = e * e
    elif e <= length:
        num = ramp * (2 * e - ramp)
    else:
        num = 2 * ramp * length - (total - e) ** 2
    return num, 2 * ramp * length
