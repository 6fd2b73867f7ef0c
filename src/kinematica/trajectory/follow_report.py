"""The verdict of `follow` on each point of a path, and the words it is told in.

A point is solved (within the tolerances), continuous (no joint moved more than `max_step` from
the point before: else a *joint jump*), inside the joint limits, and maybe near a singularity;
each problem is said in words with the joint, its value and the bound it broke.

>>> import numpy as np, kinematica as km
>>> robot = km.load("planar-3r")
>>> jump_words(robot, np.radians([0, 40, 0]), np.zeros(3), np.full(3, 0.3), singular=False)
'joint jump from the previous point: θ2 +40° in one step (max_step 17.19°)'
>>> limit_words(robot, np.radians([90, 120, 0]))
'outside the joint limits: θ2 = 120° outside [-100°, 100°]'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ik.verdict import NEAR_SINGULAR
from ..model.robot import LIMIT_TOL, Robot

SINGULAR_WORDS = f"near a singularity (σ_min/σ_max < {NEAR_SINGULAR:g})"


@dataclass(frozen=True, eq=False)
class FollowReport:
    """Per-point verdict of `follow`, arrays of length k (the number of path points).

    success: solved to tolerance; position_error (length unit), orientation_error (rad);
    step: the largest joint change from the previous point (rad or length unit; 0 at the first);
    jump: step > max_step in some joint; within_limits; near_singular (σ_min/σ_max < 1e-3);
    reasons: per point, "ok" or the problems in words; method: the IK method used;
    ik_calls: how many batched `km.ik` calls it took.
    """

    success: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    step: np.ndarray
    jump: np.ndarray
    within_limits: np.ndarray
    near_singular: np.ndarray
    reasons: tuple[str, ...]
    method: str
    ik_calls: int

    @property
    def ok(self) -> bool:
        """Every point solved, no joint jump, every point within the joint limits."""
        return bool(np.all(self.success) and not np.any(self.jump) and np.all(self.within_limits))

    @property
    def failures(self) -> list[tuple[int, str]]:
        """(index, reason) of every point that is unsolved, jumps or leaves the limits."""
        bad = ~self.success | self.jump | ~self.within_limits
        return [(int(i), self.reasons[i]) for i in np.flatnonzero(bad)]

    @property
    def warnings(self) -> list[tuple[int, str]]:
        """(index, reason) of solved, continuous, in-limit points that are near a singularity."""
        w = self.near_singular & self.success & ~self.jump & self.within_limits
        return [(int(i), self.reasons[i]) for i in np.flatnonzero(w)]

    def summary(self) -> str:
        k = len(self.success)
        head = (f"{int(self.success.sum())} of {k} points solved ({self.method}), "
                f"{int(self.jump.sum())} joint jumps, {int((~self.within_limits & self.success).sum())} outside the limits, "
                f"{int(self.near_singular.sum())} near a singularity; largest step {self.step.max():.4g}")
        lines = [head] + [f"  point {i}: {r}" for i, r in self.failures + self.warnings]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "points": len(self.success), "solved": int(self.success.sum()),
                "method": self.method, "ik_calls": self.ik_calls,
                "max_step": float(self.step.max()), "max_position_error": float(self.position_error.max()),
                "max_orientation_error": float(self.orientation_error.max()),
                "failures": [{"index": i, "reason": r} for i, r in self.failures],
                "warnings": [{"index": i, "reason": r} for i, r in self.warnings]}


def joint_value(robot: Robot, i: int, v: float) -> str:
    """A value of joint i with its sign and unit: "+40°", "-12.5 mm"."""
    return f"{np.degrees(v):+.4g}°" if robot.revolute[i] else f"{v:+.4g} {robot.length_unit}"


def jump_words(robot: Robot, q: np.ndarray, last: np.ndarray, limit: np.ndarray, singular: bool) -> str:
    """Which joints moved more than `limit` from `last` to `q`, by how much, and whether the
    move starts or ends at a singular configuration."""
    moved = np.flatnonzero(np.abs(q - last) > limit)
    return ("joint jump from the previous point: "
            + ", ".join(f"{robot.joint_names[m]} {joint_value(robot, m, float(q[m] - last[m]))}" for m in moved.tolist())
            + f" in one step (max_step {joint_value(robot, int(moved[0]), float(limit[moved[0]])).lstrip('+')})"
            + (" — at a singular configuration" if singular else ""))


def limit_words(robot: Robot, q: np.ndarray) -> str:
    """The joints of q (n,) outside their limits, each with its value and range."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    out = np.flatnonzero((q < lo - LIMIT_TOL) | (q > hi + LIMIT_TOL))
    return "outside the joint limits: " + ", ".join(
        f"{robot.joint_names[a]} = {joint_value(robot, a, float(q[a])).lstrip('+')} outside "
        f"[{joint_value(robot, a, float(lo[a])).lstrip('+')}, {joint_value(robot, a, float(hi[a])).lstrip('+')}]"
        for a in out.tolist())


def reasons(robot: Robot, Q: np.ndarray, why: list[str], solved: np.ndarray, inside: np.ndarray,
            near: np.ndarray) -> tuple[str, ...]:
    """Each point's words: what the walk said (a jump, why it is unsolved), then, for a solved
    point, the limits it leaves and a nearby singularity; "ok" when there is nothing to say.
    (An unsolved point's q says nothing about limits or singularity.)"""
    words = []
    for m, said in enumerate(why):
        parts = [said] if said else []
        if solved[m] and not inside[m]:
            parts.append(limit_words(robot, Q[m]))
        if solved[m] and near[m]:
            parts.append(SINGULAR_WORDS)
        words.append("; ".join(parts) or "ok")
    return tuple(words)
