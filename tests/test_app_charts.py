"""The Plots tab's charts without a browser (issue 32 item 12): the data read out of a trajectory,
an IK run and a learned model's report (app/chartdata.py), the ECharts options built from it and
the CSV written from it (app/charts.py). Numbers are checked against the core."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import kinematica as km
from kinematica.app import charts
from kinematica.app.chartdata import (ChartData, Series, convergence_chart, histogram_chart, trajectory_charts,
                                      training_chart)
from kinematica.viz.style import VizError

# Values go to the browser to charts.DIGITS (6) significant digits: a relative error below
# 0.5e-5 of each value (plus a tiny absolute floor for values that are zero up to round-off).
SENT = dict(rtol=5e-6, atol=1e-9)


def plan(robot: km.Robot) -> km.Trajectory:
    return km.trajectory.quintic(robot.q_home, robot.q_home + 0.3, 1.5, steps=40, robot=robot)


def series_of(opt: dict, name: str) -> np.ndarray:
    (s,) = [s for s in opt["series"] if s["name"] == name]
    return np.array([[np.nan if v is None else v for v in p] for p in s["data"]], dtype=float)


def test_the_joint_charts_hold_the_trajectory_in_the_fields_units() -> None:
    r = km.load("braccio")
    tr = plan(r)
    cs = trajectory_charts(tr, r)
    assert [c.key for c in cs] == ["chart-q", "chart-qd", "chart-qdd", "chart-tau", "chart-tool"]
    tau = km.rne(r, tr.q, tr.qd, tr.qdd)
    for c, expected in zip(cs, (np.degrees(tr.q), np.degrees(tr.qd), np.degrees(tr.qdd), tau)):
        opt = charts.option(c, t=0.7)
        assert opt["legend"]["data"] == list(r.joint_names)
        for j, name in enumerate(r.joint_names):
            xy = series_of(opt, name)
            np.testing.assert_allclose(xy[:, 0], tr.t, **SENT)
            np.testing.assert_allclose(xy[:, 1], expected[:, j], **SENT)
    assert cs[0].y_names == ("q [°]",) and cs[3].y_names == ("τ [N·m]",)


def test_every_chart_can_zoom_save_and_toggle_and_json_carries_it() -> None:
    r = km.load("braccio")
    for c in trajectory_charts(plan(r), r):
        opt = charts.option(c)
        assert {z["type"] for z in opt["dataZoom"]} == {"inside", "slider"}
        assert opt["toolbox"]["feature"]["saveAsImage"]["name"] == c.key.removeprefix("chart-")
        assert opt["tooltip"]["trigger"] == "axis"
        assert set(opt["legend"]["data"]) <= {s["name"] for s in opt["series"]}
        json.dumps(opt, allow_nan=False)  # what the page receives: no NaN, no numpy types


def test_the_time_line_sits_at_t_and_the_patch_moves_only_it() -> None:
    r = km.load("planar-3r")
    c = trajectory_charts(plan(r), r)[0]
    opt = charts.option(c, t=0.75)
    now = opt["series"][-1]
    assert now["id"] == charts.NOW and now["markLine"]["data"] == [{"xAxis": 0.75}]
    assert charts.NOW not in opt["legend"]["data"]
    patch = charts.time_patch(1.25)
    assert patch == {"series": [{"id": charts.NOW, "markLine": {"data": [{"xAxis": 1.25}]}}]}
    assert len(json.dumps(patch)) < 100  # a frame of playback sends this, not the series


def test_the_csv_has_every_number_at_full_precision() -> None:
    r = km.load("braccio")
    c = trajectory_charts(plan(r), r)[1]  # q̇ in °/s
    rows = list(csv.reader(io.StringIO(charts.csv_text(c))))
    assert rows[0] == ["t [s]"] + [f"{n} [°/s]" for n in r.joint_names]
    values = np.array(rows[1:], dtype=float)
    assert values.shape == (len(c.x), 1 + r.n)
    np.testing.assert_array_equal(values[:, 0], c.x)  # %.17g round-trips a double exactly
    np.testing.assert_array_equal(values[:, 1:], np.column_stack([s.y for s in c.series]))


def test_a_missing_value_is_an_empty_cell_and_a_gap() -> None:
    c = ChartData("chart-x", "x", "i", np.array([0.0, 1.0]), (Series("a, b", np.array([np.nan, 2.0]), "mm"),),
                  ("a",))
    assert charts.csv_text(c) == 'i,"a, b [mm]"\n0,\n1,2\n'
    assert charts.option(c)["series"][0]["data"] == [[0.0, None], [1.0, 2.0]]


def test_the_convergence_chart_keeps_the_tolerance_in_view() -> None:
    r = km.load("braccio")
    run = km.ik(r, km.fk(r, r.q_home + 0.2)[:3, 3], r.q_home, history=True)
    c = convergence_chart(run, 1e-3, "mm")
    h = run.history
    errors = [h[0]["error"]] + [s["error_after"] if s.get("accepted", True) else s["error"] for s in h]
    np.testing.assert_allclose(c.series[0].y, errors)
    opt = charts.option(c)
    assert opt["yAxis"][0]["type"] == "log"
    assert opt["yAxis"][0]["min"] <= 1e-3  # a log axis spans its data only: the tolerance line was off it
    assert [m["markLine"]["data"] for m in opt["series"] if m["name"].startswith("tolerance")] == [[{"yAxis": 0.001}]]


def test_an_exact_zero_error_stays_on_the_log_axis() -> None:
    c = ChartData("chart-x", "x", "i", np.array([0.0, 1.0]), (Series("e", np.array([3.0, 0.0])),), ("e",),
                  log_y=True)
    assert charts.option(c)["series"][0]["data"][1][1] == pytest.approx(3e-16)


TOOL_REPORT = {"rmse_train": [[0.3, 0.2], [0.1, 0.1], [0.05, 0.08]],
               "rmse_validation": [[0.3, 0.3], [0.1, 0.05], [0.2, 0.2]], "joints": ["M1", "M2"],
               "length_unit": "mm",
               "tool_validation": {"count": 200, "position_median": [9.0, 2.0, 3.0],
                                   "position_mean": [12.0, 3.0, 4.0], "orientation_median_deg": [5.0, 1.0, 2.0]}}


def test_the_training_curve_is_the_tool_error_per_epoch_with_the_epoch_kept() -> None:
    c = training_chart(TOOL_REPORT)
    assert [s.name for s in c.series] == ["position, median", "position, mean", "orientation, median"]
    assert c.y_names == ("tool position error [mm]", "tool orientation error [°]")
    assert c.series[2].axis == 1
    np.testing.assert_array_equal(c.x, [1, 2, 3])
    np.testing.assert_array_equal(c.series[0].y, [9.0, 2.0, 3.0])
    assert [(m.name, m.value, m.vertical) for m in c.marks] == [("kept: epoch 2", 2.0, True)]


def test_a_report_without_the_tool_history_draws_its_rmse() -> None:
    old = {k: v for k, v in TOOL_REPORT.items() if k != "tool_validation"}
    c = training_chart(old, "rad")
    assert [s.name for s in c.series] == ["M1 training", "M1 validation", "M2 training", "M2 validation"]
    assert c.y_names == ("RMSE [rad]",)
    with pytest.raises(VizError, match="rmse_train"):
        training_chart({"joints": ["M1"]})
    with pytest.raises(VizError, match="one number per epoch"):
        training_chart({**TOOL_REPORT, "tool_validation": {**TOOL_REPORT["tool_validation"], "position_mean": [1.0]}})


def test_the_histogram_counts_every_answer_and_marks_median_and_p95() -> None:
    e = np.random.default_rng(0).lognormal(0.0, 1.0, 500)
    c = histogram_chart(e, "mm")
    assert c.series[0].y[:-1].sum() == 500 and c.log_x
    assert [m.name for m in c.marks] == [f"median {np.median(e):.3g} mm", f"95th percentile {np.percentile(e, 95):.3g} mm"]
    with pytest.raises(VizError):
        histogram_chart(np.array([1.0, np.nan]), "mm")


@pytest.mark.parametrize("name, planar", [("planar-3r", True), ("braccio", False)])
def test_the_tool_path_chart_is_flat_for_a_planar_arm_and_3d_otherwise(name: str, planar: bool) -> None:
    r = km.load(name)
    tr = plan(r)
    p = km.fk(r, tr.q)[:, :3, 3]
    opt = charts.path_option(p, r.length_unit, planar, p[5])
    path = np.array(opt["series"][0]["data"], dtype=float)
    assert opt["series"][0]["type"] == ("line" if planar else "line3D")
    np.testing.assert_allclose(path, p[:, :2] if planar else p, **SENT)
    assert charts.path_patch(p[7], planar)["series"][0]["data"] == [[charts.rounded(v) for v in p[7, :path.shape[1]]]]
    tool = trajectory_charts(tr, r)[-1]
    assert [s.name for s in tool.series] == (["x", "y", "φ (heading)"] if planar else ["x", "y", "z"])
