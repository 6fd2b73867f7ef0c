"""Path following: joint values for every pose of a Cartesian path, on one branch, checked.

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
the seed, exact to rounding) and Levenberg–Marquardt otherwise. The solver runs to 1e-4 of the
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

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import RESTARTS, count
from ..model.robot import LIMIT_TOL
from .path import CartesianPath
from .value import Trajectory, TrajectoryError, for_robot
from ..model.coerce import takes_robot

TASKS = ("pose", "position", "approach", "planar")
LIMITS = ("clip", "ignore")
START_BLOCK, MAX_BLOCK = 16, 1024
SOLVE = 1e-4  # the solver runs to this fraction of the acceptance tolerances
NEAR_SINGULAR = 1e-3  # the same threshold as km.ik's near_singular flag


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


def _path_inputs(path) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray | None]:
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
    t = np.arange(len(a), dtype=float) if a.ndim >= 2 else None
    if a.ndim == 3 and a.shape[1:] == (4, 4):
        return t, a, True, a[:, :3, 3]
    if a.ndim == 2 and a.shape[1] == 3:
        return t, None, False, a
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


def _thresholds(robot, max_step) -> np.ndarray:
    if max_step is None:
        prismatic = 0.1 if robot.length_unit == "m" else 100.0
        return np.where(robot.revolute, 0.3, prismatic)
    m = np.broadcast_to(np.asarray(max_step, dtype=float), (robot.n,)).copy()
    if not np.all(m > 0):
        raise TrajectoryError(f"max_step must be > 0, got {max_step!r}")
    return m


def _unwrap(q: np.ndarray, ref: np.ndarray, revolute: np.ndarray) -> np.ndarray:
    """Shift revolute joints of the chain q (B, n) by whole turns so that each row lies within
    π of the row before it (the first within π of ref)."""
    chain = np.vstack([ref, q])
    turns = np.cumsum(-np.round(np.diff(chain, axis=0) / (2 * np.pi)), axis=0)
    return q + np.where(revolute, 2 * np.pi * turns, 0.0)


def _errors(robot, target, q: np.ndarray) -> tuple[float, float]:
    """Position and orientation error of q against the first target (the task's rows only)."""
    from ..kinematics import fk

    T = fk(robot, q)
    if target.kind == "planar":
        e_p = float(np.linalg.norm(T[:2, 3] - target.p[0, :2]))
        if target.phi is None:
            return e_p, 0.0
        d = np.arctan2(T[1, 0], T[0, 0]) - target.phi[0]
        return e_p, float(abs((d + np.pi) % (2 * np.pi) - np.pi))
    e_p = float(np.linalg.norm(T[:3, 3] - target.p[0]))
    if target.kind == "pose":
        E = target.R[0] @ T[:3, :3].T  # angle by atan2(|sin|, cos): exact near 0, unlike arccos
        sin = 0.5 * np.linalg.norm([E[2, 1] - E[1, 2], E[0, 2] - E[2, 0], E[1, 0] - E[0, 1]])
        return e_p, float(np.arctan2(sin, (np.trace(E) - 1.0) / 2.0))
    if target.kind == "approach":
        z = T[:3, 2]
        return e_p, float(np.arctan2(np.linalg.norm(np.cross(z, target.a[0])), z @ target.a[0]))
    return e_p, 0.0


def _near_singular(robot, target, q: np.ndarray) -> bool:
    """σ_min/σ_max < 1e-3 for the task rows of the Jacobian at q, in the frame `km.ik` judges
    it in (a planar arm's own plane: `ik.frame.solver_problem`)."""
    from ..ik.frame import fit_target, solver_problem
    from ..kinematics import jacobian, singular_values

    robot, target = solver_problem(robot, fit_target(robot, target[0:1]))
    sv = singular_values(jacobian(robot, q)[target.rows])
    m = min(target.dof, robot.n)
    return bool(sv[m - 1] < NEAR_SINGULAR * sv[0])


def _deg(robot, i: int, v: float) -> str:
    return f"{np.degrees(v):+.4g}°" if robot.revolute[i] else f"{v:+.4g} {robot.length_unit}"


@takes_robot
def follow(robot, path, q0: ArrayLike | None = None, *, task: str | None = None, method: str = "auto",
           limits: str = "clip", max_step: float | ArrayLike | None = None, restarts: int = 0,
           tol_position: float | None = None, tol_orientation: float = 1e-6) -> tuple[Trajectory, FollowReport]:
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
    within them (default 1e-6 m or 1e-3 mm, and 1e-6 rad, as `km.ik`); the solver itself runs on
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
    from ..ik import ik

    restarts = count(restarts, "restarts", RESTARTS, minimum=0, error=TrajectoryError)
    t, poses, oriented, positions = _path_inputs(path)
    k = len(positions)
    if k == 0:
        raise TrajectoryError("empty path: nothing to follow")
    if task is None:
        from ..ik.frame import plane_of

        plane = plane_of(robot)  # (x, y) goals need a plane level in the world; a tilted one takes positions
        task = ("planar" if plane.level else "position") if plane else ("pose" if oriented else "position")
    if task not in TASKS:
        raise TrajectoryError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    if limits not in LIMITS:
        raise TrajectoryError(f"limits must be one of {', '.join(LIMITS)}, got {limits!r}")
    target = _targets(task, poses, positions)
    n = robot.n
    start = robot.q_home if q0 is None else np.array(q0, dtype=float)
    if start.shape != (n,) or not np.all(np.isfinite(start)):
        raise TrajectoryError(f"q0: expected {n} finite joint values, got {np.shape(q0)}")
    tol_p = (1e-6 if robot.length_unit == "m" else 1e-3) if tol_position is None else float(tol_position)
    tol_o = float(tol_orientation)
    if not (tol_p > 0 and tol_o > 0):
        raise TrajectoryError(f"tolerances must be > 0, got {tol_position!r} and {tol_orientation!r}")
    limit = _thresholds(robot, max_step)
    rev = np.asarray(robot.revolute, bool)

    Q = np.zeros((k, n))
    ok, near = np.zeros(k, bool), np.zeros(k, bool)
    perr, oerr, step = np.zeros(k), np.zeros(k), np.zeros(k)
    jump = np.zeros(k, bool)
    why = [""] * k
    last = start.copy()
    i, size, calls = 0, START_BLOCK, 0
    use = method
    e_p, e_o = _errors(robot, target, start)
    if e_p < SOLVE * tol_p and e_o < SOLVE * tol_o:  # already on the first pose: stay (no re-solve at a singularity)
        Q[0], ok[0], perr[0], oerr[0], i = start, True, e_p, e_o, 1
        near[0] = _near_singular(robot, target, start)
    while i < k:
        j = min(k, i + size)
        seeds = np.tile(last, (j - i, 1))
        kw = dict(limits=limits, restarts=restarts, tol_position=SOLVE * tol_p, tol_orientation=SOLVE * tol_o)
        if use == "auto":
            try:
                res = ik(robot, target[i:j], seeds, method="analytic", **kw)
                use = "analytic"
            except ValueError:
                use = "lm"
                res = ik(robot, target[i:j], seeds, method="lm", **kw)
        else:
            res = ik(robot, target[i:j], seeds, method=use, **kw)
        calls += 1
        q = _unwrap(np.asarray(res.q), last, rev)
        good = ((np.asarray(res.position_error) < tol_p) & (np.asarray(res.orientation_error) < tol_o)
                & (np.asarray(res.within_limits) | (limits == "ignore")))
        d = np.abs(np.diff(np.vstack([last, q]), axis=0))
        big = np.any(d > limit, axis=1)
        bad = ~good | big
        f = int(np.argmax(bad)) if bad.any() else j - i
        take = slice(i, i + f)
        if f:
            Q[take], ok[take], step[take] = q[:f], True, d[:f].max(axis=1)
        if f == j - i:  # the whole block is continuous
            last = Q[i + f - 1].copy()
            size = min(MAX_BLOCK, size * 4)
        elif f > 0:  # cut before the problem; re-seed the problem point from its predecessor
            last = Q[i + f - 1].copy()
            size = max(START_BLOCK, size // 2)
        else:  # the first point was seeded exactly like the sequential warm start: its verdict stands
            if good[0]:  # a genuine jump
                f = 1
                Q[i], ok[i], step[i], jump[i] = q[0], True, d[0].max(), True
                moved = np.flatnonzero(d[0] > limit)
                sing = " — at a singular configuration" if (near[i - 1] if i else False) or res.near_singular[0] else ""
                why[i] = ("joint jump from the previous point: " +
                          ", ".join(f"{robot.joint_names[m]} {_deg(robot, m, q[0, m] - last[m])}" for m in moved) +
                          f" in one step (max_step {_deg(robot, int(moved[0]), limit[moved[0]]).lstrip('+')})" + sing)
                last = q[0].copy()
            else:  # unsolved: so are all the following points this seed fails (same seed sequentially)
                f = int(np.argmax(good)) if good.any() else j - i
                rs = np.atleast_1d(res.reason)
                for m in range(f):
                    Q[i + m] = q[m]
                    why[i + m] = f"not solved: {rs[m]}"
            size = START_BLOCK
        sl = slice(i, i + f)
        near[sl] = np.asarray(res.near_singular)[:f]
        perr[sl] = np.asarray(res.position_error)[:f]
        oerr[sl] = np.asarray(res.orientation_error)[:f]
        if i == 0 and f and ok[0]:
            step[0] = 0.0  # the move from q0 onto the path is not a path step
            if jump[0]:
                jump[0], why[0] = False, ""
        i += f

    if k > 1 and jump[1] and near[0] and ok[0]:  # a spin out of a singular start: say how to avoid it
        calls += 1
        r0 = ik(robot, target[0:1], Q[1][None], method="lm", limits=limits, restarts=0,
                tol_position=SOLVE * tol_p, tol_orientation=SOLVE * tol_o)
        if bool(r0.success[0]):
            q_alt = _unwrap(np.asarray(r0.q), Q[1], rev)[0]
            if np.all(np.abs(q_alt - Q[1]) <= limit):
                why[1] += (f"; starting from q0 = {np.round(q_alt, 6).tolist()} (the same first pose) avoids it")

    inside = robot.within_limits(Q)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    for m in np.flatnonzero(~inside & ok):  # (an unsolved point's q says nothing about the limits)
        out = np.flatnonzero((Q[m] < lo - LIMIT_TOL) | (Q[m] > hi + LIMIT_TOL))
        words = ", ".join(f"{robot.joint_names[a]} = {_deg(robot, a, Q[m, a]).lstrip('+')} outside "
                          f"[{_deg(robot, a, lo[a]).lstrip('+')}, {_deg(robot, a, hi[a]).lstrip('+')}]" for a in out)
        why[m] = "; ".join(x for x in (why[m], f"outside the joint limits: {words}") if x)
    near &= ok  # like the limits: an unsolved point's q says nothing about singularity
    for m in np.flatnonzero(near):
        why[m] = "; ".join(x for x in (why[m], "near a singularity (σ_min/σ_max < 1e-3)") if x)
    why = [w or "ok" for w in why]
    report = FollowReport(ok, perr, oerr, step, jump, inside, near, tuple(why), use, calls)

    if k >= 3:
        qd = np.gradient(Q, t, axis=0, edge_order=2)
        qdd = np.gradient(qd, t, axis=0, edge_order=2)
    elif k == 2:
        qd = np.gradient(Q, t, axis=0)
        qdd = np.zeros_like(Q)
    else:
        qd, qdd = np.zeros_like(Q), np.zeros_like(Q)
    if task != "pose":  # the path fixes only positions (or the approach): record the poses reached
        from ..kinematics import fk

        poses = fk(robot, Q)
    meta = {"kind": "follow", "task": task, "method": use, "ok": report.ok,
            "path": getattr(path, "meta", {}).get("kind", "poses")}
    return for_robot(robot, t, Q, qd, qdd, poses=poses, meta=meta), report
