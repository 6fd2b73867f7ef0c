"""Learned IK and dynamics (ANFIS, paper 002): the network against oracles (finite differences,
functions it can represent exactly), hybrid learning's monotone error, held-out accuracy of
per-branch IK models, the warm start, honest verdicts, model files and bad input.

Sample counts are small (3 000 FK samples, seeds fixed) so that the whole file runs in well
under a minute; the accuracy bounds below are looser than the benchmark's targets
(`benchmarks/bench_anfis.py` trains on 10 000) by the margins stated beside them."""

import io
import json
import zipfile

import numpy as np
import pytest
from dataclasses import replace
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica.learn import (AnfisError, LearnError, ModelFileError, WrongRobotError, anfis, load_model,
                              save_model, train_dynamics, train_ik)
from kinematica.learn.cluster import fuzzy_c_means
from kinematica.learn.evaluate import answer_errors, fresh_test
from kinematica.learn import sampling as S
from kinematica.learn.scaling import apply, fit


# --- the network --------------------------------------------------------------------------
def test_layers_are_a_normalised_weighted_sum():
    rng = np.random.default_rng(0)
    net = anfis.grid(3, [2, 3, 2], "bell", outputs=2)
    net = replace(net, theta=rng.standard_normal(net.theta.shape))
    x = rng.uniform(-1.5, 1.5, (50, 3))
    L = anfis.forward(net, x)
    assert net.n_rules == 12 and np.allclose(L["wbar"].sum(axis=-1), 1.0, atol=1e-12)
    # layer 5 by hand: rule r's firing is the product of its memberships (layer 2's max scaling divides out)
    mu = L["mu"]
    w = np.prod([mu[:, :, i, net.rules[:, i]] for i in range(3)], axis=0)
    y = np.einsum("knr,knr->kn", w / w.sum(-1, keepdims=True), L["f"])
    assert np.allclose(y, L["y"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", ["gauss", "bell"])
def test_premise_gradient_matches_finite_differences(shape):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (300, 2))
    y = np.sin(2 * x[:, :1]) + x[:, 1:] ** 2
    net = anfis.grid(2, 3, shape)
    net = replace(net, c=net.c + 0.1 * rng.standard_normal(net.c.shape), theta=rng.standard_normal(net.theta.shape))
    gc, gs = anfis.premise_gradient(net, x, y, anfis.forward(net, x))
    h = 1e-6  # central differences: error O(h²)·E''' ≈ 1e-12 plus rounding 1e-16/h ≈ 1e-10
    for name, g in (("c", gc), ("sigma", gs)):
        base = getattr(net, name)
        for idx in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[idx] += h
            down[idx] -= h
            num = (anfis.mse(replace(net, **{name: up}), x, y) - anfis.mse(replace(net, **{name: down}), x, y)) / (2 * h)
            assert num[0] == pytest.approx(g[idx], abs=1e-7)


def test_a_plane_is_represented_exactly():
    # every rule's consequent can be the same plane, so least squares must find it (to rounding)
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (400, 3))
    y = x @ [0.3, -1.2, 2.0] + 0.7
    net, hist = anfis.train(anfis.grid(3, 2), x, y, epochs=2)
    assert hist[-1, 0] < 1e-9
    xt = rng.uniform(-1, 1, (100, 3))
    assert np.allclose(anfis.predict(net, xt)[:, 0], xt @ [0.3, -1.2, 2.0] + 0.7, atol=1e-8)


@pytest.mark.parametrize("shape", ["gauss", "bell"])
def test_fits_a_known_smooth_function(shape):
    # sin(1.5 x)·cos(y) on [-1, 1]²: 25 local planes blended; measured RMSE 1.4e-3 (gauss) and
    # 1.7e-3 (bell) on fresh points — bound 5e-3 (a piecewise-linear fit at this spacing errs by
    # h²·|f''|/8 ≈ 0.5²·2.3/8 ≈ 0.07 at worst; the blend does far better, but not by another 10×)
    rng = np.random.default_rng(3)
    f = lambda x: np.sin(1.5 * x[:, 0]) * np.cos(x[:, 1])  # noqa: E731
    x = rng.uniform(-1, 1, (1500, 2))
    net, _ = anfis.train(anfis.grid(2, 5, shape), x, f(x), epochs=10)
    xt = rng.uniform(-1, 1, (2000, 2))
    assert np.sqrt(np.mean((anfis.predict(net, xt)[:, 0] - f(xt)) ** 2)) < 5e-3


@pytest.mark.parametrize("shape", ["gauss", "bell"])
def test_hybrid_learning_lowers_the_error_every_epoch_on_a_convex_case(shape):
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (1500, 2))
    _, hist = anfis.train(anfis.grid(2, 3, shape), x, (x ** 2).sum(axis=1), epochs=10)
    assert np.all(np.diff(hist[:, 0]) < 0)


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_hybrid_learning_never_raises_the_training_error(seed, m):
    # the consequent solve is the exact minimiser and premise steps are taken only when they help
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (200, 2))
    y = np.tanh(3 * x[:, 0] * x[:, 1]) + rng.normal(0, 0.05, 200)
    _, hist = anfis.train(anfis.grid(2, m), x, y, epochs=4)
    assert np.all(np.diff(hist[:, 0]) <= 1e-12 * hist[0, 0])


def test_fuzzy_c_means_finds_separated_clusters():
    rng = np.random.default_rng(5)
    centres = np.array([[-0.6, -0.6], [0.6, -0.4], [0.0, 0.7]])
    x = np.concatenate([c + rng.normal(0, 0.05, (100, 2)) for c in centres])
    v, s = fuzzy_c_means(x, 3, rng=rng)
    order = [int(np.argmin(np.linalg.norm(v - c, axis=1))) for c in centres]
    assert sorted(order) == [0, 1, 2]
    assert np.allclose(v[order], centres, atol=0.03)  # the sample means differ from the centres by ~0.05/√100
    assert np.all(s < 0.2)


@settings(max_examples=20)
@given(st.floats(1.05, 3.0), st.integers(0, 1000))
def test_fuzzy_c_means_stays_finite_for_any_fuzziness(m, seed):
    # small m once overflowed d^(−2/(m−1)); samples sitting on a centre divide by zero distances
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-1, 1, (60, 6)), np.zeros((5, 6))])  # duplicates, one of them a start
    v, s = fuzzy_c_means(x, 8, fuzziness=m, rng=rng)
    assert np.all(np.isfinite(v)) and np.all(np.isfinite(s)) and np.all(np.abs(v) <= 1 + 1e-12)


def test_scaling_cuts_an_angle_where_the_data_is_thinnest():
    rng = np.random.default_rng(6)
    phi = rng.uniform(np.pi - 1, np.pi + 1, 500)  # straddles ±π: a naive atan2 cut splits it in two
    X = np.column_stack([rng.uniform(0, 10, 500), np.angle(np.exp(1j * phi))])
    s = fit(X, (False, True))
    Z = apply(s, X)
    assert Z.min() == pytest.approx(-1) and Z.max() == pytest.approx(1)
    assert np.ptp(Z[:, 1]) * (s.hi[1] - s.lo[1]) / 2 < 2.01  # the angles stay one interval of width 2


# --- IK models ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def planar():
    return train_ik("planar-3r", samples=3000, rules=64, epochs=5, warm_start=100)


def _teacher(shape: str, rng: np.random.Generator) -> anfis.Anfis:
    """A 2-input, 3 × 3 network whose memberships are moved off the default grid's: data made by
    it has a known optimum for a student starting from that grid, zero error at its parameters."""
    net = anfis.grid(2, 3, shape)
    dc = 0.5 * np.array([[[0.25, -0.3, 0.2], [-0.2, 0.35, -0.25]]])
    ws = np.sqrt(np.array([[[0.6, 1.3, 0.8], [1.2, 0.7, 0.9]]]))
    return replace(net, c=net.c + dc, sigma=net.sigma * ws, theta=rng.normal(0, 1, net.theta.shape))


def test_premise_training_finds_a_known_optimum():
    # the student starts on the default grid, where least squares alone leaves an RMSE of 2.4e-2
    # (4 % of y's spread); the teacher's own parameters give 0. Measured: 1e-9 after 10 epochs and
    # the centres to 1e-6 — bounds 1e-6 and 1e-3, far above rounding and far below the LS-only fit.
    rng = np.random.default_rng(5)
    teacher = _teacher("gauss", rng)
    x = rng.uniform(-1, 1, (600, 2))
    y = anfis.predict(teacher, x)[:, 0]
    net, hist = anfis.train(anfis.grid(2, 3), x, y, epochs=15)
    assert hist[0, 0] > 0.01 * np.std(y)  # row 0 is the least-squares-only fit: far from the optimum
    assert np.all(np.diff(hist[:4, 0]) < 0)  # and every premise step past it strictly improves on it
    assert hist[-1, 0] < 1e-6 * np.std(y)
    assert np.allclose(net.c, teacher.c, atol=1e-3) and np.allclose(net.sigma, teacher.sigma, rtol=1e-3)


def test_early_stopping_keeps_the_epoch_with_the_lowest_validation_error():
    # 16 rules on 60 very noisy samples overfit: the validation error rises after a few epochs, so
    # training must stop `patience` epochs after its minimum and return that epoch's network
    rng = np.random.default_rng(5)
    teacher = _teacher("gauss", rng)
    xs, xv = rng.uniform(-1, 1, (60, 2)), rng.uniform(-1, 1, (300, 2))
    ys = anfis.predict(teacher, xs)[:, 0] + rng.normal(0, 0.3, 60)
    yv = anfis.predict(teacher, xv)[:, 0] + rng.normal(0, 0.02, 300)
    net, hist = anfis.train(anfis.grid(2, 4), xs, ys, epochs=40, x_val=xv, y_val=yv, patience=3)
    best = int(np.argmin(hist[:, 1, 0]))
    assert len(hist) == best + 4 < 40
    assert np.sqrt(anfis.mse(net, xv, yv))[0] == pytest.approx(hist[best, 1, 0], rel=1e-12)


@pytest.mark.parametrize("half", [{"x_val": np.zeros((1, 1))}, {"x_val": np.zeros((5, 1))}, {"y_val": np.zeros(5)}])
def test_half_a_validation_set_is_refused(half):
    # x_val alone was validated against NaN targets (one sample: NaN errors, so the untrained
    # network was returned) or failed in NumPy's reshape; y_val alone was ignored
    x = np.linspace(-1, 1, 50)[:, None]
    with pytest.raises(AnfisError, match="both x_val and y_val"):
        anfis.train(anfis.grid(1, 3), x, np.sin(2 * x[:, 0]), epochs=3, patience=1, **half)


def test_premise_training_lowers_the_planar_models_validation_error(planar):
    # planar-3r, 3 000 samples: row 0 is the least-squares-only fit on the initial grid. Measured
    # (seed 0, 5 epochs): the validation RMSE summed over the joints falls to 0.73 of it; bound 0.8
    r = planar.report
    val = np.asarray(r["rmse_validation"]).sum(axis=1)
    train = np.asarray(r["rmse_train"]).sum(axis=1)
    assert train[-1] < train[0] and np.all(np.diff(train) <= 1e-12 * train[0])
    assert val.min() < 0.8 * val[0]
    for part in ("tool_train", "tool_validation"):  # the same epochs, in tool error too
        assert len(r[part]["position_median"]) == len(r[part]["orientation_median_deg"]) == len(train)


@pytest.fixture(scope="module")
def arm5():
    return train_ik("arm-5dof", samples=3000, epochs=8, warm_start=0)


def test_premise_training_halves_the_arm5_models_validation_error(arm5):
    # arm-5dof, 3 000 samples, 8 epochs, in the elbow coordinates (`learn.elbow`). Measured: the
    # validation RMSE summed over the network's outputs falls to 0.38 of the least-squares-only
    # fit's (0.66 when joint 3 was read off the wrist point), the tool median to 0.002 mm (0.84 mm);
    # bounds 0.5 (issue 29's goal) and 0.05 mm
    val = np.asarray(arm5.report["rmse_validation"]).sum(axis=1)
    assert val.min() <= 0.5 * val[0]
    _, targets = fresh_test(arm5, 500, np.random.default_rng(12))
    pos, _ = answer_errors(arm5, targets)
    assert np.median(pos) < 0.05e-3


def test_planar_model_is_accurate_on_held_out_targets(planar):
    # an independent test set (a fresh seed): measured median 0.31 %, p95 1.1 % of the 60 mm reach
    # with 3 000 samples; bounds 1 % and 3 % (the benchmark's target, 0.5 % median, is for 10 000)
    reach = planar.report["reach"]
    _, targets = fresh_test(planar, 500, np.random.default_rng(11))
    pos, ori = answer_errors(planar, targets)
    assert np.median(pos) < 0.01 * reach and np.percentile(pos, 95) < 0.03 * reach
    rep = planar.report["alone"]
    assert rep["count"] == 300 and rep["position_median_percent_of_reach"] < 1.0


def test_arm5_model_is_accurate_on_held_out_targets(arm5):
    # measured median 0.38 %, p95 1.6 % of the 0.645 m reach; bounds 2 % and 5 %
    reach = arm5.report["reach"]
    _, targets = fresh_test(arm5, 500, np.random.default_rng(12))
    pos, _ = answer_errors(arm5, targets)
    assert np.median(pos) < 0.02 * reach and np.percentile(pos, 95) < 0.05 * reach


def test_seeding_lm_with_the_model_cuts_the_iterations(planar):
    ws = planar.report["warm_start"]  # measured 37.0 from home, 10.1 from the model
    assert ws["anfis"]["success"] >= ws["home"]["success"] == 1.0
    assert ws["anfis"]["mean_iterations"] < 0.5 * ws["home"]["mean_iterations"]
    assert ws["anfis"]["mean_iterations"] < ws["nearest"]["mean_iterations"]  # beats the cKDTree baseline here
    # the same through km.ik directly, on targets the report never saw
    # (without the closed form's seed, which puts both at the answer before the first iteration)
    _, targets = fresh_test(planar, 100, np.random.default_rng(13))
    seeded = km.ik(planar.robot, targets, q0=planar, closed_form_seed=False)
    home = km.ik(planar.robot, targets, closed_form_seed=False)
    assert seeded.success.all() and home.success.all()
    assert seeded.iterations.mean() < home.iterations.mean()
    assert km.ik(planar.robot, targets, q0=planar).iterations.max() <= 1  # the closed form seeds planar targets


def test_anfis_method_is_judged_by_fk(planar):
    _, targets = fresh_test(planar, 50, np.random.default_rng(14))
    r = km.ik(planar.robot, targets, method="anfis", model=planar)
    T = km.fk(planar.robot, r.q)
    assert np.allclose(np.linalg.norm(T[:, :2, 3] - targets.p[:, :2], axis=1), r.position_error, rtol=1e-12,
                       atol=1e-12)
    assert np.array_equal(r.success, r.position_error < 1e-3)  # 1e-3 mm: the mm robot's default tolerance
    assert not r.success.all() and r.method == "anfis" and np.all(r.iterations == 0)
    assert all("misses the target by" in w for w, ok in zip(r.reason, r.success) if not ok)
    one = km.ik(planar.robot, km.targets.planar([30, 30], 1.2), method="anfis", model=planar)
    assert one.success is False and "misses the target by" in one.reason
    # with a tolerance the model meets, it is reported solved — the check is the FK, nothing else
    loose = km.ik(planar.robot, targets, method="anfis", model=planar, tol_position=10.0, tol_orientation=1.0)
    assert np.array_equal(loose.success, (loose.position_error < 10.0) & (loose.orientation_error < 1.0))


@settings(max_examples=25)
@given(st.floats(1.01, 5.0), st.floats(-np.pi, np.pi), st.floats(-np.pi, np.pi))
def test_an_unreachable_target_is_never_reported_solved(planar, arm5, factor, angle, phi):
    r = km.ik(planar.robot, km.targets.planar(60 * factor * np.array([np.cos(angle), np.sin(angle)]), phi),
              method="anfis", model=planar, tol_position=1e9, tol_orientation=10.0)
    assert r.success is False and r.reason.startswith("target out of reach")
    p = (0.645 * factor + 0.071) * np.array([np.cos(angle), np.sin(angle), 0.3])
    r5 = km.ik(arm5.robot, km.targets.approach(p, pitch=phi / 2), method="anfis", model=arm5, tol_position=1e9,
               tol_orientation=10.0)
    assert r5.success is False and "out of reach" in r5.reason


def test_report_covers_limits_singularities_and_unreachable(planar):
    rep = planar.report
    assert rep["near_limits"]["count"] > 0 and rep["near_singular"]["count"] == 30
    assert rep["unreachable"]["claimed_solved"] == 0 and rep["unreachable"]["count"] > 0
    assert set(rep["warm_start"]) == {"home", "random", "nearest", "anfis"}
    assert rep["epochs"] == len(rep["rmse_train"]) <= 5 and rep["train_seconds"] > 0
    tool = rep["tool_validation"]  # the tool error per epoch, on a validation subsample (issue 32)
    assert tool["count"] == min(200, rep["validation"])
    assert all(len(tool[k]) == rep["epochs"] for k in ("position_median", "position_mean", "orientation_median_deg"))


def test_arm5_model_seeds_a_pitch_target(arm5):
    q = np.array([0.3, 0.4, 0.8, -0.5, 0.0])  # inside the default branch (elbow+: q3 > 0)
    T = km.fk(arm5.robot, q)
    target = km.targets.approach(T[:3, 3], T[:3, 2])
    guess = arm5.answer(target)
    assert np.linalg.norm(km.fk(arm5.robot, guess)[:3, 3] - T[:3, 3]) < 0.05 * arm5.report["reach"]
    r = km.ik(arm5.robot, target, q0=arm5)
    assert r.success and np.linalg.norm(km.fk(arm5.robot, r.q)[:3, 3] - T[:3, 3]) < 1e-6


@pytest.fixture(scope="module")
def kuka():
    return train_ik("kuka-kr6-r900", samples=2000, epochs=3, warm_start=60)


def test_six_joint_model_keeps_one_closed_form_branch_and_seeds_lm(kuka):
    # KUKA KR6: the network learns joints 1–3 from the wrist centre, the wrist follows from R in
    # closed form; measured with 2 000 samples: wrist-centre median 0.14 % of the reach (it was
    # 1.8 % for the tool when six joints were learned from twelve numbers), orientation exact to
    # rounding but where a wrist joint is clipped at its limit, LM iterations 51 → 10 (so: a seed)
    from kinematica.ik.analytic import analytic_solutions
    from kinematica.learn import wrist

    m = kuka
    assert m.branch.spec == "shoulder front / elbow up / wrist no flip" and m.report["inputs"] == ["ψ", "s", "β"]
    assert m.net.inputs == 3 and m.net.outputs == 3 and m.report["closed_form_joints"] == ["A4", "A5", "A6"]
    q, targets = fresh_test(m, 200, np.random.default_rng(16))
    # every sample lies on the named branch: its own closed-form solution with that label is itself
    Q, valid, labels = analytic_solutions(m.robot, targets, q_ref=q)
    k = labels.index(m.branch.spec)
    assert valid[:, k].all() and np.allclose(np.angle(np.exp(1j * (Q[:, k] - q))), 0, atol=1e-6)
    assert wrist.in_branch(m.robot, q, m.branch.spec).all()
    pos, ori = answer_errors(m, targets)
    assert np.median(pos) < 0.01 * m.report["reach"]  # bound 1 %, measured 0.14 %
    assert np.median(ori) < 1e-9  # the closed-form wrist: rounding, bar the answers clipped at a wrist limit
    assert m.report["wrist_centre"]["median_percent_of_reach"] < 1.0
    ws = m.report["warm_start"]
    assert ws["anfis"]["success"] == 1.0 and ws["anfis"]["mean_iterations"] < ws["home"]["mean_iterations"]
    assert m.report["unreachable"]["claimed_solved"] == 0
    with pytest.raises(LearnError, match="branches are"):
        train_ik("kuka-kr6-r900", samples=2000, branch_spec="sideways")


def test_the_closed_form_wrist_is_exact_when_the_wrist_point_is(kuka, arm5):
    # given joints 1–3 of a sample, `closed.finish` must return the sample's own wrist joints (to
    # rounding: the wrist solver's formulas lose ~1e-13 rad near θ5 = 0)
    from types import SimpleNamespace

    from kinematica.learn import closed

    for m in (kuka, arm5):
        q, targets = fresh_test(m, 200, np.random.default_rng(17))
        X = S.inputs(m.robot, targets, S.front(m.robot, m.branch), m.branch)
        head = closed.network_joints(m.robot, m.branch)
        assert head.tolist() == [0, 1, 2]
        guess = np.tile(m.branch.box[:, 0], (len(q), 1))
        guess[:, head] = q[:, head]
        done = closed.finish(SimpleNamespace(robot=m.robot, branch=m.branch), guess, X)
        assert np.allclose(np.angle(np.exp(1j * (done - q))), 0, atol=1e-9)


def test_near_edge_samples_lie_near_an_edge_and_the_report_counts_them(arm5):
    br = arm5.branch
    q = S.sample_joints(br, 400, np.random.default_rng(3), arm5.robot, edge=1.0)
    box, span = br.box[br.learned], br.box[br.learned, 1] - br.box[br.learned, 0]
    qj = q[:, br.learned]
    near = ((qj - box[:, 0] <= S.EDGE * span) | (box[:, 1] - qj <= S.EDGE * span)).any(axis=1)
    assert near.all() and np.all((q >= br.box[:, 0]) & (q <= br.box[:, 1]))
    assert arm5.report["train_near_edges"] == round(0.1 * arm5.report["train"])
    assert arm5.report["near_limits"]["count"] > 0  # the box's edges: the elbow straight, the ±90° bounds


# --- files ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["planar", "kuka"])
def test_ik_model_file_round_trips_exactly(name, request, tmp_path):
    # bit for bit: the arrays, the report, and every answer (the 6R model's closed-form wrist too)
    planar = request.getfixturevalue(name)
    path = tmp_path / "planar.npz"
    save_model(planar, path)
    m = load_model(path)
    for k, v in planar.net.arrays().items():
        assert np.array_equal(getattr(m.net, k), v) and getattr(m.net, k).dtype == v.dtype
    assert np.array_equal(m.branch.box, planar.branch.box) and m.branch.spec == planar.branch.spec
    assert all(np.array_equal(getattr(m.scaling, k), v, equal_nan=True) for k, v in planar.scaling.arrays().items())
    assert m.report == planar.report and m.net.shape == planar.net.shape
    assert (m.elbow is None) == (planar.elbow is None) == (name == "planar")  # the 6R model: elbow coordinates
    if m.elbow is not None:
        assert all(np.array_equal(m.elbow.arrays()[k], v) for k, v in planar.elbow.arrays().items())
    _, targets = fresh_test(planar, 20, np.random.default_rng(15))
    assert np.array_equal(m.answer(targets), planar.answer(targets))
    save_model(m, tmp_path / "again.npz")  # and a second trip changes nothing
    assert (tmp_path / "again.npz").read_bytes() == path.read_bytes()


def test_dynamics_model_against_rne_and_round_trip(tmp_path):
    d = train_dynamics("arm-5dof", trajectories=30, rules=8, epochs=3)
    rep = d.report
    assert rep["test"] == 3 and len(rep["rmse_percent_of_peak"]) == 5
    # joint 2 carries the arm against gravity: even this small model follows it (measured 9 %)
    assert rep["rmse_percent_of_peak"][1] < 25
    q = np.array([0.1, 0.5, -0.3, 0.2, 0.0])
    tau = d.torques(q, np.zeros(5), np.zeros(5))
    assert tau.shape == (5,) and abs(tau[1] - km.rne("arm-5dof", q, np.zeros(5), np.zeros(5))[1]) < 0.5
    save_model(d, tmp_path / "dyn.npz")
    d2 = load_model(tmp_path / "dyn.npz")
    assert d2.report == rep and np.array_equal(d2.torques(q, q, q), d.torques(q, q, q))


# --- bad input ------------------------------------------------------------------------------
def test_a_model_for_another_robot_is_refused(planar):
    with pytest.raises(WrongRobotError, match="trained for 'planar-3r', not for 'arm-5dof'"):
        km.ik("arm-5dof", km.targets.approach([0.3, 0, 0.2], pitch=0.1), q0=planar)
    other = planar.robot.replace(tool=km.spatial.trans(1.0, 0, 0))  # same name, a 1 mm longer last link
    with pytest.raises(WrongRobotError, match="geometry, limits or units differ"):
        km.ik(other, km.targets.planar([30, 30], 1.0), method="anfis", model=planar)


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04broken"])
def test_corrupt_model_files_give_clear_errors(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match="bad.npz"):
        load_model(path)


def test_damaged_or_foreign_archives_give_clear_errors(planar, tmp_path):
    good = tmp_path / "good.npz"
    save_model(planar, good)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "missing.npz")
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, a=np.zeros(3))
    with pytest.raises(ModelFileError, match="damaged|not a"):
        load_model(foreign)
    # truncated
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(ModelFileError, match="cut.npz"):
        load_model(cut)
    # a consistent archive whose network arrays were tampered with
    with np.load(good, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    data["net_theta"] = data["net_theta"][:, :-1]
    buf = io.BytesIO()
    np.savez(buf, **data)
    (tmp_path / "tampered.npz").write_bytes(buf.getvalue())
    with pytest.raises(ModelFileError, match="inconsistent"):
        load_model(tmp_path / "tampered.npz")
    meta = json.loads(str(data["meta"]))
    meta["version"] = 99
    data["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez(buf, **data)
    (tmp_path / "future.npz").write_bytes(buf.getvalue())
    with pytest.raises(ModelFileError, match="version 99"):
        load_model(tmp_path / "future.npz")
    assert zipfile.is_zipfile(good)  # the good file is still there and whole
    load_model(good)


def _with_version(path, version: int, out):
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data["meta"]))
    meta["version"] = version
    data["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez(buf, **data)
    out.write_bytes(buf.getvalue())
    return out


def test_version_1_files_load_where_the_inputs_are_unchanged(planar, arm5, tmp_path):
    # a planar model reads (x, y, φ) in both versions; a pitch model read the tool point in version 1
    # and reads the wrist point now: answering from it would be silently wrong, so it is refused
    save_model(planar, tmp_path / "planar.npz")
    old = load_model(_with_version(tmp_path / "planar.npz", 1, tmp_path / "planar1.npz"))
    _, targets = fresh_test(planar, 10, np.random.default_rng(18))
    assert np.array_equal(old.answer(targets), planar.answer(targets))
    save_model(arm5, tmp_path / "arm5.npz")
    with pytest.raises(ModelFileError, match="version-1 model of 'arm-5dof' reads the tool point.*learn ik"):
        load_model(_with_version(tmp_path / "arm5.npz", 1, tmp_path / "arm5_1.npz"))
    # version 2 read the wrist point but answered joint 3 itself: its network means other numbers
    with pytest.raises(ModelFileError, match="version-2 model of 'arm-5dof' answers joint 3 itself.*elbow's cosine"
                                             ".*learn ik"):
        load_model(_with_version(tmp_path / "arm5.npz", 2, tmp_path / "arm5_2.npz"))
    assert np.array_equal(load_model(_with_version(tmp_path / "planar.npz", 2, tmp_path / "planar2.npz"))
                          .answer(targets), planar.answer(targets))


def test_too_few_samples_for_the_rules():
    with pytest.raises(LearnError, match="too few for 125 rules"):
        train_ik("planar-3r", samples=500, rules=125)
    with pytest.raises(AnfisError, match="too few"):
        anfis.train(anfis.grid(2, 5), np.zeros((10, 2)), np.zeros(10))


@pytest.mark.parametrize("kwargs, match", [
    (dict(samples=0), "samples"), (dict(samples=10**9), "over the limit"), (dict(rules=0), "rules"),
    (dict(epochs=2.5), "whole number"), (dict(branch_spec="sideways"), "branch"),
    (dict(branch_spec="elbow+,θ9=0..10"), "branch"), (dict(branch_spec="elbow+,j2=50..-50"), "LO <= HI"),
    (dict(shape="triangle"), "membership shape"), (dict(partition="hex"), "partition"),
    (dict(rules=30, partition="grid"), "grid partition of 3 inputs"),
])
def test_bad_training_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_ik("planar-3r", **{"samples": 2000, "epochs": 1, "warm_start": 0, **kwargs})


def test_unsupported_robots_and_targets_are_refused_in_words(planar, arm5):
    with pytest.raises(LearnError, match="'ur5' has 6 joints, but no spherical wrist"):
        train_ik("ur5", samples=2000)
    with pytest.raises(LearnError, match="'arm-4dof': its tool z axis .* stays horizontal"):
        train_ik("arm-4dof", samples=2000)  # paper 001's arm: its tool z is a joint axis, always level
    with pytest.raises(TypeError, match="needs model="):
        km.ik(planar.robot, km.targets.planar([30, 30], 1.0), method="anfis")
    with pytest.raises(TypeError, match="model= is for method='anfis'"):
        km.ik(planar.robot, km.targets.planar([30, 30], 1.0), model=planar)
    with pytest.raises(TypeError, match="secondary goals move a solved configuration"):
        km.ik(planar.robot, km.targets.planar([30, 30], 1.0), method="anfis", model=planar,
              secondary={"limits": 1.0})
    with pytest.raises(TypeError, match="only the options"):
        km.ik(planar.robot, km.targets.planar([30, 30], 1.0), method="anfis", model=planar, max_iter=3)
    with pytest.raises(AnfisError, match="NaN"):
        anfis.predict(planar.net, np.full((1, 3), np.nan))
    with pytest.raises(LearnError, match="NaN"):
        train_dynamics("arm-5dof", trajectories=30, rules=4, epochs=1).torques(np.zeros(5), np.full(5, np.nan),
                                                                                np.zeros(5))


def test_explained_answer_adds_up_layer_by_layer(planar):
    from kinematica.learn.explain import explain_answer

    target = km.targets.planar([13.37, 55.81], np.radians(70))
    e = explain_answer(planar, target, top=4)
    answer = planar.answer(target)
    net = planar.net
    for k, j in enumerate(e["joints"]):
        rules = j["all_rules"]
        assert len(rules) == net.n_rules and len(j["strongest"]) == 4
        assert sum(r["weight"] for r in rules) == pytest.approx(1.0, abs=1e-12)
        assert sum(r["contribution"] for r in rules) == pytest.approx(j["sum"], abs=1e-12)
        # layer 1 by its formula, layer 2 as the product of the rule's memberships (up to layer 2's scale)
        for name, mfs in j["memberships"].items():
            z = (e["scaled"][name] - np.array([m["centre"] for m in mfs])) / np.array([m["width"] for m in mfs])
            assert np.allclose([m["degree"] for m in mfs], np.exp(-0.5 * z * z), rtol=1e-12)
        degrees = [[m["degree"] for m in mfs] for mfs in j["memberships"].values()]
        prod = np.array([np.prod([degrees[i][m] for i, m in enumerate(r["memberships"])]) for r in rules])
        assert np.allclose(prod / prod.sum(), [r["weight"] for r in rules], rtol=1e-9, atol=1e-15)
        # layer 4: the rule's first-order output from the scaled inputs
        r0 = j["strongest"][0]
        assert r0["output"] == pytest.approx(np.dot(r0["consequent"], j["regressors"]), rel=1e-12, abs=1e-12)
        lo, hi = planar.branch.box[k]
        assert answer[k] == pytest.approx(np.clip(j["sum"], lo, hi), abs=1e-12)
    with pytest.raises(ValueError, match="one target"):
        explain_answer(planar, km.targets.planar([[13.37, 55.81]] * 2, [1.0, 1.0]))


def test_too_few_trajectories_for_the_dynamics_rules():
    # 3 trajectories: 1 trains (100 points); 8 rules on 15 inputs need 128 coefficients per joint
    with pytest.raises(LearnError, match="100 training samples are too few for 8 rules on 15 inputs"):
        train_dynamics("arm-5dof", trajectories=3, rules=8)
    with pytest.raises(LearnError, match="no inertial parameters"):
        train_dynamics("planar-3r", trajectories=30)


# --- consequents with products; the dynamics model's structure ------------------------------
def test_product_regressors_represent_a_quadratic_form_exactly():
    # y = x0·x1 − 2·x2² + x0 is one rule's consequent with products (0,1), (2,2): least squares
    # must find it to rounding; without products the best fit misses by far (an oracle pair)
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (500, 3))
    y = x[:, 0] * x[:, 1] - 2 * x[:, 2] ** 2 + x[:, 0]
    with_p, hist = anfis.train(anfis.grid(3, 2).with_products([[0, 1], [2, 2]]), x, y, epochs=2)
    # exact up to the normal equations' rounding (condition squared, 48 unknowns) and the 1e-10
    # ridge: ~3e-9 measured, against 0.1-scale errors for the plain network below
    assert hist[-1, 0] < 1e-7
    xt = rng.uniform(-1, 1, (100, 3))
    assert np.allclose(anfis.predict(with_p, xt)[:, 0], xt[:, 0] * xt[:, 1] - 2 * xt[:, 2] ** 2 + xt[:, 0], atol=1e-6)
    _, plain = anfis.train(anfis.grid(3, 2), x, y, epochs=2)
    assert plain[-1, 0] > 1e-3
    with pytest.raises(AnfisError, match="products"):
        anfis.grid(3, 2).with_products([[0, 3]])


def test_the_premises_cover_exactly_the_joints_that_move_the_torques():
    from kinematica.learn.dynamics import configuration_joints

    robot = km.load("arm-5dof")
    config = configuration_joints(robot, np.random.default_rng(3)).tolist()
    rng = np.random.default_rng(4)  # fresh states, checked here by RNE itself
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 50, 5))
    tau = km.rne(robot, q, qd, qdd)
    for j in range(5):
        q2 = q.copy()
        q2[:, j] += 0.7
        moved = np.abs(km.rne(robot, q2, qd, qdd) - tau).max() / np.abs(tau).max()
        assert (j in config) == (moved > 1e-9), (j, moved)  # the base turns about gravity, the roll is symmetric


def test_a_physical_dynamics_model_round_trips_and_beats_the_plain_one(tmp_path):
    # same data, each with the rules its coefficients allow (3 and 10): the structure (products,
    # rules on the joints that matter) is better on the held-out trajectories for every joint
    # (measured: RMSE 1.3–2× lower; the benchmark's 100 trajectories: 1–2.5 % of peak, against 2–10 %)
    phys = train_dynamics("arm-5dof", trajectories=30, epochs=3)
    plain = train_dynamics("arm-5dof", trajectories=30, epochs=3, structure="plain")
    assert phys.report["products"] == 30 and phys.report["premise_joints"] == ["q2", "q3", "q4"]
    assert phys.report["rules"] == 3 and plain.report["rules"] == 10
    assert np.all(np.array(phys.report["rmse"]) < np.array(plain.report["rmse"]))
    save_model(phys, tmp_path / "dyn.npz")
    back = load_model(tmp_path / "dyn.npz")
    q = np.array([0.1, 0.5, -0.3, 0.2, 0.0])
    assert np.array_equal(back.net.products, phys.net.products)
    assert np.array_equal(back.torques(q, q, q), phys.torques(q, q, q))
    with pytest.raises(LearnError, match="structure"):
        train_dynamics("arm-5dof", trajectories=30, structure="exact")


def test_model_files_without_products_still_load_and_bad_products_are_refused(planar, tmp_path):
    # files written before product regressors existed have no net_products: none is meant
    save_model(planar, tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    old = {k: v for k, v in data.items() if k != "net_products"}
    np.savez(tmp_path / "old.npz", **old)
    t = km.targets.planar([30, 20], 1.0)
    assert np.array_equal(load_model(tmp_path / "old.npz").answer(t), planar.answer(t))
    np.savez(tmp_path / "bad.npz", **old, net_products=np.array([[0, 7]]))  # input 7 of 3
    with pytest.raises(ModelFileError, match="inconsistent"):
        load_model(tmp_path / "bad.npz")
