"""The `kinematica` command: robots, show, fk, jacobian, ik, dynamics, simulate, traj, plot,
animate, workspace, learn, explain, scene, plan, export, demo, serve, braccio, so101, docs.

Every subcommand prints readable tables by default and JSON with `--json`. JSON states its units:
joint values as `q` (rad for revolute joints, the robot's length unit for prismatic ones) and
`q_deg` (degrees for revolute joints), positions in `length_unit`, torques in N·m (revolute) and
N (prismatic). Bad input prints one line, ``kinematica: error: <message>``, on stderr and exits
with code 2; good input that cannot be carried out (an integrator that gives up, trajectory files
withheld because a point is unsolved, an output that cannot be written) exits with 1; Ctrl+C
stops any command with one line and code 130. Long work (simulate) reports its progress on stderr.

One module per group of subcommands, each with its `add_parser(s)` and `cmd_*` functions:
kinematics.py (robots, show, fk, jacobian), ik.py, dynamics.py (dynamics, simulate), traj.py,
scene.py (scene check, scene show), plan.py (a collision-free path in a scene), export.py (a glTF or URDF digital twin),
plot.py (plot, animate: figures; Matplotlib is imported only when they run), workspace.py (maps;
Dask is imported only when it runs), learn.py
(learn ik|dynamics|explain|report: ANFIS models, and ik's --model/--seed-model), demo.py,
serve.py (the browser simulator; NiceGUI is imported only when it runs), braccio.py (the
physical Braccio: ports, emulator, firmware, home, move, play), so101.py (the SO-101 on its
Feetech bus: ports, emulator, state, home, move, play, calibrate, record), docs.py (serves the built
documentation site);
common.py holds argument parsing and JSON, text*.py the table views.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

import kinematica as km

from .common import (
    JSON_HELP,
    Failure,
    Parser,
    UsageError,
    show_warnings,
    start_warnings,
)

EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl+C

__all__ = ["main", "build_parser", "UsageError", "Failure", "EXIT_USAGE", "EXIT_FAILURE", "EXIT_INTERRUPTED"]


# The subcommands, by the module that adds them (in the order `--help` lists them). A call
# imports only its command's module: the others bring SciPy, pyserial, Matplotlib … that it
# does not need (issue 12: a CLI call ≤ 0.3 s).
COMMANDS = {"kinematics": ("robots", "show", "fk", "jacobian"), "ik": ("ik",), "dynamics": ("dynamics", "simulate"),
            "traj": ("traj",), "plot": ("plot", "animate"), "workspace": ("workspace",), "explain": ("explain",),
            "learn": ("learn",), "scene": ("scene",), "plan": ("plan",), "export": ("export",), "demo": ("demo",),
            "serve": ("serve",), "braccio": ("braccio",), "so101": ("so101",), "docs": ("docs",)}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `command` (a subcommand's name) only the module that
    parses it; an unknown `command` builds the whole."""
    parser = Parser(prog="kinematica", description="Kinematics and dynamics of serial robot "
                                                   "manipulators.")
    parser.add_argument("--version", action="version", version=f"kinematica {km.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = [m for m, names in COMMANDS.items() if command in names] or list(COMMANDS)
    for name in chosen:
        module = importlib.import_module(f".{name}", __name__)
        (getattr(module, "add_parsers", None) or module.add_parser)(sub)
    for p in sub.choices.values():
        if p.prog.split()[-1] != "learn":  # learn's subcommands take --json themselves
            p.add_argument("--json", action="store_true", help=JSON_HELP)
    return parser


def _one_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return " ".join(line.strip() for line in text.splitlines())


def _tolerant(stream: TextIO) -> TextIO:
    """A stream that cannot encode θ or ω (an ASCII terminal) writes '?' instead of failing."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    reconfigure = getattr(stream, "reconfigure", None)  # a TextIOWrapper's; TextIO does not promise it
    if encoding != "utf8" and reconfigure is not None:
        reconfigure(errors="replace")
    return stream


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 on success, 2 on bad input, 1 when good
    input could not be carried out, 130 when stopped by Ctrl+C)."""
    _tolerant(sys.stderr)
    start_warnings()
    command = "kinematica:"
    try:
        if sys.stdout is None:  # started with stdout closed (`kinematica robots >&-`)
            raise Failure("standard output is closed: nothing to write the answer to")
        out = _tolerant(sys.stdout)
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        command = f"kinematica: {args.command}"
        code = args.func(args, out)
        show_warnings()  # those of a command that writes its answer without `emit` (explain)
        out.flush()  # a full disk or a closed pipe fails here, inside the handlers below
        return code
    except SystemExit as e:  # --help and --version
        return int(e.code or 0)
    except KeyboardInterrupt:  # Ctrl+C: the serve banner promises it stops; so does a long simulate
        newline = "\n" if sys.stderr.isatty() else ""  # after the terminal's echoed ^C
        sys.stderr.write(f"{newline}{command} stopped (Ctrl+C)\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (`kinematica robots | head -1`): nothing more to say
        _drop_stdout()
        return 0
    except (UsageError, Failure, ValueError, OSError, km.SetupError) as e:  # RobotFileError, DynamicsError,
        if isinstance(e, Failure):  # good input that could not be carried out: say what was odd in it
            show_warnings()
        sys.stderr.write(f"kinematica: error: {_one_line(e)}\n")  # TrajectoryError are ValueErrors
        return EXIT_FAILURE if isinstance(e, (Failure, km.SetupError)) else EXIT_USAGE  # SetupError: a missing extra


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of what is left in its
    buffer does not fail a second time on the closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # no file descriptor (captured in tests)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
