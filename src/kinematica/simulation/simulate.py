"""Simulation: integrate q̈ = M⁻¹(τ − C q̇ − g − τ_f) with SciPy's `solve_ivp` solvers, stepped
here so that the work is bounded, reported and cancellable, under a torque function or a
controller, and return the motion as a `Trajectory` (t, q, q̇, q̈, τ).

Controllers are torque functions τ(t, q, q̇):
  pd_gravity       τ = Kp (q_d − q) − Kd q̇ + g(q)                    (regulation to a pose)
  computed_torque  τ = M(q) (q̈_d + Kd (q̇_d − q̇) + Kp (q_d − q)) + C q̇ + g + τ_f   (tracking)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import EVALUATIONS, count, sample_count
from ..dynamics import (
    GRAVITY,
    energy,
    forward_dynamics,
    gravity_torques,
    length_scale,
    mass_matrix,
    rne,
)
from ..errors import InputError, KinematicaError
from ..kinematics.chain import check_q
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..trajectory.value import Trajectory, for_robot

TorqueFn = Callable[[float, np.ndarray, np.ndarray], np.ndarray]
Progress = Callable[[float, int], "bool | None"]
"""progress(t, evaluations): called after every integrator step; False stops the simulation."""

METHODS = ("LSODA", "RK45", "RK23", "DOP853", "Radau", "BDF")  # scipy.integrate's classes
MAX_EVALUATIONS = 100_000
"""The default cap on evaluations of the dynamics in one simulation: ~20 s on a 2-core machine
for a 6-joint arm; an arm swinging freely for 1 s takes ~750 at rtol 1e-8."""


class SimulationStopped(KinematicaError, RuntimeError):
    """The integration stopped before the end (the evaluation cap, a failed step, or cancelled):
    the message says where and why; `t` is the time reached and `trajectory` the motion up to
    the last sample before it."""

    def __init__(self, message: str, t: float, trajectory: Trajectory) -> None:
        super().__init__(message)
        self.t = t
        self.trajectory = trajectory


def _gains(robot: Robot, k: ArrayLike, what: str) -> np.ndarray:
    k = np.broadcast_to(np.asarray(k, dtype=float), (robot.n,))
    if not np.all(np.isfinite(k)) or np.any(k < 0):
        raise InputError(f"{what}: gains must be finite and >= 0")
    return k


@takes_robot
def pd_gravity(robot: Robot, q_target: ArrayLike, kp: ArrayLike | None = None, kd: ArrayLike | None = None,
               *, bandwidth: float = 2.0, damping: float = 0.7, gravity: ArrayLike = GRAVITY) -> TorqueFn:
    """Joint PD with gravity compensation, regulating to q_target:
    τ = Kp (q_d − q) − Kd q̇ + g(q), errors and rates in SI.

    Without gains, each joint gets the response of a second-order system of `bandwidth` Hz and
    damping ratio `damping` about its own inertia at the target: Kp = ω² M_ii, Kd = 2ζω M_ii,
    ω = 2π·bandwidth. Fixed gains (e.g. 100 and 20) make a light arm stiff enough to stall any
    integrator, and a heavy one sluggish.
    """
    qt = check_q(robot, q_target, "q_target")
    si = np.where(robot.revolute, 1.0, length_scale(robot))
    if kp is None or kd is None:
        w = 2 * np.pi * bandwidth
        Mii = np.diagonal(mass_matrix(robot, qt))
        kp = w * w * Mii if kp is None else kp
        kd = 2 * damping * w * Mii if kd is None else kd
    Kp = _gains(robot, kp, "kp")
    Kd = _gains(robot, kd, "kd")
    return lambda t, q, qd: Kp * (qt - q) * si - Kd * qd * si + gravity_torques(robot, q, gravity)


@takes_robot
def computed_torque(robot: Robot, reference: Trajectory, kp: ArrayLike = 100.0, kd: ArrayLike = 20.0,
                    gravity: ArrayLike = GRAVITY) -> TorqueFn:
    """Computed-torque (inverse dynamics) control following `reference`; between samples the
    reference is interpolated (cubic Hermite in q, linear in q̈)."""
    if reference.n != robot.n:
        raise InputError(f"reference has {reference.n} joints, the robot {robot.n}")
    Kp, Kd = _gains(robot, kp, "kp"), _gains(robot, kd, "kd")
    def tau(t, q, qd):
        ref = reference.resample([min(max(t, reference.t[0]), reference.t[-1])])
        qdd = ref.qdd[0] + Kd * (ref.qd[0] - qd) + Kp * (ref.q[0] - q)
        return rne(robot, q, qd, qdd, gravity=gravity)
    return tau


@takes_robot
def simulate(robot: Robot, duration: float, q0: ArrayLike, qd0: ArrayLike | None = None, *,
             torque: TorqueFn | ArrayLike | None = None, dt: float = 0.01, gravity: ArrayLike = GRAVITY,
             rtol: float = 1e-8, atol: float = 1e-10, method: str = "LSODA",
             max_evaluations: int = MAX_EVALUATIONS, progress: Progress | None = None) -> Trajectory:
    """Integrate the robot's motion for `duration` seconds from (q0, qd0).

    torque: None (unactuated), a constant (n,) vector, or a function τ(t, q, q̇) such as
    `pd_gravity(...)` or `computed_torque(...)`. Output sampled every `dt` seconds, with q̈ and
    the applied τ at each sample; `meta` records the solver, its evaluations and the energy at
    both ends. method: one of `METHODS` (SciPy's `solve_ivp` solvers); LSODA switches to a stiff
    method by itself when high controller gains call for one (use "DOP853" for tight energy
    conservation).

    The work is bounded and can be stopped: after `max_evaluations` evaluations of the dynamics
    (a motion too fast or too stiff for the tolerances, e.g. a constant torque spinning a wrist
    up to 10⁶ rad/s) the integration stops with `SimulationStopped`, which says where and why
    and carries the motion up to there (looser rtol/atol also take fewer evaluations).
    `progress(t, evaluations)` is called after every step; returning False stops it the same
    way (a KeyboardInterrupt also ends it, between two evaluations).

    >>> import kinematica as km, numpy as np
    >>> r = km.load("arm-5dof")
    >>> sim = km.simulate(r, 0.5, np.zeros(5), torque=km.pd_gravity(r, np.zeros(5)))
    >>> float(np.abs(sim.q).max()) < 1e-9  # held still
    True
    """
    q0 = check_q(robot, q0, "q0")
    qd0 = np.zeros(robot.n) if qd0 is None else check_q(robot, qd0, "qd0")
    if q0.ndim != 1 or qd0.ndim != 1:
        raise InputError("simulate takes one initial state: q0 and qd0 of shape (n,)")
    if not (np.isfinite(duration) and duration > 0) or not (np.isfinite(dt) and 0 < dt <= duration):
        raise InputError(f"duration and dt must be positive with dt <= duration, got {duration}, {dt}")
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    samples = sample_count(duration, dt, f"duration / dt = {duration:g} s / {dt:g} s")
    max_evaluations = count(max_evaluations, "max_evaluations", EVALUATIONS)
    tau_fn = _torque_function(robot, torque)
    n = robot.n
    evaluations = 0

    def f(t, y):
        nonlocal evaluations
        evaluations += 1
        q, qd = y[:n], y[n:]
        return np.concatenate([qd, forward_dynamics(robot, q, qd, tau_fn(t, q, qd), gravity=gravity)])

    times = np.linspace(0.0, duration, samples)
    import scipy.integrate  # here: its import is a third of a second of start-up

    solver = getattr(scipy.integrate, method)(f, 0.0, np.concatenate([q0, qd0]), duration, rtol=rtol, atol=atol)
    ys, stop = _march(solver, times, lambda: evaluations, max_evaluations, progress)
    k = len(ys)
    sim = _trajectory(robot, times[:k], ys, tau_fn, gravity, method, evaluations)
    if stop is not None:
        raise SimulationStopped(_stop_message(robot, stop, solver, duration, evaluations, max_evaluations),
                                float(solver.t), sim)
    return sim


def _march(solver, times: np.ndarray, evaluations: Callable[[], int], max_evaluations: int,
           progress: Progress | None) -> tuple[np.ndarray, str | None]:
    """Step `solver` to its end, sampling its dense output at `times`: (states at the times
    reached, None), or the states so far and why it stopped ("failed: …", "max_evaluations",
    "cancelled")."""
    ys = np.empty((len(times), solver.y.size))
    ys[0], k = solver.y, 1
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            return ys[:k], f"failed: {message}"
        j = int(np.searchsorted(times, solver.t, side="right"))
        if j > k:
            ys[k:j] = solver.dense_output()(times[k:j]).T
            k = j
        if solver.status == "running" and evaluations() >= max_evaluations:
            return ys[:k], "max_evaluations"
        if progress is not None and progress(float(solver.t), evaluations()) is False:
            return ys[:k], "cancelled"
    return ys[:k], None


def _trajectory(robot: Robot, t: np.ndarray, ys: np.ndarray, tau_fn: TorqueFn, gravity, method: str,
                evaluations: int) -> Trajectory:
    """The sampled motion with q̈, the applied τ and the energy at both ends."""
    n = robot.n
    q, qd = ys[:, :n], ys[:, n:]
    tau = np.array([tau_fn(ti, a, b) for ti, a, b in zip(t, q, qd, strict=True)])
    qdd = forward_dynamics(robot, q, qd, tau, gravity=gravity)
    E = energy(robot, q, qd, gravity)
    meta = {"solver": method, "evaluations": int(evaluations), "energy_start": float(E[0]),
            "energy_end": float(E[-1])}
    return for_robot(robot, t, q, qd, qdd, tau=tau, meta=meta)


def _stop_message(robot: Robot, stop: str, solver, duration: float, evaluations: int,
                  max_evaluations: int) -> str:
    """Where and why the integration stopped, with the fastest joint as the likely cause."""
    where = f"stopped at t = {solver.t:.4g} s of {duration:g} s after {evaluations:,} evaluations of the dynamics"
    qd = solver.y[robot.n:]
    j = int(np.argmax(np.abs(qd)))
    unit = "rad/s" if robot.revolute[j] else f"{robot.length_unit}/s"
    speed = f"joint {robot.joint_names[j]} moves at {abs(qd[j]):.3g} {unit}"
    if stop == "cancelled":
        return f"{where}: cancelled"
    if stop == "max_evaluations":
        return (f"{where} (max_evaluations = {max_evaluations:,}): the motion is too fast or too stiff "
                f"for the tolerances ({speed}); check the torques, shorten the duration or raise "
                "max_evaluations")
    return f"{where}: the integrator {stop} ({speed})"


def _torque_function(robot: Robot, torque: TorqueFn | ArrayLike | None) -> TorqueFn:
    if torque is None:
        zero = np.zeros(robot.n)
        return lambda t, q, qd: zero
    if callable(torque):
        return torque
    const = check_q(robot, torque, "torque")
    if const.ndim != 1:
        raise InputError(f"torque: a constant torque has shape ({robot.n},)")
    return lambda t, q, qd: const
