"""Learned IK and dynamics (ANFIS, issue 13): accuracy, warm start and training time against the
issue's targets (planar-3r, arm-5dof; the KUKA KR6 for reference), and beside anfis-toolbox when
it is installed.

    python benchmarks/bench_anfis.py            # full run: 10 000 samples per robot (~1–2 min)
    python benchmarks/bench_anfis.py --quick    # 3 000 samples, 30 trajectories (~20 s)
    python benchmarks/bench_anfis.py --peer     # also anfis-toolbox 0.2.2 on planar-3r (~1.5 min more)

Every IK row trains one model of the default branch (elbow+) on FK samples (80 % train, 10 %
validation, 10 % test) and reports the test targets: the model alone (tool position error as %
of the reach bound), and LM's mean iterations from home, a random seed, the nearest training
sample (cKDTree) and the model, on the first 500 test targets. The dynamics row trains on
random trajectories of arm-5dof and reports the RMSE per joint as % of that joint's peak |τ| on
held-out trajectories. A script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bench_kinematics as bk  # machine(), load_average(), aligned_table()
import kinematica as km
from kinematica.learn import train_dynamics, train_ik
from kinematica.learn import sampling as S
from kinematica.learn.scaling import apply, fit

TARGETS = {"planar-3r": 0.5, "arm-5dof": 1.0}  # median tool position error, % of the reach
ROBOTS = ("planar-3r", "arm-5dof", "kuka-kr6-r900")  # the 6R arm has no target in the issue: shown for reference
TRAIN_SECONDS = 60.0  # for 10 000 samples
SEED_SHARE = 1 / 3  # planar-3r: seeded mean LM iterations ≤ ⅓ of home-seeded, at equal success
DYNAMICS_PERCENT = 5.0  # RMSE per joint, % of its peak torque


def ik_row(name: str, samples: int, warm: int) -> list[str]:
    m = train_ik(name, samples=samples, warm_start=warm)
    r = m.report
    a, ws = r["alone"], r["warm_start"]
    med = a["position_median_percent_of_reach"]
    ratio = ws["anfis"]["mean_iterations"] / ws["home"]["mean_iterations"]
    equal = ws["anfis"]["success"] >= ws["home"]["success"]
    ok = [med <= TARGETS[name] if name in TARGETS else None,
          (ratio <= SEED_SHARE and equal) if name == "planar-3r" else None,
          None if samples < 10_000 else r["train_seconds"] <= TRAIN_SECONDS]  # None: no target set
    pays = r.get("pays_off_after")
    return [name, f"{r['rules']}", f"{r['epochs']}", f"{r['train_seconds']:.1f}",
            f"{med:.3f}" + (f" (≤ {TARGETS[name]:g})" if name in TARGETS else ""), f"{100 * a['position_p95'] / r['reach']:.3f}",
            f"{100 * a['position_max'] / r['reach']:.2f}", f"{100 * a['within_1mm_1deg']:.1f}",
            " / ".join(f"{ws[k]['mean_iterations']:.1f}" for k in ("home", "random", "nearest", "anfis")),
            " / ".join(f"{100 * ws[k]['success']:.0f}" for k in ("home", "anfis")),
            f"{r['unreachable']['claimed_solved']}/{r['unreachable']['count']}",
            "never" if pays is None else f"{pays:,.0f}",
            ", ".join("–" if o is None else "yes" if o else "NO" for o in ok)]


def peer_row(samples: int) -> list[str] | None:
    """anfis-toolbox's hybrid ANFIS on the same planar-3r task (27 rules, 20 epochs), if installed."""
    try:
        from anfis_toolbox import ANFISRegressor
    except ImportError:
        return None
    robot = km.load("planar-3r")
    rng = np.random.default_rng(0)
    br = S.branch(robot)
    q = S.sample_joints(br, samples, rng)
    X = S.inputs(robot, S.fk_targets(robot, q))
    tr, _, te = S.split(samples, rng)
    s = fit(X[tr], S.ANGULAR["planar"])
    start = time.perf_counter()
    nets = [ANFISRegressor(n_mfs=3, mf_type="gaussian", optimizer="hybrid", epochs=20, verbose=False)
            .fit(apply(s, X[tr]), q[tr, j]) for j in range(3)]
    seconds = time.perf_counter() - start
    qp = np.column_stack([n.predict(apply(s, X[te])) for n in nets])
    err = np.linalg.norm(km.fk(robot, qp)[:, :2, 3] - km.fk(robot, q[te])[:, :2, 3], axis=1)
    return ["planar-3r (anfis-toolbox)", "27", "20", f"{seconds:.1f}", f"{100 * np.median(err) / 60:.3f}",
            f"{100 * np.percentile(err, 95) / 60:.3f}", f"{100 * err.max() / 60:.2f}", "", "", "", "", "", ""]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 000 samples, 30 trajectories")
    ap.add_argument("--peer", action="store_true", help="also train anfis-toolbox (if installed)")
    args = ap.parse_args(argv)
    samples = 3000 if args.quick else 10_000
    print(bk.machine())
    print(f"IK: {samples} FK samples per robot, default rules and branch, LM warm start on 500 test targets\n")
    rows = [ik_row(name, samples, 500) for name in ROBOTS]
    if args.peer:
        rows.append(peer_row(samples) or ["anfis-toolbox", "not installed"] + [""] * 11)
    bk.aligned_table(["robot", "rules", "epochs", "train s", "median %", "p95 %", "max %", "≤1mm,1° %",
                      "LM iter home/random/NN/anfis", "success % home/anfis", "unreachable claimed",
                      "pays off after (solves)", "targets met (median, seed ⅓, time)"], rows)
    trajectories = 30 if args.quick else 100
    d = train_dynamics("arm-5dof", trajectories=trajectories)
    r = d.report
    print(f"\ndynamics arm-5dof: {trajectories} random trajectories × 100 points, {r['rules']} rules on "
          f"{', '.join(r['premise_joints'])}, {r['products']} product terms (q̇ q̇, q q̈) per rule, {r['epochs']} "
          f"epochs, {r['train_seconds']:.1f} s training")
    rows = [[j, f"{rmse:.4g}", f"{peak:.4g}", f"{pct:.1f}", "yes" if pct <= DYNAMICS_PERCENT else "NO"]
            for j, rmse, peak, pct in zip(r["joints"], r["rmse"], r["peak_torque"], r["rmse_percent_of_peak"])]
    bk.aligned_table(["joint", "RMSE N·m", "peak |τ| N·m", "RMSE % of peak", f"≤ {DYNAMICS_PERCENT:g} %"], rows)
    print(f"time per call on {r['test_samples']} held-out states (batched): model "
          f"{1e6 * r['seconds_per_call_model']:.2f} µs, RNE {1e6 * r['seconds_per_call_rne']:.2f} µs")
    print(f"load average at the end: {bk.load_average()}")


if __name__ == "__main__":
    main()
