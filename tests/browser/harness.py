"""The real-browser setup shared by the browser tests and scripts/screenshots.py: the simulator
served by `kinematica serve` in a subprocess (tests/serving.py), and Debian's Chromium
(/usr/bin/chromium) driven headless by Playwright for Python — no browser download, and every
request that is not to 127.0.0.1 blocked (and recorded, so a test can say none was tried).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for `serving`

from serving import Server, free_port  # noqa: E402

__all__ = ["Browser", "Server", "free_port", "why_not_available", "CHROMIUM", "FLAGS", "VIEWPORT", "pose",
           "joint_values", "wait_for_scene", "set_target", "choose", "solve", "readme_screenshots",
           "SCREENSHOTS", "set_joints", "add_pose", "play_to_end", "wait_for_end", "tab_screenshots", "DEMO_POSES"]

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1440, "height": 960}


# Painting slowed (each animation frame delayed 2 s), as a page in a background tab: with many
# pages on 2 cores, the browsers' software WebGL would otherwise take the CPU being measured.
SLOW_PAINT = ("const paint = window.requestAnimationFrame.bind(window);"
              "window.requestAnimationFrame = cb => setTimeout(() => paint(cb), 2000);")
# Armed before a slider click, with [slider, readout]: window.__latency resolves to the ms from
# the slider's pointerdown to the readout's text changing (the server's answer shown), timed in
# the page — a MutationObserver, no polling, and none of the driver's round trips counted.
ARM_LATENCY = """([slider, el]) => {
    const old = el.innerText;
    window.__latency = new Promise(done => {
        let t0 = null;
        slider.addEventListener('pointerdown', () => { t0 = performance.now(); }, {once: true, capture: true});
        const seen = new MutationObserver(() => {
            if (t0 !== null && el.innerText !== old) { seen.disconnect(); done(performance.now() - t0); }
        });
        seen.observe(el, {childList: true, characterData: true, subtree: true});
    });
}"""


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
    from playwright.sync_api import expect

    for name, v in values.items():
        page.get_by_test_id(f"target-{name}").fill(f"{v:g}")
    for name, v in values.items():  # all still there once the page has taken every field ("150.0" for 150)
        expect(page.get_by_test_id(f"target-{name}")).to_have_value(re.compile(rf"^{re.escape(f'{v:g}')}(\.0*)?$"))


def choose(page, testid: str, option: str) -> None:
    """Pick `option` in the select marked `testid`."""
    page.get_by_test_id(testid).click()
    page.get_by_role("option", name=option, exact=True).click()


def solve(page, expect_words: str) -> None:
    from playwright.sync_api import expect

    page.get_by_test_id("solve").click()
    expect(page.get_by_test_id("ik-message")).to_contain_text(expect_words, timeout=15_000)


# --- the README's screenshots ------------------------------------------------------------------
SCREENSHOTS = ("simulator.png", "simulator-solutions.png", "simulator-poses.png", "plots.png", "math.png",
               "robot.png")
# The pose list of the tab screenshots: three Braccio poses inside the servo ranges, away from
# the limits, so a Cartesian spline through their tool points can be followed.
DEMO_POSES = ({1: -40, 2: 10, 3: 40, 4: 40, 5: 0}, {1: 0, 2: -10, 3: 60, 4: 30, 5: 0},
              {1: 40, 2: 10, 3: 40, 4: 40, 5: 0})


def set_joints(page, values: dict[int, float]) -> None:
    """Type joint values (1-based joint: degrees) into the fields, and wait until the sliders
    (the server's answer) hold them."""
    for i, v in values.items():
        page.get_by_test_id(f"joint-{i}-number").fill(f"{v:g}")
    for _ in range(100):
        held = [float(page.get_by_test_id(f"joint-{i}-slider").get_attribute("aria-valuenow")) for i in values]
        if all(abs(h - v) < 1e-6 for h, v in zip(held, values.values())):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"the sliders hold {held}, not {list(values.values())}")


def add_pose(page, values: dict[int, float]) -> int:
    """Move the joints, press Add pose; returns the new pose's number in the list."""
    from playwright.sync_api import expect

    set_joints(page, values)
    n = page.locator('[data-testid^="pose-"][data-testid$="-name"]').count() + 1
    page.get_by_test_id("pose-add").click()
    expect(page.get_by_test_id(f"pose-{n}")).to_be_visible()
    return n


def play_to_end(page, timeout_ms: int = 20_000) -> str:
    """Press play and wait until the player's clock reads its end."""
    page.get_by_test_id("player-play").click()
    return wait_for_end(page, timeout_ms)


def wait_for_end(page, timeout_ms: int = 20_000) -> str:
    """Until the player's clock reads its end (t / T with t = T); returns the clock's text."""
    clock = page.get_by_test_id("player-time")
    deadline = timeout_ms
    while deadline > 0:
        text = clock.inner_text().strip()
        if " / " in text:
            t, total = (float(v) for v in text.removesuffix(" s").split(" / "))
            if total > 0 and t == total:
                return text
        page.wait_for_timeout(100)
        deadline -= 100
    raise AssertionError(f"the player did not reach its end: {clock.inner_text()}")


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
    # the list is redrawn with a caption that now counts the ghosts outside the limits too
    expect(page.get_by_test_id("solutions-caption")).to_contain_text("each drawn")
    page.get_by_test_id("solution-8").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    seen["puma summary"] = page.get_by_text("8 solutions,").inner_text()
    second = folder / SCREENSHOTS[1]
    page.screenshot(path=str(second))
    page.close()
    return [first, second, *tab_screenshots(browser, url, folder, seen)]


def tab_screenshots(browser: Browser, url: str, folder: Path, seen: dict) -> list[Path]:
    """One Braccio session through every tab: an IK solve (for its convergence), three poses
    played as a Cartesian spline and stopped half way; then the Plots, Math and Robot tabs."""
    from playwright.sync_api import expect

    page = browser.page(url, viewport={"width": 1440, "height": 1000})
    wait_for_scene(page)
    page.get_by_test_id("mode").get_by_text("IK").click()
    set_target(page, x=150, y=50, z=100)
    solve(page, "Solved")
    page.get_by_test_id("mode").get_by_text("FK").click()
    for values in DEMO_POSES:
        add_pose(page, values)
    choose(page, "plan-kind", "Cartesian spline")
    expect(page.get_by_test_id("plan-note")).to_contain_text("Cartesian spline")
    seen["plan note"] = page.get_by_test_id("plan-note").inner_text()
    seen["played"] = play_to_end(page)
    box = page.get_by_test_id("player-scrub").bounding_box()  # half way along the time slider
    page.mouse.click(box["x"] + 0.5 * box["width"], box["y"] + box["height"] / 2)
    page.wait_for_timeout(600)
    seen["half way"] = page.get_by_test_id("player-time").inner_text()
    paths = [folder / name for name in SCREENSHOTS[2:]]
    page.screenshot(path=str(paths[0]))
    page.get_by_test_id("tab-plots").click()
    expect(page.get_by_test_id("plot-convergence")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("plot-joints")).to_be_visible(timeout=20_000)
    seen["joints caption"] = page.get_by_test_id("plot-joints-caption").inner_text()
    page.wait_for_timeout(300)
    page.screenshot(path=str(paths[1]), full_page=True)
    page.get_by_test_id("tab-math").click()
    expect(page.get_by_test_id("math-fk").locator("mtable").first).to_be_visible(timeout=20_000)
    page.wait_for_timeout(300)
    page.screenshot(path=str(paths[2]))
    page.get_by_test_id("tab-robot").click()
    expect(page.get_by_test_id("robot-apply")).to_be_visible()
    page.wait_for_timeout(300)
    page.screenshot(path=str(paths[3]))
    page.close()
    return paths
