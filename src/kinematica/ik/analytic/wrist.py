"""Three revolute axes, each perpendicular to the next: Rz(θa) · B · Rz(θb) · C · Rz(θc) = M.

This is the orientation half of a decoupled arm (paper 004's Euler angles): a spherical wrist
(θa, θb, θc = θ4, θ5, θ6), or a UR arm's pitch sum, θ5 and θ6. B and C are the constant
rotations between the axes, read from the robot; M is the rotation the three must make.

  u = Bᵀ ẑ  (axis a seen from frame b),  c = C ẑ  (axis c in frame b), both ⟂ ẑ
  m = M ẑ:  m_z = uᵀ Rz(θb) c = cos(θb − ψ),  ψ = ∠u − ∠c
  θb = ψ + atan2(±√(m_x² + m_y²), m_z)              (the two wrist branches: no flip, flip)
  θa = atan2(m_y, m_x) − atan2(v_y, v_x),  v = B Rz(θb) c
  θc = atan2(n_y, n_x),  n = Cᵀ Rz(−θb) Bᵀ Rz(−θa) M x̂

For the ZYZ wrist of paper 004 (B = Rx(−π/2), C = Rx(π/2), ψ = 0) these are
q5 = atan2(±√(r13² + r23²), r33), q4 = atan2(r23, r13), q6 = atan2(r32, −r31).

The singularity r33 = m_z = ±1 (√(m_x² + m_y²) = 0) lines axis c up with axis a, so only
θa ± θc is fixed. It is handled exactly: θa keeps its reference value (the current or seed
pose) and θc, computed from the whole remaining rotation, takes the rest — instead of paper
004's substitution of 0.001 for the singular angle. Near it, θa may be off by ε/√(m_x²+m_y²)
but θc absorbs the error, so the rotation stays exact to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arm import turn_back, xy_of
from .geometry import ANGLE_TOL

FLIPS = np.array([1.0, -1.0])  # signs of sin(θb − ψ): wrist no flip, wrist flip
LABELS = ["wrist no flip", "wrist flip"]
SINGULAR = 1e-14  # √(m_x² + m_y²) below this (rounding level): axes a and c aligned, θa = reference
NEAR = 1e-2  # below this, θc from the remaining rotation (the row formula would lose ε/s_b)


def check(B: np.ndarray, C: np.ndarray) -> bool:
    """Whether axis b is perpendicular to axes a and c (the formulas above need both)."""
    return abs(B[2, 2]) < ANGLE_TOL and abs(C[2, 2]) < ANGLE_TOL


@dataclass(frozen=True, eq=False)
class Wrist:
    """The constants of one wrist: B, C, ψ, and v = B Rz(θb) c, v' = Cᵀ Rz(−θb) u as linear
    in (m_z, s_b) = (cos(θb − ψ), sin(θb − ψ)): v_x + i v_y = v[0] m_z + v[1] s_b."""

    B: np.ndarray
    C: np.ndarray
    psi: float
    v: tuple[complex, complex]
    v_row: tuple[complex, complex]

    @classmethod
    def of(cls, B: np.ndarray, C: np.ndarray) -> Wrist:
        u, c = B[2, :], C[:, 2]
        psi = float(np.arctan2(u[1], u[0]) - np.arctan2(c[1], c[0]))
        cp, sp = np.cos(psi), np.sin(psi)

        def v(cb, sb):  # B Rz(θb) c for cos θb, sin θb, as x + i y
            x, y = B[:2, :2] @ [cb * c[0] - sb * c[1], sb * c[0] + cb * c[1]]
            return complex(x, y)

        def v_row(cb, sb):  # Cᵀ Rz(−θb) u
            x, y = C[:2, :2].T @ [cb * u[0] + sb * u[1], cb * u[1] - sb * u[0]]
            return complex(x, y)

        # cos θb = cp m_z − sp s_b, sin θb = sp m_z + cp s_b: both are linear in (m_z, s_b)
        return cls(B, C, psi, (v(cp, sp), v(-sp, cp)), (v_row(cp, sp), v_row(-sp, cp)))


def solve(m: np.ndarray, m1: np.ndarray, W: Wrist, ref_a: np.ndarray):
    """Both wrist branches for M given by its columns m = M ẑ and m1 = M x̂ (..., 3).

    Returns θa, θb, θc, each (..., 2) [no flip, flip]; ref_a (broadcast to (...)) is θa at
    the singularity. θc comes from M's third row r = Mᵀ ẑ = Rz(−θc) v' (the mirror of θa's
    formula), except near the singularity (s_b < 0.01), where it is taken from the whole
    remaining rotation as in the module docstring.

    >>> from kinematica import spatial
    >>> M = (spatial.rotz(0.3) @ spatial.roty(0.5) @ spatial.rotz(-0.2))[:3, :3]
    >>> W = Wrist.of(spatial.rotx(-np.pi / 2)[:3, :3], spatial.rotx(np.pi / 2)[:3, :3])
    >>> ta, tb, tc = solve(M[:, 2], M[:, 0], W, 0.0)
    >>> np.round([ta[0], tb[0], tc[0]], 9)  # no flip: the angles M was built from
    array([ 0.3,  0.5, -0.2])
    >>> np.round([np.cos(ta[1] - ta[0]), tb[1], np.cos(tc[1] - tc[0])], 9)  # flip: θa + π, −θb, θc + π
    array([-1. , -0.5, -1. ])
    """
    mc, mz = xy_of(m), m[..., 2, None]  # m_x + i m_y, m_z
    sb = np.abs(mc) * FLIPS  # sin(θb − ψ); cos(θb − ψ) = m_z
    tb = np.arctan2(sb, mz) + W.psi
    z = mc * (W.v[0] * mz + W.v[1] * sb).conj()  # ∠m − ∠v
    ta = np.arctan2(z.imag, z.real)
    r = m1[..., 2, None] + 1j * (mc.conj() * xy_of(m1)).imag  # M's third row: (m1_z, (m × m1)_z)
    z = (W.v_row[0] * mz + W.v_row[1] * sb) * r.conj()  # ∠v' − ∠r
    tc = np.arctan2(z.imag, z.real)
    near = np.abs(sb) < NEAR
    if near.any():
        ta[near], tc[near] = _near_singular(ta, tb, sb, m1, W, ref_a, near)
    return ta, tb, tc


def _near_singular(ta, tb, sb, m1, W: Wrist, ref_a, near):
    """θa and θc where axes a and c (nearly) line up: θa from above, or its reference where
    s_b < 1e-14; θc from the whole remaining rotation, Cᵀ Rz(−θb) Bᵀ Rz(−θa) M x̂."""
    ref = np.broadcast_to(np.asarray(ref_a, dtype=float)[..., None], ta.shape)
    ta = np.where(np.abs(sb) < SINGULAR, ref, ta)[near]
    tb = tb[near]
    x1 = np.broadcast_to(m1[..., None, :], near.shape + (3,))[near]
    w = turn_back(np.exp(1j * ta), x1, W.B)
    n = turn_back(np.exp(1j * tb), w, W.C[:, :2])
    return ta, np.arctan2(n[..., 1], n[..., 0])
