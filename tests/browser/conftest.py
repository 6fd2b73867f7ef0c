"""The browser tests' shared fixtures: one `kinematica serve` and one headless Chromium per test
module, and a fresh page (a fresh session) per test that may ask for nothing beyond 127.0.0.1.
(harness is imported inside them: it needs Playwright, which each module asks for first.)"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def server():
    from harness import Server, why_not_available

    reason = why_not_available()
    if reason:
        pytest.skip(reason)
    s = Server(wait=False)  # starts while the browser launches
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser(server):
    from harness import Browser

    b = Browser()
    server.wait()
    yield b
    b.close()


@pytest.fixture
def page(browser, server):
    from harness import wait_for_scene

    p = browser.page(server.url)
    wait_for_scene(p)
    yield p
    p.close()
    assert browser.blocked == [], f"the page asked for addresses outside 127.0.0.1: {browser.blocked}"
