"""`km.ik`'s shortcut for its commonest call: one full pose, a 4x4 float array, on a spatial
arm, with default options — `km.ik(robot, T)` or
`km.ik(robot, T, q0)`, the way a loop or the simulator calls it.

The general path (`solve._ik` → `one.solve_target`) spends ~30 µs in Python around the core: the
target parsed into a `Target`, the frames resolved, `Options` built, a `Problem` made. Here the
same checks run on floats, the per-robot and per-mode constants are made once
(`_constants`, kept in the robot's cache: the core's solver among them), and
`lm_core.solve_single` runs seed, solve and verdict in one call of the compiled core.
Anything else — other arguments, a target that fails a check, a target out of reach, or one
this path does not solve — returns None, and the general path takes the call from the start:
it runs the same core solver with the same seeds, so its answer is this path's, and it adds the
closed-form rescue and the reason in words (a failure costs its solve twice; failures are
rare, 0.01 % of random targets, and out-of-reach ones are refused before any solve).
"""

from __future__ import annotations

import math

import numpy as np

from .._core import reach_distances
from ..bounds import RESTARTS
from ..kinematics.cache import cache_of
from ..model.robot import Robot
from .analytic import has_analytic
from .closed_pack import closed_form
from .frame import plane_of
from .limits import LIMIT_MODES
from .lm_core import solve_single, solver
from .options import limit_mode, solver_options
from .reach import allowance, bound
from .result import IKResult
from .target import rotation_floats
from .verdict import NEAR_WORDS


def _constants(robot: Robot, mode: str, closed_form_seed: bool) -> tuple | None:
    """(solver, p1, reach) of `lm_core.solve_single` for the robot, limit mode and
    `closed_form_seed` with otherwise default options, p1 and reach from `reach.bound`; None for
    a robot this path does not take (a planar arm, whose solver problem is not the world
    problem). Made once per robot and setting, in the robot's own cache (`kinematics.cache`: it
    dies with the robot)."""
    found = cache_of(robot).fast_ik
    key = (mode, closed_form_seed)
    if key not in found:
        found[key] = _make_constants(robot, mode, closed_form_seed)
    return found[key]


def _make_constants(robot: Robot, mode: str, closed_form_seed: bool) -> tuple | None:
    if plane_of(robot) is not None:
        return None
    opts = solver_options(robot, "lm", mode, {"closed_form_seed": closed_form_seed})
    seeded = not opts.clip_limits and opts.closed_form_seed
    if seeded and closed_form(robot) is None and has_analytic(robot, "pose"):
        return None  # a closed form the core does not have seeds this arm (`seeds.first_seeds`)
    p1, reach = bound(robot)
    scale = reach if np.isfinite(reach) and reach > 0 else 1.0
    sv = solver(robot, opts, scale, mode != "ignore", seeded)
    return sv, p1, reach + allowance(robot, opts.tol_position)


def one_pose(robot: Robot, target, q0, limits: str, restarts, seed, closed_form_seed=True) -> IKResult | None:
    """The result of `km.ik(robot, target, q0, limits=limits, restarts=restarts, seed=seed,
    closed_form_seed=closed_form_seed)` when the target is a solvable (4, 4) float pose and q0
    None or (n,) floats; else None."""
    if type(target) is not np.ndarray or target.shape != (4, 4) or target.dtype != np.float64:
        return None
    if type(restarts) is not int or not 0 <= restarts <= RESTARTS.value or not (seed is None or (type(seed) is int and seed >= 0)):
        return None
    if q0 is not None and (type(q0) is not np.ndarray or q0.dtype != np.float64 or q0.shape != (robot.n,)
                           or not math.isfinite(sum(q0.tolist()))):
        return None
    if limits not in LIMIT_MODES or type(closed_form_seed) is not bool:
        return None
    const = _constants(robot, limit_mode(limits, q0), closed_form_seed)
    if const is None:
        return None
    if q0 is None:
        q0 = robot.q_home
    sv, p1, reach = const
    vals = target.ravel().tolist()
    if not math.isfinite(sum(vals)) or not rotation_floats(*vals[0:3], *vals[4:7], *vals[8:11]):
        return None
    if not reach_distances(target, p1, False)[0] <= reach:  # `reach.reach_check`'s test
        return None
    done = solve_single(robot, sv, target, q0, restarts, seed)
    if done is None or not done[3]:
        return None
    q, _, iters, _, pos, ori, inside, near = done
    return IKResult(q=q, success=True, reason=NEAR_WORDS if near else "converged", iterations=iters,
                    position_error=pos, orientation_error=ori, within_limits=inside, near_singular=near,
                    method="lm", reachable=True)
