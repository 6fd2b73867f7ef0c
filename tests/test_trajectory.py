"""Trajectory planners: joint profiles, Cartesian paths, time laws, path following (paper 004)."""

import re

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from scipy.spatial.transform import Rotation

import kinematica as km
from kinematica import trajectory as kt
from kinematica.trajectory import TrajectoryError

KUKA = km.load("kuka-kr6-r900")
Q_END = np.array([-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])  # paper 004's end pose: q1 = q5 = −π/2

finite = st.floats(-3, 3, allow_nan=False)
joints3 = st.lists(finite, min_size=3, max_size=3).map(np.array)


def _fd(y, t):
    return np.gradient(y, t, axis=0, edge_order=2)


# --- polynomials -------------------------------------------------------------------------------
@settings(max_examples=40)
@given(joints3, joints3, joints3, joints3, joints3, joints3, st.floats(0.1, 10))
def test_quintic_meets_its_six_boundary_conditions(q0, q1, v0, v1, a0, a1, T):
    tr = kt.quintic(q0, q1, T, qd0=v0, qd1=v1, qdd0=a0, qdd1=a1, steps=7)
    scale = 1 + np.abs(np.concatenate([q0, q1, v0 * T, v1 * T, a0 * T * T, a1 * T * T])).max()
    for got, want in ((tr.q[0], q0), (tr.q[-1], q1), (tr.qd[0], v0), (tr.qd[-1], v1)):
        assert np.allclose(got, want, atol=1e-9 * scale / min(T, 1))
    assert np.allclose(tr.qdd[0], a0, atol=1e-8 * scale / min(T, 1) ** 2)
    assert np.allclose(tr.qdd[-1], a1, atol=1e-8 * scale / min(T, 1) ** 2)
    assert tr.duration == pytest.approx(T)


@settings(max_examples=40)
@given(joints3, joints3, joints3, joints3, st.floats(0.1, 10))
def test_cubic_meets_its_four_boundary_conditions(q0, q1, v0, v1, T):
    tr = kt.cubic(q0, q1, T, qd0=v0, qd1=v1, steps=5)
    tol = 1e-9 * (1 + np.abs(np.concatenate([q0, q1, v0 * T, v1 * T])).max()) / min(T, 1)
    assert np.allclose(tr.q[0], q0, atol=tol) and np.allclose(tr.q[-1], q1, atol=tol)
    assert np.allclose(tr.qd[0], v0, atol=tol) and np.allclose(tr.qd[-1], v1, atol=tol)


def test_polynomial_derivatives_are_consistent_and_rest_to_rest_is_minimum_jerk():
    tr = kt.quintic([0, 1], [1, -1], 2.0, steps=2000)
    assert np.allclose(_fd(tr.q, tr.t), tr.qd, atol=1e-5)
    assert np.allclose(_fd(tr.qd, tr.t), tr.qdd, atol=1e-4)
    assert np.allclose(tr.qd[[0, -1]], 0) and np.allclose(tr.qdd[[0, -1]], 0)
    assert np.allclose(tr.qd[1000], [15 / 16, -15 / 8])  # peak 15Δ/(8T) at the middle


def test_planners_take_a_robot_or_joint_names():
    tr = kt.cubic(np.zeros(6), np.ones(6), 1.0, robot=KUKA)
    assert tr.joint_names == KUKA.joint_names and tr.length_unit == "m"
    tr = kt.quintic([0, 0], [1, 1], 1.0, robot=["shoulder", "elbow"])
    assert tr.joint_names == ("shoulder", "elbow")
    assert kt.cubic(0.0, 1.0, 1.0).joint_names == ("q1",)
    with pytest.raises(TrajectoryError, match="6 joints"):
        kt.cubic([0, 0], [1, 1], 1.0, robot=KUKA)


# --- linear interpolation (paper 000) -----------------------------------------------------------
def test_linear_interpolation_passes_the_saved_poses():
    poses = np.radians([[30, 30, 20], [38.509, 68.8, 62.749], [0, 45, 90]])
    tr = kt.joint(poses, times=[0, 2, 3], steps=30, robot=km.load("planar-3r"))
    for T, q in zip([0, 2, 3], poses):
        assert np.allclose(tr.q[np.argmin(abs(tr.t - T))], q) and np.any(np.isclose(tr.t, T))
    mid = tr.q[np.argmin(abs(tr.t - 1))]
    assert np.allclose(mid, poses[:2].mean(axis=0))
    assert np.allclose(tr.qd[0], (poses[1] - poses[0]) / 2)
    assert kt.joint(poses).duration == 2.0  # 1 s per segment by default


# --- trapezoidal -------------------------------------------------------------------------------
@settings(max_examples=40)
@example(np.zeros(3), np.array([0.0, 0.0, 1.0000001033148662]), [1.0] * 3, [1.0] * 3, "time")
@example(np.zeros(3), np.array([0.0, 1.0, 1.0331486611027768e-07]), [1.0] * 3, [1.0] * 3, "time")
@example(np.array([0.0, 0.0, 2.5e-15]), np.array([1.0, 0.0, 0.0]), [1.0] * 3, [2.0, 1.0, 1.0], "time")
@example(np.zeros(3), np.array([1e-10, 0.0, 1.0]), [1.0, 1.0, 2.0], [2.0, 1.0, 2.0], "time")
@given(joints3, joints3, st.lists(st.floats(0.2, 3), min_size=3, max_size=3),
       st.lists(st.floats(0.2, 5), min_size=3, max_size=3), st.sampled_from(["line", "time"]))
def test_trapezoidal_respects_limits_and_all_joints_arrive_together(q0, q1, vmax, amax, sync):
    if np.abs(q1 - q0).max() < 1e-3:
        return
    tr = kt.trapezoidal(q0, q1, vmax, amax, sync=sync, steps=400)
    assert np.all(np.abs(tr.qd) <= np.array(vmax) * (1 + 1e-9))
    assert np.all(np.abs(tr.qdd) <= np.array(amax) * (1 + 1e-6))  # rounding in 1e-7 s blends
    assert np.allclose(tr.q[-1], q1) and np.allclose(tr.qd[[0, -1]], 0)
    assert tr.duration == pytest.approx(kt.min_duration(q0, q1, vmax, amax, sync=sync))
    moving = np.abs(q1 - q0) > 1e-6
    # nobody is there before the end: every moving joint is still short of q1 one sample earlier
    assert np.all(np.abs(tr.q[-2] - q1)[moving] > 0)
    h = tr.t[1] - tr.t[0]
    assert np.allclose(_fd(tr.q, tr.t)[1:-1], tr.qd[1:-1], atol=2 * max(amax) * h)


def test_trapezoidal_shortest_time_formulas():
    # cruise: T = D/v + v/a; triangle: T = 2√(D/a); "time" sync = the slowest joint's own
    assert kt.min_duration([0], [2], 1, 1) == pytest.approx(3.0)
    assert kt.min_duration([0], [0.5], 1, 2) == pytest.approx(1.0)
    assert kt.min_duration([0, 0], [2, 0.5], [1, 1], [1, 2], sync="time") == pytest.approx(3.0)
    # "line" keeps the joint path straight: q − q0 proportional to Δ at every sample
    tr = kt.trapezoidal([0, 0], [2, 0.5], [1, 1], [1, 2])
    assert np.allclose(tr.q[:, 1], tr.q[:, 0] / 4)
    stretched = kt.trapezoidal([0, 0], [2, 0.5], [1, 1], [1, 2], duration=5.0)
    assert stretched.duration == 5.0 and np.abs(stretched.qd).max() < 1.0
    with pytest.raises(TrajectoryError, match="shorter than the shortest"):
        kt.trapezoidal([0], [2], 1, 1, duration=2.0)


def test_degenerate_joint_inputs_raise_clear_errors():
    with pytest.raises(TrajectoryError, match="zero-length move"):
        kt.trapezoidal([1, 2], [1, 2], 1, 1)
    with pytest.raises(TrajectoryError, match="zero-length move"):
        kt.min_duration([1, 2], [1, 2], 1, 1)
    assert np.allclose(kt.trapezoidal([1, 2], [1, 2], 1, 1, duration=2).q, [1, 2])  # a hold, when timed
    with pytest.raises(TrajectoryError, match="duration: must be > 0"):
        kt.quintic([0], [1], 0.0)
    with pytest.raises(TrajectoryError, match="vmax: must be > 0"):
        kt.trapezoidal([0, 0], [1, 1], [1, -1], 1)
    with pytest.raises(TrajectoryError, match="amax: must be > 0"):
        kt.min_duration([0], [1], 1, 0)
    with pytest.raises(TrajectoryError, match="NaN"):
        kt.cubic([0, np.nan], [1, 1], 1)
    with pytest.raises(TrajectoryError, match="expected shape"):
        kt.quintic([0, 0], [1, 1, 1], 1)
    with pytest.raises(TrajectoryError, match="strictly increasing"):
        kt.joint([[0], [1], [2]], times=[0, 1, 1])
    with pytest.raises(TrajectoryError, match="zero-length segment"):
        kt.via([[0, 0], [1, 1], [1, 1]], 1, 1)
    with pytest.raises(TrajectoryError, match="steps"):
        kt.cubic([0], [1], 1, steps=0)


# --- via poses ---------------------------------------------------------------------------------
VIAS = np.array([[0, 0, 0], [1, 0.5, -0.3], [1.5, 1.5, 0.2], [0.5, 1.0, 0.0]])


def test_via_stop_passes_every_via_exactly_within_limits():
    tr = kt.via(VIAS, [1, 0.8, 1.2], [2, 1, 3], blend="stop")
    for T, q in zip(tr.meta["via_times"], VIAS):
        i = int(np.argmin(abs(tr.t - T)))
        assert tr.t[i] == pytest.approx(T) and np.allclose(tr.q[i], q) and np.allclose(tr.qd[i], 0)
    assert np.all(np.abs(tr.qd) <= [1, 0.8, 1.2 + 1e-12]) and np.all(np.abs(tr.qdd) <= [2, 1, 3 + 1e-12])


def test_via_parabolic_blends_never_stop_and_miss_each_via_by_the_reported_amount():
    v, a = np.array([1, 0.8, 1.2]), np.array([2, 1, 3])
    tr = kt.via(VIAS, v, a, blend="parabolic", steps=2000)
    assert np.allclose(tr.q[0], VIAS[0]) and np.allclose(tr.q[-1], VIAS[-1])
    assert np.allclose(tr.qd[[0, -1]], 0)
    assert np.all(np.abs(tr.qd) <= v * (1 + 1e-9)) and np.all(np.abs(tr.qdd) <= a * (1 + 1e-9))
    assert np.all(np.abs(np.diff(tr.qd, axis=0)) <= a * np.diff(tr.t)[:, None] * (1 + 1e-9))  # q̇ continuous
    for T, q, miss in zip(tr.meta["via_times"], VIAS, tr.meta["via_deviation"]):
        i = int(np.argmin(abs(tr.t - T)))
        assert tr.t[i] == pytest.approx(T)
        assert np.abs(tr.q[i] - q).max() == pytest.approx(miss, abs=1e-9)
    assert np.all(np.linalg.norm(tr.qd[1:-1], axis=1) > 0)  # it never stops on the way
    # a via on the straight line between its neighbours at the cruise rate is passed exactly
    on_line = kt.via([[0.0], [1.0], [2.0]], 1.0, 10.0, steps=400)
    assert on_line.meta["via_deviation"][1] == pytest.approx(0, abs=1e-12)


# --- Cartesian: line and slerp ----------------------------------------------------------------
def test_line_in_n_intervals_has_n_plus_1_equally_spaced_points_and_slerps_orientation():
    T0, T1 = km.fk(KUKA, np.zeros(6)), km.fk(KUKA, Q_END)
    p = kt.line(T0, T1, steps=50)
    assert len(p) == 51 and p.oriented
    gaps = np.linalg.norm(np.diff(p.positions, axis=0), axis=1)
    assert np.allclose(gaps, gaps[0]) and gaps.sum() == pytest.approx(np.linalg.norm(T1[:3, 3] - T0[:3, 3]))
    assert np.allclose(p.poses[0], T0) and np.allclose(p.poses[-1], T1)
    R = Rotation.from_matrix(p.poses[:, :3, :3])
    steps = (R[:-1].inv() * R[1:]).magnitude()
    assert np.allclose(steps, steps[0])  # constant turning rate
    total = (R[0].inv() * R[-1]).magnitude()
    assert total == pytest.approx(np.radians(120)) and steps.sum() == pytest.approx(total)
    axes = (R[:-1].inv() * R[1:]).as_rotvec()
    body = np.einsum("kij,kj->ki", p.poses[:-1, :3, :3], axes)  # fixed axis in the base frame
    assert np.allclose(body / np.linalg.norm(body, axis=1, keepdims=True), body[0] / np.linalg.norm(body[0]))
    assert np.allclose(p.t, np.linspace(0, 1, 51))


def test_pure_rotation_and_position_only_lines():
    T0 = np.eye(4)
    T1 = np.eye(4)
    T1[:3, :3] = Rotation.from_euler("z", 90, degrees=True).as_matrix()
    p = kt.line(T0, T1, steps=4)
    assert p.meta["s_unit"] == "rad" and p.length == pytest.approx(np.pi / 2)
    assert np.allclose(p.positions, 0)
    q = kt.line([0, 0, 0], [1, 0, 0], steps=2)
    assert not q.oriented and np.allclose(q.poses[:, :3, :3], np.eye(3))
    assert kt.line([0, 0, 0], [1, 0, 0], R=T1).oriented


def test_zero_length_and_malformed_paths_raise():
    T = km.fk(KUKA, np.zeros(6))
    with pytest.raises(TrajectoryError, match="zero-length path"):
        kt.line(T, T)
    with pytest.raises(TrajectoryError, match="not one of each"):
        kt.line(T, [0, 0, 0])
    with pytest.raises(TrajectoryError, match="orthonormal"):
        kt.line(np.diag([2.0, 1, 1, 1]), T)


# --- time laws ---------------------------------------------------------------------------------
def test_trapezoidal_speed_profile_keeps_speed_and_acceleration_within_limits():
    p = kt.line([0, 0, 0], [0.6, 0.8, 0], steps=400, vmax=0.5, amax=2.0)
    speed = np.linalg.norm(_fd(p.positions, p.t), axis=1)
    accel = np.gradient(speed, p.t)
    assert speed.max() <= 0.5 * (1 + 1e-6) and speed.max() == pytest.approx(0.5, rel=1e-3)
    assert np.abs(accel[2:-2]).max() <= 2.0 * 1.02
    assert p.duration == pytest.approx(1.0 / 0.5 + 0.5 / 2.0)
    assert np.allclose(np.diff(p.t), np.diff(p.t)[0])  # uniform in time
    short = kt.line([0, 0, 0], [0.1, 0, 0], steps=100, vmax=1.0, amax=1.0)  # a triangle
    assert np.linalg.norm(_fd(short.positions, short.t), axis=1).max() <= np.sqrt(0.1) * (1 + 1e-3)


def test_constant_speed_and_retime():
    p = kt.line([0, 0, 0], [1, 0, 0], steps=10, speed=0.25)
    assert p.duration == pytest.approx(4.0)
    assert np.allclose(np.linalg.norm(np.diff(p.positions, axis=0), axis=1) / np.diff(p.t), 0.25)
    r = kt.retime(p, vmax=0.5, amax=0.5)
    assert np.allclose(r.positions, p.positions) and r.duration == pytest.approx(3.0)
    v = np.diff(r.s) / np.diff(r.t)
    assert v.max() <= 0.5 * (1 + 1e-9)
    with pytest.raises(TrajectoryError, match="both vmax and amax|give speed"):
        kt.retime(p, vmax=1.0)
    with pytest.raises(TrajectoryError, match="vmax and amax must be > 0"):
        kt.line([0, 0, 0], [1, 0, 0], vmax=-1, amax=1)


# --- arcs and circles (paper 004) ---------------------------------------------------------------
@settings(max_examples=30)
@given(st.lists(st.lists(st.floats(-1, 1), min_size=3, max_size=3), min_size=3, max_size=3))
def test_arc_passes_its_three_points_in_their_plane_at_constant_radius(pts):
    P = np.array(pts)
    a, b = P[0] - P[2], P[1] - P[2]
    if np.linalg.norm(np.cross(a, b)) < 1e-2 or min(np.linalg.norm(a), np.linalg.norm(b),
                                                     np.linalg.norm(P[0] - P[1])) < 1e-2:
        return
    p = kt.arc_through(*P, steps=60)
    c, r, n = np.array(p.meta["centre"]), p.meta["radius"], np.array(p.meta["normal"])
    assert np.allclose(p.positions[0], P[0]) and np.allclose(p.positions[-1], P[2])
    assert np.min(np.linalg.norm(p.positions - P[1], axis=1)) < 1e-9  # p2 is a sample
    assert np.allclose(np.linalg.norm(p.positions - c, axis=1), r)
    assert np.allclose((p.positions - c) @ n, 0, atol=1e-9)
    assert np.allclose(np.linalg.norm(P - c, axis=1), r)
    gaps = np.linalg.norm(np.diff(p.positions, axis=0), axis=1)  # equal chords, except around p2
    assert np.sum(~np.isclose(gaps, np.median(gaps))) <= 2
    assert p.length == pytest.approx(r * p.meta["angle"])


def test_full_circle_and_the_local_frame():
    p = kt.circle_through([1, 0, 0], [0, 1, 0], [0, -1, 0], steps=40)
    assert p.meta["angle"] == pytest.approx(2 * np.pi) and np.allclose(p.positions[-1], [1, 0, 0])
    assert p.meta["angle2"] == pytest.approx(np.pi / 2) and p.meta["angle3"] == pytest.approx(3 * np.pi / 2)
    arc = kt.arc_through([1, 0, 0], [0, 1, 0], [0, -1, 0], steps=30)  # the long way round, through p2
    assert arc.meta["angle"] == pytest.approx(3 * np.pi / 2)
    F = np.array(p.meta["frame"])
    assert np.allclose(F.T @ F, np.eye(3)) and np.linalg.det(F) == pytest.approx(1)
    c = kt.circle(np.zeros((5, 3)) + [1, 0, 0], [0, 1, 0], [-1, 0, 0])  # batch-first
    assert c.centre.shape == (5, 3) and np.allclose(c.radius, 1)


def test_collinear_or_coinciding_points_are_a_clear_error():
    with pytest.raises(TrajectoryError, match="collinear"):
        kt.arc_through([0, 0, 0], [1, 1, 1], [2, 2, 2])
    with pytest.raises(TrajectoryError, match="collinear"):
        kt.circle_through([0, 0, 0], [1, 0, 0], [3, 0, 0])
    with pytest.raises(TrajectoryError, match="coincide"):
        kt.arc_through([0, 0, 0], [0, 0, 0], [1, 0, 0])


def test_arc_through_poses_slerps_orientation_through_the_three():
    Rs = Rotation.from_euler("xyz", [[0, 0, 0], [0, 0, 40], [0, 30, 60]], degrees=True).as_matrix()
    pts = np.array([[1, 0, 0], [0, 1, 0], [-1, 0, 0]])
    poses = np.tile(np.eye(4), (3, 1, 1))
    poses[:, :3, :3], poses[:, :3, 3] = Rs, pts
    p = kt.arc_through(*poses, steps=20)
    i2 = int(np.argmin(np.linalg.norm(p.positions - pts[1], axis=1)))
    assert np.allclose(p.poses[[0, i2, -1]], poses, atol=1e-9)


# --- splines -----------------------------------------------------------------------------------
PTS = np.array([[0, 0, 0], [0.1, 0.05, 0.02], [0.2, 0.0, 0.05], [0.3, -0.04, 0.03], [0.45, 0.02, 0.0]])


@pytest.mark.parametrize("bc", ["natural", "clamped", "not-a-knot"])
def test_cubic_spline_is_c2_at_the_knots_and_passes_the_points(bc):
    c = kt.curve(PTS, "cubic", bc)
    assert np.allclose(c(c.x), PTS)
    eps = 1e-9
    for u in c.x[1:-1]:
        for nu in (0, 1, 2):
            assert np.allclose(c(u - eps, nu), c(u + eps, nu), atol=1e-6)
    if bc == "natural":
        assert np.allclose(c(c.x[[0, -1]], 2), 0)
    if bc == "clamped":
        assert np.allclose(c(c.x[[0, -1]], 1), 0)
    p = kt.spline(PTS, steps=80, bc=bc)
    for q in PTS:
        assert np.min(np.linalg.norm(p.positions - q, axis=1)) < 1e-12
    assert np.allclose(p.positions[[0, -1]], PTS[[0, -1]])


def test_spline_samples_are_equally_spaced_in_arc_length_and_smooth():
    p = kt.spline(PTS, steps=400)
    knots = np.array(p.meta["knots_s"])
    gaps = np.diff(p.s)
    regular = gaps[gaps > 0.5 * np.median(gaps)]
    assert np.allclose(regular, np.median(gaps), rtol=0.6)  # pieces around inserted knots are shorter
    chord = np.linalg.norm(np.diff(p.positions, axis=0), axis=1)
    assert np.allclose(chord, gaps, rtol=1e-4)  # s is the arc length
    assert np.allclose(p.s[np.isin(p.s, knots)], knots)
    # no kink anywhere, knots included: the turn between consecutive chords changes gradually
    u = np.diff(p.positions, axis=0) / chord[:, None]
    kappa = np.linalg.norm(np.cross(u[1:], u[:-1]), axis=1) / (0.5 * (chord[1:] + chord[:-1]))
    assert np.abs(np.diff(kappa)).max() < 0.05 * kappa.max()


def test_glued_three_point_cubics_pass_their_points_and_glue_smoothly_in_a_plane():
    planar = PTS * [1, 1, 0]
    c = kt.curve(planar, "glued")
    assert np.allclose(c(c.x), planar)
    glue = c.x[2]  # the end of the first piece
    t_in, t_out = c(glue - 1e-12, 1), c(glue + 1e-12, 1)
    cosang = t_in @ t_out.T / (np.linalg.norm(t_in) * np.linalg.norm(t_out))
    assert cosang.item() == pytest.approx(1.0, abs=1e-9) and c.kink_deg == pytest.approx(0, abs=1e-6)
    p = kt.spline(planar, steps=60, kind="glued")
    assert all(np.min(np.linalg.norm(p.positions - q, axis=1)) < 1e-12 for q in planar)
    out_of_plane = kt.spline(PTS, kind="glued")
    assert out_of_plane.meta["kink_deg"] > 0  # reported, not hidden
    with pytest.raises(TrajectoryError, match="between"):
        kt.spline([[0, 0, 0], [2, 1, 0], [1, 0, 0]], kind="glued")
    with pytest.raises(TrajectoryError, match="coincide"):
        kt.spline([[0, 0, 0], [0, 0, 0], [1, 0, 0]])


# --- path following (paper 004) ----------------------------------------------------------------
@pytest.mark.parametrize("method", ["auto", "lm"])
def test_paper004_line_ends_on_the_exact_pose(method):
    T0, T1 = km.fk(KUKA, np.zeros(6)), km.fk(KUKA, Q_END)
    assert np.allclose(T0[:3, 3], [0, 0.5615, 0.89]) and np.allclose(T1[:3, 3], [0.445, 0, 0.7735])
    tr, report = kt.follow(KUKA, kt.line(T0, T1, steps=50), q0=np.zeros(6), method=method)
    assert len(tr) == 51 and np.all(report.success)
    assert np.abs(tr.q[-1] - Q_END).max() < 1e-9  # the paper's own run drifted 0.058 rad
    assert np.allclose(km.fk(KUKA, tr.q), tr.poses, atol=1e-9)
    # home is a wrist singularity: the first step spins q4/q6 and is reported, with the cure
    assert [i for i, _ in report.failures] == [1]
    assert "joint jump" in report.reasons[1] and "singular" in report.reasons[1]
    assert report.near_singular[0] and (0, report.reasons[0]) in report.warnings
    q0 = eval(re.search(r"q0 = (\[[^\]]*\])", report.reasons[1]).group(1))
    again, clean = kt.follow(KUKA, kt.line(T0, T1, steps=50), q0=q0, method=method)
    assert clean.ok and np.abs(again.q[-1] - Q_END).max() < 1e-9
    assert np.allclose(km.fk(KUKA, q0), T0)


def test_follow_reports_an_unreachable_waypoint_per_point():
    q0 = np.array([0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
    T0 = km.fk(KUKA, q0)
    far = T0.copy()
    far[:3, 3] += [1.5, 0, 0]
    poses = np.stack([T0, km.fk(KUKA, q0 + 0.05), far, km.fk(KUKA, q0 + 0.1)])
    tr, report = kt.follow(KUKA, poses, q0=q0)
    assert not report.ok and [i for i, _ in report.failures] == [2]
    assert report.reasons[2].startswith("not solved")
    assert report.success.tolist() == [True, True, False, True]
    assert np.allclose(tr.q[3], q0 + 0.1)  # the next point is solved from the last good one
    assert tr.t.tolist() == [0, 1, 2, 3]


def test_follow_flags_branch_switches_and_limit_violations():
    qa = np.array([0.2, 0.1, -0.2, 0.3, 0.8, 0.1])
    flip = km.ik_all(KUKA, km.fk(KUKA, qa + 0.02), qa)[1].q  # another branch of the next pose
    tr, report = kt.follow(KUKA, np.stack([km.fk(KUKA, qa), km.fk(KUKA, flip)]), q0=qa, method="lm")
    assert not report.jump[1] and report.ok  # warm-started: it stays on qa's branch
    wide = KUKA.replace(limits=np.column_stack([np.full(6, -0.5), np.full(6, 0.5)]))
    q1 = qa.copy()
    q1[4] = 0.7
    path = kt.line(km.fk(wide, qa * 0), km.fk(wide, q1), steps=10)
    _, rep = kt.follow(wide, path, q0=qa * 0, limits="ignore")  # solved, and reported outside
    assert np.all(rep.success) and not rep.ok and not rep.within_limits[-1]
    assert "A5 = 40.11° outside [-28.65°, 28.65°]" in rep.reasons[-1]
    _, rep = kt.follow(wide, path, q0=qa * 0, method="lm")  # kept inside: unsolved where it must leave
    assert rep.within_limits.all() and not rep.success[-1]
    assert "joint limit" in rep.reasons[-1] and "A5" in rep.reasons[-1]
    _, rep = kt.follow(KUKA, np.stack([km.fk(KUKA, qa), km.fk(KUKA, qa + [1.0, 0, 0, 0, 0, 0])]), q0=qa)
    assert rep.jump.tolist() == [False, True] and "A1 +57.3°" in rep.reasons[1]


def test_follow_positions_only_and_bad_input():
    q0 = np.array([0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
    p0 = km.fk(KUKA, q0)[:3, 3]
    arc = kt.arc_through(p0, p0 + [0.05, 0.05, 0], p0 + [0.1, 0, 0], steps=30)
    tr, report = kt.follow(KUKA, arc, q0=q0)
    assert report.ok and np.allclose(tr.poses[:, :3, 3], arc.positions, atol=1e-9)
    assert np.allclose(km.fk(KUKA, tr.q), tr.poses)  # the orientation the arm actually has
    with pytest.raises(TrajectoryError, match="empty path"):
        kt.follow(KUKA, [])
    with pytest.raises(TrajectoryError, match="task must be"):
        kt.follow(KUKA, arc, task="flying")
    with pytest.raises(TrajectoryError, match="needs poses"):
        kt.follow(KUKA, arc, task="pose")
    with pytest.raises(TrajectoryError, match="q0"):
        kt.follow(KUKA, arc, q0=[0, 0])


@settings(max_examples=8)
@given(st.lists(st.floats(-0.4, 0.4), min_size=6, max_size=6), st.lists(st.floats(-0.3, 0.3), min_size=6, max_size=6))
def test_following_a_line_between_two_configurations_lands_on_the_second(dq0, dq):
    puma = km.load("puma560")
    qa = np.array([0.3, -0.6, 0.4, 0.5, 0.9, 0.2]) + dq0
    qb = qa + dq
    if np.abs(dq).max() < 1e-3:
        return
    tr, report = kt.follow(puma, kt.line(km.fk(puma, qa), km.fk(puma, qb), steps=30), q0=qa, limits="ignore")
    assert np.all(report.success)
    assert np.allclose(km.fk(puma, tr.q), tr.poses, atol=1e-9)
    if report.ok:
        assert np.abs(tr.q[-1] - qb).max() < 1e-6


def test_follow_output_round_trips_through_files(tmp_path):
    q0 = np.array([0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
    path = kt.line(km.fk(KUKA, q0), km.fk(KUKA, q0 + 0.1), steps=10, vmax=0.5, amax=1.0)
    tr, report = kt.follow(KUKA, path, q0=q0)
    assert report.ok and np.allclose(tr.t, path.t)
    back = kt.load(kt.save(tr, tmp_path / "line.json", degrees=True))
    assert np.allclose(back.q, tr.q) and np.allclose(back.poses, tr.poses)
    assert np.allclose(tr.qd[[0, -1]], 0, atol=0.05)  # at rest at both ends of the speed profile
