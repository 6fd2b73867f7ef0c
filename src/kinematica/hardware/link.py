"""One serial link to a board: lines out, lines in with a deadline, and a latch that stops all
sending after a fault.

Any pyserial URL opens: a device (/dev/ttyACM0, COM4), ``socket://127.0.0.1:PORT`` (the
emulator), ``loop://``. A port is opened with DTR and RTS set low before `open()` (an Uno resets
on a DTR pulse: where the OS honours it, opening the port no longer resets the board) and locked
for this process alone (`exclusive`: a second program cannot open it), and what the board sent
before the host was listening is discarded. Every line written is logged with its time, so a
caller (or a test) can check that nothing left after a fault but the stop (`send_stop`).
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import KinematicaError
from ..extras import need
from . import protocol as pr

_POLL = 0.02  # s: a read waits at most this long, so deadlines hold to ~20 ms without
#               changing the port's timeout (a termios call on a real port) for every read
_MAX_REPLY = 1024  # bytes without a newline: noise, not a reply (the banner, the longest, is ~130)


class LinkError(KinematicaError, OSError):
    """The link failed: no reply in time, the port vanished, garbage, or the board said no."""


class LinkTimeout(LinkError):
    """No complete line arrived before the deadline."""


class BoardReset(LinkError):
    """The board sent its boot banner mid-session: it reset (a power dip, a DTR pulse) and drove
    its servos home under its soft start; its queue is lost. The link itself is sound."""

    def __init__(self, banner: pr.Banner) -> None:
        super().__init__(pr.RESTARTED)
        self.banner = banner


class Link:
    """A line-oriented serial link (pyserial is imported when a link opens)."""

    def __init__(self, url: str, baud: int = pr.BAUD) -> None:
        serial = need("serial", "hardware", "the Braccio link")
        self._serial_errors = (serial.SerialException, OSError)
        try:
            self.port: Any = serial.serial_for_url(url, baudrate=baud, timeout=_POLL, write_timeout=2.0,
                                                   do_not_open=True)
            self.port.dtr = self.port.rts = False  # applied as the port opens: no reset pulse
            if isinstance(self.port, getattr(serial, "Serial", ())) and hasattr(self.port, "exclusive"):
                self.port.exclusive = True  # POSIX: flock, so a second host cannot share the line
            self.port.open()
            self.port.reset_input_buffer()
        except (serial.SerialException, OSError, ValueError) as e:
            raise LinkError(f"cannot open {url}: {e}" + (" (another program has it open: one controller "
                                                          "at a time)" if "exclusively lock" in str(e) else "")) from None
        self.url = url
        self._buf = b""
        self.written: list[tuple[float, str]] = []  # (time.monotonic(), line) of every line sent
        self.fault: str | None = None
        self.last_write = time.monotonic()

    def send(self, line: str) -> None:
        """Write one line; LinkError if the link has failed before (nothing is sent after a fault)
        or fails now."""
        if self.fault is not None:
            raise LinkError(f"not sent ({line!r}): the link failed earlier ({self.fault}); reconnect")
        self._write(line)

    def send_stop(self) -> bool:
        """Send S (stop now) even after a fault — the one line that may follow one, so that the
        board holds at once instead of running out its queue; False if the port is gone."""
        try:
            self._write(pr.format_command(pr.Stop()))
        except LinkError:
            return False
        return True

    def _write(self, line: str) -> None:
        try:
            self.port.write(line.encode("ascii") + b"\n")
            self.port.flush()
        except self._serial_errors as e:
            raise self.fail(f"the port {self.url} failed while writing: {e}") from None
        self.last_write = time.monotonic()
        self.written.append((self.last_write, line))

    def readline(self, deadline: float) -> str:
        """The next line (without its newline) that arrives before `deadline` (time.monotonic());
        LinkTimeout if none does, LinkError if the port fails."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LinkTimeout("no reply in time")
            try:
                chunk = self.port.read(1)
                if chunk:
                    chunk += self.port.read(self.port.in_waiting)
            except self._serial_errors as e:
                raise self.fail(f"the port {self.url} failed while reading: {e}") from None
            self._buf += chunk
            if len(self._buf) > _MAX_REPLY and b"\n" not in self._buf:  # a line no board sends: noise
                self._buf = b"\xff" + self._buf[-_MAX_REPLY // 2:]  # kept short, and unparsable
        raw, self._buf = self._buf.split(b"\n", 1)
        return raw.decode("ascii", errors="replace").strip("\r")

    def waiting_lines(self) -> list[str]:
        """The complete lines already received and not read, without waiting."""
        try:
            start = len(self._buf)
            while len(self._buf) - start < 4 * _MAX_REPLY:  # a socket's in_waiting is 1 when any byte waits
                waiting = self.port.in_waiting
                if not waiting:
                    break
                self._buf += self.port.read(waiting)
        except self._serial_errors as e:
            raise self.fail(f"the port {self.url} failed while reading: {e}") from None
        *lines, self._buf = self._buf.split(b"\n")
        return [raw.decode("ascii", errors="replace").strip("\r") for raw in lines]

    def fail(self, reason: str) -> LinkError:
        """Latch the fault (nothing more is sent) and return the error to raise."""
        if self.fault is None:
            self.fault = reason
        return LinkError(reason)

    def close(self) -> None:
        try:
            self.port.close()
        except self._serial_errors:
            pass
