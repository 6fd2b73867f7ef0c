"""Plain-text formatting for the faces (CLI, reports): numbers, vectors, matrices, tables.

Pure string functions, no printing. Numbers are fixed-point with a chosen number of decimals,
negative zero is shown as zero, and columns are aligned so that matrices read like matrices.

>>> print(matrix([[1, -0.0], [0.5615, 12.25]], decimals=4))
[ 1.0000   0.0000 ]
[ 0.5615  12.2500 ]
>>> print(table(["name", "dof"], [["planar-3r", 3], ["kuka-kr6-r900", 6]]))
name           dof
-------------  ---
planar-3r        3
kuka-kr6-r900    6
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["LARGE", "num", "vector", "gvector", "compact", "matrix", "table", "fields"]

LARGE = 1e10
"""From this magnitude on, numbers are written in scientific notation: fixed point would spell
out digits that mean nothing (1e308 has 309 of them) and break the columns."""


def num(x: Any, decimals: int = 4) -> str:
    """One number in fixed point: ``num(-1e-17)`` is ``'0.0000'``, ``num(inf)`` is ``'inf'``,
    ``num(3e15)`` is ``'3.0000e+15'`` (from `LARGE` on).

    Integers (Python or NumPy) are written without decimals; anything else goes through str().
    """
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        v = float(x)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if abs(v) >= LARGE:
            return f"{v:.{decimals}e}"
        s = f"{v:.{decimals}f}"
        return s[1:] if s.startswith("-") and float(s) == 0 else s
    return str(x)


def vector(v: Iterable[Any], decimals: int = 4) -> str:
    """A vector as ``(x, y, z)``."""
    return "(" + ", ".join(num(float(x), decimals) for x in v) + ")"


def gvector(v: Iterable[Any], digits: int = 6) -> str:
    """A vector with `digits` significant digits: ``(0.000134649, 625, 6979.17)``."""
    return "(" + ", ".join(f"{float(x) + 0.0:.{digits}g}" for x in v) + ")"


def compact(x: Any, decimals: int = 4) -> str:
    """Nested lists (and mappings) of numbers as written by a user, shortest form:
    ``[0, 0.025, 0.176]``, ``{zero: 90, sign: -1}``."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {compact(v, decimals)}" for k, v in x.items()) + "}"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "[" + ", ".join(compact(v, decimals) for v in x) + "]"
    if isinstance(x, (float, np.floating)) and math.isfinite(float(x)):
        v = round(float(x), decimals)
        return "0" if v == 0 else f"{v:g}" if abs(v) >= 1e-4 else repr(v)
    return num(x, decimals)


def matrix(M: Any, decimals: int = 4, row_labels: Sequence[str] | None = None,
           col_labels: Sequence[str] | None = None, indent: str = "") -> str:
    """A 2-D array with right-aligned columns, each row in brackets; optional row and column
    labels (the column labels go on a header line)."""
    A = np.atleast_2d(np.asarray(M, dtype=float))
    cells = [[num(v, decimals) for v in row] for row in A]
    heads = list(col_labels) if col_labels is not None else None
    width = [max([len(c[j]) for c in cells] + ([len(heads[j])] if heads else []))
             for j in range(A.shape[1])]
    lab_w = max((len(s) for s in row_labels), default=0) if row_labels is not None else 0
    lines = []
    if heads:
        pad = " " * (lab_w + 1) if row_labels is not None else ""
        lines.append(indent + pad + "  " + "  ".join(h.rjust(w) for h, w in zip(heads, width, strict=True)))
    for i, row in enumerate(cells):
        lab = (row_labels[i].ljust(lab_w) + " ") if row_labels is not None else ""
        lines.append(indent + lab + "[ " + "  ".join(c.rjust(w) for c, w in zip(row, width, strict=True)) + " ]")
    return "\n".join(lines)


def _cell(x: Any, decimals: int) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, (list, tuple, np.ndarray)):
        return compact(x, decimals)
    return num(x, decimals)


def _numeric(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], decimals: int = 4,
          indent: str = "", align: str | None = None) -> str:
    """Rows under a header and a rule; numeric columns right-aligned, text left-aligned
    (or as `align` says, one letter per column: "l" or "r").

    Cells may be strings (kept as they are), numbers (fixed point) or lists (compact form).
    """
    text = [[_cell(x, decimals) for x in row] for row in rows]
    n = len(headers)
    width = [max([len(headers[j])] + [len(r[j]) for r in text]) for j in range(n)]
    right = ([a == "r" for a in align] if align else
             [bool(rows) and all(_numeric(r[j]) for r in rows) for j in range(n)])

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, width, right, strict=True)]
        return (indent + "  ".join(out)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in width])] + [line(r) for r in text])


def fields(pairs: Sequence[tuple[str, Any]], decimals: int = 4, indent: str = "") -> str:
    """``label: value`` lines with the values aligned."""
    w = max((len(k) for k, _ in pairs), default=0)
    return "\n".join(f"{indent}{(k + ':').ljust(w + 1)} {_cell(v, decimals)}" for k, v in pairs)
