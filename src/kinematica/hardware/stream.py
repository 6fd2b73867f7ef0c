"""Streaming points to the board with flow control: at most `depth` points unacknowledged.

The board acknowledges a point (`A seq`) when the arm reaches it, so the host keeps the board's
queue full without overflowing it: it sends points 0 … depth−1, then one more for each
acknowledgement. Acknowledgement k is due ms_k after the later of acknowledgement k−1 and the
sending of point k, plus `timeout`. The stream ends, and nothing more is sent, at the first
fault: no acknowledgement in time, the port gone, a line that is not a valid acknowledgement
(garbage, a bad checksum), an acknowledgement out of order, or an error from the board (which
then holds the arm where it is; after a host-side fault the board's watchdog does the same once
the host has been silent for its `watchdog` ms). While waiting, the host sends a keep-alive `K`
whenever it has been silent for a quarter of the watchdog time, so long segments do not trip it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import protocol as pr
from .link import Link, LinkError, LinkTimeout


@dataclass
class StreamResult:
    """What a stream did: points sent and acknowledged, the last acknowledged index (−1: none),
    `ok` only when every point was acknowledged in order, and `reason` in words."""

    points: int
    sent: int = 0
    acknowledged: int = 0
    last_acknowledged: int = -1
    ok: bool = False
    reason: str = ""
    elapsed: float = 0.0
    ack_times: list[float] = field(default_factory=list, repr=False)  # s since the start, per point


def stream(link: Link, degrees: np.ndarray, ms: np.ndarray, banner: pr.Banner, timeout: float,
           cancel: threading.Event | None = None, on_ack: Callable[[int], None] | None = None) -> StreamResult:
    """Send the points `degrees` (T, 6 whole degrees), point k reached ms[k] milliseconds after
    point k−1, with flow control; the result says how far it got and why it stopped. Setting
    `cancel` (from any thread) stops the arm: S is sent and the stream ends within ~50 ms.
    `on_ack(k)` is called as point k is acknowledged."""
    n = len(degrees)
    res = StreamResult(points=n)
    start = time.monotonic()
    sent_at = np.zeros(n)
    last_ack_time = start
    keepalive = banner.watchdog_ms / 4000
    poll = keepalive if cancel is None else min(keepalive, 0.05)
    try:
        while res.acknowledged < n:
            if cancel is not None and cancel.is_set():
                stop_now(link, res, timeout, on_ack)
                where = (f"after point {res.last_acknowledged}" if res.last_acknowledged >= 0
                         else "before point 0 was reached")
                res.reason = f"stopped on request {where}: S sent, the arm holds where it was"
                break
            while res.sent < n and res.sent - res.acknowledged < banner.depth:
                k = res.sent
                link.send(pr.format_stream(pr.Stream(k, int(ms[k]), tuple(int(d) for d in degrees[k]))))
                sent_at[k] = time.monotonic()
                res.sent += 1
            k = res.acknowledged
            due = max(last_ack_time, sent_at[k]) + ms[k] / 1000 + timeout
            line = _next_line(link, due, keepalive, poll)
            if line is None:
                continue
            reply = _as_ack(link, line, k)
            last_ack_time = time.monotonic()
            res.ack_times.append(last_ack_time - start)
            res.acknowledged, res.last_acknowledged = k + 1, reply.seq
            if on_ack is not None:
                on_ack(k)
        else:
            res.ok, res.reason = True, f"all {n} points acknowledged in order"
    except LinkTimeout:
        link.fail("timeout")
        res.reason = (f"no acknowledgement of point {res.acknowledged} within {timeout:g} s of its due time: "
                      "stream stopped, nothing more sent")
    except LinkError as e:
        res.reason = f"{e}: stream stopped, nothing more sent"
    res.elapsed = time.monotonic() - start
    return res


def stop_now(link: Link, res: StreamResult, timeout: float, on_ack: Callable[[int], None] | None = None) -> None:
    """Send S and wait up to `timeout` s for its OK; acknowledgements still on their way (of
    points reached before the board read the S) are counted in `res` (and given to on_ack)."""
    link.send(pr.format_command(pr.Stop()))
    deadline = time.monotonic() + timeout
    while True:
        line = link.readline(deadline)
        if line == "OK":
            return
        reply = _as_ack(link, line, res.acknowledged)
        res.acknowledged, res.last_acknowledged = res.acknowledged + 1, reply.seq
        if on_ack is not None:
            on_ack(reply.seq)


def _next_line(link: Link, due: float, keepalive: float, poll: float) -> str | None:
    """A line before `due`; None after `poll` s (with a keep-alive sent when the host had been
    silent for `keepalive` s); LinkTimeout at `due`."""
    try:
        return link.readline(min(due, link.last_write + keepalive, time.monotonic() + poll))
    except LinkTimeout:
        if time.monotonic() >= due:
            raise
        if time.monotonic() - link.last_write >= keepalive:
            link.send(pr.format_command(pr.KeepAlive()))
        return None


def _as_ack(link: Link, line: str, k: int) -> pr.Ack:
    """The acknowledgement of point k in `line`; LinkError (latched) for anything else."""
    try:
        reply = pr.parse_reply(line)
    except pr.ProtocolError as e:
        raise link.fail(f"garbage instead of the acknowledgement of point {k} ({e})") from None
    if isinstance(reply, pr.Error):
        raise link.fail(f"the board refused point {k} or later and stopped: E{reply.code} "
                        f"{reply.text or pr.ERRORS.get(reply.code, '')}".rstrip())
    if isinstance(reply, pr.Banner):
        raise link.fail(pr.RESTARTED)
    if not isinstance(reply, pr.Ack):
        raise link.fail(f"unexpected line {line!r} instead of the acknowledgement of point {k}")
    if reply.seq != k:
        raise link.fail(f"acknowledgement out of order: expected A {k}, got A {reply.seq}")
    return reply
