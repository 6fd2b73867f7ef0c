"""A circular arc, or the full circle, through three points (paper 004's "Circ" trajectory).

The circle through p1, p2, p3 (with a = p1 − p3, b = p2 − p3):

    c = p3 + ((|a|² b − |b|² a) × (a × b)) / (2 |a × b|²),   r = |p1 − c|
    n = (p2 − p1) × (p3 − p1) / |…|    (seen from n, p1 → p2 → p3 runs counter-clockwise)

Paper 004 re-expresses the base frame in the circle's local frame; here that frame is
F = [e1 e2 n] with e1 = (p1 − c)/r, e2 = n × e1, so the circle is

    p(φ) = c + r (cos φ · e1 + sin φ · e2),   φ from 0 (p1) through φ2 (p2) to φ3 (p3) < 2π

and the arc length s = r φ. Collinear (or coinciding) points have no circle: a TrajectoryError.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from .path import CartesianPath, as_pose_or_point, as_rotation, poses_from, sample
from .value import TrajectoryError

COLLINEAR = 1e-9  # |a × b| / (|a| |b|) below this: the points are taken as collinear


class Circle(NamedTuple):
    """centre (..., 3), radius (...), frame (..., 3, 3) with columns e1, e2, n, and the angles
    φ2, φ3 (...) of p2 and p3 from p1 (rad, 0 < φ2 < φ3 < 2π)."""

    centre: np.ndarray
    radius: np.ndarray
    frame: np.ndarray
    angle2: np.ndarray
    angle3: np.ndarray


@strict
def circle(p1: ArrayLike, p2: ArrayLike, p3: ArrayLike) -> Circle:
    """The circle through three points (..., 3) each (batch-first), in its local frame.

    >>> c = circle([1, 0, 0], [0, 1, 0], [-1, 0, 0])
    >>> c.centre.round(12).tolist(), float(c.radius), np.degrees([c.angle2, c.angle3]).round(9).tolist()
    ([0.0, 0.0, 0.0], 1.0, [90.0, 180.0])
    """
    P = [np.asarray(p, dtype=float) for p in (p1, p2, p3)]
    for i, p in enumerate(P):
        if p.shape[-1:] != (3,):
            raise TrajectoryError(f"p{i + 1}: expected a point (..., 3), got shape {p.shape}")
        if not np.all(np.isfinite(p)):
            raise TrajectoryError(f"p{i + 1}: contains NaN or infinity")
    p1, p2, p3 = np.broadcast_arrays(*P)
    a, b = p1 - p3, p2 - p3
    axb = np.cross(a, b)
    na, nb, nab = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1), np.linalg.norm(axb, axis=-1)
    scale = np.maximum(np.maximum(na, nb), np.linalg.norm(p1 - p2, axis=-1))
    for (i, j, d) in ((1, 3, na), (2, 3, nb), (1, 2, np.linalg.norm(p1 - p2, axis=-1))):
        if np.any(d <= 1e-12 * np.maximum(scale, 1e-300)) or np.any(scale == 0):
            raise TrajectoryError(f"points {i} and {j} coincide: three distinct points are needed for a circle")
    if np.any(nab <= COLLINEAR * na * nb):
        raise TrajectoryError("the three points are collinear: no circle passes through them")
    num = np.cross(na[..., None] ** 2 * b - nb[..., None] ** 2 * a, axb)
    c = p3 + num / (2.0 * nab[..., None] ** 2)
    r = np.linalg.norm(p1 - c, axis=-1)
    n = np.cross(p2 - p1, p3 - p1)
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    e1 = (p1 - c) / r[..., None]
    e2 = np.cross(n, e1)
    frame = np.stack([e1, e2, n], axis=-1)

    def angle(p):
        d = p - c
        return np.mod(np.arctan2(np.einsum("...i,...i", d, e2), np.einsum("...i,...i", d, e1)), 2 * np.pi)

    return Circle(c, r, frame, angle(p2), angle(p3))


def _through(p1, p2, p3, steps, R, total_angle, timing, kind) -> CartesianPath:
    (q1, R1), (q2, R2), (q3, R3) = (as_pose_or_point(p, f"p{i + 1}") for i, p in enumerate((p1, p2, p3)))
    given = [x is not None for x in (R1, R2, R3)]
    if any(given) and not all(given):
        raise TrajectoryError("p1, p2, p3: give three poses (4, 4) or three points (3,), not a mix")
    if all(given) and R is not None:
        raise TrajectoryError("R: the poses already carry their orientation")
    geo = circle(q1, q2, q3)
    c, r, F = geo.centre, float(geo.radius), geo.frame
    phi2, phi3 = float(geo.angle2), float(geo.angle3)
    Phi = phi3 if total_angle is None else total_angle
    fixed = as_rotation(R)
    R0 = fixed if fixed is not None else np.eye(3)  # the orientation held without three given
    if R1 is not None and R2 is not None and R3 is not None:  # all(given), in words the checker follows
        keys = [0.0, phi2, phi3] + ([2 * np.pi] if total_angle is not None else [])
        mats = [R1, R2, R3] + ([R1] if total_angle is not None else [])
        from scipy.spatial.transform import Rotation, Slerp

        turn = Slerp(keys, Rotation.from_matrix(np.stack(mats)))
    else:
        turn = None

    def pose_at(s):
        phi = np.clip(s / r, 0.0, Phi)
        p = c + r * (np.cos(phi)[:, None] * F[:, 0] + np.sin(phi)[:, None] * F[:, 1])
        Rs = turn(phi).as_matrix() if turn is not None else np.broadcast_to(R0, (len(phi), 3, 3))
        return poses_from(p, Rs)

    knots = [r * phi2] + ([r * phi3] if total_angle is not None else [])
    meta = {"kind": kind, "centre": c.tolist(), "radius": r, "normal": F[:, 2].tolist(), "frame": F.tolist(),
            "angle": Phi, "angle2": phi2, "angle3": phi3}
    return sample(pose_at, r * Phi, steps=steps, knots=knots, oriented=all(given) or fixed is not None,
                  meta=meta, **timing)


@strict
def arc_through(p1: ArrayLike, p2: ArrayLike, p3: ArrayLike, steps: int = 50, *, R: ArrayLike | None = None,
                duration: float | None = None, speed: float | None = None, vmax: float | None = None,
                amax: float | None = None, dt: float | None = None) -> CartesianPath:
    """The arc of the circle through three points from p1 through p2 to p3. Points (3,) with a
    fixed orientation `R` (or none: positions only), or poses (4, 4) whose orientations are
    slerped in turn (p1 → p2 → p3, at their arc positions). `steps` equal arc-length
    intervals plus p2 as a sample; the time law as in `kinematica.trajectory.path`.
    meta: centre, radius, normal, local frame, swept angle (rad).

    >>> p = arc_through([1, 0, 0], [0, 1, 0], [-1, 0, 0], steps=4)
    >>> p.positions.round(6).tolist()[2], round(p.length, 6)
    ([0.0, 1.0, 0.0], 3.141593)
    """
    timing = dict(duration=duration, speed=speed, vmax=vmax, amax=amax, dt=dt)
    return _through(p1, p2, p3, steps, R, None, timing, "arc")


@strict
def circle_through(p1: ArrayLike, p2: ArrayLike, p3: ArrayLike, steps: int = 100, *, R: ArrayLike | None = None,
                   duration: float | None = None, speed: float | None = None, vmax: float | None = None,
                   amax: float | None = None, dt: float | None = None) -> CartesianPath:
    """The full circle through three points: from p1 through p2 and p3 back to p1 (p2, p3 are
    samples). Orientation as in `arc_through` (with poses, it returns to p1's at the end).

    >>> p = circle_through([1, 0, 0], [0, 1, 0], [-1, 0, 0], steps=4)
    >>> len(p), np.allclose(p.positions[-1], [1, 0, 0]), round(p.length / np.pi, 9)
    (5, True, 2.0)
    """
    timing = dict(duration=duration, speed=speed, vmax=vmax, amax=amax, dt=dt)
    return _through(p1, p2, p3, steps, R, 2 * np.pi, timing, "circle")
