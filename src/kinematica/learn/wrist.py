"""Learned IK for 6R arms with a spherical wrist: the wrist centre and the orientation as
inputs, and the closed-form solver's branch labels to keep one branch.

A spherical wrist's axes 4, 5, 6 meet in one point, the wrist centre c = p − R·w, w fixed in the
tool frame: the first three joints place c, the last three turn the tool. So the inputs are c in
cylindrical coordinates about joint 1's axis (ψ, ρ ≥ 0, z: a shoulder branch turns joint 1 with
ψ, whichever way it faces) and the tool
orientation seen from the arm's vertical plane, Rz(ψ)ᵀ·R, as the rotation vector from that of
the branch box's centre configuration. Which of the (up to 8) solutions a sample is on is what
`ik.analytic` labels it ("shoulder front / elbow up / wrist no flip"): samples of other
branches are drawn again.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from ..errors import InputError
from ..ik.analytic import analytic_solutions, solver_name
from ..kinematics.fk import fk, fk_frames
from ..model.robot import Robot

ON_AXIS = 1e-9  # the axes meet within this × the arm's size: a spherical wrist
SAME = 1e-6  # rad: a closed-form solution this near the sample is the sample's own branch


def _axis(robot: Robot, F: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    T = F[i] @ robot.before[i]
    return T[:3, 3], T[:3, 2]


def _meet(p1, d1, p2, d2) -> tuple[np.ndarray, float]:
    """The point nearest both lines p + t·d and their distance (inf when parallel)."""
    n = np.cross(d1, d2)
    nn = n @ n
    if nn < 1e-18:
        return p1, np.inf
    t1 = np.cross(p2 - p1, d2) @ n / nn
    t2 = np.cross(p2 - p1, d1) @ n / nn
    a, b = p1 + t1 * d1, p2 + t2 * d2
    return (a + b) / 2, float(np.linalg.norm(a - b))


def wrist_offset(robot: Robot) -> np.ndarray | None:
    """w (3,): the tool-frame vector from the wrist centre to the tool, or None when axes 4, 5, 6
    do not meet in one point (checked at two configurations)."""
    if robot.n != 6 or not np.all(robot.revolute):
        return None
    size = max(1.0, float(np.abs(robot.before[:, :3, 3]).sum() + np.abs(robot.after[:, :3, 3]).sum()))
    w = None
    for q in (robot.q_home, robot.q_home + np.array([0.3, -0.4, 0.5, 0.7, 0.9, -0.6])):
        F = fk_frames(robot, q)
        c, gap = _meet(*_axis(robot, F, 3), *_axis(robot, F, 4))
        p6, d6 = _axis(robot, F, 5)
        off6 = np.linalg.norm(np.cross(c - p6, d6))
        if gap > ON_AXIS * size or off6 > ON_AXIS * size:
            return None
        T = fk(robot, q)
        here = T[:3, :3].T @ (T[:3, 3] - c)
        if w is not None and np.linalg.norm(here - w) > ON_AXIS * size:
            return None
        w = here
    return w


def wrist_vector(robot: Robot) -> np.ndarray:
    """`wrist_offset` of an arm whose axes 4, 5, 6 meet (code that has chosen the "pose" task
    reads it here), with an InputError naming the robot if they do not."""
    w = wrist_offset(robot)
    if w is None:
        raise InputError(f"{robot.name!r}: axes 4, 5, 6 do not meet in one point, so it has no wrist centre")
    return w


def fits(robot: Robot) -> bool:
    """A 6R arm with a spherical wrist and a closed-form solver (whose labels name the branches)."""
    return solver_name(robot) is not None and wrist_offset(robot) is not None


def labels(robot: Robot) -> list[str]:
    """The closed-form solver's branch labels, e.g. 'shoulder front / elbow up / wrist no flip'."""
    return list(_solutions(robot, fk(robot, robot.q_home))[2])


def _solutions(robot: Robot, target: np.ndarray, q_ref: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`analytic_solutions`, for a robot the caller knows has a closed form."""
    out = analytic_solutions(robot, target, q_ref=q_ref)
    if out is None:
        raise InputError(f"{robot.name}: no closed-form solver fits it, so it has no branches to learn")
    return out


def in_branch(robot: Robot, q: np.ndarray, label: str) -> np.ndarray:
    """Which samples q (N, n) lie on the branch `label`: the closed-form solution of their own
    FK that is q itself carries that label (samples at a singularity, where branches meet,
    match none and are dropped)."""
    Q, valid, names = _solutions(robot, fk(robot, q), q_ref=q)
    k = names.index(label)
    d = np.abs(np.angle(np.exp(1j * (Q[:, k] - q)))).max(axis=1)
    return valid[:, k] & (d < SAME)


def pose_inputs(robot: Robot, p: np.ndarray, R: np.ndarray, psi0: float, R_ref: np.ndarray) -> np.ndarray:
    """(ψ, ρ, z, rx, ry, rz) of tool poses (p (N, 3), R (N, 3, 3)), see the module docstring."""
    C0 = robot.C[0]
    c = (p - np.einsum("nij,j->ni", R, wrist_vector(robot)) - C0[:3, 3]) @ C0[:3, :3]
    psi = np.arctan2(c[:, 1], c[:, 0])  # an angle input: `scaling` cuts it where the data is thinnest
    rho = np.hypot(c[:, 0], c[:, 1])
    Rl = _seen_from_plane(C0[:3, :3].T @ R, psi)
    rv = Rotation.from_matrix(Rl @ R_ref.T).as_rotvec()
    return np.column_stack([psi, rho, c[:, 2], rv])


def _seen_from_plane(R: np.ndarray, psi: np.ndarray) -> np.ndarray:
    c, s = np.cos(psi), np.sin(psi)
    Rz_T = np.zeros((len(psi), 3, 3))
    Rz_T[:, 0, 0], Rz_T[:, 0, 1], Rz_T[:, 1, 0], Rz_T[:, 1, 1], Rz_T[:, 2, 2] = c, s, -s, c, 1.0
    return Rz_T @ R


def reference(robot: Robot, box: np.ndarray) -> tuple[float, np.ndarray]:
    """(ψ0, R_ref): the wrist centre's azimuth and the orientation seen from the arm's plane at
    the centre of the branch box."""
    T = fk(robot, box.mean(axis=1))
    C0 = robot.C[0]
    w = wrist_vector(robot)  # a spherical wrist: task "pose" is learned for a robot that `fits`
    c = (T[:3, 3] - T[:3, :3] @ w - C0[:3, 3]) @ C0[:3, :3]
    psi0 = float(np.arctan2(c[1], c[0]))
    return psi0, _seen_from_plane((C0[:3, :3].T @ T[:3, :3])[None], np.array([psi0]))[0]
