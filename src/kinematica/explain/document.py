"""The document model of an explanation: a Document of Sections, each a list of Steps.

A Step holds what a teacher writes on the board for one move of the argument: a sentence
(plain Unicode), formulas (each as LaTeX and as plain text, `Math`), the numbers of that move
(`Quantity`: a scalar, vector or matrix with its unit), a table, or a piece of code. The
builders (fk.py, jacobian.py, ik.py, analytic.py, dynamics.py) fill it; the renderers
(render_*.py) print it as Markdown, HTML, LaTeX or terminal text. Nothing here computes.

>>> d = Document("FK", "From q to T.")
>>> s = d.section("The end pose")
>>> s.step("The tool position:", values=[Quantity(Math("p", "p"), [30.7935, 47.0167, 0], "mm")])
>>> number_text(47.01666, 4), number_latex(-1.2e-7, 4), number_latex(2.5e-9, None)
('47.0167', '0', '2.5 \\\\times 10^{-9}')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Math:
    """A formula, as LaTeX (without $ delimiters) and as plain text for a terminal."""

    latex: str
    text: str

    def __post_init__(self) -> None:  # numbers formatted for text may slip into LaTeX
        object.__setattr__(self, "latex", self.latex.replace("−", "-").replace("°", r"^{\circ}"))


@dataclass
class Quantity:
    """A named number, vector or matrix with its unit. decimals: fixed decimals (matrices,
    vectors, angles), or None for 4 significant digits (errors, λ, determinants)."""

    name: Math
    value: Any
    unit: str = ""
    decimals: int | None = 4
    note: str = ""

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.value, dtype=float)


@dataclass
class Table:
    """Rows of cells (text or numbers) under headers (plain text)."""

    headers: Sequence[str]
    rows: Sequence[Sequence[Any]]
    decimals: int | None = 4


@dataclass
class Step:
    """One move of the argument; `heading` (optional) titles a group of steps (an iteration)."""

    text: str = ""
    formulas: list[Math] = field(default_factory=list)
    values: list[Quantity] = field(default_factory=list)
    table: Table | None = None
    code: str | None = None
    heading: str = ""


@dataclass
class Section:
    title: str
    steps: list[Step] = field(default_factory=list)

    def step(self, text: str = "", formulas: Sequence[Math] = (), values: Sequence[Quantity] = (),
             table: Table | None = None, code: str | None = None, heading: str = "") -> None:
        self.steps.append(Step(text, list(formulas), list(values), table, code, heading))


@dataclass
class Document:
    """title, a one-paragraph summary, the sections, and the shorthands (c_1 = cos θ_1 …) used."""

    title: str
    summary: str = ""
    sections: list[Section] = field(default_factory=list)
    notation: list[Math] = field(default_factory=list)

    def section(self, title: str) -> Section:
        s = Section(title)
        self.sections.append(s)
        return s


# --- numbers as text and LaTeX, shared by the renderers ------------------------------------
def _clean(x: float, decimals: int | None) -> float:
    x = float(x)
    if decimals is not None and abs(x) < 0.5 * 10.0 ** -decimals:
        return 0.0
    return x + 0.0


def number_text(x: Any, decimals: int | None = 4) -> str:
    """Fixed decimals (trailing zeros kept, so columns align) or 4 significant digits."""
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    x = _clean(x, decimals)
    s = f"{x:.{decimals}f}" if decimals is not None else _significant(x)
    return s.replace("-", "−")


def _significant(x: float, digits: int = 4) -> str:
    """4 significant digits, plain between 1e-3 and 1e6 (40000, 70.85, 0.004103), else 1.965e-05."""
    if x == 0 or not 1e-3 <= abs(x) < 1e6:
        return f"{x:.{digits}g}"
    places = digits - 1 - math.floor(math.log10(abs(x)))
    s = f"{round(x, places):.{max(places, 0)}f}"
    return s.rstrip("0").rstrip(".") if "." in s else s


def number_latex(x: Any, decimals: int | None = 4) -> str:
    """A number for LaTeX: trailing zeros dropped, 1.2 \\times 10^{-5} for small ones."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return str(int(x))
    x = float(x)
    if math.isinf(x):
        return r"\infty" if x > 0 else r"-\infty"
    if math.isnan(x):
        return r"\mathrm{nan}"
    x = _clean(x, decimals)
    if x == 0:
        return "0"
    if decimals is not None:
        s = f"{x:.{decimals}f}".rstrip("0").rstrip(".")
        return "0" if s in ("", "-0") else s
    s = _significant(x)
    if "e" in s:
        mant, exp = s.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return s


def value_latex(q: Quantity) -> str:
    """The value of a quantity in LaTeX: a number, a tuple (x, y, z) for a vector, or a matrix
    with right-aligned columns in square brackets."""
    a = q.array
    deg = r"^{\circ}" if q.unit == "°" else ""
    if a.ndim == 0:
        return number_latex(a.item(), q.decimals) + deg
    if a.ndim == 1:
        return r"\left(" + r",\; ".join(number_latex(v, q.decimals) + deg for v in a) + r"\right)"
    rows = [" & ".join(number_latex(v, q.decimals) for v in row) for row in a]
    return (r"\left[\,\begin{array}{" + "r" * a.shape[1] + "}" + r" \\ ".join(rows)
            + r"\end{array}\,\right]")


def unit_latex(unit: str) -> str:
    if not unit or unit == "°":  # degrees are written on each number
        return ""
    return r"\ \mathrm{" + unit.replace("·", r"\cdot ").replace("²", "^2").replace("°", r"^{\circ}") + "}"


def quantity_latex(q: Quantity) -> str:
    """`name = value unit` in LaTeX; a vector's unit goes after the bracket."""
    return f"{q.name.latex} = {value_latex(q)}{unit_latex(q.unit)}"


def values_latex(values: Sequence[Quantity], note=lambda text: text) -> str:
    """The values of one step as one display: a single `name = value`, or several aligned at
    their = signs. note: how a note's plain text goes into \\text{} (escaping for LaTeX)."""
    def one(q: Quantity, amp: str) -> str:
        extra = rf"\quad\text{{({note(q.note)})}}" if q.note else ""
        return f"{q.name.latex} {amp}= {value_latex(q)}{unit_latex(q.unit)}{extra}"
    if len(values) == 1:
        return one(values[0], "")
    return r"\begin{aligned}" + r" \\[2pt] ".join(one(q, "&") for q in values) + r"\end{aligned}"


def vector_text(v: Iterable[float], decimals: int | None = 4) -> str:
    return "(" + ", ".join(number_text(x, decimals) for x in v) + ")"


def matrix_lines(a: np.ndarray, decimals: int | None = 4) -> list[str]:
    """A matrix as aligned text rows inside ⎡ ⎤ / ⎢ ⎥ / ⎣ ⎦ brackets."""
    cells = [[number_text(v, decimals) for v in row] for row in np.atleast_2d(a)]
    width = [max(len(r[j]) for r in cells) for j in range(len(cells[0]))]
    body = ["  ".join(c.rjust(w) for c, w in zip(r, width, strict=True)) for r in cells]
    if len(body) == 1:
        return [f"[ {body[0]} ]"]
    left = ["⎡"] + ["⎢"] * (len(body) - 2) + ["⎣"]
    right = ["⎤"] + ["⎥"] * (len(body) - 2) + ["⎦"]
    return [f"{l} {b} {r}" for l, b, r in zip(left, body, right, strict=True)]


def quantity_text(q: Quantity) -> list[str]:
    """`name = value unit` as text lines (a matrix over several lines)."""
    a = q.array
    unit = f" {q.unit}" if q.unit and q.unit != "°" else q.unit
    note = f"   ({q.note})" if q.note else ""
    if a.ndim == 0:
        return [f"{q.name.text} = {number_text(a.item(), q.decimals)}{unit}{note}"]
    if a.ndim == 1:
        if unit == "°":
            return [f"{q.name.text} = (" + ", ".join(number_text(x, q.decimals) + "°" for x in a) + f"){note}"]
        return [f"{q.name.text} = {vector_text(a, q.decimals)}{unit}{note}"]
    lines = matrix_lines(a, q.decimals)
    head = f"{q.name.text} = "
    mid = len(lines) // 2
    out = [(head if i == mid else " " * len(head)) + line for i, line in enumerate(lines)]
    out[mid] += unit + note
    return out


def cell_text(x: Any, decimals: int | None) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, (list, tuple, np.ndarray)):
        return vector_text(np.asarray(x, dtype=float).ravel(), decimals)
    return number_text(x, decimals)
