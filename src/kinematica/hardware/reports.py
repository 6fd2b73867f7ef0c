"""What the bridge returns — the commanded state, a move's report, a play's result — and the
points of a trajectory it sends (`sample`, `ms_between`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..bounds import sample_count
from ..errors import InputTypeError
from ..trajectory import Trajectory
from . import protocol as pr
from .limits import CommandRefused
from .stream import StreamResult

STATE_NOTE = "commanded, not measured: hobby servos report no position"
MAX_RATE = 1000.0  # Hz: the board's clock counts whole milliseconds per point


@dataclass(frozen=True)
class ArmState:
    """The servo degrees the board last commanded (M1…M6), the joint values q (rad) of M1…M5
    and the gripper degrees — commanded, not measured (`note`)."""

    degrees: tuple[int, ...]
    q: np.ndarray
    gripper: int
    note: str = STATE_NOTE
    measured: ClassVar[bool] = False  # the `Arm` interface's flag: these values were commanded


@dataclass(frozen=True)
class MoveReport:
    """A move sent: the whole servo degrees, its duration (s) and the tool-point error (robot's
    length unit) that whole degrees cost; `stopped` when `request_stop()` ended it on the way
    (`state()` says where the arm holds)."""

    degrees: tuple[int, ...]
    duration: float
    quantisation_error: float
    stopped: bool = False


@dataclass
class PlayResult(StreamResult):
    """A stream's result, plus the largest tool-point error of whole degrees over its points."""

    max_quantisation_error: float = 0.0
    final_state: ArmState | None = None


def ms_between(t: np.ndarray) -> np.ndarray:
    """Whole ms from each point to the next (ms[k]: from point k−1 to k) of times t (s); point 0
    gets the least (the arm is already there)."""
    ms = np.diff(np.round(np.asarray(t) * 1000).astype(int), prepend=0)
    ms[0] = pr.MS_RANGE[0]
    return ms



def sample(trajectory: Trajectory, rate: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(t, q) to send: the trajectory's samples, or with `rate` Hz equal steps of at most 1/rate s
    from its start to its end (both kept)."""
    if not isinstance(trajectory, Trajectory):
        raise InputTypeError(f"trajectory: expected a kinematica Trajectory, got {type(trajectory).__name__}")
    if rate is None:
        return trajectory.t, trajectory.q
    if not (isinstance(rate, (int, float)) and 0 < rate <= MAX_RATE):
        raise CommandRefused(f"rate {rate!r} Hz: expected a number in (0, {MAX_RATE:g}] Hz")
    if len(trajectory) < 2:
        return trajectory.t, trajectory.q
    sample_count(trajectory.duration, 1 / rate, f"duration × rate = {trajectory.duration:g} s × {rate:g} Hz",
                 CommandRefused)
    steps = max(1, math.ceil(trajectory.duration * rate - 1e-9))
    times = np.linspace(trajectory.t[0], trajectory.t[-1], steps + 1)
    return times, trajectory.resample(times).q
