"""A smooth path through points: a C²-continuous cubic spline, or paper 004's glued 3-point cubics.

kind="cubic": p(u) a cubic spline in each coordinate over the chord-length parameter
    u_0 = 0, u_k = u_{k−1} + |p_k − p_{k−1}| (scipy's `CubicSpline`): p, p′ and p″ continuous
    at every knot; ends "natural" (p″ = 0), "clamped" (p′ = 0), "not-a-knot", or given end
    tangents (d0, d1).
kind="glued" (paper 004, reconstructed — the paper gives only the idea): each triple
    (p_2j, p_2j+1, p_2j+2) is expressed in its own plane frame (x along the chord p_2j → p_2j+2,
    y towards p_2j+1, in the plane of the three) and joined by a cubic y(x) = c1 x + c2 x² + c3 x³
    through the three points; the 4th condition glues it to the previous piece — the same slope
    y′(0) as the previous piece's end tangent (projected into the new plane) — or, for the first
    piece, y″(0) = 0. An odd last interval is a 2-point cubic with the glued slope and y″ = 0 at
    its end. The result is C¹ where consecutive triples are coplanar; out of plane the tangent
    kinks (the largest kink is reported in meta["kink_deg"]).

The path is sampled by arc length (Gauss–Legendre quadrature of |p′(u)|, inverted by Newton
steps), `steps` equal
intervals plus every given point as a sample; the orientation is slerped between the poses
given at the points (or fixed by `R`, or absent).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..keywords import strict
from .path import CartesianPath, as_rotation, poses_from, sample
from .value import TrajectoryError

KINDS = ("cubic", "glued")
_GL_X, _GL_W = np.polynomial.legendre.leggauss(5)


class GluedCubics:
    """Paper 004's glued planar cubics as a curve u ↦ p(u) (u from 0 to the number of pieces),
    called like scipy's splines: curve(u, nu) gives p or its nu-th derivative (nu ≤ 2); `x` holds
    the parameter of every point."""

    def __init__(self, P: np.ndarray):
        m = len(P) - 1
        if m < 2:
            raise TrajectoryError("a glued spline needs at least 3 points")
        self.origin, self.ex, self.ey, self.chord, self.coef, knots = [], [], [], [], [], [0.0]
        tangent, kinks = None, []
        for j, start in enumerate(range(0, m, 2)):  # piece j starts at point start
            A = P[start]
            two = start + 2 <= m
            C = P[start + 2] if two else P[start + 1]
            chord = C - A
            c = float(np.linalg.norm(chord))
            ex = chord / c
            if two:
                yv = (P[start + 1] - A) - ((P[start + 1] - A) @ ex) * ex
            else:
                yv = tangent - (tangent @ ex) * ex
            if np.linalg.norm(yv) <= 1e-12 * c and tangent is not None:
                yv = tangent - (tangent @ ex) * ex
            if np.linalg.norm(yv) <= 1e-12 * c:  # straight so far: any perpendicular will do
                yv = np.cross(ex, [1.0, 0.0, 0.0] if abs(ex[0]) < 0.9 else [0.0, 1.0, 0.0])
            ey = yv / np.linalg.norm(yv)
            if tangent is None:
                m0 = None
            else:
                tx, ty = tangent @ ex, tangent @ ey
                if tx <= 1e-9:
                    raise TrajectoryError(f"glued spline: the curve would turn back at point {start} "
                                          f"(use kind='cubic')")
                m0 = ty / tx
                out = (ex + m0 * ey) / np.hypot(1.0, m0)
                kinks.append(float(np.degrees(np.arccos(np.clip(out @ tangent, -1.0, 1.0)))))
            if two:
                xb, yb = (P[start + 1] - A) @ ex, (P[start + 1] - A) @ ey
                if not 0 < xb < c:
                    raise TrajectoryError(f"glued spline: point {start + 1} does not lie between points {start} and "
                                          f"{start + 2} along their chord (use kind='cubic')")
                if m0 is None:  # y''(0) = 0: c2 = 0, c1 = −c3 c²
                    c3 = yb / (xb * (xb * xb - c * c))
                    coef = (-c3 * c * c, 0.0, c3)
                else:
                    M = np.array([[xb ** 2, xb ** 3], [c ** 2, c ** 3]])
                    c2, c3 = np.linalg.solve(M, [yb - m0 * xb, -m0 * c])
                    coef = (m0, c2, c3)
                knots += [j + xb / c, j + 1.0]
            else:  # y(c) = 0, y'(0) = m0, y''(c) = 0
                assert m0 is not None  # a last lone piece follows a pair: the tangent is known
                c3 = m0 / (2 * c * c)
                coef = (m0, -3 * c3 * c, c3)
                knots += [j + 1.0]
            self.origin.append(A)
            self.ex.append(ex)
            self.ey.append(ey)
            self.chord.append(c)
            self.coef.append(coef)
            c1, c2, c3 = coef
            slope = c1 + 2 * c2 * c + 3 * c3 * c * c
            tangent = (ex + slope * ey) / np.hypot(1.0, slope)
        self.x = np.array(knots)
        self.kink_deg = max(kinks, default=0.0)

    def __call__(self, u: ArrayLike, nu: int = 0) -> np.ndarray:
        shape = np.shape(u)
        return self._eval(np.asarray(u, dtype=float).reshape(-1), nu).reshape(shape + (3,))

    def _eval(self, u: np.ndarray, nu: int) -> np.ndarray:
        j = np.clip(np.floor(u).astype(int), 0, len(self.chord) - 1)
        c = np.array(self.chord)[j]
        x = (u - j) * c
        c1, c2, c3 = np.array(self.coef)[j].T
        ex, ey, A = np.array(self.ex)[j], np.array(self.ey)[j], np.array(self.origin)[j]
        if nu == 0:
            return A + x[:, None] * ex + (c1 * x + c2 * x ** 2 + c3 * x ** 3)[:, None] * ey
        if nu == 1:
            return c[:, None] * (ex + (c1 + 2 * c2 * x + 3 * c3 * x ** 2)[:, None] * ey)
        if nu == 2:
            return (c ** 2 * (2 * c2 + 6 * c3 * x))[:, None] * ey
        raise InputError("nu must be 0, 1 or 2")


@strict
def curve(points: ArrayLike, kind: str = "cubic", bc: str | Sequence[ArrayLike] = "natural"):
    """The curve through points (k, 3) as a callable u ↦ p(u) (and `curve(u, nu)` for its nu-th
    derivative), with the points' parameters in `.x`: a scipy `CubicSpline` over chord length
    (kind "cubic"), or `GluedCubics` (kind "glued").

    >>> c = curve([[0, 0, 0], [1, 1, 0], [2, 0, 0], [3, 1, 0]])
    >>> np.allclose(c(c.x), [[0, 0, 0], [1, 1, 0], [2, 0, 0], [3, 1, 0]])
    True
    """
    P = _points(points)
    if kind not in KINDS:
        raise TrajectoryError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "glued":
        return GluedCubics(P)
    u = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(P, axis=0), axis=1))])
    if isinstance(bc, str):
        if bc not in ("natural", "clamped", "not-a-knot"):
            raise TrajectoryError(f"bc must be 'natural', 'clamped', 'not-a-knot' or end tangents (d0, d1), got {bc!r}")
        if bc == "not-a-knot" and len(P) < 4:
            bc = "natural"
        bc_type = bc
    else:
        d0, d1 = (np.asarray(d, dtype=float) for d in bc)
        if d0.shape != (3,) or d1.shape != (3,):
            raise TrajectoryError("bc: end tangents must be two 3-vectors")
        bc_type = ((1, d0), (1, d1))
    from scipy.interpolate import CubicSpline

    # (SciPy leaves bc_type unannotated, so pyright types it by its default "not-a-knot": end tangents are documented)
    return CubicSpline(u, P, bc_type=bc_type)  # pyright: ignore[reportArgumentType]


def _points(points: ArrayLike) -> np.ndarray:
    P = np.array(points, dtype=float)
    if P.ndim != 2 or P.shape[1] != 3 or len(P) < 2:
        raise TrajectoryError(f"points: expected shape (k, 3) with k >= 2, got {P.shape}")
    if not np.all(np.isfinite(P)):
        raise TrajectoryError("points: contain NaN or infinity")
    same = np.linalg.norm(np.diff(P, axis=0), axis=1) <= 1e-12 * max(1.0, np.abs(P).max())
    if same.any():
        k = int(np.argmax(same))
        raise TrajectoryError(f"points {k} and {k + 1} coincide (a zero-length piece): drop one")
    return P


def arc_length_table(c, sub: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """(u, s) on `sub` sub-intervals of every knot interval: s(u) = ∫|c′(u)| du by 5-point
    Gauss–Legendre on each sub-interval."""
    u = np.concatenate([np.linspace(a, b, sub + 1)[:-1] for a, b in zip(c.x[:-1], c.x[1:], strict=True)] + [c.x[-1:]])
    h = np.diff(u)
    mid = 0.5 * (u[:-1] + u[1:])
    nodes = (mid[:, None] + 0.5 * h[:, None] * _GL_X[None, :]).ravel()
    speed = np.linalg.norm(c(nodes, 1), axis=-1).reshape(len(h), -1)
    s = np.concatenate([[0.0], np.cumsum(0.5 * h * (speed @ _GL_W))])
    return u, s


def _inverse_arc_length(c, u_tab: np.ndarray, s_tab: np.ndarray):
    """u(s): the table's linear guess refined by two Newton steps u ← u − (S(u) − s)/|c′(u)|,
    S(u) by Gauss–Legendre from the table's sub-interval start (relative error ~1e-9)."""
    def S(u):
        j = np.clip(np.searchsorted(u_tab, u, side="right") - 1, 0, len(u_tab) - 2)
        h = u - u_tab[j]
        nodes = (u_tab[j][:, None] + 0.5 * h[:, None] * (1.0 + _GL_X[None, :])).ravel()
        speed = np.linalg.norm(c(nodes, 1), axis=-1).reshape(len(u), -1)
        return s_tab[j] + 0.5 * h * (speed @ _GL_W)

    def u_of_s(s):
        u = np.interp(s, s_tab, u_tab)
        for _ in range(2):
            du = (S(u) - s) / np.maximum(np.linalg.norm(c(u, 1), axis=-1), 1e-300)
            u = np.clip(u - du, u_tab[0], u_tab[-1])
        return u

    return u_of_s


@strict
def spline(points: ArrayLike, steps: int = 100, *, kind: str = "cubic", bc="natural", R: ArrayLike | None = None,
           duration: float | None = None, speed: float | None = None, vmax: float | None = None,
           amax: float | None = None, dt: float | None = None) -> CartesianPath:
    """A smooth path through points (k, 3), or poses (k, 4, 4) whose orientations are slerped
    from point to point. kind: "cubic" (C², `bc` "natural", "clamped", "not-a-knot" or end
    tangents (d0, d1)) or "glued" (paper 004's 3-point cubics). `steps` equal arc-length
    intervals plus the points themselves; the time law as in `kinematica.trajectory.path`.
    meta["knots_s"]: the arc length at each given point.

    >>> p = spline([[0, 0, 0], [1, 1, 0], [2, 0, 0]], steps=10)
    >>> bool(np.any(np.all(np.isclose(p.positions, [1, 1, 0]), axis=1))), p.oriented
    (True, False)
    """
    from scipy.spatial.transform import Rotation, Slerp

    raw = np.array(points, dtype=float)
    rots = None
    if raw.ndim == 3 and raw.shape[1:] == (4, 4):
        if R is not None:
            raise TrajectoryError("R: the poses already carry their orientation")
        rots = Rotation.from_matrix(raw[:, :3, :3])
        raw = raw[:, :3, 3]
    c = curve(raw, kind, bc)
    u_tab, s_tab = arc_length_table(c)
    s_knots = np.interp(c.x, u_tab, s_tab)
    L = float(s_tab[-1])
    u_of_s = _inverse_arc_length(c, u_tab, s_tab)
    fixed = as_rotation(R)
    turn = Slerp(s_knots, rots) if rots is not None else None
    R0 = fixed if fixed is not None else np.eye(3)

    def pose_at(s):
        s = np.clip(s, 0.0, L)
        p = c(u_of_s(s))
        Rs = turn(s).as_matrix() if turn is not None else np.broadcast_to(R0, (len(s), 3, 3))
        return poses_from(p, Rs)

    meta = {"kind": f"spline-{kind}", "knots_s": s_knots.tolist(),
            "bc": bc if isinstance(bc, str) else "tangents"}
    if isinstance(c, GluedCubics):  # kind "glued"
        meta["kink_deg"] = c.kink_deg
    return sample(pose_at, L, steps=steps, knots=s_knots[1:-1], oriented=rots is not None or fixed is not None,
                  meta=meta, duration=duration, speed=speed, vmax=vmax, amax=amax, dt=dt)
