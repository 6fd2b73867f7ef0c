"""Setting an IK target by dragging it in the view: the maths between the marker and its
handles on one side and the target fields (position, roll-pitch-yaw, pitch) on the other.

A pose target shows two handles, balls on its x axis (red) and z axis (blue, the approach of
the tool); an approach target only the z one, a position target none. Dropping a handle
re-points its axis at the ball and keeps the other axis as close as it can be to where it was
(`aim`), so dragging the blue ball swings the approach and dragging the red one rolls the tool
about it. Plain numpy: no NiceGUI.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from kinematica import spatial

from ..errors import InputError
from .state import TargetSpec, triple

AXIS_INDEX = {"x": 0, "y": 1, "z": 2}
# which handles each target kind shows
HANDLES = {"position": (), "pose": ("x", "z"), "approach": ("z",)}
ANGLE_DIGITS = 2  # degrees in the fields after a drag: finer than a hand can place a ball


def unit(v: np.ndarray, what: str = "direction") -> np.ndarray:
    """v scaled to length 1; a ValueError for a zero or non-finite vector."""
    v = np.asarray(v, dtype=float)
    n = float(np.linalg.norm(v))
    if v.shape != (3,) or not math.isfinite(n) or n < 1e-12:
        raise InputError(f"{what}: expected a finite, non-zero 3-vector, got {v.tolist()}")
    return v / n


def handle_points(center: np.ndarray, R: np.ndarray, length: float,
                  axes: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Where the handles of `axes` sit: `length` out along those columns of R from center."""
    c = np.asarray(center, dtype=float)
    return {a: c + float(length) * np.asarray(R, float)[:, AXIS_INDEX[a]] for a in axes}


def aim(R: np.ndarray, axis: str, direction: np.ndarray) -> np.ndarray:
    """The rotation nearest R whose `axis` ("x" or "z") points along `direction`: the other of
    x, z is R's own with its component along the new axis removed (Gram–Schmidt); when it was
    along `direction` itself, R turned so that its axis lies on `direction` decides it."""
    if axis not in ("x", "z"):
        raise InputError(f"axis must be 'x' or 'z', got {axis!r}")
    R = np.asarray(R, dtype=float)
    new = unit(direction)
    i, j = (0, 2) if axis == "x" else (2, 0)
    other = R[:, j] - (R[:, j] @ new) * new
    if np.linalg.norm(other) < 1e-6:  # the other axis was (nearly) dropped onto: turn R minimally instead
        old = R[:, i]
        turn = spatial.axis_to_z(new) @ spatial.axis_to_z(old).T
        other = turn @ R[:, j]
        other = other - (other @ new) * new
    other = unit(other)
    out = np.zeros((3, 3))
    out[:, i], out[:, j] = new, other
    # y completes a right-handed frame: y = z × x
    out[:, 1] = np.cross(out[:, 2], out[:, 0])
    return out


def approach_pitch(direction: np.ndarray, position: ArrayLike) -> float:
    """The pitch (rad) of an approach target at `position` whose tool axis points as near
    `direction` as the vertical plane through the target allows (`km.targets.approach`: the
    plane at azimuth atan2(y, x)); beyond ±90° the axis leans back towards the base."""
    d = unit(direction)
    p = np.asarray(position, dtype=float)
    psi = math.atan2(p[1], p[0])
    outward = d[0] * math.cos(psi) + d[1] * math.sin(psi)
    if abs(outward) < 1e-12 and abs(d[2]) < 1e-12:
        raise InputError("direction: sideways to the target's vertical plane, so it has no pitch")
    return math.atan2(d[2], outward)


def moved(spec: TargetSpec, position: np.ndarray, digits: int) -> TargetSpec:
    """The target at a dropped `position` (robot units, rounded to `digits` decimals), its
    orientation unchanged."""
    p = np.asarray(position, dtype=float)
    if p.shape != (3,) or not np.all(np.isfinite(p)):
        raise InputError(f"target position: expected 3 finite numbers, got {p.tolist()}")
    return replace(spec, position=triple(_round(p, digits)))


def turned(spec: TargetSpec, axis: str, direction: np.ndarray) -> TargetSpec:
    """The target after its `axis` handle was dropped along `direction` from its centre: a pose
    target's roll-pitch-yaw, an approach target's pitch (degrees); a position target has no
    handles, so it comes back unchanged."""
    if spec.kind == "pose":
        R = aim(spatial.rpy_to_matrix(np.radians(spec.rpy_deg)), axis, direction)
        return replace(spec, rpy_deg=triple(_round(np.degrees(spatial.matrix_to_rpy(R)), ANGLE_DIGITS)))
    if spec.kind == "approach":
        if axis != "z":
            raise InputError(f"an approach target has only a z handle, got {axis!r}")
        pitch = math.degrees(approach_pitch(direction, spec.position))
        return replace(spec, pitch_deg=_round([pitch], ANGLE_DIGITS)[0])
    return spec


def length_digits(step: float) -> int:
    """Decimals for a dragged coordinate: a thousandth of a grid square (0.1 mm on 100 mm
    squares, 0.0001 m on 0.2 m ones)."""
    return max(0, 3 - math.floor(math.log10(step)))


def _round(values, digits: int) -> list[float]:
    return [float(round(float(v), digits)) + 0.0 for v in np.atleast_1d(values)]
