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
