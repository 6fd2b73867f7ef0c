"""Forward kinematics, step by step: the robot's own table, each link transform A_i in symbols
and in numbers, the chain T_0i = T_0(i−1) A_i with the joint positions, the end pose, and the
closed forms of T (paper 002's n, o, a, p); for planar arms also paper 000's Math tab: the
composite angles φ_i and the coordinates of the intermediate joints; and the same pose as a
product of exponentials (Modern Robotics §4.1), from `kinematics.reference`."""

from __future__ import annotations

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from .. import spatial
from ..errors import InputError
from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..kinematics.manipulability import is_planar
from ..kinematics.reference import fk_space, screw_list
from ..model.robot import Robot
from .codegen import fk_source
from .common import (
    convention,
    joint_math,
    joints_quantity,
    joints_text,
    matrix,
    parameter_table,
    use_degrees,
    vector,
)
from .document import Document, Math, Table
from .notation import Formula, element, latex, legend, matrix_latex, matrix_text, text
from .symbolic import Chain, chain

LONG = 700  # a closed form longer than this (LaTeX characters) is left to the Python source


def _subs(ch: Chain, q: np.ndarray) -> dict:
    return dict(zip(ch.q, (sp.Float(v) for v in q), strict=True))


def _table_section(doc: Document, robot: Robot, ch: Chain, q: np.ndarray, deg: bool) -> None:
    s = doc.section("The robot and its parameters")
    what, formula = convention(robot, ch.convention)
    s.step(f"{robot.name}: {(robot.description or 'a serial chain').strip().rstrip('.')} ({robot.n} joints, lengths in "
           f"{robot.length_unit}). It is described by a {what}; each row gives one link transform",
           formulas=[formula], table=parameter_table(robot))
    if ch.values:
        u = robot.length_unit
        s.step("The formulas below keep the non-zero lengths of the table as symbols, with these values:",
               formulas=[Math(r",\qquad ".join(f"{latex(k)} = {latex(v)}\\ \\mathrm{{{u}}}" for k, v in ch.values.items()),
                              ",   ".join(f"{text(k)} = {text(v)} {u}" for k, v in ch.values.items()))])
    s.step(f"The joint values to evaluate: {joints_text(robot, q, deg)}.",
           values=[joints_quantity(robot, q, deg, Math("q", "q"))])


def _links_section(doc: Document, robot: Robot, ch: Chain, q: np.ndarray, deg: bool, shown: list) -> None:
    s = doc.section("Link transforms Aᵢ")
    s.step("Each joint contributes one homogeneous 4×4 transform: the rotation R (3×3) in the upper "
           "left, the translation p in the last column. First in symbols, then with the joint values.")
    sub = _subs(ch, q)
    if not np.allclose(robot.base, np.eye(4)):
        s.step("The base frame sits in the world at",
               values=[matrix("T_{00}", "T_00", robot.base, note=f"translation in {robot.length_unit}")])
    for i, link in enumerate(ch.links):
        name = f"A_{{{i + 1}}}"
        prod = r"\,".join(link.factors) or "I"
        shown.extend(link.A.flat())
        num = np.array(ch.numeric(link.A).xreplace(sub).evalf(), dtype=float)
        s.step(f"Joint {i + 1} ({robot.joint_names[i]}, {robot.joint_types[i]}), "
               f"{joint_math(robot, i).text} = {_value(robot, i, q[i], deg)}:",
               formulas=[Math(f"{name} = {prod} = {matrix_latex(link.A, ch.q)}",
                              f"A_{i + 1} = " + _text_matrix(matrix_text(link.A, ch.q)))],
               values=[matrix(name, f"A_{i + 1}", num)])
    if not np.allclose(robot.tool, np.eye(4)) or ch.convention == "planar":
        s.step("The tool sits in the last link frame at", values=[
            matrix("T_{tool}", "T_tool", np.array(ch.numeric(ch.tool).evalf(), dtype=float))])


def _value(robot: Robot, i: int, v: float, deg: bool) -> str:
    from .common import joint_value

    return joint_value(robot, i, v, deg)


def _text_matrix(rows: list[list[str]]) -> str:
    width = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    return "\n      ".join("[ " + "  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)) + " ]" for r in rows)


def _chain_section(doc: Document, robot: Robot, q: np.ndarray) -> np.ndarray:
    s = doc.section("Chaining the links: T₀ᵢ = T₀,ᵢ₋₁ · Aᵢ")
    F = fk_frames(robot, q)
    s.step("Multiplying the link transforms one after the other gives the pose of every link frame "
           "in the base frame; its last column is where that frame's origin is.",
           formulas=[Math(r"T_{0i} = T_{0,i-1}\, A_i, \qquad T_{00} = \text{base}", "T_0i = T_0(i−1) · A_i,   T_00 = base")])
    for i in range(1, robot.n + 1):
        s.step(values=[matrix(f"T_{{0{i}}}", f"T_0{i}", F[i], note=f"translation in {robot.length_unit}")])
    u = robot.length_unit
    s.step(f"Origins of the frames ({u}):",
           table=Table(["frame", "x", "y", "z"],
                       [["base"] + list(F[0, :3, 3])] + [[f"{i} ({robot.joint_names[i - 1]})"] + list(F[i, :3, 3])
                                                          for i in range(1, robot.n + 1)] + [["tool"] + list(F[-1, :3, 3])]))
    return F


def _planar_section(doc: Document, robot: Robot, q: np.ndarray, deg: bool) -> None:
    """Paper 000's Math tab: composite angles, FK formulas, intermediate joint coordinates."""
    L = [float(r[1]) for r in robot.parameter_table.rows]
    n, u = robot.n, robot.length_unit
    s = doc.section("The planar arm's angles and joint coordinates (paper 000)")
    phi = np.cumsum(q)
    s.step("Each link's direction is the sum of the joint angles before it (the composite angles):",
           formulas=[Math(r"\varphi_k = \theta_1 + \dots + \theta_k", "φk = θ1 + … + θk")],
           values=[vector(r"\varphi", "φ", np.degrees(phi) if deg else phi, "°" if deg else "rad", 3 if deg else 4)])
    s.step("The joints and the end point follow link by link:",
           formulas=[Math(r"X_k = X_{k-1} + L_k \cos\varphi_k,\quad Y_k = Y_{k-1} + L_k \sin\varphi_k,\quad X_0 = Y_0 = 0",
                          "Xk = X(k−1) + Lk·cos φk,   Yk = Y(k−1) + Lk·sin φk,   X0 = Y0 = 0"),
                     Math(r"x = " + " + ".join(f"L_{k} \\cos\\varphi_{k}" for k in range(1, n + 1)) +
                          r",\quad y = " + " + ".join(f"L_{k} \\sin\\varphi_{k}" for k in range(1, n + 1)),
                          "x = " + " + ".join(f"L{k}·cos φ{k}" for k in range(1, n + 1)) + ",   y = " +
                          " + ".join(f"L{k}·sin φ{k}" for k in range(1, n + 1)))])
    X = np.cumsum(np.array(L) * np.cos(phi))
    Y = np.cumsum(np.array(L) * np.sin(phi))
    rows = [[k, L[k - 1], np.degrees(phi[k - 1]) if deg else phi[k - 1], X[k - 1], Y[k - 1]] for k in range(1, n + 1)]
    s.step(f"Coordinates of the link ends ({u}; the last row is the end effector):",
           table=Table(["k", f"L_k ({u})", "φ_k (°)" if deg else "φ_k (rad)", "X_k", "Y_k"], rows))


def _end_section(doc: Document, robot: Robot, T: np.ndarray) -> None:
    s = doc.section("The end pose")
    rpy = np.degrees(spatial.matrix_to_rpy(T[:3, :3]))
    s.step("The tool pose is the last product. Its columns are the tool's axes n, o, a (x, y, z) and "
           "its position p, all in base coordinates:",
           values=[matrix("T", "T", T, note=f"translation in {robot.length_unit}"),
                   vector("p", "p", T[:3, 3], robot.length_unit),
                   vector(r"\text{roll, pitch, yaw}", "roll, pitch, yaw", rpy, "°", 3)])


def _poe_section(doc: Document, robot: Robot, q: np.ndarray, T: np.ndarray) -> None:
    """The product of exponentials: M, the space screw axes, and the pose they give."""
    s = doc.section("The same pose as a product of exponentials")
    M, S = screw_list(robot)
    s.step("Another way to the same pose (Modern Robotics §4.1): each joint is a screw motion about "
           "its axis in the base frame, taken with every joint at zero. The screw of joint i is "
           "Sᵢ = (ωᵢ; vᵢ): ω the axis direction and v = −ω × p for a point p on the axis (plus h·ω for "
           "a helical joint of pitch h) for a turning joint, ω = 0 and v the direction for a sliding "
           "one. M is the tool's pose with every θᵢ at zero.",
           formulas=[Math(r"T(\theta) = e^{[S_1]\theta_1} \cdots e^{[S_n]\theta_n} M, \qquad "
                          r"\theta_i = q_i + \text{offset}_i",
                          "T(θ) = e^[S1]θ1 ⋯ e^[Sn]θn · M,   θi = qi + offset_i")],
           values=[matrix("M", "M", M, note=f"translation in {robot.length_unit}")])
    s.step(f"The screw axes (ω unitless, v in {robot.length_unit}):",
           table=Table(["joint", "ω_x", "ω_y", "ω_z", "v_x", "v_y", "v_z"],
                       [[f"{i + 1} ({robot.joint_names[i]})"] + list(S[i]) for i in range(robot.n)]))
    P = fk_space(robot, q)
    size = 1.0 + float(np.abs(robot.C[:, :3, 3]).sum())  # rounding grows with the lengths summed
    same = float(np.abs(P - T).max()) <= 1e-12 * size
    s.step("Their product at the joint values above is " + ("the chain's pose: the two 4×4 matrices agree to "
           "rounding (within 10⁻¹² of the arm's size)." if same else "NOT the chain's pose: a bug to report."),
           values=[vector("p", "p", P[:3, 3], robot.length_unit)])


def _closed_section(doc: Document, robot: Robot, ch: Chain, q: np.ndarray, shown: list) -> None:
    s = doc.section("Closed forms of T(q)")
    s.step("Multiplying the symbolic transforms and simplifying (products of sines and cosines of "
           "consecutive parallel joints fold into sines and cosines of angle sums) gives every entry of "
           "T as a formula of the joint values. Shorthand: cᵢ = cos θᵢ, s₂₃ = sin(θ₂ + θ₃), and so on.")
    formulas, skipped = [], []
    for k, c in enumerate("noap"):
        tex, txt = [], []
        for j, ax in enumerate("xyz"):
            e = element(ch.T, j, k)
            f = Formula(e, ch.q)
            shown.append(e)
            if len(f.latex) > LONG:
                skipped.append(f"{c}_{ax}")
                continue
            tex.append(f"{c}_{ax} &= {f.latex}")
            txt.append(f"{c}_{ax} = {f.text}")
        if tex:
            formulas.append(Math(r"\begin{aligned}" + r" \\ ".join(tex) + r"\end{aligned}", "\n".join(txt)))
    s.step(formulas=formulas)
    if skipped:
        s.step(f"{', '.join(skipped)} are too long to read usefully; the Python source below holds them.")
    f = sp.lambdify([ch.q], ch.numeric(ch.T), "numpy")
    T = np.array(f(q), dtype=float)
    s.step("Evaluated at the joint values above, the closed forms give the same position:",
           values=[vector("p(q)", "p(q)", T[:3, 3], robot.length_unit)])
    src = fk_source(robot, ch.params)
    s.step("The same formulas as a Python function (generated, checked against kinematica's FK):", code=src)


def explain_fk(robot: Robot, q: ArrayLike, *, params: str = "symbolic", deg: bool | None = None) -> Document:
    """The forward kinematics of `robot` at q (rad / length unit), step by step.

    params: "symbolic" writes the table's non-zero lengths as symbols in the formulas (a_2,
    d_1, L_1 …), "numeric" writes their values. deg: show angles in degrees (default: as the
    robot's table).
    """
    q = check_q(robot, q)
    if q.ndim != 1:
        raise InputError(f"explain_fk takes one configuration of shape ({robot.n},), got {q.shape}")
    deg = use_degrees(robot, deg)
    ch = chain(robot, params)
    doc = Document(f"Forward kinematics of {robot.name}",
                   f"From the joint values to the pose of the tool: {joints_text(robot, q, deg)}. "
                   "Each link adds one 4×4 transform; their product is the pose, and the last section gives it "
                   "in closed form, T(q).")
    shown: list = []
    _table_section(doc, robot, ch, q, deg)
    _links_section(doc, robot, ch, q, deg, shown)
    F = _chain_section(doc, robot, q)
    if ch.convention == "planar" and is_planar(robot):
        _planar_section(doc, robot, q, deg)
    _end_section(doc, robot, F[-1])
    _poe_section(doc, robot, q, F[-1])
    _closed_section(doc, robot, ch, q, shown)
    doc.notation = [Math(d.latex, d.text) for d in legend(shown, ch.q)]
    return doc

