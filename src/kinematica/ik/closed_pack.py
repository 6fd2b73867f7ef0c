"""An arm's closed form packed for the compiled core (`kinematica._core.ClosedForm`, C++:
src/core/closed.cpp): the constants the NumPy solvers read from the robot, in arrays, once per
robot — `analytic.spherical_wrist` (axes 4–6 meeting: Puma 560, KUKA KR6) and `analytic.ur`
(axes 2–4 parallel, 5 ∩ 6: UR3/5/10), 8 branches of a pose; `analytic.geometric5` (yaw, three
parallel pitches, roll: papers 002/003's arms), 4 branches of a pose or of a position with its
approach axis; `analytic.planar` (2R (x, y), 3R (x, y, φ)), 2 elbows. The core evaluates their
equations one target at a time: every branch, each wrapped to (−π, π] and then by 2π into the
joint limits where possible (`analytic._wrap`'s rule), marked reachable by the solver's own
geometry, and the reachable branch inside the limits nearest a seed (each gap modulo 2π) —
`km.ik`'s seed for LM and the answer of `method="analytic"` for one target
(`closed._one_compiled`, which FK-checks the branches as `analytic_solutions` does).

The NumPy solvers are the reference: tests/test_ik_compiled_single.py holds the two to the same
branches on every bundled arm and on random ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..kinematics.cache import cache_of
from ..model.memo import per_robot
from ..model.robot import LIMIT_TOL, Robot
from .analytic import solver_name
from .analytic.geometry import LENGTH_TOL, ROUNDING
from .target import Target

if TYPE_CHECKING:
    from .._core import ClosedForm

TARGET_KINDS = {"pose": 0, "position": 1, "approach": 2, "planar": 3}  # src/core/residual.hpp

SPHERICAL, UR, GEOMETRIC5, PLANAR = 1, 2, 3, 4  # the solver kinds (S[KIND])
KIND_OF = {"spherical wrist": SPHERICAL, "ur": UR, "geometric5": GEOMETRIC5, "planar": PLANAR}
# S: the arm plane's and the wrist's scalars, by these indices
KIND, H_ANGLE, D, SCALE, L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2, PSI = range(15)
V0, V1, VR0, VR1 = 15, 17, 19, 21  # the wrist's complex constants: real part, then imaginary
# the 5-DOF arm's roll axis (its in-plane angle; the tool-frame z of its point and its sign), whether
# approach targets fit, the planar base's yaw, the joint count
Z5_ANGLE, COL_A, SIGN_A, APPROACH_OK, YAW0, N_JOINTS = range(23, 29)
S_LEN = 29
# F: rotations R0, R1 (the arm plane; planar: the base), W (columns w, x6, z6 of the tool; 5-DOF:
# the roll axis' point, the roll axis, the tool's x), PRE (spherical: the last arm frame to joint 4;
# 5-DOF: to joint 5), B, C (the wrist); P: the points p0 (planar: the base's origin), p1
R0, R1, W, PRE, B, C = range(6)
P0, P1 = range(2)
# per joint: offset, how `analytic._wrap` treats it (0 free, 1 narrow range, 2 wide range), the
# middle of its range, its limits
OFFSET, WRAP, MID, LO, HI = range(5)


@per_robot
def constants(robot: Robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(S, F, P, joints) of the robot's closed form (the layout of src/core/closed.hpp), or
    None when no closed-form solver fits it."""
    from .analytic import _limited

    name = solver_name(robot)
    kind = KIND_OF.get(name) if name is not None else None  # (None for a helical arm: `analytic._fit`)
    if kind is None:
        return None
    S, F, P = np.zeros(S_LEN), np.tile(np.eye(3), (6, 1, 1)), np.zeros((2, 3))
    S[KIND], S[N_JOINTS] = kind, robot.n
    if kind == PLANAR:
        _pack_planar(robot, S, F, P)
    else:
        _pack_arm(robot, kind, S, F, P)
    joints = np.zeros((6, 5))
    n = robot.n
    joints[:n, OFFSET], joints[:n, LO], joints[:n, HI] = robot.offsets, robot.limits[:, 0], robot.limits[:, 1]
    narrow, mid, wide, _, mid_w = _limited(robot)
    joints[narrow, WRAP], joints[narrow, MID] = 1, mid
    joints[wide, WRAP], joints[wide, MID] = 2, mid_w
    for a in (S, F, P, joints):
        a.setflags(write=False)
    return S, F, P, joints


def _pack_arm(robot: Robot, kind: int, S: np.ndarray, F: np.ndarray, P: np.ndarray) -> None:
    """The arm plane's constants, and the wrist's (6R) or the roll axis' (5-DOF), into S, F, P."""
    from .analytic import geometric5, spherical_wrist, ur

    arm = {SPHERICAL: spherical_wrist, UR: ur, GEOMETRIC5: geometric5}[kind].structure(robot)
    pl = arm.plane
    L, beta, kappa, sense = np.zeros(3), np.zeros(3), np.zeros(2), np.ones(3)
    L[:len(pl.L)], beta[:len(pl.beta)], kappa[:len(pl.kappa)], sense[:len(pl.sense)] = pl.L, pl.beta, pl.kappa, pl.sense
    S[[H_ANGLE, D, SCALE]] = pl.h_angle, pl.d, pl.scale
    S[[L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2]] = (*L, *beta, *kappa, *sense[1:])
    F[R0], F[R1], F[W] = pl.R0, pl.R1, arm.cols
    P[P0], P[P1] = pl.p0, pl.p1
    if kind == GEOMETRIC5:
        S[[Z5_ANGLE, COL_A, SIGN_A, APPROACH_OK]] = arm.z5_angle, arm.cols[2, 0], np.sign(arm.cols[2, 1]), arm.approach_ok
        F[PRE] = arm.pre
        return
    wr = arm.wrist
    S[PSI] = wr.psi
    for at, z in zip((V0, V1, VR0, VR1), (*wr.v, *wr.v_row), strict=True):
        S[at], S[at + 1] = z.real, z.imag
    F[PRE], F[B], F[C] = getattr(arm, "pre", np.eye(3)), wr.B, wr.C


def _pack_planar(robot: Robot, S: np.ndarray, F: np.ndarray, P: np.ndarray) -> None:
    """A planar arm's link lengths, base yaw and base into S, F, P."""
    from .analytic import planar

    L = planar.lengths(robot)
    S[[L0, L1, L2][:len(L)]] = L
    base = robot.C[0]
    S[[YAW0, SCALE]] = np.arctan2(base[1, 0], base[0, 0]), max(float(L.sum()), 1.0)
    F[R0], P[P0] = base[:3, :3], base[:3, 3]


def labels(robot: Robot) -> list[str]:
    """The names of the branches of `ClosedForm.candidates`, in its order (the NumPy solver's labels);
    call only where `constants(robot)` is not None."""
    from .analytic import geometric5, planar, spherical_wrist, ur

    name = solver_name(robot)
    assert name is not None  # the caller has a closed form (constants(robot) is not None)
    if name == "planar":
        return list(planar.LABELS)
    return list({"spherical wrist": spherical_wrist, "ur": ur, "geometric5": geometric5}[name].structure(robot).labels)


def fits(robot: Robot, t: Target) -> bool:
    """Whether the robot has a core closed form that takes targets of t's kind (and heading)."""
    return form_for(robot, t) is not None


def form_for(robot: Robot, t: Target) -> ClosedForm | None:
    """The robot's core closed form if it takes targets of t's kind (and heading), else None."""
    form = closed_form(robot)
    return form if form is not None and form.fits(TARGET_KINDS[t.kind], t.phi is not None) else None


def closed_form(robot: Robot) -> ClosedForm | None:
    """The robot's `_core.ClosedForm`, or None when no closed form fits it: made once and kept in
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
