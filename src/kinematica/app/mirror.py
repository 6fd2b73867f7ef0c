"""The physical arm in the 3-D view (the Robot link card): translucent arms at joint values the
link reports, each in its own colour with its name over its tool.

    "arm"        the Braccio at what its board last commanded (hobby servos report nothing)
    "measured"   an arm that reads its joints (the SO-101): where its encoders say it is
    "commanded"  beside it, the goal last sent to it — the gap between the two is what the
                 servos add to the plan (sag, backlash, noise, lag)

An arm is built once (unit cylinders along the skeleton of `viz.geometry.arm_geometry`, a
sphere at the tool, its name) and moved after: a measured arm changes up to ten times a second
while the link polls, and moving seven objects costs far less than rebuilding them. The names sit
over the tools at different heights, so that two arms a few millimetres apart keep both readable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from nicegui import ui

import kinematica as km
from kinematica.viz.geometry import arm_geometry

from .grid import GridScale, along


@dataclass(frozen=True)
class Look:
    """How one reported arm is drawn: its name, colour, opacity and the height of its name over
    its tool (in link radii)."""

    name: str
    colour: str
    opacity: float
    rise: float


MIRROR = "#212121"  # a command: the Braccio's whole state, the SO-101's goal
MEASURED = "#00897b"
LOOKS = {look.name: look for look in (Look("arm", MIRROR, 0.35, 3.0), Look("measured", MEASURED, 0.55, 3.0),
                                      Look("commanded", MIRROR, 0.3, 6.0))}


class MirrorArm:
    """One reported arm in a scene (build it inside the scene's context); `place(q)` moves it,
    `delete()` takes it away."""

    def __init__(self, scene: ui.scene, grid: GridScale, robot: km.Robot, radius: float, look: Look) -> None:
        self.scene, self.grid, self.robot, self.radius, self.look = scene, grid, robot, radius, look
        segments = len(arm_geometry(robot, robot.q_home).skeleton) - 1  # the same for every q
        style = f"color: {look.colour}; font-weight: 700; font-size: 14px; text-shadow: 0 0 3px #fff, 0 0 3px #fff"
        self.group = scene.group()
        with self.group:
            self.links = [scene.cylinder(0.9 * radius, 0.9 * radius, 1.0, 12).material(look.colour, look.opacity)
                          for _ in range(segments)]
            self.tool = scene.sphere(radius, 12, 8).material(look.colour, min(1.0, look.opacity + 0.15))
            self.label = scene.text(look.name, style)
        self.q: np.ndarray | None = None

    def place(self, q: np.ndarray) -> None:
        """Move the arm to joint values q (core units: rad, or the length unit for a prismatic joint)."""
        q = np.asarray(q, float)
        if self.q is not None and np.array_equal(q, self.q):
            return  # nothing moved: nothing sent to the page
        self.q = q
        geom = arm_geometry(self.robot, q)
        pts = self.grid.to_scene(geom.skeleton)
        for cyl, a, b in zip(self.links, pts[:-1], pts[1:], strict=True):
            mid, R, length = along(a, b)
            cyl.move(*mid).rotate_R(R).scale(1.0, max(length, 1e-9), 1.0)  # a zero-length link: invisible
        tool = self.grid.to_scene(geom.tool)
        self.tool.move(*tool)
        self.label.move(*(tool + [0.0, 0.0, self.look.rise * self.radius]))

    def delete(self) -> None:
        self.group.delete()
