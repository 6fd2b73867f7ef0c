"""The chain picker: a URDF tree holds several serial chains, and the user picks one by its tip.

>>> chain_options({"tcp": ("j1", "j2", "j3"), "left": ("j1",)})
{'tcp': 'tcp — 3 joints (j1 … j3)', 'left': 'left — 1 joint (j1)'}
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

from nicegui import ui

import kinematica as km

from .panel import tag


def urdf_tips(name: str, data: bytes) -> dict[str, tuple[str, ...]]:
    """The candidate tips of uploaded file `name` (its bytes): none unless it is a URDF that reads
    (opening a file that does not read reports why)."""
    if Path(name).suffix.lower() != ".urdf":
        return {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", km.URDFWarning)  # said when the chain is opened
            return km.urdf_tips(data, where=name)
    except ValueError:
        return {}


def default_tip(name: str, data: bytes, tips: dict[str, tuple[str, ...]]) -> str | None:
    """The tip of the chain `km.load` takes without one, or None where the tree has no such chain."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", km.URDFWarning)
            joints = km.from_urdf(data, where=name).joint_names
    except ValueError:
        return None
    return next((tip for tip, key in tips.items() if key == joints), None)


def chain_options(tips: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """The select's options: tip link → "tip — n joints (first … last)"."""
    def joints(key: tuple[str, ...]) -> str:
        return key[0] if len(key) == 1 else f"{key[0]} … {key[-1]}"
    return {tip: f"{tip} — {len(key)} joint{'s' * (len(key) != 1)} ({joints(key)})" for tip, key in tips.items()}


class ChainPicker:
    """A dialog with a select of the candidate tips; `on_pick(tip)` opens the chosen chain."""

    def __init__(self, on_pick: Callable[[str], None]) -> None:
        self.on_pick = on_pick
        with ui.dialog() as self.dialog, ui.card().classes("w-[32rem]"):
            self.title = ui.label().classes("text-subtitle2")
            ui.label("This URDF is a tree: a robot here is one serial chain, from the root link to the "
                     "tip you choose. Joints off the chain are held at 0 (within their limits) and their "
                     "links ride along with the chain.").classes("text-sm text-grey-8")
            self.select = tag(ui.select({}, label="tip link"), "chain-select").classes("w-full")
            with ui.row().classes("w-full justify-end"):
                ui.button("cancel", on_click=self.dialog.close).props("flat")
                tag(ui.button("open", on_click=self._open), "chain-open")

    def offer(self, name: str, tips: dict[str, tuple[str, ...]], default: str | None) -> None:
        """Open the dialog for file `name` with its candidate tips, `default` chosen."""
        self.title.text = f"Choose a chain of {name}"
        self.select.options = chain_options(tips)
        self.select.value = default
        self.select.update()
        self.dialog.open()

    def _open(self) -> None:
        if not self.select.value:
            ui.notify("choose a tip link first", type="warning")
            return
        self.dialog.close()
        self.on_pick(self.select.value)
