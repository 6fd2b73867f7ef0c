"""The dynamics engine's paths agree: one state in floats, a few states looped, many states in
vectorised chunks; and forward dynamics' regularity bound sends singular states to the exact test."""

import numpy as np
import pytest

import kinematica as km
from kinematica.dynamics import programs
from kinematica.dynamics.rne import SMALL
from kinematica.model.inertial import Inertial


def rough_robot():
    """A 4-joint robot in mm with a prismatic joint, a base and a tool, friction and armature."""
    rng = np.random.default_rng(11)
    rows = [{"a": 300.0, "d": 100.0, "alpha": 1.2, "theta": 0.3},
            {"a": -200.0, "d": 50.0, "alpha": -0.7, "theta": 0.0, "type": "prismatic"},
            {"a": 150.0, "d": -80.0, "alpha": 2.0, "theta": -0.4},
            {"a": 0.0, "d": 120.0, "alpha": 0.0, "theta": 1.0}]
    inert = []
    for _ in rows:
        A = rng.normal(size=(3, 3))
        inert.append(Inertial(rng.uniform(0.5, 3), rng.normal(size=3) * 100, (A @ A.T + np.eye(3)) * 1e4))
    robot = km.from_dh(rows, length_unit="mm", meta={"inertials": tuple(inert)},
                       base=km.spatial.homogeneous(km.spatial.rpy_to_matrix([0.1, 0.2, 0.3]), [10, 20, 30]),
                       tool=km.spatial.trans(x=40.0, z=25.0))
    extras = dict(robot.extras)
    extras["drives"] = {"viscous": [0.3, 5.0, 0.1, 0.2], "coulomb": [0.2, 1.0, 0.0, 0.1],
                        "armature": [0.01, 0.5, 0.02, 0.0]}
    return robot.replace(extras=extras)


@pytest.mark.parametrize("N", [3, SMALL + 1, programs.CHUNK + 5])
def test_batches_equal_single_states_on_every_path(N):
    robot = rough_robot()
    rng = np.random.default_rng(N)
    Q, QD, QDD = rng.normal(size=(3, N, robot.n))
    W = rng.normal(size=(N, 6))
    g = np.array([0.5, -1.0, -9.0])
    calls = {
        "rne": (lambda q, qd, qdd, w: km.rne(robot, q, qd, qdd, gravity=g, wrench=w)),
        "gravity": (lambda q, qd, qdd, w: km.gravity_torques(robot, q, g)),
        "coriolis": (lambda q, qd, qdd, w: km.coriolis(robot, q, qd)),
        "mass": (lambda q, qd, qdd, w: km.mass_matrix(robot, q)),
        "forward": (lambda q, qd, qdd, w: km.forward_dynamics(robot, q, qd, qdd, gravity=g, wrench=w)),
    }
    pick = rng.choice(N, size=3, replace=False)
    for name, f in calls.items():
        batch = f(Q, QD, QDD, W)
        for k in pick:
            one = f(Q[k], QD[k], QDD[k], W[k])
            assert np.allclose(batch[k], one, rtol=1e-12, atol=1e-12 * max(1, np.abs(one).max())), name


def test_forward_dynamics_inverts_rne_with_friction_prismatic_and_mm():
    robot = rough_robot()
    rng = np.random.default_rng(5)
    Q, QD, QDD = rng.normal(size=(3, 50, robot.n))
    tau = km.rne(robot, Q, QD, QDD)
    assert np.allclose(km.forward_dynamics(robot, Q, QD, tau), QDD, atol=1e-9)
    assert np.allclose(km.forward_dynamics(robot, Q[0], QD[0], tau[0]), QDD[0], atol=1e-9)


def two_point_masses():
    """Two parallel revolute axes 1 m apart, point masses at the link ends: M is singular exactly
    when q2 = π folds the second mass onto the first axis (no inertia left about it)."""
    return km.from_dh([{"a": 1.0, "d": 0.0, "alpha": 0.0}, {"a": 1.0, "d": 0.0, "alpha": 0.0}],
                      meta={"inertials": (Inertial(1.0, [-1, 0, 0], np.zeros((3, 3))),  # on axis 1
                                 Inertial(1.0, [0, 0, 0], np.zeros((3, 3))))})


@pytest.mark.parametrize("N", [1, 5, SMALL + 10])
def test_a_singular_state_in_a_batch_is_refused(N):
    robot = two_point_masses()
    Q = np.tile([0.3, 1.0], (N, 1))
    Q[-1, 1] = np.pi  # the singular state, among regular ones
    Z = np.zeros_like(Q)
    with pytest.raises(km.DynamicsError, match="mass matrix is singular"):
        km.forward_dynamics(robot, Q, Z, Z)
    Q[-1, 1] = np.pi - 1e-3  # nearly folded: regular, answered
    a = km.forward_dynamics(robot, Q, Z, np.ones_like(Q))
    M = km.mass_matrix(robot, Q[-1])
    assert np.allclose(M @ a[-1] + km.gravity_torques(robot, Q[-1]), 1.0, rtol=1e-6)
