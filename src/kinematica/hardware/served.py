"""An emulated device served to one host at a time, on TCP (127.0.0.1, a pyserial `socket://`
URL) or on a pseudo-terminal, from a background thread: what the Braccio's and the SO-101's
emulators share. A subclass answers a connection in `_serve(chan)`; `chan` reads and writes like
a socket (`recv`, `sendall`, `fileno`) either way.
"""

from __future__ import annotations

import os
import select
import socket
import threading
from typing import Any

from ..errors import InputError


class _Pty:
    """The master side of a pseudo-terminal, read and written like a socket."""

    def __init__(self) -> None:
        import tty  # POSIX only: TCP serves everywhere

        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no line editing: bytes pass as they are
        self.path = os.ttyname(self.slave)

    def fileno(self) -> int:
        return self.master

    def recv(self, n: int) -> bytes:
        try:
            return os.read(self.master, n)
        except OSError:  # EIO: no process has the slave open (a closed port is not a closed pty)
            return b""

    def sendall(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class Served:
    """`start_tcp()` or `start_pty()`, then `stop()` (or a context manager, which starts TCP on a
    free port). Subclasses set NAME (the thread's) and NODELAY, and write `_serve(chan)`."""

    NAME = "emulator"
    NODELAY = False  # True: TCP sends each reply at once (Nagle off), as a bus answers

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener: socket.socket | None = None
        self._pty: _Pty | None = None
        self.url = ""
        self.refused = 0  # TCP connections closed at once: another host was being served

    def start_tcp(self, port: int = 0) -> str:
        """Listen on 127.0.0.1:port (0: a free port); returns the pyserial URL."""
        self._listener = socket.create_server(("127.0.0.1", port))
        self.url = f"socket://127.0.0.1:{self._listener.getsockname()[1]}"
        self._run(self._accept_loop)
        return self.url

    def start_pty(self) -> str:
        """Serve on a new pseudo-terminal; returns its path (e.g. /dev/pts/3) to open as a port."""
        self._pty = _Pty()
        self.url = self._pty.path
        self._run(self._serve_pty)
        return self.url

    def _serve_pty(self) -> None:
        """The pseudo-terminal's one long connection (a subclass may serve it differently)."""
        self._serve(self._pty)

    def _serve(self, chan: Any) -> None:
        raise NotImplementedError

    def _run(self, target: Any) -> None:
        self._thread = threading.Thread(target=target, name=self.NAME, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._pty is not None:
            self._pty.close()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until `stop()` (True) or `timeout` s (False; None: no limit); Ctrl+C interrupts it."""
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 <= timeout <= 86400):
            raise InputError(f"timeout: expected None (until stop()) or seconds in [0, 86400], got {timeout!r}")
        return self._stopping.wait(timeout)

    def serve(self, seconds: float | None = None) -> None:
        """Serve for `seconds` (None: until Ctrl+C or `stop()`), then stop: a command line's
        `emulate`. Ctrl+C ends it quietly."""
        try:
            self.wait(seconds)
            while seconds is None and not self.wait(3600):  # (an unbounded wait would not see Ctrl+C)
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def __enter__(self) -> Any:
        if not self.url:
            self.start_tcp()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                ready, _, _ = select.select([self._listener], [], [], 0.1)
                if not ready:
                    continue
                conn, _ = self._listener.accept()
                if self.NODELAY:
                    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # the listener was closed by stop()
                return
            with conn:
                self._serve(conn)

    def _refuse_others(self) -> None:
        """Close at once a TCP connection that comes while a host is served (one controller)."""
        if self._listener is None:
            return
        try:
            if select.select([self._listener], [], [], 0)[0]:
                self._listener.accept()[0].close()
                self.refused += 1
        except (OSError, ValueError):  # ValueError: stop() closed the listener meanwhile (its fd is -1)
            pass
