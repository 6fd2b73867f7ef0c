"""Streaming points to the board with flow control: at most `depth` points unacknowledged.

The board acknowledges a point (`A seq`) when the arm reaches it, so the host keeps the board's
queue full without overflowing it: it sends points 0 … depth−1, then one more for each
acknowledgement. Acknowledgement k is due ms_k after the later of acknowledgement k−1 and the
sending of point k, plus `timeout`. The stream ends at the first fault: no acknowledgement in
time, the port gone, a line that is not a valid acknowledgement (garbage, a byte of line noise,
a bad checksum), an acknowledgement out of order, or an error from the board (which then holds
the arm where it is). After a host-side fault the link is latched and the one line still sent
is S, so the board holds at once instead of running out its queue; the acknowledgements that
come before its OK say how far the arm really went (`last_executed`). While waiting, the host
sends a keep-alive `K` whenever it has been silent for a quarter of the watchdog time.

A queue that runs dry (acknowledgements late, so the next points come after the board finished
the last) makes the arm stand still mid-motion. The board starts point k when it has both ended
point k−1 and received point k: from the times the host sent each point (the host → board delay
taken as nil) its timeline, and `stall`, the time it stood waiting, follow; `warning` says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import protocol as pr
from .link import BoardReset, Link, LinkError, LinkTimeout

STALL_STEP = 0.005  # s: a wait shorter than this is the host's own scheduling, not a stall
STALL_WARN = 0.1  # s of standing still in all before a warning


@dataclass
class StreamResult:
    """What a stream did: points sent and acknowledged in order, the last acknowledged index
    (−1: none), the last point the board reported reaching (`last_executed`: also counting the
    acknowledgements that came after a fault, before the board's OK to S), `ok` only when every
    point was acknowledged in order, `reason` in words; `stall` s the arm stood still mid-stream
    (`stalls` times), with a `warning` in words when that adds up to more than STALL_WARN s."""

    points: int
    sent: int = 0
    acknowledged: int = 0
    last_acknowledged: int = -1
    ok: bool = False
    reason: str = ""
    elapsed: float = 0.0
    last_executed: int = -1
    stall: float = 0.0
    stalls: int = 0
    warning: str = ""
    board_reset: pr.Banner | None = None  # the boot banner, when the board reset mid-stream
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
                answered = stop_now(link, res, timeout, on_ack)
                where = (f"after point {res.last_acknowledged}" if res.last_acknowledged >= 0
                         else "before point 0 was reached")
                res.reason = (f"stopped on request {where}: S sent, the arm holds where it was" if answered else
                              f"stopped on request {where}: S sent, but no OK came within {timeout:g} s")
                break
            while res.sent < n and res.sent - res.acknowledged < banner.depth:
                k = res.sent
                link.send(pr.format_stream(pr.Stream(k, int(ms[k]), pr.degrees_of(degrees[k]))))
                sent_at[k] = time.monotonic()
                res.sent += 1
            k = res.acknowledged
            due = max(last_ack_time, sent_at[k]) + ms[k] / 1000 + timeout
            line = _next_line(link, due, keepalive, poll)
            if line is None:
                continue
            reply = _as_ack(link, line, k, res)
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
                      "stream stopped, nothing more sent but S") + _stop_after_fault(link, res, timeout, banner)
    except LinkError as e:
        res.board_reset = e.banner if isinstance(e, BoardReset) else None
        res.reason = f"{e}: stream stopped, nothing more sent but S" + _stop_after_fault(link, res, timeout, banner)
    res.elapsed = time.monotonic() - start
    res.last_executed = max(res.last_executed, res.last_acknowledged)
    _stalls(res, sent_at[:res.sent], ms[:res.sent])
    return res


def _stalls(res: StreamResult, sent_at: np.ndarray, ms: np.ndarray) -> None:
    """The board's waits between points: it starts point k at max(its arrival, the end of
    point k−1) and ends it ms_k later; a wait longer than STALL_STEP is a stall."""
    end, waits = (sent_at[0] + ms[0] / 1000) if len(sent_at) else 0.0, []
    for k in range(1, len(sent_at)):
        waits.append(max(0.0, sent_at[k] - end))
        end = max(sent_at[k], end) + ms[k] / 1000
    stalls = [w for w in waits if w > STALL_STEP]
    res.stall, res.stalls = float(sum(stalls)), len(stalls)
    if res.stall > STALL_WARN:
        res.warning = (f"the board's queue ran dry {res.stalls} time(s): the arm stood still for {res.stall:.2f} s in "
                       f"all mid-motion (acknowledgements came late: a slow or busy link), and the motion took "
                       f"{res.elapsed:.2f} s for {float(np.sum(ms)) / 1000:.2f} s of trajectory")


def stop_now(link: Link, res: StreamResult, timeout: float, on_ack: Callable[[int], None] | None = None) -> bool:
    """Send S and wait up to `timeout` s for its OK; acknowledgements still on their way (of
    points reached before the board read the S) are counted in `res` (and given to on_ack).
    False when no OK came."""
    link.send(pr.format_command(pr.Stop()))
    return _drain(link, res, time.monotonic() + timeout, on_ack)


def _drain(link: Link, res: StreamResult, deadline: float, on_ack: Callable[[int], None] | None) -> bool:
    """Read until the board's OK to S (True) or `deadline` (False), counting acknowledgements:
    in order ones as acknowledged, any as executed; lines that do not parse are skipped."""
    while True:
        try:
            line = link.readline(deadline)
        except LinkError:
            return False
        try:
            reply = pr.parse_reply(line)
        except pr.ProtocolError:
            continue
        if isinstance(reply, pr.Ok):
            return True
        if isinstance(reply, pr.Ack):
            res.last_executed = max(res.last_executed, reply.seq)
            if reply.seq == res.acknowledged:
                res.acknowledged, res.last_acknowledged = reply.seq + 1, reply.seq
                if on_ack is not None:
                    on_ack(reply.seq)


def _stop_after_fault(link: Link, res: StreamResult, timeout: float, banner: pr.Banner) -> str:
    """S after a host-side fault, and what the board then said: the words for the reason."""
    if not link.send_stop():
        return (f"; the port is gone, S could not be sent: the board holds {banner.watchdog_ms} ms after the host "
                f"went silent, so up to {banner.depth} points after point {res.last_acknowledged} may have run")
    if _drain(link, res, time.monotonic() + timeout, None):
        return f"; the board answered S: it stopped after point {max(res.last_executed, res.last_acknowledged)}"
    return (f"; S sent but not answered within {timeout:g} s: up to {banner.depth} points after point "
            f"{res.last_acknowledged} may have run before the board stopped")


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


def _as_ack(link: Link, line: str, k: int, res: StreamResult) -> pr.Ack:
    """The acknowledgement of point k in `line`; LinkError (latched) for anything else. An
    acknowledgement out of order still says the board reached that point (a dropped A k then
    A k+1): it counts in `res.last_executed`, else the host would report less than the arm did."""
    try:
        reply = pr.parse_reply(line)
    except pr.ProtocolError as e:
        raise link.fail(f"garbage instead of the acknowledgement of point {k} ({e})") from None
    if isinstance(reply, pr.Error):
        raise link.fail(f"the board refused point {k} or later and stopped: E{reply.code} "
                        f"{reply.text or pr.ERRORS.get(reply.code, '')}".rstrip())
    if isinstance(reply, pr.Banner) and reply.boot:
        link.fail(pr.RESTARTED)
        raise BoardReset(reply)
    if not isinstance(reply, pr.Ack):
        raise link.fail(f"unexpected line {line!r} instead of the acknowledgement of point {k}")
    if reply.seq != k:
        if k < reply.seq < res.sent:
            res.last_executed = max(res.last_executed, reply.seq)
        raise link.fail(f"acknowledgement out of order: expected A {k}, got A {reply.seq}")
    return reply
