"""What a tab and the widgets inside it may ask of what holds them — protocols, not classes.

A change flows one way: a widget changes the session, then tells its host `changed(*what)`
with what changed ("robot", "q", "mode", "target", "ik", "poses", "plan", "view",
"workspace"); the Simulator tab passes that on to the page, which updates every tab and saves
the project. Widgets (the player, the Poses card, the workspace, the robot link) see their tab
only as a `Host`, and tabs see the page only as a `PageHost`, so no module imports the module
that builds it: `page.py` imports the tabs, the tabs import their widgets, and nothing points
back up (tests/test_imports.py checks the whole package for cycles).

`LazyTab` is the base of the tabs whose content is costly to draw (Plots, Math, Robot): they
redraw only when shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # types only: neither module imports this one
    from .scene import ArmView
    from .state import Session


@runtime_checkable
class Host(Protocol):
    """What a widget asks of the tab it sits in (the Simulator tab is one)."""

    session: Session

    @property
    def view(self) -> ArmView:
        """The tab's 3-D view (rebuilt with the tab: read it when needed, do not keep it)."""
        ...

    def changed(self, *what: str) -> None:
        """The session changed in `what`: every tab hears of it, and the project is saved."""
        ...

    def refresh(self) -> None:
        """Show the session's joint values in the tab: sliders, fields, readout, arm."""
        ...

    def build(self) -> None:
        """Rebuild the tab's panels and view for the session (after a new robot or scene)."""
        ...


@runtime_checkable
class PageHost(Protocol):
    """What a tab asks of the page that holds it."""

    session: Session
    current: str  # the key of the tab shown

    def changed(self, *what: str, by: object = None) -> None:
        """The session changed in `what`: every tab updates (but `by`, which has), and the work
        is saved."""
        ...

    def select(self, key: str) -> None:
        """Show the tab `key` ("simulator", "plots", "math", "robot")."""
        ...

    def played(self) -> None:
        """The player moved `session.t` during playback: tabs that follow the time show it."""
        ...


class Tab(Protocol):
    def update(self, what: set[str]) -> None: ...


class LazyTab:
    """A tab that redraws only when shown: `render()` builds its content from the session."""

    name = ""

    def __init__(self, page: PageHost) -> None:
        self.page = page
        self.stale = True

    def update(self, what: set[str]) -> None:
        self.stale = True
        if self.page.current == self.name:
            self.shown()

    def shown(self) -> None:
        if self.stale:
            self.stale = False
            self.render()

    def render(self) -> None:  # pragma: no cover — every tab defines it
        raise NotImplementedError
