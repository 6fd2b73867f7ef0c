"""One browser tab's page: the header with the tabs (Simulator, Plots, Math, Robot) and the
project menu, the session they share, and how a change reaches every tab and the saved state.

A tab changes the session, then calls `page.changed(what)` with what changed ("robot", "q",
"mode", "target", "ik", "poses", "plan", "view"); tabs see the page only as a `tab.PageHost`,
and the page is the one module that imports them (`tab.py` holds their base). Every tab's
`update(what)` runs; tabs whose content is costly (Math, Plots) only mark themselves stale
unless they are the one shown, and catch up when selected (`shown`). The session is saved to
the browser session's storage after every change, so a reload restores it (`restore`): at once,
except a change of q alone (a slider dragged, ~10 events a second), which is saved once the
moves pause for SAVE_AFTER s — or sooner, when the page goes or its browser opens another page
(`restore` takes the pending save first, so a reload never misses the last move).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import MutableMapping

from nicegui import events, ui

from . import project
from .mathtab import MathTab
from .panel import tag
from .plots import PlotsTab
from .robottab import RobotTab
from .simulator import SimulatorTab
from .state import Session
from .tab import LazyTab, Tab
from .uploads import FileDrop

TABS = {"simulator": ("Simulator", "precision_manufacturing"), "plots": ("Plots", "show_chart"),
        "math": ("Math", "functions"), "robot": ("Robot", "table_chart")}
STORE_KEY = "project"
SAVE_AFTER = 0.5  # s a run of joint moves pauses before it is saved (a save is ~1 ms of the server's CPU)
_UNSAVED: weakref.WeakValueDictionary[int, Page] = weakref.WeakValueDictionary()  # id(store) → page
# A slider set by the server (a field typed, home, the player, a solve) jumps to its value as
# the arm does. Quasar glides its thumb, bar and label there for 0.28 s: values the arm is not
# at, and a page re-laid out at every frame of it — most of the browser's work per slider event
# (≈ 16 layouts a click, measured; issue 32 item 13).
SLIDERS_CSS = """
.q-slider--inactive .q-slider__thumb, .q-slider--inactive .q-slider__selection,
.q-slider--inactive .q-slider__text-container { transition: none; }
"""


def restore(store: MutableMapping | None, robot: str, loaded: dict) -> Session:
    """The session saved in `store` (a reload), or a fresh one with `robot`. A saved project
    that no longer opens (another version) is set aside with a notice, not lost silently."""
    pending = _UNSAVED.get(id(store))
    if pending is not None and pending.store is store:
        pending.flush()  # this browser's other page (the one being reloaded) moved the arm just now
    saved = store.get(STORE_KEY) if store is not None else None
    if saved and store is not None:  # (a saved project came from the store)
        try:
            # as JSON text: the store hands back its own (observable) dicts, which the robot
            # files' YAML writer refuses — every uploaded robot was lost on a reload
            s = project.loads(json.dumps(saved))
            if store.get("served_with") == robot:
                return s
            s.loaded.update(loaded)  # served with another robot since: open that one, keep the poses
            s.set_robot(robot)
            return s
        except ValueError as e:
            ui.notify(f"The saved work could not be restored ({e}); starting afresh.", type="warning")
    return Session(robot_name=robot, loaded=dict(loaded))


class Page:
    """The header, the four tabs, and the project menu of one browser tab."""

    def __init__(self, session: Session, store: MutableMapping | None = None, served_with: str = "") -> None:
        self.session = session
        self.store = store
        self._save_due: asyncio.TimerHandle | None = None
        if store is not None:
            ui.context.client.on_disconnect(self.flush)
        self.served_with = served_with
        self.current = "simulator"
        ui.colors(primary="#37474f", accent="#fb8c00")
        ui.add_css(SLIDERS_CSS)
        with ui.header(elevated=False).classes("items-center bg-blue-grey-9 py-1 px-4"):
            ui.label("Kinematica").classes("text-lg font-semibold")
            ui.label("robot simulator").classes("text-sm opacity-80")
            with ui.tabs(on_change=self._selected).props("dense inline-label").classes("ml-6") as self.tab_bar:
                heads = {key: tag(ui.tab(key, label=label, icon=icon), f"tab-{key}")
                         for key, (label, icon) in TABS.items()}
            ui.space()
            self._project_menu()
        self.tabs: dict[str, Tab] = {}
        with ui.tab_panels(self.tab_bar, value=heads["simulator"]).classes("w-full bg-transparent") \
                .props("keep-alive"):
            for key, cls in (("simulator", SimulatorTab), ("plots", PlotsTab), ("math", MathTab),
                             ("robot", RobotTab)):
                with ui.tab_panel(heads[key]).classes("p-2"):
                    self.tabs[key] = cls(self)
        self.save()

    # --- changes ------------------------------------------------------------------------------
    def changed(self, *what: str, by: object = None) -> None:
        """Something in the session changed: every tab updates — but `by`, the tab that made the
        change and has shown it already — and the work is saved."""
        kinds = set(what)
        for tab in self.tabs.values():
            if tab is not by:
                tab.update(kinds)
        if kinds == {"q"}:
            self.save_soon()
        else:
            self.save()

    def played(self) -> None:
        """The player moved `session.t` (nothing else changed: the project is saved when it
        stops): the Plots tab's time line follows."""
        plots = self.tabs.get("plots")
        if isinstance(plots, PlotsTab):
            plots.follow(self.session.t)

    def save(self) -> None:
        """The session into the store now (each write is also a file write by NiceGUI)."""
        if self._save_due is not None:
            self._save_due.cancel()
            self._save_due = None
        if self.store is not None:
            self.store[STORE_KEY] = project.to_dict(self.session)
            if self.store.get("served_with") != self.served_with:
                self.store["served_with"] = self.served_with

    def save_soon(self) -> None:
        """`save` once changes pause for SAVE_AFTER s; at once where no event loop runs."""
        if self.store is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save()
            return
        if self._save_due is not None:
            self._save_due.cancel()
        _UNSAVED[id(self.store)] = self
        self._save_due = loop.call_later(SAVE_AFTER, self.flush)

    def flush(self) -> None:
        """A pending `save_soon` done now."""
        if self._save_due is not None:
            self.save()

    def select(self, key: str) -> None:
        self.tab_bar.set_value(key)

    def _selected(self, e: events.ValueChangeEventArguments) -> None:
        self.current = e.value
        tab = self.tabs.get(e.value)
        if isinstance(tab, LazyTab):
            tab.shown()

    # --- the project menu ---------------------------------------------------------------------
    def _project_menu(self) -> None:
        with ui.dialog() as self.open_dialog, ui.card().classes("w-96"):
            ui.label("Open a project").classes("text-subtitle2")
            ui.label(f"A {project.SUFFIX} file saved from this menu: robot, joint values, poses, "
                     "trajectory settings and view. It replaces the work in this tab.") \
                .classes("text-sm text-grey-8")
            self.project_drop = FileDrop("project-upload", "drop a project file here, or press +", ".json",
                                         self.open_project)
        with tag(ui.button(icon="folder_open"), "project-menu").props("flat round color=white") \
                .tooltip("project: save, open, start afresh"):
            with ui.menu():
                tag(ui.menu_item("Save project", on_click=self.save_project), "project-save")
                tag(ui.menu_item("Open project…", on_click=self._open_project_dialog), "project-open")
                tag(ui.menu_item("New project", on_click=self.new_project), "project-new")

    def _open_project_dialog(self) -> None:
        """The project dialog, without the error of a file refused when it was last open."""
        self.project_drop.clear()
        self.open_dialog.open()

    def save_project(self) -> None:
        name = f"{self.session.robot_name.split(' ')[0]}{project.SUFFIX}"
        ui.download.content(project.dumps(self.session), name, "application/json")

    async def open_project(self, e: events.UploadEventArguments) -> None:
        try:
            session = project.loads(await e.file.read())
        except ValueError as err:
            self.project_drop.refused(e.file.name, err)
            return
        self.project_drop.accepted()
        self._replace(session)

    def new_project(self) -> None:
        self._replace(Session(robot_name=self.served_with or self.session.robot_name))

    def _replace(self, session: Session) -> None:
        """Start the page over on `session` (saved first, so the reload shows it)."""
        self.session = session
        self.save()
        if self.store is None:
            return
        ui.navigate.reload()
