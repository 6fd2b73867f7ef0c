"""Singularity verdicts in words: is a configuration singular or close to it, and which kind.

A configuration is singular when the task Jacobian loses rank (σ_min ≤ 1e-9 σ_max) and near a
singularity when σ_min / σ_max < `near` (default 1e-3). The kind is read off the geometry of
the joint axes, as textbooks classify it for 6-R arms and their planar cousins:

- wrist:    two wrist axes are collinear (for a spherical wrist: joints n−2 and n at θ5 = 0);
- shoulder: the wrist point lies on the axis of the first joint;
- elbow:    two consecutive parallel axes and the wrist point are coplanar — the arm is
            stretched out (at the boundary of the workspace) or folded back.

The wrist point is the wrist centre for arms with a spherical wrist when orientation is part
of the task, the last joint for planar (x, y, φ) tasks, and the tool point otherwise.
Each candidate is scored by a dimensionless measure (a sine, or a distance over the arm's
size) and the smallest one names the kind.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .chain import check_q
from .fk import fk_frames
from .jacobian import jacobian
from .manipulability import JacobianReport, report, select_rows, task_rows

NEAR = 1e-3
KIND_TOL = 1e-2  # a geometric measure below this names the kind


@dataclass(frozen=True)
class Singularity:
    """The verdict for one configuration: `singular`, `near`, the `kind` when it could be told
    ("wrist", "shoulder", "elbow") and a sentence for people in `message`."""

    singular: bool
    near: bool
    kind: str | None
    message: str
    jacobian: JacobianReport


def _joint_axes(robot: Robot, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    F = fk_frames(robot, q)
    pre = F[:-2] @ robot.before  # frame in which joint i turns: its z is the axis
    return pre[:, :3, 2], pre[:, :3, 3], F[-1, :3, 3]


def _line_distance(p: np.ndarray, a: np.ndarray, z: np.ndarray) -> float:
    d = p - a
    return float(np.linalg.norm(d - (d @ z) * z))


def _spherical_wrist(z: np.ndarray, p: np.ndarray, scale: float) -> np.ndarray | None:
    """The common point of the last three axes, when they meet in one point."""
    # the least-squares point nearest all three lines: A w = b, summed over the projectors P
    # normal to each axis (A = ΣP, b = ΣP·p)
    projectors = [np.eye(3) - np.outer(zi, zi) for zi in z[-3:]]
    A = sum(projectors, np.zeros((3, 3)))
    b = sum((P @ pi for P, pi in zip(projectors, p[-3:], strict=True)), np.zeros(3))
    if np.linalg.cond(A) > 1e8:
        return None
    w = np.linalg.solve(A, b)
    ok = all(_line_distance(w, pi, zi) < 1e-9 * scale for zi, pi in zip(z[-3:], p[-3:], strict=True))
    return w if ok else None


def _candidates(robot: Robot, q: np.ndarray, rows: str) -> list[tuple[float, str, str]]:
    z, p, pe = _joint_axes(robot, q)
    # the geometric causes below are those of turning joints; a helical one also slides, so a
    # point on its axis still moves (h·z): none of them applies to it
    rev = np.flatnonzero(robot.wraps)
    scale = float(np.sum(np.linalg.norm(np.diff(np.vstack([p, pe]), axis=0), axis=1))) or 1.0
    wrist = _spherical_wrist(z, p, scale) if robot.n >= 6 and np.all(robot.wraps[-3:]) else None
    if rows == "planar":
        w, w_name = p[-1], f"joint {robot.n}"
    elif wrist is not None and rows in ("full", "orientation"):
        w, w_name = wrist, "the wrist centre"
    else:
        w, w_name = pe, "the tool point"
    out: list[tuple[float, str, str]] = []
    if wrist is not None:
        last = range(robot.n - 3, robot.n)
        for i in last:
            for j in last:
                if i < j:
                    m = float(np.linalg.norm(np.cross(z[i], z[j]))) + _line_distance(p[j], p[i], z[i]) / scale
                    out.append((m, "wrist", f"the axes of joints {i + 1} and {j + 1} are aligned"))
    if rev.size:
        i0 = rev[0]
        out.append((_line_distance(w, p[i0], z[i0]) / scale, "shoulder",
                    f"{w_name} lies on the axis of joint {i0 + 1}"))
    arm = [i for i in rev if wrist is None or i < robot.n - 3]
    for i, j in itertools.pairwise(arm):
        if j != i + 1 or np.linalg.norm(np.cross(z[i], z[j])) > 1e-9:
            continue
        # In the plane normal to the parallel axes: are axis i, axis j and w on one line?
        P = np.eye(3) - np.outer(z[i], z[i])
        u, v = P @ (p[j] - p[i]), P @ (w - p[j])
        nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        if nu < 1e-12 * scale or nv < 1e-12 * scale:
            continue
        sine = float(np.linalg.norm(np.cross(u, v))) / (nu * nv)
        pose = "stretched out" if u @ v > 0 else "folded back"
        out.append((sine, "elbow", f"the arm is {pose} at joint {j + 1}"))
    return out


@takes_robot
def singularity(robot: Robot, q: ArrayLike, rows: str | None = None, near: float = NEAR) -> Singularity:
    """Singularity verdict for one configuration q (n,).

    rows: the task ("full", "position", "orientation", "planar"); default `task_rows(robot)`.

    >>> import kinematica as km
    >>> km.singularity(km.load("arm-4dof"), [0, 0, 0, 0]).message
    'singular (rank 2 of 3, det(J Jᵀ) = 0): elbow — the arm is stretched out at joint 3'
    """
    q = check_q(robot, q)
    if q.ndim != 1:
        raise InputError(f"singularity takes one configuration of shape ({robot.n},), got {q.shape}")
    rows = rows or task_rows(robot)
    J = select_rows(jacobian(robot, q), rows)
    rep = report(J, rows)
    m = J.shape[0]
    s = rep.singular_values
    ratio = s[-1] / s[0] if s.size == m and s[0] > 0 else 0.0
    singular = rep.rank < m
    is_near = not singular and ratio < near
    if not (singular or is_near):
        return Singularity(False, False, None, f"regular (σ_min/σ_max = {ratio:.3g})", rep)
    found = sorted(_candidates(robot, q, rows))
    kind, why = (found[0][1], found[0][2]) if found and found[0][0] < KIND_TOL else (None, "")
    head = (f"singular (rank {rep.rank} of {m}, det(J Jᵀ) = {rep.det_JJT:.3g})" if singular
            else f"near a singularity (σ_min/σ_max = {ratio:.3g})")
    tail = f": {kind} — {why}" if kind else ": kind not recognised"
    return Singularity(singular, is_near, kind, head + tail, rep)
