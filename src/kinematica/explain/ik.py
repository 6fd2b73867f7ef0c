"""Numeric inverse kinematics, step by step: the equations to solve, the reachability check
with its numbers, the method and its settings, then every iteration the solver ran — the
error, λ, the step Δθ, accepted or rejected — and the stop reason (paper 000's Math tab).

The iterations are the solver's own (`km.ik(..., history=True)`); the explanation recomputes
e, J, JᵀJ + λI and Jᵀe at each accepted θ to show the numbers behind each step, and checks
that the step it gets is the one the solver took.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..ik.frame import fit_target
from ..ik.options import limit_mode, solver_options
from ..ik.reach import bound, distance, reach_check
from ..ik.residual import residual
from ..ik.solve import ik
from ..ik.target import Target, as_target
from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..kinematics.jacobian import fk_jacobian
from ..model.robot import Robot
from .common import (
    joint_math,
    joints_quantity,
    joints_text,
    matrix,
    scalar,
    use_degrees,
    vector,
)
from .document import Document, Math, Table, number_text
from .notation import Formula, element, legend
from .symbolic import chain

DETAIL = 12  # iterations shown in full detail at the start (all of them are in the table)
TAIL = 4  # … and at the end

METHOD_TEXT = {
    "lm": ("Levenberg–Marquardt",
           Math(r"(J^{T} J + \lambda I)\, \Delta\theta = J^{T} e", "(JᵀJ + λI) Δθ = Jᵀe")),
    "gn": ("Gauss–Newton (pseudo-inverse)", Math(r"\Delta\theta = J^{+} e", "Δθ = J⁺ e")),
    "newton": ("Newton (pseudo-inverse)", Math(r"\Delta\theta = J^{+} e", "Δθ = J⁺ e")),
    "transpose": ("Jacobian transpose", Math(r"\Delta\theta = \alpha\, J^{T} e", "Δθ = α Jᵀe")),
    "dls": ("damped least squares", Math(r"\Delta\theta = J^{T} (J J^{T} + \lambda^2 I)^{-1} e",
                                         "Δθ = Jᵀ (J Jᵀ + λ²I)⁻¹ e")),
}


def _target_words(robot: Robot, t: Target) -> str:
    u = robot.length_unit
    p = t.p[:2] if t.kind == "planar" else t.p
    words = f"the point ({', '.join(number_text(v, None) for v in p)}) {u}"
    if t.kind == "planar" and t.phi is not None:
        words += f" with heading φ = {np.degrees(float(t.phi)):.3f}°"
    elif t.kind == "approach" and t.a is not None:  # (an approach target has its axis)
        words += f" with the tool's z axis along {tuple(round(float(v), 4) for v in t.a)}"
    elif t.kind == "pose":
        words += " with a given orientation"
    return words


def _problem(doc: Document, robot: Robot, t: Target, q0: np.ndarray, deg: bool) -> None:
    s = doc.section("The problem")
    u = robot.length_unit
    rows = t.rows
    names = ["x", "y", "z", "ωx", "ωy", "ωz"]
    s.step(f"Find joint values θ that put the tool of {robot.name} at {_target_words(robot, t)}. "
           f"That is {t.dof} equation{'s' if t.dof != 1 else ''} in {robot.n} unknowns.")
    if t.kind == "planar" or t.kind == "position":
        ch = chain(robot, "numeric")
        exprs = [element(ch.T, i, 3) for i in (rows if t.kind == "position" else (0, 1))]
        fs = [Formula(e, ch.q) for e in exprs]
        if all(len(f.latex) < 400 for f in fs):
            goal = t.p
            s.step("Written out with the forward kinematics (the closed forms of the FK explanation):",
                   formulas=[Math(f"{number_text(goal[i], None)} = {f.latex}",
                                  f"{number_text(goal[i], None)} = {f.text}") for i, f in enumerate(fs)])
            doc.notation = [Math(d.latex, d.text) for d in legend(exprs, ch.q)]
    free = robot.n - t.dof
    if free > 0:
        s.step(f"With {free} more unknown{'s' if free > 1 else ''} than equations the system is redundant: "
               "it has infinitely many solutions, and the one found depends on the starting guess.")
    s.step("The system is nonlinear, so it is solved iteratively from a starting guess (here: "
           f"{joints_text(robot, q0, deg)}).", values=[joints_quantity(robot, q0, deg, Math(r"\theta_0", "θ0"))])
    T0 = fk_frames(robot, q0)[-1]
    e0, _ = residual(t, T0, np.zeros((6, robot.n)))
    x0 = T0[:3, 3]
    s.step("Where the tool is at the start, and how far off the target that is:",
           formulas=[Math(r"e = x_{\text{target}} - x(\theta)", "e = x_target − x(θ)")],
           values=[vector(r"x(\theta_0)", "x(θ0)", x0[:2] if t.kind == "planar" else x0, u),
                   vector(r"e_0", "e0", e0, u if t.kind in ("planar", "position") else "",
                          note="" if t.kind in ("planar", "position") else f"rows {', '.join(names[i] for i in rows)}; "
                          f"position in {u}, orientation in rad"),
                   scalar(r"\lVert e_0 \rVert", "‖e0‖", float(distance(e0)), u)])


def _reach(doc: Document, robot: Robot, t: Target, tol: float) -> bool:
    s = doc.section("Can the arm reach the target?")
    r = reach_check(robot, t.reshape(1), tol)
    ok, dist, reach = bool(r.reachable[0]), float(r.distance[0]), r.bound
    p1 = bound(robot)[0]
    u = robot.length_unit
    if t.kind == "planar":
        s.step("A planar arm reaches a point only if it is no farther from the first joint than all links "
               "laid end to end (paper 000, eq. 8):",
               formulas=[Math(r"R = \sqrt{(x - x_1)^2 + (y - y_1)^2} \le R_{\max} = L_1 + \dots + L_n",
                              "R = √((x − x1)² + (y − y1)²) ≤ R_max = L1 + … + Ln")])
    else:
        s.step("Consecutive joint axes are a fixed distance apart, so the tool is never farther from the "
               "first joint than the sum of those distances (plus the stroke of prismatic joints); a target "
               "beyond that cannot be reached:",
               formulas=[Math(r"R = \lVert p_{\text{target}} - p_1 \rVert \le R_{\max} = \sum_i \lVert p_{i+1} - p_i \rVert",
                              "R = ‖p_target − p1‖ ≤ R_max = Σ ‖p(i+1) − p_i‖")])
    s.step(values=[vector("p_1", "p1", p1[:2] if t.kind == "planar" else p1, u), scalar("R", "R", dist, u),
                   scalar(r"R_{\max}", "R_max", reach, u)])
    slack = "" if dist <= reach or not ok else (" (beyond it by no more than the position tolerance and the "
                                                "rounding of the arm's own FK)")
    s.step(f"{number_text(dist, None)} {u} {'≤' if dist <= reach else '>'} {number_text(reach, None)} {u}{slack}: "
           + ("the target may be reachable (the test can only refuse); the solver runs." if ok else
              "the target is out of reach. No solver can get there, so none runs."))
    return bool(ok)


def _method(doc: Document, robot: Robot, opts, mode: str, deg: bool) -> None:
    s = doc.section("The method")
    name, step = METHOD_TEXT[opts.method]
    s.step(f"{name}: linearise the forward kinematics around the current θ, x(θ + Δθ) ≈ x(θ) + J Δθ, "
           "and choose the step Δθ that best cancels the error e:",
           formulas=[Math(r"J = \frac{\partial x}{\partial \theta}", "J = ∂x/∂θ"), step,
                     Math(r"\theta_{k+1} = \theta_k + \Delta\theta", "θ(k+1) = θ(k) + Δθ")])
    if opts.method == "lm" and opts.damping == "adaptive":
        s.step(f"λ starts at {number_text(opts.lambda0, None)}. A step that lowers the error is accepted and λ is "
               f"divided by {number_text(opts.lambda_down, None)} (towards Gauss–Newton); a step that raises it is "
               f"rejected — θ stays — and λ is multiplied by {number_text(opts.lambda_up, None)} (towards a short "
               "gradient step).")
    elif opts.method == "lm":
        s.step(f"λ follows the error (Chan's damping): λ = {number_text(opts.chan_factor, None)} · E with "
               "E = ½‖e‖²; every step is accepted.")
    u = robot.length_unit
    lim = ("each trial θ is clipped into the joint limits (the arm never leaves its range)" if mode == "clip" else
           "the iteration runs free; at the end revolute joints are turned by 2π into their limits" if mode == "wrap"
           else "joint limits are ignored")
    s.step(f"It stops when ‖e‖ < {number_text(opts.tol_position, None)} {u} (converged), when a step no longer moves θ "
           f"(stalled), or after {opts.max_iter} iterations. Limits: {lim}.",
           table=Table(["joint", "lower", "upper"],
                       [[joint_math(robot, i).text] + [_angle(robot, i, v, deg) for v in robot.limits[i]]
                        for i in range(robot.n)]))


def _angle(robot: Robot, i: int, v: float, deg: bool) -> str:
    if not np.isfinite(v):
        return "none"
    if robot.revolute[i] and deg:
        return f"{number_text(np.degrees(v), 3)}°"
    return number_text(v, 4) + ("" if robot.revolute[i] else f" {robot.length_unit}")


def _scale(robot: Robot, deg: bool) -> np.ndarray:
    return np.where(robot.revolute, 180 / np.pi, 1.0) if deg else np.ones(robot.n)


def _iterations(doc: Document, robot: Robot, t: Target, q0: np.ndarray, history: list, opts, deg: bool,
                total: int) -> None:
    s = doc.section("The iterations")
    u, sc = robot.length_unit, _scale(robot, deg)
    au = "°" if deg else "rad"
    rows = [[h["iteration"], h["error"], h["lambda"], list(np.asarray(h["dq"]) * sc), h["error_after"],
             "accepted" if h["accepted"] else "rejected"] for h in history]
    who = "The solver ran" if total <= len(history) else "The first attempt, from θ0, ran"
    s.step(f"{who} {len(history)} iteration{'s' if len(history) != 1 else ''}. In short "
           f"(errors in {u}, Δθ in {au}):",
           table=Table(["k", "‖e‖ before", "λ", f"Δθ ({au})", "‖e‖ after", "step"], rows, None))
    q = q0.copy()
    show = set(range(min(DETAIL, len(history)))) | set(range(max(0, len(history) - TAIL), len(history)))
    skipped = False
    for k, h in enumerate(history):
        T, J = fk_jacobian(robot, q)
        e, Je = residual(t, T, J)
        dq = np.asarray(h["dq"])
        trial = np.asarray(h["q"])
        if k in show:
            _detail(doc.sections[-1], robot, t, _Iteration(k, h, q, T, e, Je, dq, trial), opts, deg)
        elif not skipped:
            skipped = True
            s.step(f"… iterations {DETAIL + 1} to {len(history) - TAIL} follow the same pattern (all are in "
                   "the table above) …")
        if h["accepted"]:
            q = trial


@dataclass(frozen=True)
class _Iteration:
    """One recorded LM iteration as the document shows it: its number k, the solver's record h,
    q before it, the tool pose T, residual e and its Jacobian Je there, the step and the trial point."""

    k: int
    h: dict
    q: np.ndarray
    T: np.ndarray
    e: np.ndarray
    Je: np.ndarray
    dq: np.ndarray
    trial: np.ndarray


def _detail(s, robot: Robot, t: Target, it: _Iteration, opts, deg: bool) -> None:
    k, h, q, T, e, Je, dq, trial = it.k, it.h, it.q, it.T, it.e, it.Je, it.dq, it.trial
    u, sc = robot.length_unit, _scale(robot, deg)
    qn = joints_quantity(robot, q, deg, Math(rf"\theta^{{({k})}}", f"θ({k})"))
    x = T[:2, 3] if t.kind == "planar" else T[:3, 3]
    s.step(heading=f"Iteration {h['iteration']}", text=f"At {joints_text(robot, q, deg)} the tool is at "
           f"({', '.join(number_text(v, 4) for v in x)}) {u}, the error is ‖e‖ = {number_text(h['error'], None)} {u}.",
           values=[qn, vector("e", "e", e, u if t.kind in ("planar", "position") else ""),
                   matrix("J", "J", Je, note=f"{u}/rad")])
    lam = float(h["lambda"])
    if opts.method == "lm":
        A = Je.T @ Je + lam * np.eye(robot.n)
        b = Je.T @ e
        s.step(f"With λ = {number_text(lam, None)}:",
               values=[matrix(r"J^{T} J + \lambda I", "JᵀJ + λI", A, decimals=None),
                       vector(r"J^{T} e", "Jᵀe", b, decimals=None)])
    clipped = not np.allclose(q + dq, trial)
    unit = "°" if deg and np.all(robot.revolute) else ""
    s.step("The step and the trial point" + (" (clipped into the joint limits)" if clipped else "") + ":",
           values=[vector(r"\Delta\theta", "Δθ", dq * sc, unit, 3 if unit else 4),
                   joints_quantity(robot, trial, deg, Math(r"\theta_{\text{trial}}", "θ_trial"))])
    better = h["error_after"] < h["error"]
    if h["accepted"]:
        verdict = "accepted: θ moves to the trial point"
        if opts.method == "lm" and opts.damping == "adaptive":
            verdict += f", λ is divided by {number_text(opts.lambda_down, None)}"
    else:
        verdict = f"rejected: θ stays, λ is multiplied by {number_text(opts.lambda_up, None)}"
    s.step(f"At the trial point ‖e‖ = {number_text(h['error_after'], None)} {u} "
           f"({'lower' if better else 'not lower'} than {number_text(h['error'], None)}): {verdict}.")


def _answer(doc: Document, robot: Robot, t: Target, res, history: list, deg: bool, opts) -> None:
    s = doc.section("The answer")
    u = robot.length_unit
    reason = str(res.reason)
    if res.success:
        why = (f"the error ‖e‖ = {number_text(res.position_error, None)} {u} is below the tolerance "
               f"{number_text(opts.tol_position, None)} {u}")
        s.step(f"Stop reason: {reason} — {why}.")
    else:
        s.step(f"Stop reason: {reason}.")
    if int(res.iterations) > len(history):
        last = min([h["error_after"] for h in history if h["accepted"]] + [h["error"] for h in history[:1]],
                   default=float("nan"))
        s.step(f"The first attempt from θ0 ran the {len(history)} iterations above and ended short of the "
               f"tolerance (‖e‖ = {number_text(last, None)} {robot.length_unit}). The solver then restarted from "
               f"random points inside the limits (not shown step by step): {int(res.iterations)} iterations in all. "
               "The answer below is the restart that converged.")
    q = np.asarray(res.q)
    T = fk_frames(robot, q)[-1]
    x = T[:2, 3] if t.kind == "planar" else T[:3, 3]
    s.step(f"The joint values: {joints_text(robot, q, deg)}.",
           values=[joints_quantity(robot, q, deg, Math(r"\theta", "θ"))])
    s.step("Check by forward kinematics (computed afresh, not taken from the solver):",
           values=[vector(r"x(\theta)", "x(θ)", x, u), scalar(r"\lVert e \rVert", "‖e‖", res.position_error, u)])
    s.step("Within the joint limits: " + ("yes." if res.within_limits else "no.")
           + (" The arm is near a singularity there." if res.near_singular else ""))


def explain_ik(robot: Robot, target: Target | ArrayLike, q0: ArrayLike | None = None, *, method: str = "lm",
               limits: str = "clip", deg: bool | None = None, **options) -> Document:
    """Numeric IK of one target from q0 (default: the robot's home), step by step; options as
    `km.ik` (tol_position, max_iter, lambda0, damping, restarts …)."""
    if method == "analytic":
        from .analytic import explain_analytic_ik

        return explain_analytic_ik(robot, target, q0, deg=deg)
    t = fit_target(robot, as_target(target))
    if t.shape != ():
        raise InputError(f"explain_ik explains one target, got a batch of shape {t.shape}")
    deg = use_degrees(robot, deg)
    q0 = robot.q_home if q0 is None else check_q(robot, q0, "q0").reshape(robot.n)
    restarts = options.pop("restarts", 200)
    mode = limit_mode(limits, q0)
    opts = solver_options(robot, method, mode, dict(options))
    res = ik(robot, t, q0, method=method, limits=limits, restarts=restarts, history=True, **options)
    history = list(res.history or [])
    doc = Document(f"Inverse kinematics of {robot.name}",
                   f"Which joint values put the tool at {_target_words(robot, t)}? Starting from "
                   f"{joints_text(robot, q0, deg)}, the {METHOD_TEXT[method][0]} method improves the guess "
                   "step by step until the error is below the tolerance.")
    _problem(doc, robot, t, q0, deg)
    if _reach(doc, robot, t, opts.tol_position):
        _method(doc, robot, opts, mode, deg)
        _iterations(doc, robot, t, q0, history, opts, deg, int(res.iterations))
    _answer(doc, robot, t, res, history, deg, opts)
    return doc
