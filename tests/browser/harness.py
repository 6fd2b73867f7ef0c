"""The real-browser setup shared by the browser tests and scripts/screenshots.py: the simulator
served by `kinematica serve` in a subprocess (tests/serving.py), and Debian's Chromium
(/usr/bin/chromium) driven headless by Playwright for Python — no browser download, and every
request that is not to 127.0.0.1 blocked (and recorded, so a test can say none was tried).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for `serving`

from serving import Server, free_port  # noqa: E402

__all__ = ["Browser", "Server", "free_port", "why_not_available", "CHROMIUM", "FLAGS", "VIEWPORT", "pose",
           "joint_values", "wait_for_scene", "set_target", "choose", "solve", "readme_screenshots",
           "SCREENSHOTS"]

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1440, "height": 960}


def why_not_available() -> str | None:
    """None when the browser tests can run here, else the reason in words."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return (f"no Chromium at {CHROMIUM}: install Debian's chromium package "
                "(scripts/test.sh does, with apt-get)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright; no browser download needed)"
    return None


class Browser:
    """Headless Chromium (Playwright gives it a fresh profile); `page()` opens a page whose requests leave
    127.0.0.1 never (they are aborted and listed in `blocked`)."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        self.blocked: list[str] = []

    def page(self, url: str, viewport: dict | None = None):
        page = self.browser.new_page(viewport=viewport or VIEWPORT)
        page.route("**/*", self._route)
        page.goto(url)
        return page

    def _route(self, route) -> None:
        host = urlparse(route.request.url).hostname
        if host == "127.0.0.1":
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.browser.close()
        with contextlib.suppress(Exception):
            self._pw.stop()


# --- reading and driving the page --------------------------------------------------------------
def pose(page) -> list[float]:
    """The readout: x, y, z (length unit), roll, pitch, yaw (deg)."""
    return [float(page.get_by_test_id(f"pose-{n}").inner_text())
            for n in ("x", "y", "z", "roll", "pitch", "yaw")]


def joint_values(page, n: int) -> list[float]:
    """The joint values the sliders hold (degrees, or the length unit), unrounded; the fields
    beside them show the same values to 0.01."""
    return [float(page.get_by_test_id(f"joint-{i + 1}-slider").get_attribute("aria-valuenow"))
            for i in range(n)]


def wait_for_scene(page, settle_ms: int = 400) -> None:
    """Until the 3-D view is connected and has drawn a few frames."""
    page.wait_for_selector('.nicegui-scene:not([data-initializing]) canvas', timeout=20_000)
    page.wait_for_timeout(settle_ms)


def set_target(page, **values: float) -> None:
    for name, v in values.items():
        page.get_by_test_id(f"target-{name}").fill(f"{v:g}")


def choose(page, testid: str, option: str) -> None:
    """Pick `option` in the select marked `testid`."""
    page.get_by_test_id(testid).click()
    page.get_by_role("option", name=option, exact=True).click()


def solve(page, expect_words: str) -> None:
    from playwright.sync_api import expect

    page.get_by_test_id("solve").click()
    expect(page.get_by_test_id("ik-message")).to_contain_text(expect_words, timeout=15_000)


# --- the README's screenshots ------------------------------------------------------------------
SCREENSHOTS = ("simulator.png", "simulator-solutions.png")


def readme_screenshots(browser: Browser, url: str, folder: Path, seen: dict | None = None) -> list[Path]:
    """The README's pictures: the Braccio in IK mode with a solved target and its link frames;
    the Puma 560 with the eight closed-form solutions of a pose target, numbered ghosts (those
    outside the joint limits in grey) and the list beside them. `seen` receives what the pages
    showed (joint fields, readout, the solutions summary), for checking the README's words."""
    seen = {} if seen is None else seen
    from playwright.sync_api import expect

    folder.mkdir(parents=True, exist_ok=True)
    page = browser.page(url, viewport={"width": 1440, "height": 1000})
    wait_for_scene(page)
    page.get_by_test_id("mode").get_by_text("IK").click()
    set_target(page, x=150, y=50, z=100)
    solve(page, "Solved")
    page.get_by_test_id("frames").click()
    page.wait_for_timeout(500)
    seen["braccio joints"] = [page.get_by_test_id(f"joint-{i + 1}-number").input_value() for i in range(5)]
    seen["braccio pose"] = [page.get_by_test_id(f"pose-{n}").inner_text()
                            for n in ("x", "y", "z", "roll", "pitch", "yaw")]
    seen["braccio verdict"] = page.get_by_test_id("pose-singularity").inner_text()
    first = folder / SCREENSHOTS[0]
    page.screenshot(path=str(first))
    page.close()

    page = browser.page(url, viewport={"width": 1440, "height": 1000})
    wait_for_scene(page)
    choose(page, "robot-select", "puma560")
    expect(page.get_by_test_id("scene-caption")).to_contain_text("puma560")
    wait_for_scene(page)
    page.get_by_test_id("mode").get_by_text("IK").click()
    choose(page, "method", "closed form (analytic)")
    set_target(page, x=0.704, y=0.097, z=0.044, roll=77, pitch=52, yaw=87)
    solve(page, "Solved")
    page.get_by_test_id("ghosts-outside").click()
    page.get_by_test_id("solution-8").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    seen["puma summary"] = page.get_by_text("8 solutions,").inner_text()
    second = folder / SCREENSHOTS[1]
    page.screenshot(path=str(second))
    page.close()
    return [first, second]
