"""Compiled (Numba) closed forms for one pose target: the branch nearest a seed, as
`closed.nearest_branches(…, checked=False)` computes it in NumPy for a batch.

The equations are those of `analytic.spherical_wrist` (6R, axes 4–6 meeting: Puma 560, KUKA KR6)
and `analytic.ur` (6R, axes 2–4 parallel, 5 ∩ 6: UR3/5/10), in their order, one target at a time:

  wrist point   x = p + R w,  then in the joint-1 frame: v = R0ᵀ (x − p0); the tool's x and z
                axes likewise (R0ᵀ R x6, R0ᵀ R z6)                                   `_tool`
  yaw           θ1 = atan2(v_y, v_x) − ∠h − atan2(±√(v_x² + v_y² − d²), d)   (shoulder ±)  `_yaw`
  plane         g = R1ᵀ Rz(−θ1) v − p1: the point in the joint-2 frame              `_turn`
  two links     r² = g_x² + g_y², S = ±√(((L1 + L2)² − r²)(r² − (L1 − L2)²)) = 2 L1 L2 sin θ,
                θ = atan2(S, r² − L1² − L2²), φ = atan2(g_y, g_x) − atan2(S, r² + L1² − L2²)  `_elbow`
  wrist         θb = ψ + atan2(±|m_xy|, m_z), θa = ∠m − ∠(v0 m_z + v1 s_b),
                θc = ∠(v0' m_z + v1' s_b) − ∠r   (wrist no flip / flip; `analytic.wrist`)  `_wrist`

2 shoulders × 2 elbows × 2 wrists = 8 candidates, each wrapped to (−π, π] and then by 2π into
the joint limits where that is possible (`analytic._wrap`'s rule), marked reachable by the
solver's own geometry (as `analytic_candidates`: a seed, which LM and the verdict check anyway).
The nearest: the reachable candidate inside the limits (when enforced) with the smallest
joint-space distance to the seed, each gap taken modulo 2π.

`candidates` (every branch) also answers `km.ik(method="analytic")` for one pose target once the
kernels are loaded (`closed._one_compiled`, which FK-checks them as `analytic_solutions` does).

Constants come from the NumPy solvers' own structure objects (`constants`), packed into arrays
once per robot: the closed form is written once as equations, read from the robot once.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from ..model.robot import LIMIT_TOL, Robot
from .analytic import solver_name
from .analytic.geometry import LENGTH_TOL, ROUNDING
from ..model.memo import per_robot

_F8 = types.float64
_RO1, _RO2, _RO3 = (types.Array(_F8, d, "A", readonly=True) for d in (1, 2, 3))
_W1 = types.Array(_F8, 1, "A")

SPHERICAL, UR = 1, 2  # the solver kinds (S[KIND])
# S: the arm plane's and the wrist's scalars, by these indices
KIND, H_ANGLE, D, SCALE, L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2, PSI = range(15)
V0, V1, VR0, VR1 = 15, 17, 19, 21  # the wrist's complex constants: real part, then imaginary
S_LEN = 23
# F: rotations R0, R1 (the arm plane), W (columns w, x6, z6 of the tool), PRE (spherical: the
# last arm frame to joint 4), B, C (the wrist); P: the points p0, p1
R0, R1, W, PRE, B, C = range(6)
P0, P1 = range(2)
# per joint: offset, how `analytic._wrap` treats it (0 free, 1 narrow range, 2 wide range), the
# middle of its range, its limits
OFFSET, WRAP, MID, LO, HI = range(5)
TWO_PI = 2.0 * math.pi


@per_robot
def constants(robot: Robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(S, F, P, joints) of the robot's closed form for `nearest`, or None when neither the
    spherical-wrist nor the UR solver fits it."""
    from .analytic import _limited, spherical_wrist, ur

    kind = {"spherical wrist": SPHERICAL, "ur": UR}.get(solver_name(robot))
    if kind is None:
        return None
    arm = (spherical_wrist if kind == SPHERICAL else ur).structure(robot)
    pl, wr = arm.plane, arm.wrist
    S = np.zeros(S_LEN)
    L = np.zeros(3)
    L[:len(pl.L)] = pl.L
    beta, kappa, sense = np.zeros(3), np.zeros(2), np.ones(3)
    beta[:len(pl.beta)], kappa[:len(pl.kappa)], sense[:len(pl.sense)] = pl.beta, pl.kappa, pl.sense
    S[[KIND, H_ANGLE, D, SCALE, PSI]] = kind, pl.h_angle, pl.d, pl.scale, wr.psi
    S[[L0, L1, L2, BETA0, BETA1, BETA2, KAPPA0, KAPPA1, SENSE1, SENSE2]] = (*L, *beta, *kappa, *sense[1:])
    for at, z in zip((V0, V1, VR0, VR1), (*wr.v, *wr.v_row)):
        S[at], S[at + 1] = z.real, z.imag
    F = np.stack([pl.R0, pl.R1, arm.cols, getattr(arm, "pre", np.eye(3)), wr.B, wr.C]).astype(float)
    P = np.stack([pl.p0, pl.p1]).astype(float)
    joints = np.zeros((6, 5))
    joints[:, OFFSET], joints[:, LO], joints[:, HI] = robot.offsets, robot.limits[:, 0], robot.limits[:, 1]
    narrow, mid, wide, _, mid_w = _limited(robot)
    joints[narrow, WRAP], joints[narrow, MID] = 1, mid
    joints[wide, WRAP], joints[wide, MID] = 2, mid_w
    for a in (S, F, P, joints):
        a.setflags(write=False)
    return S, F, P, joints


def labels(robot: Robot) -> list[str]:
    """The names of the 8 branches of `candidates`, in its order (the NumPy solver's labels);
    call only where `constants(robot)` is not None."""
    from .analytic import spherical_wrist, ur

    return list((spherical_wrist if solver_name(robot) == "spherical wrist" else ur).structure(robot).labels)


@njit(cache=True, inline="always")
def _c(S, i):
    """The complex constant stored at S[i], S[i + 1]."""
    return complex(S[i], S[i + 1])


@njit(cache=True)
def _turn(c, s, v, R, out):
    """out = Rᵀ Rz(−θ) v (c, s = cos θ, sin θ): `arm.turn_back` for one vector."""
    x, y, z = v[0] * c + v[1] * s, v[1] * c - v[0] * s, v[2]
    for j in range(3):
        out[j] = x * R[0, j] + y * R[1, j] + z * R[2, j]


@njit(cache=True)
def _tool(F, P, pd, Rd, V):
    """V (3, 3): rows the wrist point, the tool's x axis and its z axis, in the joint-1 frame."""
    x = np.empty(3)
    for i in range(3):
        for r in range(3):
            x[r] = Rd[r, 0] * F[W, 0, i] + Rd[r, 1] * F[W, 1, i] + Rd[r, 2] * F[W, 2, i]
            if i == 0:
                x[r] += pd[r] - P[P0, r]
        for j in range(3):
            V[i, j] = x[0] * F[R0, 0, j] + x[1] * F[R0, 1, j] + x[2] * F[R0, 2, j]


@njit(cache=True)
def _yaw(S, vx, vy, ref, th):
    """θ1 of both shoulders into th (2,) for the point (vx, vy) of the joint-1 frame; whether
    the point is outside the cylinder of radius |d| around axis 1. On axis 1 (θ1 free) the
    shoulders take ref and ref + π."""
    r2, d = vx * vx + vy * vy, S[D]
    for k in range(2):
        sh = 1.0 - 2.0 * k  # ρ's sign: +1, −1
        if d == 0:
            th[k] = (math.atan2(vy, vx) - S[H_ANGLE]) - sh * (math.pi / 2)
        else:
            th[k] = (math.atan2(vy, vx) - S[H_ANGLE]) - math.atan2(math.sqrt(max(r2 - d * d, 0.0)) * sh, d)
    if r2 <= (ROUNDING * S[SCALE]) ** 2:
        th[0], th[1] = ref, ref + math.pi
    return r2 >= d * d - (LENGTH_TOL * S[SCALE]) ** 2


@njit(cache=True)
def _elbow(x, y, L1, L2, sign):
    """`planar.elbow`: (φ, θ, reachable) of the two-link arm reaching (x, y), θ's sign `sign`."""
    r2 = x * x + y * y
    far, near = (L1 + L2) ** 2 - r2, r2 - (L1 - L2) ** 2
    tol = 1e-12 * (L1 + L2) ** 2
    Sv = sign * math.sqrt(max(far, 0.0) * max(near, 0.0))
    th = math.atan2(Sv, r2 - (L1 * L1 + L2 * L2))
    phi = math.atan2(y, x) - math.atan2(Sv, r2 + (L1 * L1 - L2 * L2))
    return phi, th, far >= -tol and near >= -tol


@njit(cache=True)
def _wrist(S, F, m, m1, ref_a, flip, out, at):
    """`wrist.solve` for one branch (flip ±1): θa, θb, θc into out[at:at + 3] for
    Rz(θa) B Rz(θb) C Rz(θc) = M, given m = M ẑ and m1 = M x̂."""
    mc, mz = complex(m[0], m[1]), m[2]
    sb = abs(mc) * flip
    tb = math.atan2(sb, mz) + S[PSI]
    z = mc * (_c(S, V0) * mz + _c(S, V1) * sb).conjugate()
    ta = math.atan2(z.imag, z.real)
    r = complex(m1[2], (mc.conjugate() * complex(m1[0], m1[1])).imag)
    z = (_c(S, VR0) * mz + _c(S, VR1) * sb) * r.conjugate()
    tc = math.atan2(z.imag, z.real)
    if abs(sb) < 1e-2:  # wrist.NEAR: θc from the whole remaining rotation (wrist._near_singular)
        if abs(sb) < 1e-14:  # wrist.SINGULAR: axes a and c aligned, θa keeps its reference
            ta = ref_a
        w, n = np.empty(3), np.empty(3)
        _turn(math.cos(ta), math.sin(ta), m1, F[B], w)
        _turn(math.cos(tb), math.sin(tb), w, F[C], n)
        tc = math.atan2(n[1], n[0])
    out[at], out[at + 1], out[at + 2] = ta, tb, tc


@njit(cache=True)
def _arm(S, gx, gy, sign, A_last, out):
    """`arm.chain` for one branch: the parallel joints' θ into out[1:3] (spherical) or out[1:4]
    (UR, the pitch A_last given: the wrist point W = g − L3 u(A_last + s3 β3) reached by the
    first two links, θ4 = s3 (A_last − A_2 − s2 κ2)); A_2 and whether the point is reached."""
    if S[KIND] == UR:
        a = A_last + S[SENSE2] * S[BETA2]
        gx, gy = gx - S[L2] * math.cos(a), gy - S[L2] * math.sin(a)
    phi, gamma, ok = _elbow(gx, gy, S[L0], S[L1], sign)
    th2 = phi - S[BETA0]
    A2 = phi + gamma - S[SENSE1] * S[BETA1]
    out[1], out[2] = th2, S[SENSE1] * (A2 - th2 - S[KAPPA0])
    if S[KIND] == UR:
        out[3] = S[SENSE2] * (A_last - A2 - S[SENSE1] * S[KAPPA1])
    return A2, ok


@njit(cache=True)
def _branches(S, F, P, joints, pd, Rd, ref, Q, reach):
    """The 8 candidates (θ − offset, before wrapping) into Q (8, 6) in the order shoulder ×
    elbow × wrist of the NumPy solvers' labels, and whether the solver's geometry reaches
    each into reach (8,). ref (6,): the seed, giving θ1 on axis 1 and the wrist's θa (θ4, or
    the UR's pitch θ2 + θ3 + θ4) at its singularity."""
    V, U, M, th1 = np.empty((3, 3)), np.empty((3, 3)), np.empty((2, 3)), np.empty(2)
    _tool(F, P, pd, Rd, V)
    r = np.empty(6)
    for j in range(6):
        r[j] = ref[j] + joints[j, OFFSET]
    ok1 = _yaw(S, V[0, 0], V[0, 1], r[0], th1)
    ur = S[KIND] == UR
    # arm.last_angle: the pitch of the parallel joints at the reference
    ref_a = (r[1] + S[KAPPA0] + S[SENSE1] * r[2]) + S[SENSE1] * S[KAPPA1] + S[SENSE2] * r[3] if ur else r[3]
    for s in range(2):
        c, sn = math.cos(th1[s]), math.sin(th1[s])
        for i in range(3):
            _turn(c, sn, V[i], F[R1], U[i])
        gx, gy = U[0, 0] - P[P1, 0], U[0, 1] - P[P1, 1]
        for e in range(2):
            sign = (1.0 - 2.0 * s) * (2.0 * e - 1.0)  # SHOULDER[s] · ELBOWS[e]
            top = Q[4 * s + 2 * e]
            ok = True
            if not ur:  # the arm first: its pitch A_2 turns the tool's axes into the wrist's M
                A2, ok = _arm(S, gx, gy, sign, 0.0, top)
                c, sn = math.cos(A2), math.sin(A2)
                _turn(c, sn, U[1], F[PRE], M[0])
                _turn(c, sn, U[2], F[PRE], M[1])
            for f in range(2):
                q = Q[4 * s + 2 * e + f]
                q[0] = th1[s]
                if ur:  # the wrist first: its θa is the pitch the arm must make
                    _wrist(S, F, U[2], U[1], ref_a, 1.0 - 2.0 * f, q, 3)
                    ok = _arm(S, gx, gy, sign, q[3], q)[1]
                else:
                    q[1], q[2] = top[1], top[2]
                    _wrist(S, F, M[1], M[0], ref_a, 1.0 - 2.0 * f, q, 3)
                reach[4 * s + 2 * e + f] = ok and ok1
    for k in range(8):
        for j in range(6):
            Q[k, j] -= joints[j, OFFSET]
    return ok1


@njit(cache=True)
def _wrap(x, joint):
    """`analytic._wrap` for one joint value: to (−π, π], then by 2π into the joint's limits
    where that is possible (a narrow range: the shift nearest its middle; a wide one: the
    first shift that reaches it, else the one nearest its middle)."""
    x -= TWO_PI * np.rint(x * (1 / TWO_PI))
    if x <= -math.pi:
        x += TWO_PI
    if joint[WRAP] == 1:
        return x - TWO_PI * np.rint((x - joint[MID]) * (1 / TWO_PI))
    if joint[WRAP] == 2:
        lo, hi = joint[LO], joint[HI]
        cand = x
        if x < lo:
            cand = x + TWO_PI * math.ceil((max(lo, -1e9) - x) * (1 / TWO_PI))
        elif x > hi:
            cand = x - TWO_PI * math.ceil((x - min(hi, 1e9)) * (1 / TWO_PI))
        return cand if lo <= cand <= hi else x - TWO_PI * np.rint((x - joint[MID]) * (1 / TWO_PI))
    return x


@njit(types.boolean(_RO1, _RO3, _RO2, _RO2, _RO1, _RO2, _RO1, types.Array(_F8, 2, "C"),
                    types.Array(types.boolean, 1, "C")), cache=True)
def candidates(S, F, P, joints, pd, Rd, ref, Q, reach):
    """`analytic_candidates` for one pose target (pd (3,), Rd (3, 3)): the 8 branches, wrapped,
    into Q (8, 6) and the solver's reachability into reach (8,); whether the wrist point lies
    outside the cylinder of radius |d| about axis 1."""
    ok1 = _branches(S, F, P, joints, pd, Rd, ref, Q, reach)
    for k in range(8):
        for j in range(6):
            Q[k, j] = _wrap(Q[k, j], joints[j])
    return ok1


@njit(types.boolean(_RO1, _RO3, _RO2, _RO2, _RO1, _RO2, _RO1, types.boolean, _W1), cache=True)
def nearest(S, F, P, joints, pd, Rd, seed, enforce, q):
    """`closed.nearest_branches(…, checked=False)` for one target: the reachable branch inside
    the limits (when enforce) nearest the seed (6,), each gap modulo 2π, into q; False (q =
    the seed) when there is none."""
    Q, reach = np.empty((8, 6)), np.empty(8, np.bool_)
    candidates(S, F, P, joints, pd, Rd, seed, Q, reach)
    best, best_d = -1, math.inf
    for k in range(8):
        usable, d2 = reach[k], 0.0
        for j in range(6):
            x = Q[k, j]
            if enforce and not joints[j, LO] - LIMIT_TOL <= x <= joints[j, HI] + LIMIT_TOL:
                usable = False
            g = (x - seed[j] + math.pi) % TWO_PI - math.pi
            d2 += g * g
        d = math.sqrt(d2)
        if usable and d < best_d:
            best, best_d = k, d
    for j in range(6):
        q[j] = Q[best, j] if best >= 0 else seed[j]
    return best >= 0


def warm() -> None:
    """Run the kernels once on a spherical wrist and a UR geometry (compiled at import: this
    proves they run)."""
    S = np.zeros(S_LEN)
    S[[KIND, SCALE, L0, L1, L2, SENSE1, SENSE2]] = SPHERICAL, 1.0, 0.5, 0.5, 0.1, 1.0, 1.0
    F, P, joints = np.broadcast_to(np.eye(3), (6, 3, 3)).copy(), np.zeros((2, 3)), np.zeros((6, 5))
    joints[:, LO], joints[:, HI] = -np.pi, np.pi
    q, pd = np.empty(6), np.array([0.3, 0.2, 0.1])
    for kind in (SPHERICAL, UR):
        S[KIND] = kind
        nearest(S, F, P, joints, pd, np.eye(3), np.zeros(6), True, q)
