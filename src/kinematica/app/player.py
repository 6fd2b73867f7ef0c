"""The trajectory player under the 3-D view: play / pause, a scrub slider over [0, duration],
the time, the speed (0.25× … 4×) and loop.

Playing advances `session.t` by the wall-clock time since the last frame times the speed
(a ~30 Hz timer), puts the arm at `q_at(trajectory, t)` and shows it through the Simulator
tab's `refresh` (sliders, readout, arm); with a workspace open it stops at the first collision
ahead and says so. The other tabs and the saved project hear about the
new q only when playback stops (pause, the end, a scrub): saving the project every frame would
write the browser storage 30 times a second for nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from nicegui import ui

from .panel import tag
from .playlist import q_at
from .state import SPEEDS
from .tab import Host
from .ticker import Ticker

FPS = 30.0


class Player:
    """The player bar of one Simulator tab; `reload()` after the trajectory was re-planned."""

    def __init__(self, host: Host, first_collision: Callable[[Any, float], Any]) -> None:
        self.host = host
        self.session = host.session
        self.first_collision = first_collision  # (trajectory, t) -> the workspace's first collision after t, or None
        self._quiet = False
        self._last = 0.0  # time.monotonic() of the last frame
        self.stop_at = None  # the workspace's first collision ahead of this playback, if any
        plan = self.session.plan
        with ui.row().classes("w-full items-center no-wrap gap-3 px-1"):
            self.button = tag(ui.button(icon="play_arrow", on_click=self.toggle), "player-play") \
                .props("round dense unelevated").tooltip("play / pause the pose list")
            self.scrub = tag(ui.slider(min=0.0, max=1.0, step=0.01, value=0.0,
                                       on_change=lambda e: self.scrubbed(e.value)), "player-scrub") \
                .classes("grow")
            self.time = tag(ui.label(""), "player-time").classes("font-mono text-sm w-28 shrink-0 text-right")
            self.speed = tag(ui.select(SPEEDS, value=plan.speed,
                                       on_change=lambda e: self.set_speed(e.value)), "player-speed") \
                .props("dense options-dense").classes("w-20 shrink-0").tooltip("playback speed")
            self.loop = tag(ui.checkbox("loop", value=plan.loop, on_change=lambda e: self.set_loop(bool(e.value))),
                            "player-loop").props("dense")
        self.frames = Ticker(1.0 / FPS, self.tick, immediate=False)  # exists only while playing
        self.reload()

    # --- state ------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self.frames.running

    @property
    def duration(self) -> float:
        tr = self.session.trajectory
        return tr.duration if tr is not None else 0.0

    def reload(self) -> None:
        """The trajectory changed: new slider range, the time kept within it; a playback of the
        old trajectory stops."""
        if self.playing:
            self.halt()
        has = self.session.trajectory is not None
        with self._silent():
            self.scrub.props(f"max={max(self.duration, 0.01)}")
            self.scrub.value = self.session.t
        for element in (self.button, self.scrub):
            element.enable() if has else element.disable()
        self._show_time()

    def _show_time(self) -> None:
        self.time.set_text(f"{self.session.t:5.2f} / {self.duration:.2f} s" if self.duration else "no trajectory")

    @contextmanager
    def _silent(self):
        """Set the slider without it reporting back as a scrub."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    # --- what the user did ----------------------------------------------------------------------
    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def play(self) -> None:
        if self.session.trajectory is None:
            ui.notify(self.session.trajectory_note or "Add at least 2 poses to play them.", type="warning")
            return
        if self.session.t >= self.duration - 1e-9:  # at the end: play from the start again
            self.session.t = 0.0
        self.stop_at = self.first_collision(self.session.trajectory, self.session.t)
        self._last = time.monotonic()
        self.frames.start()
        self.button.props("icon=pause")
        self.show()

    def halt(self) -> None:
        """Stop the timer without telling the page (another change is already on its way)."""
        self.frames.stop()
        self.button.props("icon=play_arrow")

    def pause(self) -> None:
        """Stop where the arm is; the other tabs and the saved project hear of the new q now."""
        self.halt()
        self.host.changed("q", "plan")

    def tick(self) -> None:
        now = time.monotonic()
        dt, self._last = now - self._last, now
        s, end = self.session, self.duration
        s.t += dt * s.plan.speed
        hit = self.stop_at
        if hit is not None and s.t >= hit.time:  # the workspace's first collision ahead: stop there
            s.t = hit.time
            self.stop_at = None
            self.show()
            self.pause()
            ui.notify(f"Stopped at the first collision, t = {hit.time:.2f} s: "
                      + "; ".join(f"{a} with {b}" for a, b in hit.collisions), type="warning")
            return
        if s.t >= end:
            if s.plan.loop and end > 0:
                s.t %= end
            else:
                s.t = end
                self.show()
                self.pause()
                return
        self.show()

    def show(self) -> None:
        """Put the arm at the trajectory's q at session.t, on every control of the tab."""
        s = self.session
        if s.trajectory is None:
            return
        s.q = q_at(s.trajectory, s.t)
        self.host.refresh()
        with self._silent():
            self.scrub.value = round(s.t, 2)
        self._show_time()

    def scrubbed(self, value: float | None) -> None:
        if self._quiet or value is None or self.session.trajectory is None:
            return
        self.session.t = min(max(float(value), 0.0), self.duration)
        self._last = time.monotonic()
        self.show()
        if not self.playing:
            self.host.changed("q", "plan")

    def set_speed(self, value: float) -> None:
        self.session.plan.speed = float(value)
        self.host.changed("plan")

    def set_loop(self, on: bool) -> None:
        self.session.plan.loop = bool(on)
        self.host.changed("plan")

    def external(self, what: set[str]) -> None:
        """Another control moved the arm during playback: the user took over, so stop."""
        if "q" in what and self.playing:
            self.halt()
