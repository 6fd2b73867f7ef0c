"""One forward pass along the canonical chain, for many configurations at once.

The running transforms of a chunk of m problems live in one array `S[r, k, c]`: row r (the
top three rows; the bottom row is always 0 0 0 1) and column c of the transform of problem k.
Each step along the chain is then one NumPy call over the whole chunk:

- a constant transform C on the right is one tall matrix product, S · C, with S seen as the
  (3·m, 4) matrix of all the transforms' rows (BLAS does this ~2x faster per flop than
  NumPy's element-wise loops);
- a joint rotation Rz(θ) on the right is one complex multiply: the x and y entries of each row
  are adjacent, so S seen as complex holds x + i·y, and (x + iy)(c − is) = (c·x + s·y) +
  i·(c·y − s·x) is exactly the new x and y (one call instead of six);
- a prismatic joint Tz(d) adds d·z to the position column; a helical joint of pitch h is a
  rotation followed by the slide d = h·θ along the same z (the two commute).

cos and sin come from t = tan(θ/2) (c = 2/(1 + t²) − 1, s = 2t/(1 + t²)) because NumPy's tan
is vectorised on this platform and sin/cos are not: it is 5–6x cheaper, exact to ~1e-16.
Steps write into preallocated arrays (`out=`, in place): at thousands of problems per chunk,
allocating and filling temporaries costs as much as the arithmetic itself.

Once `kinematica.compiled` has loaded the Numba kernels (kernels.py: the same chain product,
one configuration at a time), `end_single` and `end_pass` run them instead; this NumPy code
is what runs before that, or without Numba. Per-robot constants live in the robot's
`cache.RobotCache`.
"""

from __future__ import annotations

from ..errors import InputError

import math
from typing import NamedTuple, NoReturn

import numpy as np

from .. import compiled
from ..model.robot import Robot
from .cache import cache_of, chain_arrays

_F8 = np.dtype(float)
CHUNK = 4096  # problems per pass: the working set stays in cache (4096–8192 measured best)


def check_q(robot: Robot, q: object, what: str = "q") -> np.ndarray:
    """q as a float array of shape (..., n); a clear ValueError for any other shape or NaN/inf."""
    arr = shaped_q(robot, q, what)
    # A finite sum proves every value finite (NaN and inf propagate); only an overflowing sum
    # or a bad value needs the element-wise test. Python's sum is the cheaper one for few values.
    total = sum(arr.ravel().tolist()) if arr.size <= 64 else float(arr.sum())
    if not math.isfinite(total) and not np.isfinite(arr).all():
        not_finite(what)
    return arr


def shaped_q(robot: Robot, q: object, what: str = "q") -> np.ndarray:
    """`check_q` without the finiteness test, for callers whose kernel reports it."""
    if type(q) is np.ndarray and q.dtype is _F8:  # already floats: asarray's call saved
        arr = q
    else:
        try:
            arr = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{what}: expected numbers, got {q!r}") from None
    if not arr.shape or arr.shape[-1] != len(robot.joint_types):
        raise InputError(
            f"{what}: expected {robot.n} joint values for {robot.name!r} (shape (..., {robot.n})), "
            f"got shape {arr.shape}")
    return arr


def not_finite(what: str = "q") -> NoReturn:
    raise InputError(f"{what}: contains NaN or infinity")


# --- per-robot constants, computed once (a Robot is immutable) -----------------------------
class _Parts(NamedTuple):
    rev: np.ndarray | slice  # the revolute joints (a slice when all are: selecting copies nothing)
    row: tuple[int, ...]  # joint i's row in the cos/sin arrays; −1 for a prismatic joint
    half_off: np.ndarray  # (n_rev, 1): offsets / 2 of the revolute joints
    offset: bool  # whether any joint has an offset
    pri: np.ndarray  # indices of the prismatic joints
    hel: np.ndarray  # indices of the helical joints (revolute with a pitch)
    pitch: np.ndarray  # (n_hel,): their pitches, length unit per rad
    K: np.ndarray  # (n, 4, 16): Rz(θ)·Ci = c·K0 + s·K1 + K2 and Tz(d)·Ci = K0 + K2 + d·K3
    w0: np.ndarray  # (n, 1, 4): the weights (c, s, 1, d) of K0..K3 before c, s and d are known
    gather: np.ndarray  # (7, 3, n): flat indices into the frames of one configuration


def _parts(robot: Robot) -> _Parts:
    cache = cache_of(robot)
    if cache.parts is None:
        cache.parts = _make_parts(robot)
    return cache.parts


def _make_parts(robot: Robot) -> _Parts:
    rev = np.flatnonzero(robot.revolute)
    row = np.where(robot.revolute, np.cumsum(robot.revolute) - 1, -1)
    C = robot.C[1:]
    K = np.zeros((robot.n, 4, 4, 4))
    K[:, 0, :2] = C[:, :2]  # E·C, E = diag(1, 1, 0, 0): the rows c multiplies
    K[:, 1, 0], K[:, 1, 1] = -C[:, 1], C[:, 0]  # F·C, F = [[0, −1], [1, 0]]: the rows s multiplies
    K[:, 2, 2:] = C[:, 2:]  # G·C, G = diag(0, 0, 1, 1): rows a rotation about z leaves alone
    K[:, 3, 2] = C[:, 3]  # P·C, P = e3·e4ᵀ: a slide along z
    w0 = np.zeros((robot.n, 1, 4))
    w0[:, 0, 2] = 1.0
    return _Parts(rev=slice(None) if len(rev) == robot.n else rev,
                  row=tuple(int(r) for r in row), half_off=0.5 * robot.offsets[rev, None],
                  offset=bool(robot.offsets.any()),
                  pri=np.flatnonzero(~robot.revolute), hel=np.flatnonzero(robot.helical),
                  pitch=robot.pitch[robot.helical], K=K.reshape(robot.n, 4, 16), w0=w0,
                  gather=_gather_indices(robot.n))


def _gather_indices(n: int) -> np.ndarray:
    """Flat indices into the frames F (n + 1, 4, 4) before each joint (F[n]: the end) of the
    (3, n) blocks a cross product z × (pe − p) needs, so that one `take` lays them out
    contiguously (tiny strided NumPy operations cost ~1 µs each, contiguous ones ~0.3):
    pe[r+2], pe[r+1], p[r+2], p[r+1], z[r+1], z[r+2] and z[r] (row index r mod 3)."""
    r, i = np.arange(3)[:, None], np.arange(n)[None, :]
    z, p, pe = 16 * i + 2, 16 * i + 3, 16 * n + 3 + 0 * i
    return np.stack([pe + 4 * ((r + 2) % 3), pe + 4 * ((r + 1) % 3), p + 4 * ((r + 2) % 3),
                     p + 4 * ((r + 1) % 3), z + 4 * ((r + 1) % 3), z + 4 * ((r + 2) % 3),
                     z + 4 * r])


# --- the batch pass ------------------------------------------------------------------------
def _unit_phasors(h: np.ndarray) -> np.ndarray:
    """e^(−iθ) = cos θ − i·sin θ for θ = 2h, from t = tan(h); h is overwritten."""
    t = np.tan(h, out=h)
    v = t * t
    v += 1.0
    np.divide(-2.0, v, out=v)  # v = −2 / (1 + t²)
    E = np.empty(h.shape, complex)
    np.subtract(-1.0, v, out=E.real)  # cos θ = 2 / (1 + t²) − 1 = (1 − t²) / (1 + t²)
    np.multiply(t, v, out=E.imag)  # −sin θ = −2t / (1 + t²)
    return E


def _cos_sin(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos θ and sin θ through tan(θ/2) (0.5·θ is exact, so no accuracy is lost)."""
    E = _unit_phasors(np.multiply(theta, 0.5, out=np.empty(np.shape(theta))))
    return E.real, -E.imag


def _chunk_phasors(parts: _Parts, Qc: np.ndarray) -> np.ndarray:
    """e^(−iθ) (n_rev, m) for the revolute joints of the chunk Qc (m, n)."""
    h = np.multiply(Qc.T[parts.rev], 0.5)  # θ/2 = q/2 + offset/2, exactly
    if parts.offset:
        h += parts.half_off
    return _unit_phasors(h)


def _joint(parts: _Parts, i: int, S: np.ndarray, Qc: np.ndarray, E: np.ndarray, offsets: np.ndarray) -> None:
    """S · Ji(θi) in place, S (3, m, 4): Rz multiplies x + i·y by e^(−iθ); Tz(d) adds d·z to p
    (d = q + offset for a prismatic joint, pitch·(q + offset) for a helical one)."""
    r = parts.row[i]
    if r >= 0:
        xy = S.view(complex)[:, :, 0]
        np.multiply(xy, E[r], out=xy)
        if parts.hel.size and i in parts.hel:
            h = float(parts.pitch[np.searchsorted(parts.hel, i)])
            S[:, :, 3] += S[:, :, 2] * (h * (Qc[:, i] + offsets[i]))
    else:
        S[:, :, 3] += S[:, :, 2] * (Qc[:, i] + offsets[i])


def _run_chunk(robot: Robot, parts: _Parts, Qc: np.ndarray, S: np.ndarray, T: np.ndarray,
               Z: np.ndarray | None = None, P: np.ndarray | None = None) -> None:
    """C0 · J1 · C1 · … · Jn · Cn for the chunk Qc (m, n), into the top rows of T (m, 4, 4).

    S (2, 3, m, 4): two state buffers taking turns, S[0] holding C0's top rows on entry.
    Z, P (3, n, m), if given, receive z and p of the state before each joint: what the
    Jacobian needs (the joint's own rotation leaves them alone).
    """
    E = _chunk_phasors(parts, Qc)
    n, C = robot.n, robot.C
    for i in range(n):
        A, B = S[i % 2], S[(i + 1) % 2]
        if Z is not None:
            np.copyto(Z[:, i], A[..., 2])  # copied while A is in cache: later reads are
            np.copyto(P[:, i], A[..., 3])  # contiguous instead of one double in four
        _joint(parts, i, A, Qc, E, robot.offsets)
        if i + 1 < n:
            np.matmul(A.reshape(-1, 4), C[i + 1], out=B.reshape(-1, 4))
    _rows_times(A, C[n], T.transpose(1, 0, 2))  # the last product straight into T, row by row
    T[:, 3] = (0.0, 0.0, 0.0, 1.0)


def _rows_times(A: np.ndarray, C: np.ndarray, out: np.ndarray) -> None:
    """out[r] = A[r] · C for the top rows r = 0, 1, 2 of (≥3, m, 4) views: three (m, 4) @ (4, 4)
    products that read and write other layouts in place (BLAS takes any row stride)."""
    for r in range(3):
        np.matmul(A[r], C, out=out[r])


def end_pass(robot: Robot, Q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """End poses (N, 4, 4) and, if asked, base-frame geometric Jacobians (N, 6, n) for Q (N, n)."""
    N, n = Q.shape
    T = np.empty((N, 4, 4))
    J = np.empty((N, 6, n)) if with_jacobian else None
    k = compiled.kernels("chain")
    if k is not None:  # a loop of the single kernel: 0.28/0.33 µs a pose against 0.35/0.65 here
        C, joints = cache_of(robot).chain or chain_arrays(robot)
        if J is None:
            k.poses(C, joints, Q, T)
        else:
            k.poses_jacobians(C, joints, Q, T, J)
        return T, J
    parts = _parts(robot)
    m0 = min(N, CHUNK)
    start = np.empty((3, m0, 4))
    start[:] = robot.C[0, :3, None, :]  # filled once: a broadcast fill is ~5x slower than a copy
    bufs = np.empty(24 * m0), np.empty(6 * n * m0), np.empty(3 * n * m0)
    for k0 in range(0, N, CHUNK):
        Qc = Q[k0:k0 + CHUNK]
        m = len(Qc)
        S = bufs[0][:24 * m].reshape(2, 3, m, 4)  # views contiguous for every m
        np.copyto(S[0], start[:, :m])
        if not with_jacobian:
            _run_chunk(robot, parts, Qc, S, T[k0:k0 + m])
            continue
        Jc, P = bufs[1][:6 * n * m].reshape(6, n, m), bufs[2][:3 * n * m].reshape(3, n, m)
        _run_chunk(robot, parts, Qc, S, T[k0:k0 + m], Jc[3:], P)
        _columns(parts, Jc, P, np.ascontiguousarray(T[k0:k0 + m, :3, 3].T), J[k0:k0 + m])
    return T, J


def _columns(parts: _Parts, Jc: np.ndarray, P: np.ndarray, pe: np.ndarray, out: np.ndarray) -> None:
    """Jacobian columns into out (m, 6, n), revolute [z × (pe − p); z], prismatic [z; 0], from
    Jc (6, n, m) whose rows 3..5 hold each joint's z, P (3, n, m) each joint's p (overwritten)
    and pe (3, m) the tool point. Computed in the contiguous Jc: strided writes cost 2-3x."""
    Z = Jc[3:]
    D = np.subtract(pe[:, None, :], P, out=P)  # pe − p
    tmp = np.empty(Z.shape[1:])
    for r in range(3):
        a, b = (r + 1) % 3, (r + 2) % 3
        np.multiply(Z[a], D[b], out=Jc[r])
        np.multiply(Z[b], D[a], out=tmp)
        Jc[r] -= tmp
    if parts.pri.size:
        Jc[:3, parts.pri] = Z[:, parts.pri]
        Jc[3:, parts.pri] = 0.0
    helical_columns(parts, Jc)
    out[:] = Jc.transpose(2, 0, 1)


def helical_columns(parts: _Parts, J: np.ndarray) -> None:
    """Add pitch·z to the linear rows of each helical column of J (6, n, ...), in place: the
    joint's slide h·θ along its own z moves the tool by h·z per rad, besides z × (pe − p)."""
    if parts.hel.size:
        h = parts.pitch.reshape((-1,) + (1,) * (J.ndim - 2))
        J[:3, parts.hel] += h * J[3:, parts.hel]


def frames_pass(robot: Robot, Q: np.ndarray) -> np.ndarray:
    """Every frame (N, n + 2, 4, 4): base, link frames 1..n, tool."""
    N, n = Q.shape
    parts = _parts(robot)
    out = np.empty((N, n + 2, 4, 4))
    out[:, :, 3] = (0.0, 0.0, 0.0, 1.0)
    out[:, 0] = robot.base
    for k0 in range(0, N, CHUNK):
        Qc = Q[k0:k0 + CHUNK]
        F = out[k0:k0 + CHUNK].transpose(1, 2, 0, 3)  # F[j, r]: row r of frame j, (m, 4)
        E = _chunk_phasors(parts, Qc)
        S = np.empty((3, len(Qc), 4))
        for i in range(n):
            _rows_times(F[i], robot.before[i], S)  # the state before joint i + 1
            _joint(parts, i, S, Qc, E, robot.offsets)
            _rows_times(S, robot.after[i], F[i + 1])
        _rows_times(F[n], robot.tool, F[n + 1])
    return out


# --- one configuration: a few 4x4 products beat the batch machinery's fixed cost ---------
def _joint_matrices(robot: Robot, q: np.ndarray) -> np.ndarray:
    """Ji(qi + offset_i) for every joint, (n, 4, 4)."""
    theta = q + robot.offsets
    rev = robot.revolute
    c = np.where(rev, np.cos(theta), 1.0)
    s = np.where(rev, np.sin(theta), 0.0)
    Jm = np.zeros((robot.n, 4, 4))
    Jm[:, 0, 0] = Jm[:, 1, 1] = c
    Jm[:, 1, 0] = s
    Jm[:, 0, 1] = -s
    Jm[:, 2, 2] = Jm[:, 3, 3] = 1.0
    Jm[:, 2, 3] = np.where(rev, robot.pitch * theta, theta)
    return Jm


def _joint_times_next(robot: Robot, parts: _Parts, q: np.ndarray) -> np.ndarray:
    """Ji(qi + offset_i) · Ci for every joint, (n, 4, 4): one small product with parts.K
    instead of building the joint matrices and multiplying 4x4 by 4x4."""
    theta = q + robot.offsets if parts.offset else q
    w = parts.w0.copy()
    if parts.pri.size:  # a prismatic joint: c = cos 0 = 1, s = 0 and the slide d
        w[parts.pri, 0, 3] = theta[parts.pri]
        theta = theta * robot.revolute
    if parts.hel.size:  # a helical joint: its slide pitch·θ beside the turn
        w[parts.hel, 0, 3] = parts.pitch * theta[parts.hel]
    np.cos(theta, out=w[:, 0, 0])
    np.sin(theta, out=w[:, 0, 1])
    return np.matmul(w, parts.K).reshape(robot.n, 4, 4)


def end_single(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """`end_pass` for one configuration q (n,): pose (4, 4) and Jacobian (6, n) or None
    (NaN in, NaN out). Compiled (kernels.py) once `kinematica.compiled` says so, else NumPy."""
    return end_checked(robot, q, with_jacobian, False)


def end_checked(robot: Robot, q: np.ndarray, with_jacobian: bool,
                check: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """`end_single` for a q (n,) from `shaped_q`: with check, NaN or infinity in q is an
    InputError (tested by the kernel on its way, or here before the NumPy code)."""
    k = compiled.kernels("chain")
    if k is None:
        if check:
            check_q(robot, q)
        return _end_single_numpy(robot, q, with_jacobian)
    C, joints = cache_of(robot).chain or chain_arrays(robot)
    T = np.empty((4, 4))
    if not with_jacobian:
        ok, J = k.pose(C, joints, q, T), None
    else:
        J = np.empty((6, robot.n))
        ok = k.pose_jacobian(C, joints, q, T, J)
    if check and not ok:
        not_finite()
    return T, J


def jacobian_checked(robot: Robot, q: np.ndarray) -> np.ndarray:
    """`end_checked(robot, q, True)[1]`, the Jacobian alone: the kernel keeps T to itself."""
    k = compiled.kernels("chain")
    if k is None:
        return end_checked(robot, q, True)[1]
    C, joints = cache_of(robot).chain or chain_arrays(robot)
    J = np.empty((6, len(q)))
    if not k.jacobian(C, joints, q, J):
        not_finite()
    return J


def _end_single_numpy(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    parts = _parts(robot)
    M = _joint_times_next(robot, parts, q)
    T = robot.C[0]
    if not with_jacobian:
        for i in range(robot.n):
            T = T.dot(M[i])  # ndarray.dot: ~3x less overhead than @ on 4x4
        return T, None
    F = np.empty((robot.n + 1, 4, 4))  # F[i]: the frame before joint i + 1 (its z and p)
    F[0] = T
    for i in range(robot.n):
        F[i].dot(M[i], out=F[i + 1])
    G = F.take(parts.gather)  # (7, 3, n), see _gather_indices
    D = np.subtract(G[0:2], G[2:4])  # pe − p, rows r + 2 and r + 1
    zd = np.multiply(G[4:6], D, out=D)  # z[r+1]·d[r+2] and z[r+2]·d[r+1]
    J = np.empty((6, robot.n))
    np.subtract(zd[0], zd[1], out=J[:3])  # z × (pe − p)
    J[3:] = G[6]
    if parts.pri.size:
        J[:3, parts.pri] = J[3:, parts.pri]
        J[3:, parts.pri] = 0.0
    if parts.hel.size:  # tested here, not in the call: this is the single-call hot path
        helical_columns(parts, J)
    return F[-1], J


def frames_single(robot: Robot, q: np.ndarray) -> np.ndarray:
    """`frames_pass` for one configuration q (n,): (n + 2, 4, 4)."""
    BJA = robot.before @ _joint_matrices(robot, q) @ robot.after
    out = np.empty((robot.n + 2, 4, 4))
    out[0] = T = robot.base
    for i, A in enumerate(BJA):
        out[i + 1] = T = T.dot(A)
    out[-1] = T.dot(robot.tool)
    return out
