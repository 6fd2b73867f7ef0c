"""The compiled core (`kinematica._core`, C++17) against the equations written out in NumPy and
plain Python: FK and every frame, the geometric/tool/space/body Jacobians (kinematics/reference.py,
*Modern Robotics*' product of exponentials), RNE (dynamics/newton_euler.py on floats) and the
mass matrix (dynamics/crba.py on floats) — on every bundled robot and on random DH, modified-DH,
link-frame, product-of-exponentials and helical chains. A batch runs the single-state code in a
loop, so a state's answer is the same bit for bit whatever batch it comes in.
Tolerances: 1e-12 of the robot's size (its longest constant translation) for poses and
Jacobians, 1e-12 of the largest term for torques and inertias — rounding of two different
orders of the same arithmetic, far below any modelling error.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica.dynamics import crba
from kinematica.dynamics.local import local
from kinematica.dynamics.newton_euler import newton_euler
from kinematica.dynamics.programs import friction_single
from kinematica.errors import InputError
from kinematica.kinematics import reference
from kinematica.model.library import robot_names
from kinematica.model.inertial import Inertial
from strategies import FAST, dh_robots, rigid_transforms
from test_helical import random_helical_robot

BUNDLED = robot_names()


def size(robot: km.Robot) -> float:
    """The robot's length scale: its longest constant translation (at least 1)."""
    return max(1.0, float(np.abs(robot.C[:, :3, 3]).max()))


def random_q(robot: km.Robot, rng: np.random.Generator, shape: tuple[int, ...] = ()) -> np.ndarray:
    """Uniform joint values inside the limits, an unlimited joint within ±π or ± the robot's size."""
    reach = np.where(robot.revolute, np.pi, size(robot))
    lo, hi = np.maximum(robot.limits[:, 0], -reach), np.minimum(robot.limits[:, 1], reach)
    return lo + rng.random(shape + (robot.n,)) * (hi - lo)


def frames_reference(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """base, base·B1·J1·A1, …, · tool: the link frames as products of 4x4 matrices."""
    out, T = [robot.base], robot.base
    for i in range(robot.n):
        theta = q[i] + robot.offsets[i]
        Jm = np.eye(4)
        if robot.revolute[i]:
            c, s = np.cos(theta), np.sin(theta)
            Jm[:2, :2] = [[c, -s], [s, c]]
            Jm[2, 3] = robot.pitch[i] * theta
        else:
            Jm[2, 3] = theta
        T = T @ robot.before[i] @ Jm @ robot.after[i]
        out.append(T)
    out.append(T @ robot.tool)
    return np.array(out)


def jacobians_reference(robot: km.Robot, q: np.ndarray) -> dict[str, np.ndarray]:
    """Every frame's Jacobian from *Modern Robotics*' J_s (reference.py)."""
    T = reference.fk_space(robot, q)
    Jg = reference.jacobian_geometric(robot, q)
    R = T[:3, :3]
    tool = np.vstack([R.T @ Jg[:3], R.T @ Jg[3:]])
    return {"base": Jg, "tool": tool, "space": reference.jacobian_space(robot, q),
            "body": tool[[3, 4, 5, 0, 1, 2]]}


def check_kinematics(robot: km.Robot, q: np.ndarray) -> None:
    tol = 1e-12 * size(robot)
    T = km.fk(robot, q)
    np.testing.assert_allclose(T, reference.fk_space(robot, q), rtol=0, atol=tol)
    np.testing.assert_allclose(km.fk_frames(robot, q), frames_reference(robot, q), rtol=0, atol=tol)
    for frame, J in jacobians_reference(robot, q).items():
        np.testing.assert_allclose(km.jacobian(robot, q, frame=frame), J, rtol=0, atol=tol, err_msg=frame)
        T2, J2 = km.fk_jacobian(robot, q, frame=frame)
        assert np.array_equal(T2, T) and np.array_equal(J2, km.jacobian(robot, q, frame=frame))


def geometry(L, q: np.ndarray) -> list:
    """The joint geometry the float recursions take: (c, s), (c, s, d) or d per joint (SI)."""
    out = []
    for qi, off, rev, s, k in zip(q.tolist(), L.offsets, L.revolute, L.scale, L.pitch):
        if rev:
            th = qi + off
            out.append((np.cos(th), np.sin(th)) + ((k * th,) if k else ()))
        else:
            out.append(qi * s + off)
    return out


def rne_reference(robot, q, qd, qdd, g, wrench) -> np.ndarray:
    L = local(robot)
    si = np.array(L.scale)
    w = None if wrench is None else (tuple(wrench[:3]), tuple(wrench[3:]))
    tau = np.array(newton_euler(L, geometry(L, q), (qd * si).tolist(), (qdd * si).tolist(), list(g), w))
    return tau + np.array(friction_single(L, qd.tolist(), qdd.tolist())) if L.rough else tau


def check_dynamics(robot: km.Robot, rng: np.random.Generator) -> None:
    q, qd, qdd = (random_q(robot, rng) for _ in range(3))
    g, wrench = rng.normal(size=3) * 10, rng.normal(size=6)
    for w in (None, wrench):
        ref = rne_reference(robot, q, qd, qdd, g, w)
        got = km.rne(robot, q, qd, qdd, gravity=g, wrench=w)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * (1 + np.abs(ref).max()))
    ref = rne_reference(robot, q, qd, qdd, km.dynamics.GRAVITY, None)
    np.testing.assert_allclose(km.rne(robot, q, qd, qdd), ref, rtol=0, atol=1e-12 * (1 + np.abs(ref).max()))
    L = local(robot)
    M_ref = np.array(crba.mass_matrix(L, geometry(L, q)))
    M = km.mass_matrix(robot, q)
    np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-12 * (1 + np.abs(M_ref).max()))
    assert np.array_equal(M, M.T)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_robot_matches_the_equations(name):
    robot = km.load(name)
    rng = np.random.default_rng(len(name))
    for _ in range(3):
        check_kinematics(robot, random_q(robot, rng))
    if robot.has_inertials:
        check_dynamics(robot, rng)


def with_inertials(robot: km.Robot, rng: np.random.Generator) -> km.Robot:
    """The robot with random links (mass, centre of mass, a positive definite inertia)."""
    L = size(robot)
    links = []
    for _ in range(robot.n):
        A = rng.normal(size=(3, 3))
        links.append(Inertial(rng.uniform(0.1, 5), rng.normal(size=3) * 0.3 * L, (A @ A.T + np.eye(3)) * L * L))
    return robot.replace(inertials=tuple(links))


@FAST
@given(dh_robots(), st.integers(0, 2**32 - 1))
def test_random_dh_and_modified_dh_chains_match_the_equations(robot, seed):
    rng = np.random.default_rng(seed)
    check_kinematics(robot, random_q(robot, rng))
    check_dynamics(with_inertials(robot, rng), rng)


@st.composite
def link_frame_robots(draw) -> km.Robot:
    """Random link-frame chains (URDF-like): random placements and unit axes, some helical."""
    n = draw(st.integers(1, 7))
    rows = []
    for _ in range(n):
        T = draw(rigid_transforms())
        axis = np.array(draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3)))
        axis = axis / np.linalg.norm(axis) if np.linalg.norm(axis) > 0.1 else np.array([0.0, 0.0, 1.0])
        kind = draw(st.sampled_from(["revolute", "prismatic", "helical"]))
        row = {"xyz": T[:3, 3].tolist(), "rotation": T[:3, :3].tolist(), "axis": axis.tolist(),
               "type": "revolute" if kind == "helical" else kind}
        if kind == "helical":
            row["pitch"] = draw(st.floats(-0.3, 0.3).filter(lambda h: abs(h) > 1e-3))
        rows.append(row)
    return km.from_link_frames(rows, base=draw(rigid_transforms()), tool=draw(rigid_transforms()))


@FAST
@given(link_frame_robots(), st.integers(0, 2**32 - 1))
def test_random_link_frame_chains_match_the_equations(robot, seed):
    rng = np.random.default_rng(seed)
    check_kinematics(robot, random_q(robot, rng))
    check_dynamics(with_inertials(robot, rng), rng)


@FAST
@given(st.integers(0, 2**32 - 1), st.sampled_from(["m", "mm"]))
def test_random_helical_chains_match_the_equations(seed, unit):
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit, n=int(rng.integers(1, 8)))
    check_kinematics(robot, random_q(robot, rng))
    check_dynamics(robot, rng)


@FAST
@given(st.integers(0, 2**32 - 1))
def test_random_product_of_exponentials_chains_match_the_equations(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    screws = []
    for _ in range(n):
        w = rng.normal(size=3)
        w /= np.linalg.norm(w)
        p = rng.normal(size=3)
        kind = rng.integers(3)
        screws.append([0, 0, 0, *w] if kind == 0 else [*w, *(-np.cross(w, p) + (rng.uniform(-0.3, 0.3) if kind == 2 else 0) * w)])
    M = km.spatial.homogeneous(km.spatial.rpy_to_matrix(rng.normal(size=3)), rng.normal(size=3))
    robot = km.from_poe(M, screws)
    check_kinematics(robot, random_q(robot, rng))
    check_dynamics(with_inertials(robot, rng), rng)


def with_random_dynamics(robot: km.Robot, rng: np.random.Generator) -> km.Robot:
    """`with_inertials` plus random viscous and Coulomb friction and armature."""
    extras = dict(robot.extras)
    extras["drives"] = {k: rng.uniform(0, 1, robot.n).tolist() for k in ("viscous", "coulomb", "armature")}
    return with_inertials(robot, rng).replace(extras=extras)


@FAST
@given(dh_robots(), st.integers(0, 2**32 - 1), st.booleans())
def test_friction_armature_and_millimetres_match_the_equations(robot, seed, mm):
    """Prismatic rates scaled to SI for a robot in mm, friction and armature on top of RNE."""
    rng = np.random.default_rng(seed)
    if mm:  # the same numbers read as mm
        robot = robot.replace(length_unit="mm")
    check_dynamics(with_random_dynamics(robot, rng), rng)


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


def test_robots_built_at_run_time_get_their_own_handle(tmp_path):
    from kinematica.app.robotedit import build, form_from_robot  # the simulator's Robot tab, without a page
    from kinematica.kinematics.cache import cache_of

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
        assert cache_of(robot).core is None
        check_kinematics(robot, random_q(robot, rng))
        assert cache_of(robot).core is not None


def test_huge_finite_joint_values_are_answered_not_refused():
    robot = km.load("puma560")
    q = np.full(6, 1e308)  # each value finite (their sum is not): a pose, not an error
    assert np.isfinite(km.fk(robot, q)).all() and np.isfinite(km.jacobian(robot, q)).all()
    assert np.isfinite(reference.fk_space(robot, q)).all()


# --- one answer: a single call, a batch of one and batches of any size --------------------------
@pytest.mark.parametrize("name", ["puma560", "panda", "helical"])
def test_a_state_gets_the_same_bits_in_any_batch(name):
    # "helical": revolute, prismatic and helical joints in mm, with inertials
    robot = random_helical_robot(np.random.default_rng(1), "mm", n=6) if name == "helical" else km.load(name)
    rng = np.random.default_rng(3)
    Q = random_q(robot, rng, (600,))  # past the size from which a batch runs without the GIL
    QD, QDD = rng.normal(size=(2, 600, robot.n))
    calls = {"fk": lambda q, qd, qdd: km.fk(robot, q),
             "frames": lambda q, qd, qdd: km.fk_frames(robot, q),
             "fk_jacobian": lambda q, qd, qdd: np.concatenate([x.reshape(q.shape[:-1] + (-1,)) for x in
                                                               km.fk_jacobian(robot, q, "space")], axis=-1)}
    for frame in ("base", "tool", "space", "body"):
        calls["jacobian " + frame] = lambda q, qd, qdd, frame=frame: km.jacobian(robot, q, frame)
    if robot.has_inertials:
        calls["rne"] = lambda q, qd, qdd: km.rne(robot, q, qd, qdd)
        calls["mass"] = lambda q, qd, qdd: km.mass_matrix(robot, q)
    for what, f in calls.items():
        whole = f(Q, QD, QDD)
        for k in (0, 17, 599):
            single = f(Q[k], QD[k], QDD[k])
            assert np.array_equal(single, whole[k]), what
            assert np.array_equal(f(Q[k:k + 1], QD[k:k + 1], QDD[k:k + 1])[0], single), what
            assert np.array_equal(f(Q[k:k + 7], QD[k:k + 7], QDD[k:k + 7])[0], single), what
        grid = f(Q.reshape(20, 30, -1), QD.reshape(20, 30, -1), QDD.reshape(20, 30, -1))
        assert np.array_equal(grid.reshape(whole.shape), whole), what


def test_a_state_gets_its_bits_in_any_lane_thread_and_wrench_layout():
    # batches run 8 (FK, J) or 4 (RNE) states side by side in vector lanes, split over threads
    # past 4 096 states; a state's answer must not depend on its lane, its block being the short
    # last one, or the thread it ran on, nor on the wrench being one for all or one per state
    robot = km.load("kuka-kr6-r900")
    rng = np.random.default_rng(11)
    N = 9003  # two threads' worth, and a short last block of 3
    Q = random_q(robot, rng, (N,))
    QD, QDD = rng.normal(size=(2, N, robot.n))
    wrenches = rng.normal(size=(N, 6))
    T, J = km.fk(robot, Q), km.jacobian(robot, Q, "body")
    per_state, shared = km.rne(robot, Q, QD, QDD, wrench=wrenches), km.rne(robot, Q, QD, QDD, wrench=wrenches[0])
    for k in (0, 1, 3, 4, 7, 4500, 4501, 9000, 9002):
        assert np.array_equal(T[k], km.fk(robot, Q[k])), k
        assert np.array_equal(J[k], km.jacobian(robot, Q[k], "body")), k
        assert np.array_equal(per_state[k], km.rne(robot, Q[k], QD[k], QDD[k], wrench=wrenches[k])), k
        assert np.array_equal(shared[k], km.rne(robot, Q[k], QD[k], QDD[k], wrench=wrenches[0])), k


def test_any_float_layout_gives_the_contiguous_answer():
    robot = km.load("puma560")
    Q = random_q(robot, np.random.default_rng(0), (50,))
    F = np.asfortranarray(Q)
    R = Q.copy()
    R.setflags(write=False)
    for q in (F, R, Q[::2], Q.tolist(), Q.astype(np.float32).astype(float)):
        want = km.fk(robot, np.ascontiguousarray(q))
        assert np.array_equal(km.fk(robot, q), want)
        assert np.array_equal(km.jacobian(robot, q), km.jacobian(robot, np.ascontiguousarray(q)))
        assert np.array_equal(km.mass_matrix(robot, q), km.mass_matrix(robot, np.ascontiguousarray(q)))
    assert km.fk(robot, np.zeros((0, 6))).shape == (0, 4, 4)


# --- bad input: the project's words, whichever path a call takes ----------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_infinity_are_named_on_every_path(bad):
    robot = km.load("puma560")
    q = np.full(6, 0.1)
    Q = np.full((40, 6), 0.1)
    for x in (q, Q):
        y = x.copy()
        y[..., 2] = bad
        for f in (km.fk, km.jacobian, km.fk_jacobian, km.fk_frames, km.mass_matrix):
            with pytest.raises(InputError, match="q: contains NaN or infinity"):
                f(robot, y)
        with pytest.raises(InputError, match="^q: contains NaN"):
            km.rne(robot, y, x, x)
        for what in ("qd", "qdd"):
            args = {"q": x, "qd": x, "qdd": x, what: y}
            with pytest.raises(InputError, match=f"^{what}: contains NaN"):
                km.rne(robot, args["q"], args["qd"], args["qdd"])
        w = np.zeros(6)
        w[4] = bad
        with pytest.raises(InputError, match="wrench: contains NaN"):
            km.rne(robot, x, x, x, wrench=w)
        with pytest.raises(InputError, match="gravity: contains NaN"):
            km.rne(robot, x, x, x, gravity=[0, 0, bad])


def test_wrong_shapes_are_input_errors():
    robot = km.load("puma560")
    for q in (np.zeros(5), np.zeros((3, 7)), np.float64(1.0), "abc"):
        for f in (km.fk, km.jacobian, km.fk_frames, km.mass_matrix):
            with pytest.raises(InputError, match="q: expected"):
                f(robot, q)
    with pytest.raises(InputError, match="frame must be one of"):
        km.jacobian(robot, np.zeros(6), frame="world")
    with pytest.raises(InputError, match="qd: expected"):
        km.rne(robot, np.zeros(6), np.zeros(5), np.zeros(6))


def test_the_core_loads_at_the_first_call_never_at_import():
    code = ("import sys, kinematica as km; assert 'kinematica._core' not in sys.modules; "
            "km.fk(km.load('puma560'), [0.0] * 6); assert 'kinematica._core' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
