"""Scene units and laying cylinders: one grid square (a round length of the robot's unit) is one
scene unit, and three.js cylinders (along their local y) are turned onto a segment.

Scene units are grid squares: one square is a round length of the robot's own unit (100 mm
for the Braccio, 0.2 m for the KUKA), about a quarter of the arm's reach, so millimetre and
metre robots fill the view alike; `GridScale.caption` says what a square is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import kinematica as km
from kinematica.viz.geometry import reach


@dataclass(frozen=True)
class GridScale:
    """One grid square (`step`, in the robot's length unit) is one scene unit; the grid spans
    ±`cells` squares around the base."""

    step: float
    cells: int
    unit: str
    reach: float

    @classmethod
    def for_robot(cls, robot: km.Robot) -> GridScale:
        r = reach(robot)
        r = r if r > 0 else 1.0
        step = nice_step(r / 4)
        return cls(step, math.ceil(1.3 * r / step) + 1, robot.length_unit, r)

    @property
    def caption(self) -> str:
        return f"grid squares of {self.step:g} {self.unit}"

    def to_scene(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(p, dtype=float) / self.step

    def from_scene(self, p: np.ndarray) -> np.ndarray:
        """The inverse of `to_scene`: scene units back to the robot's length unit."""
        return np.asarray(p, dtype=float) * self.step


def nice_step(x: float) -> float:
    """The largest of 1, 2, 5 × 10^k not above x.

    >>> nice_step(102.9), nice_step(0.3), nice_step(0.015)
    (100.0, 0.2, 0.01)
    """
    k = math.floor(math.log10(x))
    for m in (5, 2, 1):
        if m * 10.0 ** k <= x * (1 + 1e-9):
            return float(round(m * 10.0 ** k, 12))
    return float(10.0 ** k)  # pragma: no cover — m = 1 always fits


def along(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, list[list[float]], float]:
    """Midpoint, rotation and length that lay a unit cylinder (three.js: along its local y)
    from a to b. A zero-length segment keeps the identity rotation."""
    d = np.asarray(b, float) - np.asarray(a, float)
    length = float(np.linalg.norm(d))
    return (np.asarray(a, float) + d / 2, turn_y_to(d) if length > 0 else np.eye(3).tolist(), length)


def turn_y_to(direction: np.ndarray) -> list[list[float]]:
    """A rotation (rows) whose y column is the unit vector along `direction`."""
    y = np.asarray(direction, float) / np.linalg.norm(direction)
    helper = np.array([1.0, 0.0, 0.0]) if abs(y[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = helper - helper @ y * y
    x /= np.linalg.norm(x)
    return np.column_stack([x, y, np.cross(x, y)]).tolist()
