"""Straight-line programs traced from the dynamics algorithms, constants folded, compiled per robot.

The algorithms (newton_euler.py, crba.py) are written on scalars: plain `+ − × ÷` on the
components of 3-vectors. Run with `Sym` inputs, every operation records one line `t = a op b`
on a `Tape` instead, and whatever involves only numbers is computed on the spot (constant
folding): the products with the zeros and ones of the robot's constant rotations vanish (most
entries of a DH twist Rx(±90°) are 0 or ±1), and so do the terms of inputs known to be zero
(velocity for gravity torques, gravity for the mass matrix). Signs are pushed into constants
or absorbed by a later + or −, and a repeated operation is recorded once.

`compile_program` turns the tape into the source of one Python function — lines no output needs
are dropped, names are reused once their value was last read — and compiles it. The function
runs unchanged on Python floats (one state: no NumPy call at all, a few µs) and on NumPy
arrays holding a chunk of states (each line one vectorised operation over the chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

Scalar = Union["Sym", float]
_COMMUTATIVE = ("+", "*")


class Sym:
    """A value known only when the program runs: an input, or the result of a recorded line."""

    __slots__ = ("name", "tape")

    def __init__(self, tape: Tape, name: str) -> None:
        self.tape, self.name = tape, name

    def __add__(self, o): return self.tape.op("+", self, o)
    def __radd__(self, o): return self.tape.op("+", o, self)
    def __sub__(self, o): return self.tape.op("-", self, o)
    def __rsub__(self, o): return self.tape.op("-", o, self)
    def __mul__(self, o): return self.tape.op("*", self, o)
    def __rmul__(self, o): return self.tape.op("*", o, self)
    def __truediv__(self, o): return self.tape.op("/", self, o)
    def __rtruediv__(self, o): return self.tape.op("/", o, self)
    def __neg__(self): return self.tape.neg(self)


def _is_num(x) -> bool:
    return not isinstance(x, Sym)


class Tape:
    """The recorded lines (target, op, a, b) of one traced run, in order."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, Scalar, Scalar]] = []
        self.inputs: list[Sym] = []
        self.negated: dict[str, Sym] = {}  # name of t = −x → x, so that a later a + t becomes a − x
        self.memo: dict[tuple, Sym] = {}

    def input(self, name: str) -> Sym:
        s = Sym(self, name)
        self.inputs.append(s)
        return s

    def op(self, kind: str, a: Scalar, b: Scalar) -> Scalar:
        if not isinstance(a, Sym) and not isinstance(b, Sym):  # (`_is_num` of both, spelled for the checker)
            return _EVAL[kind](float(a), float(b))
        folded = _fold(self, kind, a, b)
        if folded is not None:
            return folded
        return self._emit(kind, a, b)

    def neg(self, a: Scalar) -> Scalar:
        if not isinstance(a, Sym):  # `_is_num`, spelled so that the checker narrows a to Sym below
            return -float(a)
        if a.name in self.negated:
            return self.negated[a.name]
        t = self._emit("neg", a, 0.0)
        self.negated[t.name] = a
        return t

    def _emit(self, kind: str, a: Scalar, b: Scalar) -> Sym:
        ka, kb = _key(a), _key(b)
        key = (kind,) + (tuple(sorted((ka, kb))) if kind in _COMMUTATIVE else (ka, kb))
        if key not in self.memo:
            t = Sym(self, f"t{len(self.lines)}")
            self.lines.append((t.name, kind, a, b))
            self.memo[key] = t
        return self.memo[key]


_EVAL = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
         "/": lambda a, b: a / b}


def _key(x: Scalar) -> str:
    return x.name if isinstance(x, Sym) else repr(float(x))


def _fold(tape: Tape, kind: str, a: Scalar, b: Scalar) -> Scalar | None:
    """The algebra that makes the folding pay: x + 0, x·0, x·1, x·(−1), signs moved outwards
    (−x·y = −(x·y), −x·k = x·(−k)) where a later + or − absorbs them. None: nothing to fold."""
    na = tape.negated.get(a.name) if isinstance(a, Sym) else None
    nb = tape.negated.get(b.name) if isinstance(b, Sym) else None
    if kind == "+":
        if (_is_num(a) and a == 0) or (_is_num(b) and b == 0):
            return b if _is_num(a) and a == 0 else a
        if nb is not None:
            return tape.op("-", a, nb)
        if na is not None:
            return tape.op("-", b, na)
    elif kind == "-":
        if _is_num(b) and b == 0:
            return a
        if _is_num(a) and a == 0:
            return tape.neg(b)
        if nb is not None:
            return tape.op("+", a, nb)
        if na is not None:
            return tape.neg(tape.op("+", na, b))
    elif kind == "*":
        for x, y in ((a, b), (b, a)):
            if not isinstance(x, Sym):  # (`_is_num`, spelled for the checker)
                if x == 0 or x == 1:
                    return 0.0 if x == 0 else y
                if x == -1:
                    return tape.neg(y)
                ny = tape.negated.get(y.name) if isinstance(y, Sym) else None  # (a Sym: `op` folds two numbers)
                return tape.op("*", -float(x), ny) if ny is not None else None
        if na is not None or nb is not None:
            prod = tape.op("*", a if na is None else na, b if nb is None else nb)
            return prod if (na is None) == (nb is None) else tape.neg(prod)
    elif kind == "/":
        if (_is_num(a) and a == 0) or (_is_num(b) and b == 1):
            return 0.0 if _is_num(a) and a == 0 else a
        if na is not None:
            return tape.neg(tape.op("/", na, b))
    return None


def compile_program(tape: Tape, outputs: Sequence[Scalar], name: str) -> Callable:
    """A function f(x) -> tuple of the outputs, x: the values of tape.inputs in order (floats, or
    arrays of a chunk of states; an input may also be a plain float in an array run)."""
    lines = _live_lines(tape, outputs)
    last = {}  # name → index of the line that reads it last (outputs: read at the end)
    for k, (_, _, a, b) in enumerate(lines):
        for x in (a, b):
            if isinstance(x, Sym):
                last[x.name] = k
    for x in outputs:
        if isinstance(x, Sym):
            last[x.name] = len(lines)
    reg: dict[str, str] = {}
    free: list[str] = []
    args = [reg.setdefault(s.name, f"x{i}") if s.name in last else "_" for i, s in enumerate(tape.inputs)]
    body = []
    for k, (target, kind, a, b) in enumerate(lines):
        ra, rb = _ref(reg, a), _ref(reg, b)
        for x in {s.name for s in (a, b) if isinstance(s, Sym)}:
            if last[x] == k:
                free.append(reg[x])  # read for the last time: its name may hold the result
        r = reg[target] = free.pop() if free else f"r{len(reg)}"
        body.append(f"    {r} = -{ra}" if kind == "neg" else f"    {r} = {ra} {kind} {rb}")
    outs = ", ".join(_ref(reg, x) for x in outputs)
    src = (f"def {name}(x):\n    {', '.join(args)}{',' if len(args) == 1 else ''} = x\n"
           + "\n".join(body) + f"\n    return ({outs}{',' if len(outputs) == 1 else ''})\n")
    scope: dict = {"inf": float("inf"), "nan": float("nan")}  # folded constants may be infinite
    exec(compile(src, f"<kinematica.dynamics {name}>", "exec"), scope)
    fn = scope[name]
    fn.source = src  # for reading what was generated
    return fn


def _live_lines(tape: Tape, outputs: Sequence[Scalar]) -> list:
    """The lines some output depends on, in order (dead code removed)."""
    need = {x.name for x in outputs if isinstance(x, Sym)}
    keep = []
    for line in reversed(tape.lines):
        if line[0] in need:
            keep.append(line)
            need.update(x.name for x in line[2:] if isinstance(x, Sym))
    return keep[::-1]


def _ref(reg: dict[str, str], x: Scalar) -> str:
    if isinstance(x, Sym):
        return reg[x.name]
    v = repr(float(x))
    return f"({v})" if v.startswith("-") else v
