"""The `kinematica` command: robots, show, fk, jacobian, ik, demo.

Every subcommand prints readable tables by default and JSON with `--json`. JSON states its units:
joint values as `q` (rad for revolute joints, the robot's length unit for prismatic ones) and
`q_deg` (degrees for revolute joints), positions in `length_unit`. Bad input prints one line,
``kinematica: error: <message>``, on stderr and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from typing import Any, Sequence, TextIO

import numpy as np

import kinematica as km

from . import clitext, demo
from .ik.analytic import has_analytic
from .kinematics import report, select_rows
from .kinematics.manipulability import ROWS, is_planar

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: reported as one line and exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and negative joint values such as -1e-3 or -inf taken as
    values rather than options."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # --frame must not pass for --frames
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(
            r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


# --- arguments --------------------------------------------------------------------------
def load_robot(name_or_path: str) -> km.Robot:
    """A bundled robot by name, or a .yaml/.urdf robot file."""
    try:
        return km.load(name_or_path)
    except ImportError as e:  # an optional reader (e.g. URDF) missing from this installation
        raise UsageError(f"cannot read {name_or_path}: {e}") from None


def joint_values(robot: km.Robot, values: Sequence[str], deg: bool) -> np.ndarray:
    """Joint values from the command line: exactly robot.n finite numbers; with `deg`,
    revolute values are degrees (prismatic ones stay in the length unit). Returns q in rad."""
    if len(values) != robot.n:
        names = " ".join(robot.joint_names)
        raise UsageError(f"{robot.name} has {robot.n} joints ({names}): expected {robot.n} "
                         f"joint values, got {len(values)}")
    q = np.empty(robot.n)
    for i, text in enumerate(values):
        try:
            q[i] = float(text)
        except ValueError:
            raise UsageError(f"joint value {i + 1} ({robot.joint_names[i]}) is not a number: "
                             f"{text!r}") from None
        if not math.isfinite(q[i]):
            raise UsageError(f"joint value {i + 1} ({robot.joint_names[i]}) is {text}: joint "
                             "values must be finite numbers")
    return np.where(robot.revolute, np.radians(q), q) if deg else q


def q_deg(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """Joint values for people: degrees for revolute joints, length unit for prismatic ones."""
    return q * robot.angle_scale


def jsonable(x: Any) -> Any:
    """Plain JSON data: arrays to lists, tuples to lists, inf/NaN to null."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return _tidy(float(x)) if math.isfinite(x) else None
    return x


def _tidy(v: float) -> float:
    """v, or the 15-digit decimal one unit in the last place away (0.5615000000000001 → 0.5615)."""
    short = float(f"{v:.15g}")
    return (short if abs(short - v) <= math.ulp(v) else v) + 0.0


def dumps(x: Any, level: int = 0) -> str:
    """JSON text, indented, with every list of plain values (a vector, a matrix row) on one line."""
    pad, end = "  " * (level + 1), "\n" + "  " * level
    if isinstance(x, dict) and x:
        items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {dumps(v, level + 1)}"
                 for k, v in x.items()]
        return "{\n" + ",\n".join(items) + end + "}"
    if isinstance(x, list) and any(isinstance(v, (list, dict)) for v in x):
        return "[\n" + ",\n".join(pad + dumps(v, level + 1) for v in x) + end + "]"
    if isinstance(x, list):
        return "[" + ", ".join(dumps(v, level + 1) for v in x) + "]"
    return json.dumps(x, ensure_ascii=False, allow_nan=False)


def _emit_json(data: Any, out: TextIO) -> None:
    out.write(dumps(jsonable(data)) + "\n")


# --- subcommands: each builds JSON data, then prints it or its table view ----------------
def cmd_robots(args: argparse.Namespace, out: TextIO) -> int:
    robots = [km.load(name) for name in km.robot_names()]
    if args.json:
        _emit_json([{"name": r.name, "dof": r.n, "joints": clitext.joint_kinds(r),
                     "length_unit": r.length_unit, "description": r.description} for r in robots],
                   out)
    else:
        out.write(clitext.robots_text(robots) + "\n")
    return 0


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
        "length_unit": robot.length_unit,
        "table": None if t is None else {"kind": t.kind, "angle_unit": t.angle_unit,
                                         "columns": list(t.columns), "rows": t.rows},
        "limits": robot.limits, "limits_deg": robot.limits * scale,
        "home": robot.home, "home_deg": None if robot.home is None else q_deg(robot, robot.home),
        "base": robot.base, "tool": robot.tool, "inertials": inert,
        "source": robot.source, "notes": robot.extras.get("notes", ""),
        "extras": {k: v for k, v in robot.extras.items() if k != "notes"},
    }


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    robot = load_robot(args.robot)
    if args.json:
        _emit_json(show_data(robot), out)
    else:
        out.write(clitext.show_text(robot) + "\n")
    return 0


def fk_data(robot: km.Robot, q: np.ndarray) -> dict[str, Any]:
    """Pose, position, RPY and every frame of one configuration, as plain data."""
    frames = km.fk_frames(robot, q)
    T = frames[-1]
    rpy = km.spatial.matrix_to_rpy(T[:3, :3])
    return {"robot": robot.name, "length_unit": robot.length_unit, "joint_names": list(robot.joint_names),
            "q": q, "q_deg": q_deg(robot, q), "T": T, "position": T[:3, 3], "rpy": rpy,
            "rpy_deg": np.degrees(rpy), "frame_names": clitext.frame_names(robot), "frames": frames}


def cmd_fk(args: argparse.Namespace, out: TextIO) -> int:
    robot = load_robot(args.robot)
    data = fk_data(robot, joint_values(robot, args.q, args.deg))
    if args.json:
        _emit_json(data, out)
    else:
        out.write(clitext.fk_text(robot, data, args.frames) + "\n")
    return 0


def jacobian_data(robot: km.Robot, q: np.ndarray, frame: str, rows: str | None) -> dict[str, Any]:
    """The Jacobian, its measures over the task rows and the singularity verdict, as plain data."""
    rows = rows or km.task_rows(robot)
    J = km.jacobian(robot, q, frame=frame)
    rep = report(select_rows(J, rows), rows)
    s = km.singularity(robot, q, rows=rows)
    return {"robot": robot.name, "length_unit": robot.length_unit, "joint_names": list(robot.joint_names),
            "q": q, "q_deg": q_deg(robot, q), "frame": frame, "J": J, "rows": rows,
            "row_labels": [clitext.ROW_LABELS[i] for i in ROWS[rows]], "rank": rep.rank,
            "manipulability": rep.manipulability, "det_JJT": rep.det_JJT,
            "condition": rep.condition, "singular_values": rep.singular_values,
            "singularity": {"singular": s.singular, "near": s.near, "kind": s.kind,
                            "message": s.message}}


def cmd_jacobian(args: argparse.Namespace, out: TextIO) -> int:
    robot = load_robot(args.robot)
    data = jacobian_data(robot, joint_values(robot, args.q, args.deg), args.frame, args.rows)
    if args.json:
        _emit_json(data, out)
    else:
        out.write(clitext.jacobian_text(robot, data) + "\n")
    return 0


# --- ik ------------------------------------------------------------------------------------
ORIENTATION_FLAGS = ("rpy", "euler_zyz", "quat", "approach", "pitch", "phi")
_ANGLE_FLAGS = ("rpy", "euler_zyz", "pitch", "phi")  # converted by --deg
IK_METHODS = ("lm", "gn", "newton", "transpose", "dls", "analytic")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def finite_numbers(values: Sequence[str], flag: str) -> np.ndarray:
    """The numbers after an option, each one finite, or a UsageError naming the option."""
    out = np.empty(len(values))
    for i, text in enumerate(values):
        try:
            out[i] = float(text)
        except ValueError:
            raise UsageError(f"{flag}: value {i + 1} is not a number: {text!r}") from None
        if not math.isfinite(out[i]):
            raise UsageError(f"{flag}: value {i + 1} is {text}: give finite numbers")
    return out


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
            method: str, limits: str, all_: bool, options: dict[str, Any]) -> dict[str, Any]:
    """Solve and report: reachable, the verdict in words, and the solutions (see `cmd_ik`)."""
    if method == "analytic" and not has_analytic(robot, t):
        what = ("a planar (x, y) target without its heading --phi"
                if t.kind == "planar" and t.phi is None else f"a {t.kind} target")
        raise UsageError(f"no analytic solver fits {robot.name} with {what} (closed forms "
                         "exist for planar 2R/3R with the heading φ, yaw-pitch-pitch-pitch-roll "
                         "5-DOF arms, 6R arms with a spherical wrist and UR-type arms); use a "
                         "numeric --method")
    start = robot.q_home if q0 is None else q0
    sols: list[km.IKResult] = []
    if all_:
        sols = km.ik_all(robot, t, start, method="lm" if method == "analytic" else method)
    if sols:
        reachable, message = True, _all_message(robot, t, sols)
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
            "solutions": [solution_data(robot, s) for s in sols]}


def cmd_ik(args: argparse.Namespace, out: TextIO) -> int:
    robot = load_robot(args.robot)
    t, target = ik_target(robot, args)
    q0 = None
    if args.q0 is not None:
        try:
            q0 = joint_values(robot, args.q0, args.deg)
        except UsageError as e:
            raise UsageError(f"--q0: {e}") from None
    options: dict[str, Any] = {}
    if args.tol is not None:
        tol = finite_numbers([args.tol], "--tol")[0]
        if tol <= 0:
            raise UsageError(f"--tol: must be > 0, got {args.tol}")
        options["tol_position"] = tol
    if args.restarts is not None:
        if args.restarts < 0:
            raise UsageError(f"--restarts: must be >= 0, got {args.restarts}")
        options["restarts"] = args.restarts
    data = ik_data(robot, t, target, q0, args.method, args.limits, args.all, options)
    if args.json:
        _emit_json(data, out)
    else:
        out.write(clitext.ik_text(robot, data) + "\n")
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    results = [(ex, demo.run(ex)) for ex in demo.EXAMPLES]
    if args.json:
        _emit_json([{"paper": ex.paper, "title": ex.title, "robot": ex.robot,
                     "checks": [vars(c) for c in checks]} for ex, checks in results], out)
    else:
        out.write(clitext.demo_text(results) + "\n")
    return 0


# --- parser and entry point ---------------------------------------------------------------
def _add_q(p: argparse.ArgumentParser) -> None:
    p.add_argument("robot", metavar="ROBOT", help="bundled robot name or .yaml/.urdf robot file")
    p.add_argument("q", metavar="Q", nargs="*",
                   help="joint values, one per joint: rad (or deg with --deg) for revolute "
                        "joints, the robot's length unit for prismatic ones")
    p.add_argument("--deg", action="store_true", help="revolute joint values are in degrees")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kinematica", description="Kinematics of serial robot manipulators.")
    parser.add_argument("--version", action="version", version=f"kinematica {km.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    json_help = "print JSON instead of tables"

    p = sub.add_parser("robots", help="list the bundled robots")
    p.set_defaults(func=cmd_robots)
    p = sub.add_parser("show", help="a robot's parameter table, limits, home, base/tool, source")
    p.add_argument("robot", metavar="ROBOT", help="bundled robot name or .yaml/.urdf robot file")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("fk", help="forward kinematics: tool pose (and every frame) at q")
    _add_q(p)
    p.add_argument("--frames", action="store_true", help="also list every frame's origin")
    p.set_defaults(func=cmd_fk)
    p = sub.add_parser("jacobian", help="geometric Jacobian, manipulability and singularity at q")
    _add_q(p)
    p.add_argument("--frame", choices=("base", "tool"), default="base",
                   help="express the Jacobian in the base (default) or tool frame")
    p.add_argument("--rows", choices=tuple(ROWS), default=None,
                   help="task rows the measures use (default: planar for planar arms, full for "
                        "6+ joints, else position)")
    p.set_defaults(func=cmd_jacobian)
    p = sub.add_parser("ik", help="inverse kinematics: joint values that reach a target",
                       description="Inverse kinematics: joint values that put the tool on a "
                                   "target. An unreachable or unsolved target is a normal answer "
                                   "(exit code 0, the reason in words); bad input exits with 2.")
    p.add_argument("robot", metavar="ROBOT", help="bundled robot name or .yaml/.urdf robot file")
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
    p.add_argument("--method", choices=IK_METHODS, default="lm",
                   help="lm (default), gn or newton (pseudo-inverse), transpose (adaptive step), "
                        "dls (fixed damping), analytic (closed form, the branch nearest q0)")
    p.add_argument("--limits", choices=("clip", "wrap", "ignore"), default="clip",
                   help="joint limits: clip every step (default), wrap at the end, or ignore them")
    p.add_argument("--all", action="store_true",
                   help="every distinct solution (closed form where one fits, else a multi-start "
                        "search), nearest to q0 first, each marked within or outside the limits")
    p.add_argument("--tol", metavar="TOL", default=None,
                   help="position tolerance in the robot's length unit (default 1e-6 m or 1e-3 mm)")
    p.add_argument("--restarts", type=int, metavar="N", default=None,
                   help="random seeds tried when the first attempt fails (default 64; 0: none)")
    p.add_argument("--deg", action="store_true",
                   help="angle inputs (--rpy, --euler-zyz, --pitch, --phi, --q0) are in degrees")
    p.set_defaults(func=cmd_ik)
    p = sub.add_parser("demo", help="reproduce the papers' worked examples")
    p.set_defaults(func=cmd_demo)
    for p in sub.choices.values():
        p.add_argument("--json", action="store_true", help=json_help)
    return parser


def _one_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return " ".join(line.strip() for line in text.splitlines())


def _tolerant(stream: TextIO) -> TextIO:
    """A stream that cannot encode θ or ω (an ASCII terminal) writes '?' instead of failing."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8" and hasattr(stream, "reconfigure"):
        stream.reconfigure(errors="replace")
    return stream


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 on success, 2 on bad input)."""
    out = _tolerant(sys.stdout)
    _tolerant(sys.stderr)
    try:
        args = build_parser().parse_args(argv)
        return args.func(args, out)
    except SystemExit as e:  # --help and --version
        return int(e.code or 0)
    except (UsageError, ValueError, OSError) as e:  # RobotFileError is a ValueError
        if isinstance(e, BrokenPipeError):
            return 0
        sys.stderr.write(f"kinematica: error: {_one_line(e)}\n")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
