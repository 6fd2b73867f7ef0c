"""`km.hardware.Braccio(url)`: the host side of the link to a physical (or emulated) Braccio.

    >>> import kinematica as km, numpy as np
    >>> with km.hardware.Emulator() as emu, km.hardware.Braccio(emu.url) as arm:
    ...     report = arm.move(np.radians([10, -30, 80, 90, 0]), speed=100)
    ...     arm.state().degrees
    (80, 60, 170, 180, 90, 10)

Every command is checked on the host before anything is sent (`limits`): model limits, servo
ranges after calibration, speeds, the acceleration of a trajectory, the whole-degree steps the
board will check, the gripper range; a refusal names the joint, the value and the limit. Every
reply has a deadline. After any fault (a timeout, the port gone, garbage, an error from the
board) the link sends nothing more but S: reconnect. Connecting does not reset the board where
the port allows it (`link`); a board that resets anyway, on connect or mid-session, is seen by
its boot banner and reported in `notices` — it drives its servos home under its soft start, so
the host never homes it at full speed. Hobby servos report no position: `state()` is what the
board last commanded, not a measurement.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError, InputTypeError
from ..model import Robot
from ..model.library import load as _load
from ..trajectory import Trajectory
from . import protocol as pr
from .arm import Arm
from .calibration import Calibration, load_calibration
from .limits import (
    CommandRefused,
    check_robot,
    check_speed,
    check_stream_accel,
    check_stream_speed,
    check_stream_steps,
    gripper_degrees,
    quantisation_error,
    reached_q,
    servo_degrees,
    whole_degrees,
)
from .link import BoardReset, Link, LinkError, LinkTimeout
from .reports import ArmState, MoveReport, PlayResult, ms_between, sample
from .stream import StreamResult, stop_now, stream

TIMEOUT_MAX = 60.0  # s: the longest wait for one reply beyond its motion's own time
READY_TIMEOUT_MAX = 120.0  # s: the longest wait for the banner (a resetting board needs ~7 s)
RESET_ON_OPEN = ("the board reset when its port opened (its boot banner came): it drove its servos home under "
                 "its soft start; to keep an Uno from resetting, run `stty -F PORT -hupcl` once, or put a 10 µF "
                 "capacitor between its RESET and GND pins (docs/hardware.md)")


def _seconds(value: Any, name: str, most: float) -> float:
    """A wait in seconds within (0, most]; InputError naming the parameter and the range."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not (math.isfinite(value) and 0 < value <= most):
        raise InputError(f"{name}: expected seconds in (0, {most:g}], got {value!r}")
    return float(value)


class Braccio(Arm):
    """The link to a Braccio running Kinematica's firmware, on a serial port or any pyserial URL
    (an `Arm` whose state is commanded, not measured: `measures` is False).
    `robot` (a name or a Robot) gives the model limits and servo mapping; `calibration` (a
    Calibration or a file) the per-servo offsets. `timeout` s (at most 60) is the wait for each
    reply beyond the motion's own time; `ready_timeout` s (at most 120) the wait for the banner."""

    def __init__(self, url: str, robot: Robot | str = "braccio", calibration: Calibration | str | Path | None = None,
                 timeout: float = 1.0, ready_timeout: float = 10.0) -> None:
        if not isinstance(url, str) or not url:
            raise InputTypeError(f"url: expected a serial port or pyserial URL, got {url!r}")
        self.timeout = _seconds(timeout, "timeout", TIMEOUT_MAX)
        self.ready_timeout = _seconds(ready_timeout, "ready_timeout", READY_TIMEOUT_MAX)
        self.robot = _load(robot) if isinstance(robot, str) else robot
        check_robot(self.robot)
        self.calibration = (load_calibration(calibration) if isinstance(calibration, (str, Path))
                            else calibration or Calibration())
        self.url = url
        self.link: Link | None = None
        self.banner: pr.Banner | None = None
        self.commanded: pr.Degrees | None = None
        self.last_result: PlayResult | None = None
        self.notices: list[str] = []  # what happened to the board that the caller should hear (resets)
        self._cancel = threading.Event()
        self.progress = (0, 0)  # (points acknowledged, points) of the last play, updated as it runs
        self.reached: tuple[int, ...] | None = None  # the servo degrees of the last point acknowledged

    # --- connection ----------------------------------------------------------------------
    def connect(self) -> pr.Banner:
        """Open the port (without resetting the board where the port allows it), ask for the
        banner with V (again every `timeout` s: a board that did reset is deaf through its soft
        start) and read the commanded state. A boot banner means the board reset: noted."""
        self.close()  # connecting again starts afresh
        self.link = Link(self.url)
        try:
            banner = self._await_banner(self.link)
            if banner.version != pr.VERSION:
                raise LinkError(f"the board speaks protocol v{banner.version}, this kinematica v{pr.VERSION}: "
                                "write the firmware of this version (`kinematica braccio firmware`)")
            self.banner = banner
            if banner.boot:
                self.notices.append(RESET_ON_OPEN)
            self.commanded = self._sync()
        except LinkError:
            self.close()
            raise
        return banner

    def _await_banner(self, link: Link) -> pr.Banner:
        deadline = time.monotonic() + self.ready_timeout
        while True:
            link.send(pr.format_command(pr.Version()))
            again = min(deadline, time.monotonic() + self.timeout)
            try:
                while True:
                    line = link.readline(again)
                    if line.startswith("READY"):
                        try:
                            return pr.parse_banner(line)
                        except pr.ProtocolError as e:
                            raise LinkError(str(e)) from None
            except LinkTimeout:
                if time.monotonic() >= deadline:
                    raise LinkError(f"no READY banner from {self.url} within {self.ready_timeout:g} s: is the "
                                    "kinematica firmware on the board (`kinematica braccio firmware`)?") from None

    def close(self) -> None:
        """Close the port (a board keeps holding the arm where it last commanded it)."""
        if self.link is not None:
            self.link.close()
        self.link, self.banner = None, None

    def __enter__(self) -> Braccio:
        self.connect()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def recover(self, wait: float) -> bool:
        """After a fault, listen up to `wait` s for the boot banner of a board that reset (it is
        silent through its soft start, so a request to it timed out): if it comes, the link is
        sound again, the arm at home (noted). True when the link is usable."""
        link = self._link()
        deadline = time.monotonic() + _seconds(wait, "wait", READY_TIMEOUT_MAX)
        while link.fault is not None:
            try:
                reply = pr.parse_reply(link.readline(deadline))
            except pr.ProtocolError:
                continue
            except LinkError:
                return False
            if isinstance(reply, pr.Banner) and reply.boot:
                link.fault = None
                self._board_reset(reply)
                self.commanded = self._sync()
        return True

    def _board_reset(self, banner: pr.Banner) -> None:
        self.notices.append(f"{pr.RESTARTED}; it is at home {banner.home} now")
        self.commanded = banner.home

    # --- requests ------------------------------------------------------------------------
    def _link(self) -> Link:
        if self.link is None or self.banner is None:
            raise LinkError("not connected: call connect() first")
        return self.link

    def _reply(self, link: Link, text: str, line: str) -> pr.Reply:
        try:
            return pr.parse_reply(text)
        except pr.ProtocolError as e:
            raise link.fail(f"garbage in reply to {line!r}: {e}") from None

    def _sync(self) -> pr.Degrees:
        """The board's commanded degrees (`?`), the answers still due to earlier requests (an OK
        of a move that ended as S went out, the OK of that S) read past on the way."""
        link = self._link()
        link.send(pr.format_command(pr.Query()))
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                reply = self._reply(link, link.readline(deadline), "?")
            except LinkTimeout:
                raise link.fail(f"no reply to '?' within {self.timeout:g} s") from None
            if isinstance(reply, pr.State):
                return reply.degrees
            if isinstance(reply, pr.Error):
                raise link.fail(f"the board refused '?': E{reply.code} {reply.text}".rstrip())
            if isinstance(reply, pr.Banner) and reply.boot:  # the ? went to a deaf board: ask again
                self._board_reset(reply)
                link.send(pr.format_command(pr.Query()))
                deadline = time.monotonic() + self.timeout

    def _reset_since(self, link: Link) -> None:
        """BoardReset, with nothing sent, when a boot banner waits unread: the board reset since
        the last request (its servos went home under its soft start)."""
        if link.fault is not None:
            return  # sending refuses, in words
        for text in link.waiting_lines():
            try:
                reply = pr.parse_reply(text)
            except pr.ProtocolError:
                continue
            if isinstance(reply, pr.Banner) and reply.boot:
                self._board_reset(reply)
                raise BoardReset(reply)

    def _request(self, line: str, expect: type, wait: float, stoppable: bool = False) -> Any:
        """Send `line` and return the reply of type `expect` arriving within wait + timeout s;
        LinkError (and the link latched) for a timeout, garbage or an error reply. A board that
        reset is BoardReset (not latched: the board is sound, at home): before sending, if its
        boot banner waits unread (nothing is sent), or after, if no reply follows the banner in
        time (the line reached a deaf board). A `stoppable` request (a move) ends early when
        `request_stop()` is called: S goes out, the commanded state is read back, and None is
        returned."""
        link = self._link()
        self._reset_since(link)
        if stoppable:
            self._cancel.clear()
        link.send(line)
        deadline = time.monotonic() + wait + self.timeout
        reset: pr.Banner | None = None
        while True:
            try:
                text = link.readline(min(deadline, time.monotonic() + 0.05) if stoppable else deadline)
            except LinkTimeout:
                if time.monotonic() >= deadline and reset is not None:
                    raise BoardReset(reset) from None
                if time.monotonic() >= deadline:
                    raise link.fail(f"no reply to {line!r} within {wait + self.timeout:.3g} s") from None
                if self._cancel.is_set():
                    link.send(pr.format_command(pr.Stop()))
                    self.commanded = self._sync()
                    return None
                continue
            reply = self._reply(link, text, line)
            if isinstance(reply, pr.Banner) and reply.boot:  # the line may have come before or after it
                self._board_reset(reply)
                reset, deadline = reply, max(deadline, time.monotonic() + self.timeout)
                continue
            if isinstance(reply, pr.Error):
                raise link.fail(f"the board refused {line!r}: E{reply.code} {reply.text}".rstrip())
            if not isinstance(reply, expect):
                raise link.fail(f"unexpected reply {text!r} to {line!r}")
            return reply

    def _move_time(self, degrees: pr.Degrees, speed: int) -> float:
        """Seconds the board takes for a move (its trapezoidal profile)."""
        assert self.commanded is not None and self.banner is not None
        far = max(abs(a - b) for a, b in zip(degrees, self.commanded, strict=True))
        return sum(pr.move_profile(far, speed, self.banner.accel)) / 1000

    def _send_move(self, degrees: pr.Degrees, speed: int, home: bool = False) -> float | None:
        """Move (or home); the duration, or None when stopped on the way (commanded: where it stopped)."""
        duration = self._move_time(degrees, speed)
        command = pr.Home(speed) if home else pr.Move(degrees, speed)
        if self._request(pr.format_command(command), pr.Ok, duration, stoppable=True) is None:
            return None
        self.commanded = degrees
        return duration

    # --- checks (also before connecting) -------------------------------------------------
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
        """(t, q, physical degrees (T, 6) unrounded) of a play; CommandRefused for any point,
        step or change of speed outside a limit — the trajectory's own (unrounded) speed and
        acceleration, and the whole degrees in whole milliseconds the board will check."""
        banner = self.banner or pr.DEFAULT_BANNER
        check_speed(speed, banner)
        t, q = sample(trajectory, rate)
        physical = servo_degrees(self.robot, self.calibration, q, self._gripper_now(gripper, banner), banner)
        whole_ms = np.round((t - t[0]) * 1000)  # the board counts whole milliseconds
        t_sent = whole_ms / 1000
        if np.any(np.diff(whole_ms) < pr.MS_RANGE[0]):
            raise CommandRefused("two points of the trajectory are less than 1 ms apart: give a lower rate")
        if np.any(np.diff(whole_ms) > pr.MS_RANGE[1]):
            raise CommandRefused(f"two points of the trajectory are more than {pr.MS_RANGE[1] / 1000:g} s apart: "
                                 "give a rate")
        check_stream_speed(self.robot, t_sent, physical, banner)
        check_stream_accel(self.robot, t_sent, physical, banner)
        check_stream_steps(self.robot, ms_between(t_sent), whole_degrees(physical), banner)
        return t_sent, q, physical

    # --- commands ------------------------------------------------------------------------
    def move(self, q: ArrayLike, speed: float = 60, gripper: float | None = None) -> MoveReport:
        """Move to joint values q (5, rad) and the gripper (degrees; default: where it is) at up
        to `speed` °/s for the servo that moves furthest (speeding up and slowing down at the
        board's accel), all arriving together; returns when the board says the move is done."""
        self._check_connected()
        physical = self.check_move(q, speed, gripper)
        degrees = pr.degrees_of(whole_degrees(physical))
        duration = self._send_move(degrees, int(speed))
        err = float(quantisation_error(self.robot, self.calibration, q, degrees))
        return MoveReport(degrees, duration or 0.0, err, stopped=duration is None)

    def gripper(self, degrees: float, speed: float = 60) -> MoveReport:
        """Open (10°) or close (73°) the gripper, or anything between; the arm stays."""
        banner = self._check_connected()
        v = check_speed(speed, banner)
        g = int(whole_degrees(gripper_degrees(self.robot, self.calibration, degrees, banner)))
        assert self.commanded is not None  # read from the board on connecting
        target = (*self.commanded[:5], g)
        duration = self._send_move(target, v)
        return MoveReport(target, duration or 0.0, 0.0, stopped=duration is None)

    def home(self, speed: float = pr.HOME_SPEED) -> MoveReport:
        """Go to the board's home (the Braccio library's safety position)."""
        banner = self._check_connected()
        duration = self._send_move(banner.home, check_speed(speed, banner), home=True)
        return MoveReport(banner.home, duration or 0.0, 0.0, stopped=duration is None)

    def stop(self) -> ArmState:
        """Stop now: the board drops its queue and holds where the arm is; returns that state."""
        self._link().send(pr.format_command(pr.Stop()))
        return self.state()

    def state(self) -> ArmState:
        """What the board last commanded (asked with `?`) — not a measurement."""
        self._check_connected()
        self.commanded = self._sync()
        return ArmState(self.commanded, reached_q(self.robot, self.calibration, self.commanded),
                        self.commanded[5])

    def _check_connected(self) -> pr.Banner:
        self._link()
        assert self.banner is not None
        return self.banner

    # --- trajectories --------------------------------------------------------------------
    def plan(self, trajectory: Trajectory, rate: float | None = None, gripper: float | None = None,
             speed: float = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The points a `play` streams, checked: (q (T, 5), whole degrees (T, 6), ms (T,)); point
        0 is reached first by a move at `speed` (the board's profile), so its ms is the least.
        CommandRefused for any point or step outside a limit, before anything is sent."""
        self._check_connected()
        t, q, physical = self.check_play(trajectory, rate, gripper, speed)
        return q, whole_degrees(physical), ms_between(t)

    def play(self, trajectory: Trajectory, rate: float | None = None, gripper: float | None = None,
             speed: float = 60, on_point: Callable[[int, np.ndarray, float], None] | None = None) -> PlayResult:
        """Play a trajectory on the arm: its samples (or, with `rate`, equal steps of at most
        1/rate s), the first reached from where the arm is by a move at `speed` °/s;
        flow-controlled (see `stream`). A fault ends the stream; the result says the last point
        acknowledged, and the last the board reported reaching. Ctrl+C sends S (stop now) and
        leaves the result, with the board's state, in `last_result` before the
        KeyboardInterrupt goes on. `on_point(k, q_k, t_k)` is called as the board acknowledges
        point k (q_k its joint values, t_k its time in the trajectory, s)."""
        q, degrees, ms = self.plan(trajectory, rate, gripper, speed)
        times = sample(trajectory, rate)[0]
        err = float(quantisation_error(self.robot, self.calibration, q, degrees).max())
        link, banner = self._link(), self._check_connected()
        n = len(degrees)
        self.progress, self.reached, self.last_result = (0, n), None, None

        def acked(k: int) -> None:
            self.progress = (k + 1, n)
            self.reached = tuple(int(d) for d in degrees[k])
            if on_point is not None:
                on_point(k, q[k], float(times[k]))

        try:
            res = self._approach(pr.degrees_of(degrees[0]), int(speed), n)
            if res is None:
                res = stream(link, degrees, ms, banner, self.timeout, self._cancel, acked)
        except KeyboardInterrupt:
            self._interrupted(link, n, err)
            raise
        if res.board_reset is not None and link.fault is not None:
            link.fault = None  # a reset board is sound: at home, its queue empty
            self._board_reset(res.board_reset)
        state = None
        if link.fault is None:
            try:
                state = self.state()
            except LinkError:
                pass
        self.last_result = PlayResult(**vars(res), max_quantisation_error=err, final_state=state)
        return self.last_result

    def _approach(self, first: pr.Degrees, speed: int, n: int) -> StreamResult | None:
        """Move to point 0 (None when there); a result when stopped or failed on the way."""
        self._cancel.clear()
        try:
            if first == self.commanded or self._send_move(first, speed) is not None:
                return None
            return StreamResult(n, reason="stopped on request before point 0 was reached (on the approach to it): "
                                          "S sent, the arm holds where it was")
        except LinkError as e:
            return StreamResult(n, reason=f"{e}: on the approach to point 0, nothing streamed",
                                board_reset=e.banner if isinstance(e, BoardReset) else None)

    def request_stop(self) -> None:
        """Stop a `play`, `move`, `gripper` or `home` running in another thread (a GUI's stop
        button): it sends S within ~50 ms and returns (a play its result, a move a report with
        `stopped`). Safe to call from any thread, at any time."""
        self._cancel.set()

    def _interrupted(self, link: Link, points: int, err: float) -> None:
        """Ctrl+C: S, its OK awaited briefly (acknowledgements may come first and are counted),
        then the board's state, all in `last_result`."""
        acked = self.progress[0]
        res = StreamResult(points, acknowledged=acked, last_acknowledged=acked - 1)
        state = None
        if link.fault is None:
            try:
                stop_now(link, res, self.timeout)
                state = self.state()
            except LinkError:
                pass
        if res.last_executed >= res.acknowledged:
            # the board acknowledges in order: an A k read after the S vouches for the points before
            # it whose line Ctrl+C took between this host reading it and counting it
            res.acknowledged, res.last_acknowledged = res.last_executed + 1, res.last_executed
        res.last_executed = max(res.last_executed, res.last_acknowledged)
        where = "" if state is None else f"; the arm holds at servo degrees {list(state.degrees)}"
        res.reason = f"interrupted (Ctrl+C) after point {res.last_acknowledged}: S sent{where}"
        self.last_result = PlayResult(**vars(res), max_quantisation_error=err, final_state=state)
