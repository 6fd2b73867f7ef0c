"""`km.ik(method="analytic")`: the closed-form branch nearest q0, judged like the numeric ones;
and the closed form as the last resort of Levenberg–Marquardt (`rescue`)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..kinematics.handle import chain_handle
from ..model.robot import Robot
from .closed_pack import TARGET_KINDS, fits, form_for, labels
from .goals import goals
from .options import CONVERGED, LIMIT_MODES, solver_options
from .reach import out_of_reach_message, reach_check
from .result import IKResult
from .single import Problem, verdict_one
from .target import Target
from .verdict import Verdicts, judge, near_singular, package


def analytic_ik(robot: Robot, world: Target, rs: Robot, t: Target, shape: tuple, seeds: np.ndarray, limits: str,
                kw: dict) -> IKResult:
    """The closed-form branch nearest each seed (within the limits when they are enforced),
    solved on the solver's problem (rs, t) and judged by FK of `robot` against `world`
    (see `frame`)."""
    from .analytic import CLOSED_FORMS, analytic_solutions, helical_refusal, solver_name

    if limits not in LIMIT_MODES:
        raise InputError(f"limits must be one of {', '.join(LIMIT_MODES)}, got {limits!r}")
    opts = solver_options(robot, "lm", "wrap", kw)  # tolerances only
    found = _one_compiled(rs, t, seeds) or analytic_solutions(rs, t, q_ref=seeds)
    if found is None and helical_refusal(robot):
        raise InputError(helical_refusal(robot))
    if found is None:
        raise InputError(f"no analytic solver fits {robot.name!r} with a {t.kind} target "
                         f"(closed forms exist for {CLOSED_FORMS}); use a numeric method")
    Q, valid, labels = found
    enforce = limits != "ignore"
    usable = valid & (robot.within_limits(Q) if enforce else True)
    d = np.linalg.norm((Q - seeds[:, None] + np.pi) % (2 * np.pi) - np.pi, axis=-1)
    best = np.argmin(np.where(usable, d, np.where(valid, 1e6 + d, 2e6 + d)), axis=1)
    q = Q[np.arange(len(Q)), best]
    if len(q) == 1:  # one target: the verdict from one FK + Jacobian call on floats
        pb = Problem(rs, t[0], opts, enforce, 1.0)
        ok, pos, ori, inside, near = (np.array([x]) for x in verdict_one(pb, q[0], robot, world[0]))
    else:
        ok, pos, ori, inside, J = judge(robot, world, q, opts.tol_position, opts.tol_orientation, enforce)
        near = near_singular(rs, t, q, J if rs is robot else None)
    reachable, dist, reach = reach_check(rs, t, opts.tol_position, robot)
    branch = np.array(labels, dtype=object)[best]
    reasons = np.array([f"exact ({label})" for label in labels], dtype=object)[best]  # a lookup, not a loop
    for k in np.flatnonzero(~ok):
        if not reachable[k]:
            reasons[k] = out_of_reach_message(dist[k], reach, robot.length_unit)
        elif valid[k].any():
            reasons[k] = "every closed-form solution lies outside the joint limits"
        else:
            reasons[k] = f"no closed-form solution reaches the target ({solver_name(robot)} solver)"
    return package(shape, method="analytic", q=q, iterations=np.zeros(len(q), int),
                   verdicts=Verdicts(ok, pos, ori, inside, near), reachable=reachable & valid.any(axis=1),
                   words=list(reasons), branch=branch)


def _one_compiled(rs: Robot, t: Target, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """`analytic_solutions(rs, t, q_ref=seeds)` for one target, in the compiled core: every
    branch (`_core.ClosedForm.candidates`, the NumPy solvers' equations in C++) and which of
    them FK reproduces (`analytic._fk_check`'s test, on the core's FK). None when no compiled
    closed form takes the target (the NumPy solvers then answer)."""
    form = form_for(rs, t) if len(seeds) == 1 else None
    if form is None:
        return None
    from .analytic import finite_branches, reproduces

    Q = form.candidates(goals(t)[0], TARGET_KINDS[t.kind], t.phi is not None, seeds[0])[0]
    (Q,), (lost,) = finite_branches(Q[None], seeds)
    try:
        T = chain_handle(rs)[0].fk(Q)  # the compiled core's FK
    except ValueError:  # a non-finite branch left (finite_branches replaces them): NumPy answers
        return None
    with np.errstate(over="ignore", invalid="ignore"):  # (as analytic_solutions: a far target)
        return Q[None], reproduces(rs, t, T[None]) & ~lost, labels(rs)


def nearest_branches(rs: Robot, t: Target, seeds: np.ndarray, enforce: bool, checked: bool = True
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """The closed-form branch nearest each seed (N, n) for targets t (N,) of the solver's
    problem rs — within the joint limits when `enforce` — as (q (N, n), found (N,)), or None
    when no closed form fits. "Nearest": the smallest joint-space distance, each revolute gap
    taken modulo 2π. checked: keep only branches whose FK reproduces the target
    (`analytic_solutions`); False takes the solver's own reachability (`analytic_candidates`,
    ~1/3 cheaper) — for a seed, which the numeric solve and the verdict check anyway.
    A target without a usable branch keeps its seed (found False)."""
    from .analytic import analytic_candidates, analytic_solutions, has_analytic

    if not has_analytic(rs, t):
        return None
    sols = _core_solutions(rs, t, seeds) if checked else None
    if sols is None:
        sols = (analytic_solutions if checked else analytic_candidates)(rs, t, q_ref=seeds)
    if sols is None:  # (has_analytic said one fits: not reached)
        return None
    Q, valid, _ = sols
    usable = valid & (rs.within_limits(Q) if enforce else True)
    d = np.linalg.norm((Q - seeds[:, None] + np.pi) % (2 * np.pi) - np.pi, axis=-1)
    best = np.argmin(np.where(usable, d, np.inf), axis=1)
    found = np.asarray(usable.any(axis=1))  # (N,) also for a single target
    q = seeds.copy()
    q[found] = Q[np.flatnonzero(found), best[found]]
    return q, found


def _core_solutions(rs: Robot, t: Target, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """`analytic_solutions(rs, t, q_ref=seeds)` by the core's closed form, target by target, so a
    target's branches are the same bits in any batch (NumPy's vectorised forms round by batch
    size); None where the core has no closed form for the arm (or a branch left the numbers)."""
    if len(seeds) == 0 or not fits(rs, t):
        return None
    found = [_one_compiled(rs, t[np.array([i])], seeds[i:i + 1]) for i in range(len(seeds))]
    parts = [p for p in found if p is not None]
    if len(parts) < len(found):
        return None
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), parts[0][2])


def closed_form_seeds(rs: Robot, t: Target, seeds: np.ndarray, enforce: bool) -> np.ndarray:
    """Seeds for Levenberg–Marquardt on pose targets t (N,): where a closed form fits the
    solver's problem, the branch nearest each caller's seed (inside the limits when they are
    enforced), from which the first attempt converges at once (issue 12: Puma 560 targets
    needed 2.1 attempts each from random seeds); elsewhere the seeds themselves."""
    if t.kind != "pose":
        return seeds
    near = nearest_branches(rs, t, seeds, enforce, checked=False)
    return seeds if near is None else near[0]


def rescue(rs: Robot, t: Target, q: np.ndarray, status: np.ndarray, seeds: np.ndarray, enforce: bool,
           todo: np.ndarray) -> None:
    """For the targets `todo` (indices into t (N,)) that the numeric search left unsolved:
    where a closed form fits the solver's problem (rs, t), put its valid branch nearest the
    seed — within the joint limits when they are enforced — into q (N, n), status CONVERGED.
    A solution exactly on a limit (a corner of the joint box, the only one inside it) is
    found by random seeds only now and then; the closed form lists every branch. The verdict
    still judges the result by FK, as any other."""
    if todo.size == 0:
        return
    near = nearest_branches(rs, t[todo], seeds[todo], enforce)
    if near is None:
        return
    qn, found = near
    q[todo[found]] = qn[found]
    status[todo[found]] = CONVERGED
