"""What a drawing of the arm is made of: the skeleton polyline, joint origins and axes, frames.

The skeleton runs base → joint 1 → … → joint n → tool through the joint origins. Between two
origins it first moves along the earlier joint's axis, then straight to the next origin, so a DH
offset d is drawn along z before the link length a (the arm looks like its table, not a chord
cutting the corner). Joint i's origin is its frame before it turns: base·B1·J1·A1·…·Bi.

>>> import kinematica as km
>>> g = arm_geometry(km.load("planar-3r"), np.radians([90, 0, 0]))
>>> g.skeleton[:, :2].round(6).tolist()
[[0.0, 0.0], [0.0, 20.0], [0.0, 40.0], [0.0, 60.0]]
>>> float(reach(km.load("planar-3r")))
60.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..model.coerce import takes_robot
from ..model.memo import per_robot
from ..model.robot import Robot
from .style import VizError

__all__ = ["PLANES", "PLANE_NAMES", "ArmGeometry", "body_pieces", "arm_geometry", "reach", "size_scale",
           "configurations", "project", "azimuth_of"]

# 2-D views: which world axes go right and up. "rz" is the vertical plane through the arm
# (paper 003's "XZ" plane, whose horizontal axis is the hypotenuse √(x² + y²)).
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2), "rz": (None, 2)}
PLANE_NAMES = {"xy": "XY plane (top view)", "xz": "XZ plane (side view)",
               "yz": "YZ plane (front view)", "rz": "vertical plane of the arm (r = horizontal reach)"}


@dataclass(frozen=True)
class ArmGeometry:
    """Points of one or many configurations (leading dimensions of q kept):
    skeleton (..., k, 3), joints (..., n, 3) joint origins, axes (..., n, 3) unit joint axes,
    frames (..., n + 2, 4, 4) base, link frames, tool; tool (..., 3)."""

    skeleton: np.ndarray
    joints: np.ndarray
    axes: np.ndarray
    frames: np.ndarray

    @property
    def tool(self) -> np.ndarray:
        return self.frames[..., -1, :3, 3]

    @property
    def base(self) -> np.ndarray:
        return self.frames[..., 0, :3, 3]


@per_robot  # of the robot alone: the simulator draws at every slider event
def _masks(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    """(n + 1,) each: whether the way from origin i to origin i + 1 bends (an offset along the
    axis and a length across it), and whether it has any length (else origin i + 1 repeats
    origin i and is left out); a prismatic joint's way has both (they move with q)."""
    t = np.vstack([robot.before[0][:3, 3], robot.C[1:, :3, 3]])  # in the frame of origin i
    along = np.abs(t[:, 2])
    across = np.hypot(t[:, 0], t[:, 1])
    tol = 1e-9 * (1.0 + np.abs(t).max())
    bend, moves = (along > tol) & (across > tol), (along > tol) | (across > tol)
    prismatic = np.concatenate([[False], ~np.asarray(robot.revolute)])
    out = bend | prismatic, moves | prismatic
    for m in out:
        m.flags.writeable = False  # shared by every call on this robot
    return out


def _origins(robot: Robot, q: np.ndarray) -> tuple[np.ndarray, ...]:
    """Frames F (..., n + 2, 4, 4), joint frames J (..., n, 4, 4) before their joints turn,
    origins (..., n + 2, 3) base, joints, tool, and the bends (..., n + 1, 3) between them."""
    F = fk_frames(robot, q)
    J = F[..., :-2, :, :] @ robot.before
    origins = np.concatenate([F[..., :1, :3, 3], J[..., :3, 3], F[..., -1:, :3, 3]], axis=-2)
    z = np.concatenate([F[..., :1, :3, 2], J[..., :3, 2]], axis=-2)  # (..., n + 1, 3)
    step = origins[..., 1:, :] - origins[..., :-1, :]
    corners = origins[..., :-1, :] + np.sum(step * z, axis=-1, keepdims=True) * z
    return F, J, origins, corners


@takes_robot
def body_pieces(robot: Robot, q: ArrayLike) -> np.ndarray:
    """(..., n + 1, 3, 3): the piece of the skeleton each body carries, as (start, bend, end)
    points — body 0 (the base) from the base frame to joint 1's origin, body k from joint k's
    origin to joint k + 1's (the last body's to the tool); a piece with no bend has it at its
    start. A body's shapes (its looks, its collision capsule) belong along its piece."""
    _, _, origins, corners = _origins(robot, check_q(robot, q))
    return np.stack([origins[..., :-1, :], corners, origins[..., 1:, :]], axis=-2)


@takes_robot
def arm_geometry(robot: Robot, q: ArrayLike) -> ArmGeometry:
    """The drawing geometry of configurations q (n,) or (..., n)."""
    q = check_q(robot, q)
    F, J, origins, corners = _origins(robot, q)
    bend, moves = _masks(robot)
    pts = [origins[..., 0, :]]
    for i in range(robot.n + 1):
        if bend[i]:
            pts.append(corners[..., i, :])
        if moves[i] or i == robot.n:  # the tool always ends the line
            pts.append(origins[..., i + 1, :])
    return ArmGeometry(skeleton=np.stack(pts, axis=-2), joints=J[..., :3, 3], axes=J[..., :3, 2],
                       frames=F)


@takes_robot
def reach(robot: Robot) -> float:
    """An upper bound of the distance from joint 1's origin to the tool: the length of the
    skeleton after joint 1 (prismatic joints at their largest finite stroke)."""
    q = robot.q_home
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    stroke = np.where(np.abs(hi) >= np.abs(lo), hi, lo)
    q = np.where(robot.revolute, q, np.where(np.isfinite(stroke), stroke, q))
    g = arm_geometry(robot, q)
    start = int(np.argmin(np.linalg.norm(g.skeleton - g.joints[0], axis=-1)))
    return float(np.linalg.norm(np.diff(g.skeleton[start:], axis=0), axis=-1).sum())


def size_scale(robot: Robot) -> float:
    """A length that sizes markers and frame axes: the arm's reach, or 1 for a degenerate arm."""
    r = reach(robot)
    return r if r > 0 else 1.0


def configurations(robot: Robot, q: ArrayLike | None) -> np.ndarray:
    """q as (k, n): one configuration (n,), several (k, n), or the robot's home when None."""
    if q is None:
        return robot.q_home[None, :]
    arr = check_q(robot, q)
    if arr.ndim == 1:
        return arr[None, :]
    if arr.ndim != 2:
        raise VizError(f"q: expected one configuration (n,) or several (k, n), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise VizError("q: no configurations to draw")
    return arr


def project(points: np.ndarray, plane: str, azimuth: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The two plotted coordinates of points (..., 3) in a plane of PLANES; for "rz" the
    horizontal coordinate is the reach along the azimuth direction (signed: behind the base < 0)."""
    if plane not in PLANES:
        raise VizError(f"plane must be one of {', '.join(PLANES)}, got {plane!r}")
    i, j = PLANES[plane]
    if i is None:
        h = points[..., 0] * np.cos(azimuth) + points[..., 1] * np.sin(azimuth)
        return h, points[..., j]
    return points[..., i], points[..., j]


def azimuth_of(points: np.ndarray) -> float:
    """The heading atan2(y, x) of a point (the tool of the first configuration) for the "rz" view."""
    p = np.asarray(points, float).reshape(-1, 3)[0]
    return float(np.arctan2(p[1], p[0])) if np.hypot(p[0], p[1]) > 0 else 0.0
