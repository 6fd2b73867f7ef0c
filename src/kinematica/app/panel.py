"""The simulator's controls: joint sliders with numeric fields, the end-effector pose readout,
and the IK panel (target fields, method, Solve, the verdict in words, the solutions list).

Each panel is built inside the current NiceGUI container, shows a `Session`, and reports what
the user did through the callbacks it is given; it never changes the session itself.
Elements carry a marker (`.mark`, for NiceGUI's user fixture) and the same `data-testid`
attribute (for the browser tests).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

import numpy as np
from nicegui import ui
from nicegui.element import Element

from . import learned
from .fields import bounded_number
from .ghosts import caption, drawn_and_listed, same_drawing
from .scene import GHOSTS, OUTSIDE
from .state import (
    METHODS,
    FieldError,
    Readout,
    Session,
    TargetSpec,
    check_joint,
    joint_unit,
    slider_range,
    target_kinds,
)

STATUS_CLASSES = {"ok": "bg-green-1 text-green-10", "warning": "bg-amber-1 text-brown-10",
                  "error": "bg-red-1 text-red-10", "": "hidden"}


AnyElement = TypeVar("AnyElement", bound=Element)  # `tag` gives back the element it was given


def tag(element: AnyElement, name: str) -> AnyElement:
    """Mark an element for the user fixture and the browser tests alike."""
    return element.mark(name).props(f'data-testid="{name}"')


def fmt(value: float, digits: int) -> str:
    """A number for the readout: fixed digits, ASCII minus, no negative zero."""
    return f"{float(value) + 0.0:.{digits}f}".replace("-0." + "0" * digits, "0." + "0" * digits)


def length_digits(unit: str) -> int:
    return 2 if unit == "mm" else 4


# Quasar emits a click's value twice — on the press and again on the release, while the slider
# (loopback) still shows the value the server has not answered yet — and NiceGUI's throttle sends
# the second as its trailing event: two events a click, each parsed and dispatched by the server
# for nothing. The page sends a value only if it is not the one it last sent since the server's
# value last changed (`element` and `id` are in scope where NiceGUI evaluates a handler).
ONCE_PER_VALUE = """(...args) => {
    const sent = (window.__kinematicaSent ??= {}), base = element.props["model-value"], last = sent[id];
    if (last && last.value === args[0] && last.base === base) return;
    sent[id] = {value: args[0], base: base};
    emit(...args);
}"""


def once_per_value(slider: ui.slider) -> ui.slider:
    """`slider`, its page sending each value once (ONCE_PER_VALUE)."""
    for listener in slider._event_listeners.values():  # (NiceGUI's own value listener, made in its __init__)
        if listener.type == "update:modelValue":  # (NiceGUI keeps the type camel-cased)
            listener.js_handler = ONCE_PER_VALUE
    return slider


class JointPanel:
    """One row per joint: name, slider, numeric field (degrees, or the length unit). A value
    reaches `on_change` only as `state.check_joint` takes it — the rule project and pose files
    are read by too."""

    def __init__(self, session: Session, on_change: Callable[[int, float], None]) -> None:
        robot = self.robot = session.robot
        self.on_change = on_change
        self.sliders: list[ui.slider] = []
        self.numbers: list[ui.number] = []
        self._quiet = False
        values = session.display_q()
        self.shown = np.array(values, dtype=float)
        self.formats = ["%.2f" if r else "%.4g" for r in robot.revolute]
        self.spans = [slider_range(robot, i) for i in range(robot.n)]
        for i, name in enumerate(robot.joint_names):
            lo, hi = self.spans[i]
            unit = joint_unit(robot, i)
            step = 1.0 if robot.revolute[i] else float(10 ** np.floor(np.log10(max(hi - lo, 1e-9)) - 2))
            with ui.row().classes("w-full items-center no-wrap gap-2 h-9"):
                ui.label(name).classes("w-32 shrink-0 text-sm truncate").tooltip(
                    f"{name}: {lo:g} … {hi:g} {unit}")
                slider = tag(once_per_value(ui.slider(min=lo, max=hi, step=step, value=float(values[i]),
                                                      on_change=lambda e, i=i: self._changed(i, e.value))),
                             f"joint-{i + 1}-slider").classes("grow").props("label")
                number = tag(bounded_number(value=round(float(values[i]), 4), lo=lo, hi=hi, unit=unit,
                                            step=step / 10, format=self.formats[i], suffix=unit,
                                            on_change=lambda e, i=i: self._changed(i, e.value)),
                             f"joint-{i + 1}-number").classes("w-28 shrink-0").props("dense outlined hide-bottom-space")
            self.sliders.append(slider)
            self.numbers.append(number)

    def _changed(self, i: int, value: float | None) -> None:
        if self._quiet or value is None or self._echo(i, float(value)):
            return
        try:
            value = check_joint(self.robot, i, value, span=self.spans[i])
        except FieldError:
            return  # typed past the range: the field puts itself back in it on blur, and reports that
        self.on_change(i, value)

    def _echo(self, i: int, value: float) -> bool:
        """Whether `value` is only the field giving back what it shows: a number field rounds
        itself to its format when it loses focus, which is not the user moving the joint (and
        must not stop a playback)."""
        shown = self.shown[i]
        return abs(value - shown) < 1e-9 or value == float(self.formats[i] % shown)

    @contextmanager
    def quiet(self):
        """Set values without reporting them back as user changes."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def show(self, values: np.ndarray) -> None:
        self.shown = np.array(values, dtype=float)
        with self.quiet():
            for slider, number, v in zip(self.sliders, self.numbers, values, strict=True):
                if slider.value is None or abs(slider.value - v) > 1e-9:
                    slider.value = float(v)
                if number.value is None or abs(number.value - v) > 1e-6:
                    number.value = round(float(v), 4) + 0.0  # never "-0.00"


class ReadoutPanel:
    """The end-effector pose: x, y, z in the length unit, roll, pitch, yaw in degrees, and the
    singularity verdict in words."""

    NAMES = ("x", "y", "z", "roll", "pitch", "yaw")

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.values: dict[str, ui.label] = {}
        with ui.grid(columns=3).classes("w-full gap-x-4 gap-y-1"):
            for name in self.NAMES:
                with ui.column().classes("gap-0"):
                    ui.label(name).classes("text-xs text-grey-7")
                    with ui.row().classes("items-baseline gap-1 no-wrap"):
                        self.values[name] = tag(ui.label(""), f"pose-{name}").classes("font-mono text-base")
                        ui.label(unit if name in "xyz" else "°").classes("text-xs text-grey-7")
        self.singularity = tag(ui.label(""), "pose-singularity").classes("text-sm text-grey-8")

    def show(self, r: Readout) -> None:
        d = length_digits(self.unit)
        for name, v in zip(self.NAMES[:3], r.position, strict=True):
            self.values[name].set_text(fmt(v, d))
        for name, v in zip(self.NAMES[3:], r.rpy_deg, strict=True):
            self.values[name].set_text(fmt(v, 2))
        self.singularity.set_text(f"Jacobian: {r.singularity}")
        self.singularity.classes(replace="text-sm " + ("text-red-9" if r.singular else
                                                       "text-orange-9" if r.near_singular else "text-grey-8"))


class IKPanel:
    """The IK target (position; orientation as roll-pitch-yaw or a pitch), the method, Solve,
    the verdict, and every solution found with a button to adopt it."""

    def __init__(self, session: Session, on_target: Callable[[TargetSpec], None],
                 on_solve: Callable[[], None], on_from_tool: Callable[[], None],
                 on_method: Callable[[str], None], on_adopt: Callable[[int], None],
                 on_outside: Callable[[bool], None], on_seed: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.on_target, self.on_adopt = on_target, on_adopt
        self._quiet = False
        unit = session.robot.length_unit
        t = session.target
        with ui.row().classes("w-full items-center no-wrap gap-2"):
            self.kind = tag(ui.select(target_kinds(session.robot), value=t.kind, label="target",
                                      on_change=lambda _: self._edited()), "target-kind").classes("grow")
            tag(ui.button("from tool", icon="my_location", on_click=on_from_tool), "target-from-tool") \
                .props("flat dense no-caps").tooltip("put the target at the tool's current pose")
        with ui.row().classes("w-full no-wrap gap-2"):
            self.position = [tag(ui.number(f"{a} ({unit})", value=v,
                                           on_change=lambda _: self._edited()), f"target-{a}")
                             .classes("grow").props("dense outlined")
                             for a, v in zip("xyz", t.position, strict=True)]
        self.rpy_row = ui.row().classes("w-full no-wrap gap-2")
        with self.rpy_row:
            self.rpy = [tag(ui.number(f"{a} (°)", value=v,
                                      on_change=lambda _: self._edited()), f"target-{a}")
                        .classes("grow").props("dense outlined")
                        for a, v in zip(("roll", "pitch", "yaw"), t.rpy_deg, strict=True)]
        self.pitch_row = ui.row().classes("w-full no-wrap gap-2")
        with self.pitch_row:
            self.pitch = tag(ui.number("pitch of the tool axis above the horizontal (°)", value=t.pitch_deg,
                                       on_change=lambda _: self._edited()),
                             "target-approach-pitch").classes("grow").props("dense outlined")
        with ui.row().classes("w-full items-center no-wrap gap-2"):
            self.method = tag(ui.select(learned.method_choices(METHODS, session.model), value=session.method,
                                        label="method", on_change=lambda e: self._method(on_method, e.value)), "method") \
                .classes("grow")
            tag(ui.button("Solve", icon="play_arrow", on_click=on_solve), "solve").props("unelevated")
        self.seed = tag(ui.select(learned.seed_choices(session.model), value=session.seed, label="start from",
                                  on_change=lambda e: on_seed and on_seed(e.value)), "ik-seed") \
            .classes("w-full").props("dense")
        tag(ui.checkbox("draw the solutions outside the joint limits (grey)", value=session.ghosts_outside,
                        on_change=lambda e: on_outside(bool(e.value))), "ghosts-outside").props("dense") \
            .classes("text-sm text-grey-8")
        self.message = tag(ui.label(""), "ik-message").classes("w-full text-sm rounded px-3 py-2 hidden")
        self.solutions = ui.column().classes("w-full gap-1")
        self._rows_visible()

    def _rows_visible(self) -> None:
        kind = self.kind.value
        self.rpy_row.set_visibility(kind == "pose")
        self.pitch_row.set_visibility(kind == "approach")
        s = self.session  # where a solve starts is a choice only with a model, for a numeric method
        self.seed.set_visibility(s.model is not None and s.method != learned.METHOD)

    def _method(self, on_method: Callable[[str], None], value: str) -> None:
        on_method(value)
        self._rows_visible()

    def offer_model(self, session: Session) -> None:
        """A model was loaded: the method and seed choices follow the session's."""
        self.method.set_options(learned.method_choices(METHODS, session.model), value=session.method)
        self.seed.set_options(learned.seed_choices(session.model), value=session.seed)
        self._rows_visible()

    def _edited(self) -> None:
        self._rows_visible()
        if self._quiet:
            return
        spec = self.read()
        if spec is not None:
            self.on_target(spec)

    def read(self) -> TargetSpec | None:
        """The target the fields describe, or None while a field is empty."""
        fields = [*self.position, *self.rpy, self.pitch]
        values = [float(f.value) for f in fields if f.value is not None]
        if len(values) < len(fields):
            return None
        x, y, z, roll, pitch, yaw, approach_pitch = values
        return TargetSpec(self.kind.value, (x, y, z), (roll, pitch, yaw), approach_pitch)

    def show_target(self, t: TargetSpec) -> None:
        self._quiet = True
        try:
            self.kind.value = t.kind
            for f, v in zip(self.position, t.position, strict=True):
                f.value = v
            for f, v in zip(self.rpy, t.rpy_deg, strict=True):
                f.value = v
            self.pitch.value = t.pitch_deg
        finally:
            self._quiet = False
        self._rows_visible()

    def show_result(self, session: Session, collisions: list | None = None) -> None:
        """The verdict and the solutions list of the last Solve (or Adopt); `collisions`: per
        solution, the pair it collides with in the open workspace (None when clear)."""
        self.message.set_text(session.message)
        self.message.classes(replace="w-full text-sm rounded px-3 py-2 " + STATUS_CLASSES[session.status])
        self.solutions.clear()
        if not session.solutions:
            return
        robot = session.robot
        with self.solutions:
            inside = sum(s.within_limits for s in session.solutions)
            drawn, listed = drawn_and_listed(same_drawing(robot, session.solutions, session.ghosts_outside))
            tag(ui.label(caption(len(session.solutions), inside, len(drawn), listed, session.ghosts_outside)),
                "solutions-caption").classes("text-sm text-grey-8")
            for i, sol in enumerate(session.solutions):
                colour = GHOSTS[i % len(GHOSTS)] if sol.within_limits else OUTSIDE
                values = ", ".join(f"{v:.1f}{'°' if r else ''}" for v, r in
                                   zip(sol.q * robot.angle_scale, robot.revolute, strict=True))
                current = bool(np.allclose(sol.q, session.q, atol=1e-9))
                with tag(ui.row(), f"solution-{i + 1}").classes("w-full items-center no-wrap gap-2"):
                    ui.label(str(i + 1)).classes("text-white text-xs font-bold rounded-full w-6 h-6 "
                                                 "flex items-center justify-center shrink-0") \
                        .style(f"background: {colour}")
                    with ui.column().classes("grow gap-0"):
                        with ui.row().classes("items-baseline gap-2 no-wrap"):
                            ui.label(sol.label).classes("text-sm")
                            if not sol.within_limits:
                                ui.label("outside the limits").classes("text-xs text-grey-7 shrink-0")
                            if collisions and collisions[i]:
                                tag(ui.label("collides: {} with {}".format(*collisions[i])),
                                    f"solution-{i + 1}-collides").classes("text-xs text-negative shrink-0")
                        ui.label(f"({values})").classes("text-xs font-mono text-grey-8")
                    button = tag(ui.button("current" if current else "adopt",
                                           on_click=lambda _, i=i: self.on_adopt(i)), f"adopt-{i + 1}") \
                        .props("dense flat no-caps")
                    if current or not sol.within_limits:
                        button.disable()
