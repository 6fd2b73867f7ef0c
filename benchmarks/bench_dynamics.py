"""Inverse dynamics, mass matrix and forward dynamics timings beside Pinocchio and Robotics Toolbox.

    python benchmarks/bench_dynamics.py             # full run (~1 min)
    python benchmarks/bench_dynamics.py --quick     # short run (~15 s): fewer repeats and calls
    python benchmarks/bench_dynamics.py --robot panda

Every number is the median over `--repeat` timeit repeats: single calls in µs per call, batches
in ms per batch of `--batch` states (10 000 by default, the size the targets of issue 4 name).
Peers are optional: a peer that is not installed is printed as "not installed". This is a
script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from typing import Callable

import numpy as np

import bench_kinematics as bk  # machine(), load_average(), fmt(), rtb_puma(), the timer switch
import kinematica as km
from kinematica.dynamics.params import GRAVITY, link_params

TARGETS = {"single rne": 100.0, "batch rne": 10.0}  # issue 4: µs per call; ms per 10 000 states
NOTES: list[str] = []  # how each peer was called and what it computes, printed under the table


# --- timing --------------------------------------------------------------------------------
def per_call_us(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Median over `repeat` runs of the time of one call of fn, in µs."""
    fn()  # warm up (per-robot caches, lazy imports)
    return statistics.median(timeit.Timer(fn, timer=bk.TIMER).repeat(repeat, calls)) / calls * 1e6


def per_batch_ms(fn: Callable[[], object], repeat: int) -> float:
    """Median over `repeat` runs of one call of fn (one whole batch), in ms."""
    fn()
    return statistics.median(timeit.Timer(fn, timer=bk.TIMER).repeat(repeat, 1)) * 1e3


# --- ours ----------------------------------------------------------------------------------
def bench_ours(robot, Q, QD, QDD, calls, repeat) -> dict[str, float]:
    q, qd, qdd = Q[0], QD[0], QDD[0]
    tau, TAU = km.rne(robot, q, qd, qdd), km.rne(robot, Q, QD, QDD)
    return {
        "single rne": per_call_us(lambda: km.rne(robot, q, qd, qdd), calls, repeat),
        "single gravity torques": per_call_us(lambda: km.gravity_torques(robot, q), calls, repeat),
        "single mass matrix": per_call_us(lambda: km.mass_matrix(robot, q), calls, repeat),
        "single forward dynamics": per_call_us(lambda: km.forward_dynamics(robot, q, qd, tau), calls, repeat),
        "batch rne": per_batch_ms(lambda: km.rne(robot, Q, QD, QDD), repeat),
        "batch mass matrix": per_batch_ms(lambda: km.mass_matrix(robot, Q), repeat),
        "batch forward dynamics": per_batch_ms(lambda: km.forward_dynamics(robot, Q, QD, TAU), repeat),
    }


# --- Pinocchio -----------------------------------------------------------------------------
def pinocchio_model(robot):
    """Pinocchio model of our canonical chain (as tests/test_dynamics.py builds it): joint i placed
    at A(i−1)·B(i) (joint 1 at base·B1), RZ/PZ joints, link i's inertial moved from link frame i
    into joint frame i (link frame = joint frame · A_i); SI units. None if Pinocchio is missing."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    p = link_params(robot)
    model, parent = pin.Model(), 0
    for i in range(robot.n):
        X = robot.base @ robot.before[0] if i == 0 else robot.after[i - 1] @ robot.before[i]
        joint = pin.JointModelRZ() if robot.revolute[i] else pin.JointModelPZ()
        parent = model.addJoint(parent, joint, pin.SE3(X[:3, :3], X[:3, 3] * p.scale), robot.joint_names[i])
        A = robot.after[i]
        com = A[:3, :3] @ p.com[i] + A[:3, 3] * p.scale
        model.appendBodyToJoint(parent, pin.Inertia(p.mass[i], com, A[:3, :3] @ p.inertia[i] @ A[:3, :3].T),
                                pin.SE3.Identity())
    model.gravity.linear = GRAVITY
    return pin, model, model.createData()


def to_si(robot, X):
    """Joint values in Pinocchio's units: offsets added, prismatic joints in metres."""
    return np.ascontiguousarray((X) * np.where(robot.revolute, 1.0, link_params(robot).scale))


def bench_pinocchio(robot, Q, QD, QDD, calls, repeat) -> dict[str, float]:
    pin, model, data = pinocchio_model(robot)
    Qp, QDp, QDDp = to_si(robot, Q + robot.offsets), to_si(robot, QD), to_si(robot, QDD)
    TAU = np.array([pin.rnea(model, data, *x) for x in zip(Qp, QDp, QDDp)])
    q, qd, qdd, tau = Qp[0], QDp[0], QDDp[0], TAU[0]
    NOTES.append(f"Pinocchio: C++ called from Python, the batch a Python loop over the states; the "
                 f"same chain and inertials as ours (largest relative difference of rnea, crba, aba "
                 f"from ours {check_pinocchio(robot, pin, model, data, Q, QD, QDD):.0e}); crba fills "
                 f"only the upper triangle of M.")
    rows = {
        "single rne": per_call_us(lambda: pin.rnea(model, data, q, qd, qdd), calls, repeat),
        "single gravity torques": per_call_us(lambda: pin.computeGeneralizedGravity(model, data, q), calls, repeat),
        "single mass matrix": per_call_us(lambda: pin.crba(model, data, q), calls, repeat),
        "single forward dynamics": per_call_us(lambda: pin.aba(model, data, q, qd, tau), calls, repeat),
    }
    loop = {"batch rne": lambda: [pin.rnea(model, data, *x) for x in zip(Qp, QDp, QDDp)],
            "batch mass matrix": lambda: [pin.crba(model, data, x) for x in Qp],
            "batch forward dynamics": lambda: [pin.aba(model, data, *x) for x in zip(Qp, QDp, TAU)]}
    rows.update({k: per_batch_ms(f, repeat) for k, f in loop.items()})
    return rows


def check_pinocchio(robot, pin, model, data, Q, QD, QDD) -> float:
    """Largest relative difference of rnea, crba and aba from ours on a few states: the timings
    are only comparable if both compute the same thing."""
    worst = 0.0
    for q, qd, qdd in zip(Q[:20], QD[:20], QDD[:20]):
        qp, qdp, qddp = to_si(robot, q + robot.offsets), to_si(robot, qd), to_si(robot, qdd)
        tau = km.rne(robot, q, qd, qdd)
        M = pin.crba(model, data, qp)
        M = np.triu(M) + np.triu(M, 1).T
        a = pin.aba(model, data, qp, qdp, tau)
        for ours, ref in ((tau, pin.rnea(model, data, qp, qdp, qddp)), (km.mass_matrix(robot, q), M),
                          (to_si(robot, km.forward_dynamics(robot, q, qd, tau)), a)):
            worst = max(worst, np.abs(ours - ref).max() / max(1.0, np.abs(ref).max()))
    return worst



def bench_rtb(puma, Q, QD, QDD, calls, repeat) -> dict[str, float]:
    """Its own Puma 560 (with its motor inertia and friction: the cost of what it computes)."""
    g = GRAVITY  # RTB takes the gravitational acceleration itself, as we do
    q, qd, qdd = Q[0], QD[0], QDD[0]
    tau = puma.rne(q, qd, qdd, gravity=g)
    NOTES.append(f"Robotics Toolbox: its own Puma 560 DH model ({rtb_agreement(puma)}). rne: its C "
                 f"extension (the batch in one call on (N, 6) arrays); rne (Python): rne_python; "
                 f"mass matrix: inertia (n C RNE columns); forward dynamics: accel.")
    rows = {
        "single rne": per_call_us(lambda: puma.rne(q, qd, qdd, gravity=g), calls, repeat),
        "single rne (Python)": per_call_us(lambda: puma.rne_python(q, qd, qdd, gravity=g),
                                           max(1, calls // 20), repeat),
        "single gravity torques": per_call_us(lambda: puma.gravload(q, gravity=g), calls, repeat),
        "single mass matrix": per_call_us(lambda: puma.inertia(q), calls, repeat),
        "single forward dynamics": per_call_us(lambda: puma.accel(q, qd, tau, gravity=g), calls, repeat),
        "batch rne": per_batch_ms(lambda: puma.rne(Q, QD, QDD, gravity=g), repeat),
    }
    return rows


def rtb_agreement(puma) -> str:
    """Whether RTB's Puma computes our puma560's torques once its extras are switched off: motor
    (armature) inertia Jm·G², viscous and Coulomb friction. A base translation (newer releases
    put the shoulder on a 0.672 m pedestal) moves the whole arm rigidly in a uniform gravity
    field, so it changes no joint torque: checked with a 0.672 m base added as well."""
    from spatialmath import SE3
    bare = puma.nofriction(coulomb=True, viscous=True)
    for link in bare.links:
        link.Jm = 0.0
    ours = km.load("puma560")
    rng = np.random.default_rng(7)
    states = rng.normal(size=(20, 3, 6))
    worst = 0.0
    for base in (None, SE3(0, 0, 0.672)):
        if base is not None:
            bare.base = base  # the copy's base, not the timed model's
        for q, qd, qdd in states:
            ref = km.rne(ours, q, qd, qdd)
            worst = max(worst, np.abs(bare.rne(q, qd, qdd, gravity=GRAVITY) - ref).max() / np.abs(ref).max())
    base = "no base offset" if np.allclose(puma.base.A, np.eye(4)) else f"base z = {puma.base.t[2]:g} m"
    return (f"{base}; with Jm = 0 and no friction it matches km.rne on our puma560 to {worst:.0e} "
            f"relative, also with a 0.672 m base added")


# --- report --------------------------------------------------------------------------------
ROWS = ["single rne", "single rne (Python)", "single gravity torques", "single mass matrix",
        "single forward dynamics", "batch rne", "batch mass matrix", "batch forward dynamics"]


def verdict(row: str, ours: dict[str, float], batch: int) -> str:
    if row not in TARGETS:
        return ""
    target = TARGETS[row]
    if row.startswith("batch") and batch != 10_000:
        return f"≤ {target:g} ms at 10 000"
    return f"≤ {target:g}  {'met' if ours[row] <= target else 'NOT met'}"


def print_table(results: dict[str, dict[str, float] | str], batch: int) -> None:
    """One row per measurement, one column per library; a peer that did not run says why."""
    names = list(results)
    header = ["µs per call; batch: ms per batch"] + names + ["target (ours)"]
    lines = []
    for row in ROWS:
        label = row if not row.startswith("batch") else f"{row} ({batch:,})"
        cells = [label]
        for name in names:
            r = results[name]
            cells.append((r if row == ROWS[0] else "") if isinstance(r, str) else bk.fmt(r.get(row)))
        cells.append(verdict(row, results["kinematica"], batch))
        lines.append(cells)
    bk.aligned_table(header, lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robot", default="puma560", help="bundled robot with inertials (default puma560)")
    ap.add_argument("--quick", action="store_true", help="short run: 3 repeats, 200 single calls")
    ap.add_argument("--batch", type=int, default=10_000, help="states per batch (default 10 000)")
    ap.add_argument("--repeat", type=int, help="timeit repeats (default 7; 3 quick)")
    ap.add_argument("--timer", choices=bk.TIMERS, default="wall",
                    help="wall clock (default) or this process's CPU time (steadier on a busy machine)")
    args = ap.parse_args(argv)
    bk.TIMER = bk.TIMERS[args.timer]
    repeat = args.repeat or (3 if args.quick else 7)
    calls = 200 if args.quick else 2000

    robot = km.load(args.robot)
    rng = np.random.default_rng(0)
    lo, hi = np.clip(robot.limits[:, 0], -np.pi, None), np.clip(robot.limits[:, 1], None, np.pi)
    Q = rng.uniform(lo, hi, (args.batch, robot.n))
    QD, QDD = rng.uniform(-2, 2, (2, args.batch, robot.n))

    print(bk.machine())
    print(f"robot   : {robot.name} ({robot.n} DOF), gravity {GRAVITY[2]:g} m/s² along z; batch "
          f"{args.batch:,} random states (q within limits, q̇ and q̈ uniform in ±2); single calls × "
          f"{calls}; median of {repeat} repeats; {args.timer} time; one process")
    results: dict[str, dict[str, float] | str] = {"kinematica": bench_ours(robot, Q, QD, QDD, calls, repeat)}
    results["Pinocchio"] = (bench_pinocchio(robot, Q, QD, QDD, calls, repeat)
                            if pinocchio_model(robot) else "not installed")
    puma, why = bk.rtb_puma() if robot.name == "puma560" else (None, "Puma 560 only")
    results["Robotics Toolbox"] = bench_rtb(puma, Q, QD, QDD, calls, repeat) if puma else why
    print()
    print_table(results, args.batch)
    print()
    print("\n".join(NOTES))
    print(f"load average at the end: {bk.load_average()} (other work on the cores inflates wall times)")


if __name__ == "__main__":
    main()
