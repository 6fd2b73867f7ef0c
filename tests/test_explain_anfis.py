"""The Math explanation of an ANFIS answer (explain/anfis.py): its numbers against the network's
own forward pass, for grid and clustered rules, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sympy")  # the explain extra: skipped in a core-only install
pytest.importorskip("latex2mathml")
pytest.importorskip("mathjax")

import kinematica as km
from kinematica.explain import explain, render
from kinematica.learn import WrongRobotError, train_ik
from kinematica.learn.anfis import forward
from kinematica.learn.sampling import front, inputs
from kinematica.learn.scaling import apply


@pytest.fixture(scope="module", params=["grid", "cluster"])
def model(request):
    return train_ik("planar-3r", samples=1200, rules=27, epochs=2, partition=request.param, warm_start=0)


def layers(model, target):
    x = apply(model.scaling, inputs(model.robot, target, front(model.robot, model.branch), model.branch))
    return forward(model.net, x)


def tables(doc, title_start: str):
    return [st.table for s in doc.sections if s.title.startswith(title_start) for st in s.steps if st.table]


def test_the_rule_table_is_the_networks_own_forward_pass(model) -> None:
    T = km.fk(model.robot, np.radians([25.0, 40.0, -30.0]))
    t = km.targets.planar(T[:2, 3], np.arctan2(T[1, 0], T[0, 0]))
    doc = explain(model.robot, "anfis", model=model, target=t)
    L = layers(model, t)
    for k, j in enumerate(model.branch.learned):
        _, rules = tables(doc, f"Joint θ{j + 1}")
        wbar, f = L["wbar"][k, 0], L["f"][k, 0]
        ranked = np.argsort(-wbar)
        shown = [int(r[0]) - 1 for r in rules.rows]
        assert shown == ranked[: len(shown)].tolist()  # the strongest rules, strongest first
        w = np.array([r[2] for r in rules.rows])
        # the firing strengths multiplied out from the degrees shown: in the same ratio as w̄
        # (both are products of the same exp(...) factors: relative round-off ~1e-15 per factor)
        np.testing.assert_allclose(w / w[0], wbar[shown] / wbar[shown[0]], rtol=1e-9)
        np.testing.assert_allclose([r[3] for r in rules.rows], wbar[shown], rtol=1e-12)
        np.testing.assert_allclose([r[4] for r in rules.rows], f[shown], rtol=1e-12)
    text = render(doc, "text")
    assert "The answer misses by" in text


def test_a_batch_and_another_robot_are_refused(model) -> None:
    t = km.targets.planar([[30, 20], [20, 30]], [1.0, 1.2])
    with pytest.raises(ValueError, match="one target"):
        explain(model.robot, "anfis", model=model, target=t)
    with pytest.raises(WrongRobotError, match="trained for 'planar-3r'"):
        explain("braccio", "anfis", model=model, target=km.targets.position([100, 0, 100]))
