"""The Braccio line protocol, version 1: every command and reply, formatted and parsed.

ASCII lines at 115200 baud, ended by "\\n" ("\\r" is ignored). Servo positions are whole
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

Board → host: the banner `READY v=1 depth=8 watchdog=500 speed=20..140 M1=0..180 … M6=10..73
home=90,45,180,180,90,10` after reset (an Uno resets when the port opens), OK, A, Q, and errors
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

from ..errors import InputTypeError, KinematicaError

import re
from dataclasses import dataclass
from typing import Union

VERSION = 1
BAUD = 115200
SERVOS = ("M1", "M2", "M3", "M4", "M5", "M6")
RANGES = ((0, 180), (15, 165), (0, 180), (0, 180), (0, 180), (10, 73))  # Arduino Braccio library
HOME = (90, 45, 180, 180, 90, 10)  # the library's safety position (gripper open)
SPEED_RANGE = (20, 140)  # °/s, as BraccioRobot's speeds
HOME_SPEED = 40  # °/s
DEPTH = 8  # points queued on the board; the host keeps at most this many unacknowledged
WATCHDOG_MS = 500
MS_RANGE = (1, 60000)  # duration of one streamed segment
MAX_LINE = 64  # characters, without the newline: the board's line buffer

Degrees = tuple[int, int, int, int, int, int]


class ProtocolError(KinematicaError, ValueError):
    """A line that does not follow the protocol (the message says what is wrong)."""


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
    if cc.upper() != crc8_hex(text):
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


Command = Union[Move, Home, Stream, Query, Stop, Version, KeepAlive]
_SIMPLE = {"?": Query(), "S": Stop(), "V": Version(), "K": KeepAlive()}


def _ints(text: str, count: int, what: str) -> list[int]:
    parts = text.split(",")
    if len(parts) != count or not all(re.fullmatch(r"-?\d{1,6}", p.strip()) for p in parts):
        raise ProtocolError(f"{what}: expected {count} whole numbers separated by commas, got {text!r}")
    return [int(p) for p in parts]


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
    line = line.strip()
    if not line:
        raise ProtocolError("empty line")
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line longer than {MAX_LINE} characters")
    if line in _SIMPLE:
        return _SIMPLE[line]
    letter, rest = line[0], line[1:].strip()
    if letter == "P":
        *deg, speed = _ints(rest, 7, "P")
        return Move(tuple(deg), speed)  # type: ignore[arg-type]
    if letter == "H":
        return Home(_ints(rest, 1, "H")[0]) if rest else Home()
    if letter == "T":
        seq, ms, *deg = _ints(strip_checksum(line)[1:].strip(), 8, "T")
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


Reply = Union[Banner, Ok, Ack, State, Error]
ERRORS = {0: "malformed line", 1: "value out of range", 2: "bad checksum", 3: "sequence out of order",
          4: "busy", 5: "watchdog"}
DEFAULT_BANNER = Banner(VERSION, DEPTH, WATCHDOG_MS, SPEED_RANGE, RANGES, HOME)


def format_reply(reply: Reply) -> str:
    if isinstance(reply, Banner):
        ranges = " ".join(f"{name}={lo}..{hi}" for name, (lo, hi) in zip(SERVOS, reply.ranges))
        return (f"READY v={reply.version} depth={reply.depth} watchdog={reply.watchdog_ms} "
                f"speed={reply.speed[0]}..{reply.speed[1]} {ranges} home=" + ",".join(map(str, reply.home)))
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
    m = re.fullmatch(r"(\d+)\.\.(\d+)", text)
    if not m:
        raise ProtocolError(f"READY: {key}={text!r} is not a range lo..hi")
    return int(m[1]), int(m[2])


def parse_banner(line: str) -> Banner:
    """The READY banner; ProtocolError naming a missing or malformed field."""
    fields = dict(tok.partition("=")[::2] for tok in line.split()[1:])
    need = ["v", "depth", "watchdog", "speed", *SERVOS, "home"]
    missing = [k for k in need if k not in fields]
    if missing:
        raise ProtocolError(f"READY banner without {', '.join(missing)}: {line!r}")
    try:
        version, depth, watchdog = int(fields["v"]), int(fields["depth"]), int(fields["watchdog"])
    except ValueError:
        raise ProtocolError(f"READY: v, depth and watchdog must be whole numbers: {line!r}") from None
    home = _ints(fields["home"], 6, "READY home")
    return Banner(version, depth, watchdog, _span(fields["speed"], "speed"),
                  tuple(_span(fields[k], k) for k in SERVOS), tuple(home))  # type: ignore[arg-type]


RESTARTED = ("the board restarted (a READY banner mid-session: a power dip when the servos draw "
             "current?): its queue and state are lost")


def parse_reply(line: str) -> Reply:
    """The reply of a line (as the host reads it); ProtocolError for anything else."""
    line = line.strip()
    if line.startswith("READY"):
        return parse_banner(line)
    if line == "OK":
        return Ok()
    if line.startswith("A"):
        text = strip_checksum(line)
        if not re.fullmatch(r"A \d{1,9}", text):
            raise ProtocolError(f"malformed acknowledgement {line!r}")
        return Ack(int(text[2:]))
    if line.startswith("Q "):
        return State(tuple(_ints(line[2:], 6, "Q")))  # type: ignore[arg-type]
    m = re.fullmatch(r"E(\d)(?: (.*))?", line)
    if m:
        return Error(int(m[1]), m[2] or "")
    raise ProtocolError(f"unexpected line from the board: {line[:40]!r}")
