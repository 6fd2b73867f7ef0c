"""What every subcommand shares: the one-line error, the parser class, robots and joint values
from the command line, and JSON output with every vector on one line.

>>> print(dumps(jsonable({"q": np.array([0.5615000000000001, -0.0]), "ok": np.bool_(True)})))
{
  "q": [0.5615, 0.0],
  "ok": true
}
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, TextIO, overload

import numpy as np

import kinematica as km

from ..bounds import BOUND_WORDS, joint_bounds
from ..errors import KinematicaError

ROBOT_HELP = "bundled robot name or .yaml/.urdf robot file"
JSON_HELP = "print JSON instead of tables"


class UsageError(KinematicaError, Exception):
    """Bad command-line input: reported as one line and exit code 2."""


class Failure(KinematicaError, Exception):
    """Good input that could not be carried out (an integrator that gave up): one line, exit 1."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and negative joint values such as -1e-3 or -inf taken as
    values rather than options."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # --frame must not pass for --frames
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(
            r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def add_robot(p: argparse.ArgumentParser, positional: bool = True) -> None:
    """ROBOT (or, with positional=False, only the URDF options) and --tip / --hold-at."""
    if positional:
        p.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    p.add_argument("--tip", metavar="LINK", help=TIP_HELP)
    p.add_argument("--hold-at", action="append", metavar="JOINT=VALUE", help=HOLD_HELP)
    p.add_argument("--package-dir", action="append", metavar="DIR",
                   help="for a URDF: a folder that holds (or is) a package its package:// meshes name; repeat for more")


TIP_HELP = ("for a URDF tree: the link that ends the chain (an error lists the candidates when the "
            "tree has no single longest chain)")
HOLD_HELP = ("for a URDF tree: hold a joint off the chain at VALUE (rad or m; default 0 within its "
             "limits); its links ride along. Repeat for more joints")


# --- arguments --------------------------------------------------------------------------
def load_robot(name_or_path: str, tip: str | None = None, hold_at: Sequence[str] | None = None,
               package_dirs: Sequence[str] | None = None) -> km.Robot:
    """A bundled robot by name, or a .yaml/.urdf robot file (a URDF's chain to `tip`, joints off
    it held at `hold_at` "JOINT=VALUE" values). What the file's reading warns about (bodies
    held, a missing limit) goes to stderr as one `kinematica: warning:` line each."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", km.URDFWarning)
            robot = km.load(name_or_path, tip=tip, hold=hold_values(hold_at), **(
                {"package_dirs": package_dirs} if package_dirs else {}))
    except ImportError as e:  # an optional reader (e.g. URDF) missing from this installation
        raise UsageError(f"cannot read {name_or_path}: {e}") from None
    for w in caught:
        if issubclass(w.category, km.URDFWarning):
            sys.stderr.write(f"kinematica: warning: {w.message}\n")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return robot


def hold_values(hold_at: Sequence[str] | None) -> dict[str, float] | None:
    """{joint: value} of --hold-at JOINT=VALUE items (None when there are none)."""
    hold = {}
    for item in hold_at or ():
        joint, _, value = (part.strip() for part in item.partition("="))
        try:
            hold[joint] = float(value)
        except ValueError:
            raise UsageError(f"--hold-at: expected JOINT=VALUE with VALUE a number, got {item!r}") from None
        if not joint or not math.isfinite(hold[joint]):
            raise UsageError(f"--hold-at: expected JOINT=VALUE with a joint name and a finite value, got {item!r}")
    return hold or None


def robot_of(args: argparse.Namespace) -> km.Robot:
    """The robot the command line names: ROBOT with its --tip and --hold-at."""
    return load_robot(args.robot, args.tip, args.hold_at, getattr(args, "package_dir", None))


def joint_values(robot: km.Robot, values: Sequence[str], deg: bool, derivative: int = 0,
                 flag: str | None = None) -> np.ndarray:
    """Joint values from the command line: exactly robot.n finite numbers; with `deg`,
    revolute values are degrees (prismatic ones stay in the length unit). Returns q in rad.
    The same holds for rates (`derivative` 1: deg/s → rad/s) and accelerations (2: deg/s² →
    rad/s²).

    Values beyond `kinematica.bounds.joint_bounds` (1000 turns, 1000 km; 10⁶ per s or s² for
    rates and accelerations) are refused: they have lost their meaning and overflow what is
    computed from them. Joint values (not rates) outside the robot's limits are accepted with
    a warning (`warn`), since a user may be studying just that."""
    prefix = f"{flag}: " if flag else ""
    if len(values) != robot.n:
        names = " ".join(robot.joint_names)
        raise UsageError(f"{prefix}{robot.name} has {robot.n} joints ({names}): expected {robot.n} "
                         f"joint values, got {len(values)}")
    raw = np.empty(robot.n)
    for i, text in enumerate(values):
        try:
            raw[i] = float(text)
        except ValueError:
            raise UsageError(f"{prefix}joint value {i + 1} ({robot.joint_names[i]}) is not a number: "
                             f"{text!r}") from None
        if not math.isfinite(raw[i]):
            raise UsageError(f"{prefix}joint value {i + 1} ({robot.joint_names[i]}) is {text}: joint "
                             "values must be finite numbers")
    shown = np.where(robot.revolute, "deg" if deg else "rad", robot.length_unit)
    per = ("", "/s", "/s²")[derivative]
    bound = joint_bounds(robot.revolute, robot.length_unit, derivative)
    shown_bound = np.where(robot.revolute, np.degrees(bound), bound) if deg else bound
    beyond = np.flatnonzero(np.abs(raw) > shown_bound)
    if beyond.size:
        i = beyond[0]
        raise UsageError(f"{prefix}joint value {i + 1} ({robot.joint_names[i]}) is {values[i]} "
                         f"{shown[i]}{per}: beyond ±{shown_bound[i]:.6g} {shown[i]}{per}, the largest "
                         f"accepted ({BOUND_WORDS[derivative]})")
    q = np.where(robot.revolute, np.radians(raw), raw) if deg else raw
    if derivative == 0:
        _check_limits(robot, q, deg, flag)
    return q


def _check_limits(robot: km.Robot, q: np.ndarray, deg: bool, flag: str | None) -> None:
    """A warning for every joint value outside the robot's limits."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    scale = np.where(robot.revolute, 180 / np.pi, 1.0) if deg else np.ones(robot.n)
    units = np.where(robot.revolute, "°" if deg else " rad", " " + robot.length_unit)
    for i in np.flatnonzero((q < lo) | (q > hi)):
        name = robot.joint_names[i]
        warn({"option": flag or "q", "joint": name, "value": q[i], "limits": robot.limits[i]},
             f"{flag + ': ' if flag else ''}{name} = {q[i] * scale[i]:.6g}{units[i]} is outside its limits "
             f"[{lo[i] * scale[i]:.6g}{units[i]}, {hi[i] * scale[i]:.6g}{units[i]}]")


# an array when the option was given or has a default array; None only when it has neither
@overload
def option_joint_values(robot: km.Robot, values: Sequence[str], deg: bool, flag: str,
                        default: np.ndarray | None = None, derivative: int = 0) -> np.ndarray: ...
@overload
def option_joint_values(robot: km.Robot, values: Sequence[str] | None, deg: bool, flag: str,
                        default: np.ndarray, derivative: int = 0) -> np.ndarray: ...
@overload
def option_joint_values(robot: km.Robot, values: Sequence[str] | None, deg: bool, flag: str,
                        default: None = None, derivative: int = 0) -> np.ndarray | None: ...
def option_joint_values(robot: km.Robot, values: Sequence[str] | None, deg: bool, flag: str,
                        default: np.ndarray | None = None, derivative: int = 0) -> np.ndarray | None:
    """`joint_values` of an option such as --q0, its errors and warnings naming the option;
    `default` when the option was not given."""
    if values is None:
        return default
    return joint_values(robot, values, deg, derivative, flag)


def q_deg(robot: km.Robot, q: np.ndarray) -> np.ndarray:
    """Joint values for people: degrees for revolute joints, length unit for prismatic ones."""
    return q * robot.angle_scale


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


# --- warnings -------------------------------------------------------------------------------
_WARNINGS: ContextVar[list[dict[str, Any]]] = ContextVar("kinematica_cli_warnings")
_SHOWN: ContextVar[int] = ContextVar("kinematica_cli_warnings_shown", default=0)


def start_warnings() -> None:
    """Begin a command: no warnings yet (main calls this)."""
    _WARNINGS.set([])
    _SHOWN.set(0)


def warn(data: dict[str, Any], message: str) -> None:
    """Something accepted but worth knowing (a joint outside its limits). It is shown on stderr
    with the answer (`emit`, or main for a command that fails to carry it out; a usage error
    drops it), and joins the --json output as an entry of its "limit_warnings" list."""
    found = _WARNINGS.get(None)
    if found is None:  # a command run without main (its tests)
        found = []
        _WARNINGS.set(found)
    found.append({**data, "message": message})


def show_warnings() -> None:
    """Write the warnings not yet shown to stderr, one line each."""
    found = _WARNINGS.get(None) or []
    for w in found[_SHOWN.get():]:
        sys.stderr.write(f"kinematica: warning: {w['message']}\n")
    _SHOWN.set(len(found))


# --- JSON -----------------------------------------------------------------------------------
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


def with_warnings(data: Any) -> Any:
    """`data` with the warnings given so far as its "limit_warnings" list (if there are any)."""
    if isinstance(data, dict) and _WARNINGS.get(None):
        return {**data, "limit_warnings": _WARNINGS.get()}
    return data


def emit(args: argparse.Namespace, data: Any, text: Any, out: TextIO) -> int:
    """Print `data` as JSON with --json, else the table view `text(data)`; exit code 0.
    Warnings given while reading the input (already on stderr) join the JSON as a list
    "limit_warnings" (absent when there are none)."""
    show_warnings()
    if args.json:
        data = with_warnings(data)
        out.write(dumps(jsonable(data)) + "\n")
    else:
        out.write(text(data) + "\n")
    return 0
