"""The bundled robots: every file loads and is consistent, and each reproduces poses that can be
checked against its published parameters or the papers' worked examples (papers/DIGEST.md)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kinematica as km
from kinematica.model.robotfile import read_text, write_text

NAMES = km.robot_names()
NEW = ("puma560", "ur5", "panda", "braccio")
RNG_SEED = 20240611


def dh_product(rows, q, modified=False):
    """Base-to-last-frame transform of a DH table, written out from the textbook formulas
    (independent of the library's builders). rows: (theta, d, a, alpha) in rad and length."""
    T = np.eye(4)
    for (theta, d, a, alpha), qi in zip(rows, q):
        ct, st = np.cos(theta + qi), np.sin(theta + qi)
        ca, sa = np.cos(alpha), np.sin(alpha)
        if modified:  # Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)
            A = np.array([[ct, -st, 0, a],
                          [st * ca, ct * ca, -sa, -sa * d],
                          [st * sa, ct * sa, ca, ca * d],
                          [0, 0, 0, 1]])
        else:  # Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)
            A = np.array([[ct, -st * ca, st * sa, a * ct],
                          [st, ct * ca, -ct * sa, a * st],
                          [0, sa, ca, d],
                          [0, 0, 0, 1]])
        T = T @ A
    return T


def random_q_within(robot, rng, count):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return lo + rng.random((count, robot.n)) * (hi - lo)


# --- every bundled robot ------------------------------------------------------------------
def test_the_new_robots_are_bundled():
    assert set(NEW) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_is_consistent(name):
    robot = km.load(name)
    assert robot.name == name
    assert robot.source.strip(), f"{name}: a bundled robot must cite its source"
    n = robot.n
    assert len(robot.joint_names) == n == len(robot.joint_types) == robot.limits.shape[0]
    assert robot.limits.shape == (n, 2)
    assert np.all(robot.limits[:, 0] < robot.limits[:, 1])
    if name in NEW:
        assert np.all(np.isfinite(robot.limits)), f"{name}: state the published joint ranges"
    assert robot.home is not None and robot.home.shape == (n,)
    assert robot.within_limits(robot.home), f"{name}: home {np.degrees(robot.home)} outside the limits"
    if robot.inertials is not None:
        assert len(robot.inertials) == n
        for inert in robot.inertials:
            assert inert is None or (inert.mass >= 0 and np.all(np.linalg.eigvalsh(inert.inertia) > -1e-12))


@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_fk_is_finite_and_rigid(name):
    robot = km.load(name)
    q = np.vstack([robot.q_home, random_q_within(robot, np.random.default_rng(RNG_SEED), 20)])
    T = km.fk(robot, q)
    assert T.shape == (21, 4, 4)
    assert np.all(np.isfinite(T))
    R = T[:, :3, :3]
    assert np.allclose(R @ np.swapaxes(R, -1, -2), np.eye(3), atol=1e-12)
    assert np.allclose(np.linalg.det(R), 1.0, atol=1e-12)
    assert np.allclose(T[:, 3], [0, 0, 0, 1])
    frames = km.fk_frames(robot, q)
    assert np.allclose(frames[:, -1], T, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_survives_a_yaml_round_trip(name):
    robot = km.load(name)
    again = read_text(write_text(robot), f"{name} (rewritten)")
    q = random_q_within(robot, np.random.default_rng(RNG_SEED + 1), 10)
    assert np.allclose(km.fk(again, q), km.fk(robot, q), atol=1e-9)
    assert np.allclose(again.limits, robot.limits)
    assert np.allclose(again.home, robot.home)
    assert again.joint_names == robot.joint_names
    assert again.source == robot.source
    assert dict(again.extras) == dict(robot.extras)
    if robot.inertials is not None:
        for a, b in zip(again.inertials, robot.inertials):
            assert np.isclose(a.mass, b.mass) and np.allclose(a.com, b.com) and np.allclose(a.inertia, b.inertia)


# --- published parameters -----------------------------------------------------------------
PUMA_DH = [(0, 0, 0, np.pi / 2), (0, 0, 0.4318, 0), (0, 0.15005, 0.0203, -np.pi / 2),
           (0, 0.4318, 0, np.pi / 2), (0, 0, 0, -np.pi / 2), (0, 0, 0, 0)]
UR5_DH = [(0, 0.089159, 0, np.pi / 2), (0, 0, -0.425, 0), (0, 0, -0.39225, 0),
          (0, 0.10915, 0, np.pi / 2), (0, 0.09465, 0, -np.pi / 2), (0, 0.0823, 0, 0)]
# Franka's modified DH rows as (theta, d, a(i-1), alpha(i-1)), then the flange.
PANDA_MDH = [(0, 0.333, 0, 0), (0, 0, 0, -np.pi / 2), (0, 0.316, 0, np.pi / 2),
             (0, 0, 0.0825, np.pi / 2), (0, 0.384, -0.0825, -np.pi / 2), (0, 0, 0, np.pi / 2),
             (0, 0, 0.088, np.pi / 2)]


def test_puma560_zero_pose_is_the_toolbox_qz():
    # Robotics Toolbox: p560.fkine(qz) = [I | (a2 + a3, -d3, d4)].
    T = km.fk(km.load("puma560"), np.zeros(6))
    assert np.allclose(T[:3, :3], np.eye(3), atol=1e-12)
    assert np.allclose(T[:3, 3], [0.4318 + 0.0203, -0.15005, 0.4318], atol=1e-12)


def test_puma560_matches_its_dh_table_and_published_dynamics():
    robot = km.load("puma560")
    for q in random_q_within(robot, np.random.default_rng(1), 10):
        assert np.allclose(km.fk(robot, q), dh_product(PUMA_DH, q), atol=1e-12)
    assert [i.mass for i in robot.inertials] == [0, 17.4, 4.8, 0.82, 0.34, 0.09]
    assert np.allclose(robot.inertials[1].com, [-0.3638, 0.006, 0.2275])
    assert np.allclose(robot.inertials[1].inertia.diagonal(), [0.13, 0.524, 0.539])
    assert np.allclose(np.degrees(robot.limits),
                       [[-160, 160], [-45, 225], [-225, 45], [-110, 170], [-100, 100], [-266, 266]])


def test_ur5_zero_pose_from_its_dh_table():
    # At q = 0 the UR5 is stretched along -x: p = (a2 + a3, -(d4 + d6), d1 - d5).
    robot = km.load("ur5")
    T = km.fk(robot, np.zeros(6))
    assert np.allclose(T[:3, 3], [-0.425 - 0.39225, -(0.10915 + 0.0823), 0.089159 - 0.09465], atol=1e-12)
    assert np.allclose(T[:3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-12)
    for q in random_q_within(robot, np.random.default_rng(2), 10):
        assert np.allclose(km.fk(robot, q), dh_product(UR5_DH, q), atol=1e-12)
    assert np.allclose(np.degrees(robot.limits), [[-360, 360]] * 6)
    assert [i.mass for i in robot.inertials] == [3.7, 8.393, 2.33, 1.219, 1.219, 0.1879]


def test_ur5_home_is_upright():
    robot = km.load("ur5")
    p = km.fk(robot, robot.q_home)[:3, 3]
    assert np.allclose(p, [0, -(0.10915 + 0.0823), 0.089159 + 0.425 + 0.39225 + 0.09465], atol=1e-12)


def test_panda_zero_pose_flange():
    # q = 0: flange at (a7, 0, d1 + d3 + d5 - d_flange) pointing down.
    robot = km.load("panda")
    T = km.fk(robot, np.zeros(7))
    assert np.allclose(T[:3, 3], [0.088, 0, 0.333 + 0.316 + 0.384 - 0.107], atol=1e-12)
    assert np.allclose(T[:3, :3], np.diag([1, -1, -1]), atol=1e-12)


def test_panda_matches_franka_mdh_and_limits():
    robot = km.load("panda")
    flange = np.eye(4)
    flange[2, 3] = 0.107
    for q in random_q_within(robot, np.random.default_rng(3), 10):
        assert np.allclose(km.fk(robot, q), dh_product(PANDA_MDH, q, modified=True) @ flange, atol=1e-12)
    assert np.allclose(robot.limits[:, 0], [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
    assert np.allclose(robot.limits[:, 1], [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
    assert np.allclose(robot.q_home, [0, -np.pi / 4, 0, -3 * np.pi / 4, 0, np.pi / 2, np.pi / 4])
    # Gaz et al. 2019, identified link masses (kg), link 7 without the hand
    assert [i.mass for i in robot.inertials] == [4.970684, 0.646926, 3.228604, 3.587895, 1.225946,
                                                 1.666555, 0.735522]


# --- the papers' worked examples (corrected values from papers/DIGEST.md) -------------------
def test_planar_3r_paper_000_examples():
    robot = km.load("planar-3r")
    assert np.allclose(km.fk(robot, np.radians([38.5, 68.8, 62.8]))[:2, 3], [-9.998, 34.984], atol=1e-3)
    assert np.allclose(km.fk(robot, robot.q_home)[:2, 3], [30.7935, 47.0167], atol=1e-4)
    assert np.allclose(np.degrees(robot.q_home), [30, 30, 20])


def test_arm_4dof_paper_001_stretched_pose():
    assert np.allclose(km.fk(km.load("arm-4dof"), np.zeros(4))[:3, 3], [270, 0, 70], atol=1e-12)


def test_arm_5dof_paper_002_zero_pose():
    assert np.allclose(km.fk(km.load("arm-5dof"), np.zeros(5))[:3, 3], [0.409, 0, 0.236], atol=1e-12)


def test_arm_5dof_paper_002_corrected_closed_forms():
    robot = km.load("arm-5dof")
    d1, a2, a3, d5 = 0.071, 0.246, 0.163, 0.165
    for q in random_q_within(robot, np.random.default_rng(4), 25):
        c1, s1, c2, s2 = np.cos(q[0]), np.sin(q[0]), np.cos(q[1]), np.sin(q[1])
        c5, s5 = np.cos(q[4]), np.sin(q[4])
        c23, s23 = np.cos(q[1] + q[2]), np.sin(q[1] + q[2])
        c234, s234 = np.cos(q[1] + q[2] + q[3]), np.sin(q[1] + q[2] + q[3])
        r = a2 * c2 + a3 * c23 - d5 * s234
        n = [c1 * c5 * c234 - s1 * s5, s1 * c5 * c234 + c1 * s5, c5 * s234]
        o = [-s1 * c5 - c1 * s5 * c234, c1 * c5 - s1 * s5 * c234, -s5 * s234]
        a = [-c1 * s234, -s1 * s234, c234]
        p = [c1 * r, s1 * r, d1 + a2 * s2 + a3 * s23 + d5 * c234]
        expected = np.eye(4)
        expected[:3, :] = np.column_stack([n, o, a, p])
        assert np.allclose(km.fk(robot, q), expected, atol=1e-12)


def test_arm_5dof_geo_paper_003_corrected_solutions_reach_the_target():
    robot = km.load("arm-5dof-geo")
    for q in ([20, 16.29, 44.22, -15.51, 0], [20, 45.09, -44.22, 44.13, 0]):
        assert np.allclose(km.fk(robot, np.radians(q))[:3, 3], [59.98, 21.83, 42.33], atol=0.02)


def test_kuka_kr6_r900_paper_004_home_and_end_poses():
    robot = km.load("kuka-kr6-r900")
    T = km.fk(robot, np.zeros(6))
    assert np.allclose(T[:3, 3], [0, 0.5615, 0.89], atol=1e-12)
    assert np.allclose(T[:3, :3], [[0, 1, 0], [0, 0, 1], [1, 0, 0]], atol=1e-12)
    end = km.fk(robot, [-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])
    assert np.allclose(end[:3, 3], [0.445, 0, 0.7735], atol=1e-12)


# --- Braccio: geometry and servo mapping ----------------------------------------------------
def test_braccio_geometry():
    robot = km.load("braccio")
    assert robot.length_unit == "mm" and robot.n == 5
    top = 71.5 + 125 + 125 + 60 + 30
    assert np.allclose(km.fk(robot, np.zeros(5))[:3, 3], [0, 0, top], atol=1e-9)  # all servos at 90
    # Shoulder servo at 0 would lay the straight arm along +x: elevation = servo angle.
    assert np.allclose(km.fk(robot, np.radians([0, -90, 0, 0, 0]))[:3, 3], [top - 71.5, 0, 71.5], atol=1e-9)
    frames = km.fk_frames(robot, np.zeros(5))
    assert np.allclose(frames[1:4, :3, 3], [[0, 0, 71.5], [0, 0, 196.5], [0, 0, 321.5]], atol=1e-9)


def test_braccio_planar_section_is_paper_000_chain():
    # Elevation of the links: 90 + q2, 90 + q2 + q3, 90 + q2 + q3 + q4 (counter-clockwise in x-z).
    robot = km.load("braccio")
    rng = np.random.default_rng(5)
    for q in random_q_within(robot, rng, 20):
        q = q.copy()
        q[0] = 0
        phi = np.pi / 2 + np.cumsum(q[1:4])
        x = 125 * np.cos(phi[0]) + 125 * np.cos(phi[1]) + 90 * np.cos(phi[2])
        z = 71.5 + 125 * np.sin(phi[0]) + 125 * np.sin(phi[1]) + 90 * np.sin(phi[2])
        assert np.allclose(km.fk(robot, q)[:3, 3], [x, 0, z], atol=1e-9)


def test_braccio_servo_ranges_and_limits_agree():
    robot = km.load("braccio")
    ranges = [s["range"] for s in robot.extras["servo"]]
    assert ranges == [[0, 180], [15, 165], [0, 180], [0, 180], [0, 180]]
    assert robot.extras["gripper"]["servo"]["range"] == [10, 73]
    for i, s in enumerate(robot.extras["servo"]):
        mapped = sorted(s["sign"] * (np.array(s["range"]) - s["zero"]))
        assert np.allclose(np.degrees(robot.limits[i]), mapped)
        assert s["zero"] == 90  # servo 90 = straight
    # both ends of every range convert, in both directions
    lo_hi = np.array(ranges, dtype=float).T
    assert np.allclose(km.to_servo(robot, km.from_servo(robot, lo_hi)), lo_hi)
    assert np.all(robot.within_limits(km.from_servo(robot, lo_hi)))


def test_braccio_home_is_the_library_safety_position():
    robot = km.load("braccio")
    assert np.allclose(km.to_servo(robot, robot.q_home), [90, 45, 180, 180, 90])
    assert np.allclose(km.from_servo(robot, [90, 45, 180, 180, 90]), robot.q_home)
    assert robot.extras["gripper"]["home"] == 10


def test_braccio_servo_round_trips_batched():
    robot = km.load("braccio")
    rng = np.random.default_rng(6)
    q = random_q_within(robot, rng, 3 * 7).reshape(3, 7, 5)
    servo = km.to_servo(robot, q)
    assert servo.shape == (3, 7, 5)
    assert np.allclose(km.from_servo(robot, servo), q, atol=1e-12)
    degrees = np.array([s["range"] for s in robot.extras["servo"]], dtype=float)
    d = degrees[:, 0] + rng.random((11, 5)) * (degrees[:, 1] - degrees[:, 0])
    assert np.allclose(km.to_servo(robot, km.from_servo(robot, d)), d, atol=1e-9)
    # one configuration = one row of the batch
    assert np.allclose(km.to_servo(robot, q[1, 2]), servo[1, 2])
    # sign and zero, joint by joint: servo = zero + sign * degrees(q)
    signs = np.array([s["sign"] for s in robot.extras["servo"]])
    assert np.allclose(servo, 90 + signs * np.degrees(q))


def test_servo_errors():
    robot = km.load("braccio")
    with pytest.raises(ValueError, match="M2 shoulder.*outside its range"):
        km.to_servo(robot, np.radians([0, 80, 0, 0, 0]))
    with pytest.raises(ValueError, match="M2 shoulder.*outside its range"):
        km.from_servo(robot, [90, 10, 90, 90, 90])
    with pytest.raises(ValueError, match="M1 base"):
        km.from_servo(robot, [[90, 90, 90, 90, 90], [181, 90, 90, 90, 90]])
    with pytest.raises(ValueError, match="5 values"):
        km.to_servo(robot, [0, 0, 0])
    with pytest.raises(ValueError, match="NaN"):
        km.from_servo(robot, [90, 90, np.nan, 90, 90])
    with pytest.raises(ValueError, match="no servo mapping"):
        km.to_servo(km.load("puma560"), np.zeros(6))
    with pytest.raises(ValueError, match="no servo mapping"):
        km.from_servo(km.load("planar-3r"), [90, 90, 90])


def test_the_readme_lists_every_bundled_robot_with_its_source():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = text.split("## Bundled robots", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)` \|[^|]+\|[^|]+\| (.+) \|$", table, re.M)}
    assert sorted(rows) == NAMES  # the SO-101 had been left out
    assert all(len(source) > 20 for source in rows.values()), rows
