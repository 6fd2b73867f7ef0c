"""The rigid body each link of an imported URDF chain carries, and the joints held to make it.

Link i of the chain (the child link of movable joint i) carries its own `<inertial>`, every link
fixed to it, and every link behind a movable joint *off* the chain (a gripper's fingers, a
humanoid's other arm on the torso), that joint held at one configuration: the `hold` the user
gives, else 0 clipped into the joint's limits; a mimic joint follows its held driver,
q = multiplier · q_driver + offset. The parts combine with the parallel-axis theorem:

    m = Σ m_k,  c = Σ m_k c_k / m,  I = Σ R_k I_k R_kᵀ + m_k (|c_k − c|² 1 − (c_k − c)(c_k − c)ᵀ)

A held body is an approximation of the real, moving one; `OffChainBodiesWarning` says so on load.
Values are in URDF units: rad for revolute and continuous joints, m for prismatic ones.
"""

from __future__ import annotations

import difflib
import sys
import warnings
from collections.abc import Mapping

import numpy as np

from .. import spatial
from .inertial import Inertial, InertialError, combined
from .schema import RobotFileError

MOVABLE = ("revolute", "continuous", "prismatic")
_BIG = 1e300


class URDFWarning(UserWarning):
    """A URDF was read in a way its author may not expect (the message says how)."""


class OffChainBodiesWarning(URDFWarning):
    """Links behind movable joints off the chosen chain ride along as rigid bodies, held."""


class MissingLimitWarning(URDFWarning):
    """A revolute or prismatic joint has no <limit> (URDF requires one): taken as unlimited."""


def warn(warning: Warning) -> None:
    """Issue `warning` attributed to the first caller outside kinematica (the user's line)."""
    level, frame = 2, sys._getframe(1)  # stacklevel 1 is this line, 2 its caller
    while frame is not None and frame.f_globals.get("__name__", "").startswith("kinematica."):
        level, frame = level + 1, frame.f_back
    warnings.warn(warning, stacklevel=level)


def limits(j, scale: float = 1.0) -> tuple[float, float]:
    """(lower, upper) of a yourdfpy joint: ±inf for continuous joints, joints without <limit>
    and |limit| >= 1e300; a missing lower/upper is 0 (the URDF spec); prismatic ×scale."""
    if j.type == "continuous" or j.limit is None:
        return (-np.inf, np.inf)
    lo, hi = (0.0 if v is None else float(v) for v in (j.limit.lower, j.limit.upper))
    lo, hi = (v if abs(v) < _BIG else np.copysign(np.inf, v) for v in (lo, hi))
    return (lo * scale, hi * scale) if j.type == "prismatic" else (lo, hi)


def motion(j, value: float) -> np.ndarray:
    """The 4x4 motion of joint `j` at `value` about (revolute) or along (prismatic) its axis."""
    axis = np.asarray(j.axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    if j.type == "prismatic":
        return spatial.homogeneous(np.eye(3), axis * value)
    c, s = np.cos(value), np.sin(value)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return spatial.homogeneous(np.eye(3) + s * K + (1 - c) * K @ K, np.zeros(3))  # Rodrigues


def held_values(urdf, chain: set[str], hold: Mapping[str, float] | None, where: str) -> dict[str, float]:
    """Value of every movable joint off the chain: the user's `hold`, else a mimic's
    multiplier · driver + offset, else 0 clipped into the limits. RobotFileError for a hold
    naming no joint, a joint on the chain, a fixed joint, or a value outside the limits."""
    hold = dict(hold or {})
    for name, value in hold.items():
        j = urdf.joint_map.get(name)
        if j is None:
            free = [j.name for j in urdf.robot.joints if j.type in MOVABLE and j.name not in chain]
            close = difflib.get_close_matches(str(name), free, n=3)
            raise RobotFileError(f"{where}: hold: no joint {name!r} in the URDF; " + (
                f"did you mean {', '.join(close)}?" if close else f"joints that can be held: {', '.join(free)}"))
        if name in chain:
            raise RobotFileError(f"{where}: hold: joint {name!r} is on the chain (it moves); hold only "
                                 "joints off the chain")
        if j.type not in MOVABLE:
            raise RobotFileError(f"{where}: hold: joint {name!r} is {j.type}; only revolute, continuous "
                                 "and prismatic joints can be held at a value")
        lo, hi = limits(j)
        number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        if not number or not np.isfinite(value) or not lo <= value <= hi:
            raise RobotFileError(f"{where}: hold: joint {name!r} = {value!r} must be a finite number "
                                 f"within its limits [{lo}, {hi}] ({'m' if j.type == 'prismatic' else 'rad'})")
    off = [j for j in urdf.robot.joints if j.type in MOVABLE and j.name not in chain]
    out = {j.name: float(hold[j.name]) if j.name in hold else float(np.clip(0.0, *limits(j))) for j in off}
    for j in off:  # a held mimic follows its held driver
        if j.mimic is not None and j.name not in hold and j.mimic.joint in out:
            k = 1.0 if j.mimic.multiplier is None else float(j.mimic.multiplier)
            out[j.name] = k * out[j.mimic.joint] + (0.0 if j.mimic.offset is None else float(j.mimic.offset))
    return out


def children_of(urdf) -> dict[str, list]:
    """The joints leaving each link, keyed by the parent link's name."""
    children: dict[str, list] = {}
    for j in urdf.robot.joints:
        children.setdefault(j.parent, []).append(j)
    return children


def hanging(link: str, children: dict[str, list], chain: set[str], held: dict[str, float]):
    """(name, T, via) for `link` itself and every link hanging from it off the chain: T its frame
    in `link`'s (held joints at their values, the others at zero), via the held joints crossed."""
    stack = [(link, np.eye(4), ())]
    while stack:
        name, T, via = stack.pop()
        yield name, T, via
        for j in children.get(name, ()):
            if j.name in chain:
                continue
            X = T @ (np.eye(4) if j.origin is None else j.origin)
            if j.name in held:
                X = X @ motion(j, held[j.name])
            stack.append((j.child, X, via + (j.name,) * (j.name in held)))


def rigid_body(urdf, link: str, children: dict[str, list], chain: set[str], held: dict[str, float],
               scale: float, lines: dict[str, int], where: str) -> tuple[Inertial | None, dict[str, float], float]:
    """Inertial of `link` with everything that hangs from it off the chain, in `link`'s frame
    (lengths ×scale); the mass (kg) behind each off-chain movable joint crossed (nested ones
    too); and the mass of all the held links.

    None when no part has an <inertial>. A part with non-physical inertia raises RobotFileError
    naming its link and the line of its <inertial>."""
    parts, behind, held_mass = [], {}, 0.0
    for name, T, via in hanging(link, children, chain, held):
        inert = urdf.link_map[name].inertial
        if inert is not None:
            O = T @ (np.eye(4) if inert.origin is None else inert.origin)
            R = O[:3, :3]
            try:
                Inertial(float(inert.mass), np.zeros(3), np.asarray(inert.inertia, dtype=float))
            except InertialError as e:
                raise RobotFileError(f"{where}: line {lines.get(name, '?')}: link {name!r}: <inertial>: {e}") from None
            parts.append((float(inert.mass), O[:3, 3] * scale, R @ inert.inertia @ R.T * scale**2))
            held_mass += float(inert.mass) if via else 0.0
            for joint in via:
                behind[joint] = behind.get(joint, 0.0) + float(inert.mass)
    return (combined(parts) if parts else None), behind, held_mass


def folded_message(where: str, behind: dict[str, float], held_mass: float, held: dict[str, float], urdf) -> str:
    """The OffChainBodiesWarning text: which joints are held where, and how much mass rides along."""
    names = [n for n in held if behind.get(n, 0.0) > 0]  # file order
    shown = ", ".join(f"{n} = {held[n]:g} {'m' if urdf.joint_map[n].type == 'prismatic' else 'rad'}"
                      for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return (f"{where}: {held_mass:.4g} kg of links behind {len(names)} movable joint"
            f"{'s' * (len(names) != 1)} off the chain ride along rigidly, held at {shown}; the "
            "dynamics treat them as fixed there. Hold them elsewhere with hold={'joint name': value} "
            "(rad or m; --hold-at JOINT=VALUE on the command line), or choose another tip")


def held_shapes_message(where: str, names: list[str], held: dict[str, float], urdf) -> str:
    """The OffChainBodiesWarning text for held joints whose links bring collision shapes only
    (those with mass are named by `folded_message`)."""
    shown = ", ".join(f"{n} = {held[n]:g} {'m' if urdf.joint_map[n].type == 'prismatic' else 'rad'}"
                      for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return (f"{where}: the collision shapes of the links behind {len(names)} movable joint"
            f"{'s' * (len(names) != 1)} off the chain are held at {shown}; a scene checks them there. "
            "Hold them elsewhere with hold={'joint name': value} (rad or m), or choose another tip")
