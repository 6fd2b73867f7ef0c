"""Training data for learned IK: FK samples of one branch, and the network inputs of a target.

An IK inverse is many-valued (elbow up and down reach the same point); a network fitted to
samples of several branches learns their average, which solves nothing. So samples are drawn
uniformly inside one *branch*: a box of joint values inside the limits small enough that every
target in it has one solution there — by default the limits with the elbow on one side of
straight (planar arms: joint 2; spatial arms: joint 3), revolute joints that may turn a full
turn or more held to ±90° (the arm facing forward, not over its shoulder), and a 5-DOF arm's
roll fixed at home
(position + pitch leave it free).

Inputs per task (`task_of`):
  "planar"  planar arms: (x, y, φ) in the base frame, φ the heading of the tool x axis;
  "pitch"   4- and 5-joint spatial arms: the wrist point (on joint 4's axis, `wrist_point`) in
            cylindrical coordinates about joint 1's axis and the pitch of the tool z axis above
            that frame's xy plane, in the vertical plane through the target (paper 003's
            convention, as `ik.frame.resolve` reads a pitch);
  "pose"    6R arms with a spherical wrist: the wrist centre and the orientation (`learn.wrist`),
            the branch one of the closed-form solver's ("shoulder front / elbow up / wrist no
            flip"; "elbow+" / "elbow-" pick the first with the elbow up / down).
For "pitch" and "pose" the network reads the wrist point's three coordinates only (ARM_INPUTS)
and answers the first three joints; the wrist joints follow from the orientation in closed
form (`learn.closed`). Angles are wrapped into a window chosen from the training data
(`learn.scaling`). Training samples may be drawn densely near the edges of the branch box
(`sample_joints`' edge share): the joint limits and the elbow-straight singularity, where a
smooth model errs most.

>>> import kinematica as km
>>> b = branch(km.load("planar-3r"), "elbow-")
>>> b.spec, np.degrees(b.box[1]).round(1).tolist()
('elbow-', [-100.0, 0.0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import KinematicaError
from ..ik.frame import fit_target, plane_of, solver_problem
from ..ik.target import Target, TargetError, as_target
from ..keywords import strict
from ..kinematics.fk import fk, fk_frames
from ..model.robot import Robot
from . import wrist

TASKS = {"planar": ("x", "y", "φ"), "pitch": ("ψ", "ρw", "zw", "pitch"), "pose": ("ψ", "ρw", "zw", "rx", "ry", "rz")}
ARM_INPUTS = {"planar": 3, "pitch": 3, "pose": 3}  # the leading inputs the network reads (the rest: closed form)
ANGULAR = {"planar": (False, False, True), "pitch": (False, False, False, True),  # ψ stays in its half-plane
           "pose": (True,) + (False,) * 5}
FREE = np.pi / 2  # an unlimited revolute joint is sampled within ±FREE of zero
EDGE = 0.05  # share of a joint's box range: an edge sample has one joint within this of an end


class LearnError(KinematicaError, ValueError):
    """Learned-model input is malformed: a branch, a sample count, a target the model cannot take."""


@dataclass(frozen=True, eq=False)
class Branch:
    """One IK branch: spec (the words it was given in), box (n, 2) joint intervals (rad or the
    length unit); a joint with lo == hi is held there (not learned)."""

    spec: str
    box: np.ndarray

    @property
    def learned(self) -> np.ndarray:
        """Indices of the joints the model predicts."""
        return np.flatnonzero(self.box[:, 1] > self.box[:, 0])


def task_of(robot: Robot) -> str:
    """The learned-IK task of a robot: "planar" or "pitch"; other arms are refused in words."""
    if plane_of(robot) is not None and robot.n == 3:
        return "planar"
    if plane_of(robot) is None and robot.n in (4, 5) and bool(np.all(robot.revolute)):
        if not _pitch_settable(robot):
            raise LearnError(f"{robot.name!r}: its tool z axis (the approach a pitch sets) stays horizontal however "
                             f"the joints turn, so position + pitch is no IK problem for it (the arm is redundant "
                             f"for the position alone); learned IK needs a tool z axis in the arm's vertical plane")
        return "pitch"
    if plane_of(robot) is None and robot.n == 6 and wrist.fits(robot):
        return "pose"
    raise LearnError(f"learned IK covers planar 3-joint arms (x, y, φ), 4- or 5-joint revolute arms "
                     f"(position + pitch) and 6R arms with a spherical wrist (pose); {robot.name!r} has {robot.n} "
                     f"joints" + (" in a plane" if plane_of(robot) is not None else "")
                     + (", but no spherical wrist with a closed-form solver" if robot.n == 6 else ""))


def _pitch_settable(robot: Robot) -> bool:
    """Whether the tool z axis tilts out of joint 1's xy plane at some configuration (checked at
    a few fixed ones): for paper 001's arm it stays horizontal, along the joint axes."""
    q = robot.q_home + np.array([[0.0], [0.4], [-0.7], [1.1]]) * np.arange(1, robot.n + 1) / robot.n
    a = fk(robot, q)[:, :3, 2] @ robot.C[0][:3, :3]
    return bool(np.abs(a[:, 2]).max() > 1e-6)


def _base_box(robot: Robot) -> np.ndarray:
    """The limits, with every revolute joint that may turn a full turn or more (unlimited, or
    ±360° as paper 001's arm) held to ±FREE: within a full turn each target has several
    solutions (q and q + 2π, and the arm reaching over its shoulder)."""
    box = robot.limits.copy()
    wide = robot.revolute & ~(box[:, 1] - box[:, 0] < 2 * np.pi)  # NaN-safe: inf − inf counts as wide
    box[:, 0] = np.where(wide, np.maximum(box[:, 0], -FREE), box[:, 0])
    box[:, 1] = np.where(wide, np.minimum(box[:, 1], FREE), box[:, 1])
    if not np.all(np.isfinite(box)):
        raise LearnError(f"{robot.name!r} has an unlimited prismatic joint: give it limits to sample within")
    return box


@strict
def branch(robot: Robot, spec: str = "elbow+") -> Branch:
    """The branch named by `spec`: "elbow+" / "elbow-" (the default boxes above), optionally
    followed by comma-separated joint intervals "NAME=LO..HI" (degrees for revolute joints,
    the length unit for prismatic; NAME a joint name or j1, j2, …) that narrow the box."""
    if not isinstance(spec, str) or not spec.strip():
        raise LearnError(f"branch: expected words such as 'elbow+' or 'elbow-,j1=-45..45', got {spec!r}")
    task = task_of(robot)
    box = _base_box(robot)
    if task == "pose":
        return _pose_branch(robot, spec.strip(), box)
    parts = [p.strip() for p in spec.split(",")]
    head = parts[0] if parts[0] in ("elbow+", "elbow-") else "elbow+"
    elbow = 1 if task == "planar" else 2
    lo, hi = box[elbow]
    box[elbow] = (max(lo, 0.0), hi) if head == "elbow+" else (lo, min(hi, 0.0))
    if task == "pitch" and robot.n == 5:
        box[4] = robot.q_home[4]
    for item in parts[1 if parts[0] in ("elbow+", "elbow-") else 0:]:
        j, (a, b) = _interval(robot, item)
        box[j] = (max(box[j, 0], a), min(box[j, 1], b))
    empty = np.flatnonzero(box[:, 1] < box[:, 0])
    if empty.size:
        raise LearnError(f"branch {spec!r}: joint {robot.joint_names[empty[0]]} has no values left inside its limits")
    return Branch(spec.strip(), box)


def _pose_branch(robot: Robot, spec: str, box: np.ndarray) -> Branch:
    names = wrist.labels(robot)
    if spec in ("elbow+", "elbow-"):
        want = "elbow up" if spec == "elbow+" else "elbow down"
        return Branch(next(n for n in names if want in n), box)
    for n in names:
        if spec.lower() == n.lower():
            return Branch(n, box)
    raise LearnError(f"branch {spec!r}: {robot.name!r}'s branches are " + "; ".join(repr(n) for n in names))


def _interval(robot: Robot, item: str) -> tuple[int, tuple[float, float]]:
    name, eq, rng = item.partition("=")
    lo_s, dots, hi_s = rng.partition("..")
    names = list(robot.joint_names)
    j = names.index(name.strip()) if name.strip() in names else None
    if j is None and name.strip().lower().startswith("j") and name.strip()[1:].isdigit():
        j = int(name.strip()[1:]) - 1
    if not eq or not dots or j is None or not 0 <= j < robot.n:
        raise LearnError(f"branch: {item!r} is not 'elbow+', 'elbow-' or NAME=LO..HI with NAME one of "
                         f"{', '.join(names)} or j1..j{robot.n}")
    try:
        a, b = float(lo_s), float(hi_s)
    except ValueError:
        raise LearnError(f"branch: {item!r}: LO and HI must be numbers") from None
    if not (np.isfinite(a) and np.isfinite(b) and a <= b):
        raise LearnError(f"branch: {item!r}: expected finite LO <= HI")
    scale = np.pi / 180 if robot.revolute[j] else 1.0
    return j, (a * scale, b * scale)


def sample_joints(br: Branch, count: int, rng: np.random.Generator, robot: Robot | None = None,
                  edge: float = 0.0) -> np.ndarray:
    """`count` joint vectors in the branch box, (count, n): uniform, except that a share `edge`
    of them has one learned joint (picked at random) within EDGE of its range of one end of the
    box; for a 6R pose branch (give the robot) only those on the named closed-form branch, drawn
    in rounds."""
    pose = robot if robot is not None and task_of(robot) == "pose" else None  # the robot of a pose branch
    got: list[np.ndarray] = []
    have = 0
    for _ in range(40):
        q = _draw(br, max(4 * (count - have), 256) if pose is not None else count, rng, edge)
        if pose is not None:
            q = q[wrist.in_branch(pose, q, br.spec)]
        got.append(q)
        have += len(q)
        if have >= count:
            return np.concatenate(got)[:count]
    who = "the robot" if robot is None else repr(robot.name)  # (given: only a pose branch gets here)
    raise LearnError(f"branch {br.spec!r}: too few samples of {who} fall on it inside the limits "
                     f"({have} of {count}); pick another branch")


def _draw(br: Branch, count: int, rng: np.random.Generator, edge: float) -> np.ndarray:
    lo, hi = br.box[:, 0], br.box[:, 1]
    q = lo + (hi - lo) * rng.random((count, len(lo)))
    k = round(edge * count)
    if k and len(br.learned):
        j = br.learned[rng.integers(len(br.learned), size=k)]
        u = EDGE * rng.random(k)
        q[np.arange(k), j] = np.where(rng.random(k) < 0.5, lo[j] + u * (hi[j] - lo[j]), hi[j] - u * (hi[j] - lo[j]))
    return q


def fk_targets(robot: Robot, q: np.ndarray) -> Target:
    """The world targets the tool reaches at q (N, n), in the form the task learns from."""
    T = fk(robot, q)
    if task_of(robot) == "planar":
        from ..ik.target import planar

        return planar(T[:, :2, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0]))
    if task_of(robot) == "pose":
        from ..ik.target import pose

        return pose(T)
    return Target("approach", T[:, :3, 3].copy(), a=T[:, :3, 2].copy())


def front(robot: Robot, br: Branch) -> float:
    """The azimuth ψ0 (rad, about joint 1's axis) the branch faces: that of the tool at the box
    centre. A pitch-task target is read in the half-plane around it (see `inputs`)."""
    task = task_of(robot)
    if task == "pose":
        return wrist.reference(robot, br.box)[0]
    if task != "pitch":
        return 0.0
    T = robot.C[0]
    p = (fk(robot, br.box.mean(axis=1))[:3, 3] - T[:3, 3]) @ T[:3, :3]
    return float(np.arctan2(p[1], p[0]))


def inputs(robot: Robot, target: Target | np.ndarray, psi0: float = 0.0, br: Branch | None = None) -> np.ndarray:
    """Inputs (N, d) of world targets. Planar: (x, y, φ) in the base frame. Pitch: the wrist
    point's cylindrical coordinates about joint 1's axis and the pitch, (ψ, ρw, zw, pitch), with
    the azimuth ψ taken within ±90° of the branch's `psi0` and the radius ρw signed (negative
    past the axis), so that a target crossing the axis moves smoothly instead of turning ψ by π;
    the pitch is the tool z axis's angle above the horizontal, towards (cos ψ, sin ψ). Joint 1
    follows ψ, joints 2 and 3 the wrist point (ρw, zw) alone: what a first-order rule can
    follow. A target lacking what the task needs (a heading, a pitch) is refused in words."""
    t = fit_target(robot, as_target(target))
    task = task_of(robot)
    if task == "planar":
        _rs, tp = solver_problem(robot, t)
        if tp.kind != "planar" or tp.phi is None:
            raise LearnError(f"the model of {robot.name!r} answers (x, y, φ) targets: give the heading φ "
                             f"(a planar point with phi, or a pose)")
        t2 = tp.reshape(-1)
        return np.column_stack([t2.p[:, 0], t2.p[:, 1], tp.phi.reshape(-1)])
    if task == "pose":
        if t.kind != "pose":
            raise LearnError(f"the model of {robot.name!r} answers full poses: give a position and an orientation")
        if br is None:
            raise LearnError(f"the inputs of {robot.name!r}'s pose model are taken about a branch: give br")
        t = t.reshape(-1)
        return wrist.pose_inputs(robot, t.p, t.rotation, psi0, wrist.reference(robot, br.box)[1])
    if t.kind == "pose":
        t = Target("approach", t.p, a=t.rotation[..., :, 2].copy())
    if t.kind != "approach":
        raise LearnError(f"the model of {robot.name!r} answers position + pitch targets: give a pitch, an "
                         f"approach vector or a pose, not a {t.kind} alone")
    t = t.reshape(-1)
    C0 = robot.C[0]
    p = (t.p - C0[:3, 3]) @ C0[:3, :3]
    a = t.a @ C0[:3, :3]
    az = np.arctan2(p[:, 1], p[:, 0])
    back = np.abs(np.angle(np.exp(1j * (az - psi0)))) > np.pi / 2
    psi = np.angle(np.exp(1j * (az - np.where(back, np.pi, 0.0) - psi0))) + psi0
    u = np.column_stack([np.cos(psi), np.sin(psi)])
    rho = np.einsum("ij,ij->i", p[:, :2], u)
    pitch = np.arctan2(a[:, 2], np.einsum("ij,ij->i", a[:, :2], u))
    va, vn = wrist_offset_in_plane(robot, br)
    ca, sa = np.cos(pitch), np.sin(pitch)
    return np.column_stack([psi, rho - va * ca + vn * sa, p[:, 2] - va * sa - vn * ca, pitch])


def wrist_offset_in_plane(robot: Robot, br: Branch | None = None) -> tuple[float, float]:
    """(v_a, v_n): the tool point minus the wrist point (joint 4's axis in the arm's vertical
    plane) along the tool z axis a and along n, a turned 90° up in that plane, read at the
    centre of the branch box (a held joint 5 stays there); constant while joints 2–4 turn, so the
    wrist point is p − v_a·a − v_n·n."""
    q = (br.box if br is not None else _base_box(robot)).mean(axis=1)
    F = fk_frames(robot, q)
    C0 = robot.C[0]
    o4 = ((F[3] @ robot.before[3])[:3, 3] - C0[:3, 3]) @ C0[:3, :3]
    p, a = (F[-1][:3, 3] - C0[:3, 3]) @ C0[:3, :3], F[-1][:3, 2] @ C0[:3, :3]
    h = np.hypot(p[0], p[1])
    u = np.array([p[0] / h, p[1] / h, 0.0]) if h > 1e-12 else np.array([1.0, 0.0, 0.0])
    au, az = a @ u, a[2]
    n = -az * u + au * np.array([0.0, 0.0, 1.0])  # a = au·u + az·ẑ turned by +90° in the plane
    return float((p - o4) @ a), float((p - o4) @ n)


def split(count: int, rng: np.random.Generator, fractions=(0.8, 0.1)) -> tuple[np.ndarray, ...]:
    """Indices (train, validation, test) of `count` samples, each a distinct target, shuffled:
    the validation and test targets are never trained on."""
    idx = rng.permutation(count)
    a = round(fractions[0] * count)
    b = a + round(fractions[1] * count)
    return idx[:a], idx[a:b], idx[b:]


__all__ = ["Branch", "LearnError", "TargetError", "branch", "task_of", "sample_joints", "fk_targets", "inputs",
           "front", "split", "wrist_offset_in_plane", "TASKS", "ANGULAR", "ARM_INPUTS"]
