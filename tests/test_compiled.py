"""The compiled (Numba) kernels against the equations and against the NumPy code they replace.

Oracles: `kinematics.reference` (the product of exponentials, Modern Robotics' FKinSpace and
JacobianSpace, read off the chain's constants without the fast paths' code) for FK and the
Jacobian; the traced Newton–Euler programs (themselves checked against Pinocchio in
test_pinocchio.py) for RNE; IK run both ways for its verdicts. The kernels load once for the
module (compiled on a machine's first run, cached on disk after that).
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
from kinematica.errors import InputError
from kinematica.kinematics import reference
from kinematica.kinematics.cache import cache_of
from kinematica.model.library import robot_names
from strategies import FAST, robot_and_q
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


def assert_matches_reference(robot: km.Robot, Q: np.ndarray) -> None:
    tol = REL * size(robot)
    T_all, J_all = km.fk(robot, Q), km.jacobian(robot, Q)  # batched (a loop of the kernel)
    for q, T_b, J_b in zip(Q, T_all, J_all):
        T_ref, J_ref = reference.fk_space(robot, q), reference.jacobian_geometric(robot, q)
        for T in (km.fk(robot, q), T_b):
            np.testing.assert_allclose(T, T_ref, rtol=0, atol=tol)
        for J in (km.jacobian(robot, q), J_b):
            np.testing.assert_allclose(J, J_ref, rtol=0, atol=tol)


@pytest.mark.parametrize("name", robot_names())
def test_compiled_fk_and_jacobian_match_the_equations_on_every_bundled_robot(name):
    robot = km.load(name)
    assert_matches_reference(robot, limit_rows(robot, np.random.default_rng(7)))
    assert cache_of(robot).chain is not None  # the kernels' constants: the compiled path ran


@FAST
@given(robot_and_q(shape=(3,)))
def test_compiled_fk_and_jacobian_match_the_equations_on_random_robots(rq):
    robot, Q = rq
    assert_matches_reference(robot, Q)


@FAST
@given(robot_and_q(shape=(6,)))
def test_compiled_and_numpy_paths_agree(rq):
    robot, Q = rq
    tol = REL * size(robot)
    fast = [km.fk(robot, Q), km.jacobian(robot, Q), km.fk(robot, Q[0]), km.jacobian(robot, Q[0])]
    with policy("never"):
        slow = [km.fk(robot, Q), km.jacobian(robot, Q), km.fk(robot, Q[0]), km.jacobian(robot, Q[0])]
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=0, atol=tol)


URDF = """<robot name="slider-arm">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.2 0 0" rpy="0.3 0.2 0.1"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.5" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="tip"/>
    <origin xyz="0 0.1 0.05" rpy="0 1.2 0"/><axis xyz="0 1 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
</robot>"""


def test_robots_built_at_run_time_use_the_compiled_path(tmp_path):
    from kinematica.app.robotedit import build, form_from_robot  # the simulator's Robot tab, without a page

    rng = np.random.default_rng(3)
    path = tmp_path / "copy.yaml"
    km.save(km.load("kuka-kr6-r900"), path)
    form = form_from_robot(km.load("ur5"))
    form.rows[1]["a"] = "-0.5"  # an upper arm 75 mm longer, typed into the table
    edited = build(form)
    assert edited.C[2][0, 3] == -0.5
    for robot in (km.load(path), km.from_urdf(URDF), edited,
                  km.from_dh([{"a": 0.4, "alpha": 1.2, "d": 0.1}, {"type": "prismatic", "a": 0.2, "theta": 0.3,
                                                                    "limits": [0, 1]}])):
        assert cache_of(robot).chain is None
        assert_matches_reference(robot, limit_rows(robot, rng))
        assert cache_of(robot).chain is not None


def test_a_configuration_with_nan_or_inf_is_refused_and_huge_finite_values_are_not():
    robot = km.load("puma560")
    for f in (km.fk, km.jacobian):
        with pytest.raises(InputError, match="q: contains NaN or infinity"):
            f(robot, [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(InputError, match="qd: contains NaN or infinity"):
        km.rne(robot, np.zeros(6), [0, 0, 0, 0, 0, np.inf], np.zeros(6))
    q = np.full(6, 1e308)  # each value finite (their sum is not): a pose, not an error
    assert np.isfinite(km.fk(robot, q)).all()
    ref = reference.fk_space(robot, q)
    assert np.isfinite(ref).all()


def test_the_float_array_fast_paths_keep_every_input_check():
    """fk, jacobian and rne take float64 arrays of shape (n,) straight to the kernels (issue 12:
    the Python around a ~1 µs kernel); NaN, infinity and wrong shapes must still be the clear
    errors of the general path, and the answers those of the reference equations."""
    robot = km.load("puma560")
    q = np.array([0.1, -0.4, 0.3, 0.9, -0.6, 0.2])
    km.rne(robot, q, q, q)  # fills the rne cache: the calls below take the fast path
    np.testing.assert_allclose(km.fk(robot, q), reference.fk_space(robot, q), atol=REL * size(robot))
    np.testing.assert_allclose(km.jacobian(robot, q), reference.jacobian_geometric(robot, q), atol=REL * size(robot))
    np.testing.assert_allclose(km.rne(robot, q, q, q), traced_rne(robot, q, q, q, km.dynamics.params.GRAVITY, None),
                               rtol=1e-11, atol=1e-11)
    for bad in (np.nan, np.inf, -np.inf):
        b = q.copy()
        b[3] = bad
        for f in (km.fk, km.jacobian):
            with pytest.raises(InputError, match="q: contains NaN or infinity"):
                f(robot, b)
        for args, what in (((b, q, q), "q"), ((q, b, q), "qd"), ((q, q, b), "qdd")):
            with pytest.raises(InputError, match=f"^{what}: contains NaN or infinity"):
                km.rne(robot, *args)
    for f in (km.fk, km.jacobian):
        with pytest.raises(InputError, match=r"expected 6 joint values .* got shape \(5,\)"):
            f(robot, q[:5])
    with pytest.raises(InputError, match=r"qdd: expected 6 joint values .* got shape \(5,\)"):
        km.rne(robot, q, q, q[:5])
    assert km.fk(robot, np.stack([q, q])).shape == (2, 4, 4)  # a batch: the general path


def traced_rne(robot, q, qd, qdd, gravity, wrench):
    with policy("never"):
        return km.rne(robot, q, qd, qdd, gravity=gravity, wrench=wrench)


@pytest.mark.parametrize("name", [n for n in robot_names() if km.load(n).has_inertials])
def test_compiled_rne_matches_the_traced_programs(name):
    robot = km.load(name)
    rng = np.random.default_rng(11)
    for q in limit_rows(robot, rng):
        qd, qdd = rng.normal(size=(2, robot.n))
        for gravity, wrench in ((km.dynamics.params.GRAVITY, None), (rng.normal(size=3) * 9, rng.normal(size=6))):
            tau = km.rne(robot, q, qd, qdd, gravity=gravity, wrench=wrench)
            ref = traced_rne(robot, q, qd, qdd, gravity, wrench)
            # the same formulas, summed in the same order up to constant folding: rounding only
            np.testing.assert_allclose(tau, ref, rtol=1e-11, atol=1e-11 * (1.0 + np.abs(ref).max()))
    assert cache_of(robot).rne is not None  # the kernel's packed constants: the compiled path ran


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
    robot, q = km.load("puma560"), np.full(6, 0.3)
    np.testing.assert_allclose(got["T"], reference.fk_space(robot, q), atol=REL * size(robot))
    np.testing.assert_allclose(got["J"], reference.jacobian_geometric(robot, q), atol=REL * size(robot))
    tau = traced_rne(robot, q, np.zeros(6), np.zeros(6), km.dynamics.params.GRAVITY, None)
    np.testing.assert_allclose(got["tau"], tau, rtol=1e-11, atol=1e-11)


def test_auto_loads_the_kernels_in_the_background_only_after_many_single_calls():
    code = textwrap.dedent("""
        import json, sys
        import numpy as np, kinematica as km
        from kinematica import compiled
        from kinematica.kinematics.cache import cache_of
        r, q = km.load("puma560"), np.zeros(6)
        for i in range(compiled.HOT_CALLS - 1):
            km.fk(r, q)
        before = "numba" in sys.modules or cache_of(r).chain is not None
        km.fk(r, q)  # the HOT_CALLS-th: starts the load, answered by NumPy
        loaded = compiled.wait_loaded(600)
        km.fk(r, q)
        print(json.dumps({"before": before, "loaded": loaded, "compiled": cache_of(r).chain is not None,
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
        r, q = km.load("puma560"), np.zeros(6)
        missed = 0
        for i in range(compiled.HOT_CALLS + 4000):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                km.fk(r, q)
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


def with_random_dynamics(robot: km.Robot, rng: np.random.Generator) -> km.Robot:
    """The robot with random inertials (lengths in its unit), friction and armature."""
    from kinematica.model.inertial import Inertial

    unit = 1000.0 if robot.length_unit == "mm" else 1.0
    inert = []
    for _ in range(robot.n):
        A = rng.normal(size=(3, 3))
        inertia = (A @ A.T + 0.1 * np.eye(3)) * unit ** 2
        inert.append(Inertial(rng.uniform(0.1, 3), rng.normal(size=3) * 0.2 * unit, inertia))
    extras = dict(robot.extras)
    extras["drives"] = {k: rng.uniform(0, 1, robot.n).tolist() for k in ("viscous", "coulomb", "armature")}
    return robot.replace(inertials=tuple(inert), extras=extras)


@FAST
@given(robot_and_q(), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_compiled_rne_matches_the_traced_programs_on_random_robots(rq, seed, mm):
    """Revolute and prismatic joints (the bundled robots have no prismatic one), friction and
    armature, a tool wrench, robots in m and in mm (prismatic rates scaled to SI)."""
    robot, q = rq
    if mm:  # the same numbers read as mm
        robot = robot.replace(length_unit="mm")
    rng = np.random.default_rng(seed)
    robot = with_random_dynamics(robot, rng)
    q = np.clip(q, *robot.limits.T)
    qd, qdd = rng.normal(size=(2, robot.n))
    gravity, wrench = rng.normal(size=3) * 9, rng.normal(size=6)
    tau = km.rne(robot, q, qd, qdd, gravity=gravity, wrench=wrench)
    ref = traced_rne(robot, q, qd, qdd, gravity, wrench)
    np.testing.assert_allclose(tau, ref, rtol=1e-10, atol=1e-10 * (1.0 + np.abs(ref).max()))
    assert cache_of(robot).rne is not None


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
    """The kernels' joint table carries a helical joint's pitch: FK and the Jacobian match the
    product of exponentials (whose screw has the pitch in its linear part), RNE the traced
    programs, and IK's verdicts those of the NumPy path, on robots mixing the three kinds."""
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit)
    Q = rng.uniform(-3, 3, (4, robot.n))
    assert_matches_reference(robot, Q)
    for q in Q[:2]:
        qd, qdd = rng.normal(size=(2, robot.n))
        ref = traced_rne(robot, q, qd, qdd, km.dynamics.params.GRAVITY, None)
        np.testing.assert_allclose(km.rne(robot, q, qd, qdd), ref, rtol=1e-11, atol=1e-11 * (1.0 + np.abs(ref).max()))
    assert cache_of(robot).chain is not None and cache_of(robot).rne is not None  # the compiled paths ran
    T = km.fk(robot, Q[2] * 0.9)
    fast = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)  # no restarts: no generators to differ
    with policy("never"):
        slow = km.ik(robot, T, q0=Q[2], limits="ignore", restarts=0)
    assert fast.success == slow.success, (fast.reason, slow.reason)
    default = km.ik(robot, T, q0=Q[2])  # the default call: ik/fast.py's shortcut, limits wrapped
    for r in (fast, default):
        if r.success:  # held to the reference FK, not to the FK the solver used
            assert np.abs(reference.fk_space(robot, r.q)[:3, 3] - T[:3, 3]).max() < 1e-6 * size(robot)
