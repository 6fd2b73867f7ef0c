"""UR-type arms (UR3/UR5/UR10 and kin): yaw, the wrist Euler triple, then the planar arm.

These arms have no spherical wrist: axes 2, 3 and 4 are parallel, 5 ⟂ 4 and 6 ⟂ 5, and axes
5 and 6 meet in a point P5 (UR's frame-5 origin). The classic solution (Hawkins 2013, for UR's
DH table: θ1 = atan2(p5y, p5x) ± acos(d4 / r) + π/2, θ5 = ±acos(…), θ6 from the tool's x and
y axes, θ2…θ4 from a planar 3R) is the same as this reading of the geometry:

  1. P5 = p + R w (w: P5 in tool coordinates, −d6 ẑ for UR); P5 stays at the lateral offset
     d (d4 on the UR) along the parallel axes, so the yaw equation gives θ1 (shoulder ±)
  2. with θ1 known, R(joint-2 frame)ᵀ R06 = Rz(A) X R(C4) Rz(θ5) R(C5) Rz(θ6) R(C6), where
     A = θ2 + θ3 + θ4 (with the chain's offsets) is the pitch of the parallel joints: three
     axes each ⟂ the next, so `wrist.solve` gives A, θ5, θ6 (wrist no flip / flip); at
     sin θ5 = 0 (axis 6 parallel to 2–4) A keeps its reference and θ6 takes the rest
  3. the wrist point W = P5 − (link 4 turned by A) is reached by links 2–3 (elbow up/down),
     θ4 = A − θ2 − θ3   (`arm.chain`)

2 × 2 × 2 = 8 candidates. The geometry is read from the robot's chain and checked. Labels
are per branch: "elbow up" is the elbow above the line from axis 2 to W while W lies on the
shoulder branch's side of axis 2 (P5 decides the branch, and W can sit on the other side).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.memo import per_robot
from ...model.robot import Robot
from ..target import Target
from . import wrist
from .arm import SHOULDER, ArmPlane, arm_plane, chain, last_angle, times, to_plane, yaw
from .geometry import LENGTH_TOL, NotAnalytic, common_point, frames0, in_frame, require
from .planar import ELBOWS
from .planar import LABELS as ELBOW_LABELS


@dataclass(frozen=True, eq=False)
class URArm:
    """What the solver needs of a UR-type robot, read once per robot."""

    plane: ArmPlane  # joints 1–4 and P5
    cols: np.ndarray  # columns w, R(C6) row 0, R(C6) row 2: R @ cols gives P5 − p and the tool axes
    wrist: wrist.Wrist  # B = X R(C4): last arm frame → joint 5, C = R(C5): joint 5 → joint 6
    labels: tuple[str, ...]


@per_robot
def structure(robot: Robot) -> URArm:
    """Read and check the geometry; `NotAnalytic` says what does not fit."""
    require(robot.n == 6 and all(robot.revolute), robot, "the UR solver needs six revolute joints")
    F = frames0(robot)
    p5, miss = common_point(robot, (4, 5))
    require(miss < LENGTH_TOL * max(1.0, float(np.abs(F[:, :3, 3]).max())), robot,
            "axes 5 and 6 do not meet")
    plane = arm_plane(robot, (1, 2, 3), p5)
    R = robot.C[:, :3, :3]
    B = plane.flip @ R[4]
    require(wrist.check(B, R[5]), robot, "axis 5 is not perpendicular to axes 4 and 6")
    labels = tuple(f"{s} / {e} / {w}" for s in plane.shoulder_names() for e in ELBOW_LABELS
                   for w in wrist.LABELS)
    return URArm(plane, np.stack([in_frame(F[6], p5), R[6][0], R[6][2]], axis=1), wrist.Wrist.of(B, R[5]), labels)


def solve(robot: Robot, target: Target, q_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """All 8 branches for pose targets (N): q (N, 8, 6), whether the arm reaches each branch's
    wrist point (N, 8) and the labels; q_ref (N or 1, 6) gives the pitch θ2 + θ3 + θ4 at the wrist
    singularity.

    >>> import kinematica as km
    >>> ur5 = km.load("ur5")
    >>> q0 = np.array([0.1, -1.2, 1.5, -0.9, 1.3, 0.4])
    >>> q, reach, labels = solve(ur5, km.targets.pose(km.fk(ur5, q0)[None]), np.zeros((1, 6)))
    >>> bool(np.any(np.all(np.abs(q[0] - q0) < 1e-9, axis=-1)))
    True
    """
    arm = structure(robot)
    if target.kind != "pose":
        raise NotAnalytic(f"{robot.name!r}: the UR solver needs a full pose target, got a {target.kind} target")
    plane, ref, N = arm.plane, q_ref + robot.offsets, len(target.p)
    V = np.matmul(arm.cols.T, target.rotation.transpose(0, 2, 1))  # rows R w, R x6, R z6
    V[:, 0] += target.p - plane.p0
    V = times(V, plane.R0)  # P5 and the two tool axes in the joint-1 frame
    th1, ok1 = yaw(plane, V[:, 0], ref[:, 0])
    U = to_plane(plane, th1, V)  # (N, 2 shoulders, 3, 3) in the joint-2 frame
    g = U[:, :, 0] - plane.p1
    A, th5, th6 = wrist.solve(U[:, :, 2], U[:, :, 1], arm.wrist, last_angle(plane, ref[:, 1:4])[:, None])
    sign = (SHOULDER[:, None] * ELBOWS)[:, :, None]  # elbow up: −sign ρ; (2 shoulders, 2 elbows, 1)
    (th2, th3, th4), _, ok = chain(plane, g[:, :, None, None, 0], g[:, :, None, None, 1], sign, A[:, :, None, :])
    out = np.empty((N, 2, 2, 2, 6))
    out[..., 0] = th1[:, :, None, None]
    out[..., 1], out[..., 2], out[..., 3] = th2, th3, th4
    out[..., 4], out[..., 5] = th5[:, :, None, :], th6[:, :, None, :]
    out -= robot.offsets
    reach = np.broadcast_to(ok & ok1[:, None, None, None], (N, 2, 2, 2)).reshape(N, 8)
    return out.reshape(N, 8, 6), reach, list(arm.labels)
