"""Work per IK solve (issue 12, item 3): attempts and LM iterations per target, one call each.

    python benchmarks/bench_ik_work.py [--targets 300]

Targets: random joint values inside the limits, a quarter of them with one joint exactly on a
limit, turned into full poses by FK; seeds random inside the limits (limits="wrap"). An
"attempt" is one run of LM from a seed; "first seed" is the share solved by the first attempt.
Success is judged by `bench_ik.check` (our FK, limits on), false claims are successes it
refuses. Two passes: the calls as users make them (time, iterations, success: the whole solve
runs in one call of the C++ core, `lm_core.solve_single`, which does not report its attempts),
then the same targets through the NumPy reference loop the tests hold the core to
(`single.solve_one`), whose attempts (`single.attempt`) are counted by wrapping it — that loop
draws its restarts from NumPy's generator instead of the core's xoshiro256**, so attempts are
counted on the same algorithm, not the same random seeds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kinematica as km  # noqa: E402
from kinematica.ik import fast, one, single  # noqa: E402

import bench_ik as bi  # noqa: E402
from bench_kinematics import load_average  # noqa: E402

_ATTEMPTS: list[int] = []
_attempt = single.attempt


def _counted(*args, **kw):
    _ATTEMPTS.append(1)
    return _attempt(*args, **kw)


def targets(robot: km.Robot, n: int):
    """Joint vectors (a quarter with one joint on a limit), seeds, and the poses."""
    Q, S, _ = bi.problems(robot, n)
    rng = np.random.default_rng(5)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    for i in range(0, n, 4):
        j = rng.integers(robot.n)
        Q[i, j] = lo[j] if rng.random() < 0.5 else hi[j]
    return S, km.fk(robot, Q)


def _declined(*args, **kw):
    return None  # as `lm_core.solve_single` declining a target: km.ik runs `single.solve_one`


def counted_attempts(robot: km.Robot, S, T) -> list[int]:
    """Attempts per target through the NumPy reference loop (see the module docstring)."""
    kept = fast.solve_single, one.solve_single
    fast.solve_single = one.solve_single = _declined
    single.attempt = _counted
    try:
        out = []
        for Tk, Sk in zip(T, S):
            _ATTEMPTS.clear()
            km.ik(robot, Tk, Sk, limits="wrap")
            out.append(len(_ATTEMPTS))
        return out
    finally:
        fast.solve_single, one.solve_single = kept
        single.attempt = _attempt


def measure(name: str, n: int) -> str:
    robot = km.load(name)
    S, T = targets(robot, n)
    km.ik(robot, T[0], S[0], limits="wrap")  # warm up
    iters, ok, false, wall = [], [], 0, []
    for Tk, Sk in zip(T, S):
        t0 = time.perf_counter()
        r = km.ik(robot, Tk, Sk, limits="wrap")
        wall.append(time.perf_counter() - t0)
        good = bool(bi.check(Tk[None], km.fk(robot, r.q)[None], r.q[None], robot.limits, 1e-6)[0])
        iters.append(r.iterations)
        ok.append(good)
        false += bool(r.success) and not good
    a, it, w = np.array(counted_attempts(robot, S, T)), np.array(iters), np.array(wall) * 1e6
    return (f"{name:8s} attempts mean {a.mean():.2f} max {a.max():2d}, first seed {100 * np.mean(a == 1):5.1f} %; "
            f"iterations mean {it.mean():5.1f} median {np.median(it):3.0f}; success {100 * np.mean(ok):.2f} %, "
            f"false claims {false}; wall median {np.median(w):.0f} µs, mean {w.mean():.0f} µs")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=300)
    args = ap.parse_args(argv)
    print(f"load average {load_average()} at the start")
    for name in ("puma560", "ur5", "panda"):
        print(measure(name, args.targets))
    print(f"load average {load_average()} at the end")


if __name__ == "__main__":
    main()
