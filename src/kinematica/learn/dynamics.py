"""A learned inverse dynamics τ ≈ f(q, q̇, q̈), trained against `km.rne` on random trajectories.

Each trajectory moves every joint as a sum of three sinusoids about the middle of its range,
q_j(t) = m_j + Σ_k a_jk sin(ω_jk t + φ_jk), amplitudes keeping it inside the limits (±90° for
an unlimited revolute joint), frequencies up to `max_hz`; q̇, q̈ are the exact derivatives.
Trajectories, not samples, are split into training, validation and test sets, so the test
measures whole motions the model never saw. The 3n inputs call for clustered rules, one
first-order network per joint, built on the structure of the answer,

    τ = M(q) q̈ + q̇ᵀ C(q) q̇ + g(q):

- the rules partition the configuration only (fuzzy c-means on q; q̇ and q̈ get memberships too
  wide to matter), and only the joints whose value changes τ (`configuration_joints`: a base
  turning about the gravity axis, a symmetric last link leave it unchanged — on arm-5dof the
  rules live on q2, q3, q4 instead of all five);
- each rule's consequent is linear in its coefficients but carries the products q̇_i q̇_j and
  q_i q̈_j (`physical_products`): τ is exactly quadratic in q̇, and about a rule's centre M(q) q̈
  is bilinear in q and q̈ to first order. Least squares still finds every consequent at once.

Measured on arm-5dof (100 trajectories, 12 rules, seed 0), RMSE per joint as % of its peak |τ|
on the held-out trajectories: 0.2, 0.0, 0.1, 0.1, 0.1 with the premises trained by LM (issue 29;
1.9, 1.1, 1.3, 2.4, 1.5 with the consequents' least squares alone) — against 8.7, 2.3, 4.6, 7.7,
9.7 (before issue 29) with 24 rules on all of q and linear consequents (structure="plain", the earlier model), whose
error was mostly the Coriolis terms (quadratic in q̇) of joints 1, 4, 5. The report gives the
RMSE per joint as a share of that joint's peak |τ| on the test trajectories, and the time per
call against batched RNE.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..bounds import TRAINING, count
from ..dynamics.rne import rne
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import anfis
from .cluster import fuzzy_c_means
from .model import DynamicsModel
from .sampling import FREE, LearnError
from .scaling import apply, fit
from .train import PATIENCE, check_counts

SINES = 3
STRUCTURES = ("physical", "plain")
MOVES_TAU = 1e-9  # relative change of τ when a joint's value moves: below it, that value does not matter
MAX_RULES = 12  # the default rule count where the data allows it (arm-5dof, 100 trajectories)
POINTS_PER_COEFFICIENT = 14  # training points per consequent coefficient for the default rule count:
# points along one trajectory are strongly correlated, and with fewer per coefficient the product
# terms overfit (arm-5dof, 30 trajectories, 12 rules: 117 % of peak on joint 1; 2 rules: 9 %)
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


def configuration_joints(robot: Robot, rng: np.random.Generator, states: int = 64) -> np.ndarray:
    """Indices of the joints whose value changes τ = RNE(q, q̇, q̈): at random states within
    the sampling box, each joint moved by a random amount, τ changes by more than MOVES_TAU of
    its size. A first joint turning about the gravity axis, or a last link symmetric about its
    own, changes nothing: such joints need no memberships.

    >>> import kinematica as km
    >>> configuration_joints(km.load("arm-5dof"), np.random.default_rng(0)).tolist()  # not the base, not the roll
    [1, 2, 3]
    """
    q, qd, qdd = (a.reshape(-1, robot.n) for a in random_trajectories(robot, states, rng))
    pick = rng.choice(len(q), states, replace=False)
    q, qd, qdd = q[pick], qd[pick], qdd[pick]
    tau = rne(robot, q, qd, qdd)
    size = max(float(np.abs(tau).max()), 1e-300)
    moves = []
    for j in range(robot.n):
        q2 = q.copy()
        q2[:, j] += rng.uniform(-1.0, 1.0, states)
        moves.append(float(np.abs(rne(robot, q2, qd, qdd) - tau).max()) > MOVES_TAU * size)
    return np.flatnonzero(moves)


def physical_products(n: int, config: np.ndarray) -> np.ndarray:
    """Product regressors (P, 2) on the inputs (q, q̇, q̈) (indices 0…3n−1): q̇_i q̇_j (i ≤ j) and
    q_i q̈_j (i in `config`). τ = M(q) q̈ + q̇ᵀ C(q) q̇ + g(q) is quadratic in q̇, and about a
    rule's centre M(q) q̈ is, to first order, bilinear in q and q̈."""
    rates = [(n + i, n + j) for i in range(n) for j in range(i, n)]
    inertia = [(int(i), 2 * n + j) for i in config for j in range(n)]
    return np.array(rates + inertia, dtype=np.int64).reshape(-1, 2)


def default_rules(points: int, coefficients: int) -> int:
    """The rule count for `points` training points and `coefficients` per rule: at least
    POINTS_PER_COEFFICIENT points per coefficient, between 1 and MAX_RULES.

    >>> default_rules(8000, 46), default_rules(2400, 46), default_rules(100, 46)
    (12, 3, 1)
    """
    return int(min(MAX_RULES, max(1, points // (POINTS_PER_COEFFICIENT * coefficients))))


@takes_robot
def train_dynamics(robot: Robot, *, trajectories: int = 100, rules: int | None = None, epochs: int = 20, seed: int = 0,
                   shape: str = "gauss", structure: str = "physical",
                   progress: Callable[[int, int, float], None] | None = None) -> DynamicsModel:
    """A DynamicsModel of `robot` (it must carry inertials), trained and evaluated as above.

    trajectories: random trajectories of 100 points each (80 % train, 10 % validation, 10 %
    test, at least one each); rules: fuzzy c-means rules (default: as many as the training
    points allow, `default_rules`, at most MAX_RULES); epochs: at most (early stopping);
    structure: "physical" (rules on the joints that change τ, `configuration_joints`;
    consequents with `physical_products`) or "plain" (rules on all of q, linear consequents)."""
    if not robot.has_inertials:
        raise LearnError(f"{robot.name!r} has no inertial parameters: its dynamics cannot be learned from RNE")
    if structure not in STRUCTURES:
        raise LearnError(f"structure must be one of {', '.join(STRUCTURES)}, got {structure!r}")
    trajectories = count(trajectories, "trajectories", TRAINING, minimum=3, error=LearnError)
    n = robot.n
    k_val = max(1, trajectories // 10)  # validation and test trajectories each; the rest train
    train_points = (trajectories - 2 * k_val) * POINTS_PER_TRAJECTORY
    config, products = np.arange(n), np.zeros((0, 2), np.int64)
    if structure == "physical":
        config = configuration_joints(robot, np.random.default_rng([seed, 1]))
        config = config if len(config) else np.arange(n)  # τ moves with no joint: any partition will do
        products = physical_products(n, config)
    if rules is None:
        rules = default_rules(train_points, 3 * n + len(products) + 1)
    check_counts(train_points, rules, epochs, 3 * n, train_share=1.0, products=len(products))
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
    c, w = fuzzy_c_means(A[:, config], rules, rng=rng)
    centres, widths = np.zeros((rules, 3 * n)), np.full((rules, 3 * n), WIDE)
    centres[:, config], widths[:, config] = c, w
    net = anfis.clustered(centres, widths, shape, n).with_products(products)
    net, hist = anfis.train(net, A, ytr, epochs, x_val=apply(scaling, Xva), y_val=yva,
                            patience=PATIENCE, progress=progress)
    seconds = time.perf_counter() - start
    model = DynamicsModel(robot, scaling, net)
    report = {"kind": "dynamics", "robot": robot.name, "rules": net.n_rules, "partition": "cluster",
              "structure": structure, "premise_joints": [robot.joint_names[j] for j in config],
              "products": len(products),
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
            "test_samples": len(X), "seconds_per_call_model": t_model / len(X),
            "seconds_per_call_rne": t_rne / len(X)}
