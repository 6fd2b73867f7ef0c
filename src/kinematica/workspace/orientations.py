"""The fixed, stated set of tool orientations a reachability map tries in every voxel.

For a 6-DOF (or redundant) arm: a Fibonacci sphere of m approach directions (the tool z axis)
times r roll steps about it, 2πk/r. The directions are near-uniform on S² (z_i = 1 − (2i+1)/m,
azimuth i·π(3 − √5), equal-area bands), the rolls uniform on S¹, so the set approximates the
uniform (Haar) measure on SO(3) — the measure whose bundle over S² has a uniform fibre.
What fits other arms: a 5-DOF arm cannot choose its roll, and a yaw-base one (joint 1 turns
about its vertical axis, the approach always in the vertical plane through that axis and the
tool point, as the Braccio's) has one plane of approach directions at each point: it tries m
pitch angles φ = −π + 2πk/m of the approach in the vertical plane through joint 1's axis and
the voxel (`km.targets.approach(p, pitch=φ)`), which it can reach in principle; fixed world
directions would almost never lie in that plane (19 of 240 solved in the Braccio's case). A
5-DOF arm whose approach leaves that plane tries the m Fibonacci directions; a planar arm tries m headings φ = −π + 2πk/m of its last link in its plane;
an arm of 4 joints or fewer that is not planar reaches positions only (one "orientation").

>>> np.round(fibonacci_sphere(4), 3)
array([[ 0.661,  0.   ,  0.75 ],
       [-0.714,  0.654,  0.25 ],
       [ 0.085, -0.965, -0.25 ],
       [ 0.402,  0.525, -0.75 ]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bounds import ORIENTATIONS, count
from ..ik import target as targets
from ..keywords import strict
from ..kinematics.fk import fk
from ..kinematics.manipulability import is_planar
from ..model.robot import Robot
from .grid import WorkspaceError

GOLDEN_ANGLE = np.pi * (3 - np.sqrt(5))


def fibonacci_sphere(m: int) -> np.ndarray:
    """(m, 3) unit vectors in equal-area bands of the sphere, each band's azimuth advanced by the
    golden angle."""
    i = np.arange(m)
    z = 1 - (2 * i + 1) / m
    rho = np.sqrt(1 - z * z)
    return np.stack([rho * np.cos(i * GOLDEN_ANGLE), rho * np.sin(i * GOLDEN_ANGLE), z], axis=-1)


def frames(directions: np.ndarray, rolls: int) -> np.ndarray:
    """(m·rolls, 3, 3) rotations whose z column is a direction, x turned about it by 2πk/rolls
    from the direction's reference x (the base x, or y when z is within 25° of base x)."""
    a = np.asarray(directions, dtype=float)
    ref = np.where(np.abs(a[:, :1]) > 0.9, [[0.0, 1.0, 0.0]], [[1.0, 0.0, 0.0]])
    x0 = ref - np.sum(ref * a, axis=1, keepdims=True) * a
    x0 /= np.linalg.norm(x0, axis=1, keepdims=True)
    y0 = np.cross(a, x0)
    roll = 2 * np.pi * np.arange(rolls) / rolls
    c, s = np.cos(roll)[None, :, None], np.sin(roll)[None, :, None]
    x = c * x0[:, None] + s * y0[:, None]
    y = -s * x0[:, None] + c * y0[:, None]
    z = np.broadcast_to(a[:, None], x.shape)
    return np.stack([x, y, z], axis=-1).reshape(-1, 3, 3)


@dataclass(frozen=True)
class OrientationSet:
    """kind: "pose", "approach", "pitch", "planar" or "position"; `values` per orientation:
    rotations (k, 3, 3), approach vectors (k, 3), pitch angles (k,) in rad in each voxel's
    vertical plane through joint 1, headings (k,) in rad, or None (position: k = 1)."""

    kind: str
    values: np.ndarray | None
    directions: int
    rolls: int

    @property
    def array(self) -> np.ndarray:
        """`values` of a set that has them (every kind but "position"), a ValueError naming the kind otherwise."""
        if self.values is None:
            raise ValueError(f"a {self.kind} orientation set has no values (only the position set has none)")
        return self.values

    @property
    def size(self) -> int:
        return 1 if self.values is None else len(self.values)

    def describe(self) -> str:
        return {"pose": f"{self.directions} Fibonacci-sphere approach directions × {self.rolls} roll steps",
                "approach": f"{self.directions} Fibonacci-sphere approach directions (roll free: 5 joints)",
                "pitch": f"{self.directions} approach pitches over 360° in the vertical plane through joint 1 "
                         "and the voxel (roll free: 5 joints)",
                "planar": f"{self.directions} headings of the last link, uniform over 360°",
                "position": "position only (no orientation)"}[self.kind]

    def targets(self, p: np.ndarray) -> targets.Target:
        """IK targets for positions p (B, 3) × every orientation, batch shape (B·k,), voxel-major."""
        B, k = len(p), self.size
        P = np.repeat(p, k, axis=0)
        if self.kind == "pose":
            T = np.zeros((B * k, 4, 4))
            T[:, :3, :3], T[:, :3, 3], T[:, 3, 3] = np.tile(self.array, (B, 1, 1)), P, 1.0
            return targets.pose(T)
        if self.kind == "approach":
            return targets.approach(P, np.tile(self.array, (B, 1)))
        if self.kind == "pitch":
            return targets.approach(P, pitch=np.tile(self.array, B))
        if self.kind == "planar":
            return targets.planar(P[:, :2], None if self.values is None else np.tile(self.values, B))
        return targets.position(P)


def radial_approach(robot: Robot, samples: int = 64) -> bool:
    """Whether the tool's approach (z axis) lies in the vertical plane through joint 1's axis and
    the tool point in every one of `samples` configurations (fixed seed) within the limits
    (an unlimited joint over ±π, or ±1 for a slide): the arms a pitch set fits."""
    if robot.n < 1 or not robot.revolute[0]:
        return False
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    span = np.where(robot.revolute, np.pi, 1.0)
    Q = np.random.default_rng(0).uniform(np.where(np.isfinite(lo), lo, -span), np.where(np.isfinite(hi), hi, span),
                                         (samples, robot.n))
    T = fk(robot, Q)
    C0 = robot.C[0]  # joint 1's frame: its z axis is "vertical"
    p = (T[:, :3, 3] - C0[:3, 3]) @ C0[:3, :3]
    a = T[:, :3, 2] @ C0[:3, :3]
    r = np.hypot(p[:, 0], p[:, 1])
    off = r > 1e-6 * max(1.0, float(np.abs(p).max()))  # on the axis every vertical plane holds it
    side = (a[off, 1] * p[off, 0] - a[off, 0] * p[off, 1]) / r[off]  # a · (normal of the plane)
    return bool(off.any()) and bool(np.all(np.abs(side) < 1e-9))


def task_kind(robot: Robot) -> str:
    """The orientation task that fits the arm: planar, pose (6+ joints), pitch (5, yaw base:
    `radial_approach`), approach (other 5-joint arms), position."""
    if is_planar(robot) and abs(robot.base[2, 2]) > 1 - 1e-9:
        return "planar"
    if robot.n == 5:
        return "pitch" if radial_approach(robot) else "approach"
    return "pose" if robot.n >= 6 else "position"


@strict
def orientation_set(robot: Robot, directions: int = 20, rolls: int = 4) -> OrientationSet:
    """The orientation set for `robot` (see the module docstring): `directions` approach vectors
    (headings for a planar arm) and `rolls` roll steps, used where they fit; the total within
    `kinematica.bounds.ORIENTATIONS`."""
    directions = count(directions, "orientations", ORIENTATIONS, error=WorkspaceError)
    rolls = count(rolls, "rolls", ORIENTATIONS, error=WorkspaceError)
    kind = task_kind(robot)
    if kind == "pose":
        count(directions * rolls, "orientations × rolls", ORIENTATIONS, error=WorkspaceError)
        return OrientationSet(kind, frames(fibonacci_sphere(directions), rolls), directions, rolls)
    if kind == "approach":
        return OrientationSet(kind, fibonacci_sphere(directions), directions, 1)
    if kind == "pitch":
        return OrientationSet(kind, -np.pi + 2 * np.pi * np.arange(directions) / directions, directions, 1)
    if kind == "planar":
        if robot.n < 3:  # a 2R arm cannot choose its heading: positions only
            return OrientationSet("planar", None, 1, 1)
        return OrientationSet(kind, -np.pi + 2 * np.pi * np.arange(directions) / directions, directions, 1)
    return OrientationSet(kind, None, 1, 1)
