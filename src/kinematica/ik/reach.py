"""A quick test of whether a target can be reached at all, before any solver runs.

Paper 000: a planar arm reaches (x, y) only if √(x² + y²) ≤ L1 + L2 + L3. For any chain, the
points p_i on consecutive joint axes are a fixed distance apart (a revolute joint turns about
its own point), so by the triangle inequality the tool stays within
    R_max = Σ ‖p_(i+1) − p_i‖ + ‖p_tool − p_n‖   (+ the stroke of each prismatic joint, and
                                                    |pitch|·turn of each helical one)
of p_1. The bound is never too small, so a refusal is always right. A target counts as within
reach up to R_max + tol + 1e-12·size: `tol` the IK position tolerance, at most 1e-3·size (a
target that close to the sphere may be solved within it), `size` the largest coordinate or length
of the chain or the target (FK rounds a point of size s by ~n·ε·s, so a target taken from the arm's own FK may lie that far
outside the sphere — beyond it where R_max = 0, a tool on a joint axis that cannot move).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._core import reach_distances
from ..kinematics.fk import fk_frames
from ..model.memo import per_robot
from ..model.robot import Robot
from .goals import goals
from .target import Target

ROUNDING = 1e-12  # relative to the chain's size: FK's rounding (~n·ε) with a wide margin
TOL_SHARE = 1e-3  # of the chain's size: the most of the position tolerance the bound takes in


def bound(robot: Robot) -> tuple[np.ndarray, float]:
    """p_1 (3,), the first joint's point, and R_max = Σ ‖p_(i+1) − p_i‖ + ‖p_tool − p_n‖ (+ strokes),
    in the robot's length unit: no configuration puts the tool farther than R_max from p_1."""
    p1, reach, _ = _geometry(robot)
    return p1, reach


def allowance(robot: Robot, tol: float, world: Robot | None = None) -> float:
    """How far beyond R_max a target still counts as within reach: min(tol, 1e-3·size) +
    1e-12·size, size that of `robot` or, when larger, of the `world` robot whose solver problem
    it is (a planar arm is solved without its base, where the target arrives with the rounding
    of its world coordinates). A looser tolerance than 1e-3 of the arm's size
    (tol_position=1e9) says nothing of where the arm reaches: a target that far out stays refused."""
    size = max(_geometry(robot)[2], 0.0 if world is None else _geometry(world)[2])
    return min(tol, TOL_SHARE * size) + ROUNDING * size


@per_robot
def _geometry(robot: Robot) -> tuple[np.ndarray, float, float]:
    q = robot.q_home
    F = fk_frames(robot, q)
    pts = np.vstack([(F[:-2] @ robot.before)[:, :3, 3], F[-1, :3, 3]])
    reach = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
    for i in np.flatnonzero(~robot.revolute):
        lo, hi = robot.limits[i]
        reach += max(abs(lo - q[i]), abs(hi - q[i]))  # inf for an unlimited slide
    for i in np.flatnonzero(robot.helical):  # its point slides along its axis as it turns
        lo, hi = robot.limits[i]
        reach += abs(robot.pitch[i]) * max(abs(lo - q[i]), abs(hi - q[i]))
    size = max(float(np.abs(pts).max()), reach if np.isfinite(reach) else 0.0)
    return pts[0], reach, size


class Reach(NamedTuple):
    """The reach test of N targets: reachable (N,) bool, distance (N,) from the first joint, and
    the bound R_max (length unit)."""

    reachable: np.ndarray
    distance: np.ndarray
    bound: float


def reach_check(robot: Robot, target: Target, tol: float, world: Robot | None = None) -> Reach:
    """Per target (N,): reachable flag (distance ≤ R_max + `allowance(robot, tol)`, tol the
    position tolerance), distance from the first joint (the core's `reach_distances`), and the
    bound R_max."""
    p1, reach = bound(robot)
    dist = reach_distances(goals(target), p1, target.kind == "planar").reshape(target.shape)
    return Reach(dist <= reach + allowance(robot, tol, world), dist, reach)


def distance(d: np.ndarray) -> np.ndarray:
    """‖d‖ along the last axis (the NumPy form of the core's reach distance, for the explain
    engine and the tests), exact for any finite d as `math.hypot` is: divided by its
    largest entry first, since the squares of a finite 1e308 overflow (a target that far is out
    of reach, and its message should say how far, not warn). A length beyond the largest float
    is inf.

    >>> float(distance(np.array([1e308, 1e308, 0.0])))
    1.4142135623730951e+308
    """
    big = np.max(np.abs(d), axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        return (big * np.linalg.norm(d / np.where(big > 0, big, 1.0), axis=-1, keepdims=True))[..., 0]


def out_of_reach_message(dist: float, reach: float, unit: str) -> str:
    return f"target out of reach: |p| = {dist:.4g} {unit} > {reach:.4g} {unit} (the arm's full reach)"


__all__ = ["ROUNDING", "TOL_SHARE", "Reach", "allowance", "bound", "distance", "out_of_reach_message", "reach_check"]
