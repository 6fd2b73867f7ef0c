"""Serving the simulator: `configure` (the robot new pages open with), `root` (one page) and
`run` (the server).

Each browser keeps its work in NiceGUI's per-user storage, written to a folder of this machine
(`state_dir`), so a reload — or a restart of `kinematica serve` — brings it back.
"""

from __future__ import annotations

import os
import secrets
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from nicegui import app, ui
from nicegui.storage import Storage

import kinematica as km
from kinematica import atomic

from . import stream
from .packages import SERVER_FOLDERS
from .page import Page, restore
from .state import DEFAULT_ROBOT, Session

__all__ = ["TITLE", "Config", "CONFIG", "configure", "root", "forget_endpoints", "give_back_memory", "state_dir",
           "storage_secret", "run"]

TITLE = "Kinematica — robot simulator"


@dataclass
class Config:
    """What `kinematica serve` chose for every new tab: the robot, and robots read from files."""

    robot: str = DEFAULT_ROBOT
    loaded: dict[str, km.Robot] = field(default_factory=dict)


CONFIG = Config()


def configure(robot: str | None = None, tip: str | None = None, hold: dict | None = None,
              package_dirs: tuple = ()) -> str:
    """Set the robot new tabs open with: a bundled name, or a .yaml / .urdf file (read now, so a
    bad file fails before the server starts; a URDF's chain to `tip`, joints off it held at
    `hold`). Returns the robot's label in the robot select."""
    CONFIG.loaded.clear()
    name = robot or DEFAULT_ROBOT
    if name in km.robot_names():
        CONFIG.robot = name
        return name
    session = Session()
    label = session.add_robot_file(name, tip=tip, hold=hold, package_dirs=package_dirs)
    CONFIG.loaded.update(session.loaded)
    CONFIG.robot = label
    return label


def root() -> None:
    """Build the page for one browser tab, with the work this browser saved."""
    ui.page_title(TITLE)
    store = app.storage.user
    Page(restore(store, CONFIG.robot, CONFIG.loaded), store, served_with=CONFIG.robot)


def give_back_memory() -> None:
    """Return the heap a deleted page freed to the operating system (glibc's `malloc_trim`).

    A closed page's objects are all collected (the soak test counts them), but glibc keeps the
    freed small blocks in its arenas: without a trim the server's resident size stays at its
    peak after the sessions leave (+10.9 % after 10 sessions, measured), with it it comes back
    to near its size before them. Elsewhere than glibc there is nothing to call."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        libc = None
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)


def forget_endpoints() -> None:
    """Empty FastAPI's caches of the endpoints it has classified (three `functools.lru_cache`s of
    up to 4 096 entries in `fastapi.dependencies.models`, keyed by the endpoint itself): each file
    dialog of a page registers an upload route whose endpoint holds its element, and after a
    closed page's routes are removed the caches still held them — 6 upload elements a session,
    measured. They refill at the next request; a FastAPI without them has nothing to empty."""
    from fastapi.dependencies import models

    for name in ("_is_gen_callable_cached", "_is_async_gen_callable_cached", "_is_coroutine_callable_cached"):
        clear = getattr(getattr(models, name, None), "cache_clear", None)
        if clear is not None:
            clear()


def state_dir() -> Path:
    """Where the browser sessions' work is kept: $KINEMATICA_STATE_DIR, else
    $XDG_STATE_HOME/kinematica (~/.local/state/kinematica)."""
    if os.environ.get("KINEMATICA_STATE_DIR"):
        return Path(os.environ["KINEMATICA_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "kinematica"


def storage_secret(folder: Path) -> str:
    """The key that signs the browser's session cookie: made once per machine and kept, so a
    restarted server still knows the browser."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "secret"
    if not path.exists():  # never half a key, and never readable by others, even for a moment
        atomic.write_bytes(path, secrets.token_hex(32).encode(), mode=0o600)
    return path.read_text().strip()


def run(robot: str | None = None, *, host: str = "127.0.0.1", port: int = 8080, show: bool = True,
        tip: str | None = None, hold: dict | None = None, stream_to: str | None = None,
        package_dirs: tuple = ()) -> None:
    """Serve the simulator (blocking until stopped); `tip` and `hold` choose a URDF tree's chain,
    `package_dirs` where its meshes' packages are (see `configure`); `stream_to` (udp://HOST:PORT)
    sends every joint state shown as a JSON line (see app/stream.py). Every asset is served by
    this process: the page works offline."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)  # `kinematica serve` said them already
        configure(robot, tip, hold, package_dirs)
    stream.start(stream_to)
    SERVER_FOLDERS["allowed"] = host in ("127.0.0.1", "localhost", "::1")
    folder = state_dir()
    Storage.path = (folder / "sessions").resolve()  # not ./.nicegui in whatever folder serve ran from
    app.on_delete(forget_endpoints)
    app.on_delete(give_back_memory)
    ui.run(root, host=host, port=port, show=show, reload=False, title=TITLE, favicon="🦾",
           show_welcome_message=False, uvicorn_logging_level="warning", storage_secret=storage_secret(folder))
