"""Forward kinematics and Jacobian timings for a 6-DOF arm, beside Robotics Toolbox and Pinocchio.

    python benchmarks/bench_kinematics.py            # full run (batch of 100 000, ~25 s)
    python benchmarks/bench_kinematics.py --quick    # short run (~5 s): fewer repeats, peers' loops over 10 000
    python benchmarks/bench_kinematics.py --robot kuka-kr6-r900

Every number is the median over `--repeat` timeit repeats, divided by the calls (or poses) in
one repeat. Peers are optional: a peer that is not installed is printed as "not installed".
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import timeit
from typing import Callable, Sequence

import numpy as np

import kinematica as km

TARGETS_US = {"single": 15.0, "batch_fk": 0.15, "batch_jac": 0.30}  # issue 2, "Performance"
TIMERS = {"wall": time.perf_counter, "cpu": time.process_time}  # cpu: this process's CPU time
TIMER = TIMERS["wall"]


# --- timing --------------------------------------------------------------------------------
def per_call_us(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Median over `repeat` runs of the time of one call of fn, in µs; each run makes `calls` calls."""
    fn()  # warm up (caches, lazy imports, cached properties)
    runs = timeit.Timer(fn, timer=TIMER).repeat(repeat=repeat, number=calls)
    return statistics.median(runs) / calls * 1e6


def per_pose_us(fn: Callable[[], object], poses: int, repeat: int) -> float:
    """Median over `repeat` runs of fn() (one batch of `poses`), in µs per pose."""
    fn()
    runs = timeit.Timer(fn, timer=TIMER).repeat(repeat=repeat, number=1)
    return statistics.median(runs) / poses * 1e6


# --- peers ---------------------------------------------------------------------------------
def pinocchio_model(robot: km.Robot):
    """A Pinocchio model of the robot's canonical chain, or None if Pinocchio is missing.

    T = base·B1·J1·A1·B2·…·Jn·An·tool: joint 1 is placed at base·B1, joint i at A(i−1)·B(i),
    each an RZ or PZ joint; the tool is a frame on the last joint at An·tool. Pinocchio has no
    joint offsets, so it is fed q + offsets.
    """
    try:
        import pinocchio as pin
    except ImportError:
        return None
    model = pin.Model()
    parent = 0
    for i in range(robot.n):
        place = robot.base @ robot.before[0] if i == 0 else robot.after[i - 1] @ robot.before[i]
        joint = pin.JointModelRZ() if robot.revolute[i] else pin.JointModelPZ()
        parent = model.addJoint(parent, joint, pin.SE3(place), robot.joint_names[i])
    tool = robot.after[-1] @ robot.tool
    frame = model.addFrame(pin.Frame("tool", parent, pin.SE3(tool), pin.FrameType.OP_FRAME))
    return pin, model, model.createData(), frame


def rtb_puma():
    """Robotics Toolbox's Puma 560 DH model, or the reason it is unavailable."""
    try:
        import roboticstoolbox as rtb
    except Exception as exc:  # ImportError, or a broken install failing on import
        return None, f"not installed ({type(exc).__name__})"
    try:
        return rtb.models.DH.Puma560(), ""
    except Exception as exc:
        return None, f"failed: {exc}"


# --- rows ----------------------------------------------------------------------------------
def bench_ours(robot: km.Robot, Q: np.ndarray, calls: int, repeat: int) -> dict[str, float]:
    q = Q[0]
    return {
        "single FK": per_call_us(lambda: km.fk(robot, q), calls, repeat),
        "single Jacobian": per_call_us(lambda: km.jacobian(robot, q), calls, repeat),
        "single FK + Jacobian": per_call_us(lambda: km.fk_jacobian(robot, q), calls, repeat),
        "batch FK": per_pose_us(lambda: km.fk(robot, Q), len(Q), repeat),
        "batch Jacobian": per_pose_us(lambda: km.jacobian(robot, Q), len(Q), repeat),
        "batch FK + Jacobian": per_pose_us(lambda: km.fk_jacobian(robot, Q), len(Q), repeat),
    }


def bench_pinocchio(robot: km.Robot, Q: np.ndarray, calls: int, repeat: int) -> dict[str, float]:
    """forwardKinematics + updateFramePlacements and computeFrameJacobian, the batch a Python loop."""
    pin, model, data, frame = pinocchio_model(robot)
    Qp = np.ascontiguousarray(Q + robot.offsets)
    world = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED  # v of the tool point, base axes: like ours

    def fk(q):
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        return data.oMf[frame]

    def jac(q):
        return pin.computeFrameJacobian(model, data, q, frame, world)

    def fk_jac(q):
        fk(q)
        return jac(q)

    def loop(f):
        return lambda: [f(q) for q in Qp]

    NOTES.append(f"Pinocchio: C++ called from Python, the batch looped in Python; the same chain "
                 f"as ours (largest relative difference {check_pinocchio(robot, Q[:50], Qp[:50], fk, jac):.0e}),"
                 f" Jacobian of the tool frame in LOCAL_WORLD_ALIGNED.")
    return {
        "single FK": per_call_us(lambda: fk(Qp[0]), calls, repeat),
        "single Jacobian": per_call_us(lambda: jac(Qp[0]), calls, repeat),
        "single FK + Jacobian": per_call_us(lambda: fk_jac(Qp[0]), calls, repeat),
        "batch FK": per_pose_us(loop(fk), len(Q), repeat),
        "batch Jacobian": per_pose_us(loop(jac), len(Q), repeat),
        "batch FK + Jacobian": per_pose_us(loop(fk_jac), len(Q), repeat),
    }


def check_pinocchio(robot, Q, Qp, fk, jac) -> float:
    """Largest relative difference of the timed Pinocchio calls from ours (the comparison is
    only fair if both compute the same thing)."""
    T, J = km.fk_jacobian(robot, Q)
    err_T = max(np.abs(fk(qp).homogeneous - t).max() for qp, t in zip(Qp, T))
    err_J = max(np.abs(jac(qp) - j).max() for qp, j in zip(Qp, J))
    return max(err_T, err_J) / max(1.0, np.abs(T).max(), np.abs(J).max())


def bench_rtb(puma, Q: np.ndarray, calls: int, repeat: int) -> dict[str, float]:
    """Its own Puma 560 model (not our robot): fkine / jacob0, ets().eval, Python loops."""
    ets = puma.ets()
    lo, hi = puma.qlim
    Q = np.random.default_rng(1).uniform(lo, hi, (len(Q), puma.n))
    q = Q[0]
    NOTES.append("Robotics Toolbox: its own Puma 560 DH model. single FK / Jacobian: DHRobot.fkine / "
                 "jacob0 (Python); (ets.…): its C++ ETS; batch FK: ets.eval on the (N, 6) array; "
                 "batch Jacobian: a Python loop of ets.jacob0.")
    return {
        "single FK": per_call_us(lambda: puma.fkine(q), calls, repeat),
        "single FK (ets.eval)": per_call_us(lambda: ets.eval(q), calls, repeat),
        "single Jacobian": per_call_us(lambda: puma.jacob0(q), calls, repeat),
        "single Jacobian (ets.jacob0)": per_call_us(lambda: ets.jacob0(q), calls, repeat),
        "batch FK": per_pose_us(lambda: ets.eval(Q), len(Q), repeat),
        "batch Jacobian": per_pose_us(lambda: [ets.jacob0(qi) for qi in Q], len(Q), repeat),
    }


# --- report --------------------------------------------------------------------------------
ROWS = ["single FK", "single FK (ets.eval)", "single Jacobian", "single Jacobian (ets.jacob0)",
        "single FK + Jacobian", "batch FK", "batch Jacobian", "batch FK + Jacobian"]
NOTES: list[str] = []  # how each peer was called, printed under the table
TARGET_OF = {"single FK": "single", "single Jacobian": "single", "single FK + Jacobian": "single",
             "batch FK": "batch_fk", "batch Jacobian": "batch_jac"}


def machine() -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"machine : {model}, {cpus} cores usable, load average {load_average()}, {blas_threads()}\n"
            f"software: Python {platform.python_version()}, NumPy {np.__version__}, "
            f"kinematica {km.__version__}, {peer_versions()}")


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def blas_threads() -> str:
    """NumPy's matrix products may run on several BLAS threads: say how many, if known."""
    try:
        from threadpoolctl import threadpool_info
        return "BLAS threads " + ",".join(str(p["num_threads"]) for p in threadpool_info())
    except ImportError:
        env = [f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                 "MKL_NUM_THREADS") if k in os.environ]
        return "BLAS threads: " + (", ".join(env) if env else "library default")


def peer_versions() -> str:
    out = []
    for mod, label in (("pinocchio", "Pinocchio"), ("roboticstoolbox", "Robotics Toolbox")):
        try:
            out.append(f"{label} {__import__(mod).__version__}")
        except Exception:
            out.append(f"{label} not installed")
    return ", ".join(out)


def fmt(x: float | str | None) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def verdict(row: str, value: float, poses: int) -> str:
    key = TARGET_OF.get(row)
    if key is None:
        return ""
    target = TARGETS_US[key]
    if key != "single" and poses != 100_000:
        return f"≤ {target:g} at 100 000"  # fixed costs weigh more in smaller batches
    return f"≤ {target:g}  {'met' if value <= target else 'NOT met'}"


def print_table(results: dict[str, dict[str, float] | str], poses: int) -> None:
    """One row per measurement, one column per library; a peer that did not run shows why in
    its first cell."""
    names = list(results)
    header = ["µs per call / per pose"] + names + ["target (ours)"]
    lines = []
    for row in ROWS:
        cells = [row]
        for name in names:
            r = results[name]
            if isinstance(r, str):
                cells.append(r if row == ROWS[0] else "")
            else:
                cells.append(fmt(r.get(row)))
        ours = results["kinematica"]
        cells.append(verdict(row, ours[row], poses) if row in ours else "")
        lines.append(cells)
    aligned_table(header, lines)


def aligned_table(header: list[str], lines: list[list[str]], left: Sequence[int] = (0,)) -> None:
    """Print rows of cells under `header`, aligned: columns in `left` to the left, the rest (numbers)
    to the right, with a dashed rule under the header."""
    widths = [max(len(c[i]) for c in lines + [header]) for i in range(len(header))]
    for cells in [header, ["-" * w for w in widths]] + lines:
        print("  ".join(c.ljust(w) if i in left else c.rjust(w)
                        for i, (c, w) in enumerate(zip(cells, widths))).rstrip())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = "puma560" if "puma560" in km.robot_names() else "kuka-kr6-r900"
    ap.add_argument("--robot", default=default, help=f"bundled robot name (default {default})")
    ap.add_argument("--quick", action="store_true",
                    help="short run: 3 repeats, 300 single calls, peers' Python loops over 10 000 poses")
    ap.add_argument("--batch", type=int, default=100_000, help="poses in the batch (default 100 000)")
    ap.add_argument("--repeat", type=int, help="timeit repeats (default 7; 3 quick)")
    ap.add_argument("--timer", choices=TIMERS, default="wall",
                    help="wall clock (default) or this process's CPU time (steadier on a busy machine)")
    args = ap.parse_args(argv)
    global TIMER
    TIMER = TIMERS[args.timer]
    poses = args.batch
    looped = min(poses, 10_000) if args.quick else poses  # a Python loop's cost per pose is flat
    repeat = args.repeat or (3 if args.quick else 7)
    calls = 300 if args.quick else 3000

    robot = km.load(args.robot)
    lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
    Q = np.random.default_rng(0).uniform(lo, hi, (poses, robot.n))

    print(machine())
    print(f"robot   : {robot.name} ({robot.n} DOF); batch {poses:,} random poses within limits "
          f"(peers' Python loops over {looped:,}); single calls × {calls}; median of {repeat} "
          f"repeats; {args.timer} time; one process")
    results: dict[str, dict[str, float] | str] = {"kinematica": bench_ours(robot, Q, calls, repeat)}
    results["Pinocchio"] = (bench_pinocchio(robot, Q[:looped], calls, repeat)
                            if pinocchio_model(robot) else "not installed")
    puma, why = rtb_puma()
    results["Robotics Toolbox"] = bench_rtb(puma, Q[:looped], calls, repeat) if puma else why
    print()
    print_table(results, poses)
    print()
    print("\n".join(NOTES))
    print(f"load average at the end: {load_average()} (other work on the cores inflates wall times)")


if __name__ == "__main__":
    main()
