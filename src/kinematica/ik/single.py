"""Levenberg–Marquardt for one target: the batch engine's algorithm with none of its machinery.

Through the batch path one target costs ~150 NumPy calls per iteration on arrays of one
(1–3 ms a solve). Here an iteration is one single-configuration FK + Jacobian (`end_single`),
the pose error on floats (`pose_error.pose_error_one`), one damped step (`damped.damped_step`:
a 6x6 Cholesky solve), the wrap by 2π on floats (`limits.wrap_floats`) and the bookkeeping
on Python scalars: ~25 µs. The rules are those of `batch.solve_lm` (accept/reject, λ, stall,
no progress, iteration caps, abandoning an attempt converging outside the limits, reseeding),
so a batch and a loop of single solves agree. The compiled core runs these rules for full pose
targets (`lm_core`, src/core/lm.cpp) and is tested against this loop; the loop itself solves what
the core does not take (position, approach, planar and weighted targets, a recorded history).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..kinematics.chain import end_single
from ..model.robot import LIMIT_TOL, Robot
from .damped import damped_step
from .limits import pinned, polish_margin, wrap_floats
from .options import AT_LIMIT, CONVERGED, LIMIT, OUTSIDE, STALLED, Options
from .pose_error import pose_error_one
from .residual import errors, residual
from .restarts import NEAR, NO_PROGRESS, RESTART_ITER, modes, restart_seeds
from .target import Target
from .verdict import NEAR_SINGULAR


class Problem:
    """One target, its residual and the solver settings of `solve_one`."""

    def __init__(self, robot: Robot, t: Target, opts: Options, enforce: bool, scale: float):
        self.robot, self.t, self.opts, self.enforce, self.scale = robot, t, opts, enforce, scale
        self.fast = t.kind == "pose" and t.weights is None  # a plain pose: the float formulas below
        if self.fast:
            self.pd, self.Rd = t.p.reshape(3), t.rotation.reshape(3, 3)
        self.lo, self.hi = robot.limits[:, 0], robot.limits[:, 1]
        self.lo_l, self.hi_l, self.rev_l = self.lo.tolist(), self.hi.tolist(), robot.wraps.tolist()
        self.margin = polish_margin(robot, t.dof)

    def evaluate(self, q: np.ndarray):
        """e, J_e, E = ½‖e‖², position and orientation errors at q (n,)."""
        T, J = end_single(self.robot, q, True)
        if self.fast:
            e, E, pos, ori = pose_error_one(self.pd, self.Rd, T)
            return e, J, E, pos, ori
        e, Je = residual(self.t, T, J)
        pos, ori = errors(self.t, T)
        return e, Je, 0.5 * float(e.dot(e)), float(pos), float(ori)

    def wrapped(self, q: np.ndarray) -> tuple[np.ndarray, bool]:
        """`limits.wrap_inside` for one configuration (`limits.wrap_floats`): q with each
        revolute joint turned by 2π into its limits where it can be, and whether all are then inside."""
        out = [0.0] * len(self.lo_l)
        inside = wrap_floats(q.tolist(), self.lo_l, self.hi_l, self.rev_l, LIMIT_TOL, out)
        return np.array(out), inside

    def outside(self, q: np.ndarray) -> bool:
        """`limits.outside_by(…, self.margin)` for one configuration, on floats."""
        out = [0.0] * len(self.lo_l)
        wrap_floats(q.tolist(), self.lo_l, self.hi_l, self.rev_l, LIMIT_TOL, out)
        m = self.margin
        return any(x < lo - m or x > hi + m for x, lo, hi in zip(out, self.lo_l, self.hi_l, strict=True))


def attempt(pb: Problem, q0: np.ndarray, seed_no: int, history: list | None,
            polish: bool = False) -> tuple[np.ndarray, int, int]:
    """One attempt from q0, the caller's seed (seed_no 0) or the seed_no-th random one:
    (q, status, iterations), clipped or not and damped as `pool.modes` says — or, to polish
    a solution found just outside the limits, clipped with accept/reject (see `pool.modes`)."""
    opts = pb.opts
    clip, adaptive = (True, True) if polish else (bool(x) for x in modes(np.array(seed_no), opts))
    active = polish or (clip and seed_no > 0)  # the caller's clipped attempt stays paper 000's plain LM
    cap = opts.max_iter if seed_no == 0 else min(opts.max_iter, RESTART_ITER)
    eps2 = opts.eps_step ** 2
    qt, q, E, lam, it, best, since = q0, q0, math.inf, opts.lambda0, 0, math.inf, 0
    e = Je = last = None
    while True:
        e_t, Je_t, E_t, pos, ori = pb.evaluate(qt)
        fresh = math.inf == E
        it += not fresh
        acc = (E_t < E) if adaptive else True
        if history is not None and last is not None:
            history.append({"iteration": it, "error": math.sqrt(2 * last[0]), "error_after": math.sqrt(2 * E_t),
                            "lambda": last[1], "dq": last[2], "q": qt.copy(), "accepted": bool(acc)})
        if adaptive and not fresh:
            lam = lam / opts.lambda_down if acc else lam * opts.lambda_up
        if acc:
            q, E, e, Je = qt, E_t, e_t, Je_t
        if not adaptive:
            lam = opts.chan_factor * E
        if acc and pos < opts.tol_position and ori < opts.tol_orientation:
            return q, CONVERGED, it
        if e is None or Je is None:  # the first evaluation is accepted (E = ∞) unless its error is NaN
            raise FloatingPointError(f"IK: the error at the first iterate is not a number (E = {E_t})")
        if active:
            held = pinned(Je, e, q, pb.lo, pb.hi)
            dq = damped_step(np.where(held, 0.0, Je) if held.any() else Je, e, lam)
        else:
            dq = damped_step(Je, e, lam)
        qt = q + dq
        if clip:
            qt = np.clip(qt, pb.lo, pb.hi)
        last = (E, lam, dq)
        if 0.5 * best > E:
            best, since = E, it
        if pb.enforce and pos < NEAR * pb.scale and ori < NEAR and pb.outside(q):
            return q, OUTSIDE, it
        d = qt - q if clip else dq
        dd = float(d.dot(d))
        # as the batch: ‖q‖² is computed only for a step under 1e6 ε (else it cannot be "stuck")
        if (dd < eps2 * 1e12 and dd < eps2 * (1 + float(q.dot(q)))) or it - since >= NO_PROGRESS:
            return q, (AT_LIMIT if clip and bool(np.any((q <= pb.lo) | (q >= pb.hi))) else STALLED), it
        if it >= cap:
            return q, LIMIT, it


def solve_one(pb: Problem, q0: np.ndarray, restarts: int,
              rng: np.random.Generator | Callable[[], np.random.Generator],
              history: list | None = None) -> tuple[np.ndarray, int, int]:
    """The caller's seed, then up to `restarts` random seeds until one converges within the
    limits: (q, status of the successful or else the first attempt, iterations in all).
    rng: a Generator, or a function making one (called only if a restart needs it)."""
    robot = pb.robot
    q, status, iters = attempt(pb, q0, 0, history)
    told = (q, status)  # what explains a failure: the first attempt's end, or … (see below)
    for k in range(restarts + 1):
        if status == CONVERGED:
            if not pb.enforce:
                return q, status, iters
            qw, inside = pb.wrapped(q)
            if inside:
                return qw, status, iters
            if not modes(np.array(k), pb.opts)[0] and not pb.outside(q):  # just outside: pull it in
                qp, sp, it = attempt(pb, np.clip(qw, pb.lo, pb.hi), k, None, polish=True)
                iters += it
                if sp == CONVERGED:
                    return qp, sp, iters
        if status in (CONVERGED, OUTSIDE) and told[1] not in (CONVERGED, OUTSIDE):
            told = (q, status)  # … an attempt that found solutions only outside the limits
        if k == restarts:
            break
        if callable(rng):
            rng = rng()
        q, status, it = attempt(pb, restart_seeds(robot, np.array([k + 1]), pb.opts, rng)[0], k + 1, None)
        iters += it
    q, status = told
    return (pb.wrapped(q)[0] if pb.enforce else q), status, iters


def verdict_one(pb: Problem, q: np.ndarray, robot: Robot | None = None, t: Target | None = None
                ) -> tuple[bool, float, float, bool, bool]:
    """`verdict.judge` and `verdict.near_singular` for one configuration: ok, position error,
    orientation error, within limits, near a singularity. The errors come from one fresh FK
    call of `robot` (default the problem's) against `t` (default the problem's) — the user's
    robot and world target (`frame.judged`), independent of the solver's bookkeeping and of
    the frame it iterated in; the singularity from the task Jacobian of the solver's problem."""
    robot, t = (pb.robot if robot is None else robot), (pb.t if t is None else t)
    opts = pb.opts
    T, J = end_single(robot, q, True)
    if t.kind == "pose" and t.weights is None:  # errors()'s formulas on floats (~10x cheaper)
        pos, ori = pose_error_one(t.p.reshape(3), t.rotation.reshape(3, 3), T)[2:]
    else:
        pos, ori = (float(x) for x in errors(t, T))
    inside = all(lo - LIMIT_TOL <= x <= hi + LIMIT_TOL for x, lo, hi in zip(q.tolist(), pb.lo_l, pb.hi_l, strict=True))
    ok = pos < opts.tol_position and ori < opts.tol_orientation and (inside or not pb.enforce)
    if robot is not pb.robot:
        J = end_single(pb.robot, q, True)[1]
    s = np.linalg.svd(J[pb.t.rows], compute_uv=False)
    m = min(pb.t.dof, pb.robot.n)
    return ok, pos, ori, inside, bool(s[m - 1] < NEAR_SINGULAR * s[0])
