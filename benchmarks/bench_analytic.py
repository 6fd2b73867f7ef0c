"""Analytic IK, all branches: time per target batched and single, and what the branches are worth.

    python benchmarks/bench_analytic.py             # 10 000 targets per robot, a few seconds each
    python benchmarks/bench_analytic.py --quick     # 2 000 targets, fewer repeats
    python benchmarks/bench_analytic.py --robot puma560 --robot ur5

Targets: FK of random joint vectors inside the limits (10 000, as in the issue's protocol).
"batched" solves them in one `analytic_solutions` call (every branch, each FK-checked);
"single" solves one prebuilt target per call. Times are medians over `--repeat` runs, as wall
time and as this process's CPU time (the second is less disturbed by other processes on a
shared machine). Issue 3's targets: ≤ 5 µs per target batched, ≤ 200 µs single.
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import kinematica as km
from bench_kinematics import aligned_table, machine  # the same machine and software header everywhere
from kinematica.ik import target as tg
from kinematica.ik.analytic import analytic_candidates, analytic_solutions, solver_name

TARGET_BATCH_US, TARGET_SINGLE_US = 5.0, 200.0
DEFAULT = ["kuka-kr6-r900", "puma560", "ur5", "arm-5dof-geo", "planar-3r"]


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of one fn() over `repeat` runs (after a warm-up run)."""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def targets_for(robot: km.Robot, Q: np.ndarray) -> tg.Target:
    T = km.fk(robot, Q)
    if solver_name(robot) == "planar":
        return tg.planar(T[:, :2, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0]))
    if solver_name(robot) == "geometric5":
        return tg.approach(T[:, :3, 3], T[:, :3, 2])
    return tg.pose(T)


def quality(robot: km.Robot, t: tg.Target, Q: np.ndarray) -> dict[str, float]:
    """Valid branches per target, how often the source configuration is among them, branches
    the solver's geometry called reachable that failed the FK check (dropped), and how many
    valid ones lie within the joint limits."""
    q, valid, _ = analytic_solutions(robot, t)
    _, reach, _ = analytic_candidates(robot, t)
    cols = slice(0, robot.n - 1) if t.kind == "approach" else slice(None)  # roll is free there
    gap = np.abs((q[..., cols] - Q[:, None, cols] + np.pi) % (2 * np.pi) - np.pi).max(axis=-1)
    found = np.min(np.where(valid, gap, np.inf), axis=1) < 1e-7
    return {"branches": valid.sum(1).mean(), "found": 100 * found.mean(), "dropped": int((reach & ~valid).sum()),
            "in limits": robot.within_limits(q)[valid].mean() * 100, "k": q.shape[1]}


def bench_robot(name: str, count: int, repeat: int, calls: int) -> dict[str, object]:
    robot = km.load(name)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    Q = np.random.default_rng(0).uniform(lo, hi, (count, robot.n))
    t = targets_for(robot, Q)
    wall, cpu = timed(lambda: analytic_solutions(robot, t), repeat)
    singles = [t[i:i + 1] for i in range(calls)]
    swall, scpu = timed(lambda: [analytic_solutions(robot, s) for s in singles], repeat)
    return {"robot": name, "solver": solver_name(robot), "kind": t.kind,
            "batch wall": wall / count * 1e6, "batch cpu": cpu / count * 1e6,
            "single wall": swall / calls * 1e6, "single cpu": scpu / calls * 1e6, **quality(robot, t, Q)}


def bench_rtb_puma(calls: int, repeat: int) -> str:
    """Robotics Toolbox's analytic `ikine_a` on its own Puma 560: all 8 configurations of one
    target, one call per configuration."""
    try:
        import roboticstoolbox as rtb
        puma = rtb.models.DH.Puma560()
    except Exception as exc:
        return f"Robotics Toolbox: not available ({type(exc).__name__})"
    Q = np.random.default_rng(1).uniform(*puma.qlim, (calls, 6))
    Ts = [puma.fkine(q) for q in Q]
    configs = [a + b + c for a in "lr" for b in "ud" for c in "nf"]
    wall, cpu = timed(lambda: [[puma.ikine_a(T, config=c) for c in configs] for T in Ts], repeat)
    return (f"Robotics Toolbox {rtb.__version__} ikine_a, its Puma 560, all 8 configurations of one "
            f"target: {wall / calls * 1e6:.0f} µs wall, {cpu / calls * 1e6:.0f} µs CPU per target")



def print_table(rows: list[dict[str, object]]) -> None:
    head = ["robot", "solver", "target", "k", "batched µs/target wall | CPU", "single µs wall | CPU",
            "valid/target", "source found", "dropped", "valid in limits"]
    lines = []
    for r in rows:
        bw, bc, sw, sc = r["batch wall"], r["batch cpu"], r["single wall"], r["single cpu"]
        lines.append([r["robot"], r["solver"], r["kind"], str(r["k"]),
                      f"{bw:.2f} | {bc:.2f} {'✓' if min(bw, bc) <= TARGET_BATCH_US else '✗'}",
                      f"{sw:.0f} | {sc:.0f} {'✓' if min(sw, sc) <= TARGET_SINGLE_US else '✗'}",
                      f"{r['branches']:.2f}", f"{r['found']:.2f} %", str(r["dropped"]), f"{r['in limits']:.1f} %"])
    aligned_table(head, lines, left=(0, 1, 2))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", action="append", help=f"bundled robot (repeatable; default {', '.join(DEFAULT)})")
    ap.add_argument("--quick", action="store_true", help="2 000 targets, 3 repeats")
    ap.add_argument("--count", type=int, help="targets in the batch (default 10 000)")
    ap.add_argument("--repeat", type=int, help="repeats (default 7; 3 quick)")
    args = ap.parse_args(argv)
    count = args.count or (2_000 if args.quick else 10_000)
    repeat = args.repeat or (3 if args.quick else 7)
    calls = 100 if args.quick else 300
    names = [n for n in (args.robot or DEFAULT) if n in km.robot_names()]
    print(machine())
    print(f"targets : {count:,} FK targets of random joint vectors within the limits per robot; "
          f"single = {calls} one-target calls; median of {repeat} runs\n")
    bench_robot(names[0], min(count, 2_000), 2, 20)  # warm-up: the first timings of a process run slow
    print_table([bench_robot(n, count, repeat, calls) for n in names])
    print(f"\n✓/✗: the better of wall and CPU time against issue 3's targets (batched ≤ {TARGET_BATCH_US:g} "
          f"µs, single ≤ {TARGET_SINGLE_US:g} µs). k: branches per target; valid: FK reproduces the target\n"
          "(1e-9 × robot size, 1e-9 rad); dropped: branches the geometry calls reachable that fail the FK "
          "check (0 expected).")
    print(bench_rtb_puma(max(10, calls // 10), repeat))


if __name__ == "__main__":
    main()
