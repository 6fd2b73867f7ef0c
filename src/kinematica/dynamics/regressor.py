"""The dynamics regressor: τ = Y(q, q̇, q̈) · π, linear in the inertial parameters.

Per link i, ten parameters in its link frame, SI units (`PARAMS`):

    π_i = (m, m·cx, m·cy, m·cz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz)

with I the inertia about the link frame's origin, I_o = I_c + m·(‖c‖²·1 − c·cᵀ) (parallel
axes). The rigid-body torques are linear in π (Newton–Euler with gravity as a base
acceleration), so Y's column k is exactly τ(π₀ + e_k) − τ(π₀) for any π₀: `regressor` computes
it that way through `km.rne` itself — one implementation of the equations of motion, and a Y
that agrees with it by construction. π₀ is a unit-mass link with a large isotropic inertia, so
every π₀ + e_k is a physical body. Friction and armature are not inertial parameters: `rne` is
called with friction off.

>>> import kinematica as km, numpy as np
>>> from kinematica.dynamics.regressor import regressor, inertial_parameters
>>> r = km.load("puma560")
>>> q, qd, qdd = np.full((3, 6), 0.3)
>>> Y = regressor(r, q, qd, qdd)
>>> Y.shape
(6, 60)
>>> bool(np.allclose(Y @ inertial_parameters(r), km.rne(r, q, qd, qdd, friction=False)))
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import REGRESSOR
from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.inertial import Inertial
from ..model.robot import Robot
from .params import GRAVITY, link_params
from .rne import rne

PARAMS = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")
_SYM = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # Ixx, Ixy, Ixz, Iyy, Iyz, Izz
_BASE_INERTIA = 10.0  # kg·m² of π₀: any unit step of one parameter leaves it positive definite


def parameter_names(robot: Robot) -> list[str]:
    """'link/param' for each of the 10n columns of Y."""
    links = robot.link_names or tuple(f"link{i + 1}" for i in range(robot.n))
    return [f"{link}/{p}" for link in links for p in PARAMS]


def _vector(m: float, c: np.ndarray, Ic: np.ndarray) -> np.ndarray:
    """π_i of a body with mass m, centre of mass c and inertia Ic about it (SI, link frame)."""
    Io = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
    return np.array([m, *(m * c), *(Io[a, b] for a, b in _SYM)])


def _body(p: np.ndarray, scale: float) -> Inertial:
    """The Inertial (robot units) of π_i = p (SI), m > 0."""
    m, h = p[0], p[1:4]
    Io = np.empty((3, 3))
    for (a, b), v in zip(_SYM, p[4:], strict=True):
        Io[a, b] = Io[b, a] = v
    c = h / m
    Ic = Io - m * (c @ c * np.eye(3) - np.outer(c, c))
    return Inertial(m, c / scale, Ic / scale**2)


@takes_robot
def inertial_parameters(robot: Robot) -> np.ndarray:
    """π (10n,): the robot's own inertial parameters in `PARAMS` order, SI, link frames."""
    p = link_params(robot)
    return np.concatenate([_vector(p.mass[i], p.com[i], p.inertia[i]) for i in range(robot.n)])


@takes_robot
def with_parameters(robot: Robot, pi: ArrayLike) -> Robot:
    """A copy of `robot` whose links carry the inertial parameters π (10n,), SI; an
    InertialError names a link whose π is not a physical body (m ≤ 0 or I not PSD)."""
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (10 * robot.n,):
        raise InputError(f"pi: expected {10 * robot.n} inertial parameters (10 per link), got shape {pi.shape}")
    scale = 1e-3 if robot.length_unit == "mm" else 1.0
    bodies = []
    for i in range(robot.n):
        if not pi[10 * i] > 0:
            raise InputError(f"pi: link {i + 1} has mass {pi[10 * i]:g}: a body needs a positive mass here")
        bodies.append(_body(pi[10 * i: 10 * i + 10], scale))
    return robot.replace(inertials=tuple(bodies))


@takes_robot
def regressor(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *,
              gravity: ArrayLike = GRAVITY) -> np.ndarray:
    """Y (..., n, 10n) with τ = Y·π for every inertial parameter vector π (`PARAMS` per link,
    SI, link frames); rows N·m (revolute) or N (prismatic). One batched `rne` call per column.
    q, qd, qdd hold the same states (equal shapes, or one row standing for all); Y's size is
    refused beyond `bounds.REGRESSOR` entries before anything is computed.
    """
    n = robot.n
    states_shape(robot, q, qd, qdd)
    base = np.concatenate([[1.0], np.zeros(3), [_BASE_INERTIA, 0, 0, _BASE_INERTIA, 0, _BASE_INERTIA]])
    pi0 = np.tile(base, n)
    tau0 = rne(with_parameters(robot, pi0), q, qd, qdd, gravity=gravity, friction=False)
    Y = np.empty(tau0.shape + (10 * n,))
    for k in range(10 * n):
        pk = pi0.copy()
        pk[k] += 1.0
        Y[..., k] = rne(with_parameters(robot, pk), q, qd, qdd, gravity=gravity, friction=False) - tau0
    return Y


def states_shape(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> tuple[int, ...]:
    """The common shape (..., n) of q, q̇, q̈ (broadcast), checked with the regressor's size:
    an InputError names the arguments and their shapes, or the size in words."""
    shapes = {k: np.shape(v) for k, v in (("q", q), ("qd", qd), ("qdd", qdd))}
    try:
        shape = np.broadcast_shapes(*shapes.values())
    except ValueError:
        raise InputError("q, qd, qdd: expected the same states, one row of joint values each (or one row for all); "
                         f"got shapes {', '.join(f'{k} {v}' for k, v in shapes.items())}") from None
    states = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    entries = states * robot.n * 10 * robot.n
    if entries > REGRESSOR.value:
        raise InputError(f"regressor of {states:,} states: {states:,} × {robot.n} × {10 * robot.n} = {entries:,} "
                         f"entries ({entries * 8 / 1e9:.3g} GB) is over the limit of {REGRESSOR.value:,} "
                         f"{REGRESSOR.what} ({REGRESSOR.name}): {REGRESSOR.hint}")
    return shape


__all__ = ["PARAMS", "parameter_names", "inertial_parameters", "with_parameters", "regressor", "states_shape"]
