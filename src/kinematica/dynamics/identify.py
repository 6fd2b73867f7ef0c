"""Identifying inertial parameters from recorded motion: base parameters, least squares, and an
exciting trajectory to record.

Not every column of the regressor Y is independent (a link's mass never shows in a joint whose
axis it cannot load; the first link's parameters other than its inertia about the first axis
never show at all). QR with column pivoting of Y stacked over many random states splits the
columns into r independent ones Y₁ and the rest Y₂ = Y₁·K, so that Y·π = Y₁·(π₁ + K·π₂): the
r base parameters π_b = π₁ + K·π₂ are what torque data can tell (Gautier & Khalil's numerical
base parameters). `identify` solves min ‖Y₁·π_b − τ‖ and reports the standard error of each
estimate from the residual and the condition number of the (column-scaled) regressor — the
measure of how well the motion excited the parameters.

>>> import kinematica as km, numpy as np
>>> from kinematica.dynamics.identify import exciting_trajectory, identify
>>> r = km.load("puma560")
>>> q, qd, qdd = exciting_trajectory(r, samples=400, seed=1)
>>> fit = identify(r, q, qd, qdd, km.rne(r, q, qd, qdd, friction=False))
>>> fit.rank, bool(np.allclose(fit.base, fit.true_base(r), rtol=1e-8, atol=1e-10))
(36, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import SAMPLES, count
from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .params import GRAVITY
from .regressor import inertial_parameters, parameter_names, regressor, states_shape

RANK_TOL = 1e-9  # |R_kk| / |R_11| below this: column k depends on the ones before it
# No drive gives 1e12 N·m; larger recorded torques are a unit or file error, and squares of
# values near 1e154 overflow the least-squares residual.
MAX_TORQUE = 1e12


@dataclass(frozen=True)
class BaseParameters:
    """The split of the 10n parameters: `independent` column indices (r,), `dependent` ones,
    and K (r, 10n − r) with π_b = π[independent] + K·π[dependent]; `names` of the independent
    columns, each base parameter named by the column it is anchored to."""

    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray
    names: list[str]

    @property
    def rank(self) -> int:
        return len(self.independent)

    def of(self, pi: ArrayLike) -> np.ndarray:
        """π_b (r,) of a full parameter vector π (10n,)."""
        pi = np.asarray(pi, dtype=float)
        return pi[self.independent] + self.K @ pi[self.dependent]


def base_split(Y: np.ndarray, names: list[str]) -> BaseParameters:
    """`BaseParameters` from a stacked regressor Y (m, p) of generic states (m ≫ p)."""
    from scipy.linalg import qr

    # SciPy ships no stubs: its qr's result is inferred as the union of every mode's tuple
    _, R, perm = qr(Y, mode="economic", pivoting=True)  # pyright: ignore[reportAssignmentType]
    d = np.abs(np.diag(R))
    r = int(np.sum(d > RANK_TOL * d[0])) if d.size and d[0] > 0 else 0
    K = np.linalg.solve(R[:r, :r], R[:r, r:])
    K[np.abs(K) < 1e-12 * max(1.0, np.abs(K).max(initial=0))] = 0.0  # round-off of exact zeros
    ind, dep = perm[:r], perm[r:]
    return BaseParameters(ind, dep, K, [names[i] for i in ind])


@takes_robot
def base_parameters(robot: Robot, samples: int = 200, seed: int = 0, *,
                    gravity: ArrayLike = GRAVITY) -> BaseParameters:
    """The robot's base-parameter split, from the regressor at `samples` random states (q inside
    the limits, q̇ and q̈ uniform in ±2): generic states excite every combination torque can see."""
    samples = count(samples, "samples", SAMPLES)
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    q = rng.uniform(lo, hi, (samples, robot.n))
    qd, qdd = rng.uniform(-2, 2, (2, samples, robot.n))
    Y = regressor(robot, q, qd, qdd, gravity=gravity).reshape(-1, 10 * robot.n)
    return base_split(Y, parameter_names(robot))


@dataclass(frozen=True)
class Identification:
    """A least-squares fit of the base parameters: estimates `base` (r,) with standard errors
    `std` (r,), the split they refer to, the residual RMS (N·m / N), the condition number of
    the column-scaled regressor, and the number of torque samples used."""

    split: BaseParameters
    base: np.ndarray
    std: np.ndarray
    residual_rms: float
    condition: float
    samples: int

    @property
    def rank(self) -> int:
        return self.split.rank

    def true_base(self, robot: Robot) -> np.ndarray:
        """The base parameters of `robot`'s own inertials, for comparison with `base`."""
        return self.split.of(inertial_parameters(robot))

    def predict(self, Y: np.ndarray) -> np.ndarray:
        """τ (..., n) = Y₁·π_b for regressors Y (..., n, 10n)."""
        return Y[..., self.split.independent] @ self.base


@takes_robot
def identify(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, tau: ArrayLike, *,
             gravity: ArrayLike = GRAVITY, split: BaseParameters | None = None) -> Identification:
    """Least-squares base parameters from recorded states (N, n) and torques τ (N, n), SI.
    `split` defaults to `base_parameters(robot)`; N·n must exceed its rank, and the motion must
    excite every base parameter: a column-scaled regressor of rank below r, or with a condition
    number above 1/RANK_TOL, is refused in words (rank, condition number), as are torques
    that are not finite or beyond ±MAX_TORQUE."""
    tau = np.asarray(tau, dtype=float)
    shape = states_shape(robot, q, qd, qdd)
    if tau.shape != shape:
        raise InputError(f"tau: expected shape {shape} (one torque per joint and state, as q {np.shape(q)}, "
                         f"qd {np.shape(qd)}, qdd {np.shape(qdd)}), got {tau.shape}")
    if not np.all(np.isfinite(tau)):
        raise InputError("tau: contains NaN or infinity")
    if np.abs(tau).max(initial=0.0) > MAX_TORQUE:
        raise InputError(f"tau: {np.abs(tau).max():.3g} N·m (or N) is beyond ±{MAX_TORQUE:g}: no drive gives that; "
                         "check the units of the recording")
    Y = regressor(robot, q, qd, qdd, gravity=gravity)
    split = split or base_parameters(robot, gravity=gravity)
    A = Y.reshape(-1, 10 * robot.n)[:, split.independent]
    b = tau.reshape(-1)
    m, r = A.shape
    if m <= r:
        raise InputError(f"identify: {m} torque values cannot fix {r} base parameters: record more states")
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    s = np.linalg.svd(A / scale, compute_uv=False)
    _excited(s, r, m // robot.n)
    x, *_ = np.linalg.lstsq(A / scale, b, rcond=None)
    base = x / scale
    res = b - A @ base
    sigma2 = float(res @ res) / (m - r)
    cov = sigma2 * np.linalg.pinv((A / scale).T @ (A / scale)) / np.outer(scale, scale)
    return Identification(split, base, np.sqrt(np.clip(np.diag(cov), 0, None)), float(np.sqrt(np.mean(res**2))),
                          float(s[0] / s[-1]), len(b))


def _excited(s: np.ndarray, r: int, states: int) -> None:
    """Refuse a motion that leaves some base parameter unseen: singular values s of the
    column-scaled regressor, r base parameters."""
    rank = int(np.sum(s > RANK_TOL * s[0])) if s[0] > 0 else 0
    if rank < r:
        cond = s[0] / s[-1] if s[-1] > 0 else float("inf")
        raise InputError(f"identify: the motion does not excite the {r} base parameters: the (column-scaled) "
                         f"regressor of these {states} states has rank {rank} of {r}, condition number {cond:.3g} "
                         f"(at most {1 / RANK_TOL:g}); record a motion that moves every joint through its range "
                         "with varied speeds and accelerations, e.g. exciting_trajectory(robot)")


@takes_robot
def exciting_trajectory(robot: Robot, samples: int = 1000, duration: float = 10.0, harmonics: int = 5,
                        seed: int = 0, margin: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, q̇, q̈), each (samples, n), of a finite Fourier series per joint (Swevers' exciting
    trajectories): q_j(t) = c_j + Σ_l a_jl·sin(lωt) + b_jl·cos(lωt), ω = 2π/duration, random
    coefficients (from `seed`) decaying as 1/l, scaled so every joint stays inside its limits
    shrunk by `margin` of their span (±π for an unlimited joint). Periodic with period
    `duration`, so it can be repeated and its recordings averaged."""
    samples = count(samples, "samples", SAMPLES)
    if not duration > 0 or harmonics < 1:
        raise InputError("exciting_trajectory: duration must be positive and harmonics at least 1")
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    span = hi - lo
    lo, hi = lo + margin * span, hi - margin * span
    t = np.linspace(0.0, duration, samples, endpoint=False)
    w = 2 * np.pi / duration
    l = np.arange(1, harmonics + 1)
    a, b = rng.normal(size=(2, robot.n, harmonics)) / l
    arg = np.outer(t, l * w)  # (samples, harmonics)
    S, C = np.sin(arg), np.cos(arg)
    shape = S @ a.T + C @ b.T  # (samples, n)
    dshape = (C * (l * w)) @ a.T - (S * (l * w)) @ b.T
    ddshape = -(S * (l * w) ** 2) @ a.T - (C * (l * w) ** 2) @ b.T
    half = 0.5 * (hi - lo)
    k = half / np.maximum(np.abs(shape).max(axis=0), 1e-12)
    mid = 0.5 * (hi + lo)
    return mid + k * shape, k * dshape, k * ddshape


__all__ = ["BaseParameters", "Identification", "base_parameters", "base_split", "identify", "exciting_trajectory"]
