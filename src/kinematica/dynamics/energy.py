"""Mechanical energy E = ½ q̇ᵀ M(q) q̇ + U(q), with U = −Σ m_i g · c_i (c_i: centre of mass of
link i in base coordinates). Conserved by an unactuated, frictionless arm: the simulation's check."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .params import GRAVITY, link_params
from .terms import mass_matrix


@takes_robot
def potential_energy(robot: Robot, q: ArrayLike, gravity: ArrayLike = GRAVITY) -> np.ndarray:
    """U(q) (...) in joules."""
    q = check_q(robot, q)
    p = link_params(robot)
    F = fk_frames(robot, q)[..., 1:-1, :, :]
    c = np.einsum("...nij,nj->...ni", F[..., :3, :3], p.com) + F[..., :3, 3] * p.scale
    return -np.einsum("n,...ni,i->...", p.mass, c, np.asarray(gravity, dtype=float))


@takes_robot
def kinetic_energy(robot: Robot, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """½ q̇ᵀ M(q) q̇ (...) in joules (prismatic rates converted to m/s)."""
    q = check_q(robot, q)
    v = np.broadcast_to(check_q(robot, qd, "qd"), q.shape) * np.where(robot.revolute, 1.0, link_params(robot).scale)
    return 0.5 * np.einsum("...i,...ij,...j->...", v, mass_matrix(robot, q), v)


@takes_robot
def energy(robot: Robot, q: ArrayLike, qd: ArrayLike, gravity: ArrayLike = GRAVITY) -> np.ndarray:
    """Total mechanical energy (...) in joules."""
    return kinetic_energy(robot, q, qd) + potential_energy(robot, q, gravity)
