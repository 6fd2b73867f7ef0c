"""The arm drawn: in its plane (planar robots, paper 000), in the XY / XZ / YZ projections side by
side (paper 003), or in 3-D with its frames; several configurations overlaid (IK solutions).

Links are lines through the joint origins, joints white circles, the end effector an orange
diamond, the base a black triangle; `frames=True` adds short x/y/z axes (red, green, blue) at the
base, every link frame and the tool. Arm drawings keep equal aspect: a right angle looks right.

>>> import kinematica as km, numpy as np
>>> fig = arm(km.load("planar-3r"), np.radians([30, 30, 20]), target=[-10, 35], size=(4, 3))
>>> [ax.get_xlabel() for ax in fig.axes]
['x [mm]']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle
from numpy.typing import ArrayLike

from ..keywords import accepted, refuse
from ..kinematics.manipulability import is_planar
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import style
from .geometry import (
    PLANE_NAMES,
    PLANES,
    ArmGeometry,
    arm_geometry,
    azimuth_of,
    configurations,
    project,
    reach,
    size_scale,
)
from .style import VizError

VIEWS = ("auto", "3d", "projections", *PLANES)


class ArmDrawing:
    """The artists of one configuration on one axes (a plane of PLANES or "3d"); `update` moves
    them to another configuration (the animation redraws nothing else)."""

    def __init__(self, ax: Axes, robot: Robot, view: str, *, color: str = style.ARM,
                 alpha: float = 1.0, label: str | None = None, frames: bool = False,
                 azimuth: float = 0.0, base: bool = True, tool_label: str | None = None,
                 lw: float | None = None, layer: float = 0.0) -> None:
        self.ax, self.view, self.azimuth, self.frames = ax, view, azimuth, frames
        self.axis_length = 0.12 * size_scale(robot)
        plot = self._plot
        lw = (3.0 if alpha >= 1 else 2.2) if lw is None else lw
        self.links = plot(color=color, lw=lw, alpha=alpha, solid_capstyle="round", label=label,
                          zorder=3 + layer)
        self.joints = plot(ls="none", marker="o", ms=7, mfc=style.JOINT_FACE, mec=color, mew=1.6,
                           alpha=alpha, zorder=4 + layer)
        self.tool = plot(ls="none", marker="D", ms=7, color=style.TOOL if alpha >= 1 else color,
                         mec="black" if alpha >= 1 else color, alpha=alpha, zorder=5 + layer,
                         label=tool_label)
        self.base = plot(ls="none", marker="^", ms=14, color="black", zorder=2) if base else None
        self.axes_lines = ([[plot(color=c, lw=2.0, alpha=alpha, zorder=6 + layer)
                             for c in style.AXES_RGB] for _ in range(robot.n + 2)] if frames else [])

    def _plot(self, **kw: Any) -> Line2D:
        if self.view == "3d":
            return self.ax.plot([], [], [], **kw)[0]
        return self.ax.plot([], [], **kw)[0]

    def _set(self, line: Line2D, pts: np.ndarray) -> None:
        pts = np.asarray(pts).reshape(-1, 3)
        if self.view == "3d":
            from mpl_toolkits.mplot3d.art3d import Line3D

            if not isinstance(line, Line3D):  # what a 3-D axes plots; Axes.plot is typed for 2-D lines
                raise VizError(f"a 3-D view drew a {type(line).__name__}, not a Line3D")
            line.set_data_3d(pts[:, 0], pts[:, 1], pts[:, 2])
        else:
            line.set_data(*project(pts, self.view, self.azimuth))

    def update(self, g: ArmGeometry) -> None:
        """Move the drawing to one configuration's geometry."""
        self._set(self.links, g.skeleton)
        self._set(self.joints, g.joints)
        self._set(self.tool, g.tool)
        if self.base is not None:
            self._set(self.base, g.base)
        if not self.axes_lines:
            return  # no frames drawn
        for F, lines in zip(g.frames, self.axes_lines, strict=True):
            for k, line in enumerate(lines):
                self._set(line, np.stack([F[:3, 3], F[:3, 3] + self.axis_length * F[:3, k]]))

    def artists(self) -> list:
        extra = [self.base] if self.base is not None else []
        return [self.links, self.joints, self.tool, *extra, *[l for ls in self.axes_lines for l in ls]]


# --- axes set-up -------------------------------------------------------------------------------
def _unit(robot: Robot) -> str:
    return robot.length_unit


def setup_plane(ax: Axes, robot: Robot, plane: str, title: str | None = None) -> None:
    a, b = {"xy": ("x", "y"), "xz": ("x", "z"), "yz": ("y", "z"),
            "rz": ("r (horizontal, along the arm)", "z")}[plane]
    ax.set_xlabel(f"{a} [{_unit(robot)}]")
    ax.set_ylabel(f"{b} [{_unit(robot)}]")
    ax.set_aspect("equal", adjustable="box")
    ax.grid(True, lw=0.5, alpha=0.5)
    if title:
        ax.set_title(title, fontsize="medium")


def setup_3d(ax: Axes, robot: Robot, points: np.ndarray, elev: float = 22, azim: float = -55) -> None:
    """Labels, a cube around the points (equal aspect in 3-D), and the view direction."""
    from mpl_toolkits.mplot3d import Axes3D

    if not isinstance(ax, Axes3D):
        raise VizError(f"setup_3d: expected 3-D axes (projection='3d'), got {type(ax).__name__}")
    u = _unit(robot)
    ax.set_xlabel(f"x [{u}]")
    ax.set_ylabel(f"y [{u}]")
    ax.set_zlabel(f"z [{u}]")
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = (lo + hi) / 2, max(float((hi - lo).max()) / 2, 1e-9) * 1.08
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(elev=elev, azim=azim)


def plane_span(points: np.ndarray, planes: Sequence[str], azimuth: float) -> float:
    """The largest extent of the points over the 2-D views: one scale for panels side by side."""
    spans = [max(float(np.ptp(c)) for c in project(points, p, azimuth)) for p in planes if p != "3d"]
    return max(spans + [1e-9])


def fit_plane(ax: Axes, points: np.ndarray, plane: str, azimuth: float, span: float | None = None,
              pad: float = 0.08) -> None:
    """A square view of side `span` (+ margin) around the centre of the projected points, so
    panels side by side share one scale (equal aspect kept)."""
    x, y = project(points, plane, azimuth)
    span = plane_span(points, [plane], azimuth) if span is None else span
    half = span * (0.5 + pad)
    cx, cy = (x.min() + x.max()) / 2, (y.min() + y.max()) / 2
    ax.set_xlim(cx - half, cx + half)
    ax.set_ylim(cy - half, cy + half)


# --- figures -----------------------------------------------------------------------------------
def _target_point(target: ArrayLike | None, robot: Robot) -> np.ndarray | None:
    if target is None:
        return None
    t = np.asarray(target, dtype=float)
    if t.shape == (4, 4):
        t = t[:3, 3]
    if t.shape == (2,):
        t = np.array([t[0], t[1], robot.base[2, 3]])
    if t.shape != (3,) or not np.all(np.isfinite(t)):
        raise VizError(f"target: expected a point (x, y) or (x, y, z) or a 4x4 pose, got {np.shape(target)}")
    return t


def _views(robot: Robot, view: str) -> list[str]:
    if view not in VIEWS:
        raise VizError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    if view == "auto":
        return ["xy"] if is_planar(robot) else ["3d"]
    if view == "projections":
        return ["xy", "xz", "yz"]
    return [view]


def _labels(k: int, labels: Sequence[str] | None, what: str) -> list[str | None]:
    if labels is None:
        return [None] * k
    if len(labels) != k:
        raise VizError(f"{what}: expected {k} labels, one per configuration, got {len(labels)}")
    return [None if s is None else str(s) for s in labels]


def draw_arms(fig: Figure, robot: Robot, q: ArrayLike | None, *, views: Sequence[str],
              labels: Sequence[str] | None = None, ghosts: ArrayLike | None = None,
              ghost_labels: Sequence[str] | None = None, target: ArrayLike | None = None,
              show_reach: bool = False, frames: bool = False, plane_titles: bool = True,
              legend: bool = True) -> list[Axes]:
    """Draw configurations q (n,) or (k, n) on a figure, one axes per view side by side.

    One configuration is drawn in the arm colour with its end effector marked; several are drawn
    each in its own colour (labels in the legend). `ghosts` are drawn faded behind (a start
    configuration, other branches)."""
    Q = configurations(robot, q)
    G = configurations(robot, ghosts) if ghosts is not None else np.empty((0, robot.n))
    names = _labels(len(Q), labels, "labels")
    ghost_names = _labels(len(G), ghost_labels, "ghost_labels")
    geo, ghost_geo = arm_geometry(robot, Q), arm_geometry(robot, G) if len(G) else None
    ghost_poses = [] if ghost_geo is None else [_pick(ghost_geo, j) for j in range(len(G))]
    tgt = _target_point(target, robot)
    pts = [geo.skeleton.reshape(-1, 3)] + ([ghost_geo.skeleton.reshape(-1, 3)] if ghost_geo is not None else [])
    if tgt is not None:
        pts.append(tgt[None])
    if frames:  # the tips of the frame axes stay in view
        F = geo.frames.reshape(-1, 4, 4)
        tips = F[:, None, :3, 3] + 0.12 * size_scale(robot) * np.swapaxes(F[:, :3, :3], 1, 2)
        pts.append(tips.reshape(-1, 3))
    R = reach(robot) if show_reach else 0.0
    centre = geo.joints[0, 0]
    if R > 0:
        pts.append(centre + R * np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0],
                                          [0, 0, 1], [0, 0, -1.0]]))
    allpts = np.vstack(pts)
    az = azimuth_of(geo.tool[0])
    span = plane_span(allpts, views, az)
    dims = 2 if is_planar(robot) else 3  # a planar arm's points are (x, y)
    k = len(Q)
    axes = []
    for i, v in enumerate(views):
        ax = fig.add_subplot(1, len(views), i + 1, **({"projection": "3d"} if v == "3d" else {}))
        axes.append(ax)
        single = len(Q) == 1
        for j, ghost in enumerate(ghost_poses):
            d = ArmDrawing(ax, robot, v, color="#808080", alpha=style.GHOST_ALPHA, frames=False,
                           azimuth=az, base=False, label=ghost_names[j] if i == 0 else None)
            d.update(ghost)
        for j in range(len(Q)):
            # with frames the arm is grey: its blue would be confused with the z axes
            color = ((style.ARM_FRAMES if frames else style.ARM) if single
                     else style.PALETTE[j % len(style.PALETTE)])
            label = names[j] if names[j] is not None else (
                f"q = {style.format_q(robot, Q[j])}" if single else f"configuration {j + 1}")
            tool_label = (f"end effector {style.format_point(geo.tool[j][:dims], robot.length_unit)}"
                          if single else None)
            # overlaid arms: the first widest, each later one narrower and on top, so arms that
            # coincide in a view (mirror branches) still show as stripes
            lw = None if single else 2.0 + 3.5 * (k - 1 - j) / (k - 1)
            d = ArmDrawing(ax, robot, v, color=color, alpha=1.0 if single else 0.9, frames=frames,
                           azimuth=az, base=j == 0, label=label, tool_label=tool_label, lw=lw,
                           layer=0.01 * j)
            d.update(_pick(geo, j))
            if frames and i == 0 and j == 0:  # one legend entry per axis colour
                for line, axis in zip(d.axes_lines[0], "xyz", strict=True):
                    line.set_label(f"frame {axis} axes")
        if tgt is not None:
            _plot_point(ax, v, tgt, az, marker="X", ms=12, color=style.TARGET, mec="white",
                        zorder=7, label=f"target {style.format_point(tgt[:dims], robot.length_unit)}")
        if R > 0 and v != "3d":
            cx, cy = project(centre, v, az)
            ax.add_patch(Circle((float(cx), float(cy)), R, fill=False, ls="--", lw=1.0,
                                color=style.REACH, label=f"reach ≤ {R:.4g} {robot.length_unit}"))
        if v == "3d":
            setup_3d(ax, robot, allpts)
        else:
            setup_plane(ax, robot, v, PLANE_NAMES[v] if plane_titles else None)
            fit_plane(ax, allpts, v, az, span)
    if legend:
        _legend(fig, axes)
    return axes


def _pick(g: ArmGeometry, j: int) -> ArmGeometry:
    return ArmGeometry(g.skeleton[j], g.joints[j], g.axes[j], g.frames[j])


def _plot_point(ax: Axes, view: str, p: np.ndarray, az: float, **kw: Any) -> None:
    if view == "3d":
        ax.plot([p[0]], [p[1]], [p[2]], ls="none", **kw)
    else:
        x, y = project(p, view, az)
        ax.plot([x], [y], ls="none", **kw)


def _legend(fig: Figure, axes: list[Axes]) -> None:
    handles, labels = axes[0].get_legend_handles_labels()
    if not handles:
        return
    if len(axes) == 1 and axes[0].name != "3d" and max(map(len, labels)) <= 40:
        fig.legend(handles, labels, loc="outside right upper", fontsize="small", frameon=False)
    else:
        wide = max(map(len, labels)) > 40 and len(axes) == 1  # one column of long labels
        fig.legend(handles, labels, loc="outside lower center", fontsize="small",
                   ncols=1 if wide else min(len(handles), 3), frameon=False)


@takes_robot
def arm(robot: Robot, q: ArrayLike | None = None, *, view: str = "auto",
        labels: Sequence[str] | None = None, ghosts: ArrayLike | None = None,
        ghost_labels: Sequence[str] | None = None, target: ArrayLike | None = None,
        reach: bool | None = None, frames: bool = False, title: str | None = None,
        size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """The arm at q (n,) — or several configurations (k, n) overlaid — as a Figure.

    view: "auto" (planar robots in their plane, others in 3-D), "3d", "projections" (XY, XZ
    and YZ side by side, paper 003), or one plane "xy", "xz", "yz", "rz" (the vertical plane
    through the arm). target: a point (x, y[, z]) or pose to mark; reach: the dashed circle of
    the largest reach around joint 1 (default on for planar robots); frames: x/y/z axes at every
    frame; size: inches (width, height) at `dpi` (default 8 x 6 at 100 dpi: 800 x 600 pixels).
    """
    views = _views(robot, view)
    if reach is None:
        reach = is_planar(robot) and views != ["3d"]
    fig = style.new_figure(size, dpi)
    axes = draw_arms(fig, robot, q, views=views, labels=labels, ghosts=ghosts, ghost_labels=ghost_labels,
              target=target, show_reach=bool(reach), frames=frames,
              plane_titles=len(views) > 1)
    Q = configurations(robot, q)
    title = title if title is not None else (
        f"{robot.name}: q = {style.format_q(robot, Q[0])}" if len(Q) == 1
        else f"{robot.name}: {len(Q)} configurations")
    style.title(fig, axes, title)
    return style.settle(fig)


@takes_robot
def projections(robot: Robot, q: ArrayLike | None = None, **kw: Any) -> Figure:
    """The arm in the XY, XZ and YZ planes side by side (paper 003's Figs. 2–4); the keywords of
    `arm`. Default size 12 x 4.5 inches."""
    takes = tuple(k for k in accepted(arm) if k not in ("robot", "q", "view"))
    if not set(kw) <= set(takes):
        raise refuse("projections()", set(kw) - set(takes), ("robot", "q") + takes)
    if kw.get("size") is None:
        kw["size"] = (12.0, 4.5)
    return arm(robot, q, view="projections", **kw)


@takes_robot
def solutions(robot: Robot, sols: Sequence[Any] | np.ndarray, *, labels: Sequence[str] | None = None,
              current: ArrayLike | None = None, target: ArrayLike | None = None,
              view: str | None = None, title: str | None = None,
              size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """Several IK solutions of one target overlaid, each in its own colour and labelled by its
    branch ("front / elbow up", …) when the solver named one; `current` (the start) is drawn as
    a grey ghost. sols: a list of `IKResult` (from `km.ik_all`) or joint values (k, n).
    view: default "xy" for planar robots, else "projections" (paper 003 draws both solutions in
    the XY, XZ and YZ planes)."""
    if len(sols) == 0:
        raise VizError("no solutions to draw (an unreachable target has none: km.ik says why)")
    if hasattr(sols[0], "q"):
        Q = np.stack([np.asarray(s.q, float) for s in sols])
        if labels is None:
            labels = [f"{getattr(s, 'branch', None) or f'solution {i + 1}'}"
                      + ("" if getattr(s, "within_limits", True) else " (outside limits)")
                      for i, s in enumerate(sols)]
    else:
        Q = configurations(robot, sols)
    if labels is None:
        labels = [f"solution {i + 1}" for i in range(len(Q))]
    names = _labels(len(Q), labels, "labels")  # a label for each solution: none left over
    labels = [f"{lab}: {style.format_q(robot, qi)}" for lab, qi in zip(names, Q, strict=True)]
    if view is None:
        view = "xy" if is_planar(robot) else "projections"
    if size is None and view == "projections":
        size = (12.0, 5.0)
    ghost = None if current is None else configurations(robot, current)
    return arm(robot, Q, view=view, labels=labels, ghosts=ghost,
               ghost_labels=None if ghost is None else ["start"] * len(ghost), target=target,
               title=title if title is not None else
               f"{robot.name}: {len(Q)} IK solution{'s' if len(Q) != 1 else ''}",
               size=size, dpi=dpi)
