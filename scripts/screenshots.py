"""Take the README's screenshots of the simulator into docs/screenshots/, with the browser
tests' own setup (tests/browser/harness.py): `kinematica serve` on a free 127.0.0.1 port and
Debian's headless Chromium driven by Playwright, every request elsewhere blocked.

    python scripts/screenshots.py            # needs /usr/bin/chromium and playwright (scripts/test.sh installs both)

The browser test `test_the_readme_screenshots` takes the same pictures into a temporary folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from harness import Browser, Server, readme_screenshots, why_not_available  # noqa: E402


def main() -> int:
    reason = why_not_available()
    if reason:
        print(f"screenshots: {reason}", file=sys.stderr)
        return 1
    server = Server(wait=False)
    browser = Browser()
    try:
        server.wait()
        seen: dict = {}
        paths = readme_screenshots(browser, server.url, ROOT / "docs" / "screenshots", seen)
        if browser.blocked:
            print(f"screenshots: the page asked for other hosts: {browser.blocked}", file=sys.stderr)
            return 1
    finally:
        browser.close()
        server.stop()
    for p in paths:
        print(f"wrote {p.relative_to(ROOT)}")
    for what, value in seen.items():  # what the README's text about the pictures must quote
        print(f"{what}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
