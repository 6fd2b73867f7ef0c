"""The Plots tab: the current trajectory's joint values, rates, accelerations and torques, the
end-effector path, the convergence of the last IK solve, and the loaded learned IK model's
training curve and error histogram (`modelplots`) — the core's matplotlib figures
(`kinematica.viz.plots`), drawn on the server as SVG, each with a caption of its numbers.
Where a plot cannot be drawn, a sentence says why and how to get it.

The figures take ≈ 0.3–0.5 s each to draw, so they are built in a worker thread (a spinner
meanwhile) and remembered per trajectory and IK run (`BackgroundTab`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nicegui import ui

from . import figures, modelplots
from .background import BackgroundTab
from .panel import tag


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
            conv = figures.convergence_plot(run, robot) if why is None else None
            learned = modelplots.model_plots(loaded) if loaded is not None else []
            model_note = "" if loaded is not None else modelplots.NO_MODEL.format(robot=robot_name)
            return PlotsContent(plots, note, conv, why or "", learned, model_note)

        key = (id(traj), id(robot), id(run), refused, plan_note, id(loaded))
        return key, (traj, robot, run, loaded), work

    def show(self, content: PlotsContent) -> None:
        ui.label("Trajectory").classes("text-h6")
        if content.trajectory_note:
            tag(ui.label(content.trajectory_note), "plots-trajectory-note").classes("text-grey-9")
        if not content.trajectory:
            tag(ui.button("Go to the Simulator tab", icon="precision_manufacturing",
                          on_click=lambda: self.page.select("simulator")), "plots-go-simulator") \
                .props("outline")
        for plot in content.trajectory:
            self._figure(plot)
        ui.separator()
        ui.label("Convergence of the last IK solve").classes("text-h6")
        if content.convergence is not None:
            self._figure(content.convergence)
        else:
            tag(ui.label(content.convergence_note), "plots-convergence-note").classes("text-grey-9")
        ui.separator()
        ui.label("Learned IK model").classes("text-h6")
        if content.model_note:
            tag(ui.label(content.model_note), "plots-model-note").classes("text-grey-9")
        for plot in content.model:
            self._figure(plot)

    @staticmethod
    def _figure(plot: figures.Plot) -> None:
        with ui.column().classes("w-full gap-1"):
            if plot.url:
                tag(ui.image(plot.url), plot.key).classes("w-full max-w-4xl").props("no-spinner fit=contain")
            tag(ui.label(plot.caption), f"{plot.key}-caption").classes("text-sm text-grey-9")
