"""`kinematica traj ROBOT MODE`: plan a motion, follow it with IK, report it per point, write it.

Modes: `joint` (linear, cubic, quintic or trapezoidal between full joint vectors), `line` (a
straight tool line, paper 004), `arc` (a circular arc or the full circle through 3 points) and
`spline` (a cubic spline or paper 004's glued cubics through points). The Cartesian modes are
followed point by point with `km.trajectory.follow` (warm-started, closed-loop, on one branch).

Exit codes. 0: the report is printed and every file asked for was written — unsolved points,
joint jumps and limit violations are part of the report (`ok: false`), not errors. 1: the
report is printed but the files asked for (--out, --scenarios) were withheld because some point
is unsolved or outside the joint limits: a robot must not play a motion that leaves its path or
its limits (a joint jump alone does not withhold them: it is a real, if fast, motion). 2: bad
input — collinear arc points, a zero-length path, a wrong count of values, NaN — one line.

The motions are built from the options in traj_plan.py; text_traj.py is the table view.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

import numpy as np

import kinematica as km

from ..spatial import matrix_to_rpy
from ..trajectory import TASKS
from . import text_traj as view
from .common import (
    Failure,
    UsageError,
    add_robot,
    emit,
    option_joint_values,
    q_deg,
    robot_of,
)
from .dynamics import FORMATS, _out_path, joint_units
from .traj_plan import (
    MODES,
    PROFILES,
    check_mode_options,
    default_task,
    entry_note,
    limit_failures,
    plan_joint,
    plan_path,
    resolve_mode,
)


# --- summary, files -------------------------------------------------------------------------
def _written(tr: km.Trajectory, args: argparse.Namespace, out: Path | None) -> list[dict[str, Any]]:
    unit = "deg" if args.deg else "rad"
    done = []
    if out is not None:
        km.trajectory.save(tr, out, degrees=args.deg)
        done.append({"path": str(out), "format": FORMATS[out.suffix.lower()], "angle_unit": unit})
    if args.scenarios is not None:
        for p in km.trajectory.save_scenarios(tr, args.scenarios, degrees=args.deg):
            done.append({"path": str(p), "format": "scenario", "angle_unit": unit})
    return done


def _withheld(data: dict[str, Any]) -> str | None:
    """Why files must not be written (unsolved or out-of-limit points), or None."""
    unsolved, outside = data["problems"]["not_solved"], data["problems"]["outside_limits"]
    parts = ([f"{unsolved} of {data['points']} points not solved"] if unsolved else []) + \
            ([f"{outside} point{'s' if outside != 1 else ''} outside the joint limits"] if outside else [])
    return "; ".join(parts) or None


def _report_data(robot: km.Robot, tr: km.Trajectory, report: km.trajectory.FollowReport | None,
                 task: str | None) -> dict[str, Any]:
    """Solved points, problems counted and in words per point, and the path errors."""
    if report is None:  # a joint-space motion: every sample is given; only the limits can fail
        failures = limit_failures(robot, tr)
        return {"method": None, "solved": len(tr), "end_position_error": None,
                "end_orientation_error": None, "max_position_error": None, "max_orientation_error": None,
                "problems": {"not_solved": 0, "joint_jumps": 0, "outside_limits": len(failures)},
                "failures": failures, "warnings": []}
    oriented = task != "position"
    return {"method": report.method, "solved": int(report.success.sum()),
            "end_position_error": report.position_error[-1],
            "end_orientation_error": report.orientation_error[-1] if oriented else None,
            "max_position_error": report.position_error.max(),
            "max_orientation_error": report.orientation_error.max() if oriented else None,
            "problems": {"not_solved": int((~report.success).sum()), "joint_jumps": int(report.jump.sum()),
                         "outside_limits": int((report.success & ~report.within_limits).sum())},
            "failures": [{"index": i, "t": tr.t[i], "reason": r} for i, r in report.failures],
            "warnings": [{"index": i, "t": tr.t[i], "reason": r} for i, r in report.warnings]}


def traj_data(robot: km.Robot, tr: km.Trajectory, mode: str, motion: dict[str, Any], q0: np.ndarray | None,
              q0_given: bool, report: km.trajectory.FollowReport | None, task: str | None,
              notes: list[str]) -> dict[str, Any]:
    """The summary of `traj`, as plain data (the files are added by `cmd_traj`)."""
    speed = np.abs(tr.qd).max(axis=0)
    T_end = km.fk(robot, tr.q[-1])
    rpy = matrix_to_rpy(T_end[:3, :3])
    rep = _report_data(robot, tr, report, task)
    return {"robot": robot.name, "length_unit": robot.length_unit, "joint_names": list(robot.joint_names),
            "mode": mode, "motion": motion, "q0": q0, "q0_deg": None if q0 is None else q_deg(robot, q0),
            "q0_given": q0_given, "task": task, "method": rep.pop("method"),
            "points": len(tr), "solved": rep.pop("solved"), "duration": tr.duration,
            "q_start": tr.q[0], "q_start_deg": q_deg(robot, tr.q[0]),
            "q_end": tr.q[-1], "q_end_deg": q_deg(robot, tr.q[-1]),
            "max_joint_speed": speed, "max_joint_speed_deg": q_deg(robot, speed),
            "max_joint_speed_t": tr.t[np.argmax(np.abs(tr.qd), axis=0)],
            "end_pose": {"position": T_end[:3, 3], "rpy": rpy, "rpy_deg": np.degrees(rpy)},
            "ok": not rep["failures"], **rep, "notes": notes, "written": [], "withheld": None,
            "units": {"t": "s", "q": joint_units(robot), "q_deg": joint_units(robot, deg=True),
                      "max_joint_speed": joint_units(robot, "/s"),
                      "max_joint_speed_deg": joint_units(robot, "/s", deg=True),
                      "position": robot.length_unit, "orientation": "rad"}}


def cmd_traj(args: argparse.Namespace, out: TextIO) -> int:
    resolve_mode(args)
    robot = robot_of(args)
    check_mode_options(args)
    path_out = _out_path(args.out)
    if path_out is not None and not path_out.parent.is_dir():
        raise UsageError(f"--out: the folder {path_out.parent} does not exist")
    if args.scenarios is not None and Path(args.scenarios).is_file():
        raise UsageError(f"--scenarios: {args.scenarios} is a file; give a folder (one file per joint "
                         "goes in it)")
    notes: list[str] = []
    if args.mode == "joint":
        tr, motion = plan_joint(robot, args)
        report, task = None, None
        q0 = tr.q[0] if motion["start_at_q0"] else None
    else:
        q0 = option_joint_values(robot, args.q0, args.deg, "--q0", robot.q_home)
        path, motion = plan_path(robot, args, q0)
        task = args.task or default_task(robot)
        tr, report = km.trajectory.follow(robot, path, q0, task=task)
        notes += filter(None, [entry_note(robot, path, q0, task)])
    data = traj_data(robot, tr, args.mode, motion, q0, args.q0 is not None, report, task, notes)
    asked = path_out is not None or args.scenarios is not None
    reason = _withheld(data) if asked else None
    if asked and reason is None:
        data["written"] = _written(tr, args, path_out)
    data["withheld"] = reason
    emit(args, data, lambda d: view.traj_text(robot, d), out)
    if reason is not None:
        files = ", ".join(str(x) for x in (args.out, args.scenarios) if x is not None)
        raise Failure(f"not written ({files}): {reason} — a robot must not play a motion that leaves its "
                      "path or its joint limits (the report above says where)")
    return 0


# --- parser ---------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    """The subparser of traj."""
    p = sub.add_parser(
        "traj", usage="kinematica traj [-h] ROBOT MODE [options]",
        help="trajectories: joint moves, straight lines, arcs and splines followed by IK, "
             "reported per point, written as CSV/JSON/scenario files",
        description="Plan a motion and report it: points, duration, the largest joint speeds, and "
                    "every problem point in words (unsolved, a joint jump, outside the limits). "
                    "Cartesian paths (line, arc, spline) are followed by IK warm-started point by "
                    "point. Exit 0: report printed, files written; 1: files withheld because a point "
                    "is unsolved or outside the joint limits; 2: bad input.")
    add_robot(p)
    p.add_argument("mode", metavar="MODE", choices=MODES, nargs="?",
                   help="joint | line | arc | spline (right after ROBOT)")
    c = p.add_argument_group("every mode")
    c.add_argument("--q0", nargs="+", metavar="Q",
                   help="start configuration and IK seed (default: home)")
    c.add_argument("--n", type=int, metavar="N",
                   help="intervals (N + 1 points, plus given via points as samples); default 50 for "
                        "line and arc (paper 004), 100 otherwise")
    c.add_argument("--duration", metavar="T", help="duration in s (default 1 s, per segment in joint mode)")
    c.add_argument("--vmax", nargs="+", metavar="V",
                   help="joint mode: per-joint speed limits (one value or one per joint; rad/s, deg/s "
                        "with --deg); line/arc/spline: the tool's top speed (length unit/s) of a "
                        "trapezoidal speed profile")
    c.add_argument("--amax", nargs="+", metavar="A",
                   help="the matching acceleration limits (/s²)")
    c.add_argument("--deg", action="store_true",
                   help="joint values, --vmax/--amax of joints and --rpy angles are in degrees; files "
                        "are written in degrees")
    c.add_argument("--out", metavar="FILE", help="write t, q, q̇, q̈ (and the tool poses) as .csv or .json")
    c.add_argument("--scenarios", metavar="DIR",
                   help="write paper 004's motion scenarios: one '<joint>.txt' per joint (time value)")
    j = p.add_argument_group("joint mode")
    j.add_argument("--poses", nargs="+", action="append", metavar="Q",
                   help="a full joint vector; repeat for every pose (one --poses: from --q0 to it)")
    j.add_argument("--from", dest="from_", nargs="+", metavar="Q", help="start joint vector (default --q0)")
    j.add_argument("--to", nargs="+", metavar="V",
                   help="joint mode: the end joint vector; line mode: the end point X Y Z")
    j.add_argument("--profile", choices=PROFILES,
                   help="linear (default), cubic, quintic (at rest on every pose), trapezoidal "
                        "(needs --vmax, --amax; shortest duration unless --duration)")
    j.add_argument("--blend", choices=("stop", "parabolic"),
                   help="trapezoidal through 3+ poses: stop on each (default) or blend past them")
    k = p.add_argument_group("line, arc and spline")
    k.add_argument("--start", nargs="+", metavar="X", help="line: start point (default: the tool at --q0)")
    k.add_argument("--start-rpy", nargs=3, metavar=("R", "P", "Y"),
                   help="line: start orientation (default: the tool's at --q0)")
    k.add_argument("--rpy", nargs=3, metavar=("R", "P", "Y"),
                   help="tool orientation, roll-pitch-yaw about fixed x, y, z (rad, or deg with "
                        "--deg): the line's end (slerped from the start), the whole arc's or "
                        "spline's (default: the tool's at --q0)")
    k.add_argument("--through", nargs="+", action="append", metavar="X",
                   help="arc: a point X Y Z; three times, or twice to start at the tool at --q0")
    k.add_argument("--full", action="store_true", help="arc: the full circle back to the first point")
    k.add_argument("--points", nargs="+", action="append", metavar="X",
                   help="spline: a point X Y Z; at least three times")
    k.add_argument("--kind", choices=("cubic", "glued"),
                   help="spline: C² cubic (default) or paper 004's glued 3-point cubics")
    k.add_argument("--task", choices=TASKS,
                   help="what IK follows: pose (default for 6+ joints), position (default for 5-DOF "
                        "and smaller arms), approach (position + tool z axis), planar")
    k.add_argument("--speed", metavar="V", help="constant tool speed, length unit/s (instead of --duration)")
    p.set_defaults(func=cmd_traj)
