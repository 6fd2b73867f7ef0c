"""Path following: joint values for every pose of a Cartesian path, on one branch, checked.

In this module: the problem checked (`_problem`), a block solved (`Problem.solve`) and judged
(`_judge`), the walk along the path (`_walk`), the rates (`_rates`); the verdict and its words
are in `follow_report`. Errors, tolerances and the singularity test are `km.ik`'s own.

Every point k is solved to tolerance by `km.ik` (closed-loop: the pose error of each point is
driven to zero, never integrated open-loop as q_{k+1} = q_k + J⁻¹ Δx, which drifted 0.058 rad
over paper 004's 50-interval line) and warm-started from the solution of point k − 1, so the
arm stays on the branch it starts on. Per point it reports: solved or not (and why), the largest
joint step from the previous point (a step above `max_step` is a *joint jump*: a branch switch,
a flip through a singularity), joint-limit violations and near-singular configurations.

Batching. A chain of warm starts is sequential, but one `km.ik` call on a block of B points all
seeded from the last accepted solution costs about as much as a few single calls. So blocks are
solved together and accepted as far as they are continuous (every step ≤ max_step from the
point before): a chain of small steps from the last accepted q stays on its branch, as the
sequential chain would. At the first point that jumps or fails, the block is cut and a new one
starts there, seeded from its predecessor's solution — so a point is only ever *reported* as a
jump or a failure when it was seeded exactly as the sequential warm start would seed it. Blocks
grow ×4 while they are accepted whole (up to 1 024 points) and shrink after a cut.

Method "auto" uses the robot's closed-form solver when one fits the task (the branch nearest
the seed, exact to rounding; decided before solving, by `km.ik`'s own test) and
Levenberg–Marquardt otherwise. The solver runs to 1e-4 of the
acceptance tolerances (1e-10 m, 1e-10 rad by default), so converged points are exact to
rounding. Revolute solutions are unwrapped by 2π to the turn nearest the previous point before
any step or limit is judged. If q0 already puts the tool on the first pose, the first point is
q0 itself (not re-solved: at a singular pose a solver would pick its own joint split).

Singular starts. Paper 004's KUKA home (q = 0) is exactly a wrist singularity (q5 = 0): there
only q4 + q6 is fixed. The first point after it picks the split of q4 and q6 that its pose needs
(about −0.36 and +0.38 rad for paper 004's line), and the report flags that first step as a
joint jump from a singular point — the wrist must spin there while the tool barely moves. From
then on the chain stays on the branch with q5 < 0 and ends on (−π/2, 0, 0, 0, −π/2, 0) to
rounding (2e-16 rad with the closed form). No hint about the final branch is needed: the
warm-started chain selects it. The report's message for that step gives the q0 that avoids
the spin: the same tool pose at home with the wrist pre-turned (q4 = −q6 ≈ ∓0.379); starting
there, the whole line is continuous and the report is clean.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import RESTARTS, count
from ..ik.result import IKResult
from ..ik.target import Target
from ..ik.tolerance import tolerances
from ..ik.verdict import check
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .follow_report import FollowReport, jump_words, reasons
from .path import CartesianPath
from .value import Trajectory, TrajectoryError, for_robot

__all__ = ["follow", "FollowReport", "TASKS"]

TASKS = ("pose", "position", "approach", "planar")
LIMITS = ("clip", "ignore")
START_BLOCK, MAX_BLOCK = 16, 1024
SOLVE = 1e-4  # the solver runs to this fraction of the acceptance tolerances


@takes_robot
def follow(robot, path, q0: ArrayLike | None = None, *, task: str | None = None, method: str = "auto",
           limits: str = "clip", max_step: float | ArrayLike | None = None, restarts: int = 0,
           tol_position: float | None = None, tol_orientation: float | None = None
           ) -> tuple[Trajectory, FollowReport]:
    """Joint motion that puts the tool on every point of `path`, and a per-point report.

    path: a `CartesianPath` (from `line`, `arc_through`, `spline`, …), poses (k, 4, 4) or
    positions (k, 3) (then t = 0, 1, 2, … s). q0: where the arm starts (default: its home); the
    first point is solved from it. task: "pose" (default for oriented paths), "position"
    (default otherwise), "approach" (position + tool z axis, for 5-DOF arms) or "planar" (x, y and,
    for an oriented path, the heading; the default for planar arms whose plane is level in the
    world frame — on a tilted one "position"). method: "auto" (closed form
    where one fits, else "lm"), "analytic", "lm", or another `km.ik` method. limits: "clip" (the
    solver stays inside the joint limits: a redundant arm finds the in-limit solution, others
    fail at the limit, reported with the joint; the closed form takes the nearest in-limit
    branch) or "ignore" (solve freely; out-of-limit points are still reported).
    max_step: the largest joint change between consecutive points not flagged as a jump (scalar
    or per joint; default 0.3 rad for revolute, 0.1 m / 100 mm for prismatic joints).
    restarts: random seeds `km.ik` may try for a point the warm start does not solve (default 0:
    such a point is reported unsolved; a point solved from a random seed is usually on another
    branch and then reported as a jump). tol_position, tol_orientation: a point counts as solved
    within them (default as `km.ik`: 1e-6 m or 1e-3 mm, and 1e-6 rad); the solver itself runs on
    to 1e-4 of them, so a converged point is exact to rounding (1e-10 m, 1e-10 rad).

    Returns (Trajectory, FollowReport). The trajectory has q per point (the best attempt where a
    point failed — check `report.ok` before playing it), q̇ and q̈ by second-order finite
    differences over the path's times, and the poses: the path's for task "pose", otherwise those
    the solution reaches (positions on the path, orientation as it comes). Nothing is dropped or
    smoothed over.

    >>> import kinematica as km
    >>> robot = km.load("kuka-kr6-r900")
    >>> T0, T1 = km.fk(robot, [0.1, 0.2, -0.3, 0.2, 0.5, 0.1]), km.fk(robot, [0.4, 0.1, -0.2, 0.3, 0.6, 0.2])
    >>> tr, report = km.trajectory.follow(robot, km.trajectory.line(T0, T1, steps=20), q0=[0.1, 0.2, -0.3, 0.2, 0.5, 0.1])
    >>> report.ok, tr.q[-1].round(9).tolist()
    (True, [0.4, 0.1, -0.2, 0.3, 0.6, 0.2])
    """
    t, poses, oriented, positions = _path_inputs(path)
    if len(positions) == 0:
        raise TrajectoryError("empty path: nothing to follow")
    task = _default_task(robot, oriented) if task is None else task
    if task not in TASKS:
        raise TrajectoryError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    pb = _problem(robot, _targets(task, poses, positions), q0, method, limits, max_step, restarts,
                  tol_position, tol_orientation)
    walk = _walk(pb)
    _spin_hint(pb, walk)
    inside = robot.within_limits(walk.Q)
    near = walk.near & walk.ok  # like the limits: an unsolved point's q says nothing about singularity
    report = FollowReport(walk.ok, walk.perr, walk.oerr, walk.step, walk.jump, inside, near,
                          reasons(robot, walk.Q, walk.why, walk.ok, inside, near), pb.method, walk.calls)
    qd, qdd = _rates(walk.Q, t)
    if task != "pose":  # the path fixes only positions (or the approach): record the poses reached
        from ..kinematics import fk

        poses = fk(robot, walk.Q)
    meta = {"kind": "follow", "task": task, "method": pb.method, "ok": report.ok,
            "path": getattr(path, "meta", {}).get("kind", "poses")}
    return for_robot(robot, t, walk.Q, qd, qdd, poses=poses, meta=meta), report


@dataclass(frozen=True, eq=False)
class Problem:
    """What `follow` was asked, checked: the targets (k,), where the arm starts, the method
    (decided once: "analytic" where a closed form fits, else the one asked for) and the bounds."""

    robot: Robot
    target: Target
    start: np.ndarray
    method: str
    limits: str
    restarts: int
    tol_position: float
    tol_orientation: float
    max_step: np.ndarray  # (n,): a larger joint change between two points is a jump

    @property
    def k(self) -> int:
        return len(self.target.p)

    def solve(self, i: int, j: int, seeds: np.ndarray) -> IKResult:
        """`km.ik` on points i..j-1, to SOLVE of the tolerances (a converged point is exact)."""
        from ..ik import ik

        return ik(self.robot, self.target[i:j], seeds, method=self.method, limits=self.limits,
                  restarts=self.restarts, tol_position=SOLVE * self.tol_position,
                  tol_orientation=SOLVE * self.tol_orientation)


@dataclass(eq=False)
class Walk:
    """The points decided so far: q, solved, near a singularity, errors, step, jump, words."""

    Q: np.ndarray
    ok: np.ndarray = field(init=False)
    near: np.ndarray = field(init=False)
    perr: np.ndarray = field(init=False)
    oerr: np.ndarray = field(init=False)
    step: np.ndarray = field(init=False)
    jump: np.ndarray = field(init=False)
    why: list[str] = field(init=False)
    calls: int = 0

    def __post_init__(self) -> None:
        k = len(self.Q)
        self.ok, self.near, self.jump = (np.zeros(k, bool) for _ in range(3))
        self.perr, self.oerr, self.step = (np.zeros(k) for _ in range(3))
        self.why = [""] * k

    def verdicts(self, i: int, res: IKResult, f: int) -> None:
        """Errors and the singularity flag of points i..i+f-1 from the solve's own verdict."""
        sl = slice(i, i + f)
        self.near[sl] = np.asarray(res.near_singular)[:f]
        self.perr[sl] = np.asarray(res.position_error)[:f]
        self.oerr[sl] = np.asarray(res.orientation_error)[:f]


def _method(robot: Robot, target: Target, method: str) -> str:
    """"auto": the closed form where one fits the problem the solvers see (`km.ik`'s own
    test), else Levenberg–Marquardt. Decided before solving, so an error of the solve — a bad
    target — is raised, not mistaken for "no closed form"."""
    if method != "auto":
        return method
    from ..ik import has_analytic
    from ..ik.frame import fit_target, judged, solver_problem

    rs, t = solver_problem(robot, fit_target(robot, judged(robot, target)))
    return "analytic" if has_analytic(rs, t) else "lm"


def _thresholds(robot: Robot, max_step) -> np.ndarray:
    if max_step is None:
        prismatic = 0.1 if robot.length_unit == "m" else 100.0
        return np.where(robot.revolute, 0.3, prismatic)
    m = np.broadcast_to(np.asarray(max_step, dtype=float), (robot.n,)).copy()
    if not np.all(m > 0):
        raise TrajectoryError(f"max_step must be > 0, got {max_step!r}")
    return m


def _default_task(robot: Robot, oriented: bool) -> str:
    from ..ik.frame import plane_of

    plane = plane_of(robot)  # (x, y) goals need a plane level in the world; a tilted one takes positions
    if plane:
        return "planar" if plane.level else "position"
    return "pose" if oriented else "position"


def _problem(robot: Robot, target: Target, q0, method: str, limits: str, max_step, restarts: int,
             tol_position: float | None, tol_orientation: float | None) -> Problem:
    """Check what `follow` was given (TrajectoryError naming what is wrong)."""
    restarts = count(restarts, "restarts", RESTARTS, minimum=0, error=TrajectoryError)
    if limits not in LIMITS:
        raise TrajectoryError(f"limits must be one of {', '.join(LIMITS)}, got {limits!r}")
    start = robot.q_home if q0 is None else np.array(q0, dtype=float)
    if start.shape != (robot.n,) or not np.all(np.isfinite(start)):
        raise TrajectoryError(f"q0: expected {robot.n} finite joint values, got {start.shape}")
    given = {"tol_position": tol_position, "tol_orientation": tol_orientation}
    tol_p, tol_o = tolerances(robot, {k: v for k, v in given.items() if v is not None})  # km.ik's defaults
    if not (tol_p > 0 and tol_o > 0):
        raise TrajectoryError(f"tolerances must be > 0, got {tol_position!r} and {tol_orientation!r}")
    return Problem(robot, target, start, _method(robot, target, method), limits, restarts, tol_p, tol_o,
                   _thresholds(robot, max_step))


def _judge(pb: Problem, res: IKResult, last: np.ndarray):
    """A solved block, judged: q (B, n) unwrapped to the turns nearest the point before, which
    points are solved (tolerances, limits unless ignored), each step |Δq| (B, n), and which jump."""
    q = _unwrap(np.asarray(res.q), last, np.asarray(pb.robot.revolute, bool))
    good = ((np.asarray(res.position_error) < pb.tol_position)
            & (np.asarray(res.orientation_error) < pb.tol_orientation)
            & (np.asarray(res.within_limits) | (pb.limits == "ignore")))
    d = np.abs(np.diff(np.vstack([last, q]), axis=0))
    return q, good, d, np.any(d > pb.max_step, axis=1)


def _on_first_pose(pb: Problem, walk: Walk) -> int:
    """1 when q0 already puts the tool on the first pose (to SOLVE of the tolerances, by
    `km.ik`'s own verdict): the first point is q0 itself, not re-solved — at a singular pose a
    solver would pick its own joint split. Else 0."""
    ok, pos, ori, _, near = check(pb.robot, pb.target[0:1], pb.start[None], SOLVE * pb.tol_position,
                                  SOLVE * pb.tol_orientation, enforce=False)
    if not ok[0]:
        return 0
    walk.Q[0], walk.ok[0], walk.perr[0], walk.oerr[0], walk.near[0] = pb.start, True, pos[0], ori[0], near[0]
    return 1


def _walk(pb: Problem) -> Walk:
    """Solve the path block by block, each block seeded from the last accepted point and
    accepted as far as it is continuous (see the module's "Batching")."""
    walk = Walk(np.zeros((pb.k, pb.robot.n)))
    i = _on_first_pose(pb, walk)
    last, size = pb.start.copy(), START_BLOCK
    while i < pb.k:
        j = min(pb.k, i + size)
        res = pb.solve(i, j, np.tile(last, (j - i, 1)))
        walk.calls += 1
        q, good, d, big = _judge(pb, res, last)
        bad = ~good | big
        f = int(np.argmax(bad)) if bad.any() else j - i
        if f:  # the continuous run before the first problem
            walk.Q[i:i + f], walk.ok[i:i + f], walk.step[i:i + f] = q[:f], True, d[:f].max(axis=1)
            last = q[f - 1].copy()
            size = min(MAX_BLOCK, size * 4) if f == j - i else max(START_BLOCK, size // 2)
        elif good[0]:  # a genuine jump: the point was seeded exactly as the sequential warm start
            f = 1
            walk.Q[i], walk.ok[i], walk.step[i], walk.jump[i] = q[0], True, d[0].max(), True
            singular = bool(walk.near[i - 1] if i else False) or bool(np.atleast_1d(res.near_singular)[0])
            walk.why[i] = jump_words(pb.robot, q[0], last, pb.max_step, singular)
            last = q[0].copy()
            size = START_BLOCK
        else:  # unsolved, and so is every following point this seed fails (the same seed sequentially)
            f = int(np.argmax(good)) if good.any() else j - i
            rs = np.atleast_1d(res.reason)
            walk.Q[i:i + f] = q[:f]
            walk.why[i:i + f] = [f"not solved: {r}" for r in rs[:f]]
            size = START_BLOCK
        walk.verdicts(i, res, f)
        if i == 0 and walk.ok[0]:  # the move from q0 onto the path is not a path step
            walk.step[0], walk.jump[0], walk.why[0] = 0.0, False, ""
        i += f
    return walk


def _spin_hint(pb: Problem, walk: Walk) -> None:
    """A spin out of a singular start (point 1 jumps from a singular point 0): say which q0,
    the same first pose on the branch the path then follows, avoids it."""
    if not (pb.k > 1 and walk.jump[1] and walk.near[0] and walk.ok[0]):
        return
    walk.calls += 1
    r0 = replace(pb, method="lm", restarts=0).solve(0, 1, walk.Q[1][None])
    if bool(np.atleast_1d(r0.success)[0]):
        q_alt = _unwrap(np.asarray(r0.q).reshape(1, -1), walk.Q[1], np.asarray(pb.robot.revolute, bool))[0]
        if np.all(np.abs(q_alt - walk.Q[1]) <= pb.max_step):
            walk.why[1] += f"; starting from q0 = {np.round(q_alt, 6).tolist()} (the same first pose) avoids it"


def _rates(Q: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q̇, q̈ (k, n) by finite differences over the path's times: second order from 3 points."""
    if len(Q) >= 3:
        qd = np.gradient(Q, t, axis=0, edge_order=2)
        return qd, np.gradient(qd, t, axis=0, edge_order=2)
    if len(Q) == 2:
        return np.gradient(Q, t, axis=0), np.zeros_like(Q)
    return np.zeros_like(Q), np.zeros_like(Q)


def _path_inputs(path) -> tuple[np.ndarray, np.ndarray | None, bool, np.ndarray]:
    """(times, poses (k, 4, 4) or None, oriented, positions) from a CartesianPath or an array."""
    if isinstance(path, CartesianPath):
        return path.t, (path.poses if path.oriented else None), path.oriented, path.positions
    try:
        a = np.array(path, dtype=float)
    except (TypeError, ValueError):
        raise TrajectoryError(f"path: expected a CartesianPath, poses (k, 4, 4) or points (k, 3), got {path!r}") from None
    if a.size == 0:
        raise TrajectoryError("empty path: nothing to follow")
    if not np.all(np.isfinite(a)):
        raise TrajectoryError("path: contains NaN or infinity")
    if a.ndim == 3 and a.shape[1:] == (4, 4):
        return np.arange(len(a), dtype=float), a, True, a[:, :3, 3]
    if a.ndim == 2 and a.shape[1] == 3:
        return np.arange(len(a), dtype=float), None, False, a
    raise TrajectoryError(f"path: expected a CartesianPath, poses (k, 4, 4) or points (k, 3), got shape {a.shape}")


def _targets(task: str, poses, positions):
    from ..ik import target as tg

    try:
        return _make_targets(tg, task, poses, positions)
    except tg.TargetError as e:
        raise TrajectoryError(f"path: {e}") from None


def _make_targets(tg, task: str, poses, positions):
    if task == "planar":
        heading = None if poses is None else np.arctan2(poses[:, 1, 0], poses[:, 0, 0])
        return tg.planar(positions[:, :2], heading)
    if task == "pose":
        if poses is None:
            raise TrajectoryError("task 'pose' needs poses: this path has positions only")
        return tg.pose(poses)
    if task == "position":
        return tg.position(positions)
    if poses is None:
        raise TrajectoryError("task 'approach' needs poses: this path has positions only")
    return tg.approach(positions, poses[:, :3, 2])


def _unwrap(q: np.ndarray, ref: np.ndarray, revolute: np.ndarray) -> np.ndarray:
    """Shift revolute joints of the chain q (B, n) by whole turns so that each row lies within
    π of the row before it (the first within π of ref)."""
    chain = np.vstack([ref, q])
    turns = np.cumsum(-np.round(np.diff(chain, axis=0) / (2 * np.pi)), axis=0)
    return q + np.where(revolute, 2 * np.pi * turns, 0.0)
