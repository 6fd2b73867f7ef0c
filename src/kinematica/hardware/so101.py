"""`km.hardware.So101(url)`: the SO-101 arm on its Feetech bus — an `Arm` whose state is
measured (the STS3215s read their own position, speed, load, voltage and temperature). The
SO-100 has the same servos on the same bus: `So101(url, robot="so100")` drives it with its own
model (its joint values, limits, middle pose and servo senses; `so101_calibration`).

    >>> import kinematica as km, numpy as np
    >>> with km.hardware.So101Emulator() as emu, km.hardware.So101(emu.url) as arm:
    ...     report = arm.move(np.radians([10, -20, 30, 0, 0]), speed=2.0)
    ...     bool(report.ok and arm.state().measured)
    True

Every command is checked before anything is sent: the model's joint limits and each servo's
calibrated range (`CommandRefused` names the joint). Every transaction has a deadline and
retries (`feetech_bus`). A servo that stops answering, or that flags a fault in its status
(overload, over-temperature, input voltage, angle sensor, over-current), stops the arm: the
bus sends nothing more, and the servos hold their last goals (a servo in overload has already
released its torque — its own protection); the error (`ServoFault`) names the joint, the servo
id and the reason. Reconnect to go on.

`request_stop()`, from any thread (a GUI's stop button), ends a `move`, `home` or `play` running
in another within one cycle of its loop (~20 ms): every goal is set to the position read, and the
report says it stopped. A request made just before a command starts (its thread not yet in it)
stops it before it sends a goal; it is forgotten when the command it stopped ends. `last` is the latest state read by whichever call read it, so a viewer
can show the arm while a command runs without touching the bus (one transaction at a time).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model import Robot
from ..model.library import load as _load
from . import feetech as ft
from .arm import Arm
from .feetech_bus import Bus, BusError, ServoFault, ServoSilent
from .limits import CommandRefused
from .so101_calibration import (
    NAMES,
    So101Calibration,
    So101CalibrationError,
    check_arm,
    load_so101_calibration,
)

__all__ = ["STATE_FIRST", "STATE_LAST", "STATE_ADDRESS", "STATE_BYTES", "GOAL_ADDRESS", "GOAL_BYTES",
           "ARRIVED", "STILL", "MEASURED_NOTE", "So101State", "So101Move", "So101"]

STATE_FIRST, STATE_LAST = "present_position", "present_temperature"
STATE_ADDRESS, STATE_BYTES = ft.span(STATE_FIRST, STATE_LAST)  # 56, 8: one sync read a cycle
GOAL_ADDRESS, GOAL_BYTES = ft.span("goal_position", "goal_speed")  # 42, 6: position, time, speed
ARRIVED = 25  # ticks (2.2°): a move has arrived when every servo reads this close to its goal
STILL = 20  # ticks/s: a servo reading less is at rest (a real one's speed reading jitters)
MEASURED_NOTE = "measured: read from the servos' encoders"


@dataclass(frozen=True)
class So101State:
    """Where the arm is, read from the servos: q (5, rad), the gripper (degrees), each servo's
    ticks, speed (ticks/s), load (% of max torque, signed), voltage (V) and temperature (°C),
    and `commanded`, the last goal sent (q, rad) or None."""

    q: np.ndarray
    gripper: float
    ticks: tuple[int, ...]
    speed: tuple[int, ...]
    load: tuple[float, ...]
    voltage: tuple[float, ...]
    temperature: tuple[int, ...]
    commanded: np.ndarray | None = None
    note: str = MEASURED_NOTE
    measured: ClassVar[bool] = True


@dataclass(frozen=True)
class So101Move:
    """A move: the goal ticks, the time it took (s), whether every servo arrived within ARRIVED
    ticks, and the measured joint error at the end (rad, measured − goal)."""

    ticks: tuple[int, ...]
    duration: float
    ok: bool
    error: np.ndarray
    reason: str = ""
    stopped: bool = False  # ended by request_stop(): the arm holds where it was read


class So101(Arm):
    """The SO-101 (or, with robot="so100", the SO-100) on a Feetech bus at `url` (a serial port
    or a pyserial URL). `robot` gives the model: its limits, and the middle pose and servo senses
    that map ticks to its joint values; `calibration` (a file or a So101Calibration, made on the
    same arm: So101CalibrationError otherwise) the servos' offsets and ranges; `timeout` s per
    transaction, `retries` more tries before a servo counts as silent."""

    measures = True

    def __init__(self, url: str, robot: Robot | str = "so101", calibration: So101Calibration | str | Path | None = None,
                 timeout: float = 0.1, retries: int = 2) -> None:
        if not isinstance(url, str) or not url:
            raise InputError(f"url: expected a serial port or pyserial URL, got {url!r}")
        self.robot = _load(robot) if isinstance(robot, str) else robot
        if self.robot.n != 5:
            raise InputError(f"{self.robot.name}: the SO-ARM driver drives 5 arm joints and the gripper, "
                             f"this robot has {self.robot.n} joints")
        if isinstance(calibration, (str, Path)):
            self.calibration = load_so101_calibration(calibration)
            check_arm(self.calibration, self.robot, str(calibration))
        elif calibration is None or isinstance(calibration, So101Calibration):
            self.calibration = calibration or So101Calibration.default(self.robot)
            check_arm(self.calibration, self.robot)
        else:
            raise So101CalibrationError(f"calibration: expected a file or a So101Calibration, got {calibration!r}")
        self.url, self.timeout, self.retries = url, timeout, retries
        self.bus: Bus | None = None
        self.commanded: np.ndarray | None = None  # goal ticks (6,) last sent
        self.torque_on = False
        self.last: So101State | None = None  # the latest state read (by any call)
        self._stop_asked = threading.Event()
        self._depth = 0  # commands running (a play's approach is a move inside it)

    # --- connection --------------------------------------------------------------------------
    def connect(self) -> So101State:
        """Open the bus, ping the six servos (each must be an STS3215) and read the state."""
        self.close()
        self.bus = Bus(self.url, timeout=self.timeout, retries=self.retries)
        try:
            for name, sid in zip(NAMES, self.calibration.ids, strict=True):
                self._checked(sid, lambda s=sid: self._bus().ping(s))
                model = self._checked(sid, lambda s=sid: self._bus().read_register(s, "model_number"))
                if model != ft.STS3215_MODEL:
                    raise BusError(f"servo {sid} ({name}) is model {model}, not an STS3215 ({ft.STS3215_MODEL})")
            return self.state()
        except BusError:
            self.close()
            raise

    def close(self) -> None:
        """Close the bus; the servos keep holding their last goals (or stay free, torque off)."""
        if self.bus is not None:
            self.bus.close()
        self.bus = None

    def _bus(self) -> Bus:
        if self.bus is None:
            raise BusError("not connected: call connect() first")
        return self.bus

    def _joint(self, sid: int) -> str:
        return NAMES[self.calibration.ids.index(sid)] if sid in self.calibration.ids else f"id {sid}"

    def _checked(self, sid: int, call: Any) -> Any:
        """Run one transaction with servo `sid`; a silence becomes a ServoFault naming the joint."""
        try:
            return call()
        except ServoSilent as e:
            raise ServoFault(f"{self._joint(e.servo)} (servo {e.servo}): {str(e).split(' ', 2)[2]}; "
                             "the arm stopped: nothing more is sent, the servos hold their last goals",
                             e.servo, self._joint(e.servo)) from None

    def fault_in(self, statuses: dict[int, ft.Status]) -> ServoFault | None:
        """The first fault flagged in status packets, latched on the bus (nothing more is sent)."""
        for sid, st in statuses.items():
            if st.error:
                words = " and ".join(ft.errors_in(st.error)) or f"error bits {st.error:#04x}"
                held = ("it released its torque (its overload protection); the others hold their last goals"
                        if st.error & 1 << 5 else "the servos hold their last goals")
                message = f"{self._joint(sid)} (servo {sid}) reports {words}; the arm stopped: {held}"
                self._bus().stop(message)
                return ServoFault(message, sid, self._joint(sid))
        return None

    # --- reading ---------------------------------------------------------------------------------
    def read_raw(self) -> dict[int, dict[str, int]]:
        """Each servo's present registers (position … temperature), in one sync read; a fault
        flagged by any servo raises ServoFault."""
        ids = self.calibration.ids
        got = self._checked(ids[0], lambda: self._bus().sync_read(ids, STATE_ADDRESS, STATE_BYTES))
        fault = self.fault_in(got)
        if fault is not None:
            raise fault
        names = [n for n, r in ft.TABLE.items() if STATE_ADDRESS <= r.address < STATE_ADDRESS + STATE_BYTES]
        return {sid: ft.decode_span(STATE_FIRST, st.data, names) for sid, st in got.items()}

    def state(self) -> So101State:
        """Where the arm is, measured (one sync read of the six servos)."""
        raw = self.read_raw()
        ticks = [raw[i]["present_position"] for i in self.calibration.ids]
        q, g = self.calibration.to_q(ticks)
        col = [raw[i] for i in self.calibration.ids]
        commanded = None if self.commanded is None else self.calibration.to_q(self.commanded)[0]
        self.last = So101State(q, g, tuple(ticks), tuple(r["present_speed"] for r in col),
                               tuple(r["present_load"] / 10 for r in col),
                               tuple(r["present_voltage"] / 10 for r in col),
                               tuple(r["present_temperature"] for r in col), commanded)
        return self.last

    # --- commands --------------------------------------------------------------------------------
    def check(self, q: ArrayLike, gripper: float) -> np.ndarray:
        """Goal ticks (…, 6) of joint values q (…, 5, rad) and the gripper (degrees), refused
        with CommandRefused if any leaves a model limit or a calibrated range."""
        q = np.asarray(q, float)
        if q.shape[-1:] != (5,) or not np.all(np.isfinite(q)):
            raise InputError(f"q: expected 5 finite joint values (rad), got shape {q.shape}")
        lo, hi = self.robot.limits[:, 0], self.robot.limits[:, 1]
        bad = np.argwhere((q.reshape(-1, 5) < lo - 1e-9) | (q.reshape(-1, 5) > hi + 1e-9))
        if bad.size:
            k, j = bad[0]
            raise CommandRefused(f"{NAMES[j]} = {np.degrees(q.reshape(-1, 5)[k, j]):.1f}° leaves its limits "
                                 f"{np.degrees(lo[j]):.1f}° … {np.degrees(hi[j]):.1f}°"
                                 + (f" (point {k})" if q.ndim > 1 else ""))
        ticks = np.array([self.calibration.to_ticks(row, gripper) for row in q.reshape(-1, 5)])
        why = self.calibration.outside(ticks)
        if why is not None:
            raise CommandRefused(f"{why}: not sent")
        return ticks.reshape(*q.shape[:-1], 6)

    def send_goals(self, ticks: np.ndarray, speeds: np.ndarray | None = None) -> None:
        """One sync write of goal positions (ticks) and speeds (ticks/s, 0: the servo's top)."""
        speeds = np.zeros(6, int) if speeds is None else speeds
        data = {sid: ft.encode("goal_position", int(t)) + ft.encode("goal_time", 0) + ft.encode("goal_speed", int(v))
                for sid, t, v in zip(self.calibration.ids, ticks, speeds, strict=True)}
        self._bus().sync_write(GOAL_ADDRESS, data)
        self.commanded = np.asarray(ticks, int)

    def torque(self, on: bool) -> None:
        """Torque on (the servos hold, first told to hold where they are) or off (free to move by hand)."""
        if on and not self.torque_on:
            self.send_goals(np.array(self.state().ticks))
        reg = ft.TABLE["torque_enable"]
        self._bus().sync_write(reg.address, {sid: bytes([int(on)]) for sid in self.calibration.ids})
        self.torque_on = on

    def move(self, q: ArrayLike, speed: float = 1.0, gripper: float | None = None, timeout: float = 10.0) -> So101Move:
        """Go to q (5, rad) with the joint that moves furthest at `speed` rad/s, all arriving
        together; returns when every servo reads within ARRIVED ticks of its goal, or after the
        motion's time + `timeout` s (then ok=False, with the error left). `request_stop()` ends it
        at once, holding where the arm was read (stopped=True)."""
        if not (isinstance(speed, (int, float)) and 0 < speed <= 5):
            raise CommandRefused(f"speed {speed!r} rad/s: expected a number in (0, 5]")
        with self.command():
            now = self.state()
            goal = self.check(q, now.gripper if gripper is None else gripper)
            if self.stop_requested:  # asked for before this thread got here: nothing is sent
                return So101Move(tuple(int(t) for t in goal), 0.0, False, now.q - np.asarray(q, float),
                                 "stopped on request before it started: nothing sent", stopped=True)
            self.torque(True)
            delta = np.abs(goal - np.array(now.ticks))
            duration = max(0.05, float(delta[:5].max()) / (speed * 4096 / (2 * np.pi)))
            self.send_goals(goal, np.maximum(1, np.ceil(delta / duration)).astype(int))
            start = time.monotonic()
            while True:
                time.sleep(0.02)
                st = self.state()
                err = np.array(st.ticks) - goal
                if self.stop_requested:
                    held = self.stop()
                    return So101Move(tuple(int(t) for t in goal), time.monotonic() - start, False,
                                     held.q - np.asarray(q, float), "stopped on request: the arm holds where it was read",
                                     stopped=True)
                if np.all(np.abs(err) <= ARRIVED) and max(map(abs, st.speed)) <= STILL:
                    return So101Move(tuple(int(t) for t in goal), time.monotonic() - start, True,
                                     st.q - np.asarray(q, float))
                if time.monotonic() - start > duration + timeout:
                    worst = int(np.argmax(np.abs(err)))
                    return So101Move(tuple(int(t) for t in goal), time.monotonic() - start, False,
                                     st.q - np.asarray(q, float),
                                     f"{NAMES[worst]} is {err[worst]:+d} ticks from its goal after {duration + timeout:.1f} s")

    def home(self, speed: float = 1.0) -> So101Move:
        """Go to the robot's home, the middle pose (every servo at its middle tick once calibrated)."""
        return self.move(self.robot.q_home, speed)

    def request_stop(self) -> None:
        """End a `move`, `home` or `play` running in another thread within one cycle of its loop
        (it holds where the arm is read, and says so). Safe from any thread, at any time."""
        self._stop_asked.set()

    @property
    def stop_requested(self) -> bool:
        return self._stop_asked.is_set()

    @contextmanager
    def command(self) -> Iterator[None]:
        """Around a stoppable command: a stop request is forgotten when the outermost one ends."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self._stop_asked.clear()

    def stop(self) -> So101State:
        """Hold where the arm is now: every goal set to the position read."""
        st = self.state()
        self.send_goals(np.array(st.ticks))
        return st

    def play(self, trajectory: Any, rate: float = 50.0, gripper: float | None = None, speed: float = 1.0,
             on_cycle: Any = None) -> Any:
        """Stream a trajectory at `rate` Hz with sync write and sync read (`so101_play.play`)."""
        from .so101_play import play

        with self.command():
            return play(self, trajectory, rate, gripper, speed, on_cycle)
