"""What the explanation builders share: joint names and values as people read them, the
robot's parameter table with its units, and small constructors for the document model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..model.robot import Robot
from ..textfmt import compact
from .document import Math, Quantity, Table, number_text

CONVENTIONS = {
    "dh": ("standard Denavit–Hartenberg (DH) table",
           Math(r"A_i = R_z(\theta_i)\, T_z(d_i)\, T_x(a_i)\, R_x(\alpha_i)", "A_i = Rz(θi) · Tz(di) · Tx(ai) · Rx(αi)")),
    "mdh": ("modified (Craig) Denavit–Hartenberg table",
            Math(r"A_i = R_x(\alpha_{i-1})\, T_x(a_{i-1})\, R_z(\theta_i)\, T_z(d_i)",
                 "A_i = Rx(α(i−1)) · Tx(a(i−1)) · Rz(θi) · Tz(di)")),
    "planar": ("list of planar link lengths (paper 000's arm)",
               Math(r"A_1 = R_z(\theta_1),\quad A_i = T_x(L_{i-1})\, R_z(\theta_i),\quad T = A_1 \cdots A_n\, T_x(L_n)",
                    "A_1 = Rz(θ1),  A_i = Tx(L(i−1)) · Rz(θi),  T = A_1 ⋯ A_n · Tx(L_n)")),
    "frames": ("list of link frames (a position and a rotation per joint, as in URDF)",
               Math(r"A_i = T(x_i, y_i, z_i)\, R_i\, R_z(\theta_i)", "A_i = T(xi, yi, zi) · Ri · Rz(θi)")),
    "generic": ("canonical chain of constant transforms",
                Math(r"A_i = B_i\, R_z(\theta_i)\, A'_i", "A_i = B_i · Rz(θi) · A'_i")),
}


def use_degrees(robot: Robot, deg: bool | None) -> bool:
    """Show angles in degrees: as asked, else as the robot's own table does."""
    if deg is not None:
        return bool(deg)
    return robot.table is not None and robot.table.angle_unit == "deg"


def joint_math(robot: Robot, i: int) -> Math:
    """θ_i for a revolute joint, d_i for a prismatic one (i is 0-based)."""
    return Math(rf"\theta_{{{i + 1}}}", f"θ{i + 1}") if robot.revolute[i] else Math(f"d_{{{i + 1}}}", f"d{i + 1}")


def joint_value(robot: Robot, i: int, v: float, deg: bool) -> str:
    """One joint value with its unit: 38.509°, 0.6721 rad or 0.1200 m."""
    if not robot.revolute[i]:
        return f"{number_text(v, 4)} {robot.length_unit}"
    return f"{number_text(np.degrees(v), 3)}°" if deg else f"{number_text(v, 4)} rad"


def joints_text(robot: Robot, q: Sequence[float] | np.ndarray, deg: bool) -> str:
    """θ1 = 30.000°, θ2 = 30.000°, …"""
    return ", ".join(f"{joint_math(robot, i).text} = {joint_value(robot, i, v, deg)}" for i, v in enumerate(q))


def joints_quantity(robot: Robot, q: ArrayLike, deg: bool, name: Math) -> Quantity:
    """The joint values as one vector (degrees when every joint is revolute and deg is set)."""
    v = np.asarray(q, dtype=float)
    if deg and np.all(robot.revolute):
        return Quantity(name, np.degrees(v), "°", 3)
    unit = "rad" if np.all(robot.revolute) else ""
    return Quantity(name, v, unit, 4, "" if unit else f"rad for revolute joints, {robot.length_unit} for prismatic ones")


def parameter_table(robot: Robot) -> Table | None:
    """The robot's own table, with the units of its columns in the headers."""
    t = robot.table
    if t is None:
        return None
    au, lu = ("°" if t.angle_unit == "deg" else "rad"), robot.length_unit
    units = {"theta": f"θ ({au})", "alpha": f"α ({au})", "d": f"d ({lu})", "a": f"a ({lu})", "L": f"L ({lu})",
             "xyz": f"xyz ({lu})", "rpy": f"rpy ({au})", "name": "joint", "type": "type",
             "rotation": "rotation", "axis": "axis"}
    cols = [c for c in t.columns if not all(r[t.columns.index(c)] is None for r in t.rows)]
    rows = []
    for r in t.as_dicts():
        row: list[Any] = []
        for c in cols:
            v = r[c]
            row.append(compact(v, 6) if isinstance(v, (list, tuple, np.ndarray)) else
                       "—" if v is None else v if isinstance(v, str) else compact(float(v), 6))
        rows.append(row)
    return Table([units.get(c, c) for c in cols], rows)


def matrix(name_latex: str, name_text: str, M: Any, unit: str = "", decimals: int | None = 4, note: str = "") -> Quantity:
    return Quantity(Math(name_latex, name_text), np.asarray(M, dtype=float), unit, decimals, note)


def vector(name_latex: str, name_text: str, v: Any, unit: str = "", decimals: int | None = 4, note: str = "") -> Quantity:
    return Quantity(Math(name_latex, name_text), np.asarray(v, dtype=float), unit, decimals, note)


def scalar(name_latex: str, name_text: str, v: float, unit: str = "", decimals: int | None = None, note: str = "") -> Quantity:
    return Quantity(Math(name_latex, name_text), float(v), unit, decimals, note)


def convention(robot: Robot, kind: str) -> tuple[str, Math]:
    return CONVENTIONS.get(kind, CONVENTIONS["generic"])
