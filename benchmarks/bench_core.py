"""What an ordinary script gets from the compiled core: FK, Jacobian, RNE and the mass matrix
timed in fresh processes with default settings, beside Pinocchio's like-for-like call.

    python benchmarks/bench_core.py            # Puma 560, a table and JSON on stdout's last line
    python benchmarks/bench_core.py --robot panda --runs 5

Each (library, operation) runs in its own fresh interpreter, after its imports, the robot's
model and the function's name are made (`km.fk` resolved: that imports its modules; not timed): the first call (which, for us, loads `kinematica._core` and packs
the robot's handle), the first 100 calls together (the first included), then the steady state
(median of 7 runs of 2000 calls, CPU time, µs a call). The median over `--runs` fresh
processes of each.

Pinocchio's like-for-like calls, each taking q and returning an ndarray as ours do:
- FK: `forwardKinematics` (every joint placement: what our chain product computes) then
  `updateFramePlacement` of the one tool frame and `.homogeneous` (a 4×4 ndarray). Not
  `framesForwardKinematics`/`updateFramePlacements`: they place every frame of the model, work
  `km.fk` does not do.
- Jacobian: `computeFrameJacobian(…, tool, LOCAL_WORLD_ALIGNED)`: FK and the tool frame's
  Jacobian from q in one call, rows (v; ω) of the tool point in base axes — `km.jacobian`'s.
  (`computeJointJacobian` gives a joint's, not the tool's; `getFrameJacobian` needs the
  Jacobians computed by another call first.)
- RNE: `rnea(q, v, a)`, standard gravity, no friction (the Puma's table has none).
- Mass matrix: `crba(q)`, which fills only the upper triangle (ours returns the whole
  symmetric matrix: crba's row is a slight flattery of Pinocchio).
Batched rows (ours only: Pinocchio has no batched call) time one call on many states in the
same fresh process, µs per pose (FK, J at 100 000 poses) or ms per batch (RNE, M of 10 000).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPS = ("FK", "Jacobian", "RNE", "mass matrix")
# issue 26's goals: ours ÷ Pinocchio for one call, and batched times
GOAL_RATIO = {"FK": 1.0, "Jacobian": 1.0, "RNE": 1.0, "mass matrix": 1.5}
GOAL_BATCH = {"FK, µs a pose (100 000)": 0.05, "Jacobian, µs a pose (100 000)": 0.1,
              "RNE, ms for 10 000 states": 1.0}

_CHILD = r'''
import json, statistics, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import kinematica as km
side, op, name = {side!r}, {op!r}, {robot!r}
robot = km.load(name)
rng = np.random.default_rng(0)
lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
q = rng.uniform(lo, hi)
qd, qdd = rng.uniform(-2, 2, (2, robot.n))
if side == "ours":  # the names resolved (their modules imported) before the clock starts
    fk, jacobian, rne, mass_matrix = km.fk, km.jacobian, km.rne, km.mass_matrix
    call = {{"FK": lambda: fk(robot, q), "Jacobian": lambda: jacobian(robot, q),
            "RNE": lambda: rne(robot, q, qd, qdd), "mass matrix": lambda: mass_matrix(robot, q)}}[op]
else:
    import bench_dynamics as bd, bench_kinematics as bk
    if op in ("FK", "Jacobian"):
        pin, model, data, frame = bk.pinocchio_model(robot)
    else:
        pin, model, data = bd.pinocchio_model(robot)
    qp, qdp, qddp = (bd.to_si(robot, x) for x in (q + robot.offsets, qd, qdd))
    world = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    def fk():
        pin.forwardKinematics(model, data, qp)
        return pin.updateFramePlacement(model, data, frame).homogeneous
    call = {{"FK": fk, "Jacobian": lambda: pin.computeFrameJacobian(model, data, qp, frame, world),
            "RNE": lambda: pin.rnea(model, data, qp, qdp, qddp), "mass matrix": lambda: pin.crba(model, data, qp)}}[op]
clock = time.perf_counter
t0 = clock(); call(); first = clock() - t0
t0 = clock()
for _ in range(99):
    call()
hundred = first + clock() - t0
runs = []
for _ in range(7):  # CPU time: other work on a shared machine inflates it far less than wall time
    t0 = time.process_time()
    for _ in range(2000):
        call()
    runs.append((time.process_time() - t0) / 2000)
out = {{"first": first * 1e6, "hundred": hundred * 1e6, "steady": statistics.median(runs) * 1e6}}
if side == "ours" and op == "FK":
    Q = rng.uniform(lo, hi, (100_000, robot.n)); S = rng.uniform(lo, hi, (10_000, robot.n))
    SD, SDD = rng.uniform(-2, 2, (2, 10_000, robot.n))
    def best(f, k=5):
        f(); ts = []
        for _ in range(k):
            t0 = clock(); f(); ts.append(clock() - t0)
        return statistics.median(ts)
    out["batch"] = {{"FK, µs a pose (100 000)": best(lambda: km.fk(robot, Q)) / len(Q) * 1e6,
                    "Jacobian, µs a pose (100 000)": best(lambda: km.jacobian(robot, Q)) / len(Q) * 1e6,
                    "RNE, ms for 10 000 states": best(lambda: km.rne(robot, S, SD, SDD)) * 1e3,
                    "mass matrix, ms for 10 000 states": best(lambda: km.mass_matrix(robot, S)) * 1e3}}
print(json.dumps(out))
'''


def fresh(side: str, op: str, robot: str) -> dict:
    """One fresh interpreter's timings of one (side, op)."""
    code = _CHILD.format(here=str(HERE), side=side, op=op, robot=robot)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def has_pinocchio() -> bool:
    import importlib.util

    return importlib.util.find_spec("pinocchio") is not None


def measure(robot: str = "puma560", runs: int = 3) -> dict:
    """{side: {op: {first, hundred, steady (µs), batch …}}}, each the median over `runs` processes."""
    sides = ["ours"] + (["Pinocchio"] if has_pinocchio() else [])
    out: dict = {"robot": robot, "runs": runs}
    for side in sides:
        out[side] = {}
        for op in OPS:
            got = [fresh(side, op, robot) for _ in range(runs)]
            row = {k: statistics.median(g[k] for g in got) for k in ("first", "hundred", "steady")}
            if "batch" in got[0]:
                out["batch"] = {k: statistics.median(g["batch"][k] for g in got) for k in got[0]["batch"]}
            out[side][op] = row
    return out


def tables(res: dict) -> str:
    pin = res.get("Pinocchio")
    lines = [f"| fresh process, {res['robot']} (µs) | first call | first 100 calls | steady, a call | "
             "Pinocchio first / 100 / steady | ours ÷ Pinocchio, steady | goal |", "|---|---|---|---|---|---|---|"]
    for op in OPS:
        o = res["ours"][op]
        p = pin[op] if pin else None
        ratio = o["steady"] / p["steady"] if p else None
        lines.append(f"| {op} | {o['first']:.1f} | {o['hundred']:.1f} | {o['steady']:.3f} | "
                     + (f"{p['first']:.1f} / {p['hundred']:.1f} / {p['steady']:.3f}" if p else "not installed")
                     + f" | {'–' if ratio is None else f'{ratio:.2f}×'} | ≤ {GOAL_RATIO[op]:g}× "
                     + ("" if ratio is None else "met" if ratio <= GOAL_RATIO[op] else "**not met**") + " |")
    lines += ["", "| batched, ours | time | goal |", "|---|---|---|"]
    for k, v in res.get("batch", {}).items():
        goal = GOAL_BATCH.get(k)
        lines.append(f"| {k} | {v:.3f} | " + ("–" if goal is None else f"≤ {goal:g} "
                                              + ("met" if v <= goal else "**not met**")) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="puma560")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per (library, operation)")
    args = ap.parse_args(argv)
    res = measure(args.robot, args.runs)
    print(tables(res))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
