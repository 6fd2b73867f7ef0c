"""Every configuration that reaches a target (`ik_all`), and the self-motion of redundant arms.

Where an analytic solver fits the robot and target, its branches are exact and labelled
("elbow up", "wrist flip", …). Otherwise a batched multi-start search runs many random seeds
together and keeps the distinct answers. Either way every candidate is FK-checked, duplicates
are merged modulo 2π on revolute joints, each is marked within or outside the limits, and the
list is sorted by distance to the current configuration.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import SEEDS, SOLVES, count
from ..errors import InputError
from ..kinematics.chain import check_q
from ..kinematics.fk import fk
from ..kinematics.jacobian import jacobian
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .collide import mark, seat_of
from .frame import fit_target, judged, solver_problem
from .limits import random_seeds, wrap_into_limits
from .numeric import iterate
from .options import METHODS, Options
from .reach import reach_check
from .residual import errors
from .result import IKResult
from .target import Target
from .tolerance import default_tolerance
from .verdict import near_singular as _near_singular

SAME = 1e-6  # rad (or length unit): two solutions closer than this are one
ORIENTATION_TOL = 1e-6  # rad: a solution's orientation error must be below this (as `km.ik`'s default)


def _distance(robot: Robot, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Joint-space distance with revolute differences taken modulo 2π (not a helical joint's:
    its turn of 2π is another pose)."""
    d = a - b
    d = np.where(robot.wraps, (d + np.pi) % (2 * np.pi) - np.pi, d)
    return np.linalg.norm(d, axis=-1)


def _distinct(robot: Robot, qs: np.ndarray, tol: float) -> list[int]:
    keep: list[int] = []
    for i, q in enumerate(qs):
        if not keep or np.all(_distance(robot, qs[keep], q) > tol):
            keep.append(i)
    return keep


def _candidates(robot: Robot, t: Target, current: np.ndarray, seeds: int, rng, method: str):
    """(q (k, n), labels) from the analytic solver when one fits, else from multi-start."""
    try:
        from .analytic import analytic_solutions
    except ImportError:  # analytic solvers not installed in this build
        analytic_solutions = None
    found = analytic_solutions(robot, t.reshape(1), q_ref=current) if analytic_solutions else None
    if found is not None:
        q, valid, labels = found
        return q[0][valid[0]], [l for l, v in zip(labels, valid[0], strict=True) if v], "analytic"
    start = np.vstack([current, random_seeds(robot, seeds - 1, rng)])
    # Half the seeds iterate inside the limits (clipped after every step), half freely: free
    # iteration finds every branch, clipped iteration finds the in-limit members of a redundant
    # family that free iteration almost never lands on (a Braccio reaching a point).
    half = seeds // 2
    tol = default_tolerance(robot)
    targets = t.reshape(1)[np.zeros(seeds - half, int)]
    free = iterate(robot, targets, start[half:], Options(method=method, tol_position=tol, clip_limits=False))
    q = [wrap_into_limits(robot, free.q, current)]
    if half:
        clipped = iterate(robot, t.reshape(1)[np.zeros(half, int)], np.clip(start[:half], *robot.limits.T),
                          Options(method=method, tol_position=tol, clip_limits=True))
        q.insert(0, clipped.q)
    return np.vstack(q), [None] * seeds, method


@takes_robot
def ik_all(robot: Robot, target: Target | ArrayLike, current: ArrayLike | None = None, *,
           seeds: int = 200, method: str = "lm", seed: int | None = 0,
           max_redundant: int = 12, scene=None, colliding: str = "mark") -> list[IKResult]:
    """All distinct configurations reaching one target, nearest to `current` first.

    Each result has `success` True (the FK check passed), `within_limits` marked, and `branch`
    set when an analytic solver labelled it. Out-of-limit solutions are kept (a user may move a
    limit); an unreachable target gives an empty list — use `km.ik` for the reason in words.
    A redundant problem (fewer constraints than joints) has infinitely many solutions: a
    well-spread sample of `max_redundant` of them is returned; `self_motion` traces the family.
    scene: a `km.Scene` holding this robot once, or `scene.for_robot(name, others_q)`: each
    solution is checked; with colliding="mark" (default) one that collides has success False,
    its `collision` pair and a reason naming it; with colliding="drop" it is left out.

    >>> import kinematica as km, numpy as np
    >>> sols = km.ik_all(km.load("kuka-kr6-r900"), km.fk(km.load("kuka-kr6-r900"), [0.3, 0.2, -0.4, 0.5, 0.6, 0.7]))
    >>> len(sols) >= 2, all(s.success for s in sols)
    (True, True)
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)} (the closed form, where one fits the "
                         f"robot, is always used first), got {method!r}")
    seeds = count(seeds, "seeds", SEEDS)
    if colliding not in ("mark", "drop"):
        raise InputError(f"colliding must be 'mark' or 'drop', got {colliding!r}")
    seat = None if scene is None else seat_of(robot, scene)
    world = judged(robot, target)
    rs, t = solver_problem(robot, fit_target(robot, world))  # the solvers' frame; FK of robot judges
    if t.shape != ():
        raise InputError(f"ik_all takes one target; got a batch of shape {t.shape} (loop over it)")
    cur = robot.q_home if current is None else check_q(robot, current, "current")
    if cur.ndim != 1:
        raise InputError(f"current: expected shape ({robot.n},), got {cur.shape}")
    reachable, _, _ = reach_check(rs, t.reshape(1), default_tolerance(robot), robot)
    if not reachable[0]:
        return []
    q, labels, how = _candidates(rs, t, cur, seeds, np.random.default_rng(seed), method)
    if len(q) == 0:
        return []
    pos, ori = _world_errors(robot, world, q)
    good = (pos < default_tolerance(robot)) & (ori < ORIENTATION_TOL)
    q, labels = q[good], [l for l, g in zip(labels, good, strict=True) if g]
    order = np.argsort(_distance(robot, q, cur), kind="stable")
    q, labels = q[order], [labels[i] for i in order]
    keep = _distinct(robot, q, SAME * 100)
    if t.dof < robot.n:  # a redundant problem has a continuum: keep a well-spread sample
        keep = _sample(robot, q, keep, max_redundant)
    found = [_one(robot, world, rs, t, q[i], labels[i], how) for i in keep]
    if seat is None or not found:
        return found
    marked = [mark(r, seat) for r in found]
    return [r for r in marked if r.collision is None] if colliding == "drop" else marked


def _sample(robot: Robot, q: np.ndarray, keep: list[int], k: int) -> list[int]:
    """k of the rows `keep`, well spread: those within the joint limits first (what the arm can
    actually do), filled up with those outside only when fewer than k are inside."""
    inside = [i for i in keep if robot.within_limits(q[i])]
    outside = [i for i in keep if i not in set(inside)]
    chosen = [inside[j] for j in _spread(robot, q[inside], k)] if inside else []
    if len(chosen) < k and outside:
        chosen += [outside[j] for j in _spread(robot, q[outside], k - len(chosen))]
    return sorted(chosen)


def _spread(robot: Robot, q: np.ndarray, k: int) -> list[int]:
    """Farthest-point sample of k rows, starting from row 0 (the one nearest the current pose)."""
    chosen = [0]
    d = _distance(robot, q, q[0])
    while len(chosen) < min(k, len(q)):
        i = int(np.argmax(d))
        chosen.append(i)
        d = np.minimum(d, _distance(robot, q, q[i]))
    return sorted(chosen)


def _world_errors(robot: Robot, world: Target, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position and orientation errors (k,) of configurations q (k, n): FK of the robot as
    given (base and tool) against the world target (the verdict of `km.ik`)."""
    return errors(world.reshape(1)[np.zeros(len(q), int)], fk(robot, q))


def _one(robot: Robot, world: Target, rs: Robot, t: Target, q: np.ndarray, label, how: str) -> IKResult:
    pos, ori = _world_errors(robot, world, q[None])
    inside = bool(robot.within_limits(q))
    near = bool(_near_singular(rs, t.reshape(1), q[None])[0])
    reason = "exact (analytic)" if how == "analytic" else "converged"
    if not inside:
        reason += ", outside the joint limits"
    return IKResult(q=q, success=True, reason=reason, iterations=0, position_error=float(pos[0]),
                    orientation_error=float(ori[0]), within_limits=inside, near_singular=near, method=how,
                    reachable=True, branch=label)


@takes_robot
def self_motion(robot: Robot, target: Target | ArrayLike, q_start: ArrayLike, *, samples: int = 72,
                step: float = 0.1) -> np.ndarray:
    """Walk the self-motion manifold of a redundant problem (one free degree of freedom):
    step along the null space of the task Jacobian, then pull back onto the target with a few
    LM iterations. Returns configurations (k, n), k ≤ samples, the first q_start, each reaching
    the target (FK of the robot within `km.ik`'s default tolerances; checked, not assumed), its
    revolute joints turned by 2π into the limits where they fit (nearest q_start otherwise);
    the walk stops early when it closes its loop or cannot be pulled back.
    q_start must itself reach the target (ValueError otherwise: solve it first with `km.ik`).

    Paper 000's planar 3R to an (x, y) point and paper 001's four joints to a 3-D point are
    such problems: the family is a curve, traced here at `step` rad apart.
    """
    samples = count(samples, "samples", SOLVES)
    world = judged(robot, target)
    rs, t = solver_problem(robot, fit_target(robot, world))
    if t.shape != ():
        raise InputError(f"self_motion takes one target; got a batch of shape {t.shape}")
    q = check_q(robot, q_start, "q_start").astype(float)
    if q.shape != (robot.n,):
        raise InputError(f"q_start: expected shape ({robot.n},), got {q.shape}")
    free = robot.n - t.dof
    if free != 1:
        raise InputError(f"self_motion needs exactly one redundant degree of freedom; this problem has {free}")
    if not (np.isfinite(step) and step > 0):
        raise InputError(f"step must be a finite number > 0, got {step!r}")
    tol = default_tolerance(robot)
    pos, ori = _world_errors(robot, world, q[None])
    if not (pos[0] < tol and ori[0] < ORIENTATION_TOL):
        raise InputError(f"q_start does not reach the target (position error {pos[0]:.3g} {robot.length_unit}, "
                         f"orientation error {ori[0]:.3g} rad): the self-motion runs through solutions; "
                         f"solve first (km.ik) and start from its q")
    q = wrap_into_limits(robot, q, q)
    opts = Options(tol_position=tol, tol_orientation=ORIENTATION_TOL, clip_limits=False, max_iter=30)
    out, direction = [q.copy()], None
    for _ in range(samples - 1):
        J = jacobian(rs, q)[t.rows]
        v = np.linalg.svd(J)[2][-1]
        if direction is not None and v @ direction < 0:
            v = -v  # keep walking the same way along the curve
        direction = v
        st = iterate(rs, t.reshape(1), (q + step * v)[None], opts)
        if st.status[0] != 0:
            break
        q = wrap_into_limits(robot, st.q[0], out[0])  # sane values: 2π turns into the limits, near the start
        pos, ori = _world_errors(robot, world, q[None])
        if not (pos[0] < tol and ori[0] < ORIENTATION_TOL):
            break  # the FK check is the judge, not the solver's own residual
        if len(out) > 2 and _distance(robot, q[None], out[0][None])[0] < 0.5 * step:
            break  # back where we started: the family is a closed loop
        out.append(q.copy())
    return np.array(out)
