"""The frames of IK: what a target means, and the frame the solvers iterate in.

One frame for the user: every target — position, pose, approach, pitch, planar (x, y, φ) — is
in the world frame, the frame of `km.fk(robot, q)` (the whole chain base · joints · tool).
The verdict on a solution is that FK against the target as given (`judged`), nothing else.

The solvers iterate on a (robot, target) pair that always travels together (`solver_problem`):
  - a spatial arm: the robot and the world target themselves;
  - a planar arm (every joint turns about its base's z axis): the same arm with its base
    removed, and the target in base coordinates as a planar goal (x, y, φ): the rows the arm
    can move, wherever its base puts the plane (tilted too).

Target forms that refer to the robot are resolved against it (`fit_target`):
  - a pitch φ: the approach lies in the vertical plane through joint 1's axis and the target
    (joint 1's frame C0 = base·B1 gives "vertical": its z axis), φ above that frame's xy
    plane — paper 003's convention, for a robot placed anywhere;
  - a planar (x, y, φ): world x, y and the heading φ of the tool's x axis about world z. Only a
    plane parallel to the world xy plane has such points; on a tilted plane give a 3-D
    position or pose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.memo import per_robot
from ..model.robot import Robot
from .target import Target, TargetError, planar, pose

LEVEL = 1e-12  # sin of the base z axis's tilt below this: the plane is parallel to the world xy plane
ON_PLANE = 1e-9  # a 3-D point within this × the arm's size of the plane is on it
FLAT = 1e-9  # rad: a target orientation turned within this out of the plane's rotations is one of them
SHARP = 1e-3  # the tool x axis's share in the plane below this: its heading is ill-defined


@dataclass(frozen=True, eq=False)
class Plane:
    """A planar arm's plane: the arm without its base, and what its targets must satisfy."""

    robot: Robot  # the arm with base = identity: its FK is in base coordinates
    height: float  # the plane's z in base coordinates
    R0: np.ndarray  # the tool's rotation in base coordinates at home: every other is Rz(ψ)·R0
    size: float  # a length for the on-plane test
    level: bool  # the plane is parallel to the world xy plane
    sharp: bool  # the tool's x axis has a heading in the plane (see SHARP)


@per_robot
def plane_of(robot: Robot) -> Plane | None:
    """The plane of a planar robot (`kinematics.manipulability.is_planar`), or None."""
    from ..kinematics.fk import fk
    from ..kinematics.manipulability import is_planar

    if not is_planar(robot):
        return None
    bare = robot.replace(base=np.eye(4))
    T = fk(bare, bare.q_home)
    size = max(1.0, float(np.abs(robot.before[:, :3, 3]).sum() + np.abs(robot.after[:, :3, 3]).sum()
                          + np.abs(robot.tool[:3, 3]).sum()))
    return Plane(bare, float(T[2, 3]), T[:3, :3].copy(), size, bool(np.hypot(*robot.base[:2, 2]) <= LEVEL),
                 bool(np.hypot(T[0, 0], T[1, 0]) > SHARP))


def resolve(robot: Robot, t: Target) -> Target:
    """The target with its robot-relative parts made world quantities: a pitch becomes the
    approach vector of the vertical plane through joint 1 (see the module docstring)."""
    if t.kind != "approach" or t.pitch is None:
        return t
    C0 = robot.C[0]
    local = (t.p - C0[:3, 3]) @ C0[:3, :3]
    psi = np.arctan2(local[..., 1], local[..., 0])
    phi = t.pitch
    a = np.stack(np.broadcast_arrays(np.cos(phi) * np.cos(psi), np.cos(phi) * np.sin(psi), np.sin(phi)), axis=-1)
    return Target("approach", t.p, a=a @ C0[:3, :3].T, weights=t.weights)  # resolved: no pitch left


def fit_target(robot: Robot, t: Target) -> Target:
    """The world target as the robot can take it: robot-relative forms resolved (`resolve`);
    on a planar arm whose plane is level, a 3-D position on the plane becomes the planar goal
    (x, y), a pose turned only about z (x, y, φ) — still world quantities. Anything off the
    plane, a planar goal for a spatial arm, or one on a tilted plane is refused in words
    (TargetError)."""
    t = resolve(robot, t)
    pl = plane_of(robot)
    if t.kind == "planar":
        if pl is None:
            raise TargetError(f"a planar target (x, y) needs a planar robot; {robot.name!r} moves in 3-D: "
                              f"give a position (x, y, z)")
        if not pl.level:
            raise TargetError(f"{robot.name!r} moves in a plane tilted in the world frame (its base turns z "
                              f"away from the vertical): (x, y) names no point on it; give a 3-D position or a pose")
        return t
    if pl is None or t.kind not in ("position", "pose"):
        return t
    _check_on_plane(robot, pl, t)
    if not pl.level or (t.kind == "pose" and not pl.sharp):
        return t  # `solver_problem` takes it into the plane
    phi = np.arctan2(t.rotation[..., 1, 0], t.rotation[..., 0, 0]) if t.kind == "pose" else None
    return planar(t.p[..., :2], phi, t.weights)


def _check_on_plane(robot: Robot, pl: Plane, t: Target) -> None:
    B = robot.base
    local = (t.p - B[:3, 3]) @ B[:3, :3]
    off = np.abs(local[..., 2] - pl.height)
    if np.any(off > ON_PLANE * pl.size):
        raise TargetError(f"{robot.name!r} moves in the plane z = {pl.height:.6g} {robot.length_unit} of its base "
                          f"frame; the target is {off.max():.4g} {robot.length_unit} off it: give a point on the plane"
                          + (" or (x, y)" if pl.level else ""))
    if t.kind == "pose":
        M = B[:3, :3].T @ t.rotation @ pl.R0.T  # a turn about the plane's normal when reachable
        tilt = np.arctan2(np.hypot(M[..., 0, 2], M[..., 1, 2]), M[..., 2, 2])
        if np.any(tilt > FLAT):
            raise TargetError(f"{robot.name!r} is planar: its tool can only turn about the plane's normal, and the "
                              f"target orientation tilts {np.degrees(tilt.max()):.3g}° out of that")


def solver_problem(robot: Robot, t: Target) -> tuple[Robot, Target]:
    """The (robot, target) pair the solvers iterate on, for a world target `t` from
    `fit_target`: the same pair for a spatial arm; for a planar arm the arm without its base
    and the goal in base coordinates, planar (x, y[, φ]) unless the tool's heading is
    ill-defined (then the pose itself, in base coordinates)."""
    pl = plane_of(robot)
    if pl is None:
        return robot, t
    B = robot.base
    Rb = B[:3, :3]
    if t.weights is not None and not np.allclose(Rb, np.eye(3), atol=1e-12):
        _check_weights(robot, t.kind, t.weights)
    if t.kind == "planar":  # world (x, y, φ) on a level plane: Rb = Rz(α) or Rz(α)·Rx(π)
        xy = (t.p[..., :2] - B[:2, 3]) @ Rb[:2, :2]
        phi = None if t.phi is None else np.sign(Rb[2, 2]) * (t.phi - np.arctan2(Rb[1, 0], Rb[0, 0]))
        return pl.robot, planar(xy, phi, t.weights)
    local = (t.p - B[:3, 3]) @ Rb
    if t.kind == "position":
        return pl.robot, planar(local[..., :2], None, t.weights)
    if t.kind == "approach":
        return pl.robot, Target("approach", local, a=t.approach_axis @ Rb, weights=t.weights)
    R = Rb.T @ t.rotation
    if not pl.sharp:
        T = np.zeros(local.shape[:-1] + (4, 4))
        T[..., :3, :3], T[..., :3, 3], T[..., 3, 3] = R, local, 1.0
        return pl.robot, pose(T, t.weights)
    return pl.robot, planar(local[..., :2], np.arctan2(R[..., 1, 0], R[..., 0, 0]), t.weights)


def _check_weights(robot: Robot, kind: str, w: np.ndarray) -> None:
    """Per-axis weights are along the world axes; a planar arm is solved in its base's axes,
    which keep the weighted error only where the weights do not tell those axes apart."""
    same = w[0] == w[1] if kind == "planar" else (w[0] == w[1] == w[2] and w[3] == w[4] == w[5])
    if not same:
        raise TargetError(f"per-axis weights are along the world axes, and {robot.name!r}'s base turns its plane "
                          f"away from them: give equal weights on x, y" + ("" if kind == "planar" else
                          ", z (and on the three rotations)"))


def judged(robot: Robot, target) -> Target:
    """The target the verdict compares FK against: the user's, in the world frame, with its
    robot-relative parts resolved."""
    from .target import as_target

    return resolve(robot, as_target(target))
