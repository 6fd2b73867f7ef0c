"""Reachability maps: IK solves per second in this process and on a local 2-worker Dask cluster,
Dask's per-task overhead, and what a 1 cm map of a 6-DOF arm would take on 1, 10 and 100 nodes.

    python benchmarks/bench_workspace.py            # puma560, 0.15 m voxels, 8 × 2 orientations (~1 min)
    python benchmarks/bench_workspace.py --quick    # 0.25 m voxels (~20 s)

Every row runs the same job (robot, voxel, orientations, seed); the script checks that the
maps are identical before printing, so the rows compare cost, not answers. Timings depend on
the machine and its load (the header says both); no test asserts them.

The estimate: a 1 cm map has V = (envelope volume) / (1 cm)³ voxels (the volume measured
here at 5 cm) × K orientations = S solves. On N nodes of c cores each at the measured cost t
per solve and core, with tasks of T solves each and the scheduler's per-task overhead o
(serial, it does not shrink with N):  time ≈ S·t / (N·c) + (S / T)·o.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kinematica as km  # noqa: E402
from kinematica.workspace import envelope, reachability  # noqa: E402

from bench_kinematics import aligned_table, load_average, machine  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def same(a, b) -> bool:
    return (np.array_equal(a.voxels, b.voxels) and np.array_equal(a.reached, b.reached)
            and np.array_equal(a.witness_q, b.witness_q, equal_nan=True))


def task_overhead(address: str, n: int = 400) -> float:
    """Seconds per trivial task submitted to the cluster and gathered (scheduler + transport)."""
    from distributed import Client

    with Client(address) as client:
        client.gather(client.map(abs, range(20)))  # warm up
        t0 = time.perf_counter()
        client.gather(client.map(abs, range(100, 100 + n)))
        return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="puma560")
    ap.add_argument("--voxel", type=float, default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--restarts", type=int, default=None,
                    help="IK restarts per unsolved target (default: the map's, 0 where a closed form fits)")
    args = ap.parse_args()
    robot = km.load(args.robot)
    voxel = args.voxel or (0.25 if args.quick else 0.15)
    job = dict(voxel=voxel, orientations=8, rolls=2, samples=100_000, seed=0, chunk=128, restarts=args.restarts)
    print(machine())
    print(f"job     : {robot.name}, voxel {voxel:g} {robot.length_unit}, {job['orientations']} directions × "
          f"{job['rolls']} rolls, {job['samples']:,} envelope samples, chunk {job['chunk']} voxels")

    from distributed import LocalCluster

    rows, maps = [], []
    base, t = timed(lambda: reachability(robot, **job))
    maps.append(base)
    print(f"restarts: {base.restarts} per unsolved target\n")
    rows.append(["in-process (Dask threads)", t])
    per_solve = t / base.solves  # wall time per solve with both cores busy
    for processes in (False, True):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, protocol="tcp://",
                          host="127.0.0.1", dashboard_address=None) as cluster:
            m, t = timed(lambda: reachability(robot, scheduler=cluster.scheduler_address, **job))
            maps.append(m)
            rows.append([f"LocalCluster, 2 workers ({'processes' if processes else 'threads'})", t])
            if processes:
                overhead = task_overhead(cluster.scheduler_address)
    identical = all(same(base, m) for m in maps[1:])
    lines = [[name, f"{base.solves:,}", f"{t:.2f}", f"{base.solves / t:,.0f}", f"{t / base.solves * 1e6:.0f}"]
             for name, t in rows]
    aligned_table(["execution", "IK solves", "time s", "solves/s", "µs/solve"], lines)
    print(f"\nmaps identical across the three runs: {identical}")
    print(f"Dask per-task overhead (2-worker LocalCluster, processes): {overhead * 1e3:.2f} ms")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    env, _ = timed(lambda: envelope(robot, samples=400_000, voxel=0.05))
    K = 25 * 4  # a 1 cm map: 25 approach directions × 4 rolls
    V = env.volume / 0.01 ** 3
    S = V * K
    t_core = per_solve * cores  # one core's time per solve
    per_task = 256 * K  # default chunk: 256 voxels
    print(f"\n1 cm map of {robot.name}: envelope {env.volume:.2f} ± {env.volume_uncertainty:.2f} m³ → "
          f"{V:.3g} voxels × {K} orientations = {S:.3g} IK solves; {t_core * 1e6:.0f} µs per solve and core "
          f"(measured above), {per_task:,} solves per task, {overhead * 1e3:.2f} ms per task")
    est = []
    for nodes in (1, 10, 100):
        compute = S * t_core / (nodes * cores)
        sched = S / per_task * overhead
        est.append([str(nodes), str(nodes * cores), f"{compute / 3600:.2f}", f"{sched:.1f}",
                    f"{(compute + sched) / 3600:.2f}"])
    aligned_table(["nodes", "cores", "compute h", "scheduler s", "total h"], est)
    print(f"\n(nodes like this one: {cores} cores; load average at the end {load_average()})")


if __name__ == "__main__":
    main()
