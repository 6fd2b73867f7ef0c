"""Forward kinematics and Jacobian of any chain in closed form, from its own parameter table.

The chain is rebuilt with SymPy from the table the robot was made of — the user's DH, modified
DH, planar link lengths or link frames — with a symbol per joint (θ_i for a revolute joint, d_i
for a prismatic one) and every constant exact (`exact.py`: 0.246 stays 0.246, 90° is π/2,
6.123e-17 is 0). With `params="symbolic"` the non-zero lengths of a DH or planar table stay
symbols too (a_2, d_1, L_1 …), as a textbook writes them; their values are in `Chain.values`.

  A_i    = Pre_i · J_i(q_i) · Post_i        (DH: R_z(θ_i) · T_z(d_i) T_x(a_i) R_x(α_i))
  T_0i   = T_0(i−1) · A_i,   T_00 = base,   T = T_0n · tool

Each product is simplified at once, while it is small: expanded, then SymPy's TR10i folds
cos θ_2 cos θ_3 − sin θ_2 sin θ_3 into cos(θ_2 + θ_3). Every entry of a product of joint
rotations is multilinear in the sines and cosines of each angle, which is the form TR10i
finishes; the Jacobian's linear rows are ∂p/∂q (the same multilinear form), its angular rows
the joint axes. A chain is checked against the numeric `fk` at random q when it is built.

>>> import kinematica as km
>>> ch = chain(km.load("planar-3r"))
>>> ch.T[0, 3]
20*cos(theta_1) + 20*cos(theta_1 + theta_2) + 20*cos(theta_1 + theta_2 + theta_3)
>>> chain(km.load("planar-3r"), "symbolic").T[1, 3]
L_1*sin(theta_1) + L_2*sin(theta_1 + theta_2) + L_3*sin(theta_1 + theta_2 + theta_3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp
from sympy.simplify.fu import TR10i

from .. import spatial
from ..errors import InputError
from ..kinematics.fk import fk
from ..model.memo import per_robot
from ..model.robot import Robot
from .exact import angle, entry, length
from .notation import latex

PARAMS = ("numeric", "symbolic")


# --- elementary transforms ----------------------------------------------------------------
def rot_z(t: sp.Expr) -> sp.Matrix:
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def rot_x(t: sp.Expr) -> sp.Matrix:
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])


def rot_y(t: sp.Expr) -> sp.Matrix:
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]])


def trans(x: sp.Expr | int = 0, y: sp.Expr | int = 0, z: sp.Expr | int = 0) -> sp.Matrix:
    return sp.Matrix([[1, 0, 0, x], [0, 1, 0, y], [0, 0, 1, z], [0, 0, 0, 1]])


def exact_matrix(T: np.ndarray) -> sp.Matrix:
    """A numeric transform with exact entries (dust → 0, √2/2, the user's decimals)."""
    return sp.Matrix(np.asarray(T).shape[0], np.asarray(T).shape[1], [entry(v) for v in np.ravel(T)])


def simplify(e: sp.Expr) -> sp.Expr:
    """Expand, then fold products of sines and cosines into sines and cosines of angle sums."""
    e = sp.expand(e)
    return TR10i(e) if e.has(sp.sin, sp.cos) else e


# --- the chain ------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Link:
    """One joint: A = pre · joint · post; `factors` the LaTeX of the product as the convention
    writes it (e.g. R_z(θ_1) T_z(d_1) R_x(π/2)), `generic` the convention's formula."""

    pre: sp.Matrix
    joint: sp.Matrix
    post: sp.Matrix
    A: sp.Matrix
    factors: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Chain:
    """The closed-form chain of a robot. q: joint symbols; values: parameter symbol → exact
    value (empty when params="numeric"); frames: T_00 = base … T_0n; T: with the tool."""

    robot: Robot
    q: tuple[sp.Symbol, ...]
    params: str
    values: dict
    base: sp.Matrix
    tool: sp.Matrix
    links: tuple[Link, ...]
    frames: tuple[sp.Matrix, ...]
    T: sp.Matrix
    convention: str  # "dh", "mdh", "planar", "frames" or "generic"

    def numeric(self, expr):
        """expr with the parameter symbols replaced by their exact values."""
        return expr.xreplace(self.values) if self.values else expr

    def joint_frame(self, i: int) -> sp.Matrix:
        """The frame joint i (0-based) turns in: T_0(i−1) · Pre_i (its z is the joint axis)."""
        return self.frames[i] * self.links[i].pre


def joint_symbols(robot: Robot) -> tuple[sp.Symbol, ...]:
    return tuple(sp.Symbol(f"theta_{i + 1}" if r else f"d_{i + 1}", real=True)
                 for i, r in enumerate(robot.revolute))


def _param(name: str, value: sp.Expr, values: dict | None) -> sp.Expr:
    """A length: its symbol (recorded in `values`) in symbolic mode when non-zero, else the value."""
    if values is None or value == 0:
        return value
    s = sp.Symbol(name, real=True)
    values[s] = value
    return s


def _tex(value: sp.Expr) -> str:
    return latex(value)


_TRIVIAL = {"T_z(0)", "T_x(0)", "R_x(0)", "R_z(0)", "T(0, 0, 0)"}


def _link(pre: sp.Matrix, J: sp.Matrix, post: sp.Matrix, factors: tuple[str, ...]) -> Link:
    """A Link with its product simplified and the identity factors (T_z(0) …) left out."""
    shown = tuple(f for f in factors if f not in _TRIVIAL)
    return Link(pre, J, post, (pre * J * post).applyfunc(simplify), shown)


def _dh_links(robot: Robot, q, values, modified: bool) -> list[Link]:
    unit = robot.parameter_table.angle_unit
    links = []
    for i, row in enumerate(robot.parameter_table.as_dicts()):
        k = i if modified else i + 1  # modified DH: row i holds a_(i−1), α_(i−1)
        a = _param(f"a_{k}", length(row["a"]), values)
        al = angle(row["alpha"], unit)
        th0 = angle(row["theta"], unit)
        if robot.revolute[i]:
            d = _param(f"d_{i + 1}", length(row["d"]), values)
            J, t_joint = rot_z(q[i] + th0), rf"R_z({_tex(q[i] + th0)})"
            fixed, t_fixed = trans(z=d), rf"T_z({_tex(d)})"
        else:
            d0 = length(row["d"])
            J, t_joint = trans(z=q[i] + d0), rf"T_z({_tex(q[i] + d0)})"
            fixed, t_fixed = rot_z(th0), rf"R_z({_tex(th0)})"
        twist, t_twist = trans(x=a) * rot_x(al), (rf"T_x({_tex(a)})", rf"R_x({_tex(al)})")
        if modified:
            pre, post = rot_x(al) * trans(x=a), fixed
            factors = (t_twist[1], t_twist[0], t_joint, t_fixed)
        else:
            pre, post = sp.eye(4), fixed * twist
            factors = (t_joint, t_fixed) + t_twist
        if not robot.revolute[i]:  # the constant rotation R_z(θ) commutes with T_z(d): put it first
            pre, post = (pre * fixed, twist) if not modified else (pre * fixed, sp.eye(4))
        links.append(_link(pre, J, post, factors))
    return links


def _planar_links(robot: Robot, q, values) -> tuple[list[Link], sp.Matrix]:
    L = [length(r[1]) for r in robot.parameter_table.rows]
    Ls = [_param(f"L_{i + 1}", v, values) for i, v in enumerate(L)]
    links = []
    for i in range(robot.n):
        pre = sp.eye(4) if i == 0 else trans(x=Ls[i - 1])
        factors = ((rf"T_x({_tex(Ls[i - 1])})",) if i else ()) + (rf"R_z({_tex(q[i])})",)
        J = rot_z(q[i])
        links.append(_link(pre, J, sp.eye(4), factors))
    rest = spatial.trans(x=-float(L[-1])) @ robot.tool  # the tool beyond the last link, if any
    return links, trans(x=Ls[-1]) * exact_matrix(rest)


def _frames_links(robot: Robot, q) -> list[Link]:
    unit = robot.parameter_table.angle_unit
    links = []
    for i, row in enumerate(robot.parameter_table.as_dicts()):
        align = exact_matrix(spatial.homogeneous(spatial.axis_to_z(np.asarray(row["axis"], float)), [0, 0, 0]))
        if row.get("rotation") is not None:
            R = exact_matrix(spatial.homogeneous(np.asarray(row["rotation"], float), [0, 0, 0]))
            t_rot = f"R_{{{i + 1}}}"
        else:
            r, p, y = (angle(v, unit) for v in row["rpy"])
            R = rot_z(y) * rot_y(p) * rot_x(r)
            t_rot = rf"R_{{rpy}}({_tex(r)}, {_tex(p)}, {_tex(y)})"
        xyz = [length(v) for v in row["xyz"]]
        J = rot_z(q[i]) if robot.revolute[i] else trans(z=q[i])
        pre = trans(*xyz) * R * align
        t_joint = rf"R_z({_tex(q[i])})" if robot.revolute[i] else rf"T_z({_tex(q[i])})"
        factors = (rf"T({', '.join(_tex(v) for v in xyz)})", t_rot) + (
            (r"R_{axis}",) if align != sp.eye(4) else ()) + (t_joint,)
        links.append(_link(pre, J, align.T, factors))
    return links


def _generic_links(robot: Robot, q) -> list[Link]:
    links = []
    for i in range(robot.n):
        th = q[i] + angle(robot.offsets[i]) if robot.revolute[i] else q[i] + length(robot.offsets[i])
        J = rot_z(th) if robot.revolute[i] else trans(z=th)
        t_joint = rf"R_z({_tex(th)})" if robot.revolute[i] else rf"T_z({_tex(th)})"
        if robot.helical[i]:  # the screw's slide pitch·θ along the same z
            slide = length(robot.pitch[i]) * th
            J, t_joint = J * trans(z=slide), t_joint + rf" T_z({_tex(slide)})"
        pre, post = exact_matrix(robot.before[i]), exact_matrix(robot.after[i])
        factors = (f"B_{{{i + 1}}}", t_joint, f"A_{{{i + 1}}}")
        links.append(_link(pre, J, post, factors))
    return links


def _build(robot: Robot, params: str, convention: str | None) -> Chain:
    q = joint_symbols(robot)
    values: dict | None = {} if params == "symbolic" else None
    kind = convention or (robot.table.kind if robot.table is not None else "generic")
    if robot.helical.any():  # only the canonical chain's reading knows a joint's pitch
        kind = "generic"
    tool = exact_matrix(robot.tool)
    if kind in ("dh", "mdh"):
        links = _dh_links(robot, q, values, kind == "mdh")
    elif kind == "planar":
        links, tool = _planar_links(robot, q, values)
    elif kind == "frames":
        links = _frames_links(robot, q)
    else:
        kind, links = "generic", _generic_links(robot, q)
    base = exact_matrix(robot.base)
    frames = [base]
    for link in links:
        frames.append((frames[-1] * link.A).applyfunc(simplify))
    T = (frames[-1] * tool).applyfunc(simplify)
    return Chain(robot, q, params, values or {}, base, tool, tuple(links), tuple(frames), T, kind)


def numeric_function(ch: Chain, expr: sp.Matrix):
    """expr (with the parameters' values put in) as a NumPy function of q (n,)."""
    return sp.lambdify([ch.q], ch.numeric(expr), "numpy")


def agrees(ch: Chain, samples: int = 3, seed: int = 1) -> bool:
    """Whether the closed-form T equals the numeric `fk` at a few random configurations."""
    f = numeric_function(ch, ch.T)
    rng = np.random.default_rng(seed)
    scale = 1.0 + float(np.abs(ch.robot.before[:, :3, 3]).sum() + np.abs(ch.robot.after[:, :3, 3]).sum())
    for _ in range(samples):
        qv = rng.uniform(-np.pi, np.pi, ch.robot.n)
        if not np.allclose(np.array(f(qv), dtype=float), fk(ch.robot, qv), atol=1e-9 * scale):
            return False
    return True


@per_robot
def chain(robot: Robot, params: str = "numeric") -> Chain:
    """The closed-form chain of `robot`, built from its own table; params="symbolic" keeps the
    table's non-zero lengths as symbols. A table whose reading does not reproduce the numeric
    FK (which would be a bug) falls back to the canonical chain's transforms."""
    if params not in PARAMS:
        raise InputError(f"params must be one of {', '.join(PARAMS)}, got {params!r}")
    ch = _build(robot, params, None)
    if ch.convention != "generic" and not agrees(ch):  # pragma: no cover - a guard, not a path
        ch = _build(robot, "numeric", "generic")
    return ch


def fk_symbolic(robot: Robot, params: str = "numeric") -> sp.Matrix:
    """T(q), 4x4, in closed form (joint symbols `joint_symbols(robot)`)."""
    return chain(robot, params).T


@per_robot
def jacobian_symbolic(robot: Robot, params: str = "numeric") -> sp.Matrix:
    """The geometric Jacobian 6 x n in closed form, rows (v, ω) in base coordinates:
    v-rows ∂p/∂q_i, ω-rows the axis z of each revolute joint (0 for a prismatic one).

    >>> import kinematica as km
    >>> jacobian_symbolic(km.load("planar-3r"), "symbolic")[0, 2]
    -L_3*sin(theta_1 + theta_2 + theta_3)
    """
    ch = chain(robot, params)
    p = sp.Matrix(ch.T[:3, 3])  # sp.Matrix(…): SymPy types a slice and a derivative as more than a matrix
    cols = []
    for i, qi in enumerate(ch.q):
        v = sp.Matrix(p.diff(qi)).applyfunc(simplify)
        w = sp.Matrix(ch.joint_frame(i)[:3, 2]).applyfunc(simplify) if robot.revolute[i] else sp.zeros(3, 1)
        cols.append(v.col_join(w))
    return sp.Matrix.hstack(*cols)
