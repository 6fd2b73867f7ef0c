"""Simulation and the Trajectory value: energy conservation, controllers, slicing, resampling."""

import numpy as np
import pytest

import kinematica as km
from kinematica.trajectory import Trajectory, TrajectoryError, concatenate


def test_unactuated_frictionless_arm_conserves_energy():
    robot = km.load("arm-5dof")
    sim = km.simulate(robot, 0.5, np.array([0.3, 0.5, -0.4, 0.2, 0.1]), method="DOP853", rtol=1e-10, atol=1e-12)
    E = km.energy(robot, sim.q, sim.qd)
    assert np.ptp(E) < 1e-7 * np.abs(E).max()
    assert np.abs(sim.qd).max() > 0.5  # it really fell
    # q̈ stored in the trajectory is the forward dynamics of the stored state
    assert np.allclose(sim.qdd[5], km.forward_dynamics(robot, sim.q[5], sim.qd[5], np.zeros(5)))


def test_pd_with_gravity_compensation_holds_and_reaches():
    robot = km.load("puma560")
    hold = km.simulate(robot, 0.3, np.zeros(6), torque=km.pd_gravity(robot, np.zeros(6)))
    assert np.abs(hold.q).max() < 1e-8
    goal = np.array([0.3, -0.2, 0.2, 0.1, 0.2, 0.1])
    sim = km.simulate(robot, 3.0, np.zeros(6), torque=km.pd_gravity(robot, goal), dt=0.05)
    assert np.abs(sim.q[-1] - goal).max() < 2e-3
    assert np.allclose(sim.tau[0], km.pd_gravity(robot, goal)(0.0, np.zeros(6), np.zeros(6)))


def test_computed_torque_tracks_a_consistent_reference():
    robot = km.load("puma560")
    t = np.linspace(0, 1, 51)
    s = 3 * t**2 - 2 * t**3  # a smooth start and stop
    sd, sdd = 6 * t - 6 * t**2, 6 - 12 * t
    d = np.array([0.4, -0.3, 0.3, 0.2, 0.1, 0.2])
    ref = km.trajectory.for_robot(robot, t, np.outer(s, d), np.outer(sd, d), np.outer(sdd, d))
    sim = km.simulate(robot, 1.0, np.zeros(6), torque=km.computed_torque(robot, ref), dt=0.02)
    assert np.abs(sim.q - ref.resample(sim.t).q).max() < 2e-3


def test_simulation_bad_input():
    robot = km.load("arm-5dof")
    with pytest.raises(ValueError, match="duration and dt must be positive"):
        km.simulate(robot, -1, np.zeros(5))
    with pytest.raises(ValueError, match=r"q0: expected 5 joint values .* got shape \(4,\)"):
        km.simulate(robot, 1, np.zeros(4))
    with pytest.raises(ValueError, match=r"torque: expected 5 joint values .* got shape \(2,\)"):
        km.simulate(robot, 1, np.zeros(5), torque=[1, 2])
    with pytest.raises(km.DynamicsError):
        km.simulate(km.load("planar-3r"), 1, np.zeros(3))


def _traj(T=5, n=2):
    t = np.linspace(0, 1, T)
    q = np.stack([t**3, -t**3], axis=1)[:, :n]
    qd = np.stack([3 * t**2, -3 * t**2], axis=1)[:, :n]
    qdd = np.stack([6 * t, -6 * t], axis=1)[:, :n]
    return Trajectory(t, q, qd, qdd, joint_names=("a", "b")[:n], revolute=[True] * n)


def test_trajectory_slicing_resampling_and_joining():
    tr = _traj()
    assert len(tr) == 5 and tr.duration == 1.0
    assert len(tr[1:3]) == 2 and len(tr.between(0.2, 0.8)) == 3 and len(tr[0]) == 1
    fine = tr.resample(dt=0.01)
    assert np.allclose(fine.q[:, 0], fine.t**3, atol=1e-12)  # cubic Hermite is exact for cubics
    assert np.allclose(fine.qd[:, 0], 3 * fine.t**2, atol=1e-12)
    onward = Trajectory(tr.t, tr.q + tr.q[-1], tr.qd, tr.qdd, joint_names=("a", "b"), revolute=[True, True])
    both = tr.then(onward)
    assert both.duration == pytest.approx(2.0) and np.all(np.diff(both.t) > 0) and len(both) == 9
    with pytest.raises(TrajectoryError, match="starts"):
        concatenate([tr, tr])
    assert tr.q.flags.writeable is False


def test_trajectory_rejects_bad_values():
    tr = _traj()
    with pytest.raises(TrajectoryError, match="increasing"):
        Trajectory(tr.t[::-1], tr.q, tr.qd, tr.qdd, joint_names=("a", "b"), revolute=[True, True])
    with pytest.raises(TrajectoryError, match="NaN"):
        Trajectory(tr.t, tr.q * np.nan, tr.qd, tr.qdd, joint_names=("a", "b"), revolute=[True, True])
    with pytest.raises(TrajectoryError, match="shape"):
        Trajectory(tr.t, tr.q[:, :1], tr.qd, tr.qdd, joint_names=("a", "b"), revolute=[True, True])
    with pytest.raises(TrajectoryError):
        tr.resample([2.0])
    with pytest.raises(TrajectoryError):
        concatenate([tr, _traj(n=1)])


@pytest.mark.parametrize("suffix", [".csv", ".json"])
@pytest.mark.parametrize("degrees", [False, True])
def test_trajectory_files_round_trip(tmp_path, suffix, degrees):
    robot = km.load("puma560")
    sim = km.simulate(robot, 0.2, np.array([0.1, -0.3, 0.2, 0, 0.4, 0]), dt=0.02, method="DOP853")
    tr = km.trajectory.for_robot(robot, sim.t, sim.q, sim.qd, sim.qdd, tau=sim.tau, poses=km.fk(robot, sim.q))
    path = km.trajectory.save(tr, tmp_path / f"t{suffix}", degrees=degrees)
    back = km.trajectory.load(path)
    for key in ("t", "q", "qd", "qdd", "tau", "poses"):
        assert np.allclose(getattr(back, key), getattr(tr, key), rtol=1e-13, atol=1e-13), key
    assert back.joint_names == robot.joint_names and back.length_unit == "m"
    text = path.read_text()
    assert ("deg" in text) == degrees


def test_prismatic_mm_trajectory_keeps_units_in_csv():
    t = np.linspace(0, 1, 3)
    tr = Trajectory(t, np.stack([t, 10 * t], 1), np.ones((3, 2)), np.zeros((3, 2)), joint_names=("turn", "slide"),
                    revolute=[True, False], length_unit="mm")
    text = km.trajectory.files.to_csv(tr, degrees=True)
    assert "q_turn [deg]" in text and "q_slide [mm]" in text and "qd_slide [mm/s]" in text
    back = km.trajectory.files.from_csv(text)
    assert np.allclose(back.q, tr.q) and list(back.revolute) == [True, False] and back.length_unit == "mm"


def test_motion_scenarios_one_file_per_joint(tmp_path):
    tr = _traj()
    paths = km.trajectory.save_scenarios(tr, tmp_path / "um", degrees=True)
    assert [p.name for p in paths] == ["a.txt", "b.txt"]
    rows = np.loadtxt(paths[0])
    assert np.allclose(rows[:, 0], tr.t) and np.allclose(rows[:, 1], np.degrees(tr.q[:, 0]))


@pytest.mark.parametrize("text", ["", "t [s]\n1\n", "t [s],q_a\n0,1\n", "t [s],q_a [rad]\n0,x\n"])
def test_bad_csv_is_a_clear_error(text):
    with pytest.raises(TrajectoryError):
        km.trajectory.files.from_csv(text)
