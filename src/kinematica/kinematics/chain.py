"""One forward pass along the canonical chain, for many configurations at once.

The pass keeps the running transform as a structure of arrays with the batch on the *last*
axis: `S[c, r, k]` is row r of column c of the transform of problem k (only the top three
rows; the bottom row is always 0 0 0 1). Then

- a constant transform on the right is one 4x4-by-(4, 3·N) matrix product, new = Cᵀ · S;
- a joint rotation Rz(θ) on the right mixes two columns: x' = c·x + s·y, y' = c·y − s·x;
- a prismatic joint Tz(d) adds d·z to the position column.

sin and cos come from t = tan(θ/2) (c = (1 − t²)/(1 + t²), s = 2t/(1 + t²)) because NumPy's
tan is vectorised on this platform and sin/cos are not: it is 5–6x cheaper, exact to ~1e-16.
"""

from __future__ import annotations

import numpy as np

from ..model.robot import Robot

CHUNK = 4096  # problems per pass: keeps the (4, 3, N) working set in cache


def check_q(robot: Robot, q: object, what: str = "q") -> np.ndarray:
    """q as a float array of shape (..., n); a clear ValueError for any other shape or NaN/inf."""
    try:
        arr = np.asarray(q, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected numbers, got {q!r}") from None
    if arr.ndim == 0 or arr.shape[-1] != robot.n:
        raise ValueError(
            f"{what}: expected {robot.n} joint values for {robot.name!r} (shape (..., {robot.n})), "
            f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: contains NaN or infinity")
    return arr


def _cos_sin(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.tan(0.5 * theta)
    t2 = t * t
    inv = 1.0 / (1.0 + t2)
    return (1.0 - t2) * inv, (t + t) * inv


def _apply_const(S: np.ndarray, CT: np.ndarray) -> np.ndarray:
    return (CT @ S.reshape(4, -1)).reshape(S.shape)


def _apply_joint(S: np.ndarray, revolute: bool, c: np.ndarray, s: np.ndarray, d: np.ndarray) -> None:
    if revolute:
        x, y = S[0], S[1]
        x_new = c * x + s * y
        S[1] = c * y - s * x
        S[0] = x_new
    else:
        S[3] += d * S[2]


def _start(robot: Robot, N: int, first: np.ndarray) -> np.ndarray:
    S = np.empty((4, 3, N))
    S[:] = first[:3, :].T[:, :, None]
    return S


def _prepare(robot: Robot, Qt: np.ndarray):
    """Joint values + offsets, and cos/sin of the revolute ones, in (n, N) layout."""
    theta = Qt + robot.offsets[:, None]
    c, s = _cos_sin(theta)  # computed for all rows; prismatic rows are simply unused
    return theta, c, s


def _to_matrices(S: np.ndarray) -> np.ndarray:
    N = S.shape[-1]
    T = np.zeros((N, 4, 4))
    T[:, :3, :] = S.transpose(2, 1, 0)
    T[:, 3, 3] = 1.0
    return T


def end_pass(robot: Robot, Q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """End poses (N, 4, 4) and, if asked, base-frame geometric Jacobians (N, 6, n) for Q (N, n)."""
    N, n = Q.shape
    T = np.empty((N, 4, 4))
    J = np.empty((N, 6, n)) if with_jacobian else None
    CT = np.swapaxes(robot.C, -1, -2).copy()
    rev = robot.revolute
    for k0 in range(0, N, CHUNK):
        Qc = Q[k0:k0 + CHUNK].T
        theta, c, s = _prepare(robot, Qc)
        S = _start(robot, Qc.shape[1], robot.C[0])
        if with_jacobian:
            z = np.empty((n, 3, Qc.shape[1]))
            p = np.empty((n, 3, Qc.shape[1]))
        for i in range(n):
            if with_jacobian:
                z[i] = S[2]
                p[i] = S[3]
            _apply_joint(S, rev[i], c[i], s[i], theta[i])
            S = _apply_const(S, CT[i + 1])
        T[k0:k0 + CHUNK] = _to_matrices(S)
        if with_jacobian:
            J[k0:k0 + CHUNK] = _columns(z, p, S[3], rev).transpose(2, 0, 1)
    return T, J


def _columns(z: np.ndarray, p: np.ndarray, pe: np.ndarray, rev: np.ndarray) -> np.ndarray:
    """Geometric Jacobian columns (6, n, N): revolute [z × (pe − p); z], prismatic [z; 0]."""
    d = pe[None] - p
    Jc = np.empty((6,) + z.shape[:1] + z.shape[2:])
    cross = np.empty_like(z)
    cross[:, 0] = z[:, 1] * d[:, 2] - z[:, 2] * d[:, 1]
    cross[:, 1] = z[:, 2] * d[:, 0] - z[:, 0] * d[:, 2]
    cross[:, 2] = z[:, 0] * d[:, 1] - z[:, 1] * d[:, 0]
    r = rev[:, None, None]
    Jc[:3] = np.where(r, cross, z).transpose(1, 0, 2)
    Jc[3:] = np.where(r, z, 0.0).transpose(1, 0, 2)
    return Jc


def frames_pass(robot: Robot, Q: np.ndarray) -> np.ndarray:
    """Every frame (N, n + 2, 4, 4): base, link frames 1..n, tool."""
    N, n = Q.shape
    out = np.empty((N, n + 2, 4, 4))
    out[:] = robot.base
    BT = np.swapaxes(robot.before, -1, -2).copy()
    AT = np.swapaxes(robot.after, -1, -2).copy()
    toolT = robot.tool.T.copy()
    rev = robot.revolute
    for k0 in range(0, N, CHUNK):
        Qc = Q[k0:k0 + CHUNK].T
        theta, c, s = _prepare(robot, Qc)
        S = _start(robot, Qc.shape[1], robot.base)
        for i in range(n):
            S = _apply_const(S, BT[i])
            _apply_joint(S, rev[i], c[i], s[i], theta[i])
            S = _apply_const(S, AT[i])
            out[k0:k0 + CHUNK, i + 1] = _to_matrices(S)
        out[k0:k0 + CHUNK, n + 1] = _to_matrices(_apply_const(S, toolT))
    return out


# --- one configuration: a few 4x4 products beat the batch machinery's fixed cost ---------
def _joint_matrices(robot: Robot, q: np.ndarray) -> np.ndarray:
    theta = q + robot.offsets
    rev = robot.revolute
    c = np.where(rev, np.cos(theta), 1.0)
    s = np.where(rev, np.sin(theta), 0.0)
    Jm = np.zeros((robot.n, 4, 4))
    Jm[:, 0, 0] = Jm[:, 1, 1] = c
    Jm[:, 1, 0] = s
    Jm[:, 0, 1] = -s
    Jm[:, 2, 2] = Jm[:, 3, 3] = 1.0
    Jm[:, 2, 3] = np.where(rev, 0.0, theta)
    return Jm


def end_single(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """`end_pass` for one configuration q (n,): pose (4, 4) and Jacobian (6, n) or None."""
    JC = _joint_matrices(robot, q) @ robot.C[1:]
    T = robot.C[0]
    if not with_jacobian:
        for A in JC:
            T = T.dot(A)
        return T, None
    pre = np.empty((robot.n, 4, 4))
    for i, A in enumerate(JC):
        pre[i] = T
        T = T.dot(A)
    J = _columns(pre[:, :3, 2, None], pre[:, :3, 3, None], T[:3, 3, None], robot.revolute)[..., 0]
    return T, J


def frames_single(robot: Robot, q: np.ndarray) -> np.ndarray:
    """`frames_pass` for one configuration q (n,): (n + 2, 4, 4)."""
    BJA = robot.before @ _joint_matrices(robot, q) @ robot.after
    out = np.empty((robot.n + 2, 4, 4))
    out[0] = T = robot.base
    for i, A in enumerate(BJA):
        out[i + 1] = T = T.dot(A)
    out[-1] = T.dot(robot.tool)
    return out
