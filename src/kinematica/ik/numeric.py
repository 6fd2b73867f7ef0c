"""The batched iterative IK engine: N problems advance together, each with its own damping,
its own convergence and its own stop reason; only the still-active problems are iterated.

Steps (e: residual, J: its Jacobian, g = Jᵀe):
  lm         (JᵀJ + λI) Δq = g — paper 000/002: accept the step and divide λ when the error
             falls, reject it and multiply λ otherwise (`damping="adaptive"`); or always accept
             with Chan's λ = λ0·E, E = ½‖e‖² (`damping="chan"`).
  gn/newton  Δq = J⁺ e (pseudo-inverse; the plain inverse when J is square) — paper 004.
  transpose  Δq = α Jᵀ e — paper 001; α fixed (`step`) or Buss's adaptive
             α = ⟨e, JJᵀe⟩ / ⟨JJᵀe, JJᵀe⟩.
  dls        Δq = Jᵀ (JJᵀ + λ²I)⁻¹ e with a fixed λ (`damping`, in length units).
Stops: both errors under tolerance ("converged"); ‖g‖ < ε_grad or ‖Δq‖ < ε_step ("stalled");
the iteration cap ("iteration limit").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kinematics.jacobian import fk_jacobian
from ..model.robot import Robot
from .damped import damped_steps
from .options import AT_LIMIT, CONVERGED, LIMIT, RUNNING, STALLED, Options
from .residual import errors, residual
from .target import Target


@dataclass
class State:
    """Arrays over the N problems of one solve."""

    q: np.ndarray
    e: np.ndarray
    Je: np.ndarray
    E: np.ndarray
    lam: np.ndarray
    status: np.ndarray
    iterations: np.ndarray
    history: list = field(default_factory=list)


def _evaluate(robot: Robot, target: Target, q: np.ndarray):
    T, J = fk_jacobian(robot, q)
    e, Je = residual(target, T, J)
    return T, e, Je, 0.5 * np.einsum("ij,ij->i", e, e)


def step(opts: Options, Je: np.ndarray, e: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Δq (N, n) of `opts.method` (the formulas above) for N problems: Je (N, k, n), e (N, k),
    λ (N,) (LM only)."""
    method = opts.method
    if method in ("lm", "dls"):
        damping = lam if method == "lm" else np.full(len(e), float(opts.damping) ** 2)
        return damped_steps(Je.transpose(1, 2, 0), e.T, damping).T
    if method in ("gn", "newton"):
        return (np.linalg.pinv(Je, rcond=1e-12) @ e[..., None])[..., 0]
    g = np.einsum("kmn,km->kn", Je, e)  # transpose
    if opts.step is not None:
        return opts.step * g
    JJe = np.einsum("kmn,kn->km", Je, g)
    den = np.einsum("km,km->k", JJe, JJe)
    alpha = np.where(den > 0, np.einsum("km,km->k", e, JJe) / np.where(den > 0, den, 1.0), 0.0)
    return alpha[:, None] * g


def _initial_lambda(opts: Options, E: np.ndarray) -> np.ndarray:
    if opts.damping == "chan":
        return opts.chan_factor * E
    return np.full(len(E), float(opts.lambda0))


def iterate(robot: Robot, target: Target, q0: np.ndarray, opts: Options) -> State:
    """Run the chosen method on N problems (target batch (N,), q0 (N, n)) until each stops."""
    q = q0.copy()
    T, e, Je, E = _evaluate(robot, target, q)
    N = len(q)
    st = State(q, e, Je, E, _initial_lambda(opts, E), np.full(N, RUNNING), np.zeros(N, int))
    pos, ori = errors(target, T)
    st.status[(pos < opts.tol_position) & (ori < opts.tol_orientation)] = CONVERGED
    for it in range(opts.max_iter):
        act = np.flatnonzero(st.status == RUNNING)
        if act.size == 0:
            return st
        _advance(robot, target[act], st, opts, act, it)
    st.status[st.status == RUNNING] = LIMIT
    return st


def _advance(robot: Robot, target: Target, st: State, opts: Options, act: np.ndarray, it: int) -> None:
    """One iteration of the active problems `act` (target already restricted to them)."""
    Je, e, q = st.Je[act], st.e[act], st.q[act]
    dq = step(opts, Je, e, st.lam[act])
    q_try = q + dq
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    if opts.clip_limits:
        q_try = np.clip(q_try, lo, hi)
    T_try, e_try, Je_try, E_try = _evaluate(robot, target, q_try)
    adaptive = opts.method == "lm" and opts.damping == "adaptive"
    accept = E_try < st.E[act] if adaptive else np.ones(act.size, bool)
    _record(st, opts, it, act, q_try, dq, accept, E_try)
    acc = act[accept]
    st.q[acc], st.e[acc], st.Je[acc], st.E[acc] = q_try[accept], e_try[accept], Je_try[accept], E_try[accept]
    st.iterations[act] += 1
    _update_lambda(st, opts, act, accept)
    pos, ori = errors(target, T_try)
    ok = accept & (pos < opts.tol_position) & (ori < opts.tol_orientation)
    st.status[act[ok]] = CONVERGED
    # A problem stalls when neither the gradient nor the step can move it any more.
    g = np.einsum("kmn,km->kn", Je, e)
    moved = np.linalg.norm(q_try - q, axis=1)
    stuck = ~ok & ((np.linalg.norm(g, axis=1) < opts.eps_grad)
                   | (moved < opts.eps_step * (1 + np.linalg.norm(q, axis=1))))
    if adaptive:  # a rejected step only raises λ; it stalls only once λ has grown past use
        stuck &= accept | (st.lam[act] > 1e12 * (1 + np.einsum("kmn,kmn->k", Je, Je)))
    at_limit = opts.clip_limits & np.any((q_try <= lo) | (q_try >= hi), axis=1)
    st.status[act[stuck]] = np.where(at_limit[stuck], AT_LIMIT, STALLED)


def _update_lambda(st: State, opts: Options, act: np.ndarray, accept: np.ndarray) -> None:
    if opts.method != "lm":
        return
    if opts.damping == "chan":
        st.lam[act] = opts.chan_factor * st.E[act]
        return
    st.lam[act[accept]] /= opts.lambda_down
    st.lam[act[~accept]] *= opts.lambda_up


def _record(st: State, opts: Options, it: int, act: np.ndarray, q_try, dq, accept, E_try) -> None:
    """History of problem 0 (single-target solves): the error before and after, λ, Δq, q."""
    if not opts.history or act[0] != 0:
        return
    st.history.append({"iteration": it + 1, "error": float(np.sqrt(2 * st.E[0])),
                       "error_after": float(np.sqrt(2 * E_try[0])), "lambda": float(st.lam[0]),
                       "dq": dq[0].copy(), "q": q_try[0].copy(), "accepted": bool(accept[0])})
