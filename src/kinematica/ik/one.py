"""Steps 2–5 of `km.ik`'s spine for one target with Levenberg–Marquardt: seed, core solve,
verdict, `IKResult` — one call of the compiled core where it can (`lm_core.solve_single`: seed,
solve and, for a spatial arm, the verdict), the NumPy reference loop (`single.solve_one`) when a
`history` is asked for or the core declines, then the closed-form rescue of an unsolved target.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..kinematics.chain import check_q
from ..model.robot import Robot
from .closed import closed_form_seeds, rescue
from .lm_core import goals as core_goals
from .lm_core import solve_single, solver_for
from .options import CONVERGED, STALLED, Settings
from .reach import Reach, out_of_reach_message, reach_check
from .result import IKResult
from .seeds import first_seeds, initial_seeds
from .single import Problem, solve_one, verdict_one
from .target import Target
from .verdict import NEAR_WORDS, Verdicts, package, reason

__all__ = ["solve_target"]


def solve_target(robot: Robot, world: Target, rs: Robot, t: Target, shape: tuple, q0, s: Settings) -> IKResult:
    """One target (world and t of shape ()): q0 read, the core's seed, solve and verdict (or the
    NumPy loop's), the closed-form rescue of a miss, the reason in words. world: the target as
    given (what the verdict holds FK of `robot` to); (rs, t): the solver's problem (`frame`)."""
    opts = s.opts
    q0 = _start(robot, q0, s.seed)
    r = reach_check(rs, t.reshape(1), opts.tol_position, robot)
    pb = Problem(rs, t, opts, s.enforce, r.bound if np.isfinite(r.bound) and r.bound > 0 else 1.0)
    history = [] if opts.history else None
    q, status, iters, v = _solve(robot, world, pb, q0, bool(r.reachable[0]), s, history)
    if not v[0] and r.reachable[0]:
        qs, st = q[None].copy(), np.array([status])
        rescue(rs, t.reshape(1), qs, st, q0[None], s.enforce, np.array([0]))
        if (st[0] == CONVERGED and status != CONVERGED) or np.any(qs[0] != q):
            q, status = qs[0], int(st[0])
            v = verdict_one(pb, q, robot, world)
    verdicts = Verdicts(*(np.array([x]) for x in v))
    return package(shape, method="lm", q=q[None], iterations=np.array([iters]), verdicts=verdicts,
                   reachable=r.reachable, words=[_words(robot, status, q, v, r, s)], history=history)


def _start(robot: Robot, q0, seed: int | None) -> np.ndarray:
    """The target's starting configuration (n,) from the call's q0."""
    if q0 is None:
        return robot.q_home
    if isinstance(q0, str):
        return initial_seeds(robot, q0, 1, np.random.default_rng(seed))[0]
    q0 = check_q(robot, q0, "q0")
    if q0.size != robot.n:
        raise InputError(f"q0: expected one seed or one per target (1), got shape {q0.shape}")
    return q0.reshape(robot.n)


def _solve(robot: Robot, world: Target, pb: Problem, q0: np.ndarray, reachable: bool, s: Settings,
           history: list | None) -> tuple[np.ndarray, int, int, tuple]:
    """(q, status, iterations, verdict) of the first attempt and the restarts: in the core where
    it takes the problem, else on `single.solve_one`."""
    rs, t, opts = pb.robot, pb.t, s.opts
    seeded = reachable and history is None and not opts.clip_limits and opts.closed_form_seed  # (see `km.ik`)
    if reachable and history is None:  # seed, solve (and for a spatial arm the verdict) in the core
        first, in_core = first_seeds(rs, t.reshape(1), q0[None], s.enforce, seeded)
        sv = solver_for(rs, t, opts, pb.scale, s.enforce, in_core)
        done = solve_single(rs, sv, core_goals(t)[0], first[0], s.restarts, s.seed, t.rows, t.dof)
        if done is not None:
            if rs is not robot:  # judged on the user's robot and world target
                return done[0], done[1], done[2], verdict_one(pb, done[0], robot, world)
            return done[0], done[1], done[2], done[3:]

    def rng():  # made only if a restart needs it
        return np.random.default_rng(s.seed)
    first = closed_form_seeds(rs, t.reshape(1), q0[None], s.enforce)[0] if seeded else q0
    q, status, iters = solve_one(pb, first, s.restarts, rng, history) if reachable else (q0, STALLED, 0)
    return q, status, iters, verdict_one(pb, q, robot, world)


def _words(robot: Robot, status: int, q: np.ndarray, v: tuple, r: Reach, s: Settings) -> str:
    ok, pos, ori, inside, near = v
    if ok:
        return NEAR_WORDS if near else "converged"
    if not r.reachable[0]:
        return out_of_reach_message(r.distance[0], r.bound, robot.length_unit)
    return reason(robot, status, q, pos, ori, inside, s.enforce, s.opts.max_iter)
