"""One `km.ik` call in the compiled core: the closed forms in C++ (`_core.ClosedForm`, packed by
`ik.closed_pack`) against the NumPy solvers they port, the one-call solver (`ik.lm_core`: seed,
solve, verdict) and `km.ik`'s shortcut to it (`ik.fast`) against the general path, which must give
the same answer; and every input the shortcut declines still checked and refused in words."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica import spatial
from kinematica._core import singular_bound
from kinematica.errors import InputError
from kinematica.ik import solve as ik_solve
from kinematica.ik.analytic import analytic_candidates, solver_name
from kinematica.ik import closed
from kinematica.ik.closed import nearest_branches
from kinematica.ik import target as tg
from kinematica.ik.closed_pack import TARGET_KINDS, closed_form
from kinematica.ik.goals import goals
from kinematica.ik.fast import one_pose
from kinematica.ik.target import TargetError, pose
from kinematica.ik.tolerance import default_tolerance
from kinematica.ik.verdict import NEAR_SINGULAR, near_singular
from kinematica.kinematics import reference
from kinematica.model.library import robot_names
from strategies import FAST, robot_and_q
from reference_paths import numpy_only

CLOSED = [name for name in robot_names() if closed_form(km.load(name)) is not None]
GAP = 1e-9  # rad: compiled and NumPy branches agree to rounding, modulo 2π


def box(robot):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return lo, hi


def problems(robot, rng, count=40):
    """Targets from joint values inside the limits — some exactly on a limit, some with the
    wrist straight (θ5 = 0: a wrist singularity) — and seeds inside the limits."""
    lo, hi = box(robot)
    Q = rng.uniform(lo, hi, (count, robot.n))
    last = robot.n - 1  # (a planar 2R arm has no joint 3)
    Q[::4, 1], Q[1::5, min(2, last)], Q[2::6, 0] = lo[1], hi[min(2, last)], hi[0]
    if robot.n > 4:
        Q[3::7, 4] = 0.0
    return km.fk(robot, Q), rng.uniform(lo, hi, (count, robot.n))


def targets(robot, T):
    """Targets of every kind the robot's core closed form takes, from the poses T (N, 4, 4)."""
    form, out = closed_form(robot), []
    if form.fits(TARGET_KINDS["pose"], False):
        out.append(pose(T))
    if form.fits(TARGET_KINDS["approach"], False):
        out.append(tg.approach(T[:, :3, 3], T[:, :3, 2]))
    for phi in (True, False):
        if form.fits(TARGET_KINDS["planar"], phi):
            out.append(tg.planar(T[:, :2, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0]) if phi else None))
    assert out
    return out


def candidates(form, t, k, seed):
    """The core's branches of target k of t (N,) near seed."""
    return form.candidates(goals(t[np.array([k])])[0], TARGET_KINDS[t.kind], t.phi is not None, seed)


def gaps(a, b):
    return np.abs((a - b + np.pi) % (2 * np.pi) - np.pi)


def singular(robot, Q, t=None):
    """σ_min/σ_max of the Jacobian below 1e-3 at each configuration of Q (k, n): the rows target t
    constrains (a planar one: v_x, v_y and, with its heading, ω_z), else all six."""
    J = km.jacobian(robot, Q)
    if t is not None and t.kind == "planar":
        J = J[:, [0, 1, 5] if t.phi is not None else [0, 1]]
    s = np.linalg.svd(J, compute_uv=False)
    return s[:, -1] < NEAR_SINGULAR * s[:, 0]


def assert_candidates_agree(robot, T, seeds):
    """For every kind of target the core's closed form takes: each branch of ClosedForm.candidates
    equals analytic_candidates' (modulo 2π), with the same reachability — except at a singular
    pose (a straight wrist fixes only θ4 ± θ6, a straight elbow puts a square root at 0,
    amplifying rounding), where two reachable branches must still give the same pose (an
    unreachable one only points the arm towards the target)."""
    form = closed_form(robot)
    for t in targets(robot, T):
        Qn, reach_n, _ = analytic_candidates(robot, t, q_ref=seeds)
        for k in range(len(T)):
            Q, reach, _ = candidates(form, t, k, seeds[k])
            reach = np.array(reach)
            off = (gaps(Q, Qn[k]).max(axis=1) > GAP) | (reach != reach_n[k])  # (a reach test on its boundary too)
            if off.any():
                assert singular(robot, Qn[k][off], t).all(), (t.kind, k, np.flatnonzero(off))
                off &= reach & reach_n[k]
                # at a straight elbow the angle is arccos(1 − δ) with δ a rounding error (~ε):
                # off by up to √(2ε) ≈ 2e-8 rad, so the tool by that times the arm's reach
                size = 1.0 + float(np.abs(km.fk(robot, Qn[k][off])[:, :3, 3]).max(initial=0.0))
                np.testing.assert_allclose(km.fk(robot, Q[off]), km.fk(robot, Qn[k][off]),
                                           atol=10 * np.sqrt(2 * np.finfo(float).eps) * size)


@pytest.mark.parametrize("name", CLOSED)
def test_compiled_closed_forms_match_the_numpy_solvers_on_every_bundled_arm(name):
    robot = km.load(name)
    T, seeds = problems(robot, np.random.default_rng(1))
    assert_candidates_agree(robot, T, seeds)


@st.composite
def closed_form_arms(draw):
    """A random arm of each closed-form kind: a DH 6R arm with a spherical wrist or of UR type
    (random joint zeros, limits — some narrower than a turn, some wider — base and tool), a 5-DOF
    arm of papers 002/003 with a random base and tool, or a planar 2R/3R arm with random lengths
    and a base turned about z."""
    kind = draw(st.sampled_from(["6R", "6R", "5-DOF", "planar"]))
    th = draw(st.lists(st.floats(-np.pi, np.pi), min_size=6, max_size=6))
    if kind == "5-DOF":
        base = spatial.transl(np.array(th[:3]) * 0.02) @ spatial.rotz(th[3])
        tool = spatial.transl([0.0, 0.0, 0.02 * abs(th[4])])  # along the roll axis: approach targets fit
        return km.load(draw(st.sampled_from(["arm-5dof", "arm-5dof-geo"]))).replace(base=base, tool=tool)
    if kind == "planar":
        L = draw(st.lists(st.floats(0.05, 2.0), min_size=2, max_size=3))
        return km.from_planar(L, name="random-planar").replace(base=spatial.transl([th[0], th[1], 0.0]) @ spatial.rotz(th[2]))
    a2, a3, d3, d4, d6 = draw(st.lists(st.floats(0.05, 0.8), min_size=5, max_size=5))
    s = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=3, max_size=3))
    if draw(st.booleans()):  # spherical wrist (test_analytic's construction)
        rows = [{"alpha": s[0] * np.pi / 2, "a": 0.1 * a2, "d": 0.3}, {"a": a2},
                {"a": 0.2 * a3, "d": s[1] * d3 * 0.3, "alpha": -np.pi / 2}, {"d": d4, "alpha": s[2] * np.pi / 2},
                {"alpha": -np.pi / 2}, {"d": d6 * 0.2}]
    else:  # UR-type: axes 2–4 parallel, 5 ⟂ 4, 6 ⟂ 5
        rows = [{"alpha": np.pi / 2, "d": 0.1 * d3}, {"a": -a2}, {"a": -a3}, {"d": s[1] * 0.2 * d4, "alpha": np.pi / 2},
                {"d": 0.2 * d6, "alpha": -np.pi / 2}, {"d": 0.1 * a2}]
    width = draw(st.lists(st.floats(1.0, 4 * np.pi), min_size=6, max_size=6))
    lo = draw(st.lists(st.floats(-2 * np.pi, 0.0), min_size=6, max_size=6))
    for row, t, w, low in zip(rows, th, width, lo):
        row.update(theta=t, limits=[low, low + w])
    base = spatial.transl(np.array(th[:3]) * 0.1) @ spatial.rotz(th[3]) @ spatial.rotx(th[4])
    tool = spatial.homogeneous(spatial.rpy_to_matrix(th[3:]), np.array(th[:3]) * 0.05)
    return km.from_dh(rows, name="random-closed", base=base, tool=tool)


@settings(max_examples=30, deadline=None)
@given(closed_form_arms(), st.integers(0, 2 ** 31))
def test_compiled_closed_forms_match_the_numpy_solvers_on_random_arms(robot, seed):
    assert closed_form(robot) is not None
    T, seeds = problems(robot, np.random.default_rng(seed), 12)
    assert_candidates_agree(robot, T, seeds)
    form = closed_form(robot)
    for t in targets(robot, T):
        qn, found = nearest_branches(robot, t, seeds, True, checked=False)
        for k in range(len(T)):
            q, got = form.nearest(goals(t[np.array([k])])[0], TARGET_KINDS[t.kind], t.phi is not None, seeds[k], True)
            assert robot.within_limits(q) or not got
            d, dn = np.linalg.norm(gaps(q, seeds[k])), np.linalg.norm(gaps(qn[k], seeds[k]))
            if got != found[k] or (got and abs(d - dn) > 1e-7):  # not the same branch or one as near:
                picked = [x for x, f in ((q, got), (qn[k], found[k])) if f]  # only at a singular pose
                assert singular(robot, np.array(picked), t).any()


@pytest.mark.parametrize("name", ["puma560", "ur5", "kuka-kr6-r900", "panda", "arm-5dof"])
def test_the_shortcut_gives_the_general_paths_answer(name):
    """`ik.fast.one_pose` against `solve._ik` (the general path: Target, Options, Problem) on
    every limit mode, from home and from seeds: the same q, bit for bit, the same verdict
    (arm-5dof: its geometric closed form seeds both in the core). The shortcut would decline by
    design an arm whose free iteration starts from a closed form the core does not have."""
    from kinematica.ik.analytic import has_analytic
    from kinematica.ik.options import Call, limit_mode

    robot = km.load(name)
    T, seeds = problems(robot, np.random.default_rng(2), 16)
    numpy_seeded = closed_form(robot) is None and has_analytic(robot, "pose")
    taken = offered = 0
    for k in range(len(T)):
        for q0, limits in ((None, "auto"), (seeds[k], "auto"), (seeds[k], "wrap"), (seeds[k], "ignore")):
            by_design = numpy_seeded and limit_mode(limits, q0) != "clip"
            offered += not by_design
            fast = one_pose(robot, T[k], q0, limits, 200, 0)
            slow = ik_solve._ik(robot, T[k], q0, Call(limits=limits))
            if fast is None:
                assert by_design or not slow.success  # declined only what it does not solve
                continue
            taken += 1
            np.testing.assert_array_equal(fast.q, slow.q)
            for field in ("success", "reason", "iterations", "position_error", "orientation_error",
                          "within_limits", "near_singular", "reachable"):
                assert getattr(fast, field) == getattr(slow, field), field
    assert offered > 0 and taken >= 0.9 * offered


@pytest.mark.parametrize("name", CLOSED)
def test_one_analytic_call_compiled_gives_the_numpy_paths_answer(name):
    """km.ik(method="analytic") for one target takes the core's closed form
    are loaded (every branch, FK-checked): the NumPy path's branch (to rounding, modulo 2π)
    and verdict, in every limit mode — at a singular pose (where the two forms round apart)
    the same verdict and an equally good answer."""
    robot = km.load(name)
    T, seeds = problems(robot, np.random.default_rng(5), 24)
    T[-1, :2, 3] += 10 * robot_size(robot)  # out of reach (in a planar arm's plane too): refused alike
    t = targets(robot, T[:1])[0]  # (a planar arm's km.ik solves a pose as (x, y, φ))
    assert closed._one_compiled(robot, t, seeds[:1]) is not None  # the compiled path runs
    for k in range(len(T)):
        for q0, limits in ((seeds[k], "auto"), (seeds[k], "ignore"), (None, "wrap")):
            fast = km.ik(robot, T[k], q0, method="analytic", limits=limits)
            with numpy_only():
                slow = km.ik(robot, T[k], q0, method="analytic", limits=limits)
            for field in ("success", "within_limits", "reachable"):
                assert getattr(fast, field) == getattr(slow, field), (k, field)
            if gaps(fast.q, slow.q).max() > GAP:
                assert singular(robot, np.array([fast.q, slow.q])).any(), k
                assert fast.success == slow.success and fast.reason.split(" (")[0] == slow.reason.split(" (")[0]
                continue
            assert fast.branch == slow.branch and fast.reason == slow.reason and fast.near_singular == slow.near_singular
            assert abs(fast.position_error - slow.position_error) < 1e-9 * (1 + robot_size(robot))
            assert abs(fast.orientation_error - slow.orientation_error) < 1e-9


def robot_size(robot) -> float:
    return float(np.abs(robot.C[:, :3, 3]).sum())


def test_a_batch_of_one_is_a_single_call():
    """Compiled, a batch runs the single solver target by target from the same generator:
    a batch of one gives the single call's answer (Panda: no closed form, restarts taken)."""
    robot = km.load("panda")
    T, seeds = problems(robot, np.random.default_rng(4), 12)
    for k in range(len(T)):
        for limits in ("wrap", "clip"):
            one = km.ik(robot, T[k], seeds[k], limits=limits, seed=7)
            batch = km.ik(robot, T[k][None], seeds[k][None], limits=limits, seed=7)
            np.testing.assert_array_equal(batch.q[0], one.q)
            assert batch.iterations[0] == one.iterations and batch.success[0] == one.success


def test_the_singularity_flag_is_the_svds():
    """The kernel clears σ_min/σ_max ≥ 1e-3 by a bound and leaves the rest to the SVD: the
    flag equals `verdict.near_singular` at singular, nearly singular and regular poses."""
    robot = km.load("puma560")
    rng = np.random.default_rng(6)
    Q = rng.uniform(*box(robot), (30, 6))
    Q[::3, 4] = 0.0  # wrist singular
    Q[1::3, 4] = rng.choice([1e-4, 1e-3, 3e-3, 1e-2], 10)  # near it, on both sides of 1e-3
    for q in Q:
        r = km.ik(robot, km.fk(robot, q), q, limits="wrap")
        assert r.success
        assert r.near_singular == near_singular(robot, pose(km.fk(robot, q))[None], r.q[None])[0]


@pytest.mark.parametrize("rows,cols", [(6, 6), (6, 7), (6, 5)])
def test_the_singularity_bound_never_clears_a_near_singular_jacobian(rows, cols):
    rng = np.random.default_rng(rows * cols)
    for scale in (1.0, 1e-2, 1e-3, 1e-4, 0.0):
        for _ in range(20):
            J = rng.normal(size=(rows, cols))
            U, s, Vt = np.linalg.svd(J, full_matrices=False)
            s[-1] *= scale
            J = (U * s) @ Vt
            sv = np.linalg.svd(J, compute_uv=False)
            if singular_bound(J) < 1.0 / NEAR_SINGULAR ** 2:
                assert sv[-1] >= NEAR_SINGULAR * sv[0]


def test_inputs_the_shortcut_declines_are_still_checked():
    robot = km.load("puma560")
    T = km.fk(robot, np.full(6, 0.3))
    assert one_pose(robot, T, [0.3] * 6, "auto", 200, 0) is None  # a list: the general path's
    assert km.ik(robot, T, [0.3] * 6).success
    bad = T.copy()
    bad[0, 3] = np.nan
    with pytest.raises(TargetError):
        km.ik(robot, bad)
    bad = T.copy()
    bad[:3, :3] *= 2
    with pytest.raises(TargetError):
        km.ik(robot, bad)
    with pytest.raises(InputError):
        km.ik(robot, T, np.zeros(5))
    with pytest.raises(InputError):
        km.ik(robot, T, np.full(6, np.inf))
    with pytest.raises(InputError):
        km.ik(robot, T, limits="tight")
    with pytest.raises(InputError):
        km.ik(robot, T, restarts=-1)
    far = T.copy()
    far[:3, 3] = 100.0
    r = km.ik(robot, far)
    assert not r.success and r.reason.startswith("target out of reach")


def words(reason: str) -> str:
    """A reason with its numbers masked: the two paths' last digits may differ (0° or 3e-16°)."""
    return re.sub(r"-?[0-9][0-9.]*(e[-+]?[0-9]+)?", "#", reason)


def same_verdict(robot, T, q0, **kw):
    """km.ik in the core and on the NumPy reference path: the same verdict, and a claimed
    success confirmed by the reference FK (the product of exponentials)."""
    fast = km.ik(robot, T, q0, **kw)
    with numpy_only():
        slow = km.ik(robot, T, q0, **kw)
    assert (fast.success, fast.near_singular) == (slow.success, slow.near_singular)
    assert words(fast.reason) == words(slow.reason)
    if fast.success:  # what success promises: the default tolerance (1e-6 m, 1e-3 mm)
        assert np.linalg.norm(reference.fk_space(robot, fast.q)[:3, 3] - T[:3, 3]) < default_tolerance(robot)


@pytest.mark.parametrize("name", robot_names())
def test_every_bundled_robot_gets_the_numpy_paths_verdicts(name):
    """From home and from near the answer, targets on the limits included; spatial arms take
    the shortcut, planar ones the general path."""
    robot = km.load(name)
    lo, hi = box(robot)
    Q = np.random.default_rng(12).uniform(lo, hi, (6, robot.n))
    Q[0], Q[1] = lo, hi
    for T, q in zip(km.fk(robot, Q), Q):
        same_verdict(robot, T, None)
        same_verdict(robot, T, np.clip(q + 0.05, lo, hi))


@FAST
@given(robot_and_q())
def test_random_robots_get_the_numpy_paths_verdicts(rq):
    """Random DH/MDH chains of 1–8 joints, revolute and prismatic: from near the answer with
    no restarts (the two paths' random restarts draw from different generators)."""
    robot, q = rq
    same_verdict(robot, km.fk(robot, q), np.clip(q + 0.02, robot.limits[:, 0], robot.limits[:, 1]), restarts=0)

