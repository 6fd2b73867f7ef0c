"""Steps 2–5 of `km.ik`'s spine for a batch of targets, or one target with a method other than
LM or with secondary goals: seeds, solve (LM in the compiled core, `lm_core.solve_batch`; the
other methods on the NumPy engine, `numeric.iterate`, with rounds of random restarts), the
verdict (the core's for a spatial arm's LM, else `verdict.judge`), the closed-form rescue, the
secondary goals, and the `IKResult`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.robot import Robot
from .closed import rescue
from .limits import random_seeds, wrap_into_limits
from .lm_core import goals as core_goals
from .lm_core import solve_batch, solver_for
from .numeric import iterate
from .options import STALLED, Options, Settings
from .reach import reach_check
from .result import IKResult
from .secondary import Goals, improve
from .seeds import first_seeds, initial_seeds, scale_of
from .target import Target
from .verdict import Verdicts, judge, near_singular, package, reasons

__all__ = ["solve_targets"]

RESTART_SEEDS = 8  # random seeds tried at once per unsolved target in each restart round
RESTART_ITER = 30  # a good seed converges in well under this; a bad one is not worth more


def solve_targets(robot: Robot, world: Target, rs: Robot, t: Target, q0, s: Settings,
                  goals: Goals | None) -> IKResult:
    """N targets (world and t flattened to (N,) here; the result in their shape): seeds, solve,
    verdict, rescue, secondary goals (`goals`, from `secondary.check_goals`), reasons."""
    shape, opts = t.shape, s.opts
    N = int(np.prod(shape))
    t, world = t.reshape(N), world.reshape(N)
    rng = np.random.default_rng(s.seed)
    seeds = initial_seeds(robot, q0, N, rng)
    r = reach_check(rs, t, opts.tol_position, robot)
    history = [] if opts.history else None
    q, status, iters = _solve(rs, t, seeds, r.reachable, s, rng, history)
    # a spatial arm's LM verdicts come from the core (its target is the world target itself)
    core = (solver_for(rs, t, opts, scale_of(rs), s.enforce, False), core_goals(t)) \
        if opts.method == "lm" and rs is robot else None
    ok, pos, ori, inside, J = _judge(robot, world, q, s, core)
    if opts.method == "lm" and np.any(~ok & r.reachable):
        rescue(rs, t, q, status, seeds, s.enforce, np.flatnonzero(~ok & r.reachable))
        ok, pos, ori, inside, J = _judge(robot, world, q, s, core)
    if goals is not None and ok.any():
        # the solvers' tolerances, a little inside: the verdict below must still see the target
        q = improve(rs, t, q, np.flatnonzero(ok), goals, 0.5 * opts.tol_position, 0.5 * opts.tol_orientation,
                    s.enforce)
        ok, pos, ori, inside, J = _judge(robot, world, q, s, core)
    if core is None:
        near = near_singular(rs, t, q, J if rs is robot else None)
    else:  # J: the targets whose singularity flag the core's bound left to the SVD
        near = np.zeros(len(q), bool)
        near[J] = near_singular(rs, t[J], q[J])
    v = Verdicts(ok, pos, ori, inside, near)
    return package(shape, method=opts.method, q=q, iterations=iters, verdicts=v, reachable=r.reachable,
                   words=reasons(robot, status, q, v, r, s.enforce, opts.max_iter), history=history)


def _judge(robot: Robot, world: Target, q: np.ndarray, s: Settings, core: tuple | None) -> tuple:
    """(ok, position error, orientation error, within limits, J) of q (N, n) against the world
    target: `verdict.judge` (J the Jacobians), or, with core = (solver, goals), the core's
    verdicts (J then the indices whose singularity flag the SVD must decide)."""
    if core is None:
        return judge(robot, world, q, s.opts.tol_position, s.opts.tol_orientation, s.enforce)
    v = core[0].verdicts(core[1], np.ascontiguousarray(q, dtype=float))
    return v[:, 0] == 1.0, v[:, 1], v[:, 2], v[:, 3] == 1.0, np.flatnonzero(v[:, 4])


def _solve(robot: Robot, t: Target, seeds: np.ndarray, reachable: np.ndarray, s: Settings,
           rng: np.random.Generator, history: list | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, status, iterations) per target: the reachable ones solved, the others left at their seed."""
    N, opts = len(seeds), s.opts
    q, status, iters = seeds.copy(), np.full(N, STALLED), np.zeros(N, int)
    todo = np.flatnonzero(reachable)
    if todo.size and opts.method == "lm":
        plain = opts.clip_limits or not opts.closed_form_seed
        first, in_core = first_seeds(robot, t[todo], seeds[todo], s.enforce, not plain)
        q[todo], status[todo], iters[todo] = solve_batch(robot, t[todo], first, s, rng, scale_of(robot), in_core)
    elif todo.size:
        q[todo], status[todo], iters[todo] = classic(robot, t[todo], seeds[todo], s, rng, history)
    return q, status, iters


def classic(robot: Robot, t: Target, seeds: np.ndarray, s: Settings, rng: np.random.Generator,
            history: list | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The other methods: one run of `numeric.iterate` (its per-iteration records appended to
    `history` when asked), then rounds of random seeds (several per unsolved target at once)
    for the targets it did not solve."""
    opts = s.opts
    st = iterate(robot, t, seeds, opts)
    if history is not None:
        history.extend(st.history)
    q = wrap_into_limits(robot, st.q, seeds) if s.enforce else st.q
    status, iters = st.status.copy(), st.iterations.copy()
    ok = judge(robot, t, q, opts.tol_position, opts.tol_orientation, s.enforce)[0]
    todo = np.flatnonzero(~ok)
    short: Options = replace(opts, max_iter=min(opts.max_iter, RESTART_ITER), history=False, clip_limits=False)
    k = RESTART_SEEDS
    for _ in range(-(-s.restarts // k) if s.restarts > 0 else 0):
        if todo.size == 0:
            break
        rep = np.repeat(todo, min(k, s.restarts))
        rs = random_seeds(robot, rep.size, rng)
        st = iterate(robot, t[rep], rs, short)
        q_new = wrap_into_limits(robot, st.q, rs) if s.enforce else st.q
        good = judge(robot, t[rep], q_new, opts.tol_position, opts.tol_orientation, s.enforce)[0]
        np.add.at(iters, rep, st.iterations)
        okm = good.reshape(todo.size, -1)
        solved = okm.any(axis=1)
        pick = np.arange(todo.size) * okm.shape[1] + np.argmax(okm, axis=1)
        q[todo[solved]], status[todo[solved]] = q_new[pick[solved]], st.status[pick[solved]]
        todo = todo[~solved]
    return q, status, iters
