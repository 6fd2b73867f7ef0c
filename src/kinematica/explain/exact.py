"""Exact numbers for the symbolic engine: the user's decimals as exact rationals, angles as
multiples of π, rounding dust (6.123e-17) as 0 — and the way back to decimals for display.

A robot file says a = 0.246 m and α = 90°; the float 0.246 becomes the rational 123/500 (so
products stay exact: no 1.0000000000000002, no cos(π/2) = 6.123e-17), 90° becomes π/2. When a
formula is printed, `for_display` turns every terminating rational back into the decimal the
user wrote (0.246, not 123/500), keeping halves as fractions (√2/2 stays √2/2).

>>> length(0.246), angle(90, "deg"), angle(1.5707963267948966, "rad"), entry(6.123e-17)
(123/500, pi/2, pi/2, 0)
>>> entry(0.7071067811865476), length(1 / 3)
(sqrt(2)/2, 1/3)
>>> for_display(length(0.246) * sp.Symbol("x") + sp.Rational(1, 2))
0.246*x + 1/2
"""

from __future__ import annotations

import math
from typing import cast

import sympy as sp

from ..errors import InputError

DUST = 1e-12  # below this (relative to 1) a matrix entry is rounding dust of zero
_SURDS = [sp.sqrt(2), sp.sqrt(3), sp.sqrt(6)]


def _decimal(x: float) -> sp.Rational | None:
    """The rational of x's shortest decimal form, when that form is short (≤ 10 digits)."""
    s = repr(float(x))
    if "e" in s or "inf" in s or "nan" in s:
        s = f"{x:.12f}".rstrip("0").rstrip(".")
        if float(s) != x:
            return None
    digits = s.lstrip("-").replace(".", "").lstrip("0")
    if len(digits) > 10:
        return None
    r = sp.Rational(s)  # a finite decimal: always a Rational (SymPy's hints add NaN and zoo)
    return r if isinstance(r, sp.Rational) else None


def length(x: float) -> sp.Expr:
    """A length (or any plain number) as the user wrote it: 0.246 → 123/500, 0.5 → 1/2,
    1/3 → 1/3; a long float that is no simple number stays its exact binary value."""
    x = float(x)
    if not math.isfinite(x):
        raise InputError(f"not a finite number: {x}")
    if x == int(x) and abs(x) < 1e15:
        return sp.Integer(int(x))
    short = _decimal(x)
    if short is not None:
        return short
    guess = sp.nsimplify(x, _SURDS + [sp.pi], tolerance=1e-13 * max(1.0, abs(x)))
    if sp.count_ops(guess) <= 6 and abs(float(guess) - x) <= 1e-13 * max(1.0, abs(x)):
        return guess
    return sp.Rational(x)


def angle(x: float, unit: str = "rad") -> sp.Expr:
    """An angle in rad as an exact expression: degrees d → d·π/180 (90 → π/2, 12.5 → 5π/72);
    radians close to a multiple of π/360 become that multiple (1.5707963… → π/2), others stay
    the user's decimal (0.3 → 3/10)."""
    x = float(x)
    if unit == "deg":
        return sp.nsimplify(length(x) * sp.pi / 180)
    if x == 0:
        return sp.Integer(0)
    k = x / math.pi * 360
    if abs(k - round(k)) < 1e-9 * max(1.0, abs(k)) and round(k) != 0:
        return sp.Rational(round(k), 360) * sp.pi
    return length(x)


def entry(x: float) -> sp.Expr:
    """A matrix entry (rotation or translation) of a numeric transform: dust → 0, ±1, √2/2,
    √3/2, 1/2 and the user's decimals exact."""
    x = float(x)
    if abs(x) < DUST:
        return sp.Integer(0)
    for r in (1, -1):
        if abs(x - r) < DUST:
            return sp.Integer(r)
    return length(x)


def _display_number(r: sp.Rational) -> sp.Expr:
    """A terminating rational (denominator 2^a 5^b, not a bare half) as its decimal Float."""
    q = int(r.q)
    if q == 2:
        return r
    d = q
    for f in (2, 5):
        while d % f == 0:
            d //= f
    if d != 1:
        return r
    text = f"{sp.Float(r, 30):.25f}".rstrip("0").rstrip(".")
    sig = len(text.lstrip("-").replace(".", "").lstrip("0"))
    return sp.Float(text, max(sig, 1)) if sig <= 15 else r


def for_display(expr: sp.Expr) -> sp.Expr:
    """`expr` with every terminating rational written as its decimal (123/500 → 0.246), for
    printing only: the result holds Floats, keep computing with the exact original."""
    reps = {r: _display_number(r) for r in expr.atoms(sp.Rational) if not r.is_Integer}
    reps = {k: v for k, v in reps.items() if v is not k}
    return cast(sp.Expr, expr.xreplace(reps)) if reps else expr  # (SymPy's hints: xreplace gives a Basic)
