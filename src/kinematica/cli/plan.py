"""`kinematica plan SCENE --start Q... --goal Q... | --position X Y Z [--rpy R P Y ...]`, or
`kinematica plan --request REQUEST.yaml --scene SCENE.yaml --robot URDF [--srdf FILE]` (MoveIt files): a
collision-free joint path for one robot of a scene (bundled name or YAML file), the others at
their scene configuration, found by an OMPL planner (`km.plan`); a --position goal (with any
orientation form `kinematica ik` takes, in the robot's base frame) is reached at whichever of
its collision-free IK solutions the planner gets to first; with --out, timed (TOPP-RA, under --vmax and --amax) and written as a
trajectory file that `kinematica scene check --trajectory` and the player read.

Exit codes, as `traj`: 0 when the report is printed and every file asked for was written — a
plan that found no path is part of the report (`success: false`, the reason in words), not an
error; 1 when the report is printed but --out was withheld because there is no path to write;
2 for bad input (a wrong count of joint values, an unknown robot or planner), one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import numpy as np

import kinematica as km

from ..plan import PLANNERS, read_request
from ..textfmt import table, vector
from .common import Failure, UsageError, emit, finite_numbers, joint_values, q_deg
from .dynamics import FORMATS, _out_path
from .progress import Progress
from .targets import ORIENTATION_FLAGS, add_target_args, ik_target


def _robot(scene: km.Scene, name: str | None) -> str:
    if name is None:
        if len(scene.robots) != 1:
            raise UsageError(f"--robot: the scene has {len(scene.robots)} robots ({', '.join(scene.robots)}): "
                             "name the one to plan for")
        return next(iter(scene.robots))
    if name not in scene.robots:
        raise UsageError(f"--robot: unknown robot {name!r}: the scene has {', '.join(scene.robots)}")
    return name


def _positive(text: str, flag: str) -> float:
    v = float(finite_numbers([text], flag)[0])
    if v <= 0:
        raise UsageError(f"{flag}: expected a positive number, got {text}")
    return v


def plan_data(scene: km.Scene, p: km.Plan, tr: km.Trajectory | None) -> dict[str, Any]:
    assert isinstance(p.robot, str)  # the command plans for one robot
    robot = scene.robots[p.robot].robot
    data: dict[str, Any] = {
        "scene": scene.name, "robot": p.robot, "planner": p.planner, "success": p.success, "reason": p.reason,
        "status": p.status, "planning_time": p.planning_time, "simplification_time": p.simplification_time,
        "checks": p.checks, "resolution": p.resolution, "length_unit": p.length_unit, "seed": p.seed,
        "path": p.path, "path_deg": None if p.path is None else q_deg(robot, p.path),
        "sweep": p.sweep if p.success else None, "units": {"path": "rad (length unit for prismatic joints)",
                                                            "planning_time": "s", "resolution": p.length_unit},
        "written": None, "withheld": None}
    if tr is not None:
        data["trajectory"] = {"duration": tr.duration, "samples": len(tr), "timing": tr.meta.get("timing"),
                              "vmax": tr.meta.get("vmax"), "amax": tr.meta.get("amax")}
    return data


def plan_text(d: dict[str, Any]) -> str:
    lines = [f"plan for {d['robot']} in scene {d['scene']} with {d['planner']}: "
             f"{'OK' if d['success'] else 'FAILED'}", f"  {d['reason']}",
             f"  OMPL status: {d['status']}; planning {1e3 * d['planning_time']:.4g} ms, simplification "
             f"{1e3 * d['simplification_time']:.4g} ms; {d['checks']} configurations checked, no link point "
             f"moving more than {d['resolution']:.4g} {d['length_unit']} between checks"]
    if d["path"] is not None:
        rows = [[i, vector(np.round(q, 3), 3)] for i, q in enumerate(d["path_deg"])]
        lines += ["", table(["waypoint", "q (deg, or length unit)"], rows)]
    if "trajectory" in d:
        t = d["trajectory"]
        lines += ["", f"timed (TOPP-RA): {t['duration']:.4g} s, {t['samples']} samples"]
    if d["written"]:
        lines.append(f"written: {d['written']['path']} ({d['written']['format']})")
    return "\n".join(lines)


def cmd_plan(args: argparse.Namespace, out: TextIO) -> int:
    path_out = _out_path(args.out)
    if path_out is not None and not path_out.parent.is_dir():
        raise UsageError(f"--out: the folder {path_out.parent} does not exist")
    if args.request is not None:
        scene, name, start, goal, target = _moveit(args)
    else:
        if args.scene is None or args.moveit_scene is not None:
            raise UsageError("give a SCENE (bundled name or scene file), or --request with --scene (MoveIt files)")
        scene = km.Scene.load(args.scene)
        name = _robot(scene, args.mover)  # (a robot of the scene by name: no --tip or --hold-at)
        robot = scene.robots[name].robot
        if args.start is None:
            raise UsageError("give the start: --start joint values")
        start = joint_values(robot, args.start, args.deg, flag="--start")
        goal, target = _goal(robot, args)
    report = Progress(sys.stderr, f"planning with {args.planner}", "s", args.time_limit,
                      detail=lambda t, n: f"{t:.1f} of {args.time_limit:g} s, {n:,.0f} states checked")
    p = km.plan(scene, start, goal, robot=name, planner=args.planner, time_limit=args.time_limit,
                resolution=None if args.resolution is None else _positive(args.resolution, "--resolution"),
                seed=args.seed, exact=True if args.exact else None, progress=report)
    tr = None
    if path_out is not None and p.success:
        tr = p.trajectory(_positive(args.vmax, "--vmax"), _positive(args.amax, "--amax"),
                          dt=_positive(args.dt, "--dt"))
    data = plan_data(scene, p, tr)
    data["target"] = target
    if tr is not None and path_out is not None:
        km.trajectory.save(tr, path_out, degrees=args.deg)
        data["written"] = {"path": str(path_out), "format": FORMATS[path_out.suffix.lower()],
                           "angle_unit": "deg" if args.deg else "rad"}
    elif path_out is not None:
        data["withheld"] = f"no path: {p.reason}"
    emit(args, data, plan_text, out)
    if data["withheld"]:
        raise Failure(f"not written ({args.out}): {data['withheld']}")
    return 0


def _moveit(args: argparse.Namespace) -> tuple[km.Scene, str, np.ndarray, np.ndarray, None]:
    """The scene, robot, start and goal of a MoveIt planning scene and request (--request)."""
    given = [f for f in ("scene", "start", "goal", "position") if getattr(args, f) is not None]
    if given:
        what = "SCENE" if given[0] == "scene" else f"--{given[0]}"
        raise UsageError(f"{what}: --request gives the start and goal, --scene the MoveIt scene; leave {what} out")
    if args.moveit_scene is None or args.mover is None:
        raise UsageError("--request needs --scene (a MoveIt planning-scene YAML) and --robot (a bundled robot "
                         "or a URDF or robot file)")
    allow = km.scene.srdf_disabled(args.srdf) if args.srdf else ()
    scene = km.scene.read_moveit(args.moveit_scene, args.mover, allow=allow)
    req = read_request(args.request, scene)
    return scene, req.robot, req.start, req.goal, None


def _goal(robot: km.Robot, args: argparse.Namespace) -> tuple[Any, dict[str, Any] | None]:
    """The goal: --goal joint values, or the IK target of --position (and an orientation)."""
    if args.goal is not None and args.position is not None:
        raise UsageError("give the goal as --goal joint values or as a --position target, not both")
    if args.goal is not None:
        orient = [f for f in ORIENTATION_FLAGS if getattr(args, f) is not None]
        if orient:
            raise UsageError(f"--{orient[0].replace('_', '-')} belongs to a --position goal, not to --goal")
        return joint_values(robot, args.goal, args.deg, flag="--goal"), None
    if args.position is None:
        raise UsageError("give the goal: --goal joint values, or --position X Y Z (with an orientation)")
    return ik_target(robot, args)


def _seconds(text: str) -> float:
    v = float(finite_numbers([text], "--time-limit")[0])
    if not 0 < v <= 3600:
        raise UsageError(f"--time-limit: expected seconds in (0, 3600], got {text}")
    return v


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise UsageError(f"--seed: expected a whole number, got {text!r}") from None
    if not 0 < v < 2 ** 32:
        raise UsageError(f"--seed: expected a whole number from 1 to {2 ** 32 - 1}, got {text}")
    return v


def add_parser(sub: Any) -> None:
    """The subparser of plan."""
    p = sub.add_parser("plan", help="a collision-free joint path in a scene (OMPL planners)",
                       description="Plan a collision-free joint path for one robot of SCENE (a bundled scene: "
                                   f"{', '.join(km.scene.scene_names())}; or a .yaml scene file) from --start to "
                                   "--goal; the other robots stay at their scene configuration.")
    p.add_argument("scene", metavar="SCENE", nargs="?", help="bundled scene name or .yaml scene file")
    p.add_argument("--start", nargs="+", metavar="Q", help="start joint values (rad, or deg with --deg)")
    p.add_argument("--goal", nargs="+", metavar="Q", help="goal joint values (rad, or deg with --deg)")
    add_target_args(p, note="or the goal as an IK target (every collision-free solution a goal): ")
    p.add_argument("--robot", dest="mover", metavar="NAME", help="the robot that moves (needed when the scene has "
                                                                 "several); with --request the robot to place in the "
                                                                 "MoveIt scene: a bundled name or a URDF/robot file")
    p.add_argument("--request", metavar="FILE", help="a MoveIt motion-plan request YAML: its start state and joint "
                                                     "goal (with --scene and --robot instead of SCENE)")
    p.add_argument("--scene", dest="moveit_scene", metavar="FILE", help="with --request: the MoveIt planning-scene YAML")
    p.add_argument("--srdf", metavar="FILE", help="with --request: the robot's SRDF (its disabled collision pairs)")
    p.add_argument("--planner", default="rrtconnect", choices=tuple(PLANNERS), metavar="NAME",
                   help=f"OMPL planner: {', '.join(PLANNERS)} (default rrtconnect)")
    p.add_argument("--time-limit", type=_seconds, default=1.0, metavar="S", help="planning time limit, s (default 1)")
    p.add_argument("--seed", type=_seed, metavar="N", help="seed OMPL's random numbers: the same plan every run")
    p.add_argument("--resolution", metavar="D", help="the most any link point moves between two checked "
                                                     "states (scene length unit; default half the link radius)")
    p.add_argument("--out", metavar="FILE", help="time the path and write the trajectory as .csv or .json")
    p.add_argument("--vmax", default="1.0", metavar="V", help="--out: joint speed limit, rad/s (default 1)")
    p.add_argument("--amax", default="2.0", metavar="A", help="--out: joint acceleration limit, rad/s² (default 2)")
    p.add_argument("--dt", default="0.01", metavar="S", help="--out: sample period, s (default 0.01)")
    p.add_argument("--deg", action="store_true", help="joint values of revolute joints in degrees (also in --out)")
    p.add_argument("--exact", action="store_true", help="check the links' meshes (coal) wherever the fast model "
                   "cannot tell (default: only when the start or goal needs it)")
    p.set_defaults(func=cmd_plan)
