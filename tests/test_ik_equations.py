"""Each IK equation has one batch form and, where the NumPy single-target loop needs it, one
float form beside it: the pose error (spatial.rotation_error, ik/pose_error.py), the damped
step (ik/damped.py) and the wrap by 2π (ik/limits.py). The float forms equal the batch forms;
the numeric methods' LM step is the batch engine's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import kinematica as km
from kinematica.ik.damped import damped_step, damped_steps
from kinematica.ik.limits import wrap_floats, wrap_inside
from kinematica.ik.numeric import step
from kinematica.ik.options import Options
from kinematica.ik.pose_error import pose_error, pose_error_one
from kinematica.model.robot import LIMIT_TOL
from kinematica.spatial import rotation_error, rotation_error_floats, rotation_log


def _rotations(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (R_d, R) whose relative turn R_d Rᵀ spans every angle, many near and some at π."""
    angle = np.concatenate([rng.uniform(0, np.pi, count), np.pi - rng.uniform(0, 0.2, count), np.full(8, np.pi),
                            [0.0, 1e-13, 1e-9]])
    axis = rng.standard_normal((len(angle), 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    R = Rotation.random(len(angle), random_state=rng.integers(1 << 30)).as_matrix()
    Rd = Rotation.from_rotvec(axis * angle[:, None]).as_matrix() @ R
    return Rd, R


def test_rotation_error_floats_equal_the_batch_form_at_every_angle():
    rng = np.random.default_rng(3)
    Rd, R = _rotations(rng, 200)
    w, theta = rotation_error(np.ascontiguousarray(Rd.transpose(1, 2, 0)), np.ascontiguousarray(R.transpose(1, 2, 0)))
    for k in range(len(R)):
        *wk, tk = rotation_error_floats(*(Rd[k] @ R[k].T).ravel().tolist())
        # the same formulas, M formed here and not there: rounding only (near π the axis is as
        # well conditioned as 1 − cos θ)
        assert abs(tk - theta[k]) < 1e-12
        assert np.allclose(wk, w[:, k], atol=1e-9), (k, wk, w[:, k])
    assert np.allclose(rotation_log(Rd @ R.transpose(0, 2, 1)), w.T, atol=1e-9)
    assert np.allclose(rotation_log(np.eye(3)), 0.0) and rotation_log(np.eye(3)).shape == (3,)


def test_pose_error_one_equals_the_batch_pose_error():
    rng = np.random.default_rng(4)
    Rd, R = _rotations(rng, 50)
    N = len(R)
    T = np.tile(np.eye(4), (N, 1, 1))
    T[:, :3, :3], T[:, :3, 3] = R, rng.standard_normal((N, 3))
    pd = rng.standard_normal((N, 3))
    e, pos, ori = pose_error(pd.T, Rd.transpose(1, 2, 0), T[:, :3].transpose(1, 0, 2))
    for k in range(N):
        e1, E1, pos1, ori1 = pose_error_one(pd[k], Rd[k], T[k])
        assert np.allclose(e1, e[:, k], atol=1e-9)
        assert abs(pos1 - pos[k]) < 1e-12 and abs(ori1 - ori[k]) < 1e-12
        assert abs(E1 - 0.5 * e[:, k] @ e[:, k]) < 1e-9


@pytest.mark.parametrize("rows, cols", [(6, 6), (6, 7), (3, 6), (6, 4), (2, 3)])
def test_the_single_damped_step_equals_the_batch_one_and_the_numeric_lm_step(rows, cols):
    rng = np.random.default_rng(rows * 10 + cols)
    P = 80  # over damped.SMALL: the unrolled Cholesky; the first 5 alone: LAPACK
    J, e = rng.normal(size=(rows, cols, P)), rng.normal(size=(rows, P))
    lam = 10.0 ** rng.uniform(-3, 1, P)
    lam[0] = 0.0  # the floor: 1e-12·‖J‖²_F
    batch, few = damped_steps(J, e, lam), damped_steps(J[..., :5], e[:, :5], lam[:5])
    # conditioned by λ ≥ 1e-3 (and by the floor for λ = 0 on a well-conditioned J): rounding only
    np.testing.assert_allclose(few, batch[:, :5], rtol=1e-8, atol=1e-10)
    for k in range(P):
        np.testing.assert_allclose(damped_step(J[..., k], e[:, k], lam[k]), batch[:, k], rtol=1e-8, atol=1e-10)
    numeric = step(Options(method="lm"), J.transpose(2, 0, 1), e.T, lam)
    np.testing.assert_allclose(numeric, batch.T, rtol=1e-12, atol=1e-14)
    dls = step(Options(method="dls", damping=0.5), J.transpose(2, 0, 1), e.T, lam)
    np.testing.assert_allclose(dls, damped_steps(J, e, np.full(P, 0.25)).T, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["puma560", "panda", "ur5"])
def test_wrap_floats_equal_wrap_inside(name):
    robot = km.load(name)
    rng = np.random.default_rng(7)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    span = np.where(np.isfinite(hi - lo), hi - lo, 2 * np.pi)
    base = np.where(np.isfinite(lo), lo, -np.pi)
    q = base + span * rng.uniform(-1.5, 2.5, (400, robot.n)) + 2 * np.pi * rng.integers(-3, 4, (400, robot.n))
    q[:20] = np.where(rng.random((20, robot.n)) < 0.5, lo - 2 * np.pi, hi + 2 * np.pi)  # a turn off a limit
    q[20:40] = np.where(rng.random((20, robot.n)) < 0.5, lo - 0.5 * LIMIT_TOL, hi + 0.5 * LIMIT_TOL)
    qw, inside = wrap_inside(robot, q.T)
    lo_l, hi_l, rev_l = lo.tolist(), hi.tolist(), robot.wraps.tolist()
    for k in range(len(q)):
        out = [0.0] * robot.n
        assert wrap_floats(q[k].tolist(), lo_l, hi_l, rev_l, LIMIT_TOL, out) == inside[k]
        assert out == qw[:, k].tolist()
    assert inside[20:40].all()  # within LIMIT_TOL of a limit counts as inside
