"""Rotations and 4x4 homogeneous transforms: thin helpers over NumPy and SciPy's Rotation.

Every function works on stacks: leading dimensions are carried through.
Angles are in radians; lengths in whatever unit the caller uses.
"""

from __future__ import annotations

from .errors import InputError

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "rotx", "roty", "rotz", "trans", "transl", "homogeneous", "inv",
    "rpy_to_matrix", "matrix_to_rpy", "skew", "is_rotation", "axis_to_z", "rotation_log",
]


def _rot(axis: int, angle: ArrayLike) -> np.ndarray:
    a = np.asarray(angle, dtype=float)
    c, s = np.cos(a), np.sin(a)
    T = np.zeros(a.shape + (4, 4))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    T[..., axis, axis] = 1.0
    T[..., i, i] = c
    T[..., j, j] = c
    T[..., i, j] = -s
    T[..., j, i] = s
    T[..., 3, 3] = 1.0
    return T


def rotx(angle: ArrayLike) -> np.ndarray:
    """4x4 rotation about x by `angle` rad. ``rotx(np.pi/2)[1:3, 1:3]`` is [[0, -1], [1, 0]]."""
    return _rot(0, angle)


def roty(angle: ArrayLike) -> np.ndarray:
    """4x4 rotation about y by `angle` rad."""
    return _rot(1, angle)


def rotz(angle: ArrayLike) -> np.ndarray:
    """4x4 rotation about z by `angle` rad."""
    return _rot(2, angle)


def trans(x: ArrayLike = 0.0, y: ArrayLike = 0.0, z: ArrayLike = 0.0) -> np.ndarray:
    """4x4 pure translation by (x, y, z); arguments broadcast."""
    x, y, z = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, y, z)))
    T = np.zeros(x.shape + (4, 4))
    T[..., 0, 0] = T[..., 1, 1] = T[..., 2, 2] = T[..., 3, 3] = 1.0
    T[..., 0, 3], T[..., 1, 3], T[..., 2, 3] = x, y, z
    return T


def transl(p: ArrayLike) -> np.ndarray:
    """4x4 pure translation by the vector p of shape (..., 3)."""
    p = np.asarray(p, dtype=float)
    return trans(p[..., 0], p[..., 1], p[..., 2])


def homogeneous(R: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Pack rotation R (..., 3, 3) and position p (..., 3) into T (..., 4, 4)."""
    R = np.asarray(R, dtype=float)
    p = np.asarray(p, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def inv(T: ArrayLike) -> np.ndarray:
    """Inverse of rigid transforms: [Rᵀ, −Rᵀp; 0, 1]."""
    T = np.asarray(T, dtype=float)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return homogeneous(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def rpy_to_matrix(rpy: ArrayLike) -> np.ndarray:
    """Rotation (..., 3, 3) from roll, pitch, yaw (rad) about fixed x, y, z: R = Rz(y)·Ry(p)·Rx(r).

    This is the URDF convention (SciPy's `Rotation.from_euler("xyz", rpy)`, checked against it
    in the tests; written out here because importing SciPy's spatial module would add a third
    of a second to loading any robot file).
    """
    rpy = np.asarray(rpy, dtype=float)
    return (rotz(rpy[..., 2]) @ roty(rpy[..., 1]) @ rotx(rpy[..., 0]))[..., :3, :3]


GIMBAL_LOCK = 1e-12  # |cos pitch| below which yaw is set to 0 (see matrix_to_rpy)


def matrix_to_rpy(R: ArrayLike) -> np.ndarray:
    """Roll, pitch, yaw (rad) of rotation matrices (..., 3, 3); inverse of `rpy_to_matrix`.

    Yaw first, then the rest from Rz(yaw)ᵀ·R = Ry(pitch)·Rx(roll): the angles rebuild R to
    rounding. At pitch = ±90° (gimbal lock) roll and yaw share one degree of freedom and yaw's
    atan2 would read only round-off, different on another CPU; there (|cos pitch| < 1e-12) yaw
    is 0 and roll carries the turn, so the same R prints the same angles everywhere.

    >>> np.degrees(matrix_to_rpy(rpy_to_matrix(np.radians([30, 90, 40])))).round(6) + 0.0
    array([-10.,  90.,   0.])
    """
    R = np.asarray(R, dtype=float)
    locked = np.hypot(R[..., 1, 0], R[..., 0, 0]) < GIMBAL_LOCK
    y = np.where(locked, 0.0, np.arctan2(R[..., 1, 0], R[..., 0, 0]))
    c, s = np.cos(y), np.sin(y)
    m12 = c * R[..., 1, 2] - s * R[..., 0, 2]
    m11 = c * R[..., 1, 1] - s * R[..., 0, 1]
    m00 = c * R[..., 0, 0] + s * R[..., 1, 0]
    return np.stack([np.arctan2(-m12, m11), np.arctan2(-R[..., 2, 0], m00), y], axis=-1)


def skew(v: ArrayLike) -> np.ndarray:
    """Cross-product matrix [v]× with [v]× w = v × w, shape (..., 3, 3)."""
    v = np.asarray(v, dtype=float)
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def is_rotation(R: ArrayLike, tol: float = 1e-9) -> bool:
    """True when R is orthonormal with determinant +1 to within `tol`."""
    R = np.asarray(R, dtype=float)
    if R.shape[-2:] != (3, 3) or not np.all(np.isfinite(R)):
        return False
    eye = np.swapaxes(R, -1, -2) @ R
    return bool(np.all(np.abs(eye - np.eye(3)) < tol) and np.all(np.abs(np.linalg.det(R) - 1) < tol))


def axis_to_z(axis: ArrayLike) -> np.ndarray:
    """Rotations (..., 3, 3) whose z column is the unit vector along `axis` (..., 3), each the
    smallest such turn (about z × a by the angle between them; a half turn about x for −z).

    Used to bring a joint axis given in any direction (URDF, link frames) onto the local z.
    """
    a = np.asarray(axis, dtype=float)
    if a.shape[-1:] != (3,):
        raise InputError(f"axis: expected shape (..., 3), got {a.shape}")
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    if not np.all(np.isfinite(a)) or np.any(norm < 1e-12):
        raise InputError("axis: must be a finite, non-zero vector")
    a = a / norm
    v = np.stack([-a[..., 1], a[..., 0], np.zeros(a.shape[:-1])], axis=-1)  # z × a
    s, c = np.linalg.norm(v, axis=-1), a[..., 2]
    opposite = (s < 1e-12) & (c < 0)
    safe = np.where(s < 1e-12, 1.0, s)
    k = v / safe[..., None]
    K = skew(k)
    angle = np.arctan2(s, c)[..., None, None]
    R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * (K @ K)
    R = np.where((s < 1e-12)[..., None, None], np.eye(3), R)
    return np.where(opposite[..., None, None], np.diag([1.0, -1.0, -1.0]), R)


def rotation_log(R: ArrayLike) -> np.ndarray:
    """Rotation vector ω (..., 3) with exp([ω]×) = R: axis times angle θ ∈ [0, π].

    Uses θ = atan2(‖vee(R − Rᵀ)‖/2, (tr R − 1)/2), accurate at small angles; near θ = π,
    where R − Rᵀ vanishes, SciPy's quaternion route takes over.
    """
    R = np.asarray(R, dtype=float)
    v = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], -1)
    s = 0.5 * np.linalg.norm(v, axis=-1)
    c = 0.5 * (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0)
    theta = np.arctan2(s, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(s > 1e-12, theta / (2 * np.where(s > 1e-12, s, 1.0)), 0.5)
    out = v * scale[..., None]
    far = c < -0.99  # within ~8° of π: R − Rᵀ loses the axis
    if np.any(far):
        from scipy.spatial.transform import Rotation

        out[far] = Rotation.from_matrix(R[far]).as_rotvec()
    return out
