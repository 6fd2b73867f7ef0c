"""`km.ik`: one call for every numeric method, one target or a batch, with an honest verdict.

Order of work: check the input; refuse targets beyond the arm's reach (in words); iterate from
q0 (default: the robot's home, i.e. the current pose — paper 000); give unsolved problems fresh
random seeds inside the limits (`restarts` rounds); then judge every returned q by an independent
FK call against the tolerances and the limits.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.chain import check_q
from ..kinematics.fk import fk
from ..kinematics.jacobian import jacobian
from ..kinematics.manipulability import singular_values
from ..model.robot import Robot
from .limits import random_seeds, wrap_into_limits
from .numeric import AT_LIMIT, CONVERGED, LIMIT, METHODS, STALLED, Options, iterate
from .reach import out_of_reach_message, reach_check
from .residual import errors
from .result import IKResult
from .target import Target, TargetError, as_target

LIMIT_MODES = ("clip", "wrap", "ignore")
NEAR_SINGULAR = 1e-3


def default_tolerance(robot: Robot) -> float:
    """1e-6 m, in the robot's length unit (1e-3 for mm robots)."""
    return 1e-6 if robot.length_unit == "m" else 1e-3


def _seeds(robot: Robot, q0: ArrayLike | None, N: int) -> np.ndarray:
    if q0 is None:
        return np.tile(robot.q_home, (N, 1))
    q0 = check_q(robot, q0, "q0")
    if q0.ndim == 1:
        return np.tile(q0, (N, 1))
    if q0.reshape(-1, robot.n).shape[0] != N:
        raise ValueError(f"q0: expected one seed or one per target ({N}), got shape {q0.shape}")
    return q0.reshape(N, robot.n).copy()


def _options(robot: Robot, method: str, limits: str, kw: dict) -> Options:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if limits not in LIMIT_MODES:
        raise ValueError(f"limits must be one of {', '.join(LIMIT_MODES)}, got {limits!r}")
    if method == "dls" and kw.get("damping") in (None, "adaptive"):
        kw["damping"] = 1e-2 * (1.0 if robot.length_unit == "m" else 1000.0)
    kw.setdefault("tol_position", default_tolerance(robot))
    unknown = set(kw) - set(Options.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown IK option(s): {', '.join(sorted(unknown))}")
    return Options(method=method, clip_limits=(limits == "clip"), **kw)


def _joint(robot: Robot, i: int, v: float) -> str:
    if robot.revolute[i]:
        return f"{robot.joint_names[i]} = {np.degrees(v):.4g}°"
    return f"{robot.joint_names[i]} = {v:.4g} {robot.length_unit}"


def _reason(robot: Robot, status: int, q: np.ndarray, pos: float, ori: float, ok: bool,
            inside: bool, enforce: bool, max_iter: int) -> str:
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    unit = robot.length_unit
    if ok:
        return "converged"
    if status == CONVERGED and enforce and not inside:
        bad = [i for i in range(robot.n) if not lo[i] - 1e-9 <= q[i] <= hi[i] + 1e-9]
        return "converged outside the joint limits: " + ", ".join(_joint(robot, i, q[i]) for i in bad)
    err = f"position error {pos:.3g} {unit}, orientation error {ori:.3g} rad"
    if status == AT_LIMIT:
        at = [i for i in range(robot.n) if np.isclose(q[i], lo[i]) or np.isclose(q[i], hi[i])]
        return "stalled at joint limit " + ", ".join(_joint(robot, i, q[i]) for i in at) + f" ({err})"
    if status == STALLED:
        return f"stalled in a local minimum ({err})"
    if status == LIMIT:
        return f"no convergence in {max_iter} iterations ({err})"
    return f"the FK check failed ({err})"


def _judge(robot, target, q, opts, enforce):
    pos, ori = errors(target, fk(robot, q))
    inside = robot.within_limits(q)
    ok = (pos < opts.tol_position) & (ori < opts.tol_orientation) & (inside | (not enforce))
    return ok, pos, ori, inside


def _attempt(robot, target, seeds, opts, limits):
    st = iterate(robot, target, seeds, opts)
    q = wrap_into_limits(robot, st.q, seeds) if limits != "ignore" else st.q
    return st, q


RESTART_SEEDS = 8  # random seeds tried at once per unsolved target in each restart round
RESTART_ITER = 30  # a good seed converges in well under this; a bad one is not worth more


def _restart(robot, t, todo, q, status, iters, opts, limits, restarts, rng) -> None:
    """Rounds of several random seeds per still-unsolved target, solved together in one batch;
    the first seed that succeeds wins. Updates q, status and iters in place."""
    enforce = limits != "ignore"
    short = Options(**{**opts.__dict__, "max_iter": min(opts.max_iter, RESTART_ITER), "history": False})
    rounds = -(-restarts // RESTART_SEEDS) if restarts > 0 else 0
    for _ in range(rounds):
        if todo.size == 0:
            return
        k = min(RESTART_SEEDS, restarts)
        rep = np.repeat(todo, k)
        st, q_new = _attempt(robot, t[rep], random_seeds(robot, rep.size, rng), short, limits)
        ok, *_ = _judge(robot, t[rep], q_new, short, enforce)
        np.add.at(iters, rep, st.iterations)
        okm = ok.reshape(todo.size, k)
        solved = okm.any(axis=1)
        first = np.argmax(okm, axis=1)
        pick = np.arange(todo.size) * k + first
        q[todo[solved]] = q_new[pick[solved]]
        status[todo[solved]] = st.status[pick[solved]]
        todo = todo[~solved]


def ik(robot: Robot, target: "Target | ArrayLike", q0: ArrayLike | None = None, method: str = "lm", *,
       limits: str = "clip", restarts: int = 64, seed: int | None = 0, **options) -> IKResult:
    """Joint values that put the tool on `target`.

    target: a `Target` (see `kinematica.ik.target`: pose, position, orientation forms, approach
    or pitch, planar), a pose (..., 4, 4), a position (..., 3) or a planar point (..., 2).
    q0: the initial guess (n,) or one per target; default the robot's home configuration.
    method: "lm", "gn"/"newton", "transpose", "dls", or "analytic" (the closed-form branch nearest
    q0, where a solver fits the robot). limits: "clip" projects every step onto
    the joint limits (paper 000), "wrap" iterates freely and wraps revolute joints into range at
    the end, "ignore" drops the limits. restarts: extra rounds from random seeds inside the
    limits for targets not yet solved. options: `Options` fields (tolerances, max_iter, damping,
    lambda0, step, history …).

    >>> import kinematica as km, numpy as np
    >>> r = km.ik(km.load("planar-3r"), [-10, 35], np.radians([30, 30, 20]))
    >>> r.success, r.reason, np.degrees(r.q).round(3)
    (True, 'converged', array([38.509, 68.8  , 62.749]))
    """
    t = as_target(target)
    _check_fits(robot, t)
    shape = t.shape
    N = int(np.prod(shape))
    t = t.reshape(N)
    if method == "analytic":
        return _analytic(robot, t, shape, q0, limits, dict(options))
    opts = _options(robot, method, limits, dict(options))
    opts.history = opts.history and N == 1
    seeds = _seeds(robot, q0, N)
    reachable, dist, reach = reach_check(robot, t)
    q = seeds.copy()
    status = np.full(N, STALLED)
    iters = np.zeros(N, int)
    history = None
    todo = np.flatnonzero(reachable)
    rng = np.random.default_rng(seed)
    enforce = limits != "ignore"
    if todo.size:
        st, q_new = _attempt(robot, t[todo], seeds[todo], opts, limits)
        history = st.history if opts.history else None
        iters[todo] += st.iterations
        q[todo], status[todo] = q_new, st.status
        ok, *_ = _judge(robot, t[todo], q_new, opts, enforce)
        todo = todo[~ok]
    _restart(robot, t, todo, q, status, iters, opts, limits, restarts, rng)
    ok, pos, ori, inside = _judge(robot, t, q, opts, enforce)
    reasons = [out_of_reach_message(dist[k], reach, robot.length_unit) if not reachable[k]
               else _reason(robot, status[k], q[k], pos[k], ori[k], ok[k], inside[k], enforce, opts.max_iter)
               for k in range(N)]
    near = _near_singular(robot, t, q)
    for k in np.flatnonzero(ok & near):
        reasons[k] += " (near a singularity: σ_min/σ_max < 1e-3)"
    return _package(robot, shape, method, q, ok, reasons, iters, pos, ori, inside, near, reachable, history)


def _analytic(robot: Robot, t: Target, shape: tuple, q0, limits: str, kw: dict) -> IKResult:
    """The closed-form branch nearest q0 (within the limits when they are enforced)."""
    from .analytic import analytic_solutions, solver_name

    opts = _options(robot, "lm", limits, kw)  # tolerances only
    seeds = _seeds(robot, q0, len(t.p))
    found = analytic_solutions(robot, t, q_ref=seeds)
    if found is None:
        raise ValueError(f"no analytic solver fits {robot.name!r} with a {t.kind} target "
                         f"(closed forms exist for planar 2R/3R, yaw-pitch-pitch-pitch-roll 5-DOF arms, "
                         f"6R arms with a spherical wrist and UR-type arms); use a numeric method")
    Q, valid, labels = found
    enforce = limits != "ignore"
    usable = valid & (robot.within_limits(Q) if enforce else True)
    d = np.linalg.norm((Q - seeds[:, None] + np.pi) % (2 * np.pi) - np.pi, axis=-1)
    best = np.argmin(np.where(usable, d, np.where(valid, 1e6 + d, 2e6 + d)), axis=1)
    q = Q[np.arange(len(Q)), best]
    ok, pos, ori, inside = _judge(robot, t, q, opts, enforce)
    reachable, dist, reach = reach_check(robot, t)
    reasons = []
    for k in range(len(q)):
        if ok[k]:
            reasons.append(f"exact ({labels[best[k]]})")
        elif not reachable[k]:
            reasons.append(out_of_reach_message(dist[k], reach, robot.length_unit))
        elif valid[k].any():
            reasons.append("every closed-form solution lies outside the joint limits")
        else:
            reasons.append(f"no closed-form solution reaches the target ({solver_name(robot)} solver)")
    near = _near_singular(robot, t, q)
    res = _package(robot, shape, "analytic", q, ok, reasons, np.zeros(len(q), int), pos, ori, inside,
                   near, reachable & valid.any(axis=1), None)
    branch = np.array([labels[b] for b in best], dtype=object)
    return IKResult(**{**res.__dict__, "branch": branch.reshape(shape) if shape else branch[0]})


def _check_fits(robot: Robot, t: Target) -> None:
    from ..kinematics.manipulability import is_planar

    if t.kind == "planar" and not is_planar(robot):
        raise TargetError(f"a planar target (x, y) needs a planar robot; {robot.name!r} moves in 3-D: "
                          f"give a position (x, y, z)")


def _near_singular(robot: Robot, t: Target, q: np.ndarray) -> np.ndarray:
    J = jacobian(robot, q)[:, t.rows]
    s = singular_values(J)
    m = min(t.dof, robot.n)
    return s[:, m - 1] < NEAR_SINGULAR * s[:, 0]


def _package(robot, shape, method, q, ok, reasons, iters, pos, ori, inside, near, reachable, history):
    if shape == ():
        return IKResult(q[0], bool(ok[0]), reasons[0], int(iters[0]), float(pos[0]), float(ori[0]),
                        bool(inside[0]), bool(near[0]), method, bool(reachable[0]), history=history)
    def rs(a):
        return a.reshape(shape + a.shape[1:])
    return IKResult(rs(q), rs(ok), np.array(reasons, dtype=object).reshape(shape), rs(iters), rs(pos), rs(ori),
                    rs(inside), rs(near), method, rs(reachable))
