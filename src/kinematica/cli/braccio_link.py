"""`kinematica braccio connect`: one long-lived link to the arm, serving later commands.

Each `home|move|play|stop|state` used to open the port itself, and opening an Uno's port can
reset it (the arm drives home). `connect` opens the port once and serves those commands over a
Unix socket (only this user may connect: mode 0600), one controller at a time: while a command
runs, another is refused in words — except `stop`, which ends the running one. The arm commands
find the link by their `--port` (the socket's path is derived from it, `socket_path`) or by
`--socket PATH`, and go through it instead of opening the port.

Wire format, JSON lines: the client sends one request {"action", "pid", "robot", "calibration",
…}; during a play the server sends {"event": "point", "k", "q", "t"} as the board acknowledges
each point, then one answer {"ok": true, "data"} or {"ok": false, "kind", "error"}. A client
that sends "stop" (or hangs up) mid-command stops it. {"action": "hello"} is answered at once
with the server's pid and port, so a stale socket file is told from a live link.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hardware import Braccio, CommandRefused, LinkError
from .common import jsonable

Handler = Callable[[Braccio, dict[str, Any], Callable[..., None]], dict[str, Any]]
MAX_REQUEST = 1 << 16  # bytes: a request is a few hundred
MAX_SOCKET_PATH = 103  # bytes of an AF_UNIX path: sun_path is 108 on Linux, 104 on macOS, with its NUL


def socket_path(port: str) -> Path:
    """Where the link of `port` listens: the user's runtime folder (or the temporary folder),
    a name made from the user id and a hash of the port's URL. A socket's path holds at most
    107 bytes (Linux; 103 on macOS): a runtime folder too deep for that gives way to /tmp."""
    uid = getattr(os, "getuid", lambda: 0)()
    name = f"kinematica-braccio-{uid}-{hashlib.sha1(port.encode()).hexdigest()[:12]}.sock"
    for base in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir(), "/tmp"):
        if base and len(os.fsencode(Path(base) / name)) <= MAX_SOCKET_PATH:
            return Path(base) / name
    raise ValueError(f"no folder short enough for the link's socket {name} (at most {MAX_SOCKET_PATH} bytes)")


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(jsonable(message)).encode() + b"\n")
    except OSError:  # the client has gone (Ctrl+C): the command still ends cleanly
        pass


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data and len(data) < MAX_REQUEST:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0]


def hello(path: Path) -> dict[str, Any] | None:
    """The live link's {"pid", "port"} at `path`, or None (no file, or a stale one)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2.0)
            conn.connect(str(path))
            conn.sendall(b'{"action": "hello"}\n')
            return json.loads(_read_line(conn))["data"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass
class _Running:
    thread: threading.Thread
    conn: socket.socket
    action: str
    pid: int
    watching: bool = True  # the client's socket is still open (read for "stop")


class LinkServer:
    """Serves `handlers` on the connected `arm` over a Unix socket at `path`."""

    def __init__(self, arm: Braccio, path: Path, handlers: Mapping[str, Handler], port: str) -> None:
        if not hasattr(socket, "AF_UNIX"):
            raise LinkError("`kinematica braccio connect` needs Unix sockets (Linux, macOS, Windows 10+ Python "
                            "builds that have them)")
        self.arm, self.path, self.handlers, self.port = arm, path, handlers, port
        if path.exists():
            path.unlink()  # a stale file: the caller checked that no link answers there
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        os.chmod(path, 0o600)
        self.sock.listen(8)
        self.running: _Running | None = None
        self.served = self.refused = 0
        self._lock = threading.Lock()

    def serve(self, stopping: threading.Event) -> None:
        """Accept and serve until `stopping` is set (Ctrl+C raises out of here as usual)."""
        while not stopping.is_set():
            run = self.running
            watch = [run.conn] if run is not None and run.watching and run.thread.is_alive() else []
            try:
                ready, _, _ = select.select([self.sock, *watch], [], [], 0.2)
            except (OSError, ValueError):  # the command ended and closed its client's socket meanwhile
                continue
            if run is not None and run.conn in ready:
                self._watch(run)
            if self.sock in ready:
                conn, _ = self.sock.accept()
                self._admit(conn)

    def _watch(self, run: _Running) -> None:
        """A word from the running command's client: "stop", or its hanging up (Ctrl+C)."""
        try:
            data = run.conn.recv(256)
        except OSError:
            data = b""
        if not data or b"stop" in data:
            self.arm.request_stop()
        if not data:
            run.watching = False

    def _admit(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5.0)
            request = json.loads(_read_line(conn))
            action, pid = str(request["action"]), int(request.get("pid", 0))
        except (OSError, ValueError, KeyError, TypeError) as e:
            _send(conn, {"ok": False, "kind": "usage", "error": f"not a link request: {e}"})
            conn.close()
            return
        conn.settimeout(None)
        if action == "hello":
            _send(conn, {"ok": True, "data": {"pid": os.getpid(), "port": self.port}})
            conn.close()
            return
        run = self.running
        if run is not None and run.thread.is_alive() and action != "stop":
            self.refused += 1
            _send(conn, {"ok": False, "kind": "busy", "error": (
                f"another controller (pid {run.pid}, `{run.action}`) is driving the arm on {self.port}: one "
                "controller at a time; wait for it, or stop it with `kinematica braccio stop`")})
            conn.close()
            return
        before = run if run is not None and run.thread.is_alive() else None
        if before is not None:
            self.arm.request_stop()
        thread = threading.Thread(target=self._work, args=(conn, request, before), daemon=True)
        self.running = _Running(thread, conn, action, pid)
        thread.start()

    def _work(self, conn: socket.socket, request: dict[str, Any], before: _Running | None) -> None:
        """Run one request on the arm (after the one it stops, if any) and answer it."""
        if before is not None:
            before.thread.join()
        action = request["action"]
        notices = len(self.arm.notices)
        try:
            handler = self.handlers.get(action)
            if handler is None:
                raise CommandRefused(f"unknown action {action!r}")
            self._ensure_link()
            self._same_setup(request)
            data = handler(self.arm, request, lambda k, q, t: _send(conn, {"event": "point", "k": k, "q": q, "t": t}))
            if before is not None:
                data["stopped"] = {"action": before.action, "pid": before.pid}
            data["notices"] = self.arm.notices[notices:]
            _send(conn, {"ok": True, "data": data})
            self.served += 1
        except (CommandRefused, ValueError) as e:
            _send(conn, {"ok": False, "kind": "refused", "error": str(e)})
        except LinkError as e:
            _send(conn, {"ok": False, "kind": "link", "error": str(e), "notices": self.arm.notices[notices:]})
        except (OSError, KeyError, TypeError) as e:  # a trajectory file gone, a request without its fields
            _send(conn, {"ok": False, "kind": "usage", "error": f"cannot do `{action}`: {e!r}"})
        finally:
            conn.close()

    def _ensure_link(self) -> None:
        """After a fault, a board that reset may have sent its banner (the link is sound again);
        else the port is opened afresh (without a reset pulse) and the reason noted."""
        link = self.arm.link
        if link is not None and link.fault is not None and not self.arm.recover(0.05):
            fault = link.fault
            self.arm.connect()
            self.arm.notices.append(f"the link had failed ({fault}): the port was opened again")
        elif link is None:
            self.arm.connect()

    def _same_setup(self, request: dict[str, Any]) -> None:
        robot, calibration = request.get("robot"), request.get("calibration")
        if robot is not None and robot != self.arm.robot.name:
            raise CommandRefused(f"the link on {self.port} drives robot {self.arm.robot.name!r}, not {robot!r}: give "
                                 "the same --robot, or restart `kinematica braccio connect` with it")
        mine = {"offset": list(self.arm.calibration.offset), "direction": list(self.arm.calibration.direction)}
        if calibration is not None and calibration != mine:
            raise CommandRefused(f"the link on {self.port} has another calibration ({mine}): give the same "
                                 "--calibration, or restart `kinematica braccio connect` with it")

    def close(self) -> None:
        self.sock.close()
        try:
            self.path.unlink()
        except OSError:
            pass


def request(path: Path, message: dict[str, Any], on_point: Callable[..., None] | None) -> dict[str, Any]:
    """Send one request to the link at `path` and return its answer (after calling `on_point(k,
    q, t)` for each point event). Ctrl+C sends "stop" and still waits for the answer, which then
    travels on the KeyboardInterrupt as its `answer` attribute."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        try:
            conn.connect(str(path))
        except OSError as e:
            raise LinkError(f"cannot reach the link at {path}: {e}") from None
        conn.sendall(json.dumps({**message, "pid": os.getpid()}).encode() + b"\n")
        reader = conn.makefile("rb")
        interrupted: KeyboardInterrupt | None = None
        while True:
            try:
                raw = reader.readline()
            except KeyboardInterrupt as e:
                interrupted = e
                conn.sendall(b"stop\n")
                continue
            if not raw:
                raise LinkError(f"the link at {path} closed without an answer (was `kinematica braccio connect` "
                                "stopped?)")
            answer = json.loads(raw)
            if answer.get("event") == "point":
                if on_point is not None:
                    on_point(answer["k"], answer["q"], answer["t"])
                continue
            if interrupted is not None:
                interrupted.answer = answer  # type: ignore[attr-defined]
                raise interrupted
            return answer
