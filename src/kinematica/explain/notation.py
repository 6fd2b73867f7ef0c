"""How closed forms are written: the robotics shorthand c_1 = cos θ_1, s_23 = sin(θ_2 + θ_3),
common factors pulled out, the user's decimals — in LaTeX, MathML and plain text.

>>> import sympy as sp
>>> t1, t2, t3 = sp.symbols("theta_1:4", real=True)
>>> e = sp.Rational(123, 500) * sp.cos(t1) * sp.cos(t2) + sp.cos(t1) * sp.sin(t2 + t3)
>>> f = Formula(e, (t1, t2, t3))
>>> f.latex
'c_{1} \\\\left(0.246 c_{2} + s_{23}\\\\right)'
>>> f.text
'c1·(0.246·c2 + s23)'
>>> [d.text for d in f.legend]
['c1 = cos θ1', 'c2 = cos θ2', 's23 = sin(θ2 + θ3)']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

from ..extras import need
from .exact import for_display

GREEK = {"theta": "θ", "alpha": "α", "phi": "φ", "lambda": "λ", "omega": "ω", "tau": "τ"}


@dataclass(frozen=True)
class Definition:
    """One shorthand: its LaTeX and plain-text definitions."""

    symbol: sp.Symbol
    latex: str
    text: str


def element(M: sp.Matrix, i: int, j: int) -> sp.Expr:
    """Entry (i, j) of a matrix of expressions (SymPy's hints give an entry as a matrix element or a list)."""
    return cast(sp.Expr, M[i, j])


def _args(e: sp.Basic) -> tuple[sp.Expr, ...]:
    """The arguments of a sum, product or function of expressions (SymPy's hints: Basic)."""
    return cast(tuple[sp.Expr, ...], e.args)


def _indices(arg: sp.Expr, q: Sequence[sp.Symbol]) -> tuple[int, ...] | None:
    """Joint numbers (1-based) when arg is θ_i + θ_j + … (each once, coefficient +1)."""
    terms = sp.Add.make_args(arg)
    idx = []
    for t in terms:
        if t not in q:
            return None
        idx.append(q.index(t) + 1)
    return tuple(sorted(idx)) if len(set(idx)) == len(idx) else None


def _tag(idx: tuple[int, ...]) -> str:
    return ("," if max(idx) > 9 else "").join(str(i) for i in idx)


def shorthand(expr: sp.Expr, q: Sequence[sp.Symbol]) -> tuple[sp.Expr, list[Definition]]:
    """expr with sin/cos of joint angles and of their sums as the symbols s_…/c_…, and the
    definitions used (sorted: c before s, then by joints)."""
    q = list(q)
    reps, defs = {}, {}
    for f in expr.atoms(sp.sin, sp.cos):
        idx = _indices(_args(f)[0], q)
        if idx is None:
            continue
        kind = "c" if isinstance(f, sp.cos) else "s"
        tag = _tag(idx)
        sym = sp.Symbol(f"{kind}_{{{tag}}}", real=True)
        reps[f] = sym
        fn = "cos" if kind == "c" else "sin"
        names = [_plain_symbol(q[i - 1]) for i in idx]
        tex_args = " + ".join(sp.latex(q[i - 1]) for i in idx)
        text = f"{fn} {names[0]}" if len(idx) == 1 else f"{fn}({' + '.join(names)})"
        tex = rf"\{fn} {tex_args}" if len(idx) == 1 else rf"\{fn}({tex_args})"
        defs[sym] = Definition(sym, f"{kind}_{{{tag}}} = {tex}", f"{kind}{tag.replace(',', '')} = {text}")
    order = sorted(defs, key=lambda s: (s.name[0], len(s.name), s.name))
    return cast(sp.Expr, expr.xreplace(reps)), [defs[s] for s in order]  # (SymPy's hints: xreplace gives a Basic)


def pull_common(expr: sp.Expr) -> sp.Expr:
    """A sum with the factors common to all its terms (not numbers) taken out, recursively:
    a c_1 c_2 + b c_1 s_2 → c_1 (a c_2 + b s_2)."""
    if expr.is_Add:
        terms = [pull_common(t) for t in _args(expr)]
        common = None
        for t in terms:
            powers = {}
            for f in sp.Mul.make_args(t):
                if f.is_Number:
                    continue
                b, e = f.as_base_exp()
                powers[b] = powers.get(b, 0) + e
            common = powers if common is None else {
                b: min(e, powers[b]) for b, e in common.items() if b in powers and e.is_Number and powers[b].is_Number}
        common = {b: e for b, e in (common or {}).items() if e != 0}
        if not common:
            return _collect(terms)
        out = sp.Mul(*[b ** e for b, e in common.items()])
        return out * sp.Add(*[sp.Mul(*[t, out ** -1]) for t in terms], evaluate=True)
    if expr.is_Mul:
        return sp.Mul(*[pull_common(a) for a in _args(expr)])
    return expr


_SHORT = re.compile(r"^([cs])_\{([\d,]+)\}$")


def _term_key(term: sp.Expr) -> tuple:
    """Order of the terms of a sum: symbols without angles first, then by the angles of the
    shorthands (c_1 before c_12 before c_123, c before s), numbers last."""
    if not term.free_symbols:
        return (2,)
    symbols = [s for s in term.free_symbols if isinstance(s, sp.Symbol)]  # SymPy types them Basic
    tags = []
    for s in sorted(symbols, key=lambda s: s.name):
        m = _SHORT.match(s.name)
        if m:
            idx = [int(i) for i in (m[2].split(",") if "," in m[2] else m[2])]
            tags.append((len(idx), idx, m[1]))
    plain = sorted(s.name for s in symbols if not _SHORT.match(s.name))
    return (1, sorted(tags), plain) if tags else (0, [], plain)


def _factor_key(f: sp.Expr) -> tuple:
    """Order of the factors of a product: numbers, lengths (a_2), shorthands, the rest."""
    if f.is_Number:
        return (0,)
    if isinstance(f, sp.Symbol):  # `f.is_Symbol`, which the checker does not narrow by
        m = _SHORT.match(f.name)
        return (2, _term_key(f)) if m else (1, f.name)
    return (3, sp.default_sort_key(f))


if TYPE_CHECKING:
    class _Printer:
        """What `_Ordered` uses of the SymPy printer it is mixed into (its super()): for the checker."""

        _settings: dict[str, Any]

        def _print_Mul(self, expr: Any) -> str: ...
else:
    _Printer = object


class _Ordered(_Printer):
    """Terms of sums in `_term_key` order, factors of products in `_factor_key` order."""

    def _as_ordered_terms(self, expr, order=None):
        return sorted(sp.Add.make_args(expr), key=_term_key)

    def _print_Mul(self, expr):
        self._settings["order"] = "none"
        return super()._print_Mul(sp.Mul(*sorted(expr.args, key=_factor_key), evaluate=False))


def _collect(terms: list) -> sp.Expr:
    """Σ terms with the shorthand shared by most terms (at least two) taken out of those terms,
    then the same for the rest: c1 c23 c4 − c1 c23 s4 − s1 s4 → c1 c23 (c4 − s4) − s1 s4."""
    count: dict[sp.Symbol, int] = {}
    for t in terms:
        for s in t.free_symbols:
            if _SHORT.match(s.name):
                count[s] = count.get(s, 0) + 1
    best = [s for s, k in count.items() if k >= 2 and k < len(terms)]
    if not best:
        return sp.Add(*terms)
    top = min(best, key=lambda s: (-count[s], _term_key(s)))
    inner = [t for t in terms if t.has(top)]
    rest = [t for t in terms if not t.has(top)]
    inside = pull_common(sp.Add(*[sp.expand(t / top) for t in inner]))
    lead = min(sp.Add.make_args(inside), key=_term_key)
    grouped = -top * (-inside) if inside.is_Add and lead.could_extract_minus_sign() else top * inside
    return sp.Add(grouped, _collect(rest) if len(rest) > 1 else sp.Add(*rest))


class _Latex(_Ordered, LatexPrinter):
    """SymPy's LaTeX with no `\\cdot` and terms in `_term_key` order."""

    def __init__(self) -> None:
        super().__init__({"mul_symbol": None, "fold_short_frac": False, "inv_trig_style": "abbreviated"})


class _Str(_Ordered, StrPrinter):
    """Plain text: θ1 for theta_1, c23 for c_{23}."""

    def _print_Symbol(self, expr):
        return _plain_symbol(expr)


def latex(expr: sp.Expr) -> str:
    """LaTeX of an expression (exact numbers shown as the user's decimals)."""
    return _Latex().doprint(for_display(expr))


def _plain_symbol(s: sp.Symbol) -> str:
    """θ1 for theta_1, c23 for c_{23}, a2 for a_2."""
    name = s.name.replace("{", "").replace("}", "").replace(",", "")
    head, _, tail = name.partition("_")
    return GREEK.get(head, head) + tail


def text(expr: sp.Expr) -> str:
    """Plain text for the terminal: c1·(0.246·c2 + s23), θ for theta, π for pi."""
    out = _Str().doprint(for_display(expr))
    out = out.replace("**", "^").replace("*", "·").replace(" - ", " − ")
    out = re.sub(r"(?<![\w.])-", "−", out)
    return out.replace("pi", "π")


def mathml(tex: str, display: bool = True) -> str:
    """MathML of a LaTeX string (latex2mathml)."""
    convert = need("latex2mathml.converter", "explain", "MathML").convert
    return convert(tex, display="block" if display else "inline")


@dataclass(frozen=True)
class Formula:
    """A closed form as printed: the expression in shorthand, its LaTeX, text and legend."""

    expr: sp.Expr
    q: tuple[sp.Symbol, ...]

    @property
    def short(self) -> sp.Expr:
        return pull_common(shorthand(self.expr, self.q)[0])

    @property
    def legend(self) -> list[Definition]:
        return shorthand(self.expr, self.q)[1]

    @property
    def latex(self) -> str:
        return latex(self.short)

    @property
    def text(self) -> str:
        return text(self.short)


def legend(exprs: Sequence[sp.Expr], q: Sequence[sp.Symbol]) -> list[Definition]:
    """The shorthands used by all of `exprs`, each once, in order."""
    seen: dict[sp.Symbol, Definition] = {}
    for e in exprs:
        for d in shorthand(e, q)[1]:
            seen.setdefault(d.symbol, d)
    return sorted(seen.values(), key=lambda d: (d.symbol.name[0], len(d.symbol.name), d.symbol.name))


def matrix_latex(M: sp.Matrix, q: Sequence[sp.Symbol], short: bool = True) -> str:
    """A matrix of expressions as a LaTeX bmatrix, entries in shorthand."""
    cell = (lambda e: latex(pull_common(shorthand(e, q)[0]))) if short else latex
    rows = [" & ".join(cell(element(M, i, j)) for j in range(M.cols)) for i in range(M.rows)]
    return r"\begin{bmatrix}" + r" \\ ".join(rows) + r"\end{bmatrix}"


def matrix_text(M: sp.Matrix, q: Sequence[sp.Symbol]) -> list[list[str]]:
    """The entries of a matrix of expressions as plain text, in shorthand."""
    return [[text(pull_common(shorthand(element(M, i, j), q)[0])) for j in range(M.cols)] for i in range(M.rows)]
