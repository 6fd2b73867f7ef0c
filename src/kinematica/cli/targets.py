"""The IK target on the command line: one argument group (`add_target_args`) for every command
that takes a target (ik, explain ik, plot solutions / convergence, learn explain), and the
`km.Target` it describes (`ik_target`).

--position X Y Z with at most one orientation form (--rpy, --euler-zyz, --quat, --approach,
--pitch); --position X Y is a planar target for a planar robot, with --phi its heading.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import kinematica as km
from kinematica.kinematics import is_planar

from .common import UsageError, finite_numbers

ORIENTATION_FLAGS = ("rpy", "euler_zyz", "quat", "approach", "pitch", "phi")
TARGET_OPTIONS = ("position", *ORIENTATION_FLAGS)  # the dests add_target_args sets
ANGLE_FLAGS = ("rpy", "euler_zyz", "pitch", "phi")  # converted by --deg


def add_target_args(p: argparse.ArgumentParser, required: bool = False, note: str = "") -> None:
    """--position and one exclusive group of orientation forms; `note` starts each help text
    (e.g. "ik: " where the command explains more than IK)."""
    p.add_argument("--position", nargs="+", required=required, metavar="X",
                   help=f"{note}target position X Y Z in the robot's length unit; X Y (two values) is a "
                        "planar target for a planar robot")
    o = p.add_mutually_exclusive_group()
    o.add_argument("--rpy", nargs=3, metavar=("R", "P", "Y"),
                   help=f"{note}tool orientation: roll, pitch, yaw about fixed x, y, z (rad, or deg with --deg)")
    o.add_argument("--euler-zyz", nargs=3, metavar=("A", "B", "C"),
                   help=f"{note}tool orientation: ZYZ Euler angles (rad, or deg with --deg)")
    o.add_argument("--quat", nargs=4, metavar=("W", "X", "Y", "Z"),
                   help=f"{note}tool orientation: unit quaternion, scalar first")
    o.add_argument("--approach", nargs=3, metavar=("AX", "AY", "AZ"),
                   help=f"{note}the tool z axis (approach direction); the roll about it is free (5-DOF arms)")
    o.add_argument("--pitch", metavar="PHI",
                   help=f"{note}the tool z axis at pitch PHI above the horizontal, in the vertical plane "
                        "through the target (paper 003; rad, or deg with --deg)")
    o.add_argument("--phi", metavar="PHI",
                   help=f"{note}planar target: heading of the last link (rad, or deg with --deg)")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def ik_target(robot: km.Robot, args: argparse.Namespace) -> tuple[km.Target, dict[str, Any]]:
    """The Target the options of `add_target_args` describe, and the same target as plain data
    (angles in rad)."""
    pos = finite_numbers(args.position, "--position")
    given = [f for f in ORIENTATION_FLAGS if getattr(args, f) is not None]
    form = given[0] if given else None  # at most one: the parser's exclusive group sees to it
    value = None
    if form is not None:
        raw = getattr(args, form)
        value = finite_numbers(raw if isinstance(raw, list) else [raw], _flag(form))
        if form in ANGLE_FLAGS and args.deg:
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
