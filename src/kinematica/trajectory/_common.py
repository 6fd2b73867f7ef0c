"""Shared input checks and builders for the planners (private).

Every planner accepts `robot`: a `Robot` (its joint names, joint kinds and length unit go into
the result), a sequence of joint names (all revolute, metres), or None (names q1 … qn).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import SAMPLES, count, sample_count
from ..model.coerce import as_robot
from .value import Trajectory, TrajectoryError

JointSpec = tuple[tuple[str, ...], np.ndarray, str]


def joint_spec(robot, n: int) -> JointSpec:
    """(names, revolute mask, length unit) for n joints from a Robot (or a bundled robot's name,
    or a robot file's path: `as_robot`), joint names or None."""
    if robot is None:
        return tuple(f"q{i + 1}" for i in range(n)), np.ones(n, bool), "m"
    if isinstance(robot, (str, os.PathLike)):
        robot = as_robot(robot)
    if hasattr(robot, "joint_names") and hasattr(robot, "revolute"):
        if robot.n != n:
            raise TrajectoryError(f"{robot.name!r} has {robot.n} joints, the poses have {n} values")
        return tuple(robot.joint_names), np.asarray(robot.revolute, bool), robot.length_unit
    if not isinstance(robot, Sequence):
        raise TrajectoryError(f"robot: expected a Robot, a robot's name or file, joint names or None, "
                              f"got {robot!r}")
    names = tuple(str(s) for s in robot)
    if len(names) != n:
        raise TrajectoryError(f"joint names: expected {n}, got {len(names)}")
    return names, np.ones(n, bool), "m"


def vector(x: ArrayLike, what: str, n: int | None = None) -> np.ndarray:
    """x as a finite float vector (n,); a scalar counts as one joint when n is None."""
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError):
        raise TrajectoryError(f"{what}: expected numbers, got {x!r}") from None
    if a.ndim == 0:
        a = a.reshape(1) if n is None else np.full(n, float(a))
    if a.ndim != 1 or (n is not None and a.shape != (n,)):
        raise TrajectoryError(f"{what}: expected shape ({n if n is not None else 'n'},), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TrajectoryError(f"{what}: contains NaN or infinity")
    return a


def points(x: ArrayLike, what: str, min_count: int = 2) -> np.ndarray:
    """Joint poses (k, n) with k >= min_count (a 1-D input is k scalar poses of one joint)."""
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError):
        raise TrajectoryError(f"{what}: expected numbers, got {x!r}") from None
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] < min_count:
        raise TrajectoryError(f"{what}: expected shape (k, n) with k >= {min_count}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TrajectoryError(f"{what}: contains NaN or infinity")
    return a


def positive(x: ArrayLike, what: str, n: int) -> np.ndarray:
    """A per-joint limit (scalar or (n,)), every value > 0 and finite."""
    a = vector(x, what, n)
    if np.any(a <= 0):
        raise TrajectoryError(f"{what}: must be > 0 for every joint, got {a.tolist()}")
    return a


def duration(x, what: str = "duration") -> float:
    try:
        T = float(x)
    except (TypeError, ValueError):
        raise TrajectoryError(f"{what}: expected a number of seconds, got {x!r}") from None
    if not (np.isfinite(T) and T > 0):
        raise TrajectoryError(f"{what}: must be > 0 s, got {x!r}")
    return T


def grid(T: float, steps: int = 100, dt: float | None = None, knots: ArrayLike = ()) -> np.ndarray:
    """Sample times on [0, T]: `steps` equal intervals, or every `dt` s (the last interval shorter),
    with the knot times inserted (a knot closer than 1e-9·T to a sample replaces it)."""
    if dt is not None:
        dt = float(dt)
        if not (np.isfinite(dt) and dt > 0):
            raise TrajectoryError(f"dt must be > 0 s, got {dt}")
        sample_count(T, dt, f"duration / dt = {T:g} s / {dt:g} s", TrajectoryError)
        t = np.arange(0.0, T, dt)
        t = np.append(t[t < T - 1e-9 * T], T)
    else:
        t = np.linspace(0.0, T, count(steps, "steps", SAMPLES, error=TrajectoryError) + 1)
    k = np.asarray(knots, dtype=float).ravel()
    k = k[(k > 0) & (k < T)]
    if k.size:
        near = np.abs(t[:, None] - k[None, :]).min(axis=1) <= 1e-9 * T
        t = np.union1d(t[~near], k)
    return t


def build(robot, t, q, qd, qdd, **kw) -> Trajectory:
    names, revolute, unit = joint_spec(robot, np.shape(q)[1])
    return Trajectory(t, q, qd, qdd, joint_names=names, revolute=revolute, length_unit=unit, **kw)
