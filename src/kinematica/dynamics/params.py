"""The dynamic parameters a robot carries, gathered in SI units for the dynamics algorithms.

Robots in millimetres keep their inertials in kg and kg·mm² (and prismatic joints in mm);
every routine of this package converts to metres here, once, so torques come out in N·m
(revolute joints) and N (prismatic joints).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import KinematicaError
from ..model.coerce import takes_robot
from ..model.inertial import combined
from ..model.memo import per_robot
from ..model.robot import Robot

G = 9.80665  # standard gravity, m/s²
GRAVITY = np.array([0.0, 0.0, -G])


class DynamicsError(KinematicaError, ValueError):
    """A robot lacks what dynamics needs (inertial parameters of some links)."""


@dataclass(frozen=True, eq=False)
class LinkParams:
    """Per-link mass m (n,), centre of mass c (n, 3) and inertia about it I (n, 3, 3), each in
    its link frame, in SI; `scale` converts the robot's length unit to metres."""

    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    scale: float
    viscous: np.ndarray
    coulomb: np.ndarray
    armature: np.ndarray


def length_scale(robot: Robot) -> float:
    """Metres per unit of the robot's length unit."""
    return 1e-3 if robot.length_unit == "mm" else 1.0


@per_robot
def link_params(robot: Robot) -> LinkParams:
    """Inertial and drive parameters of every link, SI; a DynamicsError names missing links."""
    inert = robot.inertials or (None,) * robot.n
    missing = [robot.link_names[i] if robot.link_names else f"link {i + 1} (after joint {robot.joint_names[i]})"
               for i, x in enumerate(inert) if x is None]
    if missing:
        raise DynamicsError(
            f"{robot.name!r} has no inertial parameters for {', '.join(missing)}: give each link a mass, "
            f"centre of mass and inertia (or a solid shape) in its robot file; torques without them "
            f"would be meaningless zeros")
    present = [x for x in inert if x is not None]  # every one: the missing were refused above
    s = length_scale(robot)
    drives = robot.extras.get("drives") or {}
    def per_joint(key: str) -> np.ndarray:
        v = np.array(drives.get(key, np.zeros(robot.n)), dtype=float)
        return v
    return LinkParams(
        mass=np.array([x.mass for x in present]),
        com=np.array([x.com for x in present]) * s,
        inertia=np.array([x.inertia for x in present]) * s * s,
        scale=s,
        viscous=per_joint("viscous"),
        coulomb=per_joint("coulomb"),
        armature=per_joint("armature"),
    )


@takes_robot
def with_payload(robot: Robot, mass: float, com_in_tool=(0.0, 0.0, 0.0), inertia=None) -> Robot:
    """A copy of `robot` carrying a payload rigidly at the tool: `mass` (kg) with its centre of
    mass at `com_in_tool` (length unit, tool frame) and an optional inertia about it (kg·unit²,
    tool frame), merged into the last link's inertial by the parallel-axis theorem."""
    inertials = robot.inertials or (None,) * robot.n
    last = inertials[-1]
    if last is None:
        raise DynamicsError(f"{robot.name!r}: the last link has no inertial to add a payload to")
    X = robot.after[-1] @ robot.tool  # tool frame in the last link frame
    c_p = X[:3, :3] @ np.asarray(com_in_tool, dtype=float) + X[:3, 3]
    I_p = X[:3, :3] @ (np.zeros((3, 3)) if inertia is None else np.asarray(inertia, float)) @ X[:3, :3].T
    merged = combined([(last.mass, last.com, last.inertia), (mass, c_p, I_p)])
    return robot.replace(inertials=tuple(inertials[:-1]) + (merged,))
