"""Dynamics against Pinocchio (rnea, crba, aba), hand calculations, properties and bad input."""

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica.dynamics.params import link_params
from kinematica.model.inertial import Inertial

WITH_INERTIALS = [n for n in km.robot_names() if km.load(n).inertials is not None]


def pin_model(robot):
    """Pinocchio model of our canonical chain: joint i placed at A(i−1)·B(i), link inertials moved
    from link frame i into joint frame i (link frame = joint frame · A_i)."""
    s = link_params(robot).scale
    p = link_params(robot)
    model, parent = pin.Model(), 0
    for i in range(robot.n):
        X = robot.base @ robot.before[0] if i == 0 else robot.after[i - 1] @ robot.before[i]
        joint = pin.JointModelRZ() if robot.revolute[i] else pin.JointModelPZ()
        parent = model.addJoint(parent, joint, pin.SE3(X[:3, :3], X[:3, 3] * s), f"j{i}")
        A = robot.after[i]
        com = A[:3, :3] @ p.com[i] + A[:3, 3] * s
        model.appendBodyToJoint(parent, pin.Inertia(p.mass[i], com, A[:3, :3] @ p.inertia[i] @ A[:3, :3].T),
                                pin.SE3.Identity())
    return model


def to_si(robot, x):
    return x * np.where(robot.revolute, 1.0, link_params(robot).scale)


def check_against_pinocchio(robot, rng, count=4):
    model = pin_model(robot)
    data = model.createData()
    g = model.gravity.linear
    for _ in range(count):
        q, qd, qdd = rng.normal(size=(3, robot.n))
        qp = to_si(robot, q + robot.offsets)
        ref = pin.rnea(model, data, qp, to_si(robot, qd), to_si(robot, qdd))
        tau = km.rne(robot, q, qd, qdd, gravity=g)
        assert np.allclose(tau, ref, rtol=1e-10, atol=1e-10 * max(1, np.abs(ref).max()))
        M = pin.crba(model, data, qp)
        M = np.triu(M) + np.triu(M, 1).T
        assert np.allclose(km.mass_matrix(robot, q), M, rtol=1e-10, atol=1e-12 * max(1, np.abs(M).max()))
        if np.linalg.eigvalsh(M)[0] <= 1e-12 * np.linalg.eigvalsh(M)[-1]:
            with pytest.raises(km.DynamicsError, match="mass matrix is singular"):
                km.forward_dynamics(robot, q, qd, tau)
            continue
        a = pin.aba(model, data, qp, to_si(robot, qd), tau)
        assert np.allclose(to_si(robot, km.forward_dynamics(robot, q, qd, tau, gravity=g)), a,
                           rtol=1e-9, atol=1e-9 * max(1, np.abs(a).max()))


@pytest.mark.parametrize("name", WITH_INERTIALS)
def test_bundled_robots_match_pinocchio(name):
    check_against_pinocchio(km.load(name), np.random.default_rng(hash(name) % 2**32))


@st.composite
def random_dynamic_robot(draw):
    n = draw(st.integers(1, 7))
    unit = draw(st.sampled_from(["m", "mm"]))
    L = 1.0 if unit == "m" else 1000.0
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows, inert = [], []
    for i in range(n):
        rows.append({"a": rng.uniform(-1, 1) * L, "d": rng.uniform(-1, 1) * L, "alpha": rng.uniform(-np.pi, np.pi),
                     "theta": rng.uniform(-np.pi, np.pi), "type": "prismatic" if rng.random() < 0.3 else "revolute"})
        A = rng.normal(size=(3, 3))
        inert.append(Inertial(rng.uniform(0.1, 5), rng.normal(size=3) * 0.3 * L, (A @ A.T + np.eye(3)) * L * L))
    base = km.spatial.homogeneous(km.spatial.rpy_to_matrix(rng.normal(size=3)), rng.normal(size=3) * L)
    tool = km.spatial.homogeneous(km.spatial.rpy_to_matrix(rng.normal(size=3)), rng.normal(size=3) * L)
    modified = draw(st.booleans())
    build = km.from_mdh if modified else km.from_dh
    return build(rows, length_unit=unit, base=base, tool=tool, meta={"inertials": tuple(inert)}), rng


@settings(max_examples=25, deadline=None)
@given(random_dynamic_robot())
def test_random_robots_with_prismatic_joints_match_pinocchio(args):
    robot, rng = args
    check_against_pinocchio(robot, rng, count=2)


def test_horizontal_two_link_arm_static_torques_equal_the_hand_calculation():
    # two links of 1 m and 0.5 m along x, point masses at their ends, joint axes vertical... turned
    # horizontal: axes along y so gravity (−z) loads them; τ1 = g(m1 l1 + m2 (l1 + l2)), τ2 = g m2 l2
    m1, m2, l1, l2 = 2.0, 1.5, 1.0, 0.5
    robot = km.from_link_frames(
        [{"xyz": [0, 0, 0], "axis": [0, -1, 0]}, {"xyz": [l1, 0, 0], "axis": [0, -1, 0]}],
        tool=km.spatial.trans(x=l2),
        meta={"inertials": (Inertial(m1, [l1, 0, 0], np.zeros((3, 3))), Inertial(m2, [l2, 0, 0], np.zeros((3, 3))))})
    g = km.dynamics.params.G
    tau = km.gravity_torques(robot, [0, 0])
    assert np.allclose(tau, [g * (m1 * l1 + m2 * (l1 + l2)), g * m2 * l2], rtol=1e-12)


def test_batches_equal_loops_and_shapes():
    robot = km.load("puma560")
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.normal(size=(3, 2, 5, 6))
    tau = km.rne(robot, q, qd, qdd)
    assert tau.shape == (2, 5, 6)
    assert np.allclose(tau[1, 3], km.rne(robot, q[1, 3], qd[1, 3], qdd[1, 3]), atol=1e-12)
    assert km.mass_matrix(robot, q).shape == (2, 5, 6, 6)
    assert np.allclose(km.mass_matrix(robot, q)[0, 2], km.mass_matrix(robot, q[0, 2]), atol=1e-14)


def test_a_batch_goes_the_same_way_with_or_without_the_checks():
    """The default call hands a batch straight to the core (`_rne_default`); given gravity as its
    own array it goes through every check first: the same torques (one kernel, one answer), and
    a batch the core cannot take as it is still refused in words."""
    robot = km.load("puma560")
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(3, 40, 6))
    fast = km.rne(robot, q, qd, qdd)
    checked = km.rne(robot, q, qd, qdd, gravity=km.dynamics.params.GRAVITY.copy())
    np.testing.assert_allclose(fast, checked, rtol=0, atol=1e-12)
    np.testing.assert_allclose(km.rne(robot, q, qd[0], qdd), km.rne(robot, q, np.broadcast_to(qd[0], q.shape).copy(), qdd),
                               rtol=0, atol=1e-12)  # qd of one state, broadcast by the checks
    with pytest.raises(km.InputError, match=r"^qd: shape \(39, 6\) does not fit q's \(40, 6\)"):
        km.rne(robot, q, qd[1:], qdd)
    bad = qdd.copy()
    bad[7, 2] = np.nan
    with pytest.raises(km.InputError, match="^qdd: contains NaN or infinity"):
        km.rne(robot, q, qd, bad)


def test_equation_of_motion_is_consistent():
    robot = km.load("panda")
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, robot.n))
    lhs = km.mass_matrix(robot, q) @ qdd + km.coriolis(robot, q, qd) + km.gravity_torques(robot, q)
    assert np.allclose(km.rne(robot, q, qd, qdd), lhs, atol=1e-10)
    assert np.allclose(km.forward_dynamics(robot, q, qd, lhs), qdd, atol=1e-9)


def test_external_wrench_is_minus_jacobian_transpose():
    robot = km.load("ur5")
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.normal(size=(3, 6))
    w = rng.normal(size=6)
    J = km.jacobian(robot, q)
    assert np.allclose(km.rne(robot, q, qd, qdd, wrench=w), km.rne(robot, q, qd, qdd) - J.T @ w, atol=1e-10)


def test_payload_adds_its_weight_at_the_tool():
    robot = km.load("puma560")
    q = np.array([0.2, -0.5, 0.3, 0.1, 0.4, 0.0])
    heavy = km.with_payload(robot, 2.0)
    J = km.jacobian(robot, q)
    expected = km.gravity_torques(robot, q) - J.T @ np.r_[0, 0, -2.0 * km.dynamics.params.G, 0, 0, 0]
    assert np.allclose(km.gravity_torques(heavy, q), expected, atol=1e-10)


def test_missing_inertials_is_a_clear_error_naming_the_links():
    with pytest.raises(km.DynamicsError, match=r"no inertial parameters for link 1.*link 2.*link 3"):
        km.rne(km.load("planar-3r"), [0, 0, 0], [0, 0, 0], [0, 0, 0])
    half = km.load("arm-5dof")
    half = half.replace(inertials=half.inertials[:2] + (None,) + half.inertials[3:])
    with pytest.raises(km.DynamicsError, match=r"link 3 \(after joint q3\)") as err:
        km.gravity_torques(half, np.zeros(5))
    assert "link 1" not in str(err.value)


@pytest.mark.parametrize("bad", [[0, 0, 0], [0, 0, 0, 0, np.nan], [[0] * 4], "x"])
def test_bad_input_is_a_value_error(bad):
    robot = km.load("arm-5dof")
    with pytest.raises(ValueError, match="^q: (expected|contains NaN)"):
        km.rne(robot, bad, np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="^qd: (expected|contains NaN)"):
        km.forward_dynamics(robot, np.zeros(5), bad, np.zeros(5))
    with pytest.raises(ValueError, match="^wrench: contains NaN or infinity"):
        km.rne(robot, np.zeros(5), np.zeros(5), np.zeros(5), wrench=[np.inf, 0, 0, 0, 0, 0])


def test_friction_and_armature_from_a_robot_file_round_trip(tmp_path):
    robot = km.load("arm-5dof")
    text = km.model.robotfile.write_text(robot).replace(
        "- name: q2\n", "- name: q2\n  friction: {viscous: 0.5, coulomb: 0.2}\n  armature: 0.01\n")
    assert "armature" in text
    path = tmp_path / "r.yaml"
    path.write_text(text)
    rough = km.load(path)
    q, qd, qdd = np.zeros(5), np.array([0, 2.0, 0, 0, 0]), np.array([0, 3.0, 0, 0, 0])
    extra = km.rne(rough, q, qd, qdd) - km.rne(robot, q, qd, qdd)
    assert np.allclose(extra, [0, 0.5 * 2 + 0.2 + 0.01 * 3, 0, 0, 0], atol=1e-12)
    assert np.allclose(km.mass_matrix(rough, q) - km.mass_matrix(robot, q), np.diag([0, 0.01, 0, 0, 0]))
    km.save(rough, tmp_path / "again.yaml")
    assert km.load(tmp_path / "again.yaml").extras["drives"] == rough.extras["drives"]
