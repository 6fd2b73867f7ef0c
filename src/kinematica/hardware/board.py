"""The board's behaviour: the state machine the firmware sketch runs, in Python, clock passed in.

One specification, two implementations: `firmware/braccio_kinematica.ino` and this class (driven
by the emulator) follow the same rules, stated in `protocol`, and count time as the sketch does,
in whole milliseconds:

- bytes are read as `protocol.Reader` reads them: any byte has a defined outcome, a malformed
  line (a byte outside printable ASCII, more than MAX_LINE characters) is answered E0;
- a queue of at most `depth` segments; a segment moves every servo from where the previous one
  ended to its target, the servos written in whole degrees (rounded half up) as it goes and the
  exact target written at its end; a segment starts when the previous one ends (no drift);
- P and H queue one segment with the trapezoidal profile of `protocol.move_profile` (the joint
  that moves furthest speeds up at `accel`, cruises at no more than the speed, slows down at
  `accel`; all joints finish together), answered by OK at its end; T queues a streamed point,
  moved linearly, answered by A seq at its end;
- a streamed point is refused (and the stream ended: queue dropped, arm held where it is) for a
  bad checksum, a sequence number out of order, a full queue, a servo outside its range or a
  step faster than the top speed: |Δ degrees|·1000 > speed·ms, exact, with no slack;
- the watchdog: a stream segment queued or moving and no line for `watchdog_ms` → stop, E5.

>>> b = Board(now=0.0)
>>> b.feed("P 90,90,180,180,90,10,40", now=0.0)  # the shoulder 45° at up to 40 °/s: 1.225 s
[]
>>> b.advance(now=0.612); b.degrees()[1]  # 612 ms of 1225: just short of halfway (67.5°), a symmetric profile
[]
67
>>> b.advance(now=1.3)
['OK']
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from . import protocol as pr


def whole_ms(now: float) -> int:
    """The sketch's millis() for a time in seconds (the 1e-6 keeps 0.002 s, computed as
    1.9999999 ms, on the sketch's side)."""
    return math.floor(now * 1000 + 1e-6)


@dataclass
class Segment:
    target: tuple[int, ...]
    ramp: int  # ms of speeding up (and of slowing down); 0: linear (a streamed point)
    length: int  # ms: the duration is ramp + length
    reply: str  # sent when the segment ends
    streamed: bool
    start: tuple[int, ...] = ()
    t0: int = 0  # ms, set when the segment starts

    @property
    def duration(self) -> int:
        return self.ramp + self.length


class Board:
    """A Braccio board running the protocol. `receive(data, now)` (bytes), `feed(line, now)` (one
    line) and `advance(now)` return the reply lines (without newlines); `now` is seconds on any
    monotonic clock."""

    def __init__(self, now: float, banner: pr.Banner = pr.DEFAULT_BANNER) -> None:
        self.banner = banner
        self.written: list[int] = list(banner.home)  # what the servos were last told
        self.queue: deque[Segment] = deque()
        self.reader = pr.Reader()
        self.expected_seq = 0
        self.last_line = self.now = whole_ms(now)
        self.max_queued = 0  # the deepest the queue has been (the host's flow control keeps it <= depth)
        self.errors: list[str] = []

    # --- input ---------------------------------------------------------------------------
    def receive(self, data: bytes, now: float) -> list[str]:
        """Bytes from the serial line, any values: the replies to every line they end."""
        out: list[str] = []
        for line in self.reader.feed(data):
            out += self._line(line, now)
        return out

    def feed(self, line: str, now: float) -> list[str]:
        """One line (its newline added; characters beyond 0xFF are sent as "?")."""
        return self.receive(line.encode("latin-1", "replace") + b"\n", now)

    def _line(self, line: str | None, now: float) -> list[str]:
        out = self.advance(now)
        self.last_line = whole_ms(now)
        if line is None:
            return out + self._error(0, "malformed line")
        line = line.strip(" ")
        if not line:
            return out
        try:
            cmd = pr.parse_command(line)
        except pr.ProtocolError as e:  # the sketch has no room for the details: the code and two words
            if line.startswith("T") and "checksum" in str(e):
                return out + self._error(2, "bad checksum")
            return out + self._error(0, "malformed line")
        return out + self._command(cmd)

    def _command(self, cmd: pr.Command) -> list[str]:
        if isinstance(cmd, pr.Query):
            return [pr.format_reply(pr.State(tuple(self.written)))]  # type: ignore[arg-type]
        if isinstance(cmd, pr.Stop):
            self._hold(self.now)
            return ["OK"]
        if isinstance(cmd, pr.Version):
            return [pr.format_reply(self.banner)]
        if isinstance(cmd, pr.KeepAlive):
            return []
        if isinstance(cmd, pr.Home):
            cmd = pr.Move(self.banner.home, cmd.speed)
        if isinstance(cmd, pr.Move):
            return self._move(cmd)
        return self._stream(cmd)

    def _range_error(self, degrees: tuple[int, ...]) -> str | None:
        for name, v, (lo, hi) in zip(pr.SERVOS, degrees, self.banner.ranges, strict=True):
            if not lo <= v <= hi:
                return f"{name}={v} outside {lo}..{hi}"
        return None

    def _move(self, cmd: pr.Move) -> list[str]:
        if self.queue:
            return self._error(4, "busy: a move or stream is in progress")
        lo, hi = self.banner.speed
        bad = self._range_error(cmd.degrees) or (None if lo <= cmd.speed <= hi else
                                                  f"speed={cmd.speed} outside {lo}..{hi}")
        if bad:
            return self._error(1, bad)
        far = max(abs(a - b) for a, b in zip(cmd.degrees, self.written, strict=True))
        ramp, length = pr.move_profile(far, cmd.speed, self.banner.accel)
        self._push(Segment(cmd.degrees, ramp, length, "OK", False))
        return []

    def _stream(self, cmd: pr.Stream) -> list[str]:
        if self.queue and not self.queue[-1].streamed:
            return self._error(4, "busy: a move is in progress")
        if len(self.queue) >= self.banner.depth:
            return self._error(4, f"queue full ({self.banner.depth} points)")
        if cmd.seq != self.expected_seq and not (cmd.seq == 0 and not self.queue):
            return self._error(3, f"expected {self.expected_seq} got {cmd.seq}")
        lo, hi = pr.MS_RANGE
        bad = self._range_error(cmd.degrees) or (None if lo <= cmd.ms <= hi else f"ms={cmd.ms} outside {lo}..{hi}")
        previous = self.queue[-1].target if self.queue else tuple(self.written)
        vmax = self.banner.speed[1]
        for name, a, b in zip(pr.SERVOS, previous, cmd.degrees, strict=True):
            if not bad and abs(b - a) * 1000 > vmax * cmd.ms:  # exact: no slack to exploit
                bad = f"{name} step {abs(b - a)} in {cmd.ms} ms over {vmax} deg/s"
        if bad:
            return self._error(1, bad)
        self.expected_seq = cmd.seq + 1
        self._push(Segment(cmd.degrees, 0, cmd.ms, pr.format_reply(pr.Ack(cmd.seq)), True))
        return []

    def _push(self, seg: Segment) -> None:
        if not self.queue:
            seg.t0, seg.start = self.now, tuple(self.written)
        self.queue.append(seg)
        self.max_queued = max(self.max_queued, len(self.queue))

    def _error(self, code: int, text: str) -> list[str]:
        """An error reply; during a stream it ends the stream (queue dropped, arm held)."""
        if self.queue and self.queue[-1].streamed:
            self._hold(self.now)
        line = pr.format_reply(pr.Error(code, text))
        self.errors.append(line)
        return [line]

    def _hold(self, at: int) -> None:
        if self.queue:
            self.written = self._position(self.queue[0], at)
        self.queue.clear()

    # --- time ----------------------------------------------------------------------------
    @staticmethod
    def _position(seg: Segment, at: int) -> list[int]:
        """start + (target − start)·num/den rounded half up, (num, den) the profile's fraction
        at `at` ms: the sketch's integer floor((2·d·num + den) / 2·den)."""
        num, den = pr.profile_fraction(at - seg.t0, seg.ramp, seg.length)
        return [a + (2 * (b - a) * num + den) // (2 * den) for a, b in zip(seg.start, seg.target, strict=True)]

    def advance(self, now: float) -> list[str]:
        """Move the servos to time `now`: finish segments whose time is up (their replies
        returned), and fire the watchdog."""
        self.now = at = whole_ms(now)
        out = []
        while self.queue:
            seg = self.queue[0]
            end = seg.t0 + seg.duration
            bark = self.last_line + self.banner.watchdog_ms if self.queue[-1].streamed else math.inf
            if bark < at and bark < end:  # the host went silent mid-stream: hold where the arm was then
                self._hold(int(bark))
                out.append(pr.format_reply(pr.Error(5, "watchdog: host silent mid-stream, holding")))
                self.errors.append(out[-1])
            elif end <= at:
                self.queue.popleft()
                self.written = list(seg.target)
                out.append(seg.reply)
                if self.queue:  # the next one starts where and when this one ended
                    self.queue[0].t0, self.queue[0].start = end, tuple(seg.target)
            else:
                self.written = self._position(seg, at)
                break
        return out

    def next_event(self, now: float) -> float | None:
        """Seconds until the next segment ends or the watchdog fires (None when idle)."""
        if not self.queue:
            return None
        at = whole_ms(now)
        wait = self.queue[0].t0 + self.queue[0].duration - at
        if self.queue[-1].streamed:
            wait = min(wait, self.last_line + self.banner.watchdog_ms + 1 - at)
        return max(0, wait) / 1000

    def degrees(self) -> list[int]:
        return list(self.written)

    @property
    def busy(self) -> bool:
        return bool(self.queue)
