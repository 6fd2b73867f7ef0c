"""The Simulator tab's Robot link card: connect to a Braccio on a serial port or to the built-in
emulator, mirror the arm in the 3-D view, send the current pose, play the planned trajectory
with a progress bar, and stop.

The arm is drawn as a translucent ghost ("arm") beside the plan, at the angles its board last
commanded: hobby servos report no position, so this is the command, not a measurement. Link
calls block (a move lasts as long as the arm takes), so they run in a worker thread and the page
stays live; the stop button never waits for one: during a play it only asks the stream to stop
(`Braccio.request_stop`, S within ~50 ms), otherwise it sends S itself. The link outlives a
rebuild of the tab (another robot chosen) and closes, with its emulator, when the page does.
"""

from __future__ import annotations

from nicegui import run, ui

from ..hardware import STATE_NOTE, Braccio, CommandRefused, Emulator, LinkError
from ..hardware import protocol as pr
from ..hardware.limits import check_robot, reached_q
from .panel import tag
from .tab import Host

POLL = 0.1  # s between progress updates during a play


class RobotLink:
    """The link of one Simulator tab; `card()` draws it in the current container."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.arm: Braccio | None = None
        self.emulator: Emulator | None = None
        self.busy = ""  # "", "move" or "play": what runs in the worker thread
        self.message, self.error = "not connected", False
        self.port_value = ""
        ui.context.client.on_delete(self.close)

    # --- drawing ------------------------------------------------------------------------------
    def card(self) -> None:
        with ui.card().classes("w-full p-3 gap-1"):
            with ui.row().classes("w-full items-center no-wrap"):
                ui.label("Robot link").classes("text-subtitle2")
                ui.space()
                ui.label("Braccio, or its emulator").classes("text-xs text-grey-7")
            try:
                check_robot(self.host.session.robot)
            except CommandRefused:
                tag(ui.label("The robot link drives a Tinkerkit Braccio (5 servo-mapped joints and a gripper): "
                             "choose the braccio robot to use it."), "link-status").classes("text-sm text-grey-8")
                return
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                self.port = tag(ui.input("port", value=self.port_value,
                                         placeholder="/dev/ttyACM0, COM4 or socket://127.0.0.1:PORT",
                                         on_change=lambda e: setattr(self, "port_value", e.value)),
                                "link-port").props("dense").classes("grow")
                self.emulate_button = tag(ui.button("emulator", icon="smart_toy", on_click=self.use_emulator),
                                          "link-emulator").props("flat dense no-caps") \
                    .tooltip("start a virtual Braccio on this machine and connect to it")
                self.connect_button = tag(ui.button("connect", on_click=self.toggle), "link-connect") \
                    .props("dense no-caps unelevated")
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                self.speed = tag(ui.number("speed °/s", value=60, min=pr.SPEED_RANGE[0], max=pr.SPEED_RANGE[1],
                                           step=5, format="%.0f"), "link-speed").props("dense").classes("w-24")
                self.send_button = tag(ui.button("send pose", icon="send", on_click=self.send_pose), "link-send") \
                    .props("flat dense no-caps").tooltip("move the arm to the joint values shown")
                self.play_button = tag(ui.button("play", icon="play_circle", on_click=self.play), "link-play") \
                    .props("flat dense no-caps").tooltip("play the pose list's trajectory on the arm")
                ui.space()
                tag(ui.button("stop", icon="stop", color="negative", on_click=self.stop), "link-stop") \
                    .props("dense no-caps unelevated").tooltip("stop the arm now (S)")
            self.progress = tag(ui.linear_progress(value=0.0, show_value=False, size="6px"), "link-progress")
            self.status = tag(ui.label(""), "link-status").classes("text-sm")
            ui.label(f"The ghost labelled “arm” is the state {STATE_NOTE}.").classes("text-xs text-grey-7")
        self.timer = ui.timer(POLL, self.poll, active=False)
        self.show()

    def show(self) -> None:
        """Buttons, status and the ghost as the link stands."""
        if not hasattr(self, "status") or self.status.is_deleted:
            return
        connected = self.arm is not None
        self.connect_button.text = "disconnect" if connected else "connect"
        for button in (self.send_button, self.play_button):
            button.set_enabled(connected and not self.busy)
        self.connect_button.set_enabled(not self.busy)
        self.emulate_button.set_enabled(not connected and not self.busy)
        self.status.text = self.message
        self.status.classes(replace="text-sm " + ("text-negative" if self.error else "text-grey-9"))
        self.mirror()

    def say(self, message: str, error: bool = False) -> None:
        self.message, self.error = message, error
        self.show()

    def mirror(self) -> None:
        """The arm's ghost at what its board commanded (nothing when not connected)."""
        view = self.host.view
        if view is None:
            return
        degrees = (self.arm.reached if self.busy == "play" and self.arm.reached else
                   self.arm.commanded) if self.arm is not None else None
        same_robot = self.arm is not None and view.robot.joint_names == self.arm.robot.joint_names
        view.show_mirror(reached_q(self.arm.robot, self.arm.calibration, degrees)
                         if degrees is not None and same_robot else None)

    # --- connecting ---------------------------------------------------------------------------
    async def use_emulator(self) -> None:
        if self.emulator is None:
            self.emulator = Emulator()
            self.emulator.start_tcp()
        self.port_value = self.port.value = self.emulator.url
        await self.connect()

    async def toggle(self) -> None:
        if self.arm is None:
            await self.connect()
        else:
            self.disconnect()

    async def connect(self) -> None:
        url = (self.port.value or "").strip()
        if not url:
            self.say("Give the arm's port (kinematica braccio ports lists them), or press emulator.", True)
            return
        arm = Braccio(url, robot=self.host.session.robot)
        self.busy = "move"
        self.say(f"connecting to {url} (an Uno restarts when its port opens: ~2 s)…")
        try:
            banner = await run.io_bound(arm.connect)
        except LinkError as e:
            self.busy = ""
            self.say(str(e), True)
            return
        self.arm, self.busy = arm, ""
        self.say(f"connected to {url}: protocol v{banner.version}, queue of {banner.depth} points")

    def disconnect(self) -> None:
        if self.arm is not None:
            self.arm.close()
        self.arm = None
        self.say("not connected")

    def close(self) -> None:
        """The page has gone: close the port and stop the emulator."""
        if self.arm is not None:
            self.arm.request_stop()
            self.arm.close()
            self.arm = None
        if self.emulator is not None:
            self.emulator.stop()
            self.emulator = None

    def _lost(self, e: Exception) -> None:
        """A link fault: the bridge sends nothing more; the user reconnects."""
        self.disconnect()
        self.say(f"{e} — reconnect to go on", True)

    # --- commands -----------------------------------------------------------------------------
    async def send_pose(self) -> None:
        arm, q, speed = self.arm, self.host.session.q.copy(), self.speed.value
        if arm is None or self.busy:
            return
        try:
            arm.check_move(q, speed)
        except CommandRefused as e:
            self.say(f"not sent: {e}", True)
            return
        self.busy = "move"
        self.say("moving…")
        try:
            rep = await run.io_bound(arm.move, q, speed)
        except LinkError as e:
            self.busy = ""
            self._lost(e)
            return
        self.busy = ""
        if rep.stopped:
            self.say(f"stopped on the way: the arm holds at servo degrees {list(arm.commanded or ())}")
        else:
            self.say(f"pose sent: servo degrees {list(rep.degrees)}; whole degrees put the tool "
                     f"{rep.quantisation_error:.2f} {arm.robot.length_unit} from the plan")

    async def play(self) -> None:
        arm, tr, speed = self.arm, self.host.session.trajectory, self.speed.value
        if arm is None or self.busy:
            return
        if tr is None:
            self.say("No trajectory: add poses to the pose list, and it is planned.", True)
            return
        try:
            arm.check_play(tr, speed=speed)
        except CommandRefused as e:
            self.say(f"not sent: {e}", True)
            return
        self.busy = "play"
        self.progress.value = 0.0
        self.timer.activate()
        self.say(f"playing {len(tr)} points…")
        try:
            res = await run.io_bound(arm.play, tr, None, None, speed)
        except LinkError as e:  # the state query after a stream that went well
            res, lost = None, e
        self.timer.deactivate()
        self.busy = ""
        if res is None:
            self._lost(lost)
            return
        self.poll()
        if res.ok or (arm.link is not None and arm.link.fault is None):
            self.say(f"{res.reason}; {res.acknowledged} of {res.points} points in {res.elapsed:.2f} s",
                     not res.ok)
        else:
            self._lost(LinkError(f"stream stopped after point {res.last_acknowledged}: {res.reason}"))

    async def stop(self) -> None:
        """Answers at once: during a play it asks the stream to stop; otherwise it sends S."""
        if self.arm is None:
            self.say("not connected: nothing to stop")
        elif self.busy:
            self.arm.request_stop()  # the worker sends S within ~50 ms and says what happened
            self.say("stopping…")
        else:
            self.busy = "move"  # nothing else starts while the S is on its way
            try:
                await run.io_bound(self.arm.stop)
            except LinkError as e:
                self.busy = ""
                self._lost(e)
                return
            self.busy = ""
            self.say("stopped: the arm holds where it is")

    def poll(self) -> None:
        if self.arm is None:
            return
        done, total = self.arm.progress
        self.progress.value = done / total if total else 0.0
        self.mirror()
