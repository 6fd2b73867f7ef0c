"""`km.trajectory.follow` split along its concepts: the method chosen by IK's own closed-form test
(a bad target is an error, never a fallback), IK's verdict on every point checked by an
independent FK, and the rates exact where finite differences are exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica.ik import TargetError, has_analytic
from kinematica.trajectory.follow import _rates


def _line(robot, qa, qb, steps=12):
    return km.trajectory.line(km.fk(robot, qa), km.fk(robot, qb), steps=steps)


def test_auto_is_the_closed_form_where_one_fits_else_lm():
    kuka = km.load("kuka-kr6-r900")
    qa, qb = [0.1, 0.2, -0.3, 0.2, 0.5, 0.1], [0.3, 0.1, -0.2, 0.3, 0.6, 0.2]
    assert has_analytic(kuka, "pose")
    _, report = km.trajectory.follow(kuka, _line(kuka, qa, qb), q0=qa)
    assert report.ok and report.method == "analytic"
    panda = km.load("panda")  # 7 joints: no closed form
    qa, qb = panda.q_home, panda.q_home + 0.1
    assert not has_analytic(panda, "pose")
    _, report = km.trajectory.follow(panda, _line(panda, qa, qb), q0=qa)
    assert report.ok and report.method == "lm"


def test_a_bad_target_is_an_error_not_a_fallback():
    """Points off a planar arm's plane: the target's own words, whatever the method."""
    robot = km.load("planar-3r")
    off = np.array([[30.0, 20.0, 5.0], [32.0, 20.0, 5.0]])  # 5 mm above the arm's plane
    for method in ("auto", "analytic", "lm"):
        with pytest.raises(TargetError, match="off it"):
            km.trajectory.follow(robot, off, task="position", method=method)


def test_analytic_asked_where_none_fits_says_so():
    panda = km.load("panda")
    with pytest.raises(km.InputError, match="no analytic solver fits"):
        km.trajectory.follow(panda, _line(panda, panda.q_home, panda.q_home + 0.1), q0=panda.q_home,
                             method="analytic")


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["puma560", "kuka-kr6-r900", "ur5"]))
def test_every_solved_point_is_on_the_path_by_fk(seed, name):
    """The report's verdict (IK's) against an independent FK of the returned q: a point called
    solved is within the tolerance (1e-6 m: IK's default, the report's own threshold)."""
    robot = km.load(name)
    rng = np.random.default_rng(seed)
    qa = rng.uniform(*np.clip(robot.limits.T, -2.5, 2.5))
    qb = qa + rng.uniform(-0.2, 0.2, robot.n)
    path = _line(robot, qa, qb)
    tr, report = km.trajectory.follow(robot, path, q0=qa, limits="ignore")
    T = km.fk(robot, tr.q)
    pos = np.linalg.norm(T[:, :3, 3] - path.poses[:, :3, 3], axis=1)
    R_err = np.linalg.norm(T[:, :3, :3] - path.poses[:, :3, :3], axis=(1, 2))  # ≈ √2 · angle
    solved = report.success
    assert solved[0]  # q0 is on the first pose
    assert np.all(pos[solved] < 1e-6) and np.all(R_err[solved] < 2e-6)
    np.testing.assert_allclose(report.position_error[solved], pos[solved], atol=1e-9)
    clean = solved & ~report.jump & report.within_limits & ~report.near_singular
    assert all((r == "ok") == c for r, c in zip(report.reasons, clean))


@settings(max_examples=25, deadline=None)
@given(k=st.integers(3, 30), seed=st.integers(0, 2**32 - 1))
def test_rates_are_exact_for_quadratic_motion(k, seed):
    """Second-order differences are exact on q(t) = a t² + b t + c, on any time grid."""
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.uniform(0.05, 0.5, k))
    a, b, c = rng.normal(size=(3, 4))
    Q = a * t[:, None] ** 2 + b * t[:, None] + c
    qd, qdd = _rates(Q, t)
    scale = 1 + np.abs(Q).max() / np.diff(t).min() ** 2  # round-off of differences over short steps
    np.testing.assert_allclose(qd, 2 * a * t[:, None] + b, atol=1e-12 * scale)
    np.testing.assert_allclose(qdd, np.broadcast_to(2 * a, Q.shape), atol=1e-11 * scale)
