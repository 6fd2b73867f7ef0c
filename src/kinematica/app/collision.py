"""The arm's collision shapes over its drawing in the 3-D view: the "collision shapes" toggle.

What the scene checks for this arm (`kinematica.scene.linkgeom`: capsules fitted to its Looks,
its URDF's own shapes, or capsules around the skeleton; in an open workspace scene, the
scene's geometry of the arm's seat), drawn translucent so the arm shows through: a capsule as
a cylinder and two balls, a box, a cylinder, a sphere, a mesh by its bounding box. Each body
(0 the base, k link k) is a group moved to its frame, as `looks.Looks` does.

Shown when the toggle is on; the bodies the workspace reports in contact are red, and shown
even with the toggle off, so a collision is never hidden.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kinematica.scene import LinkGeometry, link_geometry, mesh_data
from kinematica.viz.geometry import arm_geometry

from .grid import turn_y_to

SHAPE, HIT = ("#00897b", 0.3), ("#e53935", 0.6)  # (colour, opacity): the overlay, a body in contact


class CollisionShapes:
    """The overlay of one `ArmView`: `toggle(on)`, `use(geometry)`, `hits(bodies)`; the view
    calls `place(frames)` as the arm moves and `rebuilt()` after it builds a new scene. Built
    on first use: a robot's fit is not computed while nobody looks at it."""

    def __init__(self, view: Any, on: bool = False) -> None:
        self.view, self.on = view, bool(on)
        self.geometry: LinkGeometry | None = None  # None: the robot's own
        self.hit: set[int] = set()
        self.groups: list = []
        self.parts: list[tuple[int, list]] = []  # (body, its drawn objects)

    def rebuilt(self) -> None:
        """The view built a new scene: the old objects went with the old one."""
        self.groups, self.parts = [], []
        self._show()

    def toggle(self, on: bool) -> None:
        self.on = bool(on)
        self._show()

    def use(self, geometry: LinkGeometry | None) -> None:
        """Draw `geometry` (the robot's own when None): a workspace scene's for its seat."""
        if geometry is not self.geometry:
            self.geometry = geometry
            self._delete()
            self._show()

    def hits(self, bodies: set[int]) -> None:
        """The bodies in contact (red, shown whatever the toggle says)."""
        if set(bodies) != self.hit:
            self.hit = set(bodies)
            self._show()

    def place(self, frames: np.ndarray) -> None:
        """Move the bodies to `frames` (robot units: base, link frames, …)."""
        if not self.groups:
            return  # not drawn (the toggle off): nothing to move
        step = self.view.grid.step
        for group, F in zip(self.groups, frames[:-1], strict=True):  # the last, the tool's, carries no body
            group.move(*(F[:3, 3] / step)).rotate_R(F[:3, :3].tolist())

    def _show(self) -> None:
        if not self.groups and (self.on or self.hit):
            self._build()
        for body, objs in self.parts:
            hit = body in self.hit
            for obj in objs:
                obj.material(*(HIT if hit else SHAPE))
                obj.visible(self.on or hit)

    def _delete(self) -> None:
        for group in self.groups:
            group.delete()
        self.groups, self.parts = [], []

    def _build(self) -> None:
        view = self.view
        geom = self.geometry if self.geometry is not None else link_geometry(view.robot)
        with view.scene:
            self.groups = [view.scene.group() for _ in geom.names]
            for p in geom.parts:
                with self.groups[p.body]:
                    self.parts.append((p.body, _objects(view.scene, p.shape, p.placement, view.grid.step)))
        self.place(arm_geometry(view.robot, view.q).frames)


def _objects(scene: Any, shape: Any, T: np.ndarray, step: float) -> list:
    """The objects of one shape at placement T (its body's frame, robot units) in a view of
    `step` robot units per scene unit."""
    p, R = T[:3, 3] / step, T[:3, :3]
    if shape.kind == "capsule":
        r, half = shape.radius / step, 0.5 * shape.length / step
        tube = scene.cylinder(r, r, 2 * half, 16).move(*p).rotate_R(turn_y_to(R[:, 2]))
        return [tube] + [scene.sphere(r, 16, 10).move(*(p + s * half * R[:, 2])) for s in (-1, 1)]
    if shape.kind == "sphere":
        return [scene.sphere(shape.radius / step, 16, 10).move(*p)]
    if shape.kind == "cylinder":
        r = shape.radius / step
        return [scene.cylinder(r, r, shape.length / step, 16).move(*p).rotate_R(turn_y_to(R[:, 2]))]
    if shape.kind == "box":
        return [scene.box(*(np.asarray(shape.size) / step)).move(*p).rotate_R(R.tolist())]
    v = mesh_data(shape)[0]  # a mesh by its bounding box
    centre = 0.5 * (v.max(axis=0) + v.min(axis=0))
    return [scene.box(*((v.max(axis=0) - v.min(axis=0)) / step)).move(*(p + R @ centre / step)).rotate_R(R.tolist())]
