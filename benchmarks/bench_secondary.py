"""IK with secondary goals on the Panda (7 joints, one more than a pose needs): what the goals buy.

    python benchmarks/bench_secondary.py            # 300 pose targets and 300 position targets
    python benchmarks/bench_secondary.py --quick    # 60 of each
    python benchmarks/bench_secondary.py --targets 1000 --seed 3

Targets: FK of random joint vectors inside the limits (a seeded generator), solved from the home
pose by `km.ik` plain and with each goal of `secondary=` (weight 1), then judged on the targets
*every* run solved (equal success; the success rates are printed too):

- min limit distance: per solution the smallest (q_j − lo_j, hi_j − q_j) over the joints, as a
  share of that joint's range (0 on a limit, 0.5 at mid-range); the mean over targets;
- limit cost: what the "limits" goal lowers, mean_j ((q_j − mid_j) / half-range_j)² (0 at
  mid-range, 1 on a limit), the mean — it spreads the joints, so the nearest one may gain less;
- manipulability: Yoshikawa's √det(J Jᵀ) of the task rows of the Jacobian, the mean;
- |q − seed|: the joint-space distance (rad) from the seed (here the home pose), the mean;
- max position error of the solutions, by an independent FK (the goals must not leave the
  target), and the wall time per target.

Reference behaviour is TRAC-IK's solve types (Beeson & Ames, 2015): Speed returns the first
solution (our plain run); Distance returns the one nearest the seed by the sum of squared joint
differences (our "rest" goal, rest = the seed); Manip1 maximises the product of the Jacobian's
singular values, √det(J Jᵀ) (our "manipulability"); Manip2 (the ratio of smallest to largest
singular value) has no counterpart here. TRAC-IK itself is not installable on this machine (not
on PyPI nor in Debian; it is a ROS package built with catkin/colcon against KDL), so it is
described, not run: TRAC-IK gets its alternatives by solving again from random seeds until its
timeout and keeping the best, where `secondary` moves each solution along the task's null space.
"limits" (stay away from the joint limits) has no TRAC-IK mode: it is the classic projected
gradient of Liégeois (1977). This is a script, not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_kinematics import (  # the same machine and software header everywhere
    aligned_table,
    machine,
)

import kinematica as km

GOALS = (("plain (TRAC-IK Speed)", None), ("limits", {"limits": 1.0}),
         ("manipulability (≈ Manip1)", {"manipulability": 1.0}), ("rest = seed (≈ Distance)", {"rest": 1.0}),
         ("limits + manipulability", {"limits": 1.0, "manipulability": 1.0}))


def limit_distance(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """Per configuration (N,): min over joints of the distance to the nearer limit / the range."""
    lo, hi = robot.limits.T
    return np.min(np.minimum(q - lo, hi - q) / (hi - lo), axis=-1)


def limit_cost(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    lo, hi = robot.limits.T
    return np.mean(((q - 0.5 * (lo + hi)) / (0.5 * (hi - lo))) ** 2, axis=-1)


def manipulability(robot: km.Robot, q: np.ndarray, rows: slice) -> np.ndarray:
    J = km.jacobian(robot, q)[..., rows, :]
    return np.sqrt(np.maximum(np.linalg.det(J @ np.swapaxes(J, -1, -2)), 0.0))


def run(robot: km.Robot, targets, T: np.ndarray, rows: slice, seed_q: np.ndarray) -> list[list[str]]:
    """One table: a row per goal, judged on the targets every goal solved."""
    results = []
    for label, goal in GOALS:
        t0 = time.perf_counter()
        res = km.ik(robot, targets, q0=seed_q, secondary=goal,
                    rest=seed_q if goal and "rest" in goal else None)
        results.append((label, res, (time.perf_counter() - t0) / len(T)))
    both = np.logical_and.reduce([r.success for _, r, _ in results])
    lines = []
    for label, res, dt in results:
        q = res.q[both]
        err = np.linalg.norm(km.fk(robot, q)[:, :3, 3] - T[both][:, :3, 3], axis=1).max() if len(q) else np.nan
        lines.append([label, f"{100 * res.success.mean():.1f} %", f"{limit_distance(robot, q).mean():.4f}",
                      f"{limit_cost(robot, q).mean():.4f}",
                      f"{manipulability(robot, q, rows).mean():.4f}",
                      f"{np.linalg.norm(q - seed_q, axis=1).mean():.3f}", f"{err:.1e}", f"{dt * 1e3:.2f}"])
    print(f"  judged on the {int(both.sum())} of {len(T)} targets every run solved")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=300, help="targets of each kind (default 300)")
    ap.add_argument("--quick", action="store_true", help="60 targets of each kind")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random target configurations")
    args = ap.parse_args(argv)
    n = 60 if args.quick else args.targets
    robot = km.load("panda")
    lo, hi = robot.limits.T
    T = km.fk(robot, np.random.default_rng(args.seed).uniform(lo, hi, (n, robot.n)))
    home = robot.q_home
    print(machine())
    header = ["goal", "success", "min limit distance", "limit cost", "manipulability", "|q − seed| (rad)",
              "max pos. error (m)", "ms/target"]
    for kind, targets, rows in (("pose targets (1 free DOF)", km.targets.pose(T), slice(None)),
                                ("position targets (4 free DOF)", km.targets.position(T[:, :3, 3]), slice(0, 3))):
        print(f"\nPanda, {kind}, seed = home pose:")
        aligned_table(header, run(robot, targets, T, rows, home))


if __name__ == "__main__":
    main()
