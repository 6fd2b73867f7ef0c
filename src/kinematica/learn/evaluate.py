"""How good a learned IK model is, measured on targets it was not trained on.

The report (a dict of plain numbers, stored in the model file):
  alone        task-space error of the model's answer, judged by FK: position median, p95, max
               (length unit), orientation median, p95, max (deg), and the share within 1 mm
               and 1°; also on the test targets near the limits (under "near_limits": a learned
               joint within 5 % of its range of an end of the branch box — a joint limit or
               the elbow-straight singularity) and near singular poses (the 10 % of test
               targets with the smallest σ_min/σ_max of the task Jacobian);
  wrist_centre a 6R model's wrist-centre error (`wrist_centre_stats`);
  nearest_alone  the same for the nearest-neighbour baseline's answers (the joints of the
               nearest training sample, `nearest_answers`);
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
from scipy.spatial import cKDTree  # pyright: ignore[reportAttributeAccessIssue]  # SciPy has no stub for _ckdtree (compiled), which defines it

from ..ik.frame import fit_target, solver_problem
from ..ik.reach import bound as _bound
from ..ik.residual import errors
from ..ik.solve import ik
from ..ik.target import Target
from ..kinematics.fk import fk
from ..kinematics.jacobian import jacobian
from . import wrist
from .model import IKModel
from .sampling import EDGE, fk_targets, front, inputs
from .scaling import Scaling, apply

__all__ = ["SINGULAR_SHARE", "mm", "error_stats", "answer_errors", "near_edges", "wrist_centre_stats",
           "nearest_answers", "singular_ratio", "unreachable_targets", "seed_comparison", "ik_report",
           "fresh_test"]

SINGULAR_SHARE = 0.10  # the most singular tenth of the test targets


def mm(robot) -> float:
    """1 mm in the robot's length unit."""
    return 1.0 if robot.length_unit == "mm" else 1e-3


def error_stats(robot, pos: np.ndarray, ori: np.ndarray) -> dict[str, Any]:
    """Median, p95, max of position (length unit) and orientation (deg) errors, share within 1 mm and 1°."""
    if len(pos) == 0:
        return {"count": 0}
    deg = np.degrees(ori)
    return {"count": len(pos), "position_median": float(np.median(pos)),
            "position_p95": float(np.percentile(pos, 95)), "position_max": float(pos.max()),
            "orientation_median_deg": float(np.median(deg)), "orientation_p95_deg": float(np.percentile(deg, 95)),
            "orientation_max_deg": float(deg.max()),
            "within_1mm_1deg": float(np.mean((pos <= mm(robot)) & (deg <= 1.0)))}


def answer_errors(model: IKModel, targets: Target) -> tuple[np.ndarray, np.ndarray]:
    """Position and orientation error of the model's answers, by a fresh FK of them."""
    q = model.answer(targets)
    return errors(fit_target(model.robot, targets), fk(model.robot, q))


def near_edges(model: IKModel, q: np.ndarray) -> np.ndarray:
    """Which samples q (N, n) have a learned joint within EDGE of its range of an end of the
    branch box: a joint limit, or the elbow-straight singularity the box stops at."""
    box = model.branch.box[model.branch.learned]
    qj = q[:, model.branch.learned]
    span = box[:, 1] - box[:, 0]
    return np.asarray(((qj - box[:, 0] < EDGE * span) | (box[:, 1] - qj < EDGE * span)).any(axis=1))


def wrist_centre_stats(robot, q: np.ndarray, targets: Target, reach: float) -> dict[str, float]:
    """The wrist-centre error of a 6R arm's answers q (N, 6) to pose targets (what a 6R model's
    network learns): ‖c(q) − c*‖, c = p − R·w, median and p95 in the length unit and the median
    as % of the reach."""
    w = wrist.wrist_vector(robot)
    T = fk(robot, q)
    c = T[:, :3, 3] - np.einsum("nij,j->ni", T[:, :3, :3], w)
    c_star = targets.p - np.einsum("nij,j->ni", targets.rotation, w)
    e = np.linalg.norm(c - c_star, axis=1)
    return {"median": float(np.median(e)), "p95": float(np.percentile(e, 95)),
            "median_percent_of_reach": float(100 * np.median(e) / reach)}


def nearest_answers(X_nn, model: IKModel, targets: Target) -> np.ndarray:
    """The nearest-neighbour baseline: the joints of the training sample whose inputs (all of
    them, orientation included, scaled) lie nearest the target's."""
    tree = cKDTree(X_nn[0])
    X = apply(X_nn[2], inputs(model.robot, targets, front(model.robot, model.branch), model.branch))
    return X_nn[1][tree.query(X)[1]]


def singular_ratio(model: IKModel, targets: Target, q: np.ndarray) -> np.ndarray:
    """σ_min/σ_max of the task rows of the Jacobian at q (the solver's frame for planar arms)."""
    rs, t = solver_problem(model.robot, fit_target(model.robot, targets))
    J = jacobian(rs, q)[:, t.rows]
    s = np.linalg.svd(J, compute_uv=False)
    return s[:, -1] / s[:, 0]


def unreachable_targets(model: IKModel, targets: Target, rng: np.random.Generator) -> Target:
    """The test targets pushed radially 10–50 % beyond the reach bound (from joint 1's point)."""
    _rs, _ = solver_problem(model.robot, fit_target(model.robot, targets))
    p1, reach = _bound(model.robot)
    d = targets.p - p1
    if targets.kind == "planar":
        d[:, 2] = 0.0
    scale = reach * rng.uniform(1.1, 1.5, len(d)) / np.maximum(np.linalg.norm(d, axis=1), 1e-12)
    p = p1 + d * scale[:, None]
    return Target(targets.kind, p, targets.R, targets.a, targets.phi, targets.weights)


def seed_comparison(model: IKModel, targets: Target, X_nn: tuple[np.ndarray, np.ndarray, Scaling],
                    rng: np.random.Generator) -> dict[str, Any]:
    """LM from four seeds on the same targets (see the module docstring)."""
    robot = model.robot
    out = {}
    for name, seed in (("home", lambda t: None), ("random", lambda t: "random"),
                       ("nearest", lambda t: nearest_answers(X_nn, model, t)),
                       ("anfis", lambda t: model)):
        start = time.perf_counter()
        # LM from the seed itself: the closed-form first seed would hide what the seed is worth
        r = ik(robot, targets, q0=seed(targets), limits="wrap", seed=int(rng.integers(2 ** 31)),
               closed_form_seed=False)
        seconds = time.perf_counter() - start
        out[name] = {"mean_iterations": float(np.mean(r.iterations)), "success": float(np.mean(r.success)),
                     "seconds_per_solve": seconds / np.size(r.iterations)}
    return out


def ik_report(model: IKModel, q_test: np.ndarray, targets: Target, *, X_nn, seconds: float, warm_start: int,
              rng: np.random.Generator) -> dict[str, Any]:
    """The evaluation part of a model's report (see the module docstring)."""
    robot = model.robot
    pos, ori = answer_errors(model, targets)
    ratio = singular_ratio(model, targets, q_test)
    sing = ratio <= np.quantile(ratio, SINGULAR_SHARE)
    near = near_edges(model, q_test)
    _, reach = _bound(robot)
    rep: dict[str, Any] = {"reach": reach, "alone": error_stats(robot, pos, ori),
                           "near_limits": error_stats(robot, pos[near], ori[near]),
                           "near_singular": {**error_stats(robot, pos[sing], ori[sing]),
                                             "sigma_ratio_below": float(np.quantile(ratio, SINGULAR_SHARE))}}
    rep["alone"]["position_median_percent_of_reach"] = 100 * rep["alone"]["position_median"] / reach
    if model.task == "pose":
        rep["wrist_centre"] = wrist_centre_stats(robot, model.answer(targets), targets, reach)
    rep["nearest_alone"] = error_stats(robot, *errors(fit_target(robot, targets), fk(robot, nearest_answers(
        X_nn, model, targets))))
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
