"""Bounds on the counts, sizes and joint values the public API and the command line accept.

A typo such as ``steps=10**8`` or ``restarts=100_000_000`` must give a clear error naming the
limit, not fill the memory (a line of 10⁸ poses is 13 GB of 4×4 matrices) or run for hours.
Every public function that takes a count checks it with `count` (or `sample_count` for a
duration sampled every dt) against one of the limits below, raising its own module's error
class (a ValueError). Each limit is a generous multiple of the largest use in the papers, the
tests and the benchmarks.

>>> count(50, "steps", SAMPLES)
50
>>> count(10**8, "steps", SAMPLES)
Traceback (most recent call last):
...
kinematica.errors.InputError: steps = 100000000 is over the limit of 1,000,000 samples of a trajectory or path (kinematica.bounds.SAMPLES): use fewer steps or a larger dt
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .errors import InputError

__all__ = ["Limit", "SAMPLES", "POINTS", "FRAMES", "RESTARTS", "SEEDS", "SOLVES", "ITERATIONS", "TRAINING",
           "EPOCHS", "RULES", "EVALUATIONS", "ENVELOPE", "VOXELS", "QUERY", "REGRESSOR", "ORIENTATIONS",
           "MAX_TURNS", "MAX_TRAVEL_M", "MAX_RATE", "BOUND_WORDS", "count", "sample_count", "joint_bounds"]


@dataclass(frozen=True)
class Limit:
    """The largest accepted count of something: `value`, what it counts, and what to do instead;
    `name` is where it is defined (the error names it)."""

    name: str
    value: int
    what: str
    hint: str


SAMPLES = Limit("kinematica.bounds.SAMPLES", 1_000_000, "samples of a trajectory or path",
                "use fewer steps or a larger dt")  # 10⁶ poses: 128 MB of 4×4 matrices
POINTS = Limit("kinematica.bounds.POINTS", 200_000, "configurations of a workspace cloud",
               "fewer samples show the same envelope")  # with their Jacobians: ~60 MB for 6 joints
FRAMES = Limit("kinematica.bounds.FRAMES", 2_000, "frames of an animation", "use fewer frames or a lower fps")
RESTARTS = Limit("kinematica.bounds.RESTARTS", 10_000, "IK restarts per target",
                 "a target that 10 000 random seeds miss is not solved by more")
SEEDS = Limit("kinematica.bounds.SEEDS", 100_000, "multi-start IK seeds", "use fewer seeds")
SOLVES = Limit("kinematica.bounds.SOLVES", 10_000, "configurations of a self-motion walk", "use fewer samples")
ITERATIONS = Limit("kinematica.bounds.ITERATIONS", 100_000, "iterations of an IK solver",
                   "a solver that has not converged in 100 000 iterations will not")
TRAINING = Limit("kinematica.bounds.TRAINING", 200_000, "training samples of a learned model",
                 "accuracy stops improving long before (10 000 train in well under a minute)")
EPOCHS = Limit("kinematica.bounds.EPOCHS", 10_000, "training epochs", "use fewer epochs")
RULES = Limit("kinematica.bounds.RULES", 2_000, "fuzzy rules of a learned model",
              "each rule costs a block of the least-squares system: use fewer")
EVALUATIONS = Limit("kinematica.bounds.EVALUATIONS", 100_000_000, "evaluations of the dynamics in one simulation",
                    "shorten the simulation")

ENVELOPE = Limit("kinematica.bounds.ENVELOPE", 1_000_000_000, "joint-space samples of a workspace envelope",
                 "a coarser voxel needs fewer samples")  # sampled chunk by chunk: memory is per chunk
VOXELS = Limit("kinematica.bounds.VOXELS", 50_000_000, "voxels of a workspace grid",
               "use a larger voxel")  # 1 cm over a 2 m cube is 8 million
QUERY = Limit("kinematica.bounds.QUERY", 1_000_000, "configurations of one scene query",
              "check the batch in parts")  # the answer holds a list of pairs per configuration (~100 MB here)
REGRESSOR = Limit("kinematica.bounds.REGRESSOR", 50_000_000, "entries of a dynamics regressor (states × n × 10n)",
                   "identify from fewer states, or stack the regressors of chunks of them")  # 400 MB of floats
ORIENTATIONS = Limit("kinematica.bounds.ORIENTATIONS", 10_000, "tool orientations per voxel",
                     "a few hundred cover SO(3) at ~10°")

MAX_TURNS = 1000
"""Revolute joint values beyond ±MAX_TURNS turns (2π·1000 rad, 360 000°) are refused: an angle
that large has lost its meaning (at |q| = 1e308 one unit in the last place is 1e292 rad)."""
MAX_TRAVEL_M = 1e6
"""Prismatic joint values beyond ±1e6 m (1000 km) are refused: no robot travels that far."""
MAX_RATE = 1e6
"""Joint rates and accelerations beyond ±1e6 rad/s (rad/s²; m/s, m/s² for prismatic joints)
are refused: 160 000 turns a second, and the dynamics of such rates overflows."""
BOUND_WORDS = (f"{MAX_TURNS} turns for a revolute joint, {MAX_TRAVEL_M:g} m for a prismatic one",
               f"{MAX_RATE:g} rad/s or m/s", f"{MAX_RATE:g} rad/s² or m/s²")
"""`joint_bounds` in words, by derivative (values, rates, accelerations)."""


def count(value: object, name: str, limit: Limit, *, minimum: int = 1,
          error: type[Exception] = InputError) -> int:
    """`value` as an int within [minimum, limit.value]; else `error` naming the argument and the limit.

    Whole-number floats (10.0) pass; booleans, fractions and non-numbers do not."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)):
        raise error(f"{name}: expected a whole number, got {value!r}")
    # (isinstance leaves NumPy's scalar types with unknown precision parameters)
    number = cast("int | float | np.integer[Any] | np.floating[Any]", value)
    if isinstance(number, (float, np.floating)) and not (math.isfinite(number) and number == int(number)):
        raise error(f"{name}: expected a whole number, got {value!r}")
    n = int(number)
    if n < minimum:
        raise error(f"{name}: expected a whole number >= {minimum}, got {value!r}")
    if n > limit.value:
        raise error(f"{name} = {n} is over the limit of {limit.value:,} {limit.what} "
                    f"({limit.name}): {limit.hint}")
    return n


def sample_count(duration: float, dt: float, name: str = "duration / dt",
                 error: type[Exception] = InputError) -> int:
    """The number of samples of `duration` s taken every `dt` s (both > 0, checked by the
    caller), within SAMPLES; else `error` naming the ratio and the limit."""
    k = duration / dt + 1
    if not k <= SAMPLES.value:  # also catches an overflow to inf
        raise error(f"{name} gives {k:.3g} samples, over the limit of {SAMPLES.value:,} {SAMPLES.what} "
                    f"({SAMPLES.name}): use a larger dt or a shorter duration")
    return math.floor(k + 1e-9)


def joint_bounds(revolute: np.ndarray, length_unit: str, derivative: int = 0) -> np.ndarray:
    """Per joint, the largest |value| accepted from a user, in rad or the robot's length unit:
    for joint values (`derivative` 0) MAX_TURNS turns (revolute) or MAX_TRAVEL_M (prismatic);
    for rates (1) and accelerations (2) MAX_RATE per s or s²."""
    per_metre = 1000.0 if length_unit == "mm" else 1.0
    if derivative:
        return np.where(revolute, MAX_RATE, MAX_RATE * per_metre)
    return np.where(revolute, 2 * np.pi * MAX_TURNS, MAX_TRAVEL_M * per_metre)
