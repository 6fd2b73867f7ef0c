"""The per-robot cache: the tables the compiled core needs, computed once per robot on first use.

A `Robot` is immutable, so anything derived from it alone can be kept for its lifetime. The
cache object lives in the robot's own instance dictionary (the place `functools.cached_property`
uses), so it is found with one dictionary lookup, dies with the robot and can never be handed
to another robot that happens to reuse a collected one's `id()` — the hazard of the module-level
dicts keyed by `id(robot)` it replaces. Each layer fills its own slot (the kinematics its chain
constants, the dynamics its local-frame constants) the first time it needs them; a copied or
pickled robot starts with an empty cache (the slots hold compiled programs, which neither copy
nor pickle).

>>> import kinematica as km
>>> r = km.load("planar-3r")
>>> cache_of(r) is cache_of(r), cache_of(r) is cache_of(km.load("puma560"))
(True, False)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..model.robot import Robot

if TYPE_CHECKING:  # (the core loads at the first handle: kinematics/handle.py)
    from .._core import Chain

CACHE_KEY = "_kinematica_cache"  # the cache's key in the robot's __dict__ (fk and jacobian read it inline)


class RobotCache:
    """Derived constants of one robot, each slot filled by the module that owns it."""

    __slots__ = ("chain", "core", "dynamics", "fast_ik", "local", "solvers")

    def __init__(self) -> None:
        self.chain: tuple[np.ndarray, np.ndarray] | None = None  # (C, joints), see chain_arrays
        self.core: tuple[Chain, tuple[int]] | None = None  # (the core's handle, (n,)): handle.chain_handle
        self.local: Any = None  # dynamics.local.Local: the local-frame dynamics constants
        self.dynamics: Any = None  # the core's dynamic handle and more, dynamics.packing.dynamics_handle
        # ik.fast's constants (solver, p1, reach), per limit mode and closed-form seeding
        self.fast_ik: dict[tuple[str, bool], tuple[Any, ...] | None] = {}
        self.solvers: dict[Hashable, Any] = {}  # the core's IK solvers per settings (ik.lm_core), its closed form

    def __reduce__(self) -> tuple[type[RobotCache], tuple[()]]:  # copies and pickles start empty (see the module docstring)
        return (RobotCache, ())


def cache_if_made(robot: Robot) -> RobotCache | None:
    """The robot's cache if a call has made it, else None (a look that does not create it)."""
    return robot.__dict__.get(CACHE_KEY)


def cache_of(robot: Robot) -> RobotCache:
    """The robot's cache, created empty on first use."""
    found = robot.__dict__.get(CACHE_KEY)
    if found is None:
        found = robot.__dict__[CACHE_KEY] = RobotCache()  # beside cached_property's entries
    return found


# Joint kinds in the core's per-joint table (a float array: one argument fewer to pass). A
# helical joint is a kind of its own, not a revolute one with a pitch: it turns like a revolute
# joint but is no more periodic than a prismatic one (IK never wraps it by 2π).
REVOLUTE, PRISMATIC, HELICAL = 0.0, 1.0, 2.0
JOINT_COLUMNS = 3  # kind, offset, pitch (see chain_arrays); every kernel reads all three


def chain_arrays(robot: Robot) -> tuple[np.ndarray, np.ndarray]:
    """The canonical chain as the compiled core takes it: C (n + 1, 4, 4), the constant
    transforms C0 … Cn, and joints (n, 3), per joint its kind (REVOLUTE, PRISMATIC or HELICAL),
    its offset and its pitch (length unit per rad; 0 but for a helical joint). Per-joint
    columns so that a new joint parameter is one more column.

    >>> import kinematica as km
    >>> C, joints = chain_arrays(km.load("planar-3r"))
    >>> C.shape, joints.tolist()
    ((4, 4, 4), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    """
    cache = cache_of(robot)
    if cache.chain is None:
        joints = np.empty((robot.n, JOINT_COLUMNS))
        joints[:, 0] = np.where(robot.revolute, np.where(robot.pitch != 0, HELICAL, REVOLUTE), PRISMATIC)
        joints[:, 1] = robot.offsets
        joints[:, 2] = robot.pitch
        cache.chain = (np.ascontiguousarray(robot.C, dtype=float), joints)
    return cache.chain

