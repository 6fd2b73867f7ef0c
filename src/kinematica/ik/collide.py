"""IK that knows the workspace: solutions checked against a scene (`kinematica.scene`).

`km.ik(..., scene=…)` and `km.ik_all(..., scene=…)` take a `Scene` holding the robot once, or
`scene.for_robot(name, q_of_the_others)`. A solution whose links touch an obstacle, another
robot or the robot itself is marked: success False, `collision` the pair, and the reason
says which ("reaches the target, but left/forearm collides with table"). `km.ik` first tries
`RETRY_SEEDS` random seeds for each such target (for the first SEEDS / RETRY_SEEDS = 3 125 of
them in a batch: `kinematica.bounds.SEEDS` seeds in all) and keeps the collision-free solution
nearest to its first answer when one exists. The scene's own copy of the robot is what is
checked; it must have the same joints as the robot solved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..bounds import SEEDS
from ..errors import InputError, InputTypeError
from ..model.robot import Robot
from .result import IKResult

RETRY_SEEDS = 32  # random seeds tried for a target whose first solution collides


def seat_of(robot: Robot, scene: Any):
    """The `Seat` (robot of a scene, others held) that judges solutions of `robot`."""
    from ..scene import Scene, Seat

    if isinstance(scene, Seat):
        seat = scene
    elif isinstance(scene, Scene):
        names = [n for n, e in scene.robots.items() if e.robot is robot]
        if len(names) != 1:
            where = f"appears as {', '.join(names)}" if names else "is not one of its robots (by identity)"
            raise InputError(f"scene: {robot.name} {where}: pass scene=scene.for_robot(NAME) to say which")
        seat = scene.for_robot(names[0])
    else:
        raise InputTypeError(f"scene: expected a Scene or scene.for_robot(name), got {type(scene).__name__}")
    own = seat.scene.robots[seat.robot].robot
    if own.n != robot.n:
        raise InputError(f"scene: robot {seat.robot!r} has {own.n} joints, the robot solved has {robot.n}")
    return seat


def first_pairs(seat: Any, q: np.ndarray) -> list[tuple[str, str] | None]:
    """Per configuration (k, n): its first colliding pair (sorted names), or None when clear."""
    rep = seat.check(q.reshape(-1, q.shape[-1]))
    return [pairs[0] if pairs else None for pairs in rep.collisions]


def _words(reason: str, pair: tuple[str, str] | None, success: bool) -> str:
    if pair is None:
        return reason
    hit = f"{pair[0]} collides with {pair[1]}"
    return f"reaches the target, but {hit}" if success else f"{reason}; {hit}"


def mark(result: IKResult, seat: Any) -> IKResult:
    """`result` with colliding solutions marked (success False, reason, collision pair)."""
    q = np.asarray(result.q)
    pairs = first_pairs(seat, q)
    if not result.batched:
        pair = pairs[0]
        return replace(result, success=bool(result.success) and pair is None,
                       reason=_words(result.reason, pair, bool(result.success)), collision=pair)
    shape = np.shape(result.success)
    ok = np.asarray(result.success).reshape(-1)
    reasons = np.asarray(result.reason, dtype=object).reshape(-1)
    words = [_words(r, p, bool(s)) for r, p, s in zip(reasons, pairs, ok, strict=True)]
    col = np.empty(len(pairs), dtype=object)
    col[:] = pairs
    clear = np.array([p is None for p in pairs])
    return replace(result, success=(ok & clear).reshape(shape),
                   reason=np.array(words, dtype=object).reshape(shape), collision=col.reshape(shape))


def avoid(robot: Robot, world: Any, result: IKResult, seat: Any, solve: Callable[..., IKResult],
          seed: int | None) -> IKResult:
    """Re-solve, from RETRY_SEEDS random seeds each, the targets whose solution collides; keep
    the collision-free success nearest (joint space) to the first answer; mark the rest."""
    first = mark(result, seat)
    flat = (lambda a: np.asarray(a).reshape(-1)) if first.batched else (lambda a: np.asarray([a]))
    todo = np.flatnonzero(flat(result.success) & ~flat(first.success))
    todo = todo[:SEEDS.value // RETRY_SEEDS]  # a bounded amount of work; the rest stay marked
    if todo.size == 0:
        return first
    n = robot.n
    targets = world.reshape(-1)[np.repeat(todo, RETRY_SEEDS)]
    again = mark(solve(targets, "random", seed), seat)
    ok = np.asarray(again.success).reshape(todo.size, RETRY_SEEDS)
    qs = np.asarray(again.q).reshape(todo.size, RETRY_SEEDS, n)
    q0 = np.asarray(result.q).reshape(-1, n)[todo]
    gap = np.where(ok, np.linalg.norm(qs - q0[:, None], axis=-1), np.inf)
    found = np.isfinite(gap.min(axis=1))
    if not found.any():
        return first
    rows = np.arange(todo.size) * RETRY_SEEDS + np.argmin(gap, axis=1)  # into the flat retry batch
    if not first.batched:
        return again[int(rows[0])]
    shape = np.shape(first.success)
    fields = {k: np.array(getattr(first, k)).reshape((-1, n) if k == "q" else (-1,)).copy() for k in FIELDS}
    for i, row, hit in zip(todo, rows, found, strict=True):
        if hit:
            one = again[int(row)]
            for k in FIELDS:
                fields[k][i] = getattr(one, k)
    return replace(first, **{k: v.reshape(shape + v.shape[1:]) for k, v in fields.items()})


FIELDS = ("q", "success", "reason", "iterations", "position_error", "orientation_error", "within_limits",
          "near_singular", "reachable", "collision")
