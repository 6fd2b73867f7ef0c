"""Closed sessions give their memory back (issue 32, item 13): the server, with a probe that
counts what it holds (tests/browser/probed_serve.py), is used by a warm-up session and then by
SESSIONS sessions at once — each in its own browser context (its own cookie, so its own
session) moving a joint, applying an edited robot in the Robot tab (a new Robot object, as a
robot read from a file is) and solving IK with it. With all of them open, every page clicks its
base joint's slider in rounds, all pages' clicks in flight together, and the slider latency is
measured in each page (printed: a time, not a pass mark — benchmarks/bench_sessions.py holds the
goals). Once the pages are closed and NiceGUI has deleted their clients (after its reconnect
timeout, 3 s), the server must hold no Session, Page, ArmView or Player, no more Robots than
after the warm-up, and about as many Python objects.

Counting objects, not the resident size: glibc keeps freed blocks in its arenas, so RSS says
little about what is still referenced (the soak test, test_soak.py, watches RSS)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright", reason="Playwright for Python is not installed (pip install playwright)")
from playwright.sync_api import expect  # noqa: E402

from harness import ARM_LATENCY, SLOW_PAINT, Browser, Server, wait_for_scene, why_not_available  # noqa: E402
from serving import fetch  # noqa: E402

pytestmark = pytest.mark.browser

SESSIONS = 10
ROUNDS = 4  # slider clicks per page, all pages' at once
PATIENCE = 60_000  # ms a page waits for the server's answer (expect's own default is 5 s): 2 busy cores are slow
PROBED = str(Path(__file__).with_name("probed_serve.py"))
PER_SESSION = ("Session", "Page", "ArmView", "Player")  # one each per open page, none once it is deleted
# Objects the collector tracks may differ from the warm-up's by what one page's life leaves in
# shared, bounded places (NiceGUI's and the event loop's bookkeeping, interned strings, a cache
# entry): measured ~1 %. A leaked session is ~8000 objects, 4 of them ~15 % of the total.
OBJECT_SLACK = 0.05


def live(server: Server) -> dict:
    with fetch(server.url + "_live", timeout=60) as r:
        return json.load(r)


def settled(server: Server, timeout: float = 60.0) -> dict:
    """The probe's answer once every closed page's client is deleted and its objects collected."""
    deadline = time.monotonic() + timeout
    while True:
        now = live(server)
        if now["clients"] == 0 and not any(now["ours"].get(k) for k in PER_SESSION):
            return now
        if time.monotonic() > deadline:
            return now
        time.sleep(1.0)


def use(browser: Browser, url: str):
    """A new browser context working as a user: a joint moved, the Robot tab's table applied (a
    new robot), an IK solve with it. Returns the context, still open."""
    context = browser.browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(SLOW_PAINT)
    context.set_default_timeout(PATIENCE)
    page = context.new_page()
    page.route("**/*", browser._route)
    page.goto(url)
    wait_for_scene(page)
    page.get_by_test_id("joint-1-number").fill("30")
    # 30° through radians and back: 29.999999999999996 is 30
    expect(page.get_by_test_id("joint-1-slider")).to_have_attribute("aria-valuenow", re.compile(r"^(29\.99999\d*|30(\.0*)?)$"),
                                                                   timeout=PATIENCE)
    page.get_by_test_id("tab-robot").click()
    page.get_by_test_id("robot-apply").click()
    expect(page.get_by_test_id("robot-message")).not_to_have_text("", timeout=PATIENCE)
    page.get_by_test_id("tab-simulator").click()
    page.get_by_test_id("mode").get_by_text("IK", exact=True).click()
    page.get_by_test_id("solve").click()
    expect(page.get_by_test_id("ik-message")).to_contain_text("olved", timeout=PATIENCE)
    return context


def slider_latencies(contexts: list) -> list[float]:
    """ROUNDS clicks on each page's base-joint slider (40 … 55 % of its length), every page's click
    of a round in flight together: each one's latency (ms) until its readout shows the answer."""
    pages = [c.pages[0] for c in contexts]
    for page in pages:  # (each left in IK mode by `use`: the sliders move the arm in FK)
        page.get_by_test_id("mode").get_by_text("FK", exact=True).click()
    out: list[float] = []
    for k in range(ROUNDS):
        for page in pages:
            page.evaluate(ARM_LATENCY, [page.get_by_test_id("joint-1-slider").element_handle(),
                                        page.get_by_test_id("pose-x").element_handle()])
        for page in pages:
            box = page.get_by_test_id("joint-1-slider").bounding_box()
            page.mouse.click(box["x"] + (0.4 + 0.05 * k) * box["width"], box["y"] + box["height"] / 2)
        out += [page.evaluate("window.__latency") for page in pages]
    return out


def test_closed_sessions_leave_nothing_behind():
    reason = why_not_available()
    if reason:
        pytest.skip(reason)
    with Server(script=PROBED, timeout=60.0) as server:
        browser = Browser()
        try:
            use(browser, server.url).close()
            baseline = settled(server)
            contexts = [use(browser, server.url) for _ in range(SESSIONS)]
            opened = live(server)
            latency = sorted(slider_latencies(contexts))
            for c in contexts:
                c.close()
        finally:
            browser.close()
        after = settled(server)
    robots = [m["ours"].get("Robot", 0) for m in (baseline, opened, after)]
    print(f"\nlive objects: {baseline['objects']} after the warm-up, {opened['objects']} with {SESSIONS} "  # noqa: T201
          f"sessions, {after['objects']} after they closed; Robots {robots[0]}, {robots[1]}, {robots[2]}")
    print(f"slider latency with {SESSIONS} sessions, {len(latency)} clicks: median "  # noqa: T201
          f"{latency[len(latency) // 2]:.0f} ms, p95 {latency[int(0.95 * (len(latency) - 1))]:.0f} ms")
    assert len(latency) == SESSIONS * ROUNDS and all(x > 0 for x in latency)  # every click answered
    assert browser.blocked == [], f"pages asked for addresses outside 127.0.0.1: {browser.blocked}"
    assert all(opened["ours"].get(k, 0) >= SESSIONS for k in PER_SESSION), f"the sessions did not open: {opened}"
    assert after["clients"] == 0, f"NiceGUI still holds {after['clients']} clients of closed pages"
    kept = {k: after["ours"].get(k, 0) for k in PER_SESSION if after["ours"].get(k, 0)}
    assert not kept, f"closed sessions' objects still alive: {kept}"
    grown = {k: (baseline["ours"].get(k, 0), n) for k, n in after["ours"].items() if n > baseline["ours"].get(k, 0)}
    assert not grown, f"more of our objects than after the warm-up (before, after): {grown}"
    assert after["objects"] <= baseline["objects"] * (1 + OBJECT_SLACK), \
        f"{after['objects'] - baseline['objects']} more Python objects than after the warm-up"
