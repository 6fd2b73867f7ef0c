"""Joint-value checks, the single FK + Jacobian of the iterative IK, and the NumPy batch pass
that the batched IK engine (ik/soa.py) drives until it moves into the compiled core (issue 26,
phase 2). `km.fk` and `km.jacobian` run the core (kinematics/handle.py) for every call.

The batch pass: one forward pass along the canonical chain, for many configurations at once.

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

Per-robot constants live in the robot's `cache.RobotCache`.
"""

from __future__ import annotations

from ..errors import InputError

import math
from typing import NamedTuple, NoReturn

import numpy as np

from ..model.robot import Robot
from .cache import cache_of
from .handle import chain_handle

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


def _parts(robot: Robot) -> _Parts:
    cache = cache_of(robot)
    if cache.parts is None:
        cache.parts = _make_parts(robot)
    return cache.parts


def _make_parts(robot: Robot) -> _Parts:
    rev = np.flatnonzero(robot.revolute)
    row = np.where(robot.revolute, np.cumsum(robot.revolute) - 1, -1)
    return _Parts(rev=slice(None) if len(rev) == robot.n else rev,
                  row=tuple(int(r) for r in row), half_off=0.5 * robot.offsets[rev, None],
                  offset=bool(robot.offsets.any()),
                  pri=np.flatnonzero(~robot.revolute), hel=np.flatnonzero(robot.helical),
                  pitch=robot.pitch[robot.helical])


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


def helical_columns(parts: _Parts, J: np.ndarray) -> None:
    """Add pitch·z to the linear rows of each helical column of J (6, n, ...), in place: the
    joint's slide h·θ along its own z moves the tool by h·z per rad, besides z × (pe − p)."""
    if parts.hel.size:
        h = parts.pitch.reshape((-1,) + (1,) * (J.ndim - 2))
        J[:3, parts.hel] += h * J[3:, parts.hel]


def end_single(robot: Robot, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Pose (4, 4) and, if asked, the base-frame Jacobian (6, n) of one configuration q (n,)
    from `shaped_q`, by the compiled core, for the iterative IK: NaN or infinity in q gives
    arrays of NaN (an iterate that left the numbers fails its verdict; it is no input error)."""
    h = chain_handle(robot)[0]
    try:
        return h.fk_jacobian(q, 0) if with_jacobian else (h.fk(q), None)
    except ValueError:
        return np.full((4, 4), np.nan), (np.full((6, robot.n), np.nan) if with_jacobian else None)
