"""docs/architecture.md names the functions a target and a batch pass through in `km.ik`; each
name must exist, or the walk has gone stale. A name is written `` `path/module.py: name` ``
(path under src/kinematica) or `` `kinematica.module: name` ``, `name` possibly dotted
(`Solver.solve_many`)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
NAMED = re.compile(r"`((?:[a-z_]+/)*[a-z_]+\.py|kinematica(?:\.[a-z_]+)+): ([A-Za-z_][\w.]*)`")


def named(text: str) -> list[tuple[str, str]]:
    """(dotted module, attribute path) of every `module: name` in the text."""
    found = []
    for where, name in NAMED.findall(text):
        module = where if where.startswith("kinematica") else "kinematica." + where[:-3].replace("/", ".")
        found.append((module, name))
    return found


def resolve(module: str, name: str) -> object:
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


WALKED = named(DOC.read_text(encoding="utf-8"))


def test_the_walks_name_the_spine():
    """The two walks are there and name the steps of the spine (not an empty match)."""
    text = DOC.read_text(encoding="utf-8")
    assert "## The path of a target through `km.ik`" in text and "## The path of a batch through the core" in text
    names = {f"{m}.{n}" for m, n in WALKED}
    assert len(names) > 40
    for step in ("kinematica.ik.solve.ik", "kinematica.ik.frame.judged", "kinematica.ik.frame.solver_problem",
                 "kinematica.ik.one.solve_target", "kinematica.ik.many.solve_targets",
                 "kinematica.ik.lm_core.solve_batch", "kinematica._core.Solver.solve_many",
                 "kinematica.ik.verdict.package"):
        assert step in names, step


@pytest.mark.parametrize(("module", "name"), sorted(set(WALKED)), ids=lambda x: x)
def test_every_function_the_architecture_names_exists(module, name):
    assert callable(resolve(module, name)) or isinstance(resolve(module, name), type)


def test_a_stale_name_is_caught():
    stale = named("then `ik/solve.py: _ik_one` and `kinematica._core: Solver.solve_all`")
    assert stale == [("kinematica.ik.solve", "_ik_one"), ("kinematica._core", "Solver.solve_all")]
    for module, name in stale:
        with pytest.raises(AttributeError, match="has no attribute"):
            resolve(module, name)
