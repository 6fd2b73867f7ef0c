"""IK option handling: the limit modes, the default tolerance and the `Options` a call's
keyword arguments make, in one place for `km.ik`, the closed-form path and the explain layer.

>>> import kinematica as km
>>> o = solver_options(km.load("puma560"), "lm", limit_mode("auto", [0] * 6), {})
>>> o.clip_limits, o.damping, o.tol_position
(True, 'adaptive', 1e-06)
"""

from __future__ import annotations

from ..bounds import ITERATIONS, count
from ..errors import InputError, InputTypeError
from ..keywords import accepted, refuse
from ..model.robot import Robot
from .limits import LIMIT_MODES
from .numeric import METHODS, Options
from .tolerance import default_tolerance

__all__ = ["LIMIT_MODES", "check_option_names", "default_tolerance", "limit_mode", "solver_options"]


def limit_mode(limits: str, q0) -> str:
    """The limit mode a call runs in: `limits` itself, or for "auto" "clip" when q0 is given
    as joint values and "wrap" otherwise (see `km.ik`)."""
    if limits not in LIMIT_MODES:
        raise InputError(f"limits must be one of {', '.join(LIMIT_MODES)}, got {limits!r}")
    if limits != "auto":
        return limits
    return "wrap" if q0 is None or isinstance(q0, str) else "clip"


# The `Options` fields a call may set (method and clip_limits come from its own arguments).
USER_OPTIONS = tuple(f for f in Options.__dataclass_fields__ if f not in ("method", "clip_limits"))


def check_option_names(where: str, fn, kw: dict) -> None:
    """Refuse a keyword of a call to `fn` (which passes its **options here) that is neither its
    own parameter nor an `Options` field, naming `where` and everything it takes."""
    unknown = set(kw) - set(USER_OPTIONS)
    if unknown:
        raise refuse(where, unknown, accepted(fn) + USER_OPTIONS)


def solver_options(robot: Robot, method: str, mode: str, kw: dict) -> Options:
    """`Options` from a call's keyword arguments kw (consumed): damping "auto" read by method
    and limit mode, the robot's default tolerance, max_iter bounded; an unknown name or
    method is an error naming it."""
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "dls" and kw.get("damping") in (None, "adaptive", "auto"):
        kw["damping"] = 1e-2 * (1.0 if robot.length_unit == "m" else 1000.0)
    if kw.get("damping") in (None, "auto"):  # paper 000's accept/reject when clipping, else Chan's
        kw["damping"] = "adaptive" if mode == "clip" else "chan"
    kw.setdefault("tol_position", default_tolerance(robot))
    if "max_iter" in kw:
        kw["max_iter"] = count(kw["max_iter"], "max_iter", ITERATIONS)
    unknown = set(kw) - set(USER_OPTIONS)
    if unknown:
        raise InputTypeError(f"unknown IK option(s): {', '.join(sorted(unknown))}; options are {', '.join(USER_OPTIONS)}")
    return Options(method=method, clip_limits=(mode == "clip"), **kw)
