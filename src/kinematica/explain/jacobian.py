"""The geometric Jacobian, step by step: each column z_{i−1} × (p − p_{i−1}) with its numbers,
the task rows, the closed forms (paper 000's ∂x/∂θ), det(J Jᵀ), rank, singular values and the
singularity verdict in words."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..kinematics.jacobian import jacobian
from ..kinematics.manipulability import ROWS, report, task_rows
from ..kinematics.singularity import NEAR, singularity
from ..model.robot import Robot
from .common import joints_quantity, joints_text, matrix, scalar, use_degrees, vector
from .document import Document, Math, number_text
from .notation import Formula, element, legend
from .symbolic import chain, jacobian_symbolic

ROW_NAMES = ("v_x", "v_y", "v_z", r"\omega_x", r"\omega_y", r"\omega_z")
ROW_TEXT = ("vx", "vy", "vz", "ωx", "ωy", "ωz")
TASKS = {"full": "all six rows (linear and angular velocity)", "position": "the three linear-velocity rows",
         "orientation": "the three angular-velocity rows",
         "planar": "the rows of the plane: vx, vy and ωz"}
LONG = 500


def _columns(doc: Document, robot: Robot, q: np.ndarray) -> np.ndarray:
    s = doc.section("Column by column")
    F = fk_frames(robot, q)
    pre = F[:-2] @ robot.before  # the frame joint i turns in: its z is the axis, its origin on it
    z, o, p = pre[:, :3, 2], pre[:, :3, 3], F[-1, :3, 3]
    u = robot.length_unit
    s.step("Column i of the Jacobian is the tool's velocity when joint i alone moves at unit speed. A "
           "revolute joint turns the tool about its axis z_{i−1} through the point p_{i−1}; a prismatic "
           "joint slides it along z_{i−1}:",
           formulas=[Math(r"J_i = \begin{bmatrix} z_{i-1} \times (p - p_{i-1}) \\ z_{i-1} \end{bmatrix}"
                          r"\ \text{(revolute)},\qquad J_i = \begin{bmatrix} z_{i-1} \\ 0 \end{bmatrix}\ \text{(prismatic)}",
                          "J_i = [z(i−1) × (p − p(i−1)); z(i−1)] (revolute),   J_i = [z(i−1); 0] (prismatic)")],
           values=[vector("p", "p", p, u, note="the tool point")])
    J = np.zeros((6, robot.n))
    for i in range(robot.n):
        zi, oi = z[i], o[i]
        if robot.revolute[i]:
            r = p - oi
            v = np.cross(zi, r)
            J[:3, i], J[3:, i] = v, zi
            s.step(heading=f"Joint {i + 1} ({robot.joint_names[i]}, revolute)", values=[
                vector(f"z_{{{i}}}", f"z{i}", zi), vector(f"p_{{{i}}}", f"p{i}", oi, u),
                vector(f"p - p_{{{i}}}", f"p − p{i}", r, u),
                vector(f"z_{{{i}}} \\times (p - p_{{{i}}})", f"z{i} × (p − p{i})", v, u + "/rad"),
                vector(f"J_{{{i + 1}}}", f"J{i + 1}", J[:, i])])
        else:
            J[:3, i] = zi
            s.step(heading=f"Joint {i + 1} ({robot.joint_names[i]}, prismatic)",
                   values=[vector(f"z_{{{i}}}", f"z{i}", zi), vector(f"J_{{{i + 1}}}", f"J{i + 1}", J[:, i])])
    return J


def _whole(doc: Document, robot: Robot, J: np.ndarray, rows: str, params: str) -> np.ndarray:
    s = doc.section("The Jacobian and the task")
    s.step("The columns side by side give the 6 × n Jacobian (rows vx, vy, vz, ωx, ωy, ωz):",
           values=[matrix("J", "J", J)])
    idx = list(ROWS[rows])
    Jt = J[idx]
    s.step(f"How well the arm can move is judged on the rows of its task — here {TASKS[rows]}:",
           values=[matrix(r"J_{\text{task}}", "J_task", Jt, note="rows " + ", ".join(ROW_TEXT[i] for i in idx))])
    Js = jacobian_symbolic(robot, params)
    ch = chain(robot, params)
    fs = [[Formula(element(Js, r, c), ch.q) for c in range(robot.n)] for r in idx]
    if all(len(f.latex) < LONG for row in fs for f in row) and robot.n <= 7:
        lines_t, lines_x = [], []
        for r, row in zip(idx, fs, strict=True):
            for c, f in enumerate(row):
                if f.expr == 0:
                    continue
                lines_t.append(rf"J_{{{ROW_NAMES[r]},{c + 1}}} &= {f.latex}")
                lines_x.append(f"J[{ROW_TEXT[r]},{c + 1}] = {f.text}")
        s.step("In closed form (the linear rows are the derivatives ∂p/∂θᵢ of the FK closed forms; "
               "zero entries left out):",
               formulas=[Math(r"\begin{aligned}" + r" \\ ".join(lines_t) + r"\end{aligned}", "\n".join(lines_x))])
        doc.notation = [Math(d.latex, d.text) for d in legend([element(Js, r, c) for r in idx for c in range(robot.n)], ch.q)]
    return Jt


def _measures(doc: Document, robot: Robot, q: np.ndarray, Jt: np.ndarray, rows: str) -> None:
    s = doc.section("Singularity")
    rep = report(Jt, rows)
    verdict = singularity(robot, q, rows=rows)
    m = Jt.shape[0]
    s.step("J Jᵀ measures how far the task directions can be reached by joint motion. Its determinant is "
           "zero exactly when some direction is lost (paper 001's measure):",
           values=[matrix(r"J J^{T}", "J Jᵀ", Jt @ Jt.T, decimals=None),
                   scalar(r"\det(J J^{T})", "det(J Jᵀ)", rep.det_JJT)])
    sv = rep.singular_values
    s.step("The singular values σ of J are the gains of the arm in its principal directions; the rank counts "
           "those that are not zero, the condition number κ = σ_max/σ_min how uneven they are, and "
           "Yoshikawa's manipulability w = √det(J Jᵀ) is their product:",
           values=[vector(r"\sigma", "σ", sv, decimals=None),
                   scalar(r"\operatorname{rank} J", "rank J", rep.rank, note=f"of {m}"),
                   scalar(r"\kappa", "κ", rep.condition), scalar("w", "w", rep.manipulability)])
    ratio = sv[-1] / sv[0] if sv.size == m and sv[0] > 0 else 0.0
    rule = (f"The configuration is singular when J loses rank and near a singularity when "
            f"σ_min/σ_max < {number_text(NEAR, None)}; here σ_min/σ_max = {number_text(ratio, None)}.")
    s.step(rule + f" Verdict: {verdict.message}.")
    if verdict.singular or verdict.near:
        s.step("Near a singularity a small tool motion in the lost direction needs very large joint speeds, "
               "and numeric IK steps become long and unreliable there (damping, as in Levenberg–Marquardt, "
               "keeps them bounded).")


def explain_jacobian(robot: Robot, q: ArrayLike, *, params: str = "symbolic", deg: bool | None = None,
                     rows: str | None = None) -> Document:
    """The geometric Jacobian of `robot` at q, its task rows, measures and singularity verdict."""
    q = check_q(robot, q)
    if q.ndim != 1:
        raise InputError(f"explain_jacobian takes one configuration of shape ({robot.n},), got {q.shape}")
    deg = use_degrees(robot, deg)
    rows = rows or task_rows(robot)
    doc = Document(f"The Jacobian of {robot.name}",
                   f"How joint speeds become tool speeds at {joints_text(robot, q, deg)}, and whether the arm "
                   "is at or near a singularity there.")
    s = doc.section("The configuration")
    s.step("The Jacobian J(θ) maps joint speeds to the tool's linear and angular velocity, ẋ = J θ̇. It "
           "depends on where the joints are:", values=[joints_quantity(robot, q, deg, Math(r"\theta", "θ"))])
    J = _columns(doc, robot, q)
    if not np.allclose(J, jacobian(robot, q), atol=1e-9 * (1 + np.abs(J).max())):  # pragma: no cover - a guard
        raise AssertionError("the column-by-column Jacobian differs from kinematica's")
    Jt = _whole(doc, robot, J, rows, params)
    _measures(doc, robot, q, Jt, rows)
    return doc

