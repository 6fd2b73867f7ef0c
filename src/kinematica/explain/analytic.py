"""Closed-form inverse kinematics, step by step.

Paper 003's geometric method for 5-DOF arms (yaw, three parallel pitch joints, roll), with
the digest's corrections, for both elbow branches: θ1 from the top view, the arm's vertical
plane (X5, Z5), the wrist point (X4, Z4), D, θ3 = atan2(±√(1 − D²), D), θ2 by the corrected
atan2 coupling, θ4 = φ − θ2 − θ3, θ5 free. The two-link law of cosines for planar 2R/3R arms
with a heading. For the other closed-form solvers (spherical wrist, UR) the branches and
their FK check. Every branch is checked against kinematica's own analytic solver and FK.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..ik.analytic import analytic_solutions, geometric5, solver_name
from ..ik.analytic.planar import ELBOWS
from ..ik.analytic.planar import LABELS as ELBOW_LABELS
from ..ik.analytic.planar import lengths as planar_lengths
from ..ik.frame import fit_target
from ..ik.reach import distance
from ..ik.target import Target, as_target
from ..kinematics.chain import check_q
from ..kinematics.fk import fk
from ..model.robot import Robot
from .common import joints_text, use_degrees
from .document import Document, Math, Table, number_text

# the solver's own: (−1, elbow up), (+1, elbow down)
BRANCHES = tuple(zip(ELBOWS.tolist(), ELBOW_LABELS, strict=True))


def _deg(x: float) -> str:
    return f"{number_text(np.degrees(x), 3)}°"


def _n(x: float, decimals: int | None = None) -> str:
    return number_text(x, decimals)


def eq(*parts: tuple[str, str, str]) -> Math:
    """`lhs = value` (LaTeX lhs, text lhs, value), several side by side."""
    return Math(r",\qquad ".join(f"{tex} = {v}" for tex, _, v in parts),
                ",   ".join(f"{txt} = {v}" for _, txt, v in parts))


def _branch_table(robot: Robot, t: Target, q_ref: np.ndarray, deg: bool) -> Table | None:
    out = analytic_solutions(robot, t, q_ref)
    if out is None:
        return None
    q, valid, labels = out
    rows = []
    for qi, ok, lab in zip(q[0], valid[0], labels, strict=True):
        err = float(distance(fk(robot, qi)[:3, 3] - t.p.reshape(3)))  # (no overflow for a far target)
        inside = bool(robot.within_limits(qi))
        vals = [(_deg(v) if robot.revolute[i] and deg else number_text(v, 4)) for i, v in enumerate(qi)]
        rows.append([lab] + vals + [err, "yes" if ok else "no", "yes" if inside else "no"])
    head = ["branch"] + [f"θ{i + 1}" if r else f"d{i + 1}" for i, r in enumerate(robot.revolute)]
    return Table(head + [f"FK error ({robot.length_unit})", "reaches", "in limits"], rows, None)


def _pitch(t: Target) -> float:
    a = t.approach_axis if t.kind == "approach" else t.rotation[:, 2]
    return float(np.arctan2(a[2], np.hypot(a[0], a[1])))


def _geometric5(doc: Document, robot: Robot, t: Target, q_ref: np.ndarray, deg: bool) -> None:
    P = geometric5.parameters(robot)
    lb, l2, l3, l4 = P["l_base"], P["l2"], P["l3"], P["l4"]
    u = robot.length_unit
    x, y, z = t.p
    phi = _pitch(t)
    s = doc.section("The arm's dimensions")
    s.step("Paper 003 splits the problem in two: the base angle θ1 from the view from above, then a "
           "two-link arm with a wrist in the vertical plane of the arm. Read from the robot:",
           table=Table(["length", f"value ({u})", "meaning"],
                       [["l_base", lb, "height of the shoulder axis above the base"],
                        ["l2", l2, "shoulder to elbow"], ["l3", l3, "elbow to wrist"],
                        ["l4", l4, "wrist to tool point (along the approach direction)"]], 4))
    s.step(f"Target: the tool point at ({_n(x)}, {_n(y)}, {_n(z)}) {u}, "
           f"the gripper pitched φ = {_deg(phi)} above the horizontal.")
    s = doc.section("Step by step")
    th1 = np.arctan2(y, x)
    s.step(heading="1. The base angle, seen from above", formulas=[eq(
        (r"\theta_1 = \mathrm{atan2}(y, x) = " + rf"\mathrm{{atan2}}({_n(y)}, {_n(x)})",
         f"θ1 = atan2(y, x) = atan2({_n(y)}, {_n(x)})", _deg(th1)))])
    X5, Z5 = np.hypot(x, y), z - lb
    s.step(heading="2. The vertical plane of the arm",
           text="Its horizontal axis points from the base to the target; distances along it and heights:",
           formulas=[eq((r"X_5 = \sqrt{x^2 + y^2}", "X5 = √(x² + y²)", _n(X5, 4)),
                        (r"Z_5 = z - l_{\text{base}}", "Z5 = z − l_base", _n(Z5, 4)))])
    X4, Z4 = X5 - l4 * np.cos(phi), Z5 - l4 * np.sin(phi)
    s.step(heading="3. The wrist point", text="Step back from the tool point along the gripper (length l4, pitch φ):",
           formulas=[eq((r"X_4 = X_5 - l_4 \cos\varphi", "X4 = X5 − l4·cos φ", _n(X4, 4)),
                        (r"Z_4 = Z_5 - l_4 \sin\varphi", "Z4 = Z5 − l4·sin φ", _n(Z4, 4)))])
    D = (X4 ** 2 + Z4 ** 2 - l2 ** 2 - l3 ** 2) / (2 * l2 * l3)
    s.step(heading="4. The law of cosines",
           formulas=[eq((r"D = \frac{X_4^2 + Z_4^2 - l_2^2 - l_3^2}{2 l_2 l_3}", "D = (X4² + Z4² − l2² − l3²) / (2·l2·l3)",
                         _n(D, 6)))])
    s.step(text=("|D| ≤ 1: the wrist point is within reach of the two links, and there are two ways to bend "
                 "the elbow." if abs(D) <= 1 else
                 "|D| > 1: the wrist point is farther than the two links can reach (or closer than they can "
                 "fold); there is no solution. The branches below are the nearest the arm can get."))
    Dc = float(np.clip(D, -1, 1))
    rows = []
    for k, (sign, name) in enumerate(BRANCHES):
        th3 = np.arctan2(sign * np.sqrt(1 - Dc * Dc), Dc)
        k1, k2 = l2 + l3 * np.cos(th3), l3 * np.sin(th3)
        th2 = np.arctan2(k1 * Z4 - k2 * X4, k1 * X4 + k2 * Z4)
        th4 = phi - th2 - th3
        sg = "+" if sign > 0 else "−"
        s.step(heading=f"{5 + k}. The {name} branch (the {sg} root)", formulas=[
            eq((rf"\theta_3 = \mathrm{{atan2}}({sg}\sqrt{{1 - D^2}},\ D)", f"θ3 = atan2({sg}√(1 − D²), D)", _deg(th3))),
            eq((r"k_1 = l_2 + l_3 \cos\theta_3", "k1 = l2 + l3·cos θ3", _n(k1, 4)),
               (r"k_2 = l_3 \sin\theta_3", "k2 = l3·sin θ3", _n(k2, 4))),
            eq((r"\theta_2 = \mathrm{atan2}(k_1 Z_4 - k_2 X_4,\ k_1 X_4 + k_2 Z_4)",
                "θ2 = atan2(k1·Z4 − k2·X4, k1·X4 + k2·Z4)", _deg(th2))),
            eq((r"\theta_4 = \varphi - \theta_2 - \theta_3", "θ4 = φ − θ2 − θ3", _deg(th4)))])
        rows.append([name, _deg(th1), _deg(th2), _deg(th3), _deg(th4)])
    s.step("Paper 003 prints θ2 = arctg(±√(1 − C²)/C); the sign there is not free — it must match the "
           "sign of sin θ2 — and arctg of a ratio loses the quadrant. The atan2 form above is the "
           "correction (DIGEST §4.3). θ5 only rolls the gripper about its own axis: it does not move the "
           f"tool point, so it stays at its reference value {_deg(q_ref[4])}.")
    s = doc.section("The solutions")
    s.step("Paper 003's angles for the two branches:",
           table=Table(["branch", "θ1", "θ2", "θ3", "θ4"], rows))
    s.step("kinematica's analytic solver gives the same branches in the robot's own joint values — also the "
           "two with the base turned by 180° (reaching over the top, 'back-flip') — each checked by "
           "forward kinematics:", table=_branch_table(robot, t, q_ref[None], deg))


def _planar(doc: Document, robot: Robot, t: Target, q_ref: np.ndarray, deg: bool) -> None:
    L = planar_lengths(robot)
    u = robot.length_unit
    x, y = t.p[:2]
    s = doc.section("Step by step")
    wx, wy = x, y
    if robot.n == 3:
        phi = float(t.heading)
        wx, wy = x - L[2] * np.cos(phi), y - L[2] * np.sin(phi)
        s.step(heading="1. The wrist point",
               text=f"Step back from the target along the last link (L3 = {_n(L[2])} {u}, heading φ = {_deg(phi)}):",
               formulas=[eq((r"x_w = x - L_3\cos\varphi", "xw = x − L3·cos φ", _n(wx, 4)),
                            (r"y_w = y - L_3\sin\varphi", "yw = y − L3·sin φ", _n(wy, 4)))])
    D = (wx ** 2 + wy ** 2 - L[0] ** 2 - L[1] ** 2) / (2 * L[0] * L[1])
    s.step(heading="2. The law of cosines", formulas=[eq((
        r"D = \cos\theta_2 = \frac{x_w^2 + y_w^2 - L_1^2 - L_2^2}{2 L_1 L_2}",
        "D = cos θ2 = (xw² + yw² − L1² − L2²) / (2·L1·L2)", _n(D, 6)))],
        text="" if abs(D) <= 1 else "|D| > 1: out of reach; no solution.")
    Dc = float(np.clip(D, -1, 1))
    for k, (sign, name) in enumerate(BRANCHES):
        th2 = np.arctan2(sign * np.sqrt(1 - Dc * Dc), Dc)
        th1 = np.arctan2(wy, wx) - np.arctan2(L[1] * np.sin(th2), L[0] + L[1] * np.cos(th2))
        sg = "+" if sign > 0 else "−"
        f = [eq((rf"\theta_2 = \mathrm{{atan2}}({sg}\sqrt{{1 - D^2}}, D)", f"θ2 = atan2({sg}√(1 − D²), D)", _deg(th2))),
             eq((r"\theta_1 = \mathrm{atan2}(y_w, x_w) - \mathrm{atan2}(L_2 \sin\theta_2,\ L_1 + L_2\cos\theta_2)",
                 "θ1 = atan2(yw, xw) − atan2(L2·sin θ2, L1 + L2·cos θ2)", _deg(th1)))]
        if robot.n == 3:
            f.append(eq((r"\theta_3 = \varphi - \theta_1 - \theta_2", "θ3 = φ − θ1 − θ2", _deg(float(t.heading) - th1 - th2))))
        s.step(heading=f"{3 + k}. The {name} branch", formulas=f)
    doc.section("The solutions").step("Both branches from kinematica's analytic solver, checked by FK:",
                                      table=_branch_table(robot, t, q_ref[None], deg))


def explain_analytic_ik(robot: Robot, target: Target | ArrayLike, q0: ArrayLike | None = None, *,
                        deg: bool | None = None) -> Document:
    """The closed-form IK of one target, step by step (paper 003's method on 5-DOF arms)."""
    t = fit_target(robot, as_target(target))
    deg = use_degrees(robot, deg)
    q_ref = robot.q_home if q0 is None else check_q(robot, q0, "q0").reshape(robot.n)
    name = solver_name(robot)
    if t.kind == "position" and name == "geometric5":
        raise InputError(f"{robot.name}: a position alone leaves the gripper's pitch free (infinitely many "
                         "solutions); give the pitch (--pitch) or the approach direction")
    doc = Document(f"Closed-form inverse kinematics of {robot.name}",
                   "The joint angles computed directly from the geometry of the arm, every branch at once "
                   f"(reference for free joints: {joints_text(robot, q_ref, deg)}).")
    with np.errstate(over="ignore", invalid="ignore"):  # a target far beyond float range shows inf/nan
        if name == "geometric5" and t.kind in ("approach", "pose"):
            _geometric5(doc, robot, t, q_ref, deg)
        elif name == "planar" and t.kind == "planar" and (robot.n == 2 or t.phi is not None):
            _planar(doc, robot, t, q_ref, deg)
        else:
            table = _branch_table(robot, t, q_ref[None], deg)
            if table is None:
                raise InputError(f"no closed-form solver fits {robot.name} with a {t.kind} target; "
                                 "explain the numeric solver instead (method lm)")
            doc.section("The solutions").step(f"The {name} solver's branches, each checked by forward kinematics:",
                                              table=table)
    return doc

