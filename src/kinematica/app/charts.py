"""The Plots tab's charts as ECharts options (NiceGUI's `ui.echart`, bundled with NiceGUI: no
CDN) and as CSV — pure functions, data in, dict or text out, testable without a browser.

Every chart reads values on hover (an axis tooltip), zooms (mouse wheel and drag inside, a
slider under it, the toolbox's box zoom and restore), hides and shows a series by its legend
entry, and saves itself as PNG (the toolbox's saveAsImage); the CSV is written here, from the
same numbers. A chart over the trajectory's time carries a vertical line at the player's time;
`time_patch(t)` is the small option that moves it (merged into the live chart by the series'
id), so playback never resends the series.

Numbers go to the browser rounded to `DIGITS` significant digits (what a tooltip can show; the
CSV keeps full precision); NaN (no value: a step not rejected, an iteration without λ) is null,
a gap in the line.

>>> import numpy as np
>>> from kinematica.app.chartdata import ChartData, Series
>>> c = ChartData("chart-q", "joint values", "t [s]", np.array([0.0, 1.0]),
...               (Series("J1", np.array([10.0, 20.0]), "°"),), ("q [°]",), timed=True)
>>> option(c, t=0.5)["series"][0]["data"]
[[0.0, 10.0], [1.0, 20.0]]
>>> time_patch(0.5)
{'series': [{'id': 'now', 'markLine': {'data': [{'xAxis': 0.5}]}}]}
>>> print(csv_text(c), end="")
t [s],J1 [°]
0,10
1,20
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

import numpy as np

from .chartdata import ChartData, Mark, Series

DIGITS = 6  # significant digits sent to the browser: more than a tooltip shows, far less than a float
NOW = "now"  # the id of the series whose vertical line is the player's time
NOW_COLOUR = "#fb8c00"  # the page's accent colour
MARK_COLOURS = ("#555555", "#c0143c", "#8c564b")  # apart from the series' palette
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#7f7f7f", "#000000")


def rounded(v: float) -> float | None:
    """`v` to DIGITS significant digits; None for NaN or ±inf (a gap)."""
    v = float(v)
    return float(f"{v:.{DIGITS}g}") if math.isfinite(v) else None


def _points(x: np.ndarray, y: np.ndarray, floor: float | None = None) -> list[list[float | None]]:
    if floor is not None:  # a log axis has no place for zero or below: such values sit on the floor
        y = np.where(np.isfinite(y) & (y <= floor), floor, y)
    return [[rounded(a), rounded(b)] for a, b in zip(x, y, strict=True)]


def _log_floor(c: ChartData, axis: int) -> float | None:
    """The smallest value drawn on a log y axis: 1e-16 of the axis's largest (as the core's
    convergence figure does), so an exact zero stays on the chart."""
    if not c.log_y:
        return None
    values = np.concatenate([s.y[np.isfinite(s.y)] for s in c.series if s.axis == axis] or [np.zeros(0)])
    top = float(values.max()) if values.size else 1.0
    return 1e-16 * max(top, 1e-300)


def _series(c: ChartData, k: int, s: Series) -> dict[str, Any]:
    colour = PALETTE[k % len(PALETTE)]
    out: dict[str, Any] = {"id": f"s{k}", "name": s.name, "type": "line", "yAxisIndex": s.axis,
                           "data": _points(c.x, s.y, _log_floor(c, s.axis)), "color": colour,
                           "showSymbol": len(c.x) <= 60, "symbolSize": 5, "connectNulls": False,
                           "lineStyle": {"width": 1.8}, "emphasis": {"focus": "series"}}
    if s.style == "dashed":
        out["lineStyle"] = {"width": 1.4, "type": "dashed"}
    elif s.style == "points":
        out.update(type="scatter", symbol="diamond", symbolSize=9)
    elif s.style == "step":
        out.update(step="end", showSymbol=False, areaStyle={"opacity": 0.35})
    return out


def _mark(k: int, m: Mark) -> dict[str, Any]:
    """A named straight line: a series without points carrying one markLine, so its legend
    entry hides and shows it like any series."""
    colour = MARK_COLOURS[k % len(MARK_COLOURS)]
    return {"id": f"m{k}", "name": m.name, "type": "line", "data": [], "color": colour,
            "markLine": {"silent": True, "symbol": "none", "label": {"show": False},
                         "lineStyle": {"color": colour, "type": "dotted" if m.vertical else "dashed", "width": 1.4},
                         "data": [{"xAxis" if m.vertical else "yAxis": rounded(m.value)}]}}


def _now(t: float) -> dict[str, Any]:
    return {"id": NOW, "name": NOW, "type": "line", "data": [], "silent": True, "tooltip": {"show": False},
            "markLine": {"silent": True, "symbol": "none", "animation": False,
                         "label": {"formatter": "{c} s", "color": NOW_COLOUR},
                         "lineStyle": {"color": NOW_COLOUR, "type": "solid", "width": 1.5},
                         "data": [{"xAxis": rounded(t)}]}}


def _axes(c: ChartData) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lo, hi = float(np.min(c.x)), float(np.max(c.x))
    x: dict[str, Any] = {"type": "log" if c.log_x else "value", "name": c.x_name, "nameLocation": "middle",
                         "nameGap": 26, "min": rounded(lo), "max": rounded(hi if hi > lo else lo + 1)}
    if c.integer_x:
        x["minInterval"] = 1
    y = [{"type": "log" if c.log_y else "value", "name": name, "nameLocation": "middle", "nameGap": 52,
          "scale": not c.log_y, "splitLine": {"show": k == 0}} for k, name in enumerate(c.y_names)]
    if c.log_y:  # a log axis spans its data only: reach down to the marks too (the tolerance)
        low = [m.value for m in c.marks if not m.vertical and m.value > 0]
        data = [s.y[np.isfinite(s.y) & (s.y > 0)] for s in c.series if s.axis == 0]
        lowest = min([float(v.min()) for v in data if v.size] + low, default=None)
        if low and lowest is not None:
            y[0]["min"] = float(10.0 ** math.floor(math.log10(lowest)))
    return x, y


def option(c: ChartData, t: float | None = None) -> dict[str, Any]:
    """The ECharts option of one chart; `t` places the player's line on a timed chart."""
    x_axis, y_axes = _axes(c)
    series = [_series(c, k, s) for k, s in enumerate(c.series)] + [_mark(k, m) for k, m in enumerate(c.marks)]
    if c.timed:
        series.append(_now(c.x[0] if t is None else t))
    right = 72 if len(y_axes) > 1 else 28
    return {
        "animation": False,
        "title": {"text": c.title, "left": 8, "top": 4, "textStyle": {"fontSize": 14, "fontWeight": "normal"}},
        "tooltip": {"trigger": "axis", "axisPointer": {"type": "line"}, "confine": True},
        "legend": {"type": "scroll", "top": 26, "left": 8, "right": 120,
                   "data": [s.name for s in c.series] + [m.name for m in c.marks]},
        "toolbox": {"right": 12, "top": 2, "feature": {
            "dataZoom": {"yAxisIndex": "none", "title": {"zoom": "zoom a box", "back": "zoom back"}},
            "restore": {"title": "reset zoom"},
            "saveAsImage": {"name": c.key.removeprefix("chart-"), "pixelRatio": 2, "title": "save as PNG"}}},
        "grid": {"left": 76, "right": right, "top": 64, "bottom": 76},
        "dataZoom": [{"type": "inside", "xAxisIndex": 0, "filterMode": "none"},
                     {"type": "slider", "xAxisIndex": 0, "height": 16, "bottom": 8, "filterMode": "none"}],
        "xAxis": x_axis,
        "yAxis": y_axes,
        "series": series,
    }


def time_patch(t: float) -> dict[str, Any]:
    """The part of a timed chart's option that moves the player's line to `t` (seconds):
    ECharts merges it into the series with the same id, the others untouched."""
    return {"series": [{"id": NOW, "markLine": {"data": [{"xAxis": rounded(t)}]}}]}


def csv_text(c: ChartData) -> str:
    """The chart's numbers as CSV: the x column, then one column per series (its unit in the
    heading), full precision; an empty cell where a series has no value."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([c.x_name] + [s.name if not s.unit or s.unit in s.name else f"{s.name} [{s.unit}]"
                             for s in c.series])
    for i, x in enumerate(c.x):
        w.writerow([f"{x:.17g}"] + [f"{s.y[i]:.17g}" if np.isfinite(s.y[i]) else "" for s in c.series])
    return out.getvalue()


def path_option(p: np.ndarray, unit: str, planar: bool, now: np.ndarray | None = None) -> dict[str, Any]:
    """The tool's path itself: (T, 3) positions in the robot's length unit, start and end
    marked, and a point at the tool's position at the player's time (`now`; `path_patch` moves
    it). A planar robot's path is drawn in its plane (x, y) on a 2-D chart, any other in 3-D
    (echarts-gl, which NiceGUI bundles; drag to turn it, wheel to zoom)."""
    p = np.asarray(p, dtype=float)
    dims = 2 if planar else 3
    here = p[0] if now is None else np.asarray(now, dtype=float)

    def pts(a: np.ndarray) -> list[list[float | None]]:
        return [[rounded(v) for v in row[:dims]] for row in np.atleast_2d(a)]

    kind, dot = ("line", "scatter") if planar else ("line3D", "scatter3D")
    series = [{"id": "path", "name": "path", "type": kind, "data": pts(p), "color": "#d95f02",
               "lineStyle": {"width": 3 if not planar else 2}},
              {"id": "start", "name": "start", "type": dot, "data": pts(p[0]), "symbolSize": 12, "color": "#2ca02c"},
              {"id": "end", "name": "end", "type": dot, "data": pts(p[-1]), "symbol": "rect", "symbolSize": 11,
               "color": "#c0143c"},
              {"id": NOW, "name": "now", "type": dot, "data": pts(here), "symbolSize": 12, "color": NOW_COLOUR}]
    if planar:
        series[0]["showSymbol"] = False
    opt: dict[str, Any] = {
        "animation": False,
        "title": {"text": "path of the tool" + ("" if planar else f" [{unit}]"), "left": 8, "top": 4, "textStyle": {"fontSize": 14, "fontWeight": "normal"}},
        "tooltip": {"trigger": "item"},
        "legend": {"top": 26, "left": 8, "data": ["path", "start", "end", "now"]},
        "toolbox": {"right": 12, "top": 2, "feature": {
            "saveAsImage": {"name": "tool-path", "pixelRatio": 2, "title": "save as PNG"}}},
        "series": series,
    }
    names = [f"{a} [{unit}]" for a in "xyz"] if planar else list("xyz")  # 3-D: the unit in the title
    if planar:
        lo, hi = p[:, :2].min(axis=0), p[:, :2].max(axis=0)
        half = max(float((hi - lo).max()), 1e-9) * 0.58  # equal scales, the path in the middle
        mid = (lo + hi) / 2
        opt.update(grid={"left": 76, "right": 28, "top": 64, "bottom": 56},
                   xAxis={"type": "value", "name": names[0], "nameLocation": "middle", "nameGap": 26,
                          "min": rounded(mid[0] - half), "max": rounded(mid[0] + half)},
                   yAxis={"type": "value", "name": names[1], "nameLocation": "middle", "nameGap": 52,
                          "min": rounded(mid[1] - half), "max": rounded(mid[1] + half)})
        opt["toolbox"]["feature"].update({"dataZoom": {"title": {"zoom": "zoom a box", "back": "zoom back"}},
                                          "restore": {"title": "reset zoom"}})
        opt["dataZoom"] = [{"type": "inside", "xAxisIndex": 0, "filterMode": "none"},
                           {"type": "inside", "yAxisIndex": 0, "filterMode": "none"}]
    else:
        opt.update(grid3D={"viewControl": {"distance": 160}, "boxWidth": 100, "boxDepth": 100, "boxHeight": 100,
                           "axisLabel": {"textStyle": {"fontSize": 11}}},
                   xAxis3D={"type": "value", "name": names[0]}, yAxis3D={"type": "value", "name": names[1]},
                   zAxis3D={"type": "value", "name": names[2]})
    return opt


def path_patch(now: np.ndarray, planar: bool) -> dict[str, Any]:
    """The part of the path chart's option that moves the tool's point to `now` (x, y, z)."""
    return {"series": [{"id": NOW, "data": [[rounded(v) for v in np.asarray(now, dtype=float)[:2 if planar else 3]]]}]}
