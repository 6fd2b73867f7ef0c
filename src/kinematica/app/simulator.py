"""The Simulator tab: the robot choice, the FK/IK mode, the joint panel, the pose readout, the
IK panel, the workspace (a scene around the arm: `workspace.py`, with its Plan row: `plancard.py`)
and the 3-D view of one session.

A panel reports what the user did, the session changes, this tab shows the new state, and
`page.changed` tells the other tabs (and the saved project) what changed.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
from nicegui import events, ui

import kinematica as km

from . import stream
from .chains import ChainPicker, default_tip, urdf_tips
from .handles import HANDLES, length_digits, moved, turned
from .modelfile import ModelLoader
from .packages import SERVER_FOLDERS, missing_meshes, one_notice, server_dirs
from .panel import IKPanel, JointPanel, ReadoutPanel, tag
from .plancard import PlanControl
from .player import Player
from .poses import PosesCard
from .robotlink import RobotLink
from .robotzip import RobotZip
from .scene import ArmView
from .state import PROJECTIONS, TargetSpec, robot_choices
from .tab import PageHost
from .uploads import FileDrop
from .workspace import Workspace


class SimulatorTab:
    """The Simulator tab: robot choice, FK/IK mode, joints, readout, IK panel, the 3-D view."""

    view: ArmView  # made anew by each `build`, the first before __init__ returns (the `tab.Host` view)

    def __init__(self, page: PageHost) -> None:
        self.page = page
        self.session = page.session
        self._drawn: tuple = ()  # what the ghosts show: (solutions, outside, current index)
        with ui.row().classes("w-full no-wrap items-start gap-3"):
            self.controls = ui.column().classes("w-[480px] shrink-0 gap-2 overflow-y-auto p-1") \
                .style("max-height: calc(100vh - 84px)")
            self.stage = ui.column().classes("grow gap-1 min-w-0")
        with ui.dialog() as self.open_dialog, ui.card().classes("w-96"):
            ui.label("Open a robot file").classes("text-subtitle2")
            ui.label("A YAML robot file (see the README's Robot files), a URDF, or a .zip of a URDF "
                     "with its package folder (for its package:// meshes); it joins the robot list for "
                     "this tab.").classes("text-sm text-grey-8")
            self.robot_drop = FileDrop("robot-upload", "drop a .yaml, .urdf or .zip file here, or press +",
                                       ".yaml,.yml,.urdf,.zip", self.upload)
            self.package_dir = tag(ui.input("package folder on the server's machine (optional)"), "package-dir") \
                .classes("w-full").props("dense clearable").tooltip(
                    "for a .urdf: a folder that is, or holds, the packages its package:// meshes name")
            self.package_dir.set_visibility(SERVER_FOLDERS["allowed"])
        self.chains, self.tree = ChainPicker(self.open_chain), ("", b"", None, ())
        self.zips = RobotZip(self.open_unpacked)
        self.link = RobotLink(self)  # outlives the rebuilds for another robot
        self.workspace = Workspace(self)  # kept across rebuilds: the scene stays open
        self.planning = PlanControl(self, self.path_loaded)  # kept across rebuilds: a plan in flight stays
        self.models = ModelLoader(self, lambda: self.ik.offer_model(self.session))  # learned IK models, per robot
        self.build()

    # --- building -------------------------------------------------------------------------
    def build(self) -> None:
        """(Re)build panels and view for the session's robot."""
        s = self.session
        self.controls.clear()
        self.stage.clear()
        with self.stage:
            self.view = ArmView(s.robot, s.q, projection=s.view.projection, looks=s.view.looks,
                                collision=s.view.collision, on_looks=self.show_looks,
                                on_target_drop=self.target_dropped, on_handle_drop=self.handle_dropped)
            self.player = Player(self, self.workspace.first_collision)  # under the view: play the pose list
            # the caption wraps, the controls keep their width: a long robot name had pushed the
            # workspace checkbox past the view's right edge
            with ui.row().classes("w-full items-center no-wrap gap-3 text-sm text-grey-8"):
                tag(ui.label(f"{s.robot.name}: {s.robot.n} joints, lengths in {s.robot.length_unit}; "
                             f"{self.view.grid.caption}"), "scene-caption").classes("min-w-0")
                ui.space()
                tag(ui.select(PROJECTIONS, value=s.view.projection, label="view",
                              on_change=lambda e: self.set_projection(e.value)), "view-projection") \
                    .props("dense").classes("w-32 shrink-0")
                tag(ui.checkbox("link frames", value=s.view.frames,
                                on_change=lambda e: self.show_frames(bool(e.value))), "frames").classes("shrink-0")
                tag(ui.checkbox("collision shapes", value=s.view.collision,
                                on_change=lambda e: self.show_collision(bool(e.value))), "collision-shapes") \
                    .classes("shrink-0").tooltip("what collision checks use: translucent capsules over the arm")
                with tag(ui.checkbox("workspace", value=False, on_change=lambda e: self.show_workspace(bool(e.value))),
                         "workspace").classes("shrink-0"):
                    # above the box, its right edge on the box's: it stays on the page
                    ui.tooltip("the envelope: voxels reached by 20 000 random configurations within the limits") \
                        .props('anchor="top right" self="bottom right" max-width="300px"').mark("workspace-tip")
        with self.controls:
            with ui.card().classes("w-full px-3 py-2 gap-1"):
                with ui.row().classes("w-full items-center no-wrap gap-2"):
                    tag(ui.select(robot_choices(s.loaded), value=s.robot_name, label="robot",
                                  on_change=lambda e: self.switch_robot(e.value)), "robot-select") \
                        .classes("grow").props("dense")
                    tag(ui.button(icon="upload_file", on_click=self.open_dialog.open), "open-robot-file") \
                        .props("flat round dense").tooltip("open a robot file (.yaml, .urdf)")
                    tag(ui.toggle({"fk": "FK", "ik": "IK"}, value=s.mode,
                                  on_change=lambda e: self.set_mode(e.value)), "mode") \
                        .props("no-caps unelevated toggle-color=primary").tooltip(
                            "FK: move the joints and read the pose; IK: give a pose and solve for the joints")
                if s.robot.description:
                    ui.label(s.robot.description).classes("text-xs text-grey-7 ellipsis w-full") \
                        .tooltip(s.robot.description)
            # in IK mode the target, Solve and the verdict come first: above the fold at 800 px
            self.ik_card = ui.card().classes("w-full p-3 gap-2")
            with self.ik_card:
                ui.label("Inverse kinematics").classes("text-subtitle2")
                self.ik = IKPanel(s, self.target_changed, self.solve, self.target_from_tool,
                                  self.method_changed, self.adopt, self.ghosts_outside, self.models.seed_changed)
                self.models.row()
            with ui.card().classes("w-full p-3 gap-1"):
                with ui.row().classes("w-full items-center"):
                    ui.label("Joints").classes("text-subtitle2")
                    ui.space()
                    tag(ui.button("home", icon="home", on_click=self.home), "home").props("flat dense no-caps")
                self.joints = JointPanel(s, self.joint_changed)
            with ui.card().classes("w-full p-3 gap-1"):
                ui.label("End effector").classes("text-subtitle2")
                self.readout = ReadoutPanel(s.robot.length_unit)
            self.poses = PosesCard(self, self.player)
            self.link.card()
            with self.workspace.card():
                self.planning.card()
        self.view.show_frames(s.view.frames)
        self.workspace.draw()
        self.refresh()
        self._show_mode()

    def update(self, what: set[str]) -> None:
        """Another tab changed the session: rebuild for a new robot, show a new q."""
        if self.view.robot is not self.session.robot:
            self.build()
        elif "q" in what:
            self.player.external(what)  # another control moved the arm: playback stops
            self.refresh()
        self.planning.sync(what)

    def path_loaded(self, status: str, play: bool) -> None:
        """The Workspace card's Plan put a path in the session's trajectory (`play`: it plays
        now) or gave the pose list's plan back: the Poses card shows its note and files, the
        player takes it, the other tabs (Plots) hear of it."""
        self.poses.replanned(status)
        if play:
            self.player.play()
        self.page.changed("plan")

    def set_projection(self, projection: str) -> None:
        """Look at the arm in 3-D or from one of the XY / XZ / YZ planes."""
        self.session.view.projection = projection
        self.view.set_projection(projection)
        self.workspace.draw()  # the view was rebuilt: the scene's shapes go back in
        self.workspace.show(self.session.q)
        self.page.changed("view")

    def show_frames(self, on: bool) -> None:
        self.session.view.frames = bool(on)
        self.view.show_frames(on)
        self.page.changed("view")

    def show_collision(self, on: bool) -> None:
        """The arm's collision shapes over its drawing, or not (bodies in contact stay red)."""
        self.session.view.collision = bool(on)
        self.view.collision.toggle(on)
        self.page.changed("view")

    def show_looks(self, on: bool) -> None:
        """Looks or Skeleton, as the user picked: kept in the session (a reload, a project file)."""
        self.session.view.looks = bool(on)
        self.page.changed("view")

    def show_workspace(self, on: bool) -> None:
        """The envelope's voxel centres around the arm (km.workspace's preview: 20 000 samples,
        reach / 50 voxels), or none."""
        if not on:
            self.view.show_workspace(None)
            return
        from ..workspace import preview

        points, _, grid = preview(self.session.robot, 20_000, voxel=None)
        self.view.show_workspace(points, 0.5 * grid.voxel)

    def changed(self, *what: str) -> None:
        """A widget of this tab changed the session (`tab.Host`): the page tells every tab."""
        self.page.changed(*what)

    def refresh(self) -> None:
        """Show the session's joint values everywhere: sliders, fields, readout, arm."""
        s = self.session
        self.joints.show(s.display_q())
        self.readout.show(s.readout())
        self.view.show(s.q)
        self.workspace.show(s.q)
        stream.publish(s.robot, s.q, s.t if self.player.playing else None)
        if self.player.playing:
            self.page.played()

    # --- what the user did ------------------------------------------------------------------
    def switch_robot(self, name: str) -> None:
        if name and name != self.session.robot_name:
            self.session.set_robot(name)
            self.build()
            self.page.changed("robot")

    async def upload(self, e: events.UploadEventArguments) -> None:
        name, data = e.file.name, await e.file.read()  # robot files are small; a zip is bounded
        if Path(name).suffix.lower() == ".zip":
            try:
                opened = self.zips.open(name, data)
            except ValueError as err:
                self.robot_drop.refused(name, err)
                return
        else:
            try:
                dirs = server_dirs(self.package_dir.value)
            except ValueError as err:
                self.robot_drop.refused(name, err)
                return
            opened = self.open_urdf_or_yaml(name, data, dirs=dirs)
        if opened:
            self.robot_drop.accepted()
            self.open_dialog.close()

    def open_unpacked(self, name: str, urdf: Path, dirs: tuple[Path, ...]) -> bool:
        """Open `urdf`, unpacked from the zip `name`, its packages found under `dirs`."""
        shown = f"{name}/{urdf.name}"
        if not self.open_urdf_or_yaml(shown, urdf.read_bytes(), urdf, dirs):
            self.open_dialog.open()  # its refusal is said there
            return False
        return True

    def open_urdf_or_yaml(self, name: str, data: bytes, path: Path | None = None, dirs: tuple = ()) -> bool:
        """Open robot file `name` (its bytes; on disk at `path` when unpacked from a zip, its
        packages under `dirs`), or offer a URDF tree's chains: False when it is refused."""
        tips = urdf_tips(name, data)
        if len(tips) > 1:  # a tree: the user picks the chain
            self.tree = (name, data, path, dirs)
            self.chains.offer(name, tips, default_tip(name, data, tips))
            return True
        return self.open_file(name, data, path=path, dirs=dirs)

    def open_chain(self, tip: str) -> None:
        """The chain to `tip` of the URDF tree last uploaded (the chain picker's choice); a chain
        that does not open is said beside the upload widget, shown again."""
        name, data, path, dirs = self.tree
        if not self.open_file(name, data, tip=tip, path=path, dirs=dirs):
            self.open_dialog.open()

    def open_file(self, name: str, data: bytes, tip: str | None = None, path: Path | None = None,
                  dirs: tuple = ()) -> bool:
        """Open robot file `name` (its bytes, or the file at `path` unpacked from a zip with its
        packages under `dirs`), a URDF's chain to `tip`: False when it is refused (said beside the
        upload widget). What went wrong or was held is said with the file's own name, not the
        server's scratch path, and in one notification (`one_notice`), however many links lack a mesh."""
        with tempfile.TemporaryDirectory() as tmp:
            if path is None:
                path = Path(tmp) / (Path(name).stem + Path(name).suffix.lower())
                path.write_bytes(data)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", km.URDFWarning)
                try:
                    self.session.add_robot_file(path, tip=tip, package_dirs=dirs)
                except (ValueError, OSError) as err:
                    self.robot_drop.refused(name, err, path)
                    return False
            missing = missing_meshes(path, dirs) if path.suffix.lower() == ".urdf" else {}
        notice = one_notice([str(w.message).replace(str(path), name) for w in caught], missing)
        if notice:
            ui.notify(notice, type="warning", multi_line=True, timeout=0, close_button=True)
        self.build()
        self.page.changed("robot")
        return True

    def set_mode(self, mode: str) -> None:
        self.session.mode = mode
        self._show_mode()
        self.page.changed("mode")

    def _show_mode(self) -> None:
        s = self.session
        self.ik_card.set_visibility(s.mode == "ik")
        if s.mode == "ik":
            self.view.show_target(s.target.pose(), oriented=s.target.kind != "position",
                                  handles=HANDLES[s.target.kind])
            self.show_ghosts()
        else:
            self.view.show_target(None)
            self.view.show_ghosts([])
            self._drawn = ()

    def joint_changed(self, i: int, value: float) -> None:
        self.session.set_joint(i, value)
        self.refresh()
        if self.session.solutions and self._drawn != self._ghost_key():  # which solution is current changed
            self.ik.show_result(self.session, self.workspace.collisions(self.session.solutions))
            self.show_ghosts()
        self._moved()

    def home(self) -> None:
        self.session.home()
        self.refresh()
        self._moved()

    def _moved(self) -> None:
        """This tab moved the arm and has shown it: playback stops, the other tabs hear of it
        (this one's own update would draw the same q a second time: half a slider event's CPU)."""
        self.player.external({"q"})
        self.page.changed("q", by=self)

    def target_changed(self, spec: TargetSpec) -> None:
        """A target field changed: the marker follows, and old solutions no longer apply."""
        s = self.session
        s.target = spec
        s.solutions, s.message, s.status = [], "", ""
        self.ik.show_result(s, self.workspace.collisions(s.solutions))
        try:
            self.view.show_target(spec.pose(), oriented=spec.kind != "position", handles=HANDLES[spec.kind])
        except ValueError:  # e.g. a zero approach vector: the marker stays where it was
            pass
        self.show_ghosts()
        self.page.changed("target")

    def target_dropped(self, position: np.ndarray) -> None:
        """The marker was dragged to `position`: the fields follow, the arm waits for Solve
        (as after typing a target; a drag is often several tries, and a solve per try would
        jump the arm around and pile up failure messages)."""
        self._set_target(moved(self.session.target, position, length_digits(self.view.grid.step)))

    def handle_dropped(self, axis: str, direction: np.ndarray) -> None:
        """An orientation handle was dragged: its target axis now points along `direction`."""
        self._set_target(turned(self.session.target, axis, direction))

    def _set_target(self, spec: TargetSpec) -> None:
        """A target set in the view or from the tool: the fields show it, the session takes it."""
        self.ik.show_target(spec)
        self.target_changed(spec)

    def target_from_tool(self) -> None:
        self._set_target(self.session.target_from_tool())

    def method_changed(self, method: str) -> None:
        self.session.method = method
        self.page.changed("target")

    def solve(self) -> None:
        spec = self.ik.read()
        if spec is None:
            self.session.solutions = []
            self.session.say(False, "Fill in every target field first. The arm was not moved.", "error")
        else:
            self.session.target = spec
            self.session.solve()
        self.after_ik()

    def adopt(self, index: int) -> None:
        self.session.adopt(index)
        self.after_ik()

    def ghosts_outside(self, on: bool) -> None:
        self.session.ghosts_outside = bool(on)
        self.ik.show_result(self.session, self.workspace.collisions(self.session.solutions))  # its caption
        self.show_ghosts()
        self.page.changed("view")

    def _ghost_key(self) -> tuple:
        s = self.session
        current = next((i for i, sol in enumerate(s.solutions) if np.allclose(sol.q, s.q, atol=1e-9)), None)
        return id(s.solutions), s.ghosts_outside, current

    def show_ghosts(self) -> None:
        """The IK solutions as ghosts — in IK mode only: in FK mode they would be stale clutter."""
        s = self.session
        self.view.show_ghosts(s.solutions if s.mode == "ik" else [], current=s.q, outside=s.ghosts_outside)
        self._drawn = self._ghost_key()

    def after_ik(self) -> None:
        self.refresh()
        self.ik.show_result(self.session, self.workspace.collisions(self.session.solutions))
        self.show_ghosts()
        self.page.changed("q", "ik")
