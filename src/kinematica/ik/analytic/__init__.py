"""Closed-form inverse kinematics: every branch at once, each one checked by forward kinematics.

  analytic_solutions(robot, target) → (q (N, k, n), valid (N, k), labels [k]) or None
  has_analytic(robot, target_kind)  → bool

Which solver fits is read from the robot's geometry (not its name):

  solver            robots                                       targets          branches
  planar            planar 2R / 3R link chains (paper 000)       (x, y) / (x,y,φ) 2 elbows
  geometric5        yaw + 3 parallel joints + roll (papers 002,   approach/pitch,  2 yaws × 2 elbows
                    003; arm-5dof, arm-5dof-geo, Braccio)         pose
  spherical wrist   6R, axes 4–6 meeting (KUKA KR6, Puma 560)    pose             2 × 2 × 2
  ur                6R, axes 2–4 parallel, 5 ∩ 6 (UR3/5/10)       pose             2 × 2 × 2

A position-only target on a 5-DOF arm leaves the pitch free, and a planar (x, y) target on a
3R arm leaves φ free: those are families, not finitely many answers, so there is no closed form
(None; `km.ik_all` samples them numerically).

Every candidate is wrapped to (−π, π], then by 2π into the joint limits where that is possible
(the rule of `ik.limits.wrap_into_limits`), and marked valid only if FK reproduces the target
(position to `tol` × the robot's size, orientation to `tol`: the Frobenius norm of R − R_target,
≈ √2 × the angle). Candidates outside the limits are kept (the caller marks them); an
unreachable branch keeps finite nearest-reach values with valid False. Targets are solved in
chunks of `CHUNK` so that the arrays of a chunk stay in cache.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ...errors import InputError
from ...kinematics.chain import check_q
from ...kinematics.fk import fk
from ...model.memo import per_robot
from ...model.robot import Robot
from ..target import Target, as_target
from . import geometric5, planar, spherical_wrist, ur, wrist
from .geometry import NotAnalytic, size
from .planar import three_link, two_link

TOL = 1e-9  # a branch is valid when its FK reproduces the target to this (see `reproduces`)

__all__ = ["analytic_solutions", "analytic_candidates", "has_analytic", "solver_name", "NotAnalytic", "CLOSED_FORMS", "helical_refusal",
           "two_link", "three_link", "planar", "geometric5", "spherical_wrist", "ur", "wrist"]

# the robots a closed form exists for, in words: the one sentence every "no analytic solver" message uses
CLOSED_FORMS = ("planar 2R/3R with the heading φ, yaw-pitch-pitch-pitch-roll 5-DOF arms, 6R arms with a "
                "spherical wrist and UR-type arms")
TWO_PI = 2 * np.pi
CHUNK = 1024  # targets solved together: the working set of a chunk stays in cache
_SOLVERS = {"planar": planar.solve, "geometric5": geometric5.solve,
            "spherical wrist": spherical_wrist.solve, "ur": ur.solve}


def _geometric5_kinds(robot: Robot) -> tuple[str, ...]:
    return ("pose", "approach") if geometric5.structure(robot).approach_ok else ("pose",)


_FITS = (("planar", planar.lengths, lambda robot: ("planar",)),
         ("geometric5", geometric5.structure, _geometric5_kinds),
         ("spherical wrist", spherical_wrist.structure, lambda robot: ("pose",)),
         ("ur", ur.structure, lambda robot: ("pose",)))


def helical_refusal(robot: Robot) -> str | None:
    """Why no closed form applies to a robot with a helical joint, or None when it has none."""
    hel = np.flatnonzero(robot.helical)
    if not hel.size:
        return None
    i = int(hel[0])
    return (f"joint {i + 1} ({robot.joint_names[i]}) of {robot.name!r} is helical (pitch "
            f"{robot.pitch[i]:g} {robot.length_unit}/rad): the closed-form solvers assume revolute "
            "and prismatic joints only; use a numeric method")


@per_robot
def _fit(robot: Robot) -> tuple[str | None, tuple[str, ...]]:
    """(solver name, target kinds it takes) for the robot, or (None, ()): the first solver
    whose structure check passes. None for a robot with a helical joint: each solver's
    geometry (a wrist centre, parallel axes) ignores the slide a pitch adds."""
    if robot.helical.any():
        return None, ()
    for name, structure, kinds in _FITS:
        try:
            structure(robot)
        except NotAnalytic:
            continue
        return name, kinds(robot)
    return None, ()


def solver_name(robot: Robot) -> str | None:
    """The analytic solver that fits the robot's geometry ("planar", "geometric5",
    "spherical wrist", "ur"), or None."""
    return _fit(robot)[0]


def has_analytic(robot: Robot, target_kind: str | Target) -> bool:
    """Whether `analytic_solutions` answers targets of this kind ("pose", "position",
    "approach", "planar", or a Target) on this robot. A planar 3R needs the heading φ: for the
    bare kind "planar" the answer is about (x, y, φ) targets; pass the Target to be exact.

    >>> import kinematica as km
    >>> has_analytic(km.load("puma560"), "pose"), has_analytic(km.load("arm-5dof-geo"), "position")
    (True, False)
    """
    name, kinds = _fit(robot)
    kind = target_kind.kind if isinstance(target_kind, Target) else target_kind
    if name is None or kind not in kinds:
        return False
    if name == "planar" and isinstance(target_kind, Target):
        return (robot.n == 3) == (target_kind.phi is not None)
    return True


def analytic_solutions(robot: Robot, target: Target | ArrayLike, q_ref: ArrayLike | None = None,
                       tol: float = TOL) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """Every closed-form branch for a stack of N targets, or None when no solver fits.

    target: a Target (any batch shape, flattened to N; a single target gives N = 1) or a pose
    (..., 4, 4). q_ref: (n,) or (N, n), default the robot's home — the value kept by a joint
    that a singular target leaves free (θ4 at a wrist singularity, θ1 over axis 1, the roll of
    an approach target).
    Returns q (N, k, n), valid (N, k) — FK reproduces the target — and k branch labels.

    >>> import kinematica as km
    >>> kuka = km.load("kuka-kr6-r900")
    >>> q, valid, labels = analytic_solutions(kuka, km.fk(kuka, [0.3, 0.2, -0.4, 0.5, 0.6, 0.7]))
    >>> q.shape, int(valid.sum()), labels[0]
    ((1, 8, 6), 8, 'shoulder front / elbow up / wrist no flip')
    """
    return _run(robot, target, q_ref, tol)


def analytic_candidates(robot: Robot, target: Target | ArrayLike, q_ref: ArrayLike | None = None
                        ) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """The same branches before the FK check: q (N, k, n), whether the solver's own geometry
    says the branch is reachable (N, k), labels. Branches it calls reachable that then fail the
    FK check are the ones `analytic_solutions` drops (none, for targets an arm can reach)."""
    return _run(robot, target, q_ref, None)


def _run(robot: Robot, target, q_ref, tol: float | None):
    t = as_target(target)
    name = solver_name(robot)
    if name is None or not has_analytic(robot, t):
        return None
    t = t if t.p.ndim == 2 else t.reshape(-1)
    N, solve = t.p.shape[0], _SOLVERS[name]
    ref = robot.q_home[None] if q_ref is None else check_q(robot, q_ref, "q_ref").reshape(-1, robot.n)
    if len(ref) not in (1, N):
        raise InputError(f"q_ref: expected ({robot.n},) or ({N}, {robot.n}), got {len(ref)} rows")
    if N <= CHUNK:
        return _chunk(solve, robot, t, ref, tol)
    parts = [_chunk(solve, robot, t[i:i + CHUNK], ref if len(ref) == 1 else ref[i:i + CHUNK], tol)
             for i in range(0, N, CHUNK)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), parts[0][2]


def _chunk(solve, robot: Robot, t: Target, ref: np.ndarray, tol: float | None):
    # A far finite target (1e308, as a fuzzer sends) overflows the geometry and the FK check's
    # squares: its branches come out non-finite or fail the check, and none is valid.
    with np.errstate(over="ignore", invalid="ignore"):
        q, reach, labels = solve(robot, t, ref)
        q, lost = finite_branches(q, ref)
        q = _wrap(robot, q)
        return q, (reach if tol is None else _fk_check(robot, t, q, tol)) & ~lost, labels


def finite_branches(q: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q (N, k, n) with every non-finite branch (a far finite target overflows the geometry)
    replaced by the reference ref ((1, n) or (N, n)), so FK can run on it, and which were
    replaced (N, k): those are no branch at all."""
    lost = np.asarray(~np.isfinite(q).all(axis=-1))  # an array, also of a single branch
    if lost.any():
        q = np.where(lost[..., None], np.broadcast_to(ref[:, None, :], q.shape), q)
    return q, lost


@per_robot
def _limited(robot: Robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The joints whose limits cut (−π, π] — narrow ones (range ≤ 2π) and wide ones — the
    middle of each range as `wrap_into_limits` takes it, and the wide ones' limits (with a
    finite stand-in for ±inf, for arithmetic)."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    cut = (lo > -np.pi) | (hi < np.pi)
    narrow, wide = np.flatnonzero(cut & (hi - lo <= TWO_PI)), np.flatnonzero(cut & (hi - lo > TWO_PI))
    mid = (np.where(np.isfinite(lo), lo, -np.pi) + np.where(np.isfinite(hi), hi, np.pi)) / 2
    return narrow, mid[narrow], wide, np.stack([lo[wide], hi[wide]]), mid[wide]


def _wrap(robot: Robot, q: np.ndarray) -> np.ndarray:
    """q in place: to (−π, π], then by 2π into the limits where that is possible. This is the
    rule of `ik.limits.wrap_into_limits` (no reference; the tests hold the two equal), in fewer
    NumPy calls. A range of at most 2π holds at most one 2π-shift of a value, the one nearest
    its middle: that shift is the answer, inside or (when none fits) nearest. A wider range
    that still cuts (−π, π]: below it, the first shift up that reaches it; above it, the first
    shift down; when that overshoots, the shift nearest the middle (left outside)."""
    q -= TWO_PI * np.rint(q * (1 / TWO_PI))
    q += TWO_PI * (q <= -np.pi)
    narrow, mid, wide, (lo, hi), mid_w = _limited(robot)
    if narrow.size:
        x = q[..., narrow]
        q[..., narrow] = x - TWO_PI * np.rint((x - mid) * (1 / TWO_PI))
    if wide.size:
        x = q[..., wide]
        below, above = x < lo, x > hi
        lo_f, hi_f = np.maximum(lo, -1e9), np.minimum(hi, 1e9)
        up, down = np.ceil((lo_f - x) * (1 / TWO_PI)), np.ceil((x - hi_f) * (1 / TWO_PI))
        cand = x + TWO_PI * (up * below - down * above)
        inside = (cand >= lo) & (cand <= hi)
        q[..., wide] = np.where(inside, cand, x - TWO_PI * np.rint((x - mid_w) * (1 / TWO_PI)))
    return q


def _fk_check(robot: Robot, t: Target, q: np.ndarray, tol: float) -> np.ndarray:
    """valid (N, k): FK of every candidate reproduces its target."""
    N, k, n = q.shape
    return reproduces(robot, t, fk(robot, q.reshape(N * k, n)).reshape(N, k, 4, 4), tol)


def reproduces(robot: Robot, t: Target, T: np.ndarray, tol: float = TOL) -> np.ndarray:
    """(N, k): whether each pose T (N, k, 4, 4) of a target's candidates reproduces the target
    t (N,): position to tol times the robot's size, rotation entries (or the approach axis,
    or the heading) to tol."""
    rows = 2 if t.kind == "planar" else 3
    ok = _squares(T[..., :rows, 3] - t.p[:, None, :rows]) <= (tol * size(robot)) ** 2
    if t.kind == "pose":
        ok &= _squares((T[..., :3, :3] - t.rotation[:, None]).reshape(T.shape[:2] + (9,))) <= tol ** 2
    elif t.kind == "approach":
        ok &= _squares(T[..., :3, 2] - t.approach_axis[:, None]) <= tol ** 2
    elif t.phi is not None:
        dphi = np.arctan2(T[..., 1, 0], T[..., 0, 0]) - t.phi[:, None]
        ok &= np.abs((dphi + np.pi) % (2 * np.pi) - np.pi) <= tol
    return ok


def _squares(d: np.ndarray) -> np.ndarray:
    """Sum of squares over the last axis."""
    return np.add.reduce(d * d, axis=-1)
