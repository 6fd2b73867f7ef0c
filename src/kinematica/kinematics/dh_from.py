"""A standard DH table equivalent to any serial chain (a URDF, link frames, screw axes).

Every chain of revolute and prismatic joints has one: DH needs only the joint axes as lines in
space, and any two lines are related by four numbers (Spong, Hutchinson & Vidyasagar, §3.2).
The construction, on the axes at q = 0 (`screw_axes`: direction u_i, a point p_i):

- frame 0 on axis 1 (z_0 = u_1); frame i (1 ≤ i < n) with z_i = u_{i+1}, its origin where the
  common normal of axes i and i+1 meets axis i+1, x_i along that normal (away from axis i);
  where the axes meet, x_i = ±(z_{i−1} × z_i); where they are parallel, the normal through
  o_{i−1} (so d_i = 0); frame n continues frame n−1;
- a prismatic joint's axis is a direction only: its line is drawn through a point of the
  axis before it;
- then d_i, a_i, α_i and the joint offset θ_i (d_i for a prismatic joint) are read off
  consecutive frames, and the robot's base and tool transforms take up frame 0 and the tool.

Nearly parallel axes have their common normal far away (d ~ size / angle): the table is still
exact, with large offsets that cancel, as DH always has there (the reason for Hayati's variant).
The result has the same FK at every q (checked in the tests to 1e-12 on every bundled robot
exported to URDF and read back). Inertials stay with the source robot (they live in its link
frames); `to_dh` returns a kinematic model.
"""

from __future__ import annotations

import numpy as np

from ..model.builders import from_dh
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .screws import screw_axes

_PARALLEL = 1e-9  # |u_i × u_{i+1}| below this: parallel axes
_MEET = 1e-9  # common-normal length (relative to the arm's size) below this: the axes meet


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _any_normal(z: np.ndarray) -> np.ndarray:
    """A unit vector ⟂ z (the x of a frame nothing else fixes)."""
    helper = np.eye(3)[int(np.argmin(np.abs(z)))]
    return _unit(helper - (helper @ z) * z)


def _frames(axes: list, size: float) -> tuple[list, list, list]:
    """Origins, z and x of DH frames 0..n from the joint axes (point, unit direction) at q = 0."""
    n = len(axes)
    o, z, x = [axes[0][0]], [axes[0][1]], [_any_normal(axes[0][1])]
    for i in range(1, n):
        p0, u0 = o[-1], z[-1]  # axis i through the previous origin
        p1, u1 = axes[i]
        c = np.cross(u0, u1)
        if np.linalg.norm(c) < _PARALLEL:  # parallel: the normal through o_{i−1}
            oi = p1 + ((p0 - p1) @ u1) * u1
            d = oi - p0
            d -= (d @ u0) * u0
            xi = _unit(d) if np.linalg.norm(d) > _MEET * size else x[-1]
        else:
            # closest points of the lines p0 + s·u0 and p1 + t·u1, from c = u0 × u1: stable when
            # the axes are nearly parallel (1 − (u0·u1)² would cancel to nothing there)
            w = p1 - p0
            cc = c @ c
            t = np.cross(w, u0) @ c / cc
            s = np.cross(w, u1) @ c / cc
            q0, oi = p0 + s * u0, p1 + t * u1
            gap = oi - q0
            xi = c / np.sqrt(cc)  # the common normal's direction, exactly normal to both axes
            if gap @ xi < 0 and np.linalg.norm(gap) > _MEET * size:
                xi = -xi  # pointing from axis i to axis i + 1, as DH draws it
        o.append(oi)
        z.append(u1)
        x.append(xi)
    o.append(o[-1])
    z.append(z[-1])
    x.append(x[-1])
    return o, z, x


def _frame(o: np.ndarray, z: np.ndarray, x: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, 0], T[:3, 2] = x, z
    T[:3, 1] = np.cross(z, x)
    T[:3, 3] = o
    return T


@takes_robot
def to_dh(robot: Robot) -> Robot:
    """A standard-DH robot with the same FK as `robot` at every q (its base and tool carry what
    the table cannot), the same joint names, limits, home and length unit.

    >>> import kinematica as km, numpy as np
    >>> ur5 = km.load("ur5")
    >>> dh = km.to_dh(km.from_urdf(km.to_urdf(ur5)))
    >>> q = np.array([0.1, -0.5, 0.7, 0.2, 1.1, -0.4])
    >>> bool(np.allclose(km.fk(dh, q), km.fk(ur5, q), atol=1e-12))
    True
    """
    M, S = screw_axes(robot)
    rev = np.asarray(robot.revolute, bool)
    size = max(1.0, float(np.abs(S[:, 3:]).max()), float(np.abs(M[:3, 3]).max()))
    axes, prev = [], np.zeros(3)
    for i in range(robot.n):
        w, v = S[i, :3], S[i, 3:]
        if rev[i]:
            u, p = _unit(w), np.cross(w, v) / (w @ w)
        else:
            u, p = _unit(v), prev  # a direction only: any line will do, this one meets the last axis
        axes.append((p, u))
        prev = p
    o, z, x = _frames(axes, size)
    F = [_frame(o[i], z[i], x[i]) for i in range(robot.n + 1)]
    rows = []
    for i in range(1, robot.n + 1):
        A = np.linalg.inv(F[i - 1]) @ F[i]  # = Rz(θ)·Tz(d)·Tx(a)·Rx(α) at q = 0
        theta = np.arctan2(A[1, 0], A[0, 0])
        alpha = np.arctan2(A[2, 1], A[2, 2])
        d = A[2, 3]
        a = A[0, 3] * np.cos(theta) + A[1, 3] * np.sin(theta)
        rows.append({"a": float(a), "alpha": float(alpha), "d": float(d), "theta": float(theta),
                     "type": "revolute" if rev[i - 1] else "prismatic", "name": robot.joint_names[i - 1]})
    tool = np.linalg.inv(F[-1]) @ M
    base = F[0]
    return from_dh(rows, name=f"{robot.name}-dh", length_unit=robot.length_unit, limits=robot.limits,
                   joint_names=robot.joint_names, home=robot.q_home, base=base, tool=tool)


__all__ = ["to_dh"]
