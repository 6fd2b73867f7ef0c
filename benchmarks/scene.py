"""Collision checks per second for a two-arm scene (issue 15), single and batched.

    python benchmarks/scene.py            # 2 000 single checks, batches of 10 000, 5 repeats (~30 s)
    python benchmarks/scene.py --quick    # 300 single checks, batches of 2 000, 3 repeats

Scene: the bundled `two-braccios` (two 5-DOF Braccios facing each other on a table; 4 capsules
per arm, a box) at random configurations of both arms within their limits, seeded; the two
arms meet in a share of them. Rows:

- `scene.check(q)` one configuration per call, and `scene.check(Q)` over a batch: FK of both
  arms, the NumPy bounding-sphere broad phase over the batch, coal's narrow phase on the pairs
  it leaves;
- `scene.distance` the same way (the exact minimum: pairs in increasing lower bound until the
  bound passes the best distance);
- two ways without kinematica's broad phase, one configuration at a time, as a reference:
  coal's DynamicAABBTree manager (update every object's transform, collect the overlapping
  AABB pairs in C++, then coal's narrow phase on the checked ones among them) and coal on every checked
  pair. Every row must give the same colliding/clear verdicts (checked before timing).

Times are medians over the repeats, wall clock and this process's CPU time (steadier on a
shared machine; checks/s is from CPU time); the header states the machine and its load.
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import kinematica as km
from bench_kinematics import aligned_table, machine


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU (this process) seconds of fn() over `repeat` runs, after a warm-up."""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def coal_manager(scene: km.Scene, Q: dict[str, np.ndarray]) -> np.ndarray:
    """Verdicts with coal's DynamicAABBTree broad phase, one configuration at a time."""
    import coal

    c = scene.compiled()
    col = c.collider
    objs = [coal.CollisionObject(g, coal.Transform3s()) for g in col.geoms]
    checked = {(int(a), int(b)) for a, b in zip(col.pa, col.pb)}
    compute = {(int(a), int(b)): f for a, b, f in zip(col.pa, col.pb, col._collide)}
    mgr = coal.DynamicAABBTreeCollisionManager()
    for o in objs:
        mgr.registerObject(o)
    mgr.setup()
    req, res = coal.CollisionRequest(), coal.CollisionResult()
    B = len(next(iter(Q.values())))
    out = np.zeros(B, bool)
    for b in range(B):
        W = col.part_poses(c.body_poses({k: v[b:b + 1] for k, v in Q.items()}, 1))[0]
        for o, T in zip(objs, W):
            o.setTransform(coal.Transform3s(T[:3, :3], T[:3, 3]))
            o.computeAABB()
        mgr.update()
        cb = coal.CollisionCallBackCollect(len(objs) ** 2)
        mgr.collide(cb)
        for i, j in checked:  # (the pair list itself has no Python converter in coal 3)
            if cb.exist(objs[i], objs[j]) or cb.exist(objs[j], objs[i]):
                res.clear()
                if compute[(i, j)](objs[i].getTransform(), objs[j].getTransform(), req, res):
                    out[b] = True
                    break
    return out


def coal_all_pairs(scene: km.Scene, Q: dict[str, np.ndarray]) -> np.ndarray:
    """Verdicts with coal on every checked pair, no broad phase, one configuration at a time."""
    import coal

    c = scene.compiled()
    col = c.collider
    req, res = coal.CollisionRequest(), coal.CollisionResult()
    B = len(next(iter(Q.values())))
    out = np.zeros(B, bool)
    for b in range(B):
        W = col.part_poses(c.body_poses({k: v[b:b + 1] for k, v in Q.items()}, 1))
        for k in range(col.n_pairs):
            res.clear()
            if col._collide[k](*col._set(W, 0, k), req, res):
                out[b] = True
                break
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 single checks, batches of 2 000, 3 repeats")
    ap.add_argument("--single", type=int, help="configurations for the one-at-a-time rows (default 2 000)")
    ap.add_argument("--batch", type=int, help="configurations per batch (default 10 000)")
    ap.add_argument("--repeat", type=int, help="repeats (default 5; 3 quick)")
    args = ap.parse_args(argv)
    single = args.single or (300 if args.quick else 2000)
    batch = args.batch or (2000 if args.quick else 10000)
    repeat = args.repeat or (3 if args.quick else 5)

    scene = km.Scene.load("two-braccios")
    lim = scene.robots["left"].robot.limits
    rng = np.random.default_rng(0)
    QB = {name: rng.uniform(lim[:, 0], lim[:, 1], (batch, 5)) for name in scene.robots}
    QS = {k: v[:single] for k, v in QB.items()}
    c = scene.compiled()
    print(machine())
    print(f"scene   : two-braccios, {len(c.names)} bodies, {len(c.collider.geoms)} shapes, "
          f"{c.collider.n_pairs} shape pairs checked; {single} single / {batch} batched configurations, "
          f"median of {repeat}\n")

    ref = scene.check(QB).colliding
    assert np.array_equal(ref[:single], [scene.check({k: v[i] for k, v in QS.items()}).colliding for i in range(single)])
    assert np.array_equal(ref[:single], coal_manager(scene, QS))
    assert np.array_equal(ref[:single], coal_all_pairs(scene, QS))
    rows = []

    def row(name: str, n: int, fn: Callable[[], object]) -> None:
        wall, cpu = timed(fn, repeat)
        rows.append([name, f"{n:,}", f"{wall / n * 1e6:,.1f}", f"{cpu / n * 1e6:,.1f}", f"{n / cpu:,.0f}"])

    row("scene.check(q), one per call", single,
        lambda: [scene.check({k: v[i] for k, v in QS.items()}) for i in range(single)])
    row("scene.check(Q), one batch", batch, lambda: scene.check(QB))
    row("scene.distance(q), one per call", single,
        lambda: [scene.distance({k: v[i] for k, v in QS.items()}) for i in range(single)])
    row("scene.distance(Q), one batch", batch, lambda: scene.distance(QB))
    row("coal DynamicAABBTree manager, per config", single, lambda: coal_manager(scene, QS))
    row("coal on every checked pair, per config", single, lambda: coal_all_pairs(scene, QS))
    aligned_table(["what", "configurations", "µs/config (wall)", "µs/config (CPU)", "checks/s (CPU)"], rows)
    print(f"\n{ref.mean() * 100:.1f} % of the random configurations collide (same verdicts in every row).")


if __name__ == "__main__":
    main()
