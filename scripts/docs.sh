#!/usr/bin/env bash
# Build the documentation site into site/ — MkDocs in strict mode (a broken link, reference or
# docstring fails the build), offline. Needs the docs extra: pip install -e ".[docs]".
# Then `kinematica docs` serves it on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m mkdocs build --strict --clean --site-dir "${1:-site}"
