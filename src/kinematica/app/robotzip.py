"""A robot uploaded as a .zip of its URDF and package folder(s): unpacked (safely, see
`packages.py`) into a temporary folder of the browser session's own, so the meshes the drawing
and the collision model read stay on disk while a page of that session shows them — a reload
too, whose new page opens before the old one goes — and deleted when its last page closes.
A zip with several URDFs (a package usually has one per robot variant) lets the user pick one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from nicegui import app, ui

from kinematica.errors import InputError

from .packages import package_dirs, unpack, urdfs_in
from .panel import tag

# (the user's name for it, the unpacked URDF, the folders its packages resolve against)
OnURDF = Callable[[str, Path, tuple[Path, ...]], bool]

# browser session id -> (its folder of unpacked zips, the ids of its pages still open)
_folders: dict[str, tuple[tempfile.TemporaryDirectory, set[str]]] = {}


def _session_id() -> str:
    """The browser session of the page being built (its own client id where the server keeps no
    browser storage)."""
    try:
        return "browser-" + str(app.storage.browser["id"])
    except (RuntimeError, KeyError, AssertionError):
        return "client-" + ui.context.client.id


def _hold(key: str) -> None:
    """The page being built keeps `key`'s folder until it is deleted."""
    client = ui.context.client
    pages = _folders[key][1]
    if client.id not in pages:
        pages.add(client.id)
        client.on_delete(lambda: _release(key, client.id))  # holds ids only, not the page


def _release(key: str, client_id: str) -> None:
    folder, pages = _folders.get(key, (None, set()))
    pages.discard(client_id)
    if folder is not None and not pages:
        del _folders[key]
        folder.cleanup()


class RobotZip:
    """The page's unpacked zips and the dialog choosing a URDF among several; `on_urdf` opens
    the chosen one (False when it was refused)."""

    def __init__(self, on_urdf: OnURDF) -> None:
        self.on_urdf = on_urdf
        self._key = _session_id()
        if self._key in _folders:  # a reload: the restored robots' meshes are there
            _hold(self._key)
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
        """The session's folder of unpacked zips (None before the first)."""
        return Path(_folders[self._key][0].name) if self._key in _folders else None

    def _new_folder(self) -> Path:
        if self._key not in _folders:
            _folders[self._key] = (tempfile.TemporaryDirectory(prefix="kinematica-packages-"), set())
        _hold(self._key)
        return Path(tempfile.mkdtemp(prefix="zip-", dir=_folders[self._key][0].name)) / "unpacked"

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
