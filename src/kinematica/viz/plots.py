"""Plots over iterations and over time: the convergence of an IK run (paper 000), the joint values,
rates, accelerations and torques of a trajectory, and the end-effector path (paper 002).

>>> import kinematica as km, numpy as np
>>> r = km.ik(km.load("planar-3r"), [-10, 35], np.radians([30, 30, 20]), history=True)
>>> fig = convergence(r, unit="mm", size=(5, 3))
>>> len(fig.axes[0].get_lines()[0].get_xdata()) == r.iterations
True
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..dynamics import GRAVITY, rne
from ..keywords import strict
from ..kinematics.fk import fk
from ..kinematics.manipulability import is_planar
from ..model.robot import Robot
from ..trajectory.value import Trajectory
from . import style
from .arm import setup_3d, setup_plane
from .style import VizError

__all__ = ["QUANTITIES", "convergence", "torques", "time_plots", "tool_poses", "ee_path"]

QUANTITIES = {  # key: (panel name, symbol, unit suffix)
    "q": ("joint values", "q", ""),
    "qd": ("joint rates", "q̇", "/s"),
    "qdd": ("joint accelerations", "q̈", "/s²"),
    "tau": ("joint torques", "τ", None),
}


# --- IK convergence ---------------------------------------------------------------------------
def _history(run: Any) -> list[dict]:
    history = getattr(run, "history", run)
    if history is None:
        raise VizError("this IK result has no history: solve with km.ik(..., history=True) "
                       "(one target at a time)")
    history = list(history)
    if not history:
        raise VizError("the IK history is empty: the solver took no step (the start already "
                       "met the tolerance, or the target was unreachable)")
    for key in ("error", "error_after"):
        if key not in history[0]:
            raise VizError(f"IK history records need {key!r}; got keys {sorted(history[0])}")
    return history


@strict
def convergence(run: Any, *, tol: float | None = None, unit: str | None = None,
                title: str | None = None, size: Sequence[float] | None = None,
                dpi: float | None = None) -> Figure:
    """The error ‖e‖ per iteration of one IK run on a log scale, λ on a second axis, rejected
    steps marked with the error they would have given.

    run: an `IKResult` solved with ``history=True`` or its `history` list (records with error,
    error_after, lambda, accepted). The main line has one point per iteration: the error after
    that iteration (unchanged when the step was rejected); the hollow point at 0 is the start.
    tol: the tolerance, drawn as a dashed line; unit: the error's unit for the axis label.
    """
    h = _history(run)
    it = np.array([r.get("iteration", k + 1) for k, r in enumerate(h)], dtype=float)
    before = np.array([r["error"] for r in h], dtype=float)
    trial = np.array([r["error_after"] for r in h], dtype=float)
    accepted = np.array([r.get("accepted", True) for r in h], dtype=bool)
    after = np.where(accepted, trial, before)
    floor = 1e-16 * max(float(np.nanmax(before)), 1e-300)  # zero has no place on a log axis
    fig = style.new_figure(size, dpi)
    ax = fig.add_subplot()
    ax.plot(it, np.maximum(after, floor), "o-", color=style.ARM, lw=2, ms=5,
            label="‖e‖ after the iteration", zorder=4)
    ax.plot([it[0] - 1], [before[0]], "o", mfc="white", mec=style.ARM, mew=1.6, ms=7,
            label=f"start ‖e₀‖ = {before[0]:.4g}", zorder=4)
    ax.plot([it[0] - 1, it[0]], [before[0], max(after[0], floor)], ":", color=style.ARM, lw=1.2)
    if np.any(~accepted):
        ax.plot(it[~accepted], np.maximum(trial[~accepted], floor), "x", color=style.TARGET,
                ms=9, mew=2, label="rejected step (the error it gave)", zorder=5)
    if tol is not None:
        ax.axhline(tol, ls="--", lw=1.2, color="#2ca02c", label=f"tolerance {tol:.3g}")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel(f"error ‖e‖ [{unit}]" if unit else "error ‖e‖")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="major", lw=0.5, alpha=0.5)
    ax.grid(True, which="minor", lw=0.3, alpha=0.25)
    handles, labels = ax.get_legend_handles_labels()
    lam = np.array([r.get("lambda", np.nan) for r in h], dtype=float)
    if np.any(lam > 0):
        ax2 = ax.twinx()
        ax2.plot(it, np.where(lam > 0, lam, np.nan), "s--", color="#7f7f7f", ms=4, lw=1.2,
                 label="λ (damping)")
        ax2.set_yscale("log")
        ax2.set_ylabel("damping λ", color="#555555")
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 3),
               fontsize="small", frameon=False)
    if title is None:
        n_rej = int(np.sum(~accepted))
        title = (f"IK convergence: {len(h)} iteration{'s' if len(h) != 1 else ''}"
                 + (f" ({n_rej} rejected)" if n_rej else "")
                 + f", final ‖e‖ = {after[-1]:.3g}" + (f" {unit}" if unit else ""))
        reason = getattr(run, "reason", None)
        total = getattr(run, "iterations", None)
        if isinstance(reason, str):
            title += f"\n{reason}"
            if isinstance(total, (int, np.integer)) and total > len(h):
                title += (f" after {total} iterations in all (the history is the first attempt's; "
                          "random restarts did the rest)")
    # matplotlib never wraps a title: a long reason would run off both sides of the figure
    width = max(30, int(12 * fig.get_figwidth()))  # characters of a "medium" font per line
    ax.set_title("\n".join(textwrap.fill(line, width) for line in title.split("\n")), fontsize="medium")
    return fig


# --- time plots -------------------------------------------------------------------------------
def torques(traj: Trajectory, robot: Robot | None = None,
            gravity: Sequence[float] | None = None) -> np.ndarray | None:
    """The trajectory's own torques, else τ by Newton–Euler when the robot has inertials."""
    if traj.tau is not None:
        return np.asarray(traj.tau)
    if robot is not None and robot.has_inertials:
        g = GRAVITY if gravity is None else np.asarray(gravity, float)  # (rne's default: its fast path)
        return rne(robot, traj.q, traj.qd, traj.qdd, gravity=g)
    return None


@strict
def time_plots(traj: Trajectory, *, robot: Robot | None = None,
               quantities: Sequence[str] | None = None, degrees: bool = True,
               gravity: Sequence[float] | None = None, title: str | None = None,
               size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """q, q̇, q̈ and τ over time, one panel each, one line per joint (paper 002's plots).

    quantities: any of "q", "qd", "qdd", "tau" (default: all, τ when the trajectory carries it
    or `robot` has inertial parameters to compute it by Newton–Euler). degrees: revolute
    values in deg, deg/s, deg/s² (else rad); prismatic ones stay in the length unit.
    """
    tau = torques(traj, robot, gravity)
    if quantities is None:
        quantities = ("q", "qd", "qdd") + (("tau",) if tau is not None else ())
    bad = [k for k in quantities if k not in QUANTITIES]
    if bad or not quantities:
        raise VizError(f"quantities: choose from {', '.join(QUANTITIES)}, got {list(quantities)}")
    if "tau" in quantities and tau is None:
        raise VizError("τ: the trajectory has no torques and no robot with inertial parameters "
                       "was given to compute them")
    rev = np.asarray(traj.revolute, bool)
    k = style.joint_scale(rev, degrees)
    fig = style.new_figure(size if size is not None else (8.0, 2.0 + 1.7 * len(quantities)), dpi)
    axes = fig.subplots(len(quantities), 1, sharex=True, squeeze=False)[:, 0]
    t = np.asarray(traj.t)
    for ax, key in zip(axes, quantities, strict=True):
        name, symbol, suffix = QUANTITIES[key]
        if key == "tau":
            name += " (from the trajectory)" if traj.tau is not None else " (Newton–Euler)"
            assert tau is not None  # refused above when asked for and not computable
            data, units = tau, ["N·m" if r else "N" for r in rev]
        else:
            data = np.asarray(getattr(traj, key)) * k
            units = [style.joint_unit(r, traj.length_unit, suffix, degrees) for r in rev]
        for j, nm in enumerate(traj.joint_names):
            ax.plot(t, data[:, j], lw=1.6, color=style.PALETTE[j % len(style.PALETTE)],
                    label=nm if len(set(units)) == 1 else f"{nm} [{units[j]}]")
        ax.set_ylabel(f"{symbol} [{style.units_label(units)}]")
        ax.set_title(name, fontsize="medium", loc="left")
        ax.grid(True, lw=0.5, alpha=0.5)
    axes[-1].set_xlabel("t [s]")
    axes[0].set_xlim(t[0], t[-1] if t[-1] > t[0] else t[0] + 1)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper",
               fontsize="small", frameon=False, title="joint")
    fig.suptitle(title if title is not None else
                 f"{robot.name if robot is not None else 'trajectory'}: "
                 f"{len(traj)} samples over {traj.duration:.3g} s", fontsize="large")
    return fig


# --- end-effector path --------------------------------------------------------------------------
def tool_poses(traj: Trajectory, robot: Robot | None = None) -> np.ndarray:
    """(T, 4, 4) tool poses: FK of the trajectory's q on `robot`, else the poses it carries."""
    if robot is not None:
        return fk(robot, traj.q)
    if traj.poses is not None:
        return np.asarray(traj.poses)
    raise VizError("the trajectory carries no poses: give the robot to compute them by FK")


@strict
def ee_path(traj: Trajectory, *, robot: Robot | None = None, title: str | None = None,
            size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """The end-effector position over time: x, y, z against t on the left, the path itself on
    the right (3-D, or the plane of a planar robot), start and end marked (paper 002). For a
    planar robot the third time plot is the heading φ of the last link instead of z."""
    T = tool_poses(traj, robot)
    p = T[:, :3, 3]
    t = np.asarray(traj.t)
    unit = robot.length_unit if robot is not None else traj.length_unit
    planar = robot is not None and is_planar(robot)
    rows = [(p[:, 0], f"x [{unit}]"), (p[:, 1], f"y [{unit}]")]
    rows.append((np.degrees(np.unwrap(np.arctan2(T[:, 1, 0], T[:, 0, 0]))), "heading φ [deg]")
                if planar else (p[:, 2], f"z [{unit}]"))
    fig = style.new_figure(size if size is not None else (11.0, 5.5), dpi)
    grid = fig.add_gridspec(3, 2, width_ratios=[1.0, 1.15])
    axes: list[Axes] = []
    for i, (values, label) in enumerate(rows):
        ax = fig.add_subplot(grid[i, 0], sharex=axes[0] if axes else None)
        axes.append(ax)
        ax.plot(t, values, lw=1.8, color=style.AXES_RGB[i] if i < 2 or not planar else "#7f7f7f")
        ax.set_ylabel(label)
        ax.grid(True, lw=0.5, alpha=0.5)
        if i < 2:
            ax.tick_params(labelbottom=False)
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title("end-effector position over time", fontsize="medium", loc="left")
    if planar:
        ax3 = fig.add_subplot(grid[:, 1])
        ax3.plot(p[:, 0], p[:, 1], lw=2, color=style.TOOL, label="path")
        assert robot is not None  # planar: a robot was given
        setup_plane(ax3, robot, "xy")
        span = max(float(np.ptp(p[:, 0])), float(np.ptp(p[:, 1])), 1e-9) * 0.58
        c = (p[:, :2].min(axis=0) + p[:, :2].max(axis=0)) / 2
        ax3.set_xlim(c[0] - span, c[0] + span)
        ax3.set_ylim(c[1] - span, c[1] + span)
        ends = [ax3.plot(*p[0, :2], "o", color="#2ca02c", ms=9, label="start")[0],
                ax3.plot(*p[-1, :2], "s", color=style.TARGET, ms=8, label="end")[0]]
    else:
        ax3 = fig.add_subplot(grid[:, 1], projection="3d")
        ax3.plot(p[:, 0], p[:, 1], p[:, 2], lw=2, color=style.TOOL, label="path")
        ends = [ax3.plot(*p[0][:, None], "o", color="#2ca02c", ms=9, label="start")[0],
                ax3.plot(*p[-1][:, None], "s", color=style.TARGET, ms=8, label="end")[0]]
        for a, b in ((ax3.set_xlabel, "x"), (ax3.set_ylabel, "y"), (ax3.set_zlabel, "z")):
            a(f"{b} [{unit}]")
        if robot is not None:
            setup_3d(ax3, robot, p)
        else:
            lo, hi = p.min(axis=0), p.max(axis=0)
            half = max(float((hi - lo).max()) / 2, 1e-9) * 1.08
            for f, c in zip((ax3.set_xlim, ax3.set_ylim, ax3.set_zlim), (lo + hi) / 2, strict=True):
                f(c - half, c + half)
            ax3.set_box_aspect((1, 1, 1))
    ax3.set_title("path of the end effector", fontsize="medium")
    ax3.legend(handles=[ax3.get_lines()[0], *ends], fontsize="small", loc="upper right")
    name = robot.name if robot is not None else "trajectory"
    fig.suptitle(title if title is not None else
                 f"{name}: end effector over {traj.duration:.3g} s", fontsize="large")
    return style.settle(fig)
