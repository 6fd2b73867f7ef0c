"""What an ordinary script gets from the compiled core: FK, Jacobian, RNE, the mass matrix and
one IK call timed in fresh processes with default settings, beside Pinocchio's like-for-like
call and Robotics Toolbox's `ik_LM`.

    python benchmarks/bench_core.py            # Puma 560, then IK on 3 arms; tables, JSON on the last line
    python benchmarks/bench_core.py --robot panda --runs 5 --only core
    python benchmarks/bench_core.py --only ik --peer-python /tmp/rtb-venv/bin/python

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
same fresh process, µs per pose (FK, J at 100 000 poses) or ms per batch (RNE, M of 10 000,
and paper 004's KR6 R900 line, 1 000 poses, through `km.ik` with its defaults).

IK (Puma 560, UR5, Panda): `km.ik(robot, T, q0)` per target, default settings and with
`closed_form_seed=False`, and Robotics Toolbox's C++ `ets().ik_LM` on a `DHRobot` built fresh
from our DH table, each (solver, robot) in its own interpreter — the peer's from
`--peer-python` or $BENCH_RTB_PYTHON (it need not share our environment). The targets are FK
of random joint values inside the limits, q0 random inside them, the same file for every
solver; per call the wall and CPU time: the first call, the first 100 (wall), the median CPU
time of the rest; success by an independent FK (`reference.fk_space`). Then a fresh script:
the wall time of `python -c "import …; load; 100 IK calls"` for ours and the peer's.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import kinematica as km
from kinematica.kinematics.reference import fk_space

import peer_rtb

HERE = Path(__file__).resolve().parent


@functools.cache
def user_env() -> dict[str, str]:
    """The environment a user's fresh process has: this one without PYTHONDONTWRITEBYTECODE, and
    Kinematica's modules compiled to bytecode first, as a wheel install leaves them (an editable
    install writes them at its first import). A stale bytecode cache makes every start-up compile
    the changed modules again: +0.1–0.2 s, which is the developer's setting, not a user's."""
    import compileall
    import os

    compileall.compile_dir(str(Path(km.__file__).parent), quiet=2)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
OPS = ("FK", "Jacobian", "RNE", "mass matrix")
# issue 26's goals: ours ÷ Pinocchio for one call, and batched times
GOAL_RATIO = {"FK": 1.0, "Jacobian": 1.0, "RNE": 1.0, "mass matrix": 1.5}
LINE = "KR6 R900 1 000-point line with IK (`km.ik` on (1000, 4, 4)), ms"
GOAL_BATCH = {"FK, µs a pose (100 000)": 0.05, "Jacobian, µs a pose (100 000)": 0.1,
              "RNE, ms for 10 000 states": 1.0, LINE: 5.0}

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
    kr6 = km.load("kuka-kr6-r900")  # paper 004's line: home to q1 = q5 = -90°, 1 000 poses, default km.ik
    line = km.trajectory.line(km.fk(kr6, np.zeros(6)), km.fk(kr6, np.radians([-90, 0, 0, 0, -90, 0])),
                              steps=999).poses
    out["batch"][{line_key!r}] = best(lambda: km.ik(kr6, line)) * 1e3
    import bench_core
    res = km.ik(kr6, line)
    ok = bench_core.judge(kr6, line, res.q)
    out["line"] = {{"n": len(line), "success": 100 * float(ok.mean()), "false": int((res.success & ~ok).sum())}}
print(json.dumps(out))
'''


def fresh(side: str, op: str, robot: str) -> dict:
    """One fresh interpreter's timings of one (side, op)."""
    code = _CHILD.format(here=str(HERE), side=side, op=op, robot=robot, line_key=LINE)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600,
                          env=user_env())
    return json.loads(done.stdout.strip().splitlines()[-1])


def has_pinocchio() -> bool:
    import importlib.util

    return importlib.util.find_spec("pinocchio") is not None


def measure(robot: str = "puma560", runs: int = 3) -> dict:
    """{side: {op: {first, hundred, steady (µs), batch …}}}, each the median over `runs` processes."""
    sides = ["ours"] + (["Pinocchio"] if has_pinocchio() else [])
    out: dict = {"robot": robot, "runs": runs, **{side: {} for side in sides}}
    for op in OPS:
        # ours and the peer's processes alternate: a machine whose speed drifts during the run
        # (seen: every call of ours 1.6× slower in one run than minutes later) moves both alike
        got: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(runs):
            for side in sides:
                got[side].append(fresh(side, op, robot))
        for side in sides:
            out[side][op] = {k: statistics.median(g[k] for g in got[side]) for k in ("first", "hundred", "steady")}
        first = got["ours"][0]
        if "batch" in first:
            out["batch"] = {k: statistics.median(g["batch"][k] for g in got["ours"]) for k in first["batch"]}
            out["line"] = first["line"]  # the same batch in every process: the same verdicts
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
    if "line" in res:
        line = res["line"]
        lines += ["", f"The line's {line['n']:,} poses: {line['success']:.2f} % solved by the independent FK check, "
                      f"{line['false']} false claims."]
    return "\n".join(lines)


# --- one IK call in a fresh process, beside Robotics Toolbox's ik_LM ------------------------------
IK_ROBOTS = ("puma560", "ur5", "panda")
IK_SIDES = {"ours": "Kinematica, default", "ours, no closed-form seed": "Kinematica, closed_form_seed=False",
            "Robotics Toolbox": "Robotics Toolbox ik_LM (C++)"}
IK_OPTIONS = {"ours": {}, "ours, no closed-form seed": {"closed_form_seed": False}}
GOAL_IK = {"ours": 0.5, "ours, no closed-form seed": 1.0}  # steady median ÷ RTB's (issue 26)
FIRST_CALL_MS = 5.0
SCRIPT_CALLS = 100

# Each child times one call per target, wall and CPU, and prints the answers for the parent to judge.
_LOOP = r'''
wall, cpu, qs, claimed = [], [], [], []
for k in range(len(T)):
    t0, c0 = time.perf_counter(), time.process_time()
    q, ok = solve(T[k], Q0[k])
    c1, t1 = time.process_time(), time.perf_counter()
    wall.append(t1 - t0); cpu.append(c1 - c0); qs.append([float(x) for x in q]); claimed.append(bool(ok))
print(json.dumps({"wall": wall, "cpu": cpu, "q": qs, "claimed": claimed, **extra}))
'''
_IK_OURS = r'''
import json, sys, time
import numpy as np
import kinematica as km
robot, data, options = km.load(sys.argv[1]), np.load(sys.argv[2]), json.loads(sys.argv[3])
T, Q0 = data["T"], data["q0"]
ik = km.ik  # resolved (its modules imported) before the clock starts, as for FK
def solve(Tk, q0):
    r = ik(robot, Tk, q0, **options)
    return r.q, r.success
extra = {}
''' + _LOOP
_SCRIPT_OURS = r'''
import sys
import numpy as np
import kinematica as km
robot, data = km.load(sys.argv[1]), np.load(sys.argv[2])
for Tk, q0 in zip(data["T"][:CALLS], data["q0"][:CALLS]):
    km.ik(robot, Tk, q0)
'''.replace("CALLS", str(SCRIPT_CALLS))


def judge(robot, T: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Success per target by an independent FK (`reference.fk_space`: the product of
    exponentials, not the core's chain): ‖p − p_d‖ < 1e-6 m (1e-3 mm), the angle of R_dᵀR
    (atan2 of its sine and cosine: exact near 0) < 1e-6 rad, and q inside the limits."""
    tol_p = 1e-6 if robot.length_unit == "m" else 1e-3
    ok = np.zeros(len(T), dtype=bool)
    for k, (Tk, q) in enumerate(zip(T, Q)):
        F = fk_space(robot, q)
        R = Tk[:3, :3].T @ F[:3, :3]
        sine = 0.5 * math.hypot(R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1])
        angle = math.atan2(sine, 0.5 * (np.trace(R) - 1.0))
        ok[k] = np.linalg.norm(F[:3, 3] - Tk[:3, 3]) < tol_p and angle < 1e-6 and bool(robot.within_limits(q))
    return ok


def write_problems(robot, n: int, folder: Path) -> tuple[Path, Path]:
    """n random reachable full poses (FK of joint values uniform inside the limits, ±π where a
    joint's range is wider) and n random q0 inside the same range, saved for every
    interpreter; and our DH table as the peer builds it (`peer_rtb.dh_spec`). Seeded: every run and
    every solver gets the same problems."""
    lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
    rng = np.random.default_rng(0)
    Q, Q0 = rng.uniform(lo, hi, (2, n, robot.n))
    problems, spec = folder / f"{robot.name}.npz", folder / f"{robot.name}.json"
    np.savez(problems, T=np.array([fk_space(robot, q) for q in Q]), q0=Q0)
    spec.write_text(json.dumps(peer_rtb.dh_spec(robot)), encoding="utf-8")
    return problems, spec


def ik_process(side: str, robot, files: tuple[Path, Path], peer: str) -> dict:
    """One fresh interpreter's calls: times (µs), success judged here, false claims."""
    problems, spec = files
    peer_side = side == "Robotics Toolbox"
    if peer_side and json.loads(spec.read_text(encoding="utf-8")) is None:
        return {"missing": "no DH table to build its arm from"}
    if peer_side:
        argv = peer_rtb.argv(peer, peer_rtb.child_code(_LOOP), str(spec), str(problems))
    else:
        argv = [sys.executable, "-c", _IK_OURS, robot.name, str(problems), json.dumps(IK_OPTIONS[side])]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=user_env())
    except FileNotFoundError:
        return {"missing": f"not installed (no {peer})"}
    if done.returncode and not peer_side:
        raise SystemExit(f"{side} on {robot.name} failed:\n{done.stderr}")
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"missing": "not installed" if "No module named" in last else f"failed: {last}"}
    got = json.loads(done.stdout.strip().splitlines()[-1])
    if got.get("fk_gap", 0.0) > 1e-9:
        return {"missing": f"its model's FK differs from ours by {got['fk_gap']:.1e} (not timed)"}
    T = np.load(problems)["T"]
    ok, claimed = judge(robot, T, np.array(got["q"])), np.array(got["claimed"])
    wall, cpu = np.array(got["wall"]) * 1e6, np.array(got["cpu"]) * 1e6
    return {"first": wall[0], "hundred": wall[:100].sum(), "steady": float(np.median(cpu[100:] if len(cpu) > 100 else cpu)),
            "ok": int(ok.sum()), "n": len(ok), "false": int((claimed & ~ok).sum()), "version": got.get("version")}


def script_seconds(argv: list[str], runs: int) -> float:
    """Median wall time (s) of a whole fresh script, interpreter start to exit."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, timeout=600, env=user_env())
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure_ik(robots=IK_ROBOTS, runs: int = 3, n: int = 500, peer: str | None = None) -> dict:
    """{robot: {side: {first, hundred, steady (µs), success %, false, n}}} over `runs` fresh
    processes each (times: medians; success and false claims: all processes' calls), and the
    fresh script's wall time per robot and side (s)."""
    peer = peer_rtb.python(peer)
    out: dict = {"runs": runs, "targets": n, "peer": peer, "robots": {}, "script": {}}
    with tempfile.TemporaryDirectory() as folder:
        for name in robots:
            robot = km.load(name)
            files = write_problems(robot, n, Path(folder))
            rows = {}
            for side in IK_SIDES:
                got = [ik_process(side, robot, files, peer) for _ in range(runs)]
                if "missing" in got[0]:
                    rows[side] = got[0]
                    continue
                rows[side] = {k: statistics.median(g[k] for g in got) for k in ("first", "hundred", "steady")}
                rows[side].update(success=100 * sum(g["ok"] for g in got) / sum(g["n"] for g in got),
                                  false=sum(g["false"] for g in got), n=sum(g["n"] for g in got))
                out["peer_version"] = got[0]["version"] or out.get("peer_version")
            script = {"ours": script_seconds([sys.executable, "-c", _SCRIPT_OURS, name, str(files[0])], runs)}
            if "missing" not in rows["Robotics Toolbox"]:
                code = peer_rtb.script_code(SCRIPT_CALLS)
                script["Robotics Toolbox"] = script_seconds(peer_rtb.argv(peer, code, str(files[1]), str(files[0])), runs)
            out["robots"][name], out["script"][name] = rows, script
    return out


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def ik_goal(side: str, row: dict, rtb: dict) -> str:
    if side not in GOAL_IK:
        return "–"
    ratio = row["steady"] / rtb["steady"] if "steady" in rtb else None
    parts = [f"≤ {GOAL_IK[side]:g}× " + ("(no peer)" if ratio is None else met(ratio <= GOAL_IK[side])),
             f"100 %, 0 false {met(row['success'] == 100 and row['false'] == 0)}"]
    if side == "ours":
        parts.append(f"first ≤ {FIRST_CALL_MS:g} ms {met(row['first'] <= FIRST_CALL_MS * 1e3)}")
    return "; ".join(parts)


def ik_tables(res: dict) -> str:
    lines = ["| fresh process, one full-pose IK call, random target and q0 (µs) | solver | first call | "
             "first 100 calls | steady, median a call | success % | false claims | ÷ RTB, steady | goal |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, rows in res["robots"].items():
        rtb = rows["Robotics Toolbox"]
        for side, row in rows.items():
            if "missing" in row:
                lines.append(f"| {name} | {IK_SIDES[side]} | {row['missing']} | | | | | | |")
                continue
            ratio = f"{row['steady'] / rtb['steady']:.2f}×" if "steady" in rtb and side != "Robotics Toolbox" else "–"
            lines.append(f"| {name} | {IK_SIDES[side]} | {row['first']:,.0f} | {row['hundred']:,.0f} | "
                         f"{row['steady']:.1f} | {row['success']:.2f} | {row['false']} | {ratio} | "
                         f"{ik_goal(side, row, rtb)} |")
    lines += ["", f"| a fresh script: import, load, {SCRIPT_CALLS} IK calls (s, wall) | Kinematica | "
              "Robotics Toolbox | ours ÷ RTB | goal |", "|---|---|---|---|---|"]
    for name, script in res["script"].items():
        ours, peer = script["ours"], script.get("Robotics Toolbox")
        lines.append(f"| {name} | {ours:.2f} | " + ("not installed | – | ≤ 1× (no peer)" if peer is None else
                     f"{peer:.2f} | {ours / peer:.2f}× | ≤ 1× {met(ours <= peer)}") + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="puma560", help="the FK/J/RNE/M rows' robot")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per (library, operation)")
    ap.add_argument("--targets", type=int, default=500, help="IK targets per fresh process (default 500)")
    ap.add_argument("--peer-python", help=f"the interpreter with Robotics Toolbox (default ${peer_rtb.PEER_ENV}, "
                                          "else this one)")
    ap.add_argument("--only", choices=("core", "ik"), help="run one part only")
    args = ap.parse_args(argv)
    res: dict = {}
    if args.only != "ik":
        res["core"] = measure(args.robot, args.runs)
        print(tables(res["core"]) + "\n")
    if args.only != "core":
        res["ik"] = measure_ik(IK_ROBOTS, args.runs, args.targets, args.peer_python)
        print(ik_tables(res["ik"]))
    print(json.dumps(res, default=float))


if __name__ == "__main__":
    main()
