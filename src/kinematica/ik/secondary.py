"""Secondary goals in the null space of the task: once a target is reached, use the freedom the
task leaves (a redundant arm, a position-only or axis-free target) to move away from the joint
limits, keep manipulability up, or stay near a rest pose — without leaving the target.

A weighted cost h(q) = Σ_k w_k·h_k(q) with
- "limits":         h = mean_j ((q_j − mid_j) / half-range_j)²   (0 mid-range, 1 on a limit)
- "manipulability": h = −log √det(J_t J_tᵀ)                        (task rows J_t of the Jacobian;
                    J_tᵀJ_t when J_t has more rows than joints — an approach target's 6 rows on a 5-joint
                    arm —, so h is −Σ log σ_i over its min(m, n) singular values, finite off singularities)
- "rest":           h = mean_j ((q_j − rest_j) / half-range_j)²
is lowered by projected gradient steps Δq = −α·(I − J_e⁺J_e)·∇h, each followed by Gauss–Newton
corrections J_e⁺·e that bring the tool back onto the target (J_e: the task Jacobian of the
residual e, as the solvers use it). A step is kept only if h falls, the target stays within
the solver's tolerances and q within the limits; α halves on a refused step, and a target stops
after `steps` steps or when α has shrunk 2¹⁰-fold. This is the "solve, then improve" scheme of
TRAC-IK's Distance/Manipulation modes, with the same verdict afterwards: FK of the final q.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import InputError, InputTypeError
from ..kinematics.jacobian import fk_jacobian
from ..model.robot import LIMIT_TOL, Robot
from .residual import errors, residual
from .target import Target

OBJECTIVES = ("limits", "manipulability", "rest")
_FD = 1e-6  # rad (or length unit): central-difference step of the manipulability gradient


class Goals(NamedTuple):
    """A call's secondary goals, checked: the weights {objective: w ≥ 0} and the rest pose (n,)."""

    weights: dict
    rest: np.ndarray


def check_goals(robot: Robot, secondary: dict | None, rest) -> Goals | None:
    """The weights {objective: w ≥ 0} and the rest pose, checked; None when there are none.
    Each goal's own input is required: "rest" a rest pose (`rest=`, n finite joint values),
    "limits" a joint with finite limits; a `rest=` without the "rest" goal is refused too."""
    if not secondary:
        if rest is not None:
            raise InputError('rest: the rest pose is the input of the secondary goal "rest"; give '
                             'secondary={"rest": weight} too, or leave rest out')
        return None
    if not isinstance(secondary, dict):
        raise InputTypeError(f"secondary: expected a dict of objective → weight ({', '.join(OBJECTIVES)}), "
                        f"got {type(secondary).__name__}")
    unknown = set(secondary) - set(OBJECTIVES)
    if unknown:
        raise InputError(f"secondary: unknown objective(s) {', '.join(map(repr, sorted(unknown)))}: "
                         f"use {', '.join(OBJECTIVES)}")
    w = {k: float(v) for k, v in secondary.items()}
    if not all(np.isfinite(v) and v >= 0 for v in w.values()):
        raise InputError(f"secondary: weights must be finite and ≥ 0, got {secondary}")
    if "rest" in w and rest is None:
        raise InputError(f'secondary: the goal "rest" needs its rest pose: pass rest=<{robot.n} joint values> '
                         "(rad, or the length unit for prismatic joints), e.g. rest=robot.q_home")
    if "rest" not in w and rest is not None:
        raise InputError('rest: the rest pose is the input of the secondary goal "rest"; add "rest" to '
                         "secondary, or leave rest out")
    if w.get("limits") and not np.isfinite(robot.limits).any():
        raise InputError(f'secondary: the goal "limits" keeps joints away from their limits, and no joint of '
                         f"{robot.name!r} has a finite limit")
    r = np.zeros(robot.n) if rest is None else np.asarray(rest, dtype=float)
    if r.shape != (robot.n,) or not np.all(np.isfinite(r)):
        raise InputError(f"rest: expected {robot.n} finite joint values, got shape {r.shape}")
    return Goals(w, r)


def _span(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    lo = np.where(np.isfinite(lo), lo, -np.pi)
    hi = np.where(np.isfinite(hi), hi, np.pi)
    return 0.5 * (lo + hi), np.maximum(0.5 * (hi - lo), 1e-9)


def _log_manip(robot: Robot, t: Target, q: np.ndarray) -> np.ndarray:
    J = fk_jacobian(robot, q)[1][..., t.rows, :]
    # the Gram matrix of the smaller side: J Jᵀ of 6 rows and 5 joints is singular everywhere
    G = J @ np.swapaxes(J, -1, -2) if J.shape[-2] <= J.shape[-1] else np.swapaxes(J, -1, -2) @ J
    sign, logdet = np.linalg.slogdet(G)
    return np.where(sign > 0, 0.5 * logdet, -np.inf)


def cost(robot: Robot, t: Target, q: np.ndarray, weights: dict, rest: np.ndarray) -> np.ndarray:
    """h(q) (N,) for configurations q (N, n)."""
    mid, half = _span(robot)
    h = np.zeros(len(q))
    if weights.get("limits"):
        h += weights["limits"] * np.mean(((q - mid) / half) ** 2, axis=1)
    if weights.get("rest"):
        h += weights["rest"] * np.mean(((q - rest) / half) ** 2, axis=1)
    if weights.get("manipulability"):
        h -= weights["manipulability"] * _log_manip(robot, t, q)
    return h


def gradient(robot: Robot, t: Target, q: np.ndarray, weights: dict, rest: np.ndarray) -> np.ndarray:
    """∇h (N, n): the quadratic terms exactly, log-manipulability by central differences."""
    mid, half = _span(robot)
    g = np.zeros_like(q)
    n = robot.n
    if weights.get("limits"):
        g += weights["limits"] * 2 * (q - mid) / half**2 / n
    if weights.get("rest"):
        g += weights["rest"] * 2 * (q - rest) / half**2 / n
    if weights.get("manipulability"):
        for j in range(n):
            d = np.zeros(n)
            d[j] = _FD
            with np.errstate(invalid="ignore"):  # inf − inf at a singular configuration
                g[:, j] -= weights["manipulability"] * (_log_manip(robot, t, q + d) - _log_manip(robot, t, q - d)) / (2 * _FD)
    # a singular configuration has no finite slope of log w: that problem takes no step
    return np.where(np.isfinite(g).all(axis=1, keepdims=True), g, 0.0)


def _back_on_target(robot: Robot, t: Target, q: np.ndarray, corrections: int = 4):
    """Gauss–Newton steps q ← q + J_e⁺e: a finite step along the null space leaves the target by
    O(step²), which these bring back (quadratically); returns q, its errors, its pose and
    Jacobian (the next step starts from them)."""
    T, J = fk_jacobian(robot, q)
    for _ in range(corrections):
        e, Je = residual(t, T, J)
        q = q + np.einsum("Nnm,Nm->Nn", np.linalg.pinv(Je), e)
        T, J = fk_jacobian(robot, q)
    pos, ori = errors(t, T)
    return q, pos, ori, T, J


def improve(robot: Robot, t: Target, q: np.ndarray, todo: np.ndarray, goals: Goals, tol_position: float,
            tol_orientation: float, enforce: bool, steps: int = 60) -> np.ndarray:
    """q (N, n) with the targets `todo` (indices; already solved) moved down h in the task's
    null space, each still on its target within the tolerances (and the limits, if enforced)."""
    weights, rest = goals
    q = q.copy()
    if todo.size == 0:
        return q
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    qs, ts = q[todo], t[todo]
    h = cost(robot, ts, qs, weights, rest)
    alpha = np.full(len(qs), 0.5)
    live = np.ones(len(qs), bool)
    T, J = fk_jacobian(robot, qs)
    for _ in range(steps):
        if not live.any():
            break
        _e, Je = residual(ts, T, J)
        pinv = np.linalg.pinv(Je)  # (N, n, m)
        g = gradient(robot, ts, qs, weights, rest)
        null = g - np.einsum("Nnm,Nmk,Nk->Nn", pinv, Je, g)
        trial = np.where(live[:, None], qs - alpha[:, None] * null, qs)
        trial, pos, ori, Tt, Jt = _back_on_target(robot, ts, trial)
        inside = np.all((trial >= lo - LIMIT_TOL) & (trial <= hi + LIMIT_TOL), axis=1) | (not enforce)
        ht = cost(robot, ts, trial, weights, rest)
        good = live & (ht < h) & (pos < tol_position) & (ori < tol_orientation) & inside
        qs[good], h[good], T[good], J[good] = trial[good], ht[good], Tt[good], Jt[good]
        alpha = np.where(good, np.minimum(alpha * 1.5, 4.0), alpha * 0.5)
        live &= alpha > 0.5 / 2**10
    q[todo] = qs
    return q


__all__ = ["OBJECTIVES", "Goals", "check_goals", "cost", "gradient", "improve"]
