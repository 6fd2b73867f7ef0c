"""`km.ik`: one call for every numeric method, one target or a batch, with an honest verdict.

The spine, each step a named function in its own module (docs/architecture.md walks it):
`ik` (this module: the input checked, a scene's collisions, the one-pose shortcut
`fast.one_pose`) → the target (`target.as_target`, in `frame.judged`: the world target the
verdict holds FK to) → the frame (`frame.solver_problem`: what the solvers iterate on) → the
solve, by method and size: `one.solve_target` (LM, one target), `many.solve_targets` (a batch,
or another method), `closed.analytic_ik`, `learned.solve_learned` — each seeding
(`seeds`), solving in the compiled core (`lm_core`) or on the NumPy engine (`numeric`), judging
by an independent FK call (`verdict`) and building the `IKResult` (`verdict.package`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import RESTARTS, count
from ..errors import InputTypeError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..typing import PoseLike, Q
from .closed import analytic_ik
from .collide import avoid, seat_of
from .fast import one_pose
from .frame import fit_target, judged, solver_problem
from .learned import LEARNED_METHODS, SeedModel, is_model, model_seeds, solve_learned
from .many import solve_targets
from .one import solve_target
from .options import (
    Call,
    Settings,
    check_option_names,
    default_tolerance,
    limit_mode,
    solver_options,
)
from .result import IKResult
from .secondary import check_goals
from .seeds import initial_seeds
from .target import Target


@takes_robot
def ik(robot: Robot, target: Target | PoseLike, q0: Q | str | SeedModel | None = None, method: str = "lm", *,
       limits: str = "auto", restarts: int = 200, seed: int | None = 0, secondary: dict | None = None,
       rest: ArrayLike | None = None, model=None, scene=None, **options) -> IKResult:
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
    if scene is None and method == "lm" and secondary is None and rest is None and model is None and (
            not options or options.keys() == {"closed_form_seed"}):
        done = one_pose(robot, target, q0, limits, restarts, seed,  # the commonest call
                        options.get("closed_form_seed", True))
        if done is not None:
            return done
    call = Call(method=method, limits=limits, restarts=restarts, seed=seed, secondary=secondary, rest=rest,
                model=model, options=options)
    if scene is None:
        return _ik(robot, target, q0, call)
    seat = seat_of(robot, scene)  # a scene that does not hold the robot fails before any work

    def solve(t, q, s):
        return _ik(robot, t, q, replace(call, seed=s))
    return avoid(robot, judged(robot, target), solve(target, q0, seed), seat, solve, seed)


def _ik(robot: Robot, target, q0, call: Call) -> IKResult:
    """`ik` without a scene: the target and its frame, then the solve its method and size take."""
    restarts = count(call.restarts, "restarts", RESTARTS, minimum=0)
    goals = check_goals(robot, call.secondary, call.rest)
    world = judged(robot, target)  # what the verdict holds FK to: the target as given, world frame
    rs, t = solver_problem(robot, fit_target(robot, world))  # what the solvers iterate on
    method, limits = call.method, call.limits
    if method in LEARNED_METHODS:
        if goals is not None:
            raise InputTypeError(f"secondary goals move a solved configuration; method={method!r} solves nothing: "
                                 f"seed 'lm' with the model (q0=model) to use them")
        return solve_learned(robot, world, rs, t, method, call.model, dict(call.options))
    if call.model is not None:
        raise InputTypeError(f"model= is for method='anfis'; to seed {method!r} with a model pass it as q0")
    if is_model(q0):  # a guess, not the arm's pose: "auto" iterates freely, as from home
        q0 = model_seeds(robot, q0, world)
        limits = "wrap" if limits == "auto" else limits
    N = int(np.prod(t.shape))
    if method == "analytic":
        rng = np.random.default_rng(call.seed) if isinstance(q0, str) else None  # only "random" needs one
        return analytic_ik(robot, world.reshape(N), rs, t.reshape(N), t.shape, initial_seeds(robot, q0, N, rng),
                           limits, dict(call.options))
    mode = limit_mode(limits, q0)
    opts = solver_options(robot, method, mode, dict(call.options))
    if opts.history and N > 1:
        opts = replace(opts, history=False)  # a batch records no history
    s = Settings(opts=opts, enforce=mode != "ignore", restarts=restarts, seed=call.seed)
    if method == "lm" and N == 1 and goals is None:
        return solve_target(robot, world.reshape(), rs, t.reshape(), t.shape, q0, s)
    return solve_targets(robot, world, rs, t, q0, s, goals)


__all__ = ["ik", "default_tolerance", "IKResult"]
