"""The Plan row of the Simulator tab's Workspace card: a collision-free path from where the arm
stands to a goal — the IK target or a pose of the list — found by `km.plan` in the workspace's
scene (or the arm alone), drawn as a swept trail (`trail`), and played.

Pressing Plan takes the query from the session (`planrun.request`: a copy of the scene) and
plans it in a worker thread (`run.io_bound`, as the Plots and Math tabs compute: the planner's
checks let the page's event loop run between them, so sliders and the view stay live). While it
runs a second press is refused in words, never queued. A path found becomes the session's
trajectory, as a pose list's plan is: the Poses card shows its verdict and offers its files, the
player plays it, the Plots tab charts it. A failure says the planner's reason word for word
(start in collision naming the pair, the goal unreachable or colliding, no path within the time
limit) and leaves nothing of an earlier path drawn or loaded: the pose list's plan goes back to
the player. So does a path whose scene changed (an obstacle moved) or that the pose list replaced.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from nicegui import run, ui

import kinematica as km

from . import planrun, playlist
from .fields import bounded_number
from .panel import STATUS_CLASSES, tag
from .state import PLANNERS, TIME_LIMIT_RANGE
from .tab import Host

NEUTRAL = "bg-grey-2 text-grey-8"


class PlanControl:
    """The Plan controls of one Simulator tab, kept across its rebuilds (with the plan in flight).
    `loaded(status, play)` is called after the session's trajectory changed here: a path found
    (status "ok", play it) or the pose list's plan given back (its status, not played)."""

    def __init__(self, host: Host, loaded: Callable[[str, bool], None]) -> None:
        self.host, self.loaded = host, loaded
        self.busy: planrun.Request | None = None  # the query being planned: a press meanwhile is refused
        self.planned: km.Trajectory | None = None  # the path this control put in the session, while it is there
        self.planned_key: tuple | None = None  # what it was planned for (`planrun.key`)
        self.words, self.kind = "", ""  # the verdict shown, and its look (a key of STATUS_CLASSES)
        self.goal = self.button = self.status = None

    # --- the controls (inside the Workspace card) --------------------------------------------------
    def card(self) -> None:
        s = self.host.session
        spec = s.path
        if s.trajectory is not self.planned:  # the tab was rebuilt: the pose list's plan is back
            self.planned = None
        choices = planrun.goal_choices(s)
        spec.goal = spec.goal if spec.goal in choices else "target"
        lo, hi = TIME_LIMIT_RANGE
        with ui.row().classes("w-full no-wrap gap-2 items-center"):
            self.goal = tag(ui.select(choices, value=spec.goal, label="plan a path to",
                                      on_change=lambda e: setattr(spec, "goal", e.value or "target")),
                            "path-goal").classes("grow").props("dense")
            tag(ui.select(PLANNERS, value=spec.planner, label="planner",
                          on_change=lambda e: setattr(spec, "planner", e.value)), "path-planner") \
                .classes("w-28").props("dense")
            tag(bounded_number("time limit", value=spec.time_limit, lo=lo, hi=hi, unit="s", step=0.5,
                               format="%.3g", on_change=lambda e: self.set_time_limit(e.value)), "path-time") \
                .classes("w-24").props("dense").tooltip("the planner's time limit, s (simplification included)")
            self.button = tag(ui.button("Plan", icon="route", on_click=self.press), "path-plan") \
                .props("unelevated dense no-caps").tooltip(
                    "a collision-free path from where the arm is to the goal, drawn as a trail and played")
        self.status = tag(ui.label(""), "path-status")
        self._say(self.words, self.kind)
        self._show_busy()

    def set_time_limit(self, value: float | None) -> None:
        lo, hi = TIME_LIMIT_RANGE
        if value is not None and lo <= value <= hi:  # out of range while typing: the last good value stays
            self.host.session.path.time_limit = float(value)

    def goals_changed(self) -> None:
        """The pose list changed: the goal select offers its poses (a goal gone falls back to the target)."""
        s = self.host.session
        choices = planrun.goal_choices(s)
        s.path.goal = s.path.goal if s.path.goal in choices else "target"
        if self.goal is not None and not self.goal.is_deleted:
            self.goal.set_options(choices, value=s.path.goal)

    def _say(self, words: str, kind: str) -> None:
        self.words, self.kind = words, kind
        if self.status is not None and not self.status.is_deleted:
            self.status.set_text(words)
            self.status.classes(replace="w-full text-sm rounded px-3 py-2 "
                                + (STATUS_CLASSES.get(kind, "") if kind else NEUTRAL if words else "hidden"))

    def _show_busy(self) -> None:
        if self.button is not None and not self.button.is_deleted:
            self.button.set_text("Planning…" if self.busy else "Plan")
            self.button.props(f"icon={'hourglass_top' if self.busy else 'route'}")

    # --- pressing Plan ----------------------------------------------------------------------------
    async def press(self) -> None:
        if self.busy is not None:
            ui.notify(f"Already planning ({PLANNERS[self.busy.planner]}, up to {self.busy.time_limit:g} s): "
                      "this press is refused.", type="warning")
            return
        t0 = time.perf_counter()
        self.put_away()  # the last path goes now: nothing stale is drawn or played while this one is planned
        try:
            req = planrun.request(self.host.session)
        except ValueError as e:  # no such pose, a target field that makes no target
            self._say(f"Not planned: {e}.", "error")
            return
        self.busy = req
        self._say(f"Planning ({PLANNERS[req.planner]} to {req.goal_words}, up to {req.time_limit:g} s)…", "")
        self._show_busy()
        try:
            out = await run.io_bound(planrun.run, req)
        finally:
            self.busy = None
            self._show_busy()
        if out is not None:  # (None: the server is shutting down)
            self._show(req, out, t0)

    def _show(self, req: planrun.Request, out: planrun.Outcome, t0: float) -> None:
        s = self.host.session
        if planrun.key(s) != req.key:
            self._say("Not shown: the robot, the scene or the arm's seat changed while planning; "
                      "press Plan again.", "warning")
            return
        path = out.trajectory
        if path is None:  # not planned, or not timed
            self._say(out.words, "error")
            return
        self.planned, self.planned_key = path, req.key
        s.trajectory, s.trajectory_note, s.t = path, out.words, 0.0
        self.host.view.show_trail(*planrun.trail(s.robot, path))
        # said before the hand-over: a path taken away meanwhile (`sync`) then says so last
        self._say(f"{out.words} Drawn {time.perf_counter() - t0:.2f} s after the press.", "ok")
        self.loaded("ok", True)

    # --- keeping nothing stale ----------------------------------------------------------------------
    def put_away(self) -> None:
        """Take the last path away: its trail, and its trajectory from the player (the pose
        list's plan goes back)."""
        self.host.view.show_trail(None)
        planned, self.planned = self.planned, None
        if planned is not None and self.host.session.trajectory is planned:
            self.loaded(playlist.replan(self.host.session), False)

    def sync(self, what: set[str]) -> None:
        """The session changed in `what`: the goals follow the pose list, and a path no longer
        loaded (the pose list re-planned) or planned in a scene that has changed since is taken away."""
        if "poses" in what:
            self.goals_changed()
        if self.planned is None:
            return
        s = self.host.session
        if s.trajectory is self.planned and planrun.key(s) == self.planned_key:
            return
        why = ("the pose list's plan replaced it" if s.trajectory is not self.planned
               else "the scene changed since it was planned")
        self.put_away()
        self._say(f"The planned path was taken away: {why}.", "")
