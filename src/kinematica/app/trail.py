"""A planned path in the 3-D view: a swept trail of translucent skeleton arms at a few states
along it (`planrun.trail` picks them: evenly spaced in time, start and goal included), and the
tool's path as a line of dots (one point cloud: a hundred dots cost one object, not a hundred).

One colour for the whole trail, cyan: apart from the IK ghosts' palette, the robot link's
arms, the obstacles (brown), a hit (red) and the joints (orange), so the sweep reads as one
thing. Built once per plan inside the view's scene, deleted as a whole.
"""

from __future__ import annotations

import itertools

import numpy as np
from nicegui import ui

import kinematica as km
from kinematica.viz.geometry import arm_geometry

from .grid import GridScale, along

TRAIL = "#00b8d4"
OPACITY = 0.35  # the ghosts: the arm and the scene stay readable through them


class Trail:
    """The ghosts at `qs` (g, n, core units) and the dots at `tool` (m, 3, robot units) in
    `scene` (build it inside the scene's context); `points` holds what they cover (scene units)
    for framing; `delete()` takes it all away."""

    def __init__(self, scene: ui.scene, grid: GridScale, robot: km.Robot, radius: float,
                 qs: np.ndarray, tool: np.ndarray) -> None:
        to = grid.to_scene
        skeletons = [to(arm_geometry(robot, q).skeleton) for q in np.asarray(qs, float)]
        dots = to(np.asarray(tool, float).reshape(-1, 3))
        self.points = np.vstack([np.zeros((0, 3)), *skeletons, dots])
        self.group = scene.group()
        with self.group:
            for pts in skeletons:
                for a, b in itertools.pairwise(pts):
                    mid, R, length = along(a, b)
                    if length > 1e-9:
                        scene.cylinder(0.7 * radius, 0.7 * radius, length, 10) \
                            .material(TRAIL, OPACITY).move(*mid).rotate_R(R)
                scene.sphere(0.8 * radius, 10, 8).material(TRAIL, OPACITY + 0.15).move(*pts[-1])
            if len(dots):
                scene.point_cloud(dots.tolist(), [[0.0, 0.72, 0.83]] * len(dots), point_size=0.6 * radius)

    def delete(self) -> None:
        self.group.delete()
