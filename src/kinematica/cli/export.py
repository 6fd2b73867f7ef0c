"""`kinematica export ROBOT --out FILE [--trajectory FILE]`: a digital twin for other tools — a
glTF 2.0 scene (.glb: the frames as nodes, the robot's visual shapes and meshes, the trajectory
as an animation) or a URDF (.urdf, its mesh files copied into FILE-STEM_meshes/ beside it)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any, TextIO

import kinematica as km

from .. import atomic
from ..model.urdf_visual import mesh_files
from .common import Failure, UsageError, add_robot, emit, robot_of

FORMATS = {".glb": "gltf", ".urdf": "urdf"}


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    path = Path(args.out)
    fmt = args.format or FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise UsageError(f"--out: cannot tell the format of {path.name!r}: use .glb or .urdf, or give --format")
    if path.suffix.lower() != {"gltf": ".glb", "urdf": ".urdf"}[fmt]:
        raise UsageError(f"--out: a {fmt} file is written as {'.glb' if fmt == 'gltf' else '.urdf'}, not {path.suffix!r}")
    robot = robot_of(args)
    tr = None
    if args.trajectory is not None:
        if fmt != "gltf":
            raise UsageError("--trajectory becomes a glTF animation; a URDF holds no motion")
        from .dynamics import check_trajectory

        tr = km.trajectory.load(args.trajectory)
        check_trajectory(robot, tr, args.trajectory)
    folder = f"{path.stem}_meshes"  # a URDF's mesh files, copied beside it
    data = km.export.to_glb(robot, tr) if fmt == "gltf" else km.to_urdf(robot, mesh_folder=folder).encode("utf-8")
    copies = mesh_files(robot.visuals, folder) if fmt == "urdf" else {}
    _write(path, data, path.parent / folder, copies)
    summary = {"robot": robot.name, "format": fmt, "path": str(path), "bytes": len(data),
               "visuals": len(robot.visuals), "meshes": sorted(str(path.parent / n) for n in copies.values()),
               "animation": None if tr is None else {"samples": len(tr.t), "duration": tr.duration}}
    return emit(args, summary, lambda d: f"wrote {d['path']} ({d['format']}, {d['bytes']} bytes, "
                f"{d['visuals']} visual shape{'s' * (d['visuals'] != 1)}"
                + (f"; {len(d['meshes'])} mesh files copied to {Path(d['meshes'][0]).parent}" if d["meshes"] else "")
                + (f"; animation of {d['animation']['samples']} samples, {d['animation']['duration']:g} s"
                   if d["animation"] else "") + ")\n", out)


def _write(path: Path, data: bytes, meshes: Path, copies: dict[str, str]) -> None:
    """The file and its mesh folder whole, or neither: the meshes first (a URDF never names a
    missing one), removed again when they were new and the file then fails."""
    new = not meshes.exists()
    try:
        atomic.check(path)
        if copies:
            with atomic.folder(meshes) as tmp:
                for source, name in copies.items():
                    shutil.copyfile(source, tmp / Path(name).name)
        atomic.write_bytes(path, data)
    except OSError as e:
        if copies and new:
            shutil.rmtree(meshes, ignore_errors=True)
        why = str(e) if isinstance(e, km.WriteError) else f"cannot write {e.filename or path}: {e.strerror or e}"
        raise Failure(why) from None


def add_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="a digital twin for other tools: glTF 2.0 (.glb, with the motion) or URDF",
                       description="Write the robot as a glTF 2.0 scene (.glb) — its frames as nodes, its "
                                   "visual shapes and meshes, a trajectory file as an animation that Blender, three.js, "
                                   "Godot and Unity play — or as a URDF (.urdf) with its mesh files copied "
                                   "beside it (for Unity's URDF importer).")
    add_robot(p)
    p.add_argument("--out", metavar="FILE", required=True, help="the file to write: .glb or .urdf")
    p.add_argument("--format", choices=("gltf", "urdf"), help="default: from the --out suffix")
    p.add_argument("--trajectory", metavar="FILE", help="glTF: a trajectory file (.csv/.json) played as its animation")
    p.set_defaults(func=cmd_export)
