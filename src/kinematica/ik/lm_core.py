"""Levenberg–Marquardt in the compiled core (`kinematica._core.Solver`, C++: src/core/lm.cpp,
residual.cpp): seed, solve and verdict of one target in one call, and a batch as that code
looped (over threads for a large one), for every kind of target — pose, position, approach,
planar, with weights.

The rules are `single.solve_one`'s, which stays as the reference the tests hold the core to
(and as the loop that records a `history`):

  residual      e(q), J_e(q) of the target's kind (`residual.residual`), E = ½‖e‖²
  damped step   Δq = (JᵀJ + λI)⁻¹ Jᵀe (or Jᵀ(JJᵀ + λI)⁻¹e), λ floored at 1e-12‖J‖²_F
  one target    the seed (the closed form's branch nearest q0, where the call iterates freely
                and the arm has one), then up to `restarts` random seeds uniform in the limits
                until an attempt converges inside them; a solution just outside is polished
  verdict       a fresh FK of q: position error ‖p_d − p‖, orientation error θ = ∠(R_d Rᵀ), the
                limits, and σ_min/σ_max < 1e-3 cleared by tr G·‖L⁻¹‖²_F < 10⁶ (G = L Lᵀ the
                smaller Gram matrix of J) or else decided by the SVD here

One answer: the restarts draw from the core's generator (xoshiro256**), seeded per target from
the call's `seed` (`core_seed`), so a target's q is the same bit for bit in a single call, a
batch of one, any batch and any number of threads.

>>> import kinematica as km, numpy as np
>>> r = km.load("puma560")
>>> T = km.fk(r, [0.1, -0.5, 0.3, 0.2, 0.4, 0.1])
>>> bool(km.ik(r, T).success)
True
"""

from __future__ import annotations

import secrets

import numpy as np

from ..kinematics.cache import cache_of
from ..kinematics.chain import end_single
from ..kinematics.handle import chain_handle
from ..model.memo import per_robot
from ..model.robot import LIMIT_TOL, Robot
from .closed_pack import TARGET_KINDS as KINDS
from .closed_pack import closed_form
from .goals import goals
from .limits import MARGIN, polish_margin
from .options import Options, Settings
from .restarts import HARD, NEAR, NO_PROGRESS, RESTART_ITER, modes
from .target import Target
from .verdict import NEAR_SINGULAR

_MASK64 = (1 << 64) - 1
_ALL_ROWS = np.arange(6)


def kernel_settings(opts: Options, scale: float, cap: int | None = None, margin: float = MARGIN) -> np.ndarray:
    """The solver's settings in the core's order (src/core/lm.hpp `Settings`); cap: the first
    attempt's iteration cap (default opts.max_iter); margin: `limits.polish_margin`."""
    o = opts
    return np.array([o.max_iter if cap is None else cap, o.eps_step ** 2, o.lambda0, o.lambda_down, o.lambda_up,
                     o.chan_factor, o.tol_position, o.tol_orientation, NEAR * scale, NEAR, margin, LIMIT_TOL,
                     NO_PROGRESS, RESTART_ITER, HARD], dtype=float)


@per_robot
def bounds(robot: Robot) -> np.ndarray:
    """(4, n): the limits and the range of random seeds (±π for an unlimited revolute joint, ±1
    length unit for an unlimited prismatic one: `limits.random_seeds`)."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    span = np.where(robot.revolute, np.pi, 1.0)
    return np.stack([lo, hi, np.where(np.isfinite(lo), lo, -span), np.where(np.isfinite(hi), hi, span)])


def solver(robot: Robot, opts: Options, scale: float, enforce: bool, seeded: bool, kind: str = "pose",
           phi: bool = False, weights: np.ndarray | None = None):
    """The core's solver for one kind of target on the solver's robot, with these options: the
    first attempt's modes (`restarts.modes`), the limits enforced or not, and whether to seed from
    the closed form (taken only where the arm has one that takes this kind of target)."""
    clip, adaptive = (bool(x) for x in modes(np.array(0), opts))
    dof = {"pose": 6, "position": 3, "approach": 5, "planar": 2 + phi}[kind]
    settings = kernel_settings(opts, scale, None, polish_margin(robot, dof))
    key = (settings.tobytes(), kind, phi, None if weights is None else weights.tobytes(), clip, adaptive, enforce,
           seeded)
    made = cache_of(robot).solvers
    found = made.get(key)
    if found is None:  # a solver per robot and settings, kept: a call then converts only the target and q0
        if len(made) >= 64:
            made.clear()  # (the closed form too: made again at its next use)
        from .._core import Solver

        form = closed_form(robot) if seeded else None
        form = form if form is not None and form.fits(KINDS[kind], phi) else None
        found = made[key] = Solver(chain_handle(robot)[0], KINDS[kind], phi, weights, bounds(robot), settings, clip,
                                   adaptive, enforce, form is not None, form)
    return found


def solver_for(robot: Robot, t: Target, opts: Options, scale: float, enforce: bool, seeded: bool):
    """`solver` for the kind, heading and weights of target t."""
    return solver(robot, opts, scale, enforce, seeded, t.kind, t.phi is not None, t.weights)


def core_seed(seed: int | None) -> int:
    """The core generator's seed for a call's `seed` (≥ 0): the seed itself — the core mixes it
    (splitmix64) into its xoshiro256** state, and a single call and a batch take the same one, so
    a batch of one is a single call. None: a fresh random seed. No NumPy generator is made (its
    module alone costs a fresh process ~30 ms at the first call)."""
    return secrets.randbits(62) if seed is None else int(seed) & _MASK64


def solve_single(robot: Robot, sv, G: np.ndarray, q0: np.ndarray, restarts: int, seed: int | None,
                 rows: np.ndarray = _ALL_ROWS, dof: int = 6):
    """Seed, solve and verdict of one goal G (a pose (4, 4), or `goals`' row) on the solver's
    robot from q0 (n,): (q, status, iterations, ok, position error, orientation error, inside,
    near singular), or None when a damped system needs NumPy's least squares (the general path
    then solves it). rows, dof: the task's (`Target.rows`, `Target.dof`) for the singularity
    test the core's bound leaves to the SVD (`verdict.near_singular`'s rule)."""
    q, status, iters, ok, pos, ori, inside, undecided = sv.solve(G, q0, restarts, core_seed(seed))
    if status == FALLBACK:
        return None
    near = False
    if undecided:
        s = np.linalg.svd(end_single(robot, q, True)[1][rows], compute_uv=False)
        near = bool(s[min(dof, robot.n) - 1] < NEAR_SINGULAR * s[0])
    return q, status, iters, ok, pos, ori, inside, near


def solve_batch(robot: Robot, t: Target, seeds: np.ndarray, s: Settings, rng: np.random.Generator, scale: float,
                seeded: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`single.solve_one` for N targets (t of shape (N,)) from seeds (N, n) in the core:
    (q, status, iterations); restarts from the core's generator seeded by `s.seed` (`core_seed`),
    rng only for a target the NumPy loop must take again. A target whose damped system was not positive definite is solved
    again in NumPy (`single.solve_one`)."""
    N, opts, enforce, restarts = len(seeds), s.opts, s.enforce, s.restarts
    sv = solver_for(robot, t, opts, scale, enforce, seeded)
    q, status, iters = sv.solve_many(goals(t), np.ascontiguousarray(seeds, dtype=float), restarts, core_seed(s.seed))
    status, iters = status.astype(int), iters.astype(int)
    from .single import Problem, solve_one

    for i in np.flatnonzero(status == FALLBACK):
        q[i], status[i], iters[i] = solve_one(Problem(robot, t.reshape(N)[i], opts, enforce, scale), seeds[i],
                                              restarts, rng)
    return q, status, iters


FALLBACK = -2  # src/core/lm.hpp: a damped system not positive definite in floating point
