"""Workspace maps as files: NPZ (everything, so a map says how it was made), CSV and PLY point
clouds of the occupied voxels' centres with their values. Every file is written to a temporary
name in its folder and renamed when complete: a failed write leaves nothing half-written.

NPZ arrays: `voxels` (flat indices into the grid), `points` (their centres), `samples_per_voxel`,
for reach/dexterity maps `reached`, `share`, `witness_q`, `witness_orientation`, `orientations`
(the set tried) and the dexterity measures; `meta` is JSON text: the kind, the grid (origin,
voxel, shape), the parameters, the seeding rule, the volume ± uncertainty, the time, the
robot's name and length unit; `robot` is the robot file (YAML) the map was made from.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .envelope import SAMPLE_BLOCK, Envelope
from .grid import WorkspaceError
from .reach import BLOCK_TARGETS, ReachMap
from .run import write_whole

__all__ = ["FORMATS", "SEEDING", "meta", "columns", "check_path", "save", "ARRAYS", "META", "read"]

FORMATS = (".npz", ".csv", ".ply")
SEEDING = ("block b of stream s (0 envelope, 1 reachability) draws from "
           "numpy.random.SeedSequence([seed, s, b]); envelope blocks hold {sample} configurations, "
           "reachability blocks max(1, {targets} // orientations) voxels")


def _envelope(m: Envelope | ReachMap) -> Envelope:
    return m.envelope if isinstance(m, ReachMap) else m


def meta(m: Envelope | ReachMap) -> dict[str, Any]:
    """What the map is and how it was made (plain JSON data)."""
    env = _envelope(m)
    d: dict[str, Any] = {
        "kind": m.kind if isinstance(m, ReachMap) else "envelope", "robot": env.robot,
        "length_unit": env.length_unit,
        "grid": env.grid.to_dict(), "samples": env.samples, "seed": env.seed,
        "seeding": SEEDING.format(sample=SAMPLE_BLOCK, targets=BLOCK_TARGETS),
        "voxels": int(env.voxels.size), "voxels_with_one_sample": int(np.count_nonzero(env.samples_per_voxel == 1)),
        "volume": env.volume, "volume_uncertainty": env.volume_uncertainty,
        "volume_unit": f"{env.length_unit}^{env.grid.dim}",
        "time_s": m.elapsed,
    }
    if isinstance(m, ReachMap):
        d.update(m.summary(), orientation_set=m.orientations.describe(), orientation_kind=m.orientations.kind,
                 directions=m.orientations.directions, rolls=m.orientations.rolls, restarts=m.restarts)
    return d


def columns(m: Envelope | ReachMap) -> dict[str, np.ndarray]:
    """Per occupied voxel: x, y, z of its centre and its values (the point cloud's columns)."""
    env = _envelope(m)
    p = env.points()
    cols = {"x": p[:, 0], "y": p[:, 1], "z": p[:, 2], "samples": env.samples_per_voxel}
    if isinstance(m, ReachMap):
        cols.update(reached=m.reached, share=m.share)
        if m.measures:
            cols.update({k: v.astype(float) if v.dtype == bool else v for k, v in m.measures.items()})
    return cols


def _npz(m: Envelope | ReachMap) -> bytes:
    env = _envelope(m)
    arrays: dict[str, Any] = {"voxels": env.voxels, "points": env.points(), "samples_per_voxel": env.samples_per_voxel,
                              "meta": np.array(json.dumps(meta(m))), "robot": np.array(env.description)}
    if isinstance(m, ReachMap):
        arrays.update(reached=m.reached, share=m.share, witness_q=m.witness_q,
                      witness_orientation=m.witness_orientation,
                      orientations=np.zeros(0) if m.orientations.values is None else m.orientations.values,
                      **(m.measures or {}))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def _csv(m: Envelope | ReachMap) -> bytes:
    cols = columns(m)
    lines = [",".join(cols)]
    data = np.column_stack([np.asarray(v, dtype=float) for v in cols.values()])
    lines += [",".join(f"{x:.17g}" for x in row) for row in data]
    return ("\n".join(lines) + "\n").encode()


def _ply(m: Envelope | ReachMap) -> bytes:
    cols = columns(m)
    n = len(cols["x"])
    head = ["ply", "format ascii 1.0", f"comment kinematica workspace map of {_envelope(m).robot}",
            f"element vertex {n}"] + [f"property double {k}" for k in cols] + ["end_header"]
    data = np.column_stack([np.asarray(v, dtype=float) for v in cols.values()])
    body = [" ".join(f"{x:.17g}" for x in row) for row in data]
    return ("\n".join(head + body) + "\n").encode()


def check_path(path: str | os.PathLike) -> Path:
    """The output path, if its format is known and its folder exists and takes a file; else a
    WorkspaceError naming what is wrong (checked before a long run, not after)."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise WorkspaceError(f"{p}: unknown map format {p.suffix or '(none)'!r}: use {', '.join(FORMATS)}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise WorkspaceError(f"cannot write {p}: folder {folder} does not exist")
    if p.is_dir():
        raise WorkspaceError(f"cannot write {p}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise WorkspaceError(f"cannot write {p}: folder {folder} is not writable")
    return p


def save(m: Envelope | ReachMap, path: str | os.PathLike) -> Path:
    """Write the map to `path` (.npz, .csv or .ply), whole or not at all."""
    p = check_path(path)
    data = {".npz": _npz, ".csv": _csv, ".ply": _ply}[p.suffix.lower()](m)
    write_whole(p, data)
    return p


ARRAYS = ("voxels", "points", "samples_per_voxel", "meta", "robot")
META = ("kind", "robot", "grid", "length_unit", "voxels")


def read(path: str | os.PathLike) -> dict[str, Any]:
    """The arrays of a map saved as NPZ, with `meta` parsed and `robot` as text; a file that is
    not such a map is a WorkspaceError saying so."""
    try:
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
        missing = [k for k in ARRAYS if k not in out]
        if missing:
            raise InputError(f"no {', '.join(missing)} in it: not a map from `kinematica workspace`")
        out["meta"], out["robot"] = json.loads(str(out["meta"])), str(out["robot"])
        if not isinstance(out["meta"], dict) or any(k not in out["meta"] for k in META):
            raise InputError("its meta data is incomplete: not a map from `kinematica workspace`")
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise WorkspaceError(f"cannot read the workspace map {path}: {e}") from None
    return out
