"""The motions of `kinematica traj` from its options: joint moves (linear, cubic, quintic,
trapezoidal, via poses) and Cartesian paths (line, arc, circle, spline) with their time laws,
each with a description as plain data for the summary. Bad options raise UsageError.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import kinematica as km

from ..bounds import Limit, count
from ..kinematics import is_planar, task_rows
from ..model.robot import LIMIT_TOL
from ..spatial import rotation_log, rpy_to_matrix
from ..trajectory import ramp
from . import text_traj as view
from .common import UsageError, finite_numbers, option_joint_values, q_deg

MODES = ("joint", "line", "arc", "spline")
CARTESIAN = ("line", "arc", "spline")
PROFILES = ("linear", "cubic", "quintic", "trapezoidal")
INTERVALS = Limit("kinematica.cli.traj_plan.INTERVALS", 100_000,
                  "intervals of a command-line trajectory", "each point of a Cartesian one is an IK solve: use fewer")
_DEFAULT_N = {"joint": 100, "line": 50, "arc": 50, "circle": 100, "spline": 100}
# options that belong to some modes only: (dest, flag) -> modes
_ONLY = {("poses", "--poses"): ("joint",), ("from_", "--from"): ("joint",),
         ("profile", "--profile"): ("joint",), ("blend", "--blend"): ("joint",),
         ("to", "--to"): ("joint", "line"), ("start", "--start"): ("line",),
         ("start_rpy", "--start-rpy"): ("line",), ("through", "--through"): ("arc",),
         ("full", "--full"): ("arc",), ("points", "--points"): ("spline",),
         ("kind", "--kind"): ("spline",), ("rpy", "--rpy"): CARTESIAN, ("task", "--task"): CARTESIAN,
         ("speed", "--speed"): CARTESIAN}


# --- options --------------------------------------------------------------------------------
def resolve_mode(args: argparse.Namespace) -> None:
    """MODE belongs right after ROBOT; written after an option of several values (--q0 0 0 0 line),
    argparse reads it as that option's last value. No value can be a mode's name, so it is taken
    back from there."""
    if args.mode is not None:
        return
    if args.robot in MODES:
        raise UsageError(f"ROBOT is missing: kinematica traj ROBOT {args.robot} [options]")
    for dest, value in vars(args).items():
        lists = value if isinstance(value, list) and value and isinstance(value[-1], list) else [value]
        for v in lists:
            if isinstance(v, list) and v and v[-1] in MODES:
                args.mode = v.pop()
                if not v:  # "--q0 line": the option had no values of its own
                    flag = "--" + dest.rstrip("_").replace("_", "-")
                    raise UsageError(f"{flag}: expected values before {args.mode}")
                return
    raise UsageError(f"MODE is missing: kinematica traj ROBOT MODE [options], MODE one of {', '.join(MODES)}")


def check_mode_options(args: argparse.Namespace) -> None:
    """An option of another mode (--through with line, …) is bad input, never silently ignored."""
    for (dest, flag), modes in _ONLY.items():
        if getattr(args, dest) not in (None, False) and args.mode not in modes:
            raise UsageError(f"{flag} goes with the {' or '.join(modes)} mode, not {args.mode}")


def _positive(text: str | None, flag: str, unit: str) -> float | None:
    if text is None:
        return None
    v = float(finite_numbers([text], flag)[0])
    if v <= 0:
        raise UsageError(f"{flag}: must be > 0 {unit}, got {text}")
    return v


def _intervals(args: argparse.Namespace, kind: str) -> int:
    if args.n is None:
        return _DEFAULT_N[kind]
    return count(args.n, "--n", INTERVALS, error=UsageError)


def _rpy(values: list[str] | None, flag: str, deg: bool) -> np.ndarray | None:
    if values is None:
        return None
    v = finite_numbers(values, flag)
    return rpy_to_matrix(np.radians(v) if deg else v)


def _point(robot: km.Robot, values: list[str], flag: str, plane_z: float) -> np.ndarray:
    """X Y Z in the length unit; X Y for a planar arm (z on its plane)."""
    p = finite_numbers(values, flag)
    if len(p) == 2 and is_planar(robot):
        return np.array([p[0], p[1], plane_z])
    if len(p) != 3:
        planar = " (or X Y for a planar arm)" if is_planar(robot) else ""
        raise UsageError(f"{flag}: a point is X Y Z{planar} in {robot.length_unit}, got {len(p)} values")
    return p


def _pose(p: np.ndarray, R: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def _timing(args: argparse.Namespace) -> dict[str, Any]:
    """The time law of a Cartesian path: --duration, --speed, or --vmax/--amax (tool speed)."""
    for flag, v in (("--vmax", args.vmax), ("--amax", args.amax)):
        if v is not None and len(v) != 1:
            raise UsageError(f"{flag}: a Cartesian path takes one value (the tool's top speed or "
                             f"acceleration), got {len(v)}")
    if (args.vmax is None) != (args.amax is None):
        raise UsageError("--vmax and --amax go together (a trapezoidal tool speed profile)")
    if args.speed is not None and (args.duration is not None or args.vmax is not None):
        raise UsageError("--speed fixes the timing: give --speed, --duration or --vmax/--amax, not two")
    return {"duration": _positive(args.duration, "--duration", "s"),
            "speed": _positive(args.speed, "--speed", "per s"),
            "vmax": _positive(args.vmax[0] if args.vmax else None, "--vmax", "per s"),
            "amax": _positive(args.amax[0] if args.amax else None, "--amax", "per s²")}


def _joint_limits(robot: km.Robot, values: list[str] | None, flag: str, deg: bool) -> np.ndarray | None:
    """--vmax or --amax of the joint mode: one value for every joint or one per joint."""
    if values is None:
        return None
    if len(values) not in (1, robot.n):
        raise UsageError(f"{flag}: one value for every joint or {robot.n} (one per joint), got {len(values)}")
    v = np.broadcast_to(finite_numbers(values, flag), (robot.n,)).copy()
    if np.any(v <= 0):
        raise UsageError(f"{flag}: must be > 0 for every joint")
    return np.where(robot.revolute, np.radians(v), v) if deg else v


# --- joint mode -----------------------------------------------------------------------------
def _joint_poses(robot: km.Robot, args: argparse.Namespace) -> tuple[np.ndarray, bool]:
    """The joint poses (k, n) and whether the first one is --q0 (or home)."""
    if args.poses is not None and (args.from_ is not None or args.to is not None):
        raise UsageError("give the poses as --poses (repeated) or as --from/--to, not both")
    pairs = [(p, "--poses") for p in args.poses] if args.poses else [(args.from_, "--from"), (args.to, "--to")]
    given = [option_joint_values(robot, v, args.deg, f) for v, f in pairs if v is not None]
    if args.poses is None and args.to is None:
        raise UsageError("the joint mode needs --to Q... (from --from or --q0) or --poses Q... repeated")
    own_start = len(given) >= 2
    if own_start and args.q0 is not None:
        raise UsageError("--q0 and the first pose both give the start: drop --q0 (or the first pose)")
    start = [] if own_start else [option_joint_values(robot, args.q0, args.deg, "--q0", robot.q_home)]
    return np.array(start + given), not own_start


def plan_joint(robot: km.Robot, args: argparse.Namespace) -> tuple[km.Trajectory, dict[str, Any]]:
    """The joint mode's motion and its description. Several poses: linear through them, cubic or
    quintic segments at rest on each, or trapezoidal via poses (`km.trajectory.via`)."""
    P, from_q0 = _joint_poses(robot, args)
    profile = args.profile or "linear"
    T = _positive(args.duration, "--duration", "s")
    n = _intervals(args, "joint")
    vmax = _joint_limits(robot, args.vmax, "--vmax", args.deg)
    amax = _joint_limits(robot, args.amax, "--amax", args.deg)
    segs = len(P) - 1
    if profile != "trapezoidal":
        for flag, v in (("--vmax", vmax), ("--amax", amax), ("--blend", args.blend)):
            if v is not None:
                raise UsageError(f"{flag} goes with --profile trapezoidal")
    info: dict[str, Any] = {"kind": "joint", "profile": profile, "poses": P, "poses_deg": q_deg(robot, P),
                            "start_at_q0": from_q0, "duration_given": T is not None}
    tj = km.trajectory
    if profile == "linear":
        tr = tj.joint(P, T, steps=n, robot=robot)
    elif profile in ("cubic", "quintic"):
        plan = tj.cubic if profile == "cubic" else tj.quintic
        each = (segs if T is None else T) / segs  # default: 1 s per segment; at rest on every pose
        tr = tj.concatenate([plan(P[k], P[k + 1], each, steps=max(1, n // segs), robot=robot)
                             for k in range(segs)])
    else:
        if vmax is None or amax is None:
            raise UsageError("--profile trapezoidal needs --vmax and --amax (one value, or one per joint)")
        info.update(vmax=vmax, amax=amax)
        if segs == 1:
            if T is None and np.array_equal(P[0], P[1]):
                raise UsageError("zero-length move: the start and end poses are the same (give --duration "
                                 "to hold still)")
            if args.blend is not None:
                raise UsageError("--blend goes with three or more poses (a move through via poses)")
            tr = tj.trapezoidal(P[0], P[1], vmax, amax, duration=T, steps=n, robot=robot)
        else:
            if T is not None:
                raise UsageError("--duration: a trapezoidal move through via poses takes the shortest time "
                                 "its --vmax and --amax allow; give --duration for two poses only")
            info["blend"] = args.blend or "stop"
            tr = tj.via(P, vmax, amax, blend=info["blend"], steps=n, robot=robot)
            info["via_deviation"] = tr.meta.get("via_deviation")
    return tr, info


def limit_failures(robot: km.Robot, tr: km.Trajectory) -> list[dict[str, Any]]:
    """Samples of a joint-space motion outside the joint limits, in words."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    out = []
    for i in np.flatnonzero(~robot.within_limits(tr.q)):
        bad = np.flatnonzero((tr.q[i] < lo - LIMIT_TOL) | (tr.q[i] > hi + LIMIT_TOL))
        words = ", ".join(f"{robot.joint_names[j]} = {view.joint_value(robot, j, tr.q[i, j])} outside "
                          f"[{view.joint_value(robot, j, float(lo[j]))}, "
                          f"{view.joint_value(robot, j, float(hi[j]))}]" for j in bad.tolist())
        out.append({"index": int(i), "t": tr.t[i], "reason": f"outside the joint limits: {words}"})
    return out


# --- Cartesian modes ------------------------------------------------------------------------
def plan_path(robot: km.Robot, args: argparse.Namespace, q0: np.ndarray) -> tuple[Any, dict[str, Any]]:
    """The CartesianPath of the line, arc or spline mode (starting from the tool at q0 where the
    options leave the start open), and its description."""
    T0 = km.fk(robot, q0)
    z = float(T0[2, 3])
    R = _rpy(args.rpy, "--rpy", args.deg)
    timing = _timing(args)
    tj = km.trajectory
    if args.mode == "line":
        if args.to is None:
            raise UsageError("the line mode needs --to X Y Z (the end point)")
        if args.start_rpy is not None and args.start is None:
            raise UsageError("--start-rpy goes with --start (without --start the line starts at the tool "
                             "at --q0)")
        p0 = T0[:3, 3] if args.start is None else _point(robot, args.start, "--start", z)
        R0 = _rpy(args.start_rpy, "--start-rpy", args.deg)
        R0 = T0[:3, :3] if R0 is None else R0
        p1 = _point(robot, args.to, "--to", z)
        path = tj.line(_pose(p0, R0), _pose(p1, R0 if R is None else R), _intervals(args, "line"), **timing)
        return path, {"kind": "line", "start": p0, "end": p1, "length": path.meta["length"],
                      "turn": path.meta["angle"], "turn_deg": np.degrees(path.meta["angle"]),
                      "start_at_q0": args.start is None, **_speed(robot, path, timing)}
    R = T0[:3, :3] if R is None else R
    if args.mode == "arc":
        if args.through is None or len(args.through) not in (2, 3):
            got = 0 if args.through is None else len(args.through)
            raise UsageError(f"the arc mode needs --through X Y Z three times (or twice: it then starts at "
                             f"the tool at --q0), got {got}")
        pts = [_point(robot, p, "--through", z) for p in args.through]
        from_tool = len(pts) == 2
        if from_tool:
            pts = [T0[:3, 3]] + pts
        kind = "circle" if args.full else "arc"
        plan = tj.circle_through if args.full else tj.arc_through
        p1, p2, p3 = pts  # three by the check above
        path = plan(p1, p2, p3, _intervals(args, kind), R=R, **timing)
        m = path.meta
        return path, {"kind": kind, "through": pts, "centre": m["centre"], "radius": m["radius"],
                      "normal": m["normal"], "angle": m["angle"], "angle_deg": np.degrees(m["angle"]),
                      "length": path.length, "start_at_q0": from_tool, **_speed(robot, path, timing)}
    if args.points is None or len(args.points) < 3:
        got = 0 if args.points is None else len(args.points)
        raise UsageError(f"the spline mode needs --points X Y Z at least three times, got {got}")
    pts = np.array([_point(robot, p, "--points", z) for p in args.points])
    kind = args.kind or "cubic"
    try:
        path = tj.spline(pts, _intervals(args, "spline"), kind=kind, R=R, **timing)
    except km.trajectory.TrajectoryError as e:  # the API's advice, in the command line's words
        raise UsageError(str(e).replace("kind='cubic'", "--kind cubic")) from None
    info = {"kind": "spline", "spline": kind, "points": pts, "length": path.length,
            "knots_s": path.meta["knots_s"], "start_at_q0": False, **_speed(robot, path, timing)}
    if "kink_deg" in path.meta:
        info["kink_deg"] = path.meta["kink_deg"]
    return path, info


def _speed(robot: km.Robot, path: Any, timing: dict[str, Any]) -> dict[str, Any]:
    """The time law in words: constant tool speed, or a trapezoidal profile's top speed."""
    turning = path.meta.get("s_unit") == "rad"  # a pure rotation: s is the angle
    unit = ("rad" if turning else robot.length_unit) + "/s"
    what = "turning rate" if turning else "tool speed"
    if timing["vmax"] is not None:
        top = ramp.trapezoid(path.length, timing["vmax"], timing["amax"], timing["duration"])[1]
        return {"law": f"trapezoidal {what} profile, top", "speed": top, "speed_unit": unit}
    return {"law": f"constant {what}", "speed": path.length / path.duration, "speed_unit": unit}


def default_task(robot: km.Robot) -> str:
    return {"planar": "planar", "full": "pose"}.get(task_rows(robot), "position")


def entry_note(robot: km.Robot, path: Any, q0: np.ndarray, task: str) -> str | None:
    """A note when the path does not start at the tool at q0 (the move onto it is not planned)."""
    T0, P0 = km.fk(robot, q0), path.poses[0]
    d = float(np.linalg.norm(P0[:3, 3] - T0[:3, 3]))
    turn = float(np.linalg.norm(rotation_log(T0[:3, :3].T @ P0[:3, :3]))) if task == "pose" else 0.0
    if d <= 1e-9 * max(1.0, float(np.abs(T0[:3, 3]).max())) and turn <= 1e-9:
        return None
    away = f"{d:.4g} {robot.length_unit}" + (f" and {np.degrees(turn):.3g}°" if turn > 1e-9 else "")
    return (f"the path starts {away} away from the tool at q0: the motion begins at the first point's IK "
            "solution; the move from q0 onto the path is not part of it (plan it with the joint mode)")
