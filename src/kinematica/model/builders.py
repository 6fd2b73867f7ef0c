"""Builders: standard DH, modified DH, planar link lengths, link frames → one `Robot`.

Rows are mappings (a YAML list of joints reads straight in). Angles in rows are radians unless
`deg=True`, which converts α, θ and the limits of revolute joints.

>>> import kinematica as km
>>> r = km.from_dh([{"d": 70, "alpha": 90}, {"a": 82}, {"a": 128}, {"a": 60}],
...                length_unit="mm", deg=True, name="arm-4dof")
>>> km.fk(r, [0, 0, 0, 0])[:3, 3].round(6)
array([270.,   0.,  70.])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import spatial
from ..errors import InputTypeError
from ..keywords import strict
from .inertial import Inertial
from .robot import PRISMATIC, REVOLUTE, ParameterTable, Robot, RobotError

Row = Mapping[str, Any]
# A helical joint is a revolute one with a pitch (Robot.pitch): its row says `pitch: h`.
_JOINT_TYPES = {"revolute": REVOLUTE, "r": REVOLUTE, "prismatic": PRISMATIC, "p": PRISMATIC,
                "helical": REVOLUTE, "h": REVOLUTE}


def _joint_type(row: Row, i: int) -> str:
    t = str(row.get("type", REVOLUTE)).lower()
    if t not in _JOINT_TYPES:
        raise RobotError(f"joint {i + 1}: type {row.get('type')!r} unknown: use 'revolute', 'prismatic' "
                         "or 'helical'")
    return _JOINT_TYPES[t]


def _pitches(rows: Sequence[Row]) -> np.ndarray:
    """Each row's `pitch` (length unit per rad; 0 when absent). A row typed 'helical' needs one."""
    out = np.array([_num(r, "pitch", i) for i, r in enumerate(rows)])
    for i, r in enumerate(rows):
        if str(r.get("type", "")).lower() in ("helical", "h") and out[i] == 0:
            raise RobotError(f"joint {i + 1}: a helical joint needs a nonzero pitch (length unit per rad)")
    return out


def _num(row: Row, key: str, i: int, default: float = 0.0) -> float:
    v = row.get(key, default)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise RobotError(f"joint {i + 1}: {key} must be a number, got {v!r}") from None
    if not np.isfinite(x):
        raise RobotError(f"joint {i + 1}: {key} must be finite, got {v!r}")
    return x


def _limits(rows: Sequence[Row], types: Sequence[str], limits: ArrayLike | None, deg: bool) -> np.ndarray:
    n = len(rows)
    out = np.tile([-np.inf, np.inf], (n, 1))
    for i, row in enumerate(rows):
        if row.get("limits") is not None:
            lim = row["limits"]
            try:
                out[i] = np.asarray(lim, dtype=float).reshape(2)
            except (TypeError, ValueError):
                raise RobotError(f"joint {i + 1}: limits must be [lower, upper] (two numbers), got {lim!r}") from None
            if deg and types[i] == REVOLUTE:
                out[i] = np.radians(out[i])
    if limits is not None:
        out = np.array(limits, dtype=float)
        if out.shape != (n, 2):
            raise RobotError(f"limits: expected shape ({n}, 2), got {out.shape}")
        if deg:
            out = np.where(np.array([t == REVOLUTE for t in types])[:, None], np.radians(out), out)
    return out


def _names(rows: Sequence[Row], joint_names: Sequence[str] | None) -> tuple[str, ...]:
    if joint_names is not None:
        return tuple(joint_names)
    return tuple(str(r.get("name", f"q{i + 1}")) for i, r in enumerate(rows))


def _home(home: ArrayLike | None, types: Sequence[str], deg: bool) -> np.ndarray | None:
    if home is None:
        return None
    h = np.array(home, dtype=float)
    if deg:
        h = np.where(np.array([t == REVOLUTE for t in types]), np.radians(h), h)
    return h


def _inertials(rows: Sequence[Row]) -> tuple[Inertial | None, ...] | None:
    found = tuple(r.get("inertial") for r in rows)
    return found if any(x is not None for x in found) else None


# What `meta=` may hold: the Robot's descriptive fields, kept as given.
META_KEYS = ("description", "source", "link_names", "inertials", "extras", "pitch")


def _meta(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise RobotError(f"meta: expected a mapping of {', '.join(META_KEYS)}, got {type(meta).__name__}")
    unknown = set(meta) - set(META_KEYS)
    if unknown:
        raise RobotError(f"meta: unknown field(s) {', '.join(sorted(map(repr, unknown)))}; it takes "
                         f"{', '.join(META_KEYS)}")
    return dict(meta)


def _robot(rows, types, before, after, offsets, table, *, name, length_unit, limits, joint_names,
           home, base, tool, deg, meta) -> Robot:
    meta = _meta(meta)
    inertials, pitch = meta.pop("inertials", None), meta.pop("pitch", None)
    return Robot(
        name=name,
        joint_types=tuple(types),
        before=np.asarray(before),
        after=np.asarray(after),
        offsets=np.asarray(offsets, dtype=float),
        limits=_limits(rows, types, limits, deg),
        joint_names=_names(rows, joint_names),
        base=np.eye(4) if base is None else np.asarray(base, dtype=float),
        tool=np.eye(4) if tool is None else np.asarray(tool, dtype=float),
        home=_home(home, types, deg),
        length_unit=length_unit,
        table=table,
        inertials=inertials or _inertials(rows),
        pitch=pitch if pitch is not None else _pitches(rows),
        **meta,
    )


def _dh(rows: Sequence[Row], modified: bool, deg: bool, **kw: Any) -> Robot:  # kw: _robot's
    if len(rows) == 0:
        raise RobotError("a DH table needs at least one row")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise InputTypeError(f"row {i + 1}: expected a mapping of named parameters "
                                 f"({{'theta': …, 'd': …, 'a': …, 'alpha': …}}), got {type(row).__name__} {row!r}")
    conv = np.radians if deg else (lambda x: x)
    n = len(rows)
    types, offsets = [], np.zeros(n)
    before, after = np.tile(np.eye(4), (n, 1, 1)), np.tile(np.eye(4), (n, 1, 1))
    table_rows = []
    for i, row in enumerate(rows):
        jt = _joint_type(row, i)
        a, d = _num(row, "a", i), _num(row, "d", i)
        alpha, theta = conv(_num(row, "alpha", i)), conv(_num(row, "theta", i))
        types.append(jt)
        offsets[i] = theta if jt == REVOLUTE else d
        # Rz and Tz commute, so the constant part of the joint (d for revolute, θ for
        # prismatic) can sit on either side of it.
        fixed = spatial.trans(z=d) if jt == REVOLUTE else spatial.rotz(theta)
        if modified:
            before[i] = spatial.rotx(alpha) @ spatial.trans(x=a)
            after[i] = fixed
        else:
            after[i] = fixed @ spatial.trans(x=a) @ spatial.rotx(alpha)
        table_rows.append((row.get("name", f"q{i + 1}"), jt, _num(row, "theta", i), _num(row, "d", i),
                           a, _num(row, "alpha", i)))
    table = ParameterTable("mdh" if modified else "dh", ("name", "type", "theta", "d", "a", "alpha"),
                           tuple(table_rows), "deg" if deg else "rad")
    return _robot(rows, types, before, after, offsets, table, deg=deg, **kw)


@strict
def from_dh(rows: Sequence[Row], *, name: str = "robot", length_unit: str = "m",
            limits: ArrayLike | None = None, joint_names: Sequence[str] | None = None,
            home: ArrayLike | None = None, base: ArrayLike | None = None,
            tool: ArrayLike | None = None, deg: bool = False,
            meta: Mapping[str, Any] | None = None) -> Robot:
    """Robot from a standard (distal) DH table: A_i = Rz(θ_i) · Tz(d_i) · Tx(a_i) · Rx(α_i).

    Each row: `a`, `alpha`, `d`, `theta` (the joint offset; for a prismatic joint `d` is the
    offset), optional `type` ("revolute"/"prismatic"), `name`, `limits` [lower, upper].
    Link frame i is the DH frame i. meta: the robot's descriptive fields, any of `META_KEYS`
    (description, source, link_names, inertials, extras, pitch), as `Robot` holds them.
    """
    return _dh(rows, False, deg, name=name, length_unit=length_unit, limits=limits,
               joint_names=joint_names, home=home, base=base, tool=tool, meta=meta)


@strict
def from_mdh(rows: Sequence[Row], *, name: str = "robot", length_unit: str = "m",
             limits: ArrayLike | None = None, joint_names: Sequence[str] | None = None,
             home: ArrayLike | None = None, base: ArrayLike | None = None,
             tool: ArrayLike | None = None, deg: bool = False,
            meta: Mapping[str, Any] | None = None) -> Robot:
    """Robot from a modified (proximal, Craig) DH table:
    A_i = Rx(α_{i−1}) · Tx(a_{i−1}) · Rz(θ_i) · Tz(d_i), row i holding α_{i−1}, a_{i−1}, θ_i, d_i.
    """
    return _dh(rows, True, deg, name=name, length_unit=length_unit, limits=limits,
               joint_names=joint_names, home=home, base=base, tool=tool, meta=meta)


@strict
def from_planar(lengths: ArrayLike, *, name: str = "planar", length_unit: str = "mm",
                limits: ArrayLike | None = None, joint_names: Sequence[str] | None = None,
                home: ArrayLike | None = None, base: ArrayLike | None = None,
                deg: bool = False, meta: Mapping[str, Any] | None = None) -> Robot:
    """Planar chain of revolute joints about z, links along x (paper 000):
    T_1 = Rz(θ1), T_i = T_{i−1} · Tx(L_{i−1}) · Rz(θ_i), tool = T_n · Tx(L_n).

    >>> import kinematica as km, numpy as np
    >>> r = km.from_planar([20, 20, 20])
    >>> km.fk(r, np.radians([30, 30, 20]))[:2, 3].round(2)
    array([30.79, 47.02])
    """
    L = np.asarray(lengths, dtype=float).reshape(-1)
    if L.size == 0 or not np.all(np.isfinite(L)) or np.any(L < 0):
        raise RobotError(f"planar link lengths must be finite and >= 0, got {list(L)}")
    n = L.size
    before = np.tile(np.eye(4), (n, 1, 1))
    before[1:] = spatial.trans(x=L[:-1])
    rows = [{"name": f"θ{i + 1}"} for i in range(n)]
    table = ParameterTable("planar", ("name", "L"), tuple((f"θ{i + 1}", float(L[i])) for i in range(n)),
                           "deg" if deg else "rad")
    return _robot(rows, [REVOLUTE] * n, before, np.tile(np.eye(4), (n, 1, 1)), np.zeros(n), table,
                  name=name, length_unit=length_unit, limits=limits, joint_names=joint_names,
                  home=home, base=base, tool=spatial.trans(x=L[-1]), deg=deg, meta=meta)


def _rotation(row: Row, i: int, deg: bool) -> np.ndarray:
    if "rotation" in row and "rpy" in row:
        raise RobotError(f"joint {i + 1}: give either rotation or rpy, not both")
    if row.get("rotation") is not None:
        R = np.asarray(row["rotation"], dtype=float)
        if R.shape != (3, 3) or not spatial.is_rotation(R, tol=1e-6):
            raise RobotError(f"joint {i + 1}: rotation must be a 3x3 orthonormal matrix with det +1")
        return R
    rpy = np.asarray(row.get("rpy", (0.0, 0.0, 0.0)), dtype=float)
    if rpy.shape != (3,):
        raise RobotError(f"joint {i + 1}: rpy must have 3 values")
    return spatial.rpy_to_matrix(np.radians(rpy) if deg else rpy)


def link_frame_transforms(rows: Sequence[Row], deg: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """`before`/`after` transforms of link-frame rows: each joint frame sits at `xyz` in the
    previous one, turned by `rotation` (direction cosines) or `rpy`, moving about/along `axis`."""
    n = len(rows)
    before, after = np.tile(np.eye(4), (n, 1, 1)), np.tile(np.eye(4), (n, 1, 1))
    for i, row in enumerate(rows):
        xyz = np.asarray(row.get("xyz", (0.0, 0.0, 0.0)), dtype=float)
        axis = np.asarray(row.get("axis", (0.0, 0.0, 1.0)), dtype=float)
        if xyz.shape != (3,) or not np.all(np.isfinite(xyz)):
            raise RobotError(f"joint {i + 1}: xyz must be 3 finite numbers")
        if axis.shape != (3,) or not np.all(np.isfinite(axis)) or np.linalg.norm(axis) < 1e-12:
            raise RobotError(f"joint {i + 1}: axis must be a non-zero 3-vector")
        align = spatial.axis_to_z(axis)
        before[i, :3, :3] = _rotation(row, i, deg) @ align
        before[i, :3, 3] = xyz
        after[i, :3, :3] = align.T
    return before, after


@strict
def from_link_frames(rows: Sequence[Row], *, name: str = "robot", length_unit: str = "m",
                     limits: ArrayLike | None = None, joint_names: Sequence[str] | None = None,
                     home: ArrayLike | None = None, base: ArrayLike | None = None,
                     tool: ArrayLike | None = None, deg: bool = False,
            meta: Mapping[str, Any] | None = None) -> Robot:
    """Robot from link frames — paper 004's "two coupled coordinate systems", and URDF joints.

    Row i places joint frame i in joint frame i−1 (the base for i = 1): `xyz` is the geometry
    vector G_{i−1}, `rotation` the 3x3 direction-cosine matrix (or `rpy`), `axis` the joint axis
    in the new frame (default z). A_i = Tr(G_{i−1}) · R_i · J_i(q_i); link frame i = joint frame i.
    """
    if len(rows) == 0:
        raise RobotError("a link-frame model needs at least one joint")
    before, after = link_frame_transforms(rows, deg)
    types = [_joint_type(r, i) for i, r in enumerate(rows)]
    # keep the user's own orientation form: a direction-cosine matrix or roll-pitch-yaw
    table = ParameterTable(
        "frames", ("name", "type", "xyz", "rotation", "rpy", "axis"),
        tuple((r.get("name", f"q{i + 1}"), "helical" if r.get("pitch") else types[i], tuple(r.get("xyz", (0, 0, 0))),
               r.get("rotation"), None if r.get("rotation") is not None else tuple(r.get("rpy", (0, 0, 0))),
               tuple(r.get("axis", (0, 0, 1))))
              for i, r in enumerate(rows)), "deg" if deg else "rad")
    return _robot(rows, types, before, after, np.zeros(len(rows)), table, name=name,
                  length_unit=length_unit, limits=limits, joint_names=joint_names, home=home,
                  base=base, tool=tool, deg=deg, meta=meta)
