#!/usr/bin/env bash
# Install Kinematica with its test dependencies and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
