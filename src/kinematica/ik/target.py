"""IK targets: what the tool must reach, as residual rows with weights.

A `Target` holds a stack of goals (batch shape (...)) and which task rows they constrain:

  kind       rows of the residual e (6 slots: position xyz, orientation xyz)
  "pose"     position + orientation, e = [p_d − p; log(R_d Rᵀ)]
  "position" position only
  "approach" position + the tool z axis along a unit vector a_d (5-DOF arms: roll is free)
  "planar"   x, y (and, if `phi` is given, the heading φ about z) of a planar arm

Orientation inputs: a 4x4 pose, a 3x3 rotation, roll-pitch-yaw (URDF convention, fixed x-y-z),
ZYZ Euler angles (paper 004), a quaternion (w, x, y, z), an approach vector, or a pitch φ above
the horizontal (paper 003; the approach then lies in the vertical plane through the target).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.transform import Rotation

KINDS = ("pose", "position", "approach", "planar")


class TargetError(ValueError):
    """A target is malformed (shapes, NaN, a zero approach vector, conflicting inputs)."""


@dataclass(frozen=True, eq=False)
class Target:
    """A stack of IK goals. Use the constructors (`pose`, `position`, …) or `make`."""

    kind: str
    p: np.ndarray  # (..., 3) desired tool position (z = 0 for planar goals)
    R: np.ndarray | None = None  # (..., 3, 3) desired rotation (pose)
    a: np.ndarray | None = None  # (..., 3) desired approach unit vector (approach)
    phi: np.ndarray | None = None  # (...) desired heading about z (planar, optional)
    weights: np.ndarray | None = None  # (6,) per-axis weights; None: 1 on constrained rows

    @property
    def shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def rows(self) -> np.ndarray:
        """Indices of the constrained residual rows among (x, y, z, ωx, ωy, ωz)."""
        return np.array({"pose": [0, 1, 2, 3, 4, 5], "position": [0, 1, 2], "approach": [0, 1, 2, 3, 4, 5],
                         "planar": [0, 1, 5] if self.phi is not None else [0, 1]}[self.kind])

    @property
    def dof(self) -> int:
        """Independent constraints: 6 pose, 3 position, 5 approach, 2 or 3 planar."""
        return {"pose": 6, "position": 3, "approach": 5, "planar": 2 + (self.phi is not None)}[self.kind]

    def reshape(self, *shape: int) -> "Target":
        """The same goals with another batch shape (e.g. flattened to (N,))."""
        def rs(x, tail):
            return None if x is None else x.reshape(shape + tail)
        return Target(self.kind, rs(self.p, (3,)), rs(self.R, (3, 3)), rs(self.a, (3,)),
                      rs(self.phi, ()), self.weights)

    def __getitem__(self, idx) -> "Target":
        def pick(x):
            return None if x is None else x[idx]
        return Target(self.kind, pick(self.p), pick(self.R), pick(self.a), pick(self.phi), self.weights)


def _arr(x: ArrayLike, tail: tuple[int, ...], what: str) -> np.ndarray:
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError):
        raise TargetError(f"{what}: expected numbers, got {x!r}") from None
    if a.shape[a.ndim - len(tail):] != tail or a.ndim < len(tail):
        raise TargetError(f"{what}: expected shape (..., {', '.join(map(str, tail))}), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TargetError(f"{what}: contains NaN or infinity")
    return a


def _weights(w: ArrayLike | None) -> np.ndarray | None:
    if w is None:
        return None
    w = _arr(w, (6,), "weights")
    if np.any(w < 0):
        raise TargetError("weights must be >= 0")
    return w


def pose(T: ArrayLike, weights: ArrayLike | None = None) -> Target:
    """Full pose goal(s) from homogeneous transforms (..., 4, 4)."""
    T = _arr(T, (4, 4), "target pose")
    R = T[..., :3, :3]
    if np.any(np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)) > 1e-6) or np.any(np.linalg.det(R) < 0):
        raise TargetError("target pose: the rotation part is not orthonormal with det +1")
    return Target("pose", T[..., :3, 3].copy(), R.copy(), weights=_weights(weights))


def position(p: ArrayLike, weights: ArrayLike | None = None) -> Target:
    """Position-only goal(s) p (..., 3)."""
    return Target("position", _arr(p, (3,), "target position"), weights=_weights(weights))


def orientation(p: ArrayLike, *, R: ArrayLike | None = None, rpy: ArrayLike | None = None,
                euler_zyz: ArrayLike | None = None, quat: ArrayLike | None = None,
                weights: ArrayLike | None = None) -> Target:
    """Position plus exactly one orientation form: R (3x3), rpy, ZYZ Euler angles or a
    quaternion (w, x, y, z). Angles in rad."""
    given = {k: v for k, v in dict(R=R, rpy=rpy, euler_zyz=euler_zyz, quat=quat).items() if v is not None}
    if len(given) != 1:
        raise TargetError(f"give exactly one orientation (R, rpy, euler_zyz or quat), got {list(given) or 'none'}")
    (kind, value), = given.items()
    p = _arr(p, (3,), "target position")
    if kind == "R":
        Rm = _arr(value, (3, 3), "target rotation")
    elif kind == "quat":
        qv = _arr(value, (4,), "quaternion")
        norm = np.linalg.norm(qv, axis=-1, keepdims=True)
        if np.any(norm < 1e-12):
            raise TargetError("quaternion: must not be zero")
        Rm = Rotation.from_quat((qv / norm).reshape(-1, 4), scalar_first=True).as_matrix().reshape(qv.shape[:-1] + (3, 3))
    else:
        ang = _arr(value, (3,), kind)
        seq = "xyz" if kind == "rpy" else "ZYZ"
        Rm = Rotation.from_euler(seq, ang.reshape(-1, 3)).as_matrix().reshape(ang.shape[:-1] + (3, 3))
    T = np.zeros(np.broadcast_shapes(p.shape[:-1], Rm.shape[:-2]) + (4, 4))
    T[..., :3, :3], T[..., :3, 3], T[..., 3, 3] = Rm, p, 1.0
    return pose(T, weights)


def approach(p: ArrayLike, a: ArrayLike | None = None, *, pitch: ArrayLike | None = None,
             weights: ArrayLike | None = None) -> Target:
    """Position plus the tool's z axis (approach) along `a`, or at `pitch` φ (rad) above the
    horizontal in the vertical plane through the target (paper 003): a = (cos φ cos ψ,
    cos φ sin ψ, sin φ) with ψ = atan2(y, x)."""
    p = _arr(p, (3,), "target position")
    if (a is None) == (pitch is None):
        raise TargetError("give either an approach vector or a pitch angle")
    if pitch is not None:
        phi = _arr(pitch, (), "pitch")
        psi = np.arctan2(p[..., 1], p[..., 0])
        a = np.stack(np.broadcast_arrays(np.cos(phi) * np.cos(psi), np.cos(phi) * np.sin(psi),
                                         np.sin(phi) + 0 * psi), axis=-1)
    a = _arr(a, (3,), "approach vector")
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    if np.any(norm < 1e-12):
        raise TargetError("approach vector: must not be zero")
    p, a = np.broadcast_arrays(p, a / norm)
    return Target("approach", p.copy(), a=a.copy(), weights=_weights(weights))


def planar(xy: ArrayLike, phi: ArrayLike | None = None, weights: ArrayLike | None = None) -> Target:
    """Planar goal(s): (x, y) of shape (..., 2), optionally the heading φ (rad) of the last link."""
    xy = _arr(xy, (2,), "planar target")
    p = np.concatenate([xy, np.zeros(xy.shape[:-1] + (1,))], axis=-1)
    ph = None if phi is None else np.broadcast_to(_arr(phi, (), "phi"), xy.shape[:-1]).copy()
    return Target("planar", p, phi=ph, weights=_weights(weights))


def as_target(target: "Target | ArrayLike") -> Target:
    """A Target from a Target, a pose (..., 4, 4) or a position (..., 3)."""
    if isinstance(target, Target):
        return target
    arr = np.asarray(target, dtype=float)
    if arr.shape[-2:] == (4, 4):
        return pose(arr)
    if arr.shape[-1:] == (3,):
        return position(arr)
    if arr.shape[-1:] == (2,):
        return planar(arr)
    raise TargetError(f"target: expected a Target, a pose (..., 4, 4), a position (..., 3) or a planar "
                      f"point (..., 2); got shape {arr.shape}")
