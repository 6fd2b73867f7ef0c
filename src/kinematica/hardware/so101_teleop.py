"""Teleoperation: a leader SO-101, moved by hand with its torque off, drives a follower SO-101.

Both arms' angles are servo angles through their own calibrations — the five joints' q (rad) and
the gripper servo's angle (rad; its degrees are the jaw's opening) — so two arms calibrated
differently (senses, ranges) still mirror each other joint for joint. Cycle k, every 1/rate s:

    L_k    = the leader's six angles          (one sync read of the leader's bus)
    F_k    = the follower's six angles        (one sync read of the follower's bus: its faults)
    T_k    = clip(L_k, lo, hi)                 the follower's bounds: its model's joint limits
                                               ∩ its calibrated ranges (the gripper: its range)
    goal_k = goal_{k−1} + clip(T_k − goal_{k−1}, −max_step, +max_step)

and goal_k goes to the follower in one sync write — unless, with a scene, the follower would
collide there: then nothing is sent that cycle and the follower holds goal_{k−1}. Since goal_{k−1}
lies within the bounds (a convex box), so does goal_k: a leader moved past the follower's limits
holds the follower at them, one jerked faster than max_step per cycle is followed at max_step a
cycle and caught up with when it slows. The report counts, per joint, the cycles held at a
bound and the cycles cut by the step limit, and the lag F_{k+1} − goal_k (the follower one cycle
after each goal, as `so101_play` scores a trajectory).

Before the loop, the leader's torque goes off and the follower moves to the leader's pose (its
bounded image) at `speed` rad/s. A fault on either bus — a servo silent after its retries, an
overload or over-temperature flag — ends the session naming the arm, the joint and the reason:
the faulted bus sends nothing more; after a leader fault the follower is held where it is read
(every goal set to its position), after a follower fault the leader (free, torque off) is read
no more. Ctrl+C ends a session normally (ok), the follower held where it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import KinematicaError
from .feetech_bus import BusError
from .limits import CommandRefused
from .so101_calibration import GRIPPER_RANGE, NAMES

__all__ = ["MIN_RATE", "MAX_RATE", "TeleopReport", "angles", "bounds", "check_session", "teleop"]

MIN_RATE, MAX_RATE = 1.0, 200.0  # Hz, as so101_play


@dataclass
class TeleopReport:
    """What a session did: `cycles` run, `sent` goals sent, `ok` unless a fault or a refusal
    ended it, `reason` in words; `limited` and `stepped` (6,) the cycles each joint was held at
    the follower's bound or cut to max_step, `collisions` the goals not sent (the first in
    words, `collision`); `lag_rms`, `lag_max` (6, rad) of F_{k+1} − goal_k; the per-cycle arrays
    `leader`, `goals` (in force after the cycle) and `follower` (T, 6, rad: NaN where unread)."""

    ok: bool = False
    reason: str = ""
    cycles: int = 0
    sent: int = 0
    elapsed: float = 0.0
    rate: float = 0.0
    late: int = 0
    limited: np.ndarray = field(default_factory=lambda: np.zeros(6, int))
    stepped: np.ndarray = field(default_factory=lambda: np.zeros(6, int))
    collisions: int = 0
    collision: str = ""
    lag_rms: np.ndarray = field(default_factory=lambda: np.full(6, np.nan))
    lag_max: np.ndarray = field(default_factory=lambda: np.full(6, np.nan))
    leader: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)), repr=False)
    goals: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)), repr=False)
    follower: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)), repr=False)


class _Stopped(KinematicaError):
    """A bus failed during a session: which arm, and its error."""

    def __init__(self, side: str, error: BusError) -> None:
        super().__init__(f"{side}: {error}")
        self.side = side


def angles(state: Any) -> np.ndarray:
    """The six servo angles (rad) of an SO-101 state: q, then the gripper's degrees as radians."""
    return np.r_[state.q, np.radians(state.gripper)]


def bounds(arm: Any) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) (6, rad): the arm's joint limits and gripper range ∩ its calibrated ranges."""
    lo, hi = arm.calibration.angle_bounds()
    model = np.vstack([arm.robot.limits[:5], np.radians(GRIPPER_RANGE)])
    lo, hi = np.maximum(lo, model[:, 0]), np.minimum(hi, model[:, 1])
    if np.any(lo > hi):
        j = int(np.argmax(lo > hi))
        raise CommandRefused(f"the follower's {NAMES[j]}: its calibrated range and its limits do not overlap")
    return lo, hi


def _on(side: str, call: Callable[[], Any]) -> Any:
    try:
        return call()
    except BusError as e:
        raise _Stopped(side, e) from None


def check_session(rate: float, max_step: float, seconds: float | None) -> None:
    """CommandRefused, in words, for a rate, step limit or duration out of range."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not MIN_RATE <= rate <= MAX_RATE:
        raise CommandRefused(f"rate {rate!r} Hz: expected a number in [{MIN_RATE:g}, {MAX_RATE:g}]")
    if not (isinstance(max_step, (int, float)) and 0 < max_step <= np.pi / 4):
        raise CommandRefused(f"max_step {max_step!r} rad: expected a number in (0, π/4]")
    if seconds is not None and not (isinstance(seconds, (int, float)) and 0 < seconds <= 86400):
        raise CommandRefused(f"seconds {seconds!r}: expected None (until Ctrl+C) or a number in (0, 86400]")


def teleop(leader: Any, follower: Any, rate: float = 50.0, max_step: float = np.radians(5), *,
           seconds: float | None = None, seat: Any = None, speed: float = 1.0,
           on_cycle: Callable[[float, Any], None] | None = None) -> TeleopReport:
    """Drive the connected `follower` from the connected `leader` (two `So101`s on two buses)
    at `rate` Hz for `seconds` (None: until Ctrl+C), at most `max_step` rad per joint a cycle;
    `seat` (a scene's `Seat` for the follower) keeps it out of collision. See the module's
    text. `on_cycle(t, state)` gets each cycle's follower reading."""
    check_session(rate, max_step, seconds)
    lo, hi = bounds(follower)
    report = TeleopReport()
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    start = time.monotonic()
    try:
        goal = _start(leader, follower, lo, hi, seat, speed)
        start = time.monotonic()
        while seconds is None or report.cycles / rate < seconds:
            wait = start + report.cycles / rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            elif -wait > 0.5 / rate:
                report.late += 1
            lead = angles(_on("leader", leader.state))
            st = _on("follower", follower.state)
            goal = _cycle(report, follower, lead, goal, lo, hi, max_step, seat)
            rows.append((lead, goal, angles(st)))
            report.cycles += 1
            if on_cycle is not None:
                on_cycle(report.cycles / rate, st)
        report.ok, report.reason = True, f"{report.cycles} cycles at {rate:g} Hz: the follower holds its last goal"
    except _Stopped as e:
        report.reason = str(e) + _hold_after(e.side, follower)
    except CommandRefused as e:  # the start pose in collision (nothing sent to the follower yet)
        report.reason = f"refused: {e}; the follower holds its last goal"
    except KeyboardInterrupt:
        report.ok = True
        report.reason = f"stopped (Ctrl+C) after {report.cycles} cycles" + _hold_after("leader", follower)
    report.elapsed = time.monotonic() - start
    report.rate = report.cycles / report.elapsed if report.elapsed > 0 else 0.0
    _score(report, rows)
    return report


def _start(leader: Any, follower: Any, lo: np.ndarray, hi: np.ndarray, seat: Any, speed: float) -> np.ndarray:
    """Leader torque off; the follower moved to the leader's bounded pose; that pose."""
    _on("leader", lambda: leader.torque(False))
    first = np.clip(angles(_on("leader", leader.state)), lo, hi)
    if seat is not None:
        hit = seat.check(first[:5])
        if hit.colliding:
            raise CommandRefused(f"the leader's pose would put the follower in {hit}: move the leader clear "
                                 "and start again")
    moved = _on("follower", lambda: follower.move(first[:5], speed, float(np.degrees(first[5]))))
    if not moved.ok:
        raise _Stopped("follower", BusError(f"did not reach the leader's pose: {moved.reason}"))
    return first


def _cycle(report: TeleopReport, follower: Any, lead: np.ndarray, goal: np.ndarray, lo: np.ndarray,
           hi: np.ndarray, max_step: float, seat: Any) -> np.ndarray:
    """One cycle's goal from the leader's angles (see the module's text), sent unless it collides."""
    target = np.clip(lead, lo, hi)
    report.limited += target != lead
    step = target - goal
    report.stepped += np.abs(step) > max_step
    nxt = goal + np.clip(step, -max_step, max_step)
    if seat is not None:
        hit = seat.check(nxt[:5])
        if hit.colliding:
            report.collisions += 1
            report.collision = report.collision or f"cycle {report.cycles}: {hit}"
            return goal
    ticks = follower.check(nxt[:5], float(np.degrees(nxt[5])))
    _on("follower", lambda: follower.send_goals(ticks))
    report.sent += 1
    return nxt


def _hold_after(side: str, follower: Any) -> str:
    """Words for what the follower does after the session ends on `side`'s account."""
    if side == "follower":
        return "; the leader (torque off) is read no more"
    try:
        follower.stop()
    except BusError as e:
        return f"; the follower could not be held either ({e})"
    return "; the follower holds where it is"


def _score(report: TeleopReport, rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
    if not rows:
        return
    report.leader, report.goals, report.follower = (np.array(r) for r in zip(*rows, strict=True))
    if len(rows) > 1:
        lag = report.follower[1:] - report.goals[:-1]
        report.lag_rms, report.lag_max = np.sqrt(np.mean(lag ** 2, axis=0)), np.abs(lag).max(axis=0)
