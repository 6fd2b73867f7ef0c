"""`kinematica ik`: the target from the options, the solve (or every solution with --all), and
the verdict in words. An unreachable or unsolved target is an answer (exit code 0)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

import kinematica as km

from ..bounds import RESTARTS, count
from ..ik import CLOSED_FORMS, has_analytic, helical_refusal
from . import text_ik
from .common import (
    UsageError,
    add_robot,
    emit,
    finite_numbers,
    option_joint_values,
    q_deg,
    robot_of,
)
from .learn import model_options
from .targets import add_target_args, ik_target

IK_METHODS = ("lm", "gn", "newton", "transpose", "dls", "analytic")
IK_COMMAND_METHODS = IK_METHODS + ("anfis",)  # anfis needs a model file: only `ik` takes one


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
        raise UsageError(f"no analytic solver fits {robot.name} with {what} (closed forms exist for "
                         f"{CLOSED_FORMS}); use a numeric --method")
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
    rest = option_joint_values(robot, args.rest, args.deg, "--rest",
                               default=robot.q_home if "rest" in goals else None)  # the documented default
    if rest is not None and "rest" not in goals:
        raise UsageError("--rest is the pose of --goal rest=WEIGHT; give that goal too")
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
    add_target_args(p, required=True)
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
