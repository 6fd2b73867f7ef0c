"""`kinematica dynamics` and `kinematica simulate`: joint torques at one state or along a
trajectory file, and the motion of an arm under gravity, a holding controller or constant torques.

Units: q in rad (or the length unit for prismatic joints), q̇ per s, q̈ per s²; `--deg` reads
revolute values as deg, deg/s and deg/s² and writes trajectory files in degrees. Torques are N·m
for revolute joints and N for prismatic ones; the gravity vector is in m/s². A robot without
inertial parameters is an error that names the links lacking them (never zero torques).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

import kinematica as km

from ..bounds import EVALUATIONS, count, sample_count
from ..dynamics import GRAVITY, length_scale
from ..simulation import MAX_EVALUATIONS
from . import text_dynamics as view
from .common import (
    Failure,
    UsageError,
    add_robot,
    emit,
    finite_numbers,
    joint_values,
    option_joint_values,
    q_deg,
    robot_of,
)
from .progress import Progress

FORMATS = {".csv": "CSV", ".json": "JSON"}


# --- units ----------------------------------------------------------------------------------
def joint_units(robot: km.Robot, suffix: str = "", deg: bool = False) -> list[str]:
    """Per joint: rad (deg) or the length unit, with `suffix` ("/s", "/s²")."""
    angle = "deg" if deg else "rad"
    return [(angle if r else robot.length_unit) + suffix for r in robot.revolute]


def torque_units(robot: km.Robot) -> list[str]:
    """Per joint: N·m (revolute) or N (prismatic)."""
    return ["N·m" if r else "N" for r in robot.revolute]


def mass_matrix_unit(robot: km.Robot) -> str:
    if np.all(robot.revolute):
        return "kg·m²"
    if not np.any(robot.revolute):
        return "kg"
    return "kg·m² between revolute joints, kg·m revolute–prismatic, kg between prismatic joints"


def _gravity(args: argparse.Namespace) -> np.ndarray:
    return GRAVITY.copy() if args.gravity is None else finite_numbers(args.gravity, "--gravity")


def _out_path(text: str | None) -> Path | None:
    """The --out file, its format told by the extension (checked before any work is done)."""
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in FORMATS:
        raise UsageError(f"--out: cannot tell the format of {path.name!r}: use .csv or .json")
    return path


def _written(path: Path | None, deg: bool) -> dict[str, Any] | None:
    if path is None:
        return None
    return {"path": str(path), "format": FORMATS[path.suffix.lower()],
            "angle_unit": "deg" if deg else "rad"}


# --- dynamics at one state ------------------------------------------------------------------
def _has_friction(robot: km.Robot) -> bool:
    drives = robot.extras.get("drives") or {}
    return any(np.any(np.asarray(drives.get(k, 0.0), dtype=float) != 0) for k in ("viscous", "coulomb"))


def point_data(robot: km.Robot, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
               gravity: np.ndarray) -> dict[str, Any]:
    """τ and its terms at one state: τ = M(q) q̈ + C(q, q̇) q̇ + g(q) + friction, as plain data."""
    tau = km.rne(robot, q, qd, qdd, gravity=gravity)
    M = km.mass_matrix(robot, q)
    g = km.gravity_torques(robot, q, gravity)
    c = km.coriolis(robot, q, qd)
    si = np.where(robot.revolute, 1.0, length_scale(robot))  # prismatic q̈ to m/s²
    inertial = M @ (qdd * si)
    friction = tau - inertial - c - g if _has_friction(robot) else np.zeros(robot.n)
    torque = torque_units(robot)
    return {"robot": robot.name, "length_unit": robot.length_unit,
            "joint_names": list(robot.joint_names), "q": q, "q_deg": q_deg(robot, q),
            "qd": qd, "qd_deg": q_deg(robot, qd), "qdd": qdd, "qdd_deg": q_deg(robot, qdd),
            "gravity_vector": gravity, "tau": tau, "M": M, "gravity": g, "coriolis": c,
            "inertial": inertial, "friction": friction,
            "units": {"q": joint_units(robot), "q_deg": joint_units(robot, deg=True),
                      "qd": joint_units(robot, "/s"), "qdd": joint_units(robot, "/s²"),
                      "tau": torque, "gravity": torque, "coriolis": torque, "inertial": torque,
                      "friction": torque, "M": mass_matrix_unit(robot), "gravity_vector": "m/s²"}}


def _cmd_point(args: argparse.Namespace, robot: km.Robot, gravity: np.ndarray, out: TextIO) -> int:
    if args.out is not None:
        raise UsageError("--out writes the torques along a --trajectory; with --q the answer is "
                         "printed (use --json for data)")
    q = joint_values(robot, args.q, args.deg, flag="--q")  # (required without --trajectory)
    zero = np.zeros(robot.n)
    qd = option_joint_values(robot, args.qd, args.deg, "--qd", zero, derivative=1)
    qdd = option_joint_values(robot, args.qdd, args.deg, "--qdd", zero, derivative=2)
    data = point_data(robot, q, qd, qdd, gravity)
    return emit(args, data, lambda d: view.point_text(robot, d), out)


# --- dynamics along a trajectory ------------------------------------------------------------
def check_trajectory(robot: km.Robot, tr: km.Trajectory, where: str) -> None:
    """The trajectory's joints must be the robot's: count, names, kinds (and length unit when
    there are prismatic joints)."""
    if tr.n != robot.n:
        raise UsageError(f"{where}: the trajectory has {tr.n} joints ({' '.join(tr.joint_names)}), "
                         f"{robot.name} has {robot.n} ({' '.join(robot.joint_names)})")
    if tuple(tr.joint_names) != tuple(robot.joint_names):
        raise UsageError(f"{where}: the trajectory's joints ({' '.join(tr.joint_names)}) are not "
                         f"{robot.name}'s ({' '.join(robot.joint_names)})")
    if not np.array_equal(tr.revolute, robot.revolute):
        j = int(np.flatnonzero(tr.revolute != robot.revolute)[0])
        kind = "revolute" if tr.revolute[j] else "prismatic"
        raise UsageError(f"{where}: joint {robot.joint_names[j]} is {kind} in the trajectory but "
                         f"{robot.joint_types[j]} in {robot.name}")
    if not np.all(robot.revolute) and tr.length_unit != robot.length_unit:
        raise UsageError(f"{where}: prismatic joint values in {tr.length_unit}, but {robot.name} "
                         f"is in {robot.length_unit}")


def peaks(tr: km.Trajectory, tau: np.ndarray) -> dict[str, Any]:
    """Peak |τ| per joint, the time of each peak, and the RMS torque (what heats a motor)."""
    k = np.argmax(np.abs(tau), axis=0)
    return {"peak_tau": np.abs(tau)[k, np.arange(tau.shape[1])], "peak_tau_t": tr.t[k],
            "rms_tau": np.sqrt(np.mean(tau ** 2, axis=0))}


def trajectory_data(robot: km.Robot, tr: km.Trajectory, tau: np.ndarray, where: str,
                    gravity: np.ndarray, written: dict[str, Any] | None) -> dict[str, Any]:
    """The summary of `dynamics --trajectory`, as plain data."""
    return {"robot": robot.name, "length_unit": robot.length_unit,
            "joint_names": list(robot.joint_names), "trajectory": where, "samples": len(tr),
            "t_start": tr.t[0], "t_end": tr.t[-1], "duration": tr.duration,
            "gravity_vector": gravity, "replaced_tau": tr.tau is not None, **peaks(tr, tau),
            "written": written,
            "units": {"t": "s", "tau": torque_units(robot), "gravity_vector": "m/s²"}}


def _cmd_trajectory(args: argparse.Namespace, robot: km.Robot, gravity: np.ndarray,
                    out: TextIO) -> int:
    for flag, value in (("--qd", args.qd), ("--qdd", args.qdd)):
        if value is not None:
            raise UsageError(f"{flag} goes with --q; a trajectory file carries its own rates")
    path = _out_path(args.out)
    tr = km.trajectory.load(args.trajectory)
    check_trajectory(robot, tr, args.trajectory)
    tau = km.rne(robot, tr.q, tr.qd, tr.qdd, gravity=gravity)
    if path is not None:
        km.trajectory.save(tr.with_torques(tau), path, degrees=args.deg)
    data = trajectory_data(robot, tr, tau, args.trajectory, gravity, _written(path, args.deg))
    return emit(args, data, lambda d: view.trajectory_text(robot, d), out)


def cmd_dynamics(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    gravity = _gravity(args)
    if args.trajectory is not None:
        return _cmd_trajectory(args, robot, gravity, out)
    return _cmd_point(args, robot, gravity, out)


# --- simulate -------------------------------------------------------------------------------
def _times(args: argparse.Namespace) -> tuple[float, float]:
    duration = float(finite_numbers([args.duration], "--duration")[0])
    dt = float(finite_numbers([args.dt], "--dt")[0])
    if duration <= 0:
        raise UsageError(f"--duration: must be > 0 s, got {args.duration}")
    if not 0 < dt <= duration:
        raise UsageError(f"--dt: must be > 0 and at most the duration ({duration:g} s), got {args.dt}")
    sample_count(duration, dt, "--duration / --dt", UsageError)
    return duration, dt


def _controller(args: argparse.Namespace, robot: km.Robot, q0: np.ndarray,
                gravity: np.ndarray) -> tuple[Any, str, np.ndarray | None]:
    """The torque argument of km.simulate, its name, and the constant torque if one was given."""
    if args.hold:
        return km.pd_gravity(robot, q0, gravity=gravity), "hold", None
    if args.torque is not None:
        if len(args.torque) != robot.n:
            raise UsageError(f"--torque: {robot.name} has {robot.n} joints "
                             f"({' '.join(robot.joint_names)}): expected {robot.n} values, "
                             f"got {len(args.torque)}")
        tau = finite_numbers(args.torque, "--torque")
        return tau, "torque", tau
    return None, "none", None


def simulate_data(robot: km.Robot, sim: km.Trajectory, controller: str, torque: np.ndarray | None,
                  gravity: np.ndarray, written: dict[str, Any] | None) -> dict[str, Any]:
    """The summary of `simulate`, as plain data."""
    meta, tau = sim.meta, sim.tau
    assert tau is not None  # km.simulate records the torques it applied
    return {"robot": robot.name, "length_unit": robot.length_unit,
            "joint_names": list(robot.joint_names), "duration": sim.duration,
            "dt": float(sim.t[1] - sim.t[0]) if len(sim) > 1 else sim.duration,
            "samples": len(sim), "controller": controller, "torque": torque,
            "friction": _has_friction(robot),
            "gravity_vector": gravity, "solver": meta.get("solver"),
            "evaluations": meta.get("evaluations"), "energy_start": meta.get("energy_start"),
            "energy_end": meta.get("energy_end"),
            "energy_change": meta.get("energy_end", np.nan) - meta.get("energy_start", np.nan),
            "q0": sim.q[0], "q0_deg": q_deg(robot, sim.q[0]), "qd0": sim.qd[0],
            "q_end": sim.q[-1], "q_end_deg": q_deg(robot, sim.q[-1]), "qd_end": sim.qd[-1],
            "max_abs_qd": np.abs(sim.qd).max(axis=0), **peaks(sim, tau), "written": written,
            "units": {"t": "s", "q": joint_units(robot), "qd": joint_units(robot, "/s"),
                      "tau": torque_units(robot), "energy": "J", "gravity_vector": "m/s²"}}


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    duration, dt = _times(args)
    gravity = _gravity(args)
    path = _out_path(args.out)
    q0 = option_joint_values(robot, args.q0, args.deg, "--q0", robot.q_home)
    qd0 = option_joint_values(robot, args.qd0, args.deg, "--qd0", np.zeros(robot.n), derivative=1)
    torque, controller, constant = _controller(args, robot, q0, gravity)
    cap = count(args.max_evaluations, "--max-evaluations", EVALUATIONS, error=UsageError)
    report = Progress(sys.stderr, f"simulating {robot.name}", "s", duration)
    try:
        sim = km.simulate(robot, duration, q0, qd0, torque=torque, dt=dt, gravity=gravity,
                          max_evaluations=cap, progress=report)
    except RuntimeError as e:  # SimulationStopped: the integrator gave up or hit the cap; good input, no answer
        raise Failure(f"{robot.name}: {str(e).replace('max_evaluations', '--max-evaluations')}") from None
    if path is not None:
        km.trajectory.save(sim, path, degrees=args.deg)
    data = simulate_data(robot, sim, controller, constant, gravity, _written(path, args.deg))
    return emit(args, data, lambda d: view.simulate_text(robot, d), out)


# --- parsers --------------------------------------------------------------------------------
_Q_HELP = "rad (deg with --deg) for revolute joints, the length unit for prismatic ones"


def _add_dynamics(sub: Any) -> None:
    p = sub.add_parser(
        "dynamics", help="joint torques τ, mass matrix and gravity torques at a state, or τ along "
                         "a trajectory file",
        description="Inverse dynamics by recursive Newton–Euler: τ = M(q) q̈ + C(q, q̇) q̇ + g(q) "
                    "(+ friction), in N·m (revolute) and N (prismatic). The robot needs inertial "
                    "parameters for every link.")
    add_robot(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--q", nargs="+", metavar="Q", help=f"joint values, one per joint: {_Q_HELP}")
    what.add_argument("--trajectory", metavar="FILE",
                      help="a trajectory file (.csv or .json, units in the file): τ at every sample")
    p.add_argument("--qd", nargs="+", metavar="QD", help="joint rates (default 0), per s; with --deg deg/s")
    p.add_argument("--qdd", nargs="+", metavar="QDD",
                   help="joint accelerations (default 0), per s²; with --deg deg/s²")
    p.add_argument("--out", metavar="FILE",
                   help="with --trajectory: write the trajectory with its torques (.csv or .json)")
    _add_common(p, "--q, --qd and --qdd of revolute joints are in degrees; --out is written in degrees")
    p.set_defaults(func=cmd_dynamics)


def _add_simulate(sub: Any) -> None:
    p = sub.add_parser(
        "simulate", help="integrate the equations of motion: unactuated, holding q0, or under "
                         "constant torques",
        description="Forward dynamics integrated with SciPy's solve_ivp (LSODA). Unactuated by "
                    "default; --hold applies joint PD with gravity compensation about q0; "
                    "--torque applies constant joint torques. The work is bounded by "
                    "--max-evaluations; a long run reports its progress on stderr and Ctrl+C stops it.")
    add_robot(p)
    p.add_argument("--duration", required=True, metavar="T", help="simulated time, s")
    p.add_argument("--q0", nargs="+", metavar="Q", help=f"initial joint values (default: home): {_Q_HELP}")
    p.add_argument("--qd0", nargs="+", metavar="QD", help="initial joint rates (default 0), per s")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--hold", action="store_true",
                     help="hold q0: PD control with gravity compensation (km.pd_gravity)")
    how.add_argument("--torque", nargs="+", metavar="TAU",
                     help="constant joint torques, N·m (revolute) or N (prismatic)")
    p.add_argument("--dt", default="0.01", metavar="DT", help="sample interval of the output, s (default 0.01)")
    p.add_argument("--out", metavar="FILE", help="write the simulated trajectory t, q, q̇, q̈, τ (.csv or .json)")
    p.add_argument("--max-evaluations", type=int, metavar="N", default=MAX_EVALUATIONS,
                   help=f"stop with an error after N evaluations of the dynamics (default {MAX_EVALUATIONS:,}: "
                        "bounds the work on a motion too fast or stiff to integrate)")
    _add_common(p, "--q0 and --qd0 of revolute joints are in degrees; --out is written in degrees")
    p.set_defaults(func=cmd_simulate)


def _add_common(p: argparse.ArgumentParser, deg_help: str) -> None:
    p.add_argument("--gravity", nargs=3, metavar=("GX", "GY", "GZ"),
                   help="gravity in the base frame, m/s² (default 0 0 -9.80665)")
    p.add_argument("--deg", action="store_true", help=deg_help)


def add_parsers(sub: Any) -> None:
    """The subparsers of dynamics and simulate."""
    _add_dynamics(sub)
    _add_simulate(sub)
