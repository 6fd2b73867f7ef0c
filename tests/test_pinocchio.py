"""Pinocchio as an independent oracle for forward kinematics, link frames and Jacobians.

Two Pinocchio models are built for a robot:

- from its canonical chain (`pin_from_chain`): joint i sits at base·B1 (i = 1) or A(i−1)·Bi in
  the previous joint's frame, turns about (RZ) or slides along (PZ) its z axis, link frame i is
  a frame at Ai on joint i and the tool a frame at An·tool; Pinocchio's joint value is q + offset.
  This checks the kinematics pass (chain.py, fk.py, jacobian.py) for every kind of robot.
- from the DH / modified-DH table itself (`pin_from_table`), written out from the textbook
  conventions, which also checks the builders.

Tolerance: 1e-12 absolute, scaled by the robot's size for robots in mm.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica import spatial
from strategies import FAST, dh_rows, rigid_transforms

pin = pytest.importorskip("pinocchio")

NAMES = km.robot_names()
DH_KINDS = ("dh", "mdh")


# --- building the oracle ------------------------------------------------------------------
def _se3(T: np.ndarray):
    return pin.SE3(np.array(T[:3, :3]), np.array(T[:3, 3]))


class PinRobot:
    """A Pinocchio model with frames "base", "link1".."linkn", "tool" and the q shift."""

    def __init__(self, model, q_shift: np.ndarray):
        self.model, self.data, self.q_shift = model, model.createData(), q_shift
        self.frames = [model.getFrameId(nm) for nm in
                       ["base"] + [f"link{i + 1}" for i in range(model.nq)] + ["tool"]]

    def _update(self, q):
        pin.framesForwardKinematics(self.model, self.data, np.asarray(q, float) + self.q_shift)

    def fk(self, q) -> np.ndarray:
        self._update(q)
        return self.data.oMf[self.frames[-1]].homogeneous

    def fk_frames(self, q) -> np.ndarray:
        self._update(q)
        return np.stack([self.data.oMf[f].homogeneous for f in self.frames])

    def jacobian(self, q, frame: str) -> np.ndarray:
        ref = pin.LOCAL_WORLD_ALIGNED if frame == "base" else pin.LOCAL
        J = pin.computeFrameJacobian(self.model, self.data, np.asarray(q, float) + self.q_shift,
                                     self.frames[-1], ref)
        return np.asarray(J).reshape(6, self.model.nv)  # a one-joint Jacobian comes back as (6,)


def _pin_model(joint_placements, types, link_placements, base, tool_placement) -> "pin.Model":
    model = pin.Model()
    model.addFrame(pin.Frame("base", 0, _se3(base), pin.FrameType.OP_FRAME))
    parent = 0
    for i, (M, jt, L) in enumerate(zip(joint_placements, types, link_placements)):
        jmodel = pin.JointModelRZ() if jt == "revolute" else pin.JointModelPZ()
        parent = model.addJoint(parent, jmodel, _se3(M), f"joint{i + 1}")
        model.addFrame(pin.Frame(f"link{i + 1}", parent, _se3(L), pin.FrameType.OP_FRAME))
    model.addFrame(pin.Frame("tool", parent, _se3(tool_placement), pin.FrameType.OP_FRAME))
    return model


def pin_from_chain(robot: km.Robot) -> PinRobot:
    n = robot.n
    placements = [robot.base @ robot.before[0]] + [robot.after[i - 1] @ robot.before[i] for i in range(1, n)]
    model = _pin_model(placements, robot.joint_types, list(robot.after), robot.base,
                       robot.after[-1] @ robot.tool)
    return PinRobot(model, np.asarray(robot.offsets))


def _rot(axis: int, angle: float) -> np.ndarray:
    """4x4 rotation about x (0) or z (2), written out here so the oracle needs nothing of km."""
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), None, (0, 1)][axis]
    T = np.eye(4)
    T[i, i], T[i, j], T[j, i], T[j, j] = c, -s, s, c
    return T


def _shift(axis: int, length: float) -> np.ndarray:
    T = np.eye(4)
    T[axis, 3] = length
    return T


def pin_from_table(rows, modified: bool, base=None, tool=None, deg: bool = False,
                   types=None) -> PinRobot:
    """Pinocchio model straight from DH rows (dicts with theta, d, a, alpha, type).

    Standard DH: A_i = Rz(θ_i) Tz(d_i) Tx(a_i) Rx(α_i); modified: Rx(α_{i−1}) Tx(a_{i−1}) Rz(θ_i) Tz(d_i).
    The joint variable adds to θ_i (revolute) or d_i (prismatic); Rz and Tz commute, so the
    constant one of the two is moved behind the joint.
    """
    conv = np.radians if deg else (lambda x: x)
    base = np.eye(4) if base is None else np.asarray(base, float)
    tool = np.eye(4) if tool is None else np.asarray(tool, float)
    types = [r.get("type", "revolute") for r in rows] if types is None else types
    theta = [conv(float(r.get("theta", 0))) for r in rows]
    d = [float(r.get("d", 0)) for r in rows]
    a = [float(r.get("a", 0)) for r in rows]
    alpha = [conv(float(r.get("alpha", 0))) for r in rows]
    shift = np.array([theta[i] if t == "revolute" else d[i] for i, t in enumerate(types)])
    # the constant part of each joint's screw: Tz(d) for a revolute joint, Rz(θ) for a prismatic one
    fixed = [_shift(2, d[i]) if t == "revolute" else _rot(2, theta[i]) for i, t in enumerate(types)]
    n = len(rows)
    if modified:
        pre = [_rot(0, alpha[i]) @ _shift(0, a[i]) for i in range(n)]
        placements = [base @ pre[0]] + [fixed[i - 1] @ pre[i] for i in range(1, n)]
        links = fixed
    else:
        links = [fixed[i] @ _shift(0, a[i]) @ _rot(0, alpha[i]) for i in range(n)]
        placements = [base] + links[:-1]
    return PinRobot(_pin_model(placements, types, links, base, links[-1] @ tool), shift)


def pin_from_robot_table(robot: km.Robot) -> PinRobot:
    t = robot.table
    return pin_from_table(t.as_dicts(), t.kind == "mdh", robot.base, robot.tool,
                          deg=t.angle_unit == "deg", types=list(robot.joint_types))


# --- comparison ---------------------------------------------------------------------------
def size(robot: km.Robot) -> float:
    """A length scale of the robot: the sum of its constant translations (≥ 1)."""
    T = np.concatenate([robot.before, robot.after, robot.base[None], robot.tool[None]])
    return max(1.0, float(np.linalg.norm(T[:, :3, 3], axis=-1).sum()))


def assert_matches(robot: km.Robot, oracle: PinRobot, Q: np.ndarray, tol: float = 1e-12) -> None:
    """km's batched and single-configuration results equal the oracle for every row of Q."""
    atol = tol * size(robot)
    T, F = km.fk(robot, Q), km.fk_frames(robot, Q)
    Jb, Jt = km.jacobian(robot, Q, frame="base"), km.jacobian(robot, Q, frame="tool")
    T2, J2 = km.fk_jacobian(robot, Q)
    flat = Q.reshape(-1, robot.n)
    T, F = T.reshape(-1, 4, 4), F.reshape(-1, robot.n + 2, 4, 4)
    Jb, Jt = Jb.reshape(-1, 6, robot.n), Jt.reshape(-1, 6, robot.n)
    assert np.allclose(T2.reshape(-1, 4, 4), T, rtol=0, atol=atol)
    assert np.allclose(J2.reshape(-1, 6, robot.n), Jb, rtol=0, atol=atol)
    for k, q in enumerate(flat):
        np.testing.assert_allclose(T[k], oracle.fk(q), rtol=0, atol=atol, err_msg=f"fk, q = {q}")
        np.testing.assert_allclose(F[k], oracle.fk_frames(q), rtol=0, atol=atol, err_msg=f"frames, q = {q}")
        np.testing.assert_allclose(Jb[k], oracle.jacobian(q, "base"), rtol=0, atol=atol,
                                   err_msg=f"base Jacobian, q = {q}")
        np.testing.assert_allclose(Jt[k], oracle.jacobian(q, "tool"), rtol=0, atol=atol,
                                   err_msg=f"tool Jacobian, q = {q}")


def assert_single_equals_batch(robot: km.Robot, Q: np.ndarray, tol: float = 1e-12) -> None:
    """One configuration at a time, small stacks and the batch pass agree."""
    atol = tol * size(robot)
    T, F, J = km.fk(robot, Q), km.fk_frames(robot, Q), km.jacobian(robot, Q)
    Jt = km.jacobian(robot, Q, frame="tool")
    for k in range(len(Q)):
        np.testing.assert_allclose(km.fk(robot, Q[k]), T[k], rtol=0, atol=atol)
        np.testing.assert_allclose(km.fk_frames(robot, Q[k]), F[k], rtol=0, atol=atol)
        np.testing.assert_allclose(km.jacobian(robot, Q[k]), J[k], rtol=0, atol=atol)
        np.testing.assert_allclose(km.jacobian(robot, Q[k], frame="tool"), Jt[k], rtol=0, atol=atol)
    np.testing.assert_allclose(km.fk(robot, Q[:3]), T[:3], rtol=0, atol=atol)  # small-stack path
    np.testing.assert_allclose(km.jacobian(robot, Q[:2]), J[:2], rtol=0, atol=atol)
    shaped = Q[:36].reshape(4, 9, robot.n)
    np.testing.assert_allclose(km.fk(robot, shaped), T[:36].reshape(4, 9, 4, 4), rtol=0, atol=atol)
    np.testing.assert_allclose(km.jacobian(robot, shaped), J[:36].reshape(4, 9, 6, robot.n), rtol=0, atol=atol)


def wide_q(robot: km.Robot, rng: np.random.Generator, count: int) -> np.ndarray:
    """Configurations inside finite limits, else revolute in ±2π and prismatic in ±size."""
    scale = np.where(robot.revolute, 2 * np.pi, 0.5 * size(robot))
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -scale)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], scale)
    return lo + rng.random((count, robot.n)) * (hi - lo)


# --- the bundled robots ---------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_matches_pinocchio_chain(name):
    robot = km.load(name)
    Q = np.vstack([robot.q_home, np.zeros(robot.n), wide_q(robot, np.random.default_rng(7), 37)])
    assert_matches(robot, pin_from_chain(robot), Q)


@pytest.mark.parametrize("name", [nm for nm in NAMES if km.load(nm).table.kind in DH_KINDS])
def test_bundled_dh_robot_matches_pinocchio_from_its_table(name):
    robot = km.load(name)
    Q = wide_q(robot, np.random.default_rng(8), 37)
    assert_matches(robot, pin_from_robot_table(robot), Q)


@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_single_equals_batch(name):
    robot = km.load(name)
    assert_single_equals_batch(robot, wide_q(robot, np.random.default_rng(9), 37))


def test_oracle_is_not_trivially_satisfied():
    """The comparison notices a wrong model (a guard against a vacuous oracle)."""
    robot = km.load("puma560")
    wrong = robot.replace(offsets=robot.offsets + [0, 0, 1e-6, 0, 0, 0])
    with pytest.raises(AssertionError):
        assert_matches(wrong, pin_from_robot_table(robot), np.zeros((1, 6)))


# --- random DH and modified-DH robots -------------------------------------------------------
@st.composite
def dh_cases(draw):
    rows = draw(dh_rows())
    base, tool = draw(rigid_transforms()), draw(rigid_transforms())
    seed = draw(st.integers(0, 2**32 - 1))
    return rows, base, tool, seed


def _random_case(rows, base, tool, seed, modified):
    build = km.from_mdh if modified else km.from_dh
    robot = build(rows, base=base, tool=tool, name="random")
    rng = np.random.default_rng(seed)
    Q = wide_q(robot.replace(limits=np.tile([-np.inf, np.inf], (robot.n, 1))), rng, 37)
    return robot, Q


@FAST
@given(dh_cases())
def test_random_dh_robot_matches_pinocchio(case):
    rows, base, tool, seed = case
    robot, Q = _random_case(rows, base, tool, seed, modified=False)
    assert_matches(robot, pin_from_table(rows, False, base, tool), Q)
    assert_matches(robot, pin_from_chain(robot), Q[:5])
    assert_single_equals_batch(robot, Q)


@FAST
@given(dh_cases())
def test_random_mdh_robot_matches_pinocchio(case):
    rows, base, tool, seed = case
    robot, Q = _random_case(rows, base, tool, seed, modified=True)
    assert_matches(robot, pin_from_table(rows, True, base, tool), Q)
    assert_matches(robot, pin_from_chain(robot), Q[:5])
    assert_single_equals_batch(robot, Q)


def test_prismatic_chain_matches_pinocchio():
    """A fixed mixed chain in mm with several prismatic joints (not left to chance)."""
    rows = [{"type": "prismatic", "theta": 30, "d": 100, "a": 20, "alpha": 90},
            {"type": "revolute", "theta": -45, "d": 50, "a": 300, "alpha": 0},
            {"type": "prismatic", "theta": 0, "d": -20, "a": 0, "alpha": -90},
            {"type": "revolute", "theta": 10, "d": 0, "a": 0, "alpha": 90},
            {"type": "prismatic", "theta": 90, "d": 5, "a": 40, "alpha": 0}]
    base = spatial.homogeneous(spatial.rpy_to_matrix([0.1, -0.2, 0.3]), [10, -20, 30])
    tool = spatial.homogeneous(spatial.rpy_to_matrix([-0.5, 0.4, 1.0]), [0, 5, 60])
    rng = np.random.default_rng(10)
    for modified in (False, True):
        build = km.from_mdh if modified else km.from_dh
        robot = build(rows, base=base, tool=tool, length_unit="mm", deg=True)
        Q = np.column_stack([rng.uniform(-200, 200, 37), rng.uniform(-7, 7, 37), rng.uniform(-200, 200, 37),
                             rng.uniform(-7, 7, 37), rng.uniform(-200, 200, 37)])
        assert_matches(robot, pin_from_table(rows, modified, base, tool, deg=True), Q)
        assert_single_equals_batch(robot, Q)
