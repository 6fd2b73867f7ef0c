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

from ..errors import InputTypeError

import functools
import os
from typing import Any, Callable, TypeVar

from .robot import Robot

F = TypeVar("F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=None)
def _bundled(name: str) -> Robot:
    """A bundled robot, read once: Robots are immutable, and a loop of ``km.fk("puma560", q)``
    must not re-read the file every time (~20 ms)."""
    from .library import load  # library's save takes a robot too: imported here, not above

    return load(name)


@functools.lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    from .library import robot_names

    return frozenset(robot_names())


def as_robot(robot: "Robot | str | os.PathLike[str]") -> Robot:
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
    """Decorator of a public verb whose first argument is the robot: pass it through `as_robot`.

    The wrapper has the verb's own parameters (made from its signature), not ``*args,
    **kwargs``: packing and unpacking those cost ~0.25 µs a call, a quarter of the compiled
    Jacobian's time (issue 12). A signature it cannot copy gets the generic wrapper."""
    verb = _exact_wrapper(fn)
    if verb is None:
        def verb(robot, *args, **kwargs):
            return fn(robot if isinstance(robot, Robot) else as_robot(robot), *args, **kwargs)
    return functools.wraps(fn)(verb)  # type: ignore[return-value]


def _exact_wrapper(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """`def verb(robot, q, frame=_d1): return fn(<robot coerced>, q, frame)` for fn's own
    parameters (read from its code object: `inspect.signature` would cost ~26 of these at
    import), the defaults passed by reference; None when the first parameter is not a plain
    `robot` or fn is not a plain function."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_posonlyargcount or code.co_argcount == 0 or code.co_varnames[0] != "robot":
        return None
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:npos + nkw + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
    space: dict[str, Any] = {"fn": fn, "Robot": Robot, "as_robot": as_robot, "isinstance": isinstance}
    if any(name in space for name in names):  # a parameter named like a global of the wrapper
        return None
    defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
    head, call = [], []
    for i, name in enumerate(names[:npos]):
        j = i - (npos - len(defaults))  # index into the defaults, which end the positional list
        if j >= 0:
            space[f"_d{i}"] = defaults[j]
        head.append(f"{name}=_d{i}" if j >= 0 else name)
        call.append(name)
    rest = names[npos + nkw:]
    if code.co_flags & 4:  # *args
        head.append("*" + rest[0])
        call.append("*" + rest[0])
    elif nkw:
        head.append("*")
    for name in names[npos:npos + nkw]:
        if name in kwdefaults:
            space[f"_k_{name}"] = kwdefaults[name]
        head.append(f"{name}=_k_{name}" if name in kwdefaults else name)
        call.append(f"{name}={name}")
    if code.co_flags & 8:  # **kwargs
        head.append("**" + rest[-1])
        call.append("**" + rest[-1])
    call[0] = "robot if isinstance(robot, Robot) else as_robot(robot)"
    source = f"def verb({', '.join(head)}):\n    return fn({', '.join(call)})\n"
    exec(compile(source, f"<takes_robot: {fn.__module__}.{fn.__qualname__}>", "exec"), space)  # names it in tracebacks
    return space["verb"]
