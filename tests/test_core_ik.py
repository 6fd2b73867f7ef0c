"""The compiled core's IK (src/core/lm.cpp) against the equations and against the NumPy code it
replaced, which stays as the oracle (`reference_paths.numpy_only`): IK run both ways for its
verdicts, the pose error, the damped step; and one answer — the same q bit for bit for a single
call, a batch of one, any batch and any number of threads. FK, the Jacobians, RNE and the mass
matrix: tests/test_core.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica.kinematics import reference
from strategies import FAST
from kinematica.ik.tolerance import default_tolerance
from reference_paths import numpy_only
from test_helical import random_helical_robot

# FK/J agree to 1e-12 relative to the robot's size: every entry is a sum of products of unit
# rotations and lengths up to the robot's reach, each step rounding at ~1e-16 of it.
REL = 1e-12


def size(robot: km.Robot) -> float:
    """An upper bound on the robot's lengths: 1 + the sum of its constant translations."""
    return 1.0 + float(np.abs(robot.C[:, :3, 3]).sum())


def limit_rows(robot: km.Robot, rng: np.random.Generator) -> np.ndarray:
    """Random configurations plus the two with every joint exactly on a limit (±2π for an
    unlimited joint)."""
    lim = np.clip(robot.limits, -2 * np.pi, 2 * np.pi)
    return np.vstack([lim[:, 0] + rng.random((6, robot.n)) * (lim[:, 1] - lim[:, 0]), lim.T])


def test_ik_verdicts_are_the_same_compiled_and_not():
    """The core's LM against single.solve_one in NumPy: same verdicts
    (iteration counts too, here, but rounding — an FMA on another CPU — may shift those), from
    the home pose and from random seeds, targets on the limits included, 5-, 6- and 7-joint
    arms (the 7-joint one takes the JJᵀ system)."""
    for name in ("puma560", "ur5", "arm-5dof", "panda"):
        robot = km.load(name)
        rng = np.random.default_rng(5)
        Q = limit_rows(robot, rng)
        targets = km.fk(robot, Q)
        far = np.eye(4)
        far[:3, 3] = 10 * size(robot)  # out of reach: a failure with a reason
        for T, q0 in zip((*targets, far), (robot.q_home, *Q[::-1])):
            fast = km.ik(robot, T, q0=q0)
            with numpy_only():
                slow = km.ik(robot, T, q0=q0)
            assert (fast.success, fast.reason) == (slow.success, slow.reason)
            if fast.success:  # judged by the independent reference FK
                err = reference.fk_space(robot, fast.q)[:3, 3] - T[:3, 3]
                assert np.abs(err).max() < 1e-6 * size(robot)


def test_no_numba_and_no_run_time_compilation_in_the_package():
    """Issue 26: the IK moved into the C++ core; nothing in the package imports Numba, and a fresh
    process solves IK without loading it."""
    import pathlib

    src = pathlib.Path(km.__file__).parent
    hits = [str(p) for p in src.rglob("*.py") if "numba" in p.read_text(encoding="utf-8")]
    assert hits == []
    code = textwrap.dedent("""
        import json, sys
        import numpy as np, kinematica as km
        r = km.load("panda")
        ok = bool(km.ik(r, km.fk(r, np.full(7, 0.3))).success)
        print(json.dumps({"ok": ok, "numba": "numba" in sys.modules}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"ok": True, "numba": False}


def test_compiled_pose_error_matches_the_numpy_pose_error_also_near_a_half_turn():
    from kinematica._core import pose_error as core_pose_error
    from kinematica.ik.pose_error import pose_error, pose_error_one
    from kinematica.kinematics.handle import chain_handle

    robot = km.load("ur5")
    chain = chain_handle(robot)[0]
    rng = np.random.default_rng(2)
    for q in limit_rows(robot, rng):
        T0 = km.fk(robot, q)
        for angle in (0.0, 1e-9, 0.7, np.pi - 1e-3, np.pi - 0.1, np.pi):  # about a random axis
            a = rng.normal(size=3)
            a /= np.linalg.norm(a)
            K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            Rd = (np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K) @ T0[:3, :3]
            pd = T0[:3, 3] + rng.normal(size=3)
            Td = np.eye(4)
            Td[:3, :3], Td[:3, 3] = Rd, pd
            e, T, J, E, pos, ori = core_pose_error(chain, q, Td)
            e_ref, pos_ref, ori_ref = pose_error(pd[:, None], Rd[..., None], T0[:3, None, :])
            e_one, E_one, pos_one, ori_one = pose_error_one(pd, Rd, T)  # the same formulas on floats
            np.testing.assert_allclose(e, e_one, atol=1e-9)  # M = R_d Rᵀ summed in another order
            assert abs(pos - pos_one) < 1e-12 and abs(ori - ori_one) < 1e-12 and abs(E - E_one) < 1e-9
            # the same formulas: rounding only (θ near π: the axis is as well conditioned as
            # 1 − cos θ, so 1e-9 there)
            np.testing.assert_allclose(e, e_ref[:, 0], atol=1e-9)
            assert abs(pos - pos_ref[0]) < 1e-12 and abs(ori - ori_ref[0]) < 1e-12
            assert abs(E - 0.5 * e_ref[:, 0] @ e_ref[:, 0]) < 1e-9
            np.testing.assert_allclose(J, km.jacobian(robot, q), atol=REL * size(robot))


@pytest.mark.parametrize("rows, cols", [(6, 6), (6, 7), (3, 6), (6, 4)])
def test_compiled_damped_step_solves_the_damped_normal_equations(rows, cols):
    from kinematica._core import damped_step
    from kinematica.ik.damped import damped_steps

    rng = np.random.default_rng(rows * 10 + cols)
    for lam in (1e-3, 1.0):
        J, e = rng.normal(size=(rows, cols)), rng.normal(size=rows)
        dq = damped_step(J, e, lam)
        ref = np.linalg.solve(J.T @ J + lam * np.eye(cols), J.T @ e)  # = Jᵀ(JJᵀ + λI)⁻¹e
        # well conditioned (λ ≥ 1e-3, J random normal): agreement to rounding
        np.testing.assert_allclose(dq, ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(dq, damped_steps(J[..., None], e[:, None], np.array([lam]))[:, 0],
                                   rtol=1e-9, atol=1e-12)
    dq = damped_step(np.zeros((6, 6)), np.ones(6), 0.0)  # λ = 0 and J = 0: the floors keep it solvable
    assert dq is not None and not dq.any()
    assert damped_step(np.full((6, 6), np.nan), np.ones(6), 0.0) is None  # not PD: NumPy's least squares take it


def test_ik_with_history_runs_the_reference_loop_and_agrees_with_the_core():
    robot = km.load("puma560")
    rng = np.random.default_rng(9)
    Q = limit_rows(robot, rng)
    for T, q0 in zip(km.fk(robot, Q), Q[::-1]):
        fast = km.ik(robot, T, q0=q0, restarts=0)
        slow = km.ik(robot, T, q0=q0, history=True, restarts=0)  # the record: the NumPy loop's
        assert (fast.success, fast.reason) == (slow.success, slow.reason)
        assert len(slow.history) > 0 and fast.history is None


def test_batched_ik_compiled_solves_what_numpy_solves_and_claims_nothing_false():
    """The core's batch (a loop of the single solver) against the NumPy
    batch engine on targets on and inside the limits plus unreachable ones: the same verdicts
    (each solver's own random restarts differ, but every reachable target here is solved),
    each success confirmed by the reference FK, and the same answers again for the same seed."""
    for name in ("ur5", "panda"):
        robot = km.load(name)
        rng = np.random.default_rng(8)
        Q = np.vstack([limit_rows(robot, rng), limit_rows(robot, rng)])
        T = km.fk(robot, Q)
        T[-2:, :3, 3] = 10 * size(robot)  # out of reach
        seeds = limit_rows(robot, rng)[np.arange(len(T)) % 8]
        fast = km.ik(robot, T, q0=seeds, seed=3)
        with numpy_only():
            slow = km.ik(robot, T, q0=seeds, seed=3)
        assert np.array_equal(fast.success, slow.success) and fast.success[:-2].all()
        assert list(fast.reason[-2:]) == list(slow.reason[-2:])
        for q, Tt in zip(fast.q[fast.success], T[fast.success]):
            assert np.abs(reference.fk_space(robot, q)[:3, 3] - Tt[:3, 3]).max() < 1e-6 * size(robot)
        again = km.ik(robot, T, q0=seeds, seed=3)
        np.testing.assert_array_equal(again.q, fast.q)


@FAST
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(["m", "mm"]))
def test_a_helical_robot_takes_the_core_with_its_pitch(seed, unit):
    """The core's joint table carries a helical joint's pitch: IK's verdicts are those of
    the NumPy path on robots mixing the three kinds."""
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit)
    Q = rng.uniform(-3, 3, (4, robot.n))
    T = km.fk(robot, Q[2] * 0.9)
    fast = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)  # no restarts: no generators to differ
    with numpy_only():
        slow = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)
    assert fast.success == slow.success, (fast.reason, slow.reason)
    default = km.ik(robot, T, q0=Q[2])  # the default call: ik/fast.py's shortcut, limits wrapped
    for r in (fast, default):
        if r.success:  # held to the reference FK, not to the FK the solver used
            assert np.abs(reference.fk_space(robot, r.q)[:3, 3] - T[:3, 3]).max() < 1e-6 * size(robot)


@pytest.mark.parametrize("name", ["panda", "puma560"])
def test_one_answer_whatever_the_batch_and_the_threads(name):
    """The same inputs and seed give the same q bit for bit (the same code path, so equality is
    the claim): a single call, a batch of one, the target at another place in a larger batch,
    and the core's batch on 1, 2 and 3 threads. Targets the Panda needs restarts for are
    included (those draw from the core's generator, seeded per target)."""
    from kinematica.ik.lm_core import core_seed, solver
    from kinematica.ik.options import solver_options

    robot = km.load(name)
    rng = np.random.default_rng(21)
    Q = limit_rows(robot, rng)
    T = km.fk(robot, np.vstack([Q, Q[::-1] * 0.5]))
    seeds = rng.uniform(np.clip(robot.limits[:, 0], -3, 3), np.clip(robot.limits[:, 1], -3, 3), (len(T), robot.n))
    batch = km.ik(robot, T, seeds, seed=4)
    shuffled = np.roll(np.arange(len(T)), 5)
    other = km.ik(robot, T[shuffled], seeds[shuffled], seed=4)
    np.testing.assert_array_equal(other.q, batch.q[shuffled])
    for k in range(len(T)):
        one = km.ik(robot, T[k], seeds[k], seed=4)
        alone = km.ik(robot, T[k][None], seeds[k][None], seed=4)
        np.testing.assert_array_equal(one.q, batch.q[k])
        np.testing.assert_array_equal(alone.q[0], batch.q[k])
    sv = solver(robot, solver_options(robot, "lm", "wrap", {}), 1.0, True, True)
    T4, seeds4 = np.concatenate([T] * 4), np.concatenate([seeds] * 4)  # 64: a thread is worth >= 16
    runs = [sv.solve_many(T4, seeds4, 200, core_seed(4), threads) for threads in (1, 2, 3)]
    for q, _status, iters in runs[1:]:
        np.testing.assert_array_equal(q, runs[0][0])
        np.testing.assert_array_equal(iters, runs[0][2])
    np.testing.assert_array_equal(runs[0][0][:len(T)], runs[0][0][len(T):2 * len(T)])


def kind_targets(robot: km.Robot, q: np.ndarray) -> list:
    """Targets of every kind the robot can take, made from FK at q (so each is reachable)."""
    from kinematica.ik import target as tg

    T = km.fk(robot, q)
    if robot.name.startswith("planar"):
        phi = np.arctan2(T[1, 0], T[0, 0])
        return [tg.planar(T[:2, 3]), tg.planar(T[:2, 3], phi=phi)]
    out = [tg.position(T[:3, 3]), tg.approach(T[:3, 3], T[:3, 2]),
           tg.position(T[:3, 3], weights=[1, 1, 0, 0, 0, 0])]
    if robot.n >= 6:
        out += [tg.pose(T, weights=[1, 1, 1, 0.5, 0.5, 0.5]), tg.pose(T, weights=[1, 1, 1, 1, 1, 0])]
    return out


@pytest.mark.parametrize("name", ["puma560", "panda", "arm-5dof", "arm-4dof", "braccio", "planar-3r"])
def test_every_target_kind_gets_the_numpy_paths_verdicts(name):
    """Position, approach, planar (with and without the heading) and weighted targets run in the
    core too (src/core/residual.cpp): from near the answer with no restarts (the two paths'
    restarts draw from different generators), the core and the NumPy loop give the same verdict
    and, to the solver's tolerance, the same q; a claimed success holds under the reference FK."""
    robot = km.load(name)
    rng = np.random.default_rng(17)
    lo, hi = np.clip(robot.limits[:, 0], -3, 3), np.clip(robot.limits[:, 1], -3, 3)
    checked = 0
    for q in rng.uniform(lo, hi, (6, robot.n)):
        q0 = np.clip(q + 0.05, lo, hi)
        for t in kind_targets(robot, q):
            core = km.ik(robot, t, q0, restarts=0)
            with numpy_only():
                ref = km.ik(robot, t, q0, restarts=0)
            assert (core.success, core.within_limits) == (ref.success, ref.within_limits), (t.kind, core.reason, ref.reason)
            if core.success:
                checked += 1
                # both converged from the same seed by the same steps: the same solution, up to the
                # last iterations' rounding amplified by the conditioning (well inside the tolerance)
                np.testing.assert_allclose(core.q, ref.q, atol=1e-5)
                p = reference.fk_space(robot, core.q)[:3, 3]
                weights = t.weights if t.weights is not None else np.ones(6)
                dims = 2 if t.kind == "planar" else 3
                miss = (p - np.append(t.p.reshape(-1), 0.0)[:3])[:dims] * (weights[:dims] > 0)
                assert np.linalg.norm(miss) < default_tolerance(robot)  # what success promises
    assert checked >= 6


def test_a_cartesian_path_is_a_target():
    """km.ik takes a path from km.trajectory (its poses) as it takes the (k, 4, 4) array: it used
    to fail inside NumPy's conversion with a message about a (0, 4, 4) path."""
    kr6 = km.load("kuka-kr6-r900")
    path = km.trajectory.line(km.fk(kr6, np.zeros(6)), km.fk(kr6, np.radians([-90, 0, 0, 0, -90, 0])), steps=20)
    by_path, by_poses = km.ik(kr6, path), km.ik(kr6, path.poses)
    assert by_path.success.all()
    np.testing.assert_array_equal(by_path.q, by_poses.q)


def test_a_robot_that_solved_ik_still_pickles():
    """The core's objects (solvers, the closed form) live in the robot's cache, which a pickle
    leaves behind: a robot goes to Dask workers after any call (the closed form in the robot's
    memo made `workspace` on a cluster fail with "cannot pickle 'ClosedForm'")."""
    cloudpickle = pytest.importorskip("cloudpickle")  # Dask's serializer (a robot's extras are a mappingproxy)

    robot = km.load("puma560")
    T = km.fk(robot, np.full(6, 0.3))
    first = km.ik(robot, T)
    again = cloudpickle.loads(cloudpickle.dumps(robot))
    np.testing.assert_array_equal(km.ik(again, T).q, first.q)


# --- the reach test's distance ------------------------------------------------------------------
@FAST
@given(st.lists(st.floats(-1e308, 1e308, allow_nan=False), min_size=6, max_size=6), st.booleans())
def test_the_cores_reach_distance_is_the_numpy_references(xs, planar):
    # the core's hypot and the reference's scaled norm both round once or twice: a few ulp apart;
    # beyond the largest float both say inf (a far finite target is out of reach, not an overflow)
    from kinematica._core import reach_distances
    from kinematica.ik.reach import distance

    G = np.eye(4)
    G[:3, 3] = xs[:3]
    p1 = np.array(xs[3:])
    got = reach_distances(G, p1, planar)[0]
    d = G[:3, 3] - p1
    want = distance((d[:2] if planar else d)[None])[0]
    if np.isinf(want):
        assert np.isinf(got)
    else:
        assert got == pytest.approx(want, rel=4 * np.finfo(float).eps)
