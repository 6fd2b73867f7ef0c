"""`kinematica so101 offsets --port URL --points FILE --out FILE`: kinematic calibration of the
SO-101's joint offsets. Torque off, the person puts the tool point on each known point in turn
and presses Enter (stdin); the joints read there and the points give the offsets
(`km.identify_offsets`), written into the calibration file as each joint's zero. A fit the
poses cannot support writes nothing and exits 1, in words."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ..hardware import So101, save_so101_calibration
from ..hardware.so101_calibration import NAMES
from ..kinematics import identify_offsets
from ..textfmt import table
from .common import Failure, UsageError, emit


def read_points(path: str) -> np.ndarray:
    """The known points (K, 3): one `x, y, z` line each (CSV; `#` comments), robot length unit."""
    try:
        points = np.loadtxt(Path(path), delimiter=",", ndmin=2, comments="#")
    except (OSError, ValueError) as e:
        raise UsageError(f"--points {path}: {e}") from None
    if points.shape[1:] != (3,) or len(points) < 2 or not np.all(np.isfinite(points)):
        raise UsageError(f"--points {path}: expected at least 2 lines of three finite numbers x, y, z, got an array "
                         f"of shape {points.shape}")
    return points


def gather(arm: So101, points: np.ndarray, stdin: TextIO, prompt: TextIO) -> np.ndarray:
    """The joints read (K, 5) with the tool point put on each point by hand, torque off."""
    arm.torque(False)
    unit = arm.robot.length_unit
    read = []
    for k, p in enumerate(points):
        prompt.write(f"Point {k + 1} of {len(points)}: put the tool point on ({p[0]:g}, {p[1]:g}, {p[2]:g}) {unit} "
                     "and press Enter\n")
        prompt.flush()
        if not stdin.readline():
            raise Failure(f"the input ended after {k} of {len(points)} points: nothing written")
        read.append(arm.state().q)
    return np.array(read)


def run_offsets(args: argparse.Namespace, out: TextIO, arm: So101, points: np.ndarray) -> int:
    """On a connected arm (`kinematica so101` opened it): the fit's table, or exit 1."""
    q = gather(arm, points, sys.stdin, sys.stderr)
    fit = identify_offsets(arm.robot, q, points)
    data: dict[str, Any] = {"ok": fit.success, "reason": fit.reason, "points": len(points),
                            "residual_rms": fit.residual_rms, "residual_max": fit.residual_max,
                            "condition": fit.condition, "length_unit": arm.robot.length_unit,
                            "joints": [{"name": n, "offset_deg": float(np.degrees(d)), "std_deg": float(np.degrees(s))}
                                       for n, d, s in zip(NAMES[:5], fit.offsets, fit.std, strict=True)],  # the gripper: no offset
                            "q_read": q.tolist()}
    if fit.success:
        data["path"] = str(save_so101_calibration(arm.calibration.with_offsets(fit.offsets), args.out))
    emit(args, data, _text, out)
    if not fit.success:
        sys.stderr.write(f"kinematica: error: {fit.reason}; nothing written\n")
    return 0 if fit.success else 1


def _text(d: dict[str, Any]) -> str:
    rows = [[j["name"], f"{j['offset_deg']:+.3f}", "—" if np.isnan(j["std_deg"]) else f"{j['std_deg']:.3f}"]
            for j in d["joints"]]
    lines = [d["reason"], table(["joint", "offset (deg)", "std (deg)"], rows, align="lrr")]
    if "path" in d:
        lines.append(f"Wrote {d['path']}: the joints now read their offsets added")
    return "\n".join(lines)
