"""A learned inverse dynamics τ ≈ f(q, q̇, q̈), trained against `km.rne` on random trajectories.

Each trajectory moves every joint as a sum of three sinusoids about the middle of its range,
q_j(t) = m_j + Σ_k a_jk sin(ω_jk t + φ_jk), amplitudes keeping it inside the limits (±90° for
an unlimited revolute joint), frequencies up to `max_hz`; q̇, q̈ are the exact derivatives.
Trajectories, not samples, are split into training, validation and test sets, so the test
measures whole motions the model never saw. The 3n inputs call for clustered rules, one
first-order network per joint; the rules partition the configuration q only (fuzzy c-means
on q; q̇ and q̈ get memberships too wide to matter), because τ = M(q) q̈ + c(q, q̇) + g(q) is
linear in q̈ at a given q: a rule's linear consequent carries q̈ (and, to first order, q̇),
and the rules spend themselves on the configuration, where the nonlinearity is. (Clustering
all 3n inputs measured worse on arm-5dof at 24 rules: 5.6–22 % against 2.2–19 % of peak.) The report gives the RMSE per joint as a share of
that joint's peak |τ| on the test trajectories, and the time per call against batched RNE.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from ..bounds import TRAINING, count
from ..dynamics.rne import rne
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import anfis
from .model import DynamicsModel
from .sampling import FREE, LearnError
from .scaling import apply, fit
from .cluster import fuzzy_c_means
from .train import PATIENCE, check_counts

SINES = 3
WIDE = 1e3  # width (scaled units) of the q̇, q̈ memberships: μ > 0.99999 over the training span
POINTS_PER_TRAJECTORY = 100
DURATION = 4.0  # s per trajectory


def random_trajectories(robot: Robot, count_: int, rng: np.random.Generator, max_hz: float = 0.5
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, q̇, q̈ of shape (count_, POINTS_PER_TRAJECTORY, n) (see the module docstring)."""
    lo, hi = robot.limits[:, 0].copy(), robot.limits[:, 1].copy()
    rev = robot.revolute
    lo = np.where(rev & ~np.isfinite(lo), -FREE, lo)
    hi = np.where(rev & ~np.isfinite(hi), FREE, hi)
    if not np.all(np.isfinite(lo) & np.isfinite(hi)):
        raise LearnError(f"{robot.name!r} has an unlimited prismatic joint: give it limits to sample within")
    n = robot.n
    mid, half = (lo + hi) / 2, 0.95 * (hi - lo) / 2
    a = rng.dirichlet(np.ones(SINES), (count_, n)) * half[None, :, None] * rng.uniform(0.3, 1, (count_, n, 1))
    w = 2 * np.pi * rng.uniform(0.05, max_hz, (count_, n, SINES))
    ph = rng.uniform(0, 2 * np.pi, (count_, n, SINES))
    t = np.linspace(0, DURATION, POINTS_PER_TRAJECTORY)[None, :, None, None]
    arg = w[:, None] * t + ph[:, None]
    q = mid + np.sum(a[:, None] * np.sin(arg), axis=-1)
    qd = np.sum(a[:, None] * w[:, None] * np.cos(arg), axis=-1)
    qdd = -np.sum(a[:, None] * w[:, None] ** 2 * np.sin(arg), axis=-1)
    return q, qd, qdd


@takes_robot
def train_dynamics(robot: Robot, *, trajectories: int = 100, rules: int = 24, epochs: int = 20, seed: int = 0,
                   shape: str = "gauss", progress: Callable[[int, int, float], None] | None = None) -> DynamicsModel:
    """A DynamicsModel of `robot` (it must carry inertials), trained and evaluated as above.

    trajectories: random trajectories of 100 points each (80 % train, 10 % validation, 10 %
    test, at least one each); rules: fuzzy c-means rules; epochs: at most (early stopping)."""
    if not robot.has_inertials:
        raise LearnError(f"{robot.name!r} has no inertial parameters: its dynamics cannot be learned from RNE")
    trajectories = count(trajectories, "trajectories", TRAINING, minimum=3, error=LearnError)
    n = robot.n
    k_val = max(1, trajectories // 10)  # validation and test trajectories each; the rest train
    train_points = (trajectories - 2 * k_val) * POINTS_PER_TRAJECTORY
    check_counts(train_points, rules, epochs, 3 * n, train_share=1.0)
    rng = np.random.default_rng(seed)
    q, qd, qdd = random_trajectories(robot, trajectories, rng)
    tau = rne(robot, q, qd, qdd)
    idx = rng.permutation(trajectories)
    te, va, tr = idx[:k_val], idx[k_val:2 * k_val], idx[2 * k_val:]

    def flat(ix):
        X = np.concatenate([q[ix], qd[ix], qdd[ix]], axis=-1).reshape(-1, 3 * n)
        return X, tau[ix].reshape(-1, n)

    (Xtr, ytr), (Xva, yva), (Xte, yte) = flat(tr), flat(va), flat(te)
    scaling = fit(Xtr, (False,) * (3 * n))
    start = time.perf_counter()
    A = apply(scaling, Xtr)
    centres, widths = fuzzy_c_means(A[:, :n], rules, rng=rng)
    centres = np.concatenate([centres, np.zeros((rules, 2 * n))], axis=1)
    widths = np.concatenate([widths, np.full((rules, 2 * n), WIDE)], axis=1)
    net = anfis.clustered(centres, widths, shape, n)
    net, hist = anfis.train(net, A, ytr, epochs, x_val=apply(scaling, Xva), y_val=yva,
                            patience=PATIENCE, progress=progress)
    seconds = time.perf_counter() - start
    model = DynamicsModel(robot, scaling, net)
    report = {"kind": "dynamics", "robot": robot.name, "rules": net.n_rules, "partition": "cluster",
              "shape": shape, "trajectories": trajectories, "train": len(tr), "validation": len(va), "test": len(te),
              "points_per_trajectory": POINTS_PER_TRAJECTORY, "epochs": len(hist), "max_epochs": epochs,
              "train_seconds": seconds, "seed": seed, "rmse_train": hist[:, 0].tolist(),
              "rmse_validation": hist[:, 1].tolist()}
    report.update(dynamics_report(model, Xte, yte))
    return DynamicsModel(robot, scaling, net, report)


def dynamics_report(model: DynamicsModel, X: np.ndarray, tau: np.ndarray) -> dict[str, Any]:
    """RMSE per joint (N·m) and as % of the peak |τ| on these samples; time per call against RNE."""
    n = model.robot.n
    q, qd, qdd = X[:, :n], X[:, n:2 * n], X[:, 2 * n:]
    start = time.perf_counter()
    pred = model.torques(q, qd, qdd)
    t_model = time.perf_counter() - start
    start = time.perf_counter()
    rne(model.robot, q, qd, qdd)
    t_rne = time.perf_counter() - start
    rmse = np.sqrt(np.mean((pred - tau) ** 2, axis=0))
    peak = np.abs(tau).max(axis=0)
    return {"joints": list(model.robot.joint_names), "rmse": rmse.tolist(), "peak_torque": peak.tolist(),
            "rmse_percent_of_peak": (100 * rmse / np.where(peak > 0, peak, np.inf)).tolist(),
            "test_samples": int(len(X)), "seconds_per_call_model": t_model / len(X),
            "seconds_per_call_rne": t_rne / len(X)}
