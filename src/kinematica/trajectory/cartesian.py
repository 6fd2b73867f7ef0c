"""A straight line between two tool poses (paper 004's "Linear" trajectory: N intervals).

    p(s) = p0 + (s/L)(p1 − p0),   R(s) = slerp(R0, R1; s/L),   s ∈ [0, L], L = |p1 − p0|

Spherical linear interpolation turns the tool at a constant rate about the one fixed axis of
R0ᵀR1 (scipy's `Slerp`). A pure rotation (L = 0) is parametrised by its angle instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from .path import CartesianPath, as_pose_or_point, as_rotation, poses_from, sample
from .value import TrajectoryError

TINY = 1e-12


@strict
def line(start: ArrayLike, end: ArrayLike, steps: int = 50, *, R: ArrayLike | None = None,
         duration: float | None = None, speed: float | None = None, vmax: float | None = None,
         amax: float | None = None, dt: float | None = None) -> CartesianPath:
    """The straight line from `start` to `end`: poses (4, 4) — the orientation by slerp — or
    points (3,) with a fixed orientation `R` (3x3 or 4x4; without it the path is positions only).
    `steps` equal intervals (steps + 1 poses); the time law as in `kinematica.trajectory.path`
    (default: 1 s at constant speed; `speed`, or `vmax`/`amax` for a trapezoidal profile).

    >>> p = line([0, 0, 0], [0.3, 0.4, 0], steps=5)
    >>> len(p), p.length, p.positions[1].round(12).tolist()
    (6, 0.5, [0.06, 0.08, 0.0])
    """
    p0, R0 = as_pose_or_point(start, "start")
    p1, R1 = as_pose_or_point(end, "end")
    if (R0 is None) != (R1 is None):
        raise TrajectoryError("start and end: give two poses (4, 4) or two points (3,), not one of each")
    if R0 is not None and R is not None:
        raise TrajectoryError("R: the poses already carry their orientation")
    fixed = as_rotation(R)
    oriented = R0 is not None or fixed is not None
    if R0 is None or R1 is None:  # both or neither (checked above)
        R0 = R1 = fixed if fixed is not None else np.eye(3)
    from scipy.spatial.transform import Rotation, Slerp

    rots = Rotation.from_matrix(np.stack([R0, R1]))
    angle = float((rots[0].inv() * rots[1]).magnitude())
    L = float(np.linalg.norm(p1 - p0))
    if L <= TINY and angle <= TINY:
        raise TrajectoryError("zero-length path: the start and the end are the same pose")
    turn = Slerp([0.0, 1.0], rots)
    total = L if L > TINY else angle

    def pose_at(s):
        u = np.clip(s / total, 0.0, 1.0)
        p = p0 + u[:, None] * (p1 - p0)
        Rs = turn(u).as_matrix() if angle > 0 else np.broadcast_to(R0, (len(u), 3, 3))
        return poses_from(p, Rs)

    meta = {"kind": "line", "length": L, "angle": angle, "s_unit": "length" if L > TINY else "rad"}
    return sample(pose_at, total, steps=steps, dt=dt, duration=duration, speed=speed, vmax=vmax, amax=amax,
                  oriented=oriented, meta=meta)
