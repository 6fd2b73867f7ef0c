"""Paper 003's geometric method for 5-DOF arms: base yaw, a planar arm with pitch, free roll.

Paper 003 (Table 1: base height 3, links l2 = 50, l3 = 25, gripper l4 = 5 mm; the digest's
rebuilt eqs. 1–3 with its corrections):

  θ1 = atan2(y, x)                                       (top view; θ1 + π reaches over: "back-flip")
  X5 = √(x² + y²),  Z5 = z − l_base                      (the vertical plane of the arm)
  X4 = X5 − l4 cos φ,  Z4 = Z5 − l4 sin φ                (wrist point, φ = pitch of the gripper)
  D = (X4² + Z4² − l2² − l3²) / (2 l2 l3),  θ3 = atan2(±√(1 − D²), D)
  θ2 = atan2(k1 Z4 − k2 X4, k1 X4 + k2 Z4),  k1 = l2 + l3 cos θ3,  k2 = l3 sin θ3
  θ4 = φ − θ2 − θ3,   θ5 (roll) free: it turns the gripper about its own approach axis

The printed θ2 = arctg(±√(1 − C²)/C) loses the coupling of its sign to θ3 and the quadrant;
the atan2 form above is the digest's correction. `paper003` is these formulas as written.

`solve` is the same method read from any robot of this shape (joint 1 yaw; joints 2–4
parallel and perpendicular to it; joint 5 a roll axis perpendicular to joint 4): the lengths,
base height, offsets and the pitch zero come from the robot's chain, so paper 002's arm
(metres, no pitch offset) and paper 003's arm (mm, −90° on joint 4) both fit. Targets:
position + approach (or pitch) — roll takes its reference value (default 0) — or a full pose,
whose roll is then solved too. 2 yaws × 2 elbows = 4 candidates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ...model.memo import per_robot
from ...model.robot import Robot
from ..target import Target
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
from .geometry import ANGLE_TOL, LENGTH_TOL, NotAnalytic, frames0, in_frame, require
from .planar import ELBOWS
from .planar import LABELS as ELBOW_LABELS


def paper003(p: ArrayLike, phi: ArrayLike, l_base: float, l2: float, l3: float, l4: float) -> np.ndarray:
    """Paper 003's formulas (corrected): θ1..θ4 (..., 2, 4) for [elbow up, elbow down].

    >>> th = paper003([59.98, 21.83, 42.33], np.radians(45), 3, 50, 25, 5)
    >>> np.degrees(th).round(2)
    array([[ 20.  ,  45.1 , -44.22,  44.13],
           [ 20.  ,  16.3 ,  44.22, -15.52]])
    """
    p, phi = np.asarray(p, dtype=float), np.asarray(phi, dtype=float)[..., None]
    th1 = np.arctan2(p[..., 1], p[..., 0])[..., None]
    X4 = np.hypot(p[..., 0], p[..., 1])[..., None] - l4 * np.cos(phi)
    Z4 = (p[..., 2] - l_base)[..., None] - l4 * np.sin(phi)
    D = np.clip((X4 ** 2 + Z4 ** 2 - l2 ** 2 - l3 ** 2) / (2 * l2 * l3), -1.0, 1.0)
    th3 = np.arctan2(ELBOWS * np.sqrt(1 - D ** 2), D)
    k1, k2 = l2 + l3 * np.cos(th3), l3 * np.sin(th3)
    th2 = np.arctan2(k1 * Z4 - k2 * X4, k1 * X4 + k2 * Z4)
    return np.stack(np.broadcast_arrays(th1, th2, th3, phi - th2 - th3), axis=-1)


@dataclass(frozen=True, eq=False)
class Geometric5:
    """What the solver needs of a 5-DOF arm of paper 003's shape, read once per robot."""

    plane: ArmPlane  # joints 1–4, arm point P5 on the roll axis
    cols: np.ndarray  # columns: P5, the roll axis and R(C5) row 0, in tool coordinates
    z5_angle: float  # in-plane angle of the roll axis in the frame of joint 4
    pre: np.ndarray  # X R(C4): v @ pre maps the last arm frame to the frame of joint 5
    approach_ok: bool  # the tool's z is the roll axis and the tool point lies on it
    labels: tuple[str, ...]


@per_robot
def structure(robot: Robot) -> Geometric5:
    """Read and check the geometry; `NotAnalytic` says what does not fit."""
    require(robot.n == 5 and all(robot.revolute), robot, "the geometric 5-DOF solver needs five revolute joints")
    F, C = frames0(robot), robot.C
    p5 = F[4, :3, 3]  # a point on the roll axis: fixed in the tool frame and in joint 4's
    plane = arm_plane(robot, (1, 2, 3), p5)
    z5 = C[4][:3, 2]
    require(abs(z5[2]) < ANGLE_TOL, robot, "axis 5 (roll) is not perpendicular to axis 4 (pitch)")
    p5_tool, z5_tool = in_frame(F[5], p5), F[5, :3, :3].T @ F[4, :3, 2]
    scale = plane.scale
    approach_ok = bool(abs(abs(z5_tool[2]) - 1) < ANGLE_TOL and np.hypot(*p5_tool[:2]) < LENGTH_TOL * scale)
    labels = tuple(f"{s} / {e}" for s in plane.shoulder_names("front", "back-flip") for e in ELBOW_LABELS)
    return Geometric5(plane, np.stack([p5_tool, z5_tool, C[5][0, :3]], axis=1), float(np.arctan2(z5[1], z5[0])),
                      plane.flip @ C[4][:3, :3], approach_ok, labels)


def parameters(robot: Robot) -> dict[str, float]:
    """Paper 003's named lengths, read from the robot: l_base (axis 2 above the base along
    axis 1), l2 and l3 (axis 2 → axis 3 → axis 4 in the arm plane), l4 (axis 4 → tool point).

    >>> import kinematica as km
    >>> {k: round(v, 9) for k, v in parameters(km.load("arm-5dof-geo")).items()}
    {'l_base': 3.0, 'l2': 50.0, 'l3': 25.0, 'l4': 5.0}
    """
    plane, F = structure(robot).plane, frames0(robot)
    t4 = in_frame(F[3], F[5, :3, 3])
    return {"l_base": float((F[1, :3, 3] - F[0, :3, 3]) @ F[0, :3, 2]), "l2": float(plane.L[0]),
            "l3": float(plane.L[1]), "l4": float(np.hypot(t4[0], t4[1]))}


def solve(robot: Robot, target: Target, q_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """All 4 branches for approach (or pitch) and pose targets (N): q (N, 4, 5), whether the arm
    reaches each branch's wrist point (N, 4) and the labels;
    q_ref (N or 1, 5) gives θ1 when the roll axis is vertical over axis 1, and the roll θ5 of
    approach targets.

    >>> import kinematica as km
    >>> arm = km.load("arm-5dof-geo")
    >>> t = km.targets.approach([[59.98, 21.83, 42.33]], pitch=np.radians(45))
    >>> q, reach, labels = solve(arm, t, np.zeros((1, 5)))
    >>> [f"{l}: {np.degrees(qi[:4]).round(2).tolist()}" for l, qi in zip(labels[:2], q[0])]
    ['front / elbow up: [20.0, 45.1, -44.22, 44.13]', 'front / elbow down: [20.0, 16.3, 44.22, -15.52]']
    """
    g5 = structure(robot)
    plane, ref, N = g5.plane, q_ref + robot.offsets, len(target.p)
    if target.kind == "approach":
        if not g5.approach_ok:
            raise NotAnalytic(f"{robot.name!r}: the tool's z axis is not the roll axis, so roll moves the "
                              "approach; give a full pose")
        a = target.approach_axis
        V = np.stack([target.p + g5.cols[2, 0] * a, a * np.sign(g5.cols[2, 1])], axis=1)
    elif target.kind == "pose":
        V = np.matmul(g5.cols.T, target.rotation.transpose(0, 2, 1))  # rows R P5, R z5, R x5
        V[:, 0] += target.p
    else:
        raise NotAnalytic(f"{robot.name!r}: a {target.kind} target leaves the pitch free (not analytic); "
                          "give an approach direction or pitch, or a full pose")
    V[:, 0] -= plane.p0
    V = times(V, plane.R0)  # P5, the roll axis (and the tool's x) in the joint-1 frame
    th1, ok1 = yaw(plane, V[:, 0], ref[:, 0], hint=V[:, 1])
    U = to_plane(plane, th1, V)  # (N, 2 shoulders, 2 or 3, 3) in the joint-2 frame
    g = U[:, :, 0] - plane.p1
    A = np.arctan2(U[:, :, 1, 1], U[:, :, 1, 0]) - plane.sense[-1] * g5.z5_angle
    (th2, th3, th4), _, ok = chain(plane, g[:, :, None, 0], g[:, :, None, 1], SHOULDER[:, None] * ELBOWS,
                                  A[:, :, None])
    out = np.empty((N, 2, 2, 5))
    out[..., 0] = th1[:, :, None]
    out[..., 1], out[..., 2], out[..., 3] = th2, th3, th4
    if target.kind == "pose":  # roll (both elbows): Rz(θ5) = R(C4)ᵀ Xᵀ Rz(−A) [joint 2]ᵀ R R(C5)ᵀ
        n = turn_back(unit(A), U[:, :, 2], g5.pre)
        out[..., 4] = np.arctan2(n[..., 1], n[..., 0])[:, :, None]
    else:
        out[..., 4] = ref[:, 4, None, None]
    out -= robot.offsets
    reach = np.broadcast_to(ok & ok1[:, None, None], (N, 2, 2)).reshape(N, 4)
    return out.reshape(N, 4, 5), reach, list(g5.labels)
