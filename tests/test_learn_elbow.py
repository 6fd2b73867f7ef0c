"""The coordinates learned arm models work in (`learn.elbow`): the elbow's cosine is an affine
function of the wrist point's squared distance from the shoulder (the law of cosines, so exact to
rounding), the conversion back is the inverse, and membership spacing crowded towards the ends
fits a square-root end better than even spacing does."""

import numpy as np
import pytest

import kinematica as km
from kinematica.learn import anfis, elbow
from kinematica.learn import sampling as S
from kinematica.learn.sampling import branch, fk_targets, front, inputs, sample_joints


@pytest.mark.parametrize("name", ["arm-5dof", "kuka-kr6-r900", "braccio"])
def test_the_elbows_cosine_is_affine_in_the_shoulder_distance(name):
    robot = km.load(name)
    br = branch(robot, "elbow+")
    q = sample_joints(br, 400, np.random.default_rng(3), robot)  # not the draw the coordinates came from
    X = inputs(robot, fk_targets(robot, q), front(robot, br), br)
    el = elbow.of_branch(robot, br)
    s = elbow.coordinates(el, X)[:, 1]
    c = np.cos(q[:, 2] - el.straight)
    A = np.column_stack([s, np.ones_like(s)])
    coef, *_ = np.linalg.lstsq(A, c, rcond=None)
    # r² = A + B cos(θ3 − θ3*): the residual is rounding (~1e-16 of s's and c's ~1 scale); a wrong
    # shoulder or straight angle leaves a residual of the order of the offsets (1e-2)
    assert np.abs(A @ coef - c).max() < 1e-9
    assert np.all(el.side * np.sin(q[:, 2] - el.straight) > 0)  # one side of straight across the branch
    # and back: θ3 from its cosine (arccos loses ~√ε only within ~1e-8 rad of straight, which no sample is)
    y = elbow.to_outputs(el, q[:, :3], 2)
    assert np.allclose(elbow.from_outputs(el, y, 2, br.box[2])[:, 2], q[:, 2], atol=1e-7)


def test_a_cosine_beyond_one_straightens_the_elbow():
    # a target out of reach asks for cos > 1: the answer is the straight elbow, not NaN
    el = elbow.Elbow(np.zeros(2), 0.3, -1.0)
    q = elbow.from_outputs(el, np.array([[0.0, 0.0, 1.2], [0.0, 0.0, -1.5]]), 2, np.array([-3.0, 0.3]))
    assert q[0, 2] == pytest.approx(0.3) and q[1, 2] == pytest.approx(0.3 - np.pi)


def test_where_the_law_does_not_hold_the_model_reads_the_wrist_point_as_it_is():
    # the SO-101's wrist point, as the inputs read it, lies up to 26 mm off the arm's plane: its
    # joints 2 and 3 are parallel, but the cosine is not affine in s there (residual ~0.8)
    for name in ("so101", "puma560"):  # the Puma's wrist centre sits beside joint 1's axis: residual 0.1
        robot = km.load(name)
        assert elbow.fits(robot) and elbow.of_branch(robot, branch(robot, "elbow+")) is None
    arm = km.load("arm-5dof")
    assert elbow.of_branch(arm, branch(arm, "elbow+,q3=30..30")) is None  # θ3 held
    # a box across the straight elbow: cos(θ3 − θ3*) is the same for θ3 = ±10°, so no coordinates
    assert elbow.of_branch(arm, S.Branch("across", np.where(np.arange(5)[:, None] == 2, np.radians([-30.0, 60.0]),
                                                            branch(arm, "elbow+").box))) is None


def test_arms_whose_joints_2_and_3_cross_do_not_fit():
    # a robot whose joint 3 axis is turned 90° from joint 2's: the wrist point's distance from
    # joint 2's axis then depends on θ2's neighbours too, and no cosine law holds
    def arm(twist2: float):
        return km.from_dh([{"d": 0.1, "a": 0.0, "alpha": np.pi / 2}, {"d": 0.0, "a": 0.2, "alpha": twist2},
                           {"d": 0.0, "a": 0.2, "alpha": 0.0}, {"d": 0.1, "a": 0.0, "alpha": 0.0}])

    crossed, straight = arm(np.pi / 2), arm(0.0)
    assert not elbow.fits(crossed) and elbow.fits(straight)


def test_end_spacing_fits_a_square_root_end_better_than_even_spacing():
    # f = √(1 − x) has an unbounded slope at x = 1, as joint 2 has at the straight elbow. Least
    # squares alone with 8 memberships: measured RMSE 5.6e-3 even, 3.6e-3 at the Chebyshev–Lobatto
    # points; the even grid's centres and widths are today's (spacing "even" is the default)
    x = np.linspace(-1, 1, 400)[:, None]
    y = np.sqrt(1 - x[:, 0])
    even, ends = anfis.grid(1, 8), anfis.grid(1, 8, spacing="ends")
    assert np.allclose(even.c[0, 0], np.linspace(-1, 1, 8)) and np.allclose(ends.c[0, 0], -np.cos(np.pi * np.arange(8) / 7))
    rmse = [anfis.train(net, x, y, epochs=1)[1][0, 0] for net in (even, ends)]
    assert rmse[1] < 0.75 * rmse[0]
    with pytest.raises(anfis.AnfisError, match="spacing must be one of even, ends"):
        anfis.grid(1, 8, spacing="chebyshev")


def test_the_explanation_turns_the_cosine_back_into_the_joint():
    # the Math tab and `learn explain` show the network's own numbers: for the elbow joint the sum
    # is the cosine, and the joint value is θ3* + side·arccos of it — the model's own answer
    from kinematica.cli.text_learn import explain_text
    from kinematica.explain import explain, render
    from kinematica.learn import train_ik
    from kinematica.learn.explain import explain_answer

    m = train_ik("arm-5dof", samples=600, rules=8, epochs=2, warm_start=0)
    q = np.radians([20.0, 30.0, 50.0, -20.0, 0.0])  # inside the branch box: no clipping
    T = km.fk(m.robot, q)
    t = km.targets.approach(T[:3, 3], T[:3, 2])
    e = explain_answer(m, t)
    assert list(e["inputs"]) == ["ψ", "s", "β"] and list(e["wrist_point"]) == ["ψ", "ρw", "zw"]
    j3 = e["joints"][2]
    assert j3["output"] == "cos(q3 − q3*)" and j3["sum"] == pytest.approx(np.cos(j3["value"] - m.elbow.straight), abs=1e-12)
    assert j3["value"] == pytest.approx(m.answer(t)[2], abs=1e-12)
    assert all(j["value"] == j["sum"] for j in e["joints"][:2])
    doc = explain(m.robot, "anfis", model=m, target=t)
    steps = {s.title: " ".join(st.text for st in s.steps) for s in doc.sections}
    assert "from the shoulder" in steps["Layer 0: the inputs, scaled"]
    assert "θ3 = θ3* + arccos(c) = 50.000°" in steps["Joint θ3"]  # measured 50.000° (600 samples): bound 0.001°
    assert "arccos" not in steps["Joint θ2"] and "The answer misses by" in render(doc, "text")
    assert "so q3 =" in explain_text({**e, "model": "m.npz", "robot": "arm-5dof", "branch": "elbow+"})
