"""Workspace envelope, reachability and dexterity maps (issue 17), in-process and on a real
local Dask cluster on 127.0.0.1."""

from __future__ import annotations

import socket
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica.workspace import WorkspaceError, WorkspaceWarning, envelope, reachability, dexterity, orientation_set
from kinematica.workspace.grid import boundary
from kinematica.workspace.orientations import fibonacci_sphere, frames

HALF_DIAG = np.sqrt(2) / 2  # a point of a square voxel is at most h·√2/2 from its centre


@pytest.fixture(scope="module")
def puma():
    return km.load("puma560")


@pytest.fixture(scope="module")
def puma_map(puma):
    # coarse: 0.25 m voxels, 6 directions × 2 rolls; the dexterity run holds the reach map too
    return dexterity(puma, voxel=0.25, orientations=6, rolls=2, samples=50_000, seed=3)


def annulus_2r(l1: float, l2: float, q2_max: float) -> tuple[float, float]:
    """Inner and outer radius of a 2R arm with θ1 free and |θ2| ≤ q2_max: |p|² = l1² + l2² + 2 l1 l2 cos θ2."""
    return np.sqrt(l1 ** 2 + l2 ** 2 + 2 * l1 * l2 * np.cos(q2_max)), l1 + l2


def arm_2r(l1, l2, q2_max):
    return km.from_planar([l1, l2], limits=[[-np.pi, np.pi], [-q2_max, q2_max]])


# --- envelope -------------------------------------------------------------------------------
def test_2r_envelope_is_the_analytic_annulus_within_a_voxel():
    h, q2 = 1.0, np.radians(100)
    env = envelope(arm_2r(20, 15, q2), samples=200_000, voxel=h)
    r_in, r_out = annulus_2r(20, 15, q2)
    every = np.arange(env.grid.size)
    r = np.hypot(*env.grid.centres(every)[:, :2].T)
    occupied = np.isin(every, env.voxels)
    # a voxel whose centre is more than half a diagonal outside the annulus holds no point of it
    assert not occupied[(r > r_out + h * HALF_DIAG) | (r < r_in - h * HALF_DIAG)].any()
    # one that deep inside lies wholly in it: the samples (≥ ~30 per voxel here) found it
    assert occupied[(r < r_out - h * HALF_DIAG) & (r > r_in + h * HALF_DIAG)].all()


@settings(max_examples=4, deadline=None)
@given(l1=st.floats(10, 30), l2=st.floats(5, 30))
def test_2r_annulus_area_matches_the_formula(l1, l2):
    # θ2 free: the annulus |l1 − l2| ≤ r ≤ l1 + l2 of area π((l1+l2)² − (l1−l2)²) = 4π l1 l2
    env = envelope(arm_2r(l1, l2, np.pi), samples=150_000, voxel=(l1 + l2) / 40)
    exact = 4 * np.pi * l1 * l2
    assert abs(env.volume - exact) <= env.volume_uncertainty  # the estimate's stated bracket holds it
    assert env.volume_uncertainty < 0.15 * exact  # and the bracket is narrow at 80 voxels across


def test_planar_3r_envelope_is_the_60_mm_disc_minus_what_the_limits_exclude():
    h = 2.0
    robot = km.load("planar-3r")
    env = envelope(robot, samples=200_000, voxel=h)
    p = env.points()
    assert np.all(np.hypot(p[:, 0], p[:, 1]) <= 60 + h * HALF_DIAG)
    # within θ1's range [20°, 160°] the stretched arm reaches 60 mm: the rim is there, to a voxel
    psi = np.radians(np.arange(25, 156, 5))

    def rim(r):
        return env.grid.index(np.stack([r * np.cos(psi), r * np.sin(psi), 0 * psi], axis=1))
    assert np.isin(rim(60 - h), env.voxels).all()
    assert not np.isin(rim(60 + h * np.sqrt(2)), env.voxels).any()
    # an independent oracle, km.ik (position only): it reaches the centres of the envelope's inner
    # voxels (those on the edge may have their centre just outside), and none beyond the disc
    cand = np.flatnonzero(~boundary(env.grid, env.voxels))[::7]
    res = km.ik(robot, env.grid.centres(env.voxels[cand])[:, :2], restarts=20, seed=1)
    assert res.success.mean() > 0.95
    every = np.arange(env.grid.size)
    outside = np.setdiff1d(every, env.voxels)
    far = outside[np.hypot(*env.grid.centres(outside)[:, :2].T) > 60 + h * HALF_DIAG][::50]
    assert not km.ik(robot, env.grid.centres(far)[:, :2], restarts=5).success.any()


def test_sections_cut_the_cloud_in_a_plane(puma_map):
    env = puma_map.envelope
    cut = env.section("xy", 0.0)
    assert len(cut) and np.all(np.abs(cut[:, 2]) <= env.grid.voxel / 2)
    with pytest.raises(WorkspaceError, match="plane"):
        env.section("xw", 0.0)


# --- orientations -----------------------------------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(m=st.integers(1, 300), rolls=st.integers(1, 8))
def test_orientation_set_is_rotations_with_the_fibonacci_approach_axes(m, rolls):
    a = fibonacci_sphere(m)
    R = frames(a, rolls)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1, atol=1e-12)
    np.testing.assert_allclose(R @ np.swapaxes(R, 1, 2), np.broadcast_to(np.eye(3), R.shape), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(R), 1, atol=1e-12)
    np.testing.assert_allclose(R[:, :, 2], np.repeat(a, rolls, axis=0), atol=1e-12)
    # equal-area bands: the mean of the directions is the centre, to O(1/m)
    assert np.linalg.norm(a.mean(axis=0)) <= 2.0 / m


def test_orientation_set_fits_the_arm():
    assert orientation_set(km.load("puma560"), 5, 3).kind == "pose"
    assert orientation_set(km.load("puma560"), 5, 3).size == 15
    assert orientation_set(km.load("arm-5dof"), 5, 3).kind == "pitch"  # a yaw base: its radial plane
    assert orientation_set(km.load("arm-5dof"), 5, 3).size == 5
    assert orientation_set(sideways_5dof(), 5, 3).kind == "approach"
    assert orientation_set(km.load("planar-3r"), 8).kind == "planar"


# --- reachability and dexterity -----------------------------------------------------------
def test_puma_reachable_voxels_have_an_ik_answer_fk_confirms(puma, puma_map):
    m = puma_map
    hit = np.flatnonzero(m.reached > 0)
    assert hit.size > 20 and np.all(m.witness_orientation[hit] >= 0)
    tol = 1e-6  # km.ik's default tolerance for a metre robot (m, and rad for the orientation)
    for i in hit:
        k = m.witness_orientation[i]
        goal = m.orientations.values[k]
        T = km.fk(puma, m.witness_q[i])  # an FK call of our own, not the solver's bookkeeping
        assert np.linalg.norm(T[:3, 3] - m.grid.centres(m.voxels[i:i + 1])[0]) < 10 * tol
        cos = np.clip((np.trace(goal.T @ T[:3, :3]) - 1) / 2, -1, 1)
        assert np.arccos(cos) < 10 * tol
        assert puma.within_limits(m.witness_q[i])
    assert np.all(np.isnan(m.witness_q[m.reached == 0]))


def test_puma_outer_envelope_voxels_have_low_shares(puma_map):
    m = puma_map
    d = np.linalg.norm(m.grid.centres(m.voxels), axis=1)  # joint 1 of the Puma is at the origin
    outer = d > 0.85 * d.max()
    inner = d < 0.7 * d.max()
    assert outer.any() and inner.any()
    # at the rim only orientations aiming outwards remain: few of a uniform set
    assert m.share[outer].mean() <= 0.25 < m.share[inner].mean()


def test_dexterity_measures_are_those_of_the_configurations_reached(puma, puma_map):
    m = puma_map
    hit = np.flatnonzero(m.reached > 0)
    s = np.linalg.svd(km.jacobian(puma, m.witness_q[hit]), compute_uv=False)  # 6x6: full task
    w, kappa = np.prod(s, axis=1), s[:, 0] / s[:, -1]
    ms = m.measures
    # the witness is one of the configurations each voxel's statistics run over
    assert np.all(ms["manipulability_min"][hit] <= w * (1 + 1e-9))
    assert np.all(ms["manipulability_mean"][hit] >= ms["manipulability_min"][hit])
    assert np.all(ms["condition_max"][hit] >= kappa * (1 - 1e-9))
    assert np.all(np.isnan(ms["manipulability_mean"][m.reached == 0]))
    assert np.array_equal(ms["singular"], ms["condition_max"] > 1e3)


def same_map(a, b) -> bool:
    return (np.array_equal(a.voxels, b.voxels) and np.array_equal(a.reached, b.reached)
            and np.array_equal(a.witness_q, b.witness_q, equal_nan=True)
            and np.array_equal(a.envelope.samples_per_voxel, b.envelope.samples_per_voxel))


def test_the_map_does_not_depend_on_the_chunk_size(puma):
    kw = dict(voxel=0.3, orientations=4, rolls=2, samples=20_000, seed=5)
    assert same_map(reachability(puma, chunk=1, **kw), reachability(puma, chunk=10_000, **kw))


def test_a_local_two_worker_cluster_gives_the_in_process_map(puma):
    from distributed import LocalCluster

    kw = dict(voxel=0.3, orientations=4, rolls=2, samples=20_000, seed=5)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        remote = reachability(puma, chunk=40, scheduler=cluster.scheduler_address, **kw)
    assert same_map(remote, reachability(puma, **kw))


def test_a_worker_lost_mid_job_loses_nothing(puma, monkeypatch):
    import os
    import signal

    import kinematica.workspace.reach as reach
    from distributed import Client, LocalCluster

    monkeypatch.setattr(reach, "BLOCK_TARGETS", 40)  # many small tasks, so the loss lands mid-job
    kw = dict(voxel=0.3, orientations=4, rolls=2, samples=20_000, seed=5, chunk=1)
    killed = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        with Client(cluster) as client:
            pids = sorted(client.run(os.getpid).values())  # the worker processes this test started

        def kill_a_worker(done, total):
            if total > 4 and done >= 2 and not killed:  # in the reach phase, tasks finished and pending
                os.kill(pids[0], signal.SIGKILL)
                killed.append(done)
        remote = reachability(puma, scheduler=cluster.scheduler_address, progress=kill_a_worker, **kw)
    assert killed  # the worker died mid-job; Dask reran its tasks elsewhere
    assert same_map(remote, reachability(puma, **kw))


class Interrupted(Exception):
    pass


def test_an_interrupted_job_resumes_where_it_stopped(puma, tmp_path, monkeypatch):
    import kinematica.workspace.reach as reach

    monkeypatch.setattr(reach, "BLOCK_TARGETS", 40)  # small blocks: many tasks from a small map
    kw = dict(voxel=0.3, orientations=4, rolls=2, samples=20_000, seed=5, chunk=2)
    totals = []

    def stop_in_the_reach_phase(done, total):
        totals.append(total)
        if total != totals[0]:  # the envelope is done and the first reach task saved
            raise Interrupted

    with pytest.raises(Interrupted):
        reachability(puma, resume=str(tmp_path), progress=stop_in_the_reach_phase, **kw)
    resumed = reachability(puma, resume=str(tmp_path), **kw)
    assert resumed.envelope.blocks_resumed == 3  # 20 000 samples: three blocks of 8192, all saved
    assert 1 <= resumed.blocks_resumed < totals[-1]
    assert same_map(resumed, reachability(puma, **kw))
    # parts of another job are not mixed in
    with pytest.raises(WorkspaceError, match="another job"):
        reachability(puma, resume=str(tmp_path), **{**kw, "seed": 6})


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("voxel", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_a_voxel_that_is_not_a_positive_length_is_refused(voxel):
    with pytest.raises(WorkspaceError, match="voxel"):
        envelope("planar-3r", samples=100, voxel=voxel)


def test_a_voxel_too_small_for_the_arm_names_the_limit():
    with pytest.raises(WorkspaceError, match="VOXELS"):
        envelope("puma560", samples=100, voxel=1e-4)


@pytest.mark.parametrize("kw", [dict(samples=0), dict(samples=10 ** 10), dict(seed=-1), dict(chunk=0)])
def test_bad_counts_are_refused(kw):
    with pytest.raises(WorkspaceError):
        envelope("planar-3r", **{"samples": 100, "voxel": 5.0, **kw})


def test_a_scheduler_that_does_not_answer_is_a_clear_error():
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # distributed retries until our 3 s connect timeout (run.CONNECT_TIMEOUT), then we say so
    with pytest.raises(WorkspaceError, match=f"127.0.0.1:{port}.*did not answer within 3 s"):
        envelope("planar-3r", samples=100, voxel=5.0, scheduler=f"tcp://127.0.0.1:{port}")


def test_restarts_add_nothing_where_the_closed_form_tries_every_branch(puma):
    # why the Puma's default is 0 restarts (reach.default_restarts): 8 random restarts per miss
    # find no solution the closed-form rescue did not
    kw = dict(voxel=0.3, orientations=4, rolls=2, samples=20_000, seed=5)
    default = reachability(puma, **kw)
    assert default.restarts == 0
    assert np.array_equal(default.reached, reachability(puma, restarts=8, **kw).reached)


def sideways_5dof():
    """arm-5dof with its shoulder 5 cm off to the side of joint 1's axis (d2 = 0.05 m): its
    approach no longer lies in the vertical plane through that axis and the tool point."""
    rows = [dict(d=d, a=a, alpha=alpha, theta=0.0) for d, a, alpha in
            [(0.071, 0, np.pi / 2), (0.05, 0.246, 0), (0, 0.163, 0), (0, 0, -np.pi / 2), (0.165, 0, 0)]]
    return km.from_dh(rows, name="sideways-5dof", limits=np.tile([-np.pi, np.pi], (5, 1)))


FIVE_DOF = [name for name in km.robot_names() if km.load(name).n == 5]


def test_there_are_five_bundled_5_dof_arms():
    assert sorted(FIVE_DOF) == ["arm-5dof", "arm-5dof-geo", "braccio", "so100", "so101"]


# The SO-ARMs' tool points sit on the fixed jaw's inner face, 7.9 mm off the wrist roll axis
# (the SO-101's gripper_frame_link; the SO-100's placed alike), and the SO-101's roll axis also
# leans 0.0487 rad (2.8°) out of the arm's plane (wrist_roll rpy): rolling the wrist carries the
# approach out of the vertical plane through joint 1 and the tool point, so no pitch set fits
# them and their maps take Fibonacci directions like the sideways arm below.
@pytest.mark.parametrize("name", [n for n in FIVE_DOF if n not in ("so100", "so101")])
def test_every_bundled_5_dof_arm_reaches_most_voxels_over_its_own_pitches(name):
    """A 5-joint yaw-base arm has one plane of approach directions at each point: the vertical
    plane through joint 1's axis and the point. Fixed world directions rarely lie in it (issue 30:
    0 reachable voxels with the default set; 1-7 % at this grid); its own pitches it reaches at
    most voxels of its envelope (65-90 % here; the rest are boundary voxels whose centre lies
    outside the workspace). Every witness is checked by our own FK: the voxel centre, with the
    approach at the witness's pitch in that plane."""
    robot = km.load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WorkspaceWarning)  # a map with reachable voxels has no note
        m = reachability(robot, orientations=8, samples=20_000, voxel=robot_reach(robot) / 8, seed=2)
    assert m.orientations.kind == "pitch" and m.note == ""
    hit = np.flatnonzero(m.reached > 0)
    assert hit.size >= 0.5 * m.voxels.size, (hit.size, m.voxels.size)
    T = km.fk(robot, m.witness_q[hit])
    p = m.grid.centres(m.voxels[hit])
    tol = 1e-6 if robot.length_unit == "m" else 1e-3  # km.ik's position tolerance (1 µm), which it judged by FK
    assert np.all(np.linalg.norm(T[:, :3, 3] - p, axis=1) < tol)
    C0 = robot.C[0]  # joint 1's frame: "vertical" is its z axis
    local = (p - C0[:3, 3]) @ C0[:3, :3]
    psi = np.arctan2(local[:, 1], local[:, 0])
    phi = m.orientations.values[m.witness_orientation[hit]]
    a = np.stack([np.cos(phi) * np.cos(psi), np.cos(phi) * np.sin(psi), np.sin(phi)], axis=-1) @ C0[:3, :3].T
    np.testing.assert_allclose(T[:, :3, 2], a, atol=1e-5)  # approach tolerance of km.ik, as for the Fibonacci set


def test_a_5_dof_arm_off_its_radial_plane_tries_fibonacci_directions_and_says_why_it_reaches_none():
    """No pitch set fits an arm whose approach leaves the radial plane: it tries the Fibonacci
    directions, which a 5-joint arm seldom matches (none here), and the map says so."""
    robot = sideways_5dof()
    with pytest.warns(WorkspaceWarning, match=r"sideways-5dof: no voxel of \d+ reached any of the 6 orientations "
                      r"\(6 Fibonacci-sphere approach directions.*does not stay in the vertical plane through joint 1"):
        m = reachability(robot, orientations=6, samples=20_000, voxel=robot_reach(robot) / 6, seed=2)
    assert m.orientations.kind == "approach" and m.voxels.size > 100 and not m.reached.any()
    assert "raise restarts" in m.note


def test_an_empty_map_says_why():
    """A Puma whose joints may move 0.01 rad about home points its tool one way only: none of
    the 4 Fibonacci directions × 1 roll is within reach anywhere. The map says so in words (a
    warning, `note`, the summary) instead of showing an empty map as a finding."""
    puma = km.load("puma560")
    stiff = puma.replace(limits=np.column_stack([puma.q_home - 0.01, puma.q_home + 0.01]))
    with pytest.warns(WorkspaceWarning, match=r"puma560: no voxel of \d+ reached any of the 4 orientations .*"
                      r"fixed in the world; narrow joint limits rule most of them out"):
        m = reachability(stiff, orientations=4, rolls=1, samples=2000, voxel=0.01, seed=1)
    assert m.voxels.size > 0 and not m.reached.any()
    assert m.note.startswith(f"no voxel of {m.voxels.size} reached any") and m.summary()["note"] == m.note


def robot_reach(robot) -> float:
    from kinematica.ik.reach import bound
    return bound(robot)[1]


def test_the_preview_is_the_envelope_without_dask():
    from kinematica.workspace.envelope import preview

    points, counts, grid = preview("braccio", 20_000, seed=1)
    env = envelope("braccio", samples=20_000, seed=1)
    np.testing.assert_array_equal(points, env.points())
    np.testing.assert_array_equal(counts, env.samples_per_voxel)


@pytest.mark.parametrize("address", ["nonsense", "ftp://x:1", "", "tcp://127.0.0.1:99999", "tcp://host:port"])
def test_a_malformed_scheduler_address_is_refused_before_dask_sees_it(address):
    with pytest.raises(WorkspaceError, match="expected a Dask scheduler address"):
        envelope("planar-3r", samples=100, voxel=5.0, scheduler=address)


def test_a_2r_arm_is_singular_only_at_its_circles():
    # a 2R arm's position Jacobian loses rank only at θ2 = 0 or π: the rims r = l1 ± l2; its
    # w = l1 l2 |sin θ2| (Yoshikawa), so the map's w at a voxel is that of its centre's radius
    l1, l2 = 20.0, 15.0
    m = dexterity(arm_2r(l1, l2, np.pi), voxel=2.0, samples=50_000)
    r = np.hypot(*m.grid.centres(m.voxels)[:, :2].T)
    hit = m.reached > 0
    cos2 = (r[hit] ** 2 - l1 ** 2 - l2 ** 2) / (2 * l1 * l2)
    sin2 = np.sqrt(1 - cos2 ** 2)
    # IK stops within 1e-3 mm of the centre; |dw/dr| = r |cot θ2|, so w is known to r |cot θ2| · 1e-3
    tol = 2 * r[hit] * np.abs(cos2) / np.maximum(sin2, 1e-3) * 1e-3 + 1e-9
    assert np.all(np.abs(m.measures["manipulability_min"][hit] - l1 * l2 * sin2) <= tol)
    assert not m.measures["singular"][hit & (r > 6) & (r < 34)].any()


@pytest.mark.parametrize("voxel", [1e308, 121.0])
def test_a_voxel_larger_than_the_workspace_is_refused_in_words(voxel):
    """planar-3r reaches 60 mm: a voxel beyond 120 mm holds its whole workspace in one cell (and
    1e308 overflowed the volume: issue 30)."""
    for make in (envelope, reachability, dexterity):
        with pytest.raises(WorkspaceError, match=r"voxel = .* is larger than the arm's whole workspace \(2 × its "
                           r"reach = 120\): .*use a voxel of at most 120"):
            make("planar-3r", samples=100, voxel=voxel)
    assert envelope("planar-3r", samples=1000, voxel=120.0).voxels.size >= 1  # the largest accepted


def test_a_voxel_too_small_for_an_int_is_refused_by_the_voxel_limit():
    with pytest.raises(WorkspaceError, match=r"gives inf voxels .*VOXELS"):
        envelope("planar-3r", samples=100, voxel=1e-308)


def test_an_unknown_keyword_of_dexterity_names_dexterity():
    with pytest.raises(TypeError, match=r"^dexterity\(\): unknown keyword argument 'bogus'; it takes robot, voxel, "):
        dexterity("planar-3r", bogus=1)
