"""Joint-value checks and the single FK + Jacobian of the iterative IK's NumPy reference loop
(`ik.single`), by the compiled core. `km.fk` and `km.jacobian` run the core
(kinematics/handle.py) for every call; the product-of-exponentials reference they are tested
against is kinematics/reference.py."""

from __future__ import annotations

import math
from typing import Literal, NoReturn, overload

import numpy as np

from ..errors import InputError
from ..model.robot import Robot
from .handle import chain_handle

_F8 = np.dtype(float)


def check_q(robot: Robot, q: object, what: str = "q") -> np.ndarray:
    """q as a float array of shape (..., n); a clear ValueError for any other shape or NaN/inf."""
    arr = shaped_q(robot, q, what)
    # A finite sum proves every value finite (NaN and inf propagate); only an overflowing sum
    # or a bad value needs the element-wise test. Python's sum is the cheaper one for few values.
    total = sum(arr.ravel().tolist()) if arr.size <= 64 else float(arr.sum())
    if not math.isfinite(total) and not np.isfinite(arr).all():
        not_finite(what)
    return arr


def shaped_q(robot: Robot, q: object, what: str = "q") -> np.ndarray:
    """`check_q` without the finiteness test, for callers whose kernel reports it."""
    if type(q) is np.ndarray and q.dtype is _F8:  # already floats: asarray's call saved
        arr = q
    else:
        try:
            arr = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{what}: expected numbers, got {q!r}") from None
    if not arr.shape or arr.shape[-1] != len(robot.joint_types):
        raise InputError(
            f"{what}: expected {robot.n} joint values for {robot.name!r} (shape (..., {robot.n})), "
            f"got shape {arr.shape}")
    return arr


def not_finite(what: str = "q") -> NoReturn:
    raise InputError(f"{what}: contains NaN or infinity")


@overload
def end_single(robot: Robot, q: np.ndarray, with_jacobian: Literal[True]) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def end_single(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]: ...
def end_single(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:  # (the Jacobian is
    # there exactly when asked for: the overload above lets the IK's callers index it without a check)
    """Pose (4, 4) and, if asked, the base-frame Jacobian (6, n) of one configuration q (n,)
    from `shaped_q`, by the compiled core, for the iterative IK: NaN or infinity in q gives
    arrays of NaN (an iterate that left the numbers fails its verdict; it is no input error)."""
    h = chain_handle(robot)[0]
    try:
        return h.fk_jacobian(q, 0) if with_jacobian else (h.fk(q), None)
    except ValueError:
        return np.full((4, 4), np.nan), (np.full((6, robot.n), np.nan) if with_jacobian else None)
