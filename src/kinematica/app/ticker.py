"""`Ticker`: a page timer that exists only while it runs.

NiceGUI wakes an inactive `ui.timer` at its interval all the same (a 30 Hz one cost every open
page ~10 ms of the server's CPU a second), so a timer that is mostly idle — the player's frames,
the robot link's redraws — is made at `start` and cancelled at `stop`, in the slot it was set up
in (one that outlives the owner's redraws).
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui


class Ticker:
    """`callback` every `interval` s between `start()` and `stop()`, in the current slot's page."""

    def __init__(self, interval: float, callback: Callable[[], object], immediate: bool = True) -> None:
        self.interval, self.callback, self.immediate = interval, callback, immediate
        self.slot = ui.context.slot
        self.timer: ui.timer | None = None

    @property
    def running(self) -> bool:
        return self.timer is not None

    def start(self) -> None:
        if self.timer is None:
            with self.slot:
                self.timer = ui.timer(self.interval, self.callback, immediate=self.immediate)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
