"""Forward kinematics and the Jacobian written as the equations, to read and to test against.

The product of exponentials (*Modern Robotics* §4.1, `FKinSpace`; §5.1, `JacobianSpace`):

    T(θ) = e^[S1]θ1 · e^[S2]θ2 ⋯ e^[Sn]θn · M,        θi = qi + offset_i
    J_s,i = Ad(e^[S1]θ1 ⋯ e^[S(i−1)]θ(i−1)) · S_i

with M the tool's pose at θ = 0 and S_i = (ω_i; v_i) joint i's screw axis in the base frame at
θ = 0: (z_i; −z_i × p_i) for a revolute joint, (z_i; −z_i × p_i + h_i z_i) for a helical one
of pitch h_i (Modern Robotics' screw of finite pitch), (0; z_i) for a prismatic one, z_i and p_i the
axis and origin of the frame just before joint i. These are read off the canonical chain
C0 · J1 · C1 ⋯ Jn · Cn at θ = 0 by products of its constants alone (no code shared with the
fast paths of chain.py and the compiled core, which these functions check). The base-frame
geometric Jacobian (rows v; ω, v the tool point's velocity) is J_s with v + ω × p_e.
Loops over joints, one 4x4 matrix at a time: slow, and meant to be.

>>> import kinematica as km, numpy as np
>>> r = km.load("planar-3r")
>>> np.allclose(fk_space(r, [0.1, 0.2, 0.3]), km.fk(r, [0.1, 0.2, 0.3]))
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..model.robot import Robot


def screw_list(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    """(M, S): the tool's pose at θ = 0 (4, 4) and the space screw axes (n, 6), rows (ω; v)."""
    frame = robot.C[0]  # just before joint i, at θ = 0 (after the loop: the tool's, M)
    S = np.zeros((robot.n, 6))
    for i in range(robot.n):
        z, p = frame[:3, 2], frame[:3, 3]
        S[i] = np.r_[z, -np.cross(z, p) + robot.pitch[i] * z] if robot.revolute[i] else np.r_[0.0, 0.0, 0.0, z]
        frame = frame @ robot.C[i + 1]
    return frame, S


def matrix_exp6(S: np.ndarray, theta: float) -> np.ndarray:
    """e^[S]θ for a screw axis S = (ω; v) with |ω| = 1 or ω = 0 (*Modern Robotics* eq. 3.88):
    R = I + sin θ [ω] + (1 − cos θ)[ω]², p = (Iθ + (1 − cos θ)[ω] + (θ − sin θ)[ω]²) v."""
    w, v = S[:3], S[3:]
    T = np.eye(4)
    if not w.any():
        T[:3, 3] = v * theta
        return T
    W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    W2 = W @ W
    T[:3, :3] += np.sin(theta) * W + (1.0 - np.cos(theta)) * W2
    T[:3, 3] = (np.eye(3) * theta + (1.0 - np.cos(theta)) * W + (theta - np.sin(theta)) * W2) @ v
    return T


def adjoint(T: np.ndarray) -> np.ndarray:
    """Ad_T (6, 6) for twists (ω; v): [[R, 0], [[p]R, R]]."""
    R, p = T[:3, :3], T[:3, 3]
    P = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    A = np.zeros((6, 6))
    A[:3, :3] = A[3:, 3:] = R
    A[3:, :3] = P @ R
    return A


def fk_space(robot: Robot, q: ArrayLike) -> np.ndarray:
    """T(θ) = e^[S1]θ1 ⋯ e^[Sn]θn · M for one configuration q (n,)."""
    M, S = screw_list(robot)
    theta = np.asarray(q, dtype=float) + robot.offsets
    Tk = np.eye(4)  # e^[S1]θ1 ⋯ e^[Sk]θk after k joints
    for Si, ti in zip(S, theta, strict=True):
        Tk = Tk @ matrix_exp6(Si, ti)
    return Tk @ M


def jacobian_space(robot: Robot, q: ArrayLike) -> np.ndarray:
    """J_s (6, n), rows (ω; v): column i is S_i carried by the joints before it."""
    _, S = screw_list(robot)
    theta = np.asarray(q, dtype=float) + robot.offsets
    J = np.empty((6, robot.n))
    Tk = np.eye(4)  # e^[S1]θ1 ⋯ e^[Sk]θk after k joints
    for i, (Si, ti) in enumerate(zip(S, theta, strict=True)):
        J[:, i] = adjoint(Tk) @ Si
        Tk = Tk @ matrix_exp6(Si, ti)
    return J


def jacobian_geometric(robot: Robot, q: ArrayLike) -> np.ndarray:
    """The base-frame geometric Jacobian (6, n), rows (v; ω), of `km.jacobian`: from J_s,
    v = v_s + ω × p_e (the tool point's velocity instead of the base origin's)."""
    Js = jacobian_space(robot, q)
    p = fk_space(robot, q)[:3, 3]
    w = Js[:3]
    return np.vstack([Js[3:] + np.cross(w, p, axis=0), w])  # ω × p_e, column by column
