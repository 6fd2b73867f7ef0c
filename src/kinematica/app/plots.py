"""The Plots tab: the current trajectory's joint values, rates, accelerations and torques, the
tool's position and path, the convergence of the last IK solve, and the loaded learned IK
model's training curve and error histogram (`modelplots`) — interactive charts (ECharts, which
NiceGUI bundles: `charts`), each with a CSV download and a caption of its numbers. Where a
chart cannot be drawn, a sentence says why and how to get it.

While the player runs, a line at the player's time moves over the charts against time and a
point along the tool's path (`follow`): only that small part of each chart's option is sent,
at most `RATE` times a second and one update at a time (the next waits until the page has
drawn the last), and only while this tab is shown (it catches up when shown).

The charts' data (torques by Newton–Euler, a learned model's errors on fresh targets) are
computed in a worker thread (a spinner meanwhile) and remembered per trajectory, IK run and
model (`BackgroundTab`); a change none of them depends on (a new q) keeps the charts as drawn.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field

import numpy as np
from nicegui import background_tasks, ui

import kinematica as km

from . import charts, figures, modelplots
from .background import BackgroundTab
from .chartdata import ChartData
from .panel import tag
from .playlist import q_at

# Time-line updates: at most RATE a second (a third of the player's 30 frames/s), and never more
# than the browser draws — the next waits until it has drawn the last (`_send`). Each update
# re-renders whole charts: measured in headless Chromium on this 2-core machine under load,
# 15–30 ms per chart of 5 joints × 121 samples (the same without the zoom slider, symbols or
# legend: it is ECharts' update pipeline). Sent without that back-pressure, 6 charts at 30 Hz
# left a page seconds behind the server until NiceGUI reloaded it ("outbox rewind failed").
RATE = 10.0
WAIT = 2.0  # s: an update the page has not confirmed by then counts as drawn (a stalled page)


@dataclass(frozen=True)
class PlotsContent:
    """What the tab shows: the trajectory plots (or why there are none) and the convergence plot
    (or why there is none)."""

    trajectory: list[figures.Plot]
    trajectory_note: str
    convergence: figures.Plot | None
    convergence_note: str
    model: list[figures.Plot] = field(default_factory=list)  # the learned model's figures
    model_note: str = ""


class PlotsTab(BackgroundTab):
    name = "plots"

    def __init__(self, page) -> None:
        super().__init__(page)
        # The trajectory's plots, kept apart from the IK run's: a new solve redraws only its own.
        self._drawn: tuple = (None, None, [])
        self._timed: list[ui.echart] = []  # the charts against the trajectory's time
        self._path: ui.echart | None = None  # the tool's path, with its point at the player's time
        self._planar = False
        self._sent = (-math.inf, math.nan)  # (time.monotonic(), t) of the last time-line update
        self._wanted = 0.0  # the time the line should show
        self._busy = False  # an update is on its way to the page

    def _trajectory_plots(self, traj, robot) -> list[figures.Plot]:
        old_traj, old_robot, shown = self._drawn
        if old_traj is traj and old_robot is robot:
            return shown
        shown = figures.trajectory_plots(traj, robot)
        self._drawn = (traj, robot, shown)
        return shown

    def job(self):
        s = self.page.session
        traj, robot, run = s.trajectory, s.robot, s.ik_run
        refused = s.message if run is None and s.status == "error" else ""
        plan_note = s.trajectory_note
        loaded, robot_name = s.model, s.robot.name

        def work() -> PlotsContent:
            plots = self._trajectory_plots(traj, robot) if traj is not None else []
            note = plan_note if traj is not None else figures.HOW_TO_PLAN + (f" ({plan_note})" if plan_note else "")
            why = figures.convergence_note(run, refused)
            conv = figures.convergence_plot(run, robot) if run is not None and why is None else None
            learned = modelplots.model_plots(loaded) if loaded is not None else []
            model_note = "" if loaded is not None else modelplots.NO_MODEL.format(robot=robot_name)
            return PlotsContent(plots, note, conv, why or "", learned, model_note)

        key = (id(traj), id(robot), id(run), refused, plan_note, id(loaded))
        return key, (traj, robot, run, loaded), work

    def show(self, result: PlotsContent) -> None:
        self._timed, self._path, self._sent = [], None, (-math.inf, math.nan)
        ui.label("Trajectory").classes("text-h6")
        if result.trajectory_note:
            tag(ui.label(result.trajectory_note), "plots-trajectory-note").classes("text-grey-9")
        if not result.trajectory:
            tag(ui.button("Go to the Simulator tab", icon="precision_manufacturing",
                          on_click=lambda: self.page.select("simulator")), "plots-go-simulator") \
                .props("outline")
        for plot in result.trajectory:
            self._group(plot)
        ui.separator()
        ui.label("Convergence of the last IK solve").classes("text-h6")
        if result.convergence is not None:
            self._group(result.convergence)
        else:
            tag(ui.label(result.convergence_note), "plots-convergence-note").classes("text-grey-9")
        ui.separator()
        ui.label("Learned IK model").classes("text-h6")
        if result.model_note:
            tag(ui.label(result.model_note), "plots-model-note").classes("text-grey-9")
        for plot in result.model:
            self._group(plot)

    def _group(self, plot: figures.Plot) -> None:
        t = self.page.session.t
        with tag(ui.column(), plot.key).classes("w-full gap-1"):
            for data in plot.charts:
                chart = self._chart(data, charts.option(data, t))
                if data.timed:
                    self._timed.append(chart)
            if plot.path is not None:
                p = plot.path
                self._planar = p.planar
                self._path = tag(ui.echart(charts.path_option(p.points, p.unit, p.planar, self._tool_at(t))),
                                 "chart-path").classes("w-full max-w-5xl h-96")
            tag(ui.label(plot.caption), f"{plot.key}-caption").classes("text-sm text-grey-9")

    @staticmethod
    def _chart(data: ChartData, opt: dict) -> ui.echart:
        with ui.column().classes("w-full max-w-5xl gap-0"):
            chart = tag(ui.echart(opt), data.key).classes("w-full h-72")
            name = data.key.removeprefix("chart-") + ".csv"
            tag(ui.button("CSV", icon="download",
                          on_click=lambda: ui.download.content(charts.csv_text(data), name, "text/csv")),
                f"{data.key}-csv").props("flat dense size=sm").classes("self-end -mt-2") \
                .tooltip(f"download the numbers of this chart as {name}")
        return chart

    def _tool_at(self, t: float) -> np.ndarray | None:
        s = self.page.session
        if s.trajectory is None:
            return None
        return km.fk(s.robot, q_at(s.trajectory, t))[:3, 3]

    # --- the player's time on the charts ----------------------------------------------------
    def shown(self) -> None:
        super().shown()
        self.follow(self.page.session.t, force=True)  # the player may have moved while away

    def kept(self) -> None:
        self.follow(self.page.session.t, force=True)

    def follow(self, t: float, force: bool = False) -> None:
        """Move the time line of the charts against time, and the tool's point on its path, to
        `t` (s): the small option patch only (`charts.time_patch`), never the series; only while
        the tab is shown, at most RATE times a second, one update in flight (`_send`)."""
        if self.page.current != self.name or not (self._timed or self._path is not None):
            return
        self._wanted = t
        last, last_t = self._sent
        if self._busy or (not force and (t == last_t or time.monotonic() - last < 1.0 / RATE)):
            return  # an update in flight sends the latest t when the page has drawn its own
        self._busy = True
        background_tasks.create(self._send(), name="plots time line")

    async def _send(self) -> None:
        """Send the wanted time until the page has drawn the latest (each `setOption` answers
        once the chart has re-rendered), RATE a second at most."""
        try:
            while not self.box.is_deleted:
                t = self._wanted
                self._sent = (time.monotonic(), t)
                await asyncio.gather(*self._patch(t), return_exceptions=True)  # a slow page gets fewer
                if self._wanted == t:
                    return
                await asyncio.sleep(max(0.0, self._sent[0] + 1.0 / RATE - time.monotonic()))
        finally:
            self._busy = False

    def _patch(self, t: float) -> list:
        """The charts' options at `t` (kept on the server too, for a redraw) and the calls that
        merge the same patch into the charts in the page."""
        calls = []
        patch = charts.time_patch(t)
        for chart in self._timed:
            chart.options["series"][-1]["markLine"]["data"] = patch["series"][0]["markLine"]["data"]
            calls.append(chart.run_chart_method("setOption", patch, timeout=WAIT))
        tool = self._tool_at(t)
        if self._path is not None and tool is not None:
            patch = charts.path_patch(tool, self._planar)
            self._path.options["series"][-1]["data"] = patch["series"][0]["data"]
            calls.append(self._path.run_chart_method("setOption", patch, timeout=WAIT))
        return calls
