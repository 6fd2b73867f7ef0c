"""Jacobians against finite differences, frames, planar closed forms and the manipulability
measures on hand-made matrices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import kinematica as km
from strategies import FAST, MEDIUM, robot_and_q

H = 1e-6


def fd_jacobian(robot: km.Robot, q: np.ndarray, h: float = H) -> np.ndarray:
    """Central differences of fk: position rows directly, angular rows from the rotation vector
    of R(q + h) · R(q − h)ᵀ over 2h (base frame)."""
    J = np.empty((6, robot.n))
    for i in range(robot.n):
        dq = np.zeros(robot.n)
        dq[i] = h
        Tp, Tm = km.fk(robot, q + dq), km.fk(robot, q - dq)
        J[:3, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, i] = Rotation.from_matrix(Tp[:3, :3] @ Tm[:3, :3].T).as_rotvec() / (2 * h)
    return J


def blockdiag_rt(T: np.ndarray) -> np.ndarray:
    B = np.zeros((6, 6))
    B[:3, :3] = B[3:, 3:] = T[:3, :3].T
    return B


# --- against finite differences -----------------------------------------------------------
@MEDIUM
@given(rq=robot_and_q())
def test_jacobian_matches_finite_differences(rq):
    robot, q = rq
    J = km.jacobian(robot, q)
    assert J.shape == (6, robot.n)
    np.testing.assert_allclose(J, fd_jacobian(robot, q), atol=2e-7)


def test_jacobian_of_prismatic_joints_matches_finite_differences():
    rows = [{"type": "prismatic", "alpha": -np.pi / 2, "theta": 0.3},
            {"a": 0.3, "d": 0.1, "alpha": np.pi / 2},
            {"type": "prismatic", "theta": 0.4, "a": 0.2, "alpha": 0.7},
            {"a": 0.1, "alpha": -0.4}]
    for build in (km.from_dh, km.from_mdh):
        robot = build(rows, base=km.spatial.rotx(0.3) @ km.spatial.trans(0.1, 0.2, 0.3),
                      tool=km.spatial.trans(0, 0, 0.1))
        for q in ([0.2, 0.5, -0.1, 0.3], [-0.4, -2.0, 0.3, 1.2]):
            J = km.jacobian(robot, q)
            np.testing.assert_allclose(J, fd_jacobian(robot, np.array(q, float)), atol=1e-8)
            # a prismatic column moves the tool along the joint axis, with no rotation
            np.testing.assert_allclose(J[3:, [0, 2]], 0, atol=0)
            np.testing.assert_allclose(np.linalg.norm(J[:3, [0, 2]], axis=0), 1, atol=1e-12)


@pytest.mark.parametrize("name", ["kuka-kr6-r900", "arm-4dof", "arm-5dof", "planar-3r"])
def test_bundled_jacobians_match_finite_differences(name):
    robot = km.load(name)
    q = robot.q_home + 0.1 * np.arange(1, robot.n + 1)
    scale = max(1.0, np.abs(km.fk(robot, q)[:3, 3]).max())
    np.testing.assert_allclose(km.jacobian(robot, q), fd_jacobian(robot, q), atol=1e-7 * scale)


# --- frames, batches, one-pass pose ----------------------------------------------------------
@MEDIUM
@given(rq=robot_and_q())
def test_tool_frame_is_base_frame_rotated(rq):
    robot, q = rq
    T = km.fk(robot, q)
    np.testing.assert_allclose(km.jacobian(robot, q, frame="tool"),
                               blockdiag_rt(T) @ km.jacobian(robot, q, frame="base"), atol=1e-12)


@FAST
@given(rq=robot_and_q(shape=(3, 4)))
def test_batched_jacobians_equal_the_loop(rq):
    robot, q = rq
    for frame in ("base", "tool"):
        T, J = km.fk_jacobian(robot, q, frame=frame)
        assert T.shape == (3, 4, 4, 4) and J.shape == (3, 4, 6, robot.n)
        np.testing.assert_allclose(T, km.fk(robot, q), atol=1e-12)
        for i in range(3):
            for j in range(4):
                np.testing.assert_allclose(J[i, j], km.jacobian(robot, q[i, j], frame=frame), atol=1e-12)
        np.testing.assert_allclose(km.jacobian(robot, q, frame=frame), J, atol=0)


@FAST
@given(rq=robot_and_q(), k=st.integers(1, 6))
def test_fk_jacobian_pose_equals_fk(rq, k):
    robot, q0 = rq
    T, J = km.fk_jacobian(robot, q0)
    assert T.shape == (4, 4) and J.shape == (6, robot.n)
    np.testing.assert_allclose(T, km.fk(robot, q0), atol=1e-12)
    np.testing.assert_allclose(J, km.jacobian(robot, q0), atol=0)
    Q = q0 + 0.01 * np.arange(k)[:, None]  # both sides of the small-batch switch
    T, J = km.fk_jacobian(robot, Q)
    assert T.shape == (k, 4, 4) and J.shape == (k, 6, robot.n)
    np.testing.assert_allclose(T, km.fk(robot, Q), atol=1e-12)
    for i in range(k):
        np.testing.assert_allclose(J[i], km.jacobian(robot, Q[i]), atol=1e-12)


def test_jacobian_rejects_unknown_frame():
    with pytest.raises(ValueError, match="'base', 'tool', 'space', 'body'"):
        km.jacobian(km.load("arm-4dof"), [0, 0, 0, 0], frame="world")
    with pytest.raises(ValueError, match="'base', 'tool', 'space', 'body'"):
        km.fk_jacobian(km.load("arm-4dof"), [0, 0, 0, 0], frame="ee")


@MEDIUM
@given(rq=robot_and_q())
def test_derivative_matrix_jacobian_equals_geometric(rq):
    robot, q = rq
    np.testing.assert_allclose(km.jacobian_derivative(robot, q), km.jacobian(robot, q), atol=1e-12)


def test_jacobian_worked_value():
    J = km.jacobian(km.load("arm-4dof"), [0, 0, 0, 0])
    np.testing.assert_allclose(J[:3], [[0, 0, 0, 0], [270, 0, 0, 0], [0, 270, 188, 60]], atol=1e-12)


# --- paper 000's planar closed forms -------------------------------------------------------
@MEDIUM
@given(data=st.data(), n=st.integers(1, 6))
def test_planar_closed_forms_equal_general_fk_and_jacobian(data, n):
    L = np.array(data.draw(st.lists(st.floats(0.0, 100.0), min_size=n, max_size=n)))
    theta = np.array(data.draw(st.lists(st.floats(-2 * np.pi, 2 * np.pi), min_size=n, max_size=n)))
    robot = km.from_planar(L)
    xy = km.planar_fk(L, theta)
    assert xy.shape == (2,)
    np.testing.assert_allclose(xy, km.fk(robot, theta)[:2, 3], atol=1e-10)
    Jp = km.planar_jacobian(L, theta)
    assert Jp.shape == (2, n)
    J = km.jacobian(robot, theta)
    np.testing.assert_allclose(Jp, J[:2], atol=1e-10)
    np.testing.assert_allclose(J[5], 1.0, atol=0)  # every joint turns the tool about z


def test_planar_closed_forms_batch_shapes():
    L = [20.0, 20.0, 20.0]
    theta = np.random.default_rng(3).uniform(-3, 3, (4, 6, 3))
    xy, Jp = km.planar_fk(L, theta), km.planar_jacobian(L, theta)
    assert xy.shape == (4, 6, 2) and Jp.shape == (4, 6, 2, 3)
    robot = km.from_planar(L)
    np.testing.assert_allclose(xy, km.fk(robot, theta)[..., :2, 3], atol=1e-12)
    np.testing.assert_allclose(Jp, km.jacobian(robot, theta)[..., :2, :], atol=1e-12)


def test_planar_worked_values():
    np.testing.assert_allclose(km.planar_fk([20, 20, 20], np.radians([38.5, 68.8, 62.8])),
                               [-9.998, 34.984], atol=5e-4)
    np.testing.assert_allclose(km.planar_jacobian([20, 20, 20], [0, 0, 0]), [[0, 0, 0], [60, 40, 20]], atol=0)


@pytest.mark.parametrize("f", [km.planar_fk, km.planar_jacobian])
def test_planar_closed_forms_reject_bad_input(f):
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        f([1, 2, 3], [0, 0])
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\)"):
        f([1, 2], np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"theta must have shape \(\.\.\., 4\) to match 4 link lengths"):
        f([[1, 2], [3, 4]], [0, 0])
    with pytest.raises(ValueError, match="finite"):
        f([1, 2], [0, np.nan])
    with pytest.raises(ValueError, match="finite"):
        f([1, np.inf], [0, 0])


# --- manipulability measures ----------------------------------------------------------------
matrices = st.tuples(st.integers(1, 6), st.integers(0, 4), st.integers(0, 2 ** 31 - 1))


@MEDIUM
@given(shape=matrices)
def test_manipulability_is_sqrt_det_jjt_for_square_and_wide(shape):
    m, extra, seed = shape
    J = np.random.default_rng(seed).normal(size=(m, m + extra))
    # det(J Jᵀ) from a QR of Jᵀ (Jᵀ = QR ⇒ J Jᵀ = RᵀR): forming J Jᵀ would square the condition
    # number and make the oracle itself the inaccurate side
    d = float(np.prod(np.diag(np.linalg.qr(J.T, mode="r")) ** 2))
    assert km.det_jjt(J) == pytest.approx(d, rel=1e-9, abs=1e-12)
    assert km.manipulability(J) == pytest.approx(np.sqrt(max(d, 0)), rel=1e-9, abs=1e-12)
    s = np.linalg.svd(J, compute_uv=False)
    assert km.condition(J) == pytest.approx(s[0] / s[-1], rel=1e-9)
    assert km.rank(J) == m
    np.testing.assert_allclose(km.singular_values(J), s, rtol=1e-12)


def test_tall_jacobian_has_zero_manipulability():
    J = np.random.default_rng(0).normal(size=(6, 4))
    assert km.manipulability(J) == 0 and km.det_jjt(J) == 0
    assert km.condition(J) == np.inf
    assert km.rank(J) == 4
    assert np.linalg.det(J @ J.T) == pytest.approx(0, abs=1e-10)


def test_measures_on_hand_made_matrices():
    D = np.diag([3.0, 2.0, 0.5])
    assert km.manipulability(D) == pytest.approx(3.0)
    assert km.det_jjt(D) == pytest.approx(9.0)
    assert km.condition(D) == pytest.approx(6.0)
    assert km.rank(D) == 3
    np.testing.assert_allclose(km.singular_values(D), [3, 2, 0.5])
    # rank-deficient: the second row is twice the first
    R1 = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]])
    assert km.rank(R1) == 1
    assert km.manipulability(R1) == pytest.approx(0, abs=1e-12)
    assert km.det_jjt(R1) == pytest.approx(0, abs=1e-12)
    assert km.condition(R1) > 1e12
    # the zero matrix
    Z = np.zeros((3, 4))
    assert km.rank(Z) == 0
    assert km.manipulability(Z) == 0 and km.det_jjt(Z) == 0
    assert km.condition(Z) == np.inf
    # a rotation is perfectly conditioned
    Rm = km.spatial.rotz(0.7)[:3, :3]
    assert km.condition(Rm) == pytest.approx(1.0)
    assert km.manipulability(Rm) == pytest.approx(1.0)


def test_measures_carry_batch_shape():
    J = np.random.default_rng(4).normal(size=(5, 2, 3, 6))
    for f in (km.manipulability, km.det_jjt, km.condition, km.rank):
        out = f(J)
        assert np.shape(out) == (5, 2)
        assert out[3, 1] == pytest.approx(f(J[3, 1]))
    assert km.singular_values(J).shape == (5, 2, 3)


@pytest.mark.parametrize("f", [km.manipulability, km.det_jjt, km.condition, km.rank, km.singular_values])
def test_measures_reject_vectors(f):
    with pytest.raises(ValueError, match=r"J: expected a matrix or a stack of matrices .* got shape \(3,\)"):
        f(np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("f", [km.manipulability, km.det_jjt, km.condition, km.rank, km.singular_values])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_measures_reject_non_finite(f, bad):
    J = np.eye(3)
    J[1, 2] = bad
    with pytest.raises(ValueError, match="(?i)nan|inf|finite"):
        f(J)


@pytest.mark.parametrize("name, rows", [("planar-3r", "planar"), ("kuka-kr6-r900", "full"),
                                        ("arm-5dof", "position"), ("arm-4dof", "position")])
def test_task_rows_of_bundled_robots(name, rows):
    assert km.task_rows(km.load(name)) == rows


def test_task_rows_of_built_robots():
    assert km.task_rows(km.from_planar([1, 2, 3, 4])) == "planar"
    # a planar chain turned about z and moved is still planar
    assert km.task_rows(km.from_planar([1, 2], base=km.spatial.rotz(0.4) @ km.spatial.trans(1, 2, 3))) == "planar"
    # a prismatic joint makes it not "planar" in the paper's sense
    assert km.task_rows(km.from_dh([{"a": 1}, {"type": "prismatic"}])) == "position"
    rows6 = [{"a": 0.1, "alpha": 0.5 * i} for i in range(6)]
    assert km.task_rows(km.from_dh(rows6)) == "full"
    assert km.task_rows(km.from_dh(rows6 + [{"a": 0.1}])) == "full"
