"""The Robot tab's equivalent-DH card: the standard or modified DH table with the same FK as
the current robot (`km.to_dh`, so a URDF or link-frame robot has one too), read-only, with the
base and tool that take up the rest — or, when no table exists (a helical joint), the reason.

`dh_view` computes what the card shows (pure, tested directly); `DHCard` lays it out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from nicegui import ui

import kinematica as km
from kinematica import spatial
from kinematica.kinematics import dh_unavailable

from .panel import tag
from .robotedit import number_text

CONVENTION_NAMES = {"dh": "standard", "mdh": "modified (Craig)"}
# column key, header, angle?; modified DH's row i holds α_(i−1), a_(i−1) before θ_i, d_i
COLUMNS = {"dh": (("theta", "θ offset", True), ("d", "d", False), ("a", "a", False), ("alpha", "α", True)),
           "mdh": (("alpha", "α_(i−1)", True), ("a", "a_(i−1)", False), ("theta", "θ offset", True),
                   ("d", "d", False))}


@dataclass(frozen=True)
class DHView:
    """What the card shows: headers and rows of text, the base and tool lines, or `reason`."""

    convention: str
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    placement: tuple[str, ...] = ()
    reason: str = ""


def default_convention(robot: km.Robot) -> str:
    """The convention the card opens on: the other one when the robot's own table is DH."""
    return "dh" if robot.table is None or robot.table.kind != "dh" else "mdh"


def _placement(T: np.ndarray, unit: str) -> str:
    xyz = ", ".join(number_text(round(v, 6)) for v in T[:3, 3])
    rpy = ", ".join(number_text(round(v, 4)) for v in np.degrees(spatial.matrix_to_rpy(T[:3, :3])))
    return f"({xyz}) {unit}, roll-pitch-yaw ({rpy})°"


def dh_view(robot: km.Robot, convention: str) -> DHView:
    """The equivalent table of `robot` in `convention` ("dh" or "mdh") as text: θ and α in
    degrees, d and a in the robot's length unit (d is the joint offset of a prismatic joint).

    >>> dh_view(km.load("planar-3r"), "dh").rows[0][1:]  # θ offset 0°, d 0, a 20 mm, α 0°
    ('revolute', '0', '0', '20', '0')
    """
    why = dh_unavailable(robot)
    if why:
        return DHView(convention, reason=f"No DH table has the same motion: {why}.")
    table = km.to_dh(robot, convention)
    cols = COLUMNS[convention]
    unit = robot.length_unit
    headers = ("joint", "type") + tuple(f"{h} ({'°' if angle else unit})" for _, h, angle in cols)
    rows = tuple((name, r["type"]) + tuple(
        number_text(round(float(np.degrees(r[k])) if angle else float(r[k]), 4 if angle else 6)) for k, _, angle in cols)
        for name, r in zip(robot.joint_names, table.parameter_table.as_dicts(), strict=True))
    placement = (f"Base (frame 0 in the world): {_placement(table.base, unit)}.",
                 f"Tool (in frame {robot.n}): {_placement(table.tool, unit)}.")
    return DHView(convention, headers, rows, placement)


class DHCard:
    """The card: a convention toggle above the table (or the reason there is none)."""

    def __init__(self, robot: km.Robot) -> None:
        self.robot = robot
        with tag(ui.card(), "dh-card").classes("w-full p-3 gap-2"):
            with ui.row().classes("w-full items-center gap-3"):
                ui.label("Equivalent DH table (same motion, read-only)").classes("text-subtitle2")
                self.toggle = tag(ui.toggle(CONVENTION_NAMES, value=default_convention(robot),
                                            on_change=lambda e: self.show(e.value)), "dh-convention").props("dense no-caps")
            self.box = ui.column().classes("w-full gap-1")
        self.show(self.toggle.value)

    def show(self, convention: str) -> None:
        view = dh_view(self.robot, convention)
        self.box.clear()
        with self.box:
            if view.reason:
                tag(ui.label(view.reason), "dh-reason").classes("text-sm text-grey-8")
                return
            with ui.grid(columns=len(view.headers)).classes("gap-x-4 gap-y-1 text-sm"):
                for h in view.headers:
                    ui.label(h).classes("text-xs font-medium text-grey-8")
                keys = ("name", "type") + tuple(k for k, _, _ in COLUMNS[convention])
                for i, row in enumerate(view.rows):
                    for key, text in zip(keys, row, strict=True):
                        tag(ui.label(text), f"dh-cell-{i + 1}-{key}")
            for line in view.placement:
                ui.label(line).classes("text-xs text-grey-8")
