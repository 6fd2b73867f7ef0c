"""The package's import graph, read from the source with `ast` (nothing is imported):

- no cycle anywhere in src/kinematica. Every import statement between two of the package's
  modules counts, whatever its kind: at module level, under `if TYPE_CHECKING:` (a type-only
  cycle still ties the modules together), and inside a function (a deferred import that exists to
  dodge a cycle is the cycle). A failure lists each cycle with the kind of every edge.
- no arrow up: every import between two packages points to a lower layer (`LAYERS`, the table
  of docs/architecture.md), whatever its kind.
- no private name (leading underscore) and no private module crosses a package boundary, in any
  package, whether imported by name or read off an imported module (`robot._frozen`); the
  compiled core `_core` and the generated `_version` are the package's own.
- the faces (cli/, app/, hardware/) use the other packages' public surface: a name they take from a
  module that declares `__all__` is in it, and what they take from `SHALLOW`'s subpackages comes
  from the subpackage itself (its `__all__`), not from a module inside it.
- the user faces (cli/, app/) take nothing from another package that is not in an `__all__`: a
  module they import from must declare one, and a module they import whole is read only through
  it (`km.trajectory.line`, `pr.SPEED_RANGE` of `hardware.protocol`).

An edge `a -> b` means: running module a's import executes module b (b's package `__init__`
is already running or done when a submodule of it is imported, so it is not an edge).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kinematica"
FACES = ("cli", "app", "hardware")
SHALLOW = ("ik", "kinematics", "dynamics", "trajectory", "scene", "simulation", "plan", "export", "workspace",
           "explain")  # reached through their __init__ only
# Lowest first; a package imports only from layers below its own. "kinematica" is the package's
# own __init__ (the facade `km.*`, which loads every library layer at first use).
LAYERS = (
    ("errors", "_core", "_version"),
    ("bounds", "spatial", "typing", "lazy", "extras", "keywords", "atomic", "textfmt", "htmlrepr"),
    ("model",), ("kinematics",), ("scene",), ("ik",), ("dynamics",), ("trajectory",),
    ("simulation", "learn", "plan", "workspace"),
    ("export",), ("explain", "viz"), ("hardware",), ("kinematica",), ("demo",), ("app",), ("cli",),
)
OWN_PRIVATE = ("kinematica._core", "kinematica._version")  # private to the package, not to a layer


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str  # "module", "type-checking" or "function"
    line: int
    name: str  # the name imported ("*" for `import x`)
    local: str = ""  # the name the statement binds in the importing module


def modules(root: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _kind(ancestors: list[ast.AST]) -> str:
    if any(isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for a in ancestors):
        return "function"
    if any(isinstance(a, ast.If) and "TYPE_CHECKING" in ast.unparse(a.test) for a in ancestors):
        return "type-checking"
    return "module"


def imports(name: str, path: Path, known: dict[str, Path]) -> list[Edge]:
    """Every import statement of one module, resolved to modules of `known` where it names one."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = []

    def visit(node: ast.AST, ancestors: list[ast.AST]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:  # `import a.b` binds `a`, `import a.b as c` binds `c`
                edges.append(Edge(name, alias.name, _kind(ancestors), node.lineno, "*",
                                  alias.asname or alias.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"  # `from pkg import submodule` imports the submodule
                edges.append(Edge(name, sub if sub in known else module, _kind(ancestors), node.lineno,
                                  alias.name, alias.asname or alias.name))
        for child in ast.iter_child_nodes(node):
            visit(child, ancestors + [node])

    visit(ast.parse(path.read_text(encoding="utf-8")), [])
    return edges


def graph(known: dict[str, Path]) -> dict[str, list[Edge]]:
    return {name: [e for e in imports(name, path, known) if e.target in known and e.target != name]
            for name, path in known.items()}


def cycles(g: dict[str, list[Edge]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each a list of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:  # recursion depth is bounded by the package's ~200 modules
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for e in g[v]:
            if e.target not in index:
                connect(e.target)
                low[v] = min(low[v], low[e.target])
            elif e.target in on_stack:
                low[v] = min(low[v], index[e.target])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            connect(v)
    return found


def describe(g: dict[str, list[Edge]], component: list[str]) -> str:
    inside = set(component)
    lines = [f"cycle of {len(component)} modules:"]
    lines += [f"  {e.source} -> {e.target}  ({e.kind} import, line {e.line})"
              for v in component for e in g[v] if e.target in inside]
    return "\n".join(lines)


def test_no_import_cycle_in_the_package():
    g = graph(modules())
    assert len(g) > 150  # the walk saw the package (not an empty folder)
    found = cycles(g)
    assert not found, "\n".join(describe(g, c) for c in found)


def test_cycle_finder_sees_every_kind_of_import(tmp_path):
    """The finder itself: a cycle closed by a function-level import, one closed under
    TYPE_CHECKING, and an acyclic module beside them."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import D\n")
    (pkg / "d.py").write_text("from .c import C\nfrom .a import y\n")
    g = graph(modules(pkg))
    assert cycles(g) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
    kinds = {(e.source, e.target): e.kind for edges in g.values() for e in edges}
    assert kinds[("pkg.b", "pkg.a")] == "function"
    assert kinds[("pkg.c", "pkg.d")] == "type-checking"
    assert kinds[("pkg.a", "pkg.b")] == "module"


def _core_imports_of_faces() -> list[Edge]:
    known = modules()
    found = []
    for name, path in known.items():
        if name.split(".")[1:2] and name.split(".")[1] in FACES:
            for e in imports(name, path, known):
                parts = e.target.split(".")
                if parts[0] == "kinematica" and not (len(parts) > 1 and parts[1] in FACES):
                    found.append(e)
    return found


def test_faces_import_no_private_name_from_the_core():
    edges = _core_imports_of_faces()
    assert len(edges) > 100  # the faces were read
    private = [f"{e.source}:{e.line} imports {e.name} from {e.target}" for e in edges
               if e.name.startswith("_") or any(p.startswith("_") for p in e.target.split("."))]
    assert not private, "\n".join(private)


@pytest.mark.parametrize("sub", SHALLOW)
def test_faces_reach_the_core_through_the_subpackage(sub):
    """`from kinematica.ik import has_analytic`, not `from kinematica.ik.analytic import ...`:
    the names a face needs are re-exported (and documented) by the subpackage."""
    import importlib

    package = importlib.import_module(f"kinematica.{sub}")
    deep = []
    for e in _core_imports_of_faces():
        if e.target == f"kinematica.{sub}":
            assert e.name == "*" or e.name in package.__all__, f"{e.source}:{e.line}: {e.name} is not public"
        elif e.target == f"kinematica.{sub}.{e.name}" and e.name in package.__all__:
            pass  # a public submodule (`from kinematica.trajectory import files`)
        elif e.target.startswith(f"kinematica.{sub}."):
            deep.append(f"{e.source}:{e.line} imports {e.name} from {e.target}")
    assert not deep, "\n".join(deep)


def _package(module: str) -> str:
    """The layer unit of a module: its subpackage, or the top-level module itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _cross_package_edges(known: dict[str, Path] | None = None) -> list[Edge]:
    known = modules() if known is None else known
    return [e for name, path in known.items() for e in imports(name, path, known)
            if e.target.split(".")[0] == "kinematica" and _package(e.target) != _package(name)]


def test_every_package_has_a_layer():
    level = {p for layer in LAYERS for p in layer}
    missing = sorted({_package(m) for m in modules()} - level)
    assert not missing, f"add to LAYERS (and to docs/architecture.md's table): {missing}"


def test_no_package_imports_upward():
    level = {p: i for i, layer in enumerate(LAYERS) for p in layer}
    edges = _cross_package_edges()
    assert len(edges) > 500  # the walk saw the package
    up = [f"{e.source}:{e.line} ({e.kind}) imports {e.name} from {e.target}" for e in edges
          if level[_package(e.target)] >= level[_package(e.source)]]
    assert not up, "\n".join(up)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_crossings(known: dict[str, Path]) -> list[str]:
    """Each private name or module one package takes from another: imported by name, or read
    off a module imported whole (`from ..model import robot` then `robot._frozen`)."""
    found = []
    trees: dict[str, ast.AST] = {}
    for e in _cross_package_edges(known):
        if e.target in OWN_PRIVATE:
            continue
        if _private(e.name) or any(_private(p) for p in e.target.split(".")[1:]):
            found.append(f"{e.source}:{e.line} imports {e.name} from {e.target}")
        elif e.target in known and (e.name == "*" or e.target.endswith(f".{e.name}")):
            tree = trees.setdefault(e.source, ast.parse(known[e.source].read_text(encoding="utf-8")))
            found += [f"{e.source}:{e.line} reads {e.local}.{'.'.join(chain)}"
                      for chain in _attribute_chains(tree, e.local) if any(_private(a) for a in chain)]
    return sorted(set(found))


def test_no_private_name_crosses_a_package():
    found = private_crossings(modules())
    assert not found, "\n".join(found)


def declared_all(path: Path) -> set[str] | None:
    """The names a module's `__all__` lists (its literal `=` and `+=` lists), or None without one."""
    names = None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "__all__" and isinstance(node, (ast.Assign, ast.AugAssign)):
            names = (names or set()) | {ast.literal_eval(e) for e in node.value.elts}  # type: ignore[attr-defined]
    return names


def test_faces_take_from_a_module_only_what_its_all_lists():
    known = modules()
    outside = []
    for e in _core_imports_of_faces():
        public = declared_all(known[e.target]) if e.target in known else None
        if e.name == "*" or e.target.endswith(f".{e.name}") or public is None:
            continue  # a module imported whole, or one without a declared surface
        if e.name not in public:
            outside.append(f"{e.source}:{e.line} imports {e.name}, not in {e.target}.__all__")
    assert not outside, "\n".join(outside)


USER_FACES = ("cli", "app")  # what a user runs: every name they take from another package is declared public


def _attribute_chains(tree: ast.AST, local: str) -> list[list[str]]:
    """Every `local.a.b…` read in a module, as [a, b, …] (the longest chain at each place)."""
    inner = set()
    chains = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node not in inner:
            chain = []
            while isinstance(node, ast.Attribute):
                inner.add(node.value)
                chain.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id == local:
                chains.append(chain[::-1])
    return chains


def _outside_all(module: str, attrs: list[str], known: dict[str, Path]) -> str | None:
    """Why `module.attrs[0].attrs[1]…` passes a module's surface, or None when each step is in an
    `__all__` (a step into a submodule needs no listing when the submodule is a package's own
    layer unit, e.g. `km.trajectory`, and is then checked against the submodule's `__all__`)."""
    for attr in attrs:
        public = declared_all(known[module])
        sub = f"{module}.{attr}"
        if sub in known and (module == "kinematica" or (public is not None and attr in public)):
            module = sub
            continue
        if public is None:
            return f"{module} declares no __all__"
        public_dunder = attr.startswith("__") and attr.endswith("__")  # `km.__version__`
        return None if attr in public or public_dunder else f"{attr} is not in {module}.__all__"
    return None


def public_use_violations(known: dict[str, Path], faces: tuple[str, ...] = USER_FACES) -> list[str]:
    """Each place a face takes a name from another package that the target does not declare
    public: a name imported from a module must be in its `__all__` (a module without one offers
    nothing), and a module imported whole (`import kinematica as km`, `from ..viz import plots`)
    is read only through names in its `__all__` (`km.trajectory.line` needs `line` in
    `kinematica.trajectory.__all__`)."""
    found = []
    for name, path in known.items():
        if _package(name) not in faces:
            continue
        tree = None
        for e in imports(name, path, known):
            if e.target not in known or _package(e.target) == _package(name):
                continue
            where = f"{e.source}:{e.line}"
            whole = e.name == "*" or e.target.endswith(f".{e.name}")
            if not whole:
                why = _outside_all(e.target, [e.name], known)
                if why:
                    found.append(f"{where} imports {e.name}: {why}")
                continue
            tree = tree or ast.parse(path.read_text(encoding="utf-8"))
            module = e.target.split(".")[0] if e.name == "*" and e.local == e.target.split(".")[0] else e.target
            for chain in _attribute_chains(tree, e.local):
                why = _outside_all(module, chain, known)
                if why:
                    found.append(f"{where} reads {e.local}.{'.'.join(chain)}: {why}")
    return sorted(set(found))


def test_user_faces_use_only_names_in_an_all():
    """cli/ and app/ reach model, viz, learn, explain, hardware, export and the rest through the
    names those modules declare in `__all__`, whether imported by name or read off a module."""
    found = public_use_violations(modules())
    assert not found, "\n".join(found)


def test_the_rules_see_what_they_forbid(tmp_path):
    """The checks themselves, on a small package: an upward arrow, a private name across
    packages (imported, or read off a module), and a face taking a name outside an __all__."""
    pkg = tmp_path / "kinematica"
    for sub in ("model", "ik", "cli"):
        (pkg / sub).mkdir(parents=True)
    for init in ("__init__.py", "model/__init__.py", "ik/__init__.py", "cli/__init__.py"):
        (pkg / init).write_text("")
    (pkg / "model" / "robot.py").write_text("from ..ik.solve import ik\n__all__ = ['Robot']\n")
    (pkg / "ik" / "solve.py").write_text("from ..model.robot import _helper, Robot\n")
    (pkg / "cli" / "run.py").write_text("from ..model.robot import Robot, hidden\nfrom ..ik import solve\n"
                                        "solve.quiet()\nfrom ..model import robot\nrobot._frozen(Robot)\n")
    known = modules(pkg)
    edges = _cross_package_edges(known)
    level = {p: i for i, layer in enumerate(LAYERS) for p in layer}
    assert [(e.source, e.name) for e in edges if level[_package(e.target)] >= level[_package(e.source)]] == [
        ("kinematica.model.robot", "ik")]
    assert [e.name for e in edges if e.name.startswith("_")] == ["_helper"]
    assert declared_all(known["kinematica.model.robot"]) == {"Robot"}
    assert private_crossings(known) == ["kinematica.cli.run:4 reads robot._frozen",
                                        "kinematica.ik.solve:1 imports _helper from kinematica.model.robot"]
    assert public_use_violations(known) == [
        "kinematica.cli.run:1 imports hidden: hidden is not in kinematica.model.robot.__all__",
        "kinematica.cli.run:2 reads solve.quiet: kinematica.ik.solve declares no __all__",
        "kinematica.cli.run:4 reads robot._frozen: _frozen is not in kinematica.model.robot.__all__"]
