"""Time-optimal timing (TOPP-RA) against the synchronised trapezoids, with every limit checked
at every sample of the result (velocities and accelerations from the returned motion; torques
by `km.rne`, itself checked against Pinocchio)."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from kinematica.trajectory import TrajectoryError, min_duration, time_optimal

pytest.importorskip("toppra")

PUMA = km.load("puma560")
WAY = np.array([[0, 0, 0, 0, 0, 0], [1, 0.5, -0.3, 0.2, 0.1, 0], [1.5, -0.5, 0.2, 0, 0.3, 0.2],
                [2, 0, 0, 0.5, 0, 0]])
SLACK = 1 + 1e-6  # the module's TOLERANCE


def within(tr, v, a, tau=None):
    assert np.all(np.abs(tr.qd) <= np.asarray(v) * SLACK)
    assert np.all(np.abs(tr.qdd) <= np.asarray(a) * SLACK)
    if tau is not None:
        assert np.all(np.abs(km.rne(PUMA, tr.q, tr.qd, tr.qdd)) <= np.asarray(tau) * SLACK)
    np.testing.assert_allclose(tr.qd[[0, -1]], 0, atol=1e-9)  # rest to rest


def test_a_straight_line_takes_the_trapezoids_optimal_time():
    """Along a straight joint-space line the synchronised trapezoid is time-optimal: TOPP-RA,
    which knows only the path, finds the same duration up to its grid (0.5 % here)."""
    q0, q1 = np.zeros(6), np.array([0.5, -0.3, 0.8, 0.2, -0.6, 1.0])
    v, a = np.array([1.0, 1.0, 1.5, 2, 2, 2]), np.array([2.0, 2, 3, 4, 4, 4])
    tr = time_optimal(PUMA, [q0, q1], v, a)
    within(tr, v, a)
    best = min_duration(q0, q1, v, a)
    assert best * (1 - 1e-3) <= tr.duration <= best * 1.005
    np.testing.assert_allclose(tr.q[[0, -1]], [q0, q1], atol=1e-9)


def test_through_via_points_it_is_never_slower_than_trapezoids_that_stop_at_each():
    tr = time_optimal(PUMA, WAY, 1.5, 3.0)
    within(tr, 1.5, 3.0)
    stops = sum(min_duration(WAY[i], WAY[i + 1], 1.5, 3.0) for i in range(len(WAY) - 1))
    assert tr.duration <= stops
    # the path is kept: every waypoint is passed within the spline's interpolation
    for w in WAY:
        assert np.min(np.linalg.norm(tr.q - w, axis=1)) < 0.05


def test_torque_limits_are_kept_and_cost_time():
    free = time_optimal(PUMA, WAY, 1.5, 3.0)
    tau = np.array([60, 41, 20, 5, 5, 5.0])  # joint 2: 38 N·m against gravity alone, 45 unlimited
    tr = time_optimal(PUMA, WAY, 1.5, 3.0, torque=tau)
    within(tr, 1.5, 3.0, tau)
    assert tr.tau is not None and tr.duration > free.duration


def test_a_trajectory_is_retimed_along_its_own_path():
    slow = km.trajectory.quintic(np.zeros(6), np.full(6, 0.8), duration=5.0, dt=0.01)
    tr = time_optimal(PUMA, slow, 1.0, 2.0)
    within(tr, 1.0, 2.0)
    assert tr.duration < slow.duration
    np.testing.assert_allclose(tr.q[-1], slow.q[-1], atol=1e-9)


def test_impossible_and_malformed_requests_are_refused_in_words():
    with pytest.raises(TrajectoryError, match="gravity"):
        time_optimal(PUMA, WAY, 1.5, 3.0, torque=[60, 20, 20, 5, 5, 5])  # 20 < the 38 N·m gravity needs
    with pytest.raises(TrajectoryError, match="vmax"):
        time_optimal(PUMA, WAY, -1.0, 3.0)
    with pytest.raises(TrajectoryError, match="amax"):
        time_optimal(PUMA, WAY, 1.0, [1, 2])
    with pytest.raises(TrajectoryError, match="waypoints"):
        time_optimal(PUMA, WAY[:, :3], 1.0, 2.0)
    with pytest.raises(TrajectoryError, match="equal"):
        time_optimal(PUMA, [WAY[0], WAY[0]], 1.0, 2.0)
    with pytest.raises(TrajectoryError, match="dt"):
        time_optimal(PUMA, WAY, 1.0, 2.0, dt=0)


def test_a_limit_passed_by_a_hair_is_tightened_enough_to_be_kept_next_time():
    # (with torque limits, where the timing is solved again rather than slowed) TOPP-RA's spline
    # passes a limit between grid points by an amount that does not shrink with the limit:
    # tightening by the overshoot alone (0.0003–0.007 %) passed again six times over on 2 of 120
    # kuka-table plans. Each limit really passed is tightened by at least 0.1 %.
    from kinematica.trajectory.topp import TIGHTEN, TOLERANCE, _tightening

    over = np.array([1.0, 1 + TOLERANCE / 2, 1 + 5e-5, 1.2])
    f = _tightening(over)
    assert f[0] == 1.0 and f[1] == pytest.approx(over[1] ** 1.1)  # kept: as before
    assert f[2] == 1 + TIGHTEN and f[3] == pytest.approx(1.2 ** 1.1)


def test_a_motion_that_passes_a_limit_is_slowed_just_enough():
    # TOPP-RA solved for limits 10 % above v and a, then slowed to keep v and a: q(t/f) runs at
    # q̇/f and q̈/f², so f lies between √1.1 (only accelerations active) and 1.1 (a velocity active)
    from kinematica.trajectory.topp import _path, _slowed, _solve

    v, a = np.full(6, 1.5), np.full(6, 3.0)
    path, end = _path(6, WAY)
    fast = _solve(path, end, 1.1 * v, 1.1 * a, None, None, 400)
    t, q, qd, qdd, tq = _slowed(fast, path.ss_waypoints, v, a, 0.01)
    assert tq is None
    assert np.all(np.abs(qd) <= v * SLACK) and np.all(np.abs(qdd) <= a * SLACK)
    assert np.sqrt(1.1) * (1 - 1e-3) <= t[-1] / fast.duration <= 1.1 * (1 + 1e-3)
    # just enough: some limit is met within the spread of the samples (dt 0.01 s of a ~4 s motion)
    assert max(np.abs(qd / v).max(), np.abs(qdd / a).max()) >= 0.99
    np.testing.assert_allclose(q[[0, -1]], WAY[[0, -1]], atol=1e-9)  # the same path, end to end


# an RRT-Connect path on kuka-table whose timing passed |q̈| ≤ 2 by 0.05 % after six tightened
# solves (tightening made it worse: the overshoot is the spline's, not the limit's)
KUKA_PATH = [[0.24434609527920614, -0.5585053606381855, -0.10471975511965978, 0.0, -0.9075712110370514,
              1.8151424220741028],
             [0.10703094304852906, -0.678438179690805, 0.06401934973579412, 0.04942557538060482,
              -0.9384066723870658, 1.4441820819949647],
             [-0.030284209182147998, -0.7983709987434245, 0.23275845459124805, 0.09885115076120964,
              -0.9692421337370801, 1.0732217419158268],
             [-0.338028016210025, -0.8093378735903798, 0.29963879875502863, 0.04942557538060482,
              -1.0431264275067256, 0.9991231227364107],
             [-0.6457718232379019, -0.8203047484373349, 0.3665191429188092, 0.0, -1.117010721276371,
              0.9250245035569946]]


def test_a_path_whose_tightened_timings_kept_passing_a_limit_is_timed():
    from kinematica.trajectory.topp import _path, _solve

    kuka = km.load("kuka-kr6-r900")
    tr = time_optimal(kuka, KUKA_PATH, 1.0, 2.0)
    within(tr, 1.0, 2.0)
    # slowed from TOPP-RA's motion at the limits by what its q̈ spike asks (~0.5 % over 2 rad/s²
    # between samples: √1.005 in time), not by a re-solve's tightening
    fastest = _solve(*_path(6, KUKA_PATH), np.ones(6), np.full(6, 2.0), None, None, 400).duration
    assert fastest <= tr.duration <= 1.005 * fastest


def test_the_peaks_of_a_timed_motion_are_found_between_its_samples():
    # against brute force: q̇ and q̈ at 2 million instants. The peaks sit at kinks and jumps
    # (TOPP-RA's grid points, the spline's knots), which `_peaks` evaluates within 1e-9 of the
    # duration, and smooth peaks at 16 points per 0.01 s. So: below the brute force by no more
    # than the timing's TOLERANCE (a smooth peak between two points: ~2e-7 here), above it by at
    # most the slope at a kink times its 1e-6 s spacing (the jerk reaches ~10 rad/s³: 1e-5)
    from kinematica.trajectory.topp import TOLERANCE, _path, _peaks, _solve

    path, end = _path(6, KUKA_PATH)
    jt = _solve(path, end, np.ones(6), np.full(6, 2.0), None, None, 400)
    peak_v, peak_a = _peaks(jt, path.ss_waypoints, 0.01)
    t = np.linspace(0.0, jt.duration, 2_000_001)
    brute_v, brute_a = np.abs(jt(t, 1)).max(axis=0), np.abs(jt(t, 2)).max(axis=0)
    for peak, brute in ((peak_v, brute_v), (peak_a, brute_a)):
        assert np.all(peak >= brute * (1 - TOLERANCE)) and np.all(peak <= brute * (1 + 1e-5)), (peak, brute)
    # and the samples every 0.01 s miss the acceleration's peak: the case the slowing is for
    assert np.abs(jt(np.arange(0, jt.duration, 0.01), 2)).max() < peak_a.max() * (1 - 1e-4)


@pytest.mark.parametrize("seed", [69, 109])
def test_planned_paths_that_once_passed_a_limit_by_a_hair_are_timed(seed):
    # two seeded RRT-Connect plans on kuka-table whose timing used to be refused (the overshoot
    # above); any path the planner returns is timed within the limits
    pytest.importorskip("ompl")
    s = km.Scene.load("kuka-table")
    p = km.plan(s, [-0.9, -0.56, -0.24, 0, 0.03, 0], [0.3, -0.56, -0.24, 0, 0.03, 0], seed=seed)
    assert p.success, p.reason
    tr = p.trajectory(1.0, 2.0)
    assert np.abs(tr.qd).max() <= 1.0 * (1 + 1e-6) and np.abs(tr.qdd).max() <= 2.0 * (1 + 1e-6)
