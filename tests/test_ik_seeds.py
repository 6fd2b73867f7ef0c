"""Closed-form seeds for Levenberg–Marquardt (issue 12, item 3): where a closed form fits the
arm (spherical wrist, UR-type), a full-pose target in "wrap" mode starts from the branch
nearest the caller's seed inside the limits, so it is solved by the first attempt — including
targets made with joints exactly on a limit. The verdict is still an FK check, which the test repeats itself."""

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import kinematica as km
from kinematica import spatial
from kinematica.ik.analytic import analytic_solutions
from kinematica.ik.target import as_target

ARMS = {name: km.load(name) for name in ("puma560", "ur5", "kuka-kr6-r900")}
TOL = 1e-6  # km.ik's default tolerances for metre arms (m, rad): what success promises


def _box(robot):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return lo, hi


def _problem(robot, u, on_limit, s):
    """Joint values from fractions u of the box, the joints in `on_limit` put exactly on their
    lower (even index) or upper limit, and a seed from fractions s."""
    lo, hi = _box(robot)
    q = lo + np.asarray(u) * (hi - lo)
    for j in on_limit:
        q[j] = lo[j] if j % 2 == 0 else hi[j]
    return q, lo + np.asarray(s) * (hi - lo)


def _singular(robot, q):
    """σ_min / σ_max of the Jacobian below km.ik's near-singular threshold (1e-3) at q."""
    sv = np.linalg.svd(km.jacobian(robot, q), compute_uv=False)
    return sv[-1] < 1e-3 * sv[0]


def _nearest_branch(robot, T, seed):
    """Brute force: every closed-form branch that FK confirms and the limits hold, nearest the
    seed (revolute gaps modulo 2π)."""
    Q, valid, _ = analytic_solutions(robot, as_target(T), q_ref=seed)
    ok = valid[0] & robot.within_limits(Q[0])
    gaps = np.linalg.norm((Q[0] - seed + np.pi) % (2 * np.pi) - np.pi, axis=1)
    return Q[0][np.argmin(np.where(ok, gaps, np.inf))]


def _fk_errors(robot, q, T):
    got = km.fk(robot, q)
    pos = np.linalg.norm(got[:3, 3] - T[:3, 3])
    ori = np.linalg.norm(spatial.rotation_log(T[:3, :3].T @ got[:3, :3]))
    return pos, ori


fractions = st.lists(st.floats(0, 1), min_size=6, max_size=6)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(ARMS)), u=fractions, s=fractions,
       on_limit=st.lists(st.integers(0, 5), max_size=2, unique=True))
@example(name="kuka-kr6-r900", u=[0.8882382519985823, 0.5, 0.044830336838628033, 0.0, 0.5, 0.0],
         s=[0.0, 0.0, 1.0, 0.0, 0.0, 0.0], on_limit=[])  # the wrist at exactly ±π
@example(name="ur5", u=[0.0, 0.875, 0.0, 0.0, 0.0, 0.0], on_limit=[],
         s=[0.0, 0.0, 0.875, 4.461923019869957e-11, 0.0, 0.0])  # upright: singular, and 4 other branches
def test_closed_form_seed_solves_from_the_first_attempt(name, u, on_limit, s):
    robot = ARMS[name]
    q_true, seed = _problem(robot, u, on_limit, s)
    T = km.fk(robot, q_true)
    r = km.ik(robot, T, seed, limits="wrap")
    pos, ori = _fk_errors(robot, r.q, T)
    assert r.success and pos < TOL and ori < TOL and robot.within_limits(r.q)
    if r.near_singular or _singular(robot, q_true):
        # at a singular pose branches merge and the closed form loses digits (a UR5 with
        # q = (0, 0, 0, 2.36, 0, 0): 10 LM steps polish it), or the pose is reached both by a
        # singular family and by isolated branches (the UR5 upright, q = (0, −π/2, 0, 0, 0, 0):
        # four bent-elbow branches, none near the seed's singular one); checked by FK above
        return
    assert r.iterations == 0  # the closed-form seed needed no LM step
    # the answer is the in-limit branch nearest the seed; branches are isolated (8 of them,
    # apart by far more than this), so a loose tolerance still tells a wrong branch apart.
    # Compared as angles, as "nearest" measures them: a joint at exactly ±π (the KR6's wrist,
    # limits ±185°) is π from the core's atan2 and −π from NumPy's, the same branch and pose
    gap = (r.q - _nearest_branch(robot, T, seed) + np.pi) % (2 * np.pi) - np.pi
    assert np.allclose(gap, 0.0, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ARMS))
def test_batch_from_closed_form_seeds_equals_single_calls(name):
    robot = ARMS[name]
    rng = np.random.default_rng(3)
    lo, hi = _box(robot)
    Q = rng.uniform(lo, hi, (30, 6))
    Q[::3, 1] = lo[1]  # a third of the targets with joint 2 on its lower limit
    seeds = rng.uniform(lo, hi, (30, 6))
    T = km.fk(robot, Q)
    batch = km.ik(robot, T, seeds, limits="wrap")
    assert batch.success.all() and (batch.iterations == 0).all()
    for k in range(0, 30, 5):
        one = km.ik(robot, T[k], seeds[k], limits="wrap")
        assert one.success and np.allclose(one.q, batch.q[k], atol=1e-9)


def test_a_nearby_target_from_the_arms_pose_is_iterated_to():
    # continuity: from the arm's pose q0 (limits "auto" = "clip") LM moves the arm itself, a
    # few iterations on q0's own branch (no closed-form seed: it would cost more than it saves)
    puma = ARMS["puma560"]
    q0 = np.array([0.3, -0.5, 0.4, 0.2, 0.7, -0.1])
    T = km.fk(puma, q0 + 0.02)
    r = km.ik(puma, T, q0)
    assert r.success and r.iterations > 0 and np.abs(r.q - q0).max() < 0.1
    batch = km.ik(puma, np.stack([T, T]), np.stack([q0, q0]))  # the same rule in a batch
    assert (batch.iterations == r.iterations).all() and np.allclose(batch.q[0], r.q, atol=1e-9)


def test_history_shows_the_iterations_from_q0():
    # a convergence plot (the simulator asks for history) shows LM's own iterations from q0
    puma = ARMS["puma560"]
    q0 = np.array([0.3, -0.5, 0.4, 0.2, 0.7, -0.1])
    r = km.ik(puma, km.fk(puma, q0 + 0.3), q0, history=True)
    assert r.success and r.iterations > 0 and len(r.history) > 0


def test_closed_form_seed_can_be_turned_off_to_run_lm_from_q0():
    """closed_form_seed=False: LM iterates from q0 itself (the learned models' warm-start report
    measures a seed's value this way), and still solves, judged by FK."""
    robot = km.load("puma560")
    rng = np.random.default_rng(11)
    q_true = robot.limits[:, 0] + rng.random(robot.n) * (robot.limits[:, 1] - robot.limits[:, 0])
    T = km.fk(robot, q_true)
    q0 = np.clip(q_true + 0.3, robot.limits[:, 0], robot.limits[:, 1])
    seeded = km.ik(robot, T, q0=q0, limits="wrap")
    plain = km.ik(robot, T, q0=q0, limits="wrap", closed_form_seed=False)
    assert seeded.success and plain.success
    assert seeded.iterations == 0 < plain.iterations  # the branch is exact; LM from q0 must iterate
    assert np.linalg.norm(km.fk(robot, plain.q)[:3, 3] - T[:3, 3]) < 1e-6
