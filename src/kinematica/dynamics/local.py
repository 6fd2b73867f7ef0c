"""Per-robot constants of the local-frame dynamics, in SI, computed once per robot.

Joint frame i is the frame of joint i after its motion, F_i = F_(i−1) · K_i · J_i(q_i), with
the constant transforms between consecutive joint frames

    K_1 = base · B_1,   K_i = A_(i−1) · B_i      (F_0: the world, where gravity is given)

and J_i = Rz(q_i + offset_i) or Tz(q_i + offset_i), or Rz(θ_i)·Tz(k_i θ_i) for a helical joint of
pitch k_i. Velocities, accelerations and forces are
expressed in these frames, where each link's inertia is constant: link frame i is F_i · A_i,
so the inertial of link i moves into joint frame i as com' = R_A com + p_A, I' = R_A I R_Aᵀ
(about the centre of mass), and enters the algorithms as

    m,   h = m com' (first moment),   I_o = I' + m (|com'|² 1 − com' com'ᵀ) (about the joint).

Entries that are zero but for rounding (cos 90° = 6e-17 from the floating-point π, products
of such) are set to exactly 0 here, so that the traced programs skip them: the change is
below 1e-15 relative. Everything is held as Python floats, the programs' constants.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kinematics.cache import cache_of
from ..model.robot import Robot
from .params import link_params

_ROUNDING = 1e-15  # relative size below which an entry is taken for a rounding artefact of zero


class Local(NamedTuple):
    """Constants of one robot; 3-vectors as tuples, 3x3 matrices as tuples of rows, all floats."""

    n: int
    revolute: tuple[bool, ...]
    R: tuple  # R[i]: rotation of K_i (frame i before its joint's motion, in frame i − 1)
    p: tuple  # p[i]: origin of K_i in frame i − 1, m
    mass: tuple[float, ...]
    h: tuple  # first moments m·com', kg·m, joint frame
    I: tuple  # inertia about the joint origin, kg·m², joint frame
    tool: tuple[float, float, float]  # the tool point in joint frame n, m
    armature: tuple[float, ...]  # kg·m² (revolute), kg (prismatic)
    viscous: tuple[float, ...]  # N·m·s/rad or N·s/m
    coulomb: tuple[float, ...]  # N·m or N
    offsets: tuple[float, ...]  # joint offsets, rad or m
    pitch: tuple[float, ...]  # m per rad: a helical joint's slide per rad turned; 0 for others
    scale: tuple[float, ...]  # per joint: SI per unit of q (1 revolute, metres per unit prismatic)
    si: np.ndarray | None  # the same as an array, None when every joint is revolute (no scaling)
    rough: bool  # whether any joint has friction or armature
    programs: dict  # compiled programs by kind, filled on first use (see rne.py, terms.py)


def local(robot: Robot) -> Local:
    """The robot's `Local` constants (a DynamicsError if it lacks inertials), kept in its cache."""
    cache = cache_of(robot)
    if cache.local is None:
        cache.local = _make(robot)
    return cache.local


def _clean(x: np.ndarray, size: float) -> np.ndarray:
    """x with entries below the rounding level of `size` set to exactly zero."""
    return np.where(np.abs(x) <= _ROUNDING * size, 0.0, x)


def _rows(M: np.ndarray) -> tuple:
    return tuple(tuple(float(v) for v in row) for row in M)


def _make(robot: Robot) -> Local:
    p = link_params(robot)
    s = p.scale
    K = np.concatenate([[robot.base @ robot.before[0]], robot.after[:-1] @ robot.before[1:]])
    tool = (robot.after[-1] @ robot.tool)[:3, 3] * s
    pos = K[:, :3, 3] * s
    length = max(np.abs(pos).max(), np.abs(tool).max(), 1e-300)
    RA, pA = robot.after[:, :3, :3], robot.after[:, :3, 3] * s
    com = _clean(np.einsum("nij,nj->ni", RA, p.com) + pA, length)
    Ic = RA @ p.inertia @ np.swapaxes(RA, -1, -2)
    Io = Ic + p.mass[:, None, None] * (np.einsum("ni,ni->n", com, com)[:, None, None] * np.eye(3)
                                       - np.einsum("ni,nj->nij", com, com))
    Io = np.array([_clean(0.5 * (X + X.T), np.abs(X).max()) for X in Io])
    tx, ty, tz = (float(v) for v in _clean(tool, length))
    return Local(
        n=robot.n, revolute=tuple(bool(r) for r in robot.revolute),
        R=tuple(_rows(_clean(R, 1.0)) for R in K[:, :3, :3]),
        p=tuple(tuple(float(v) for v in _clean(x, length)) for x in pos),
        mass=tuple(float(m) for m in p.mass),
        h=tuple(tuple(float(v) for v in m * c) for m, c in zip(p.mass, com, strict=True)),
        I=tuple(_rows(X) for X in Io),
        tool=(tx, ty, tz),
        armature=tuple(float(a) for a in p.armature), viscous=tuple(float(a) for a in p.viscous),
        coulomb=tuple(float(a) for a in p.coulomb),
        offsets=tuple(float(o) * (1.0 if r else s) for o, r in zip(robot.offsets, robot.revolute, strict=True)),
        pitch=tuple(float(k) * s for k in robot.pitch),
        scale=tuple(1.0 if r else s for r in robot.revolute),
        si=None if robot.revolute.all() else np.where(robot.revolute, 1.0, s),
        rough=bool(p.viscous.any() or p.coulomb.any() or p.armature.any()), programs={})
