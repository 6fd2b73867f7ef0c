"""Execute the papers' notebooks (docs/notebooks/*.ipynb) in place, so the documentation site shows
their outputs without running them at build time.

    python scripts/run_notebooks.py            # all of them
    python scripts/run_notebooks.py paper-000  # those whose name contains the word

Each executed notebook records the SHA-256 of its code cells in its metadata
(`kinematica.code_sha256`); tests/test_notebooks.py checks that the outputs shown belong to the
code as it is now (rerun this script after editing a cell), and runs every notebook afresh.
Execution timing is dropped so that a rerun changes only what the results change.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

FOLDER = Path(__file__).resolve().parents[1] / "docs" / "notebooks"


def code_sha256(nb: nbformat.NotebookNode) -> str:
    code = "\n\x00".join(c.source for c in nb.cells if c.cell_type == "code")
    return hashlib.sha256(code.encode()).hexdigest()


def execute(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata["kinematica"] = {"code_sha256": code_sha256(nb)}
    return nb


def main(words: list[str]) -> int:
    for path in sorted(FOLDER.glob("*.ipynb")):
        if words and not any(w in path.name for w in words):
            continue
        nbformat.write(execute(path), path)
        print(f"executed {path.relative_to(FOLDER.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
