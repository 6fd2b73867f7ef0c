"""Analytic IK: every branch FK-checked, the papers' examples, singular and unreachable targets,
batches, and robots of the same shape built other ways."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica import spatial
from kinematica.ik import analytic as an
from kinematica.ik import target as tg
from kinematica.ik.analytic import (NotAnalytic, analytic_candidates, analytic_solutions, geometric5,
                                    has_analytic, planar, solver_name, spherical_wrist, ur, wrist)
from kinematica.ik.analytic.geometry import size
from kinematica.ik.limits import wrap_into_limits

deg = np.radians
TOL = 1e-9


def _random_q(robot, rng, count):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return rng.uniform(lo, hi, size=(count, robot.n))


def _target(robot, q, kind):
    T = km.fk(robot, q)
    if kind == "planar":
        return tg.planar(T[..., :2, 3], np.arctan2(T[..., 1, 0], T[..., 0, 0]))
    if kind == "approach":
        return tg.approach(T[..., :3, 3], T[..., :3, 2])
    return tg.pose(T)


def _angle_gap(a, b):
    return np.abs((a - b + np.pi) % (2 * np.pi) - np.pi)


def _fk_errors(robot, t, q):
    """Position error / robot size and orientation error of every candidate (N, k), computed
    here from FK, independently of the solver's own check."""
    T = km.fk(robot, q)
    if t.kind == "planar":
        pos = np.linalg.norm(T[..., :2, 3] - t.p[:, None, :2], axis=-1)
        ori = _angle_gap(np.arctan2(T[..., 1, 0], T[..., 0, 0]), t.phi[:, None])
    else:
        pos = np.linalg.norm(T[..., :3, 3] - t.p[:, None], axis=-1)
        if t.kind == "approach":
            ori = np.linalg.norm(T[..., :3, 2] - t.a[:, None], axis=-1)
        else:
            ori = np.abs(T[..., :3, :3] - t.R[:, None]).max(axis=(-1, -2))
    return pos / size(robot), ori


# --- round trips on the bundled robots -----------------------------------------------------------
CASES = [("planar-3r", "planar"), ("arm-5dof-geo", "approach"), ("arm-5dof-geo", "pose"),
         ("arm-5dof", "approach"), ("arm-5dof", "pose"), ("braccio", "approach"),
         ("kuka-kr6-r900", "pose"), ("puma560", "pose"), ("ur5", "pose")]


@pytest.mark.parametrize("name, kind", CASES)
def test_every_valid_branch_reproduces_the_target_and_the_original_is_found(name, kind):
    robot = km.load(name)
    q0 = _random_q(robot, np.random.default_rng(7), 300)
    t = _target(robot, q0, kind)
    q, valid, labels = analytic_solutions(robot, t)
    assert q.shape == (300, len(labels), robot.n) and valid.shape == (300, len(labels))
    assert np.isfinite(q).all()
    pos, ori = _fk_errors(robot, t, q)
    assert pos[valid].max() < TOL and ori[valid].max() < TOL
    # the configuration the target came from is one of the valid branches (roll is free for
    # an approach target, so it is compared on the other joints)
    cols = slice(0, robot.n - 1) if kind == "approach" else slice(None)
    gap = _angle_gap(q[..., cols], q0[:, None, cols]).max(axis=-1)
    assert np.all(np.min(np.where(valid, gap, np.inf), axis=1) < 1e-7)
    # no branch the solver's geometry calls reachable fails the FK check (dropped: zero)
    _, reach, _ = analytic_candidates(robot, t)
    dropped = int((reach & ~valid).sum())
    assert dropped == 0


@pytest.mark.parametrize("name, k", [("kuka-kr6-r900", 8), ("puma560", 8), ("ur5", 8), ("arm-5dof-geo", 4)])
def test_branches_are_distinct_for_a_generic_target(name, k):
    robot = km.load(name)
    q0 = np.array([0.3, 0.4, -0.5, 0.6, 0.7, 0.8])[: robot.n]
    t = tg.pose(km.fk(robot, q0))
    q, valid, labels = analytic_solutions(robot, t)
    assert len(labels) == k == len(set(labels)) and valid.all()
    d = _angle_gap(q[0][:, None], q[0][None]).max(axis=-1) + np.eye(k)
    assert d.min() > 1e-3


def test_candidates_are_wrapped_then_put_into_the_limits():
    robot = km.load("kuka-kr6-r900")
    q, valid, _ = analytic_solutions(robot, tg.pose(km.fk(robot, _random_q(robot, np.random.default_rng(3), 100))))
    assert np.array_equal(q, wrap_into_limits(robot, q))  # nothing the library's rule would still move
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    free = (lo <= -np.pi) & (hi >= np.pi)
    assert np.all((q[..., free] > -np.pi) & (q[..., free] <= np.pi))
    # out-of-limit branches are returned (the caller marks them), not dropped
    assert valid.all(axis=1).any() and not robot.within_limits(q[valid]).all()


WIDE = deg([[-100, 300], [-400, 100], [-170, 170], [-350, 350], [-np.inf, 30], [10, np.inf]])


@pytest.mark.parametrize("name", ["kuka-kr6-r900", "puma560", "planar-3r", "braccio", "ur5", "wide"])
def test_wrapping_follows_the_library_rule(name):
    robot = km.load("kuka-kr6-r900").replace(limits=WIDE) if name == "wide" else km.load(name)
    q = np.random.default_rng(2).uniform(-4 * np.pi, 4 * np.pi, (2000, robot.n))
    q[:7] = np.array([np.pi, -np.pi, 0.0, 3 * np.pi, -3 * np.pi, 2 * np.pi, 1e-17])[:, None]
    ours = an._wrap(robot, q.copy())
    in_pi = np.pi - (np.pi - q) % (2 * np.pi)
    assert np.allclose(ours, wrap_into_limits(robot, in_pi), rtol=0, atol=1e-12)


# --- paper 003: geometric 5-DOF ------------------------------------------------------------------
def test_paper003_corrected_solutions():
    arm = km.load("arm-5dof-geo")
    q, valid, labels = analytic_solutions(arm, tg.approach([59.98, 21.83, 42.33], pitch=deg(45)))
    assert valid.all()
    got = {lab: np.degrees(qi[:4]).round(2).tolist() for lab, qi in zip(labels, q[0])}
    assert got["front / elbow down"] == [20.00, 16.30, 44.22, -15.52]
    assert got["front / elbow up"] == [20.00, 45.10, -44.22, 44.13]
    # the back-flip yaw θ1 + π reaches over the top with the same pitch
    assert np.allclose(got["back-flip / elbow up"][0], -160.0)
    # the paper's printed θ4 = −φ − (θ2 + θ3) (erratum) misses the target: z = 35.25, not 42.33
    printed = km.fk(arm, deg([20, 16.29, 44.22, -105.51, 0]))[:3, 3]
    assert printed[2] == pytest.approx(35.25, abs=0.01)


def test_paper003_lengths_are_read_from_the_table_and_the_literal_formulas_agree():
    arm = km.load("arm-5dof-geo")
    assert geometric5.parameters(arm) == pytest.approx({"l_base": 3, "l2": 50, "l3": 25, "l4": 5})
    assert geometric5.parameters(km.load("arm-5dof")) == pytest.approx(
        {"l_base": 0.071, "l2": 0.246, "l3": 0.163, "l4": 0.165})
    rng = np.random.default_rng(1)
    q0 = _random_q(arm, rng, 50)
    T = km.fk(arm, q0)
    yaw = np.arctan2(T[:, 1, 3], T[:, 0, 3])
    phi = np.arctan2(T[:, 2, 2], T[:, 0, 2] * np.cos(yaw) + T[:, 1, 2] * np.sin(yaw))  # pitch, radial out = 0
    literal = geometric5.paper003(T[:, :3, 3], phi, **geometric5.parameters(arm))  # (N, 2, 4)
    q, valid, _ = analytic_solutions(arm, tg.approach(T[:, :3, 3], T[:, :3, 2]))
    # the paper's two solutions (its yaw: the top view of the tool point) are among the four
    gap = _angle_gap(literal[:, :, None], q[:, None, :, :4]).max(axis=-1)  # (N, 2 paper, 4 ours)
    assert np.all(valid) and np.all(gap.min(axis=-1) < 1e-9)


def test_position_only_target_on_a_5dof_arm_is_not_analytic():
    arm = km.load("arm-5dof-geo")
    assert not has_analytic(arm, "position") and has_analytic(arm, "approach") and has_analytic(arm, "pose")
    assert analytic_solutions(arm, tg.position([50.0, 10, 20])) is None


def test_approach_out_of_the_arm_plane_is_unreachable_for_every_branch():
    arm = km.load("arm-5dof-geo")
    q, valid, _ = analytic_solutions(arm, tg.approach([50.0, 0, 30], [0, 1, 0]))
    assert not valid.any() and np.isfinite(q).all()


def test_roll_is_the_reference_for_approach_targets_and_solved_for_poses():
    arm = km.load("arm-5dof-geo")
    q0 = deg([10, 30, -20, 15, 40])
    T = km.fk(arm, q0)
    q, valid, _ = analytic_solutions(arm, tg.approach(T[:3, 3], T[:3, 2]), q_ref=deg([0, 0, 0, 0, 25]))
    assert np.allclose(q[0, valid[0], 4], deg(25))
    q, valid, _ = analytic_solutions(arm, tg.pose(T))
    assert valid.all() and np.allclose(q[0, 0], q0)


# --- paper 004: KUKA KR6 -------------------------------------------------------------------------
def test_paper004_end_pose_is_among_the_solutions():
    kuka = km.load("kuka-kr6-r900")
    q_end = np.array([-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])
    T = km.fk(kuka, q_end)
    assert np.allclose(T[:3, 3], [0.445, 0, 0.7735])
    q, valid, labels = analytic_solutions(kuka, T)
    gap = _angle_gap(q[0], q_end).max(axis=-1)
    i = int(np.argmin(gap))
    assert gap[i] < 1e-9 and valid[0, i] and kuka.within_limits(q[0, i])
    assert labels[i] == "shoulder front / elbow up / wrist flip"


@pytest.mark.parametrize("q4_ref", [0.0, 0.7])
def test_kuka_home_wrist_singularity_is_solved_exactly(q4_ref):
    kuka = km.load("kuka-kr6-r900")
    T = km.fk(kuka, np.zeros(6))  # q5 = 0: axes 4 and 6 in line, r33 = ±1
    q_ref = np.array([0, 0, 0, q4_ref, 0, 0])
    q, valid, labels = analytic_solutions(kuka, T, q_ref=q_ref)
    assert valid.any()
    assert np.abs(km.fk(kuka, q[0, valid[0]]) - T).max() < 1e-12
    # the singular branches keep θ4 at its reference and put the rest of the turn into θ6
    home = _angle_gap(q[0, :, [0, 1, 2, 4]].T, 0).max(axis=-1) < 1e-12
    assert home.any() and np.allclose(q[0, home, 3], q4_ref) and np.allclose(q[0, home, 5], -q4_ref)
    assert labels[int(np.flatnonzero(home)[0])].startswith("shoulder front / elbow up")


@pytest.mark.parametrize("name", ["kuka-kr6-r900", "puma560", "ur5"])
def test_near_the_wrist_singularity_every_branch_stays_exact(name):
    robot = km.load(name)
    q0 = np.tile([0.3, -0.4, 0.5, 0.6, 0.0, -0.7], (9, 1))
    q0[:, 4] = [1e-1, 1.0001e-2, 1e-2, 1e-4, 1e-6, 1e-9, 1e-12, 1e-14, np.pi - 1e-9]
    T = km.fk(robot, q0)
    q, valid, _ = analytic_solutions(robot, T)
    assert valid.all(axis=1).sum() >= 8
    assert np.abs(km.fk(robot, q[valid]) - T[np.nonzero(valid)[0]]).max() < 1e-12


def test_puma_wrist_singularity_and_zyz_formulas():
    puma = km.load("puma560")
    q0 = deg([20, 40, -60, 0, 0, 30])
    q, valid, _ = analytic_solutions(puma, km.fk(puma, q0), q_ref=deg([0, 0, 0, 10, 0, 0]))
    assert np.abs(km.fk(puma, q[0, valid[0]]) - km.fk(puma, q0)).max() < 1e-12
    # the wrist solver is paper 004's ZYZ extraction for the ZYZ axes
    rng = np.random.default_rng(4)
    a = rng.uniform([-np.pi, 0.1, -np.pi], [np.pi, np.pi - 0.1, np.pi], size=(50, 3))
    M = (spatial.rotz(a[:, 0]) @ spatial.roty(a[:, 1]) @ spatial.rotz(a[:, 2]))[:, :3, :3]
    B, C = spatial.rotx(-np.pi / 2)[:3, :3], spatial.rotx(np.pi / 2)[:3, :3]
    ta, tb, tc = wrist.solve(M[..., 2], M[..., 0], wrist.Wrist.of(B, C), 0.0)
    assert np.allclose(_angle_gap(np.stack([ta[:, 0], tb[:, 0], tc[:, 0]], -1), a), 0, atol=1e-12)
    r = M
    assert np.allclose(tb[:, 0], np.arctan2(np.hypot(r[:, 0, 2], r[:, 1, 2]), r[:, 2, 2]))
    assert np.allclose(_angle_gap(ta[:, 0], np.arctan2(r[:, 1, 2], r[:, 0, 2])), 0)
    assert np.allclose(_angle_gap(tc[:, 0], np.arctan2(r[:, 2, 1], -r[:, 2, 0])), 0)


def test_wrist_centre_on_axis_1_leaves_the_yaw_free():
    kuka = km.load("kuka-kr6-r900")
    wc_tool = an.spherical_wrist.structure(kuka).cols[:, 0]
    R = spatial.rpy_to_matrix([0.3, -0.4, 0.5])
    T = spatial.homogeneous(R, np.array([0, 0, 1.0]) - R @ wc_tool)  # wrist centre over the base
    q, valid, _ = analytic_solutions(kuka, T, q_ref=[0.4, 0, 0, 0, 0, 0])
    assert valid.any() and np.abs(km.fk(kuka, q[0, valid[0]]) - T).max() < 1e-12
    assert np.allclose(_angle_gap(q[0, valid[0], 0][:, None], [0.4, 0.4 - np.pi]).min(axis=1), 0)


def test_wrist_point_on_axis_1_takes_the_yaw_from_the_roll_axis():
    arm = km.load("arm-5dof-geo")
    q, valid, _ = analytic_solutions(arm, tg.approach([5.0, 0, 40], [1, 0, 0]))  # wrist point on axis 1
    assert valid.any() and np.allclose(_angle_gap(q[0, valid[0], 0][:, None], [0, np.pi]).min(axis=1), 0)
    q, valid, _ = analytic_solutions(arm, tg.approach([0.0, 0, 60], [0, 0, 1]), q_ref=[0.3, 0, 0, 0, 0])
    assert valid.any() and np.allclose(_angle_gap(q[0, valid[0], 0][:, None], [0.3, 0.3 - np.pi]).min(axis=1), 0)


# --- unreachable targets ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, target", [
    ("kuka-kr6-r900", tg.pose(spatial.trans(3.0, 0, 0.5))),
    ("puma560", tg.pose(spatial.trans(0.0, 0.05, 0.0))),  # inside the shoulder offset's cylinder
    ("ur5", tg.pose(spatial.trans(0.0, 0.0, 2.0))),
    ("planar-3r", tg.planar([100.0, 0.0], 0.0)),
    ("arm-5dof-geo", tg.approach([200.0, 0, 0], [1, 0, 0])),
])
def test_unreachable_targets_give_finite_values_and_no_valid_branch(name, target):
    q, valid, labels = analytic_solutions(km.load(name), target)
    assert not valid.any() and np.isfinite(q).all() and len(labels) == q.shape[1]
    _, reach, _ = analytic_candidates(km.load(name), target)
    assert not reach.any()


# --- planar --------------------------------------------------------------------------------------
def test_planar_paper000_branch_and_labels():
    robot = km.load("planar-3r")
    th = deg([38.509, 68.800, 62.749])  # paper 000's converged configuration
    x, y = km.planar_fk([20, 20, 20], th)
    q, valid, labels = analytic_solutions(robot, tg.planar([x, y], th.sum()))
    assert labels == ["elbow up", "elbow down"] and valid.all()
    assert np.allclose(q[0, 1], th) and q[0, 0, 1] < 0 < q[0, 1, 1]
    # (x, y) alone leaves the 3R redundant: no closed form
    assert analytic_solutions(robot, tg.planar([x, y])) is None
    assert has_analytic(robot, "planar") and not has_analytic(robot, tg.planar([x, y]))


def test_planar_two_link_robot_and_pure_functions():
    robot = km.from_planar([30, 20], name="2r")
    q, valid, labels = analytic_solutions(robot, tg.planar([25.0, 30.0]))
    assert valid.all() and np.allclose(km.fk(robot, q[0])[:, :2, 3], [25, 30])
    th, ok = planar.two_link([[25.0, 30.0], [60.0, 0.0]], 30, 20)
    assert ok.tolist() == [True, False] and np.isfinite(th).all()
    assert np.allclose(th[1], 0.0)  # out of reach: stretched towards the point


# --- labels --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["puma560", "arm-5dof-geo"])
def test_elbow_labels_match_the_geometry(name):
    """"elbow up": the elbow (axis 3) above the line from the shoulder (axis 2) to the wrist."""
    robot = km.load(name)
    q0 = _random_q(robot, np.random.default_rng(11), 100)
    q, valid, labels = analytic_solutions(robot, _target(robot, q0, "pose"))
    F = km.fk_frames(robot, q)[..., :-2, :, :] @ robot.before  # frames of the joints
    up, h = F[..., 0, :3, 2], F[..., 1, :3, 2]
    shoulder, elbow = F[..., 1, :3, 3], F[..., 2, :3, 3]
    if name == "puma560":
        wrist_pt = F[..., 4, :3, 3]
    else:
        wrist_pt = F[..., 3, :3, 3]

    def flat(v):
        return v - np.sum(v * h, -1, keepdims=True) * h

    line = flat(wrist_pt - shoulder)
    line /= np.linalg.norm(line, axis=-1, keepdims=True)
    normal = flat(up) - np.sum(flat(up) * line, -1, keepdims=True) * line
    above = np.sum(flat(elbow - shoulder) * normal, -1) > 0
    labelled = np.array(["elbow up" in lab for lab in labels])
    assert np.all((above == labelled)[valid])


# --- dispatch ------------------------------------------------------------------------------------
def test_solver_choice_is_read_from_the_geometry():
    names = {n: solver_name(km.load(n)) for n in ("planar-3r", "arm-5dof", "arm-5dof-geo", "kuka-kr6-r900",
                                                  "puma560", "ur5", "panda", "arm-4dof")}
    assert names == {"planar-3r": "planar", "arm-5dof": "geometric5", "arm-5dof-geo": "geometric5",
                     "kuka-kr6-r900": "spherical wrist", "puma560": "spherical wrist", "ur5": "ur",
                     "panda": None, "arm-4dof": None}
    panda = km.load("panda")
    assert not has_analytic(panda, "pose") and analytic_solutions(panda, km.fk(panda, np.zeros(7))) is None
    puma = km.load("puma560")
    assert analytic_solutions(puma, tg.position([0.3, 0.1, 0.2])) is None
    with pytest.raises(NotAnalytic, match="axes 4, 5 and 6 do not meet"):
        spherical_wrist.structure(km.load("ur5"))
    with pytest.raises(NotAnalytic, match="six revolute joints"):
        ur.structure(km.load("arm-5dof"))
    with pytest.raises(NotAnalytic, match="not a planar robot"):
        planar.lengths(puma)


@pytest.mark.parametrize("name, kind", [("kuka-kr6-r900", "pose"), ("ur5", "pose"), ("arm-5dof-geo", "approach"),
                                        ("planar-3r", "planar")])
def test_batch_equals_loop_and_chunks(monkeypatch, name, kind):
    robot = km.load(name)
    q0 = _random_q(robot, np.random.default_rng(5), 23)
    t = _target(robot, q0, kind)
    q_ref = _random_q(robot, np.random.default_rng(6), 23)
    monkeypatch.setattr(an, "CHUNK", 5)
    q, valid, labels = analytic_solutions(robot, t, q_ref=q_ref)
    for i in range(23):
        qi, vi, li = analytic_solutions(robot, t[i], q_ref=q_ref[i])
        assert np.array_equal(qi[0], q[i]) and np.array_equal(vi[0], valid[i]) and li == labels
    # a batch of any shape is flattened; one q_ref (n,) is shared by all
    q2, valid2, _ = analytic_solutions(robot, t.reshape(23, 1), q_ref=robot.q_home)
    assert q2.shape == q.shape and np.array_equal(valid2, valid)


@pytest.mark.parametrize("bad", [np.zeros(5), np.full(6, np.nan)])
def test_bad_q_ref_raises(bad):
    robot = km.load("puma560")
    with pytest.raises(ValueError, match=r"^q_ref: (expected 6 joint values|contains NaN)"):
        analytic_solutions(robot, km.fk(robot, np.zeros(6)), q_ref=bad)


# --- the same shapes, built other ways ---------------------------------------------------------
@st.composite
def _tool_and_base(draw):
    ang = draw(st.lists(st.floats(-np.pi, np.pi), min_size=6, max_size=6))
    off = draw(st.lists(st.floats(-0.3, 0.3), min_size=6, max_size=6))
    base = spatial.transl(off[:3]) @ spatial.rotz(ang[0]) @ spatial.rotx(ang[1])
    tool = spatial.homogeneous(spatial.rpy_to_matrix(ang[3:]), off[3:])
    return base, tool


@settings(max_examples=15, deadline=None)
@given(_tool_and_base(), st.sampled_from(["kuka-kr6-r900", "puma560", "ur5", "arm-5dof"]),
       st.integers(0, 2 ** 31))
def test_any_base_and_tool_on_the_same_arm(bt, name, seed):
    base, tool = bt
    robot = km.load(name).replace(base=base, tool=tool)
    q0 = _random_q(robot, np.random.default_rng(seed), 20)
    t = tg.pose(km.fk(robot, q0))
    q, valid, _ = analytic_solutions(robot, t)
    pos, ori = _fk_errors(robot, t, q)
    assert pos[valid].max() < TOL and ori[valid].max() < TOL
    gap = _angle_gap(q, q0[:, None]).max(axis=-1)
    assert np.all(np.min(np.where(valid, gap, np.inf), axis=1) < 1e-7)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(0.05, 0.8), min_size=5, max_size=5),
       st.lists(st.sampled_from([-1.0, 1.0]), min_size=3, max_size=3),
       st.lists(st.floats(-np.pi, np.pi), min_size=6, max_size=6), st.integers(0, 2 ** 31))
def test_random_dh_arms_with_a_spherical_wrist(lengths, signs, offsets, seed):
    """A DH arm with a shoulder offset, lateral and elbow offsets and any joint zeros."""
    a2, a3, d3, d4, d6 = lengths
    rows = [{"alpha": signs[0] * np.pi / 2, "a": 0.1 * a2, "d": 0.3, "theta": offsets[0]},
            {"a": a2, "theta": offsets[1]},
            {"a": 0.2 * a3, "d": signs[1] * d3 * 0.3, "alpha": -np.pi / 2, "theta": offsets[2]},
            {"d": d4, "alpha": signs[2] * np.pi / 2, "theta": offsets[3]},
            {"alpha": -np.pi / 2, "theta": offsets[4]},
            {"d": d6 * 0.2, "theta": offsets[5]}]
    robot = km.from_dh(rows, name="random-6r")
    assert solver_name(robot) == "spherical wrist"
    q0 = _random_q(robot, np.random.default_rng(seed), 20)
    t = tg.pose(km.fk(robot, q0))
    q, valid, _ = analytic_solutions(robot, t)
    pos, ori = _fk_errors(robot, t, q)
    assert pos[valid].max() < TOL and ori[valid].max() < TOL
    gap = _angle_gap(q, q0[:, None]).max(axis=-1)
    assert np.all(np.min(np.where(valid, gap, np.inf), axis=1) < 1e-7)
