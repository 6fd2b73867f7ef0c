"""The `Trajectory` value: sampled joint motion with its derivatives, and what came with it.

t (T,) strictly increasing seconds; q, qd, qdd (T, n) in rad(/s, /s²) or the length unit for
prismatic joints; optionally tau (T, n) in N·m / N and the tool poses (T, 4, 4) when the motion
came from a Cartesian path. Immutable: slicing, concatenation and resampling give new values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import sample_count
from ..errors import KinematicaError
from ..keywords import strict
from ..model.coerce import takes_robot


class TrajectoryError(KinematicaError, ValueError):
    """A trajectory is malformed (shapes, times not increasing, NaN) or cannot be combined."""


def _arr(x, shape, what, allow_none=False):
    if x is None:
        if allow_none:
            return None
        raise TrajectoryError(f"{what}: required")
    a = np.array(x, dtype=float)
    if a.shape != shape:
        raise TrajectoryError(f"{what}: expected shape {shape}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TrajectoryError(f"{what}: contains NaN or infinity")
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Sampled joint motion. Build with the planners in `kinematica.trajectory`, `simulate`, or
    directly: ``Trajectory(t, q, qd, qdd, joint_names=…, revolute=…)``."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    joint_names: tuple[str, ...]
    revolute: np.ndarray
    length_unit: str = "m"
    tau: np.ndarray | None = None
    poses: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        q = np.asarray(self.q, dtype=float)
        if q.ndim != 2 or q.shape[0] < 1:
            raise TrajectoryError(f"q: expected shape (T, n) with T >= 1, got {q.shape}")
        T, n = q.shape
        set_ = object.__setattr__
        set_(self, "t", _arr(self.t, (T,), "t"))
        if T > 1 and np.any(np.diff(self.t) <= 0):
            raise TrajectoryError("t: times must be strictly increasing")
        for key in ("q", "qd", "qdd"):
            set_(self, key, _arr(getattr(self, key), (T, n), key))
        set_(self, "tau", _arr(self.tau, (T, n), "tau", allow_none=True))
        set_(self, "poses", _arr(self.poses, (T, 4, 4), "poses", allow_none=True))
        set_(self, "revolute", np.array(self.revolute, dtype=bool).reshape(n))
        names = tuple(self.joint_names)
        if len(names) != n:
            raise TrajectoryError(f"joint_names: expected {n}, got {len(names)}")
        set_(self, "joint_names", names)

    @property
    def n(self) -> int:
        return self.q.shape[1]

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0])

    def __len__(self) -> int:
        return len(self.t)

    def __getitem__(self, idx) -> Trajectory:
        """Samples by index, slice or mask (a single index keeps a one-sample trajectory)."""
        if isinstance(idx, (int, np.integer)):
            idx = slice(idx, idx + 1 if idx != -1 else None)
        def pick(x):
            return None if x is None else x[idx]
        return replace(self, t=self.t[idx], q=self.q[idx], qd=self.qd[idx], qdd=self.qdd[idx],
                       tau=pick(self.tau), poses=pick(self.poses))

    def between(self, t0: float, t1: float) -> Trajectory:
        """The samples with t0 ≤ t ≤ t1."""
        return self[(self.t >= t0) & (self.t <= t1)]

    def then(self, other: Trajectory) -> Trajectory:
        """This motion followed by `other` (see `concatenate`)."""
        return concatenate([self, other])

    def resample(self, times: ArrayLike | None = None, *, dt: float | None = None) -> Trajectory:
        """Values at new times (within [t0, t_end]): q and q̇ by cubic Hermite interpolation of the
        samples (exact for cubic motion), q̈ and τ linearly. Poses are dropped: recompute them with
        `km.fk` on the new q."""
        if (times is None) == (dt is None):
            raise TrajectoryError("give either times or dt")
        if dt is not None:
            if not dt > 0:
                raise TrajectoryError(f"dt must be > 0, got {dt}")
            sample_count(self.duration, dt, f"duration / dt = {self.duration:g} s / {dt:g} s", TrajectoryError)
            times = np.arange(self.t[0], self.t[-1] + 0.5 * dt, dt)
            times[-1] = min(times[-1], self.t[-1])
        ts = np.asarray(times, dtype=float)
        if ts.ndim != 1 or np.any(ts < self.t[0] - 1e-12) or np.any(ts > self.t[-1] + 1e-12):
            raise TrajectoryError(f"times must lie in [{self.t[0]}, {self.t[-1]}]")
        if len(self) == 1:
            raise TrajectoryError("cannot resample a single sample")
        from scipy.interpolate import CubicHermiteSpline

        spline = CubicHermiteSpline(self.t, self.q, self.qd, axis=0)
        lin = lambda y: None if y is None else np.stack([np.interp(ts, self.t, c) for c in y.T], axis=1)
        return replace(self, t=ts, q=spline(ts), qd=spline(ts, 1), qdd=lin(self.qdd), tau=lin(self.tau),
                       poses=None)

    def with_torques(self, tau: ArrayLike) -> Trajectory:
        return replace(self, tau=tau)


@strict
def concatenate(parts: Sequence[Trajectory]) -> Trajectory:
    """Motions one after another; each part is shifted in time to start where the previous one
    ends, and must start at the joint values where it ends (the shared sample is kept once)."""
    if not parts:
        raise TrajectoryError("nothing to concatenate")
    first = parts[0]
    out = [first]
    t_end = first.t[-1]
    for p in parts[1:]:
        if p.joint_names != first.joint_names or p.length_unit != first.length_unit:
            raise TrajectoryError("cannot join trajectories of different joints or units")
        shifted = replace(p, t=p.t - p.t[0] + t_end)
        jump = np.abs(shifted.q[0] - out[-1].q[-1]).max()
        if jump > 1e-9:
            raise TrajectoryError(f"the next part starts {jump:.3g} away from where the previous one ends: "
                                  f"join motions that meet (plan a move between them)")
        shifted = shifted[1:] if len(shifted) > 1 else None  # the shared boundary sample, once
        if shifted is not None:
            out.append(shifted)
            t_end = shifted.t[-1]
    cat = lambda key: (None if any(getattr(p, key) is None for p in out)
                       else np.concatenate([getattr(p, key) for p in out]))
    return replace(first, t=cat("t"), q=cat("q"), qd=cat("qd"), qdd=cat("qdd"), tau=cat("tau"),
                   poses=cat("poses"))


@takes_robot
def for_robot(robot, t, q, qd, qdd, *, tau=None, poses=None, meta: dict | None = None) -> Trajectory:
    """A Trajectory carrying the robot's joint names, joint kinds and length unit."""
    return Trajectory(t, q, qd, qdd, joint_names=robot.joint_names, revolute=robot.revolute,
                      length_unit=robot.length_unit, tau=tau, poses=poses, meta={} if meta is None else meta)
