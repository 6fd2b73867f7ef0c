"""The 3-D view: the arm drawn in NiceGUI's `ui.scene` (three.js, z up).

Links are cylinders along the skeleton of `kinematica.viz.geometry.arm_geometry` (a DH offset d
drawn along its joint axis before the link length a, as in the table), revolute joints short
orange cylinders along their axes (prismatic ones a box), the tool a red sphere, a pedestal
under the base; optional RGB axes (x red, y green, z blue) at the base, every link frame and the
tool; the IK target as a translucent sphere (with axes for an orientation); IK solutions as
translucent ghosts numbered at their tools.

Scene units are grid squares: one square is a round length of the robot's own unit (100 mm
for the Braccio, 0.2 m for the KUKA), about a quarter of the arm's reach, so millimetre and
metre robots fill the view alike; `GridScale.caption` says what a square is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from nicegui import ui

import kinematica as km
from kinematica.viz.geometry import arm_geometry, reach

LINK, JOINT, BASE, TOOL = "#37474f", "#fb8c00", "#90a4ae", "#e53935"
TARGET = "#d81b60"
AXES = ("#e53935", "#43a047", "#1e88e5")  # x, y, z
GHOSTS = ("#1e88e5", "#43a047", "#8e24aa", "#00897b", "#f4511e", "#6d4c41", "#3949ab", "#c0ca33")
OUTSIDE = "#9e9e9e"  # ghosts of solutions outside the joint limits
BACKGROUND = "#f5f7fa"
GRID, GRID_AXIS = "#d5dbe1", "#9aa7b4"  # grid lines, and the x and y axes through the base


@dataclass(frozen=True)
class GridScale:
    """One grid square (`step`, in the robot's length unit) is one scene unit; the grid spans
    ±`cells` squares around the base."""

    step: float
    cells: int
    unit: str
    reach: float

    @classmethod
    def for_robot(cls, robot: km.Robot) -> "GridScale":
        r = reach(robot)
        r = r if r > 0 else 1.0
        step = nice_step(r / 4)
        return cls(step, int(math.ceil(1.3 * r / step)) + 1, robot.length_unit, r)

    @property
    def caption(self) -> str:
        return f"grid squares of {self.step:g} {self.unit}"

    def to_scene(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(p, dtype=float) / self.step


def nice_step(x: float) -> float:
    """The largest of 1, 2, 5 × 10^k not above x.

    >>> nice_step(102.9), nice_step(0.3), nice_step(0.015)
    (100.0, 0.2, 0.01)
    """
    k = math.floor(math.log10(x))
    for m in (5, 2, 1):
        if m * 10.0 ** k <= x * (1 + 1e-9):
            return float(round(m * 10.0 ** k, 12))
    return float(10.0 ** k)  # pragma: no cover — m = 1 always fits


def along(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, list[list[float]], float]:
    """Midpoint, rotation and length that lay a unit cylinder (three.js: along its local y)
    from a to b. A zero-length segment keeps the identity rotation."""
    d = np.asarray(b, float) - np.asarray(a, float)
    length = float(np.linalg.norm(d))
    return (np.asarray(a, float) + d / 2, turn_y_to(d) if length > 0 else np.eye(3).tolist(), length)


def turn_y_to(direction: np.ndarray) -> list[list[float]]:
    """A rotation (rows) whose y column is the unit vector along `direction`."""
    y = np.asarray(direction, float) / np.linalg.norm(direction)
    helper = np.array([1.0, 0.0, 0.0]) if abs(y[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = helper - helper @ y * y
    x /= np.linalg.norm(x)
    return np.column_stack([x, y, np.cross(x, y)]).tolist()


def same_drawing(robot: km.Robot, solutions: list, outside: bool = True) -> list[list[int]]:
    """Indices of the solutions to draw, grouped by identical drawings (a wrist flip turns
    joints 4 and 6 by half a turn: the skeleton is the same), in list order; those outside the
    joint limits only when `outside`. A group is drawn once, in the colour of its first member."""
    groups: list[list[int]] = []
    shapes: list[np.ndarray] = []
    tol = 1e-6 * max(reach(robot), 1e-12)
    for i, sol in enumerate(solutions):
        if not (sol.within_limits or outside):
            continue
        shape = arm_geometry(robot, sol.q).skeleton
        for members, other in zip(groups, shapes):
            if np.allclose(shape, other, atol=tol):
                members.append(i)
                break
        else:
            groups.append([i])
            shapes.append(shape)
    return groups


def apex(points: np.ndarray) -> np.ndarray:
    """The point of a polyline farthest from the chord between its ends (an arm's elbow: where
    the branches of one target differ, so their labels do not pile up at the shared tool)."""
    a, b = points[0], points[-1]
    chord = b - a
    n = np.linalg.norm(chord)
    if n == 0:
        return points[len(points) // 2]
    u = chord / n
    rel = points - a
    d = np.linalg.norm(rel - np.outer(rel @ u, u), axis=1)
    return points[int(np.argmax(d))]


class ArmView:
    """The scene of one robot. Build it inside a NiceGUI container, then call `show(q)`,
    `show_frames`, `show_target` and `show_ghosts` as the state changes."""

    def __init__(self, robot: km.Robot, q: np.ndarray, *, height: str = "calc(100vh - 120px)") -> None:
        self.robot = robot
        self.grid = GridScale.for_robot(robot)
        g = self.grid
        r = g.reach / g.step  # the reach in scene units
        self.radius = 0.035 * r
        camera = ui.scene.perspective_camera(fov=45, near=0.01 * r, far=200 * r)
        camera.x, camera.y, camera.z = 1.05 * r, -1.45 * r, 0.95 * r
        camera.look_at_z = 0.25 * r
        # our own grid of lines at z = 0 rather than NiceGUI's, whose opaque ground plane would hide
        # whatever is below the base (a Puma's elbow-down branch: its base frame is at the shoulder)
        self.scene = (ui.scene(grid=False, camera=camera, background_color=BACKGROUND)
                      .classes("w-full").style(f"height: {height}; min-height: 420px").mark("arm-scene"))
        geom = arm_geometry(robot, q)
        k = len(geom.skeleton)
        with self.scene:
            c = g.cells
            for i in range(-c, c + 1):
                colour = GRID_AXIS if i == 0 else GRID
                self.scene.line([i, -c, 0], [i, c, 0]).material(colour)
                self.scene.line([-c, i, 0], [c, i, 0]).material(colour)
            self.pedestal = (self.scene.cylinder(1.0, 1.15, 1.0, 32).material(BASE)
                             .scale(3.2 * self.radius, 0.9 * self.radius, 3.2 * self.radius))
            self.links = [self.scene.cylinder(self.radius, self.radius, 1.0, 16).material(LINK)
                          for _ in range(k - 1)]
            self.joints = [(self.scene.cylinder(1.0, 1.0, 1.0, 24) if rev else self.scene.box(1.0, 1.0, 1.0))
                           .material(JOINT).scale(1.5 * self.radius, 3.0 * self.radius, 1.5 * self.radius)
                           for rev in robot.revolute]
            self.tool = self.scene.sphere(1.25 * self.radius, 24, 16).material(TOOL)
            self.frames = [self._axes(0.22 * r) for _ in range(robot.n + 2)]
            self.target = self.scene.group()
            with self.target:
                self.target_ball = self.scene.sphere(2.0 * self.radius, 24, 16).material(TARGET, 0.45)
                self.target_axes = self._axes(0.28 * r)
        self.target.visible(False)
        self.ghosts: list = []
        self.frames_on = False
        self.q = np.asarray(q, float)
        for f in self.frames:
            f.visible(False)
        self.show(q)

    def _axes(self, length: float):
        """A group of three thin cylinders along its local x (red), y (green), z (blue)."""
        group = self.scene.group()
        with group:
            for axis, colour in zip(np.eye(3), AXES):
                mid, R, _ = along(np.zeros(3), axis * length)
                self.scene.cylinder(0.25 * self.radius, 0.25 * self.radius, length, 8) \
                    .material(colour).move(*mid).rotate_R(R)
        return group

    def _batched(self):
        """Send one update as one message where this NiceGUI has the scene's batching."""
        batch = getattr(self.scene, "_batch_calls", None)
        return batch() if batch is not None else _Null()

    def show(self, q: np.ndarray) -> None:
        """Move the drawn arm to configuration q (core units)."""
        self.q = np.asarray(q, float)
        geom = arm_geometry(self.robot, self.q)
        to = self.grid.to_scene
        pts = to(geom.skeleton)
        with self._batched():
            base = geom.frames[0]
            z = base[:3, 2]
            self.pedestal.move(*(to(base[:3, 3]) - z * 0.45 * self.radius)).rotate_R(turn_y_to(z))
            for cyl, a, b in zip(self.links, pts[:-1], pts[1:]):
                mid, R, length = along(a, b)
                cyl.move(*mid).rotate_R(R).scale(1.0, max(length, 1e-9), 1.0)
                cyl.visible(length > 1e-9)
            for joint, p, axis in zip(self.joints, to(geom.joints), geom.axes):
                joint.move(*p).rotate_R(turn_y_to(axis))
            self.tool.move(*to(geom.tool))
            for group, F in zip(self.frames, geom.frames):
                group.move(*to(F[:3, 3])).rotate_R(F[:3, :3].tolist())

    def show_frames(self, on: bool) -> None:
        self.frames_on = bool(on)
        with self._batched():
            for f in self.frames:
                f.visible(self.frames_on)

    def show_target(self, T: np.ndarray | None, oriented: bool = False) -> None:
        """The target marker at pose T (robot units), with axes when `oriented`; None hides it."""
        with self._batched():
            if T is None:
                self.target.visible(False)
                return
            T = np.asarray(T, float)
            self.target.move(*self.grid.to_scene(T[:3, 3])).rotate_R(T[:3, :3].tolist())
            self.target.visible(True)
            self.target_axes.visible(bool(oriented))

    def show_ghosts(self, solutions: list, current: np.ndarray | None = None, outside: bool = False) -> None:
        """Translucent arms for `solutions` (objects with q and within_limits), numbered 1, 2, …
        at their tools as in the list; the one at `current` (the arm itself) gets only its
        number, and those outside the joint limits are drawn only when `outside`. An empty list
        removes them."""
        to = self.grid.to_scene
        labels: list[np.ndarray] = []  # where numbers went: a number never covers another
        with self._batched(), self.scene:
            for obj in self.ghosts:
                obj.delete()
            self.ghosts = []
            for members in same_drawing(self.robot, solutions, outside):
                first = solutions[members[0]]
                colour = GHOSTS[members[0] % len(GHOSTS)] if first.within_limits else OUTSIDE
                geom = arm_geometry(self.robot, first.q)
                pts = to(geom.skeleton)
                body = current is None or not any(np.allclose(solutions[i].q, current, atol=1e-9)
                                                   for i in members)
                group = self.scene.group()
                with group:
                    for a, b in zip(pts[:-1], pts[1:]) if body else ():
                        mid, R, length = along(a, b)
                        if length > 1e-9:
                            self.scene.cylinder(0.8 * self.radius, 0.8 * self.radius, length, 12) \
                                .material(colour, 0.45).move(*mid).rotate_R(R)
                    if body:
                        self.scene.sphere(0.9 * self.radius, 12, 8).material(colour, 0.55).move(*to(geom.tool))
                    self.scene.text(" · ".join(str(i + 1) for i in members),
                                    f"color: {colour}; font-weight: 700; font-size: 16px; "
                                    "text-shadow: 0 0 3px #fff, 0 0 3px #fff") \
                        .move(*self._free_spot(apex(pts) + [0, 0, 2.5 * self.radius], labels))
                self.ghosts.append(group)

    def _free_spot(self, p: np.ndarray, taken: list[np.ndarray]) -> np.ndarray:
        """p, raised until it is clear of every label already placed."""
        gap = 3.0 * self.radius
        while any(np.linalg.norm(p - t) < gap for t in taken):
            p = p + [0.0, 0.0, gap]
        taken.append(p)
        return p


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False
