"""Step 2 of `km.ik`'s spine: where each target's iteration starts.

`initial_seeds` reads the call's q0 (the robot's home, joint values for all or per target, or
"random": uniform inside the limits); `first_seeds` turns them, for LM in "wrap" mode on an arm
with a closed form, into the closed form's branch nearest each seed (issue 12): the core takes
that branch itself where it has the closed form (`closed_pack.fits`), the NumPy closed forms
(`closed.closed_form_seeds`) elsewhere.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..kinematics.chain import check_q
from ..model.robot import Robot
from .closed import closed_form_seeds
from .closed_pack import fits
from .limits import random_seeds
from .reach import bound
from .target import Target

__all__ = ["first_seeds", "initial_seeds", "scale_of"]


def initial_seeds(robot: Robot, q0, N: int, rng: np.random.Generator | None) -> np.ndarray:
    """(N, n) starting configurations from the call's q0: None (home), "random" (uniform inside
    the limits, from rng), one configuration (n,) for all, or one per target (N, n)."""
    if q0 is None:
        return np.tile(robot.q_home, (N, 1))
    if isinstance(q0, str):
        if q0 != "random":
            raise InputError(f"q0: expected joint values, None or 'random', got {q0!r}")
        assert rng is not None  # every caller passes one when q0 is "random"
        return random_seeds(robot, N, rng)
    q0 = check_q(robot, q0, "q0")
    if q0.ndim == 1:
        return np.tile(q0, (N, 1))
    if q0.reshape(-1, robot.n).shape[0] != N:
        raise InputError(f"q0: expected one seed or one per target ({N}), got shape {q0.shape}")
    return q0.reshape(N, robot.n).copy()


def first_seeds(rs: Robot, t: Target, seeds: np.ndarray, enforce: bool, seeded: bool) -> tuple[np.ndarray, bool]:
    """The first attempts' seeds and whether the core takes the closed form's nearest branch
    itself (where it has a closed form for the arm and the target's kind: `closed_pack.fits`);
    elsewhere, where seeded, the NumPy closed forms' nearest branch (`closed.closed_form_seeds`),
    else the seeds."""
    if not seeded:
        return seeds, False
    if fits(rs, t):
        return seeds, True
    return closed_form_seeds(rs, t, seeds, enforce), False


def scale_of(robot: Robot) -> float:
    """A length for relative position errors: the arm's reach R_max (1 when it is unbounded)."""
    reach = bound(robot)[1]
    return reach if np.isfinite(reach) and reach > 0 else 1.0
