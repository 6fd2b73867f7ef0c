"""Rotations and 4x4 homogeneous transforms: thin helpers over NumPy and SciPy's Rotation.

Every function works on stacks: leading dimensions are carried through.
Angles are in radians; lengths in whatever unit the caller uses.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .errors import InputError

__all__ = [
    "rotx", "roty", "rotz", "trans", "transl", "homogeneous", "inv",
    "rpy_to_matrix", "matrix_to_rpy", "skew", "is_rotation", "axis_to_z", "rotation_log",
    "rotation_error", "rotation_error_floats",
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
    Rs, ps = np.asarray(R, dtype=float), np.asarray(p, dtype=float)
    shape = np.broadcast_shapes(Rs.shape[:-2], ps.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = Rs
    T[..., :3, 3] = ps
    T[..., 3, 3] = 1.0
    return T


def inv(T: ArrayLike) -> np.ndarray:
    """Inverse of rigid transforms: [Rᵀ, −Rᵀp; 0, 1]."""
    Ts = np.asarray(T, dtype=float)
    Rt = np.swapaxes(Ts[..., :3, :3], -1, -2)
    return homogeneous(Rt, -np.einsum("...ij,...j->...i", Rt, Ts[..., :3, 3]))


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
    Rs = np.asarray(R, dtype=float)
    locked = np.hypot(Rs[..., 1, 0], Rs[..., 0, 0]) < GIMBAL_LOCK
    y = np.where(locked, 0.0, np.arctan2(Rs[..., 1, 0], Rs[..., 0, 0]))
    c, s = np.cos(y), np.sin(y)
    m12 = c * Rs[..., 1, 2] - s * Rs[..., 0, 2]
    m11 = c * Rs[..., 1, 1] - s * Rs[..., 0, 1]
    m00 = c * Rs[..., 0, 0] + s * Rs[..., 1, 0]
    return np.stack([np.arctan2(-m12, m11), np.arctan2(-Rs[..., 2, 0], m00), y], axis=-1)


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
    Rs = np.asarray(R, dtype=float)
    if Rs.shape[-2:] != (3, 3) or not np.all(np.isfinite(Rs)):
        return False
    eye = np.swapaxes(Rs, -1, -2) @ Rs
    return bool(np.all(np.abs(eye - np.eye(3)) < tol) and np.all(np.abs(np.linalg.det(Rs) - 1) < tol))


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
    turn = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * (K @ K)  # Rodrigues
    R = np.where((s < 1e-12)[..., None, None], np.eye(3), turn)
    half_turn = np.diag([1.0, -1.0, -1.0])  # pyright: ignore[reportUnknownMemberType]  # NumPy's stubs need 3.11's typing
    return np.where(opposite[..., None, None], half_turn, R)


def rotation_log(R: ArrayLike) -> np.ndarray:
    """Rotation vector ω (..., 3) with exp([ω]×) = R: axis times angle θ ∈ [0, π] (rad).
    `rotation_error` with R_d = R and the identity as the current rotation."""
    Rs = np.asarray(R, dtype=float)
    lead = Rs.shape[:-2]
    Rd = np.ascontiguousarray(np.transpose(np.reshape(Rs, (-1, 3, 3)), (1, 2, 0)))
    w, _ = rotation_error(Rd, np.broadcast_to(np.eye(3)[..., None], Rd.shape))
    return np.reshape(np.transpose(w), lead + (3,))


def rotation_error(Rd: np.ndarray, R: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """w = log(R_d Rᵀ) = θ·a (3, P) and θ (P,) in rad, for rotations with the batch on the last
    axis: Rd and R (3, 3, P), X[r, c, k] the entry (r, c) of the k-th rotation.

    With M = R_d Rᵀ, v = vee(M − Mᵀ) = Σ_k r_k × rd_k = 2 sin θ · a (from the rows r_k of R and
    rd_k of R_d: 7 dot products, M itself is never formed) and cos θ = (tr M − 1)/2, so
    θ = atan2(|v|/2, cos θ), accurate at every angle, and a = v/|v|. Within ~8° of π
    (cos θ < −0.99) v loses the axis: see `_log_near_pi`. The float form of the same rule is
    `rotation_error_floats`. out: where to write w (3, P), if given."""
    v = np.empty((3, Rd.shape[-1])) if out is None else out
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        np.einsum("kP,kP->P", R[b], Rd[c], out=v[a])
        v[a] -= np.einsum("kP,kP->P", R[c], Rd[b])
    c = 0.5 * (np.einsum("ikP,ikP->P", R, Rd) - 1.0)
    s2 = np.sqrt(np.einsum("aP,aP->P", v, v))
    theta = np.arctan2(0.5 * s2, c)
    far = np.flatnonzero(c < -0.99)
    v_far = None
    if far.size:  # M itself, for those few only
        M = np.einsum("ikF,jkF->ijF", Rd[..., far], R[..., far])
        v_far = _log_near_pi(M, v[:, far], c[far], theta[far])
    small = s2 < 1e-12
    v *= theta / np.where(small, 1.0, s2) + 0.5 * small  # v becomes log(M) = θ·a
    if v_far is not None:
        v[:, far] = v_far
    return v, theta


def _log_near_pi(M: np.ndarray, v: np.ndarray, c: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """θ·a (3, k) for rotations M (3, 3, k) far from the identity, batch last:
    (M + Mᵀ)/2 − cos θ I = (1 − cos θ) a aᵀ, so its column with the largest diagonal gives a up
    to sign, and v = vee(M − Mᵀ) = 2 sin θ a gives the sign."""
    k = np.arange(int(M.shape[-1]))
    i = np.argmax(M[[0, 1, 2], [0, 1, 2]], axis=0)  # the largest diagonal of M and of B alike
    col = 0.5 * (M[:, i, k] + np.transpose(M[i, :, k]))
    col[i, k] -= c
    a = col / np.sqrt(np.maximum(col[i, k] * (1.0 - c), 1e-300))
    a *= np.where(np.einsum("ak,ak->k", a, v) < 0, -1.0, 1.0)
    return a * theta


def rotation_error_floats(m00: float, m01: float, m02: float, m10: float, m11: float, m12: float,
                          m20: float, m21: float, m22: float) -> tuple[float, float, float, float]:
    """`rotation_error` for one rotation M = R_d Rᵀ given by its entries: (w0, w1, w2, θ).
    Plain floats, so that the NumPy single-target loop (the core's oracle) avoids ~20 µs of array
    calls per iteration; src/core/residual.cpp writes the same formula for the compiled core."""
    v0, v1, v2 = m21 - m12, m02 - m20, m10 - m01
    c = 0.5 * (m00 + m11 + m22 - 1.0)
    s2 = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    theta = math.atan2(0.5 * s2, c)
    if c >= -0.99:
        k = theta / s2 if s2 >= 1e-12 else 0.5
        return k * v0, k * v1, k * v2, theta
    # near π: the column of (M + Mᵀ)/2 − cos θ I with the largest diagonal, signed by v
    if m00 >= m11 and m00 >= m22:
        a0, a1, a2 = m00 - c, 0.5 * (m10 + m01), 0.5 * (m20 + m02)
        pivot = a0
    elif m11 >= m22:
        a0, a1, a2 = 0.5 * (m01 + m10), m11 - c, 0.5 * (m21 + m12)
        pivot = a1
    else:
        a0, a1, a2 = 0.5 * (m02 + m20), 0.5 * (m12 + m21), m22 - c
        pivot = a2
    k = theta / math.sqrt(max(pivot * (1.0 - c), 1e-300))
    if a0 * v0 + a1 * v1 + a2 * v2 < 0:
        k = -k
    return k * a0, k * a1, k * a2, theta
