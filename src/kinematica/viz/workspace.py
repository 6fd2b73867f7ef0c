"""The workspace as a point cloud: tool positions of random configurations within the joint
limits (one batched FK call), optionally coloured by manipulability, in 3-D or in projections.

>>> import kinematica as km
>>> p, w = workspace_points(km.load("planar-3r"), 1000, measure="manipulability")
>>> p.shape, w.shape, bool((np.hypot(p[:, 0], p[:, 1]) <= 60 + 1e-9).all())
((1000, 3), (1000,), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from ..bounds import POINTS, count
from ..kinematics.fk import fk
from ..kinematics.jacobian import jacobian
from ..kinematics.manipulability import (
    is_planar,
    manipulability,
    select_rows,
    task_rows,
)
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..workspace.envelope import sampling_ranges
from ..workspace.grid import WorkspaceError
from . import style
from .arm import ArmDrawing, fit_plane, plane_span, setup_3d, setup_plane
from .geometry import PLANE_NAMES, PLANES, arm_geometry, project
from .style import VizError

MEASURES = (None, "manipulability")


def sample_limits(robot: Robot) -> np.ndarray:
    """(n, 2) sampling ranges: the limits, [−π, π] for an unlimited revolute joint (the
    workspace maps' `sampling_ranges`, its error as a VizError)."""
    try:
        return sampling_ranges(robot)
    except WorkspaceError as e:
        raise VizError(str(e)) from None


@takes_robot
def workspace_points(robot: Robot, samples: int = 5000, *, seed: int | None = 0,
                     measure: str | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(samples, 3) tool positions of uniformly random configurations within the limits, and
    the manipulability w = √det(J Jᵀ) of each (task rows chosen from the robot's structure) when
    `measure="manipulability"`, else None."""
    if measure not in MEASURES:
        raise VizError(f"measure must be one of {MEASURES}, got {measure!r}")
    samples = count(samples, "samples", POINTS, error=VizError)
    lim = sample_limits(robot)
    rng = np.random.default_rng(seed)
    Q = rng.uniform(lim[:, 0], lim[:, 1], size=(int(samples), robot.n))
    p = fk(robot, Q)[:, :3, 3]
    if measure is None:
        return p, None
    return p, manipulability(select_rows(jacobian(robot, Q), task_rows(robot)))


@takes_robot
def workspace(robot: Robot, samples: int = 5000, *, seed: int | None = 0,
              color: str | None = "manipulability", view: str = "auto", arm: bool = True,
              title: str | None = None, size: Sequence[float] | None = None,
              dpi: float | None = None) -> Figure:
    """Reachable tool positions of `samples` random configurations as a point cloud.

    color: "manipulability" (a colour bar; dark = near a singularity) or None (one colour);
    view: "auto" (planar robots in their plane, others in 3-D), "3d", "projections" (XY, XZ, YZ),
    or one plane "xy", "xz", "yz"; arm: draw the robot at home, faded, for scale."""
    if view not in ("auto", "3d", "projections", *PLANES) or view == "rz":
        raise VizError(f"view must be auto, 3d, projections, xy, xz or yz, got {view!r}")
    views = (["xy"] if is_planar(robot) else ["3d"]) if view == "auto" else (
        ["xy", "xz", "yz"] if view == "projections" else [view])
    p, w = workspace_points(robot, samples, seed=seed, measure=color)
    if size is None and len(views) > 1:
        size = (13.0, 4.8)
    fig = style.new_figure(size, dpi)
    home = arm_geometry(robot, robot.q_home)
    pts = np.vstack([p, home.skeleton])
    span = plane_span(pts, views, 0.0)
    cmap = colormaps["viridis"]
    solid = "3d" in views  # a cloud seen through needs denser points
    kw: dict[str, Any] = dict(s=(5 if solid else 3) if len(p) < 20000 else 1, alpha=0.7 if solid else 0.55,
              linewidths=0, rasterized=True)
    kw.update(dict(c=w, cmap=cmap) if w is not None else dict(color=style.ARM))
    axes, sc = [], None
    for i, v in enumerate(views):
        ax = fig.add_subplot(1, len(views), i + 1, **({"projection": "3d"} if v == "3d" else {}))
        axes.append(ax)
        if v == "3d":
            sc = ax.scatter(p[:, 0], p[:, 1], p[:, 2], **kw)
            setup_3d(ax, robot, pts)
        else:
            x, y = project(p, v)
            sc = ax.scatter(x, y, **kw)
            setup_plane(ax, robot, v, PLANE_NAMES[v] if len(views) > 1 else None)
            fit_plane(ax, pts, v, 0.0, span)
        if arm:
            ArmDrawing(ax, robot, v, color="#c0392b", alpha=0.9, lw=2.0, layer=10,
                       label="the arm at home").update(home)
    if w is not None and sc is not None:  # (sc: the last view's cloud)
        cb = fig.colorbar(sc, ax=axes, shrink=0.8, pad=0.1 if solid else 0.02)
        if cb.solids is not None:  # (set when a colorbar is made for a mappable, as here)
            cb.solids.set(alpha=1)
        cb.set_label(f"manipulability w = √det(J Jᵀ) ({task_rows(robot)} task)")
    if arm:
        axes[0].legend(loc="upper left", fontsize="small", framealpha=0.85)
    style.title(fig, axes if len(axes) > 1 or views[0] == "3d" else [],
                title if title is not None else
                f"{robot.name}: workspace ({len(p)} random configurations within the limits)")
    return style.settle(fig)
