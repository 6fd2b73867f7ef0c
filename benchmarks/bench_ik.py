"""Inverse kinematics under TRAC-IK's protocol: success, false claims and time per solve.

    python benchmarks/bench_ik.py                   # 10 000 targets per robot (~5 min with peers)
    python benchmarks/bench_ik.py --quick           # 2 000 targets, smaller samples (~30 s)
    python benchmarks/bench_ik.py --robot puma560 --n 20000

Protocol (issue 3, after TRAC-IK): random joint vectors inside the limits, a quarter of them
with one or two joints exactly on a limit (issue 12) → FK targets (full poses); random seeds inside the limits, the same seeds for every solver; success = position
error < 1e-6 m (1e-3 mm) and orientation error < 1e-6 rad, both measured here from our own
FK of the returned q (the rotation error through SciPy, not kinematica's residual code), AND q
within the joint limits. "false" counts results a solver called successful that fail this
check (it must be 0). Rows:

  batched        one `km.ik` call on all targets (limits="wrap": free iteration, limits checked
                 at convergence — what `limits="auto"` does for q0=None or "random")
  batched clip   the same with limits="clip" (what "auto" does for explicit q0), on a sample
  single         one `km.ik` call per target, a sample (default 300), limits="wrap"
  analytic       `analytic_solutions` alone (every branch: the issue's analytic target), then
                 `km.ik(method="analytic")` (nearest branch and verdict), batched and per call
  RTB ik_LM      Robotics Toolbox's C++ LM on its own model of the same arm (tol 1e-13 on its
                 E = ½eᵀe, so that 1e-6 per component can be met), checked by its own FK
  RTB ikine_LM   its Python LM, a small sample
  Pinocchio      a damped-least-squares CLIK loop written here after Pinocchio's
                 examples/inverse-kinematics.py, on our chain, one seed, no restarts

The batched rows report CPU time of this process per solve, the best of 3 runs (BLAS limited
to one thread, so "one core" holds); the per-call rows report the wall time of each call (the
best of 3 calls on the same input, since other work on a shared machine only adds time),
median and mean over the targets, with the CPU times in the notes.
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # "on one core": no BLAS threads (before NumPy loads)

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy.spatial.transform import Rotation  # noqa: E402

import kinematica as km  # noqa: E402
from bench_kinematics import aligned_table, load_average, machine, pinocchio_model  # noqa: E402

ROBOTS = ["puma560", "ur5", "kuka-kr6-r900", "panda"]
TARGETS = {"success": 99.99, "batched": 10.0, "single": 300.0, "analytic batched": 5.0, "analytic single": 200.0}
RTB_RATIO = 0.5  # issue 12: one call at most this times Robotics Toolbox C++ ik_LM's median (targets it solves)
RTB_MODELS = {"puma560": "Puma560", "ur5": "UR5", "panda": "Panda"}  # rtb.models.DH.<name>


# --- the protocol ---------------------------------------------------------------------------
ON_LIMITS = 0.25  # the share of targets with one or two joints exactly on a limit (issue 12)


def joint_targets(lo: np.ndarray, hi: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Joint vectors Q (n, dof) uniform inside [lo, hi], a quarter of them (ON_LIMITS) with one
    or two joints moved exactly onto a limit — where a target's only solutions may sit on the
    boundary — and seeds S (n, dof) uniform inside; the same draws for every solver."""
    rng = np.random.default_rng(0)
    Q = rng.uniform(lo, hi, (n, len(lo)))
    for k in np.flatnonzero(rng.random(n) < ON_LIMITS):
        joints = rng.choice(len(lo), size=rng.integers(1, 3), replace=False)
        Q[k, joints] = np.where(rng.random(len(joints)) < 0.5, lo[joints], hi[joints])
    return Q, np.random.default_rng(1).uniform(lo, hi, (n, len(lo)))


def problems(robot: km.Robot, n: int):
    """Joint vectors Q and seeds S of `joint_targets` inside the limits (±π where a joint has
    none), targets T = FK(Q)."""
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    Q, S = joint_targets(lo, hi, n)
    return Q, S, km.fk(robot, Q)


def check(T_goal: np.ndarray, T_got: np.ndarray, q: np.ndarray, limits: np.ndarray, tol_p: float) -> np.ndarray:
    """The independent verdict: position and orientation errors of T_got against T_goal, and
    q (k, n) within the limits."""
    pos = np.linalg.norm(T_got[:, :3, 3] - T_goal[:, :3, 3], axis=1)
    R = np.swapaxes(T_goal[:, :3, :3], 1, 2) @ T_got[:, :3, :3]
    ori = Rotation.from_matrix(R).magnitude()
    inside = np.all((q >= limits[:, 0] - 1e-9) & (q <= limits[:, 1] + 1e-9), axis=1)
    return (pos < tol_p) & (ori < 1e-6) & inside


def row(solver: str, n: int, ok: np.ndarray, claimed: np.ndarray, times_us, kind: str, note: str = "") -> dict:
    t = np.asarray(times_us, dtype=float)
    if isinstance(times_us, Laps):  # per-call rows: the CPU time too (steadier on a shared machine)
        cpu = np.asarray(times_us.cpu)
        note = f"CPU median {np.median(cpu):.1f} µs, mean {cpu.mean():.1f} µs" + (f"; {note}" if note else "")
    return {"solver": solver, "n": n, "success": 100 * ok.mean(), "false": int((claimed & ~ok).sum()),
            "median": float(np.median(t)), "mean": float(t.mean()), "kind": kind, "note": note}


class Laps(list):
    """Per-call wall times in µs (the list) and CPU times (`.cpu`): each the best of REPEAT
    calls on the same input, since other work on a shared machine only ever adds time."""

    def __init__(self):
        super().__init__()
        self.cpu: list[float] = []


REPEAT = 3


def per_call(fn, items) -> tuple[Laps, list]:
    """fn(*item) for each item, timed REPEAT times; the best times and the first results."""
    laps, out = Laps(), []
    for item in items:
        wall, cpu = [], []
        for k in range(REPEAT):
            t0, c0 = time.perf_counter(), time.process_time()
            r = fn(*item)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            if k == 0:
                out.append(r)
        laps.append(min(wall) * 1e6)
        laps.cpu.append(min(cpu) * 1e6)
    return laps, out


# --- kinematica -------------------------------------------------------------------------------
def ours_batched(robot, T, S, tol_p, repeat: int, limits: str = "wrap") -> tuple[dict, object]:
    """One km.ik call on every target: CPU time per solve (best of `repeat` runs), after a
    warm-up call (the robot's solver constants are built once, at its first solve)."""
    km.ik(robot, T[:2], S[:2], limits=limits)
    cpu = []
    for _ in range(repeat):
        c0 = time.process_time()
        res = km.ik(robot, T, S, limits=limits)
        cpu.append((time.process_time() - c0) / len(T) * 1e6)
    ok = check(T, km.fk(robot, res.q), res.q, robot.limits, tol_p)
    name = "km.ik batched" + ("" if limits == "wrap" else f" ({limits})")
    return row(name, len(T), ok, res.success, [min(cpu)], "batched",
               f"iterations {res.iterations.mean():.1f} per target"), res


def ours_single(robot, T, S, tol_p, limits: str = "wrap") -> dict:
    """One km.ik call per target: wall time of each call."""
    km.ik(robot, T[0], S[0], limits=limits)  # warm up
    times, res = per_call(lambda Tk, Sk: km.ik(robot, Tk, Sk, limits=limits), zip(T, S))
    q, claimed = np.array([r.q for r in res]), [r.success for r in res]
    ok = check(T, km.fk(robot, q), q, robot.limits, tol_p)
    return row("km.ik single" + ("" if limits == "wrap" else f" ({limits})"), len(T), ok, np.array(claimed), times, "single")


def best_cpu_per_target(fn, count: int, repeat: int) -> tuple[float, object]:
    """Best of `repeat` runs of fn() (one batch of `count`), in CPU µs per target, and its result."""
    cpu = []
    for _ in range(repeat):
        c0 = time.process_time()
        res = fn()
        cpu.append((time.process_time() - c0) / count * 1e6)
    return min(cpu), res


def ours_analytic(robot, T, tol_p, repeat: int, single_n: int) -> list[dict]:
    """The closed-form solver alone, `analytic_solutions` (every branch, each FK-checked: the
    issue's "analytic all-branches" target), batched and single; then `km.ik(method=
    "analytic")`: the branch nearest q0 with the full verdict."""
    from kinematica.ik import target as tg
    from kinematica.ik.analytic import analytic_solutions, solver_name

    if solver_name(robot) is None:
        return []
    t_all, t_one = tg.pose(T), [(tg.pose(Tk).reshape(1),) for Tk in T[:single_n]]
    batch_us, (_, valid, _) = best_cpu_per_target(lambda: analytic_solutions(robot, t_all), len(T), repeat)
    one, _ = per_call(lambda tk: analytic_solutions(robot, tk), t_one)
    found = valid.any(axis=1)
    rows = [row("analytic_solutions batched", len(T), found, found, [batch_us], "analytic batched",
                f"all branches ({valid.sum(1).mean():.1f} valid per target); success = some valid branch"),
            row("analytic_solutions single", len(t_one), found[:single_n], found[:single_n], one, "analytic single")]
    batch_us, res = best_cpu_per_target(lambda: km.ik(robot, T, method="analytic"), len(T), repeat)
    rows.append(row("km.ik analytic batched", len(T), check(T, km.fk(robot, res.q), res.q, robot.limits, tol_p),
                    res.success, [batch_us], "analytic batched", f"{solver_name(robot)} solver"))
    Ts = T[:single_n]
    km.ik(robot, Ts[0], method="analytic")
    times, res = per_call(lambda Tk: km.ik(robot, Tk, method="analytic"), [(Tk,) for Tk in Ts])
    q = np.array([r.q for r in res])
    rows.append(row("km.ik analytic single", len(Ts), check(Ts, km.fk(robot, q), q, robot.limits, tol_p),
                    np.array([r.success for r in res]), times, "analytic single"))
    return rows


# --- peers ---------------------------------------------------------------------------------------
def rtb_rows(name: str, n_cpp: int, n_py: int) -> list[dict] | str:
    """Robotics Toolbox on its own DH model of the arm: its own targets and seeds under the same
    protocol, checked by its own FK (its model is not ours, so rows compare cost and success)."""
    try:
        import roboticstoolbox as rtb
    except Exception as exc:  # missing, or a broken install failing on import
        return f"not installed ({type(exc).__name__})"
    if name not in RTB_MODELS:
        return "no model of this arm"
    model = getattr(rtb.models.DH, RTB_MODELS[name])()
    ets, (lo, hi) = model.ets(), model.qlim
    n = max(n_cpp, n_py)
    Q, S = joint_targets(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float), n)
    T = np.array([ets.eval(q) for q in Q])
    limits = np.stack([lo, hi], axis=1)
    rows = []
    for label, count, solve in (
            ("RTB ik_LM (C++)", n_cpp, lambda Tk, Sk: ets.ik_LM(Tk, q0=Sk, tol=1e-13)),
            ("RTB ikine_LM (Python)", n_py, lambda Tk, Sk: ets.ikine_LM(Tk, q0=Sk, tol=1e-13, seed=0))):
        times, sols = per_call(solve, zip(T[:count], S[:count]))
        q = np.array([np.asarray(x[0] if isinstance(x, tuple) else x.q, dtype=float) for x in sols])
        claimed = [bool(x[1] if isinstance(x, tuple) else x.success) for x in sols]
        ok = check(T[:count], np.array([ets.eval(x) for x in q]), q, limits, 1e-6)
        rows.append(row(label, count, ok, np.array(claimed), times, "single",
                        "its own DH model; ilimit 30, slimit 100 (restarts, its own RNG), tol 1e-13"))
        # issue 12 compares one call against the C++ solver's time on the targets it solves
        rows[-1]["median_solved"] = float(np.median(np.asarray(times)[ok])) if ok.any() else None
    return rows


def rtb_cpp_median(rows: list[dict]) -> float | None:
    """The median time of Robotics Toolbox's C++ ik_LM on the targets it solved, from rows of
    the same run (None when it did not run)."""
    found = [r.get("median_solved") for r in rows if r["solver"].startswith("RTB ik_LM (C++)")]
    return found[0] if found else None


def ikpy_row(robot: km.Robot, T, S, tol_p: float) -> dict | str:
    """ikpy (SciPy's least squares on its own URDF chain, full pose: orientation_mode "all") on
    our robot written as URDF, one seed per target, its joint bounds from the file's limits.
    ikpy returns its best q without a verdict, so it claims nothing: its row counts what our
    FK finds. The chain starts at base_link (after our base), so the targets are given in it."""
    try:
        from ikpy.chain import Chain
    except Exception as exc:  # missing, or a broken install failing on import
        return f"not installed ({type(exc).__name__})"
    import tempfile
    import warnings

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ikpy warns about the fixed links it keeps inactive
        path = Path(folder) / f"{robot.name}.urdf"
        path.write_text(km.to_urdf(robot), encoding="utf-8")
        links = Chain.from_urdf_file(str(path), base_elements=["base_link"]).links
        active = [link.joint_type != "fixed" for link in links]
        chain = Chain.from_urdf_file(str(path), base_elements=["base_link"], active_links_mask=active)
    cols = np.flatnonzero(active)
    base_inv = np.linalg.inv(robot.base)

    def full(q):
        out = np.zeros(len(active))
        out[cols] = q
        return out
    size = 1.0 + float(np.abs(robot.C[:, :3, 3]).sum())
    if np.abs(base_inv @ km.fk(robot, S[0]) - chain.forward_kinematics(full(S[0]))).max() > 1e-9 * size:
        return "its chain's FK differs from ours (not timed)"

    def solve(Tk, Sk):
        Tb = base_inv @ Tk
        return chain.inverse_kinematics(Tb[:3, 3], Tb[:3, :3], orientation_mode="all", initial_position=full(Sk))

    times, sols = per_call(solve, zip(T, S))
    q = np.array([np.asarray(x)[cols] for x in sols])
    ok = check(T, km.fk(robot, q), q, robot.limits, tol_p)
    return row("ikpy (SciPy least squares)", len(T), ok, np.zeros(len(T), bool), times, "single",
               "one seed, its default settings; it returns a q without claiming success")


def pinocchio_row(robot: km.Robot, T, S, tol_p: float, it_max: int = 100) -> dict | str:
    """A CLIK loop after Pinocchio's examples/inverse-kinematics.py (damped least squares on
    the frame Jacobian and the SE(3) log, full steps), one seed per target, no restarts; on
    our chain, so our FK checks it. Joint limits are not part of the loop: revolute joints are
    wrapped by 2π into range at the end, then checked."""
    built = pinocchio_model(robot)
    if built is None:
        return "not installed"
    pin, model, data, frame = built
    from kinematica.ik.limits import wrap_into_limits

    def clik(Tk, Sk):
        goal, q = pin.SE3(Tk), Sk + robot.offsets
        for _ in range(it_max):
            pin.forwardKinematics(model, data, q)
            pin.updateFramePlacement(model, data, frame)
            iMd = data.oMf[frame].actInv(goal)
            err = pin.log(iMd).vector
            if np.linalg.norm(err[:3]) < 0.5 * tol_p and np.linalg.norm(err[3:]) < 0.5e-6:
                return q, True
            J = -pin.Jlog6(iMd.inverse()) @ pin.computeFrameJacobian(model, data, q, frame)
            v = -J.T @ np.linalg.solve(J @ J.T + 1e-12 * np.eye(6), err)
            q = pin.integrate(model, q, v)
        return q, False

    times, res = per_call(clik, zip(T, S))
    qs = [wrap_into_limits(robot, q - robot.offsets) for q, _ in res]
    claimed = [done and bool(robot.within_limits(q)) for q, (_, done) in zip(qs, res)]
    q = np.array(qs)
    ok = check(T, km.fk(robot, q), q, robot.limits, tol_p)
    return row("Pinocchio CLIK (Python loop)", len(T), ok, np.array(claimed), times, "single",
               f"one seed, ≤ {it_max} iterations, damping 1e-12, full steps")


# --- report --------------------------------------------------------------------------------------
def verdict(r: dict, rtb_us: float | None = None) -> str:
    """The issues' targets for our rows: success and false claims, then the time; for a
    one-call row, also its median ÷ Robotics Toolbox C++ ik_LM's (rtb_us, same run)."""
    if not r["solver"].startswith(("km.ik", "analytic_solutions")) or "clip" in r["solver"]:
        return ""
    parts = [f"success {'met' if r['success'] >= TARGETS['success'] and r['false'] == 0 else 'NOT met'}"]
    limit = TARGETS.get(r["kind"])
    if limit is not None:
        value = r["median"]
        parts.append(f"≤ {limit:g} µs {'met' if value <= limit else 'NOT met'}")
    if r["kind"] == "single" and rtb_us:
        ratio = r["median"] / rtb_us
        parts.append(f"{ratio:.2f}× RTB C++ (≤ {RTB_RATIO:g}× {'met' if ratio <= RTB_RATIO else 'NOT met'})")
    return ", ".join(parts)


def fmt_us(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:,.0f}"


def print_table(name: str, rows: list[dict], peers: dict[str, str]) -> None:
    header = ["solver", "n", "success %", "false", "median µs", "mean µs", "target (issues 3, 12)"]
    rtb_us = rtb_cpp_median(rows)
    lines = [[r["solver"], f"{r['n']:,}", f"{r['success']:.2f}", str(r["false"]), fmt_us(r["median"]),
              fmt_us(r["mean"]), verdict(r, rtb_us)] for r in rows]
    lines += [[label, "", why, "", "", "", ""] for label, why in peers.items()]
    print(f"\n{name}")
    aligned_table(header, lines, left=(0, 6))
    for r in rows:
        if r["note"]:
            print(f"  {r['solver']}: {r['note']}")


def calibration() -> str:
    """How fast this machine runs right now: one FK + Jacobian of the Puma 560 through
    `end_single` (12.4 µs on this machine class when idle) — shared cores slow every row."""
    from kinematica.kinematics.chain import end_single

    robot, q = km.load("puma560"), np.full(6, 0.3)
    now = statistics.median(timed_loop(lambda: end_single(robot, q, True), 2000) for _ in range(9))
    return (f"speed   : single FK + Jacobian (puma560) {now:.1f} µs CPU now, median of 9 runs (12.4 µs "
            f"idle); load average {load_average()}")


def timed_loop(fn, calls: int) -> float:
    c0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - c0) / calls * 1e6


def bench_robot(name: str, args) -> None:
    robot = km.load(name)
    tol_p = 1e-6 if robot.length_unit == "m" else 1e-3
    Q, S, T = problems(robot, args.n)
    rows, peers = [], {}
    batched, _ = ours_batched(robot, T, S, tol_p, args.repeat)
    rows.append(batched)
    m = min(args.single, args.n)
    rows.append(ours_single(robot, T[:m], S[:m], tol_p))
    clip_n = min(args.n, 2000)
    rows.append(ours_batched(robot, T[:clip_n], S[:clip_n], tol_p, 1, limits="clip")[0])
    rows.append(ours_single(robot, T[:m // 3], S[:m // 3], tol_p, limits="clip"))
    rows += ours_analytic(robot, T, tol_p, args.repeat, m)
    rtb = rtb_rows(name, args.peer, args.peer_py)
    if isinstance(rtb, str):
        peers["Robotics Toolbox"] = rtb
    else:
        rows += rtb
    for label, peer in (("Pinocchio", pinocchio_row(robot, T[:args.peer], S[:args.peer], tol_p)),
                        ("ikpy", ikpy_row(robot, T[:args.peer_py], S[:args.peer_py], tol_p))):
        if isinstance(peer, str):
            peers[label] = peer
        else:
            rows.append(peer)
    print_table(f"{name} ({robot.n} DOF, {robot.length_unit})", rows, peers)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", action="append", help=f"bundled robot (repeatable; default {', '.join(ROBOTS)})")
    ap.add_argument("--quick", action="store_true", help="2 000 targets, smaller samples, one repeat")
    ap.add_argument("--n", type=int, help="targets per robot (default 10 000; 2 000 quick)")
    ap.add_argument("--single", type=int, help="targets solved one call each (default 300; 100 quick)")
    args = ap.parse_args(argv)
    args.n = args.n or (2000 if args.quick else 10_000)
    args.single = args.single or (100 if args.quick else 300)
    args.repeat = 1 if args.quick else 3
    args.peer, args.peer_py = (100, 10) if args.quick else (300, 30)
    print(machine())
    print(f"protocol: {args.n:,} random joint vectors inside the limits ({ON_LIMITS:.0%} with one or two joints "
          f"exactly on a limit) → FK targets (full pose); random seeds "
          f"inside the limits, the same for every solver; success = position error < 1e-6 m (1e-3 mm) and "
          f"orientation error < 1e-6 rad by our FK, and within the joint limits")
    print(f"timing  : batched rows CPU time per solve, best of {args.repeat} runs, BLAS on one thread; "
          f"per-call rows wall time of each call, best of {REPEAT} calls on the same input (CPU time in the "
          f"notes); one process")
    print("targets : success ≥ 99.99 % with limits on and 0 false claims; batched ≤ 10 µs per solve "
          "(6-DOF arms); one unbatched call ≤ 0.3 ms median; analytic ≤ 5 µs batched, ≤ 200 µs single")
    print(calibration())
    for name in args.robot or ROBOTS:
        bench_robot(name, args)
    print()
    print(calibration().replace("speed   :", "speed at the end:"))


if __name__ == "__main__":
    main()
