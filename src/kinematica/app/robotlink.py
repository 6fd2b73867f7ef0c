"""The Simulator tab's Robot link card: connect to the arm the chosen robot models — a Braccio or
an SO-101 (`linkdrivers`: one adapter a driver) — on a serial port or to its emulator started
here, mirror it in the 3-D view, send the current pose, play the planned trajectory with a
progress bar, go home, and stop.

What the view draws of the arm depends on what the arm can tell (`mirror`): the Braccio's hobby
servos report nothing, so one ghost "arm" stands at what its board last commanded; the SO-101's
servos read their encoders, so an arm "measured" stands where they are, a ghost "commanded" at
the goal last sent, and the card lists both per joint with their difference, the tool points'
gap (FK, mm), and each servo's load and temperature (`linkreadout`).

Link calls block (a move lasts as long as the arm takes), so they run in a worker thread and the
page stays live; the stop button never waits for one: while a command runs it only asks it to
stop (the Braccio sends S within ~50 ms, the SO-101 holds where it is read within ~20 ms),
otherwise it stops the arm itself. A page timer (`TICK`) draws what the link last reported and
hears of a fault the SO-101's poller met: the link is closed and the card names the joint and the
reason. The speed used is the field's, clamped into the arm's range (`fields.applied`), and the
field shows it. The link outlives a rebuild of the tab (another robot chosen: the card stays the
connected arm's, and refuses to send another robot's joint values to it) and closes, with its
emulator, when the page does.
"""

from __future__ import annotations

import threading
from typing import Any

from nicegui import run, ui

from ..errors import KinematicaError
from ..hardware import CommandRefused, LinkError
from . import linkreadout
from .fields import applied, bounded_number
from .linkdrivers import BraccioLink, So101Link, driver_for
from .packages import SERVER_FOLDERS
from .panel import tag
from .tab import Host
from .ticker import Ticker

TICK = 0.1  # s between redraws of what the link reports (its progress, the arm's state)
SPEED_DEFAULT = 60  # °/s


class RobotLink:
    """The link of one Simulator tab; `card()` draws it in the current container."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.driver: BraccioLink | So101Link | None = None
        self.emulators: dict[type, Any] = {}  # one emulator a kind of arm, started on request
        self.busy = ""  # "", "move" or "play": what runs in the worker thread
        self.message, self.error = "not connected", False
        self.port_value, self.calibration_value, self.speed_value = "", "", SPEED_DEFAULT
        self.shown_reading: Any = None  # the state the readout shows (redrawn when another comes)
        # made in this slot, not the card's: it outlives the tab's rebuilds; it runs while a link is open
        self.timer = Ticker(TICK, self.tick)
        ui.context.client.on_delete(self.close)

    @property
    def kind(self) -> type[BraccioLink] | type[So101Link] | None:
        """The adapter the card's controls are for: the connected arm's, else the session robot's."""
        return type(self.driver) if self.driver is not None else driver_for(self.host.session.robot)

    def _same_robot(self) -> bool:
        """Whether the session's robot is the connected arm's (by its joints): commands and the
        drawing need it — another robot's joint values would send the arm somewhere else."""
        return self.driver is not None and self.host.session.robot.joint_names == self.driver.robot.joint_names

    def _other_robot(self) -> bool:
        """Say so, and True, when the session's robot is not the connected arm's."""
        if self.driver is None or self._same_robot():
            return False
        self.say(f"connected to the {self.driver.robot.name} arm: choose the {self.driver.robot.name} robot to drive "
                 "it, or disconnect", True)
        return True

    # --- drawing ------------------------------------------------------------------------------
    def card(self) -> None:
        self.box = ui.element("div").classes("w-full")  # redrawn alone when the arm it is for changes
        with self.box:
            self._draw()

    def _draw(self) -> None:
        kind = self.kind
        with ui.card().classes("w-full p-3 gap-1"):
            with ui.row().classes("w-full items-center no-wrap"):
                ui.label("Robot link").classes("text-subtitle2")
                ui.space()
                ui.label(kind.title if kind else "").classes("text-xs text-grey-7")
            if kind is None:
                tag(ui.label("The robot link drives a Tinkerkit Braccio (5 servo-mapped joints and a gripper) "
                             "or an SO-101 (5 joints and a gripper on Feetech bus servos): choose the braccio "
                             "or so101 robot to use it."), "link-status").classes("text-sm text-grey-8")
                return
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                self.port = tag(ui.input("port", value=self.port_value, placeholder=kind.port_placeholder,
                                         on_change=lambda e: setattr(self, "port_value", e.value)),
                                "link-port").props("dense").classes("grow")
                self.emulate_button = tag(ui.button("emulator", icon="smart_toy", on_click=self.use_emulator),
                                          "link-emulator").props("flat dense no-caps").tooltip(kind.emulator_tip)
                self.connect_button = tag(ui.button("connect", on_click=self.toggle), "link-connect") \
                    .props("dense no-caps unelevated")
            self.calibration = tag(ui.input("calibration file (optional)", value=self.calibration_value,
                                            placeholder="a path on the server's machine",
                                            on_change=lambda e: setattr(self, "calibration_value", e.value)),
                                   "link-calibration").props("dense clearable").classes("w-full")
            self.calibration.set_visibility(SERVER_FOLDERS["allowed"])
            lo, hi = kind.speed_range
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                self.speed = tag(bounded_number("speed °/s", value=min(max(self.speed_value, lo), hi), lo=lo, hi=hi,
                                                unit="°/s", step=5, format="%.0f",
                                                on_change=lambda e: setattr(self, "speed_value", e.value)),
                                 "link-speed").props("dense").classes("w-24")
                self.send_button = tag(ui.button("send pose", icon="send", on_click=self.send_pose), "link-send") \
                    .props("flat dense no-caps").tooltip("move the arm to the joint values shown")
                self.play_button = tag(ui.button("play", icon="play_circle", on_click=self.play), "link-play") \
                    .props("flat dense no-caps").tooltip("play the pose list's trajectory on the arm")
                self.home_button = tag(ui.button("home", icon="home", on_click=self.home), "link-home") \
                    .props("flat dense no-caps").tooltip("move the arm to its home")
                ui.space()
                tag(ui.button("stop", icon="stop", color="negative", on_click=self.stop), "link-stop") \
                    .props("dense no-caps unelevated").tooltip("stop the arm now")
            self.progress = tag(ui.linear_progress(value=0.0, show_value=False, size="6px"), "link-progress")
            self.status = tag(ui.label(""), "link-status").classes("text-sm")
            self.table = tag(ui.table(columns=linkreadout.COLUMNS, rows=[], row_key="joint"), "link-readout") \
                .props("dense flat").classes("w-full")
            self.summary = tag(ui.label(""), "link-summary").classes("text-xs text-grey-8")
            ui.label(kind.note).classes("text-xs text-grey-7")
        self.shown_reading = None
        self.show()

    def _drawn(self) -> bool:
        return hasattr(self, "status") and not self.status.is_deleted

    def show(self) -> None:
        """Buttons, status, readout and the arm's drawing as the link stands."""
        if self._drawn():
            connected = self.driver is not None
            self.connect_button.text = "disconnect" if connected else "connect"
            for button in (self.send_button, self.play_button, self.home_button):
                button.set_enabled(connected and not self.busy)
            self.connect_button.set_enabled(not self.busy)
            for element in (self.emulate_button, self.port, self.calibration):
                element.set_enabled(not connected and not self.busy)
            self.status.text = self.message
            self.status.classes(replace="text-sm " + ("text-negative" if self.error else "text-grey-9"))
        self.mirror()

    def say(self, message: str, error: bool = False) -> None:
        self.message, self.error = message, error
        self.show()

    def mirror(self) -> None:
        """What the link last reported: the arm(s) beside the plan in the view, and for an arm
        that reads its joints the table of measured against commanded — both from one snapshot.
        Nothing when not connected, or when the view shows another robot."""
        driver = self.driver if self._same_robot() else None  # (same robot: connected)
        arms, reading = driver.snapshot(self.busy == "play") if driver is not None else ([], None)
        view = self.host.view
        view.show_mirror(arms if driver is not None and view.robot.joint_names == driver.robot.joint_names else [])
        if not self._drawn():
            return
        self.table.set_visibility(reading is not None)
        self.summary.set_visibility(reading is not None)
        if driver is not None and reading is not None and reading is not self.shown_reading:
            self.shown_reading = reading
            self.table.rows = linkreadout.rows(driver.robot, reading)
            self.summary.text = linkreadout.summary(driver.robot, reading)

    def tick(self) -> None:
        """The page's timer: a fault the poller met, a play's progress, the arm as last reported."""
        if self.driver is None:
            return
        if self.driver.fault is not None and not self.busy:
            self._lost(self.driver.fault)
            return
        if self.busy == "play":
            self._progress()
        self.mirror()

    def _progress(self) -> None:
        if self.driver is not None and self._drawn():
            done, total = self.driver.progress
            self.progress.value = done / total if total else 0.0

    # --- connecting ---------------------------------------------------------------------------
    async def use_emulator(self) -> None:
        kind = self.kind
        if kind is None or self.driver is not None or self.busy:
            return
        if kind not in self.emulators:
            self.emulators[kind] = kind.emulator()
            self.emulators[kind].start_tcp()
        self.port_value = self.port.value = self.emulators[kind].url
        await self.connect()

    async def toggle(self) -> None:
        if self.driver is None:
            await self.connect()
        else:
            await self.disconnect()

    async def connect(self) -> None:
        kind, url = self.kind, (self.port.value or "").strip()
        if kind is None or self.busy:
            return
        if not url:
            self.say(f"Give the arm's port ({kind.ports_help}), or press emulator.", True)
            return
        calibration = (self.calibration.value or "").strip() or None
        if calibration is not None and not SERVER_FOLDERS["allowed"]:
            self.say("calibration files on the server's machine are off while it listens beyond this machine", True)
            return
        try:
            driver = kind(url, self.host.session.robot, calibration)
        except (KinematicaError, OSError) as e:  # a malformed port or calibration file: its message names it
            self.say(f"not connected: {e}", True)
            return
        self.busy = "move"
        self.say(f"connecting to {url} ({kind.connecting})…")
        try:
            message = await run.io_bound(driver.connect)
        except LinkError as e:
            self.busy = ""
            self.say(str(e), True)
            return
        if message is None:  # NiceGUI ran nothing (the app is stopping) or gave up waiting: no link
            self.busy = ""
            threading.Thread(target=driver.close, name="link-close", daemon=True).start()
            self.say("not connected: the server is shutting down", True)
            return
        self.driver, self.busy = driver, ""
        self.timer.start()
        self.say(message)

    def _drop(self) -> BraccioLink | So101Link | None:
        """Forget the link (the caller closes it); the card is redrawn for the session's robot
        when that is not the arm it was for (another robot was chosen while connected)."""
        driver, self.driver = self.driver, None
        self.timer.stop()
        if driver is not None and type(driver) is not self.kind and hasattr(self, "box") and not self.box.is_deleted:
            self.box.clear()
            with self.box:
                self._draw()
        return driver

    async def disconnect(self) -> None:
        driver = self._drop()
        self.say("not connected")
        if driver is not None:
            await run.io_bound(driver.close)  # may wait for a read in flight: not on the page's loop

    def close(self) -> None:
        """The page has gone: close the link (in a thread: it may wait for a read) and the emulators."""
        driver, self.driver = self.driver, None
        if driver is not None:
            threading.Thread(target=driver.close, name="link-close", daemon=True).start()
        for emulator in self.emulators.values():
            emulator.stop()
        self.emulators.clear()

    def _lost(self, e: Exception) -> None:
        """A link fault: nothing more is sent; the user reconnects."""
        driver = self._drop()
        if driver is not None:
            threading.Thread(target=driver.close, name="link-close", daemon=True).start()
        self.say(f"{e} — reconnect to go on", True)

    # --- commands -----------------------------------------------------------------------------
    def _speed(self) -> tuple[int, str]:
        """The speed a command uses (°/s), the field set to it, and a note when it is not what the field held."""
        if self.driver is None:  # (the command buttons are enabled only while connected)
            raise RuntimeError("no arm is connected: a command has no speed range")
        lo, hi = self.driver.speed_range
        speed, note = applied(self.speed.value, lo, hi, min(max(SPEED_DEFAULT, lo), hi), "speed", "°/s")
        self.speed_value = self.speed.value = int(speed)
        return int(speed), f"{note}. " if note else ""

    async def _run(self, busy: str, started: str, call: Any, *args: Any) -> Any:
        """Run `call(*args)` in the worker thread as `busy`; its words, or None after a refusal
        or a lost link (both said)."""
        self.busy = busy
        self.say(started)
        try:
            return await run.io_bound(call, *args)
        except CommandRefused as e:
            self.say(f"not sent: {e}", True)
        except LinkError as e:
            self._lost(e)
        finally:
            self.busy = ""
            self.show()
        return None

    def _checked(self, check, what) -> tuple[int, str] | None:
        """(speed, its note) when `check(what, speed)` lets the command go; else None, the
        refusal said in the card (nothing is sent)."""
        speed, note = self._speed()
        try:
            check(what, speed)
        except CommandRefused as e:
            self.say(f"{note}not sent: {e}", True)
            return None
        return speed, note

    async def send_pose(self) -> None:
        driver, q = self.driver, self.host.session.q.copy()
        if driver is None or self.busy or self._other_robot():
            return
        checked = self._checked(driver.check_move, q)
        if checked is None:
            return
        speed, note = checked
        words = await self._run("move", f"{note}moving at {speed} °/s…", driver.move, q, speed)
        if words is not None:
            self.say(note + words)

    async def home(self) -> None:
        driver = self.driver
        if driver is None or self.busy or self._other_robot():
            return
        speed, note = self._speed()
        words = await self._run("move", f"{note}going home at {speed} °/s…", driver.home, speed)
        if words is not None:
            self.say(note + words)

    async def play(self) -> None:
        driver, tr = self.driver, self.host.session.trajectory
        if driver is None or self.busy or self._other_robot():
            return
        if tr is None:
            self.say("No trajectory: add poses to the pose list, and it is planned.", True)
            return
        checked = self._checked(driver.check_play, tr)
        if checked is None:
            return
        speed, note = checked
        self.progress.value = 0.0
        done = await self._run("play", f"{note}playing {len(tr)} points…", driver.play, tr, speed)
        if done is not None:
            self._progress()
            self.say(note + done[0], not done[1])

    async def stop(self) -> None:
        """Answers at once: while a command runs it asks it to stop; otherwise it stops the arm."""
        if self.driver is None:
            self.say("not connected: nothing to stop")
        elif self.busy:
            self.driver.request_stop()  # the worker stops the arm and says what happened
            self.say("stopping…")
        else:
            words = await self._run("move", "stopping…", self.driver.stop)  # nothing else starts meanwhile
            if words is not None:
                self.say(words)

