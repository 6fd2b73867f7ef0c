"""The dynamics regressor and identification of the base parameters.

Oracles: `km.rne` (itself checked against Pinocchio's rnea to 1e-10 in test_dynamics) on
robots carrying other, random inertials — Y·π must give their torques for every π, not only
the robot's own; and Pinocchio's `computeJointTorqueRegressor`, whose columns (parameters about
Pinocchio's joint frames) must span the same space as ours (about our link frames): the same
rank, and no new direction when the two are put side by side.
Tolerances: torques of order 10–100 N·m from sums of a few hundred products, so ~1e-13
relative round-off; 1e-9 relative leaves room without hiding a wrong column (≥ 1e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import kinematica as km
from kinematica.dynamics import (base_parameters, exciting_trajectory, identify, inertial_parameters,
                                 regressor, with_parameters)

from strategies import FAST

WITH_INERTIALS = [n for n in km.robot_names() if km.load(n).inertials]
PUMA = km.load("puma560")


def states(robot, count, seed):
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return rng.uniform(lo, hi, (count, robot.n)), *rng.uniform(-2, 2, (2, count, robot.n))


@pytest.mark.parametrize("name", WITH_INERTIALS)
def test_regressor_times_the_robots_parameters_is_its_rne(name):
    robot = km.load(name)
    q, qd, qdd = states(robot, 20, 1)
    tau = km.rne(robot, q, qd, qdd, friction=False)
    got = regressor(robot, q, qd, qdd) @ inertial_parameters(robot)
    np.testing.assert_allclose(got, tau, rtol=1e-9, atol=1e-9 * np.abs(tau).max())
    # one state alone: the same row shapes
    assert regressor(robot, q[0], qd[0], qdd[0]).shape == (robot.n, 10 * robot.n)


PUMA_STATES = states(PUMA, 8, 11)
PUMA_Y = regressor(PUMA, *PUMA_STATES)  # once: each example then costs one rne


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_regressor_gives_the_torques_of_any_physical_parameters(seed):
    """Random bodies on the Puma's chain: a wrong or swapped column shows here."""
    robot = PUMA
    rng = np.random.default_rng(seed)
    pi = []
    for _ in range(robot.n):
        m, c = rng.uniform(0.5, 20), rng.uniform(-0.3, 0.3, 3)
        A = rng.normal(size=(3, 3))
        Ic = A @ A.T + 0.01 * np.eye(3)
        Io = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
        pi += [m, *(m * c), Io[0, 0], Io[0, 1], Io[0, 2], Io[1, 1], Io[1, 2], Io[2, 2]]
    other = with_parameters(robot, pi)
    np.testing.assert_allclose(inertial_parameters(other), pi, rtol=1e-12, atol=1e-12)
    q, qd, qdd = PUMA_STATES
    tau = km.rne(other, q, qd, qdd, friction=False)
    np.testing.assert_allclose(PUMA_Y @ pi, tau, rtol=1e-9, atol=1e-9 * np.abs(tau).max())


@pytest.mark.parametrize("name", ["puma560", "panda"])
def test_regressor_spans_the_same_space_as_pinocchios(name):
    pin = pytest.importorskip("pinocchio")
    from test_dynamics import pin_model, to_si

    robot = km.load(name)
    model = pin_model(robot)
    data = model.createData()
    q, qd, qdd = states(robot, 30, 2)
    ours = regressor(robot, q, qd, qdd, gravity=model.gravity.linear).reshape(-1, 10 * robot.n)
    theirs = np.concatenate([pin.computeJointTorqueRegressor(model, data, to_si(robot, a + robot.offsets),
                                                             to_si(robot, b), to_si(robot, c))
                             for a, b, c in zip(q, qd, qdd)])
    rank = np.linalg.matrix_rank
    tol = 1e-8 * np.abs(theirs).max()
    assert rank(ours, tol) == rank(theirs, tol) == rank(np.hstack([ours, theirs]), tol)
    assert base_parameters(robot).rank == rank(theirs, tol)


def test_noiseless_identification_recovers_the_base_parameters():
    robot = km.load("puma560")
    q, qd, qdd = exciting_trajectory(robot, samples=300, seed=3)
    fit = identify(robot, q, qd, qdd, km.rne(robot, q, qd, qdd, friction=False))
    truth = fit.true_base(robot)
    assert fit.rank == base_parameters(robot).rank
    assert np.abs(fit.base - truth).max() <= 1e-8 * np.abs(truth).max()
    assert fit.residual_rms < 1e-9


def test_noisy_identification_reports_its_error_honestly():
    """Gaussian torque noise of 0.5 N·m: the estimates miss the truth by about their stated
    standard errors (the rms of the z-scores near 1), and they predict held-out torques to
    about the noise."""
    robot = km.load("puma560")
    rng = np.random.default_rng(4)
    q, qd, qdd = exciting_trajectory(robot, samples=1500, seed=5)
    tau = km.rne(robot, q, qd, qdd, friction=False)
    fit = identify(robot, q, qd, qdd, tau + rng.normal(0, 0.5, tau.shape))
    z = (fit.base - fit.true_base(robot)) / fit.std
    assert 0.5 < np.sqrt(np.mean(z**2)) < 2.0
    assert 0.4 < fit.residual_rms < 0.6
    q2, qd2, qdd2 = exciting_trajectory(robot, samples=200, seed=6)
    held = km.rne(robot, q2, qd2, qdd2, friction=False)
    err = fit.predict(regressor(robot, q2, qd2, qdd2)) - held
    assert np.sqrt(np.mean(err**2)) < 0.5


def test_exciting_trajectory_stays_inside_the_limits_with_true_derivatives():
    robot = km.load("panda")
    q, qd, qdd = exciting_trajectory(robot, samples=4000, duration=8.0, seed=1, margin=0.1)
    lo, hi = robot.limits.T
    span = hi - lo
    assert np.all(q >= lo + 0.1 * span - 1e-12) and np.all(q <= hi - 0.1 * span + 1e-12)
    dt = 8.0 / 4000
    # central differences: error ~ dt²·q''' / 6, well under 1e-3 of the signal at this dt
    np.testing.assert_allclose((q[2:] - q[:-2]) / (2 * dt), qd[1:-1], atol=1e-3 * np.abs(qd).max())
    np.testing.assert_allclose((qd[2:] - qd[:-2]) / (2 * dt), qdd[1:-1], atol=1e-3 * np.abs(qdd).max())


def test_bad_input_is_refused_in_words():
    robot = km.load("puma560")
    q, qd, qdd = states(robot, 4, 0)
    tau = km.rne(robot, q, qd, qdd, friction=False)
    with pytest.raises(ValueError, match="tau: expected shape"):
        identify(robot, q, qd, qdd, tau[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        identify(robot, q, qd, qdd, np.where(tau > 0, np.nan, tau))
    with pytest.raises(ValueError, match="record more states"):
        identify(robot, q, qd, qdd, tau)  # 24 torques, 36 base parameters
    with pytest.raises(ValueError, match="60 inertial parameters"):
        with_parameters(robot, np.ones(12))
    with pytest.raises(ValueError, match="positive mass"):
        with_parameters(robot, np.zeros(60))
    with pytest.raises(ValueError, match="samples"):
        exciting_trajectory(robot, samples=10**9)


def test_mismatched_states_are_refused_naming_each_argument_and_shape():
    """Different N per argument gave NumPy's raw broadcast error from deep inside rne."""
    z = np.zeros((50, 6))
    with pytest.raises(ValueError, match=r"got shapes q \(50, 6\), qd \(40, 6\), qdd \(50, 6\)"):
        identify(PUMA, z, np.zeros((40, 6)), z, z)
    with pytest.raises(ValueError, match=r"tau: expected shape \(50, 6\)"):
        identify(PUMA, z, z, z, np.zeros((40, 6)))
    with pytest.raises(ValueError, match=r"qdd \(3, 6\)"):
        regressor(PUMA, z, z, np.zeros((3, 6)))


def test_a_motion_that_excites_nothing_is_an_error_in_words():
    """All-zero motion: only gravity's few columns show. It ran on (and past 40 s on a busy
    machine) to a fit of 36 'estimates' with condition number inf; now refused naming the rank."""
    z = np.zeros((50, 6))
    with pytest.raises(ValueError, match=r"does not excite the 36 base parameters: .* rank \d+ of 36, condition"):
        identify(PUMA, z, z, z, np.ones((50, 6)))


@pytest.mark.parametrize("value", [1e308, np.inf, 1e13])
def test_torques_no_drive_gives_are_refused(value):
    z = np.zeros((50, 6))
    with pytest.raises(ValueError, match="tau: "):
        identify(PUMA, z, z, z, np.full((50, 6), value))


def test_a_regressor_too_large_is_refused_before_allocating():
    """10⁶ Puma states ran 240 s past 2.4 GB; the estimate is given in words, at once."""
    import time

    big = np.zeros((10**6, 6))
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"1,000,000 states: .* \(2\.88 GB\) is over the limit"):
        regressor(PUMA, big, big, big)
    assert time.perf_counter() - t0 < 1.0  # refused before any rne ran (that takes seconds here)
