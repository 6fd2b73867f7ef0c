"""Planar two-link and three-link arms in closed form, both elbows (paper 000's chain).

Two links L1, L2 to the point (x, y), r² = x² + y²:

  cos θ2 = (r² − L1² − L2²) / (2 L1 L2)
  θ2 = atan2(±√(((L1 + L2)² − r²)(r² − (L1 − L2)²)), r² − L1² − L2²)
  θ1 = atan2(y, x) − atan2(L2 sin θ2, L1 + L2 cos θ2)
     = atan2(y, x) − atan2(2 L1 L2 sin θ2, r² + L1² − L2²)

(the product under the root is (2 L1 L2 sin θ2)², written so that it loses no digits near a
stretched or folded arm). "Elbow up" is θ2 < 0: the elbow lies to the left of the line from
the base to the target, i.e. above it when the arm reaches along +x; "elbow down" is θ2 > 0.
A point beyond L1 + L2 or inside |L1 − L2| is unreachable: the arm then points at it,
stretched or folded (the nearest it can get), and `reachable` is False.

Three links with the heading φ of the last link: the wrist point W = (x, y) − L3 (cos φ, sin φ)
is reached by the first two links, and θ3 = φ − θ1 − θ2.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ...model.memo import per_robot
from ...model.robot import Robot
from ..target import Target
from .geometry import NotAnalytic

ELBOWS = np.array([-1.0, 1.0])  # signs of θ2: elbow up, elbow down
LABELS = ["elbow up", "elbow down"]


def elbow(x: np.ndarray, y: np.ndarray, L1: float, L2: float, sign: ArrayLike):
    """One elbow branch: (θ1, θ2, reachable), θ2 taking the sign of `sign`; all broadcast.
    θ1 uses atan2(L2 sin θ2, L1 + L2 cos θ2) = atan2(S, r² + L1² − L2²), S = 2 L1 L2 sin θ2,
    which also points the arm at an unreachable point (stretched, or folded when too near)."""
    r2 = x * x + y * y
    far, near = (L1 + L2) ** 2 - r2, r2 - (L1 - L2) ** 2
    reach_tol = 1e-12 * (L1 + L2) ** 2
    S = sign * np.sqrt(np.maximum(far, 0.0) * np.maximum(near, 0.0))  # 2 L1 L2 sin θ2
    th2 = np.arctan2(S, r2 - (L1 * L1 + L2 * L2))  # 2 L1 L2 cos θ2 when reachable
    th1 = np.arctan2(y, x) - np.arctan2(S, r2 + (L1 * L1 - L2 * L2))
    return th1, th2, (far >= -reach_tol) & (near >= -reach_tol)


def two_link(xy: ArrayLike, L1: float, L2: float) -> tuple[np.ndarray, np.ndarray]:
    """Both elbows of a planar 2R arm: θ (..., 2 branches, 2 joints) [elbow up, elbow down]
    and reachable (...).

    >>> th, ok = two_link([30.0, 20.0], 20, 20)
    >>> np.degrees(th).round(2), ok
    (array([[ 59.35, -51.32],
           [  8.03,  51.32]]), array(True))
    """
    xy = np.asarray(xy, dtype=float)
    th1, th2, ok = elbow(xy[..., 0, None], xy[..., 1, None], L1, L2, ELBOWS)
    return np.stack([th1, th2], axis=-1), ok[..., 0]


def three_link(xy: ArrayLike, phi: ArrayLike, L1: float, L2: float, L3: float) -> tuple[np.ndarray, np.ndarray]:
    """Both elbows of a planar 3R arm reaching (x, y) with the last link at heading φ:
    θ (..., 2, 3) [elbow up, elbow down] and reachable (...).

    >>> th, ok = three_link([-10.0, 35.0], np.radians(170.06), 20, 20, 20)
    >>> np.degrees(th[1]).round(1), ok
    (array([38.5, 68.8, 62.8]), array(True))
    """
    xy, phi = np.asarray(xy, dtype=float), np.asarray(phi, dtype=float)[..., None]
    wx, wy = xy[..., 0, None] - L3 * np.cos(phi), xy[..., 1, None] - L3 * np.sin(phi)
    th1, th2, ok = elbow(wx, wy, L1, L2, ELBOWS)
    return np.stack([th1, th2, phi - th1 - th2], axis=-1), ok[..., 0]


# --- on a planar robot -----------------------------------------------------------------------
@per_robot
def lengths(robot: Robot) -> np.ndarray:
    """The link lengths L of a planar robot (its table's "L"), after checking that its chain
    is the planar one they build (base turned about z, links along x, tool at the last L)."""
    table = robot.table
    if table is None or table.kind != "planar":
        raise NotAnalytic(f"{robot.name!r} is not a planar robot (no planar link table)")
    L = np.array([row["L"] for row in table.as_dicts()], dtype=float)
    C = robot.C
    expect = np.tile(np.eye(4), (robot.n + 1, 1, 1))
    expect[1:, 0, 3] = L
    expect[0] = C[0]
    flat_base = abs(C[0][2, 2] - 1) < 1e-12
    if robot.n not in (2, 3) or not flat_base or not np.allclose(C, expect, atol=1e-12 * max(L.sum(), 1)):
        raise NotAnalytic(f"{robot.name!r}: closed forms cover planar 2R and 3R chains as built "
                          f"from link lengths; this one has {robot.n} joints or another tool/base")
    return L


def solve(robot: Robot, target: Target, q_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Both elbows of a planar 2R (x, y) or 3R (x, y, φ) robot: q (N, 2, n), reachable (N, 2),
    labels."""
    L = lengths(robot)
    if target.kind != "planar" or (robot.n == 3) != (target.phi is not None):
        raise NotAnalytic(f"{robot.name!r}: the planar closed form needs an (x, y) target for 2R "
                          f"and (x, y, φ) for 3R, got a {target.kind} target")
    base = robot.C[0]
    yaw0 = np.arctan2(base[1, 0], base[0, 0])
    xy = (target.p[:, :2] - base[:2, 3]) @ base[:2, :2]
    if robot.n == 2:
        th, ok = two_link(xy, *L)
    else:
        th, ok = three_link(xy, target.phi - yaw0, *L)
    return th - robot.offsets, np.repeat(ok[:, None], 2, axis=1), list(LABELS)
