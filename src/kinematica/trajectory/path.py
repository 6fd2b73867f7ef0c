"""The `CartesianPath` value (tool poses with times) and the time laws along a path.

A path is sampled from a geometry s ↦ pose(s), s the arc length of the tool position (length
unit; for a pure rotation, the rotation angle in rad). The time law picks the samples:

  no timing            `steps` equal arc-length intervals, t = s/L · duration (default 1 s)
  speed=v              the same samples, t = s/v (constant speed)
  vmax=, amax=         a trapezoidal speed profile s(t) (see `ramp.trapezoid`: accelerate at
                       amax to at most vmax, cruise, brake to rest), sampled at `steps` equal
                       *time* intervals (or every dt s); with `duration` it is stretched

Knots (e.g. the via points of a spline, the middle point of an arc) are always samples.
`retime` gives an existing path a new time law and keeps its points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from . import ramp
from ._common import duration as _duration
from ._common import grid
from .value import TrajectoryError


@dataclass(frozen=True, eq=False)
class CartesianPath:
    """Tool poses along a path with their times.

    t (k,) s, strictly increasing; poses (k, 4, 4) base-to-tool transforms; s (k,) arc length
    of the position from the start (length unit; rad for a pure rotation); oriented: whether the
    orientation is part of the path (False: positions only, `follow` then solves positions);
    meta: what built it (kind, centre, radius, …).
    """

    t: np.ndarray
    poses: np.ndarray
    s: np.ndarray
    oriented: bool = True
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        P = np.array(self.poses, dtype=float)
        if P.ndim != 3 or P.shape[1:] != (4, 4) or len(P) < 1:
            raise TrajectoryError(f"poses: expected shape (k, 4, 4), got {P.shape}")
        t = np.array(self.t, dtype=float).reshape(-1)
        s = np.array(self.s, dtype=float).reshape(-1)
        if t.shape != (len(P),) or s.shape != (len(P),):
            raise TrajectoryError(f"t and s: expected {len(P)} values each, got {t.shape} and {s.shape}")
        if not (np.all(np.isfinite(P)) and np.all(np.isfinite(t)) and np.all(np.isfinite(s))):
            raise TrajectoryError("path: contains NaN or infinity")
        if np.any(np.diff(t) <= 0):
            raise TrajectoryError("t: times must be strictly increasing")
        for a in (P, t, s):
            a.setflags(write=False)
        object.__setattr__(self, "poses", P)
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "s", s)

    def __len__(self) -> int:
        return len(self.t)

    @property
    def positions(self) -> np.ndarray:
        """Tool positions (k, 3)."""
        return self.poses[:, :3, 3]

    @property
    def length(self) -> float:
        return float(self.s[-1] - self.s[0])

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0])

    def __getitem__(self, idx) -> CartesianPath:
        if isinstance(idx, (int, np.integer)):
            idx = slice(idx, idx + 1 if idx != -1 else None)
        return replace(self, t=self.t[idx], poses=self.poses[idx], s=self.s[idx])

    def then(self, other: CartesianPath) -> CartesianPath:
        """This path followed by `other`, which must start where this one ends (1e-9 in position
        and rotation); the shared point is kept once, times and arc length run on."""
        gap = np.abs(other.poses[0] - self.poses[-1]).max()
        if gap > 1e-9:
            raise TrajectoryError(f"the next path starts {gap:.3g} away from where this one ends")
        t = np.concatenate([self.t, other.t[1:] - other.t[0] + self.t[-1]])
        s = np.concatenate([self.s, other.s[1:] - other.s[0] + self.s[-1]])
        return CartesianPath(t, np.concatenate([self.poses, other.poses[1:]]), s,
                             self.oriented and other.oriented, {"kind": "joined", "parts": [self.meta, other.meta]})


def poses_from(p: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Homogeneous transforms (k, 4, 4) from positions (k, 3) and rotations (k, 3, 3)."""
    T = np.zeros((len(p), 4, 4))
    T[:, :3, :3], T[:, :3, 3], T[:, 3, 3] = R, p, 1.0
    return T


def as_pose_or_point(x: ArrayLike, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(position (3,), rotation (3, 3) or None) from a pose (4, 4) or a point (3,)."""
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError):
        raise TrajectoryError(f"{what}: expected a pose (4, 4) or a point (3,), got {x!r}") from None
    if not np.all(np.isfinite(a)):
        raise TrajectoryError(f"{what}: contains NaN or infinity")
    if a.shape == (3,):
        return a, None
    if a.shape == (4, 4):
        R = a[:3, :3]
        if np.abs(R.T @ R - np.eye(3)).max() > 1e-6 or np.linalg.det(R) < 0:
            raise TrajectoryError(f"{what}: the rotation part is not orthonormal with det +1")
        return a[:3, 3].copy(), R.copy()
    raise TrajectoryError(f"{what}: expected a pose (4, 4) or a point (3,), got shape {a.shape}")


def as_rotation(R: ArrayLike | None, what: str = "R") -> np.ndarray | None:
    """A rotation matrix (3, 3) from None, a 3x3 matrix or a 4x4 pose (its rotation part)."""
    if R is None:
        return None
    a = np.array(R, dtype=float)
    if a.shape == (4, 4):
        a = a[:3, :3]
    if a.shape != (3, 3) or not np.all(np.isfinite(a)):
        raise TrajectoryError(f"{what}: expected a rotation (3, 3) or a pose (4, 4), got shape {a.shape}")
    if np.abs(a.T @ a - np.eye(3)).max() > 1e-6 or np.linalg.det(a) < 0:
        raise TrajectoryError(f"{what}: not orthonormal with det +1")
    return a


def _timing(L: float, steps: int, dt, duration, speed, vmax, amax) -> tuple[np.ndarray, np.ndarray, Callable]:
    """(t, s, time_of_s) for a path of length L."""
    if vmax is not None or amax is not None:
        if vmax is None or amax is None:
            raise TrajectoryError("a trapezoidal speed profile needs both vmax and amax")
        if speed is not None:
            raise TrajectoryError("give either speed or vmax/amax, not both")
        v, a = float(vmax), float(amax)
        if not (np.isfinite(v) and v > 0 and np.isfinite(a) and a > 0):
            raise TrajectoryError(f"vmax and amax must be > 0, got {vmax} and {amax}")
        T, vc, tb = ramp.trapezoid(L, v, a, None if duration is None else _duration(duration))
        knots = ramp.trapezoid_knots(T, vc, tb)
        t = grid(T, steps, dt)
        return t, ramp.evaluate(t, *knots)[0], lambda s: ramp.inverse(s, *knots)
    if speed is not None:
        if duration is not None:
            raise TrajectoryError("give either speed or duration, not both")
        v = float(speed)
        if not (np.isfinite(v) and v > 0):
            raise TrajectoryError(f"speed must be > 0, got {speed}")
        T = L / v
    else:
        T = 1.0 if duration is None else _duration(duration)
    if dt is not None:
        t = grid(T, dt=dt)
        return t, t * (L / T), lambda s: np.asarray(s) * (T / L)
    s = grid(1.0, steps) * L
    return s * (T / L), s, lambda s: np.asarray(s) * (T / L)


def sample(pose_at: Callable[[np.ndarray], np.ndarray], L: float, *, steps: int, knots: ArrayLike = (),
           dt=None, duration=None, speed=None, vmax=None, amax=None, oriented: bool = True,
           meta: dict | None = None) -> CartesianPath:
    """Sample the geometry `pose_at(s) -> (k, 4, 4)` (s in [0, L]) under a time law."""
    if not (L > 0 and np.isfinite(L)):
        raise TrajectoryError("zero-length path: the start and the end are the same pose")
    t, s, time_of = _timing(L, steps, dt, duration, speed, vmax, amax)
    k = np.asarray(knots, dtype=float).ravel()
    k = k[(k > 0) & (k < L)]
    if k.size:
        tk = time_of(k)
        near = np.abs(t[:, None] - tk[None, :]).min(axis=1) <= 1e-9 * t[-1]
        t = np.concatenate([t[~near], tk])
        s = np.concatenate([s[~near], k])
        order = np.argsort(t, kind="stable")
        t, s = t[order], s[order]
    s[-1] = L
    return CartesianPath(t, pose_at(s), s, oriented, dict(meta or {}))


@strict
def retime(path: CartesianPath, *, duration: float | None = None, speed: float | None = None,
           vmax: float | None = None, amax: float | None = None) -> CartesianPath:
    """The same points under a new time law along their arc length s: constant `speed` (or over
    `duration`), or a trapezoidal speed profile (vmax, amax; stretched to `duration` if given).
    Points must advance (s strictly increasing).

    >>> from kinematica.trajectory import line
    >>> p = retime(line([0, 0, 0], [1, 0, 0], steps=4), vmax=1.0, amax=1.0)
    >>> p.t.round(4).tolist()   # accelerate over the first half metre, then brake
    [0.0, 0.7071, 1.0, 1.2929, 2.0]
    """
    if len(path) < 2 or np.any(np.diff(path.s) <= 0):
        raise TrajectoryError("retime: the path's points must advance (arc length strictly increasing)")
    s = path.s - path.s[0]
    L = float(s[-1])
    if vmax is not None or amax is not None:
        if vmax is None or amax is None or speed is not None:
            raise TrajectoryError("give speed, or both vmax and amax")
        if not (float(vmax) > 0 and float(amax) > 0):
            raise TrajectoryError(f"vmax and amax must be > 0, got {vmax} and {amax}")
        T, vc, tb = ramp.trapezoid(L, float(vmax), float(amax), None if duration is None else _duration(duration))
        t = ramp.inverse(s, *ramp.trapezoid_knots(T, vc, tb))
    elif speed is not None:
        if duration is not None or not float(speed) > 0:
            raise TrajectoryError("give a speed > 0, or a duration, not both")
        t = s / float(speed)
    else:
        t = s * ((1.0 if duration is None else _duration(duration)) / L)
    if np.any(np.diff(t) <= 0):
        raise TrajectoryError("retime: two points fall on the same time (points too close for this profile)")
    return replace(path, t=t)
