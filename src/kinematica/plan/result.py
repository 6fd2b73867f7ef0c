"""`Plan`: what `km.plan` returns — the joint path and its verdict in words — and its timing
into a `Trajectory`.

Timing (`Plan.trajectory`) is TOPP-RA's time-optimal motion along the path from rest to rest
(`km.trajectory.time_optimal`). TOPP-RA follows a C² spline through the waypoints, which rounds
the path's corners: the timed samples (straight lines between them, as a robot is sent them)
are therefore certified again against the scene as the plan's edges were (`plan.edges`), and
where the rounding came too close the straight edges are first cut into pieces moving no link
point more than a few resolutions, so the spline hugs the certified path, and the timing redone.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from ..scene.sweep import motion_bounds
from ..trajectory import Trajectory, TrajectoryError, for_robot, time_optimal
from ..trajectory.topp import timed
from .group import split

_DENSER = (8.0, 1.0)  # waypoint spacing tried after the plain path, in multiples of the resolution


@dataclass(frozen=True)
class Plan:
    """A planned motion of robot `robot` in `scene` — or of robots planned together, `robot` then
    their names and each row of the path their joint values one after the other (`paths`
    splits it per robot).

    path (k, n): the joint path (rad, or the robot's length unit), straight lines between its
    rows, checked so that no link point moves more than `resolution` (scene `length_unit`)
    between two checked states; None when `success` is False. `reason`: the verdict in words.
    `status`: OMPL's planner status ("Exact solution", "Timeout", ...; "not run" when the
    start or goal was refused first). Times in s — `simplification_time` includes the path's
    re-certification, and planning + simplification keep to the plan's time limit but for the
    check under way when it passed; `checks`: configurations the scene was asked
    about (collision or distance; the IK of a goal target not counted).
    `raw_path`: the planner's path before simplification. `sweep`: the most any link point
    moves along the whole path (scene unit).
    """

    success: bool
    reason: str
    path: np.ndarray | None
    robot: str | tuple[str, ...]
    planner: str
    status: str
    planning_time: float
    simplification_time: float
    checks: int
    resolution: float
    length_unit: str
    seed: int | None
    sweep: float = math.nan
    raw_path: np.ndarray | None = field(default=None, repr=False)
    scene: Any = field(default=None, repr=False, compare=False)
    checker: Any = field(default=None, repr=False, compare=False)  # the plan's `edges.EdgeChecker`

    def __bool__(self) -> bool:
        return self.success

    def __str__(self) -> str:
        head = f"{self.planner}: {self.reason}"
        if not self.success:
            return head
        return (f"{head} (planning {1e3 * self.planning_time:.3g} ms, simplification "
                f"{1e3 * self.simplification_time:.3g} ms, {self.checks} checks at {self.resolution:g} "
                f"{self.length_unit})")

    @property
    def paths(self) -> dict[str, np.ndarray]:
        """Each robot's path (k, n_r) by name (one entry for a single robot's plan); empty when
        the plan failed."""
        return {} if self.path is None else split(self.scene, self.robot, self.path)

    @strict
    def trajectory(self, vmax: ArrayLike, amax: ArrayLike, *, dt: float = 0.01) -> Trajectory:
        """The time-optimal motion along the path (TOPP-RA) from rest to rest with |q̇| ≤ vmax
        (rad/s), |q̈| ≤ amax (rad/s²), sampled every dt s, its straight motion between samples
        certified free (see the module text); TrajectoryError when the plan failed or no timing
        keeps clear of the scene."""
        if not self.success or self.path is None:
            raise TrajectoryError(f"no path to time: {self.reason}")
        if not isinstance(self.robot, str):
            raise TrajectoryError(f"a plan of {len(self.robot)} robots together is timed into one trajectory "
                                  "per robot, on one clock: Plan.trajectories(vmax, amax)")
        robot = self.scene.robots[self.robot].robot
        moves = np.concatenate([[True], np.any(np.diff(self.path, axis=0) != 0, axis=1)])
        path = self.path[moves]  # TOPP-RA's spline cannot take a repeated waypoint
        if len(path) < 2:  # start == goal: a motion that stays put
            zero = np.zeros((1, robot.n))
            return for_robot(robot, np.zeros(1), path[:1], zero, zero, meta={"planner": self.planner})
        for spacing in (None, *_DENSER):
            waypoints = path if spacing is None else self._denser(path, spacing * self.resolution)
            tr = time_optimal(robot, waypoints, vmax, amax, dt=dt)
            if self.checker.path_free(tr.q):
                return dataclasses.replace(tr, meta={**tr.meta, "planner": self.planner,
                                                     "resolution": self.resolution})
        raise TrajectoryError(f"the time-optimal spline through the path comes too close to the scene even with "
                              f"waypoints {self.resolution:g} {self.length_unit} of link motion apart")

    @strict
    def trajectories(self, vmax: ArrayLike, amax: ArrayLike, *, dt: float = 0.01) -> dict[str, Trajectory]:
        """Each robot's timed motion by name, on one clock: the plan's whole path timed as one
        (TOPP-RA) with |q̇| ≤ vmax, |q̈| ≤ amax per joint — one number, or a limit for every joint
        of the robots in the plan's order — its straight motion between samples certified free as
        `trajectory`'s; one entry for a single robot's plan."""
        if isinstance(self.robot, str):
            return {self.robot: self.trajectory(vmax, amax, dt=dt)}
        if not self.success or self.path is None:
            raise TrajectoryError(f"no path to time: {self.reason}")
        robots = {name: self.scene.robots[name].robot for name in self.robot}
        n = sum(r.n for r in robots.values())
        v, a = (np.broadcast_to(np.asarray(x, dtype=float), (n,)).copy() if np.ndim(x) == 0 else np.asarray(x, dtype=float)
                for x in (vmax, amax))
        for x, what in ((v, "vmax"), (a, "amax")):
            if x.shape != (n,) or not np.all(np.isfinite(x)) or np.any(x <= 0):
                raise TrajectoryError(f"{what}: expected one positive finite limit per joint of the plan's robots "
                                      f"({n}), or one for all")
        moves = np.concatenate([[True], np.any(np.diff(self.path, axis=0) != 0, axis=1)])
        path = self.path[moves]
        if len(path) < 2:
            zero = np.zeros((1, n))
            t, q, qd, qdd = np.zeros(1), path[:1], zero, zero
        else:
            for spacing in (None, *_DENSER):
                waypoints = path if spacing is None else self._denser(path, spacing * self.resolution)
                t, q, qd, qdd, _ = timed(waypoints, v, a, dt=dt)
                if self.checker.path_free(q):
                    break
            else:
                raise TrajectoryError(f"the time-optimal spline through the path comes too close to the scene even "
                                      f"with waypoints {self.resolution:g} {self.length_unit} of link motion apart")
        out, k = {}, 0
        for name, r in robots.items():
            sl = slice(k, k + r.n)
            k += r.n
            out[name] = for_robot(r, t, q[:, sl], qd[:, sl], qdd[:, sl],
                                  meta={"timing": "time-optimal (TOPP-RA), the plan's robots together",
                                        "planner": self.planner, "resolution": self.resolution})
        return out

    def _denser(self, path: np.ndarray, step: float) -> np.ndarray:
        """The path's edges cut into pieces moving no link point more than `step` (scene unit)."""
        if isinstance(self.robot, str):
            c = motion_bounds(self.scene.robots[self.robot], self.scene.geometry(self.robot), path)
        else:  # a group: the box-wide bounds the plan's edges were certified with
            c = self.checker.weights
        out = [path[:1]]
        for a, b in itertools.pairwise(path):
            k = max(1, math.ceil(float(np.abs(b - a) @ c) / step))
            out.append(a + np.linspace(0.0, 1.0, k + 1)[1:, None] * (b - a))
        return np.concatenate(out)


__all__ = ["Plan"]
