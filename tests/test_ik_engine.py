"""The numeric IK behind `km.ik`: a batch and a loop of single solves agree, the pose error
matches an independent log, limits are wrapped and checked as documented, and a batch never
claims a success an independent FK check refuses."""

import importlib

import numpy as np
import pytest

import kinematica as km
from kinematica.ik import target as tg
from kinematica.ik.limits import outside_by, wrap_inside, wrap_into_limits
from kinematica.ik.pose_error import pose_error
from kinematica.spatial import rotation_log

verdict = importlib.import_module("kinematica.ik.verdict")


def _random_q(robot, rng, count):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return rng.uniform(lo, hi, size=(count, robot.n))


def test_pose_error_matches_scipy_near_and_at_pi():
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(1)
    axis = rng.standard_normal((600, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = np.concatenate([rng.uniform(0, np.pi, 300), np.pi - rng.uniform(0, 0.2, 290), np.full(10, np.pi)])
    Rd = Rotation.random(600, random_state=2).as_matrix()
    R = Rotation.from_rotvec(axis * angle[:, None]).as_matrix().transpose(0, 2, 1) @ Rd  # R_d Rᵀ = the rotation
    Tr = np.concatenate([R, rng.standard_normal((600, 3, 1))], axis=2).transpose(1, 0, 2)
    pd = rng.standard_normal((3, 600))
    e, pos, theta = pose_error(pd, Rd.transpose(1, 2, 0), Tr)
    ref = Rotation.from_matrix(Rd @ R.transpose(0, 2, 1)).as_rotvec()  # an independent log
    assert np.allclose(e[3:, :-10].T, ref[:-10], atol=1e-12)
    assert np.allclose(np.abs(e[3:, -10:].T), np.abs(ref[-10:]), atol=1e-12)  # at π the sign is free
    assert np.allclose(rotation_log(Rd @ R.transpose(0, 2, 1)), e[3:].T, atol=1e-12)  # the same function
    assert np.allclose(theta, angle, atol=1e-12)
    assert np.allclose(pos, np.linalg.norm(pd - Tr[:, :, 3], axis=0))


def test_wrap_inside_turns_revolute_joints_into_range_only():
    robot = km.load("puma560")
    q = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.1 + 2 * np.pi, 0.2, 0.3, 0.4, 0.5 - 2 * np.pi, 0.6],
                  [3.0, 0.2, 0.3, 0.4, 0.5, 0.6]]).T  # joint 1 at 3.0 rad is beyond ±160° whatever the turn
    qw, inside = wrap_inside(robot, q)
    assert inside.tolist() == [True, True, False]
    assert np.allclose(qw[:, 1], q[:, 0])
    assert np.allclose(qw[:, 1], wrap_into_limits(robot, q[:, 1]))
    assert outside_by(robot, q, 0.05).tolist() == [False, False, True]
    assert not outside_by(robot, q[:, 2:] - [[0.25], [0], [0], [0], [0], [0]], 0.05)[0]  # 0.01 rad beyond


def test_batch_equals_loop_of_single_solves_on_full_poses():
    robot = km.load("puma560")
    rng = np.random.default_rng(5)
    T = km.fk(robot, _random_q(robot, rng, 40))
    seeds = _random_q(robot, rng, 40)
    for limits in ("wrap", "clip"):
        batch = km.ik(robot, T, seeds, limits=limits, restarts=0)
        for k in range(40):
            one = km.ik(robot, T[k], seeds[k], limits=limits, restarts=0)
            assert one.success == batch.success[k]
            np.testing.assert_array_equal(one.q, batch.q[k])  # the same code, seeds and generator


@pytest.mark.parametrize("name", ["puma560", "ur5", "panda"])
def test_batch_protocol_success_and_no_false_claims(name):
    robot = km.load(name)
    rng = np.random.default_rng(11)
    T = km.fk(robot, _random_q(robot, rng, 1500))
    r = km.ik(robot, T, "random", seed=3)
    assert r.success.mean() >= 0.999
    ok = r.success
    Tq = km.fk(robot, r.q[ok])
    assert np.all(np.linalg.norm(Tq[:, :3, 3] - T[ok, :3, 3], axis=1) < 1e-6)
    assert np.all(robot.within_limits(r.q[ok]))
    assert np.all(r.reason[ok] != None)  # noqa: E711 (object array)


def test_random_seeds_are_reproducible_and_limits_auto_follows_q0():
    robot = km.load("kuka-kr6-r900")
    T = km.fk(robot, _random_q(robot, np.random.default_rng(2), 30))
    a = km.ik(robot, T, "random", seed=7)
    b = km.ik(robot, T, "random", seed=7)
    assert np.array_equal(a.q, b.q) and a.success.all()
    with pytest.raises(ValueError, match="q0"):
        km.ik(robot, T, "somewhere")
    # explicit joint values: the first attempt is clipped to the limits at every step (paper 000)
    start = np.full(6, 0.1)
    hist = km.ik(robot, T[0], start, history=True, restarts=0).history
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    assert all(np.all((h["q"] >= lo) & (h["q"] <= hi)) for h in hist)


def test_near_singular_bound_agrees_with_the_svd():
    robot = km.load("puma560")
    q = _random_q(robot, np.random.default_rng(4), 400)
    q[:40, 4] = 1e-5  # wrist nearly straight: singular
    q[40:80, 2] = -np.pi / 2 + 1e-6  # elbow near full stretch (the Puma's θ3 offset)
    t = tg.pose(km.fk(robot, q))
    s = km.singular_values(km.jacobian(robot, q))
    assert np.array_equal(verdict.near_singular(robot, t, q), s[:, 5] < 1e-3 * s[:, 0])


def test_bound_constrained_restarts_start_with_joints_on_limits_and_redundant_arms_polish_far():
    """The two rules that find Panda solutions on corners of the joint box (issue 30)."""
    import math

    from kinematica.ik.limits import MARGIN, SNAP, polish_margin, snapped
    from kinematica.ik.restarts import modes, restart_seeds
    from kinematica.ik.options import Options

    panda, puma = km.load("panda"), km.load("puma560")
    assert polish_margin(puma, 6) == MARGIN and polish_margin(panda, 6) == math.inf
    assert polish_margin(puma, 3) == math.inf  # a position target leaves a 6-joint arm 3 free
    free = panda.replace(limits=np.vstack([[-np.inf, np.inf], panda.limits[1:]]))
    lo, hi = free.limits.T
    u = np.tile([0.1, 0.5, 0.9, 0.1, 0.5, 0.9, 0.1], (2, 1))
    q = snapped(free, np.zeros((2, 7)), u)
    assert q[0, 0] == 0.0  # an unlimited joint has no limit to start on
    np.testing.assert_array_equal(q[0, 1:], [0.0, hi[2], lo[3], 0.0, hi[5], lo[6]])
    assert SNAP / 2 > 0.1 and 1 - SNAP / 2 < 0.9
    numbers = np.arange(1, 12)
    seeds = restart_seeds(panda, numbers, Options(), np.random.default_rng(0))
    on = np.isclose(seeds, panda.limits[:, 0]) | np.isclose(seeds, panda.limits[:, 1])
    hard = modes(numbers, Options())[0]
    assert hard.any() and not on[~hard].any() and on[hard].any()
    assert np.all(panda.within_limits(seeds))
