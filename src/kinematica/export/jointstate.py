"""A live joint-state stream: one JSON line per sample, sent as a UDP datagram, so that an
external engine (Unity, Godot, Blender, a ROS bridge) can mirror the arm.

Why UDP: it needs no connection and no dependency, and sending never waits for the receiver —
the simulator and the Braccio bridge stay on time whether an engine listens, lags or is gone.
On 127.0.0.1 (the default) datagrams are not reordered; the `seq` field lets a client see a loss.

Each datagram is one UTF-8 JSON object followed by a newline (so a capture of the stream is a
JSON-lines file). Schema, version 1:

    {"type": "joint_state", "version": 1,
     "seq": 0,                       # 0, 1, 2, … per sender; a gap means a lost datagram
     "stamp": 1764070000.123,        # sender's wall clock when sent, UNIX seconds
     "t": 0.25,                      # time within the trajectory being played, s; null otherwise
     "source": "simulator",          # who sends: "simulator", "braccio", or a caller's label
     "robot": "braccio",
     "joint_names": ["base", …],
     "q": [0.0, …],                  # joint values: rad (revolute), length_unit (prismatic)
     "units": ["rad", …, "m"],       # per joint, the unit of its q
     "length_unit": "mm"}

and, from a physical arm, "measured" (true: read from its encoders, the SO-101; false: what it
was told, the Braccio) with, where known, per joint "commanded" (the goal last sent; q itself
when not measured), "load" (% of max torque), "temperature" (°C) and "voltage" (V).

>>> import socket, json, kinematica as km
>>> rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); rx.bind(("127.0.0.1", 0))
>>> with JointStateSender(f"udp://127.0.0.1:{rx.getsockname()[1]}", km.load("planar-3r")) as tx:
...     tx.send([0.1, 0.2, 0.3], t=0.0)
0
>>> m = json.loads(rx.recv(65536)); rx.close()
>>> m["seq"], m["q"], m["units"]
(0, [0.1, 0.2, 0.3], ['rad', 'rad', 'rad'])
"""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..keywords import strict
from ..model.coerce import as_robot
from ..model.robot import Robot

VERSION = 1
DEFAULT_URL = "udp://127.0.0.1:9870"
MAX_DATAGRAM = 65507  # the largest UDP payload over IPv4


class StreamError(InputError):
    """A stream address or a sample that cannot be sent."""


def parse_url(url: str) -> tuple[str, int]:
    """(host, port) of `udp://HOST:PORT`; anything else is refused in words.

    >>> parse_url("udp://127.0.0.1:9870")
    ('127.0.0.1', 9870)
    """
    if not isinstance(url, str):
        raise StreamError(f"stream address must be a string such as {DEFAULT_URL}, got {type(url).__name__}")
    scheme, sep, rest = url.partition("://")
    if scheme != "udp" or not sep:
        raise StreamError(f"stream address {url!r}: only udp://HOST:PORT is supported (e.g. {DEFAULT_URL})")
    host, _, port_text = rest.rstrip("/").rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise StreamError(f"stream address {url!r}: expected udp://HOST:PORT with a port 1–65535")
    return host, int(port_text)


def resolve(url: str) -> tuple[int, tuple]:
    """(address family, socket address) that `url` names; StreamError for a host that does not resolve."""
    host, port = parse_url(url)
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
    except socket.gaierror as e:
        raise StreamError(f"stream address {url!r}: host {host!r} not found ({e.strerror or e})") from None
    return family, address


MEASURES = ("commanded", "load", "temperature", "voltage")  # optional per-joint lists of a measured arm


def message(robot: Robot, q: ArrayLike, seq: int, *, t: float | None = None, source: str = "kinematica",
            stamp: float | None = None, measured: bool | None = None,
            extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema-1 joint-state record of `q` (shape (n,), core units) as a dict; `measured`
    (whether q was read from the arm) and `extra`, per-joint lists named in MEASURES (n finite
    numbers each; commanded may be None), join it when given."""
    qa = np.asarray(q, dtype=float)
    if qa.shape != (robot.n,) or not np.all(np.isfinite(qa)):
        raise StreamError(f"joint state of {robot.name}: expected {robot.n} finite joint values, got "
                          f"shape {qa.shape}" + ("" if qa.shape != (robot.n,) else " with a NaN or inf"))
    if t is not None and not math.isfinite(t):
        raise StreamError(f"joint state time must be finite, got {t}")
    units = ["rad" if r else robot.length_unit for r in robot.revolute]
    record = {"type": "joint_state", "version": VERSION, "seq": int(seq),
              "stamp": time.time() if stamp is None else float(stamp), "t": None if t is None else float(t),
              "source": source, "robot": robot.name, "joint_names": list(robot.joint_names),
              "q": [float(v) for v in qa], "units": units, "length_unit": robot.length_unit}
    if measured is not None:
        record["measured"] = bool(measured)
    for key, values in (extra or {}).items():
        if key not in MEASURES:
            raise StreamError(f"joint state: unknown field {key!r} (known: {', '.join(MEASURES)})")
        if values is None and key == "commanded":
            record[key] = None
            continue
        v = np.asarray(values, dtype=float)
        if v.shape != (robot.n,) or not np.all(np.isfinite(v)):
            raise StreamError(f"joint state {key}: expected {robot.n} finite numbers, got shape {v.shape}")
        record[key] = [float(x) for x in v]
    return record


def encode(record: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8, newline-terminated."""
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    if len(data) > MAX_DATAGRAM:
        raise StreamError(f"joint state of {len(data)} bytes exceeds one UDP datagram ({MAX_DATAGRAM})")
    return data


class JointStateSender:
    """Sends joint states of one robot to `udp://HOST:PORT`; `send` is safe from any thread.

    A receiver that is not there costs nothing: the datagram is dropped (an ICMP "port
    unreachable" some systems report on the next send is ignored)."""

    @strict
    def __init__(self, url: str, robot: Robot | str | None = None, source: str = "kinematica") -> None:
        self.url, self.source = url, source
        self.robot = None if robot is None else as_robot(robot)
        family, self._to = resolve(url)
        self._sock = socket.socket(family, socket.SOCK_DGRAM)
        self._lock = threading.Lock()
        self.seq = 0  # the next sequence number

    @strict
    def send(self, q: ArrayLike, t: float | None = None, robot: Robot | None = None, *,
             measured: bool | None = None, extra: dict[str, Any] | None = None) -> int:
        """Send one sample (see the module's schema) of this sender's robot, or of `robot` (the
        simulator's user may switch robots), with `measured` and `extra` as `message` takes
        them; returns its sequence number."""
        robot = robot or self.robot
        if robot is None:
            raise StreamError("joint state: no robot given, to the sender or to send()")
        with self._lock:
            seq = self.seq
            data = encode(message(robot, q, seq, t=t, source=self.source, measured=measured, extra=extra))
            try:
                self._sock.sendto(data, self._to)
            except ConnectionRefusedError:  # nobody listened to an earlier datagram: fine
                pass
            self.seq += 1
            return seq

    @strict
    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> JointStateSender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["DEFAULT_URL", "VERSION", "JointStateSender", "StreamError", "encode", "message", "parse_url", "resolve"]
