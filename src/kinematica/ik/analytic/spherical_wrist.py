"""Six revolute joints with a spherical wrist: paper 004's decoupling, every branch, exactly.

When the last three axes meet in one point (the wrist centre O4), the position of O4 depends
on θ1..θ3 only and the orientation is finished by θ4..θ6 (paper 004, eqs. 14–21):

  1. wrist centre   O4 = p + R w,  w = O4 in tool coordinates (−d6 ẑ when the tool's z is
                    axis 6: paper 004's r_O4 = r_tool − d6 a, d6 = 0.1165 m on the KR6)
  2. position       θ1 from the yaw equation (shoulder ±), θ2, θ3 from the two-link arm in the
                    plane of joints 2–3 (elbow up/down) — `arm.yaw`, `arm.chain`; the shoulder
                    offset, the lateral offset d and the elbow offset all come from the robot
  3. orientation    R36 = R03ᵀ R06 → θ4, θ5, θ6 (wrist no flip / flip) — `wrist.solve`, with the
                    singularity sin θ5 = 0 (r33 = ±1) solved exactly: θ4 kept, θ6 takes the rest

2 × 2 × 2 = 8 candidates, labelled "shoulder front / elbow up / wrist no flip" (front/back
for arms whose wrist centre lies in the plane of axis 1, right/left for arms with a lateral
offset such as the Puma 560's d3). The geometry is read from the robot's chain at θ = 0 and
checked: axis 1 ⟂ axis 2, axes 2 ∥ 3, axes 4–6 through one point, 4 ⟂ 5 ⟂ 6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.memo import per_robot
from ...model.robot import Robot
from ..target import Target
from . import wrist
from .arm import (
    SHOULDER,
    ArmPlane,
    arm_plane,
    chain,
    times,
    to_plane,
    turn_back,
    unit,
    yaw,
)
from .geometry import LENGTH_TOL, NotAnalytic, common_point, frames0, in_frame, require
from .planar import ELBOWS
from .planar import LABELS as ELBOW_LABELS


@dataclass(frozen=True, eq=False)
class SphericalArm:
    """What the solver needs of a spherical-wrist robot, read once per robot."""

    plane: ArmPlane  # joints 1–3 and the wrist centre
    cols: np.ndarray  # columns w, R(C6)[0], R(C6)[2]: R @ cols = O4 − p and the sources of M x̂, M ẑ
    pre: np.ndarray  # X R(C3): v @ pre maps the last arm frame to the frame of joint 4
    wrist: wrist.Wrist  # B = R(C4): joint 4 → joint 5, C = R(C5): joint 5 → joint 6
    labels: tuple[str, ...]


@per_robot
def structure(robot: Robot) -> SphericalArm:
    """Read and check the geometry; `NotAnalytic` says what does not fit."""
    require(robot.n == 6 and all(robot.revolute), robot, "a spherical-wrist solver needs six revolute joints")
    F = frames0(robot)
    wc, miss = common_point(robot, (3, 4, 5))
    require(miss < LENGTH_TOL * max(1.0, float(np.abs(F[:, :3, 3]).max())), robot,
            "axes 4, 5 and 6 do not meet in one point (no spherical wrist)")
    plane = arm_plane(robot, (1, 2), wc)
    R = robot.C[:, :3, :3]
    require(wrist.check(R[4], R[5]), robot, "the wrist axes are not each perpendicular to the next")
    labels = tuple(f"{s} / {e} / {w}" for s in plane.shoulder_names() for e in ELBOW_LABELS
                   for w in wrist.LABELS)
    cols = np.stack([in_frame(F[6], wc), R[6][0], R[6][2]], axis=1)
    return SphericalArm(plane, cols, plane.flip @ R[3], wrist.Wrist.of(R[4], R[5]), labels)


def solve(robot: Robot, target: Target, q_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """All 8 branches for pose targets (N): q (N, 8, 6), whether the arm reaches each branch's
    wrist centre (N, 8) and the labels; q_ref (N or 1, 6) gives θ1 on axis 1 and θ4 at the wrist
    singularity.

    >>> import kinematica as km
    >>> kuka = km.load("kuka-kr6-r900")
    >>> q_end = np.array([-np.pi / 2, 0, 0, 0, -np.pi / 2, 0])  # paper 004's end pose
    >>> q, reach, labels = solve(kuka, km.targets.pose(km.fk(kuka, q_end)[None]), np.zeros((1, 6)))
    >>> gap = np.abs((q[0] - q_end + np.pi) % (2 * np.pi) - np.pi).max(axis=-1)  # modulo 2π
    >>> labels[int(np.argmin(gap))], float(gap.min()) < 1e-12
    ('shoulder front / elbow up / wrist flip', True)
    """
    arm = structure(robot)
    if target.kind != "pose":
        raise NotAnalytic(f"{robot.name!r}: the spherical-wrist solver needs a full pose target, "
                          f"got a {target.kind} target")
    plane, ref, N = arm.plane, q_ref + robot.offsets, len(target.p)
    V = np.matmul(arm.cols.T, target.rotation.transpose(0, 2, 1))  # rows R w, R x6, R z6
    V[:, 0] += target.p - plane.p0
    V = times(V, plane.R0)  # wrist centre and the two tool axes in the joint-1 frame
    th1, ok1 = yaw(plane, V[:, 0], ref[:, 0])
    U = to_plane(plane, th1, V)  # (N, 2 shoulders, 3, 3) in the joint-2 frame
    g = U[:, :, 0] - plane.p1
    (th2, th3), A, ok = chain(plane, g[:, :, None, 0], g[:, :, None, 1], SHOULDER[:, None] * ELBOWS)
    M = turn_back(unit(A)[..., None], U[:, :, None, 1:], arm.pre)  # M x̂, M ẑ
    th4, th5, th6 = wrist.solve(M[..., 1, :], M[..., 0, :], arm.wrist, ref[:, 3, None, None])
    out = np.empty((N, 2, 2, 2, 6))
    out[..., 0] = th1[:, :, None, None]
    out[..., 1], out[..., 2] = th2[..., None], th3[..., None]
    out[..., 3], out[..., 4], out[..., 5] = th4, th5, th6
    out -= robot.offsets
    reach = np.broadcast_to((ok & ok1[:, None, None])[..., None], (N, 2, 2, 2)).reshape(N, 8)
    return out.reshape(N, 8, 6), reach, list(arm.labels)
