"""IK with secondary goals: the freedom a solved target leaves is used to lower a cost (limits,
manipulability, rest pose) while the tool stays on the target — checked by FK after the fact,
against the same solves without goals (equal success, the stated measure improved)."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from kinematica.ik.secondary import cost

PANDA = km.load("panda")
LO, HI = PANDA.limits.T
Q = np.random.default_rng(0).uniform(LO, HI, (80, 7))
T = km.fk(PANDA, Q)


def on_target(robot, res, T):
    Tq = km.fk(robot, res.q[res.success])
    assert np.all(np.linalg.norm(Tq[:, :3, 3] - T[res.success][:, :3, 3], axis=1) < 1e-6)
    assert np.all(robot.within_limits(res.q[res.success]))


@pytest.mark.parametrize("goal", ["limits", "manipulability", "rest"])
def test_a_redundant_arm_improves_each_goal_and_stays_on_target(goal):
    """Measured on 300 Panda pose targets: min distance to a limit (share of range) 0.090 →
    0.110 with "limits"; manipulability 0.0458 → 0.0552 with "manipulability"; distance from
    home 3.31 → 3.14 rad with "rest"; success 100 % in every case."""
    plain = km.ik(PANDA, T)
    better = km.ik(PANDA, T, secondary={goal: 1.0}, rest=PANDA.q_home if goal == "rest" else None)
    assert better.success.sum() == plain.success.sum()
    on_target(PANDA, better, T)
    both = plain.success & better.success
    t = km.targets.pose(T[both])
    h0 = cost(PANDA, t, plain.q[both], {goal: 1.0}, PANDA.q_home)
    h1 = cost(PANDA, t, better.q[both], {goal: 1.0}, PANDA.q_home)
    assert np.all(h1 <= h0 + 1e-12)  # a step is kept only if it lowers the cost
    assert np.mean(h0 - h1) > 0.01 * np.mean(np.abs(h0))


def test_a_position_target_leaves_three_freedoms_for_the_rest_pose():
    puma = km.load("puma560")
    q = np.random.default_rng(1).uniform(*puma.limits.T, (20, 6))
    p = km.fk(puma, q)[:, :3, 3]
    rest = np.zeros(6)
    plain = km.ik(puma, p, q0="random", seed=3)
    near = km.ik(puma, p, q0="random", seed=3, secondary={"rest": 1.0}, rest=rest)
    assert near.success.all() and plain.success.all()
    assert np.all(np.linalg.norm(km.fk(puma, near.q)[:, :3, 3] - p, axis=1) < 1e-6)
    assert np.linalg.norm(near.q - rest, axis=1).mean() < 0.8 * np.linalg.norm(plain.q - rest, axis=1).mean()


def test_a_full_pose_on_a_six_joint_arm_leaves_nothing_to_improve():
    puma = km.load("puma560")
    q = np.random.default_rng(2).uniform(*puma.limits.T, (10, 6))
    Tp = km.fk(puma, q)
    plain = km.ik(puma, Tp)
    same = km.ik(puma, Tp, secondary={"limits": 1.0})
    # no null space: only the corrections onto the target act, moving q by about the solver's
    # own residual (≤ 1e-6 m at the tool ~ 1e-6 rad), never to another configuration
    assert same.success.all()
    np.testing.assert_allclose(same.q, plain.q, atol=1e-5)


def test_one_target_and_an_unreachable_one():
    res = km.ik(PANDA, T[0], secondary={"limits": 1.0})
    assert res.success and np.ndim(res.q) == 1
    far = T[0].copy()
    far[:3, 3] = [5.0, 0, 0]
    miss = km.ik(PANDA, far, secondary={"limits": 1.0})
    assert not miss.success and "reach" in miss.reason


@pytest.mark.parametrize("secondary, rest, words", [
    ({"speed": 1.0}, None, "unknown objective"),
    ({"limits": -1.0}, None, "≥ 0"),
    (["limits"], None, "dict"),
    ({"rest": 1.0}, [0, 0], "rest"),
    ({"rest": 1.0}, None, "needs its rest pose: pass rest="),  # was accepted silently, home assumed
    ({"limits": 1.0}, np.zeros(7), 'input of the secondary goal "rest"'),
    (None, np.zeros(7), 'input of the secondary goal "rest"'),
])
def test_bad_goals_are_refused_in_words(secondary, rest, words):
    with pytest.raises((TypeError, ValueError), match=words):
        km.ik(PANDA, T[0], secondary=secondary, rest=rest)


def test_the_cli_takes_goals_and_refuses_what_does_not_go_with_them(capsys):
    from cli_run import run, run_json

    argv = ["ik", "panda", "--position", "0.4", "0.1", "0.5", "--rpy", "180", "0", "0", "--deg"]
    plain = run_json(capsys, *argv)
    kept = run_json(capsys, *argv, "--goal", "limits=1")
    (a,), (b,) = plain["solutions"], kept["solutions"]
    assert plain["message"] == kept["message"] == "converged"
    t = km.targets.pose(km.fk(PANDA, np.array(a["q"]))[None])
    h = [cost(PANDA, t, np.array(d["q"])[None], {"limits": 1.0}, PANDA.q_home)[0] for d in (a, b)]
    assert h[1] < h[0]
    for extra, words in ((["--goal", "speed=1"], "unknown objective"), (["--goal", "limits"], "NAME=WEIGHT"),
                         (["--rest", "0", "0", "0", "0", "0", "0", "0"], "--goal rest"),
                         (["--goal", "limits=1", "--all"], "does not go with --all")):
        code, out, err = run(capsys, *argv, *extra)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, err


def test_limits_goal_needs_a_limit():
    free = PANDA.replace(limits=np.tile([-np.inf, np.inf], (7, 1)))
    with pytest.raises(ValueError, match="no joint of .* has a finite limit"):
        km.ik(free, T[0], secondary={"limits": 1.0})


@pytest.mark.parametrize("name", [n for n in km.robot_names() if km.load(n).n == 5])
def test_manipulability_on_a_five_joint_arm_with_an_approach_target(name):
    """An approach target constrains 6 residual rows (rank 5); on 5 joints J Jᵀ (6×6) is
    singular everywhere, and its log-det made the gradient NaN ("q: contains NaN or infinity").
    The measure now takes JᵀJ (5×5), finite wherever the arm is not singular."""
    robot = km.load(name)
    q = np.clip([.3, .2, -.4, .5, .1], robot.limits[:, 0], robot.limits[:, 1])
    T = km.fk(robot, q)
    goal = km.targets.approach(T[:3, 3], T[:3, 2])
    res = km.ik(robot, goal, secondary={"manipulability": 1})
    assert res.success
    Tq = km.fk(robot, res.q)
    scale = np.abs(T[:3, 3]).max()
    assert np.linalg.norm(Tq[:3, 3] - T[:3, 3]) < 1e-6 * max(1.0, scale)
    assert np.degrees(np.arccos(np.clip(Tq[:3, 2] @ T[:3, 2], -1, 1))) < 1e-4
    with np.errstate(all="raise"):  # and finite on the way: no inf − inf in the gradient
        cost(robot, goal, q[None], {"manipulability": 1.0}, q)
