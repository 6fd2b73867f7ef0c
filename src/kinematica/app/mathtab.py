"""The Math tab: the explain engine's step-by-step mathematics for the current state — forward
kinematics and the Jacobian at the current q, the last IK solve, and the dynamics at q — with
the link matrices, their products and the closed forms rendered as MathML (`mathdoc`) — and
the loaded learned IK model's answer to the target, layer by layer (`explain.anfis`).

One topic is shown at a time (the `math-topic` selector). Building an explanation costs
≈ 0.1–0.35 s (SymPy's closed forms; measured for braccio, puma560 and kuka-kr6-r900), so it
runs in a worker thread behind a spinner, and each (robot, topic, q) or IK run is remembered:
flipping between topics, or back to an earlier q, is immediate.
"""

from __future__ import annotations

import dataclasses

from nicegui import ui

from .background import BackgroundTab
from .learned import METHOD_LABEL
from .mathdoc import CSS, TOPICS, topic_html
from .panel import tag
from .state import METHODS, TargetSpec


class MathTab(BackgroundTab):
    name = "math"

    def __init__(self, page) -> None:
        ui.add_css(CSS)
        with ui.row().classes("items-center gap-4"):
            ui.label("Show the mathematics of").classes("text-sm text-grey-8")
            self.topic = tag(ui.toggle(TOPICS, value="fk", on_change=lambda: self.update({"view"})),
                             "math-topic").props("no-caps dense")
        super().__init__(page)
        self._ik_seen = None  # the IK run the target below belongs to
        self._ik_target: TargetSpec | None = None

    def update(self, what: set[str]) -> None:
        s = self.page.session
        if s.ik_run is not self._ik_seen:  # a new solve: keep the target it solved for, since
            self._ik_seen = s.ik_run       # the user may edit the target fields afterwards
            self._ik_target = dataclasses.replace(s.target) if s.ik_run is not None else None
        super().update(what)

    def job(self):
        s = self.page.session
        topic, robot, q = self.topic.value, s.robot, s.q.copy()
        if topic == "anfis":
            return self._anfis_job()
        if topic == "ik":
            run, start, spec = s.ik_run, s.ik_start, self._ik_target
            if run is None or start is None or spec is None:
                why = ("No IK solve yet: in the Simulator tab switch the mode to IK, set a target "
                       "and press Solve.")
                return ("ik", None), None, lambda: ("ik", None, why)
            if run.method == "anfis":  # the model's answer alone: its layers are the steps
                loaded = s.ik_model
                if loaded is None:  # (the state keeps the model an ANFIS Solve ran: Session.ik_model)
                    raise RuntimeError("an ANFIS Solve without the model it ran")
                words = (f"The last Solve ({METHOD_LABEL}, {loaded.name}) of the target "
                         f"{_target_words(spec, robot.length_unit)}, layer by layer.")
                return (("ik", id(robot), id(run)), (robot, run, loaded),
                        lambda: ("ik", topic_html(robot, "anfis", q=q, target=spec.build(), model=loaded.model),
                                 words))
            model = s.ik_model
            seeded = model is not None
            words = (f"The last Solve ({METHODS.get(run.method, run.method)}) of the target "
                     f"{_target_words(spec, robot.length_unit)}, explained from the joint values it "
                     "started at" + (f" — the answer of the ANFIS model {model.name}" if seeded else "")
                     + " (the solver is run again, step by step).")
            return (("ik", id(robot), id(run)), (robot, run),
                    lambda: ("ik", topic_html(robot, "ik", q=q, target=spec.build(), q0=start,
                                              method=run.method, limits="wrap" if seeded else "auto"), words))
        if topic == "dynamics" and not robot.has_inertials:
            return ("dynamics", id(robot)), robot, lambda: ("dynamics", None, (
                f"No dynamics: {robot.name} has no inertial parameters (mass, centre of mass, "
                "inertia) for its links."))
        words = {"fk": "Forward kinematics at the current joint values.",
                 "jacobian": "The Jacobian at the current joint values.",
                 "dynamics": "Joint torques by Newton–Euler at the current joint values, at rest."}[topic]
        return ((topic, id(robot), q.tobytes()), robot,
                lambda: (topic, topic_html(robot, topic, q=q), words))

    def _anfis_job(self):
        """The loaded model's answer to the target in the IK fields, layer by layer."""
        s = self.page.session
        loaded, robot, spec = s.model, s.robot, dataclasses.replace(s.target)
        if loaded is None:
            return ("anfis", None), None, lambda: ("anfis", None, (
                f"No learned model for {robot.name}: in the Simulator tab's IK card press “model” and load a "
                "model file made by `kinematica learn ik`."))
        words = (f"The answer of the ANFIS model {loaded.name} to the target in the IK fields, "
                 f"{_target_words(spec, robot.length_unit)}, layer by layer.")

        def work():
            try:
                target = spec.build()
                return "anfis", topic_html(robot, "anfis", q=s.q, target=target, model=loaded.model), words
            except ValueError as e:  # a target the model cannot read (no heading, no pitch …)
                return "anfis", None, f"The model cannot answer this target: {e}"
        key = ("anfis", id(robot), id(loaded), spec.kind, spec.position, spec.rpy_deg, spec.pitch_deg)
        return key, (robot, loaded), work

    def show(self, result: tuple[str, str | None, str]) -> None:
        topic, body, words = result
        note = tag(ui.label(words), f"math-{topic}-note").classes("text-sm text-grey-9")
        if body is None:
            note.classes("text-base")
            return
        tag(ui.html(body), f"math-{topic}").classes("km-math w-full max-w-5xl")


def _target_words(spec: TargetSpec, unit: str) -> str:
    p = ", ".join(f"{v:g}" for v in spec.position)
    if spec.kind == "pose":
        return f"p = ({p}) {unit}, roll-pitch-yaw ({', '.join(f'{v:g}' for v in spec.rpy_deg)})°"
    if spec.kind == "approach":
        return f"p = ({p}) {unit}, pitch {spec.pitch_deg:g}°"
    return f"p = ({p}) {unit}"
