"""Inverse dynamics by recursive Newton–Euler, step by step, every vector in base coordinates.

Forward pass, link by link from the base (z_i, o_i: axis and origin of joint i; c_i: centre of
mass of link i; gravity enters as an upward acceleration of the base, a_0 = −g):
  revolute   ω_i = ω_(i−1) + q̇_i z_i,   α_i = α_(i−1) + q̈_i z_i + q̇_i ω_(i−1) × z_i
  prismatic  ω_i = ω_(i−1),             α_i = α_(i−1)
  a_(o,i) = a_(o,i−1) + α_(i−1) × r + ω_(i−1) × (ω_(i−1) × r),  r = o_i − o_(i−1)
            (+ 2 q̇_i ω_(i−1) × z_i + q̈_i z_i for a prismatic joint)
  a_(c,i) = a_(o,i) + α_i × (c_i − o_i) + ω_i × (ω_i × (c_i − o_i))
  F_i = m_i a_(c,i),   N_i = I_i α_i + ω_i × (I_i ω_i)      (I_i about c_i, turned into base axes)
Backward pass, from the tool to the base (f_i, n_i: force and moment that link i − 1 exerts on
link i, the moment about o_i):
  f_i = F_i + f_(i+1),   n_i = N_i + n_(i+1) + (c_i − o_i) × F_i + (o_(i+1) − o_i) × f_(i+1)
  τ_i = z_i · n_i (revolute),   τ_i = z_i · f_i (prismatic)
The torques are checked against `km.rne` (the compiled recursion in joint frames).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics.params import GRAVITY, link_params
from ..dynamics.rne import rne
from ..errors import InputError
from ..kinematics.chain import check_q
from ..kinematics.fk import fk_frames
from ..model.robot import Robot
from .common import joints_quantity, joints_text, scalar, use_degrees, vector
from .document import Document, Math, Table

FORWARD = [Math(r"\omega_i = \omega_{i-1} + \dot q_i z_i", "ω_i = ω(i−1) + q̇_i z_i"),
           Math(r"\alpha_i = \alpha_{i-1} + \ddot q_i z_i + \dot q_i\, \omega_{i-1} \times z_i",
                "α_i = α(i−1) + q̈_i z_i + q̇_i ω(i−1) × z_i"),
           Math(r"a_{o,i} = a_{o,i-1} + \alpha_{i-1} \times r_i + \omega_{i-1} \times (\omega_{i-1} \times r_i),"
                r"\quad r_i = o_i - o_{i-1}",
                "a_o,i = a_o,(i−1) + α(i−1) × r_i + ω(i−1) × (ω(i−1) × r_i),  r_i = o_i − o(i−1)"),
           Math(r"a_{c,i} = a_{o,i} + \alpha_i \times (c_i - o_i) + \omega_i \times (\omega_i \times (c_i - o_i))",
                "a_c,i = a_o,i + α_i × (c_i − o_i) + ω_i × (ω_i × (c_i − o_i))"),
           Math(r"F_i = m_i\, a_{c,i}, \qquad N_i = I_i\, \alpha_i + \omega_i \times (I_i\, \omega_i)",
                "F_i = m_i a_c,i,   N_i = I_i α_i + ω_i × (I_i ω_i)")]
BACKWARD = [Math(r"f_i = F_i + f_{i+1}", "f_i = F_i + f(i+1)"),
            Math(r"n_i = N_i + n_{i+1} + (c_i - o_i) \times F_i + (o_{i+1} - o_i) \times f_{i+1}",
                 "n_i = N_i + n(i+1) + (c_i − o_i) × F_i + (o(i+1) − o_i) × f(i+1)"),
            Math(r"\tau_i = z_i \cdot n_i\ \text{(revolute)}, \qquad \tau_i = z_i \cdot f_i\ \text{(prismatic)}",
                 "τ_i = z_i · n_i (revolute),   τ_i = z_i · f_i (prismatic)")]


def newton_euler_passes(robot: Robot, q, qd, qdd, gravity=GRAVITY) -> dict[str, np.ndarray]:
    """Every intermediate vector of the two passes (SI, base axes): per link ω, α, a_o, a_c, F, N,
    f, n, and τ (n,) — without friction or armature."""
    P = link_params(robot)
    s = P.scale
    si = np.where(robot.revolute, 1.0, s)
    qd, qdd = np.asarray(qd, float) * si, np.asarray(qdd, float) * si
    F = fk_frames(robot, q)
    G = F[1:-1] @ np.linalg.inv(robot.after)  # joint frames after their motion: axis z, origin o
    z, o = G[:, :3, 2], G[:, :3, 3] * s
    R = F[1:-1, :3, :3]
    c = np.einsum("nij,nj->ni", R, P.com) + F[1:-1, :3, 3] * s
    I = R @ P.inertia @ np.swapaxes(R, -1, -2)
    n = robot.n
    out: dict[str, np.ndarray] = {k: np.zeros((n, 3)) for k in ("w", "al", "ao", "ac", "F", "N", "f", "nm")}
    w, al, ao, o_prev = np.zeros(3), np.zeros(3), -np.asarray(gravity, float), F[0, :3, 3] * s
    for i in range(n):
        r = o[i] - o_prev
        ao = ao + np.cross(al, r) + np.cross(w, np.cross(w, r))
        if robot.revolute[i]:
            al = al + qdd[i] * z[i] + qd[i] * np.cross(w, z[i])
            w = w + qd[i] * z[i]
        else:
            ao = ao + 2 * qd[i] * np.cross(w, z[i]) + qdd[i] * z[i]
        d = c[i] - o[i]
        ac = ao + np.cross(al, d) + np.cross(w, np.cross(w, d))
        out["w"][i], out["al"][i], out["ao"][i], out["ac"][i] = w, al, ao, ac
        out["F"][i] = P.mass[i] * ac
        out["N"][i] = I[i] @ al + np.cross(w, I[i] @ w)
        o_prev = o[i]
    f, nm, tau = np.zeros(3), np.zeros(3), np.zeros(n)
    o_next = o[-1]
    for i in reversed(range(n)):
        nm = out["N"][i] + nm + np.cross(c[i] - o[i], out["F"][i]) + np.cross(o_next - o[i], f)
        f = out["F"][i] + f
        out["f"][i], out["nm"][i] = f, nm
        tau[i] = z[i] @ nm if robot.revolute[i] else z[i] @ f
        o_next = o[i]
    out.update(tau=tau, z=z, o=o, c=c, mass=P.mass)
    return out


def explain_dynamics(robot: Robot, q: ArrayLike, qd: ArrayLike | None = None, qdd: ArrayLike | None = None, *,
                     gravity: ArrayLike | None = None, deg: bool | None = None) -> Document:
    """The joint torques that produce qdd at (q, qd), by the two Newton–Euler passes."""
    if robot.helical.any():
        i = int(np.argmax(robot.helical))
        raise InputError(f"joint {i + 1} ({robot.joint_names[i]}) of {robot.name!r} is helical: the "
                         "step-by-step Newton–Euler covers revolute and prismatic joints (km.rne "
                         "computes a helical robot's torques)")
    q = check_q(robot, q)
    qd = np.zeros(robot.n) if qd is None else check_q(robot, qd, "qd")
    qdd = np.zeros(robot.n) if qdd is None else check_q(robot, qdd, "qdd")
    g = GRAVITY if gravity is None else np.asarray(gravity, dtype=float)
    deg = use_degrees(robot, deg)
    res = newton_euler_passes(robot, q, qd, qdd, g)
    doc = Document(f"Inverse dynamics of {robot.name}",
                   "Which joint torques make the arm move with the given accelerations? The recursive "
                   "Newton–Euler method runs twice along the chain: outwards for the motion of every link, "
                   "inwards for the forces that cause it.")
    s = doc.section("The state")
    s.step(f"Joint values {joints_text(robot, q, deg)}; rates and accelerations as below. Units: SI "
           "(m, rad/s, rad/s², N, N·m); gravity in base coordinates.",
           values=[joints_quantity(robot, q, deg, Math("q", "q")),
                   vector(r"\dot q", "q̇", qd, "rad/s" if all(robot.revolute) else ""),
                   vector(r"\ddot q", "q̈", qdd, "rad/s²" if all(robot.revolute) else ""),
                   vector("g", "g", g, "m/s²")])
    s.step("The links' inertial parameters (each centre of mass and inertia is given in its link frame):",
           table=Table(["link", "mass (kg)", "centre of mass in base axes (m)"],
                       [[f"{i + 1} ({robot.joint_names[i]})", res["mass"][i], list(res["c"][i])] for i in range(robot.n)]))
    s = doc.section("Forward pass: the motion of each link")
    s.step("From the base outwards. The base does not move, but gravity is counted as an upward acceleration "
           "of it, a₀ = −g, so that every link carries its weight:", formulas=FORWARD)
    for i in range(robot.n):
        s.step(heading=f"Link {i + 1} ({robot.joint_names[i]}, {robot.joint_types[i]})", values=[
            vector(f"z_{{{i + 1}}}", f"z{i + 1}", res["z"][i]),
            vector(rf"\omega_{{{i + 1}}}", f"ω{i + 1}", res["w"][i], "rad/s"),
            vector(rf"\alpha_{{{i + 1}}}", f"α{i + 1}", res["al"][i], "rad/s²"),
            vector(f"a_{{c,{i + 1}}}", f"a_c{i + 1}", res["ac"][i], "m/s²"),
            vector(f"F_{{{i + 1}}}", f"F{i + 1}", res["F"][i], "N"),
            vector(f"N_{{{i + 1}}}", f"N{i + 1}", res["N"][i], "N·m")])
    s = doc.section("Backward pass: the forces and the joint torques")
    s.step("From the tool inwards (nothing pushes on the tool: f and n beyond the last link are zero). Each "
           "link passes on to its parent what it needs itself plus what its children need:", formulas=BACKWARD)
    for i in reversed(range(robot.n)):
        unit = "N·m" if robot.revolute[i] else "N"
        s.step(heading=f"Link {i + 1} ({robot.joint_names[i]})", values=[
            vector(f"f_{{{i + 1}}}", f"f{i + 1}", res["f"][i], "N"),
            vector(f"n_{{{i + 1}}}", f"n{i + 1}", res["nm"][i], "N·m"),
            scalar(rf"\tau_{{{i + 1}}}", f"τ{i + 1}", res["tau"][i], unit, 4)])
    s = doc.section("The torques")
    full = rne(robot, q, qd, qdd, gravity=g)
    extra = full - res["tau"]
    s.step("The joint torques (N·m for revolute joints, N for prismatic ones):",
           values=[vector(r"\tau", "τ", res["tau"], "N·m" if all(robot.revolute) else "")])
    if np.any(np.abs(extra) > 1e-9 * (1 + np.abs(full).max())):
        s.step("The robot's joint friction and motor inertia add to these:",
               values=[vector(r"\tau_{\text{drive}}", "τ_drive", extra), vector(r"\tau_{\text{total}}", "τ_total", full)])
    s.step("Check: kinematica's compiled Newton–Euler (`km.rne`, in the joints' own frames) gives "
           + ("the same torques." if np.allclose(res["tau"] + extra, full, atol=1e-9 * (1 + np.abs(full).max()))
              else "different torques — please report this."))
    return doc
