"""Results derived from a robot live as long as the robot and no longer (model/memo.py).

The simulator makes a new Robot for every file read and every edit in the Robot tab; caches
that held robots past their last user kept a closed session's robots — with their SymPy closed
forms and solver structures — alive in the server (issue 32, item 13). Each memoised function is
called on a robot it fits; once the caller drops the robot, it must be collected."""

from __future__ import annotations

import gc
import importlib
import weakref

import numpy as np
import pytest

import kinematica as km
from kinematica.model.memo import _KEY, per_robot

# Every function of a robot the package memoises: (module, function, bundled robots it fits).
MEMOISED = [
    ("kinematica.dynamics.params", "link_params", ("puma560", "panda")),
    ("kinematica.explain.symbolic", "chain", ("planar-3r",)),
    ("kinematica.explain.symbolic", "jacobian_symbolic", ("planar-3r",)),
    ("kinematica.ik.analytic", "_fit", ("puma560", "ur5", "planar-3r", "arm-5dof-geo")),
    ("kinematica.ik.analytic", "_limited", ("puma560",)),
    ("kinematica.ik.analytic.geometry", "frames0", ("puma560",)),
    ("kinematica.ik.analytic.geometry", "size", ("puma560",)),
    ("kinematica.ik.frame", "plane_of", ("planar-3r", "puma560")),
    ("kinematica.ik.closed_pack", "constants", ("puma560", "ur5")),
    ("kinematica.ik.lm_core", "bounds", ("puma560", "panda")),
    ("kinematica.ik.reach", "_geometry", ("puma560",)),
    ("kinematica.ik.analytic.geometric5", "structure", ("arm-5dof-geo",)),
    ("kinematica.ik.analytic.ur", "structure", ("ur5",)),
    ("kinematica.ik.analytic.spherical_wrist", "structure", ("puma560",)),
    ("kinematica.ik.analytic.planar", "lengths", ("planar-3r",)),
]


def _dropped(make) -> weakref.ref:
    """A weak reference to the robot `make()` built and used; the robot itself is dropped."""
    robot = make()
    ref = weakref.ref(robot)
    del robot
    gc.collect()
    return ref


@pytest.mark.parametrize(("module", "name", "robots"), MEMOISED, ids=[f"{m.rsplit('.', 1)[1]}.{n}" for m, n, _ in MEMOISED])
def test_a_memoised_result_does_not_keep_its_robot(module, name, robots):
    func = getattr(importlib.import_module(module), name)

    def use(robot_name):
        def make():
            robot = km.load(robot_name)
            first = func(robot)
            assert func(robot) is first  # memoised: the second call is the first's result
            return robot
        return make

    for robot_name in robots:
        assert _dropped(use(robot_name))() is None, f"{module}.{name} keeps a dropped {robot_name} alive"


def test_a_simulator_session_s_robot_is_freed_after_ik_dynamics_and_math():
    """What a session does with an edited robot: solve IK, compute torques, derive the closed form."""
    def make():
        robot = km.load("puma560")
        q = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.1])
        result = km.ik(robot, km.fk(robot, q))
        assert result.success, result.message
        km.rne(robot, q, np.zeros(6), np.zeros(6))
        km.gravity_torques(robot, q)
        importlib.import_module("kinematica.explain.symbolic").chain(robot)
        return robot

    assert _dropped(make)() is None


def test_memo_is_per_robot_and_per_argument():
    calls = []

    @per_robot
    def twice(robot, factor=2):
        calls.append(robot)
        return robot.n * factor

    a, b = km.load("planar-3r"), km.load("planar-3r")
    assert (twice(a), twice(a), twice(b), twice(a, 3), twice(a, factor=4)) == (6, 6, 6, 9, 12)
    assert len(calls) == 4  # a, b, a with 3, a with factor=4: the repeated call was served from a's memo
    assert len(a.__dict__[_KEY]) == 3 and len(b.__dict__[_KEY]) == 1


def _paths(robot: km.Robot) -> None:
    """Every path a session takes with a robot: IK (the one-pose shortcut, the general single
    path, a batch, the closed form, all solutions), dynamics and simulation, the analytic solvers."""
    q = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.1])
    T = km.fk(robot, q)
    assert km.ik(robot, T).success
    assert km.ik(robot, T, tol_position=1e-7).success
    assert km.ik(robot, np.stack([T, T])).success.all()
    assert km.ik(robot, T, method="analytic").success
    assert len(km.ik_all(robot, T, seeds=4)) >= 1
    km.rne(robot, q, np.zeros(6), np.zeros(6))
    km.mass_matrix(robot, q)
    km.simulate(robot, 0.02, q, dt=0.01)
    importlib.import_module("kinematica.ik.analytic").analytic_solutions(robot, T)


def test_a_dropped_robot_is_collected_after_ik_dynamics_and_analytic():
    def make():
        robot = km.load("puma560")
        _paths(robot)
        return robot

    assert _dropped(make)() is None


def test_a_dropped_robot_is_collected_after_the_explain_documents():
    pytest.importorskip("sympy")
    explain = importlib.import_module("kinematica.explain").explain

    def make():
        robot = km.load("puma560")
        T = km.fk(robot, np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.1]))
        for what, kw in (("fk", {}), ("jacobian", {}), ("ik", {"target": T}), ("analytic", {"target": T}),
                         ("dynamics", {})):
            explain(robot, what, **kw)
        return robot

    assert _dropped(make)() is None


def _robot_caches(path) -> list[str]:
    """`module:line name` of each module-level function of `path` that takes a robot (a parameter
    named `robot` or annotated `Robot`) and is wrapped in functools' lru_cache or cache."""
    import ast

    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        cached = any("cache" in ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in node.decorator_list)
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        takes = any(a.arg == "robot" or (a.annotation is not None and "Robot" in ast.unparse(a.annotation))
                    for a in args)
        if cached and takes:
            found.append(f"{path.name}:{node.lineno} {node.name}")
    return found


def test_no_function_of_a_robot_is_cached_at_module_level():
    """A module-level lru_cache keyed by robots keeps each until pushed out: `per_robot` keeps a
    result on the robot itself (model/memo.py)."""
    from test_imports import modules

    found = [f for path in modules().values() for f in _robot_caches(path)]
    assert not found, "use model.memo.per_robot: " + ", ".join(found)


def test_the_cache_finder_sees_a_cached_function_of_a_robot(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import functools\nfrom functools import lru_cache\n"
                   "@functools.lru_cache(maxsize=8)\ndef a(robot): ...\n"
                   "@lru_cache\ndef b(r: 'Robot'): ...\n"
                   "@lru_cache\ndef c(name: str): ...\n"
                   "@per_robot\ndef d(robot): ...\n")
    assert _robot_caches(src) == ["m.py:4 a", "m.py:6 b"]
