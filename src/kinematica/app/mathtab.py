"""The MathTab of the page (being built)."""

from __future__ import annotations

from nicegui import ui

from .page import LazyTab


class MathTab(LazyTab):
    name = "math"

    def __init__(self, page) -> None:
        super().__init__(page)
        self.box = ui.column().classes("w-full")

    def render(self) -> None:
        self.box.clear()
        with self.box:
            ui.label(self.page.session.robot_name)
