"""Table views of `robots`, `show`, `fk`, `jacobian` and `demo` (the text printed without --json),
and the pieces every table view shares (the heading line, the joint-values table).

Each function takes a robot and the plain data its subcommand built for JSON, and returns text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

import kinematica as km

from ..textfmt import compact, fields, gvector, matrix, num, table, vector

ROW_LABELS = ("vx", "vy", "vz", "ωx", "ωy", "ωz")
WIDTH = 96
_LENGTH_COLUMNS = ("d", "a", "L", "xyz", "length")
_ANGLE_COLUMNS = ("theta", "alpha")


def joint_kinds(robot: km.Robot) -> str:
    """``RRRRRR``: R for each revolute joint, P for each prismatic one, H for a helical one."""
    return robot.letters


def frame_names(robot: km.Robot) -> list[str]:
    """Names of the frames `fk_frames` returns: base, link frame i (with its joint), tool."""
    links = robot.link_names or [f"link {i + 1}" for i in range(robot.n)]
    return ["base"] + [f"{lk} ({j})" for lk, j in zip(links, robot.joint_names, strict=True)] + ["tool"]


def heading(robot: km.Robot) -> str:
    return f"{robot.name}: {robot.n} joints {joint_kinds(robot)}, lengths in {robot.length_unit}"


def _para(label: str, text: str) -> str:
    body = " ".join(str(text).split())
    return textwrap.fill(body, WIDTH, initial_indent=f"{label}: ", subsequent_indent="  ")


def _shorten(text: str, width: int) -> str:
    return textwrap.shorten(text, width, placeholder=" …") if text else ""


def robots_text(robots: Sequence[km.Robot]) -> str:
    w = WIDTH - max(len(r.name) for r in robots) - 25
    rows = [[r.name, r.n, joint_kinds(r), r.length_unit, _shorten(r.description, w)]
            for r in robots]
    return (table(["name", "dof", "joints", "unit", "description"], rows)
            + "\n\n'kinematica show NAME' prints a robot's parameters and source.")


# --- show ---------------------------------------------------------------------------------
def _column_header(col: str, robot: km.Robot, angle_unit: str) -> str:
    if col in _LENGTH_COLUMNS:
        return f"{col} ({robot.length_unit})"
    if col in _ANGLE_COLUMNS:
        return f"{col} ({angle_unit})"
    return col


def _table_cell(column: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:  # e.g. the rpy column of a link frame given by its rotation matrix
        return "—"
    return compact(value, 6)


def _parameter_table(robot: km.Robot) -> str:
    t = robot.table
    if t is None:
        return "Parameter table: none (the robot was built in code)"
    heads = [_column_header(c, robot, t.angle_unit) for c in t.columns]
    kind = {"dh": "standard DH", "mdh": "modified DH", "planar": "planar link lengths",
            "frames": "link frames", "urdf": "URDF joints"}.get(t.kind, t.kind)
    rows = [[_table_cell(col, c) for col, c in zip(t.columns, r, strict=True)] for r in t.rows]
    align = "".join("r" if t.rows and all(isinstance(r[j], (int, float)) for r in t.rows) else "l"
                    for j in range(len(heads)))
    return (f"Parameter table ({kind}, as written; angles in {t.angle_unit}):\n"
            + table(heads, rows, indent="  ", align=align))


def _limits_table(robot: km.Robot) -> str:
    scale = robot.angle_scale
    home = robot.home * scale if robot.home is not None else [None] * robot.n
    rows = []
    for i in range(robot.n):
        unit = "deg" if robot.revolute[i] else robot.length_unit
        lo, hi = robot.limits[i] * scale[i]
        h = home[i]
        rows.append([robot.joint_names[i], robot.kinds[i], float(lo), float(hi), unit, "—" if h is None else float(h)])
    text = "Joint limits and home:\n" + table(["joint", "type", "lower", "upper", "unit", "home"],
                                              rows, decimals=2, indent="  ")
    screws = [f"{robot.joint_names[i]} {robot.pitch[i]:g} {robot.length_unit}/rad" for i in np.flatnonzero(robot.helical)]
    return text + ("\n  pitch of the helical joints (slide per rad turned): " + ", ".join(screws) if screws else "")


def _placement(name: str, T: np.ndarray, unit: str) -> str:
    rpy = np.degrees(km.spatial.matrix_to_rpy(T[:3, :3]))
    return f"{name}: xyz ({unit}) = {vector(T[:3, 3])}, rpy (deg) = {vector(rpy, 2)}"


def _inertials_table(robot: km.Robot) -> str | None:
    if robot.inertials is None:
        return None
    rows = []
    for name, inert in zip(robot.joint_names, robot.inertials, strict=True):
        if inert is None:
            rows.append([name, "—", "—", "—", "—"])
        else:
            rows.append([name, inert.mass, vector(inert.com), gvector(np.diag(inert.inertia)),
                         inert.shape or "given tensor"])
    u = robot.length_unit
    return ("Inertials (link frames):\n"
            + table(["link", "mass (kg)", f"com ({u})", f"inertia diag (kg·{u}²)", "from"], rows,
                    indent="  "))


def _servo_table(robot: km.Robot) -> str | None:
    servo = robot.extras.get("servo")
    if not servo:
        return None
    rows = [[name, *(compact(m.get(k, "—")) if m else "—" for k in ("zero", "sign", "range", "pin"))]
            for name, m in zip(robot.joint_names, servo, strict=True)]
    return ("Servo mapping (servo = zero + sign · q, degrees):\n"
            + table(["joint", "zero", "sign", "range", "pin"], rows, indent="  "))


def show_text(robot: km.Robot) -> str:
    parts = [heading(robot)]
    if robot.description:
        parts.append(_para("Description", robot.description))
    parts += ["", _parameter_table(robot), "", _limits_table(robot), "",
              _placement("Base", robot.base, robot.length_unit),
              _placement("Tool", robot.tool, robot.length_unit)]
    inert = _inertials_table(robot)
    if inert:
        parts += ["", inert]
    if robot.table is not None and robot.table.kind == "planar":
        parts.append("  (a planar chain's tool transform includes the last link's length)")
    servo = _servo_table(robot)
    if servo:
        parts += ["", servo]
    for key in ("gripper", "extras"):
        if key in robot.extras:
            parts.append(_para(key.capitalize(), compact(robot.extras[key])))
    if robot.source:
        parts += ["", _para("Source", robot.source)]
    if robot.extras.get("notes"):
        parts += ["", _para("Notes", robot.extras["notes"])]
    return "\n".join(parts)


# --- fk and jacobian ----------------------------------------------------------------------
def q_table(robot: km.Robot, data: dict[str, Any]) -> str:
    rows = []
    for i, name in enumerate(robot.joint_names):
        if robot.revolute[i]:
            rows.append([name, float(data["q_deg"][i]), "deg", float(data["q"][i])])
        else:
            rows.append([name, float(data["q"][i]), robot.length_unit, "—"])
    return table(["joint", "q", "unit", "q (rad)"], rows, indent="  ")


def _half_open(deg: Any) -> np.ndarray:
    """Angles in (−180°, 180°] after rounding, so float noise never flips 180 into −180."""
    a = np.round(np.asarray(deg, dtype=float), 6)
    return 180.0 - np.mod(180.0 - a, 360.0)


def fk_text(robot: km.Robot, data: dict[str, Any], frames: bool) -> str:
    u = robot.length_unit
    parts = [heading(robot), "", "Joint values:", q_table(robot, data), "",
             "Tool pose T (base → tool):", matrix(data["T"], indent="  "), "",
             fields([(f"position ({u})", vector(data["position"])),
                     ("RPY (deg)", vector(_half_open(data["rpy_deg"]), 4)
                      + "  roll, pitch, yaw about fixed x, y, z")])]
    if frames:
        origins = [[name, *map(float, F[:3, 3])] for name, F in zip(data["frame_names"], data["frames"], strict=True)]
        parts += ["", f"Frame origins ({u}):", table(["frame", "x", "y", "z"], origins, indent="  ")]
    return "\n".join(parts)


def _jacobian_units(robot: km.Robot) -> str:
    u = robot.length_unit
    text = f"  units: per rad/s of a revolute joint, v in {u}/s and ω in rad/s"
    if not np.all(robot.revolute):
        text += f"; per {u}/s of a prismatic joint, v in {u}/s"
    return text


def jacobian_text(robot: km.Robot, data: dict[str, Any]) -> str:
    labels = [lab + (" *" if lab in data["row_labels"] else "  ") for lab in ROW_LABELS]
    order = f"Geometric Jacobian J ({data['frame']} frame), rows (v; ω), * = task rows"
    if data["frame"] in ("space", "body"):  # Modern Robotics' (ω; v): the stars stay on their rows
        labels = labels[3:] + labels[:3]
        order = f"Jacobian J ({data['frame']} frame), rows (ω; v) as in Modern Robotics, * = task rows" + (
            "; v is the velocity of the point at the base origin" if data["frame"] == "space" else "")
    s = data["singularity"]
    m = len(data["row_labels"])
    parts = [heading(robot), "", "Joint values:", q_table(robot, data), "",
             f"{order}:",
             matrix(data["J"], row_labels=labels, col_labels=list(robot.joint_names), indent="  "),
             _jacobian_units(robot), "",
             fields([("task rows", f"{data['rows']} ({', '.join(data['row_labels'])})"),
                     ("rank", f"{data['rank']} of {m}"),
                     ("singular values", vector(data["singular_values"])),
                     ("manipulability √det(J Jᵀ)", f"{data['manipulability']:.6g}"),
                     ("det(J Jᵀ)", f"{data['det_JJT']:.6g}"),
                     ("condition σmax/σmin", num(float(data["condition"]), 4)),
                     ("verdict", s["message"])])]
    return "\n".join(parts)


# --- demo -----------------------------------------------------------------------------------
def demo_text(results: Sequence[tuple[Any, Sequence[Any]]]) -> str:
    parts = ["The papers' worked examples, recomputed with kinematica (notes cite the papers' digest; "
             "\"erratum\" marks an error in the paper)."]
    for ex, checks in results:
        parts += ["", f"Paper {ex.paper} — {ex.title}  [robot: {ex.robot}]"]
        for i, c in enumerate(checks, 1):
            parts.append(f"  {i}. {c.quantity}")
            computed = c.computed.replace("\n", "\n" + " " * 15)  # continuation lines align
            parts.append(fields([("paper", c.paper), ("computed", computed)], indent="     "))
            if c.note:
                parts.append(textwrap.fill(" ".join(c.note.split()), WIDTH,
                                           initial_indent="     note:     ",
                                           subsequent_indent=" " * 15))
    return "\n".join(parts)
