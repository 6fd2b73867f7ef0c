"""IK is judged in one frame: whatever base and tool a robot has, `success` means that FK of the
returned q — computed here, independently of the solver — meets the target as the user gave it.

Issue 11 found a planar arm with a moved base reported "converged" 0.5 m from its target: the
target went into base coordinates in one place and was compared in world coordinates in another.
These tests move every bundled robot and random DH robots by random rigid base and tool
transforms and ask every target form (position, pose, approach vector, pitch, planar) of the
single, batched and all-solutions paths.

Tolerances: `km.ik` converges to 1e-6 m (1e-3 mm) and 1e-6 rad by default; the independent check
allows 1.5× that, since FK recomputed from the returned q differs from the solver's last
residual only by round-off (~1e-15 of the arm's size).
"""

from __future__ import annotations

import warnings
from pathlib import Path
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.spatial.transform import Rotation

import kinematica as km
from kinematica.ik import target as targets
from strategies import dh_robots, rigid_transforms

SLACK = 1.5  # the independent check's allowance over the solver's tolerances (see the docstring)
NAMES = km.robot_names()


def tol(robot: km.Robot) -> float:
    return 1e-6 if robot.length_unit == "m" else 1e-3


def size(robot: km.Robot) -> float:
    """A length of the robot's scale, for moving its base and tool by a comparable amount."""
    return 0.5 if robot.length_unit == "m" else 200.0


def moved(robot: km.Robot, rng: np.random.Generator, *, upright: bool = False, tool: bool = True) -> km.Robot:
    """The robot on a random rigid base (turned about z only when `upright`) with a random tool."""
    def rigid(scale: float, turn_about_z_only: bool) -> np.ndarray:
        T = np.eye(4)
        R = Rotation.from_euler("z", rng.uniform(-np.pi, np.pi)) if turn_about_z_only else Rotation.random(random_state=rng)
        T[:3, :3], T[:3, 3] = R.as_matrix(), rng.normal(size=3) * scale
        return T
    s = size(robot)
    return robot.replace(base=rigid(s, upright), tool=rigid(0.2 * s, False) @ robot.tool if tool else robot.tool)


def q_inside(robot: km.Robot, rng: np.random.Generator, k: int | None = None) -> np.ndarray:
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    lo, hi = np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)
    return rng.uniform(lo, hi, size=(robot.n,) if k is None else (k, robot.n))


def assert_honest(robot: km.Robot, res, p: np.ndarray, R: np.ndarray | None = None, a: np.ndarray | None = None):
    """Every success claimed is one that FK of the returned q confirms (vectorised over a batch)."""
    T = km.fk(robot, res.q)
    ok = np.asarray(res.success)
    dist = np.linalg.norm(T[..., :3, 3] - p, axis=-1)
    assert np.all(dist[ok] <= SLACK * tol(robot)), (robot.name, dist[ok].max(initial=0))
    np.testing.assert_allclose(np.asarray(res.position_error), dist, rtol=1e-6, atol=1e-12 * size(robot))
    if R is not None:
        angle = np.linalg.norm(Rotation.from_matrix((np.swapaxes(R, -1, -2) @ T[..., :3, :3]).reshape(-1, 3, 3))
                               .as_rotvec(), axis=-1).reshape(dist.shape)
        assert np.all(angle[ok] <= SLACK * 1e-6), (robot.name, angle[ok].max(initial=0))
    if a is not None:
        angle = np.arccos(np.clip(np.sum(T[..., :3, 2] * a, axis=-1), -1, 1))
        assert np.all(angle[ok] <= SLACK * 1e-6 + 1e-7), (robot.name, angle[ok].max(initial=0))


# --- every bundled robot on a random base and tool ---------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_bundled_robot_on_a_random_base_solves_what_it_reaches_and_claims_nothing_else(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    base = km.load(name)
    for _ in range(6):
        robot = moved(base, rng)
        q = q_inside(robot, rng, 8)
        T = km.fk(robot, q)
        # position: always reachable by construction (FK of q inside the limits)
        res = km.ik(robot, T[:, :3, 3], q0="random", seed=1)
        assert_honest(robot, res, T[:, :3, 3])
        assert np.mean(res.success) >= 7 / 8, (name, res.reason)
        one = km.ik(robot, T[0, :3, 3])  # the single-target path
        assert_honest(robot, one, T[0, :3, 3])
        assert one.success, (name, one.reason)
        # the full pose: reachable too; an arm with fewer than six joints may miss it, never falsely
        res = km.ik(robot, T, q0="random", seed=2)
        assert_honest(robot, res, T[:, :3, 3], R=T[:, :3, :3])
        if robot.n >= 6:
            assert np.mean(res.success) >= 7 / 8, (name, res.reason)
        # an approach vector (the tool's z axis)
        res = km.ik(robot, targets.approach(T[:, :3, 3], T[:, :3, 2]), q0="random", seed=3)
        assert_honest(robot, res, T[:, :3, 3], a=T[:, :3, 2])
        # a point far beyond the arm's reach (along the base's x axis: in a planar arm's plane)
        far = T[0, :3, 3] + 10 * size(robot) * robot.base[:3, 0]
        assert not km.ik(robot, far).success


def test_planar_arm_moved_100_mm_solves_its_own_targets_and_refuses_others():
    """The issue's case: `planar-3r` with its base moved 100 mm claimed success 100 mm off."""
    r = km.load("planar-3r")
    T = np.eye(4)
    T[:3, 3] = [100.0, 0.0, 0.0]
    moved_r = r.replace(base=T)
    rng = np.random.default_rng(5)
    q = q_inside(moved_r, rng, 200)
    p = km.fk(moved_r, q)[:, :3, 3]
    res = km.ik(moved_r, p)
    assert_honest(moved_r, res, p)
    assert np.mean(res.success) >= 0.995, np.unique(res.reason)
    # the target where the unmoved arm's solution would land: unreachable for the moved one
    beyond = np.array([-70.0 + 100.0 - 100.0 - 70.0, 0.0, 0.0])  # 140 mm behind the moved base
    lost = km.ik(moved_r, beyond)
    assert not lost.success and "reach" in lost.reason


def test_planar_targets_on_an_upright_moved_base():
    r = km.load("planar-3r")
    rng = np.random.default_rng(6)
    for _ in range(5):
        robot = moved(r, rng, upright=True, tool=False)
        q = q_inside(robot, rng, 50)
        T = km.fk(robot, q)
        phi = np.arctan2(T[:, 1, 0], T[:, 0, 0])
        res = km.ik(robot, targets.planar(T[:, :2, 3], phi))
        assert_honest(robot, res, T[:, :3, 3])
        assert np.mean(res.success) >= 0.98
        heading = np.arctan2(km.fk(robot, res.q)[:, 1, 0], km.fk(robot, res.q)[:, 0, 0])
        assert np.all(np.abs(np.angle(np.exp(1j * (heading - phi))))[res.success] <= SLACK * 1e-6)


@pytest.mark.parametrize("tilt", [1e-5, 1e-7])
def test_an_arm_whose_axes_are_nearly_parallel_is_spatial_and_reaches_its_own_poses(tilt):
    """Axes tilted `tilt` rad apart are not a planar arm: with a metre of tool its reach leaves
    the plane by ~tilt m, and its own FK pose was refused as "off the plane" (Hypothesis found
    alpha = 1e-5: the parallel test compared 1 − |cos| ≈ tilt²/2 with 1e-9)."""
    robot = km.from_dh([{"name": "j1", "type": "revolute", "alpha": tilt, "limits": [0, 1]},
                        {"name": "j2", "type": "revolute", "limits": [-1, 0]}],
                       tool=np.array([[1, 0, 0, 0], [0, 1, 0, 1.0], [0, 0, 1, 0], [0, 0, 0, 1]]))
    assert not km.kinematics.is_planar(robot)
    q = np.array([0.0, -1.0])
    result = km.ik(robot, km.fk(robot, q), np.clip(q + 0.02, robot.limits[:, 0], robot.limits[:, 1]))
    assert result.success, result.reason


def test_planar_target_on_a_tilted_plane_is_refused_in_words():
    r = km.load("planar-3r")
    robot = r.replace(base=np.r_[np.c_[Rotation.from_euler("x", 0.4).as_matrix(), [0, 0, 0]], [[0, 0, 0, 1]]])
    with pytest.raises(ValueError, match="plane"):
        km.ik(robot, targets.planar([30.0, 20.0], 0.3))
    p = km.fk(robot, [0.3, 0.4, 0.2])[:3, 3]  # a 3-D point on the tilted plane is fine
    res = km.ik(robot, p)
    assert res.success
    assert_honest(robot, res, p)


def test_pitch_targets_on_an_upright_moved_base():
    """A pitch φ is the tool's elevation above the horizontal in the vertical plane through
    joint 1 (paper 003): for a robot standing upright anywhere, a_z = sin φ."""
    rng = np.random.default_rng(7)
    for name in ("braccio", "arm-5dof"):
        base = km.load(name)
        robot = moved(base, rng, upright=True, tool=False)
        q = q_inside(robot, rng, 40)
        T = km.fk(robot, q)
        a = T[:, :3, 2]
        pitch = np.arcsin(np.clip(a[:, 2], -1, 1))
        res = km.ik(robot, targets.approach(T[:, :3, 3], pitch=pitch), q0="random", seed=1)
        assert_honest(robot, res, T[:, :3, 3])
        Tq = km.fk(robot, res.q)
        assert np.all(np.abs(Tq[:, 2, 2] - np.sin(pitch))[res.success] <= 1e-5)
        assert np.mean(res.success) >= 0.9, (name, np.unique(res.reason))


def test_ik_all_on_a_moved_base_lists_only_true_solutions():
    rng = np.random.default_rng(8)
    for name in ("puma560", "ur5", "kuka-kr6-r900", "planar-3r"):
        robot = moved(km.load(name), rng)
        T = km.fk(robot, q_inside(robot, rng))
        target = T if robot.n >= 6 else T[:3, 3]
        sols = km.ik_all(robot, target)
        assert sols, name
        for s in sols:
            assert_honest(robot, s, T[:3, 3], R=T[:3, :3] if robot.n >= 6 else None)
            assert s.success


# --- random robots -----------------------------------------------------------------------------
@settings(max_examples=40)
@given(robot=dh_robots(), base=rigid_transforms(), tool=rigid_transforms(), seed=st.integers(0, 2**32 - 1))
def test_random_robot_on_a_random_base_never_claims_a_miss(robot, base, tool, seed):
    robot = robot.replace(base=base, tool=tool)
    rng = np.random.default_rng(seed)
    q = q_inside(robot, rng, 4)
    T = km.fk(robot, q)
    for target, R in ((T[:, :3, 3], None), (T, T[:, :3, :3])):
        res = km.ik(robot, target, q0="random", seed=seed % 1000)
        assert_honest(robot, res, T[:, :3, 3], R=R)
    # an unreachable point: beyond the sum of every offset of the chain
    reach = np.abs(robot.before[:, :3, 3]).sum() + np.abs(robot.after[:, :3, 3]).sum() + 1.0
    # along the base's x axis, which lies in a planar arm's plane (a point off it is refused in words)
    far = T[0, :3, 3] + 10 * (reach + np.abs(tool[:3, 3]).sum()) * base[:3, 0]
    assert not km.ik(robot, far).success


# --- a URDF nobody here wrote ------------------------------------------------------------------
TWODOFS = (Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
           / "asr_twodof_description/urdf/TwoDofs.urdf")


@pytest.mark.skipif(not TWODOFS.is_file(), reason="example-robot-data is not installed (pip install -e '.[test]')")
def test_example_robot_data_twodofs_solves_its_reachable_targets():
    """A planar 2-DOF arm whose base sits off the world origin: 0 of 500 solved before."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)
        robot = km.load(TWODOFS)
    rng = np.random.default_rng(9)
    q = q_inside(robot, rng, 500)
    p = km.fk(robot, q)[:, :3, 3]
    res = km.ik(robot, p)
    assert_honest(robot, res, p)
    assert np.mean(res.success) >= 0.99


# --- solutions exactly on the joint limits -----------------------------------------------------
def on_limits(robot: km.Robot, k: int, N: int, rng: np.random.Generator) -> np.ndarray:
    """N configurations inside the limits with k joints each exactly on a limit (a corner of the
    joint box when k = n: often the only solution inside it)."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    q = rng.uniform(lo, hi, size=(N, robot.n))
    for i in range(N):
        j = rng.choice(robot.n, size=k, replace=False)
        q[i, j] = np.where(rng.random(k) < 0.5, lo[j], hi[j])
    return q


@pytest.mark.parametrize("name", ["puma560", "ur5"])
@pytest.mark.parametrize("k", [1, 2, 6])
def test_targets_whose_solution_lies_on_the_limits_are_solved(name, k):
    """Issue 11: ≥ 99.9 % in the single and the batched path, with one stated tolerance
    (`LIMIT_TOL`). Measured on 2 000 targets per case: 100 % for both arms, every k."""
    robot = km.load(name)
    rng = np.random.default_rng(k)
    q = on_limits(robot, k, 400, rng)
    T = km.fk(robot, q)
    res = km.ik(robot, T, q0="random", seed=1)
    assert_honest(robot, res, T[:, :3, 3], R=T[:, :3, :3])
    assert np.all(robot.within_limits(res.q[res.success]))
    assert np.mean(res.success) >= 0.999, np.unique(res.reason[~res.success])
    single = [km.ik(robot, T[i], q0="random", seed=i) for i in range(60)]
    assert all(s.success for s in single), [s.reason for s in single if not s.success]


PANDA_CORNERS = np.array([[-2.8973, -1.7628, 2.8973, -3.0718, 2.8973, 3.7525, -2.8973],
                          [2.8973, -1.7628, 2.8973, -3.0718, 2.8973, 3.7525, 2.8973]])


def test_the_panda_corners_of_issue_30_are_solved_single_and_stacked():
    """Issue 30: the FK of these two all-7-on-limits configurations was left unsolved (honestly)
    although it has that solution. A converged attempt outside the limits is now polished from
    its clamped end however far out it is, for a redundant arm (`limits.polish_margin`)."""
    robot = km.load("panda")
    T = km.fk(robot, PANDA_CORNERS)
    for Tk in T:
        one = km.ik(robot, Tk)
        assert one.success, one.reason
        assert_honest(robot, one, Tk[:3, 3], R=Tk[:3, :3])
    both = km.ik(robot, T)
    assert both.success.all(), both.reason
    assert_honest(robot, both, T[:, :3, 3], R=T[:, :3, :3])
    assert np.all(robot.within_limits(both.q))


def test_panda_targets_with_random_joints_on_limits_are_solved_to_999_per_mille():
    """3 200 targets, each with a random subset of joints (1 to 7; all 7 for a quarter) exactly on
    a lower or upper limit, batched. Measured on 11 × 1 600 such targets (NumPy): 99.69–99.94 %
    per 1 600 before, 4 misses in 17 600 (99.98 %) after; compiled 100 % of 4 800; no false claim.
    ≥ 99.9 % allows 3 misses here (the old code's rate gives ~5)."""
    robot = km.load("panda")
    lo, hi = robot.limits.T
    rng = np.random.default_rng(30)
    q = rng.uniform(lo, hi, (3200, 7))
    for i in range(len(q)):
        j = rng.choice(7, 7 if rng.random() < 0.25 else rng.integers(1, 8), replace=False)
        q[i, j] = np.where(rng.random(j.size) < 0.5, lo[j], hi[j])
    T = km.fk(robot, q)
    res = km.ik(robot, T)
    assert_honest(robot, res, T[:, :3, 3], R=T[:, :3, :3])
    assert np.all(robot.within_limits(res.q[res.success]))
    assert np.sum(~res.success) <= 3, np.unique(res.reason[~res.success])


def test_panda_targets_with_all_seven_joints_on_limits():
    """2 000 corners of the Panda's joint box, from random seeds: 1 995 solved before (the
    self-motion curve touches the box only at the corner), 2 000 after, NumPy and compiled."""
    robot = km.load("panda")
    lo, hi = robot.limits.T
    q = np.where(np.random.default_rng(1).random((2000, 7)) < 0.5, lo, hi)
    T = km.fk(robot, q)
    res = km.ik(robot, T, q0="random", seed=1)
    assert_honest(robot, res, T[:, :3, 3], R=T[:, :3, :3])
    assert np.sum(~res.success) <= 2, np.unique(res.reason[~res.success])


@pytest.mark.parametrize("k", [1, 2, 7])
def test_redundant_arm_finds_solutions_on_the_corners_of_its_joint_box(k):
    """The Panda (7 joints): a target reached with all 7 joints on limits often has no other
    solution inside the limits (its self-motion curve leaves the box at the corner), which
    free iteration finds only by luck; bound-constrained restarts (`limits.pinned`) find it.
    Measured on 2 000 targets: 1 / 2 / 7 joints on limits 100 / 100 / 99.8 % batched (99.65 /
    96.8 / 87.4 % before them); with seeds holding joints on limits and polishing at any
    distance (issue 30), 2 / 4 / 7 on limits: 3 000 / 2 999 / 2 000 of 3 000 / 3 000 / 2 000
    (2 998 / 2 994 / 1 995 before). 300 targets here: one miss allowed (this sample's k = 2 has
    one hard target, which the new seeds' random stream misses in NumPy)."""
    robot = km.load("panda")
    q = on_limits(robot, k, 300, np.random.default_rng(100 + k))
    T = km.fk(robot, q)
    res = km.ik(robot, T, q0="random", seed=1)
    assert_honest(robot, res, T[:, :3, 3], R=T[:, :3, :3])
    assert np.all(robot.within_limits(res.q[res.success]))
    assert np.sum(~res.success) <= 1, np.unique(res.reason[~res.success])
