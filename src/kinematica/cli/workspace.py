"""`kinematica workspace`: envelope, reachability and dexterity maps written to a file.

workspace ROBOT [--kind envelope|reach|dexterity] [--samples N] [--voxel SIZE]
          [--orientations K] [--rolls R] [--restarts N] [--chunk C] [--scheduler ADDRESS]
          [--seed S] --out FILE (.npz, .csv or .ply) [--json]

The output path is checked before the work starts; finished chunks are kept in FILE.parts/
while the map is made, so a run stopped by Ctrl+C (or a lost machine) continues where it
stopped when the same command is run again; the folder is removed once FILE is written.
FILE.parts/ belongs to FILE: a run that fails with an error removes the folder it made (the
same command would meet the same error), and a run with other options finding the parts of
another job there replaces them (it is about to replace FILE too) and says so on stderr.
Dask is imported only when this command runs.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..bounds import ENVELOPE, ORIENTATIONS, RESTARTS, VOXELS, count
from .common import Failure, UsageError, add_robot, emit, robot_of

KINDS = ("envelope", "reach", "dexterity")
SPARSE = 0.05  # above this share of one-sample voxels, the envelope has surely missed some


class BlockProgress:
    """A `progress(done, total)` callback: quiet for a second, then a line on stderr every 2 s."""

    def __init__(self, stream: TextIO, what: str, after: float = 1.0, every: float = 2.0) -> None:
        self.stream, self.what, self.every = stream, what, every
        self.next = time.monotonic() + after

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + self.every
        self.stream.write(f"kinematica: {self.what}: {done} of {total} blocks (Ctrl+C stops; "
                          "the same command resumes)\n")
        self.stream.flush()


def _counts(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, int | None] = {"samples": count(args.samples, "--samples", ENVELOPE, error=UsageError),
                                 "seed": count(args.seed, "--seed", ENVELOPE, minimum=0, error=UsageError)}
    if args.kind == "envelope":
        kw["chunk"] = count(args.chunk if args.chunk is not None else 65_536, "--chunk", ENVELOPE, error=UsageError)
        if args.orientations is not None or args.rolls is not None or args.restarts is not None:
            raise UsageError("--orientations, --rolls and --restarts go with --kind reach or dexterity")
        return kw
    kw["chunk"] = count(args.chunk if args.chunk is not None else 256, "--chunk", VOXELS, error=UsageError)
    kw["orientations"] = count(args.orientations or 20, "--orientations", ORIENTATIONS, error=UsageError)
    kw["rolls"] = count(args.rolls or 4, "--rolls", ORIENTATIONS, error=UsageError)
    kw["restarts"] = None if args.restarts is None else count(args.restarts, "--restarts", RESTARTS, minimum=0,
                                                              error=UsageError)
    return kw


def _text(d: dict[str, Any]) -> str:
    unit = d["length_unit"]
    lines = [f"{d['robot']}: {d['kind']} map, {d['voxels']} occupied voxels of {d['grid']['voxel']:g} {unit} "
             f"({d['samples']:,} samples, seed {d['seed']})",
             f"  volume            {d['volume']:.6g} ± {d['volume_uncertainty']:.3g} {d['volume_unit']}"]
    if d["kind"] != "envelope":
        lines += [f"  orientations      {d['orientations']} ({d['orientation_set']})",
                  f"  reachable voxels  {d['reachable_voxels']} (mean share {d['mean_share']:.3f})",
                  f"  IK solves         {d['solves']:,} ({d['solves_per_s']:,.0f} per s)"]
    lines += [f"  time              {d['time_s']:.2f} s", f"  written           {d['written']}"]
    if d.get("note"):
        lines.append(f"  note: {d['note']}")
    sparse = d["voxels_with_one_sample"] / max(d["voxels"], 1)
    if sparse > SPARSE:
        lines.append(f"  note: {sparse:.0%} of the voxels hold a single sample: the envelope is undersampled "
                     "(voxels it missed are not in the map); raise --samples")
    return "\n".join(lines)


def cmd_workspace(args: argparse.Namespace, out: TextIO) -> int:
    from ..workspace import WorkspaceError, dexterity, envelope, reachability
    from ..workspace import io as map_files

    robot = robot_of(args)
    kw = _counts(args)
    if Path(args.out).suffix.lower() not in map_files.FORMATS:
        raise UsageError(f"--out: cannot tell the map format of {Path(args.out).name!r}: use {', '.join(map_files.FORMATS)}")
    try:
        path = map_files.check_path(args.out)
    except WorkspaceError as e:  # good input, but nowhere to put the answer: checked before the work
        raise Failure(str(e)) from None
    parts = path.with_name(path.name + ".parts")
    make = {"envelope": envelope, "reach": reachability, "dexterity": dexterity}[args.kind]
    had_parts = [parts.exists()]
    try:
        try:
            m = _make(make, robot, args, kw, parts, had_parts)
        except ImportError as e:  # Dask missing: the message names the extra to install
            raise Failure(str(e)) from None
        try:
            map_files.save(m, path)
        except WorkspaceError as e:  # good input, but the file could not be written
            raise Failure(str(e)) from None
    except Exception:
        _drop(parts, had_parts)
        raise
    shutil.rmtree(parts, ignore_errors=True)
    return emit(args, {**map_files.meta(m), "written": str(path), "format": path.suffix.lower()[1:].upper()}, _text, out)


def _make(make: Any, robot: Any, args: argparse.Namespace, kw: dict[str, Any], parts: Path,
          had_parts: list[bool]) -> Any:
    """The map, its finished chunks kept in `parts`; the parts of another job there are replaced
    (`had_parts[0]` turns False: what is there now is this run's)."""
    import warnings

    from ..workspace import OtherJobError, WorkspaceWarning

    def run() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WorkspaceWarning)  # the map's note is in the report (text and JSON)
            return make(robot, voxel=args.voxel, scheduler=args.scheduler, resume=str(parts),
                        progress=BlockProgress(sys.stderr, f"workspace {robot.name}"), **kw)
    try:
        return run()
    except OtherJobError:
        shutil.rmtree(parts, ignore_errors=True)
        had_parts[0] = False
        sys.stderr.write(f"kinematica: {parts} held the partial results of another job (other options); "
                         "they are replaced by this one's\n")
        return run()


def _drop(parts: Path, had_parts: list[bool]) -> None:
    """After an error: remove FILE.parts if this run made it (chunks of an earlier, interrupted run of
    the same job stay for the command that resumes it). Ctrl+C is not an error: it keeps them."""
    if not had_parts[0]:
        shutil.rmtree(parts, ignore_errors=True)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("workspace", help="workspace envelope, reachability or dexterity map to a file",
                       description="Maps of where the arm reaches: the envelope (sampled joint space, volume ± "
                                   "uncertainty), the share of a uniform set of tool orientations batched IK "
                                   "reaches per voxel (reach), and manipulability and condition number per "
                                   "voxel (dexterity). Runs on threads here, or on a Dask cluster (--scheduler).")
    add_robot(p)
    p.add_argument("--kind", choices=KINDS, default="envelope", help=" | ".join(KINDS) + " (default envelope)")
    p.add_argument("--out", metavar="FILE", required=True, help="map file: .npz (everything), .csv or .ply "
                                                                 "(voxel centres and values)")
    p.add_argument("--samples", type=int, default=200_000, metavar="N",
                   help="joint-space samples for the envelope (default 200000)")
    p.add_argument("--voxel", type=float, default=None, metavar="SIZE",
                   help="voxel edge in the robot's length unit (default: its reach / 50)")
    p.add_argument("--orientations", type=int, default=None, metavar="K",
                   help="approach directions on a Fibonacci sphere (headings for a planar arm, pitches in the "
                        "radial plane for a 5-joint yaw-base arm; default 20)")
    p.add_argument("--rolls", type=int, default=None, metavar="R", help="roll steps per direction, 6-DOF (default 4)")
    p.add_argument("--restarts", type=int, default=None, metavar="N",
                   help="random IK restarts per unsolved target (default 0 where a closed form fits the arm: "
                        "it tries every branch; else 8)")
    p.add_argument("--chunk", type=int, default=None, metavar="C",
                   help="samples (envelope) or voxels (reach, dexterity) per task; the map does not depend on it")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="a Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: threads in this process)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="job seed (default 0)")
    p.set_defaults(func=cmd_workspace)
