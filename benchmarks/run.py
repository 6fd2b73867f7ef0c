"""Every benchmark in one run: the tables the README's "Benchmarks" section shows.

    python benchmarks/run.py            # a few minutes; writes benchmarks/results/latest.{json,md}
    python benchmarks/run.py --readme   # … and puts the Markdown into README.md between its markers
    python benchmarks/run.py --quick    # a smoke run (fewer calls and targets): numbers are rougher

The tables, ours beside the peers that are installed (Pinocchio, Robotics Toolbox, ikpy), each
row with the ratio the issue-12 and issue-26 targets are stated in and whether it is met:
- fresh processes, default settings (bench_core.py): FK, Jacobian, RNE, mass matrix — the first
  call, the first 100 and the steady state, beside Pinocchio's like-for-like call; our batched
  calls, the KR6 R900 1 000-point line with IK among them;
- fresh processes, one full-pose IK call (bench_core.py; Puma 560, UR5, Panda): the same three
  times, success and false claims, beside Robotics Toolbox's C++ `ik_LM` run in its own
  interpreter (`--peer-python`, or $BENCH_RTB_PYTHON); and a fresh script's wall time, import
  to the 100th call;
- single calls (Puma 560): FK, Jacobian, RNE — ours (the C++ core) ÷ Pinocchio's time;
- batched calls: per pose / per state, ours against the peers' Python loops;
- IK, full pose (Puma 560, UR5, Panda): success (judged by our FK, limits on), false claims and
  time per solve, batched and one call at a time, beside Pinocchio's CLIK loop;
- start-up: wall time of `import kinematica` and of two CLI calls, `import numpy` as the floor.

The timing helpers, peer models and protocols are those of the bench_*.py scripts (their
READMEs say what each row calls). The header records the machine, its load, the versions and
the date: wall times on a shared machine rise with its load, so compare runs made quiet.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kinematica as km  # noqa: E402

import bench_core as bc  # noqa: E402
import bench_dynamics as bd  # noqa: E402
import bench_ik as bi  # noqa: E402
import bench_kinematics as bk  # noqa: E402

README = HERE.parent / "README.md"
START, END = "<!-- benchmarks:start (python benchmarks/run.py --readme) -->", "<!-- benchmarks:end -->"
# Issue 12's targets: our single call at most this many times Pinocchio's.
SINGLE_RATIO = {"FK": 1.5, "Jacobian": 2.0, "RNE": 2.0}
IK_BATCHED_US = 10.0  # µs per solve, 6-DOF arms
STARTUP_S = {"import kinematica": 0.15, "kinematica robots": 0.3, "kinematica fk puma560 0 0 0 0 0 0": 0.3}


def fmt(x: float | None, unit: str = "") -> str:
    if x is None:
        return "–"
    return (f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:,.0f}") + unit


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


# --- the measurements -----------------------------------------------------------------------
def kinematics(quick: bool) -> dict:
    robot = km.load("puma560")
    poses = 20_000 if quick else 100_000
    calls, repeat = (300, 3) if quick else (3000, 7)
    lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
    Q = np.random.default_rng(0).uniform(lo, hi, (poses, robot.n))
    looped = Q[: min(poses, 10_000)]
    out = {"robot": robot.name, "poses": poses, "ours": bk.bench_ours(robot, Q, calls, repeat)}
    out["Pinocchio"] = bk.bench_pinocchio(robot, looped, calls, repeat) if bk.pinocchio_model(robot) else None
    puma, why = bk.rtb_puma()
    out["Robotics Toolbox"] = bk.bench_rtb(puma, looped, calls, repeat) if puma else None
    return out


def dynamics(quick: bool) -> dict:
    robot = km.load("puma560")
    rng = np.random.default_rng(0)
    n = 10_000
    lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
    Q = rng.uniform(lo, hi, (n, robot.n))
    QD, QDD = rng.uniform(-2, 2, (2, n, robot.n))
    calls, repeat = (200, 3) if quick else (2000, 7)
    out = {"robot": robot.name, "states": n, "ours": bd.bench_ours(robot, Q, QD, QDD, calls, repeat)}
    out["Pinocchio"] = bd.bench_pinocchio(robot, Q, QD, QDD, calls, repeat) if bd.pinocchio_model(robot) else None
    return out


def inverse(quick: bool) -> list[dict]:
    out = []
    n, single, peer = (500, 50, 50) if quick else (2000, 150, 150)
    for name in ("puma560", "ur5", "panda"):
        robot = km.load(name)
        tol_p = 1e-6 if robot.length_unit == "m" else 1e-3
        Q, S, T = bi.problems(robot, n)
        batched, _ = bi.ours_batched(robot, T, S, tol_p, 1 if quick else 3)
        rows = {"batched": batched, "single": bi.ours_single(robot, T[:single], S[:single], tol_p)}
        pin = bi.pinocchio_row(robot, T[:peer], S[:peer], tol_p)
        rows["Pinocchio CLIK"] = None if isinstance(pin, str) else pin
        rtb = bi.rtb_rows(name, peer, max(peer // 10, 5))
        rows["Robotics Toolbox"] = None if isinstance(rtb, str) else rtb
        slow = max(peer // 5, 10)  # ikpy takes milliseconds a call: fewer targets keep run.py near 3 min
        ikpy = bi.ikpy_row(robot, T[:slow], S[:slow], tol_p)
        rows["ikpy"] = None if isinstance(ikpy, str) else ikpy
        out.append({"robot": name, "dof": robot.n, "rows": rows})
    return out


def startup(runs: int) -> dict[str, float]:
    """Median wall time (s) of fresh processes; `import numpy` is the floor every command pays."""
    exe = sys.executable
    cli = "import sys; from kinematica.cli import main; sys.exit(main())"
    commands = {"import numpy": [exe, "-c", "import numpy"],
                "import kinematica": [exe, "-c", "import kinematica"],
                "kinematica robots": [exe, "-c", cli, "robots"],
                "kinematica fk puma560 0 0 0 0 0 0": [exe, "-c", cli, "fk", "puma560", *"000000"]}
    out = {}
    for label, argv in commands.items():
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=bc.user_env())
            times.append(time.perf_counter() - t0)
        out[label] = statistics.median(times)
    return out


# --- the tables -----------------------------------------------------------------------------
def single_table(kin: dict, dyn: dict) -> str:
    ours = {"FK": kin["ours"]["single FK"], "Jacobian": kin["ours"]["single Jacobian"],
            "RNE": dyn["ours"]["single rne"]}
    pin = kin["Pinocchio"] and {"FK": kin["Pinocchio"]["single FK"], "Jacobian": kin["Pinocchio"]["single Jacobian"],
                                "RNE": dyn["Pinocchio"]["single rne"]}
    rtb = kin["Robotics Toolbox"]
    rows = []
    for op, target in SINGLE_RATIO.items():
        ratio = ours[op] / pin[op] if pin else None
        rows.append([op, fmt(ours[op]), fmt(pin[op]) if pin else "not installed",
                     fmt(rtb.get(f"single {op}")) if rtb and op != "RNE" else "–",
                     fmt(ratio, "×"), f"≤ {target:g}× " + (met(ratio <= target) if ratio else "")])
    return table(["one call, Puma 560 (µs)", "Kinematica", "Pinocchio", "Robotics Toolbox",
                  "ours ÷ Pinocchio", "target"], rows)


def batch_table(kin: dict, dyn: dict) -> str:
    pin_k, pin_d = kin["Pinocchio"], dyn["Pinocchio"]
    per_state = 1e3 / dyn["states"]  # ms per batch → µs per state
    rows = [["FK, per pose", fmt(kin["ours"]["batch FK"]), fmt(pin_k["batch FK"]) if pin_k else "–"],
            ["Jacobian, per pose", fmt(kin["ours"]["batch Jacobian"]), fmt(pin_k["batch Jacobian"]) if pin_k else "–"],
            ["RNE, per state", fmt(dyn["ours"]["batch rne"] * per_state),
             fmt(pin_d["batch rne"] * per_state) if pin_d else "–"],
            ["mass matrix, per state", fmt(dyn["ours"]["batch mass matrix"] * per_state),
             fmt(pin_d["batch mass matrix"] * per_state) if pin_d else "–"]]
    return table([f"batched, Puma 560 (µs; {kin['poses']:,} poses, {dyn['states']:,} states)", "Kinematica",
                  "Pinocchio (Python loop)"], rows)


def ik_table(ik: list[dict]) -> str:
    rows = []
    for entry in ik:
        r = entry["rows"]
        rtb_us = bi.rtb_cpp_median(r["Robotics Toolbox"] or [])
        for label, row in (("Kinematica, batched", r["batched"]), ("Kinematica, one call each", r["single"]),
                           ("Pinocchio CLIK, one call each", r["Pinocchio CLIK"]),
                           ("ikpy, one call each", r.get("ikpy"))):
            if row is None:
                continue
            target, ratio = "", "–"
            if label.endswith("batched") and entry["dof"] == 6:
                target = f"≤ {IK_BATCHED_US:g} µs {met(row['median'] <= IK_BATCHED_US)}"
            if label.startswith("Kinematica, one") and rtb_us:  # issue 12: ours ÷ RTB C++, same run
                ratio = fmt(row["median"] / rtb_us, "×")
                target = f"≤ {bi.RTB_RATIO:g}× {met(row['median'] / rtb_us <= bi.RTB_RATIO)}"
            rows.append([f"{entry['robot']} ({entry['dof']})", label, f"{row['n']:,}", f"{row['success']:.2f}",
                         str(row["false"]), fmt(row["median"]), fmt(row["mean"]), ratio, target])
        for row in r["Robotics Toolbox"] or []:
            solved = row.get("median_solved")
            rows.append([f"{entry['robot']} ({entry['dof']})", row["solver"], f"{row['n']:,}", f"{row['success']:.2f}",
                         str(row["false"]), fmt(row["median"]) + (f" ({fmt(solved)} on those solved)"
                                                                  if solved and solved != row["median"] else ""),
                         fmt(row["mean"]), "", ""])
    return table(["robot (DOF)", "solver", "targets", "success %", "false claims", "median µs/solve",
                  "mean µs/solve", "ours ÷ RTB C++ (one call)", "target"], rows)


def startup_table(st: dict[str, float]) -> str:
    rows = [[f"`{k}`", fmt(v, " s"), f"≤ {STARTUP_S[k]:g} s {met(v <= STARTUP_S[k])}" if k in STARTUP_S else "the floor"]
            for k, v in st.items()]
    return table(["start-up (fresh process, median wall)", "time", "target"], rows)


def header(started: dict, fresh_ik: dict) -> str:
    machine = bk.machine().splitlines()[0].removeprefix("machine : ")
    cpu, cores = machine.split(", ")[:2]
    return (f"Measured {started['date']} on {cpu} ({cores}), load average {started['load']} at the start and "
            f"{bk.load_average()} at the end (1/5/15 min); {bk.blas_threads()}; Python {platform.python_version()}, "
            f"NumPy {np.__version__}, kinematica {km.__version__}, {bk.peer_versions()}, "
            f"ikpy {_version('ikpy') if _has('ikpy') else 'not installed'}; for the fresh-process IK rows "
            + (f"Robotics Toolbox {fresh_ik['peer_version']} in {fresh_ik['peer']}." if fresh_ik.get("peer_version")
               else f"Robotics Toolbox not installed in {fresh_ik['peer']}."))


def _version(module: str) -> str:
    from importlib.metadata import version

    return version(module)


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def markdown(result: dict) -> str:
    ik_note = ("IK targets are random joint vectors uniform inside the limits, a quarter of them with one or two "
               "joints exactly on a limit, turned into full poses by FK; seeds random inside the limits, the same for every solver; success means "
               "position error < 1e-6 m and orientation error < 1e-6 rad by our FK and within the limits. "
               "Batched rows are CPU time per solve; one-call rows the wall time of each call (best of 3). "
               "Robotics Toolbox runs on its own DH model of each arm (its targets and seeds drawn the same "
               "way); \"ours ÷ RTB C++\" divides our one-call median (limits \"wrap\", as its ik_LM: free "
               "iteration, limits checked at the end) by its C++ ik_LM's median on the targets it solved, "
               "both measured in this run (issue 12's target: ≤ 0.5×).")
    single_note = ("\"Kinematica\" times the C++ core (`kinematica._core`), which every FK, Jacobian, RNE and "
                   "mass-matrix call runs. These rows and the batched ones below: median "
                   f"{'CPU' if result['timer'] == 'cpu' else 'wall'} time per call, ours and the peers' in the same "
                   "process.")
    peer = result["fresh_ik"]
    ik_fresh_note = (f"One full-pose IK call in fresh processes (benchmarks/bench_core.py): each (solver, robot) in its "
                     f"own interpreter, default settings, no warm-up, {peer['targets']} random reachable targets (FK of "
                     "joint values uniform inside the limits) with a random q0 inside them, the same for every solver; "
                     "the first call and the first 100 wall time, the steady state the median CPU time of the calls "
                     "after the 100th, medians of the processes; success judged by an independent FK "
                     "(`reference.fk_space`): position < 1e-6 m, orientation < 1e-6 rad, inside the limits. Robotics "
                     f"Toolbox {peer.get('peer_version') or ''}: `ets().ik_LM` of a `DHRobot` built fresh from our DH "
                     f"table (its FK checked against ours), tol {bc.peer_rtb.TOL:g} on its E = ½eᵀe (its default 1e-6 stops "
                     "near 1e-3 m), its other settings default. With q0 given, our default limits are \"clip\" (LM from "
                     "q0), where no closed-form seed is used either way: the `closed_form_seed=False` row is the same "
                     "call made with that keyword (`km.ik`'s one-call shortcut takes it).")
    fresh_note = ("Fresh processes with default settings (benchmarks/bench_core.py): each operation in its own "
                  "interpreter after its imports, median of the processes; Pinocchio's like-for-like calls: "
                  "forwardKinematics + updateFramePlacement of the tool frame (.homogeneous), computeFrameJacobian "
                  "(LOCAL_WORLD_ALIGNED), rnea, crba (upper triangle only).")
    return "\n\n".join([result["header"], bc.tables(result["fresh"]), fresh_note, bc.ik_tables(peer), ik_fresh_note,
                        single_table(result["kinematics"], result["dynamics"]),
                        single_note,
                        batch_table(result["kinematics"], result["dynamics"]), ik_table(result["ik"]), ik_note,
                        startup_table(result["startup"])]) + "\n"


def into_readme(text: str) -> None:
    readme = README.read_text(encoding="utf-8")
    if START not in readme or END not in readme:
        raise SystemExit(f"README.md has no {START} … {END} block to fill")
    head, rest = readme.split(START, 1)
    README.write_text(head + START + "\n\n" + text + "\n" + END + rest.split(END, 1)[1], encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: fewer calls and targets")
    ap.add_argument("--readme", action="store_true", help="write the tables into README.md between its markers")
    ap.add_argument("--out", default=str(HERE / "results"), help="folder for latest.json and latest.md")
    ap.add_argument("--peer-python", help="the interpreter with Robotics Toolbox for the fresh-process IK rows "
                                          f"(default ${bc.peer_rtb.PEER_ENV}, else this one)")
    ap.add_argument("--timer", choices=bk.TIMERS, default="cpu",
                    help="clock of the FK/Jacobian/RNE rows (default cpu: this process's CPU time, which other "
                         "work on a shared machine inflates far less than wall time)")
    args = ap.parse_args(argv)
    bk.TIMER = bk.TIMERS[args.timer]
    started = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "load": bk.load_average(),
               "timer": args.timer}
    t0 = time.perf_counter()
    runs = 1 if args.quick else 3
    result = {"fresh": bc.measure("puma560", runs),
              "fresh_ik": bc.measure_ik(bc.IK_ROBOTS, runs, 200 if args.quick else 500, args.peer_python),
              "kinematics": kinematics(args.quick), "dynamics": dynamics(args.quick), "ik": inverse(args.quick),
              "startup": startup(3 if args.quick else 7)}
    result["header"] = header(started, result["fresh_ik"])
    result["timer"] = args.timer
    result["seconds"] = time.perf_counter() - t0
    text = markdown(result)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps(result, indent=1, default=float) + "\n", encoding="utf-8")
    (out / "latest.md").write_text(text, encoding="utf-8")
    print(text)
    print(f"({result['seconds']:.0f} s; written to {out / 'latest.json'} and {out / 'latest.md'})")
    if args.readme:
        into_readme(text)
        print("README.md updated")


if __name__ == "__main__":
    main()
