"""`per_robot`: memoise a function of a robot in the robot's own instance dictionary.

A module-level `functools.lru_cache` keyed by a `Robot` holds the robot (and whatever was derived
from it: SymPy closed forms, solver structures) alive until 32–64 other robots push it out. In
the simulator every robot read from a file or edited in the Robot tab is a new object, so a
closed session's robots stayed in those caches. Kept in the robot's `__dict__` (beside
`functools.cached_property`'s entries and the kinematics' `RobotCache`), a memoised result lives
exactly as long as its robot; a result that refers back to the robot forms a cycle the garbage
collector frees with it.
A shallow copy of a robot shares its memo, which stays right: the copy's fields are the same.

>>> import kinematica as km
>>> @per_robot
... def width(robot, scale=1.0):
...     return robot.n * scale
>>> r = km.load("planar-3r")
>>> width(r), width(r, 2.0), len(r.__dict__[_KEY])
(3.0, 6.0, 2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

_KEY = "_kinematica_memo"
F = TypeVar("F", bound=Callable[..., Any])


def per_robot(func: F) -> F:
    """Memoise `func(robot, *args)` on `robot` (its further arguments must be hashable). Robots
    are immutable, so a result derived from the robot alone stays valid for its lifetime."""

    @functools.wraps(func)
    def memoised(robot, *args, **kwargs):
        memo = robot.__dict__.get(_KEY)
        if memo is None:
            memo = robot.__dict__[_KEY] = {}  # (function, arguments after the robot) -> result
        key = (memoised, args, tuple(sorted(kwargs.items()))) if kwargs else (memoised, args)
        try:
            return memo[key]
        except KeyError:
            found = memo[key] = func(robot, *args, **kwargs)
            return found

    return memoised  # type: ignore[return-value]
