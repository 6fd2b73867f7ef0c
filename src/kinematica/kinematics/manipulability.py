"""Measures of how well a Jacobian maps joint speeds to tool speeds.

For a task Jacobian J (m x n) with singular values σ1 ≥ … ≥ σm:
  manipulability (Yoshikawa)  w = √det(J Jᵀ) = σ1·…·σm
  det(J Jᵀ) (paper 001)           = σ1²·…·σm²
  condition number            κ = σ1 / σm   (∞ at a singularity)
  rank                         number of σi > tol · σ1

Which rows form the task matters: a 4-joint arm can never reach full rank 6, so det(J Jᵀ) of its
6 x 4 Jacobian is 0 everywhere. `task_rows` picks rows from the robot's structure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..keywords import strict
from ..model.coerce import takes_robot
from ..model.memo import per_robot
from ..model.robot import Robot

# a task's rows of the 6 × n Jacobian (vx vy vz ωx ωy ωz): what `rows=` of the measures selects
ROWS = {"full": (0, 1, 2, 3, 4, 5), "position": (0, 1, 2), "orientation": (3, 4, 5),
        "planar": (0, 1, 5)}
RANK_TOL = 1e-9


@per_robot  # two FKs of every frame: the simulator asks at every slider event
def is_planar(robot: Robot, tol: float = 1e-9) -> bool:
    """True when every joint is revolute about an axis parallel to the base z axis and all joint
    origins share one height, so the tool moves in a plane (paper 000's arm)."""
    from .fk import fk_frames

    if not np.all(robot.wraps):  # a helical joint lifts the tool out of the plane as it turns
        return False
    Rb = robot.base[:3, :3]
    # joint frames are link frames before the joint: base·…·B_i, checked at two configurations
    for q in (robot.q_home, robot.q_home + 0.3):
        within = np.clip(q, robot.limits[:, 0], robot.limits[:, 1])  # pyright: ignore[reportUnknownMemberType]  # NumPy's stubs need 3.11's typing
        F = fk_frames(robot, within)
        pre = F[:-2] @ robot.before
        z = pre[:, :3, 2] @ Rb
        h = (pre[:, :3, 3] - robot.base[:3, 3]) @ Rb[:, 2]
        # the axes' tilt by its sine (|1 − |cos|| is quadratic: a 4e-5 rad tilt passed as parallel, and
        # a metre of tool then left the plane by 4e-5 m, its own FK refused as off the plane)
        if np.any(np.hypot(z[:, 0], z[:, 1]) > tol) or np.ptp(h) > tol * (1 + np.abs(h).max()):
            return False
    return True


@takes_robot
def task_rows(robot: Robot) -> str:
    """The task a robot's Jacobian should be judged on: "planar" (vx, vy, ωz) for planar arms,
    "full" for 6 or more joints, else "position"."""
    if is_planar(robot):
        return "planar"
    return "full" if robot.n >= 6 else "position"


def select_rows(J: np.ndarray, rows: str | tuple[int, ...]) -> np.ndarray:
    """The rows of J (..., 6, n) named by `rows` ("full", "position", "orientation", "planar")."""
    if isinstance(rows, str) and rows not in ROWS:
        raise InputError(f"rows must be one of {', '.join(ROWS)}, got {rows!r}")
    index = list(ROWS[rows] if isinstance(rows, str) else rows)
    return J[..., index, :]


def _check_J(J: ArrayLike) -> np.ndarray:
    arr = np.asarray(J, dtype=float)
    if arr.ndim < 2:
        raise InputError(f"J: expected a matrix or a stack of matrices (..., m, n), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError("J: contains NaN or infinity")
    return arr


@strict
def singular_values(J: ArrayLike) -> np.ndarray:
    """Singular values (..., min(m, n)), largest first."""
    return np.linalg.svd(_check_J(J), compute_uv=False)


def _padded(J: np.ndarray, s: np.ndarray | None = None) -> np.ndarray:
    """σ of J (or the given s, J's) padded with zeros to m values: a wide-or-square J has m, a
    tall one has only n."""
    s = singular_values(J) if s is None else s
    m = J.shape[-2]
    if s.shape[-1] < m:
        s = np.concatenate([s, np.zeros(s.shape[:-1] + (m - s.shape[-1],))], axis=-1)
    return s


def _kappa(s: np.ndarray) -> np.ndarray:
    """σ_max / σ_min of padded singular values (∞ when one is 0)."""
    with np.errstate(divide="ignore"):
        return np.where(s[..., -1] > 0, s[..., 0] / np.where(s[..., -1] > 0, s[..., -1], 1), np.inf)


def _rank(s: np.ndarray, tol: float) -> np.ndarray:
    """Singular values above tol · σ_max."""
    return np.sum(s > tol * np.maximum(s[..., :1], np.finfo(float).tiny), axis=-1)


@strict
def manipulability(J: ArrayLike) -> np.ndarray:
    """Yoshikawa's w = √det(J Jᵀ), shape (...). Zero when J Jᵀ is singular."""
    return np.prod(_padded(_check_J(J)), axis=-1)


@strict
def det_jjt(J: ArrayLike) -> np.ndarray:
    """det(J Jᵀ), the proximity-to-singularity measure of paper 001."""
    return np.prod(_padded(_check_J(J)) ** 2, axis=-1)


@strict
def condition(J: ArrayLike) -> np.ndarray:
    """κ = σ_max / σ_min over the task's m directions (∞ when a direction is lost)."""
    return _kappa(_padded(_check_J(J)))


@strict
def rank(J: ArrayLike, tol: float = RANK_TOL) -> np.ndarray:
    """Numerical rank: singular values above tol · σ_max."""
    return _rank(singular_values(J), tol)


@dataclass(frozen=True)
class JacobianReport:
    """Everything said about one task Jacobian (see the module docstring for the formulas)."""

    J: np.ndarray
    rows: str
    rank: int
    singular_values: np.ndarray
    manipulability: float
    det_JJT: float
    condition: float


def report(J_task: np.ndarray, rows: str) -> JacobianReport:
    """The measures of one task Jacobian (m, n), from one SVD."""
    s = singular_values(J_task)
    padded = _padded(J_task, s)
    return JacobianReport(J_task, rows, int(_rank(s, RANK_TOL)), s, float(np.prod(padded)),
                          float(np.prod(padded ** 2)), float(_kappa(padded)))
