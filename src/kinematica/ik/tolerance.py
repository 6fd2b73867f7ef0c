"""The tolerances an IK answer is held to: what `km.ik`, `ik_all`, the closed forms, the learned
models and path following call solved.

Position: 1e-6 m by default, in the robot's length unit (so 1e-3 for a mm robot: a micrometre
either way); orientation: 1e-6 rad (`ORIENTATION_TOLERANCE`). Either can be set by
the `tol_position` / `tol_orientation` options of `km.ik`.

>>> import kinematica as km
>>> default_tolerance(km.load("puma560")), default_tolerance(km.load("braccio"))
(1e-06, 0.001)
>>> tolerances(km.load("braccio"), {"tol_orientation": 1e-4})
(0.001, 0.0001)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.robot import Robot

ORIENTATION_TOLERANCE = 1e-6  # rad


def default_tolerance(robot: Robot) -> float:
    """1e-6 m, in the robot's length unit (1e-3 for mm robots)."""
    return 1e-6 if robot.length_unit == "m" else 1e-3


def tolerances(robot: Robot, options: Mapping[str, Any]) -> tuple[float, float]:
    """(position, orientation) tolerance: the options' `tol_position` / `tol_orientation`, or the
    defaults (length unit, rad)."""
    return (float(options.get("tol_position", default_tolerance(robot))),
            float(options.get("tol_orientation", ORIENTATION_TOLERANCE)))
