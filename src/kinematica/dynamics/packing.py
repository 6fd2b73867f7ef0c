"""The robot's dynamic tables as the compiled core takes them (`_core.Dynamics`), packed once
and kept in the robot's cache beside its kinematic handle.

`pack(L)` lays out the `Local` constants (local.py: SI, joint frames) one row per joint — the
constant K_i = (R, p), the link's mass, first moment h = m·com and inertia about the joint
origin, the joint's kind, offset, SI scale, armature, viscous and Coulomb friction, pitch — and
a last row holding the tool point; PACK names the columns (src/core/dynamics.hpp reads the
same numbers). A new per-joint parameter is one more column.

>>> import kinematica as km
>>> pack(local(km.load("puma560"))).shape
(7, 32)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..kinematics.cache import HELICAL, PRISMATIC, REVOLUTE, cache_of
from ..model.robot import Robot
from .local import Local, local
from .params import GRAVITY

PACK = {"R": slice(0, 9), "p": slice(9, 12), "mass": 12, "h": slice(13, 16), "I": slice(16, 25),
        "kind": 25, "offset": 26, "scale": 27, "armature": 28, "viscous": 29, "coulomb": 30,
        "pitch": 31}
WIDTH = 32


def pack(L: Local) -> np.ndarray:
    """The constants of L as one (n + 1, WIDTH) array (the last row: the tool point, m)."""
    D = np.zeros((L.n + 1, WIDTH))
    D[:-1, PACK["R"]] = np.reshape(L.R, (L.n, 9))
    D[:-1, PACK["p"]] = L.p
    D[:-1, PACK["mass"]] = L.mass
    D[:-1, PACK["h"]] = L.h
    D[:-1, PACK["I"]] = np.reshape(L.I, (L.n, 9))
    D[:-1, PACK["kind"]] = np.where(L.revolute, np.where(np.array(L.pitch) != 0, HELICAL, REVOLUTE), PRISMATIC)
    for name in ("offset", "scale", "armature", "viscous", "coulomb", "pitch"):
        D[:-1, PACK[name]] = getattr(L, name if name != "offset" else "offsets")
    D[-1, :3] = L.tool
    return D


class Handle(NamedTuple):
    """What a dynamics call needs of the robot, looked up once."""

    core: Any  # _core.Dynamics (its default gravity: params.GRAVITY)
    rough: bool  # whether the robot has friction or armature
    shape: tuple[int]  # (n,): the shape of one state


def dynamics_handle(robot: Robot) -> Handle:
    """The robot's dynamic handle, made on first use (a DynamicsError, from `local`, if the
    robot lacks inertials)."""
    cache = cache_of(robot)
    if cache.dynamics is None:
        from .._core import Dynamics

        L = local(robot)
        cache.dynamics = Handle(Dynamics(pack(L), GRAVITY), L.rough, (robot.n,))
    return cache.dynamics
