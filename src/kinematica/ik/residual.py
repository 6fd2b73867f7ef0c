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
    """Position error (N,) in length units and orientation error (N,) in rad of poses T (N, 4, 4).
    An axis with weight 0 is free: it counts in neither error."""
    if target.weights is not None and target.kind in ("pose", "position") and np.any(target.weights == 0):
        return _weighted_errors(target, T)
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
    v, c = _vee_cos(target.R, T[..., :3, :3])
    return pos, np.arctan2(0.5 * np.linalg.norm(v, axis=-1), c)  # the angle of R_d Rᵀ, accurate everywhere


def _weighted_errors(target: Target, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    on = target.weights > 0
    pos = np.linalg.norm((target.p - T[..., :3, 3]) * on[:3], axis=-1)
    if target.kind == "position":
        return pos, np.zeros_like(pos)
    w = rotation_log(target.R @ np.swapaxes(T[..., :3, :3], -1, -2))  # base-frame rotation error
    return pos, np.linalg.norm(w * on[3:], axis=-1)


def _vee_cos(Rd: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """v = vee(M − Mᵀ) = Σ_k r_k × rd_k (= 2 sin θ · axis) and cos θ = (tr M − 1)/2 of
    M = R_d Rᵀ, from the columns r_k, rd_k without forming M: 7 dot products instead of a
    3x3 product per problem."""
    v = np.empty(R.shape[:-1])
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        v[..., a] = (np.einsum("...k,...k->...", R[..., b, :], Rd[..., c, :])
                     - np.einsum("...k,...k->...", R[..., c, :], Rd[..., b, :]))
    return v, 0.5 * (np.einsum("...ij,...ij->...", R, Rd) - 1.0)


def pose_residual(pd: np.ndarray, Rd: np.ndarray, Tr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unweighted pose residual e = [p_d − p; log(R_d Rᵀ)] with the batch on the last axis:
    pd (3, P), Rd (3, 3, P) and the top rows of the poses, Tr (3, P, 4) with Tr[r, k, c] =
    T_k[r, c], give e (6, P), the position error (P,) and the orientation error θ (P,).
    One transposing copy of Tr first: every later operation runs on contiguous rows."""
    Tf = np.ascontiguousarray(Tr.transpose(0, 2, 1))  # Tf[r, c] = T[:, r, c]
    P = Tf.shape[-1]
    e = np.empty((6, P))
    np.subtract(pd, Tf[:, 3], out=e[:3])
    v = e[3:]  # vee(M − Mᵀ) = Σ_k r_k × rd_k = 2 sin θ · axis, M = R_d Rᵀ (7 dot products, not 9)
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        np.einsum("kP,kP->P", Tf[b, :3], Rd[c], out=v[a])
        v[a] -= np.einsum("kP,kP->P", Tf[c, :3], Rd[b])
    c = 0.5 * (np.einsum("ikP,ikP->P", Tf[:, :3], Rd) - 1.0)  # cos θ = (tr M − 1)/2
    s2 = np.sqrt(np.einsum("aP,aP->P", v, v))
    theta = np.arctan2(0.5 * s2, c)
    far = np.flatnonzero(c < -0.99)  # within ~8° of π, v loses the axis: see _log_near_pi
    if far.size:  # M itself, for those few only
        M = np.einsum("ikF,jkF->ijF", Rd[..., far], Tf[:, :3, far])
        v_far = _log_near_pi(M, v[:, far], c[far], theta[far])
    small = s2 < 1e-12
    v *= theta / np.where(small, 1.0, s2) + 0.5 * small  # v becomes log(M) = θ·axis
    if far.size:
        v[:, far] = v_far
    return e, np.sqrt(np.einsum("aP,aP->P", e[:3], e[:3])), theta


def _log_near_pi(M: np.ndarray, v: np.ndarray, c: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """θ·a (3, k) for rotations M (3, 3, k) far from the identity, batch last:
    (M + Mᵀ)/2 − cos θ I = (1 − cos θ) a aᵀ, so its column with the largest diagonal gives a up
    to sign, and v = vee(M − Mᵀ) = 2 sin θ a gives the sign."""
    k = np.arange(M.shape[-1])
    i = np.argmax(M[[0, 1, 2], [0, 1, 2]], axis=0)  # the largest diagonal of M and of B alike
    col = 0.5 * (M[:, i, k] + M[i, :, k].T)
    col[i, k] -= c
    a = col / np.sqrt(np.maximum(col[i, k] * (1.0 - c), 1e-300))
    a *= np.where(np.einsum("ak,ak->k", a, v) < 0, -1.0, 1.0)
    return a * theta


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
        e = pose_residual(t.p.T, t.R.transpose(1, 2, 0), T2[:, :3].transpose(1, 0, 2))[0]
        e, Je = e.T.reshape(lead + (6,)), J
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
