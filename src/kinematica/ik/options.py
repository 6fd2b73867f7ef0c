"""IK's central types and option handling: the methods, the status codes every solver reports,
the solver settings (`Options`), the limit modes, the default tolerance, and the `Options` a
call's keyword arguments make — in one place for `km.ik`, the engines, the closed-form path and
the explain layer.

>>> import kinematica as km
>>> o = solver_options(km.load("puma560"), "lm", limit_mode("auto", [0] * 6), {})
>>> o.clip_limits, o.damping, o.tol_position
(True, 'adaptive', 1e-06)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bounds import ITERATIONS, count
from ..errors import InputError, InputTypeError
from ..keywords import accepted, refuse
from ..model.robot import Robot
from .limits import LIMIT_MODES
from .tolerance import ORIENTATION_TOLERANCE, default_tolerance

__all__ = ["METHODS", "RUNNING", "CONVERGED", "STALLED", "LIMIT", "AT_LIMIT", "OUTSIDE", "Options", "Call", "Settings",
           "LIMIT_MODES", "USER_OPTIONS", "check_option_names", "default_tolerance", "limit_mode",
           "solver_options"]

METHODS = ("lm", "gn", "newton", "transpose", "dls")

# A target's status, as every solver reports it (the NumPy engines, the reference loop and the
# compiled core, src/core/lm.cpp, use the same numbers).
RUNNING = -1  # still iterating
CONVERGED = 0  # both errors under tolerance
STALLED = 1  # neither the gradient nor the step can move it
LIMIT = 2  # the iteration cap
AT_LIMIT = 3  # stalled with a joint on its limit (clipped steps)
OUTSIDE = 4  # abandoned while converging outside the joint limits (see `restarts`)


@dataclass(frozen=True, kw_only=True)
class Options:
    """Solver settings. Tolerances in the robot's length unit and rad. Frozen: a changed
    setting is a new value (`dataclasses.replace`), so no solver alters its caller's options."""

    method: str = "lm"
    max_iter: int = 100
    tol_position: float = 1e-6
    tol_orientation: float = ORIENTATION_TOLERANCE
    eps_step: float = 1e-12
    eps_grad: float = 1e-14
    damping: str | float = "adaptive"  # lm: "adaptive" | "chan"; dls: λ (length units)
    lambda0: float = 1e-3  # adaptive LM: the first λ (absolute; paper 000's example works for 1e-3…10)
    chan_factor: float = 0.1  # Chan's damping: λ = chan_factor · E
    lambda_up: float = 10.0
    lambda_down: float = 10.0
    step: float | None = None  # transpose: fixed α; None = Buss's adaptive step
    clip_limits: bool = True  # project onto the limits after every step (paper 000's reading)
    history: bool = False
    # lm, limits "wrap": start from the closed-form branch nearest q0 where the arm has one
    # (issue 12); False runs LM from q0 itself (to study LM, or to measure a seed's value)
    closed_form_seed: bool = True


@dataclass(frozen=True, kw_only=True)
class Call:
    """One `km.ik` call's choices besides the robot, the target and q0, as given (see `km.ik`)."""

    method: str = "lm"
    limits: str = "auto"
    restarts: int = 200
    seed: int | None = 0
    secondary: dict | None = None
    rest: Any = None  # the rest pose of the "rest" secondary goal
    model: Any = None  # a learned IK model, for method "anfis"
    options: dict[str, Any] = field(default_factory=dict)  # `Options` fields


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What a call settles to before a numeric solve: the solver's `Options`, whether the joint
    limits are enforced (limit mode other than "ignore"), the restarts and the seed."""

    opts: Options
    enforce: bool
    restarts: int
    seed: int | None


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
