"""The papers' notebooks and the planning one (docs/notebooks/*.ipynb) run top to bottom in a real Jupyter kernel
(nbclient + ipykernel): each reproduces its paper's worked examples and asserts the key numbers
within the tolerances stated in its cells, so the tutorials cannot rot. The outputs committed
with them (what the documentation site shows) must come from the code as it is now:
`scripts/run_notebooks.py` records the hash of the code it ran."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from run_notebooks import code_sha256

NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def test_one_notebook_per_paper_and_one_for_planning():
    assert [p.name[:9] for p in NOTEBOOKS if p.name.startswith("paper")] == [f"paper-00{i}" for i in range(5)]
    assert [p.name for p in NOTEBOOKS if not p.name.startswith("paper")] == ["planning.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_outputs_shown_are_those_of_the_code(path):
    nb = nbformat.read(path, as_version=4)
    recorded = nb.metadata.get("kinematica", {}).get("code_sha256")
    assert recorded == code_sha256(nb), f"{path.name}: outputs are stale; run python scripts/run_notebooks.py"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs or not c.source.strip() for c in code[-1:])  # executed to the end
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_notebook_runs_and_its_checks_hold(path):
    nb = nbformat.read(path, as_version=4)
    fresh = copy.deepcopy(nb)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    code = [c.source for c in fresh.cells if c.cell_type == "code"]
    assert sum(s.count("assert ") for s in code) >= 3  # it checks numbers, not just prints them
    client = nbclient.NotebookClient(fresh, timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the cell whose assertion failed
    errors = [o for c in fresh.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
