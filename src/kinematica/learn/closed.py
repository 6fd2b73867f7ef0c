"""The joints a learned IK model does not learn: the wrist, in closed form from the orientation.

A model of a 4/5-joint arm (position + pitch) or of a 6R arm with a spherical wrist learns
joints 1–3 from the wrist point alone (`sampling.inputs`); the joints after them only turn the
tool about that point, so once joints 1–3 are set they follow from the target's orientation
exactly, and a network need not approximate them:

  pitch  joint 4 turns the tool z axis a0 (read at the current joint 4) about its axis k onto
         the target's a: Δθ4 = atan2(k·(a0 × a), a0·a − (k·a0)(k·a))  (Paden–Kahan subproblem 1;
         a target pitch the arm cannot take gets the nearest one about k)
  pose   M = Aᵀ R R(C6)ᵀ = Rz(θ4) R(C4) Rz(θ5) R(C5) Rz(θ6), A the frame of joint 4 with joints 1–3
         set, solved by `ik.analytic.wrist.solve` on the side the branch names ("wrist no flip"
         or "wrist flip"; at θ5 = 0 joint 4 keeps the centre of its box and joint 6 takes the rest)

Each angle is taken within ±π of the centre of its box interval (rad).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from ..ik.analytic import wrist as wrist_solver
from ..kinematics.fk import fk_frames
from . import wrist
from .sampling import ARM_INPUTS, task_of


def network_joints(robot, br) -> np.ndarray:
    """The learned joints the network answers: all of a planar arm's, else those among 1–3."""
    learned = br.learned
    return learned if task_of(robot) == "planar" else learned[learned < ARM_INPUTS["pitch"]]


def finish(model, q: np.ndarray, X: np.ndarray) -> np.ndarray:
    """q (N, n) with joints 1–3 set (and held joints at their value): the learned joints after
    joint 3 from the raw inputs X (N, d) of the targets, in place; q is returned."""
    task = task_of(model.robot)
    rest = np.setdiff1d(model.branch.learned, network_joints(model.robot, model.branch))
    if task == "planar" or rest.size == 0 or len(q) == 0:
        return q
    robot, box = model.robot, model.branch.box
    F = fk_frames(robot, q)
    J4 = F[:, 3] @ robot.before[3]  # joint 4's frame: its z is joint 4's axis
    if task == "pitch":
        C0 = robot.C[0][:3, :3]
        psi, pitch = X[:, 0], X[:, 3]
        a = np.column_stack([np.cos(pitch) * np.cos(psi), np.cos(pitch) * np.sin(psi), np.sin(pitch)]) @ C0.T
        k, a0 = J4[:, :3, 2], F[:, -1, :3, 2]
        dot = lambda u, v: np.einsum("ij,ij->i", u, v)
        turn = np.arctan2(dot(k, np.cross(a0, a)), dot(a0, a) - dot(k, a0) * dot(k, a))
        q[:, 3] = _near(q[:, 3] + turn, box[3])
        return q
    R = _orientation(model, X)
    C = robot.C[:, :3, :3]
    M = np.swapaxes(J4[:, :3, :3], 1, 2) @ R @ C[6].T
    side = 1 if "wrist flip" in model.branch.spec else 0
    ref = box[3].mean() + robot.offsets[3]
    th = wrist_solver.solve(M[:, :, 2], M[:, :, 0], wrist_solver.Wrist.of(C[4], C[5]), ref)
    for j, t in zip((3, 4, 5), th, strict=True):
        if j in rest:
            q[:, j] = _near(t[:, side] - robot.offsets[j], box[j])
    return q


def _orientation(model, X: np.ndarray) -> np.ndarray:
    """The tool orientations R (N, 3, 3) in world coordinates from a pose model's raw inputs
    (ψ, ρw, zw, rx, ry, rz): the inverse of `wrist.pose_inputs`."""
    robot = model.robot
    R_ref = wrist.reference(robot, model.branch.box)[1]
    Rl = Rotation.from_rotvec(X[:, 3:6]).as_matrix() @ R_ref
    c, s = np.cos(X[:, 0]), np.sin(X[:, 0])
    Rz = np.zeros((len(X), 3, 3))
    Rz[:, 0, 0], Rz[:, 0, 1], Rz[:, 1, 0], Rz[:, 1, 1], Rz[:, 2, 2] = c, -s, s, c, 1.0
    return robot.C[0][:3, :3] @ Rz @ Rl


def _near(theta: np.ndarray, interval: np.ndarray) -> np.ndarray:
    """θ moved by whole turns to within ±π of the interval's centre."""
    mid = 0.5 * (interval[0] + interval[1])
    return mid + np.angle(np.exp(1j * (theta - mid)))
