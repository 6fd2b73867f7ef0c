"""`km.ik`: one call for every numeric method, one target or a batch, with an honest verdict.

Order of work: check the input; refuse targets beyond the arm's reach (in words); iterate from
q0 (default: the robot's home, i.e. the current pose — paper 000) — in "wrap" mode, for a
full pose on an arm with a closed form (spherical wrist, UR-type), from its branch nearest q0
inside the limits (`closed.closed_form_seeds`: solved by the first attempt, no random seeds
needed; not when `history` is asked for, whose plot shows LM's own iterations from q0); give unsolved problems fresh
random seeds inside the limits (`restarts`); then judge every returned q by an independent FK
call against the tolerances and the limits.

Levenberg–Marquardt (the default method) runs on `single.solve_one` for one target and on
`batch.solve_lm` for many — the same rules, each built for its size; full pose targets run in
the compiled core (`ik.lm_core`: seed, solve and verdict in one call for a single target — the
commonest call, a 4x4 pose with default options, through `ik.fast`'s shortcut; the same code
looped for a batch); a target it leaves
unsolved gets the closed form where one fits (`closed.rescue`: solutions exactly on the
joint limits, which random seeds find only now and then). The other methods run on the
general engine `numeric.iterate`, alone. Targets and the verdict are in the world frame; the
solvers iterate on `frame.solver_problem`.
"""

from __future__ import annotations


from ..errors import InputError, InputTypeError

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import RESTARTS, count
from ..kinematics.chain import check_q
from ..model.robot import Robot
from .closed import closed_form_seeds, rescue
from .collide import avoid, seat_of
from .fast import one_pose
from .limits import random_seeds, wrap_into_limits
from .numeric import CONVERGED, STALLED, Options, iterate
from .options import check_option_names, default_tolerance, limit_mode, solver_options
from .reach import bound, out_of_reach_message, reach_check
from .result import IKResult
from .secondary import check_goals, improve
from .closed_pack import fits
from .lm_core import goals as core_goals, solve_batch, solve_single, solver_for
from .single import Problem, solve_one, verdict_one
from .frame import fit_target, judged, solver_problem
from .learned import LEARNED_METHODS, is_model, model_seeds, solve_learned
from .target import Target
from ..typing import PoseLike, Q
from .verdict import NEAR_WORDS, judge, near_singular, package, reason, reasons
from ..model.coerce import takes_robot

def _seeds(robot: Robot, q0, N: int, rng: np.random.Generator) -> np.ndarray:
    if q0 is None:
        return np.tile(robot.q_home, (N, 1))
    if isinstance(q0, str):
        if q0 != "random":
            raise InputError(f"q0: expected joint values, None or 'random', got {q0!r}")
        return random_seeds(robot, N, rng)
    q0 = check_q(robot, q0, "q0")
    if q0.ndim == 1:
        return np.tile(q0, (N, 1))
    if q0.reshape(-1, robot.n).shape[0] != N:
        raise InputError(f"q0: expected one seed or one per target ({N}), got shape {q0.shape}")
    return q0.reshape(N, robot.n).copy()


@takes_robot
def ik(robot: Robot, target: "Target | PoseLike", q0: "Q | str | None" = None, method: str = "lm", *,
       limits: str = "auto", restarts: int = 200, seed: int | None = 0, secondary: dict | None = None,
       rest: "ArrayLike | None" = None, model=None, scene=None, **options) -> IKResult:
    """Joint values that put the tool on `target`.

    target: a `Target` (see `kinematica.ik.target`: pose, position, orientation forms, approach
    or pitch, planar), a pose (..., 4, 4), a position (..., 3) or a planar point (..., 2).
    q0: the initial guess (n,) or one per target; default the robot's home configuration;
    "random": a random seed inside the limits per target (from `seed`); a learned IK model
    (`kinematica.learn`): its answer for each target (a warm start; limits "auto" read as
    "wrap", as from home). With "lm", limits "wrap" and a full pose on an arm with a closed
    form (spherical wrist, UR-type), the iteration starts from the closed-form branch nearest
    q0 inside the limits, so it needs no restarts (batched ~3x faster; in the compiled core,
    `ik.closed_pack`). Not with "clip", where q0 is the arm's pose and LM moves it from
    there (a few iterations to a nearby target), nor
    when `history` is asked for, whose record is the iteration from q0 itself, nor with the
    option `closed_form_seed=False` (LM from q0 itself, e.g. to measure what a seed is worth).
    method: "lm", "gn"/"newton", "transpose", "dls", "analytic" (the closed-form branch nearest
    q0, where a solver fits the robot), or "anfis": the answer of `model` (a learned IK model)
    alone, judged by FK like the others — approximate, so usually success=False with the miss
    in the reason (options: tol_position, tol_orientation only).
    limits: "clip" projects every step of the first attempt onto the joint limits (paper 000:
    the arm moves from q0 without leaving its range); "wrap" iterates freely and, at
    convergence, wraps revolute joints by 2π into range and checks the limits; "ignore" drops
    them; "auto" (default) is "clip" when q0 is given as joint values — the solution reached
    from there, paper 000's (38.509°, 68.800°, 62.749°) below — and "wrap" otherwise: from
    home or random seeds it needs far fewer iterations (clipping traps many seeds at a limit;
    `benchmarks/bench_ik.py` shows both). The rule is the same for one target and for a
    batch, so a batch equals a loop of single calls.
    restarts: random seeds inside the limits tried, at most, for each target the first attempt
    did not solve; they iterate freely ("wrap") with Chan's damping (a target past 8 of them
    alternates with clipped accept/reject attempts). Most targets need none or a few; 200 lets
    the Panda's rare in-limit solutions be found (99.99 % of random targets, where 64 gave
    99.9 %) and bounds the work on a target no seed solves. options: `Options` fields
    (tolerances, max_iter, damping ("adaptive": paper 000's accept/reject, default with clip;
    "chan": λ = 0.1·E, default otherwise), lambda0, step, history …).
    secondary: goals for the freedom a solved target leaves (a redundant arm; a position-only
    or axis-free target), as weights: {"limits": w, "manipulability": w, "rest": w}, `rest`
    the rest pose (required by the "rest" goal, refused without it) — each solution is then moved in the task's null space to
    lower the weighted cost, staying on its target (`secondary.improve`; numeric methods).
    scene: a `km.Scene` holding this robot once, or `scene.for_robot(name, others_q)`: a
    solution that collides is re-solved from random seeds, and one still colliding is marked
    (success False, `collision` the pair, the reason naming it) — see `ik.collide`.

    >>> import kinematica as km, numpy as np
    >>> r = km.ik(km.load("planar-3r"), [-10, 35], np.radians([30, 30, 20]))
    >>> r.success, r.reason, np.degrees(r.q).round(3)
    (True, 'converged', array([38.509, 68.8  , 62.749]))
    """
    if options:
        check_option_names("ik()", ik, options)

    def solve(t, q, s):
        return _ik(robot, t, q, method, limits, restarts, s, secondary, rest, model, options)
    if scene is None:
        if method == "lm" and secondary is None and rest is None and model is None and (
                not options or options.keys() == {"closed_form_seed"}):
            done = one_pose(robot, target, q0, limits, restarts, seed,  # the commonest call
                            options.get("closed_form_seed", True))
            if done is not None:
                return done
        return solve(target, q0, seed)
    seat = seat_of(robot, scene)  # a scene that does not hold the robot fails before any work
    return avoid(robot, judged(robot, target), solve(target, q0, seed), seat, solve, seed)


def _ik(robot: Robot, target, q0, method: str, limits: str, restarts: int, seed, secondary, rest, model,
        options: dict) -> IKResult:
    """`ik` without a scene."""
    restarts = count(restarts, "restarts", RESTARTS, minimum=0)
    goals = check_goals(robot, secondary, rest)
    world = judged(robot, target)  # what the verdict holds FK to: the target as given, world frame
    rs, t = solver_problem(robot, fit_target(robot, world))  # what the solvers iterate on
    shape = t.shape
    N = int(np.prod(shape))
    if method in LEARNED_METHODS:
        if goals is not None:
            raise InputTypeError(f"secondary goals move a solved configuration; method={method!r} solves nothing: "
                            f"seed 'lm' with the model (q0=model) to use them")
        return solve_learned(robot, world, rs, t, method, model, dict(options))
    if model is not None:
        raise InputTypeError(f"model= is for method='anfis'; to seed {method!r} with a model pass it as q0")
    if is_model(q0):  # a guess, not the arm's pose: "auto" iterates freely, as from home
        q0 = model_seeds(robot, q0, world)
        limits = "wrap" if limits == "auto" else limits
    if method == "analytic":
        from .closed import analytic_ik
        rng = np.random.default_rng(seed) if isinstance(q0, str) else None  # only "random" needs one
        return analytic_ik(robot, world.reshape(N), rs, t.reshape(N), shape, _seeds(robot, q0, N, rng), limits,
                           dict(options))
    mode = limit_mode(limits, q0)
    opts = solver_options(robot, method, mode, dict(options))
    opts.history = opts.history and N == 1
    enforce = mode != "ignore"
    if method == "lm" and N == 1 and goals is None:
        return _ik_one(robot, world.reshape(), rs, t.reshape(), shape, q0, seed, opts, enforce, restarts)
    t, world = t.reshape(N), world.reshape(N)
    rng = np.random.default_rng(seed)
    seeds = _seeds(robot, q0, N, rng)
    reachable, dist, reach = reach_check(rs, t, opts.tol_position, robot)
    history = [] if opts.history else None
    q, status, iters = _solve_many(rs, t, seeds, reachable, opts, enforce, restarts, rng, history, seed)
    # a spatial arm's LM verdicts come from the core (its target is the world target itself)
    core = (solver_for(rs, t, opts, _scale(rs), enforce, False), core_goals(t)) if method == "lm" and rs is robot else None
    ok, pos, ori, inside, J = _judge(robot, world, q, opts, enforce, core)
    if method == "lm" and np.any(~ok & reachable):
        rescue(rs, t, q, status, seeds, enforce, np.flatnonzero(~ok & reachable))
        ok, pos, ori, inside, J = _judge(robot, world, q, opts, enforce, core)
    if goals is not None and ok.any():
        # the solvers' tolerances, a little inside: the verdict below must still see the target
        q = improve(rs, t, q, np.flatnonzero(ok), *goals, 0.5 * opts.tol_position, 0.5 * opts.tol_orientation,
                    enforce)
        ok, pos, ori, inside, J = _judge(robot, world, q, opts, enforce, core)
    if core is None:
        near = near_singular(rs, t, q, J if rs is robot else None)
    else:  # J: the targets whose singularity flag the core's bound left to the SVD
        near = np.zeros(len(q), bool)
        near[J] = near_singular(rs, t[J], q[J])
    words = reasons(robot, status, q, ok, pos, ori, inside, near, reachable, dist, reach, enforce, opts.max_iter)
    return package(shape, method, q, ok, words, iters, pos, ori, inside, near, reachable, history)


def _judge(robot, world, q, opts, enforce, core):
    """(ok, position error, orientation error, within limits, J) of q (N, n) against the world
    target: `verdict.judge` (J the Jacobians), or, with core = (solver, goals), the core's
    verdicts (J then the indices whose singularity flag the SVD must decide)."""
    if core is None:
        return judge(robot, world, q, opts.tol_position, opts.tol_orientation, enforce)
    v = core[0].verdicts(core[1], np.ascontiguousarray(q, dtype=float))
    return v[:, 0] == 1.0, v[:, 1], v[:, 2], v[:, 3] == 1.0, np.flatnonzero(v[:, 4])


def _solve_many(robot, t, seeds, reachable, opts, enforce, restarts, rng, history, seed=None):
    """(q, status, iterations) per target: the reachable ones solved, the others left at their seed."""
    N = len(seeds)
    q, status, iters = seeds.copy(), np.full(N, STALLED), np.zeros(N, int)
    todo = np.flatnonzero(reachable)
    if todo.size and opts.method == "lm":
        plain = opts.clip_limits or not opts.closed_form_seed
        first, in_core = _first_seeds(robot, t[todo], seeds[todo], enforce, not plain)
        q[todo], status[todo], iters[todo] = solve_batch(robot, t[todo], first, opts, enforce, restarts, rng,
                                                         _scale(robot), in_core, seed)
    elif todo.size:
        q[todo], status[todo], iters[todo] = _classic(robot, t[todo], seeds[todo], opts, enforce, restarts, rng,
                                                      history)
    return q, status, iters


def _first_seeds(rs: Robot, t: Target, seeds: np.ndarray, enforce: bool, seeded: bool) -> tuple[np.ndarray, bool]:
    """The first attempts' seeds and whether the core takes the closed form's nearest branch
    itself (where it has a closed form for the arm and the target's kind: `closed_pack.fits`);
    elsewhere, where seeded, the NumPy closed forms' nearest branch (`closed.closed_form_seeds`),
    else the seeds."""
    if not seeded:
        return seeds, False
    if fits(rs, t):
        return seeds, True
    return closed_form_seeds(rs, t, seeds, enforce), False


def _scale(robot: Robot) -> float:
    """A length for relative position errors: the arm's reach (1 when it is unbounded)."""
    reach = bound(robot)[1]
    return reach if np.isfinite(reach) and reach > 0 else 1.0


def _ik_one(robot, world, rs, t, shape, q0, seed, opts, enforce, restarts) -> IKResult:
    """One target (t of shape ()): the seed, `single.solve_one` on the solver's problem (rs, t)
    and a verdict from one fresh FK + Jacobian call of `robot` against the world target, with
    none of the batch's arrays — all three in one call of the compiled core
    (`lm_core.solve_single`) for a spatial arm's pose."""
    def rng():  # made only if a restart needs it
        return np.random.default_rng(seed)
    if q0 is None:
        q0 = robot.q_home
    elif isinstance(q0, str):
        q0 = _seeds(robot, q0, 1, rng())[0]
    else:
        q0 = check_q(robot, q0, "q0")
        if q0.size != robot.n:
            raise InputError(f"q0: expected one seed or one per target (1), got shape {q0.shape}")
        q0 = q0.reshape(robot.n)
    (reachable,), (dist,), reach = reach_check(rs, t.reshape(1), opts.tol_position, robot)
    pb = Problem(rs, t, opts, enforce, reach if np.isfinite(reach) and reach > 0 else 1.0)
    history = [] if opts.history else None
    seeded = reachable and history is None and not opts.clip_limits and opts.closed_form_seed  # (see `ik`)
    done = None
    if reachable and history is None:  # seed, solve (and for a spatial arm the verdict) in the core
        first, in_core = _first_seeds(rs, t.reshape(1), q0[None], enforce, seeded)
        sv = solver_for(rs, t, opts, pb.scale, enforce, in_core)
        done = solve_single(rs, sv, core_goals(t)[0], first[0], restarts, seed, t.rows, t.dof)
        if done is not None and rs is not robot:  # judged on the user's robot and world target
            done = done[:3] + verdict_one(pb, done[0], robot, world)
    if done is not None:
        q, status, iters, ok, pos, ori, inside, near = done
    else:
        first = closed_form_seeds(rs, t.reshape(1), q0[None], enforce)[0] if seeded else q0
        q, status, iters = solve_one(pb, first, restarts, rng, history) if reachable else (q0, STALLED, 0)
        ok, pos, ori, inside, near = verdict_one(pb, q, robot, world)
    if not ok and reachable:
        qs, st = q[None].copy(), np.array([status])
        rescue(rs, t.reshape(1), qs, st, q0[None], enforce, np.array([0]))
        if st[0] == CONVERGED and status != CONVERGED or np.any(qs[0] != q):
            q, status = qs[0], int(st[0])
            ok, pos, ori, inside, near = verdict_one(pb, q, robot, world)
    if ok:
        words = NEAR_WORDS if near else "converged"
    elif not reachable:
        words = out_of_reach_message(dist, reach, robot.length_unit)
    else:
        words = reason(robot, status, q, pos, ori, inside, enforce, opts.max_iter)
    if shape == ():
        return IKResult(q=q, success=ok, reason=words, iterations=int(iters), position_error=pos,
                        orientation_error=ori, within_limits=inside, near_singular=near, method="lm",
                        reachable=reachable, history=history)
    return package(shape, "lm", q[None], np.array([ok]), [words], np.array([iters]), np.array([pos]),
                   np.array([ori]), np.array([inside]), np.array([near]), np.array([reachable]))


def _classic(robot, t, seeds, opts, enforce, restarts, rng, history: list | None = None):
    """The other methods: one run of `numeric.iterate` (its per-iteration records appended to
    `history` when asked), then rounds of random seeds (several per unsolved target at once)
    for the targets it did not solve."""
    st = iterate(robot, t, seeds, opts)
    if history is not None:
        history.extend(st.history)
    q = wrap_into_limits(robot, st.q, seeds) if enforce else st.q
    status, iters = st.status.copy(), st.iterations.copy()
    ok = judge(robot, t, q, opts.tol_position, opts.tol_orientation, enforce)[0]
    todo = np.flatnonzero(~ok)
    short = Options(**{**opts.__dict__, "max_iter": min(opts.max_iter, RESTART_ITER), "history": False,
                       "clip_limits": False})
    k = RESTART_SEEDS
    for _ in range(-(-restarts // k) if restarts > 0 else 0):
        if todo.size == 0:
            break
        rep = np.repeat(todo, min(k, restarts))
        rs = random_seeds(robot, rep.size, rng)
        st = iterate(robot, t[rep], rs, short)
        q_new = wrap_into_limits(robot, st.q, rs) if enforce else st.q
        good = judge(robot, t[rep], q_new, opts.tol_position, opts.tol_orientation, enforce)[0]
        np.add.at(iters, rep, st.iterations)
        okm = good.reshape(todo.size, -1)
        solved = okm.any(axis=1)
        pick = np.arange(todo.size) * okm.shape[1] + np.argmax(okm, axis=1)
        q[todo[solved]], status[todo[solved]] = q_new[pick[solved]], st.status[pick[solved]]
        todo = todo[~solved]
    return q, status, iters


RESTART_SEEDS = 8  # random seeds tried at once per unsolved target in each restart round
RESTART_ITER = 30  # a good seed converges in well under this; a bad one is not worth more


__all__ = ["ik", "default_tolerance", "IKResult"]
