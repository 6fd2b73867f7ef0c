"""A bounded number field that never shows a value the session is not at.

Quasar's number input takes any digits while the user types; NiceGUI's `ui.number` clamps them
into [min, max] only when the field loses focus. Pressing Enter kept the focus, so a field could
read 95 while its joint sat at 9 (the last value the rule took, typed on the way to 95). Here
Enter settles the field the way leaving it does (clamped into range, the clamped value applied),
and while the typed value is out of range the field says so in words under itself.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui


def out_of_range(lo: float, hi: float, unit: str) -> Callable[[float | None], str | None]:
    """The field's validation: None within [lo, hi], else the refusal in words."""
    def check(value: float | None) -> str | None:
        if value is None or lo <= value <= hi:
            return None
        return f"{value:g} {unit} is outside {lo:g} … {hi:g} {unit}; Enter or leaving the field applies the nearest end".strip()
    return check


def bounded_number(label: str | None = None, *, value: float, lo: float, hi: float, unit: str = "",
                   on_change: Callable, **kwargs) -> ui.number:
    """`ui.number` over [lo, hi] that settles on Enter as on blur, with an in-words range error.

    `on_change` gets every value the field takes, as `ui.number` gives it; the clamped value a
    settled field takes reaches it like any other, so what the field shows is what was applied.
    """
    number = ui.number(label, value=value, min=lo, max=hi, on_change=on_change,
                       validation=out_of_range(lo, hi, unit), **kwargs)
    number.on("keydown.enter", number.sanitize, [])
    return number
