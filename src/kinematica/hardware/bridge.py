"""`km.hardware.Braccio(url)`: the host side of the link to a physical (or emulated) Braccio.

    >>> import kinematica as km, numpy as np
    >>> with km.hardware.Emulator() as emu, km.hardware.Braccio(emu.url) as arm:
    ...     report = arm.move(np.radians([10, -30, 80, 90, 0]), speed=140)
    ...     arm.state().degrees
    (80, 60, 170, 180, 90, 10)

Every command is checked on the host before anything is sent (`limits`): model limits, servo
ranges after calibration, speeds, the gripper range; a refusal names the joint, the value and
the limit. Every reply has a deadline. After any fault (a timeout, the port gone, garbage, an
error from the board) the link sends nothing more: reconnect. Hobby servos report no position:
`state()` is what the board last commanded, not a measurement.
"""

from __future__ import annotations

from ..errors import InputError, InputTypeError

import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import sample_count
from ..model import Robot
from ..model.library import load as _load
from ..trajectory import Trajectory
from . import protocol as pr
from .calibration import Calibration, load_calibration
from .limits import (CommandRefused, check_robot, check_speed, check_stream_speed, gripper_degrees,
                     quantisation_error, reached_q, servo_degrees, whole_degrees)
from .link import Link, LinkError, LinkTimeout
from .stream import StreamResult, stop_now, stream

STATE_NOTE = "commanded, not measured: hobby servos report no position"
MAX_RATE = 1000.0  # Hz: the board's clock counts whole milliseconds per point


@dataclass(frozen=True)
class ArmState:
    """The servo degrees the board last commanded (M1…M6), the joint values q (rad) of M1…M5
    and the gripper degrees — commanded, not measured (`note`)."""

    degrees: tuple[int, ...]
    q: np.ndarray
    gripper: int
    note: str = STATE_NOTE


@dataclass(frozen=True)
class MoveReport:
    """A move sent: the whole servo degrees, its duration (s) and the tool-point error (robot's
    length unit) that whole degrees cost; `stopped` when `request_stop()` ended it on the way
    (`state()` says where the arm holds)."""

    degrees: tuple[int, ...]
    duration: float
    quantisation_error: float
    stopped: bool = False


@dataclass
class PlayResult(StreamResult):
    """A stream's result, plus the largest tool-point error of whole degrees over its points."""

    max_quantisation_error: float = 0.0
    final_state: ArmState | None = None


class Braccio:
    """A Braccio behind a serial port (any pyserial URL). `connect()` (or `with`) opens the
    port and waits for the board's READY banner; `close()` ends."""

    def __init__(self, url: str, robot: Robot | str = "braccio", calibration: Calibration | str | Path | None = None,
                 timeout: float = 1.0, ready_timeout: float = 5.0) -> None:
        self.robot = _load(robot) if isinstance(robot, str) else robot
        check_robot(self.robot)
        self.calibration = (load_calibration(calibration) if isinstance(calibration, (str, Path))
                            else calibration or Calibration())
        if not (math.isfinite(timeout) and timeout > 0 and math.isfinite(ready_timeout) and ready_timeout > 0):
            raise InputError(f"timeout and ready_timeout must be positive seconds, got {timeout!r}, {ready_timeout!r}")
        self.url, self.timeout, self.ready_timeout = url, timeout, ready_timeout
        self.link: Link | None = None
        self.banner: pr.Banner | None = None
        self.commanded: tuple[int, ...] | None = None
        self.last_result: PlayResult | None = None
        self._cancel = threading.Event()
        self.progress = (0, 0)  # (points acknowledged, points) of the last play, updated as it runs
        self.reached: tuple[int, ...] | None = None  # the servo degrees of the last point acknowledged

    # --- connection ----------------------------------------------------------------------
    def connect(self) -> pr.Banner:
        """Open the port and wait for READY (an Uno resets when its port opens and boots in
        ~1.6 s; a board that does not reset is asked with `V` after half the wait)."""
        self.close()  # connecting again starts afresh
        self.link = Link(self.url)
        deadline = time.monotonic() + self.ready_timeout
        ask_at = deadline - self.ready_timeout / 2  # fixed: line noise must not put off the V
        asked = False
        while True:
            wake = deadline if asked else ask_at
            try:
                line = self.link.readline(wake)
            except LinkTimeout:
                if asked or time.monotonic() >= deadline:
                    self.close()
                    raise LinkError(f"no READY banner from {self.url} within {self.ready_timeout:g} s: is the "
                                    "kinematica firmware on the board (`kinematica braccio firmware`)?") from None
                self.link.send(pr.format_command(pr.Version()))
                asked = True
                continue
            if line.startswith("READY"):
                break
        try:
            banner = pr.parse_banner(line)
        except pr.ProtocolError as e:
            self.close()
            raise LinkError(str(e)) from None
        if banner.version != pr.VERSION:
            self.close()
            raise LinkError(f"the board speaks protocol v{banner.version}, this kinematica v{pr.VERSION}: "
                            "write the firmware of this version (`kinematica braccio firmware`)")
        self.banner = banner
        self.commanded = self._query()
        return banner

    def close(self) -> None:
        """Close the port (a board keeps holding the arm where it last commanded it)."""
        if self.link is not None:
            self.link.close()
        self.link, self.banner = None, None

    def __enter__(self) -> "Braccio":
        self.connect()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- requests ------------------------------------------------------------------------
    def _link(self) -> Link:
        if self.link is None or self.banner is None:
            raise LinkError("not connected: call connect() first")
        return self.link

    def _request(self, line: str, expect: type, wait: float, stoppable: bool = False) -> Any:
        """Send `line` and return the reply of type `expect` arriving within wait + timeout s;
        LinkError (and the link latched) for a timeout, garbage or an error reply. A `stoppable`
        request (a move) ends early when `request_stop()` is called: S goes out, its OK is the
        move's answer, and None is returned."""
        link = self._link()
        if stoppable:
            self._cancel.clear()
        link.send(line)
        deadline = time.monotonic() + wait + self.timeout
        try:
            while True:
                try:
                    text = link.readline(min(deadline, time.monotonic() + 0.05) if stoppable else deadline)
                    break
                except LinkTimeout:
                    if time.monotonic() >= deadline:
                        raise
                    if self._cancel.is_set():  # the board answers S with OK, and the move's OK never comes
                        self._request(pr.format_command(pr.Stop()), pr.Ok, 0.0)
                        return None
            reply = pr.parse_reply(text)
        except LinkTimeout:
            raise link.fail(f"no reply to {line!r} within {wait + self.timeout:.3g} s") from None
        except pr.ProtocolError as e:
            raise link.fail(f"garbage in reply to {line!r}: {e}") from None
        if isinstance(reply, pr.Error):
            raise link.fail(f"the board refused {line!r}: E{reply.code} {reply.text}".rstrip())
        if isinstance(reply, pr.Banner):
            raise link.fail(pr.RESTARTED)
        if not isinstance(reply, expect):
            raise link.fail(f"unexpected reply {text!r} to {line!r}")
        return reply

    def _query(self) -> tuple[int, ...]:
        return self._request(pr.format_command(pr.Query()), pr.State, 0.0).degrees

    def _send_move(self, degrees: tuple[int, ...], speed: int) -> float | None:
        """Move; the duration, or None when stopped on the way (commanded: where it stopped)."""
        assert self.commanded is not None
        far = max(abs(a - b) for a, b in zip(degrees, self.commanded))
        if self._request(pr.format_command(pr.Move(degrees, speed)), pr.Ok, far / speed, stoppable=True) is None:
            self.commanded = self._query()
            return None
        self.commanded = degrees
        return far / speed

    # --- checks (also before connecting: opening an Uno's port resets it) ---------------------
    def _gripper_now(self, gripper: float | None, banner: pr.Banner) -> float:
        """The gripper's nominal degrees: as given, or where it is now (uncalibrated)."""
        if gripper is not None:
            return gripper
        return float(self.calibration.to_nominal(self.commanded or banner.home)[5])

    def check_move(self, q: ArrayLike, speed: float = 60, gripper: float | None = None) -> np.ndarray:
        """The physical servo degrees (6,) of a move, unrounded; CommandRefused if it leaves a
        limit. Before `connect()` the firmware's own ranges (`protocol.DEFAULT_BANNER`) apply."""
        banner = self.banner or pr.DEFAULT_BANNER
        check_speed(speed, banner)
        return servo_degrees(self.robot, self.calibration, q, self._gripper_now(gripper, banner), banner)

    def check_play(self, trajectory: Trajectory, rate: float | None = None, gripper: float | None = None,
                   speed: float = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(t, q, physical degrees (T, 6) unrounded) of a play; CommandRefused for any point or
        step outside a limit (the approach to the first point is checked when it is known)."""
        banner = self.banner or pr.DEFAULT_BANNER
        check_speed(speed, banner)
        t, q = sample(trajectory, rate)
        physical = servo_degrees(self.robot, self.calibration, q, self._gripper_now(gripper, banner), banner)
        t_sent = np.round((t - t[0]) * 1000) / 1000  # the board counts whole milliseconds
        if np.any(np.diff(t_sent) < pr.MS_RANGE[0] / 1000):
            raise CommandRefused("two points of the trajectory are less than 1 ms apart: give a lower rate")
        if np.any(np.diff(t_sent) > pr.MS_RANGE[1] / 1000):
            raise CommandRefused(f"two points of the trajectory are more than {pr.MS_RANGE[1] / 1000:g} s apart: "
                                 "give a rate")
        check_stream_speed(self.robot, t_sent, physical, banner)
        return t_sent, q, physical

    # --- commands ------------------------------------------------------------------------
    def move(self, q: ArrayLike, speed: float = 60, gripper: float | None = None) -> MoveReport:
        """Move to joint values q (5, rad) and the gripper (degrees; default: where it is) at
        `speed` °/s for the servo that moves furthest, all arriving together; returns when the
        board says the move is done."""
        self._check_connected()
        physical = self.check_move(q, speed, gripper)
        v = int(speed)
        degrees = tuple(int(d) for d in whole_degrees(physical))
        duration = self._send_move(degrees, v)
        err = float(quantisation_error(self.robot, self.calibration, q, degrees))
        return MoveReport(degrees, duration or 0.0, err, stopped=duration is None)

    def gripper(self, degrees: float, speed: float = 60) -> MoveReport:
        """Open (10°) or close (73°) the gripper, or anything between; the arm stays."""
        banner = self._check_connected()
        v = check_speed(speed, banner)
        g = int(whole_degrees(gripper_degrees(self.robot, self.calibration, degrees, banner)))
        target = (*self.commanded[:5], g)  # type: ignore[index]
        duration = self._send_move(target, v)
        return MoveReport(target, duration or 0.0, 0.0, stopped=duration is None)

    def home(self, speed: float = pr.HOME_SPEED) -> MoveReport:
        """Go to the board's home (the Braccio library's safety position)."""
        banner = self._check_connected()
        v = check_speed(speed, banner)
        far = max(abs(a - b) for a, b in zip(banner.home, self.commanded))  # type: ignore[arg-type]
        if self._request(pr.format_command(pr.Home(v)), pr.Ok, far / v, stoppable=True) is None:
            self.commanded = self._query()
            return MoveReport(banner.home, 0.0, 0.0, stopped=True)
        self.commanded = banner.home
        return MoveReport(banner.home, far / v, 0.0)

    def stop(self) -> None:
        """Stop now: the board drops its queue and holds where the arm is."""
        self._request(pr.format_command(pr.Stop()), pr.Ok, 0.0)
        self.commanded = self._query()

    def state(self) -> ArmState:
        """What the board last commanded (asked with `?`) — not a measurement."""
        self._check_connected()
        self.commanded = self._query()
        return ArmState(self.commanded, reached_q(self.robot, self.calibration, self.commanded),
                        self.commanded[5])

    def _check_connected(self) -> pr.Banner:
        self._link()
        assert self.banner is not None
        return self.banner

    # --- trajectories --------------------------------------------------------------------
    def plan(self, trajectory: Trajectory, rate: float | None = None, gripper: float | None = None,
             speed: float = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The points a `play` sends, checked: (q (T, 5), whole degrees (T, 6), ms (T,)); the
        first point's ms is the approach from where the arm is at `speed` °/s. CommandRefused
        for any point or step outside a limit, before anything is sent."""
        self._check_connected()
        t, q, physical = self.check_play(trajectory, rate, gripper, speed)
        ms = np.diff(np.round(t * 1000).astype(int), prepend=0)
        degrees = whole_degrees(physical)
        v = int(speed)
        far = max(abs(int(a) - int(b)) for a, b in zip(degrees[0], self.commanded))  # type: ignore[arg-type]
        ms[0] = min(pr.MS_RANGE[1], max(pr.MS_RANGE[0], math.ceil(far / v * 1000)))
        return q, degrees, ms

    def play(self, trajectory: Trajectory, rate: float | None = None, gripper: float | None = None,
             speed: float = 60, on_point: Callable[[int, np.ndarray, float], None] | None = None) -> PlayResult:
        """Play a trajectory on the arm: its samples (or, with `rate`, equal steps of at most
        1/rate s), the first reached from where the arm is at `speed` °/s; flow-controlled
        (see `stream`). A fault ends the stream; the result says the last point acknowledged.
        Ctrl+C sends S (stop now) before the KeyboardInterrupt goes on. `on_point(k, q_k, t_k)`
        is called as the board acknowledges point k (q_k its joint values, t_k its time in the
        trajectory, s) — a joint-state stream hangs here."""
        q, degrees, ms = self.plan(trajectory, rate, gripper, speed)
        times = sample(trajectory, rate)[0]
        err = quantisation_error(self.robot, self.calibration, q, degrees)
        link, banner = self._link(), self._check_connected()
        self._cancel.clear()
        self.progress, self.reached = (0, len(degrees)), None

        def acked(k: int) -> None:
            self.progress = (k + 1, len(degrees))
            self.reached = tuple(int(d) for d in degrees[k])
            if on_point is not None:
                on_point(k, q[k], float(times[k]))

        try:
            res = stream(link, degrees, ms, banner, self.timeout, self._cancel, acked)
        except KeyboardInterrupt:
            self._interrupted(link, len(degrees))
            raise
        state = None
        if res.ok:
            state = self.state()
        self.last_result = PlayResult(**vars(res), max_quantisation_error=float(err.max()), final_state=state)
        return self.last_result

    def request_stop(self) -> None:
        """Stop a `play`, `move`, `gripper` or `home` running in another thread (a GUI's stop
        button): it sends S within ~50 ms and returns (a play its result, a move a report with
        `stopped`). Safe to call from any thread, at any time."""
        self._cancel.set()

    def _interrupted(self, link: Link, points: int) -> None:
        """Ctrl+C mid-stream: S, then wait briefly for its OK (acknowledgements may come first)."""
        self.last_result = None
        if link.fault is None:
            try:
                stop_now(link, StreamResult(points), self.timeout)
            except LinkError:
                pass


def sample(trajectory: Trajectory, rate: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(t, q) to send: the trajectory's samples, or with `rate` Hz equal steps of at most 1/rate s
    from its start to its end (both kept)."""
    if not isinstance(trajectory, Trajectory):
        raise InputTypeError(f"trajectory: expected a kinematica Trajectory, got {type(trajectory).__name__}")
    if rate is None:
        return trajectory.t, trajectory.q
    if not (isinstance(rate, (int, float)) and 0 < rate <= MAX_RATE):
        raise CommandRefused(f"rate {rate!r} Hz: expected a number in (0, {MAX_RATE:g}] Hz")
    if len(trajectory) < 2:
        return trajectory.t, trajectory.q
    sample_count(trajectory.duration, 1 / rate, f"duration × rate = {trajectory.duration:g} s × {rate:g} Hz",
                 CommandRefused)
    steps = max(1, math.ceil(trajectory.duration * rate - 1e-9))
    times = np.linspace(trajectory.t[0], trajectory.t[-1], steps + 1)
    return times, trajectory.resample(times).q
