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

from ..errors import KinematicaError

KINDS = ("pose", "position", "approach", "planar")
_ROWS = {"pose": np.arange(6), "position": np.arange(3), "approach": np.arange(6), "planar": np.array([0, 1]),
         "planar-phi": np.array([0, 1, 5])}
for _r in _ROWS.values():
    _r.flags.writeable = False  # shared by every Target: read-only


class TargetError(KinematicaError, ValueError):
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
    pitch: np.ndarray | None = None  # (...) the pitch an approach was given by (see `approach`)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    # R and a are Optional because only some kinds carry them; code that has already chosen by
    # kind reads them here, typed as arrays and with a clear error if the kind was not the one it has
    @property
    def rotation(self) -> np.ndarray:
        """The desired rotations R (..., 3, 3) of a pose target."""
        if self.R is None:
            raise TargetError(f"a {self.kind} target has no rotation R (only a pose target has one)")
        return self.R

    @property
    def approach_axis(self) -> np.ndarray:
        """The desired approach unit vectors a (..., 3) of an approach target."""
        if self.a is None:
            raise TargetError(f"a {self.kind} target has no approach vector a (only an approach target has one)")
        return self.a

    @property
    def heading(self) -> np.ndarray:
        """The desired headings φ (...) of a planar target given one."""
        if self.phi is None:
            raise TargetError(f"a {self.kind} target has no heading φ (only a planar target given one has)")
        return self.phi

    @property
    def rows(self) -> np.ndarray:
        """Indices of the constrained residual rows among (x, y, z, ωx, ωy, ωz)."""
        return _ROWS["planar-phi" if self.kind == "planar" and self.phi is not None else self.kind]

    @property
    def dof(self) -> int:
        """Independent constraints: 6 pose, 3 position, 5 approach, 2 or 3 planar."""
        return {"pose": 6, "position": 3, "approach": 5, "planar": 2 + (self.phi is not None)}[self.kind]

    def reshape(self, *shape: int) -> Target:
        """The same goals with another batch shape (e.g. flattened to (N,))."""
        def rs(x, tail):
            return None if x is None else x.reshape(shape + tail)
        return Target(self.kind, self.p.reshape(shape + (3,)), rs(self.R, (3, 3)), rs(self.a, (3,)),
                      rs(self.phi, ()), self.weights, rs(self.pitch, ()))

    def __getitem__(self, idx) -> Target:
        def pick(x):
            return None if x is None else x[idx]
        return Target(self.kind, self.p[idx], pick(self.R), pick(self.a), pick(self.phi), self.weights,
                      pick(self.pitch))


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
    if not _rotations(R):
        raise TargetError("target pose: the rotation part is not orthonormal with det +1")
    return Target("pose", T[..., :3, 3].copy(), R.copy(), weights=_weights(weights))


def _rotations(R: np.ndarray) -> bool:
    """Whether every R (..., 3, 3) is orthonormal (to 1e-6) with det +1. The determinant is the
    triple product of the rows (LAPACK's det costs ~1 µs per matrix); one matrix on floats."""
    if R.ndim == 2:  # the common single target: ~2 µs on floats against ~15 through NumPy
        (a, b, c), (d, e, f), (g, h, i) = R.tolist()
        return rotation_floats(a, b, c, d, e, f, g, h, i)
    # entry by entry over the stack (NumPy's matmul and einsum loop per 3 × 3 matrix: 3× slower)
    a, b, c, d, e, f, g, h, i = np.ascontiguousarray(R.reshape(-1, 9).T)
    gram = (a * a + d * d + g * g - 1.0, b * b + e * e + h * h - 1.0, c * c + f * f + i * i - 1.0,
            a * b + d * e + g * h, a * c + d * f + g * i, b * c + e * f + h * i)  # RᵀR − I
    if any(np.any(np.abs(x) > 1e-6) for x in gram):
        return False
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return bool(np.all(det > 0))


def rotation_floats(a: float, b: float, c: float, d: float, e: float, f: float, g: float, h: float,
                    i: float) -> bool:
    """`_rotations` for one matrix given by its rows (a b c; d e f; g h i) as floats:
    RᵀR = I to 1e-6 and det R > 0."""
    gram = (a * a + d * d + g * g - 1.0, b * b + e * e + h * h - 1.0, c * c + f * f + i * i - 1.0,
            a * b + d * e + g * h, a * c + d * f + g * i, b * c + e * f + h * i)  # RᵀR − I
    return (max(gram) <= 1e-6 and min(gram) >= -1e-6
            and a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0)


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
    from scipy.spatial.transform import (
        Rotation,  # here: SciPy's import is most of a CLI call's start-up
    )

    if kind == "R":
        Rm = _arr(value, (3, 3), "target rotation")
    elif kind == "quat":
        qv = _arr(value, (4,), "quaternion")
        # divided by its largest entry first: the squares of a finite (1e308, …) would overflow
        big = np.max(np.abs(qv), axis=-1, keepdims=True)
        if np.any(big < 1e-12):
            raise TargetError("quaternion: must not be zero")
        scaled = qv / big
        unit = scaled / np.linalg.norm(scaled, axis=-1, keepdims=True)
        Rm = Rotation.from_quat(unit.reshape(-1, 4), scalar_first=True).as_matrix().reshape(qv.shape[:-1] + (3, 3))
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
    cos φ sin ψ, sin φ) with ψ = atan2(y, x). The pitch is kept: IK takes "vertical" and ψ
    about the robot's joint 1 (`ik.frame.resolve`), which for a robot at the world origin
    with joint 1 on the z axis is this `a`."""
    p = _arr(p, (3,), "target position")
    phi = None
    if a is None and pitch is not None:
        phi = _arr(pitch, (), "pitch")
        psi = np.arctan2(p[..., 1], p[..., 0])
        a = np.stack(np.broadcast_arrays(np.cos(phi) * np.cos(psi), np.cos(phi) * np.sin(psi),
                                         np.sin(phi) + 0 * psi), axis=-1)
    elif a is None or pitch is not None:  # neither, or both
        raise TargetError("give either an approach vector or a pitch angle")
    a = _arr(a, (3,), "approach vector")
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    if np.any(norm < 1e-12):
        raise TargetError("approach vector: must not be zero")
    p, a = np.broadcast_arrays(p, a / norm)
    if phi is not None:
        phi = np.broadcast_to(phi, p.shape[:-1]).copy()
    return Target("approach", p.copy(), a=a.copy(), weights=_weights(weights), pitch=phi)


def planar(xy: ArrayLike, phi: ArrayLike | None = None, weights: ArrayLike | None = None) -> Target:
    """Planar goal(s): (x, y) of shape (..., 2), optionally the heading φ (rad) of the last link."""
    xy = _arr(xy, (2,), "planar target")
    p = np.concatenate([xy, np.zeros(xy.shape[:-1] + (1,))], axis=-1)
    ph = None if phi is None else np.broadcast_to(_arr(phi, (), "phi"), xy.shape[:-1]).copy()
    return Target("planar", p, phi=ph, weights=_weights(weights))


def as_target(target: Target | ArrayLike) -> Target:
    """A Target from a Target, a pose (..., 4, 4), a position (..., 3), or a Cartesian path
    (`km.trajectory.line`, `circle_through`, …: its poses)."""
    if isinstance(target, Target):
        return target
    poses = getattr(target, "poses", None)  # a Path: its poses (not converted element by element)
    try:
        arr = np.asarray(target if poses is None else poses, dtype=float)
    except (TypeError, ValueError):  # NumPy's own words name neither the argument nor what it takes
        raise TargetError(f"target: expected numbers, got {target!r}") from None
    if arr.shape[-2:] == (4, 4):
        return pose(arr)
    if arr.shape[-1:] == (3,):
        return position(arr)
    if arr.shape[-1:] == (2,):
        return planar(arr)
    raise TargetError(f"target: expected a Target, a pose (..., 4, 4), a position (..., 3) or a planar "
                      f"point (..., 2); got shape {arr.shape}")
