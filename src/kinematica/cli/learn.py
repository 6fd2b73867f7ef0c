"""`kinematica learn ik|dynamics|explain|report`: train an ANFIS model (paper 002) on a robot's own FK or
RNE, write it to a model file, and show how good it is; and the model options of `kinematica
ik` (--method anfis --model M, --seed-model M)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

import kinematica as km

from .. import atomic
from ..bounds import EPOCHS, RULES, TRAINING, count
from . import text_learn
from .common import JSON_HELP, Failure, UsageError, add_robot, emit, robot_of
from .progress import Progress
from .targets import add_target_args, ik_target

if TYPE_CHECKING:
    from ..learn import IKModel


def read_model(path: str, flag: str) -> IKModel:
    """The IK model in `path` (a ModelFileError, a ValueError, names it; a UsageError if it is
    another kind of model)."""
    from ..learn import IKModel, load_model

    model = load_model(path)
    if not isinstance(model, IKModel):
        raise UsageError(f"{flag} {path}: a {model.kind} model; an ik model is needed here")
    return model


def _progress(what: str, epochs: int):
    line = Progress(sys.stderr, what, "epochs", epochs,
                    detail=lambda done, rmse: f"epoch {done:.0f} of {epochs}, training RMSE {rmse:.3g}")
    return lambda epoch, total, rmse: line(epoch, rmse)


def _writable(path: str) -> None:
    """--out refused before the training (minutes), not after."""
    try:
        atomic.check(path)
    except km.WriteError as e:
        raise UsageError(f"--out: {e}") from None


def _write(model, path: str) -> None:
    from ..learn import save_model

    try:
        save_model(model, path)
    except OSError as e:
        raise Failure(str(e) if isinstance(e, km.WriteError) else
                      f"the model could not be written to {path}: {e.strerror or e}") from None


def cmd_learn_ik(args: argparse.Namespace, out: TextIO) -> int:
    from ..learn import train_ik

    robot = robot_of(args)
    _writable(args.out)
    epochs = count(args.epochs, "--epochs", EPOCHS, error=UsageError)
    model = train_ik(robot, samples=count(args.samples, "--samples", TRAINING, error=UsageError),
                     rules=None if args.rules is None else count(args.rules, "--rules", RULES, error=UsageError),
                     epochs=epochs, branch_spec=args.branch, shape=args.shape, partition=args.partition,
                     seed=args.seed, warm_start=args.warm_start,
                     progress=_progress(f"training {robot.name} IK ({args.branch})", epochs))
    _write(model, args.out)
    data = {"model": args.out, **model.report}
    return emit(args, data, lambda d: text_learn.report_text(d, full=args.report), out)


def cmd_learn_dynamics(args: argparse.Namespace, out: TextIO) -> int:
    from ..learn import train_dynamics

    robot = robot_of(args)
    _writable(args.out)
    epochs = count(args.epochs, "--epochs", EPOCHS, error=UsageError)
    model = train_dynamics(robot, trajectories=count(args.trajectories, "--trajectories", TRAINING, minimum=3,
                                                     error=UsageError),
                           rules=None if args.rules is None else count(args.rules, "--rules", RULES, error=UsageError),
                           epochs=epochs,
                           seed=args.seed, shape=args.shape, structure=args.structure,
                           progress=_progress(f"training {robot.name} dynamics", epochs))
    _write(model, args.out)
    data = {"model": args.out, **model.report}
    return emit(args, data, lambda d: text_learn.report_text(d, full=args.report), out)


def cmd_learn_explain(args: argparse.Namespace, out: TextIO) -> int:
    from ..learn.explain import explain_answer

    model = read_model(args.model, "MODEL")
    t, target = ik_target(model.robot, args)
    top = count(args.top, "--top", RULES, error=UsageError)
    data = {"model": args.model, "robot": model.robot.name, "branch": model.branch.spec, "target": target,
            **explain_answer(model, t, top)}
    for j in data["joints"]:
        j.pop("all_rules")  # the strongest rules say it; every rule is in the Python API
    return emit(args, data, text_learn.explain_text, out)


def cmd_learn_report(args: argparse.Namespace, out: TextIO) -> int:
    from ..learn import load_model

    model = load_model(args.model)
    data = {"model": args.model, **model.report}
    return emit(args, data, lambda d: text_learn.report_text(d, full=True), out)


# --- parser ---------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    """The subparser of learn and its three subcommands."""
    p = sub.add_parser("learn", help="train an ANFIS model of a robot's IK or dynamics (paper 002)",
                       description="Learned models (ANFIS, paper 002): train one on the robot's own FK "
                                   "(one IK branch at a time) or RNE, write it to a model file, and "
                                   "report how good it is on targets it never saw.")
    s = p.add_subparsers(dest="learn_command", metavar="WHAT", required=True)
    ik = s.add_parser("ik", help="an IK model of one branch: target -> joint values (approximate)",
                      description="Train an IK model of one branch of ROBOT on its FK and evaluate it: "
                                  "the model alone, near limits and singular poses, unreachable "
                                  "targets, and as the warm start of LM.")
    add_robot(ik)
    ik.add_argument("--samples", type=int, default=10_000, metavar="N",
                    help="FK samples drawn in the branch (80 %% train, 10 %% validation, 10 %% test; default 10000)")
    ik.add_argument("--rules", type=int, default=None, metavar="R",
                    help="fuzzy rules: m^d is a grid of m memberships per input (default 125 = 5³ for "
                         "(x, y, φ), 81 = 3⁴ for position + pitch); other counts are clustered")
    ik.add_argument("--branch", default="elbow+", metavar="B",
                    help="elbow+ (default) or elbow-, optionally narrowed: 'elbow-,j1=-45..45' (degrees); for "
                         "a 6R arm one of its closed-form branches, e.g. 'shoulder front / elbow up / wrist flip'")
    ik.add_argument("--warm-start", type=int, default=200, metavar="N",
                    help="test targets the LM warm-start comparison solves (default 200; 0: none)")
    _common(ik, epochs=20)
    ik.add_argument("--partition", choices=("auto", "grid", "cluster"), default="auto",
                    help="rule layout: auto (grid when R = m^d), grid, or cluster (fuzzy c-means)")
    ik.set_defaults(func=cmd_learn_ik)
    dy = s.add_parser("dynamics", help="a dynamics model: (q, qd, qdd) -> joint torques",
                      description="Train a dynamics model of ROBOT on RNE along random trajectories and "
                                  "compare it with RNE on held-out trajectories.")
    add_robot(dy)
    dy.add_argument("--trajectories", type=int, default=100, metavar="N",
                    help="random trajectories of 100 points (80 %% train, 10 %% validation, 10 %% test; default 100)")
    dy.add_argument("--rules", type=int, default=None, metavar="R",
                    help="fuzzy c-means rules (default: as many as the data allows, at most 12)")
    dy.add_argument("--structure", choices=("physical", "plain"), default="physical",
                    help="physical (default): rules on the joints whose value changes the torques, consequents "
                         "quadratic in qd and bilinear in q, qdd; plain: rules on all of q, linear consequents")
    _common(dy, epochs=20)
    dy.set_defaults(func=cmd_learn_dynamics)
    ex = s.add_parser("explain", help="one IK model answer, layer by layer",
                      description="The layers of an IK model's answer to one target: membership degrees, "
                                  "firing strengths, normalised weights, rule outputs and their sum, per joint.")
    ex.add_argument("model", metavar="MODEL", help="an IK model file written by 'kinematica learn ik'")
    add_target_args(ex, required=True)
    ex.add_argument("--deg", action="store_true", help="angles in degrees")
    ex.add_argument("--top", type=int, default=5, metavar="K", help="the K strongest rules per joint (default 5)")
    ex.set_defaults(func=cmd_learn_explain)
    rp = s.add_parser("report", help="the training and evaluation report stored in a model file")
    rp.add_argument("model", metavar="MODEL", help="a model file written by 'kinematica learn'")
    rp.set_defaults(func=cmd_learn_report)
    for q in (ik, dy, ex, rp):
        q.add_argument("--json", action="store_true", help=JSON_HELP)


def _common(p: argparse.ArgumentParser, epochs: int) -> None:
    p.add_argument("--epochs", type=int, default=epochs, metavar="E",
                   help=f"at most E epochs of hybrid learning (default {epochs}; stops early when the "
                        "validation error stops falling)")
    p.add_argument("--shape", choices=("gauss", "bell"), default="gauss", help="membership functions (default gauss)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the samples (default 0)")
    p.add_argument("--out", required=True, metavar="MODEL", help="the model file to write (NPZ)")
    p.add_argument("--report", action="store_true", help="print the whole evaluation report, not the summary")


def model_options(args: argparse.Namespace, robot: km.Robot) -> tuple[Any, Any]:
    """(model for --method anfis, seed model) from `kinematica ik`'s --model / --seed-model."""
    if args.method == "anfis":
        if args.model is None:
            raise UsageError("--method anfis needs --model MODEL (a file from 'kinematica learn ik')")
        if args.seed_model is not None or args.q0 is not None or args.all:
            raise UsageError("--method anfis answers from the model alone: drop --seed-model, --q0 and --all")
        if args.restarts is not None:
            raise UsageError("--restarts is for the numeric methods, not --method anfis")
        return read_model(args.model, "--model"), None
    if args.model is not None:
        raise UsageError("--model is for --method anfis; to seed a numeric method use --seed-model")
    if args.seed_model is None:
        return None, None
    if args.q0 is not None:
        raise UsageError("give either --q0 or --seed-model, not both")
    return None, read_model(args.seed_model, "--seed-model")
