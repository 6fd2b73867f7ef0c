"""`kinematica explain ROBOT fk|jacobian|ik|dynamics`: the mathematics behind an answer, step
by step, as terminal text, Markdown, a standalone HTML page (renders offline) or LaTeX.

The format follows --format, else the suffix of --out (.md, .html/.htm, .tex, .txt), else text.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from .. import atomic
from . import ik as cli_ik
from .common import (
    UsageError,
    add_robot,
    dumps,
    finite_numbers,
    jsonable,
    option_joint_values,
    robot_of,
    with_warnings,
)
from .targets import add_target_args, ik_target

if TYPE_CHECKING:
    from ..explain import Document

FORMATS = ("text", "md", "html", "tex")
_SUFFIX = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".tex": "tex", ".txt": "text"}
WHAT = ("fk", "jacobian", "ik", "dynamics")


def _format(args: argparse.Namespace) -> str:
    """--format, else the format --out's suffix names (checked first by `_check_out`), else text."""
    if args.format:
        return args.format
    if args.out:
        return _SUFFIX[Path(args.out).suffix.lower()]
    return "text"


def _check_out(args: argparse.Namespace) -> None:
    """Without --format or --json, --out must name its format by a known suffix: a file such as
    e.xyz would silently get terminal text."""
    if args.out is None or args.format or args.json:
        return
    if Path(args.out).suffix.lower() not in _SUFFIX:
        raise UsageError(f"--out: cannot tell the format of {Path(args.out).name!r}: use one of "
                         f"{', '.join(_SUFFIX)}, or give --format")

def build_document(args: argparse.Namespace) -> Document:
    """The explanation the options ask for."""
    from ..explain import explain  # here: SymPy takes most of a second to import

    robot = robot_of(args)
    deg = True if args.deg else None
    q = option_joint_values(robot, args.q, args.deg, "--q", robot.q_home)
    if args.what == "ik":
        if args.position is None:
            raise UsageError("explain ik needs the target: --position X Y Z (or X Y for a planar robot)")
        t, _ = ik_target(robot, args)
        q0 = option_joint_values(robot, args.q0, args.deg, "--q0")
        return explain(robot, "ik", target=t, q0=q0, method=args.method, limits=args.limits, deg=deg,
                       **cli_ik.ik_options(args))
    if args.position is not None or args.q0 is not None:
        raise UsageError(f"--position and --q0 belong to 'explain ik', not 'explain {args.what}'")
    if args.what == "dynamics":
        qd = option_joint_values(robot, args.qd, args.deg, "--qd", np.zeros(robot.n), derivative=1)
        qdd = option_joint_values(robot, args.qdd, args.deg, "--qdd", np.zeros(robot.n), derivative=2)
        g = None if args.gravity is None else finite_numbers(args.gravity, "--gravity")
        return explain(robot, "dynamics", q=q, qd=qd, qdd=qdd, gravity=g, deg=deg)
    return explain(robot, args.what, q=q, params=args.params, deg=deg)


def document_data(doc: Document) -> dict[str, Any]:
    """The document as plain data (for --json)."""
    return jsonable({"title": doc.title, "summary": doc.summary,
                     "sections": [dataclasses.asdict(s) for s in doc.sections],
                     "notation": [dataclasses.asdict(m) for m in doc.notation]})


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    _check_out(args)  # before any work
    doc = build_document(args)
    if args.json:
        text = dumps(jsonable(with_warnings(document_data(doc)))) + "\n"
    else:
        from ..explain import render

        fmt = _format(args)
        text = render(doc, fmt, **({"math": args.math} if fmt == "html" else {}))
    if args.out:
        path = atomic.write_text(args.out, text)
        fmt, size = "json" if args.json else _format(args), len(text.encode("utf-8"))
        if args.json:  # stdout stays JSON for scripts: what was written where
            out.write(dumps({"path": str(path), "format": fmt, "bytes": size}) + "\n")
        else:
            out.write(f"wrote {path} ({fmt}, {size} bytes)\n")
    else:
        out.write(text)
    return 0


def add_parser(sub: Any) -> None:
    """The subparser of explain."""
    p = sub.add_parser("explain", help="the mathematics of fk, jacobian, ik or dynamics, step by step",
                       description="Explain forward kinematics, the Jacobian, inverse kinematics or "
                                   "inverse dynamics step by step, with formulas and numbers: as text, "
                                   "Markdown, a standalone HTML page (renders offline) or LaTeX.")
    add_robot(p)
    p.add_argument("what", choices=WHAT, help="what to explain")
    p.add_argument("--q", nargs="+", metavar="Q",
                   help="joint values (fk, jacobian, dynamics; default: home): rad, or deg with --deg, "
                        "for revolute joints, the length unit for prismatic ones")
    p.add_argument("--qd", nargs="+", metavar="QD", help="dynamics: joint rates (default 0), per s")
    p.add_argument("--qdd", nargs="+", metavar="QDD", help="dynamics: joint accelerations (default 0), per s²")
    p.add_argument("--gravity", nargs=3, metavar=("GX", "GY", "GZ"),
                   help="dynamics: gravity in base coordinates, m/s² (default 0 0 -9.80665)")
    add_target_args(p, note="ik: ")
    p.add_argument("--q0", nargs="+", metavar="Q", help="ik: initial guess (default: home)")
    p.add_argument("--method", choices=cli_ik.IK_METHODS, default="lm",
                   help="ik: lm (default), gn, newton, transpose, dls, or analytic (the closed-form steps)")
    p.add_argument("--limits", choices=("clip", "wrap", "ignore"), default="clip",
                   help="ik: joint limits: clip every step (default), wrap at the end, or ignore")
    p.add_argument("--tol", metavar="TOL", help="ik: position tolerance in the length unit")
    p.add_argument("--restarts", type=int, metavar="N", help="ik: random restarts if the first attempt fails")
    p.add_argument("--params", choices=("symbolic", "numeric"), default="symbolic",
                   help="fk, jacobian: write the table's lengths as symbols (a_2, d_1; default) or numbers")
    p.add_argument("--deg", action="store_true", help="angle inputs are in degrees, and angles are shown in degrees")
    p.add_argument("--format", choices=FORMATS, help="text (default), md, html or tex; else from --out's suffix")
    p.add_argument("--math", choices=("auto", "mathjax", "mathml"), default="auto",
                   help="html: MathJax embedded in the page (default when installed) or MathML")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of printing")
    p.set_defaults(func=cmd_explain)
