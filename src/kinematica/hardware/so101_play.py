"""Closing the loop on the SO-101: a trajectory streamed at a fixed rate with one sync write of
goals and one sync read of measured state per cycle, and the tracking error it shows.

Cycle k (at t_k from the start, on the monotonic clock): read the six servos (sync read), then
send goal k (sync write, the servos' top speed). The reading taken at the start of cycle k + 1
is the arm one cycle after goal k was sent, so goal k is scored against it:

    e_k = q_measured(k + 1) − q_k             per joint (rad)
    tool_k = ‖p(q_measured(k + 1)) − p(q_k)‖  at the tool point (FK; the robot's length unit)

which holds what the servos add to the plan — gravity sag, gear backlash, encoder noise, and
any lag beyond one cycle — but not the cycle itself. The report gives each joint's RMS and
largest |e|, and the tool's; `late` counts the cycles that started more than half a period
after their time. A fault (a silent servo, a flagged overload …) ends the stream at once:
nothing more is sent, and the result says which joint and why. `arm.request_stop()` from another
thread ends it at the next cycle, every goal set to the position read (`stopped`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..kinematics import fk
from .feetech_bus import BusError, ServoFault
from .limits import CommandRefused
from .reports import sample
from .sts_servo import TOP_SPEED

__all__ = ["MIN_RATE", "MAX_RATE", "TrackingReport", "score", "plan", "play"]

MIN_RATE, MAX_RATE = 1.0, 200.0  # Hz


@dataclass
class TrackingReport:
    """What a stream did and how closely the arm followed: goals `sent` of `points`, `ok` when
    all were sent and scored, `reason` in words, the times t (s), the goals q (T, 5, rad), the
    measured joints one cycle later (T, 5, NaN where none was read), and the errors (see the
    module's text); `rate` the achieved cycles per second."""

    points: int
    sent: int = 0
    ok: bool = False
    reason: str = ""
    elapsed: float = 0.0
    rate: float = 0.0
    late: int = 0
    stopped: bool = False  # ended by arm.request_stop(): the arm holds where it was read
    t: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    commanded: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)), repr=False)
    measured: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)), repr=False)
    joint_rms: np.ndarray = field(default_factory=lambda: np.zeros(5))
    joint_max: np.ndarray = field(default_factory=lambda: np.zeros(5))
    tool_rms: float = 0.0
    tool_max: float = 0.0
    length_unit: str = "m"


def score(report: TrackingReport, robot: Any) -> None:
    """Fill the error statistics from the goals and the measured rows that were read."""
    seen = ~np.isnan(report.measured).any(axis=1)
    if not seen.any():
        return
    e = report.measured[seen] - report.commanded[seen]
    report.joint_rms = np.sqrt(np.mean(e ** 2, axis=0))
    report.joint_max = np.abs(e).max(axis=0)
    d = np.linalg.norm(fk(robot, report.measured[seen])[:, :3, 3] - fk(robot, report.commanded[seen])[:, :3, 3], axis=1)
    report.tool_rms, report.tool_max = float(np.sqrt(np.mean(d ** 2))), float(d.max())


def plan(arm: Any, trajectory: Any, rate: float, gripper: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, q, ticks) to stream, refused before anything is sent if a point leaves a limit or a
    step needs more than the servos' top speed."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not MIN_RATE <= rate <= MAX_RATE:
        raise CommandRefused(f"rate {rate!r} Hz: expected a number in [{MIN_RATE:g}, {MAX_RATE:g}]")
    t, q = sample(trajectory, rate)
    ticks = arm.check(q, gripper)
    if len(t) > 1:
        v = np.abs(np.diff(ticks, axis=0)) / np.maximum(np.diff(t), 1e-9)[:, None]
        k, j = np.unravel_index(int(np.argmax(v)), v.shape)
        if v[k, j] > TOP_SPEED:
            raise CommandRefused(f"point {k + 1}: joint {j + 1} would turn at {v[k, j]:.0f} ticks/s, over the "
                                 f"STS3215's {TOP_SPEED:.0f}: slow the trajectory down")
    return t - t[0], q, ticks


def play(arm: Any, trajectory: Any, rate: float = 50.0, gripper: float | None = None, speed: float = 1.0,
         on_cycle: Callable[[float, Any], None] | None = None) -> TrackingReport:
    """Stream `trajectory` on `arm` (a connected So101): its first point reached by a move at
    `speed` rad/s, then one goal every 1/rate s (see the module's text). `on_cycle(t, state)`
    is called with each cycle's reading (its `commanded`, the goal sent the cycle before)."""
    g = arm.state().gripper if gripper is None else gripper
    t, q, ticks = plan(arm, trajectory, rate, g)
    report = TrackingReport(len(t), t=t, commanded=q, measured=np.full_like(q, np.nan),
                            length_unit=arm.robot.length_unit)
    first = arm.move(q[0], speed, g)
    if not first.ok:
        report.reason, report.stopped = f"the arm did not reach the first point: {first.reason}", first.stopped
        return report
    start = time.monotonic()
    try:
        for k in range(len(t) + 1):
            due = start + (t[k] if k < len(t) else t[-1] + 1 / rate)
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            elif -wait > 0.5 / rate:
                report.late += 1
            if arm.stop_requested:
                arm.stop()  # every goal set to the position read
                report.stopped = True
                report.reason = f"stopped on request after {report.sent} of {len(t)} goals: the arm holds where it was read"
                break
            st = arm.state()
            if k:
                report.measured[k - 1] = st.q
            if on_cycle is not None:
                on_cycle(float(t[min(k, len(t) - 1)]), st)
            if k < len(t):
                arm.send_goals(ticks[k])
                report.sent = k + 1
        else:
            report.ok, report.reason = True, f"{len(t)} points streamed at {rate:g} Hz"
    except ServoFault as e:
        report.reason = str(e)
    except KeyboardInterrupt:
        report.reason = "interrupted (Ctrl+C): the arm holds where it is"
        try:
            arm.stop()  # every goal set to the position read
        except BusError:
            report.reason = "interrupted (Ctrl+C) after the bus had stopped: the servos hold their last goals"
        raise
    finally:
        report.elapsed = time.monotonic() - start
        report.rate = report.sent / report.elapsed if report.elapsed > 0 else 0.0
        score(report, arm.robot)
    return report
