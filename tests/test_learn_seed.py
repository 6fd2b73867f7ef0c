"""A learned IK model as LM's start (`km.ik(robot, target, q0=model)`) takes every target kind LM
takes (issue 32, item 9): a target that leaves free the orientation the network reads — a
position alone, a planar point without its heading, a 6R arm's position + approach — is
answered with the orientation the model picks (`learn.complete`), and LM finishes from there.

Models are small (1 500–2 000 samples, seeds fixed: a few seconds each); targets are FK of
fresh joint values of the model's branch, so each is reachable and the seed's quality is
measurable against a known answer."""

import numpy as np
import pytest

import kinematica as km
from kinematica.learn import train_ik
from kinematica.learn.complete import needs_orientation
from kinematica.learn.evaluate import fresh_test

TOOL = {"planar-3r": 1e-3, "arm-5dof": 1e-6, "kuka-kr6-r900": 1e-6}  # LM's default position tolerance (mm / m)


@pytest.fixture(scope="module", params=["planar-3r", "arm-5dof", "kuka-kr6-r900"])
def model(request):
    sizes = {"planar-3r": dict(samples=1500, rules=27, epochs=4), "arm-5dof": dict(samples=2000, rules=16, epochs=4),
             "kuka-kr6-r900": dict(samples=2000, rules=30, epochs=3)}
    return train_ik(request.param, warm_start=0, **sizes[request.param])


def every_kind(robot: km.Robot, T: np.ndarray) -> dict[str, km.Target]:
    """Every target kind of the tool poses T (N, 4, 4) that LM itself accepts on this robot."""
    C0 = robot.C[0]  # a pitch is read in the vertical plane through joint 1's axis (paper 003)
    p, a = (T[:, :3, 3] - C0[:3, 3]) @ C0[:3, :3], T[:, :3, 2] @ C0[:3, :3]
    pitch = np.arctan2(a[:, 2], (a[:, :2] * p[:, :2]).sum(1) / np.linalg.norm(p[:, :2], axis=1))
    kinds = {"position": km.targets.position(T[:, :3, 3]), "pose": km.targets.pose(T),
             "approach": km.targets.approach(T[:, :3, 3], T[:, :3, 2]),
             "pitch": km.targets.approach(T[:, :3, 3], pitch=pitch),
             "planar": km.targets.planar(T[:, :2, 3]),
             "planar-phi": km.targets.planar(T[:, :2, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0]))}
    accepted = {}
    for name, t in kinds.items():
        try:
            km.ik(robot, t[0])  # LM from home: what LM accepts decides what the seed must
        except ValueError:
            continue
        accepted[name] = t
    return accepted


def test_the_model_seeds_lm_on_every_target_kind_lm_accepts(model):
    robot, reach = model.robot, model.report["reach"]
    q, _ = fresh_test(model, 40, np.random.default_rng(3))
    T = km.fk(robot, q)
    kinds = every_kind(robot, T)
    assert "position" in kinds and "pose" in kinds  # the kinds the issue names, on every robot here
    assert any(needs_orientation(model, t) for t in kinds.values())  # some kind exercises the model's pick
    for name, t in kinds.items():
        seed = model.seeds_for(robot, t)
        assert seed.shape == (40, robot.n)
        # the start is a real answer for the target: its tool lands near it. Measured medians
        # 0.2–1.3 % of the reach (pose models: up to 3.5 %); bound 10 %, a seed, not a solution
        miss = np.linalg.norm(km.fk(robot, seed)[:, :3, 3] - T[:, :3, 3], axis=1)
        assert np.median(miss) < 0.10 * reach, name
        r, home = km.ik(robot, t, q0=model), km.ik(robot, t)
        assert r.success.sum() >= home.success.sum(), name  # never worse than LM from home
        # every target but a pitch one is the tool's own pose: solvable. A 6R arm's tool z axis
        # leaves the vertical plane through joint 1, so a pitch of it is another, maybe unreachable, goal
        assert r.success.all() or name == "pitch", (name, r.reason)
        # an independent judge: FK of the solutions against the positions asked for
        err = np.linalg.norm(km.fk(robot, r.q)[:, :3, 3] - T[:, :3, 3], axis=1)
        assert err[r.success].max() < 10 * TOOL[robot.name], name


def test_a_position_alone_gets_the_orientation_whose_answer_lands_nearest(model):
    """The model's pick is its best guess among the candidates: its answer to the position alone
    misses by no more than its answer with the true orientation given, on the median (the true
    orientation is one the branch reaches; the pick may choose another that suits the network
    better, never a worse one by the score)."""
    robot = model.robot
    q, full = fresh_test(model, 60, np.random.default_rng(4))
    T = km.fk(robot, q)
    alone = km.targets.position(T[:, :3, 3])
    assert needs_orientation(model, alone)
    picked = np.linalg.norm(km.fk(robot, model.answer(alone))[:, :3, 3] - T[:, :3, 3], axis=1)
    given = np.linalg.norm(km.fk(robot, model.answer(full))[:, :3, 3] - T[:, :3, 3], axis=1)
    assert np.median(picked) <= np.median(given) * 1.05  # 5 %: candidates are 10–15° apart (or a 64-sample set)
    one = model.answer(alone[7])  # one target answers as in the batch: the pick is per target
    np.testing.assert_allclose(one, model.answer(alone)[7], rtol=0, atol=1e-12)


def test_the_model_alone_answers_a_position_and_is_judged_on_it(model):
    robot = model.robot
    q, _ = fresh_test(model, 20, np.random.default_rng(5))
    T = km.fk(robot, q)
    r = km.ik(robot, km.targets.position(T[:, :3, 3]), method="anfis", model=model)
    miss = np.linalg.norm(km.fk(robot, r.q)[:, :3, 3] - T[:, :3, 3], axis=1)
    np.testing.assert_allclose(r.position_error, miss, rtol=1e-9, atol=1e-12)  # FK judges the position only
    assert np.all(r.orientation_error == 0)
