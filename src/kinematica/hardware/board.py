"""The board's behaviour: the state machine the firmware sketch runs, in Python, clock passed in.

One specification, two implementations: `firmware/braccio_kinematica.ino` and this class (driven
by the emulator) follow the same rules, stated in `protocol`:

- a queue of at most `depth` segments; each segment moves every servo linearly from where the
  previous one ended to its target over its duration, the servos written in whole degrees
  (rounded half up) as it goes and the exact target written at its end;
- P and H queue one segment whose duration makes the joint that moves furthest go at the given
  speed (all joints finish together), answered by OK at its end; T queues a streamed point,
  answered by A seq at its end; a segment starts when the previous one ends (no drift);
- a streamed point is refused (and the stream ended: queue dropped, arm held where it is) for a
  bad checksum, a sequence number out of order, a full queue, a servo outside its range or a
  step faster than the speed limit plus one degree of rounding;
- the watchdog: a stream segment queued or moving and no line for `watchdog_ms` → stop, E5.

>>> b = Board(now=0.0)
>>> b.feed("P 90,90,180,180,90,10,40", now=0.0)  # the shoulder moves 45° at 40 °/s: 1.125 s
[]
>>> b.advance(now=0.5); b.degrees()[1]
[]
65
>>> b.advance(now=1.2)
['OK']
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from . import protocol as pr

_EPS = 1e-9  # s: float round-off of sums of times; the sketch counts whole milliseconds exactly


@dataclass
class Segment:
    start: tuple[float, ...]
    target: tuple[int, ...]
    t0: float  # s; None-like (inf) until the segment starts
    duration: float  # s
    reply: str  # sent when the segment ends
    streamed: bool


class Board:
    """A Braccio board running the protocol. `feed(line, now)` and `advance(now)` return the
    reply lines (without newlines); `now` is seconds on any monotonic clock."""

    def __init__(self, now: float, banner: pr.Banner = pr.DEFAULT_BANNER) -> None:
        self.banner = banner
        self.written: list[int] = list(banner.home)  # what the servos were last told
        self.queue: deque[Segment] = deque()
        self.expected_seq = 0
        self.last_line = self.now = now
        self.max_queued = 0  # the deepest the queue has been (the host's flow control keeps it <= depth)
        self.errors: list[str] = []

    # --- input ---------------------------------------------------------------------------
    def feed(self, line: str, now: float) -> list[str]:
        out = self.advance(now)
        self.last_line = now
        line = line.strip()
        if not line:
            return out
        try:
            cmd = pr.parse_command(line)
        except pr.ProtocolError as e:  # the sketch has no room for the details: the code and two words
            if line.startswith("T") and "checksum" in str(e):
                return out + self._error(2, "bad checksum")
            return out + self._error(0, "malformed line")
        return out + self._command(cmd, now)

    def _command(self, cmd: pr.Command, now: float) -> list[str]:
        if isinstance(cmd, pr.Query):
            return [pr.format_reply(pr.State(tuple(self.written)))]  # type: ignore[arg-type]
        if isinstance(cmd, pr.Stop):
            self._hold(now)
            return ["OK"]
        if isinstance(cmd, pr.Version):
            return [pr.format_reply(self.banner)]
        if isinstance(cmd, pr.KeepAlive):
            return []
        if isinstance(cmd, pr.Home):
            cmd = pr.Move(self.banner.home, cmd.speed)
        if isinstance(cmd, pr.Move):
            return self._move(cmd, now)
        return self._stream(cmd, now)

    def _range_error(self, degrees: tuple[int, ...]) -> str | None:
        for name, v, (lo, hi) in zip(pr.SERVOS, degrees, self.banner.ranges):
            if not lo <= v <= hi:
                return f"{name}={v} outside {lo}..{hi}"
        return None

    def _move(self, cmd: pr.Move, now: float) -> list[str]:
        if self.queue:
            return self._error(4, "busy: a move or stream is in progress")
        lo, hi = self.banner.speed
        bad = self._range_error(cmd.degrees) or (None if lo <= cmd.speed <= hi else
                                                  f"speed={cmd.speed} outside {lo}..{hi}")
        if bad:
            return self._error(1, bad)
        far = max(abs(a - b) for a, b in zip(cmd.degrees, self.written))
        ms = -(-far * 1000 // cmd.speed)  # whole milliseconds, rounded up, as the sketch's clock
        self._push(Segment(tuple(self.written), cmd.degrees, math.inf, ms / 1000, "OK", False), now)
        return []

    def _stream(self, cmd: pr.Stream, now: float) -> list[str]:
        if self.queue and not self.queue[-1].streamed:
            return self._error(4, "busy: a move is in progress")
        if len(self.queue) >= self.banner.depth:
            return self._error(4, f"queue full ({self.banner.depth} points)")
        if cmd.seq != self.expected_seq and not (cmd.seq == 0 and not self.queue):
            return self._error(3, f"expected {self.expected_seq} got {cmd.seq}")
        lo, hi = pr.MS_RANGE
        bad = self._range_error(cmd.degrees) or (None if lo <= cmd.ms <= hi else f"ms={cmd.ms} outside {lo}..{hi}")
        previous = self.queue[-1].target if self.queue else self.written
        vmax = self.banner.speed[1]
        for name, a, b in zip(pr.SERVOS, previous, cmd.degrees):
            if not bad and abs(b - a) * 1000 > vmax * cmd.ms + 1000:  # one degree of rounding allowed
                bad = f"{name} step {abs(b - a)} in {cmd.ms} ms over {vmax} deg/s"
        if bad:
            return self._error(1, bad)
        self.expected_seq = cmd.seq + 1
        self._push(Segment(tuple(previous), cmd.degrees, math.inf, cmd.ms / 1000, pr.format_reply(pr.Ack(cmd.seq)),
                           True), now)
        return []

    def _push(self, seg: Segment, now: float) -> None:
        if not self.queue:
            seg.t0, seg.start = now, tuple(self.written)
        self.queue.append(seg)
        self.max_queued = max(self.max_queued, len(self.queue))

    def _error(self, code: int, text: str) -> list[str]:
        """An error reply; during a stream it ends the stream (queue dropped, arm held)."""
        if self.queue and self.queue[-1].streamed:
            self.written = self._position(self.queue[0], self.now)
            self.queue.clear()
        line = pr.format_reply(pr.Error(code, text))
        self.errors.append(line)
        return [line]

    def _hold(self, now: float) -> None:
        if self.queue:
            self.written = self._position(self.queue[0], now)
        self.queue.clear()

    # --- time ----------------------------------------------------------------------------
    @staticmethod
    def _position(seg: Segment, now: float) -> list[int]:
        """start + (target − start)·e/D rounded half up, e the time into the segment of D (ms);
        as the sketch's integer floor((2·d·e + D) / 2D). The 1e-9 keeps a float e that should
        be whole (2.0 ms computed as 1.9999999) on the sketch's side of a half."""
        D = seg.duration * 1000
        if D <= 0:
            return list(seg.target)
        e = min(D, max(0.0, (now - seg.t0) * 1000))
        return [a + math.floor((2 * (b - a) * e + D) / (2 * D) + 1e-9) for a, b in zip(seg.start, seg.target)]

    def advance(self, now: float) -> list[str]:
        """Move the servos to time `now`: finish segments whose time is up (their replies
        returned), and fire the watchdog."""
        self.now = now
        out = []
        while self.queue:
            seg = self.queue[0]
            end = seg.t0 + seg.duration
            bark = self.last_line + self.banner.watchdog_ms / 1000 if self.queue[-1].streamed else math.inf
            if bark < now - _EPS and bark < end - _EPS:  # the host went silent mid-stream: hold where the arm is
                self.written = self._position(seg, bark)
                self.queue.clear()
                out.append(pr.format_reply(pr.Error(5, "watchdog: host silent mid-stream, holding")))
                self.errors.append(out[-1])
            elif end <= now + _EPS:
                self.queue.popleft()
                self.written = list(seg.target)
                out.append(seg.reply)
                if self.queue:  # the next one starts where and when this one ended
                    self.queue[0].t0, self.queue[0].start = end, tuple(seg.target)
            else:
                self.written = self._position(seg, now)
                break
        return out

    def next_event(self, now: float) -> float | None:
        """Seconds until the next segment ends or the watchdog fires (None when idle)."""
        if not self.queue:
            return None
        wait = self.queue[0].t0 + self.queue[0].duration - now
        if self.queue[-1].streamed:
            wait = min(wait, self.last_line + self.banner.watchdog_ms / 1000 - now)
        return max(0.0, wait)

    def degrees(self) -> list[int]:
        return list(self.written)

    @property
    def busy(self) -> bool:
        return bool(self.queue)
