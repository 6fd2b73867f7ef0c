"""Robots from the product of exponentials (Lynch & Park, *Modern Robotics*, ch. 4).

    T(θ) = e^[S1]θ1 · e^[S2]θ2 ⋯ e^[Sn]θn · M          (space form)
    T(θ) = M · e^[B1]θ1 ⋯ e^[Bn]θn                       (body form, B_i = Ad_{M⁻¹} S_i)

M is the tool's pose at θ = 0 and each screw axis is a twist (ω; v) in the book's row order:
a revolute joint has a unit ω along its axis and v = −ω × p for a point p on the axis (pitch
ω·v = 0); a helical joint of pitch h has v = −ω × p + h·ω (it slides h per rad turned along
ω); a prismatic joint has ω = 0 and a unit v along its direction.

A PoE robot is a link-frame robot in disguise: with p_i a point on axis i,
e^[S_i]θ = Tr(p_i)·Rot(ω_i, θ)·Tr(−p_i), and the product telescopes into
Tr(p1)·J1(θ1)·Tr(p2 − p1)·J2(θ2) ⋯ Tr(pn − p_{n−1})·Jn(θn)·Tr(−pn)·M — joint frames parallel
to the base at θ = 0, each turning about its own axis. `from_poe` builds exactly that, so every
verb (FK, Jacobians, IK, dynamics once inertials are added) works on it unchanged. A helical
screw is the same with Rot(ω, θ) followed by a slide h·θ along ω (the joint's `pitch`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..keywords import strict
from .builders import from_link_frames
from .robot import Robot, RobotError

FORMS = ("space", "body")
_TOL = 1e-9  # |ω| = 1, ω·v = 0 and |v| = 1 to this: screws typed from a book to 9+ digits pass


def adjoint(T: ArrayLike) -> np.ndarray:
    """Ad_T (6, 6) for twists in (ω; v) order: [[R, 0], [[p]R, R]].

    >>> adjoint(np.eye(4)).shape
    (6, 6)
    """
    T = np.asarray(T, dtype=float)
    R, p = T[:3, :3], T[:3, 3]
    P = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = R
    out[3:, :3] = P @ R
    return out


def _checked(M: ArrayLike, screws: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    M = np.asarray(M, dtype=float)
    S = np.asarray(screws, dtype=float)
    if M.shape != (4, 4) or not np.all(np.isfinite(M)):
        raise RobotError(f"M: expected the tool's home pose, a finite 4x4 matrix, got shape {M.shape}")
    R = M[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=_TOL) or abs(np.linalg.det(R) - 1) > _TOL \
            or not np.allclose(M[3], [0, 0, 0, 1]):
        raise RobotError("M: its rotation must be orthonormal with determinant +1 and its last row 0 0 0 1")
    if S.ndim != 2 or S.shape[1] != 6 or len(S) == 0 or not np.all(np.isfinite(S)):
        raise RobotError(f"screws: expected finite screw axes (ω; v), shape (n, 6) with n ≥ 1, got shape {S.shape}")
    return M, S


def _kind(i: int, s: np.ndarray) -> tuple[str, float]:
    """('revolute', pitch h = ω·v) or ('prismatic', 0) for screw s = (ω; v), or a RobotError
    saying what is wrong with it."""
    w, v = s[:3], s[3:]
    nw = np.linalg.norm(w)
    if nw < _TOL:
        if abs(np.linalg.norm(v) - 1) > _TOL:
            raise RobotError(f"screw {i + 1}: a prismatic axis (ω = 0) needs a unit v, got |v| = {np.linalg.norm(v):.6g}")
        return "prismatic", 0.0
    if abs(nw - 1) > _TOL:
        raise RobotError(f"screw {i + 1}: a revolute axis needs a unit ω, got |ω| = {nw:.6g}")
    pitch = float(w @ v)
    # a pitch within rounding of 0 is a revolute joint typed to a book's digits, not a screw
    return "revolute", (0.0 if abs(pitch) <= _TOL * max(1.0, np.linalg.norm(v)) else pitch)


@strict
def from_poe(M: ArrayLike, screws: ArrayLike, form: str = "space", *, name: str = "poe",
             length_unit: str = "m", limits: ArrayLike | None = None,
             joint_names: Sequence[str] | None = None, home: ArrayLike | None = None,
             base: ArrayLike | None = None, deg: bool = False, meta: Mapping[str, Any] | None = None) -> Robot:
    """Robot from its home pose M (4, 4) and screw axes (n, 6), rows (ω; v), in the space frame
    (form="space": `FKinSpace`'s Slist transposed) or the tool frame (form="body": `FKinBody`'s
    Blist transposed). Joint values θ are the exponentials' coordinates: rad, or length_unit
    for a prismatic joint; the robot's base is the space frame (placed in the world by `base`,
    4x4, default identity) and its tool M at θ = 0; meta: as for `from_dh`.

    >>> import kinematica as km, numpy as np
    >>> M = np.array([[1, 0, 0, 2], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    >>> r = km.from_poe(M, [[0, 0, 1, 0, 0, 0], [0, 0, 1, 0, -1, 0]])  # planar 2R, links of 1
    >>> km.fk(r, [np.pi / 2, 0])[:2, 3].round(12) + 0.0
    array([0., 2.])
    """
    if form not in FORMS:
        raise RobotError(f"form must be 'space' or 'body', got {form!r}")
    M, S = _checked(M, screws)
    if form == "body":
        S = S @ adjoint(M).T  # S_i = Ad_M · B_i
    kinds = [_kind(i, s) for i, s in enumerate(S)]
    rows, before = [], np.zeros(3)
    for (kind, pitch), s in zip(kinds, S, strict=True):
        w, v = s[:3], s[3:]
        # ω × v = ω × (−ω × p + h·ω) = p − (ω·p)·ω: the axis point nearest the origin
        p = np.cross(w, v) if kind == "revolute" else before
        rows.append({"type": kind, "xyz": tuple((p - before).tolist()), "pitch": pitch,
                     "axis": tuple((w if kind == "revolute" else v).tolist())})
        before = p
    tool = M.copy()
    tool[:3, 3] -= before
    return from_link_frames(rows, name=name, length_unit=length_unit, limits=limits, joint_names=joint_names,
                            home=home, base=base, tool=tool, deg=deg, meta=meta)


__all__ = ["from_poe", "adjoint"]
