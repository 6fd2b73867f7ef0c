"""The 3-D view: the arm drawn in NiceGUI's `ui.scene` (three.js, z up).

Links are cylinders along the skeleton of `kinematica.viz.geometry.arm_geometry` (a DH offset d
drawn along its joint axis before the link length a, as in the table), revolute joints short
orange cylinders along their axes (prismatic ones a box), the tool a red sphere, a pedestal
under the base; optional RGB axes (x red, y green, z blue) at the base, every link frame and the
tool; the IK target as a translucent sphere (with axes for an orientation); IK solutions as
translucent ghosts numbered at their tools; the physical arm of the Robot link as `mirror` draws it;
a planned path as a trail of ghosts and the tool's dotted path (`trail`).

The view is the orbitable 3-D one or an orthographic XY / XZ / YZ projection (`camera`); in
IK mode the target marker and its orientation handles (`handles`) can be dragged.

The robot as it looks (`robot.visuals`: meshes and primitives, `looks`) or its skeleton, one at
a time (the Looks / Skeleton toggle on the view). Scene units are grid squares (`grid`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from nicegui import events, ui

import kinematica as km
from kinematica.model.visual import gripper_fraction, lowest_point, missing_bodies
from kinematica.viz.geometry import arm_geometry

from . import camera
from .collision import CollisionShapes
from .ghosts import MAX_GHOSTS, apex, drawn_and_listed, label_spots, same_drawing
from .grid import GridScale, along, turn_y_to
from .handles import AXIS_INDEX, handle_points
from .looks import Looks, gripper_slider
from .mirror import LOOKS, MIRROR, MirrorArm  # noqa: F401  (MIRROR: re-exported)
from .trail import Trail

LINK, JOINT, BASE, TOOL = "#37474f", "#fb8c00", "#90a4ae", "#e53935"
TARGET = "#d81b60"
AXES = ("#e53935", "#43a047", "#1e88e5")  # x, y, z
GHOSTS = ("#1e88e5", "#43a047", "#8e24aa", "#00897b", "#f4511e", "#6d4c41", "#3949ab", "#c0ca33")
OUTSIDE = "#9e9e9e"  # ghosts of solutions outside the joint limits
BACKGROUND = "#f5f7fa"
CLOUD = [0.55, 0.7, 0.95]  # the workspace overlay's dots (RGB 0–1, as three.js takes them)
GRID, GRID_AXIS = "#d5dbe1", "#9aa7b4"  # grid lines, and the axes through the base
LABEL_STYLE = "color: #607080; font-weight: 700; font-size: 15px; text-shadow: 0 0 3px #fff"


class ArmView:
    """The scene of one robot. Build it inside a NiceGUI container, then call `show(q)`,
    `show_frames`, `show_target` and `show_ghosts` as the state changes, `set_projection` to
    look from elsewhere.

    In IK mode the target marker can be dragged, and its orientation handles too:
    `on_target_drop(position)` gets where the marker was dropped (robot units, the coordinate a
    projection hides kept), `on_handle_drop(axis, direction)` the way a handle now points from
    the marker's centre."""

    def __init__(self, robot: km.Robot, q: np.ndarray, *, projection: str = "3d", looks: bool = True,
                 collision: bool = False, on_looks: Callable[[bool], None] | None = None,
                 on_target_drop: Callable[[np.ndarray], None] | None = None,
                 on_handle_drop: Callable[[str, np.ndarray], None] | None = None,
                 height: str = "calc(100vh - 196px)") -> None:
        self.robot = robot
        self.grid = GridScale.for_robot(robot)
        self.projection = camera.check(projection)
        self.on_target_drop, self.on_handle_drop = on_target_drop, on_handle_drop
        self.on_other_drop: Callable[[str, np.ndarray], bool] | None = None
        self.height = height
        self.radius = 0.035 * self.grid.reach / self.grid.step
        self.q = np.asarray(q, float)
        self.frames_on = False
        self.target_T: np.ndarray | None = None  # what the marker shows (robot units), None hidden
        self.target_oriented = False
        self.handle_axes: tuple[str, ...] = ()
        self.ghost_args: tuple = ([], None, False)
        self.cloud_args: tuple[np.ndarray, float] | None = None  # (points, size) of the workspace overlay, None: hidden
        self.cloud = None
        self.ghosts: list = []
        self.ghost_points = np.zeros((0, 3))  # the skeletons of the ghosts drawn (scene units)
        self.mirror_args: list[tuple[str, np.ndarray]] = []  # the physical arm(s) drawn (Robot link)
        self.mirrors: dict[str, MirrorArm] = {}
        self.trail_args: tuple[np.ndarray, np.ndarray] | None = None  # a planned path's (ghost qs, tool dots)
        self.trail: Trail | None = None
        self.ghost_note = None
        # what the robot looks like (robot.visuals) or its kinematic skeleton; the floor goes
        # under the lowest base shape (a Puma's pedestal), never above the base frame
        self.meshes_on = bool(robot.visuals) and looks
        self.on_looks = on_looks  # told when the user picks Looks (True) or Skeleton
        self.grip = gripper_fraction(robot)
        low = lowest_point(robot)
        self.floor = min(0.0, low) / self.grid.step if low is not None else 0.0
        self.collision = CollisionShapes(self, collision)  # the collision shapes over the arm
        # the camera type is fixed when a scene is built: a projection change rebuilds it in here
        self.box = ui.element("div").classes("w-full")
        self._build()

    def set_projection(self, projection: str) -> None:
        """Look from another projection (a key of PROJECTIONS); the arm, target and ghosts
        stay as they are."""
        if camera.check(projection) == self.projection:
            return
        self.projection = projection
        self.box.clear()
        self._build()

    def _build(self) -> None:
        g = self.grid
        r = g.reach / g.step  # the reach in scene units
        ortho = camera.orthographic(self.projection)
        # our own grid of lines rather than NiceGUI's, whose opaque ground plane would hide
        # whatever is below the base (a Puma's elbow-down branch: its base frame is at the shoulder)
        with self.box.classes("relative"):
            with ui.row().classes("absolute top-2 left-2 z-10 items-center gap-2"):
                if self.robot.visuals:  # as the robot looks, or its kinematic skeleton
                    ui.toggle({"meshes": "Looks", "skeleton": "Skeleton"},
                              value="meshes" if self.meshes_on else "skeleton",
                              on_change=lambda e: self._looks_picked(e.value == "meshes")) \
                        .props('dense no-caps size=sm data-testid="view-looks"').mark("view-looks")
                gripper_slider(self.robot, self.grip, self.show_gripper)
                ui.button(icon="center_focus_strong", on_click=lambda: self.reframe()) \
                    .props('dense flat round size=sm data-testid="view-reframe"').mark("view-reframe") \
                    .tooltip("frame the arm and the target")
            ui.label(camera.hint(self.projection)).classes("absolute top-2 right-3 z-10 text-xs text-grey-6") \
                .mark("view-hint")
            self.ghost_note = ui.label("").classes("absolute bottom-2 left-2 z-10 text-xs text-grey-8 "
                                                   "bg-white/80 rounded px-2").mark("ghost-note")
            self.ghost_note.props('data-testid="ghost-note"').set_visibility(False)
            points, pad = self._frame_points(), self._pad
            self.camera_pose = camera.framing(self.projection, r, points, self.floor, pad)
            self.scene = (ui.scene(grid=False, camera=camera.make_camera(self.projection, r, self.floor, points, pad),
                                   background_color=BACKGROUND, on_drag_end=self._dropped,
                                   control_type="map" if ortho else "orbit")
                          .classes("w-full").style(f"height: {self.height}; min-height: 420px")
                          .mark("arm-scene"))
        if ortho:
            self.scene.on("init", lambda: camera.lock_rotation(self.scene))
        with self.scene:
            for a, b, axis in camera.grid_segments(self.projection, g.cells, self.floor):
                self.scene.line(a.tolist(), b.tolist()).material(GRID_AXIS if axis else GRID)
            for name, p in camera.axis_labels(self.projection, g.cells, self.floor):
                self.scene.text(name, LABEL_STYLE).move(*p)
            self._arm_objects()
            self.target = self.scene.group()
            with self.target:
                self.target_ball = self.scene.sphere(2.0 * self.radius, 24, 16).material(TARGET, 0.45)
                self.target_axes = self._axes(0.28 * r)
            self.handles = {a: self.scene.sphere(1.1 * self.radius, 16, 12).material(colour, 0.8)
                            for a, colour in (("x", AXES[0]), ("z", AXES[2]))}
        self.ghosts, self.mirrors = [], {}
        self.collision.rebuilt()
        self.show(self.q)
        self.show_frames(self.frames_on)
        self.show_target(self.target_T, self.target_oriented, self.handle_axes)
        self.show_ghosts(*self.ghost_args)
        self.cloud = None  # the old scene took it along
        self.show_workspace(*(self.cloud_args or (None, 0.0)))
        self.show_mirror(self.mirror_args)
        self.trail = None  # the old scene took it along
        self.show_trail(*(self.trail_args or (None, None)))

    def _arm_objects(self) -> None:
        """The pedestal, links, joints, tool and frames (placed by `show`)."""
        k = len(arm_geometry(self.robot, self.q).skeleton)
        self.pedestal = (self.scene.cylinder(1.0, 1.15, 1.0, 32).material(BASE)
                         .scale(3.2 * self.radius, 0.9 * self.radius, 3.2 * self.radius))
        # a base frame above the floor (the Puma's, at its shoulder) stands on a plain post
        self.post = self.scene.cylinder(1.3 * self.radius, 1.3 * self.radius, 1.0, 24).material(BASE)
        self.post_on = False
        self.link_on = [True] * (k - 1)  # links of non-zero length (`_place_skeleton`)
        self.links = [self.scene.cylinder(self.radius, self.radius, 1.0, 16).material(LINK)
                      for _ in range(k - 1)]
        self.joints = [(self.scene.cylinder(1.0, 1.0, 1.0, 24) if rev else self.scene.box(1.0, 1.0, 1.0))
                       .material(JOINT).scale(1.5 * self.radius, 3.0 * self.radius, 1.5 * self.radius)
                       for rev in self.robot.revolute]
        self.tool = self.scene.sphere(1.25 * self.radius, 24, 16).material(TOOL)
        self.frames = [self._axes(0.22 * self.grid.reach / self.grid.step) for _ in range(self.robot.n + 2)]
        self.looks = Looks(self.scene, self.robot.visuals, self.robot.n + 1, self.grid.step) if self.robot.visuals else None
        # a body without a visual shape (its mesh file missing) keeps a link of the skeleton
        self.bare = {k: self.scene.cylinder(self.radius, self.radius, 1.0, 16).material(LINK)
                     for k in (missing_bodies(self.robot) if self.looks else ())}

    @property
    def handle_length(self) -> float:
        """How far the handles sit from the target's centre (scene units): past its axes."""
        return 0.4 * self.grid.reach / self.grid.step

    def _axes(self, length: float):
        """A group of three thin cylinders along its local x (red), y (green), z (blue)."""
        group = self.scene.group()
        with group:
            for axis, colour in zip(np.eye(3), AXES, strict=True):
                mid, R, _ = along(np.zeros(3), axis * length)
                self.scene.cylinder(0.25 * self.radius, 0.25 * self.radius, length, 8) \
                    .material(colour).move(*mid).rotate_R(R)
        return group

    def _batched(self):
        """Send one update as one message where this NiceGUI has the scene's batching."""
        batch = getattr(self.scene, "_batch_calls", None)
        return batch() if batch is not None else _Null()

    def show(self, q: np.ndarray) -> None:
        """Move the drawn arm to configuration q (core units): the drawing shown (its looks or
        its skeleton) and the link frames; the hidden drawing catches up when it is shown."""
        self.q = np.asarray(q, float)
        geom = arm_geometry(self.robot, self.q)
        to = self.grid.to_scene
        with self._batched():
            if self.frames_on:  # hidden frames are placed when shown: half a move's messages
                self._place_frames(geom.frames)
            looks = self._looks_shown
            if looks is not None:
                looks.place(geom.frames, self.grip)
                origins = np.vstack([geom.base, geom.joints, geom.tool])
                for k, cyl in self.bare.items():
                    mid, R, length = along(to(origins[k]), to(origins[k + 1]))
                    cyl.move(*mid).rotate_R(R).scale(1.0, max(length, 1e-9), 1.0)
            else:
                self._place_skeleton(geom)
            self._skeleton_visible()
            self.collision.place(geom.frames)
        self._keep_in_view(to(geom.skeleton))

    @property
    def _looks_shown(self) -> Looks | None:
        """The robot's looks when they are the drawing shown (it has some, and Looks is picked)."""
        return self.looks if self.meshes_on else None

    def _place_skeleton(self, geom) -> None:
        to = self.grid.to_scene
        pts = to(geom.skeleton)
        base = geom.frames[0]
        z = base[:3, 2]
        foot = to(base[:3, 3])
        self.post_on = bool(foot[2] - self.floor > 1e-9)
        if self.post_on:  # the pedestal on the floor, a post up to the base frame
            foot = np.array([foot[0], foot[1], self.floor])
            mid, R, length = along(foot, to(base[:3, 3]))
            self.post.move(*mid).rotate_R(R).scale(1.0, length, 1.0)
            z = np.array([0.0, 0.0, 1.0])
        self.pedestal.move(*(foot + z * (0.45 * self.radius if self.post_on else -0.45 * self.radius))) \
            .rotate_R(turn_y_to(z))
        self.link_on = []
        for cyl, a, b in zip(self.links, pts[:-1], pts[1:], strict=True):
            mid, R, length = along(a, b)
            cyl.move(*mid).rotate_R(R).scale(1.0, max(length, 1e-9), 1.0)
            self.link_on.append(length > 1e-9)
        for joint, p, axis in zip(self.joints, to(geom.joints), geom.axes, strict=True):
            joint.move(*p).rotate_R(turn_y_to(axis))
        self.tool.move(*to(geom.tool))

    def _skeleton_visible(self) -> None:
        """Looks or skeleton: one of the two drawings of the arm at a time (a link of no length
        hidden in the skeleton)."""
        looks = self._looks_shown is not None
        for obj in (self.pedestal, self.tool, *self.joints):
            obj.visible(not looks)
        self.post.visible(self.post_on and not looks)
        for cyl, on in zip(self.links, self.link_on, strict=True):
            cyl.visible(on and not looks)
        if self.looks is not None:
            self.looks.visible(looks)
        for cyl in self.bare.values():
            cyl.visible(looks)

    def show_gripper(self, value: float) -> None:
        """Open or close the gripper's fingers to servo `value` (its robot file's servo units)."""
        self.grip = gripper_fraction(self.robot, value)
        looks = self._looks_shown
        if looks is not None:
            with self._batched():
                looks.place(arm_geometry(self.robot, self.q).frames, self.grip)

    def show_meshes(self, on: bool) -> None:
        """Draw the robot as it looks (its visual shapes and meshes) or as its kinematic skeleton."""
        self.meshes_on = bool(on)
        self.show(self.q)  # places the drawing now shown, then swaps what is visible

    def _looks_picked(self, on: bool) -> None:
        self.show_meshes(on)
        if self.on_looks is not None:
            self.on_looks(on)

    def show_frames(self, on: bool) -> None:
        self.frames_on = bool(on)
        with self._batched():
            if self.frames_on:
                self._place_frames(arm_geometry(self.robot, self.q).frames)
            for f in self.frames:
                f.visible(self.frames_on)

    def _place_frames(self, frames: np.ndarray) -> None:
        to = self.grid.to_scene
        for group, F in zip(self.frames, frames, strict=True):
            group.move(*to(F[:3, 3])).rotate_R(F[:3, :3].tolist())

    def show_target(self, T: np.ndarray | None, oriented: bool = False, handles: tuple[str, ...] = ()) -> None:
        """The target marker at pose T (robot units), with axes when `oriented` and drag handles
        on the `handles` axes ("x", "z"); None hides it. A shown marker can be dragged."""
        self.target_T = None if T is None else np.asarray(T, float).copy()
        self.target_oriented, self.handle_axes = bool(oriented), tuple(handles)
        with self._batched():
            # hidden objects are still hit by three.js' ray casting: only what is shown may be dragged
            self.target.visible(T is not None).draggable(T is not None)
            usable = self._usable_handles()
            for axis, ball in self.handles.items():
                on = axis in usable
                ball.visible(on).draggable(on)
            if self.target_T is None:  # (None exactly when T is)
                return
            center = self.grid.to_scene(self.target_T[:3, 3])
            self.target.move(*center).rotate_R(self.target_T[:3, :3].tolist())
            self.target_axes.visible(self.target_oriented)
            spots = handle_points(center, self.target_T[:3, :3], self.handle_length, usable)
            for axis, p in spots.items():
                self.handles[axis].move(*p)
        self._keep_in_view()  # a target out of the view brings the camera along

    def _target_points(self) -> np.ndarray:
        """The target marker's centre and its usable handles (scene units), none when hidden."""
        if self.target_T is None:
            return np.zeros((0, 3))
        center = self.grid.to_scene(self.target_T[:3, 3])
        spots = handle_points(center, self.target_T[:3, :3], self.handle_length, self._usable_handles())
        return np.array([center, *spots.values()])

    @property
    def _pad(self) -> float:
        """How far the drawing may stand out of the arm's points (scene units): the links'
        thickness, with room for the shapes of its looks (a gripper, a pedestal's rim)."""
        return 0.1 * self.grid.reach / self.grid.step

    def _frame_points(self, arm: np.ndarray | None = None) -> np.ndarray:
        """Everything the view must show (scene units): the arm's skeleton at its q (`arm` when
        the caller has it already), the ghosts drawn, the IK target and its handles."""
        if arm is None:
            arm = self.grid.to_scene(arm_geometry(self.robot, self.q).skeleton)
        trail = self.trail.points if self.trail is not None else np.zeros((0, 3))
        return np.vstack([arm, self.ghost_points, self._target_points(), trail])

    def _keep_in_view(self, arm: np.ndarray | None = None) -> None:
        """Reframe when part of the arm (`arm`: its skeleton, when known), a ghost or the target
        has left the view."""
        pose, size = self.camera_pose
        pad = self._pad
        if camera.outside(pose, size, self.projection, self._frame_points(arm), pad):
            self.reframe()

    def reframe(self) -> None:
        """Move the camera so that it shows the arm at its q, its ghosts, the floor under it and
        the IK target."""
        r = self.grid.reach / self.grid.step
        self.camera_pose = camera.framing(self.projection, r, self._frame_points(), self.floor, self._pad)
        pose = self.camera_pose[0]
        self.scene.move_camera(*pose.position, *pose.look_at, *pose.up, duration=0.4)

    def _usable_handles(self) -> tuple[str, ...]:
        """The handles to offer: in a projection not one whose axis points at the viewer (it
        would sit on the marker, catch its drags, and could only be tilted out of the plane)."""
        if self.target_T is None:
            return ()
        hidden = camera.hidden_axis(self.projection)
        return tuple(a for a in self.handle_axes
                     if hidden is None or abs(self.target_T[hidden, AXIS_INDEX[a]]) < math.cos(math.radians(20)))

    def _dropped(self, e: events.SceneDragEventArguments) -> None:
        """The marker or a handle was dropped: report it in robot terms, then put the marker
        back where the target is (the callbacks redraw it if they accept the drop). Another
        object's drop goes to `on_other_drop(object id, position in robot units)`, which says
        whether it was its own (the workspace's obstacles)."""
        where = np.array([e.x, e.y, e.z], dtype=float)
        if self.on_other_drop is not None and self.on_other_drop(e.object_id, self.grid.from_scene(where)):
            return
        if self.target_T is None:
            return
        T = self.target_T
        axis = next((a for a, ball in self.handles.items() if ball.id == e.object_id), None)
        try:
            if e.object_id == self.target.id and self.on_target_drop is not None:
                p = self.grid.from_scene(where)
                hidden = camera.hidden_axis(self.projection)
                if hidden is not None:  # a drag in a projection moves in its plane only
                    p[hidden] = T[hidden, 3]
                self.on_target_drop(p)
            elif axis is not None and self.on_handle_drop is not None:
                self.on_handle_drop(axis, where - self.grid.to_scene(T[:3, 3]))
        except ValueError as err:  # e.g. a handle dropped on the centre: nothing changes
            ui.notify(f"Target not changed: {err}", type="warning")
        if self.target_T is T:  # not redrawn by a callback: snap back
            self.show_target(T, self.target_oriented, self.handle_axes)

    def show_ghosts(self, solutions: list, current: np.ndarray | None = None, outside: bool = False) -> None:
        """Translucent arms for `solutions` (objects with q and within_limits), numbered 1, 2, …
        as in the list, each number beside its own ghost's tool (`ghosts.label_spots`); the one at
        `current` (the arm itself) gets only its number, those outside the joint limits are drawn
        only when `outside`, and at most `MAX_GHOSTS` at once (the others are named in a note
        on the view). An empty list removes them."""
        self.ghost_args = (solutions, current, outside)
        to = self.grid.to_scene
        drawn, listed = drawn_and_listed(same_drawing(self.robot, solutions, outside))
        geoms = [arm_geometry(self.robot, solutions[g[0]].q) for g in drawn]
        self.ghost_points = np.vstack([np.zeros((0, 3)), *(self.grid.to_scene(g.skeleton) for g in geoms)])
        tools = np.array([to(g.tool) for g in geoms]).reshape(-1, 3)
        elbows = np.array([apex(to(g.skeleton)) for g in geoms]).reshape(-1, 3)
        spots = label_spots(tools, elbows, 3.0 * self.radius)
        with self._batched(), self.scene:
            for obj in self.ghosts:
                obj.delete()
            self.ghosts = []
            for members, geom, tool, (spot, leader) in zip(drawn, geoms, tools, spots, strict=True):
                first = solutions[members[0]]
                colour = GHOSTS[members[0] % len(GHOSTS)] if first.within_limits else OUTSIDE
                pts = to(geom.skeleton)
                body = current is None or not any(np.allclose(solutions[i].q, current, atol=1e-9)
                                                   for i in members)
                group = self.scene.group()
                with group:
                    for a, b in itertools.pairwise(pts) if body else ():
                        mid, R, length = along(a, b)
                        if length > 1e-9:
                            self.scene.cylinder(0.8 * self.radius, 0.8 * self.radius, length, 12) \
                                .material(colour, 0.45).move(*mid).rotate_R(R)
                    if body:
                        self.scene.sphere(0.9 * self.radius, 12, 8).material(colour, 0.55).move(*tool)
                    if leader:
                        self.scene.line(tool.tolist(), spot.tolist()).material(colour)
                    self.scene.text(" · ".join(str(i + 1) for i in members),
                                    f"color: {colour}; font-weight: 700; font-size: 16px; "
                                    "text-shadow: 0 0 3px #fff, 0 0 3px #fff").move(*spot)
                self.ghosts.append(group)
        if self.ghost_note is not None:
            self.ghost_note.set_text("" if not listed else
                                     f"{len(drawn)} ghosts drawn (at most {MAX_GHOSTS}); not drawn: "
                                     + ", ".join(str(i + 1) for i in listed))
            self.ghost_note.set_visibility(bool(listed))
        self._keep_in_view()

    def show_trail(self, qs: np.ndarray | None, tool: np.ndarray | None = None) -> None:
        """A planned path (`trail.Trail`): translucent arms at `qs` (g, n, core units) and the
        tool's path through `tool` (m, 3, robot units); None removes it."""
        self.trail_args = None if qs is None else (np.asarray(qs, float), np.asarray(tool, float))
        if self.trail is not None:
            self.trail.delete()
            self.trail = None
        if self.trail_args is not None:
            with self._batched(), self.scene:
                self.trail = Trail(self.scene, self.grid, self.robot, self.radius, *self.trail_args)
            self._keep_in_view()

    def show_workspace(self, points: np.ndarray | None, size: float = 0.0) -> None:
        """The workspace overlay: `points` (k, 3, robot units; voxel centres of the envelope) as
        dots of `size` (robot units); None removes it."""
        self.cloud_args = None if points is None else (points, size)
        if self.cloud is not None:
            self.cloud.delete()
            self.cloud = None
        if points is not None and len(points):
            with self.scene:
                self.cloud = self.scene.point_cloud(self.grid.to_scene(points).tolist(), [CLOUD] * len(points),
                                                    point_size=size / self.grid.step)

    def show_mirror(self, arms: Sequence[tuple[str, np.ndarray]]) -> None:
        """The physical arm beside the plan (`mirror`): (name, q) for each arm to draw — "arm" (the
        Braccio, commanded), or "measured" and "commanded" (an arm that reads its joints); each
        is built once and moved after. An empty list removes them."""
        self.mirror_args = [(name, np.asarray(q, float)) for name, q in arms]
        with self._batched(), self.scene:
            for name in [n for n in self.mirrors if n not in dict(self.mirror_args)]:
                self.mirrors.pop(name).delete()
            for name, q in self.mirror_args:
                if name not in self.mirrors:
                    self.mirrors[name] = MirrorArm(self.scene, self.grid, self.robot, self.radius, LOOKS[name])
                self.mirrors[name].place(q)

class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False
