"""Time-optimal timing of a joint path under velocity, acceleration and torque limits (TOPP-RA,
through the `toppra` package: Pham & Pham, "A new approach to time-optimal path
parameterization based on reachability analysis", IEEE T-RO 2018).

The path is a geometric curve q(s) — waypoints, or the samples of a `Trajectory`, joined by a
C² cubic spline over their joint-space chord length. TOPP-RA finds the
fastest ṡ(s) with |q̇_j| ≤ v_j, |q̈_j| ≤ a_j and, given torque limits, |τ_j| ≤ τ_max,j with
τ = RNE(q, q̇, q̈) (this package's own `rne`, friction included). It enforces the limits at its
grid points; between them q̈ = q′s̈ + q″ṡ² can overshoot by a little, so the result is sampled
and checked at every sample. Where a limit is passed by more than `TOLERANCE`:

- under velocity and acceleration limits alone, the motion is slowed uniformly: q(t/f) runs at
  q̇/f and q̈/f², so f = max(v overshoot, √(a overshoot)) keeps both, and costs the duration that
  factor (the overshoot is a spline artefact that does not shrink with the limits: tightening them
  and solving again passed again six times over on 1 plan in 250 on kuka-table);
- with torque limits, which slowing does not scale (gravity stays), the limits are tightened by
  the overshoot and the problem solved again.

The returned motion keeps every limit at every sample, or a `TrajectoryError` says why it could not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import SAMPLES, count, sample_count
from ..extras import need
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .value import Trajectory, TrajectoryError, for_robot

if TYPE_CHECKING:
    from toppra.parametrizer import ParametrizeConstAccel

TOLERANCE = 1e-6  # relative: a limit counts as kept within this
_TRIES = 6  # re-solves with tightened limits (slowings, without torque limits) before giving up
DENSER = 16  # the curve's points per dt where a slowing is measured (`_peaks`)
TIGHTEN = 1e-3  # relative: a limit passed is tightened by at least this much before the next solve


@overload
def _limit(x: ArrayLike, n: int, what: str, optional: Literal[False] = False) -> np.ndarray: ...
@overload
def _limit(x: ArrayLike | None, n: int, what: str, optional: bool) -> np.ndarray | None: ...
def _limit(x: ArrayLike | None, n: int, what: str, optional: bool = False) -> np.ndarray | None:
    """x per joint (one for all broadcast): None only if it is `optional` and not given."""
    if x is None and optional:
        return None
    a = np.asarray(x, dtype=float)  # (None, not optional: NaN, refused below)
    v = np.broadcast_to(a, (n,)) if a.ndim == 0 else a
    if v.shape != (n,) or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise TrajectoryError(f"{what}: expected one positive finite limit per joint ({n}), got {x!r}")
    return v.copy()


def _toppra():
    toppra = need("toppra", "plan", "time_optimal")
    toppra.setup_logging("ERROR")  # its INFO lines, and its warning beside our own error, would fill a console
    return toppra


def _path(n: int, path):
    """The toppra path and its parameter range from a Trajectory or waypoints (k, n)."""
    ta = _toppra()

    if isinstance(path, Trajectory):
        if path.n != n:
            raise TrajectoryError(f"path: a trajectory of {path.n} joints for a robot of {n}")
        # its samples, by joint-space arc length: its own clock stops at rest (q′ = 0 there),
        # which TOPP-RA cannot time
        Q = path.q[np.concatenate([[True], np.linalg.norm(np.diff(path.q, axis=0), axis=1) > 0])]
    else:
        Q = np.asarray(path, dtype=float)
        if Q.ndim != 2 or Q.shape[1] != n or len(Q) < 2 or not np.all(np.isfinite(Q)):
            raise TrajectoryError(f"path: expected finite waypoints of shape (k ≥ 2, {n}), got {Q.shape}")
    chord = np.linalg.norm(np.diff(Q, axis=0), axis=1)
    if len(Q) < 2 or np.any(chord == 0):
        raise TrajectoryError("path: two consecutive waypoints are equal (or the path does not move)")
    s = np.concatenate([[0.0], np.cumsum(chord)])
    return ta.SplineInterpolator(s, Q), float(s[-1])


def _solve(path, end, v, a, tau, torque_of, grid) -> ParametrizeConstAccel | None:
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    from toppra.parametrizer import ParametrizeConstAccel

    cons = [constraint.JointVelocityConstraint(np.stack([-v, v], axis=1)),
            constraint.JointAccelerationConstraint(np.stack([-a, a], axis=1))]
    if tau is not None:
        cons.append(constraint.JointTorqueConstraint(torque_of, np.stack([-tau, tau], axis=1), np.zeros(len(v))))
    inst = algo.TOPPRA(cons, path, gridpoints=np.linspace(0.0, end, grid), parametrizer="ParametrizeConstAccel")
    jt = inst.compute_trajectory(0.0, 0.0)
    # toppra types its answer as any geometric path; the parametrizer asked for above makes it one
    # of this class, which has the `duration` read from it
    if jt is not None and not isinstance(jt, ParametrizeConstAccel):
        raise TypeError(f"toppra answered with a {type(jt).__name__}, not the ParametrizeConstAccel asked for")
    return jt


def _tightening(over: np.ndarray) -> np.ndarray:
    """What each limit is divided by after a solve that passed it by the factor `over`: the
    overshoot and a tenth more, and at least TIGHTEN for a limit really passed — a tiny overshoot
    comes from the spline between grid points, which does not shrink with the limit, so tightening
    by it alone can pass again by the same amount six times over (2 of 120 plans on kuka-table)."""
    f = np.maximum(over, 1.0) ** 1.1
    return np.where(over > 1 + TOLERANCE, np.maximum(f, 1 + TIGHTEN), f)


def timed(path: Trajectory | ArrayLike, v: np.ndarray, a: np.ndarray, *, dt: float = 0.01, grid: int = 400,
          tau: np.ndarray | None = None, torque_of=None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """TOPP-RA's samples (t, q, q̇, q̈, τ or None) of the fastest rest-to-rest motion along a path
    of len(v) joints with |q̇| ≤ v, |q̈| ≤ a (and |τ| ≤ tau, τ = torque_of(q, q̇, q̈)), every
    limit kept at every sample (module text) — for one robot (`time_optimal`) or several moving
    as one (a plan of a group)."""
    n = len(v)
    grid = count(grid, "grid", SAMPLES, minimum=3)
    if not dt > 0:
        raise TrajectoryError(f"dt: must be positive, got {dt!r}")
    toppra_path, end = _path(n, path)
    if tau is None:
        jt = _solve(toppra_path, end, v, a, None, None, grid)
        if jt is None:
            raise TrajectoryError("no timing of this path keeps the limits")
        return _slowed(jt, toppra_path.ss_waypoints, v, a, dt)
    if torque_of is None:
        raise TrajectoryError("timed: torque limits need torque_of(q, qd, qdd), the torques of a state")
    lim_v, lim_a, lim_t = v.copy(), a.copy(), tau.copy()
    worst = np.inf  # (each try sets it)
    for _ in range(_TRIES):
        jt = _solve(toppra_path, end, lim_v, lim_a, lim_t, torque_of, grid)
        if jt is None:
            raise TrajectoryError("no timing of this path keeps the limits (the torque limits may be below "
                                  "what holding the arm against gravity needs)")
        t, q, qd, qdd = _sampled(jt, 1.0, dt)
        over_v = np.abs(qd).max(axis=0) / v
        over_a = np.abs(qdd).max(axis=0) / a
        tq = torque_of(q, qd, qdd)
        over_t = np.abs(tq).max(axis=0) / tau
        worst = max(over_v.max(), over_a.max(), over_t.max())
        if worst <= 1 + TOLERANCE:
            return t, q, qd, qdd, tq
        # tighten each limit by its own overshoot (and a little more) and solve again
        lim_v = lim_v / _tightening(over_v)
        lim_a = lim_a / _tightening(over_a)
        lim_t = lim_t / _tightening(over_t)
    raise TrajectoryError(f"TOPP-RA's timing passed a limit by {100 * (worst - 1):.3g} % between its grid points "
                          f"after {_TRIES} tightened solves: use a finer grid")


def _sampled(jt, f: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Samples (t, q, q̇, q̈) every dt s, the last at the end, of TOPP-RA's motion `jt` slowed by
    f ≥ 1: q(t/f), whose velocities are q̇/f and accelerations q̈/f²."""
    duration = f * jt.duration
    k = sample_count(duration, dt, "duration / dt")
    t = np.append(np.arange(k - 1) * dt, duration) if k > 1 else np.array([0.0, duration])
    s = t / f
    return t, jt(s), jt(s, 1) / f, jt(s, 2) / f**2


def _peaks(jt, knots: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """max |q̇| and max |q̈| per joint of TOPP-RA's motion `jt` along a spline with `knots` (path
    parameter s): at DENSER points per dt, and on both sides of each point where q̈ is not
    smooth — TOPP-RA's grid points, where its constant s̈ jumps, and the knots, where q‴(s) does
    (q̈ = q″ṡ² + q′s̈ has a kink there, its peak between any two samples)."""
    t = np.linspace(0.0, jt.duration, sample_count(jt.duration * DENSER, dt, "duration / dt"))
    grid = getattr(jt, "_ts", None)  # toppra's ParametrizeConstAccel: grid times, s, ṡ and s̈ after each
    if grid is not None:
        grid = np.asarray(grid, float)
        ss, sd, us = (np.asarray(x, float) for x in (jt._ss, jt._velocities, jt._us))
        k = np.clip(np.searchsorted(ss, knots, side="right") - 1, 0, len(us) - 1)
        d = knots - ss[k]  # s = ss + ṡ τ + s̈ τ²/2 solved for τ ≥ 0, in the form that keeps s̈ → 0
        root = sd[k] + np.sqrt(np.maximum(sd[k] ** 2 + 2 * us[k] * d, 0.0))
        tau = np.divide(2 * d, root, out=np.zeros_like(d), where=root > 0)
        cusp = np.concatenate([grid, grid[k] + tau])
        eps = 1e-9 * jt.duration
        t = np.concatenate([t, np.clip(np.concatenate([cusp - eps, cusp + eps]), 0.0, jt.duration)])
    return np.abs(jt(t, 1)).max(axis=0), np.abs(jt(t, 2)).max(axis=0)


def _slowed(jt, knots: np.ndarray, v: np.ndarray, a: np.ndarray, dt: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, None]:
    """`jt` sampled, slowed uniformly just enough that every sample keeps |q̇| ≤ v and |q̈| ≤ a
    (module text). The overshoot is a peak of q̈ where it jumps or kinks between two samples,
    which the samples of a slower clock fall ever nearer to (slowing by the samples' overshoot
    alone crept up on it for six rounds): so the slowing is measured on the whole curve
    (`_peaks`), then checked at the samples (and slowed again if need be)."""
    f, worst = 1.0, np.inf
    for i in range(_TRIES):
        t, q, qd, qdd = _sampled(jt, f, dt)
        over_v, over_a = float((np.abs(qd) / v).max()), float((np.abs(qdd) / a).max())
        worst = max(over_v, over_a)
        if worst <= 1 + TOLERANCE:
            return t, q, qd, qdd, None
        if i == 0:
            peak_v, peak_a = _peaks(jt, knots, dt)
            over_v, over_a = max(over_v, float((peak_v / v).max())), max(over_a, float((peak_a / a).max()))
        f *= max(over_v, np.sqrt(over_a), 1.0)
    raise TrajectoryError(f"TOPP-RA's timing still passed a limit by {100 * (worst - 1):.3g} % after slowing it "
                          f"{_TRIES} times: use a finer grid")


@takes_robot
def time_optimal(robot: Robot, path: Trajectory | ArrayLike, vmax: ArrayLike, amax: ArrayLike, *,
                 torque: ArrayLike | None = None, dt: float = 0.01, grid: int = 400) -> Trajectory:
    """The fastest motion along `path` from rest to rest with |q̇| ≤ vmax, |q̈| ≤ amax and, if
    given, |τ| ≤ torque (N·m or N, per joint), sampled every `dt` s (the last sample at the end).
    Limits per joint or one for all, in rad/s, rad/s² (length unit for prismatic joints).

    >>> import kinematica as km, numpy as np
    >>> r = km.load("puma560")
    >>> tr = km.trajectory.time_optimal(r, [np.zeros(6), np.full(6, 0.5)], 1.0, 2.0)
    >>> round(tr.duration, 3), bool(np.all(np.abs(tr.qd) <= 1.0 + 1e-6))  # the triangular profile's 2·√(d/a)
    (1.0, True)
    """
    v, a = _limit(vmax, robot.n, "vmax"), _limit(amax, robot.n, "amax")
    tau = _limit(torque, robot.n, "torque", optional=True)

    def torque_of(q, qd, qdd):
        from ..dynamics.rne import rne

        return rne(robot, q, qd, qdd)

    t, q, qd, qdd, tq = timed(path, v, a, dt=dt, grid=grid, tau=tau, torque_of=torque_of)
    out = for_robot(robot, t, q, qd, qdd, meta={"timing": "time-optimal (TOPP-RA)", "vmax": v.tolist(),
                                                 "amax": a.tolist(), "torque": None if tau is None else tau.tolist()})
    return out if tq is None else out.with_torques(tq)


__all__ = ["time_optimal", "timed"]
