"""The Poses card of the Simulator tab: "Add pose" (the arm's current joint values), the list
(name editable, go to, up / down, delete), how the list is played (joint space or a Cartesian
line / arc / spline, seconds per segment) with planning's verdict in words, and the files:
the pose list as CSV / JSON (export and import) and the planned trajectory as CSV / JSON.

After every change the list is re-planned (`playlist.replan`), the player reloaded, and the
page told ("poses" or "plan"), which saves the project.
"""

from __future__ import annotations

from nicegui import events, ui

from . import playlist
from .fields import bounded_number
from .panel import STATUS_CLASSES, tag
from .player import Player
from .posefiles import (
    PoseFileError,
    poses_from_file,
    poses_to_csv,
    poses_to_json,
    trajectory_text,
)
from .state import PLAN_KINDS, SECONDS_RANGE, FieldError, check_seconds
from .tab import Host
from .uploads import FileDrop


class PosesCard:
    """The pose list and its plan, for the session of one Simulator tab."""

    def __init__(self, host: Host, player: Player) -> None:
        self.host, self.player = host, player
        self.session = host.session
        s = self.session
        with ui.dialog() as self.import_dialog, ui.card().classes("w-96"):
            ui.label("Import poses").classes("text-subtitle2")
            ui.label(f"A CSV or JSON pose list of {s.robot.name} (joint names must match); the poses "
                     "are added to the end of the list.").classes("text-sm text-grey-8")
            self.drop = FileDrop("poses-import-upload", "drop a .csv or .json file here, or press +", ".csv,.json",
                                 self.imported)
        with ui.card().classes("w-full p-3 gap-2"):
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                ui.label("Poses and trajectories").classes("text-subtitle2")
                ui.space()
                tag(ui.button("Add pose", icon="add", on_click=self.add), "pose-add") \
                    .props("unelevated dense no-caps").tooltip("save the arm's current joint values as a pose")
            self.rows = ui.column().classes("w-full gap-1")
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                self.kind = tag(ui.select(PLAN_KINDS, value=s.plan.kind, label="play as",
                                          on_change=lambda e: self.set_kind(e.value)), "plan-kind").classes("grow")
                self.seconds = tag(bounded_number("s per segment", value=s.plan.seconds, lo=SECONDS_RANGE[0],
                                                  hi=SECONDS_RANGE[1], unit="s", step=0.5, format="%.1f",
                                                  on_change=lambda e: self.set_seconds(e.value)),
                                   "plan-seconds").classes("w-32").props("dense outlined")
            self.note = tag(ui.label(""), "plan-note").classes("w-full text-sm rounded px-3 py-2")
            with ui.row().classes("w-full items-center gap-1"):
                ui.label("poses").classes("text-xs text-grey-7 w-16")
                for fmt in ("csv", "json"):
                    tag(ui.button(fmt.upper(), icon="download", on_click=lambda _, f=fmt: self.export_poses(f)),
                        f"poses-export-{fmt}").props("flat dense no-caps").tooltip(f"download the pose list as {fmt.upper()}")
                tag(ui.button("import", icon="upload", on_click=self.import_dialog.open), "poses-import") \
                    .props("flat dense no-caps").tooltip("add poses from a CSV or JSON file")
            with ui.row().classes("w-full items-center gap-1"):
                ui.label("trajectory").classes("text-xs text-grey-7 w-16")
                self.trajectory_buttons = [
                    tag(ui.button(fmt.upper(), icon="download", on_click=lambda _, f=fmt: self.export_trajectory(f)),
                        f"trajectory-export-{fmt}").props("flat dense no-caps")
                    .tooltip(f"download the planned trajectory as {fmt.upper()} (t, q, q̇, q̈, tool pose; degrees)")
                    for fmt in ("csv", "json")]
        self.replanned(playlist.replan(s))

    # --- showing ----------------------------------------------------------------------------
    def show_list(self) -> None:
        s = self.session
        self.rows.clear()
        with self.rows:
            if not s.poses:
                ui.label("No poses yet: move the arm and press Add pose.").classes("text-sm text-grey-7")
            last = len(s.poses) - 1
            for i, pose in enumerate(s.poses):
                n = i + 1
                with tag(ui.row(), f"pose-{n}").classes("w-full items-center no-wrap gap-1"):
                    name = tag(ui.input(value=pose.name), f"pose-{n}-name").classes("grow") \
                        .props("dense outlined hide-bottom-space")
                    name.on("blur", lambda _, i=i, f=name: self.rename(i, f))
                    name.on("keydown.enter", lambda _, i=i, f=name: self.rename(i, f))
                    for icon, key, tip, action, off in (
                            ("my_location", "goto", "move the arm to this pose", self.goto, False),
                            ("arrow_upward", "up", "move up the list", lambda i: self.move(i, -1), i == 0),
                            ("arrow_downward", "down", "move down the list", lambda i: self.move(i, 1), i == last),
                            ("delete", "delete", "delete this pose", self.delete, False)):
                        b = tag(ui.button(icon=icon, on_click=lambda _, i=i, a=action: a(i)), f"pose-{n}-{key}") \
                            .props("flat round dense size=sm").tooltip(tip)
                        if off:
                            b.disable()

    def replanned(self, status: str) -> None:
        """Show the list, the plan's verdict, and hand the new trajectory to the player."""
        s = self.session
        self.show_list()
        self.note.set_text(s.trajectory_note)
        self.note.classes(replace="w-full text-sm rounded px-3 py-2 " + (STATUS_CLASSES.get(status, "") if status
                                                                     else "bg-grey-2 text-grey-8"))
        for b in self.trajectory_buttons:
            b.enable() if s.trajectory is not None else b.disable()
        self.player.reload()

    def changed(self, what: str) -> None:
        self.replanned(playlist.replan(self.session))
        self.host.changed(what)

    # --- the list ------------------------------------------------------------------------------
    def add(self) -> None:
        pose = playlist.add_pose(self.session)
        self.changed("poses")
        ui.notify(f"Added {pose.name}.", type="positive", timeout=1500)

    def rename(self, index: int, field: ui.input) -> None:
        s = self.session
        if index >= len(s.poses) or field.value == s.poses[index].name:
            return
        try:
            playlist.rename(s, index, field.value or "")
        except ValueError as e:
            ui.notify(f"Pose {index + 1} keeps its name {s.poses[index].name!r}: {e}.", type="warning")
            field.value = s.poses[index].name
            return
        field.value = s.poses[index].name
        self.host.changed("poses")  # a name does not change the trajectory: no re-plan

    def goto(self, index: int) -> None:
        s = self.session
        if self.player.playing:
            self.player.halt()
        s.set_q(s.poses[index].q)
        self.host.refresh()
        self.host.changed("q")

    def move(self, index: int, step: int) -> None:
        playlist.move(self.session, index, step)
        self.changed("poses")

    def delete(self, index: int) -> None:
        pose = playlist.delete(self.session, index)
        self.changed("poses")
        ui.notify(f"Deleted {pose.name}.", timeout=1500)

    # --- the plan ------------------------------------------------------------------------------
    def set_kind(self, kind: str) -> None:
        if kind in PLAN_KINDS and kind != self.session.plan.kind:
            self.session.plan.kind = kind
            self.changed("plan")

    def set_seconds(self, value: float | None) -> None:
        try:
            seconds = check_seconds(value)
        except FieldError:
            return  # empty or out of range while typing: keep the last good value (on blur the field clamps)
        if seconds != self.session.plan.seconds:
            self.session.plan.seconds = seconds
            self.changed("plan")

    # --- files ---------------------------------------------------------------------------------
    def _stem(self) -> str:
        return self.session.robot_name.split(" ")[0]

    def export_poses(self, fmt: str) -> None:
        s = self.session
        if not s.poses:
            ui.notify("There are no poses to export yet.", type="warning")
            return
        text = (poses_to_csv if fmt == "csv" else poses_to_json)(s.robot, s.poses)
        # bytes, not str: NiceGUI's test double takes a str for a URL
        ui.download.content(text.encode("utf-8"), f"{self._stem()}-poses.{fmt}", "text/csv" if fmt == "csv" else "application/json")

    def export_trajectory(self, fmt: str) -> None:
        tr = self.session.trajectory
        if tr is None:
            ui.notify(self.session.trajectory_note or "Nothing planned to export.", type="warning")
            return
        ui.download.content(trajectory_text(tr, fmt).encode("utf-8"), f"{self._stem()}-trajectory.{fmt}",
                            "text/csv" if fmt == "csv" else "application/json")

    async def imported(self, e: events.UploadEventArguments) -> None:
        s = self.session
        try:
            new = poses_from_file(s.robot, e.file.name, await e.file.read())
        except PoseFileError as err:
            self.drop.refused(e.file.name, err)
            return
        added = playlist.unique_names(s.poses, new)
        s.poses.extend(added)
        self.drop.accepted()
        self.import_dialog.close()
        self.changed("poses")
        ui.notify(f"Imported {len(added)} pose{'s' if len(added) != 1 else ''} from {e.file.name}.", type="positive")
