"""Compiled (Numba) recursive Newton–Euler for one state: the formulas of newton_euler.py
(forward pass: ω, α, a of each joint frame and the link's net force and moment; backward pass:
the joint forces and τ), on a robot's local-frame constants packed into one array.

`pack(L)` lays out the `Local` constants one row per joint (PACK names the columns) plus a
last row holding the tool point, so a call passes one constant array; the joint geometry is
per joint (kind, offset, pitch) as in the FK kernels, so a new per-joint parameter is one
column. A helical joint of pitch k turns as a revolute one while its origin slides d = k θ
along z (newton_euler.into_child), and takes n_z + k f_z.
Friction (b q̇ + τ_c sign q̇ + J_m q̈) is added when asked. Imported only through
`kinematica.compiled` (it imports Numba); the traced programs (programs.py) compute the same
and run without Numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from ..kinematics.cache import HELICAL, PRISMATIC, REVOLUTE
from .local import Local
from .params import GRAVITY

# Columns of a joint's row: R (row-major) and p of K_i, mass, h = m·com, I about the joint
# (row-major), kind, offset (SI), scale (SI per unit of q), armature, viscous, Coulomb, pitch
# (m per rad).
_R, _P, _MASS, _H, _I, _KIND, _OFFSET, _SCALE, _ARMATURE, _VISCOUS, _COULOMB, _PITCH = (
    0, 9, 12, 13, 16, 25, 26, 27, 28, 29, 30, 31)
PACK = {"R": slice(_R, _R + 9), "p": slice(_P, _P + 3), "mass": _MASS, "h": slice(_H, _H + 3),
        "I": slice(_I, _I + 9), "kind": _KIND, "offset": _OFFSET, "scale": _SCALE,
        "armature": _ARMATURE, "viscous": _VISCOUS, "coulomb": _COULOMB, "pitch": _PITCH}
WIDTH = 32


def pack(L: Local) -> np.ndarray:
    """The constants of L as one (n + 1, WIDTH) array (the last row: the tool point, m)."""
    D = np.zeros((L.n + 1, WIDTH))
    D[:-1, PACK["R"]] = np.reshape(L.R, (L.n, 9))
    D[:-1, PACK["p"]] = L.p
    D[:-1, PACK["mass"]] = L.mass
    D[:-1, PACK["h"]] = L.h
    D[:-1, PACK["I"]] = np.reshape(L.I, (L.n, 9))
    D[:-1, PACK["kind"]] = np.where(L.revolute, np.where(np.array(L.pitch) != 0, HELICAL, REVOLUTE), PRISMATIC)
    for name in ("offset", "scale", "armature", "viscous", "coulomb", "pitch"):
        D[:-1, PACK[name]] = getattr(L, name if name != "offset" else "offsets")
    D[-1, :3] = L.tool
    return D


_F8 = types.float64
_RO1, _RO2 = types.Array(_F8, 1, "A", readonly=True), types.Array(_F8, 2, "A", readonly=True)


@njit(cache=True, inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True, inline="always")
def _rot_t(D, i, x, y, z):
    """R_iᵀ v (R_i row-major in the first 9 columns)."""
    return (D[i, 0] * x + D[i, 3] * y + D[i, 6] * z, D[i, 1] * x + D[i, 4] * y + D[i, 7] * z,
            D[i, 2] * x + D[i, 5] * y + D[i, 8] * z)


@njit(cache=True, inline="always")
def _rot(D, i, c0, x, y, z):
    """M v for the row-major 3x3 matrix at D[i, c0:c0 + 9]."""
    return (D[i, c0] * x + D[i, c0 + 1] * y + D[i, c0 + 2] * z,
            D[i, c0 + 3] * x + D[i, c0 + 4] * y + D[i, c0 + 5] * z,
            D[i, c0 + 6] * x + D[i, c0 + 7] * y + D[i, c0 + 8] * z)


@njit(cache=True, inline="always")
def _forward(D, q, qd, qdd, g, wrench, FN):
    """The outward pass: each link's net force F and moment N about its joint origin, and the
    joint's (c, s, d) or (d, ·, ·), into FN (n, 9); the tool wrench carried into frame n
    alongside. Returns (whether q, q̇, q̈ are finite, the wrench's force and moment there)."""
    n = q.shape[0]
    wx = wy = wz = ax_ = ay_ = az_ = 0.0  # ω and α
    lx, ly, lz = -g[0], -g[1], -g[2]  # a: gravity as an upward acceleration of the base
    fx, fy, fz, mx, my, mz = wrench[0], wrench[1], wrench[2], wrench[3], wrench[4], wrench[5]
    ok = True
    for i in range(n):
        ok &= math.isfinite(q[i]) and math.isfinite(qd[i]) and math.isfinite(qdd[i])
        s_i = D[i, _SCALE]
        v, acc = qd[i] * s_i, qdd[i] * s_i
        px, py, pz = D[i, _P], D[i, _P + 1], D[i, _P + 2]
        c1 = _cross(ax_, ay_, az_, px, py, pz)
        wp = _cross(wx, wy, wz, px, py, pz)
        c2 = _cross(wx, wy, wz, wp[0], wp[1], wp[2])
        lx, ly, lz = _rot_t(D, i, lx + c1[0] + c2[0], ly + c1[1] + c2[1], lz + c1[2] + c2[2])
        wx, wy, wz = _rot_t(D, i, wx, wy, wz)
        ax_, ay_, az_ = _rot_t(D, i, ax_, ay_, az_)
        fx, fy, fz = _rot_t(D, i, fx, fy, fz)
        mx, my, mz = _rot_t(D, i, mx, my, mz)
        if D[i, _KIND] != PRISMATIC:
            th = q[i] + D[i, _OFFSET]
            c, s = math.cos(th), math.sin(th)
            FN[i, 6], FN[i, 7] = c, s
            wx, wy = c * wx + s * wy, c * wy - s * wx  # Rz(θ)ᵀ
            ax_, ay_ = c * ax_ + s * ay_, c * ay_ - s * ax_
            lx, ly = c * lx + s * ly, c * ly - s * lx
            fx, fy = c * fx + s * fy, c * fy - s * fx
            mx, my = c * mx + s * my, c * my - s * mx
            k = D[i, _PITCH]
            if k != 0.0:  # the origin's slide d = k θ, in the frame turning at the parent's ω, α
                d = k * th
                FN[i, 8] = d
                lx += d * ay_ + d * wx * wz + 2.0 * k * v * wy
                ly += d * wy * wz - d * ax_ - 2.0 * k * v * wx
                lz += k * acc - d * (wx * wx + wy * wy)
            ax_, ay_, az_ = ax_ + v * wy, ay_ - v * wx, az_ + acc
            wz += v
        else:
            d = q[i] * s_i + D[i, _OFFSET]
            FN[i, 6] = d
            lx += d * ay_ + d * wx * wz + 2.0 * v * wy
            ly += d * wy * wz - d * ax_ - 2.0 * v * wx
            lz += acc - d * (wx * wx + wy * wy)
        m, hx, hy, hz = D[i, _MASS], D[i, _H], D[i, _H + 1], D[i, _H + 2]
        ah = _cross(ax_, ay_, az_, hx, hy, hz)
        wh = _cross(wx, wy, wz, hx, hy, hz)
        wwh = _cross(wx, wy, wz, wh[0], wh[1], wh[2])
        FN[i, 0] = m * lx + ah[0] + wwh[0]
        FN[i, 1] = m * ly + ah[1] + wwh[1]
        FN[i, 2] = m * lz + ah[2] + wwh[2]
        Ia = _rot(D, i, _I, ax_, ay_, az_)
        Iw = _rot(D, i, _I, wx, wy, wz)
        wIw = _cross(wx, wy, wz, Iw[0], Iw[1], Iw[2])
        ha = _cross(hx, hy, hz, lx, ly, lz)
        FN[i, 3] = Ia[0] + wIw[0] + ha[0]
        FN[i, 4] = Ia[1] + wIw[1] + ha[1]
        FN[i, 5] = Ia[2] + wIw[2] + ha[2]
    return ok, fx, fy, fz, mx, my, mz


@njit(cache=True, inline="always")
def _backward(D, FN, fx, fy, fz, mx, my, mz, tau):
    """The inward pass: τ into tau from FN and the tool wrench (force f, moment m in frame n)."""
    n = FN.shape[0]
    # the environment's wrench on the tool, as a force and moment about joint n's origin
    t = _cross(D[n, 0], D[n, 1], D[n, 2], fx, fy, fz)
    fx, fy, fz, mx, my, mz = -fx, -fy, -fz, -(mx + t[0]), -(my + t[1]), -(mz + t[2])
    for i in range(n - 1, -1, -1):
        fx, fy, fz = fx + FN[i, 0], fy + FN[i, 1], fz + FN[i, 2]
        mx, my, mz = mx + FN[i, 3], my + FN[i, 4], mz + FN[i, 5]
        tau[i] = (fz if D[i, _KIND] == PRISMATIC else mz + D[i, _PITCH] * fz) + 0.0  # + 0.0: no −0.0 printed
        if i == 0:
            break
        if D[i, _KIND] != PRISMATIC:  # frame i → frame i − 1 (newton_euler.to_parent)
            if D[i, _KIND] == HELICAL:  # o_i sits d along z from the K origin
                d = FN[i, 8]
                mx, my = mx - d * fy, my + d * fx
            c, s = FN[i, 6], FN[i, 7]
            fx, fy = c * fx - s * fy, s * fx + c * fy
            mx, my = c * mx - s * my, s * mx + c * my
        else:
            d = FN[i, 6]
            mx, my = mx - d * fy, my + d * fx
        fx, fy, fz = _rot(D, i, _R, fx, fy, fz)
        mx, my, mz = _rot(D, i, _R, mx, my, mz)
        pf = _cross(D[i, _P], D[i, _P + 1], D[i, _P + 2], fx, fy, fz)
        mx, my, mz = mx + pf[0], my + pf[1], mz + pf[2]


@njit(cache=True)
def _newton_euler(D, q, qd, qdd, g, wrench, friction, tau):
    """τ (n,) into tau for one state q, q̇, q̈ (robot units), gravity g (3, m/s²) and the tool
    wrench (6: force, moment; world axes, N and N·m). False if an input holds NaN or inf."""
    FN = np.empty((q.shape[0], 9))  # per joint: F, N and the joint's (c, s, d) or (d, ·, ·)
    ok, fx, fy, fz, mx, my, mz = _forward(D, q, qd, qdd, g, wrench, FN)
    _backward(D, FN, fx, fy, fz, mx, my, mz, tau)
    if friction:
        for i in range(q.shape[0]):
            s_i = D[i, _SCALE]
            v = qd[i]
            sign = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
            tau[i] += D[i, _VISCOUS] * v * s_i + D[i, _COULOMB] * sign + D[i, _ARMATURE] * qdd[i] * s_i
    for k in range(6):  # (gravity is checked by the caller: it is usually the default)
        ok &= math.isfinite(wrench[k])
    return ok


@njit(types.boolean(_RO2, _RO1, _RO1, _RO1, _RO1, _RO1, types.boolean, types.Array(_F8, 1, "A")),
      cache=True)
def rne(D, q, qd, qdd, g, wrench, friction, tau):
    """`_newton_euler` for any gravity g and tool wrench: the entry point with its types fixed."""
    return _newton_euler(D, q, qd, qdd, g, wrench, friction, tau)


_STANDARD_GRAVITY = GRAVITY.copy()  # frozen into the compiled code as constants
_NO_WRENCH = np.zeros(6)


@njit(types.boolean(_RO2, _RO1, _RO1, _RO1, types.boolean, types.Array(_F8, 1, "A")), cache=True)
def rne_standard(D, q, qd, qdd, friction, tau):
    """`rne` under standard gravity with no wrench, km.rne's default call: two arrays fewer for
    the dispatcher to check, ~0.1 µs of a ~1.7 µs call (issue 12: RNE ≤ 2× Pinocchio's time)."""
    return _newton_euler(D, q, qd, qdd, _STANDARD_GRAVITY, _NO_WRENCH, friction, tau)


def warm() -> None:
    """Run the kernels once (compiled at import; this proves they run)."""
    D = np.zeros((2, WIDTH))
    D[0, PACK["R"]] = np.eye(3).ravel()
    D[0, PACK["scale"]] = 1.0
    z, tau = np.zeros(1), np.empty(1)
    if not (rne(D, z, z, z, np.zeros(3), np.zeros(6), True, tau) and rne_standard(D, z, z, z, True, tau)):
        raise RuntimeError("the RNE kernel rejected finite inputs")
