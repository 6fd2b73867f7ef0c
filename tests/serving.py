"""`kinematica serve` in a subprocess on a free 127.0.0.1 port, for the tests that need the real
server (tests/test_cli_serve.py, the browser tests)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy


def fetch(url: str, timeout: float = 2.0):
    """GET url directly (no proxy from the environment); a context manager, as urlopen's."""
    return _DIRECT.open(url, timeout=timeout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`kinematica serve --no-browser` in a subprocess; `url` once it answers. `script`: a Python
    file run instead of `kinematica`'s command line, with the same arguments (a server with a
    test's probe added, tests/browser/probed_serve.py)."""

    def __init__(self, robot: str | None = None, *extra: str, timeout: float = 30.0, wait: bool = True,
                 state_dir: str | None = None, python: str = sys.executable, script: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # NiceGUI reacts to it
        self._state = None if state_dir else tempfile.TemporaryDirectory()  # the browsers' saved work
        env["KINEMATICA_STATE_DIR"] = state_dir or self._state.name
        self.log = tempfile.TemporaryFile()
        args = ["serve", "--no-browser", "--port", str(self.port), *extra] + (["--robot", robot] if robot else [])
        command = [script] if script else ["-c", "import sys; from kinematica.cli import main; sys.exit(main())"]
        self.process = subprocess.Popen(
            [python, *command, *args],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.timeout = timeout
        if wait:
            self.wait()

    def wait(self) -> "Server":
        """Until the page answers (the server has started); raises with its output if it stops."""
        deadline = time.monotonic() + self.timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"kinematica serve exited with {self.process.returncode}:\n{self.output()}")
            with contextlib.suppress(OSError):
                with fetch(self.url) as r:
                    if r.status == 200:
                        return self
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"kinematica serve did not answer within {self.timeout} s:\n{self.output()}")
            time.sleep(0.1)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._state is not None:
            self._state.cleanup()
            self._state = None

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *_) -> None:
        self.stop()
