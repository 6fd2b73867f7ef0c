"""How good a learned IK model is, measured on targets it was not trained on.

The report (a dict of plain numbers, stored in the model file):
  alone        task-space error of the model's answer, judged by FK: position median, p95, max
               (length unit), orientation median, p95, max (deg), and the share within 1 mm
               and 1°; also on the test targets near the joint limits (a learned joint within
               5 % of its range of a limit) and near singular poses (the 10 % of test targets
               with the smallest σ_min/σ_max of the task Jacobian);
  unreachable  targets 10–50 % beyond the reach bound: how many the model claims solved
               (must be 0) and how far its answers miss;
  warm_start   LM (`km.ik`, limits "wrap") on the first test targets from home, from a random
               seed, from the nearest training sample (a `scipy.spatial.cKDTree` on the scaled
               inputs: the simplest learned alternative) and from the model: mean iterations,
               success share, time per solve (the seed's own cost included);
  pays_off_after  training time / time saved per solve against home seeds (None: never).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from ..ik.frame import fit_target, solver_problem
from ..ik.reach import _bound
from ..ik.residual import errors
from ..ik.solve import ik
from ..ik.target import Target
from ..kinematics.fk import fk
from ..kinematics.jacobian import jacobian
from .model import IKModel
from .sampling import fk_targets, inputs, front
from .scaling import apply

NEAR_LIMIT = 0.05  # share of a joint's range: within this of a limit is "near the limits"
SINGULAR_SHARE = 0.10  # the most singular tenth of the test targets


def mm(robot) -> float:
    """1 mm in the robot's length unit."""
    return 1.0 if robot.length_unit == "mm" else 1e-3


def error_stats(robot, pos: np.ndarray, ori: np.ndarray) -> dict[str, Any]:
    """Median, p95, max of position (length unit) and orientation (deg) errors, share within 1 mm and 1°."""
    if len(pos) == 0:
        return {"count": 0}
    deg = np.degrees(ori)
    return {"count": int(len(pos)), "position_median": float(np.median(pos)),
            "position_p95": float(np.percentile(pos, 95)), "position_max": float(pos.max()),
            "orientation_median_deg": float(np.median(deg)), "orientation_p95_deg": float(np.percentile(deg, 95)),
            "orientation_max_deg": float(deg.max()),
            "within_1mm_1deg": float(np.mean((pos <= mm(robot)) & (deg <= 1.0)))}


def answer_errors(model: IKModel, targets: Target) -> tuple[np.ndarray, np.ndarray]:
    """Position and orientation error of the model's answers, by a fresh FK of them."""
    q = model.answer(targets)
    return errors(fit_target(model.robot, targets), fk(model.robot, q))


def _near_limits(model: IKModel, q: np.ndarray) -> np.ndarray:
    lim = model.robot.limits[model.branch.learned]
    qj = q[:, model.branch.learned]
    span = np.where(np.isfinite(lim[:, 1] - lim[:, 0]), lim[:, 1] - lim[:, 0], np.inf)
    near = (np.abs(qj - lim[:, 0]) < NEAR_LIMIT * span) | (np.abs(qj - lim[:, 1]) < NEAR_LIMIT * span)
    return near.any(axis=1)


def singular_ratio(model: IKModel, targets: Target, q: np.ndarray) -> np.ndarray:
    """σ_min/σ_max of the task rows of the Jacobian at q (the solver's frame for planar arms)."""
    rs, t = solver_problem(model.robot, fit_target(model.robot, targets))
    J = jacobian(rs, q)[:, t.rows]
    s = np.linalg.svd(J, compute_uv=False)
    return s[:, -1] / s[:, 0]


def unreachable_targets(model: IKModel, targets: Target, rng: np.random.Generator) -> Target:
    """The test targets pushed radially 10–50 % beyond the reach bound (from joint 1's point)."""
    rs, _ = solver_problem(model.robot, fit_target(model.robot, targets))
    p1, reach = _bound(model.robot)
    d = targets.p - p1
    if targets.kind == "planar":
        d[:, 2] = 0.0
    scale = reach * rng.uniform(1.1, 1.5, len(d)) / np.maximum(np.linalg.norm(d, axis=1), 1e-12)
    p = p1 + d * scale[:, None]
    return Target(targets.kind, p, targets.R, targets.a, targets.phi, targets.weights)


def seed_comparison(model: IKModel, targets: Target, X_nn: tuple[np.ndarray, np.ndarray],
               rng: np.random.Generator) -> dict[str, Any]:
    """LM from four seeds on the same targets (see the module docstring)."""
    robot = model.robot
    tree = cKDTree(X_nn[0])
    out = {}

    def nearest(t):
        return X_nn[1][tree.query(apply(model.scaling, inputs(robot, t, front(robot, model.branch), model.branch)))[1]]

    for name, seed in (("home", lambda t: None), ("random", lambda t: "random"), ("nearest", nearest),
                       ("anfis", lambda t: model)):
        start = time.perf_counter()
        # LM from the seed itself: the closed-form first seed would hide what the seed is worth
        r = ik(robot, targets, q0=seed(targets), limits="wrap", seed=int(rng.integers(2 ** 31)),
               closed_form_seed=False)
        seconds = time.perf_counter() - start
        out[name] = {"mean_iterations": float(np.mean(r.iterations)), "success": float(np.mean(r.success)),
                     "seconds_per_solve": seconds / len(r.iterations)}
    return out


def ik_report(model: IKModel, q_test: np.ndarray, targets: Target, *, X_nn, seconds: float, warm_start: int,
              rng: np.random.Generator) -> dict[str, Any]:
    """The evaluation part of a model's report (see the module docstring)."""
    robot = model.robot
    pos, ori = answer_errors(model, targets)
    ratio = singular_ratio(model, targets, q_test)
    sing = ratio <= np.quantile(ratio, SINGULAR_SHARE)
    near = _near_limits(model, q_test)
    _, reach = _bound(robot)
    rep: dict[str, Any] = {"reach": reach, "alone": error_stats(robot, pos, ori),
                           "near_limits": error_stats(robot, pos[near], ori[near]),
                           "near_singular": {**error_stats(robot, pos[sing], ori[sing]),
                                             "sigma_ratio_below": float(np.quantile(ratio, SINGULAR_SHARE))}}
    rep["alone"]["position_median_percent_of_reach"] = 100 * rep["alone"]["position_median"] / reach
    far = unreachable_targets(model, targets[: min(len(pos), 200)], rng)
    r = ik(robot, far, method="anfis", model=model)
    rep["unreachable"] = {"count": int(np.size(r.success)), "claimed_solved": int(np.sum(r.success)),
                          "miss_median": float(np.median(r.position_error))}
    if warm_start > 0:
        ws = seed_comparison(model, targets[:warm_start], X_nn, rng)
        rep["warm_start"] = ws
        saved = ws["home"]["seconds_per_solve"] - ws["anfis"]["seconds_per_solve"]
        rep["pays_off_after"] = (seconds / saved) if saved > 0 else None
    return rep


def fresh_test(model: IKModel, count: int, rng: np.random.Generator) -> tuple[np.ndarray, Target]:
    """New joint values in the model's branch and the targets they reach: an independent test set."""
    from .sampling import sample_joints

    q = sample_joints(model.branch, count, rng, model.robot)
    return q, fk_targets(model.robot, q)
