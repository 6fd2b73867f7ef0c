"""Recursive Newton–Euler in the joints' own frames, written on scalars (see trace.py).

Every quantity of link i is expressed in joint frame i (local.py), so its inertia is constant.
Going from frame i − 1 to frame i across K_i = (R, p) and the joint (the K origin is the joint's
point on link i − 1):
  a_K = a + α × p + ω × (ω × p)                              acceleration of the K origin
  revolute   ω_i = Rz(θ)ᵀ Rᵀ ω + q̇ e_z,   α_i = Rz(θ)ᵀ Rᵀ α + q̇ (Rz(θ)ᵀ Rᵀ ω) × e_z + q̈ e_z,
             a_i = Rz(θ)ᵀ Rᵀ a_K
  prismatic  ω_i = Rᵀ ω,   α_i = Rᵀ α,
             a_i = Rᵀ a_K + α_i × d e_z + ω_i × (ω_i × d e_z) + 2 q̇ ω_i × e_z + q̈ e_z
  helical    (pitch k, slide d = k θ): the revolute ω_i and α_i, and the prismatic a_i with
             Rz(θ)ᵀ Rᵀ (ω, α, a_K) in place of Rᵀ (ω, α, a_K) and k q̇, k q̈ for q̇, q̈
with a_0 = −g (gravity as an upward acceleration of the base). The net force and the net moment
about the joint origin of link i (mass m, first moment h, inertia I about the joint origin):
  F_i = m a_i + α_i × h + ω_i × (ω_i × h),    N_i = I α_i + ω_i × I ω_i + h × a_i.
Backward, the force f_i and moment n_i (about o_i) that link i − 1 exerts on link i:
  f_i = F_i + X f_(i+1),   n_i = N_i + X n_(i+1)   (X: `to_parent`, moment moved to o_i),
  τ_i = n_i · e_z (revolute), f_i · e_z (prismatic) or n_i · e_z + k f_i · e_z (helical: its
  motion subspace is (e_z; k e_z)).
A wrench (f, m) the environment applies at the tool point enters as f_(n+1) = −f,
n_(n+1) = −(m + p_tool × f), f and m turned into frame n along the forward pass.

Scalars are floats, `trace.Sym`s or arrays alike: the same code runs on all of them.
"""

from __future__ import annotations

from .local import Local

ZERO = (0.0, 0.0, 0.0)


# --- 3-vectors as tuples of scalars ----------------------------------------------------------
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def add(*vs):
    return tuple(sum(c[1:], c[0]) for c in zip(*vs, strict=True))


def times(k, v):
    return (k * v[0], k * v[1], k * v[2])


def rot(R, v):
    """R v for a constant R (rows of floats): the zeros and ones fold away when traced."""
    return tuple(r[0] * v[0] + r[1] * v[1] + r[2] * v[2] for r in R)


def rot_t(R, v):
    """Rᵀ v."""
    return tuple(R[0][k] * v[0] + R[1][k] * v[1] + R[2][k] * v[2] for k in range(3))


def rz(c, s, v):
    """Rz(θ) v, c = cos θ, s = sin θ."""
    return (c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])


def rz_t(c, s, v):
    """Rz(θ)ᵀ v."""
    return (c * v[0] + s * v[1], c * v[1] - s * v[0], v[2])


# --- one joint -------------------------------------------------------------------------------
def _slide(w, al, d, v, acc):
    """Acceleration of a point d along e_z from the frame origin, moving along e_z at v and acc,
    in a frame turning at ω = w with α = al: α × d e_z + ω × (ω × d e_z) + 2 v ω × e_z + acc e_z."""
    return (d * al[1] + d * w[0] * w[2] + 2.0 * v * w[1],
            d * w[1] * w[2] - d * al[0] - 2.0 * v * w[0],
            acc - d * (w[0] * w[0] + w[1] * w[1]))


def into_child(L: Local, i: int, joint, motion, qd, qdd):
    """(ω, α, a) of frame i − 1 → frame i (the formulas above); joint: (c, s), (c, s, d) for a
    helical joint, or the slide d."""
    w, al, a = motion
    R, p = L.R[i], L.p[i]
    a = add(a, cross(al, p), cross(w, cross(w, p)))
    w, al, a = rot_t(R, w), rot_t(R, al), rot_t(R, a)
    if L.revolute[i]:
        c, s = joint[:2]
        w, al, a = rz_t(c, s, w), rz_t(c, s, al), rz_t(c, s, a)
        if L.pitch[i]:  # the slide along the joint's z, seen from the turned frame
            k = L.pitch[i]
            a = add(a, _slide(w, al, joint[2], k * qd, k * qdd))
        return (w[0], w[1], w[2] + qd), (al[0] + qd * w[1], al[1] - qd * w[0], al[2] + qdd), a
    return w, al, add(a, _slide(w, al, joint, qd, qdd))


def to_parent(L: Local, i: int, joint, f, n):
    """A force f and a moment n about o_i, frame i → frame i − 1, moment about o_(i−1)."""
    if L.revolute[i]:
        c, s = joint[:2]
        if L.pitch[i]:  # o_i sits d along z from the K origin (Rz leaves e_z alone)
            d = joint[2]
            n = (n[0] - d * f[1], n[1] + d * f[0], n[2])
        f, n = rz(c, s, f), rz(c, s, n)
    else:
        d = joint  # the joint origin sits d along z from the K origin: n_K = n + d e_z × f
        n = (n[0] - d * f[1], n[1] + d * f[0], n[2])
    f = rot(L.R[i], f)
    return f, add(rot(L.R[i], n), cross(L.p[i], f))


def link_wrench(L: Local, i: int, w, al, a):
    """Net force F and moment N about the joint origin of link i."""
    h, I = L.h[i], L.I[i]
    F = add(times(L.mass[i], a), cross(al, h), cross(w, cross(w, h)))
    N = add(rot(I, al), cross(w, rot(I, w)), cross(h, a))  # rot: I is a constant matrix too
    return F, N


def joint_force(L: Local, i: int, f, n):
    """The generalised force on joint i of the force f and moment n (about o_i, frame i) across
    it: n_z (revolute), f_z (prismatic), n_z + k f_z (helical of pitch k)."""
    if not L.revolute[i]:
        return f[2]
    return n[2] + L.pitch[i] * f[2] if L.pitch[i] else n[2]


# --- the whole chain -------------------------------------------------------------------------
def newton_euler(L: Local, joints, qd, qdd, gravity, wrench=None):
    """Joint torques τ (tuple of n) from the joint geometry `joints` ((c, s) or d per joint),
    rates qd and qdd (SI), gravity (3) and the tool wrench (f, m) in world axes or None."""
    motion = (ZERO, ZERO, times(-1.0, gravity))
    ext = wrench
    F, N = [], []
    for i in range(L.n):
        motion = into_child(L, i, joints[i], motion, qd[i], qdd[i])
        if ext is not None:  # turned along like ω: into frame i
            ext = tuple(rot_t(L.R[i], v) for v in ext)
            if L.revolute[i]:
                c, s = joints[i][:2]
                ext = tuple(rz_t(c, s, v) for v in ext)
        Fi, Ni = link_wrench(L, i, *motion)
        F.append(Fi)
        N.append(Ni)
    if ext is None:
        f = n = ZERO
    else:
        f, n = times(-1.0, ext[0]), times(-1.0, add(ext[1], cross(L.tool, ext[0])))
    tau = [0.0] * L.n
    for i in reversed(range(L.n)):
        f, n = add(F[i], f), add(N[i], n)
        tau[i] = joint_force(L, i, f, n)
        if i:
            f, n = to_parent(L, i, joints[i], f, n)
    return tuple(tau)
