"""The Robot tab's editable form, without NiceGUI: a robot as rows of text cells (one row per
joint, in the robot file's convention and the user's units) and back to a robot.

Cells hold the text the user typed, so a bad value is reported in words and nothing is lost.
Angles are always shown in degrees, lengths in the form's length unit; the limits and home of
a joint are in degrees when it is revolute and in the length unit when it is prismatic. An
empty limit means "no limit".

Everything the table does not show (base, tool, inertials, servo calibration, drives, gripper,
notes, source) is kept from the robot's own file mapping (`robot_to_dict`), and the edited
mapping goes through the same schema and meaning checks as a YAML file (`read_text`).

>>> import kinematica as km
>>> form = form_from_robot(km.load("planar-3r"))
>>> [c.key for c in columns(form.kind)], form.rows[0]["length"]
(['name', 'length', 'lower', 'upper', 'home'], '20')
>>> form.rows[0]["length"] = "25"
>>> km.fk(build(form), [0, 0, 0])[:3, 3].tolist()
[65.0, 0.0, 0.0]
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kinematica as km
from kinematica import spatial
from kinematica.model.robotfile import read_text, robot_to_dict
from kinematica.model.schema import dump

from ..errors import KinematicaError
from ..model.visual import rescaled_dicts

UNIT_FACTOR = {"m": 1.0, "mm": 1000.0}  # lengths per metre
TYPES = ("revolute", "prismatic", "helical")  # a helical row keeps its pitch from the robot file


@dataclass(frozen=True)
class Column:
    """One column of the table: its key in a row, its header text, and what its unit is:
    "angle" (°), "length" (the length unit), "joint" (° or the length unit, by joint type),
    "text" or "" (a plain number)."""

    key: str
    label: str
    unit: str
    hint: str = ""


_NAME = Column("name", "name", "text")
_TYPE = Column("type", "type", "text")
_LIMITS = (Column("lower", "lower", "joint", "lower joint limit; empty: no limit"),
           Column("upper", "upper", "joint", "upper joint limit; empty: no limit"),
           Column("home", "home", "joint", "home joint value"))
_PARAMS = {
    "dh": (Column("theta", "θ offset", "angle", "θ: joint angle offset about z (fixed angle of a prismatic joint)"),
           Column("d", "d", "length", "d: offset along z (the joint offset of a prismatic joint)"),
           Column("a", "a", "length", "a: link length along the new x"),
           Column("alpha", "α", "angle", "α: twist about the new x")),
    "mdh": (Column("alpha", "α(i−1)", "angle", "α(i−1): twist about the previous x"),
            Column("a", "a(i−1)", "length", "a(i−1): length along the previous x"),
            Column("theta", "θ offset", "angle", "θ: joint angle offset about z"),
            Column("d", "d", "length", "d: offset along z")),
    "planar": (Column("length", "L", "length", "link length to the next joint (the tool for the last)"),),
    "frames": (Column("x", "x", "length", "joint origin in the previous joint frame"),
               Column("y", "y", "length", "joint origin in the previous joint frame"),
               Column("z", "z", "length", "joint origin in the previous joint frame"),
               Column("roll", "roll", "angle", "turn of the joint frame about the fixed x"),
               Column("pitch", "pitch", "angle", "turn of the joint frame about the fixed y"),
               Column("yaw", "yaw", "angle", "turn of the joint frame about the fixed z"),
               Column("ax", "axis x", "", "joint axis in the joint frame"),
               Column("ay", "axis y", "", "joint axis in the joint frame"),
               Column("az", "axis z", "", "joint axis in the joint frame")),
}
KIND_NAMES = {"dh": "standard Denavit–Hartenberg", "mdh": "modified (Craig) Denavit–Hartenberg",
              "planar": "planar link lengths", "frames": "link frames (origin xyz, rpy, axis)"}
# the robot-file field each column is written to, for reading the core's messages back
_FIELD_COLUMN = {"theta": "theta", "d": "d", "a": "a", "alpha": "alpha", "length": "length",
                 "xyz": "x", "rpy": "roll", "rotation": "roll", "axis": "ax", "limits": "lower",
                 "name": "name", "type": "type"}
_TABLE_KEYS = ("name", "type", "theta", "d", "a", "alpha", "length", "xyz", "rpy", "rotation",
               "axis", "limits")


class EditError(KinematicaError, ValueError):
    """A value in the form cannot make a robot: `row` (0-based joint, or None for the whole
    robot) and `column` (a column key, or "robot-name"/"robot-unit") say where."""

    def __init__(self, message: str, row: int | None = None, column: str | None = None) -> None:
        super().__init__(message)
        self.row, self.column = row, column


@dataclass
class RobotForm:
    """What the Robot tab edits: robot-level fields, one dict of cell texts per joint, and the
    robot's file mapping (`original`, in `original_unit`) for everything the table leaves out."""

    name: str
    description: str
    length_unit: str
    kind: str
    rows: list[dict[str, str]]
    original: dict[str, Any] = field(repr=False)
    original_unit: str = "m"
    # cells shown rounded (a limit in rad shown in degrees to its source's precision): (i, key) →
    # (the text shown, the exact value), read back exactly while the text is left as shown
    exact: dict[tuple[int, str], tuple[str, float]] = field(default_factory=dict, repr=False)


def columns(kind: str) -> list[Column]:
    """The columns of a table kind, in order."""
    typed = [] if kind == "planar" else [_TYPE]  # a planar chain has revolute joints only
    return [_NAME, *typed, *_PARAMS[kind], *_LIMITS]


def unit_text(column: Column, length_unit: str, joint_type: str | None = None) -> str:
    """The unit a column's cell is in: °, the length unit, or '' for a plain number."""
    if column.unit == "angle" or (column.unit == "joint" and joint_type in ("revolute", "helical")):
        return "°"
    if column.unit == "length" or (column.unit == "joint" and joint_type == "prismatic"):
        return length_unit
    if column.unit == "joint":
        return f"° or {length_unit}"
    return ""


def header(column: Column, form: RobotForm) -> str:
    """A column header naming its unit, e.g. "d (mm)", "lower (°)", "lower (° or mm)"."""
    types = {r.get("type", "revolute") for r in form.rows}
    unit = unit_text(column, form.length_unit, types.pop() if len(types) == 1 else None)
    return f"{column.label} ({unit})" if unit else column.label


def source_digits(value: float) -> int:
    """Decimals of a number as its source wrote it (the shortest repr of the float).

    >>> source_digits(2.8973), source_digits(-166.0), source_digits(1e-05)
    (4, 0, 5)
    """
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2].rstrip("0"))
    return max(0, decimals - int(exponent or 0))


def degrees_text(rad: float) -> str:
    """An angle given in rad shown in degrees to the precision of its source: a rad value with
    d decimals is known to ±0.5e-d rad = ±29e-d degrees, so d − 1 decimals of a degree.

    >>> degrees_text(2.8973), degrees_text(-1.7628), degrees_text(math.pi)
    ('166.003', '-101.001', '180')
    """
    value = math.degrees(rad)
    return number_text(round(value, max(0, source_digits(rad) - 1)))


def number_text(value: float) -> str:
    """A number as a cell shows it: 12 significant digits, no trailing zeros, no -0."""
    text = f"{float(value) + 0.0:.12g}"
    return "0" if text in ("-0", "0") else text


# --- robot → form ---------------------------------------------------------------------------
def form_from_robot(robot: km.Robot) -> RobotForm:
    """The form showing `robot`: its file mapping's table in degrees and its length unit."""
    data = robot_to_dict(robot)
    deg = data.get("angle_unit", "rad") == "deg"
    to_deg = (lambda x: float(x)) if deg else (lambda x: math.degrees(float(x)))
    home = robot.q_home * robot.angle_scale
    rows, exact = [], {}
    for i, joint in enumerate(data["joints"]):
        jtype = joint.get("type", "revolute")
        row = {"name": str(joint.get("name", robot.joint_names[i])), "type": jtype}
        row |= _param_cells(data["kind"], joint, to_deg)
        lim = joint.get("limits", (-math.inf, math.inf))
        scale = to_deg if jtype in ("revolute", "helical") else float  # a helical joint turns
        for key, value in zip(("lower", "upper"), lim, strict=True):
            row[key] = number_text(scale(value)) if math.isfinite(value) else ""
            if math.isfinite(value) and jtype in ("revolute", "helical") and not deg:  # rad shown in degrees
                row[key] = degrees_text(value)
                exact[(i, key)] = (row[key], scale(value))
        row["home"] = number_text(home[i])
        rows.append(row)
    return RobotForm(robot.name, robot.description, robot.length_unit, data["kind"], rows, data,
                     robot.length_unit, exact)


def _param_cells(kind: str, joint: dict, to_deg) -> dict[str, str]:
    if kind in ("dh", "mdh"):
        return {"theta": number_text(to_deg(joint.get("theta", 0.0))), "d": number_text(joint.get("d", 0.0)),
                "a": number_text(joint.get("a", 0.0)), "alpha": number_text(to_deg(joint.get("alpha", 0.0)))}
    if kind == "planar":
        return {"length": number_text(joint["length"])}
    if joint.get("rotation") is not None:
        rpy = np.degrees(spatial.matrix_to_rpy(np.asarray(joint["rotation"], dtype=float)))
    else:
        rpy = [to_deg(v) for v in joint.get("rpy", (0.0, 0.0, 0.0))]
    cells = dict(zip("xyz", joint.get("xyz", (0.0, 0.0, 0.0)), strict=True))
    cells |= dict(zip(("roll", "pitch", "yaw"), rpy, strict=True))
    cells |= dict(zip(("ax", "ay", "az"), joint.get("axis", (0, 0, 1)), strict=True))
    return {k: number_text(v) for k, v in cells.items()}


def convert_unit(form: RobotForm, unit: str) -> None:
    """Change the form's length unit, converting every length cell (and the prismatic joints'
    limits and home) so the robot keeps its size. A cell that is not a number is left as typed."""
    if unit not in UNIT_FACTOR:
        raise EditError(f"length unit must be one of {', '.join(UNIT_FACTOR)}, got {unit!r}", None, "robot-unit")
    f = UNIT_FACTOR[unit] / UNIT_FACTOR[form.length_unit]
    for row in form.rows:
        for col in columns(form.kind):
            if col.unit == "length" or (col.unit == "joint" and row.get("type") == "prismatic"):
                try:
                    value = float(row[col.key])
                except (KeyError, ValueError):
                    continue
                if math.isfinite(value):
                    row[col.key] = number_text(value * f)
    form.length_unit = unit


# --- form → robot ---------------------------------------------------------------------------
def _where(form: RobotForm, i: int, key: str) -> str:
    col = next((c for c in columns(form.kind) if c.key == key), None)
    title = header(col, form) if col else key
    return f"Joint {i + 1} ({form.rows[i].get('name') or 'unnamed'}), column “{title}”"


def _number(form: RobotForm, i: int, key: str, *, empty: float | None = None) -> float:
    """Cell (i, key) as a finite number; `empty` is what an empty cell means (None: an error)."""
    text = str(form.rows[i].get(key, "")).strip()
    shown = form.exact.get((i, key))
    if shown is not None and shown[0] == text:  # left as shown: the exact value behind the rounding
        return shown[1]
    if not text:
        if empty is not None:
            return empty
        raise EditError(f"{_where(form, i, key)}: fill in a number.", i, key)
    try:
        value = float(text.replace("−", "-"))
    except ValueError:
        raise EditError(f"{_where(form, i, key)}: {text!r} is not a number.", i, key) from None
    if not math.isfinite(value):
        raise EditError(f"{_where(form, i, key)}: {text!r} is not a finite number.", i, key)
    return value


def _joint_cells(form: RobotForm, i: int) -> dict[str, Any]:
    """Row i as robot-file joint fields (degrees, the form's length unit), checked per cell."""
    row = form.rows[i]
    name = str(row.get("name", "")).strip()
    if not name:
        raise EditError(f"{_where(form, i, 'name')}: every joint needs a name.", i, "name")
    out: dict[str, Any] = {"name": name}
    if form.kind != "planar":
        if row.get("type") not in TYPES:
            raise EditError(f"{_where(form, i, 'type')}: choose revolute, prismatic or helical.", i, "type")
        out["type"] = row["type"]
    num = {c.key: _number(form, i, c.key) for c in _PARAMS[form.kind]}
    if form.kind in ("dh", "mdh"):
        out |= num
    elif form.kind == "planar":
        if num["length"] < 0:
            raise EditError(f"{_where(form, i, 'length')}: a link length cannot be negative.", i, "length")
        out["length"] = num["length"]
    else:
        axis = [num["ax"], num["ay"], num["az"]]
        if np.linalg.norm(axis) < 1e-12:
            raise EditError(f"{_where(form, i, 'ax')}: the joint axis cannot be zero.", i, "ax")
        out |= {"xyz": [num["x"], num["y"], num["z"]], "rpy": [num["roll"], num["pitch"], num["yaw"]],
                "axis": axis}
    lower = _number(form, i, "lower", empty=-math.inf)
    upper = _number(form, i, "upper", empty=math.inf)
    if lower > upper:
        raise EditError(f"{_where(form, i, 'lower')}: the lower limit {number_text(lower)} is above the "
                        f"upper limit {number_text(upper)}.", i, "lower")
    if math.isfinite(lower) or math.isfinite(upper):
        out["limits"] = [lower, upper]
    return out


def _home(form: RobotForm, joints: list[dict]) -> list[float]:
    home = []
    for i, joint in enumerate(joints):
        value = _number(form, i, "home")
        lower, upper = joint.get("limits", (-math.inf, math.inf))
        if not lower <= value <= upper:
            raise EditError(f"{_where(form, i, 'home')}: home {number_text(value)} is outside the limits "
                            f"{number_text(lower)} … {number_text(upper)}.", i, "home")
        home.append(value)
    return home


def _scaled_placement(p: dict | None, f: float) -> dict | None:
    if p is None or f == 1.0:
        return p
    p = copy.deepcopy(p)
    if "xyz" in p:
        p["xyz"] = [v * f for v in p["xyz"]]
    if "matrix" in p:
        for r in range(3):
            p["matrix"][r][3] *= f
    return p


def _scaled_inertial(d: dict, f: float) -> dict:
    """An inertial in another length unit: centre of mass ×f, inertia ×f² (the mass stays)."""
    d = copy.deepcopy(d)
    if "com" in d:
        d["com"] = [v * f for v in d["com"]]
    if "inertia" in d:
        d["inertia"] = (np.asarray(d["inertia"], dtype=float) * f * f).tolist()
    for shape, keys in (("cylinder", ("radius", "height")), ("box", ("size",)), ("sphere", ("radius",))):
        for k in keys if shape in d else ():
            v = d[shape][k]
            d[shape][k] = [x * f for x in v] if isinstance(v, list) else v * f
    return d


def to_dict(form: RobotForm) -> dict[str, Any]:
    """The robot-file mapping the form describes (angles in degrees); cells checked one by one.
    Raises `EditError` naming the joint row and column (or the robot field)."""
    name = form.name.strip()
    if not name:
        raise EditError("The robot needs a name.", None, "robot-name")
    if form.length_unit not in UNIT_FACTOR:
        raise EditError(f"Length unit must be m or mm, got {form.length_unit!r}.", None, "robot-unit")
    if len(form.rows) != len(form.original["joints"]):
        raise EditError(f"The table has {len(form.rows)} rows; the robot has "
                        f"{len(form.original['joints'])} joints.")
    names = [str(r.get("name", "")).strip() for r in form.rows]
    for i, n in enumerate(names):
        if n and names.index(n) != i:
            raise EditError(f"{_where(form, i, 'name')}: the name {n!r} is already joint "
                            f"{names.index(n) + 1}'s; joint names must differ.", i, "name")
    f = UNIT_FACTOR[form.length_unit] / UNIT_FACTOR[form.original_unit]
    joints = []
    for i, old in enumerate(form.original["joints"]):
        kept = {k: copy.deepcopy(v) for k, v in old.items() if k not in _TABLE_KEYS}
        if "inertial" in kept:
            kept["inertial"] = _scaled_inertial(kept["inertial"], f)
        cells = _joint_cells(form, i)
        if "pitch" in kept:  # a length per rad: scaled with the unit; gone with the helical type
            kept["pitch"] = kept["pitch"] * f
            if cells.get("type") != "helical":
                del kept["pitch"]
        joints.append(cells | kept)
    out: dict[str, Any] = {k: copy.deepcopy(v) for k, v in form.original.items()
                           if k not in ("name", "description", "kind", "length_unit", "angle_unit", "home", "joints")}
    out = {"name": name} | ({"description": form.description.strip()} if form.description.strip() else {}) \
        | {"kind": form.kind, "length_unit": form.length_unit, "angle_unit": "deg",
           "home": _home(form, joints)} | out | {"joints": joints}
    for key in ("base", "tool"):
        if key in out:
            out[key] = _scaled_placement(out[key], f)
    if "visuals" in out:  # in the form's length unit and, as everything it writes, in degrees
        out["visuals"] = rescaled_dicts(out["visuals"], f, form.original.get("angle_unit", "rad") == "deg")
    return out


_CORE_FIELD = re.compile(r"joints\[(\d+)\](?:\.(\w+))?")


def build(form: RobotForm) -> km.Robot:
    """The robot the form describes, through the robot file's schema and meaning checks.
    Raises `EditError` (words naming the joint and column) on any bad value."""
    data = to_dict(form)
    try:
        return read_text(dump(data), "the edited robot")
    except ValueError as e:
        raise _core_error(form, str(e)) from None


def _core_error(form: RobotForm, message: str) -> EditError:
    """The core's message about the file mapping, put in the table's terms where it names a
    joint field (`joints[2].limits: …` → joint 3, column lower); the line number is dropped."""
    text = re.sub(r"^the edited robot(?: line \d+)?: ", "", message)
    found = _CORE_FIELD.search(text)
    if found and int(found.group(1)) < len(form.rows):
        i = int(found.group(1))
        key = _FIELD_COLUMN.get(found.group(2) or "")
        rest = text[found.end():].lstrip(": ")
        where = _where(form, i, key) if key else f"Joint {i + 1} ({form.rows[i].get('name')})"
        return EditError(f"{where}: {rest}", i, key)
    joint = re.match(r"joint (\d+): (.*)", text)
    if joint and int(joint.group(1)) <= len(form.rows):
        i = int(joint.group(1)) - 1
        return EditError(f"Joint {i + 1} ({form.rows[i].get('name')}): {joint.group(2)}", i, None)
    return EditError(text[:1].upper() + text[1:], None, None)


def edited_label(robot: km.Robot) -> str:
    """The robot select's label for an edited robot (a second edit replaces the first)."""
    return f"{robot.name} (edited)"


def kept_q(old: km.Robot, q: np.ndarray, new: km.Robot) -> np.ndarray:
    """q carried over to the edited robot: joints of the same type keep their value, clipped
    into the new limits; the others (or all, when the joint count differs) go home."""
    if old.n != new.n:
        return new.q_home
    same = np.asarray(old.joint_types) == np.asarray(new.joint_types)
    out = np.where(same, q, new.q_home)
    return np.clip(out, new.limits[:, 0], new.limits[:, 1])
