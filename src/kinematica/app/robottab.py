"""The Robot tab: the current robot's parameter table (DH, modified DH, planar link lengths or
link frames), joint limits, home and units, editable as text cells; Apply adds the edited robot
to the robot list and switches the simulator to it; Save YAML and Export URDF download the
robot the table describes. What the table does not show (base, tool, inertials, …) is listed
read-only and kept as it is. Below, the equivalent standard or modified DH table of any robot
(`dhcard`), or why it has none.

The form logic (cells ↔ robot, validation) is in `robotedit`; this module only lays it out.
"""

from __future__ import annotations

import numpy as np
from nicegui import ui
from nicegui.elements.mixins.validation_element import ValidationElement

import kinematica as km
from kinematica import spatial
from kinematica.model.robotfile import write_text

from . import robotedit
from .dhcard import DHCard
from .panel import STATUS_CLASSES, tag
from .robotedit import EditError, RobotForm, columns, header, unit_text
from .tab import LazyTab


def _placement_text(T: np.ndarray, unit: str) -> str:
    if np.allclose(T, np.eye(4), atol=1e-12):
        return "none (identity)"
    xyz = ", ".join(robotedit.number_text(round(v, 6)) for v in T[:3, 3])
    rpy = ", ".join(robotedit.number_text(round(v, 4)) for v in np.degrees(spatial.matrix_to_rpy(T[:3, :3])))
    return f"at ({xyz}) {unit}, turned roll-pitch-yaw ({rpy})°"


def summary(robot: km.Robot) -> list[str]:
    """Lines describing what the table leaves out: base and tool placement, inertials, drives,
    servo calibration, other file extras, and the units the cells are in."""
    lines = [f"Base: {_placement_text(robot.base, robot.length_unit)}.",
             f"Tool (from the last link frame): {_placement_text(robot.after[-1] @ robot.tool, robot.length_unit)}."]
    if robot.inertials is None:
        lines.append("Inertials: none (dynamics need masses).")
    else:
        masses = [("–" if m is None else robotedit.number_text(round(m.mass, 4))) for m in robot.inertials]
        total = sum(m.mass for m in robot.inertials if m is not None)
        lines.append(f"Inertials: link masses {', '.join(masses)} kg (total {robotedit.number_text(round(total, 4))} kg).")
    extras = [what for key, what in (("drives", "joint friction and armature"), ("servo", "servo calibration"),
                                     ("gripper", "gripper"), ("extras", "extra data"), ("notes", "notes"))
              if robot.extras.get(key)]
    if extras:
        lines.append(f"Also kept from the robot file: {', '.join(extras)}.")
    if robot.visuals:  # what the Looks view draws, and where it comes from
        source = str(robot.extras.get("visual_source", "")).rstrip(".")
        lines.append(f"Looks: {len(robot.visuals)} visual shapes" + (f" ({source})." if source else "."))
    lines.append(f"Angles in degrees, lengths in {robot.length_unit}; lower, upper and home are degrees "
                 f"for revolute joints and {robot.length_unit} for prismatic ones; an empty limit means "
                 "no limit. Changing the length unit converts every length (base, tool and centres of "
                 "mass too).")
    return lines


class RobotTab(LazyTab):
    """The editable parameter table of the session's robot and its actions."""

    name = "robot"

    def __init__(self, page) -> None:
        super().__init__(page)
        self.box = ui.column().classes("w-full gap-3")
        self.form: RobotForm | None = None
        self.robot: km.Robot | None = None  # the robot the form was made from
        self.cells: dict[tuple[int, str], ValidationElement] = {}  # inputs and selects: each shows an error

    @property
    def edited(self) -> RobotForm:
        """The form `render` made (the table's cells edit it): a RuntimeError before the first render."""
        if self.form is None:
            raise RuntimeError("the robot tab has no form before it is first shown")
        return self.form

    def update(self, what: set[str]) -> None:
        """Only a new robot makes the table stale: joint moves elsewhere keep the user's edits."""
        if self.page.session.robot is not self.robot:
            super().update(what)

    def render(self) -> None:
        robot = self.page.session.robot
        if self.form is None or robot is not self.robot:
            self.form, self.robot = robotedit.form_from_robot(robot), robot
        self.box.clear()
        with self.box:
            self._robot_fields()
            with ui.card().classes("w-full p-3 gap-2"):
                self.caption = tag(ui.label(""), "robot-table-kind").classes("text-subtitle2")
                self.table = ui.element("div").classes("w-full overflow-x-auto")
                self._table()
                self._actions()
                self.message = tag(ui.label(""), "robot-message").classes("w-full text-sm rounded px-3 py-2 hidden")
            with tag(ui.card(), "robot-summary").classes("w-full p-3 gap-1"):
                ui.label("Not in the table (kept as it is)").classes("text-subtitle2")
                for line in summary(robot):
                    ui.label(line).classes("text-sm text-grey-8")
            DHCard(robot)

    # --- layout -------------------------------------------------------------------------------
    def _robot_fields(self) -> None:
        f = self.edited
        with ui.row().classes("w-full items-start gap-3"):
            self.name_field = tag(ui.input("robot name", value=f.name, on_change=lambda e: setattr(self.form, "name", e.value or "")),
                                  "robot-name").props("dense outlined").classes("w-64")
            self.unit_field = tag(ui.select({"mm": "millimetres (mm)", "m": "metres (m)"}, value=f.length_unit,
                                            label="length unit", on_change=lambda e: self._unit(e.value)),
                                  "robot-unit").props("dense outlined").classes("w-48")
            tag(ui.input("description", value=f.description, on_change=lambda e: setattr(self.form, "description", e.value or "")),
                "robot-description").props("dense outlined").classes("grow")

    def _table(self) -> None:
        """One row of cells per joint under headers naming the convention's parameters and units."""
        f = self.edited
        self.caption.set_text(f"{robotedit.KIND_NAMES[f.kind]} — {len(f.rows)} joints")
        self.table.clear()
        self.cells.clear()
        cols = columns(f.kind)
        widths = " ".join("9rem" if c.key == "name" else "7rem" if c.key == "type" else "6rem" for c in cols)
        with self.table, ui.grid(columns=len(cols)).classes("gap-1 items-center") \
                .style(f"grid-template-columns: {widths}"):
            for c in cols:
                tag(ui.label(header(c, f)), f"robot-header-{c.key}").classes(
                    "text-xs font-medium text-grey-8").tooltip(c.hint or c.label)
            for i in range(len(f.rows)):
                for c in cols:
                    self.cells[(i, c.key)] = self._cell(i, c)

    def _cell(self, i: int, c: robotedit.Column) -> ValidationElement:
        row = self.edited.rows[i]
        marker = f"robot-cell-{i + 1}-{c.key}"
        if c.key == "type":
            return tag(ui.select(list(robotedit.TYPES), value=row["type"],
                                 on_change=lambda e, i=i: self._type(i, e.value)), marker).props("dense outlined")
        cell = tag(ui.input(value=row.get(c.key, ""), on_change=lambda e, i=i, k=c.key: self._edit(i, k, e.value)),
                   marker).props("dense outlined hide-bottom-space")
        unit = unit_text(c, self.edited.length_unit, row.get("type", "revolute"))
        if unit and c.key != "name":
            cell.props(f'suffix="{unit}"')
        return cell

    def _actions(self) -> None:
        with ui.row().classes("w-full items-center gap-2"):
            tag(ui.button("Apply", icon="check", on_click=self.apply), "robot-apply").props("unelevated no-caps") \
                .tooltip("check the table and use the edited robot in every tab")
            tag(ui.button("Revert", icon="undo", on_click=self.revert), "robot-revert").props("flat no-caps") \
                .tooltip("show the current robot's values again")
            ui.space()
            tag(ui.button("Save YAML", icon="download", on_click=self.save_yaml), "robot-save-yaml") \
                .props("flat no-caps").tooltip("download the table's robot as a robot file")
            tag(ui.button("Export URDF", icon="download", on_click=self.export_urdf), "robot-export-urdf") \
                .props("flat no-caps").tooltip("download the table's robot as URDF (metres, radians)")

    # --- what the user did ----------------------------------------------------------------------
    def _edit(self, i: int, key: str, value: str | None) -> None:
        self.edited.rows[i][key] = "" if value is None else str(value)

    def _type(self, i: int, value: str) -> None:
        self.edited.rows[i]["type"] = value
        self._table()  # the limits and home of the row change unit

    def _unit(self, unit: str) -> None:
        if unit and unit != self.edited.length_unit:
            robotedit.convert_unit(self.edited, unit)
            self._table()

    def _say(self, text: str, status: str) -> None:
        self.message.set_text(text)
        self.message.classes(replace="w-full text-sm rounded px-3 py-2 " + STATUS_CLASSES[status])

    def _clear_marks(self) -> None:
        for cell in (*self.cells.values(), self.name_field, self.unit_field):
            cell.error = None

    def _built(self) -> km.Robot | None:
        """The table's robot, or None with the error shown and its cell marked."""
        self._clear_marks()
        try:
            return robotedit.build(self.edited)
        except EditError as e:
            self._say(f"{e} Nothing was changed.", "error")
            cell = self.cells.get((e.row, e.column)) if e.row is not None and e.column is not None else \
                {"robot-name": self.name_field, "robot-unit": self.unit_field}.get(e.column or "")
            if cell is not None:
                cell.error = ""  # outlined red; the words are in the message below the table
            return None

    def apply(self) -> None:
        """Add the edited robot to the robot list (replacing an earlier edit of the same name),
        switch to it keeping the joint values it allows, and tell every tab."""
        robot = self._built()
        if robot is None:
            return
        s = self.page.session
        old, q = s.robot, s.q
        label = robotedit.edited_label(robot)
        s.loaded[label] = robot
        s.set_robot(label)
        s.q = robotedit.kept_q(old, q, robot)
        s.target = s.target_from_tool()
        self.form, self.robot = robotedit.form_from_robot(robot), robot
        self.page.changed("robot")
        self.render()  # the table as the new robot reads back (tidied numbers)
        self.stale = False
        self._say(f"Applied: every tab now uses {label!r}.", "ok")

    def revert(self) -> None:
        self.form = robotedit.form_from_robot(self.page.session.robot)
        self.render()
        self._say("Reverted to the current robot's values.", "ok")

    def save_yaml(self) -> None:
        robot = self._built()
        if robot is not None:
            ui.download.content(write_text(robot).encode(), f"{robot.name}.yaml",
                                "application/x-yaml")

    def export_urdf(self) -> None:
        robot = self._built()
        if robot is not None:
            ui.download.content(km.to_urdf(robot).encode(), f"{robot.name}.urdf", "application/xml")
