"""MJCF robots (`km.from_mjcf`, `km.load("arm.xml")`) against MuJoCo's own forward kinematics
and inverse dynamics on the same file.

tests/data/arm.mjcf.xml is written to hold every feature a reader must get right: euler, quat
and axis-angle orientations in degrees, a fixed pedestal before the first joint, a body with
two joints with their own anchors, a hinge and a slide with nonzero `ref` (qpos0), a tilted
axis, jointless bodies welded on, a site as the tool, and a finger on an off-chain slide.
Tolerances: both sides compose ≤ 12 rigid transforms of unit size, so they agree to ~1e-15;
1e-12 (FK) and 1e-10 relative (torques of a few N·m) catch any wrong frame or inertial.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import kinematica as km

mujoco = pytest.importorskip("mujoco")

ARM = Path(__file__).parent / "data" / "arm.mjcf.xml"


def load_arm():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.OffChainBodiesWarning)
        return km.from_mjcf(ARM, tip="tool")


def mj(q: np.ndarray):
    """MuJoCo's model and data at q for the six chain joints, the finger at its qpos0."""
    m = mujoco.MjModel.from_xml_path(str(ARM))
    # rigid-body dynamics only: the capsules touch in some poses, and contact and limit forces
    # would join MuJoCo's inverse dynamics
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    d.qpos[:6] = q
    return m, d


def random_q(rng, robot):
    lo, hi = robot.limits.T
    return rng.uniform(np.maximum(lo, -2), np.minimum(hi, 2))


def test_fk_matches_mujoco_at_the_tool_site():
    robot = load_arm()
    assert robot.joint_names == ("j1", "j2", "j3", "j4", "j5", "j6")
    assert list(robot.revolute) == [True, True, True, True, False, True]
    rng = np.random.default_rng(0)
    for _ in range(30):
        q = random_q(rng, robot)
        m, d = mj(q)
        mujoco.mj_kinematics(m, d)
        s = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "tool")
        T = km.fk(robot, q)
        np.testing.assert_allclose(T[:3, 3], d.site_xpos[s], atol=1e-12)
        np.testing.assert_allclose(T[:3, :3], d.site_xmat[s].reshape(3, 3), atol=1e-12)


def test_limits_come_in_radians_and_metres():
    robot = load_arm()
    np.testing.assert_allclose(robot.limits[0], np.radians([-170, 170]), atol=1e-12)
    np.testing.assert_allclose(robot.limits[4], [-0.05, 0.1], atol=1e-12)


def test_inverse_dynamics_match_mujoco_with_the_finger_riding_along():
    with pytest.warns(km.OffChainBodiesWarning, match="finger"):
        robot = km.from_mjcf(ARM, tip="tool")
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = random_q(rng, robot)
        qd, qdd = rng.uniform(-1, 1, (2, 6))
        m, d = mj(q)
        d.qvel[:6], d.qacc[:6] = qd, qdd
        mujoco.mj_inverse(m, d)
        tau = km.rne(robot, q, qd, qdd, gravity=m.opt.gravity)
        np.testing.assert_allclose(tau, d.qfrc_inverse[:6], atol=1e-10 * max(1.0, np.abs(tau).max()))


def test_load_by_path_and_the_cli(capsys):
    from cli_run import run_json

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.OffChainBodiesWarning)
        robot = km.load(ARM, tip="tool")
    assert robot.n == 6
    data = run_json(capsys, "fk", "--tip", "tool", str(ARM), *["0"] * 6)
    np.testing.assert_allclose(data["T"], km.fk(robot, np.zeros(6)), atol=1e-12)


def test_branches_ball_joints_and_bad_files_are_refused_in_words(tmp_path):
    with pytest.raises(km.MJCFError, match="branches"):  # the finger is a second leaf
        km.from_mjcf(ARM)
    with pytest.raises(km.MJCFError, match="no body or site named 'nose'"):
        km.from_mjcf(ARM, tip="nose")
    ball = "<mujoco><worldbody><body><joint type='ball'/><geom size='.1'/></body></worldbody></mujoco>"
    with pytest.raises(km.MJCFError, match="ball joint"):
        km.from_mjcf(ball)
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><joint type='hinge' axis='0 0'/></body></worldbody></mujoco>")
    with pytest.raises(km.MJCFError, match="MuJoCo refused it"):
        km.load(bad)
    with pytest.raises(km.MJCFError, match="no such MJCF file"):
        km.from_mjcf(tmp_path / "missing.xml")
    with pytest.raises(ValueError, match="holds them at qpos0"):
        km.load(ARM, hold={"finger": 0.01})


REACHER = Path(__file__).parent / "data" / "reacher_armature.mjcf.xml"


def test_armature_and_damping_enter_the_dynamics_as_mujoco_has_them():
    """gymnasium's reacher.xml gave 0.0011 N·m on joint 1 where mj_inverse gives 1.0011 (its
    armature 1 times q̈ = 1 was dropped). The file here has reacher's shape, armature on both
    joints and damping; RNE and M must match MuJoCo's mj_inverse / mj_fullM, and forward
    dynamics its mj_forward. Torques ~1 N·m from a dozen products: 1e-10 relative is generous."""
    robot = km.from_mjcf(REACHER, tip="fingertip")
    np.testing.assert_allclose(robot.extras["drives"]["armature"], [1.0, 0.5])
    np.testing.assert_allclose(robot.extras["drives"]["viscous"], [1.0, 0.2])
    m = mujoco.MjModel.from_xml_path(str(REACHER))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(3)
    states = [([.3, -.5], [0, 0], [1, 0])] + [tuple(rng.uniform(-2, 2, (3, 2))) for _ in range(10)]
    for q, qd, qdd in states:
        d.qpos[:], d.qvel[:], d.qacc[:] = q, qd, qdd
        mujoco.mj_inverse(m, d)
        tau = km.rne(robot, q, qd, qdd, gravity=m.opt.gravity)
        scale = max(1.0, np.abs(d.qfrc_inverse).max())
        np.testing.assert_allclose(tau, d.qfrc_inverse, rtol=0, atol=1e-10 * scale)
        M = np.zeros((2, 2))
        mujoco.mj_fullM(m, M, d.qM) if hasattr(d, "qM") else mujoco.mj_fullM(m, d, M)
        np.testing.assert_allclose(km.mass_matrix(robot, q), M, rtol=0, atol=1e-12)
        d.qfrc_applied[:] = tau
        mujoco.mj_forward(m, d)
        np.testing.assert_allclose(km.forward_dynamics(robot, q, qd, tau, gravity=m.opt.gravity), d.qacc,
                                   rtol=0, atol=1e-9 * max(1.0, np.abs(d.qacc).max()))
    assert km.rne(robot, [.3, -.5], [0, 0], [1, 0], gravity=m.opt.gravity)[0] == pytest.approx(1.0011, abs=1e-4)


def test_what_the_dynamics_leave_out_is_said_per_attribute():
    """frictionloss is read (as Coulomb friction) but MuJoCo's law differs; springs, gravity
    compensation and fluid forces are not modelled: each is named, none passes silently."""
    xml = REACHER.read_text().replace('damping="0.2"', 'damping="0.2" frictionloss="0.1" stiffness="3"')
    xml = xml.replace('<body name="body1"', '<body name="body1" gravcomp="1"').replace(
        '<option ', '<option density="1.2" ')
    with pytest.warns(km.model.MJCFWarning) as said:
        robot = km.from_mjcf(xml, tip="fingertip")
    text = " | ".join(str(w.message) for w in said)
    for word in ("frictionloss of joint 'joint1'", "stiffness", "gravcomp", "density"):
        assert word in text
    np.testing.assert_allclose(robot.extras["drives"]["coulomb"], [0.0, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        km.from_mjcf(REACHER, tip="fingertip")  # nothing left out: not a word


def test_drive_terms_survive_the_robot_file(tmp_path):
    robot = km.from_mjcf(REACHER, tip="fingertip")
    km.save(robot, tmp_path / "reacher.yaml")
    back = km.load(tmp_path / "reacher.yaml")
    q, qd, qdd = [.3, -.5], [.2, .1], [1, -1]
    np.testing.assert_allclose(km.rne(back, q, qd, qdd), km.rne(robot, q, qd, qdd), rtol=0, atol=1e-12)
    assert "armature 1 0.5" in km.to_urdf(robot)  # URDF has no armature: said in a comment


def test_a_model_without_bodies_is_refused_in_words():
    """dm_control's lqr.xml-like files: the message said "leaf bodies " with an empty list."""
    with pytest.raises(km.MJCFError, match="no bodies besides the world") as e:
        km.from_mjcf("<mujoco><worldbody><geom size='.1'/></worldbody></mujoco>")
    assert "()" not in str(e.value) and "bodies )" not in str(e.value)
