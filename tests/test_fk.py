"""Forward kinematics against a plain-NumPy reference, batch shapes, frames and accuracy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica.kinematics import chain

CHUNK = getattr(chain, "CHUNK", 4096)
from strategies import (FAST, MEDIUM, configurations, dh_rows, random_q, rigid_transforms,
                        robot_and_q)


# --- plain-NumPy references ---------------------------------------------------------------
def Rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def Rx(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def Tz(d):
    T = np.eye(4)
    T[2, 3] = d
    return T


def Tx(a):
    T = np.eye(4)
    T[0, 3] = a
    return T


def naive_fk(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """base · Π(before_i · Rz/Tz(q_i + offset_i) · after_i) · tool, one 4x4 product at a time."""
    T = robot.base.copy()
    for i in range(robot.n):
        v = q[i] + robot.offsets[i]
        J = Rz(v) if robot.joint_types[i] == "revolute" else Tz(v)
        T = T @ robot.before[i] @ J @ robot.after[i]
    return T @ robot.tool


def dh_frames(rows: list[dict], q: np.ndarray, base: np.ndarray, modified: bool) -> list[np.ndarray]:
    """The textbook link frames: base · A1 · … · Ai, from the DH table itself."""
    T, out = base.copy(), []
    for row, qi in zip(rows, q):
        th, d = row["theta"], row["d"]
        if row["type"] == "revolute":
            th = th + qi
        else:
            d = d + qi
        if modified:
            A = Rx(row["alpha"]) @ Tx(row["a"]) @ Rz(th) @ Tz(d)
        else:
            A = Rz(th) @ Tz(d) @ Tx(row["a"]) @ Rx(row["alpha"])
        T = T @ A
        out.append(T)
    return out


def assert_rigid(T: np.ndarray, tol: float = 1e-12) -> None:
    R = T[..., :3, :3]
    np.testing.assert_allclose(np.swapaxes(R, -1, -2) @ R, np.broadcast_to(np.eye(3), R.shape), atol=tol)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=tol)
    np.testing.assert_array_equal(T[..., 3, :], np.broadcast_to([0, 0, 0, 1.0], T.shape[:-2] + (4,)))


# --- single configurations ----------------------------------------------------------------
@MEDIUM
@given(rq=robot_and_q())
def test_fk_equals_naive_product(rq):
    robot, q = rq
    T = km.fk(robot, q)
    assert T.shape == (4, 4)
    np.testing.assert_allclose(T, naive_fk(robot, q), atol=1e-12)
    assert_rigid(T)


@MEDIUM
@given(modified=st.booleans(), data=st.data())
def test_fk_equals_textbook_dh_product(modified, data):
    rows = data.draw(dh_rows())
    base, tool = data.draw(rigid_transforms()), data.draw(rigid_transforms())
    robot = (km.from_mdh if modified else km.from_dh)(rows, base=base, tool=tool)
    q = data.draw(configurations(robot))
    frames = dh_frames(rows, q, base, modified)
    np.testing.assert_allclose(km.fk(robot, q), frames[-1] @ tool, atol=1e-12)
    F = km.fk_frames(robot, q)
    assert F.shape == (robot.n + 2, 4, 4)
    np.testing.assert_allclose(F[1:-1], np.array(frames), atol=1e-12)


def test_fk_accepts_lists_and_ints():
    r = km.load("arm-4dof")
    np.testing.assert_allclose(km.fk(r, [0, 0, 0, 0]), km.fk(r, np.zeros(4)), atol=0)
    np.testing.assert_allclose(km.fk(r, (0, 0, 0, 0))[:3, 3], [270, 0, 70], atol=1e-12)


def test_fk_does_not_modify_its_input():
    r = km.load("kuka-kr6-r900")
    q = np.linspace(-1, 1, 60).reshape(10, 6)
    q0 = q.copy()
    km.fk(r, q), km.fk_frames(r, q), km.jacobian(r, q)
    np.testing.assert_array_equal(q, q0)


# --- batches ------------------------------------------------------------------------------
@FAST
@given(rq=robot_and_q(shape=(5, 7)))
def test_batch_equals_loop_of_single_calls(rq):
    robot, q = rq
    T = km.fk(robot, q)
    assert T.shape == (5, 7, 4, 4)
    loop = np.array([[km.fk(robot, q[i, j]) for j in range(7)] for i in range(5)])
    np.testing.assert_allclose(T, loop, atol=1e-12)
    np.testing.assert_allclose(T[3, 4], naive_fk(robot, q[3, 4]), atol=1e-12)
    assert_rigid(T)


@FAST
@given(rq=robot_and_q(), k=st.integers(1, 6))
def test_small_and_large_batches_agree_at_the_switch(rq, k):
    # N <= 4 takes the single-configuration path, N >= 5 the structure-of-arrays pass.
    robot, q0 = rq
    q = q0 + 0.01 * np.arange(k)[:, None]
    T = km.fk(robot, q)
    assert T.shape == (k, 4, 4)
    for i in range(k):
        np.testing.assert_allclose(T[i], naive_fk(robot, q[i]), atol=1e-12)
    F = km.fk_frames(robot, q)
    assert F.shape == (k, robot.n + 2, 4, 4)
    for i in range(k):
        np.testing.assert_allclose(F[i], km.fk_frames(robot, q[i]), atol=1e-12)


@pytest.mark.parametrize("name", ["kuka-kr6-r900", "arm-5dof"])
def test_batch_across_the_chunk_boundary(name):
    robot = km.load(name)
    N = CHUNK + 37
    assert N > 4096
    q = random_q(robot.replace(limits=np.tile([-np.pi, np.pi], (robot.n, 1))), np.random.default_rng(5), (N,))
    T = km.fk(robot, q)
    assert T.shape == (N, 4, 4)
    idx = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, N - 1]
    for i in idx:
        np.testing.assert_allclose(T[i], naive_fk(robot, q[i]), atol=1e-12)
    # the whole batch, against a vectorised reference of the canonical product
    ref = np.broadcast_to(robot.base @ robot.before[0], (N, 4, 4))
    for i in range(robot.n):
        c, s = np.cos(q[:, i] + robot.offsets[i]), np.sin(q[:, i] + robot.offsets[i])
        J = np.zeros((N, 4, 4))
        J[:, 0, 0] = J[:, 1, 1] = c
        J[:, 1, 0], J[:, 0, 1] = s, -s
        J[:, 2, 2] = J[:, 3, 3] = 1
        nxt = robot.before[i + 1] if i + 1 < robot.n else robot.tool
        ref = ref @ J @ (robot.after[i] @ nxt)
    np.testing.assert_allclose(T, ref, atol=1e-12)
    F = km.fk_frames(robot, q.reshape(1, N, robot.n))
    assert F.shape == (1, N, robot.n + 2, 4, 4)
    np.testing.assert_allclose(F[0, :, -1], T, atol=1e-12)
    for i in idx:
        np.testing.assert_allclose(F[0, i], km.fk_frames(robot, q[i]), atol=1e-12)


def test_prismatic_batch_across_the_chunk_boundary():
    rows = [{"type": "prismatic", "alpha": -np.pi / 2, "limits": [0, 1]},
            {"a": 0.3, "alpha": np.pi / 2, "limits": [-2, 2]},
            {"type": "prismatic", "theta": 0.4, "limits": [-0.5, 0.5]}]
    robot = km.from_dh(rows)
    q = random_q(robot, np.random.default_rng(6), (CHUNK + 5,))
    T = km.fk(robot, q)
    for i in (0, CHUNK - 1, CHUNK, CHUNK + 4):
        np.testing.assert_allclose(T[i], naive_fk(robot, q[i]), atol=1e-12)


# --- frames -------------------------------------------------------------------------------
@FAST
@given(rq=robot_and_q(shape=(6,)))
def test_frames_first_is_base_last_is_fk(rq):
    robot, q = rq
    F = km.fk_frames(robot, q)
    assert F.shape == (6, robot.n + 2, 4, 4)
    np.testing.assert_allclose(F[:, 0], np.broadcast_to(robot.base, (6, 4, 4)), atol=0)
    np.testing.assert_allclose(F[:, -1], km.fk(robot, q), atol=1e-12)
    assert_rigid(F)
    F1 = km.fk_frames(robot, q[2])
    np.testing.assert_allclose(F1[0], robot.base, atol=0)
    np.testing.assert_allclose(F1[-1], km.fk(robot, q[2]), atol=1e-12)
    np.testing.assert_allclose(F[2], F1, atol=1e-12)


def test_frames_of_planar_3r_are_the_joint_positions():
    r = km.load("planar-3r")
    F = km.fk_frames(r, np.radians([90, 0, 0]))
    np.testing.assert_allclose(F[:, :2, 3], [[0, 0], [0, 0], [0, 20], [0, 40], [0, 60]], atol=1e-12)


# --- the tan-half-angle path (batches of 5 or more) ---------------------------------------
SPECIAL = np.array([np.pi, -np.pi, np.nextafter(np.pi, 0), np.nextafter(np.pi, 4), np.pi - 1e-9,
                    -np.pi + 1e-9, 3 * np.pi, -3 * np.pi, 1e3, -1e3, 999.999, 12345.678, 2 * np.pi,
                    0.0, 1e-300, -5e-324, 1e-8, np.pi / 2, 31.41592653589793, 1e4 + 0.5])


def test_batch_path_cos_sin_are_accurate():
    # a unit link turning about z: the tool point is (cos q, sin q) exactly
    r = km.from_dh([{"a": 1.0}])
    T = km.fk(r, SPECIAL[:, None])  # 20 configurations: the batch (tan-half-angle) path
    np.testing.assert_allclose(T[:, 0, 3], np.cos(SPECIAL), rtol=0, atol=1e-12)
    np.testing.assert_allclose(T[:, 1, 3], np.sin(SPECIAL), rtol=0, atol=1e-12)
    np.testing.assert_allclose(T[:, 0, 0], np.cos(SPECIAL), rtol=0, atol=1e-12)
    np.testing.assert_allclose(T[:, 1, 0], np.sin(SPECIAL), rtol=0, atol=1e-12)
    big = np.random.default_rng(7).uniform(-1e3, 1e3, 20_000)
    T = km.fk(r, big[:, None])
    assert np.abs(T[:, 0, 3] - np.cos(big)).max() < 1e-12
    assert np.abs(T[:, 1, 3] - np.sin(big)).max() < 1e-12
    # with an offset θ the joint angle is q + θ
    r = km.from_dh([{"a": 1.0, "theta": 2.5}])
    T = km.fk(r, SPECIAL[:, None])
    np.testing.assert_allclose(T[:, 0, 3], np.cos(SPECIAL + 2.5), rtol=0, atol=1e-12)
    np.testing.assert_allclose(T[:, 1, 3], np.sin(SPECIAL + 2.5), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["kuka-kr6-r900", "arm-5dof"])
def test_batch_fk_accurate_near_pi_and_for_large_angles(name):
    robot = km.load(name)
    vals = np.concatenate([SPECIAL, -SPECIAL])
    Q = np.stack([np.roll(vals, k)[: robot.n] for k in range(len(vals))])  # >= 5 rows: batch path
    T = km.fk(robot, Q)
    ref = np.array([naive_fk(robot, qi) for qi in Q])
    np.testing.assert_allclose(T, ref, rtol=0, atol=1e-12)
    assert_rigid(T, tol=1e-13)
    T, J = km.fk_jacobian(robot, Q)
    np.testing.assert_allclose(T, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(J, np.array([km.jacobian(robot, qi) for qi in Q]), rtol=0, atol=1e-12)


def test_single_and_batch_agree_on_planar_arm_at_large_angles():
    r = km.from_planar([20, 20, 20])
    Q = np.array([[1e3, -1e3, np.pi]] * 6) + np.arange(6)[:, None] * np.pi
    T = km.fk(r, Q)
    for qi, Ti in zip(Q, T):
        phi = np.cumsum(qi)
        xy = [20 * np.cos(phi).sum(), 20 * np.sin(phi).sum()]
        np.testing.assert_allclose(Ti[:2, 3], xy, rtol=0, atol=1e-11)
        np.testing.assert_allclose(Ti, km.fk(r, qi), rtol=0, atol=1e-11)


# --- worked values ------------------------------------------------------------------------
def test_worked_values():
    np.testing.assert_allclose(km.fk(km.load("planar-3r"), np.radians([30, 30, 20]))[:2, 3],
                               [30.79, 47.02], atol=5e-3)
    np.testing.assert_allclose(km.fk(km.load("arm-4dof"), [0, 0, 0, 0])[:3, 3], [270, 0, 70], atol=1e-12)
    np.testing.assert_allclose(km.fk(km.load("kuka-kr6-r900"), [0] * 6)[:3, 3], [0, 0.5615, 0.89],
                               atol=1e-12)


# --- bad input: every public function that takes q ----------------------------------------
ROBOT = km.load("arm-4dof")
Q_FUNCS = {
    "fk": lambda q: km.fk(ROBOT, q),
    "fk_frames": lambda q: km.fk_frames(ROBOT, q),
    "jacobian": lambda q: km.jacobian(ROBOT, q),
    "jacobian_tool": lambda q: km.jacobian(ROBOT, q, frame="tool"),
    "fk_jacobian": lambda q: km.fk_jacobian(ROBOT, q),
    "jacobian_derivative": lambda q: km.jacobian_derivative(ROBOT, q),
    "singularity": lambda q: km.singularity(ROBOT, q),
}
WRONG_SHAPES = [np.zeros(3), np.zeros(5), np.zeros((2, 3)), np.zeros((3, 5)), np.float64(0.0), np.zeros((4, 1)),
                np.zeros(0)]


@pytest.mark.parametrize("func", list(Q_FUNCS))
@pytest.mark.parametrize("q", WRONG_SHAPES, ids=lambda q: f"shape{np.shape(q)}")
def test_wrong_shape_raises_naming_the_expected_shape(func, q):
    with pytest.raises(ValueError, match="^q: expected") as e:
        Q_FUNCS[func](q)
    msg = str(e.value)
    assert "(..., 4)" in msg or "(4,)" in msg, msg
    assert str(np.shape(q)) in msg, msg


@pytest.mark.parametrize("func", list(Q_FUNCS))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_raise(func, bad):
    q = np.zeros(4)
    q[2] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        Q_FUNCS[func](q)


@pytest.mark.parametrize("func", ["fk", "fk_frames", "jacobian", "fk_jacobian"])
def test_nan_anywhere_in_a_batch_raises(func):
    q = np.zeros((10, 4))
    q[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Q_FUNCS[func](q)


@pytest.mark.parametrize("func", list(Q_FUNCS))
@pytest.mark.parametrize("q", ["abcd", [[0, 0, 0, 0], [0, 0, 0]], [0, 0, 0, 1j], None])
def test_non_numbers_raise_value_error(func, q):
    # None becomes a 0-d object array: refused by its shape rather than its type
    with pytest.raises(ValueError, match=r"^q: expected (numbers|4 joint values)"):
        Q_FUNCS[func](q)


@pytest.mark.parametrize("func", ["jacobian_derivative", "singularity"])
def test_single_configuration_functions_reject_batches(func):
    with pytest.raises(ValueError, match=r"\(4,\)"):
        Q_FUNCS[func](np.zeros((2, 4)))


def test_empty_batch_gives_empty_result():
    n = ROBOT.n
    assert km.fk(ROBOT, np.zeros((0, n))).shape == (0, 4, 4)
    assert km.fk(ROBOT, np.zeros((3, 0, n))).shape == (3, 0, 4, 4)
    assert km.fk_frames(ROBOT, np.zeros((0, n))).shape == (0, n + 2, 4, 4)
    assert km.jacobian(ROBOT, np.zeros((0, n))).shape == (0, 6, n)
    T, J = km.fk_jacobian(ROBOT, np.zeros((2, 0, n)), frame="tool")
    assert T.shape == (2, 0, 4, 4) and J.shape == (2, 0, 6, n)


def test_within_limits_rejects_nan():
    assert not ROBOT.within_limits([0, 0, np.nan, 0])


@pytest.mark.parametrize("q", [np.zeros(1), np.zeros(5), np.zeros((2, 3))], ids=["1", "5", "2x3"])
def test_within_limits_rejects_wrong_shape(q):
    with pytest.raises(ValueError, match=r"\(\.\.\., 4\)"):
        ROBOT.within_limits(q)
