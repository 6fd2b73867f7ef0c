#!/usr/bin/env bash
# Install Kinematica with its test dependencies and run the whole test suite.
# The browser tests (tests/browser, marker `browser`) drive Debian's Chromium through Playwright
# for Python: chromium comes from apt when /usr/bin/chromium is missing, Playwright from PyPI with
# `.[test]` (no browser download: never `playwright install`). Without Chromium they are skipped,
# with the reason. `bash scripts/test.sh -m "not browser"` leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test.sh: installing Debian's chromium for the browser tests"
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
            echo "test.sh: could not install chromium: the browser tests will be skipped"
        fi
    else
        echo "test.sh: no /usr/bin/chromium, and apt-get needs root here: the browser tests will be skipped"
    fi
fi
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
