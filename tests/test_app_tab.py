"""The simulator's tabs and widgets meet through app/tab.py's protocols: the Simulator tab is the
`Host` its widgets were given, the page is the `PageHost` of every tab, and a change a widget
reports reaches every tab and the saved project through them (NiceGUI's simulated user)."""

from __future__ import annotations

import gc

import pytest
from app_user import one
from nicegui.testing import User

from kinematica.app.page import Page
from kinematica.app.tab import Host, LazyTab, PageHost

pytestmark = pytest.mark.asyncio


def the_page() -> Page:
    pages = [o for o in gc.get_objects() if isinstance(o, Page)]
    assert pages
    return pages[-1]  # the one the simulated user just opened


async def test_the_tab_is_the_host_of_its_widgets(user: User) -> None:
    page = the_page()
    assert isinstance(page, PageHost)
    sim = page.tabs["simulator"]
    assert isinstance(sim, Host)
    assert all(w.host is sim for w in (sim.player, sim.poses, sim.workspace, sim.link))
    assert all(tab.page is page for tab in page.tabs.values() if isinstance(tab, LazyTab))


async def test_a_widget_change_reaches_every_tab_and_the_project(user: User) -> None:
    page = the_page()
    lazy = [tab for tab in page.tabs.values() if isinstance(tab, LazyTab)]
    assert lazy  # Plots, Math, Robot
    for tab in lazy:
        tab.stale = False
    assert page.store is not None  # the browser tab's storage, as served
    saved_before = len(page.store["project"]["poses"])
    user.find(marker="pose-add").click()  # the Poses card: host.changed("poses")
    await user.should_see(marker="pose-1-name")
    assert all(tab.stale for tab in lazy)  # not shown: marked to redraw when selected
    assert len(page.store["project"]["poses"]) == saved_before + 1
    assert one(user, "pose-1-name").value == "P1"
