"""The numbers behind the Plots tab's charts, without NiceGUI: per chart the x values, the named
series with their units, and what is marked on it (a tolerance, the epoch kept, a median).
`charts.py` turns one `ChartData` into an ECharts option and into CSV; this module only reads
the core's results (a trajectory, an IK run's history, a learned model's report).

Units are the ones the simulator's fields show: revolute joints in degrees (deg/s, deg/s²),
prismatic joints and the tool in the robot's length unit, torques in N·m (revolute) or N.

>>> import kinematica as km
>>> r = km.load("planar-3r")
>>> tr = km.trajectory.quintic(r.q_home, r.q_home + 0.5, 2.0, steps=11, robot=r)
>>> [c.key for c in trajectory_charts(tr, r)]
['chart-q', 'chart-qd', 'chart-qdd', 'chart-tool']
>>> round(float(trajectory_charts(tr, r)[0].series[0].y[-1] - trajectory_charts(tr, r)[0].series[0].y[0]), 3)
28.648
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kinematica as km
from kinematica.kinematics import is_planar
from kinematica.viz import plots
from kinematica.viz.learned import kept_epoch
from kinematica.viz.style import VizError

# (title, symbol, unit suffix) of the joint quantities, as in the core's time plots
JOINT_QUANTITIES = {"q": ("joint values", "q", ""), "qd": ("joint rates", "q̇", "/s"),
                    "qdd": ("joint accelerations", "q̈", "/s²")}


@dataclass(frozen=True)
class Series:
    """One named line: its y values (one per x), its unit, the y axis it is read on (0 left,
    1 right) and how it is drawn ("line", "dashed", "points", "step")."""

    name: str
    y: np.ndarray
    unit: str = ""
    axis: int = 0
    style: str = "line"


@dataclass(frozen=True)
class Mark:
    """A straight line across the chart at x (vertical) or y (horizontal), named in the legend
    of its own, e.g. the solver's tolerance or the epoch the model kept."""

    name: str
    value: float
    vertical: bool = False


@dataclass(frozen=True)
class ChartData:
    """Everything one chart shows. key: the test id and the CSV file's name; x_name: the x
    column's heading with its unit; y_names: the axis titles (one, or left and right);
    timed: x is the trajectory's time, so a line follows the player."""

    key: str
    title: str
    x_name: str
    x: np.ndarray
    series: tuple[Series, ...]
    y_names: tuple[str, ...]
    log_y: bool = False
    log_x: bool = False
    timed: bool = False
    marks: tuple[Mark, ...] = field(default_factory=tuple)
    integer_x: bool = False


def joint_units(robot: km.Robot, suffix: str) -> list[str]:
    return [("°" if rev else robot.length_unit) + suffix for rev in robot.revolute]


def _joint_chart(key: str, title: str, symbol: str, t: np.ndarray, values: np.ndarray,
                 names: Sequence[str], units: list[str]) -> ChartData:
    mixed = len(set(units)) > 1
    series = tuple(Series(f"{n} [{u}]" if mixed else n, values[:, j], units[j]) for j, (n, u) in
                   enumerate(zip(names, units, strict=True)))
    return ChartData(f"chart-{key}", title, "t [s]", t, series,
                     (f"{symbol} [{' | '.join(dict.fromkeys(units))}]",), timed=True)


def trajectory_charts(traj: km.Trajectory, robot: km.Robot) -> list[ChartData]:
    """q, q̇, q̈ and τ (when the trajectory carries it or the robot has inertials) over time, one
    chart each with a line per joint, and the tool's position over time (`tool_chart`)."""
    t = np.asarray(traj.t, dtype=float)
    scale = robot.angle_scale
    out = []
    for key, (title, symbol, suffix) in JOINT_QUANTITIES.items():
        values = np.asarray(getattr(traj, key), dtype=float) * scale
        out.append(_joint_chart(key, title, symbol, t, values, robot.joint_names, joint_units(robot, suffix)))
    tau = plots.torques(traj, robot)
    if tau is not None:
        how = "from the trajectory" if traj.tau is not None else "Newton–Euler"
        units = ["N·m" if rev else "N" for rev in robot.revolute]
        out.append(_joint_chart("tau", f"joint torques ({how})", "τ", t, np.asarray(tau, dtype=float),
                                robot.joint_names, units))
    out.append(tool_chart(traj, robot))
    return out


def tool_poses(traj: km.Trajectory, robot: km.Robot) -> np.ndarray:
    """(T, 4, 4) tool poses along the trajectory, by FK."""
    return np.asarray(km.fk(robot, traj.q), dtype=float)


def tool_chart(traj: km.Trajectory, robot: km.Robot) -> ChartData:
    """The tool's x, y, z over time (a planar robot: x, y and the heading φ of its last link,
    in degrees, read on the right axis)."""
    T = tool_poses(traj, robot)
    u = robot.length_unit
    series = [Series("x", T[:, 0, 3], u), Series("y", T[:, 1, 3], u)]
    names = (f"position [{u}]",)
    if is_planar(robot):
        heading = np.degrees(np.unwrap(np.arctan2(T[:, 1, 0], T[:, 0, 0])))
        series.append(Series("φ (heading)", heading, "°", axis=1))
        names += ("heading φ [°]",)
    else:
        series.append(Series("z", T[:, 2, 3], u))
    return ChartData("chart-tool", "tool position over time", "t [s]", np.asarray(traj.t, dtype=float),
                     tuple(series), names, timed=True)


def convergence_chart(run: Any, tol: float, unit: str) -> ChartData:
    """The error ‖e‖ after each iteration of one IK run (log scale; the start at iteration 0),
    the error a rejected step would have given, λ on the right axis, and the tolerance."""
    h = list(run.history or [])
    if not h or any(k not in h[0] for k in ("error", "error_after")):
        raise VizError("this IK run kept no iteration history with error and error_after")
    before = np.array([r["error"] for r in h], dtype=float)
    trial = np.array([r["error_after"] for r in h], dtype=float)
    accepted = np.array([r.get("accepted", True) for r in h], dtype=bool)
    after = np.where(accepted, trial, before)
    x = np.arange(len(h) + 1, dtype=float)
    series = [Series("‖e‖", np.concatenate([before[:1], after]), unit)]
    if np.any(~accepted):
        series.append(Series("rejected step (the error it gave)",
                             np.concatenate([[np.nan], np.where(accepted, np.nan, trial)]), unit, style="points"))
    lam = np.array([r.get("lambda", np.nan) for r in h], dtype=float)
    names = (f"error ‖e‖ [{unit}]",)
    if np.any(lam > 0):
        series.append(Series("λ (damping)", np.concatenate([[np.nan], np.where(lam > 0, lam, np.nan)]),
                             axis=1, style="dashed"))
        names += ("damping λ",)
    return ChartData("chart-convergence", "IK convergence", "iteration", x, tuple(series), names,
                     log_y=True, marks=(Mark(f"tolerance {tol:g} {unit}", tol),), integer_x=True)


def training_chart(report: dict[str, Any], unit: str = "") -> ChartData:
    """The learned model's training per epoch — the one place that reads the curves out of a
    model's report. An IK model's report with "tool_validation": the tool error of its answers
    to validation targets (position median and mean in report["length_unit"], orientation median
    in degrees on the right axis); otherwise each output's RMSE, training and validation. The
    epoch whose parameters the model kept is marked when the report has a validation history.
    unit: the RMSE's unit (the learned outputs'), for a report without the tool history."""
    tool = report.get("tool_validation")
    kept = kept_epoch(report) if "rmse_train" in report else None
    marks = (Mark(f"kept: epoch {kept}", float(kept), vertical=True),) if kept else ()
    if isinstance(tool, dict):
        unit = str(report.get("length_unit", ""))
        try:
            med, mean, deg = (np.asarray(tool[k], dtype=float).ravel() for k in
                              ("position_median", "position_mean", "orientation_median_deg"))
        except (KeyError, TypeError, ValueError):
            raise VizError("the report's tool_validation lacks position_median, position_mean or "
                           "orientation_median_deg per epoch") from None
        if not len(med) == len(mean) == len(deg) > 0:
            raise VizError(f"tool_validation: expected one number per epoch, got {len(med)}, {len(mean)}, {len(deg)}")
        series = [Series("position, median", med, unit), Series("position, mean", mean, unit, style="dashed")]
        train = report.get("tool_train")  # the same errors on training targets, where recorded
        if isinstance(train, dict) and len(train.get("position_median", ())) == len(med):
            series.append(Series("position, median (training targets)", np.asarray(train["position_median"],
                                                                                  dtype=float), unit, style="points"))
        names = (f"tool position error [{unit}]",)
        if np.any(deg > 0):  # a planar arm's point target without heading has no orientation error
            series.append(Series("orientation, median", deg, "°", axis=1))
            names += ("tool orientation error [°]",)
        return ChartData("chart-training", f"tool error of the answers to {tool.get('count', '?')} validation "
                         "targets, per epoch", "epoch", np.arange(1.0, len(med) + 1), tuple(series), names,
                         log_y=True, marks=marks, integer_x=True)
    train, val = _rmse(report)
    joints = list(report.get("joints") or [f"output {k + 1}" for k in range(train.shape[1])])
    series = []
    for k, name in enumerate(joints[:train.shape[1]]):
        series.append(Series(f"{name} training", train[:, k], unit))
        if val is not None:
            series.append(Series(f"{name} validation", val[:, k], unit, style="dashed"))
    return ChartData("chart-training", "RMSE per epoch of hybrid learning", "epoch",
                     np.arange(1.0, len(train) + 1), tuple(series), (f"RMSE [{unit}]" if unit else "RMSE",),
                     log_y=True, marks=marks,
                     integer_x=True)


def _rmse(report: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None]:
    try:
        train = np.asarray(report["rmse_train"], dtype=float)
    except (KeyError, TypeError, ValueError):
        raise VizError("the model's report has no training history (rmse_train)") from None
    train = train.reshape(len(train), -1) if train.ndim else train.reshape(1, 1)
    val = report.get("rmse_validation")
    return train, None if val is None else np.asarray(val, dtype=float).reshape(train.shape)


def histogram_chart(errors: np.ndarray, unit: str, bins: int = 40) -> ChartData:
    """How many answers miss by how much: counts on log-spaced bins (errors span decades) as a
    step line over the bins' lower edges, with the median and the 95th percentile marked."""
    e = np.asarray(errors, dtype=float).ravel()
    if e.size == 0 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise VizError("errors: expected finite non-negative numbers, at least one")
    pos = e[e > 0]
    lo = float(pos.min()) if pos.size else 1.0
    edges = np.geomspace(lo, max(float(e.max()), lo * 10), bins + 1)
    counts, _ = np.histogram(np.clip(e, edges[0], edges[-1]), bins=edges)
    # the last edge closes the final step: counts has one fewer entry than the edges
    y = np.concatenate([counts, counts[-1:]]).astype(float)
    med, p95 = float(np.median(e)), float(np.percentile(e, 95))
    return ChartData("chart-model-errors", f"tool position error of the model's answers, {e.size} fresh targets",
                     f"error [{unit}]", edges, (Series("answers", y, style="step"),), ("answers",), log_x=True,
                     marks=(Mark(f"median {med:.3g} {unit}", med, vertical=True),
                            Mark(f"95th percentile {p95:.3g} {unit}", p95, vertical=True)))
