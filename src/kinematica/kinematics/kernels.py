"""The Numba FK + Jacobian that the compiled IK kernels (ik/lm_kernel.py) inline, along the
canonical chain — what is left of the Numba FK until the IK moves into the C++ core (issue 26,
phase 2); `km.fk` and `km.jacobian` run the C++ core (kinematics/handle.py)

    T(q) = C0 · J1(θ1) · C1 · J2(θ2) · … · Jn(θn) · Cn,    θi = qi + offset_i,

Ji = Rz(θi) for a revolute joint, Tz(θi) for a prismatic one, Rz(θi)·Tz(h_i θi) for a helical
one of pitch h_i; Jacobian column i, from the axis z_i and point p_i of the frame just before Ji
(its own motion leaves both alone) and the tool point p_e: [z_i × (p_e − p_i); z_i] (revolute),
[z_i; 0] (prismatic), [z_i × (p_e − p_i) + h_i z_i; z_i] (helical).

Only the top three rows of a transform are carried (the bottom one is 0 0 0 1); Ji acts on
them in place: Rz(θ) mixes columns 0 and 1, Tz(d) adds d·z to column 3. Constants come from
`cache.chain_arrays` (C and the per-joint table [kind, offset, pitch]); every joint reads its
row of that table, so a new per-joint parameter is one more column. Imported only by the IK
kernels, through `kinematica.compiled` (it imports Numba); compiled for an explicit signature
when imported (or loaded from Numba's on-disk cache); it accepts read-only and strided q.
"""

from __future__ import annotations

import math

from numba import njit, types

from .cache import HELICAL, PRISMATIC

_F8 = types.float64
# q and Q any layout (views of the caller's arrays); the constants and the outputs, which this
# package makes, C-contiguous (fixed strides for the compiler; lm_kernel's buffers are so too)
_RO1 = types.Array(_F8, 1, "A", readonly=True)
_C2, _C3 = types.Array(_F8, 2, "C", readonly=True), types.Array(_F8, 3, "C", readonly=True)
_W2 = types.Array(_F8, 2, "C")


@njit(cache=True, inline="always")
def _joint(T, joint, theta):
    """T · Ji(θ) on the top rows of T, in place; joint: its row of the joint table. Rz and Tz
    about the same axis commute, so a helical joint's slide h·θ reads the z column either side
    of the turn."""
    kind = joint[0]
    if kind == PRISMATIC:
        for r in range(3):
            T[r, 3] += theta * T[r, 2]
        return
    c, s = math.cos(theta), math.sin(theta)
    slide = joint[2] * theta if kind == HELICAL else 0.0
    for r in range(3):
        x, y = T[r, 0], T[r, 1]
        T[r, 0] = c * x + s * y
        T[r, 1] = c * y - s * x
        T[r, 3] += slide * T[r, 2]


@njit(cache=True, inline="always")
def _times_rigid(T, A):
    """T · A on the top rows of T, in place (A rigid: its bottom row is 0 0 0 1)."""
    for r in range(3):
        t0, t1, t2, t3 = T[r, 0], T[r, 1], T[r, 2], T[r, 3]
        T[r, 0] = t0 * A[0, 0] + t1 * A[1, 0] + t2 * A[2, 0]
        T[r, 1] = t0 * A[0, 1] + t1 * A[1, 1] + t2 * A[2, 1]
        T[r, 2] = t0 * A[0, 2] + t1 * A[1, 2] + t2 * A[2, 2]
        T[r, 3] = t0 * A[0, 3] + t1 * A[1, 3] + t2 * A[2, 3] + t3


@njit(types.boolean(_C3, _C2, _RO1, _W2, _W2), cache=True)
def pose_jacobian(C, joints, q, T, J):
    """The end pose of q (n,) into T (4, 4) and the base-frame geometric Jacobian into J (6, n);
    False if q holds NaN or infinity."""
    for r in range(3):
        for c in range(4):
            T[r, c] = C[0, r, c]
    ok = True
    n = q.shape[0]
    for i in range(n):
        ok &= math.isfinite(q[i])
        for r in range(3):  # z_i and p_i (p_i parked in the linear rows until p_e is known)
            J[3 + r, i] = T[r, 2]
            J[r, i] = T[r, 3]
        _joint(T, joints[i], q[i] + joints[i, 1])
        _times_rigid(T, C[i + 1])
    T[3, 0] = T[3, 1] = T[3, 2] = 0.0
    T[3, 3] = 1.0
    for i in range(n):
        zx, zy, zz = J[3, i], J[4, i], J[5, i]
        if joints[i, 0] != PRISMATIC:
            h = joints[i, 2]  # 0 but for a helical joint
            dx, dy, dz = T[0, 3] - J[0, i], T[1, 3] - J[1, i], T[2, 3] - J[2, i]
            J[0, i] = zy * dz - zz * dy + h * zx
            J[1, i] = zz * dx - zx * dz + h * zy
            J[2, i] = zx * dy - zy * dx + h * zz
        else:
            J[0, i], J[1, i], J[2, i] = zx, zy, zz
            J[3, i] = J[4, i] = J[5, i] = 0.0
    return ok
