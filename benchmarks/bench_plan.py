"""`km.plan` on MotionBenchMaker (issue 27): the Panda and UR5 problem sets, 7 scenarios each.

    python benchmarks/bench_plan.py --fetch                 # once: download and unpack (65 MB) into the cache
    python benchmarks/bench_plan.py --limit 10              # 10 problems per scenario, both robots
    python benchmarks/bench_plan.py --robots panda --limit 100
    python benchmarks/bench_plan.py --robots panda --scenarios box --limit 20 --profile

The problems ship in the source distribution of `vamp-planner` 0.6.4 on the package index
(`resources/{panda,ur5}/problems.tar.bz2`: per scenario 100 MoveIt planning-scene + request YAML
pairs, with the robots' URDFs, SRDFs and meshes). `--fetch` downloads that file (the URL pip
reports for `pip download --no-deps --no-binary :all: vamp-planner==0.6.4`, its SHA-256 checked)
and unpacks the two robots' folders into the cache (`--cache`, default ~/.cache/kinematica/mbm);
nothing is fetched otherwise — not at import, not by the tests.

Per problem: the scene read with `read_moveit` on the shipped URDF (collision meshes, coal), the
SRDF's disabled pairs and the file's allowed collision matrix as allowed pairs; start and goal
from the request (`read_request`). Valid: start and goal within the limits and collision-free
under our model. Then `km.plan(..., time_limit=1, seed=problem number)` (RRT-Connect), and every
returned path re-checked independently by `check_trajectory` (coal on the meshes, no bound) at a
tenth of the plan's resolution. Per scenario: valid problems, solved (a path within the time
limit, simplification included, give or take `SLACK`; `found late`: a path returned after
it), planning + simplification time of the paths found (median, p95), path length (rad,
joint space), colliding paths. A markdown table on stdout, the numbers with the machine and its load in benchmarks/results/plan_mbm.json.

`--profile` runs cProfile over the problems and splits the time into OMPL's own C++ (its
`solve` and simplifier calls, less the Python callbacks they make), the core's clearance bound
and edge certificate, coal (the scene's collision and distance queries), and the rest (Python).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import tarfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

import kinematica as km
from bench_kinematics import machine
from kinematica.plan import read_request
from kinematica.scene import check_trajectory, read_moveit, srdf_disabled

SDIST = ("https://files.pythonhosted.org/packages/f2/e3/df472573bab9194d796cf6a156edcf95089c14e5c932b2874cdef0d60a8b/"
         "vamp_planner-0.6.4.tar.gz")
SHA256 = "d3150c6b67ff941af9ad56480b31d3fb73b12211ea21dc684f7737b059f6daba"
ROBOTS = ("panda", "ur5")
SCENARIOS = ("bookshelf_small", "bookshelf_tall", "bookshelf_thin", "box", "cage", "table_pick", "table_under_pick")
HERE = Path(__file__).resolve().parent


def fetch(cache: Path) -> None:
    """Download the sdist (checked against its SHA-256) and unpack each robot's folder and problems."""
    cache.mkdir(parents=True, exist_ok=True)
    print(f"downloading {SDIST} ...", flush=True)
    with urllib.request.urlopen(SDIST, timeout=120) as r:  # noqa: S310 — a fixed https URL
        data = r.read()
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise SystemExit("the download's SHA-256 does not match vamp-planner 0.6.4's: nothing unpacked")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for robot in ROBOTS:
            prefix = f"vamp_planner-0.6.4/resources/{robot}/"
            members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
            for m in members:
                m.name = m.name[len("vamp_planner-0.6.4/resources/"):]
            tar.extractall(cache, members=members, filter="data")
    for robot in ROBOTS:
        with tarfile.open(cache / robot / "problems.tar.bz2", mode="r:bz2") as tar:
            tar.extractall(cache / robot, filter="data")
    print(f"unpacked into {cache}", flush=True)


def _problems(folder: Path, limit: int) -> list[tuple[int, Path, Path]]:
    ids = sorted(int(p.stem[len("scene"):]) for p in folder.glob("scene*.yaml"))[:limit]
    return [(i, folder / f"scene{i:04d}.yaml", folder / f"request{i:04d}.yaml") for i in ids]


def run_problem(robot: km.Robot, allow: list, scene_file: Path, request_file: Path, seed: int,
                time_limit: float) -> dict[str, Any]:
    scene = read_moveit(scene_file, robot, allow=allow)
    req = read_request(request_file, scene)
    out: dict[str, Any] = {"problem": scene_file.stem[len("scene"):], "valid": False}
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    for q in (req.start, req.goal):
        if np.any(q < lo) or np.any(q > hi) or scene.check({req.robot: q}).colliding:
            return out
    out["valid"] = True
    p = km.plan(scene, req.start, req.goal, time_limit=time_limit, seed=seed)
    out |= {"solved": bool(p.success), "reason": p.reason, "planning_time": p.planning_time,
            "simplification_time": p.simplification_time, "checks": p.checks}
    if p.success and p.path is not None:
        path = p.path
        out["length"] = float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())
        out["waypoints"] = len(path)
        rep = check_trajectory(scene, {req.robot: (np.arange(len(path), dtype=float), path)},
                               resolution=p.resolution / 10)
        out["colliding"] = bool(rep.colliding)
        out["collisions"] = [list(c) for c in rep.collisions]
    return out


def _pct(x: list[float], q: float) -> float:
    return float(np.percentile(x, q)) if x else float("nan")


SLACK = 0.05  # s: how far past the time limit a plan may end and still count as solved (the check under way)


def summary(rows: list[dict[str, Any]], time_limit: float) -> dict[str, Any]:
    """Per scenario; `solved` counts plans whose planning and simplification together ended
    within the time limit (+ `SLACK`: OMPL looks at its clock between edges and steps, so a plan
    can come back later than asked: those count as not solved, and `late` says how many; the
    times are over every plan found, late ones included)."""
    valid = [r for r in rows if r["valid"]]
    found = [r for r in valid if r.get("solved")]
    solved = [r for r in found if r["planning_time"] + r["simplification_time"] <= time_limit + SLACK]
    t = [1e3 * (r["planning_time"] + r["simplification_time"]) for r in found]
    return {"problems": len(rows), "valid": len(valid), "solved": len(solved), "late": len(found) - len(solved),
            "time_ms_median": _pct(t, 50), "time_ms_p95": _pct(t, 95),
            "planning_ms_median": _pct([1e3 * r["planning_time"] for r in found], 50),
            "length_median": _pct([r["length"] for r in found], 50),
            "colliding": sum(bool(r.get("colliding")) for r in found)}


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| scenario | valid / problems | solved (1 s) | found late | planning + simplification, median / p95 "
             "(ms) | planning median (ms) | path length median (rad) | colliding paths (coal, res/10) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, s in results.items():
        share = f"{s['solved']} ({100 * s['solved'] / s['valid']:.1f} %)" if s["valid"] else "–"
        lines.append(f"| {name} | {s['valid']} / {s['problems']} | {share} | {s['late']} | {s['time_ms_median']:.1f} / "
                     f"{s['time_ms_p95']:.1f} | {s['planning_ms_median']:.1f} | {s['length_median']:.2f} | "
                     f"{s['colliding']} |")
    return "\n".join(lines)


def where_time_goes(prof: cProfile.Profile, rows: list[dict[str, Any]]) -> dict[str, float]:
    """Seconds spent planning and simplifying (the plans' own clocks), split: the checks OMPL
    calls back (EdgeChecker.free and edge_free, cumulative) into coal (the collider's narrow
    phase loops, own time: coal's calls are not profiled apart), the core's bound (bound.py
    and the core's calls) and the checks' other Python; OMPL's own share is the rest."""
    st = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    total = sum(r.get("planning_time", 0.0) + r.get("simplification_time", 0.0) for r in rows)
    checks = coal = core = 0.0
    for (file, _, name), (_, _, tottime, cumtime, _) in st.items():
        if file.endswith("plan/edges.py") and name in ("free", "edge_free"):
            checks += cumtime
        elif file.endswith("scene/collider.py"):
            coal += tottime
        elif file.endswith("scene/bound.py") or (file == "~" and "Clearance" in name):
            core += tottime
    return {"planning + simplification": total, "ompl (rest)": max(total - checks, 0.0), "checks": checks,
            "coal": coal, "core bound": core, "python in checks": max(checks - coal - core, 0.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fetch", action="store_true", help="download and unpack the problems first")
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("KINEMATICA_MBM",
                                                                      Path.home() / ".cache/kinematica/mbm")))
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=ROBOTS)
    ap.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    ap.add_argument("--limit", type=int, default=10, help="problems per scenario (default 10; 100 is all)")
    ap.add_argument("--time-limit", type=float, default=1.0)
    ap.add_argument("--profile", action="store_true", help="split the time into OMPL, core, coal, Python")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "plan_mbm.json")
    args = ap.parse_args()
    if args.fetch:
        fetch(args.cache)
    if not (args.cache / "panda" / "problems").is_dir():
        raise SystemExit(f"no problems in {args.cache}: run once with --fetch (downloads 65 MB)")
    load0 = os.getloadavg()
    results, rows_all, profile = {}, {}, None
    prof = cProfile.Profile() if args.profile else None
    t_all = time.perf_counter()
    for robot_name in args.robots:
        folder = args.cache / robot_name
        robot = km.load(folder / f"{robot_name}.urdf")
        allow = srdf_disabled(folder / f"{robot_name}.srdf")
        for scenario in args.scenarios:
            key = f"{scenario}_{robot_name}"
            rows = []
            for i, sf, rf in _problems(folder / "problems" / key, args.limit):
                if prof is not None:
                    prof.enable()
                rows.append(run_problem(robot, allow, sf, rf, i, args.time_limit))
                if prof is not None:
                    prof.disable()
            results[key] = summary(rows, args.time_limit)
            rows_all[key] = rows
            print(f"{key}: {json.dumps(results[key])}", flush=True)
    if prof is not None:
        profile = where_time_goes(prof, [r for rows in rows_all.values() for r in rows])
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
        print(s.getvalue())
    all_rows = [r for rows in rows_all.values() for r in rows]
    results["all"] = summary(all_rows, args.time_limit)
    md = table(results)
    print(md)
    if profile:
        print("own time (s):", {k: round(v, 2) for k, v in profile.items()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "load_before": load0, "load_after": os.getloadavg(),
                                    "seconds": time.perf_counter() - t_all, "limit": args.limit,
                                    "time_limit": args.time_limit, "summary": results, "profile": profile,
                                    "problems": rows_all, "table": md, "robot_files": "the URDFs shipped with "
                                    "the problems (collision meshes)", "km_version": km.__version__},
                                   indent=1, default=float), encoding="utf-8")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
