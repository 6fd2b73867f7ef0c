"""Trajectory files: CSV and JSON with their units stated, and paper 004's per-joint
"motion scenario" text files for external simulators (Universal Mechanism and the like).

CSV layout: a comment line `# kinematica trajectory: length_unit=mm angle_unit=deg`, then a header
of `name [unit]` columns — t [s]; q_<joint> [deg|rad|mm|m]; qd_<joint> [… /s]; qdd_<joint> [… /s²];
tau_<joint> [N·m|N] if present; x y z [length] and qw qx qy qz (the tool orientation as a unit
quaternion) if poses are present — then one row per sample.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import numpy as np

from .. import atomic
from ..errors import InputError
from ..keywords import strict
from .value import Trajectory, TrajectoryError

__all__ = ["FORMAT", "to_csv", "from_csv", "to_json", "from_json", "save", "load", "save_scenarios"]

FORMAT = "kinematica-trajectory"
_HEAD = re.compile(r"^(?P<name>[^\[]+?)\s*\[(?P<unit>[^\]]*)\]$")


def _joint_units(tr: Trajectory, degrees: bool) -> list[str]:
    return ["deg" if (r and degrees) else ("rad" if r else tr.length_unit) for r in tr.revolute]


def _scale(tr: Trajectory, degrees: bool) -> np.ndarray:
    return np.where(tr.revolute & degrees, 180.0 / np.pi, 1.0)


def _columns(tr: Trajectory, degrees: bool) -> tuple[list[str], np.ndarray]:
    units = _joint_units(tr, degrees)
    k = _scale(tr, degrees)
    heads = ["t [s]"]
    blocks = [tr.t[:, None]]
    for key, suffix, data in (("q", "", tr.q), ("qd", "/s", tr.qd), ("qdd", "/s²", tr.qdd)):
        heads += [f"{key}_{nm} [{u}{suffix}]" for nm, u in zip(tr.joint_names, units, strict=True)]
        blocks.append(data * k)
    if tr.tau is not None:
        heads += [f"tau_{nm} [{'N·m' if r else 'N'}]" for nm, r in zip(tr.joint_names, tr.revolute, strict=True)]
        blocks.append(tr.tau)
    if tr.poses is not None:
        heads += [f"{a} [{tr.length_unit}]" for a in "xyz"] + [f"{a} [1]" for a in ("qw", "qx", "qy", "qz")]
        from scipy.spatial.transform import Rotation

        quat = Rotation.from_matrix(tr.poses[:, :3, :3]).as_quat(scalar_first=True)
        blocks += [tr.poses[:, :3, 3], quat]
    return heads, np.hstack(blocks)


def to_csv(tr: Trajectory, degrees: bool = False) -> str:
    """CSV text of a trajectory; angles in degrees when asked (the header says which)."""
    heads, data = _columns(tr, degrees)
    out = io.StringIO()
    out.write(f"# {FORMAT}: length_unit={tr.length_unit} angle_unit={'deg' if degrees else 'rad'}\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(heads)
    w.writerows([[repr(float(x)) for x in row] for row in data])
    return out.getvalue()


def from_csv(text: str, where: str = "<csv>") -> Trajectory:
    """A trajectory from CSV text written by `to_csv` (or by hand in the same layout)."""
    numbered = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.startswith("#")]
    lines = [ln for _, ln in numbered]
    if len(lines) < 2:
        raise TrajectoryError(f"{where}: needs a header and at least one row")
    rows = list(csv.reader(lines))
    matched = [_HEAD.match(h.strip()) for h in rows[0]]
    heads = [h for h in matched if h is not None]
    if len(heads) < len(matched):
        bad = rows[0][[h is None for h in matched].index(True)]
        raise TrajectoryError(f"{where}: column {bad!r} has no [unit]")
    try:
        data = np.array([[float(x) for x in r] for r in rows[1:]])
    except ValueError as e:
        raise TrajectoryError(f"{where}: {e}") from None
    if data.ndim != 2 or data.shape[1] != len(heads):
        raise TrajectoryError(f"{where}: every row needs {len(heads)} values")
    bad = np.argwhere(~np.isfinite(data))
    if bad.size:  # float() reads "nan" and "inf": say where, before anything is computed from them
        r, c = bad[0]
        raise TrajectoryError(f"{where}: line {numbered[r + 1][0]} (sample {r + 1}): {rows[0][c].strip()} is "
                              f"{rows[r + 1][c].strip()}: expected a finite number")
    cols = {h["name"]: (i, h["unit"]) for i, h in enumerate(heads)}
    names = [h["name"][2:] for h in heads if h["name"].startswith("q_")]
    if "t" not in cols or not names:
        raise TrajectoryError(f"{where}: needs a 't [s]' column and at least one 'q_<joint> [unit]' column")
    units = [cols["q_" + n][1] for n in names]
    revolute = np.array([u in ("deg", "rad") for u in units])
    k = np.array([np.pi / 180 if u == "deg" else 1.0 for u in units])
    lengths = {u for u in units if u in ("m", "mm")} | {cols[a][1] for a in "xyz" if a in cols}
    if len(lengths) > 1:
        raise TrajectoryError(f"{where}: mixed length units {sorted(lengths)}")
    get = lambda key: np.stack([data[:, cols[f"{key}_{n}"][0]] for n in names], axis=1) if all(
        f"{key}_{n}" in cols for n in names) else None
    poses = None
    if "x" in cols:
        poses = np.zeros((len(data), 4, 4))
        poses[:, :3, 3] = data[:, [cols[a][0] for a in "xyz"]]
        quat = data[:, [cols[a][0] for a in ("qw", "qx", "qy", "qz")]]
        from scipy.spatial.transform import Rotation

        poses[:, :3, :3] = Rotation.from_quat(quat, scalar_first=True).as_matrix()
        poses[:, 3, 3] = 1.0
    q, qd, qdd = get("q") * k, get("qd"), get("qdd")
    return Trajectory(data[:, cols["t"][0]], q, qd * k if qd is not None else np.zeros_like(q),
                      qdd * k if qdd is not None else np.zeros_like(q), joint_names=tuple(names),
                      revolute=revolute, length_unit=(lengths or {"m"}).pop(), tau=get("tau"), poses=poses)


def to_json(tr: Trajectory, degrees: bool = False) -> str:
    """JSON text: units stated, joint values in degrees or radians as asked."""
    k = _scale(tr, degrees)
    doc = {"format": FORMAT, "version": 1, "length_unit": tr.length_unit,
           "angle_unit": "deg" if degrees else "rad", "joint_names": list(tr.joint_names),
           "revolute": tr.revolute.tolist(), "t": tr.t.tolist(), "q": (tr.q * k).tolist(),
           "qd": (tr.qd * k).tolist(), "qdd": (tr.qdd * k).tolist()}
    if tr.tau is not None:
        doc["tau"] = tr.tau.tolist()
    if tr.poses is not None:
        doc["poses"] = tr.poses.tolist()
    return json.dumps(doc)


def from_json(text: str, where: str = "<json>") -> Trajectory:
    """A trajectory from `to_json` text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise TrajectoryError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TrajectoryError(f"{where}: not a {FORMAT} file")
    try:
        rev = np.array(doc["revolute"], dtype=bool)
        k = np.where(rev & (doc.get("angle_unit") == "deg"), np.pi / 180, 1.0)
        q = np.array(doc["q"], dtype=float)
        for key in ("t", "q", "qd", "qdd"):  # JSON files may hold NaN and Infinity
            bad = np.argwhere(~np.isfinite(np.asarray(doc.get(key, ()), dtype=float)))
            if bad.size:
                raise TrajectoryError(f"{where}: {key}[{', '.join(map(str, bad[0]))}] (sample {bad[0][0] + 1}) "
                                      "is not a finite number")
        get = lambda key: np.array(doc[key], dtype=float) * k if key in doc else np.zeros_like(q)
        return Trajectory(doc["t"], q * k, get("qd"), get("qdd"), joint_names=tuple(doc["joint_names"]),
                          revolute=rev, length_unit=doc.get("length_unit", "m"), tau=doc.get("tau"),
                          poses=doc.get("poses"))
    except KeyError as e:
        raise TrajectoryError(f"{where}: missing field {e}") from None


@strict
def save(tr: Trajectory, path: str | os.PathLike[str], degrees: bool = False) -> Path:
    """Write .csv or .json, by the file's extension."""
    path = Path(path)
    writers = {".csv": to_csv, ".json": to_json}
    if path.suffix.lower() not in writers:
        raise InputError(f"cannot tell the format of {path.name!r}: use .csv or .json")
    return atomic.write_text(path, writers[path.suffix.lower()](tr, degrees))


@strict
def load(path: str | os.PathLike[str]) -> Trajectory:
    """Read a trajectory from .csv or .json."""
    path = Path(path)
    readers = {".csv": from_csv, ".json": from_json}
    if path.suffix.lower() not in readers:
        raise InputError(f"cannot tell the format of {path.name!r}: use .csv or .json")
    if not path.is_file():
        raise FileNotFoundError(f"trajectory file not found: {path}")
    return readers[path.suffix.lower()](path.read_text(encoding="utf-8"), str(path))


@strict
def save_scenarios(tr: Trajectory, folder: str | Path, degrees: bool = False) -> list[Path]:
    """Paper 004's motion scenarios: one text file per joint, `<joint>.txt`, each line
    `time value` (s, then rad/deg or the length unit), for simulators that drive each joint."""
    folder = Path(folder)
    k = _scale(tr, degrees)
    units = _joint_units(tr, degrees)
    names = [f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.txt" for name in tr.joint_names]
    with atomic.folder(folder) as tmp:  # all the joints' files or none
        for j, name in enumerate(tr.joint_names):
            lines = [f"# joint {name}: time [s], value [{units[j]}]"]
            lines += [f"{t!r} {v!r}" for t, v in zip(tr.t.tolist(), (tr.q[:, j] * k[j]).tolist(), strict=True)]
            (tmp / names[j]).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [folder / n for n in names]
