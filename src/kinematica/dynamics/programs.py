"""The compiled dynamics programs of a robot and how they are fed: one state as Python floats,
many states as NumPy rows (batch last), a chunk at a time.

A program is traced once per robot and `Kind` (which inputs are present: a zero velocity,
acceleration or gravity component is folded away instead, see trace.py) and kept with the
robot's `Local` constants. Its inputs, in order: the joint geometry (cos θ_i and sin θ_i of a
revolute joint, θ_i = q_i + offset_i, and for a helical one its slide k_i θ_i in m too; the
slide d_i in m of a prismatic one), q̇ and q̈ in SI,
the non-zero gravity components, the tool wrench (f, m) and, for forward dynamics, the right
hand side u = τ − τ_friction.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from . import crba
from .local import Local
from .newton_euler import newton_euler
from .trace import Tape, compile_program

CHUNK = 2048  # states per vectorised pass: a program's live rows then stay in cache


class Kind(NamedTuple):
    """What a program computes and takes (see the module docstring)."""

    what: str  # "rne" (τ), "mass" (the upper triangle of M, row by row) or "solve" (q̈, D, bound)
    velocity: bool = False
    acceleration: bool = False
    gravity: tuple[bool, bool, bool] = (False, False, False)
    wrench: bool = False


def program(L: Local, kind: Kind) -> Callable:
    """The compiled program of this kind (traced on first use)."""
    fn = L.programs.get(kind)
    if fn is None:
        fn = L.programs[kind] = _trace(L, kind)
    return fn


def _trace(L: Local, kind: Kind) -> Callable:
    """Run the algorithm of `kind` on Sym inputs (zeros where the kind has none) and compile it."""
    tape = Tape()
    n = L.n
    joints = [((tape.input(f"c{i}"), tape.input(f"s{i}")) + ((tape.input(f"d{i}"),) if L.pitch[i] else ())
               if L.revolute[i] else tape.input(f"d{i}")) for i in range(n)]
    qd = [tape.input(f"qd{i}") if kind.velocity else 0.0 for i in range(n)]
    qdd = [tape.input(f"qdd{i}") if kind.acceleration else 0.0 for i in range(n)]
    g = [tape.input(f"g{k}") if on else 0.0 for k, on in enumerate(kind.gravity)]
    wrench = [[tape.input(f"w{3 * j + k}") for k in range(3)] for j in range(2)] if kind.wrench else None
    if kind.what == "mass":
        M = crba.mass_matrix(L, joints)
        outputs = [M[r][c] for r in range(n) for c in range(r, n)]
    else:
        tau = newton_euler(L, joints, qd, qdd, g, wrench)
        outputs = list(tau)
        if kind.what == "solve":
            u = [tape.input(f"u{i}") for i in range(n)]
            x, D, bound = crba.ldl_solve(crba.mass_matrix(L, joints), [a - b for a, b in zip(u, tau, strict=True)])
            outputs = list(x) + list(D) + [bound]
    return compile_program(tape, outputs, kind.what)


# --- one state: Python floats ----------------------------------------------------------------
def run_single(L: Local, kind: Kind, q: list[float], qd: list[float] | None = None,
               qdd: list[float] | None = None, g: Sequence[float] = (), wrench: list[float] | None = None,
               u: list[float] | None = None) -> list[float]:
    """The program's outputs for one state: q, qd, qdd in the robot's units, g the non-zero
    gravity components, wrench (6) and u (n) in N / N·m. Plain floats all along."""
    x = []
    for qi, off, rev, s, k in zip(q, L.offsets, L.revolute, L.scale, L.pitch, strict=True):
        if rev:
            x += (math.cos(qi + off), math.sin(qi + off))
            if k:
                x.append(k * (qi + off))
        else:
            x.append(qi * s + off)
    for use, v in ((kind.velocity, qd), (kind.acceleration, qdd)):
        if use:
            assert v is not None  # a program of the rates is run with them
            x += v if L.si is None else [a * s for a, s in zip(v, L.scale, strict=True)]
    x += g
    if kind.wrench:
        assert wrench is not None  # a program of the wrench is run with one
        x += wrench
    if u is not None:
        x += u
    return [v + 0.0 for v in program(L, kind)(x)]  # −0.0 + 0.0 = 0.0: no "-0." in printed results


def friction_single(L: Local, qd: list[float], qdd: list[float] | None = None) -> list[float]:
    """Viscous, Coulomb and armature torques b q̇ + τ_c sign(q̇) + J_m q̈, N·m / N (rates in the
    robot's units, turned into SI by s)."""
    acc = qdd if qdd is not None else [0.0] * L.n
    return [b * v * s + c * ((v > 0) - (v < 0)) + j * a * s
            for b, c, j, v, a, s in zip(L.viscous, L.coulomb, L.armature, qd, acc, L.scale, strict=True)]


# --- many states: rows of NumPy arrays, batch last ----------------------------------------
def cos_sin(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos θ, sin θ from t = tan(θ/2): c = (1 − t²)/(1 + t²), s = 2t/(1 + t²). NumPy's tan is
    vectorised on this platform and sin/cos are not (5–6x cheaper; exact to ~1e-16)."""
    t = np.tan(0.5 * theta)
    k = 2.0 / (1.0 + t * t)
    return k - 1.0, k * t


def _geometry_rows(L: Local, QT: np.ndarray) -> list[np.ndarray]:
    """The geometry rows (program order) of QT (n, m), one row of joint values per joint."""
    rev = np.array(L.revolute)
    none = np.empty((0, QT.shape[1]))  # no revolute joint: no rows of cosines and sines to take
    c, s = cos_sin(QT[rev] + np.array(L.offsets)[rev, None]) if rev.any() else (none, none)
    rows, kr = [], 0
    for i, r in enumerate(L.revolute):
        if r:
            rows += (c[kr], s[kr])
            if L.pitch[i]:
                rows.append(L.pitch[i] * (QT[i] + L.offsets[i]))
            kr += 1
        else:
            rows.append(QT[i] * L.scale[i] + L.offsets[i])
    return rows


def _rows_t(X: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """X (N, k) as contiguous rows (k, N), each times its scale if given."""
    out = np.empty(X.shape[::-1])
    if scale is None:
        np.copyto(out, X.T)
    else:
        np.multiply(X.T, scale[:, None], out=out)
    return out


def run_rows(L: Local, kind: Kind, targets: list[list[np.ndarray]], Q: np.ndarray,
             QD: np.ndarray | None = None, QDD: np.ndarray | None = None, g: Sequence[float] = (),
             W: np.ndarray | None = None, U: np.ndarray | None = None) -> None:
    """The program over N states: Q, QD, QDD, U (N, n), W (N, 6) or one (6,) for all. Output k
    is written into each (N,) view in targets[k] (columns of the caller's result, so that no
    transposing copy follows). Run CHUNK states at a time: the program's rows stay in cache."""
    fn = program(L, kind)
    QT, N = _rows_t(Q), len(Q)
    inputs = []  # after the geometry, in program order: (k, N) row blocks and plain floats
    for use, X in ((kind.velocity, QD), (kind.acceleration, QDD)):
        if use:
            assert X is not None  # a program of the rates is run with them
            inputs.append(_rows_t(X, L.si))
    inputs.append(list(g))
    if kind.wrench:
        if W is None:
            raise ValueError("a program of the tool wrench runs with one: W is missing")
        inputs.append(W.tolist() if W.ndim == 1 else _rows_t(W))
    if U is not None:
        inputs.append(_rows_t(U))
    for k0 in range(0, N, CHUNK):
        sl = slice(k0, k0 + CHUNK)
        rows = _geometry_rows(L, QT[:, sl])
        for block in inputs:
            rows += block if isinstance(block, list) else list(block[:, sl])
        for v, views in zip(fn(rows), targets, strict=True):
            for t in views:
                np.add(v, 0.0, out=t[sl])  # −0.0 + 0.0 = 0.0: no "-0." in printed results


def columns(X: np.ndarray) -> list[list[np.ndarray]]:
    """Targets for run_rows: output k into column k of X (N, k_out)."""
    return [[X[:, k]] for k in range(X.shape[1])]


def friction_rows(L: Local, QD: np.ndarray, QDD: np.ndarray | None = None) -> np.ndarray | None:
    """Viscous, Coulomb and armature torques (N, n) (rates in the robot's units); None if the
    robot has neither friction nor armature."""
    if not L.rough:
        return None
    s = np.array(L.scale)
    tau = np.array(L.viscous) * s * QD + np.array(L.coulomb) * np.sign(QD)
    return tau if QDD is None else tau + np.array(L.armature) * s * QDD
