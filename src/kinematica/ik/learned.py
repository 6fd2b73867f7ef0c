"""Learned models in `km.ik`: as a method of their own (`method="anfis", model=M`) and as the
seed of a numeric one (`q0=M`).

IK sits below `learn/` and never imports it: a model is anything with
`seeds_for(robot, target) -> q (..., n)` (joint values for world targets, after checking it
was trained for this robot). Its answer is judged like every other method's — one fresh FK
against the target as given — so a learned answer, approximate by nature, is reported as a
miss of so many length units unless it really meets the tolerances.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError, InputTypeError
from ..model.robot import Robot
from .reach import out_of_reach_message, reach_check
from .result import IKResult
from .target import Target
from .tolerance import tolerances
from .verdict import Verdicts, judge, near_singular, package

LEARNED_METHODS = ("anfis",)


class SeedModel(Protocol):
    """A learned model as `ik` takes it (q0=model): joint values for world targets."""

    def seeds_for(self, robot: Robot, target: Target) -> ArrayLike: ...


def is_model(q0: Any) -> bool:
    """Whether q0 is a learned model (the seed protocol) rather than joint values or a word."""
    return callable(getattr(q0, "seeds_for", None))


def model_seeds(robot: Robot, model: SeedModel, world: Target) -> np.ndarray:
    """The model's joint values for the world targets, shape world.shape + (n,)."""
    q = np.asarray(model.seeds_for(robot, world), dtype=float)
    if q.shape != world.shape + (robot.n,) or not np.all(np.isfinite(q)):
        raise InputError(f"the model answered shape {q.shape} (or non-finite values) for {world.shape} "
                         f"target(s) of a {robot.n}-joint robot")
    return q


def solve_learned(robot: Robot, world: Target, rs: Robot, t: Target, method: str, model: Any,
                  options: dict) -> IKResult:
    """`method="anfis"`: the model's answer and the independent verdict on it."""
    if not is_model(model):
        raise InputTypeError(f"method={method!r} needs model=<a learned IK model> (from kinematica.learn: "
                        f"train_ik or load_model), got {type(model).__name__}")
    unknown = set(options) - {"tol_position", "tol_orientation"}
    if unknown:
        raise InputTypeError(f"method={method!r} takes only the options tol_position, tol_orientation; got "
                        f"{', '.join(sorted(unknown))}")
    tol_p, tol_o = tolerances(robot, options)
    shape = world.shape
    N = int(np.prod(shape))
    q = model_seeds(robot, model, world).reshape(N, robot.n)
    world, t = world.reshape(N), t.reshape(N)
    reachable, dist, reach = reach_check(rs, t, tol_p, robot)
    ok, pos, ori, inside, J = judge(robot, world, q, tol_p, tol_o, True)
    ok &= reachable  # belt and braces: a target past the reach bound is never solved
    near = near_singular(rs, t, q, J if rs is robot else None)
    unit = robot.length_unit
    words = []
    for k in range(N):
        if not reachable[k]:
            words.append(out_of_reach_message(dist[k], reach, unit) + f"; the model's answer misses it by "
                         f"{pos[k]:.3g} {unit}")
        elif ok[k]:
            words.append("the model's answer meets the tolerances")
        else:
            words.append(f"the model's answer misses the target by {pos[k]:.3g} {unit} and {np.degrees(ori[k]):.3g}° "
                         f"(tolerance {tol_p:g} {unit}, {tol_o:g} rad): a learned answer is approximate; "
                         f"use the model as q0 of method 'lm' to finish it")
    return package(shape, method=method, q=q, iterations=np.zeros(N, int), verdicts=Verdicts(ok, pos, ori, inside, near),
                   reachable=reachable, words=words)
