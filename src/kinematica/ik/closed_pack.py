"""A 6R arm's closed form packed for the compiled core (`kinematica._core.ClosedForm`, C++:
src/core/closed.cpp): the constants the NumPy solvers `analytic.spherical_wrist` (axes 4–6
meeting: Puma 560, KUKA KR6) and `analytic.ur` (axes 2–4 parallel, 5 ∩ 6: UR3/5/10) read from
the robot, in arrays, once per robot. The core evaluates their equations one target at a time:
the 8 branches (2 shoulders × 2 elbows × 2 wrists), each wrapped to (−π, π] and then by 2π into
the joint limits where possible (`analytic._wrap`'s rule), marked reachable by the solver's own
geometry, and the reachable branch inside the limits nearest a seed (each gap modulo 2π) —
`km.ik`'s seed for LM and the answer of `method="analytic"` for one pose
(`closed._one_compiled`, which FK-checks the branches as `analytic_solutions` does).

The equations are written once as NumPy solvers and once in C++; tests/test_ik_compiled_single.py
holds the two to the same branches on every bundled arm and on random ones.
"""

from __future__ import annotations

import numpy as np

from ..model.robot import LIMIT_TOL, Robot
from .analytic import solver_name
from .analytic.geometry import LENGTH_TOL, ROUNDING
from ..kinematics.cache import cache_of
from ..model.memo import per_robot

SPHERICAL, UR = 1, 2  # the solver kinds (S[KIND])
# S: the arm plane's and the wrist's scalars, by these indices
KIND, H_ANGLE, D, SCALE, L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2, PSI = range(15)
V0, V1, VR0, VR1 = 15, 17, 19, 21  # the wrist's complex constants: real part, then imaginary
S_LEN = 23
# F: rotations R0, R1 (the arm plane), W (columns w, x6, z6 of the tool), PRE (spherical: the
# last arm frame to joint 4), B, C (the wrist); P: the points p0, p1
R0, R1, W, PRE, B, C = range(6)
P0, P1 = range(2)
# per joint: offset, how `analytic._wrap` treats it (0 free, 1 narrow range, 2 wide range), the
# middle of its range, its limits
OFFSET, WRAP, MID, LO, HI = range(5)


@per_robot
def constants(robot: Robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(S, F, P, joints) of the robot's closed form (the layout of src/core/closed.hpp), or
    None when neither the spherical-wrist nor the UR solver fits it."""
    from .analytic import _limited, spherical_wrist, ur

    kind = {"spherical wrist": SPHERICAL, "ur": UR}.get(solver_name(robot))
    if kind is None:
        return None
    arm = (spherical_wrist if kind == SPHERICAL else ur).structure(robot)
    pl, wr = arm.plane, arm.wrist
    S = np.zeros(S_LEN)
    L = np.zeros(3)
    L[:len(pl.L)] = pl.L
    beta, kappa, sense = np.zeros(3), np.zeros(2), np.ones(3)
    beta[:len(pl.beta)], kappa[:len(pl.kappa)], sense[:len(pl.sense)] = pl.beta, pl.kappa, pl.sense
    S[[KIND, H_ANGLE, D, SCALE, PSI]] = kind, pl.h_angle, pl.d, pl.scale, wr.psi
    S[[L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2]] = (*L, *beta, *kappa, *sense[1:])
    for at, z in zip((V0, V1, VR0, VR1), (*wr.v, *wr.v_row)):
        S[at], S[at + 1] = z.real, z.imag
    F = np.stack([pl.R0, pl.R1, arm.cols, getattr(arm, "pre", np.eye(3)), wr.B, wr.C]).astype(float)
    P = np.stack([pl.p0, pl.p1]).astype(float)
    joints = np.zeros((6, 5))
    joints[:, OFFSET], joints[:, LO], joints[:, HI] = robot.offsets, robot.limits[:, 0], robot.limits[:, 1]
    narrow, mid, wide, _, mid_w = _limited(robot)
    joints[narrow, WRAP], joints[narrow, MID] = 1, mid
    joints[wide, WRAP], joints[wide, MID] = 2, mid_w
    for a in (S, F, P, joints):
        a.setflags(write=False)
    return S, F, P, joints


def labels(robot: Robot) -> list[str]:
    """The names of the 8 branches of `ClosedForm.candidates`, in its order (the NumPy solver's labels);
    call only where `constants(robot)` is not None."""
    from .analytic import spherical_wrist, ur

    return list((spherical_wrist if solver_name(robot) == "spherical wrist" else ur).structure(robot).labels)


def closed_form(robot: Robot):
    """The robot's `_core.ClosedForm` (a 6R arm's), or None when no closed form fits it: made once and kept in
    the robot's cache (`kinematics.cache`, which a pickled or copied robot leaves behind — a core
    object does not pickle, and a robot goes to Dask workers)."""
    made = cache_of(robot).solvers
    if "closed form" not in made:
        packed = constants(robot)
        if packed is None:
            made["closed form"] = None
        else:
            from .._core import ClosedForm

            made["closed form"] = ClosedForm(*packed, LIMIT_TOL, LENGTH_TOL, ROUNDING)
    return made["closed form"]
