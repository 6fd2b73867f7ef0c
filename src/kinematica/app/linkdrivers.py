"""The arms the Robot link card drives, one adapter a driver, so that the card never asks which
arm it has: the Braccio (a line protocol to its Arduino; its state is what the board last
commanded) and the SO-101 (a Feetech bus; its state is read from the servos' encoders).

An adapter says what the card shows (names, speed range, notes, the arms to draw) and does the
blocking work — connect, move, play, home, stop — that the card runs in a worker thread, returning
what happened in words. A refusal raises `CommandRefused` before anything is sent; a lost link
raises `LinkError` (a silent or faulting servo is a `ServoFault`, naming the joint and the reason).
Speeds are °/s of the joint that moves furthest, for both arms (the SO-101's driver takes rad/s).

The SO-101's state is polled: a thread reads the six servos `POLL_RATE` times a second while no
command runs. Its bus takes one transaction at a time, so a lock is held by a command for all its
length and by the poller for one read; the poller skips its turn while a command runs, whose own
reads (every 20 ms) keep `So101.last` fresh. The card draws `So101.last` from the page's timer:
the page never waits for the bus. A fault the poller meets stops it and is kept in `fault`.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from ..hardware import (
    STATE_NOTE,
    Braccio,
    Emulator,
    Imperfection,
    LinkError,
    So101,
    So101Emulator,
)
from ..hardware import protocol as pr
from ..hardware.limits import CommandRefused, check_robot, reached_q
from ..hardware.so101 import MEASURED_NOTE
from ..hardware.so101_play import plan
from ..model import Robot
from .linkreadout import TO_MM

POLL_RATE = 10.0  # Hz: reads of the SO-101's state while no command runs
PLAY_RATE = 50.0  # Hz: the SO-101's goals a second during a play (one sync write + one sync read each)
CLOSE_WAIT = 2.0  # s: the longest a close waits for a read in flight (3 tries of 0.1 s and flushes)


class BraccioLink:
    """The Braccio on `url` (its calibration file optional), through `km.hardware.Braccio`."""

    title = "Braccio, or its emulator"
    measures = False
    speed_range = pr.SPEED_RANGE  # °/s, whole numbers (the Braccio library's)
    port_placeholder = "/dev/ttyACM0, COM4 or socket://127.0.0.1:PORT"
    ports_help = "kinematica braccio ports lists them"
    emulator_tip = "start a virtual Braccio on this machine and connect to it"
    note = f"The ghost labelled “arm” is the state {STATE_NOTE}."
    connecting = "an Uno restarts when its port opens: ~2 s"

    @staticmethod
    def fits(robot: Robot) -> bool:
        try:
            check_robot(robot)
        except CommandRefused:
            return False
        return True

    @staticmethod
    def emulator() -> Emulator:
        return Emulator()

    def __init__(self, url: str, robot: Robot, calibration: str | None = None) -> None:
        self.arm = Braccio(url, robot=robot, calibration=calibration)
        self.fault: LinkError | None = None  # nothing polls: faults come from the commands

    @property
    def robot(self) -> Robot:
        return self.arm.robot

    def connect(self) -> str:
        banner = self.arm.connect()
        notices = "".join(f"; {n}" for n in self.arm.notices)
        return f"connected to {self.arm.url}: protocol v{banner.version}, queue of {banner.depth} points{notices}"

    def check_move(self, q: np.ndarray, speed: int) -> None:
        self.arm.check_move(q, speed)

    def move(self, q: np.ndarray, speed: int) -> str:
        rep = self.arm.move(q, speed)
        if rep.stopped:
            return f"stopped on the way: the arm holds at servo degrees {list(self.arm.commanded or ())}"
        return (f"pose sent at {speed} °/s: servo degrees {list(rep.degrees)}; whole degrees put the tool "
                f"{rep.quantisation_error:.2f} {self.robot.length_unit} from the plan")

    def check_play(self, trajectory: Any, speed: int) -> None:
        """Refuse a play before anything is sent; else set the progress to 0 of its points (the
        card draws it before the worker thread starts)."""
        t = self.arm.check_play(trajectory, speed=speed)[0]
        self.arm.progress = (0, len(t))

    def play(self, trajectory: Any, speed: int) -> tuple[str, bool]:
        """(what happened, whether it went well); LinkError when the link is lost."""
        res = self.arm.play(trajectory, None, None, speed)
        words = f"{res.reason}; {res.acknowledged} of {res.points} points in {res.elapsed:.2f} s"
        if not res.ok and (self.arm.link is None or self.arm.link.fault is not None):
            raise LinkError(f"stream stopped after point {res.last_acknowledged}: {res.reason}")
        return words, res.ok

    def home(self, speed: int) -> str:
        rep = self.arm.home(speed)
        if rep.stopped:
            return f"stopped on the way home: the arm holds at servo degrees {list(self.arm.commanded or ())}"
        return f"home at {speed} °/s: servo degrees {list(rep.degrees)}"

    def stop(self) -> str:
        self.arm.stop()
        return "stopped: the arm holds where it is"

    def request_stop(self) -> None:
        self.arm.request_stop()  # the worker sends S within ~50 ms and says what happened

    @property
    def progress(self) -> tuple[int, int]:
        return self.arm.progress

    def snapshot(self, playing: bool) -> tuple[list[tuple[str, np.ndarray]], None]:
        """(the arms to draw, the reading): the ghost "arm" at what the board last commanded
        (during a play, the last point acknowledged); no reading — hobby servos report nothing."""
        degrees = self.arm.reached if playing and self.arm.reached else self.arm.commanded
        return [] if degrees is None else [("arm", reached_q(self.robot, self.arm.calibration, degrees))], None

    def close(self) -> None:
        self.arm.request_stop()
        self.arm.close()


class So101Link:
    """The SO-101 on `url` (its calibration file optional), through `km.hardware.So101`, its
    state polled (see the module's text)."""

    title = "SO-101, or its emulator"
    measures = True
    speed_range = (10, 280)  # °/s of the joint that moves furthest (the driver's top: 5 rad/s)
    port_placeholder = "/dev/ttyACM0, COM5 or socket://127.0.0.1:PORT"
    ports_help = "kinematica so101 ports lists them"
    emulator_tip = ("start a virtual SO-101 bus on this machine (six STS3215s with 5 ticks of sag, "
                    "4 of backlash, 1 of noise) and connect to it")
    note = (f"The arm labelled “measured” is {MEASURED_NOTE}, {POLL_RATE:g} times a second; "
            "the ghost “commanded” is the goal last sent.")
    connecting = "pinging the six servos"

    @staticmethod
    def fits(robot: Robot) -> bool:
        return robot.n == 5 and robot.name.lower().startswith("so101")

    @staticmethod
    def emulator() -> So101Emulator:
        return So101Emulator(Imperfection(noise=1.0, backlash=4.0, sag=5.0))

    def __init__(self, url: str, robot: Robot, calibration: str | None = None) -> None:
        self.arm = So101(url, robot=robot, calibration=calibration)
        self.lock = threading.Lock()  # one transaction at a time on the bus
        self.fault: LinkError | None = None  # what stopped the poller
        self.progress = (0, 0)  # (goals sent, goals) of the last play
        self.reads = 0  # the poller's reads, and since when (its rate: reads / time)
        self.since = time.monotonic()
        self._quit = threading.Event()
        self._poller: threading.Thread | None = None

    @property
    def robot(self) -> Robot:
        return self.arm.robot

    def connect(self) -> str:
        with self.lock:
            st = self.arm.connect()
        self._poller = threading.Thread(target=self._poll, name="so101-poll", daemon=True)
        self._poller.start()
        return (f"connected to {self.arm.url}: six STS3215 servos answer, at {min(st.voltage):.1f} V "
                f"and {max(st.temperature)} °C at most")

    def _poll(self) -> None:
        self.since, due = time.monotonic(), time.monotonic()
        while not self._quit.is_set():
            due = max(due + 1 / POLL_RATE, time.monotonic())  # behind time: no burst of catch-up reads
            if self._quit.wait(due - time.monotonic()) or not self.lock.acquire(blocking=False):
                continue  # quitting, or a command owns the bus (its reads keep arm.last fresh)
            try:
                if not self._quit.is_set():
                    self.arm.state()
                    self.reads += 1
            except LinkError as e:
                if not self._quit.is_set():
                    self.fault = e
                return
            finally:
                self.lock.release()

    def _gripper(self) -> float:
        return self.arm.last.gripper if self.arm.last is not None else 0.0

    def check_move(self, q: np.ndarray, speed: int) -> None:
        self.arm.check(q, self._gripper())  # limits and calibrated ranges, without the bus

    def move(self, q: np.ndarray, speed: int) -> str:
        with self.lock:
            rep = self.arm.move(q, np.radians(speed))
        if rep.stopped:
            return rep.reason
        err = np.degrees(np.abs(rep.error))
        worst = int(np.argmax(err))
        head = f"pose sent at {speed} °/s: " + (f"arrived in {rep.duration:.2f} s" if rep.ok else
                                                  f"did not arrive ({rep.reason})")
        return f"{head}; measured − asked at most {err[worst]:.2f}° ({self.robot.joint_names[worst]})"

    def check_play(self, trajectory: Any, speed: int) -> None:
        """Refuse a play before anything is sent (every point within the limits, the ranges and
        the servos' top speed); else set the progress to 0 of its points."""
        self.progress = (0, len(plan(self.arm, trajectory, PLAY_RATE, self._gripper())[0]))

    def play(self, trajectory: Any, speed: int) -> tuple[str, bool]:
        """(what happened, whether it went well); LinkError when a servo stopped the arm."""
        cycles = [0]

        def cycle(t: float, state: Any) -> None:
            cycles[0] += 1
            self.progress = (min(cycles[0] - 1, self.progress[1]), self.progress[1])

        self.check_play(trajectory, speed)
        with self.lock:
            rep = self.arm.play(trajectory, rate=PLAY_RATE, speed=np.radians(speed), on_cycle=cycle)
        self.progress = (rep.sent, rep.points)
        if rep.ok:
            worst = int(np.argmax(rep.joint_rms))
            scale = TO_MM[self.robot.length_unit]
            return (f"{rep.reason} ({rep.rate:.1f} Hz achieved); tracking error RMS up to "
                    f"{np.degrees(rep.joint_rms[worst]):.2f}° ({self.robot.joint_names[worst]}), tool "
                    f"{rep.tool_rms * scale:.1f} mm RMS, {rep.tool_max * scale:.1f} mm at most"), True
        bus = self.arm.bus
        if not rep.stopped and bus is not None and bus.fault is not None:
            raise LinkError(rep.reason)
        return rep.reason, False

    def home(self, speed: int) -> str:
        with self.lock:
            rep = self.arm.home(np.radians(speed))
        if rep.stopped:
            return rep.reason
        return f"home at {speed} °/s: " + (f"arrived in {rep.duration:.2f} s" if rep.ok else f"did not arrive ({rep.reason})")

    def stop(self) -> str:
        with self.lock:
            self.arm.stop()
        return "stopped: every goal set to the position read; the arm holds there"

    def request_stop(self) -> None:
        self.arm.request_stop()  # the command ends within one cycle of its loop (~20 ms)

    def snapshot(self, playing: bool) -> tuple[list[tuple[str, np.ndarray]], Any]:
        """(the arms to draw, the reading they come from — one state, read once here, so the
        drawing and the card's table agree): the arm "measured" at the latest reading, the ghost
        "commanded" at the goal last sent then."""
        st = self.arm.last
        if st is None:
            return [], None
        return [("measured", st.q)] + ([] if st.commanded is None else [("commanded", st.commanded)]), st

    @property
    def poll_rate(self) -> float:
        """The poller's reads a second since it started (commands' own reads not counted)."""
        return self.reads / max(time.monotonic() - self.since, 1e-9)

    def close(self) -> None:
        """Stop the poller and any command, then close the bus (waiting at most CLOSE_WAIT s for a read in flight)."""
        self._quit.set()
        self.arm.request_stop()
        got = self.lock.acquire(timeout=CLOSE_WAIT)
        try:
            self.arm.close()
        finally:
            if got:
                self.lock.release()


DRIVERS: tuple[type[BraccioLink] | type[So101Link], ...] = (BraccioLink, So101Link)


def driver_for(robot: Robot) -> type[BraccioLink] | type[So101Link] | None:
    """The adapter of the arm that `robot` models, or None when the card drives no such arm."""
    return next((d for d in DRIVERS if d.fits(robot)), None)
