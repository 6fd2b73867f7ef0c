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

from ..spatial import rotation_log
from .target import Target


def errors(target: Target, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position error (N,) in length units and orientation error (N,) in rad of poses T (N, 4, 4)."""
    if target.kind == "planar":
        pos = np.linalg.norm(target.p[..., :2] - T[..., :2, 3], axis=-1)
        if target.phi is None:
            return pos, np.zeros_like(pos)
        return pos, np.abs(_wrap(target.phi - np.arctan2(T[..., 1, 0], T[..., 0, 0])))
    pos = np.linalg.norm(target.p - T[..., :3, 3], axis=-1)
    if target.kind == "position":
        return pos, np.zeros_like(pos)
    if target.kind == "approach":
        return pos, _angle(T[..., :3, 2], target.a)
    return pos, np.linalg.norm(rotation_log(target.R @ np.swapaxes(T[..., :3, :3], -1, -2)), axis=-1)


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
        eo = rotation_log(target.R @ np.swapaxes(T[..., :3, :3], -1, -2))
        e, Je = np.concatenate([target.p - T[..., :3, 3], eo], axis=-1), J
    else:
        a = T[..., :3, 2]
        axis = np.cross(a, target.a)
        s = np.linalg.norm(axis, axis=-1)
        ang = np.arctan2(s, np.sum(a * target.a, axis=-1))
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
