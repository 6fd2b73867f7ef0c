"""The compiled (Numba) IK kernels against the equations and against the NumPy code they replace:
IK run both ways for its verdicts, the pose error, the damped step, the limit tests. The kernels
load once for the module (compiled on a machine's first run, cached on disk after that). FK, the
Jacobians, RNE and the mass matrix are the C++ core's (tests/test_core.py), whatever the policy.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica import compiled
from kinematica.kinematics import reference
from strategies import FAST
from test_helical import random_helical_robot

# FK/J agree to 1e-12 relative to the robot's size: every entry is a sum of products of unit
# rotations and lengths up to the robot's reach, each step rounding at ~1e-16 of it.
REL = 1e-12


def size(robot: km.Robot) -> float:
    """An upper bound on the robot's lengths: 1 + the sum of its constant translations."""
    return 1.0 + float(np.abs(robot.C[:, :3, 3]).sum())


@contextlib.contextmanager
def policy(setting: str):
    """Run the block with compiled.mode() == setting, then put the previous policy back."""
    before = compiled.mode()
    compiled.use_compiled(setting, wait=False)
    try:
        yield
    finally:
        compiled.use_compiled(before, wait=False)


pytestmark = pytest.mark.usefixtures("kernels_loaded")  # conftest: the Numba kernels, loaded once a module


def limit_rows(robot: km.Robot, rng: np.random.Generator) -> np.ndarray:
    """Random configurations plus the two with every joint exactly on a limit (±2π for an
    unlimited joint)."""
    lim = np.clip(robot.limits, -2 * np.pi, 2 * np.pi)
    return np.vstack([lim[:, 0] + rng.random((6, robot.n)) * (lim[:, 1] - lim[:, 0]), lim.T])


def test_ik_verdicts_are_the_same_compiled_and_not():
    """The compiled LM loop (lm_kernel.attempt) against single.attempt in NumPy: same verdicts
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
            with policy("never"):
                slow = km.ik(robot, T, q0=q0)
            assert (fast.success, fast.reason) == (slow.success, slow.reason)
            if fast.success:  # judged by the independent reference FK
                err = reference.fk_space(robot, fast.q)[:3, 3] - T[:3, 3]
                assert np.abs(err).max() < 1e-6 * size(robot)


def test_without_numba_the_numpy_code_runs_after_one_warning():
    code = textwrap.dedent("""
        import json, sys, warnings
        sys.modules["numba"] = None  # `import numba` now raises ImportError, as if not installed
        import numpy as np, kinematica as km
        from kinematica import compiled
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ok = compiled.use_compiled("always")
            r = km.load("puma560")
            T = km.fk(r, np.full(6, 0.3)); J = km.jacobian(r, np.full(6, 0.3))
            tau = km.rne(r, np.full(6, 0.3), np.zeros(6), np.zeros(6))
        print(json.dumps({"ok": ok, "warnings": [str(w.message) for w in caught],
                          "T": T.tolist(), "J": J.tolist(), "tau": tau.tolist()}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ok"] is False
    assert len(got["warnings"]) == 1 and "compiled kernels unavailable" in got["warnings"][0]
    robot, q = km.load("puma560"), np.full(6, 0.3)  # FK, J and RNE: the C++ core, Numba or not
    np.testing.assert_allclose(got["T"], reference.fk_space(robot, q), atol=REL * size(robot))
    np.testing.assert_allclose(got["J"], reference.jacobian_geometric(robot, q), atol=REL * size(robot))
    tau = km.gravity_torques(robot, q)  # the traced programs
    np.testing.assert_allclose(got["tau"], tau, rtol=1e-11, atol=1e-11)


def test_auto_loads_the_kernels_in_the_background_only_after_many_single_calls():
    code = textwrap.dedent("""
        import json, sys
        import numpy as np, kinematica as km
        from kinematica import compiled
        r, q = km.load("puma560"), np.zeros(6)
        for i in range(3 * compiled.HOT_CALLS):  # the C++ core: no count, no Numba
            km.fk(r, q), km.jacobian(r, q), km.rne(r, q, q, q), km.mass_matrix(r, q)
        for i in range(compiled.HOT_CALLS - 1):
            compiled.kernels("ik")  # what each iteration of a single IK call asks
        before = "numba" in sys.modules
        assert compiled.kernels("ik") is None  # the HOT_CALLS-th: starts the load, NumPy answers
        loaded = compiled.wait_loaded(600)
        print(json.dumps({"before": before, "loaded": loaded, "compiled": compiled.ready("ik") is not None,
                          "mode": compiled.mode()}))
    """)
    env = {k: v for k, v in __import__("os").environ.items() if k != "KINEMATICA_COMPILED"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"before": False, "loaded": True, "compiled": True, "mode": "auto"}


def test_auto_load_leaves_the_callers_warning_filters_alone():
    """Numba's compiler and the imports of its load enter `warnings.catch_warnings`, which swaps
    the process-wide filters and record sink: from a second thread that undid a caller's own
    block (example-robot-data's recorded OffChainBodiesWarning went missing). Every change to
    the filters must come from the caller's thread, and a warning issued in the caller's
    block while auto loads must be recorded."""
    code = textwrap.dedent("""
        import json, threading, warnings
        import numpy as np, kinematica as km
        from kinematica import compiled
        others, mutated = set(), warnings._filters_mutated
        def spy():
            if threading.current_thread() is not threading.main_thread():
                others.add(threading.current_thread().name)
            mutated()
        warnings._filters_mutated = spy  # what catch_warnings, simplefilter and filterwarnings call
        r = km.load("puma560")
        T = km.fk(r, np.full(6, 0.3))
        missed = 0
        for i in range(compiled.HOT_CALLS + 200):  # each IK call counts at least once
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                km.ik(r, T)
                if i % 50 == 0:
                    warnings.warn("the caller's own", UserWarning)
                    missed += not any("the caller's own" in str(w.message) for w in caught)
        loaded = compiled.wait_loaded(600)
        print(json.dumps({"loaded": loaded, "other threads": sorted(others), "missed": missed}))
    """)
    env = {k: v for k, v in __import__("os").environ.items() if k != "KINEMATICA_COMPILED"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"loaded": True, "other threads": [], "missed": 0}


def test_compiled_pose_error_matches_the_numpy_pose_error_also_near_a_half_turn():
    from kinematica.ik import lm_kernel
    from kinematica.ik.pose_error import pose_error, pose_error_one
    from kinematica.kinematics.cache import chain_arrays

    robot = km.load("ur5")
    C, joints = chain_arrays(robot)
    rng = np.random.default_rng(2)
    for q in limit_rows(robot, rng):
        T0 = km.fk(robot, q)
        for angle in (0.0, 1e-9, 0.7, np.pi - 1e-3, np.pi - 0.1, np.pi):  # about a random axis
            a = rng.normal(size=3)
            a /= np.linalg.norm(a)
            K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            Rd = (np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K) @ T0[:3, :3]
            pd = T0[:3, 3] + rng.normal(size=3)
            e, T, J = np.empty(6), np.empty((4, 4)), np.empty((6, robot.n))
            E, pos, ori = lm_kernel.pose_error(C, joints, q, pd, Rd, e, T, J)
            e_ref, pos_ref, ori_ref = pose_error(pd[:, None], Rd[..., None], T0[:3, None, :])
            e_one, E_one, pos_one, ori_one = pose_error_one(pd, Rd, T)  # the same function, compiled
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
    from kinematica.ik import lm_kernel
    from kinematica.ik.damped import damped_steps

    rng = np.random.default_rng(rows * 10 + cols)
    for lam in (1e-3, 1.0):
        J, e = rng.normal(size=(rows, cols)), rng.normal(size=rows)
        dq = np.empty(cols)
        assert lm_kernel.damped_step(J, e, lam, dq)
        ref = np.linalg.solve(J.T @ J + lam * np.eye(cols), J.T @ e)  # = Jᵀ(JJᵀ + λI)⁻¹e
        # well conditioned (λ ≥ 1e-3, J random normal): agreement to rounding
        np.testing.assert_allclose(dq, ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(dq, damped_steps(J[..., None], e[:, None], np.array([lam]))[:, 0],
                                   rtol=1e-9, atol=1e-12)
    dq = np.empty(6)  # λ = 0 and J = 0: the floors keep it solvable, as in ik/damped.py
    assert lm_kernel.damped_step(np.zeros((6, 6)), np.ones(6), 0.0, dq) and not dq.any()
    assert not lm_kernel.damped_step(np.full((6, 6), np.nan), np.ones(6), 0.0, dq)  # not PD: NumPy takes it


@pytest.mark.parametrize("name", ["puma560", "panda"])
def test_compiled_wrap_and_outside_match_the_batch_forms(name):
    from kinematica.ik import lm_kernel
    from kinematica.ik.limits import MARGIN, outside_by, wrap_inside
    from kinematica.model.robot import LIMIT_TOL

    robot = km.load(name)
    rng = np.random.default_rng(11)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    q = lo + (hi - lo) * rng.uniform(-0.6, 1.6, (300, robot.n)) + 2 * np.pi * rng.integers(-2, 3, (300, robot.n))
    qw, inside = wrap_inside(robot, q.T)
    far = outside_by(robot, q.T, MARGIN)
    out, scratch = np.empty(robot.n), np.empty(robot.n)
    for k in range(len(q)):
        assert lm_kernel._wrapped(q[k], lo, hi, robot.wraps, LIMIT_TOL, out) == inside[k]
        assert out.tolist() == qw[:, k].tolist()
        assert lm_kernel._outside(q[k], lo, hi, robot.wraps, MARGIN, LIMIT_TOL, scratch) == far[k]
    assert far.any() and not far.all()


def test_ik_with_history_takes_the_compiled_pose_error_and_keeps_its_record():
    robot = km.load("puma560")
    rng = np.random.default_rng(9)
    Q = limit_rows(robot, rng)
    for T, q0 in zip(km.fk(robot, Q), Q[::-1]):
        fast = km.ik(robot, T, q0=q0, history=True, restarts=0)
        with policy("never"):
            slow = km.ik(robot, T, q0=q0, history=True, restarts=0)
        assert (fast.success, fast.reason) == (slow.success, slow.reason)
        assert len(fast.history) > 0 and len(slow.history) > 0
        # the first entries start from the same q0 and errors: equal to rounding
        assert abs(fast.history[0]["error"] - slow.history[0]["error"]) <= 1e-9 * (1 + slow.history[0]["error"])


def test_batched_ik_compiled_solves_what_numpy_solves_and_claims_nothing_false():
    """The compiled batch (lm_kernel.solve_many: a loop of the single solver) against the NumPy
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
        with policy("never"):
            slow = km.ik(robot, T, q0=seeds, seed=3)
        assert np.array_equal(fast.success, slow.success) and fast.success[:-2].all()
        assert list(fast.reason[-2:]) == list(slow.reason[-2:])
        for q, Tt in zip(fast.q[fast.success], T[fast.success]):
            assert np.abs(reference.fk_space(robot, q)[:3, 3] - Tt[:3, 3]).max() < 1e-6 * size(robot)
        again = km.ik(robot, T, q0=seeds, seed=3)
        np.testing.assert_array_equal(again.q, fast.q)


@FAST
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(["m", "mm"]))
def test_a_helical_robot_takes_the_kernels_with_its_pitch(seed, unit):
    """The IK kernels' joint table carries a helical joint's pitch: IK's verdicts are those of
    the NumPy path on robots mixing the three kinds."""
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit)
    Q = rng.uniform(-3, 3, (4, robot.n))
    T = km.fk(robot, Q[2] * 0.9)
    fast = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)  # no restarts: no generators to differ
    with policy("never"):
        slow = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)
    assert fast.success == slow.success, (fast.reason, slow.reason)
    default = km.ik(robot, T, q0=Q[2])  # the default call: ik/fast.py's shortcut, limits wrapped
    for r in (fast, default):
        if r.success:  # held to the reference FK, not to the FK the solver used
            assert np.abs(reference.fk_space(robot, r.q)[:3, 3] - T[:3, 3]).max() < 1e-6 * size(robot)
