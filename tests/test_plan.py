"""`km.plan` (issue 27): collision-free joint paths in a scene on OMPL, with real coal checks and
real OMPL planners (no mocks). Time limits stay at 1 s or below."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import kinematica as km
from kinematica.plan import PLANNERS
from kinematica.scene import check_trajectory
from kinematica.trajectory import TrajectoryError

pytest.importorskip("ompl")

# a Puma 560 swinging joint 1 from START to GOAL: in a straight joint line its forearm (link3,
# whose drawn housing reaches to the wrist) passes through BOX
START = np.array([0.8, -0.3, 0.0, 0.0, 0.5, 0.0])
GOAL = np.array([-0.8, -0.3, 0.0, 0.0, 0.5, 0.0])


@pytest.fixture(scope="module")
def boxed() -> km.Scene:
    s = km.Scene()
    s.add_robot("arm", "puma560")
    s.add_obstacle("box", "box", pose=km.spatial.transl([0.6, -0.15, 0.28]), size=(0.15, 0.15, 0.15))
    return s


def _as_motion(path: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The path as (t, q) samples (any increasing times: check_trajectory joins them by straight lines)."""
    return np.arange(len(path), dtype=float), path


def test_the_straight_line_is_blocked_so_the_plan_must_go_around(boxed):
    straight = check_trajectory(boxed, {"arm": _as_motion(np.stack([START, GOAL]))}, resolution=0.01)
    assert straight.colliding and ("arm/link3", "box") in straight.collisions


def test_a_plan_around_a_box_is_collision_free_at_ten_times_the_resolution(boxed):
    p = km.plan(boxed, START, GOAL, seed=7, time_limit=1.0)
    assert p.success, p.reason
    assert p.status == "Exact solution" and p.robot == "arm" and p.planner == "rrtconnect"
    np.testing.assert_array_equal(p.path[0], START)  # the very values asked for, not OMPL's copies
    np.testing.assert_array_equal(p.path[-1], GOAL)
    assert len(p.path) > 2  # a detour, not the blocked straight line
    assert p.checks > 0 and p.planning_time > 0 and p.simplification_time >= 0
    # the independent check: coal through check_trajectory's own sampling, ten times finer
    rep = check_trajectory(boxed, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10)
    assert not rep.colliding, str(rep)
    # the planner's own path (before simplification) holds too
    assert not check_trajectory(boxed, {"arm": _as_motion(p.raw_path)}, resolution=p.resolution / 10).colliding
    # the default resolution is half the Puma's capsule radius (scene metres)
    assert p.resolution == pytest.approx(0.5 * boxed.geometry("arm").radius)


def test_the_resolution_bounds_how_far_a_link_point_moves_between_checks(boxed):
    from kinematica.plan.edges import EdgeChecker

    r = boxed.robots["arm"].robot
    ec = EdgeChecker.build(boxed, "arm", r.limits[:, 0], r.limits[:, 1], 0.01)
    Q = ec.samples(START, GOAL)
    pts = km.fk_frames(r, Q)[:, 1:, :3, 3]  # every link frame origin along the edge
    tip = km.fk(r, Q)[:, :3, 3]
    step = max(np.linalg.norm(np.diff(pts, axis=0), axis=-1).max(), np.linalg.norm(np.diff(tip, axis=0), axis=-1).max())
    assert step <= 0.01  # a bound on every link point: the frame origins and the tool are such points
    assert len(Q) - 1 == int(np.ceil(ec.sweep(START, GOAL) / 0.01))


def test_an_edge_is_certified_between_its_samples_not_only_at_them():
    # a pebble on the circle the planar arm's tip sweeps, and a resolution so coarse that the
    # edge is sampled only at its two ends: both ends are clear, the motion between is not
    from kinematica.plan.edges import EdgeChecker

    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "planar-3r")
    s.add_obstacle("pebble", "sphere", pose=km.spatial.transl([0, 55, 0]), radius=1.0)
    r = s.robots["arm"].robot
    ec = EdgeChecker.build(s, "arm", r.limits[:, 0], r.limits[:, 1], resolution=1000.0)
    qa, qb = np.array([0.5, 0, 0]), np.array([2.5, 0, 0])
    assert len(ec.samples(qa, qb)) == 2 and ec.free(np.stack([qa, qb])).all()
    assert not ec.edge_free(qa, qb)
    assert s.check({"arm": [np.pi / 2, 0, 0]}).colliding  # the arm does pass through it
    # with the pebble out of reach (the arm is 60 mm long), the same edge is passed
    s.move("pebble", km.spatial.transl([0, 80, 0]))
    assert ec.edge_free(qa, qb)


def test_an_edge_still_needing_coal_when_the_time_is_up_counts_as_blocked_and_is_not_remembered(boxed):
    # OMPL looks at its clock only between edges, and coal's part of one edge can take a few
    # hundred ms: past the planner's deadline an edge being judged is given up (blocked, not
    # remembered, so the same edge asked again in time is judged)
    from kinematica.plan.edges import EdgeChecker

    r = boxed.robots["arm"].robot
    ec = EdgeChecker.build(boxed, "arm", r.limits[:, 0], r.limits[:, 1], resolution=0.01)
    ec.fast = None  # every state to coal (what the core's bound would otherwise spare)
    qa, qb = START, START + np.array([0.1, 0, 0, 0, 0, 0])  # a short free edge away from the box
    ec.deadline = 0.0  # long past
    assert not ec.edge_free(qa, qb)
    ec.deadline = np.inf
    assert ec.edge_free(qa, qb) and ec.path_free(np.stack([qa, qb]))


def test_a_goal_inside_an_obstacle_is_refused_in_words(boxed):
    inside = (START + GOAL) / 2  # the wrist in the box
    assert boxed.check({"arm": inside}).colliding
    p = km.plan(boxed, START, inside, time_limit=0.5)
    assert not p.success and p.path is None and p.status == "not run"
    assert p.reason.startswith("the goal is in collision: ") and "touches box" in p.reason
    assert "goal is in collision" in str(p) and not bool(p)
    with pytest.raises(km.trajectory.TrajectoryError, match="no path to time: the goal is in collision"):
        p.trajectory(1.0, 2.0)


def test_a_start_outside_the_joint_limits_is_refused_naming_the_joint(boxed):
    q = START.copy()
    q[4] = 2.0  # q5 of the Puma stops at 100°
    p = km.plan(boxed, q, GOAL, time_limit=0.5)
    assert not p.success
    assert p.reason.startswith("the start is outside the joint limits: q5 = 2 rad is not in [-1.74533, 1.74533] rad")


def test_no_path_within_the_time_limit_says_so():
    # a wall crosses link 1's sweep (clear of the base's capsules) and joint 1's limits keep it
    # from going round: no path exists
    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "planar-3r")
    s.add_obstacle("wall", "box", pose=km.spatial.transl([0, 16, 0]), size=(2, 10, 40))
    p = km.plan(s, [0.8, 0, 0], [2.3, 0, 0], time_limit=0.3)
    assert not p.success and p.path is None
    assert p.reason == "no path found within 0.3 s" and p.status in ("Approximate solution", "Timeout")


@pytest.mark.parametrize("planner", ["rrtconnect", "bitstar"])
def test_the_same_seed_gives_the_same_path(boxed, planner):
    a = km.plan(boxed, START, GOAL, planner=planner, seed=11, time_limit=1.0)
    b = km.plan(boxed, START, GOAL, planner=planner, seed=11, time_limit=1.0)
    c = km.plan(boxed, START, GOAL, planner=planner, seed=12, time_limit=1.0)
    assert a.success and b.success and c.success
    # bit-identical on purpose: the same seed runs the very same code path, sample for sample
    np.testing.assert_array_equal(a.path, b.path)
    assert a.checks == b.checks
    assert a.path.shape != c.path.shape or not np.array_equal(a.path, c.path)  # the seed is used


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_every_planner_by_name_finds_a_clear_path(planner):
    s = km.Scene()
    s.add_robot("arm", "puma560")
    s.add_obstacle("post", "cylinder", pose=km.spatial.transl([-0.6, 0.6, 0.0]), radius=0.05, length=1.0)
    goal = np.full(6, 0.4)
    # anytime planners (RRT*, BIT*) stop at their first solution when seeded; PRM takes no seed
    p = km.plan(s, np.zeros(6), goal, planner=planner, seed=None if planner == "prm" else 3, time_limit=1.0)
    assert p.success, p.reason
    assert p.planner == planner
    assert not check_trajectory(s, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10).colliding


def test_a_plan_is_timed_into_a_trajectory_the_scene_checks_clear(boxed):
    p = km.plan(boxed, START, GOAL, seed=7, time_limit=1.0)
    tr = p.trajectory(vmax=1.0, amax=2.0, dt=0.01)
    assert isinstance(tr, km.Trajectory) and tr.meta["planner"] == "rrtconnect"
    # the timed samples start and end on the plan, at rest (TOPP-RA's spline passes through its waypoints)
    np.testing.assert_allclose(tr.q[0], START, atol=1e-9)
    np.testing.assert_allclose(tr.q[-1], GOAL, atol=1e-9)
    assert np.abs(tr.qd[[0, -1]]).max() < 1e-6
    # TOPP-RA keeps its limits to its own relative tolerance (1e-6)
    assert np.abs(tr.qd).max() <= 1.0 * (1 + 1e-6) and np.abs(tr.qdd).max() <= 2.0 * (1 + 1e-6)
    rep = check_trajectory(boxed, {"arm": tr}, resolution=p.resolution / 10)
    assert not rep.colliding, str(rep)


def test_other_robots_stay_at_their_scene_configuration():
    s = km.Scene.load("two-braccios")
    left = s.robots["left"].robot
    p = km.plan(s, left.q_home, left.q_home + np.radians([20, 0, 0, 0, 0]), robot="left", seed=2, time_limit=1.0)
    assert p.success and p.robot == "left"
    with pytest.raises(km.PlanError, match="the scene has 2 robots"):
        km.plan(s, left.q_home, left.q_home)


@pytest.mark.parametrize("kwargs, message", [
    ({"start": np.zeros(5)}, r"start: the robot has 6 joints \(q1, q2, q3, q4, q5, q6\); expected shape \(6,\), got \(5,\)"),
    ({"goal": np.zeros((2, 6))}, r"goal: the robot has 6 joints .* got \(2, 6\)"),
    ({"goal": [0, 0, np.nan, 0, 0, 0]}, r"goal: q3 is nan \(NaN or infinity\)"),
    ({"start": "0 0 0 0 0 0"}, "start: expected 6 joint values, got the text"),
    ({"start": [0, 0, "a", 0, 0, 0]}, "start: expected 6 numbers"),
    ({"planner": "astar"}, "planner: unknown planner 'astar'; planners: rrtconnect, rrtstar, bitstar, prm"),
    ({"robot": "right"}, "robot: unknown robot 'right': the scene has arm"),
    ({"time_limit": 0}, "time_limit: expected a positive finite number ≤ 3600, got 0"),
    ({"time_limit": float("nan")}, "time_limit: expected a positive finite number"),
    ({"resolution": -1.0}, "resolution: expected a positive finite number, got -1.0"),
    ({"seed": 0}, "seed: expected a whole number from 1 to 4294967295, got 0"),
    ({"seed": 1.5}, "seed: expected a whole number"),
    ({"planner": "prm", "seed": 3}, "seed: OMPL's PRM grows its roadmap in a second thread"),
])
def test_bad_input_gets_a_clear_error(boxed, kwargs, message):
    args = {"start": START, "goal": GOAL, **kwargs}
    with pytest.raises(km.PlanError, match=message):
        km.plan(boxed, args.pop("start"), args.pop("goal"), **args)


def test_a_scene_is_required():
    with pytest.raises(km.InputTypeError, match="scene: expected a km.Scene, got str"):
        km.plan("kuka-table", np.zeros(6), np.zeros(6))


def test_ctrl_c_stops_a_plan_cleanly_even_in_prms_second_thread(tmp_path):
    # a Python exception crossing OMPL's C++ frames used to end the process (std::terminate) when
    # PRM's roadmap thread was running; now KeyboardInterrupt comes out of km.plan
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "ctrl_c.py"
    script.write_text(
        "import numpy as np, kinematica as km\n"
        "s = km.Scene(length_unit='mm')\n"
        "s.add_robot('arm', 'planar-3r')\n"
        "s.add_obstacle('wall', 'box', pose=km.spatial.transl([0, 16, 0]), size=(2, 10, 40))\n"
        "km.plan(s, [0.8, 0, 0], [2.3, 0, 0], time_limit=0.05)  # OMPL loaded before the signal\n"
        "print('planning', flush=True)\n"
        "try:\n"
        "    km.plan(s, [0.8, 0, 0], [2.3, 0, 0], planner='prm', time_limit=30)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n", encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline() == "planning\n"
        time.sleep(1.0)  # inside PRM's solve: no path exists, it would run for 30 s
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        child.kill()
    assert child.returncode == 0, err
    assert out == "interrupted\n"


def test_a_goal_pose_is_reached_at_one_of_its_collision_free_ik_solutions(boxed):
    r = boxed.robots["arm"].robot
    T = km.fk(r, GOAL)
    p = km.plan(boxed, START, km.targets.pose(T), seed=3, time_limit=1.0)
    assert p.success, p.reason
    assert "collision-free ones of the goal target" in p.reason
    # the last waypoint is an IK solution itself (km.ik_all's FK check: 1e-6 m and rad at most here)
    T_end = km.fk(r, p.path[-1])
    assert np.abs(T_end[:3, 3] - T[:3, 3]).max() < 1e-6 and np.abs(T_end[:3, :3] - T[:3, :3]).max() < 1e-6
    assert r.within_limits(p.path[-1]) and not boxed.check({"arm": p.path[-1]}).colliding
    assert not check_trajectory(boxed, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10).colliding


def test_a_goal_target_without_a_usable_ik_solution_is_refused_in_words(boxed):
    r = boxed.robots["arm"].robot
    in_box = km.fk(r, (START + GOAL) / 2)[:3, 3]  # every arm posture with the tool there has the forearm in the box
    p = km.plan(boxed, START, km.targets.position(in_box), time_limit=0.5)
    assert not p.success and p.status == "not run"
    assert p.reason.startswith("every IK solution of the goal target (") and "arm/link3 touches box" in p.reason
    far = km.plan(boxed, START, km.targets.position([3.0, 0.0, 0.0]), time_limit=0.5)
    assert far.reason.startswith("the goal target cannot be reached: target out of reach: |p| = 3 m")
    with pytest.raises(km.PlanError, match=r"goal: one target, not a stack of shape \(2,\)"):
        km.plan(boxed, START, km.targets.position([[0.5, 0, 0.3], [0.4, 0, 0.3]]))


def test_the_cores_bound_spares_coal_most_checks_and_changes_no_plan(boxed):
    # in exact mode, the same seeded plan with the bound and with coal alone: the same path (the
    # bound only proves free what coal would find free), coal asked about far fewer states
    from kinematica.plan import edges

    # (5 s: a seeded RRT-Connect stops at its first path, so the limit changes no plan; coal alone
    # can take most of a second, more on a loaded machine)
    p = km.plan(boxed, START, GOAL, seed=11, time_limit=5.0, exact=True)
    assert p.success, p.reason
    build = edges.EdgeChecker.build

    def coal_only(*args):
        return dataclasses.replace(build(*args), fast=None)

    edges.EdgeChecker.build = coal_only
    try:
        q = km.plan(boxed, START, GOAL, seed=11, time_limit=5.0, exact=True)
    finally:
        edges.EdgeChecker.build = build
    # measured (deterministic: the same seeded runs): 4574 exact checks alone, 1164 with the bound
    # (spheres and convex pieces; 2504 states measured in all). The Puma's capsules fitted to its Looks are fatter
    # than the 5 %-of-reach skeleton ones, so more states come near the box
    assert q.success, q.reason
    assert q.checker.exact_checks > 2.5 * p.checker.exact_checks
    np.testing.assert_array_equal(p.path, q.path)


# --- two arms planned together -------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_pandas():
    """Two Pandas facing each other across a shared table, 1.1 m apart; each starts with joint 1
    at +0.9 rad and must end at −0.9 rad, so their wrists pass each other's on the way."""
    s = km.Scene()
    s.add_robot("left", "panda", base=km.spatial.transl([0, -0.55, 0]) @ km.spatial.rotz(np.pi / 2))
    s.add_robot("right", "panda", base=km.spatial.transl([0, 0.55, 0]) @ km.spatial.rotz(-np.pi / 2))
    s.add_obstacle("table", "box", pose=km.spatial.transl([0, 0, -0.15]), size=(1.2, 2.0, 0.1))

    def arm(j1):
        q = km.load("panda").q_home.copy()
        q[0], q[1], q[3] = j1, 0.3, -1.9
        return q

    return s, {"left": arm(0.9), "right": arm(0.9)}, {"left": arm(-0.9), "right": arm(-0.9)}


def test_two_arms_plan_together_and_never_touch_each_other(two_pandas):
    scene, start, goal = two_pandas
    both = {n: (np.array([0.0, 1.0]), np.stack([start[n], goal[n]])) for n in start}
    straight = check_trajectory(scene, both, resolution=0.01)
    assert straight.colliding and any(a.split("/")[0] != b.split("/")[0] for a, b in straight.collisions)
    p = km.plan(scene, start, goal, seed=5, time_limit=10.0)
    assert p.success, p.reason
    assert p.robot == ("left", "right") and p.path.shape[1] == 14
    paths = p.paths
    np.testing.assert_array_equal(paths["left"][0], start["left"])
    np.testing.assert_array_equal(paths["right"][-1], goal["right"])
    # the independent check: coal through check_trajectory's own sampling, ten times finer, both arms moving
    rep = check_trajectory(scene, {n: (np.arange(len(q), dtype=float), q) for n, q in paths.items()},
                           resolution=p.resolution / 10)
    assert not rep.colliding, str(rep)
    with pytest.raises(TrajectoryError, match=r"Plan.trajectories\(vmax, amax\)"):
        p.trajectory(1.0, 2.0)
    # timed on one clock, each robot within its limits, the timed motion clear under coal
    tr = p.trajectories(1.0, 2.0)
    assert set(tr) == {"left", "right"}
    np.testing.assert_array_equal(tr["left"].t, tr["right"].t)
    for name, motion in tr.items():
        assert np.all(np.abs(motion.qd) <= 1.0 + 1e-6) and np.all(np.abs(motion.qdd) <= 2.0 + 1e-6)
        np.testing.assert_allclose(motion.q[0], start[name], atol=1e-9)
        np.testing.assert_allclose(motion.q[-1], goal[name], atol=1e-9)
    rep = check_trajectory(scene, {n: (m.t, m.q) for n, m in tr.items()}, resolution=p.resolution / 10)
    assert not rep.colliding, str(rep)


def test_a_group_goal_outside_the_limits_names_the_robot_and_joint(two_pandas):
    scene, start, goal = two_pandas
    p = km.plan(scene, start, dict(goal, left=np.full(7, 5.0)))
    assert not p.success and "the goal is outside the joint limits: left's panda_joint1 = 5 rad" in p.reason


@pytest.mark.parametrize("kwargs, message", [
    ({"goal": np.zeros(7)}, r"give the goal per robot too"),
    ({"goal": {"left": np.zeros(7)}}, r"goal: expected the robots of start \(left, right\)"),
    ({"robot": "left"}, r"leave robot= out"),
    ({"start": {"left": np.zeros(7), "middle": np.zeros(7)}}, r"start: unknown robot 'middle'"),
    ({"start": {"left": np.zeros(7), "right": np.zeros(6)}}, r"start\['right'\]: the robot has 7 joints"),
])
def test_a_group_query_with_bad_input_gets_a_clear_error(two_pandas, kwargs, message):
    scene, start, goal = two_pandas
    args = {"start": start, "goal": goal, **kwargs}
    with pytest.raises(km.PlanError, match=message):
        km.plan(scene, args.pop("start"), args.pop("goal"), **args)


def test_a_scene_changed_after_planning_is_seen_by_the_plans_checks():
    # the plan's checker keeps a snapshot of the scene in the core (its bound) and remembers edges:
    # moving the box onto the planned path must make the path fail its re-check, not pass on memory
    s = km.Scene()
    s.add_robot("arm", "puma560")
    s.add_obstacle("box", "box", pose=km.spatial.transl([0.6, -0.15, 0.28]), size=(0.15, 0.15, 0.15))
    p = km.plan(s, START, GOAL, seed=3)
    assert p.success and p.checker.path_free(p.path)
    mid = p.path[len(p.path) // 2]
    wrist = km.fk_frames(km.load("puma560"), mid)[5, :3, 3]
    s.move("box", km.spatial.transl(wrist))
    assert s.check({"arm": mid}).colliding
    assert not p.checker.path_free(p.path)
    with pytest.raises(TrajectoryError):
        p.trajectory(1.0, 2.0)


@pytest.mark.parametrize("time_limit", [0.005, 0.05, 0.3])
def test_the_time_limit_bounds_planning_and_simplification_together(boxed, time_limit):
    # the simplifier gets what the planner left of the limit; a path cut short is still the
    # simplified-so-far path, certified. Oracle: the plan's own clocks (not the machine's speed:
    # a 0.5 s allowance for OMPL and coal finishing the check under way) and check_trajectory
    p = km.plan(boxed, START, GOAL, seed=3, time_limit=time_limit)
    assert p.planning_time + p.simplification_time < time_limit + 0.5
    if p.success:
        rep = check_trajectory(boxed, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10)
        assert not rep.colliding, str(rep)
        assert p.checker.path_free(p.path)
    else:
        assert p.reason == f"no path found within {time_limit:g} s"


def test_past_the_deadline_only_remembered_edges_pass_so_a_cut_simplifier_keeps_its_path(boxed):
    # what lets a simplification cut by the clock end soon with a certified path: an edge judged
    # in time is answered from memory, a new one past the deadline is refused unjudged
    from kinematica.plan.edges import EdgeChecker

    r = boxed.robots["arm"].robot
    ec = EdgeChecker.build(boxed, "arm", r.limits[:, 0], r.limits[:, 1], resolution=0.01)
    qa, qb, qc = START, START + np.array([0.1, 0, 0, 0, 0, 0]), START + np.array([0.2, 0, 0, 0, 0, 0])
    assert ec.edge_free(qa, qb)
    ec.deadline = 0.0  # long past
    assert ec.edge_free(qa, qb) and not ec.edge_free(qb, qc)
    ec.deadline = np.inf
    assert ec.edge_free(qb, qc)


def test_progress_hears_of_every_edge_with_growing_time_and_checks():
    # the command line's progress lines come from this callback: called after each edge judged,
    # with the seconds since the plan began and the states checked so far, both never falling
    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "planar-3r")
    s.add_obstacle("wall", "box", pose=km.spatial.transl([0, 16, 0]), size=(2, 10, 40))
    heard = []
    p = km.plan(s, [0.8, 0, 0], [2.3, 0, 0], time_limit=0.3, progress=lambda t, n: heard.append((t, n)))
    assert not p.success and len(heard) > 10
    t, n = np.array(heard).T
    assert np.all(np.diff(t) >= 0) and np.all(np.diff(n) >= 0) and n[-1] <= p.checks
    assert 0 < t[-1] < 0.3 + 0.5  # (a 0.5 s allowance for the edge under way, as above)


@pytest.mark.parametrize("exact", [True, False])
def test_the_fast_model_and_the_exact_meshes_both_give_paths_coal_finds_clear(boxed, exact):
    # exact=False plans on the core's model alone (spheres, convex pieces, tables: all containing
    # the links), exact=True asks coal wherever the model cannot tell; either path is free under
    # coal's own check at a tenth of the resolution (the independent oracle)
    p = km.plan(boxed, START, GOAL, seed=5, exact=exact)
    assert p.success, p.reason
    assert p.checker.exact is exact
    rep = check_trajectory(boxed, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10)
    assert not rep.colliding, str(rep)
    if not exact:
        assert p.checker.exact_checks == 0  # (coal never asked while planning)


def test_a_smoothed_path_that_fails_its_re_check_falls_back_to_the_path_before_smoothing(boxed):
    # OMPL's B-spline pass halves edges it does not judge; when the smoothed path fails the re-check
    # the simplified path before smoothing (its edges judged) stands in, then the planner's own
    import math

    from kinematica.plan.edges import EdgeChecker
    from kinematica.plan.planner import _recertified
    from kinematica.plan.solver import Solved

    r = boxed.robots["arm"].robot
    ec = EdgeChecker.build(boxed, "arm", r.limits[:, 0], r.limits[:, 1], resolution=0.01)
    p = km.plan(boxed, START, GOAL, seed=7)
    assert p.success and p.raw_path is not None
    through = np.stack([START, GOAL])  # through the box
    around = p.path
    got = Solved(through, p.raw_path, "Exact solution", 0.0, 0.0, unsmoothed=around, deadline=math.inf)
    path, note = _recertified(ec, got)
    assert path is around and note == " (smoothing left out: the smoothed path failed its re-check)"
    path, note = _recertified(ec, dataclasses.replace(got, unsmoothed=through))
    assert path is p.raw_path and note == " (unsimplified: the simplified path failed its re-check)"
    path, note = _recertified(ec, dataclasses.replace(got, unsmoothed=None, raw=through))
    assert path is None and "touches the scene on edge 0" in note


def test_a_goal_nearer_the_scene_than_the_models_tolerance_is_planned_on_the_meshes_not_refused():
    # MotionBenchMaker's UR5 bookshelf_tall 92: a goal 0.13 mm from a shelf had a positive bound
    # from the core, but the model's state check (GJK stopped within its tolerance, 5 % of the
    # resolution) found it not free, so OMPL answered "Invalid goal". The same here: the
    # example-robot-data UR5 0.1 mm from a post. The plan now asks coal there (exact mode).
    import sysconfig
    from pathlib import Path

    from kinematica.plan.edges import EdgeChecker

    share = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share"
    urdf = share / "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
    if not urdf.is_file():
        pytest.skip("example-robot-data is not installed")
    s = km.Scene()
    s.add_robot("arm", km.load(urdf, package_dirs=[share]))
    s.add_obstacle("post", "box", pose=km.spatial.transl([0.45, 0.2, 0.3]), size=(0.1, 0.1, 0.6))
    goal = np.array([0.33364393168468576, -1.35461742156113, 0.8556433165885524, 0.9591728807443856,
                     -0.9321266064965072, 0.40621357685549314])
    start = np.array([-1.0, *goal[1:]])
    assert s.distance({"arm": goal}, self_pairs=False).min_distance == pytest.approx(1e-4, abs=1e-6)
    p = km.plan(s, start, goal, seed=2)
    r = s.robots["arm"].robot
    ec = EdgeChecker.build(s, "arm", r.limits[:, 0], r.limits[:, 1], p.resolution)
    assert ec.fast is not None and ec.fast.bound(goal[None])[0] > 0 and not ec.model_free(goal[None])[0]
    assert p.success, p.reason
    assert not check_trajectory(s, {"arm": _as_motion(p.path)}, resolution=p.resolution / 10).colliding
