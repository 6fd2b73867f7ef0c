"""The immutable `Robot`: one canonical chain, whatever it was built from.

    T(q) = base · B1 · J1(q1) · A1 · B2 · J2(q2) · A2 · … · Bn · Jn(qn) · An · tool

Each `Ji` turns about (revolute) or slides along (prismatic) the local z axis by
`qi + offset_i`; a helical (screw) joint is a revolute one with a pitch h ≠ 0 that also slides
h·θ along the same z (θ = qi + offset_i in rad, h in length_unit per rad: Modern Robotics' screw
of pitch h). Every other joint has pitch 0. `Bi` ("before") and `Ai` ("after") are constant
4x4 transforms placed so that the *link frame* i = base · … · Bi · Ji · Ai is the frame the user's own convention names:
the DH frame i for a DH table, the joint frame for URDF and link-frame models. The product
of neighbours gives the DESIGN's canonical constants C0 = base·B1, Ci = Ai·B(i+1),
Cn = An·tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import spatial
from ..errors import InputError, KinematicaError
from ..keywords import refuse
from .inertial import Inertial

__all__ = ["REVOLUTE", "PRISMATIC", "LENGTH_UNITS", "LIMIT_TOL", "MAX_LENGTH", "MAX_MASS", "MAX_INERTIA",
           "RobotError", "ParameterTable", "Robot"]

REVOLUTE, PRISMATIC = "revolute", "prismatic"
LENGTH_UNITS = ("m", "mm")
# "Within the joint limits" means lo − LIMIT_TOL ≤ q ≤ hi + LIMIT_TOL (rad, or the length unit
# for prismatic joints): every check — IK's single and batched paths, ik_all, the closed forms,
# the verdict, the reports — uses this one slack. It forgives rounding only (a solution
# computed exactly on a limit lands within ~1e-15 of it); a converged iterate that ends beyond
# it is pulled onto the limit by the solver (see `ik.single.solve_one`), never let through.
LIMIT_TOL = 1e-9

# Beyond any robot, and far enough below float64's 1.8e308 that dynamics stays finite: torques
# and the mass matrix multiply a mass by lengths squared (1e12 kg · (1e12)² = 1e36).
MAX_LENGTH = 1e12  # in the robot's length unit
MAX_MASS = 1e12  # kg
MAX_INERTIA = 1e30  # kg·(length unit)²


class RobotError(KinematicaError, ValueError):
    """A robot description is inconsistent (bad shapes, limits, names, transforms)."""


@dataclass(frozen=True)
class ParameterTable:
    """The table a robot was built from, kept in the user's own units for display.

    kind: "dh", "mdh", "planar", "frames" or "urdf"; columns: column names; rows: one tuple
    per joint; angle_unit: "deg" or "rad" for the angle columns.
    """

    kind: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    angle_unit: str = "rad"

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


def _frozen(a: ArrayLike, shape: tuple[int, ...], what: str, allow_inf: bool = False) -> np.ndarray:
    arr = np.array(a, dtype=float)
    if arr.shape != shape:
        raise RobotError(f"{what}: expected shape {shape}, got {arr.shape}")
    if np.any(np.isnan(arr)) or (not allow_inf and np.any(np.isinf(arr))):
        raise RobotError(f"{what}: contains NaN" + ("" if allow_inf else " or infinity")
                         + (" (use ±inf for an unlimited joint)" if allow_inf else ""))
    arr.setflags(write=False)
    return arr


def _check_rigid(T: np.ndarray, what: str) -> None:
    if not spatial.is_rotation(T[..., :3, :3], tol=1e-6) or np.any(
        np.abs(T[..., 3, :] - [0, 0, 0, 1]) > 1e-12
    ):
        raise RobotError(f"{what}: not a rigid transform (rotation must be orthonormal, last row 0 0 0 1)")


def _check_magnitudes(robot: Robot) -> None:
    """Refuse lengths, masses and inertias no robot has (a file saying d = 1e308): finite, they
    still overflow to inf in the dynamics and the Jacobian, which would then answer silently."""
    u = robot.length_unit
    for T, what in ((robot.base, "base"), (robot.tool, "tool"), *((T, f"joint {i + 1}") for i, T in
                                                                   enumerate(robot.before)),
                    *((T, f"link {i + 1}") for i, T in enumerate(robot.after))):
        if np.abs(T[:3, 3]).max() > MAX_LENGTH:
            raise RobotError(f"{what}: offset {T[:3, 3].tolist()} {u} is beyond ±{MAX_LENGTH:g} {u}")
    if np.abs(robot.pitch).max() > MAX_LENGTH:
        raise RobotError(f"joint pitch {np.abs(robot.pitch).max():g} {u}/rad is beyond ±{MAX_LENGTH:g} {u}/rad")
    for i, inert in enumerate(robot.inertials or ()):
        if inert is None:
            continue
        if inert.mass > MAX_MASS:
            raise RobotError(f"link {i + 1}: mass {inert.mass:g} kg is above {MAX_MASS:g} kg")
        if np.abs(inert.com).max() > MAX_LENGTH:
            raise RobotError(f"link {i + 1}: centre of mass {np.asarray(inert.com).tolist()} {u} "
                             f"is beyond ±{MAX_LENGTH:g} {u}")
        if np.abs(inert.inertia).max() > MAX_INERTIA:
            raise RobotError(f"link {i + 1}: inertia {np.abs(inert.inertia).max():g} kg·{u}² is "
                             f"above {MAX_INERTIA:g} kg·{u}²")


_NO_PITCH = np.zeros(0)  # the default of Robot.pitch, replaced by zeros(n) (identity, never compared)


@dataclass(frozen=True, eq=False)
class Robot:
    """An immutable serial-chain robot. Build it with `from_dh`, `from_mdh`, `from_planar`,
    `from_link_frames`, `from_urdf` or `km.load`; change it with `robot.replace(...)`.

    Joint values are rad for revolute joints and `length_unit` for prismatic ones.
    """

    name: str
    joint_types: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray
    offsets: np.ndarray
    limits: np.ndarray
    joint_names: tuple[str, ...]
    base: np.ndarray = field(default_factory=lambda: np.eye(4))
    tool: np.ndarray = field(default_factory=lambda: np.eye(4))
    home: np.ndarray | None = None
    length_unit: str = "m"
    description: str = ""
    source: str = ""
    table: ParameterTable | None = None
    link_names: tuple[str, ...] | None = None
    inertials: tuple[Inertial | None, ...] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    # per joint, length unit per rad: every joint has one once built (zeros when none is given), so
    # the field is an array, not Optional; `_NO_PITCH` only marks "not given" until __post_init__
    pitch: np.ndarray = field(default_factory=lambda: _NO_PITCH)

    def __post_init__(self) -> None:
        n = len(self.joint_types)
        if n < 1:
            raise RobotError("a robot needs at least one joint")
        bad = [t for t in self.joint_types if t not in (REVOLUTE, PRISMATIC)]
        if bad:
            raise RobotError(f"joint type {bad[0]!r} unknown: use 'revolute' or 'prismatic'")
        set_ = object.__setattr__
        set_(self, "joint_types", tuple(self.joint_types))
        set_(self, "before", _frozen(self.before, (n, 4, 4), "before transforms"))
        set_(self, "after", _frozen(self.after, (n, 4, 4), "after transforms"))
        set_(self, "base", _frozen(self.base, (4, 4), "base transform"))
        set_(self, "tool", _frozen(self.tool, (4, 4), "tool transform"))
        for T, what in ((self.before, "before"), (self.after, "after")):
            _check_rigid(T, f"{what} transforms")
        _check_rigid(self.base, "base transform")
        _check_rigid(self.tool, "tool transform")
        if self.inertials is not None:
            set_(self, "inertials", tuple(self.inertials))
        set_(self, "offsets", _frozen(self.offsets, (n,), "joint offsets"))
        set_(self, "limits", _frozen(self.limits, (n, 2), "joint limits", allow_inf=True))
        lo_hi = np.asarray(self.limits)
        if np.any(lo_hi[:, 0] > lo_hi[:, 1]):
            i = int(np.argmax(lo_hi[:, 0] > lo_hi[:, 1]))
            raise RobotError(f"joint limits of joint {i + 1}: lower {lo_hi[i, 0]} > upper {lo_hi[i, 1]}")
        names = tuple(str(s) for s in self.joint_names)
        if len(names) != n:
            raise RobotError(f"joint names: expected {n}, got {len(names)}")
        if len(set(names)) != n:
            raise RobotError(f"joint names must be unique, got {names}")
        set_(self, "joint_names", names)
        if self.link_names is not None:
            set_(self, "link_names", tuple(str(x) for x in self.link_names))
            if len(self.link_names) != n:
                raise RobotError(f"link names: expected {n}, got {len(self.link_names)}")
        set_(self, "extras", MappingProxyType(dict(self.extras)))  # read-only, never shared
        given = self.pitch is not None and self.pitch is not _NO_PITCH  # None: as not given, as it always was
        set_(self, "pitch", _frozen(self.pitch if given else np.zeros(n), (n,), "joint pitches"))
        screw = np.flatnonzero((np.asarray(self.pitch) != 0) & ~np.array([t == REVOLUTE for t in self.joint_types]))
        if screw.size:
            raise RobotError(f"joint {screw[0] + 1}: only a revolute joint can have a pitch (a helical joint "
                             f"turns and slides); a {self.joint_types[screw[0]]} joint has pitch 0")
        if self.home is not None:
            set_(self, "home", _frozen(self.home, (n,), "home configuration"))
        if self.length_unit not in LENGTH_UNITS:
            raise RobotError(f"length unit {self.length_unit!r} unknown: use 'm' or 'mm'")
        if self.inertials is not None and len(self.inertials) != n:
            raise RobotError(f"inertials: expected one per link ({n}), got {len(self.inertials)}")
        _check_magnitudes(self)

    # --- derived, read-only views -------------------------------------------------------
    @property
    def n(self) -> int:
        """Degrees of freedom."""
        return len(self.joint_types)

    @cached_property
    def revolute(self) -> np.ndarray:
        """Boolean mask (n,): True for revolute joints."""
        m = np.array([t == REVOLUTE for t in self.joint_types])
        m.setflags(write=False)
        return m

    @cached_property
    def helical(self) -> np.ndarray:
        """Boolean mask (n,): True for helical joints (revolute with a pitch ≠ 0)."""
        m = self.pitch != 0
        m.setflags(write=False)
        return m

    @cached_property
    def wraps(self) -> np.ndarray:
        """Boolean mask (n,): the joints a turn of 2π leaves the pose unchanged (revolute, pitch 0).
        A helical joint turned by 2π has moved 2π·pitch along its axis."""
        m = self.revolute & ~self.helical
        m.setflags(write=False)
        return m

    @property
    def kinds(self) -> tuple[str, ...]:
        """Per joint: "revolute", "prismatic" or "helical" (a revolute joint with a pitch)."""
        return tuple("helical" if h else t for t, h in zip(self.joint_types, self.helical, strict=True))

    @property
    def letters(self) -> str:
        """The joints as letters, e.g. "RRPH": R revolute, P prismatic, H helical."""
        return "".join(k[0].upper() for k in self.kinds)

    @cached_property
    def C(self) -> np.ndarray:
        """Canonical constants (n+1, 4, 4): C0 = base·B1, Ci = Ai·B(i+1), Cn = An·tool."""
        C = np.empty((self.n + 1, 4, 4))
        C[0] = self.base @ self.before[0]
        C[1:-1] = self.after[:-1] @ self.before[1:]
        C[-1] = self.after[-1] @ self.tool
        C.setflags(write=False)
        return C

    @property
    def q_home(self) -> np.ndarray:
        """The home configuration, or zeros clipped into the limits when none was given."""
        if self.home is not None:
            return self.home.copy()
        return np.clip(np.zeros(self.n), self.limits[:, 0], self.limits[:, 1])

    @property
    def parameter_table(self) -> ParameterTable:
        """`table` for code that has chosen a robot built from one (DH, planar, …): a RobotError
        naming the robot if it has none."""
        if self.table is None:
            raise RobotError(f"{self.name!r} has no parameter table (it was not built from one)")
        return self.table

    @property
    def has_inertials(self) -> bool:
        """Whether every link has its mass, centre of mass and inertia (what dynamics needs)."""
        return self.inertials is not None and all(i is not None for i in self.inertials)

    @property
    def visuals(self) -> tuple:
        """What the robot looks like: its `kinematica.model.visual.Visual` shapes (URDF
        `<visual>`, a robot file's `visuals:`), each fixed to a body (0 the base, k link frame
        k); empty when it has none (it is drawn as its skeleton)."""
        return tuple(self.extras.get("visuals", ()))

    @property
    def angle_scale(self) -> np.ndarray:
        """Per joint: degrees per unit of q (180/π for revolute, 1 for prismatic)."""
        return np.where(self.revolute, 180.0 / np.pi, 1.0)

    def replace(self, **changes: Any) -> Robot:
        """A copy with some fields changed (the original is untouched), e.g. a new tool."""
        unknown = set(changes) - set(self.__dataclass_fields__)
        if unknown:
            raise refuse("Robot.replace()", unknown, tuple(self.__dataclass_fields__))
        return replace(self, **changes)

    def within_limits(self, q: ArrayLike, tol: float = LIMIT_TOL) -> np.ndarray:
        """Whether each configuration (..., n) lies inside the joint limits (to `LIMIT_TOL`)."""
        q = np.asarray(q, dtype=float)
        if q.ndim == 0 or q.shape[-1] != self.n:
            raise InputError(f"q: expected shape (..., {self.n}), got {q.shape}")
        return np.all((q >= self.limits[:, 0] - tol) & (q <= self.limits[:, 1] + tol), axis=-1)

    def _repr_html_(self) -> str:  # Jupyter
        from ..htmlrepr import robot_html

        return robot_html(self)

    def __repr__(self) -> str:
        return f"Robot({self.name!r}, {self.n} joints {self.letters}, unit {self.length_unit})"
