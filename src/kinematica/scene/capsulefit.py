"""The capsule that tightly encloses a set of points: what a link's collision capsule is fitted
to when the robot has Looks (its drawn shapes' vertices, `drawn.py`).

The fit, for points p_i (m, 3):
- axis direction u: one of the three principal directions of the points (eigenvectors of
  their covariance) — the one whose capsule below has the least volume (for an elongated
  shape, the first principal direction; a disc takes its normal or a diameter, whichever
  encloses it in less volume);
- axis line: through the centre of the smallest circle enclosing the points projected on the
  plane normal to u (Welzl's algorithm on their 2-D convex hull), so the radius is as small as
  any capsule along u allows: r_0, that circle's radius;
- radius r ≥ r_0 and ends: with t_i = p_i · u, d_i the distance of p_i from the axis line and
  s_i = √(r² − d_i²), a capsule of radius r around the axis segment [t_0, t_1] holds p_i iff
  t_0 ≤ t_i + s_i and t_1 ≥ t_i − s_i, so the shortest segment at r is t_0 = min_i (t_i + s_i),
  t_1 = max_i (t_i − s_i) (a sphere when t_1 < t_0); r is the one of least volume
  V = π r² (t_1 − t_0) + 4/3 π r³, searched on a grid between r_0 and r_0 + (max t − min t)/2
  (a sphere holds every point there) and refined once between the best one's neighbours.
Every point is inside the capsule (to rounding). A long box of sides a ≤ b < c gets its axis
along c and a radius a little over √(a² + b²)/2, its corners' distance from the axis (a larger
radius lets the round ends reach the corners from a shorter segment); a cube, a sphere.
`fit_capsules` covers flat or wide points (a base plate, a turntable) by several capsules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .shapes import SceneError

GRID = 48  # radii tried between r_0 and the enclosing sphere's, before one refinement
MAX_PARTS = 4  # capsules at most for one set of points (`fit_capsules`)
SPLIT_GAIN = 0.7  # two halves' capsules replace one when they take less than this of its volume


@dataclass(frozen=True)
class FittedCapsule:
    """A capsule around the segment a → b (3,) of `radius`, and its `volume`."""

    a: np.ndarray
    b: np.ndarray
    radius: float

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.b - self.a))

    @property
    def volume(self) -> float:
        return capsule_volume(self.radius, self.length)


def capsule_volume(radius: float, length: float) -> float:
    """π r² L + 4/3 π r³: a cylinder of length L and two hemispherical caps."""
    return math.pi * radius**2 * length + 4.0 / 3.0 * math.pi * radius**3


def enclosing_circle(points: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre (2,), radius) of the smallest circle holding the 2-D `points` (m, 2): Welzl's
    move-to-front algorithm, expected linear time, on the points' convex hull (plain floats:
    its steps are too small for NumPy calls to pay)."""
    P = [(float(x), float(y)) for x, y in _hull_2d(np.asarray(points, float))]
    c, r = P[0], 0.0
    for i in range(1, len(P)):
        if _outside(P[i], c, r):
            c, r = P[i], 0.0
            for j in range(i):
                if _outside(P[j], c, r):
                    c = (0.5 * (P[i][0] + P[j][0]), 0.5 * (P[i][1] + P[j][1]))
                    r = 0.5 * math.dist(P[i], P[j])
                    for k in range(j):
                        if _outside(P[k], c, r):
                            c, r = _circumcircle(P[i], P[j], P[k])
    return np.array(c), r


def _outside(p: tuple[float, float], c: tuple[float, float], r: float) -> bool:
    return math.dist(p, c) > r * (1 + 1e-12) + 1e-300


def _circumcircle(a, b, c) -> tuple[tuple[float, float], float]:
    """The circle through three points (their smallest enclosing one when they are collinear)."""
    ux, uy, vx, vy = b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]
    uu, vv = ux * ux + uy * uy, vx * vx + vy * vy
    det = 2.0 * (ux * vy - uy * vx)
    if abs(det) < 1e-14 * max(uu, vv, 1e-300):
        p, q = max(((a, b), (a, c), (b, c)), key=lambda pq: math.dist(*pq))
        return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2), 0.5 * math.dist(p, q)
    centre = (a[0] + (vy * uu - uy * vv) / det, a[1] + (ux * vv - vx * uu) / det)
    return centre, max(math.dist(centre, x) for x in (a, b, c))


def _hull_2d(P: np.ndarray) -> np.ndarray:
    """The points on the convex hull (shuffled with a fixed seed: Welzl's expected time), or
    all of them when they are too few or collinear for a hull."""
    P = np.unique(np.round(P, 15), axis=0)
    if len(P) > 3:
        from scipy.spatial import ConvexHull, QhullError

        try:
            P = P[ConvexHull(P).vertices]
        except QhullError:  # collinear: every point stays
            pass
    return P[np.random.default_rng(0).permutation(len(P))]


def _hull_3d(P: np.ndarray) -> np.ndarray:
    """The vertices of the points' convex hull (all the points when they span no volume)."""
    hull = _hull(P) if len(P) > 4 else None
    return P if hull is None else P[hull.vertices]


def _ends(t: np.ndarray, d: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per radius r (k,), the shortest segment [t0, t1] (k,) on the axis whose capsule holds the
    points at axial t_i, distance d_i ≤ r: each point lets the segment stop √(r² − d_i²) short
    of it. Where t1 < t0 a sphere holds them all: both ends at their mean."""
    s = np.sqrt(np.maximum(r[:, None] ** 2 - d**2, 0.0))
    t0, t1 = np.min(t + s, axis=1), np.max(t - s, axis=1)
    mid = 0.5 * (t0 + t1)
    return np.where(t1 >= t0, t0, mid), np.where(t1 >= t0, t1, mid)


def _volumes(t: np.ndarray, d: np.ndarray, r: np.ndarray) -> np.ndarray:
    t0, t1 = _ends(t, d, r)
    return math.pi * r**2 * (t1 - t0) + 4.0 / 3.0 * math.pi * r**3


def _along(points: np.ndarray, u: np.ndarray) -> FittedCapsule:
    """The least-volume capsule along direction u whose axis passes through the centre of the
    points' smallest enclosing circle in the plane normal to u."""
    v = np.cross(u, np.eye(3)[int(np.argmin(np.abs(u)))])
    v /= np.linalg.norm(v)
    w = np.cross(u, v)
    Q = np.c_[points @ v, points @ w]
    c2, r0 = enclosing_circle(Q)
    t, d = points @ u, np.linalg.norm(Q - c2, axis=1)
    r0 = max(r0, float(d.max()))  # the circle's rounding: every point within r0
    radii = np.linspace(r0, r0 + 0.5 * float(np.ptp(t)), GRID)  # a sphere holds them all at the top
    best = int(np.argmin(_volumes(t, d, radii)))
    fine = np.linspace(radii[max(best - 1, 0)], radii[min(best + 1, GRID - 1)], GRID)
    r = fine[int(np.argmin(_volumes(t, d, fine)))][None]
    t0, t1 = (float(x[0]) for x in _ends(t, d, r))
    centre = c2[0] * v + c2[1] * w
    return FittedCapsule(centre + t0 * u, centre + t1 * u, float(r[0]))


def fit_capsule(points: np.ndarray) -> FittedCapsule:
    """The capsule enclosing `points` (m, 3) as the module text states: along the principal
    direction that gives the least volume, axis through the smallest enclosing circle of the
    projection, radius and ends of least volume."""
    P = np.asarray(points, float).reshape(-1, 3)
    if len(P) == 0 or not np.all(np.isfinite(P)):
        raise SceneError("fit_capsule: expected finite points (m, 3), m ≥ 1")
    P = _hull_3d(P)  # a capsule is convex: holding the hull's vertices holds every point
    X = P - P.mean(axis=0)
    _, vecs = np.linalg.eigh(X.T @ X)
    fits = [_along(P, vecs[:, k]) for k in (2, 1, 0)]  # first principal direction first: it wins ties
    return min(fits, key=lambda f: f.volume * (1 - 1e-12))


def _hull(P: np.ndarray):
    """scipy's ConvexHull of the points, or None when they span no volume."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return ConvexHull(P)
    except (QhullError, ValueError):
        return None


def _halves(P: np.ndarray, hull) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of the hull's two halves cut by the plane through its vertices' mean normal
    to their second principal direction: each side's vertices plus where the hull's edges cross
    the plane (so each half's hull is exactly its half of the whole)."""
    c = P.mean(axis=0)
    n = np.linalg.eigh((P - c).T @ (P - c))[1][:, 1]
    s = (P - c) @ n
    edges = {tuple(sorted((int(a), int(b)))) for tri in hull.simplices for a, b in ((tri[0], tri[1]), (tri[1], tri[2]),
                                                                                     (tri[0], tri[2]))}
    cut = [P[i] + (P[j] - P[i]) * (s[i] / (s[i] - s[j])) for i, j in edges if s[i] * s[j] < 0]
    cut_pts = np.array(cut).reshape(-1, 3)
    return np.vstack([P[s <= 0], cut_pts]), np.vstack([P[s >= 0], cut_pts])


def fit_capsules(points: np.ndarray, max_parts: int = MAX_PARTS) -> list[FittedCapsule]:
    """Capsules whose union holds `points` (m, 3): one `fit_capsule`, or — where the points are
    flat or wide (a base plate, a turntable) and one capsule would be a bloated sphere — the
    capsules of the two halves of their convex hull (cut normal to its second principal
    direction, each half fitted likewise), when those together take less than `SPLIT_GAIN` of
    the one's volume; at most `max_parts` capsules. (A disc's halves alone gain too little;
    its quarters do: the halves are fitted to the end before the split is judged.)"""
    P = _hull_3d(np.asarray(points, float).reshape(-1, 3))
    one = fit_capsule(P)
    hull = _hull(P) if max_parts > 1 else None
    if hull is None or hull.volume >= SPLIT_GAIN * one.volume:
        return [one]  # halves covering the hull take at least its volume: no split could win
    a, b = _halves(P, hull)
    if len(a) < 2 or len(b) < 2:
        return [one]
    split = fit_capsules(a, max_parts // 2) + fit_capsules(b, max_parts - max_parts // 2)
    return split if sum(c.volume for c in split) < SPLIT_GAIN * one.volume else [one]
