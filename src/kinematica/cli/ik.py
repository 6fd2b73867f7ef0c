"""`kinematica ik`: the target from the options, the solve (or every solution with --all), and
the verdict in words. An unreachable or unsolved target is an answer (exit code 0)."""

from __future__ import annotations

import argparse
from typing import Any, Sequence, TextIO

import numpy as np

import kinematica as km

from ..bounds import RESTARTS, count
from ..ik.analytic import has_analytic, helical_refusal
from ..kinematics.manipulability import is_planar
from . import text_ik
from .learn import model_options
from .common import (UsageError, add_robot, emit, finite_numbers, robot_of, option_joint_values,
                     q_deg)

ORIENTATION_FLAGS = ("rpy", "euler_zyz", "quat", "approach", "pitch", "phi")
_ANGLE_FLAGS = ("rpy", "euler_zyz", "pitch", "phi")  # converted by --deg
IK_METHODS = ("lm", "gn", "newton", "transpose", "dls", "analytic")
IK_COMMAND_METHODS = IK_METHODS + ("anfis",)  # anfis needs a model file: only `ik` takes one


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def ik_target(robot: km.Robot, args: argparse.Namespace) -> tuple[km.Target, dict[str, Any]]:
    """The Target the options describe, and the same target as plain data (angles in rad).

    --position X Y Z with at most one orientation form (--rpy, --euler-zyz, --quat, --approach,
    --pitch); --position X Y is a planar target for a planar robot, with --phi its heading."""
    pos = finite_numbers(args.position, "--position")
    given = [f for f in ORIENTATION_FLAGS if getattr(args, f) is not None]
    form = given[0] if given else None  # at most one: the parser's exclusive group sees to it
    value = None
    if form is not None:
        raw = getattr(args, form)
        value = finite_numbers(raw if isinstance(raw, list) else [raw], _flag(form))
        if form in _ANGLE_FLAGS and args.deg:
            value = np.radians(value)
        if form in ("pitch", "phi"):
            value = value[0]
    data: dict[str, Any] = {"position": pos}
    if len(pos) == 2:
        if not is_planar(robot):
            raise UsageError(f"--position X Y is a planar target, but {robot.name} moves in 3-D: "
                             "give --position X Y Z")
        if form not in (None, "phi"):
            raise UsageError(f"{_flag(form)} needs a 3-D target (--position X Y Z); a planar "
                             "target (x, y) takes only --phi, its heading")
        t = km.targets.planar(pos, value)
    elif len(pos) == 3:
        if form == "phi":
            raise UsageError("--phi is the heading of a planar target: give --position X Y "
                             "(planar robots); for a 3-D target use --pitch or another orientation")
        if form is None:
            t = km.targets.position(pos)
        elif form == "approach":
            t = km.targets.approach(pos, value)
            data["approach"] = t.a
        elif form == "pitch":
            t = km.targets.approach(pos, pitch=value)
            data["approach"] = t.a
        else:
            t = km.targets.orientation(pos, **{form: value})
            data["R"] = t.R
    else:
        raise UsageError(f"--position takes 3 values (x y z), or 2 (x y) for a planar robot; "
                         f"got {len(pos)}")
    if form is not None:
        data[form] = value
    return t, {"kind": t.kind, "constraints": t.dof, **data}


def solution_data(robot: km.Robot, r: km.IKResult) -> dict[str, Any]:
    """One solution of `ik`, as plain data."""
    return {"q": r.q, "q_deg": q_deg(robot, r.q), "position_error": r.position_error,
            "orientation_error": r.orientation_error, "iterations": r.iterations,
            "method": r.method, "within_limits": r.within_limits, "branch": r.branch,
            "near_singular": r.near_singular}


def _all_message(robot: km.Robot, t: km.Target, sols: Sequence[km.IKResult]) -> str:
    k, inside = len(sols), sum(bool(s.within_limits) for s in sols)
    text = (f"{k} solution{'s' if k != 1 else ''}, {inside} within the joint limits, "
            "nearest to q0 first")
    free = robot.n - t.dof
    if free > 0:
        text += (f"; the target leaves {free} degree{'s' if free != 1 else ''} of freedom free "
                 "(infinitely many solutions): a spread sample of the family")
    return text


def ik_data(robot: km.Robot, t: km.Target, target: dict[str, Any], q0: np.ndarray | None,
            method: str, limits: str, all_: bool, options: dict[str, Any], model: Any = None,
            seed_model: Any = None) -> dict[str, Any]:
    """Solve and report: reachable, the verdict in words, and the solutions (see `cmd_ik`).
    model: the learned model of --method anfis; seed_model: a learned model whose answer is q0."""
    if method == "analytic" and helical_refusal(robot):
        raise UsageError(helical_refusal(robot))
    if method == "analytic" and not has_analytic(robot, t):
        what = ("a planar (x, y) target without its heading --phi"
                if t.kind == "planar" and t.phi is None else f"a {t.kind} target")
        raise UsageError(f"no analytic solver fits {robot.name} with {what} (closed forms "
                         "exist for planar 2R/3R with the heading φ, yaw-pitch-pitch-pitch-roll "
                         "5-DOF arms, 6R arms with a spherical wrist and UR-type arms); use a "
                         "numeric --method")
    if seed_model is not None:
        q0 = seed_model.seeds_for(robot, t)
    start = robot.q_home if q0 is None else q0
    sols: list[km.IKResult] = []
    if all_:
        sols = km.ik_all(robot, t, start, method="lm" if method == "analytic" else method)
    if sols:
        reachable, message = True, _all_message(robot, t, sols)
    elif method == "anfis":  # the model alone: its answer is shown even when it misses
        res = km.ik(robot, t, method="anfis", model=model, **options)
        reachable, message, sols = bool(res.reachable), str(res.reason), [res]
    else:  # a single solve, or the reason in words why --all found nothing
        res = km.ik(robot, t, start, method=method, limits=limits, **options)
        reachable, message = bool(res.reachable), str(res.reason)
        if res.success:
            sols = [res]
            if all_:
                message = "1 solution (found by km.ik after the multi-start search found none)"
    return {"robot": robot.name, "length_unit": robot.length_unit,
            "joint_names": list(robot.joint_names), "target": target, "method": method,
            "limits": limits, "all": all_, "q0": start, "q0_deg": q_deg(robot, start),
            "q0_given": q0 is not None, "reachable": reachable, "message": message,
            **({"solved": bool(sols) and all(bool(s.success) for s in sols), "seed_model": seed_model is not None}
               if model is not None or seed_model is not None else {}),  # a model's answer may be shown unsolved
            "solutions": [solution_data(robot, s) for s in sols]}


def ik_options(args: argparse.Namespace) -> dict[str, Any]:
    """Solver options from --tol and --restarts (shared with `explain ik`)."""
    options: dict[str, Any] = {}
    if args.tol is not None:
        tol = finite_numbers([args.tol], "--tol")[0]
        if tol <= 0:
            raise UsageError(f"--tol: must be > 0, got {args.tol}")
        options["tol_position"] = tol
    if args.restarts is not None:
        options["restarts"] = count(args.restarts, "--restarts", RESTARTS, minimum=0, error=UsageError)
    return options


def goal_options(args: argparse.Namespace, robot: km.Robot) -> dict[str, Any]:
    """`secondary` and `rest` for km.ik from --goal NAME=WEIGHT (repeatable) and --rest Q..."""
    if not args.goal:
        if args.rest is not None:
            raise UsageError("--rest is the pose of --goal rest=WEIGHT; give that goal too")
        return {}
    if args.all or args.method in ("analytic", "anfis"):
        raise UsageError("--goal moves a numeric solution along the task's free directions; "
                         "it does not go with --all, --method analytic or --method anfis")
    goals: dict[str, float] = {}
    for item in args.goal:
        name, sep, weight = item.partition("=")
        if not sep:
            raise UsageError(f"--goal: expected NAME=WEIGHT (limits, manipulability or rest), got {item!r}")
        goals[name.strip()] = finite_numbers([weight], f"--goal {name}")[0]
    rest = option_joint_values(robot, args.rest, args.deg, "--rest")
    return {"secondary": goals, "rest": rest}


def cmd_ik(args: argparse.Namespace, out: TextIO) -> int:
    robot = robot_of(args)
    t, target = ik_target(robot, args)
    model, seed_model = model_options(args, robot)
    q0 = option_joint_values(robot, args.q0, args.deg, "--q0")
    options = {**ik_options(args), **goal_options(args, robot)}
    data = ik_data(robot, t, target, q0, args.method, args.limits, args.all, options, model, seed_model)
    return emit(args, data, lambda d: text_ik.ik_text(robot, d), out)


# --- parser ---------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    """The subparser of ik."""
    p = sub.add_parser("ik", help="inverse kinematics: joint values that reach a target",
                       description="Inverse kinematics: joint values that put the tool on a "
                                   "target. An unreachable or unsolved target is a normal answer "
                                   "(exit code 0, the reason in words); bad input exits with 2.")
    add_robot(p)
    p.add_argument("--position", nargs="+", required=True, metavar="X",
                   help="target position X Y Z in the robot's length unit; X Y (two values) is a "
                        "planar target for a planar robot")
    o = p.add_mutually_exclusive_group()
    o.add_argument("--rpy", nargs=3, metavar=("R", "P", "Y"),
                   help="tool orientation: roll, pitch, yaw about fixed x, y, z (rad, or deg with --deg)")
    o.add_argument("--euler-zyz", nargs=3, metavar=("A", "B", "C"),
                   help="tool orientation: ZYZ Euler angles (rad, or deg with --deg)")
    o.add_argument("--quat", nargs=4, metavar=("W", "X", "Y", "Z"),
                   help="tool orientation: unit quaternion, scalar first")
    o.add_argument("--approach", nargs=3, metavar=("AX", "AY", "AZ"),
                   help="the tool z axis (approach direction); the roll about it is free (5-DOF arms)")
    o.add_argument("--pitch", metavar="PHI",
                   help="the tool z axis at pitch PHI above the horizontal, in the vertical plane "
                        "through the target (paper 003; rad, or deg with --deg)")
    o.add_argument("--phi", metavar="PHI",
                   help="planar target: heading of the last link (rad, or deg with --deg)")
    p.add_argument("--q0", nargs="+", metavar="Q",
                   help="initial guess, one value per joint (default: the robot's home); with "
                        "--all, the configuration the solutions are sorted by distance to")
    p.add_argument("--method", choices=IK_COMMAND_METHODS, default="lm",
                   help="lm (default), gn or newton (pseudo-inverse), transpose (adaptive step), "
                        "dls (fixed damping), analytic (closed form, the branch nearest q0), anfis "
                        "(the answer of a learned model alone, --model; approximate)")
    p.add_argument("--model", metavar="MODEL",
                   help="--method anfis: the model file (from 'kinematica learn ik')")
    p.add_argument("--seed-model", metavar="MODEL",
                   help="start the numeric method from a learned model's answer (instead of --q0)")
    p.add_argument("--limits", choices=("clip", "wrap", "ignore"), default="clip",
                   help="joint limits: clip every step (default), wrap at the end, or ignore them")
    p.add_argument("--all", action="store_true",
                   help="every distinct solution (closed form where one fits, else a multi-start "
                        "search), nearest to q0 first, each marked within or outside the limits")
    p.add_argument("--tol", metavar="TOL", default=None,
                   help="position tolerance in the robot's length unit (default 1e-6 m or 1e-3 mm)")
    p.add_argument("--restarts", type=int, metavar="N", default=None,
                   help="random seeds tried when the first attempt fails (default 64; 0: none)")
    p.add_argument("--goal", action="append", metavar="NAME=WEIGHT",
                   help="a secondary goal for the freedom a solved target leaves (a redundant arm, a "
                        "position-only target): limits, manipulability or rest, with a weight; repeatable")
    p.add_argument("--rest", nargs="+", metavar="Q", help="the rest pose of --goal rest=W (default home)")
    p.add_argument("--deg", action="store_true",
                   help="angle inputs (--rpy, --euler-zyz, --pitch, --phi, --q0) are in degrees")
    p.set_defaults(func=cmd_ik)
