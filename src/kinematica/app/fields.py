"""A bounded number field that never shows a value the session is not at.

Quasar's number input takes any digits while the user types; NiceGUI's `ui.number` clamps them
into [min, max] only when the field loses focus. Pressing Enter kept the focus, so a field could
read 95 while its joint sat at 9 (the last value the rule took, typed on the way to 95). Here
Enter settles the field the way leaving it does (clamped into range, the clamped value applied),
and while the typed value is out of range the field says so in words under itself.

A command that reads a field when a button is pressed takes `applied(...)` of it: what the field
holds may be empty or, typed and not yet settled, out of range; the command uses the value
`applied` gives, the field is set to it, and the note says why it differs.
"""

from __future__ import annotations

import math
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


def applied(value: float | None, lo: float, hi: float, default: float, what: str, unit: str = "",
            whole: bool = True) -> tuple[float, str]:
    """(the value a command uses, a note in words or "") for what a field bounded by [lo, hi]
    holds: empty or not a number → `default`; outside the range → its nearest end; `whole` →
    rounded to a whole number. The note says what was changed and what is used.

    >>> applied(1e9, 20, 100, 60, "speed", "°/s")
    (100, 'speed 1e+09 °/s is outside 20 … 100 °/s: 100 °/s used')
    >>> applied(None, 20, 100, 60, "speed", "°/s")
    (60, 'the speed field was empty: its default, 60 °/s, used')
    """
    u = f" {unit}" if unit else ""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return default, f"the {what} field was {'empty' if value is None else f'not a number ({value!r})'}: " \
                        f"its default, {default:g}{u}, used"
    used: float = min(max(float(value), lo), hi)
    if whole:
        used = round(used)
    if used == value:
        return used, ""
    if not lo <= value <= hi:
        return used, f"{what} {value:g}{u} is outside {lo:g} … {hi:g}{u}: {used:g}{u} used"
    return used, f"{what} {value:g}{u} rounded to a whole number: {used:g}{u} used"
