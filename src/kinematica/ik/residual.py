"""The IK residual e(q) and its Jacobian, for every kind of target, batched over N problems.

  pose       e = [p_d − p; log(R_d Rᵀ)]             J_e = J                (6 rows)
  position   e = p_d − p                              J_e = J_v              (3 rows)
  approach   e = [p_d − p; ∠(a, a_d) · (a × a_d)/‖a × a_d‖]
             J_e = [J_v; (I − a aᵀ) J_ω]  — a turn about a itself does not move a   (6 rows, rank 5)
  planar     e = [x_d − x, y_d − y (, wrap(φ_d − φ))]  J_e = rows (v_x, v_y (, ω_z)) of J

Rows are scaled by √w when the target carries per-axis weights, so ‖e‖² = eᵀ W e (paper 002's W_E).
"""

from __future__ import annotations

import numpy as np

from ..spatial import rotation_error, rotation_error_floats
from .pose_error import pose_error
from .reach import distance
from .target import Target

FEW = 4  # poses up to which `errors` takes the orientation error on floats


def errors(target: Target, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position error (N,) in length units and orientation error (N,) in rad of poses T (N, 4, 4).
    An axis with weight 0 is free: it counts in neither error."""
    if target.weights is not None and target.kind in ("pose", "position") and np.any(target.weights == 0):
        return _weighted_errors(target, target.weights, T)
    if target.kind == "planar":
        pos = distance(target.p[..., :2] - T[..., :2, 3])
        if target.phi is None:
            return pos, np.zeros_like(pos)
        return pos, np.abs(_wrap(target.phi - np.arctan2(T[..., 1, 0], T[..., 0, 0])))
    pos = distance(target.p - T[..., :3, 3])  # (a far finite target must not overflow)
    if target.kind == "position":
        return pos, np.zeros_like(pos)
    if target.kind == "approach":
        return pos, _angle(T[..., :3, 2], target.approach_axis)
    Rd, R = np.broadcast_arrays(target.rotation, T[..., :3, :3])
    if R.size <= 9 * FEW:  # the float form, pose by pose: for a few, ~5 µs each against ~30 µs of array calls
        M = np.einsum("...ij,...kj->...ik", Rd, R).reshape(-1, 9).tolist()  # R_d Rᵀ
        return pos, np.array([rotation_error_floats(*m)[3] for m in M]).reshape(R.shape[:-2])[()]
    return pos, rotation_error(_batch_last(Rd), _batch_last(R))[1].reshape(R.shape[:-2])


def _batch_last(R: np.ndarray) -> np.ndarray:
    """Rotations (..., 3, 3) as (3, 3, N), the layout of `spatial.rotation_error`."""
    return np.ascontiguousarray(R.reshape(-1, 3, 3).transpose(1, 2, 0))


def _weighted_errors(target: Target, weights: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    on = weights > 0
    pos = distance((target.p - T[..., :3, 3]) * on[:3])
    if target.kind == "position":
        return pos, np.zeros_like(pos)
    Rd, R = np.broadcast_arrays(target.rotation, T[..., :3, :3])
    w = rotation_error(_batch_last(Rd), _batch_last(R))[0].T.reshape(R.shape[:-2] + (3,))  # in the base frame
    return pos, np.linalg.norm(w * on[3:], axis=-1)


def _wrap(x: np.ndarray) -> np.ndarray:
    return (x + np.pi) % (2 * np.pi) - np.pi


def _angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def residual(target: Target, T: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted residual e (N, m) and its Jacobian J_e (N, m, n) for poses T and Jacobians J."""
    if target.kind == "planar":
        e = target.p[..., :2] - T[..., :2, 3]
        Je = J[..., [0, 1], :]
        if target.phi is not None:
            dphi = _wrap(target.phi - np.arctan2(T[..., 1, 0], T[..., 0, 0]))
            e = np.concatenate([e, dphi[..., None]], axis=-1)
            Je = J[..., [0, 1, 5], :]
    elif target.kind == "position":
        e, Je = target.p - T[..., :3, 3], J[..., :3, :]
    elif target.kind == "pose":
        lead = T.shape[:-2]
        t, T2 = target.reshape(-1), T.reshape(-1, 4, 4)
        e = pose_error(t.p.T, t.rotation.transpose(1, 2, 0), T2[:, :3].transpose(1, 0, 2))[0]
        e, Je = e.T.reshape(lead + (6,)), J
    else:
        a = T[..., :3, 2]
        axis = np.cross(a, target.approach_axis)
        s = np.linalg.norm(axis, axis=-1)
        ang = np.arctan2(s, np.sum(a * target.approach_axis, axis=-1))
        # at ang = π the axis is undefined: any direction normal to a turns a towards a_d
        fallback = np.cross(a, np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0, 0], [0, 1.0, 0]))
        axis = np.where((s < 1e-12)[..., None] & (ang > 1)[..., None], fallback, axis)
        s = np.linalg.norm(axis, axis=-1)
        eo = axis * np.where(s > 1e-15, ang / np.where(s > 1e-15, s, 1.0), 0.0)[..., None]
        P = np.eye(3) - a[..., :, None] * a[..., None, :]
        e = np.concatenate([target.p - T[..., :3, 3], eo], axis=-1)
        Je = np.concatenate([J[..., :3, :], P @ J[..., 3:, :]], axis=-2)
    if target.weights is not None:
        sw = np.sqrt(target.weights[target.rows])
        e, Je = e * sw, Je * sw[:, None]
    return e, Je
