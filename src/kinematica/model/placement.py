"""A placement in a robot or scene file — `xyz` with `rpy` (roll-pitch-yaw, fixed axes x, y, z),
a `rotation` matrix, or a whole 4×4 `matrix` — as a homogeneous transform. Robot files, their
visual shapes and scene files read placements this one way.

>>> placement({"xyz": [1, 2, 3], "rpy": [0, 0, 90]}, deg=True).round(6)[:3, 3]
array([1., 2., 3.])
"""

from __future__ import annotations

from typing import overload

import numpy as np

from .. import spatial


@overload
def placement(p: dict, deg: bool) -> np.ndarray: ...
@overload
def placement(p: None, deg: bool) -> None: ...
def placement(p: dict | None, deg: bool) -> np.ndarray | None:
    """The 4×4 transform of placement `p` (None for none); rpy in degrees when `deg`, else rad."""
    if p is None:
        return None
    if "matrix" in p:
        return np.asarray(p["matrix"], dtype=float)
    if "rotation" in p:
        R = np.asarray(p["rotation"], dtype=float)
    else:
        rpy = np.asarray(p.get("rpy", (0, 0, 0)), dtype=float)
        R = spatial.rpy_to_matrix(np.radians(rpy) if deg else rpy)
    return spatial.homogeneous(R, p.get("xyz", (0, 0, 0)))
