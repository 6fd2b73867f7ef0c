"""The robot's chain at θ = 0, read for closed-form solvers: joint axes, the point where axes
meet, a length scale, and the error raised when a robot does not fit a solver.

Frame i of `frames0` is C0 · C1 · … · Ci with every joint at θ = q + offset = 0: its z axis is
the axis of joint i + 1 and its origin a point on that axis (index n: the tool frame).
"""

from __future__ import annotations

import numpy as np

from ...errors import KinematicaError
from ...model.memo import per_robot
from ...model.robot import Robot

ANGLE_TOL = 1e-9  # rad: axes parallel / perpendicular to this
LENGTH_TOL = 1e-9  # relative to the robot's size: axes meet, offsets vanish
ROUNDING = 1e-13  # relative: a target quantity this small is zero up to rounding (a free joint)


class NotAnalytic(KinematicaError, ValueError):
    """The robot (or the target kind) does not fit an analytic solver; the message says why."""


# --- the chain at θ = 0 ----------------------------------------------------------------------
@per_robot
def frames0(robot: Robot) -> np.ndarray:
    """Frames at θ = 0 (n + 1, 4, 4): index i < n the frame of joint i + 1 (its z is the joint
    axis, its origin a point on it), index n the tool frame."""
    F = np.empty((robot.n + 1, 4, 4))
    F[0] = robot.C[0]
    for i in range(1, robot.n + 1):
        F[i] = F[i - 1] @ robot.C[i]
    F.setflags(write=False)
    return F


@per_robot
def size(robot: Robot) -> float:
    """A length scale of the robot: the sum of its constant offsets (never 0)."""
    return float(np.sum(np.linalg.norm(robot.C[:, :3, 3], axis=-1))) or 1.0


def in_frame(F: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Coordinates of the world point x (3,) in the frame F (4, 4)."""
    return F[:3, :3].T @ (x - F[:3, 3])


def common_point(robot: Robot, joints: tuple[int, ...]) -> tuple[np.ndarray, float]:
    """The point nearest to the axes of `joints` (0-based) at θ = 0 in least squares, and its
    largest distance from any of them (0 when the axes meet in one point)."""
    F = frames0(robot)
    P = [np.eye(3) - np.outer(F[j, :3, 2], F[j, :3, 2]) for j in joints]
    A, b = sum(P), sum(Pj @ F[j, :3, 3] for Pj, j in zip(P, joints, strict=True))
    if np.linalg.cond(A) > 1e9:
        return np.zeros(3), np.inf
    x = np.linalg.solve(A, b)
    return x, max(float(np.linalg.norm(Pj @ (x - F[j, :3, 3]))) for Pj, j in zip(P, joints, strict=True))


def require(ok: bool, robot: Robot, why: str) -> None:
    """Raise `NotAnalytic` naming the robot and the reason unless `ok`."""
    if not ok:
        raise NotAnalytic(f"{robot.name!r}: {why}")
