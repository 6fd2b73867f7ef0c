"""Loading a learned IK model into the Simulator tab: a file drop in a dialog, and a line in the
IK card saying which model is loaded and how good it was on its held-out targets. Once loaded,
the IK panel offers the model as a method and as where a numeric solve starts (`learned.py`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from nicegui import events, ui

from .panel import tag
from .tab import Host
from .uploads import FileDrop

NONE_YET = "No learned model for this robot: load one made by `kinematica learn ik` to use it as a method or a start."


class ModelLoader:
    """The model dialog (built once per tab) and the model line of the IK card (`row`, built
    with the card for each robot). `offered` runs once a model is loaded: the IK panel adds it to
    its methods and starts."""

    def __init__(self, host: Host, offered: Callable[[], None]) -> None:
        self.host = host
        self.offered = offered
        self.summary: ui.label | None = None
        with ui.dialog() as self.dialog, ui.card().classes("w-96"):
            ui.label("Load a learned IK model").classes("text-subtitle2")
            self.hint = ui.label("").classes("text-sm text-grey-8")
            self.drop = FileDrop("model-upload", "drop a model file (.npz) here, or press +", ".npz", self.upload)

    def row(self) -> None:
        """The model line, inside the IK card."""
        with ui.row().classes("w-full items-center no-wrap gap-2"):
            self.summary = tag(ui.label(""), "model-summary").classes("grow text-xs text-grey-8")
            tag(ui.button("model", icon="psychology", on_click=self.open), "open-model-file") \
                .props("flat dense no-caps").tooltip("load a learned IK model (ANFIS) for this robot")
        self.show()

    def open(self) -> None:
        self.hint.set_text(f"A model file written by `kinematica learn ik {self.host.session.robot.name} --out MODEL` "
                           "(a model of this robot: one for another robot is refused). It joins the IK methods, "
                           "and a numeric method can start from its answer.")
        self.dialog.open()

    def show(self) -> None:
        loaded = self.host.session.model
        if self.summary is not None:
            self.summary.set_text(f"Model {loaded.summary()}." if loaded is not None else NONE_YET)

    async def upload(self, e: events.UploadEventArguments) -> None:
        name, data = e.file.name, await e.file.read()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "model.npz"
            path.write_bytes(data)
            try:
                self.host.session.add_model_file(path, name)
            except (ValueError, OSError) as err:
                self.drop.refused(name, err, path)
                return
        self.drop.accepted()
        self.dialog.close()
        self.offered()
        self.show()
        ui.notify(f"Model {name} loaded: pick “ANFIS model alone” as the method, or start a numeric solve from its answer.",
                  type="positive")
        self.host.changed("model")

    def seed_changed(self, seed: str) -> None:
        self.host.session.seed = seed
        self.host.changed("target")
