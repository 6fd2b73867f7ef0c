"""Mass matrix by the composite-rigid-body algorithm, and its LDLᵀ solve, written on scalars.

Composite body i (links i..n, rigid at the current q) in joint frame i: mass m, first moment h,
inertia I about the joint origin. It moves into frame i − 1 across X = (R_K Rz(θ), p) (a slide
d first moves it d e_z along the joint's z) by turning and the parallel-axis theorem:
  h' = R h + m p,   I' = R I Rᵀ + m (|p|² 1 − p pᵀ) + 2 (p · Rh) 1 − Rh pᵀ − p (Rh)ᵀ.
Column i of M is the force that accelerating joint i alone takes, with the composite body
i as the only load: a revolute joint (ω̇ = e_z) needs f = e_z × h, n = I e_z; a prismatic one
(v̇ = e_z) needs f = m e_z, n = h × e_z; a helical one of pitch k, both (the first times 1,
the second times k). Carried to each joint j ≤ i (newton_euler.to_parent), M_ji is
`newton_euler.joint_force` of j: n_j · e_z, f_j · e_z, or n_j · e_z + k_j f_j · e_z. Armature
adds to the diagonal.

Forward dynamics solves M x = b by M = L D Lᵀ (L unit lower triangular, no square roots) and
returns, with x, the pivots D and c = tr(M) · tr(M⁻¹), where tr(M⁻¹) = Σ_k ‖row k of L⁻¹‖² / D_k:
as λ_max ≤ tr(M) and λ_min ≥ 1 / tr(M⁻¹), c bounds the condition number from above, so
positive pivots and c < 1e12 prove M regular without computing its eigenvalues.
"""

from __future__ import annotations

from .local import Local
from .newton_euler import add, joint_force, rot, times, to_parent


def _turn(R, I):
    """R I Rᵀ for a constant R and a symmetric I (rows): upper triangle computed, mirrored."""
    RI = [rot(R, col) for col in zip(*I, strict=True)]  # columns of R I
    out = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            out[r][c] = out[c][r] = R[c][0] * RI[0][r] + R[c][1] * RI[1][r] + R[c][2] * RI[2][r]
    return tuple(tuple(row) for row in out)


def _turn_z(c, s, I):
    """Rz(θ) I Rz(θ)ᵀ for a symmetric I."""
    xx, xy, xz, yy, yz, zz = I[0][0], I[0][1], I[0][2], I[1][1], I[1][2], I[2][2]
    cc, ss, cs = c * c, s * s, c * s
    nxx = cc * xx + ss * yy - 2.0 * cs * xy
    nyy = ss * xx + cc * yy + 2.0 * cs * xy
    nxy = cs * (xx - yy) + (cc - ss) * xy
    nxz, nyz = c * xz - s * yz, s * xz + c * yz
    return ((nxx, nxy, nxz), (nxy, nyy, nyz), (nxz, nyz, zz))


def _shift(m, h, I, p):
    """First moment and inertia of (m, h, I) about a point at −p (p: the old origin there)."""
    pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
    ph = p[0] * h[0] + p[1] * h[1] + p[2] * h[2]
    diag = m * pp + 2.0 * ph
    J = tuple(tuple(I[r][c] + (diag if r == c else 0.0) - m * p[r] * p[c] - h[r] * p[c] - p[r] * h[c]
                    for c in range(3)) for r in range(3))
    return add(h, times(m, p)), J


def _into_parent(L: Local, i: int, joint, body):
    """Composite body (m, h, I) of joint frame i expressed in frame i − 1."""
    m, h, I = body
    if L.revolute[i]:
        c, s = joint[:2]
        if L.pitch[i]:  # frame i = K · Rz(θ) · Tz(d): the slide first, then the turn
            h, I = _shift(m, h, I, (0.0, 0.0, joint[2]))
        h, I = (c * h[0] - s * h[1], s * h[0] + c * h[1], h[2]), _turn_z(c, s, I)
    else:
        h, I = _shift(m, h, I, (0.0, 0.0, joint))
    h, I = rot(L.R[i], h), _turn(L.R[i], I)
    return (m,) + _shift(m, h, I, L.p[i])


def mass_matrix(L: Local, joints):
    """M (rows, a tuple of n tuples) from the joint geometry ((c, s) or d per joint)."""
    n = L.n
    M = [[0.0] * n for _ in range(n)]
    bodies = [(L.mass[i], L.h[i], L.I[i]) for i in range(n)]
    for i in reversed(range(n)):
        m, h, I = bodies[i]
        if L.revolute[i]:
            f, t = (-h[1], h[0], 0.0), (I[0][2], I[1][2], I[2][2])
            k = L.pitch[i]
            if k:  # plus k times the prismatic load
                f, t = (f[0], f[1], k * m), (t[0] + k * h[1], t[1] - k * h[0], t[2])
        else:
            f, t = (0.0, 0.0, m), (h[1], -h[0], 0.0)
        M[i][i] = joint_force(L, i, f, t) + L.armature[i]
        for j in reversed(range(i)):
            f, t = to_parent(L, j + 1, joints[j + 1], f, t)
            M[i][j] = M[j][i] = joint_force(L, j, f, t)
        if i:
            up = _into_parent(L, i, joints[i], bodies[i])
            m0, h0, I0 = bodies[i - 1]
            bodies[i - 1] = (m0 + up[0], add(h0, up[1]), tuple(add(a, b) for a, b in zip(I0, up[2], strict=True)))
    return tuple(tuple(row) for row in M)


def ldl_solve(M, b):
    """x = M⁻¹ b by L D Lᵀ, with the pivots D and the bound c = tr(M) tr(M⁻¹) (see above)."""
    n = len(b)
    L = [[0.0] * n for _ in range(n)]
    D, inv = [0.0] * n, [0.0] * n
    for j in range(n):
        LD = [L[j][k] * D[k] for k in range(j)]
        D[j] = M[j][j] - sum((L[j][k] * LD[k] for k in range(j)), 0.0)
        # a pivot that is the number 0 (a constant M, e.g. one joint without inertia): inf, not a
        # ZeroDivisionError while tracing; the bound c then says "singular"
        inv[j] = 1.0 / D[j] if not (isinstance(D[j], float) and D[j] == 0.0) else float("inf")
        for i in range(j + 1, n):
            L[i][j] = (M[i][j] - sum((L[i][k] * LD[k] for k in range(j)), 0.0)) * inv[j]
    y = list(b)
    for i in range(n):
        y[i] = b[i] - sum((L[i][k] * y[k] for k in range(i)), 0.0)
    x = [y[i] * inv[i] for i in range(n)]
    for i in reversed(range(n)):
        x[i] = x[i] - sum((L[k][i] * x[k] for k in range(i + 1, n)), 0.0)
    Linv = [[1.0 if r == c else 0.0 for c in range(n)] for r in range(n)]
    for r in range(n):
        for c in range(r):
            Linv[r][c] = -sum((L[r][k] * Linv[k][c] for k in range(c, r)), 0.0)
    trace_inv = sum((inv[r] * sum((v * v for v in Linv[r][:r + 1]), 0.0) for r in range(n)), 0.0)
    bound = sum((M[k][k] for k in range(n)), 0.0) * trace_inv
    return tuple(x), tuple(D), bound
