"""A trajectory played as an animation and written to GIF (Pillow, which ships with Matplotlib)
or MP4 (where ffmpeg is installed): the arm moves, the end effector leaves a trail along the
dotted planned path, and the time is shown in the corner.

Frames are drawn on one figure by moving its artists (nothing is redrawn from scratch) and
handed straight to the writer: no pyplot, no event loop, safe in a worker thread.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.animation import FFMpegWriter, PillowWriter

from .. import atomic
from ..bounds import FRAMES, count
from ..errors import KinematicaError
from ..keywords import strict
from ..kinematics.manipulability import is_planar
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..trajectory.value import Trajectory
from . import style
from .arm import ArmDrawing, fit_plane, plane_span, setup_3d, setup_plane
from .geometry import (
    PLANE_NAMES,
    PLANES,
    ArmGeometry,
    arm_geometry,
    azimuth_of,
    project,
)
from .style import VizError

FORMATS = {".gif": "GIF", ".mp4": "MP4"}


class AnimationError(KinematicaError, RuntimeError):
    """The animation cannot be written here (MP4 without ffmpeg on the PATH)."""


@strict
def frame_times(traj: Trajectory, fps: float, frames: int | None = None,
                max_frames: int = 600) -> np.ndarray:
    """The times of the frames: `frames` evenly over the trajectory, or real time at `fps`
    (duration·fps + 1 frames, at most `max_frames`: a longer motion plays faster).

    >>> import kinematica as km
    >>> tr = km.trajectory.cubic([0.0], [1.0], 2.0, steps=10)
    >>> frame_times(tr, fps=5).tolist()
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
    """
    if not (np.isfinite(fps) and fps > 0):
        raise VizError(f"fps: expected a positive number, got {fps!r}")
    if frames is None:
        frames = min(round(traj.duration * fps) + 1, max_frames)
    return np.linspace(traj.t[0], traj.t[-1], count(frames, "frames", FRAMES, error=VizError)).round(12)


def _writer(path: Path, fps: float):
    fmt = path.suffix.lower()
    if fmt not in FORMATS:
        raise VizError(f"cannot tell the animation format of {path.name!r}: use .gif or .mp4")
    if fmt == ".mp4" and shutil.which("ffmpeg") is None:
        raise AnimationError(f"writing {path.name} needs ffmpeg on the PATH, and there is none "
                             "here: install ffmpeg, or write a .gif")
    writer = FFMpegWriter if fmt == ".mp4" else PillowWriter
    # (matplotlib's stubs type fps as int; its own Animation.save passes 1000 / interval, a float)
    return writer(fps=fps)  # pyright: ignore[reportArgumentType]


def _views(robot: Robot, view: str) -> list[str]:
    if view == "auto":
        return ["xy"] if is_planar(robot) else ["3d"]
    if view == "projections":
        return ["xy", "xz", "yz"]
    if view == "3d" or view in PLANES:
        return [view]
    raise VizError(f"view must be auto, 3d, projections or one of {', '.join(PLANES)}, got {view!r}")


@takes_robot
def animate(robot: Robot, traj: Trajectory, path: str | Path, *, fps: float = 20,
            frames: int | None = None, max_frames: int = 600, view: str = "auto",
            frames_axes: bool = False, title: str | None = None,
            size: Sequence[float] | None = None, dpi: float | None = None) -> Path:
    """Write the motion of `robot` along `traj` to `path` (.gif, or .mp4 with ffmpeg).

    fps: frames per second of the file; frames: how many (default: real time, duration·fps + 1,
    at most max_frames); view: "auto" (planar robots in their plane, others in 3-D), "3d",
    "projections" or a plane "xy", "xz", "yz", "rz"; frames_axes: x/y/z axes on every frame;
    size in inches at dpi (default 6.4 x 4.8 at 100 dpi; projections 12 x 4.5).
    Returns the path written."""
    path = Path(path)
    writer = _writer(path, float(fps))
    if traj.n != robot.n:
        raise VizError(f"the trajectory has {traj.n} joints, {robot.name} has {robot.n}")
    times = frame_times(traj, float(fps), frames, max_frames)
    tr = traj.resample(times) if len(traj) > 1 else traj
    Q = tr.q if len(traj) > 1 else np.repeat(traj.q, len(times), axis=0)
    views = _views(robot, view)
    geo = arm_geometry(robot, Q)
    planned = arm_geometry(robot, traj.q).tool  # every sample of the file: the dotted path
    pts = np.vstack([geo.skeleton.reshape(-1, 3), planned])
    az = azimuth_of(geo.tool[0])
    span = plane_span(pts, views, az)
    fig = style.new_figure(size if size is not None else
                           ((12.0, 4.5) if len(views) > 1 else (6.4, 4.8)), dpi)
    drawings, trails = [], []
    for i, v in enumerate(views):
        ax = fig.add_subplot(1, len(views), i + 1, **({"projection": "3d"} if v == "3d" else {}))
        d = ArmDrawing(ax, robot, v, frames=frames_axes, azimuth=az,
                       color=style.ARM_FRAMES if frames_axes else style.ARM)
        if v == "3d":
            ax.plot(*planned.T, ":", color="#9e9e9e", lw=1.2)
            trails.append(ax.plot([], [], [], color=style.TOOL, lw=1.8)[0])
            setup_3d(ax, robot, pts)
        else:
            ax.plot(*project(planned, v, az), ":", color="#9e9e9e", lw=1.2)
            trails.append(ax.plot([], [], color=style.TOOL, lw=1.8)[0])
            setup_plane(ax, robot, v, PLANE_NAMES[v] if len(views) > 1 else None)
            fit_plane(ax, pts, v, az, span)
        drawings.append(d)
    name = title if title is not None else f"{robot.name}: {traj.duration:.3g} s trajectory"
    style.title(fig, fig.axes, name)
    clock = fig.text(0.01, 0.01, "", fontsize="small", family="monospace", va="bottom")
    for d in drawings:  # the first frame in place, so the layout is settled on it
        d.update(_frame(geo, 0))
    style.settle(fig)
    fig.set_layout_engine("none")  # fixed from here: frames must not jitter
    with atomic.replacing(path) as tmp, writer.saving(fig, str(tmp), dpi=fig.dpi):  # the whole file or none
        for k, t in enumerate(times):
            g = _frame(geo, k)
            for d, trail, v in zip(drawings, trails, views, strict=True):
                d.update(g)
                tail = np.vstack([planned[traj.t < t], geo.tool[k]])  # the file's own samples
                if v == "3d":
                    trail.set_data_3d(tail[:, 0], tail[:, 1], tail[:, 2])
                else:
                    trail.set_data(*project(tail, v, az))
            clock.set_text(f"t = {t:.3f} s  ({k + 1}/{len(times)})")
            writer.grab_frame()
    return path


def _frame(geo: ArmGeometry, k: int) -> ArmGeometry:
    return ArmGeometry(geo.skeleton[k], geo.joints[k], geo.axes[k], geo.frames[k])
