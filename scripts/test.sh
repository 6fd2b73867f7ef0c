#!/usr/bin/env bash
# Install Kinematica with its test dependencies and run the whole test suite.
#
# Where it installs: the active virtual environment if there is one; otherwise the project's own
# `.venv` (made here with `python3 -m venv` when missing), so a newcomer, CI (`.ci/run`, in a fresh
# clone: a fresh .venv) and a machine whose system Python refuses pip (PEP 668) all get the same
# thing: exactly what pyproject.toml asks for, from PyPI. KINEMATICA_VENV=DIR picks another folder.
#
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

# The Braccio firmware tests compile the sketch with Debian's AVR toolchain and build it for
# this machine with g++ (tests/test_hardware_firmware.py); without them those tests are skipped.
avr_core=/usr/share/arduino/hardware/arduino/avr/cores/arduino/Arduino.h
if ! command -v avr-g++ >/dev/null || [ ! -f "$avr_core" ] || ! command -v g++ >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test.sh: installing Debian's AVR toolchain and g++ for the firmware tests"
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                   gcc-avr avr-libc arduino-core-avr g++ >/dev/null; }; then
            echo "test.sh: could not install them: the firmware compile tests will be skipped"
        fi
    else
        echo "test.sh: no AVR toolchain, and apt-get needs root here: the firmware compile tests will be skipped"
    fi
fi

if [ -n "${VIRTUAL_ENV:-}" ] && [ -z "${KINEMATICA_VENV:-}" ]; then
    python="$VIRTUAL_ENV/bin/python"
else
    venv="${KINEMATICA_VENV:-.venv}"
    if [ ! -x "$venv/bin/python" ]; then
        echo "test.sh: making the virtual environment $venv"
        python3 -m venv "$venv"
    fi
    python="$venv/bin/python"
fi
"$python" -c 'import sys; assert sys.version_info >= (3, 10), "Kinematica needs Python >= 3.10"'
echo "test.sh: installing .[test] into $("$python" -c 'import sys; print(sys.prefix)')"
"$python" -m pip install --quiet --disable-pip-version-check -e ".[test]"
# Static checks on src/, configured in pyproject.toml: ruff (lint) and basedpyright (pyright's
# checker with Node.js bundled in its wheel; standard mode less the rules listed there). ~1–2 min.
"$python" -m ruff check src
"$(dirname "$python")/basedpyright" -p .  # this folder's pyproject.toml, never a config file above it
# The suite runs in one process per core, at most 4 (pytest-xdist; the wheel build and the fresh
# venvs are still made once: tests/installs.py): on CI's 2 cores ~13 min instead of ~21.
# `-n 0` after the command runs it in this one process.
workers=$(nproc 2>/dev/null || echo 2)
[ "$workers" -gt 4 ] && workers=4
# The venv's bin first: the tests run the installed `kinematica` script and start the simulator.
PATH="$(dirname "$python"):$PATH" exec "$python" -m pytest -n "$workers" "$@"
