"""The Plots tab's content without NiceGUI: the charts' data (`chartdata`) grouped as the tab
shows them, the numbers under them, and the sentences shown instead of a chart that cannot be
drawn. The charts themselves are ECharts options built in the browser's page (`charts`); no
image is drawn on the server.

>>> import kinematica as km
>>> r = km.load("planar-3r")
>>> tr = km.trajectory.quintic(r.q_home, r.q_home + 0.5, 2.0, steps=11, robot=r)
>>> trajectory_caption(tr, r).split(";")[0]
'2 s, 12 samples'
>>> torque_note(tr, r)
'No torques: planar-3r has no inertial parameters (mass, centre of mass, inertia) to compute them from.'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import kinematica as km
from kinematica.ik import default_tolerance
from kinematica.kinematics import is_planar
from kinematica.viz import plots
from kinematica.viz.style import VizError

from .chartdata import ChartData, convergence_chart, tool_poses, trajectory_charts

HOW_TO_PLAN = ("No trajectory yet. To get one: open the Simulator tab, add two or more poses "
               "under Poses (move the arm, then Add pose), and press Play; the plots of that "
               "motion appear here.")


@dataclass(frozen=True)
class ToolPath:
    """The tool's positions along the trajectory, (T, 3) in the robot's length unit, for the
    path chart; `planar`: drawn in the robot's plane."""

    points: np.ndarray
    unit: str
    planar: bool


@dataclass(frozen=True)
class Plot:
    """One group of the tab: its test id, its charts (none when it cannot be drawn: the
    caption says why), the caption, and the tool's path (the path group only)."""

    key: str
    charts: tuple[ChartData, ...]
    caption: str
    path: ToolPath | None = None


def _rate_unit(robot: km.Robot, i: int) -> str:
    return "°/s" if robot.revolute[i] else f"{robot.length_unit}/s"


def trajectory_caption(traj: km.Trajectory, robot: km.Robot) -> str:
    """Duration, samples, the peak |q̇| of every joint and the peak |τ| (when known)."""
    qd = np.abs(np.asarray(traj.qd)).max(axis=0) * robot.angle_scale
    rates = ", ".join(f"{name} {v:.3g} {_rate_unit(robot, i)}"
                      for i, (name, v) in enumerate(zip(robot.joint_names, qd, strict=True)))
    words = f"{traj.duration:.3g} s, {len(traj)} samples; peak |q̇|: {rates}"
    tau = plots.torques(traj, robot)
    if tau is not None:
        peak = np.abs(tau).max(axis=0)
        j = int(np.argmax(peak))
        unit = "N·m" if robot.revolute[j] else "N"
        words += f"; peak |τ| {peak[j]:.3g} {unit} ({robot.joint_names[j]})"
    return words + "."


def torque_note(traj: km.Trajectory, robot: km.Robot) -> str | None:
    """Why the torque panel is missing, or None when it is drawn."""
    if plots.torques(traj, robot) is not None:
        return None
    return (f"No torques: {robot.name} has no inertial parameters (mass, centre of mass, "
            "inertia) to compute them from.")


def path_caption(traj: km.Trajectory, robot: km.Robot) -> str:
    """How far the tool travels and how far apart its start and end are."""
    p = tool_poses(traj, robot)[:, :3, 3]
    length = float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum())
    u = robot.length_unit
    return (f"Path length {length:.4g} {u}; start to end {float(np.linalg.norm(p[-1] - p[0])):.4g} {u}.")


def trajectory_plots(traj: km.Trajectory, robot: km.Robot) -> list[Plot]:
    """The joint charts (q, q̇, q̈, and τ when it can be computed) and the tool's path: its
    position over time and the path itself."""
    *joints, tool = trajectory_charts(traj, robot)
    note = torque_note(traj, robot)
    caption = trajectory_caption(traj, robot) + (f" {note}" if note else "")
    path = ToolPath(tool_poses(traj, robot)[:, :3, 3], robot.length_unit, is_planar(robot))
    return [Plot("plot-joints", tuple(joints), caption),
            Plot("plot-path", (tool,), path_caption(traj, robot), path)]


def convergence_note(run: km.IKResult | None, refused: str = "") -> str | None:
    """Why there is no convergence plot, or None when there is one to draw. refused: the
    message of a Solve that stopped before the solver ran (a malformed target, no closed form)."""
    if run is None:
        if refused:
            return f"No IK run to plot: the last Solve was refused. {refused}"
        return ("No IK solve yet: in the Simulator tab switch the mode to IK, set a target and "
                "press Solve; the error per iteration appears here.")
    if run.method == "analytic":
        return ("The last solve used the closed-form (analytic) method: it computes the joint "
                "values directly, so there are no iterations to plot.")
    if run.history is None:
        return "The last solve kept no iteration history."
    if not run.history:
        return ("The last solve took no step: the start already met the tolerance, or the "
                "target was found out of reach before iterating.")
    return None


def convergence_plot(run: km.IKResult, robot: km.Robot) -> Plot:
    """The error per iteration of the last solve, with the solver's tolerance."""
    tol = default_tolerance(robot)
    try:
        chart = convergence_chart(run, tol, robot.length_unit)
    except VizError as e:  # a history the chart cannot use: say so rather than fail
        return Plot("plot-convergence", (), str(e))
    h = run.history or []
    final = float(h[-1]["error_after"]) if h else float("nan")
    caption = (f"{len(h)} iteration{'s' if len(h) != 1 else ''} shown "
               f"({int(run.iterations)} in all); start error {float(h[0]['error']):.3g}, "
               f"last {final:.3g} {robot.length_unit} (tolerance {tol:g} {robot.length_unit}); "
               f"{str(run.reason).rstrip('.')}.")
    return Plot("plot-convergence", (chart,), caption)
