"""A file drop zone (`FileDrop`): NiceGUI's upload element with what the simulator's three
uploads (project, pose list, robot file) need on top of it.

- A refused file is said in words beside the widget — the file's name as the user knows it (not
  a temporary path on the server), the reason, in red — and the widget is cleared, so it does
  not go on showing the green "100 %" of a transfer that worked for a file that did not.
- Its handler holds the page weakly. NiceGUI gives every upload element a route of its own, and
  FastAPI keeps each route's endpoint in a module-level cache (`fastapi.dependencies.models`,
  4096 entries) after the route is removed: through a strong handler that would keep the whole
  page — its session, plots and MathML — alive long after its browser left.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path

from nicegui import events, ui

from .panel import tag

Handler = Callable[[events.UploadEventArguments], Awaitable[None]]


def weak(method: Handler) -> Handler:
    """An upload handler calling the bound `method` while its object lives (see the module
    docstring); once the page is gone, an upload to its old route does nothing."""
    ref = weakref.WeakMethod(method)

    async def handler(e: events.UploadEventArguments) -> None:
        bound = ref()
        if bound is not None:
            await bound(e)

    return handler


def in_words(name: str, error: BaseException, path: str | Path | None = None) -> str:
    """`error` about the file the user calls `name`: the server's copy at `path` renamed to it,
    and the name said once, first."""
    text = " ".join(str(error).split()) or type(error).__name__
    if path is not None:
        text = text.replace(str(path), name)
    return text if text.startswith(name) else f"{name}: {text}"


class FileDrop:
    """An upload element (marked `testid`) with a line for a refused file under it (marked
    `testid`-error). The handler reports the outcome: `accepted()` or `refused(...)`."""

    def __init__(self, testid: str, label: str, accept: str, on_upload: Handler) -> None:
        self.upload = tag(ui.upload(label=label, auto_upload=True, max_files=1, on_upload=weak(on_upload)), testid) \
            .props(f'accept="{accept}" flat bordered').classes("w-full")
        self.error = tag(ui.label(""), f"{testid}-error").classes("w-full text-sm text-red-10 bg-red-1 rounded px-3 py-2")
        self.error.set_visibility(False)
        self.upload.on("added", self.clear)  # a new file chosen: the last one's error goes

    def clear(self) -> None:
        """No error said: the zone as it first opened (its dialog opened again, a new file chosen)."""
        self.error.set_text("")
        self.error.set_visibility(False)

    def accepted(self) -> None:
        """The file was taken: the widget is cleared for the next one, an old error goes."""
        self.upload.reset()
        self.clear()

    def refused(self, name: str, error: BaseException, path: str | Path | None = None) -> None:
        """The file `name` was not taken because of `error` (see `in_words`; `path` is where the
        server kept its copy): said in red, and the widget cleared — nothing was loaded."""
        self.upload.reset()
        self.error.set_text(f"Not opened — {in_words(name, error, path)}")
        self.error.set_visibility(True)
