"""A robot uploaded as a .zip of its URDF and package folder(s): unpacked (safely, see
`packages.py`) into a folder of the page's own that is deleted when the page's client goes, so
the meshes the drawing and the collision model read stay on disk while the page shows them.
A zip with several URDFs (a package usually has one per robot variant) lets the user pick one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

from nicegui import ui

from kinematica.errors import InputError

from .packages import package_dirs, unpack, urdfs_in
from .panel import tag

# (the user's name for it, the unpacked URDF, the folders its packages resolve against)
OnURDF = Callable[[str, Path, tuple[Path, ...]], bool]


class RobotZip:
    """The page's unpacked zips and the dialog choosing a URDF among several; `on_urdf` opens
    the chosen one (False when it was refused)."""

    def __init__(self, on_urdf: OnURDF) -> None:
        self.on_urdf = on_urdf
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._count = 0
        self._offered: tuple[str, Path, dict[str, Path]] = ("", Path(), {})
        with ui.dialog() as self.dialog, ui.card().classes("w-[32rem]"):
            self.title = ui.label().classes("text-subtitle2")
            ui.label("This .zip holds several URDFs; its package folders serve whichever you open.") \
                .classes("text-sm text-grey-8")
            self.select = tag(ui.select({}, label="URDF"), "zip-urdf-select").classes("w-full")
            with ui.row().classes("w-full justify-end"):
                ui.button("cancel", on_click=self.dialog.close).props("flat")
                tag(ui.button("open", on_click=self._open), "zip-urdf-open")

    @property
    def folder(self) -> Path | None:
        """The page's folder of unpacked zips (None before the first)."""
        return None if self._tmp is None else Path(self._tmp.name)

    def _new_folder(self) -> Path:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="kinematica-packages-")
            # the bound method holds the folder only, not this page: nothing outlives the client
            ui.context.client.on_delete(self._tmp.cleanup)
        self._count += 1
        return Path(self._tmp.name) / f"zip-{self._count}"

    def open(self, name: str, data: bytes) -> bool:
        """Unpack the uploaded zip `name` (its bytes) and open its URDF, or offer its URDFs; False
        when nothing was opened. InputError (in words) for a zip refused or holding no URDF."""
        into = unpack(data, self._new_folder(), name)
        urdfs = urdfs_in(into)
        if not urdfs:
            shutil.rmtree(into, ignore_errors=True)
            raise InputError(f"{name}: holds no .urdf file; zip the robot's package folder with its URDF in it")
        if len(urdfs) == 1:
            return self.on_urdf(name, urdfs[0], package_dirs(into, urdfs[0]))
        options = {str(p.relative_to(into)): p for p in urdfs}
        self._offered = (name, into, options)
        self.title.text = f"Choose the robot in {name}"
        self.select.options = list(options)
        self.select.value = None
        self.select.update()
        self.dialog.open()
        return True

    def _open(self) -> None:
        name, into, options = self._offered
        if self.select.value not in options:
            ui.notify("choose a URDF first", type="warning")
            return
        self.dialog.close()
        urdf = options[self.select.value]
        self.on_urdf(name, urdf, package_dirs(into, urdf))
