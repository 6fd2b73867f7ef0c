"""Paper 004's Jacobian by derivative matrices — an independent route to the geometric one.

The derivative of a joint transform is the transform times a constant matrix:
  ∂J_i/∂q_i = J_i · B,  B_rev = [[0,−1,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],
                        B_pris = [[0,0,0,0],[0,0,0,0],[0,0,0,1],[0,0,0,0]],
                        B_helical = B_rev + pitch·B_pris (it turns and slides),
so  ∂T/∂q_i = C0 · J1 · C1 · … · J_i · B · C_i · … · J_n · C_n.
The position column is the last column of ∂T/∂q_i (the tool point r_k = [0, 0, 0, 1]ᵀ in the
tool frame); the angular one comes from ∂R/∂q_i · Rᵀ = [ω_i]×. It costs O(n²) 4x4 products,
which is why `jacobian` uses the cross-product form; this one is for teaching and checking.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .chain import check_q

B_REVOLUTE = np.array([[0.0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
B_PRISMATIC = np.array([[0.0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])


def joint_matrices(robot: Robot, q: np.ndarray) -> np.ndarray:
    """Ji(qi + offset_i) for every joint, (n, 4, 4)."""
    theta = q + robot.offsets
    rev = robot.revolute
    c = np.where(rev, np.cos(theta), 1.0)
    s = np.where(rev, np.sin(theta), 0.0)
    Jm = np.zeros((robot.n, 4, 4))
    Jm[:, 0, 0] = Jm[:, 1, 1] = c
    Jm[:, 1, 0] = s
    Jm[:, 0, 1] = -s
    Jm[:, 2, 2] = Jm[:, 3, 3] = 1.0
    Jm[:, 2, 3] = np.where(rev, robot.pitch * theta, theta)
    return Jm


def transform_derivatives(robot: Robot, q: ArrayLike) -> np.ndarray:
    """∂T/∂q_i for every joint, shape (n, 4, 4), for one configuration q (n,)."""
    q = check_q(robot, q)
    if q.ndim != 1:
        raise InputError(f"expected one configuration of shape ({robot.n},), got {q.shape}")
    Jm = joint_matrices(robot, q)
    JC = Jm @ robot.C[1:]
    B = np.where(robot.revolute[:, None, None], B_REVOLUTE + robot.pitch[:, None, None] * B_PRISMATIC,
                 B_PRISMATIC)
    dJC = Jm @ B @ robot.C[1:]  # joint i's factor J_i · C_i with its derivative J_i · B · C_i
    out = np.empty((robot.n, 4, 4))
    for i in range(robot.n):
        dT = robot.C[0]
        for k in range(robot.n):
            dT = dT @ (dJC[k] if k == i else JC[k])
        out[i] = dT
    return out


@takes_robot
def jacobian_derivative(robot: Robot, q: ArrayLike) -> np.ndarray:
    """Geometric Jacobian (6, n) in the base frame from derivative matrices (paper 004, eqs. 12–13).

    >>> import kinematica as km
    >>> r = km.load("kuka-kr6-r900"); q = [0.1, -0.4, 0.3, 0.2, 0.5, -0.1]
    >>> bool(np.allclose(jacobian_derivative(r, q), km.jacobian(r, q), atol=1e-14))
    True
    """
    from .fk import fk

    dT = transform_derivatives(robot, q)
    R = fk(robot, q)[:3, :3]
    W = dT[:, :3, :3] @ np.transpose(R)  # [ω_i]×
    J = np.empty((6, robot.n))
    J[:3] = np.transpose(dT[:, :3, 3])
    J[3:] = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]])
    return J
