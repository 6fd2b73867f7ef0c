"""The Simulator's workspace: a scene (`kinematica.scene`) drawn around the arm and checked as
it moves.

Pick a bundled scene (or open a scene file) and which of its robots the session's arm is
("left" of two-braccios); the tab switches to that robot. The arm keeps its own frame in the
view: the world is drawn around it through the inverse of its base pose. This arm's collision
shapes (the scene's, for its seat) are the view's "collision shapes" overlay (`collision.py`:
shown on the toggle, a body in contact always, red); the other arms are drawn by their
collision shapes at their scene configurations, the obstacles as their shapes. After each move
the scene is checked at the arm's q: colliding shapes turn red and one line says what collides, or the
minimum distance in words ("left/upper arm is 50.92 mm from table") between different bodies
(an arm and an obstacle, two arms); a checkbox takes an arm's own link pairs in too.

The sliders drive one arm at a time: "this arm is" picks which, the others stay where they were
left. Obstacles move by numbers (their position, scene unit) or by dragging them in the view.
IK solutions that collide are marked in the solution list ("collides: left/gripper with
table"); the trajectory player stops at the first collision ahead (`first_collision`: the
motion checked at the scene's default resolution, half the smallest link radius). The
workspace (scene, seat, the other arms' q, obstacle poses) is saved with the project.
Limits: a scene's robots must be bundled ones (those the simulator shows), and an opened
file's meshes need absolute paths (an upload has no folder).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from nicegui import ui

import kinematica as km
from kinematica.scene import (
    SweepReport,
    check_trajectory,
    mesh_data,
    read_scene_text,
    scene_names,
)

from . import camera
from .panel import tag
from .playlist import q_at
from .scene import along
from .tab import Host
from .uploads import FileDrop

NONE = "(none)"
# (colour, opacity): the other arms, obstacles, a hit (this arm's shapes: the view's overlay)
OTHER, OBSTACLE, HIT = ("#546e7a", 0.85), ("#8d6e63", 0.45), ("#e53935", 0.7)


def seats(scene: km.Scene) -> list[str]:
    """The scene's robots a session can play: those that are bundled robots (by model name)."""
    return [name for name, e in scene.robots.items() if e.robot.name in km.robot_names()]


def status_words(check: Any, dist: Any) -> str:
    """One line: what collides, or the minimum distance in words."""
    if check.colliding:
        return "COLLISION: " + "; ".join(f"{a} with {b}" for a, b in check.collisions)
    return "no collision · " + dist.words()


class Workspace:
    """The scene around one session's arm (the session keeps it, and the project saves it);
    `draw` puts the shapes in the tab's view, `show(q)` checks and colours them."""

    def __init__(self, host: Host) -> None:
        self.host = host
        with ui.dialog() as self.open_dialog, ui.card().classes("w-96"):
            ui.label("Open a scene file").classes("text-subtitle2")
            ui.label("A YAML scene file (see docs/scenes.md) whose robots are bundled ones; mesh "
                     "obstacles need absolute paths.").classes("text-sm text-grey-8")
            self.drop = FileDrop("scene-upload", "drop a .yaml scene file here, or press +", ".yaml,.yml",
                                 self.upload)
        self.shapes: dict[str, list] = {}  # body name -> drawn objects
        self.handles: dict[str, str] = {}  # id of an obstacle's draggable object -> obstacle name
        self.status = None
        # the distance line: between different bodies (the arm and an obstacle or another arm)
        # unless the user asks for the arm's own links too — an adjacent self pair is always nearest
        self.self_pairs = False

    # the open scene and the arm's seat live in the session: saved with the project
    @property
    def scene(self) -> km.Scene | None:
        return self.host.session.scene

    @scene.setter
    def scene(self, value: km.Scene | None) -> None:
        self.host.session.scene = value

    @property
    def seat(self) -> str | None:
        return self.host.session.seat

    @seat.setter
    def seat(self, value: str | None) -> None:
        self.host.session.seat = value

    # --- the card -----------------------------------------------------------------------
    def card(self) -> ui.card:
        """The controls: scene, seat, and the status line (built inside the tab's controls);
        returns the card, for the tab to add its Plan row (`plancard`)."""
        scene = self.scene
        with ui.card().classes("w-full p-3 gap-1") as card:
            ui.label("Workspace").classes("text-subtitle2")
            with ui.row().classes("w-full no-wrap gap-2"):
                names = [NONE] + scene_names()
                if scene is not None and scene.name not in names:
                    names.append(scene.name)  # an opened file
                tag(ui.select(names, value=scene.name if scene else NONE,
                              label="scene", on_change=lambda e: self.choose(e.value, None)),
                    "workspace-scene").classes("grow").props("dense")
                tag(ui.button(icon="upload_file", on_click=self.open_dialog.open), "open-scene-file") \
                    .props("flat round dense").tooltip("open a scene file (.yaml)")
                if scene is not None:
                    tag(ui.select(seats(scene), value=self.seat, label="this arm is",
                                  on_change=lambda e: self.choose(scene.name, e.value)),
                        "workspace-seat").classes("w-40").props("dense")
            if scene is not None and scene.obstacles:
                self._obstacle_fields(scene)
            self.status = tag(ui.label(""), "workspace-status").classes("text-sm")
            if scene is not None:
                tag(ui.checkbox("distances between an arm's own links", value=self.self_pairs,
                                on_change=lambda e: self.show_self_pairs(bool(e.value))), "workspace-self-pairs") \
                    .props("dense").classes("text-sm")
        return card

    def show_self_pairs(self, on: bool) -> None:
        """Measure the distance line over the arms' own link pairs too, or only between bodies."""
        self.self_pairs = bool(on)
        self.show(self.host.session.q)

    def _obstacle_fields(self, scene: km.Scene) -> None:
        """An obstacle of the open `scene` to move, and its position by numbers (scene unit)."""
        names = list(scene.obstacles)
        unit = scene.length_unit
        with ui.row().classes("w-full no-wrap gap-2 items-center"):
            pick = tag(ui.select(names, value=names[0], label="move obstacle"), "workspace-obstacle") \
                .classes("w-36").props("dense")
            fields = []
            for axis, label in enumerate("xyz"):
                fields.append(tag(ui.number(f"{label} ({unit})", format="%.4g",
                                            on_change=lambda e, a=axis: self.move_obstacle(pick.value, a, e.value)),
                                  f"workspace-obstacle-{label}").classes("w-20").props("dense"))

            def fill(name: str) -> None:
                p = scene.obstacles[name].pose[:3, 3]
                for f, v in zip(fields, p, strict=True):
                    f.set_value(float(v))
            pick.on_value_change(lambda e: fill(e.value))
            fill(names[0])

    def choose(self, name: str | None, seat: str | None) -> None:
        """Open scene `name` (NONE closes it) with the session's arm as `seat` (default: the
        first robot of the session's model, else the first that can be played). Switching seats
        in the open scene leaves the arm given up where it was and takes over the other one
        where it stands: the sliders drive one arm at a time."""
        session = self.host.session
        if not name or name == NONE:
            self.scene, self.seat = None, None
            self.host.build()
            self.host.changed("workspace")
            return
        current = session.open_scene
        if current is not None and current.scene.name == name:
            scene = current.scene
            scene.set_q(current.seat, session.q)  # the arm given up stays where it is
        else:
            scene = km.Scene.load(name)
        self._open(scene, seat)

    async def upload(self, e: Any) -> None:
        """A scene file dropped in the dialog: opened, or refused in words beside the widget."""
        name = e.file.name
        try:
            scene = read_scene_text((await e.file.read()).decode("utf-8"), name)
            if not seats(scene):
                raise km.SceneError("none of its robots is a bundled robot the simulator can show")
        except UnicodeDecodeError as err:
            self.drop.refused(name, ValueError(f"not a YAML text file (byte {err.start} is not UTF-8)"))
            return
        except (ValueError, OSError) as err:
            self.drop.refused(name, err)
            return
        self.drop.accepted()
        self.open_dialog.close()
        self._open(scene, None)

    def _open(self, scene: km.Scene, seat: str | None) -> None:
        session = self.host.session
        playable = seats(scene)
        if not playable:
            ui.notify(f"{scene.name}: none of its robots is a bundled robot the simulator can show", type="warning")
            return
        mine = [s for s in playable if scene.robots[s].robot.name == session.robot_name]
        self.scene, self.seat = scene, seat if seat in playable else (mine or playable)[0]
        entry = scene.robots[self.seat]
        if entry.robot.name != session.robot_name:
            session.set_robot(entry.robot.name)
            self.host.changed("robot")
        if seat is not None:
            session.set_q(entry.q)  # take over the arm where it stands
            self.host.changed("q")
        self.host.build()
        self.host.changed("workspace")

    def dropped(self, object_id: str, p: np.ndarray) -> bool:
        """An object was dragged to p (the arm's base frame, robot units): an obstacle moves
        there (its shape's centre; in a projection the hidden coordinate stays). Whether the
        object was an obstacle."""
        name, current = self.handles.get(object_id), self.host.session.open_scene
        if name is None or current is None:
            return False
        scene, seat = current
        e = scene.robots[seat]
        T = np.array(scene.obstacles[name].pose)
        shape = scene.obstacles[name].shape
        centre = 0.5 * np.add(*[f(mesh_data(shape)[0], axis=0) for f in (np.min, np.max)]) \
            if shape.kind == "mesh" else np.zeros(3)
        old = (np.linalg.inv(e.base) @ np.append(T[:3, :3] @ centre + T[:3, 3], 1.0))[:3] / e.scale
        hidden = camera.hidden_axis(self.host.view.projection)
        if hidden is not None:  # a drag in a projection moves in its plane only
            p = np.array(p, dtype=float)
            p[hidden] = old[hidden]
        world = (e.base @ np.append(np.asarray(p) * e.scale, 1.0))[:3]
        T[:3, 3] = world - T[:3, :3] @ centre
        try:
            scene.move(name, T)
        except km.SceneError as err:
            ui.notify(str(err), type="warning")
        self.host.build()  # the fields show the new position; the view redraws
        self.host.changed("workspace")
        return True

    def move_obstacle(self, name: str, axis: int, value: float | None) -> None:
        """Type an obstacle's position (scene unit) along one axis."""
        if self.scene is None or name not in self.scene.obstacles or value is None:
            return
        T = np.array(self.scene.obstacles[name].pose)
        if T[axis, 3] == float(value):
            return  # the field was filled from the pose (or typed the same): nothing moves
        T[axis, 3] = float(value)
        try:
            self.scene.move(name, T)
        except km.SceneError as e:
            ui.notify(str(e), type="warning")
            return
        self.show(self.host.session.q)
        self.host.changed("workspace")

    # --- drawing ------------------------------------------------------------------------
    @staticmethod
    def _to_view(T_world: np.ndarray, base: np.ndarray, unit: float) -> np.ndarray:
        """A scene-world pose → the view's coordinates: the arm's base frame (`base`: its pose in
        the scene), in grid squares of `unit` scene lengths."""
        T = np.linalg.inv(base) @ T_world
        T[..., :3, 3] /= unit
        return T

    def draw(self) -> None:
        """Put every shape of the scene in the tab's view (after each build of the view)."""
        self.shapes, self.handles = {}, {}
        current = self.host.session.open_scene
        overlay = self.host.view.collision
        overlay.use(None if current is None else current.scene.geometry(current.seat))
        overlay.hits(set())
        if current is None:
            return
        scene, seat = current
        c = scene.compiled()
        view = self.host.view.scene
        with view:
            for shape, body, M in zip(c.collider.shapes, c.collider.bodies, c.collider.placements, strict=True):
                name = c.names[body]
                if name.startswith(seat + "/"):
                    continue  # this arm's: the view's overlay
                colour = OBSTACLE if name in scene.obstacles else OTHER
                parts = self._object(view, shape, colour)
                if colour == OBSTACLE:
                    parts[0].draggable()
                    self.handles[parts[0].id] = name
                self.shapes.setdefault(name, []).append((parts, shape, M, colour))
        self.host.view.on_other_drop = self.dropped

    def _object(self, view: Any, shape: Any, colour: tuple[str, float]) -> list:
        """Unit objects for one shape (placed by `_place`): a capsule is a cylinder and two balls."""
        if shape.kind == "box":
            parts = [view.box(1.0, 1.0, 1.0)]
        elif shape.kind == "mesh":
            parts = [view.box(1.0, 1.0, 1.0)]  # its bounding box
        elif shape.kind == "sphere":
            parts = [view.sphere(1.0, 20, 14)]
        elif shape.kind == "cylinder":
            parts = [view.cylinder(1.0, 1.0, 1.0, 20)]
        else:
            parts = [view.cylinder(1.0, 1.0, 1.0, 16), view.sphere(1.0, 16, 10), view.sphere(1.0, 16, 10)]
        for p in parts:
            p.material(*colour)
        return parts

    @staticmethod
    def _place(parts: list, shape: Any, T: np.ndarray, unit: float) -> None:
        """Move and size the objects of `shape` at view pose T (a grid square: `unit` scene lengths)."""
        L = lambda x: x / unit  # a scene length → grid squares
        if shape.kind in ("box", "mesh"):
            if shape.kind == "box":
                size, centre = np.asarray(shape.size), np.zeros(3)
            else:
                v = mesh_data(shape)[0]
                size, centre = v.max(axis=0) - v.min(axis=0), 0.5 * (v.max(axis=0) + v.min(axis=0))
            parts[0].move(*(T[:3, :3] @ (L(1.0) * centre) + T[:3, 3])).rotate_R(T[:3, :3].tolist()) \
                .scale(*(L(1.0) * size))
            return
        if shape.kind == "sphere":
            parts[0].move(*T[:3, 3]).scale(L(shape.radius))
            return
        half = T[:3, 2] * L(shape.length) / 2
        a, b = T[:3, 3] - half, T[:3, 3] + half
        mid, R, length = along(a, b)
        r = L(shape.radius)
        parts[0].move(*mid).rotate_R(R).scale(r, length, r)
        if shape.kind == "capsule":  # its balls at the two ends (a cylinder has none)
            for ball, p in zip(parts[1:], (a, b), strict=True):
                ball.move(*p).scale(r)

    def show(self, q: np.ndarray) -> None:
        """Check the scene with the arm at q; place and colour the shapes; say the verdict."""
        current = self.host.session.open_scene
        if current is None:
            if self.status is not None:
                self.status.text = "no scene: pick one to see other arms and obstacles around this one"
            return
        scene, seat = current
        c = scene.compiled()
        qs = {name: e.q[None] for name, e in scene.robots.items()} | {seat: np.asarray(q)[None]}
        poses = c.body_poses(qs, 1)[0]
        check = scene.check({seat: q})
        dist = scene.distance({seat: q}, self_pairs=self.self_pairs)
        hit = {n for pair in check.collisions for n in pair}
        mine = c.slices[seat]
        self.host.view.collision.hits({c.names.index(n) - mine.start for n in hit if n.startswith(seat + "/")})
        arm = scene.robots[seat]
        unit = arm.scale * self.host.view.grid.step  # one grid square, in scene lengths
        for name, drawn in self.shapes.items():
            body = c.names.index(name)
            for parts, shape, M, own in drawn:
                self._place(parts, shape, self._to_view(poses[body] @ M, arm.base, unit), unit)
                for p in parts:
                    p.material(*(HIT if name in hit else own))
        if self.status is not None:
            self.status.text = status_words(check, dist)
            self.status.classes(replace="text-sm " + ("text-negative text-weight-bold" if check.colliding else ""))

    def collisions(self, solutions: list) -> list | None:
        """Per IK solution (anything with `.q`), its first colliding pair, None when clear;
        None for all when no scene is open."""
        current = self.host.session.open_scene
        if current is None or not solutions:
            return None
        rep = current.scene.check({current.seat: np.array([s.q for s in solutions])})
        return [pairs[0] if pairs else None for pairs in rep.collisions]

    def first_collision(self, trajectory: Any, t_from: float) -> SweepReport | None:
        """The first collision of `trajectory` after time `t_from` (None when clear or no
        scene is open): the motion from the arm's q at t_from through the later samples."""
        current = self.host.session.open_scene
        if current is None or trajectory is None:
            return None
        later = trajectory.t > t_from
        t = np.concatenate([[t_from], trajectory.t[later]])
        if len(t) < 2:
            return None
        q = np.vstack([q_at(trajectory, t_from), trajectory.q[later]])
        rep = check_trajectory(current.scene, {current.seat: (t, q)})
        return rep if rep.colliding and rep.time is not None and rep.time > t_from else None
