"""A virtual Braccio: the board's state machine (`board.Board`) behind a TCP port on 127.0.0.1
or a pseudo-terminal, in a background thread, optionally misbehaving.

Connect the bridge to `emulator.url` (``socket://127.0.0.1:PORT``) or to the pseudo-terminal's
path. The board powers up when the emulator starts: it is deaf for `boot_delay` s (the
bootloader, ~0.05 s on an Uno) and `soft_start` s (the soft start: 6 s on a real board,
`protocol.SOFT_START_MS`); both are 0 by default here, so that a host connecting at once finds
it listening and tests and rehearsals need not wait. Then it sends its boot banner
(boot=1) to whoever is connected, and answers `V` with its banner (boot=0). A host that
connects later finds the same board where it left it (the host opens the port without a reset
pulse); `reset_on_open=True` makes every connection reset it instead, as an Uno whose DTR line
still pulses. The servos move in real time at the speeds and profiles the commands imply. Any
bytes are read as the sketch reads them (`protocol.Reader`): nothing a host sends stops the
emulator serving. Only one host is served at a time: another TCP connection is closed at once.

`Misbehaviour` makes it fail the way real links fail; it counts the lines the board sends after
its banner (1, 2, …) and the lines it receives:

    drop=N               the N-th line sent is lost
    delay=(N, s)         the N-th line sent, and every one after it, comes s seconds late
    garble=N             the N-th line sent has one character damaged (a flipped bit)
    noise=(N, b)         the N-th line sent has the byte b (0–255) put in its middle (line noise)
    disconnect_after=N   the connection is closed after N lines are received (a pulled cable)
    reset_after=N        the board resets after the N-th line received (a power dip): deaf through
                         its boot and soft start, its servos home, then its boot banner

>>> with Emulator() as emu:
...     emu.url.startswith("socket://127.0.0.1:")
True
"""

from __future__ import annotations

import copy
import select
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InputError
from . import protocol as pr
from .board import Board
from .served import Served


@dataclass(frozen=True)
class Misbehaviour:
    drop: int | None = None
    delay: tuple[int, float] | None = None
    garble: int | None = None
    disconnect_after: int | None = None
    reset_after: int | None = None
    noise: tuple[int, int] | None = None


def garbled(line: str) -> str:
    """`line` with the bit 0x10 of its middle character flipped, as line noise does.

    >>> garbled("A 0*D3")
    'A 0:D3'
    """
    k = len(line) // 2
    return line[:k] + chr(ord(line[k]) ^ 0x10) + line[k + 1:]


class Emulator(Served):
    """A virtual Braccio in a background thread; `start_tcp()` or `start_pty()`, then `stop()`
    (or use it as a context manager, which starts TCP on a free port)."""

    def __init__(self, misbehaviour: Misbehaviour = Misbehaviour(), boot_delay: float = 0.0,
                 banner: pr.Banner = pr.DEFAULT_BANNER, reset_on_open: bool = False, soft_start: float = 0.0) -> None:
        for name, value, most in (("boot_delay", boot_delay, 60.0), ("soft_start", soft_start, 60.0),
                                  ("misbehaviour.delay", (misbehaviour.delay or (0, 1.0))[1], 3600.0)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= most:
                raise InputError(f"{name}: expected seconds in [0, {most:g}], got {value!r}")
        self.misbehaviour, self.boot_delay, self.soft_start = misbehaviour, float(boot_delay), float(soft_start)
        self.banner = replace(banner, boot=False)
        self.reset_on_open = reset_on_open  # True: every connection resets the board (a DTR pulse)
        super().__init__()
        self._lock = threading.Lock()
        self.received: list[str] = []  # every line received, every line put on the wire
        self.sent: list[str] = []
        self.connections = 0
        self.boots = 0  # power-ups and resets
        self._live = False  # a host is connected
        self._power_up(time.monotonic())

    # --- starting and stopping -----------------------------------------------------------
    NAME = "braccio-emulator"

    def start_pty(self) -> str:
        """Serve on a new pseudo-terminal; returns its path (e.g. /dev/pts/3) to open as a port.
        It acts as a board that does not reset when its port opens: the banner comes on `V`,
        which the bridge sends when no banner came in half its ready_timeout."""
        self.reset_on_open = False  # a pseudo-terminal cannot tell when it is opened: banner on `V`
        return super().start_pty()

    def _serve_pty(self) -> None:
        self._serve(self._pty, since_power_up=True)  # its boot banner is not lost

    def _power_up(self, now: float) -> None:
        """A fresh board (servos home), deaf until its boot and soft start are over."""
        with self._lock:
            self.board = Board(now, self.banner)
            self.ready_at = now + self.boot_delay + self.soft_start
            self._banner_due = True
            self.boots += 1

    def reset(self) -> None:
        """Reset the board now (a power dip, a DTR pulse): it starts again from power-up."""
        self._power_up(time.monotonic())

    # --- what the board did ----------------------------------------------------------------
    def degrees(self) -> list[int]:
        """The servo degrees the virtual board has written, as of now. While a host is connected
        this looks at a copy (the serving thread alone advances the board and sends what it says);
        after the host has gone, the board runs on here (its watchdog included)."""
        with self._lock:
            board = copy.deepcopy(self.board) if self._live else self.board
            board.advance(time.monotonic())
            return board.degrees()

    def log(self) -> tuple[list[str], list[str]]:
        """(lines received, lines sent) so far."""
        with self._lock:
            return list(self.received), list(self.sent)

    # --- serving -------------------------------------------------------------------------
    def _serve(self, chan: Any, since_power_up: bool = False) -> None:
        """One connection (a fresh board with `reset_on_open`), then bytes in and replies out
        until the peer leaves, the misbehaviour disconnects, or stop(). `since_power_up`: the
        channel was there when the board powered up (a pseudo-terminal), so its boot banner is
        not lost."""
        now = time.monotonic()
        if self.reset_on_open:
            self._power_up(now)
        with self._lock:
            self.connections += 1
            self._live = True
            if self._banner_due and now >= self.ready_at and not (self.reset_on_open or since_power_up):
                self._banner_due = False  # it went out while no host was listening
        try:
            self._exchange(chan, now)
        finally:
            with self._lock:
                self._live = False

    def _exchange(self, chan: Any, now: float) -> None:
        """Bytes in, replies out, until the peer leaves, the misbehaviour disconnects, or stop()."""
        out = _Outbox(chan, self.misbehaviour, self.sent, self._lock)
        log, got = _LineLog(), 0
        while not self._stopping.is_set():
            now = time.monotonic()
            banner, replies, wait = self._tick(now)
            if banner:
                out.put(pr.format_reply(replace(self.banner, boot=True)), now, counted=False)
            out.put_all(replies, now)
            if not out.flush(now):
                return
            self._refuse_others()
            timeouts = [0.05, *(w for w in (wait, out.next_release(now)) if w is not None)]
            ready, _, _ = select.select([chan], [], [], max(0.0, min(timeouts)))
            if not ready:
                continue
            data = chan.recv(4096)
            if not data:
                return
            now = time.monotonic()
            lines = log.feed(data)
            with self._lock:
                self.received += lines
                replies = [] if now < self.ready_at else self.board.receive(data, now)  # deaf while booting
            out.put_all(replies, now)
            for _ in lines:
                got += 1
                if self.misbehaviour.reset_after == got:
                    self._power_up(now)
                if self.misbehaviour.disconnect_after is not None and got >= self.misbehaviour.disconnect_after:
                    out.flush(time.monotonic())
                    return  # the caller closes the socket: the host sees the port vanish
            if not out.flush(time.monotonic()):
                return

    def _tick(self, now: float) -> tuple[bool, list[str], float | None]:
        """(whether the boot banner is due now, the board's replies, seconds to its next event)."""
        with self._lock:
            if now < self.ready_at:
                return False, [], self.ready_at - now
            banner, self._banner_due = self._banner_due, False
            return banner, self.board.advance(now), self.board.next_event(now)


class _LineLog:
    """The lines received, as text for the log (bytes outside ASCII escaped), in bounded memory."""

    def __init__(self) -> None:
        self.buf = b""

    def feed(self, data: bytes) -> list[str]:
        *lines, self.buf = (self.buf + data).split(b"\n")
        self.buf = self.buf[-4 * pr.MAX_LINE:]
        return [line.decode("ascii", "backslashreplace").replace("\r", "") for line in lines]


class _Outbox:
    """Lines waiting to go out, each with its release time, damaged as the misbehaviour says."""

    def __init__(self, chan: Any, mis: Misbehaviour, log: list[str], lock: threading.Lock) -> None:
        self.chan, self.mis, self.log, self.lock = chan, mis, log, lock
        self.lines: list[tuple[float, str]] = []
        self.count = 0
        self.late = 0.0  # from the delayed line on, nothing leaves before its time (order kept)

    def put(self, line: str, release: float, counted: bool = True) -> None:
        if counted:
            self.count += 1
            if self.mis.drop == self.count:
                return
            if self.mis.garble == self.count:
                line = garbled(line)
            if self.mis.noise is not None and self.mis.noise[0] == self.count:
                k = len(line) // 2
                line = line[:k] + chr(self.mis.noise[1]) + line[k:]
            if self.mis.delay is not None and self.mis.delay[0] == self.count:
                self.late = self.mis.delay[1]
        release += self.late
        if self.lines:
            release = max(release, self.lines[-1][0])
        self.lines.append((release, line))

    def put_all(self, lines: list[str], now: float) -> None:
        for line in lines:
            self.put(line, now)

    def next_release(self, now: float) -> float | None:
        return self.lines[0][0] - now if self.lines else None

    def flush(self, now: float) -> bool:
        """Send every line whose time has come; False when the peer has gone."""
        while self.lines and self.lines[0][0] <= now:
            _, line = self.lines.pop(0)
            with self.lock:  # logged first: a host that has read the line finds it in the log
                self.log.append(line)
            try:
                self.chan.sendall(line.encode("latin-1", "replace") + b"\n")
            except OSError:
                with self.lock:
                    self.log.pop()
                return False
        return True
