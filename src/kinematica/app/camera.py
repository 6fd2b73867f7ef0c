"""Where the scene's camera looks from for each projection of `state.PROJECTIONS`, and where the
grid goes (paper 003: a 2-D view for planar robots, XY / XZ / YZ projections).

"3d" is the orbitable perspective view; "xy" looks down z (top), "xz" along +y (front, x to the
right), "yz" along -x (side, y to the right), each a true orthographic view with the grid in the
plane it shows. Everything here is plain numbers in scene units (grid squares) except
`make_camera` and `lock_rotation`, which speak NiceGUI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from nicegui import ui

from ..errors import InputError
from .state import PROJECTIONS, triple

AXIS_NAMES = "xyz"
# projection: (unit vector from the look-at point to the camera, the camera's up vector)
_LOOK = {"xy": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
         "xz": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
         "yz": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0))}


@dataclass(frozen=True)
class CameraPose:
    """A camera position, the point it looks at and its up vector (scene units)."""

    position: tuple[float, float, float]
    look_at: tuple[float, float, float]
    up: tuple[float, float, float]


def check(projection: str) -> str:
    """The projection itself, or a ValueError naming the valid ones."""
    if projection not in PROJECTIONS:
        raise InputError(f"projection must be one of {', '.join(PROJECTIONS)}, got {projection!r}")
    return projection


def hint(projection: str) -> str:
    """How the mouse moves the camera in this view."""
    if check(projection) == "3d":
        return "drag to orbit, scroll to zoom, right-drag to pan"
    return "drag to pan, scroll to zoom"


def orthographic(projection: str) -> bool:
    return check(projection) != "3d"


def plane_axes(projection: str) -> tuple[int, int]:
    """Indices of the two axes the view shows (the horizontal grid's x, y in 3-D)."""
    return {"3d": (0, 1), "xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}[check(projection)]


def hidden_axis(projection: str) -> int | None:
    """The coordinate a projection cannot show (a drag there must keep it), None in 3-D."""
    if not orthographic(projection):
        return None
    a, b = plane_axes(projection)
    return 3 - a - b


def camera_pose(projection: str, reach: float) -> CameraPose:
    """The camera for a projection of an arm of `reach` scene units: in 3-D oblique from the
    front right; in a projection far out along the hidden axis (depth does not matter to an
    orthographic camera, but it must be outside everything drawn)."""
    r = float(reach)
    if not orthographic(projection):
        return CameraPose((1.05 * r, -1.45 * r, 0.95 * r), (0.0, 0.0, 0.25 * r), (0.0, 0.0, 1.0))
    direction, up = _LOOK[projection]
    # side views centre a little above the base: arms reach up more than down
    look = (0.0, 0.0, 0.0) if projection == "xy" else (0.0, 0.0, 0.3 * r)
    position = triple(c + 20.0 * r * d for c, d in zip(look, direction, strict=True))
    return CameraPose(position, look, up)


def framing(projection: str, reach: float, points=(), floor: float = 0.0,
            pad: float = 0.0) -> tuple[CameraPose, float]:
    """The camera (and an orthographic view's height) that shows the arm — a box of ±`reach`
    around the base, from the `floor` (scene units, ≤ 0: a pedestal's bottom) up to `reach` —
    and every one of `points` (the arm at its q, its ghosts, an IK target and its handles), each
    with `pad` around it (the links' thickness). With neither it is `camera_pose` and `view_size`
    of the reach."""
    r = float(reach)
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    lo = np.minimum(np.array([-r, -r, min(0.0, floor)]), pts.min(axis=0) if len(pts) else np.inf)
    hi = np.maximum(np.array([r, r, r]), pts.max(axis=0) if len(pts) else -np.inf)
    extent = hi - lo
    size = 0.5 * float(max(extent[0], extent[1], 1.3 * extent[2]))  # = r for the arm alone
    centre = (lo + hi) / 2
    must = np.vstack([pts, [(0.0, 0.0, min(0.0, floor))]])
    pose = _placed(projection, centre, size)
    for _ in range(40):  # back off until every point given is in the view
        if not outside(pose, view_size(size), projection, must, pad):
            break
        size *= 1.15
        pose = _placed(projection, centre, size)
    return pose, view_size(size)


def _placed(projection: str, centre: np.ndarray, size: float) -> CameraPose:
    """The camera looking at a box centred at `centre` whose half-width is `size`."""
    if not orthographic(projection):
        look = centre - [0.0, 0.0, 0.25 * size]
        position = look + np.array([1.05, -1.45, 0.7]) * size
        return CameraPose(triple(position), triple(look), (0.0, 0.0, 1.0))
    direction, up = _LOOK[projection]
    look = centre.copy()
    look[hidden_axis(projection)] = 0.0
    if projection != "xy":  # side views centre a little above the base: arms reach up more than down
        look[2] = centre[2] - 0.2 * size
    position = look + 20.0 * size * np.asarray(direction)
    return CameraPose(triple(position), triple(look), up)


def outside(pose: CameraPose, size: float, projection: str, point, pad: float = 0.0) -> bool:
    """Whether `point` (scene units), or a ball of radius `pad` around it, is likely out of the
    view of a camera at `pose`: beyond the view's half-height from the look-at point across the
    viewing direction (a cone of 45° in 3-D, the orthographic box otherwise), with a 10 % margin.
    A view at least as wide as it is high shows all that this cone holds. `point` may be many
    points (k, 3): whether any is out."""
    p = np.asarray(point, float).reshape(-1, 3) - pose.look_at
    view = np.subtract(pose.look_at, pose.position)
    distance = float(np.linalg.norm(view))
    view = view / distance
    along = p @ view
    across = np.sqrt(np.maximum(np.einsum("ij,ij->i", p, p) - along * along, 0.0)) + pad
    if orthographic(projection):
        return bool(np.any(across > 0.45 * size))
    depth = distance + along
    return bool(np.any((depth <= 0) | (across > 0.9 * depth * math.tan(math.radians(22.5)))))


def view_size(reach: float) -> float:
    """The height of an orthographic view (scene units): the arm's full reach both ways, with a
    margin."""
    return 2.5 * float(reach)


def make_camera(projection: str, reach: float, floor: float = 0.0, points=(), pad: float = 0.0):
    """A NiceGUI camera for the projection, already placed (`ui.scene` reads it when built:
    the camera type cannot change afterwards, so a new projection means a new scene); it
    frames the arm from the `floor` up and every one of `points` (`framing`)."""
    r = float(reach)
    pose, size = framing(projection, r, points, floor, pad)
    if orthographic(projection):
        camera = ui.scene.orthographic_camera(size=size, near=0.01 * r, far=60.0 * size)
    else:
        camera = ui.scene.perspective_camera(fov=45, near=0.01 * r, far=200.0 * size)
    camera.x, camera.y, camera.z = pose.position
    camera.look_at_x, camera.look_at_y, camera.look_at_z = pose.look_at
    camera.up_x, camera.up_y, camera.up_z = pose.up
    return camera


def grid_segments(projection: str, cells: int, floor: float = 0.0) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """The grid's lines as (start, end, through the base), in the plane the view shows. In a
    projection the grid lies behind everything (the far side of the hidden axis), so it never
    covers the arm; in 3-D it is the floor z = `floor` (scene units: 0, or the bottom of a
    pedestal below the base frame)."""
    a, b = plane_axes(projection)
    hidden = hidden_axis(projection)
    depth = 0.0
    if hidden is not None:
        depth = -float(np.sign(_LOOK[projection][0][hidden])) * (cells + 1)
    out = []
    for i in range(-cells, cells + 1):
        for along_axis, across_axis in ((b, a), (a, b)):
            p, q = np.zeros(3), np.zeros(3)
            p[across_axis] = q[across_axis] = i
            p[along_axis], q[along_axis] = -cells, cells
            if hidden is not None:
                p[hidden] = q[hidden] = depth
            else:
                p[2] = q[2] = floor
            out.append((p, q, i == 0))
    return out


def axis_labels(projection: str, cells: int, floor: float = 0.0) -> list[tuple[str, np.ndarray]]:
    """Names of the shown axes ("x", "y", …) and where they go: just past the positive end of
    each axis line of the grid (on the floor at z = `floor` in 3-D)."""
    out = []
    for axis in plane_axes(projection):
        p = np.zeros(3)
        if not orthographic(projection):
            p[2] = floor
        p[axis] = cells + 0.6
        out.append((AXIS_NAMES[axis], p))
    return out


def lock_rotation(scene) -> None:
    """Keep a projection's camera square to its plane: the browser's camera controls may pan
    and zoom but not rotate. NiceGUI has no option for it, so the scene component's control
    factory is wrapped (it rebuilds the controls when the camera's up vector changes)."""
    ui.run_javascript(f"""
        const s = getElement({scene.id});
        if (s && !s.__rotationLocked) {{
            const make = s.create_controls.bind(s);
            s.create_controls = (up) => {{ make(up); s.controls.enableRotate = false; }};
            s.__rotationLocked = true;
        }}
        if (s && s.controls) s.controls.enableRotate = false;
    """)
