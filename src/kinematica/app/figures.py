"""The Plots tab's content without NiceGUI: the core's matplotlib figures as SVG data URLs, the
numbers under them, and the sentences shown instead of a plot that cannot be drawn.

SVG rather than PNG: it was both smaller and quicker to write for these figures (≈ 50–80 KB
and ≈ 200–280 ms against ≈ 80–130 KB and ≈ 220–350 ms for PNG at 100 dpi), stays sharp at any
zoom, and keeps its text as text. It goes into an `<img>` as a data URL rather than inline,
so the figures' element ids and styles cannot clash with the page or with each other, and no
HTML sanitizer has to understand matplotlib's SVG.

>>> import kinematica as km
>>> r = km.load("planar-3r")
>>> tr = km.trajectory.quintic(r.q_home, r.q_home + 0.5, 2.0, steps=11, robot=r)
>>> trajectory_caption(tr, r).split(";")[0]
'2 s, 12 samples'
>>> torque_note(tr, r)
'No torques: planar-3r has no inertial parameters (mass, centre of mass, inertia) to compute them from.'
"""

from __future__ import annotations

import base64
import io
import threading
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.figure import Figure

import kinematica as km
from kinematica.ik import default_tolerance
from kinematica.viz import plots
from kinematica.viz.style import VizError

# Figures are built in worker threads (so the page stays responsive); one at a time, because
# matplotlib's font and text caches are shared module state.
_LOCK = threading.Lock()

HOW_TO_PLAN = ("No trajectory yet. To get one: open the Simulator tab, add two or more poses "
               "under Poses (move the arm, then Add pose), and press Play; the plots of that "
               "motion appear here.")


@dataclass(frozen=True)
class Plot:
    """One figure of the tab: its test id, the image (an SVG data URL) and the caption."""

    key: str
    url: str
    caption: str


def svg_data_url(fig: Figure) -> str:
    """The figure as a base64 SVG data URL, its text kept as text (smaller, selectable)."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")  # constrained layout already keeps labels in
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _rate_unit(robot: km.Robot, i: int) -> str:
    return "°/s" if robot.revolute[i] else f"{robot.length_unit}/s"


def trajectory_caption(traj: km.Trajectory, robot: km.Robot) -> str:
    """Duration, samples, the peak |q̇| of every joint and the peak |τ| (when known)."""
    qd = np.abs(np.asarray(traj.qd)).max(axis=0) * robot.angle_scale
    rates = ", ".join(f"{name} {v:.3g} {_rate_unit(robot, i)}"
                      for i, (name, v) in enumerate(zip(robot.joint_names, qd)))
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
    p = km.fk(robot, traj.q)[:, :3, 3]
    length = float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum())
    u = robot.length_unit
    return (f"Path length {length:.4g} {u}; start to end {float(np.linalg.norm(p[-1] - p[0])):.4g} {u}.")


def trajectory_plots(traj: km.Trajectory, robot: km.Robot) -> list[Plot]:
    """The joint plots (q, q̇, q̈, and τ when it can be computed) and the end-effector path."""
    with _LOCK:
        joints = svg_data_url(plots.time_plots(traj, robot=robot, size=(9.0, 8.5)))
        path = svg_data_url(plots.ee_path(traj, robot=robot, size=(10.0, 5.0)))
    note = torque_note(traj, robot)
    caption = trajectory_caption(traj, robot) + (f" {note}" if note else "")
    return [Plot("plot-joints", joints, caption), Plot("plot-path", path, path_caption(traj, robot))]


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
    with _LOCK:
        try:
            url = svg_data_url(plots.convergence(run, tol=tol, unit=robot.length_unit, size=(8.0, 4.5)))
        except VizError as e:  # a history the plot cannot use: say so rather than fail
            return Plot("plot-convergence", "", str(e))
    h = run.history or []
    final = float(h[-1]["error_after"]) if h else float("nan")
    caption = (f"{len(h)} iteration{'s' if len(h) != 1 else ''} shown "
               f"({int(run.iterations)} in all); start error {float(h[0]['error']):.3g}, "
               f"last {final:.3g} {robot.length_unit} (tolerance {tol:g} {robot.length_unit}); "
               f"{str(run.reason).rstrip('.')}.")
    return Plot("plot-convergence", url, caption)
