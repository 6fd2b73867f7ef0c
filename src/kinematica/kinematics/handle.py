"""The robot's handle in the compiled core (`kinematica._core`, C++17): its kinematic tables
packed once — the constant transforms C0 … Cn, per joint its kind (revolute, prismatic,
helical), offset and pitch, and for every frame the base, B_i, A_i and the tool — and kept in
the robot's own cache (`cache.RobotCache.core`), so a call hands the core one object and q.

The core is loaded here, at the first handle made, never at `import kinematica`: it is a small
shared library (milliseconds), with no compilation and no warm-up.

>>> import kinematica as km
>>> r = km.load("planar-3r")
>>> chain_handle(r) is chain_handle(r), chain_handle(r)[0].n, chain_handle(r)[1]
(True, 3, (3,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..model.robot import Robot
from .cache import CACHE_KEY, RobotCache, cache_of, chain_arrays

if TYPE_CHECKING:
    from .._core import Chain


def chain_handle(robot: Robot) -> tuple[Chain, tuple[int]]:
    """The robot's `_core.Chain` and the shape (n,) of one configuration, made on first use
    (the calls read `cache_of(robot).core` first: one lookup on every FK and Jacobian call)."""
    cache: RobotCache | None = robot.__dict__.get(CACHE_KEY)
    if cache is not None and cache.core is not None:
        return cache.core
    from .._core import Chain  # (the core loads here, at the first handle)

    C, joints = chain_arrays(robot)
    made = Chain(C, joints, *(np.ascontiguousarray(a, dtype=float)
                                   for a in (robot.before, robot.after, robot.base, robot.tool)))
    core = cache_of(robot).core = (made, (robot.n,))
    return core
