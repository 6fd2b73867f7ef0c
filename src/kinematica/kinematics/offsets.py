"""Kinematic calibration of joint offsets: which constant error in each joint's reading makes the
measured joints agree with tool positions known in the base frame.

An arm whose joint j reads q̃_j = q_j − δ_j (its zero a little off: an encoder mounted, or a
calibration pose held, δ_j away from the model's zero) puts its tool at p(q̃ + δ), not p(q̃). With
the tool placed on K points p_k known in the base frame (fiducials, a jig) and the joints read
there, the offsets are the least-squares solution of

    min_δ  Σ_k ‖p(q̃_k + δ) − p_k‖²

found by Gauss–Newton from δ = 0 (the Jacobian of p at q̃_k + δ: the position rows of
`jacobian`), with Levenberg's damping when a step does not lower the cost. As in `identify`, the
standard error of each estimate comes from the residual, σ² = ‖r‖²/(3K − m) and
cov = σ²·(AᵀA)⁻¹, and the condition number of the column-scaled Jacobian A says how well the
poses tell the offsets apart: an offset the poses cannot see (a joint whose axis passes through
the tool point — a wrist roll with the tool on its axis — or poses that all leave one joint's
lever short) makes A rank-deficient, and the fit says so (success=False, the joint named)
instead of returning a number noise chose.

>>> import kinematica as km, numpy as np
>>> r = km.load("puma560")             # its tool point is the wrist centre: joints 4-6 cannot move it
>>> q = np.random.default_rng(0).uniform(-1, 1, (12, 6))
>>> delta = np.radians([0.5, -0.3, 0.2, 0.0, 0.0, 0.0])
>>> fit = km.identify_offsets(r, q - delta, km.fk(r, q)[:, :3, 3], joints=[0, 1, 2])
>>> fit.success, bool(np.allclose(fit.offsets, delta, atol=1e-9))
(True, True)
>>> km.identify_offsets(r, q - delta, km.fk(r, q)[:, :3, 3]).reason[:58]
'these 12 poses cannot tell the offsets of q4, q5, q6 apart'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .fk import fk
from .jacobian import jacobian

MAX_CONDITION = 1e8  # of the column-scaled Jacobian: beyond it an offset is lost in round-off and noise
ITERATIONS = 100
MAX_OFFSET = np.pi / 4  # rad: a zero further off than this is a mistake in the data, not an offset
DEAD = 1e-8  # a Jacobian column this much shorter than the longest: the joint does not move the tool point


@dataclass(frozen=True)
class OffsetFit:
    """Joint offsets δ (n,, rad or length unit: add them to the readings) with standard errors
    `std` (n,; NaN for the joints not fitted, whose δ is 0), the residual's RMS and largest
    tool-point distance (robot length unit), the condition number of the column-scaled
    Jacobian, the poses used, the Gauss–Newton iterations, `success` and `reason` in words."""

    offsets: np.ndarray
    std: np.ndarray
    residual_rms: float
    residual_max: float
    condition: float
    samples: int
    iterations: int
    success: bool
    reason: str


def _residual(robot: Robot, q: np.ndarray, p: np.ndarray, delta: np.ndarray) -> np.ndarray:
    return (fk(robot, q + delta)[:, :3, 3] - p).ravel()


def _stacked(robot: Robot, q: np.ndarray, delta: np.ndarray, joints: np.ndarray) -> np.ndarray:
    return np.reshape(jacobian(robot, q + delta)[:, :3, joints], (-1, len(joints)))


def _scaled(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A with unit-norm columns, the norms, which columns are dead): a column below DEAD of
    the longest is a joint that does not move the tool point here (its round-off, scaled up,
    would pose as a direction), so it is zeroed, not scaled."""
    scale = np.linalg.norm(A, axis=0)
    dead = scale <= DEAD * max(float(scale.max(initial=0.0)), 1e-300)
    scale[dead] = 1.0
    As = A / scale
    As[:, dead] = 0.0
    return As, scale, dead


def _inputs(robot: Robot, q: ArrayLike, positions: ArrayLike,
            joints: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, p = np.asarray(q, dtype=float), np.asarray(positions, dtype=float)
    if q.ndim != 2 or q.shape[1] != robot.n:
        raise InputError(f"q: expected measured joint values of shape (K, {robot.n}), got {q.shape}")
    if p.shape != (len(q), 3):
        raise InputError(f"positions: expected one known tool point per pose, shape ({len(q)}, 3), got {p.shape}")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(p))):
        raise InputError("q and positions: contain NaN or infinity")
    cols = np.arange(robot.n) if joints is None else np.asarray(joints)
    if cols.ndim != 1 or not len(cols) or cols.dtype.kind not in "iu" or len(set(cols.tolist())) != len(cols) \
            or cols.min() < 0 or cols.max() >= robot.n:
        raise InputError(f"joints: expected distinct joint indices 0 … {robot.n - 1}, got {joints!r}")
    if 3 * len(q) <= len(cols):
        raise InputError(f"identify_offsets: {len(q)} poses give {3 * len(q)} coordinates, too few for "
                         f"{len(cols)} offsets: measure more poses")
    return q, p, cols


@takes_robot
def identify_offsets(robot: Robot, q: ArrayLike, positions: ArrayLike, *,
                     joints: Sequence[int] | None = None) -> OffsetFit:
    """Least-squares joint offsets δ from measured joint values q (K, n) at known tool points
    `positions` (K, 3, base frame, robot length unit): see the module's text. `joints` fits
    only those (others held at 0). The true joints are q + δ. success=False, in words, when the
    poses cannot tell some offset apart (the joint named) or the iteration did not converge."""
    q, p, cols = _inputs(robot, q, positions, joints)
    delta, damping = np.zeros(robot.n), 0.0
    r = _residual(robot, q, p, delta)
    cost, done, k = float(r @ r), False, 0
    while not done and k < ITERATIONS:
        k += 1
        As, scale, _ = _scaled(_stacked(robot, q, delta, cols))
        # columns scaled to unit norm, so Marquardt's diag(AᵀA) is the identity: damping is √λ·I rows
        step = np.linalg.lstsq(np.vstack([As, np.sqrt(damping) * np.eye(len(cols))]),
                               np.concatenate([-r, np.zeros(len(cols))]), rcond=None)[0] / scale
        trial = np.copy(delta)
        trial[cols] += step
        r_trial = _residual(robot, q, p, trial)
        if float(r_trial @ r_trial) <= cost:
            delta, r, cost = trial, r_trial, float(r_trial @ r_trial)
            damping = damping / 10
            done = bool(np.max(np.abs(step)) <= 1e-12 * (1 + np.max(np.abs(delta))))
        else:
            damping = max(1e-6, damping * 10)
            done = damping > 1e12  # no step lowers the cost: a minimum
    return _verdict(robot, q, p, cols, delta, r, k, done)


def _verdict(robot: Robot, q: np.ndarray, p: np.ndarray, cols: np.ndarray, delta: np.ndarray, r: np.ndarray,
             iterations: int, converged: bool) -> OffsetFit:
    """The fit's standard errors, conditioning and words at the final δ."""
    As, scale, dead = _scaled(_stacked(robot, q, delta, cols))
    s, vt = np.linalg.svd(As, full_matrices=False)[1:]
    condition = float(s[0] / s[-1]) if s[-1] > 0 else float("inf")
    std = np.full(robot.n, np.nan)
    sigma2 = float(r @ r) / (len(r) - len(cols))
    dist: np.ndarray = np.linalg.norm(np.reshape(r, (-1, 3)), axis=1)  # (NumPy's stubs: Any with an axis)
    fit: dict[str, Any] = dict(residual_rms=float(np.sqrt(np.mean(dist ** 2))), residual_max=float(dist.max()),
                               condition=condition, samples=len(q), iterations=iterations)
    if not np.isfinite(condition) or condition > MAX_CONDITION or dead.any():
        lost = np.abs(vt[s <= s[0] / MAX_CONDITION] if s[-1] <= s[0] / MAX_CONDITION else vt[-1:]).max(axis=0)
        names = ", ".join(robot.joint_names[int(j)] for j in cols[(lost > 0.3) | dead])
        dist = np.linalg.norm(np.reshape(_residual(robot, q, p, np.zeros(robot.n)), (-1, 3)), axis=1)  # no offsets
        fit.update(residual_rms=float(np.sqrt(np.mean(dist ** 2))), residual_max=float(dist.max()))
        return OffsetFit(np.zeros(robot.n), std, **fit, success=False, reason=(
            f"these {len(q)} poses cannot tell the offsets of {names} apart (condition number {condition:.3g}, at "
            f"most {MAX_CONDITION:g}): measure poses where turning each moves the tool point differently, or leave "
            "them out (joints=)"))
    cov = sigma2 * np.linalg.inv(np.transpose(As) @ As) / np.outer(scale, scale)
    std[cols] = np.sqrt(np.maximum(cov.diagonal(), 0.0))
    if np.abs(delta).max() > MAX_OFFSET:  # no zero is that far off: the data describe another arm or frame
        j = int(np.argmax(np.abs(delta)))
        return OffsetFit(delta, std, **fit, success=False, reason=(
            f"{robot.joint_names[j]}'s offset came out {np.degrees(delta[j]):.1f}°, beyond ±{np.degrees(MAX_OFFSET):g}°: "
            f"the known points do not match these poses (their unit must be {robot.length_unit}, their frame the "
            "robot's base)"))
    if not converged:
        return OffsetFit(delta, std, **fit, success=False,
                         reason=f"Gauss–Newton did not converge in {ITERATIONS} iterations")
    return OffsetFit(delta, std, **fit, success=True, reason=(
        f"{len(cols)} offsets from {len(q)} poses: the tool points fit to {fit['residual_rms']:.3g} "
        f"{robot.length_unit} RMS (largest {fit['residual_max']:.3g}); condition number {condition:.3g}"))


__all__ = ["OffsetFit", "identify_offsets"]
