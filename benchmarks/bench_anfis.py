"""Learned IK and dynamics (ANFIS, issues 13 and 29): what premise training adds, the model alone
and as LM's seed beside k-nearest-neighbour and a multilayer perceptron of the same parameter
count, trained on the same samples and timed the same way; and the dynamics model.

    python benchmarks/bench_anfis.py            # 10 000 samples per robot, 100 trajectories (~15 min loaded)
    python benchmarks/bench_anfis.py --ik-only  # the IK part alone (~9–11 min at load 5–11)
    python benchmarks/bench_anfis.py --quick    # 3 000 samples, 30 trajectories (~1 min)
    python benchmarks/bench_anfis.py --no-mlp   # without scikit-learn (pip install -r benchmarks/requirements.txt)
    python benchmarks/bench_anfis.py --peer     # also anfis-toolbox 0.2.2 on planar-3r, if installed

Per robot (planar-3r, arm-5dof, the KUKA KR6): one ANFIS model of the default branch (elbow+)
by `train_ik` on its FK samples (80 % train, 10 % of those drawn near the branch box's edges;
10 % validation; 10 % test). Its learning: the validation RMSE of the least-squares-only fit
(epoch 1) against the epoch kept after premise training, and the training time. Then on the
same test targets, three learners fitted to the same training samples (`training_data`):
  anfis  the model: network + closed-form wrist;
  knn    the nearest training sample's joints (a cKDTree on all inputs, orientation included);
  mlp    scikit-learn's MLPRegressor (tanh, L-BFGS, two hidden layers sized to ANFIS's parameter
         count) on the network's inputs and outputs (the elbow coordinates where the model has
         them: the wrist point from the shoulder in, the elbow's cosine out), finished by the same
         closed-form wrist.
Each alone (tool position median in mm, share within 1 mm and 1°, near the box edges and near
singular poses, 6R: the wrist-centre median as % of the reach) and as the seed of LM (`km.ik`,
limits "wrap", no closed-form first seed) on WARM test targets: mean iterations, success, time
per solve with the seed's own cost, and unreachable targets (10–50 % beyond the reach) that the
model alone claims solved. A script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread: on a shared 2-core machine threads thrash (10× slower)

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

import bench_kinematics as bk  # noqa: E402  machine(), load_average(), aligned_table()
import kinematica as km  # noqa: E402
from kinematica.ik.frame import fit_target  # noqa: E402
from kinematica.ik.residual import errors  # noqa: E402
from kinematica.learn import closed, train_dynamics, train_ik  # noqa: E402
from kinematica.learn.evaluate import near_edges, singular_ratio, wrist_centre_stats  # noqa: E402
from kinematica.learn.sampling import ANGULAR  # noqa: E402
from kinematica.learn.scaling import apply, fit  # noqa: E402
from kinematica.learn.train import training_data  # noqa: E402

ROBOTS = ("planar-3r", "arm-5dof", "kuka-kr6-r900")
WARM = 300  # test targets LM solves from each seed
GOALS = {"ratio": 0.5, "median_mm": 0.5, "within": 0.60, "wrist_percent": 0.3, "seconds": 60.0}  # issue 29
DYNAMICS_PERCENT = 5.0  # RMSE per joint, % of its peak torque


def anfis_params(net) -> int:
    """Trained numbers of the network: memberships in use (c, σ) and consequents, all outputs."""
    used = sum(int(net.rules[:, i].max()) + 1 for i in range(net.inputs))
    return net.outputs * (2 * used + net.n_rules * net.regressor_count)


def mlp_hidden(params: int, d: int, k: int) -> int:
    """h with two hidden layers (h, h) holding about `params` numbers: d·h + h + h² + h + h·k + k."""
    return max(2, int(round((-(d + k + 2) + np.sqrt((d + k + 2) ** 2 + 4 * (params - k))) / 2)))


def learners(model, data, use_mlp: bool):
    """name → (answer function: targets' raw inputs X → q (N, n), training seconds)."""
    robot, br = model.robot, model.branch
    tr = data.split[0]
    d, J = model.net.inputs, closed.network_joints(robot, br)
    out = {"anfis": (None, model.report["train_seconds"])}
    start = time.perf_counter()
    every = fit(data.X[tr], ANGULAR[model.task])
    tree = cKDTree(apply(every, data.X[tr]))
    out["knn"] = (lambda X: data.q[tr][tree.query(apply(every, X))[1]], time.perf_counter() - start)
    if use_mlp:
        from sklearn.neural_network import MLPRegressor  # the benchmark's only: never a package dependency

        h = mlp_hidden(anfis_params(model.net), d, len(J))
        start = time.perf_counter()
        mlp = MLPRegressor(hidden_layer_sizes=(h, h), activation="tanh", solver="lbfgs", max_iter=3000, tol=1e-10, random_state=0)
        mlp.fit(model.scaled_inputs(data.X[tr]), model.network_outputs(data.q[tr]))
        seconds = time.perf_counter() - start

        def answer(X):
            q = np.tile(br.box[:, 0], (len(X), 1))
            q[:, J] = model.joints_from(mlp.predict(model.scaled_inputs(X)).reshape(len(X), -1))
            return np.clip(closed.finish(model, q, X), br.box[:, 0], br.box[:, 1])

        out["mlp"] = (answer, seconds)
        out["mlp_params"] = h
    return out


def alone(model, data, answer) -> dict:
    """The learner's answers to the test targets, judged by FK."""
    robot, te = model.robot, data.split[2]
    t = data.targets[te]
    start = time.perf_counter()
    q = model.answer(t) if answer is None else answer(data.X[te])
    seconds = (time.perf_counter() - start) / len(te)
    pos, ori = errors(fit_target(robot, t), km.fk(robot, q))
    mm = 1000.0 if robot.length_unit == "m" else 1.0
    ok = (pos * mm <= 1.0) & (np.degrees(ori) <= 1.0)
    edge = near_edges(model, data.q[te])
    ratio = singular_ratio(model, t, data.q[te])
    sing = ratio <= np.quantile(ratio, 0.10)
    row = {"median_mm": float(np.median(pos) * mm), "within": float(ok.mean()), "seconds": seconds,
           "edge_mm": float(np.median(pos[edge]) * mm), "sing_mm": float(np.median(pos[sing]) * mm), "q": q}
    if model.task == "pose":
        row["wrist_percent"] = wrist_centre_stats(robot, q, t, model.report["reach"])["median_percent_of_reach"]
    return row


def seeded(model, data, answer, rng) -> dict:
    """LM on the first WARM test targets from the learner's answers (its cost included)."""
    te = data.split[2][:WARM]
    t = data.targets[te]
    start = time.perf_counter()
    q0 = model if answer is None else answer(data.X[te])
    r = km.ik(model.robot, t, q0=q0, limits="wrap", seed=int(rng.integers(2 ** 31)), closed_form_seed=False)
    return {"iterations": float(np.mean(r.iterations)), "success": float(np.mean(r.success)),
            "seconds": (time.perf_counter() - start) / len(te)}


def robot_rows(name: str, samples: int, use_mlp: bool) -> tuple[list[str], list[list[str]]]:
    model = train_ik(name, samples=samples, warm_start=WARM)
    data = training_data(name, samples)  # the very samples train_ik drew (same seed)
    r = model.report
    val = np.asarray(r["rmse_validation"]).sum(axis=1)
    ratio = float(val.min() / val[0])
    learn = [name, f"{r['rules']} {r['memberships']}", ", ".join(r["inputs"]), f"{r['epochs']}", f"{ratio:.2f}",
             f"{r['train_seconds']:.1f} ({r['train_cpu_seconds']:.1f})",
             f"{r['unreachable']['claimed_solved']}/{r['unreachable']['count']}"]
    rng = np.random.default_rng(1)
    rows = []
    found = learners(model, data, use_mlp)
    for who in ("anfis", "knn", "mlp"):
        if who not in found:
            continue
        answer, seconds = found[who]
        a, s = alone(model, data, answer), seeded(model, data, answer, rng)
        label = who if who != "mlp" else f"mlp ({found['mlp_params']}, {found['mlp_params']})"
        rows.append([name, label, f"{seconds:.1f}", f"{a['median_mm']:.3f}", f"{100 * a['within']:.1f}",
                     f"{a['edge_mm']:.3f}", f"{a['sing_mm']:.3f}",
                     f"{a['wrist_percent']:.3f}" if "wrist_percent" in a else "–",
                     f"{1e6 * a['seconds']:.1f}", f"{s['iterations']:.2f}", f"{100 * s['success']:.0f}",
                     f"{1e3 * s['seconds']:.3f}"])
    home = seeded(model, data, lambda X: np.tile(model.robot.q_home, (len(X), 1)), rng)
    rows.append([name, "home (no learning)", "0", "", "", "", "", "", "", f"{home['iterations']:.2f}",
                 f"{100 * home['success']:.0f}", f"{1e3 * home['seconds']:.3f}"])
    return learn, rows


def peer_row(samples: int) -> list[str] | None:
    """anfis-toolbox's hybrid ANFIS on planar-3r (27 rules, 20 epochs) on the same samples, if installed."""
    try:
        from anfis_toolbox import ANFISRegressor
    except ImportError:
        return None
    data = training_data("planar-3r", samples)
    robot, (tr, _, te) = km.load("planar-3r"), data.split
    s = fit(data.X[tr], ANGULAR["planar"])
    start = time.perf_counter()
    nets = [ANFISRegressor(n_mfs=3, mf_type="gaussian", optimizer="hybrid", epochs=20, verbose=False)
            .fit(apply(s, data.X[tr]), data.q[tr, j]) for j in range(3)]
    seconds = time.perf_counter() - start
    qp = np.column_stack([n.predict(apply(s, data.X[te])) for n in nets])
    pos, ori = errors(fit_target(robot, data.targets[te]), km.fk(robot, qp))
    ok = (pos <= 1.0) & (np.degrees(ori) <= 1.0)
    return ["planar-3r", "anfis-toolbox 27 rules", f"{seconds:.1f}", f"{np.median(pos):.3f}", f"{100 * ok.mean():.1f}",
            "", "", "", "", "", "", ""]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 000 samples, 30 trajectories")
    ap.add_argument("--no-mlp", action="store_true", help="skip the scikit-learn MLP baseline")
    ap.add_argument("--peer", action="store_true", help="also anfis-toolbox on planar-3r (if installed)")
    ap.add_argument("--ik-only", action="store_true", help="skip the dynamics model (~10 min of a loaded 2-core machine)")
    args = ap.parse_args(argv)
    samples = 3000 if args.quick else 10_000
    use_mlp = not args.no_mlp
    if use_mlp:
        try:
            import sklearn  # noqa: F401
        except ImportError:
            print("scikit-learn is not installed (pip install -r benchmarks/requirements.txt): no MLP row")
            use_mlp = False
    print(bk.machine())
    print(f"IK: {samples} FK samples per robot, default rules and branch; LM from each seed on {WARM} test targets; "
          f"load average {bk.load_average()} at the start\n")
    learned, rows = [], []
    for name in ROBOTS:
        a, b = robot_rows(name, samples, use_mlp)
        learned.append(a)
        rows += b
    if args.peer:
        rows.append(peer_row(samples) or ["planar-3r", "anfis-toolbox: not installed"] + [""] * 10)
    bk.aligned_table(["robot", "rules [memberships]", "inputs", "epochs", "val. RMSE kept / LS-only", "train s (CPU s)",
                      "unreachable claimed"], learned)
    print()
    bk.aligned_table(["robot", "learner", "train s", "alone median mm", "≤1mm,1° %", "edges median mm",
                      "singular median mm", "wrist centre % reach", "µs/answer", "LM iter", "LM success %",
                      "ms/solve"], rows, left=(0, 1))
    print(f"\nissue 29's goals (arm-5dof, 10 000 samples): val. RMSE ratio ≤ {GOALS['ratio']}, alone median ≤ "
          f"{GOALS['median_mm']} mm and ≥ {100 * GOALS['within']:.0f} % within 1 mm and 1°, KR6 wrist centre ≤ "
          f"{GOALS['wrist_percent']} % of reach, training ≤ {GOALS['seconds']:.0f} s, 0 unreachable claimed")
    if args.ik_only:
        return
    trajectories = 30 if args.quick else 100
    d = train_dynamics("arm-5dof", trajectories=trajectories)
    r = d.report
    print(f"\ndynamics arm-5dof: {trajectories} random trajectories × 100 points, {r['rules']} rules on "
          f"{', '.join(r['premise_joints'])}, {r['products']} product terms per rule, {r['epochs']} "
          f"epochs, {r['train_seconds']:.1f} s training")
    rows = [[j, f"{rmse:.4g}", f"{peak:.4g}", f"{pct:.1f}", "yes" if pct <= DYNAMICS_PERCENT else "NO"]
            for j, rmse, peak, pct in zip(r["joints"], r["rmse"], r["peak_torque"], r["rmse_percent_of_peak"])]
    bk.aligned_table(["joint", "RMSE N·m", "peak |τ| N·m", "RMSE % of peak", f"≤ {DYNAMICS_PERCENT:g} %"], rows)
    print(f"load average at the end: {bk.load_average()}")


if __name__ == "__main__":
    main()
