"""`kinematica robots`, `show`, `fk` and `jacobian`: each builds its JSON data, then prints it or
its table view (cli/text.py)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

import numpy as np

import kinematica as km

from ..kinematics import ROWS, report, select_rows
from ..model.visual import to_dicts
from . import text
from .common import add_robot, emit, joint_values, q_deg, robot_of


def cmd_robots(args: argparse.Namespace, out: TextIO) -> int:
    robots = [km.load(name) for name in km.robot_names()]
    data = [{"name": r.name, "dof": r.n, "joints": text.joint_kinds(r),
             "length_unit": r.length_unit, "description": r.description} for r in robots]
    return emit(args, data, lambda _: text.robots_text(robots), out)


def show_data(robot: km.Robot) -> dict[str, Any]:
    """Everything `show` reports, as plain data."""
    t = robot.table
    scale = robot.angle_scale[:, None]
    inert = None
    if robot.inertials is not None:
        inert = [None if i is None else {"mass": i.mass, "com": i.com, "inertia": i.inertia,
                                         "shape": i.shape} for i in robot.inertials]
    return {
        "name": robot.name, "description": robot.description, "dof": robot.n,
        "joint_names": list(robot.joint_names), "joint_types": list(robot.joint_types),
        "pitch": robot.pitch,  # length_unit per rad: non-zero on a helical (revolute) joint
        "length_unit": robot.length_unit,
        "table": None if t is None else {"kind": t.kind, "angle_unit": t.angle_unit,
                                         "columns": list(t.columns), "rows": t.rows},
        "limits": robot.limits, "limits_deg": robot.limits * scale,
        "home": robot.home, "home_deg": None if robot.home is None else q_deg(robot, robot.home),
        "base": robot.base, "tool": robot.tool, "inertials": inert,
        "source": robot.source, "notes": robot.extras.get("notes", ""),
        "extras": {k: v for k, v in robot.extras.items() if k not in ("notes", "visuals", "visual_source")},
        "visuals": to_dicts(robot.visuals, robot.extras.get("visual_source", ""), deg=False) if robot.visuals else None,
    }


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    if args.dh or args.mdh:  # the equivalent standard- or modified-DH model, shown like any robot
        robot = km.to_dh(robot, "mdh" if args.mdh else "dh")
    return emit(args, show_data(robot), lambda _: text.show_text(robot), out)


def fk_data(robot: km.Robot, q: np.ndarray) -> dict[str, Any]:
    """Pose, position, RPY and every frame of one configuration, as plain data."""
    frames = km.fk_frames(robot, q)
    T = frames[-1]
    rpy = km.spatial.matrix_to_rpy(T[:3, :3])
    return {"robot": robot.name, "length_unit": robot.length_unit, "joint_names": list(robot.joint_names),
            "q": q, "q_deg": q_deg(robot, q), "T": T, "position": T[:3, 3], "rpy": rpy,
            "rpy_deg": np.degrees(rpy), "frame_names": text.frame_names(robot), "frames": frames}


def cmd_fk(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    data = fk_data(robot, joint_values(robot, args.q, args.deg))
    return emit(args, data, lambda d: text.fk_text(robot, d, args.frames), out)


def jacobian_data(robot: km.Robot, q: np.ndarray, frame: str, rows: str | None) -> dict[str, Any]:
    """The Jacobian, its measures over the task rows and the singularity verdict, as plain data."""
    rows = rows or km.task_rows(robot)
    J = km.jacobian(robot, q, frame=frame)
    # The measures are of the task rows of the (v; ω) Jacobian at the tool: a space or body
    # Jacobian (ω; v, Modern Robotics') is printed as asked, measured as the base one.
    rep = report(select_rows(J if frame in ("base", "tool") else km.jacobian(robot, q), rows), rows)
    s = km.singularity(robot, q, rows=rows)
    return {"robot": robot.name, "length_unit": robot.length_unit, "joint_names": list(robot.joint_names),
            "q": q, "q_deg": q_deg(robot, q), "frame": frame, "J": J, "rows": rows,
            "row_labels": [text.ROW_LABELS[i] for i in ROWS[rows]], "rank": rep.rank,
            "manipulability": rep.manipulability, "det_JJT": rep.det_JJT,
            "condition": rep.condition, "singular_values": rep.singular_values,
            "singularity": {"singular": s.singular, "near": s.near, "kind": s.kind,
                            "message": s.message}}


def cmd_jacobian(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    data = jacobian_data(robot, joint_values(robot, args.q, args.deg), args.frame, args.rows)
    return emit(args, data, lambda d: text.jacobian_text(robot, d), out)


# --- parsers --------------------------------------------------------------------------------
def _add_q(p: argparse.ArgumentParser) -> None:
    add_robot(p)
    p.add_argument("q", metavar="Q", nargs="*",
                   help="joint values, one per joint: rad (or deg with --deg) for revolute "
                        "joints, the robot's length unit for prismatic ones")
    p.add_argument("--deg", action="store_true", help="revolute joint values are in degrees")


def add_parsers(sub: Any) -> None:
    """The subparsers of robots, show, fk and jacobian."""
    p = sub.add_parser("robots", help="list the bundled robots")
    p.set_defaults(func=cmd_robots)
    p = sub.add_parser("show", help="a robot's parameter table, limits, home, base/tool, source")
    add_robot(p)
    table = p.add_mutually_exclusive_group()
    table.add_argument("--dh", action="store_true",
                       help="show the equivalent standard DH table (base and tool take up the rest)")
    table.add_argument("--mdh", action="store_true",
                       help="show the equivalent modified (Craig) DH table (base and tool take up the rest)")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("fk", help="forward kinematics: tool pose (and every frame) at q")
    _add_q(p)
    p.add_argument("--frames", action="store_true", help="also list every frame's origin")
    p.set_defaults(func=cmd_fk)
    p = sub.add_parser("jacobian", help="geometric Jacobian, manipulability and singularity at q")
    _add_q(p)
    p.add_argument("--frame", choices=("base", "tool", "space", "body"), default="base",
                   help="base (default) or tool: rows (v; ω), v of the tool point, in base or tool "
                        "axes; space or body: Modern Robotics' J_s or J_b, rows (ω; v)")
    p.add_argument("--rows", choices=tuple(ROWS), default=None,
                   help="task rows the measures use (default: planar for planar arms, full for "
                        "6+ joints, else position)")
    p.set_defaults(func=cmd_jacobian)
