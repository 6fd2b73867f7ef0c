"""The pose list of a session and how it is played: add, rename, delete and reorder poses, plan
them into a trajectory (joint space, or the tool on Cartesian lines / an arc / a spline), and
the arm's joint values at any time of that trajectory. Plain Python over the core, no NiceGUI.

Plans (each segment between consecutive poses lasts `session.plan.seconds` s):
  joint   quintic segments q_k → q_{k+1}, at rest on every pose (q̇ = q̈ = 0 there), so the
          arm is exactly on pose k at t = k·seconds.
  line    straight tool lines T_k → T_{k+1} (orientation by slerp), each with a trapezoidal
          speed profile (at rest on every pose), followed by IK (`km.trajectory.follow`).
  arc     the circular arc through the tool positions of exactly 3 poses (orientation slerped
          pose to pose), 2·seconds long, trapezoidal speed, followed by IK.
  spline  a C² cubic spline through all tool positions (≥ 3 poses; with 2 it is the line),
          (k − 1)·seconds long, trapezoidal speed along its arc length, followed by IK.

Cartesian plans are followed warm-started from the first pose's q with a task the arm can do:
the full pose for arms with six or more joints, position + tool axis for five (positions only,
said so, if the axis cannot follow), the position for fewer, x, y and heading for planar arms.

>>> from kinematica.app.state import Session
>>> s = Session()
>>> add_pose(s).name, add_pose(s, s.q + 0.2).name
('P1', 'P2')
>>> tr, note = plan(s)
>>> round(tr.duration, 6), note
(2.0, '2 poses, 2.0 s, joint space.')
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

import kinematica as km
from kinematica.trajectory import CartesianPath, TrajectoryError

from ..errors import InputError
from .state import PLAN_KINDS, Pose, Session

STEPS = 60  # samples per segment: smooth on screen at 30 frames per second for 2 s segments
MAX_NAME = 40


# --- the list ----------------------------------------------------------------------------------
def next_name(poses: list[Pose]) -> str:
    """The first of P1, P2, … not taken (counting on from the list's length)."""
    taken = {p.name for p in poses}
    k = len(poses) + 1
    while f"P{k}" in taken:
        k += 1
    return f"P{k}"


def add_pose(s: Session, q: np.ndarray | None = None, name: str | None = None) -> Pose:
    """Append q (core units; default the arm's current q) to the list, named `name` or P<k>."""
    q = s.q if q is None else np.asarray(q, dtype=float)
    if q.shape != (s.robot.n,) or not np.all(np.isfinite(q)):
        raise InputError(f"a pose needs {s.robot.n} finite joint values, got {q.tolist()}")
    pose = Pose(check_name(s.poses, name) if name is not None else next_name(s.poses), q.copy())
    s.poses.append(pose)
    return pose


def check_name(poses: list[Pose], name: str, index: int | None = None) -> str:
    """`name` stripped, or ValueError in words: empty, too long, or taken by another pose
    (the pose at `index` itself does not count)."""
    clean = " ".join(str(name).split())
    if not clean:
        raise InputError("a pose name cannot be empty")
    if len(clean) > MAX_NAME:
        raise InputError(f"a pose name has at most {MAX_NAME} characters, {clean[:12]!r}… has {len(clean)}")
    for i, p in enumerate(poses):
        if i != index and p.name == clean:
            raise InputError(f"another pose is already named {clean!r}")
    return clean


def rename(s: Session, index: int, name: str) -> str:
    """Rename pose `index`; returns the name kept. ValueError (nothing changed) if not valid."""
    _check_index(s, index)
    s.poses[index].name = check_name(s.poses, name, index)
    return s.poses[index].name


def delete(s: Session, index: int) -> Pose:
    """Remove pose `index` and return it."""
    _check_index(s, index)
    return s.poses.pop(index)


def move(s: Session, index: int, step: int) -> int:
    """Move pose `index` by `step` places (−1 up, +1 down), stopping at the ends; returns its
    new index."""
    _check_index(s, index)
    to = min(max(index + step, 0), len(s.poses) - 1)
    s.poses.insert(to, s.poses.pop(index))
    return to


def unique_names(poses: list[Pose], new: list[Pose]) -> list[Pose]:
    """`new` renamed where a name is taken (by the list or an earlier new pose): "name (2)"…"""
    taken = {p.name for p in poses}
    out = []
    for p in new:
        name, k = p.name, 2
        while name in taken:
            name, k = f"{p.name} ({k})", k + 1
        taken.add(name)
        out.append(Pose(name, p.q.copy()))
    return out


def _check_index(s: Session, index: int) -> None:
    if not 0 <= index < len(s.poses):
        raise IndexError(f"no pose {index + 1}: the list has {len(s.poses)}")


# --- planning ----------------------------------------------------------------------------------
def plan(s: Session) -> tuple[km.Trajectory | None, str]:
    """The session's poses planned per `s.plan`, and what planning said in words (the failure,
    or the points the arm does not reach). None when there is nothing to play."""
    poses, kind, seconds = s.poses, s.plan.kind, float(s.plan.seconds)
    if kind not in PLAN_KINDS:
        return None, f"Unknown plan {kind!r}: choose one of {', '.join(PLAN_KINDS)}."
    if not (np.isfinite(seconds) and seconds > 0):
        return None, f"Seconds per segment must be a positive number, got {seconds:g}."
    if len(poses) < 2:
        return None, f"{len(poses)} pose{'' if len(poses) == 1 else 's'}: add at least 2 to play them."
    if kind == "arc" and len(poses) != 3:
        return None, f"An arc goes through exactly 3 poses; the list has {len(poses)}."
    Q = np.array([p.q for p in poses])
    head = f"{len(poses)} poses"
    try:
        if kind == "joint":
            tr = _joint(s.robot, Q, seconds)
            return tr, f"{head}, {tr.duration:.1f} s, joint space."
        fallback = ""
        if kind == "spline" and len(poses) == 2:
            kind, fallback = "line", " (a spline needs 3 poses: with 2 it is the straight line)"
        T = km.fk(s.robot, Q)
        path = {"line": _lines, "arc": _arc, "spline": _spline}[kind](T, seconds)
        tr, words = _follow(s.robot, path, Q[0])
    except TrajectoryError as e:
        return None, f"{PLAN_KINDS[s.plan.kind].capitalize()} not planned: {e}."
    return tr, f"{head}, {tr.duration:.1f} s, {PLAN_KINDS[kind]}{fallback}: {words}"


def _joint(robot: km.Robot, Q: np.ndarray, seconds: float) -> km.Trajectory:
    parts = [km.trajectory.quintic(a, b, seconds, steps=STEPS, robot=robot) for a, b in pairwise(Q)]
    return km.trajectory.concatenate(parts)


def _smooth(total: float, T: float) -> dict[str, float]:
    """Trapezoidal time law over `total` (arc length or angle) lasting T: vmax = 2·total/T and
    amax = 8·total/T² give a shortest time of 0.75·T, which `ramp.trapezoid` stretches to T."""
    return {"vmax": 2.0 * total / T, "amax": 8.0 * total / T ** 2, "duration": T}


def _lines(T: np.ndarray, seconds: float) -> CartesianPath:
    """Straight lines through the poses T (k ≥ 2: `plan` checks), one segment each `seconds`."""
    first, *rest = (_line(a, b, seconds) for a, b in pairwise(T))
    path = first
    for seg in rest:
        path = path.then(seg)
    return path


def _line(a: np.ndarray, b: np.ndarray, seconds: float) -> CartesianPath:
    L = float(np.linalg.norm(b[:3, 3] - a[:3, 3]))
    angle = _angle(a[:3, :3], b[:3, :3])
    if max(L, angle) <= 1e-9:  # the same tool pose twice: hold still for the segment
        return CartesianPath(np.array([0.0, seconds]), np.stack([a, b]), np.zeros(2), True, {"kind": "hold"})
    return km.trajectory.line(a, b, steps=STEPS, **_smooth(L if L > 1e-12 else angle, seconds))


def _arc(T: np.ndarray, seconds: float) -> CartesianPath:
    path = km.trajectory.arc_through(T[0], T[1], T[2], steps=2 * STEPS)
    return km.trajectory.retime(path, **_smooth(path.length, 2 * seconds))


def _spline(T: np.ndarray, seconds: float) -> CartesianPath:
    path = km.trajectory.spline(T, steps=STEPS * (len(T) - 1))
    return km.trajectory.retime(path, **_smooth(path.length, (len(T) - 1) * seconds))


def _angle(A: np.ndarray, B: np.ndarray) -> float:
    """The rotation angle of AᵀB (rad), by atan2 so it is exact near 0."""
    E = A.T @ B
    sin = 0.5 * np.linalg.norm([E[2, 1] - E[1, 2], E[0, 2] - E[2, 0], E[1, 0] - E[0, 1]])
    return float(np.arctan2(sin, (np.trace(E) - 1.0) / 2.0))


def task_for(robot: km.Robot) -> str:
    """What a Cartesian plan asks of the arm: "planar" for planar arms, "pose" with six or more
    joints, "approach" (position + tool axis: 5 constraints) with five, "position" with fewer."""
    from kinematica.kinematics import is_planar

    if is_planar(robot):
        return "planar"
    return "pose" if robot.n >= 6 else "approach" if robot.n == 5 else "position"


def _follow(robot: km.Robot, path: CartesianPath, q0: np.ndarray) -> tuple[km.Trajectory, str]:
    """Follow the path from q0; a 5-joint arm whose tool axis cannot follow (see `radial_axes`)
    falls back to positions only (said so)."""
    task = task_for(robot)
    if task == "planar" and robot.n < 3:  # two joints cannot hold a heading too
        path = CartesianPath(path.t, path.poses, path.s, False, path.meta)
    if task == "approach":
        path = radial_axes(path)
    tr, report = km.trajectory.follow(robot, path, q0, task=task, limits="clip")
    prefix = ""
    if task == "approach" and not report.success.all():
        tr2, report2 = km.trajectory.follow(robot, path, q0, task="position", limits="clip")
        if report2.success.sum() > report.success.sum():
            missed = int((~report.success).sum())
            tr, report, task = tr2, report2, "position"
            prefix = (f"the tool axis could not follow at {missed} points, so the tool position only "
                      "is followed; ")
    return tr, prefix + describe(report, tr.t, task)


def radial_axes(path: CartesianPath) -> CartesianPath:
    """The path with each tool axis a turned about the vertical into the plane through the base
    axis and the tool position (its pitch asin(a_z) and the sign of its radial part kept):
    a' = (s·√(1 − a_z²)·r̂, a_z), r̂ the horizontal unit vector towards the tool. A 5-joint
    arm whose wrist moves in that plane (braccio-like) can hold such an axis anywhere, whereas
    the slerped axis leaves the plane whenever the base turns between two poses."""
    P = np.array(path.poses)
    a, p = P[:, :3, 2], P[:, :3, 3]
    r = np.hypot(p[:, 0], p[:, 1])
    ok = r > 1e-9 * max(1.0, float(np.abs(p).max()))  # on the base axis every direction is radial
    rhat = np.zeros_like(p)
    rhat[ok, :2] = p[ok, :2] / r[ok, None]
    side = np.where(np.einsum("ij,ij->i", a, rhat) < 0, -1.0, 1.0)
    flat = np.sqrt(np.clip(1.0 - a[:, 2] ** 2, 0.0, 1.0))
    new = np.where(ok[:, None], side[:, None] * flat[:, None] * rhat + np.outer(a[:, 2], [0, 0, 1]), a)
    P[:, :3, :3] = _frames(new / np.linalg.norm(new, axis=1, keepdims=True))
    return CartesianPath(path.t, P, path.s, True, path.meta)


def _frames(z: np.ndarray) -> np.ndarray:
    """Right-handed rotations (k, 3, 3) whose third column is z (k, 3) (unit); x ⟂ z from the
    world axis least aligned with z."""
    helper = np.eye(3)[np.argmin(np.abs(z), axis=1)]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.stack([x, np.cross(z, x), z], axis=2)


def describe(report: km.trajectory.FollowReport, t: np.ndarray, task: str) -> str:
    """A FollowReport in words: points not reached, joint jumps, limits, with times."""
    k = len(report.success)
    done = f"{task} followed at {k} points"
    missed = np.flatnonzero(~report.success)
    jumps = np.flatnonzero(report.jump)
    outside = np.flatnonzero(~report.within_limits & report.success)
    if not (missed.size or jumps.size or outside.size):
        return f"{done}, every point reached."
    words = []
    for idx, what in ((missed, "not reached"), (jumps, "with a joint jump"),
                      (outside, "outside the joint limits")):
        if idx.size:
            i = int(idx[0])
            words.append(f"{idx.size} point{'s' if idx.size > 1 else ''} {what} "
                         f"(first at {t[i]:.2f} s: {report.reasons[i]})")
    return f"{done}: " + "; ".join(words) + ". The arm plays its best attempt there."


def replan(s: Session) -> str:
    """Plan the session's poses into `s.trajectory` and `s.trajectory_note`; the player's time
    stays within the new duration. Returns how to show the note: "ok", "warning" or "error"."""
    tr, note = plan(s)
    s.trajectory, s.trajectory_note = tr, note
    s.t = min(max(s.t, 0.0), tr.duration) if tr is not None else 0.0
    if tr is None:
        return "error" if len(s.poses) >= 2 else ""
    return "ok" if tr.meta.get("ok", True) else "warning"


def q_at(tr: km.Trajectory, t: float) -> np.ndarray:
    """q at time t (clipped to the trajectory), linear between samples:
    q(t) = q_j + (t − t_j)/(t_{j+1} − t_j) · (q_{j+1} − q_j)."""
    times = tr.t
    t = float(min(max(t, times[0]), times[-1]))
    j = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)) if len(times) > 1 else 0
    if len(times) == 1:
        return tr.q[0].copy()
    u = (t - times[j]) / (times[j + 1] - times[j])
    return tr.q[j] + u * (tr.q[j + 1] - tr.q[j])
