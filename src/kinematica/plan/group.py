"""Robots planned together: a plan moves one robot of a scene, or a group of them in one joint
space, a state holding their joint values one after the other.

>>> names_of("arm"), names_of(("left", "right"))
(('arm',), ('left', 'right'))
"""

from __future__ import annotations

from typing import Any

import numpy as np


def names_of(robot: str | tuple[str, ...]) -> tuple[str, ...]:
    """The robots a problem moves: one name, or a group's."""
    return (robot,) if isinstance(robot, str) else tuple(robot)


def split(scene: Any, robot: str | tuple[str, ...], Q: np.ndarray) -> dict[str, np.ndarray]:
    """States Q (..., n) of the robot or group as a scene query's q: {name: its joint values}."""
    out, k = {}, 0
    for name in names_of(robot):
        n = scene.robots[name].robot.n
        out[name], k = Q[..., k:k + n], k + n
    return out


__all__ = ["names_of", "split"]
