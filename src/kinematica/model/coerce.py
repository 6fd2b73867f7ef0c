"""The robot argument of every public verb: a `Robot`, or what `km.load` takes (a bundled
robot's name or a .yaml/.urdf file's path), so that ``km.fk("puma560", q)`` works as
``km.fk(km.load("puma560"), q)`` does; anything else is a TypeError saying what is expected.

>>> import kinematica as km
>>> km.fk("planar-3r", [0, 0, 0])[:3, 3].round(3).tolist()
[60.0, 0.0, 0.0]
>>> km.fk(None, [0, 0, 0])
Traceback (most recent call last):
...
kinematica.errors.InputTypeError: robot: expected a Robot, a bundled robot name (e.g. 'puma560') or a .yaml/.urdf file path, got NoneType
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import InputTypeError
from ..keywords import exact_wrapper, strict
from .robot import Robot

F = TypeVar("F", bound=Callable[..., Any])


@functools.cache
def _bundled(name: str) -> Robot:
    """A bundled robot, read once: Robots are immutable, and a loop of ``km.fk("puma560", q)``
    must not re-read the file every time (~20 ms)."""
    from .library import (
        load,  # library's save takes a robot too: imported here, not above
    )

    return load(name)


@functools.lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    from .library import robot_names

    return frozenset(robot_names())


def as_robot(robot: Robot | str | os.PathLike[str]) -> Robot:
    """`robot` itself, the bundled robot of that name, or the robot in that file (read on every
    call: load it once with `km.load` to use it in a loop)."""
    if isinstance(robot, Robot):
        return robot
    if isinstance(robot, (str, os.PathLike)):
        key = os.fspath(robot)
        if key in _names():
            return _bundled(key)
        from .library import load

        return load(key)
    raise InputTypeError("robot: expected a Robot, a bundled robot name (e.g. 'puma560') or a .yaml/.urdf "
                    f"file path, got {type(robot).__name__}")


def takes_robot(fn: F) -> F:
    """Decorator of a public verb whose first argument is the robot: pass it through `as_robot`,
    and refuse a keyword the verb does not take, naming the verb and what it takes
    (`kinematica.keywords`).

    The wrapper has the verb's own parameters (made from its signature), not ``*args,
    **kwargs``: packing and unpacking those cost ~0.25 µs a call, a quarter of the compiled
    Jacobian's time (issue 12). A signature it cannot copy gets the generic wrapper."""
    code = getattr(fn, "__code__", None)
    verb = None
    if code is not None and code.co_argcount and code.co_varnames[0] == "robot":
        verb = exact_wrapper(fn, "robot if isinstance(robot, Robot) else as_robot(robot)",
                             {"Robot": Robot, "as_robot": as_robot, "isinstance": isinstance})
    return functools.wraps(fn)(verb or _generic_verb(fn))  # type: ignore[return-value]


def _generic_verb(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The `takes_robot` wrapper of a signature `exact_wrapper` cannot copy."""
    checked = strict(fn)

    def verb(robot, *args, **kwargs):
        return checked(robot if isinstance(robot, Robot) else as_robot(robot), *args, **kwargs)
    return verb
