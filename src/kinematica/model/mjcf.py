"""Serial chains from MuJoCo's MJCF files, read through MuJoCo's own compiler (`mujoco`, the
`mjcf` extra): defaults, includes, angle units, euler/axis-angle/quat orientations and
inertias from geoms are all resolved by MuJoCo, and this module reads the compiled model.

A body's pose in its parent is (pos, quat) at the reference configuration qpos0; each of its
hinge or slide joints moves it about / along `axis` through the anchor `pos` (body frame), the
joints of one body applied in order. For joints i−1 and i that gives the link-frame row
Tr(−a_{i−1})·X·Tr(a_i) (X the fixed body poses between them) with the axis in that frame, and a
hinge whose qpos0 (`ref`) is not zero gets Rot(axis, −ref) folded into its row, so the robot's
joint values are MuJoCo's qpos. Link frame i sits at the anchor of joint i, turned with its
body: the body's inertial (and those of jointless bodies welded to it) is moved there.

A joint's drive terms come along as the robot's `drives` (what `km.rne`, `km.mass_matrix` and
`km.forward_dynamics` add): `armature` I_a (kg·m², or kg on a slide) adds I_a·q̈_i on the joint's
own axis (the diagonal of M), `damping` b the viscous b·q̇_i, and `frictionloss` τ_c the Coulomb
τ_c·sign(q̇_i). MuJoCo solves frictionloss as a soft constraint rather than this rigid law, so
its torques differ near q̇ = 0 (said with an MJCFWarning); terms no part of the dynamics here
models — joint springs (`stiffness`), gravity compensation (`gravcomp`), fluid forces (the
option's `density`/`viscosity`) — are named in an MJCFWarning and left out.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from .. import spatial
from ..extras import need
from ..keywords import strict
from .builders import from_link_frames
from .inertial import Inertial, combined
from .robot import Robot, RobotError
from .urdf_bodies import OffChainBodiesWarning


class MJCFError(RobotError):
    """An MJCF file MuJoCo refuses, or a model that is not a serial chain of hinge/slide joints."""


class MJCFWarning(UserWarning):
    """Something of an MJCF model the robot does not carry, or carries by a different law."""


def _mujoco():
    return need("mujoco", "mjcf", "reading MJCF")


def _pose(pos, quat) -> np.ndarray:
    T = np.eye(4)
    w, x, y, z = quat
    T[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                 [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                 [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    T[:3, 3] = pos
    return T


def _compile(source: str | Path):
    mj = _mujoco()
    text = str(source)
    try:
        if "<mujoco" in text:
            return mj.MjModel.from_xml_string(text), "<mjcf>"
        path = Path(source)
        if not path.is_file():
            raise MJCFError(f"{path}: no such MJCF file")
        return mj.MjModel.from_xml_path(str(path)), str(path)
    except ValueError as e:  # MuJoCo's compiler error: its own words name the element
        raise MJCFError(f"{text if '<mujoco' not in text else '<mjcf>'}: MuJoCo refused it: {e}") from None


def _names(m, kind, count) -> list[str]:
    mj = _mujoco()
    return [mj.mj_id2name(m, kind, i) or f"{'body' if kind == mj.mjtObj.mjOBJ_BODY else 'joint'}{i}" for i in range(count)]


def _chain(m, tip: str | None, where: str) -> tuple[list[int], np.ndarray, str]:
    """Body ids from the world's child to the tip body, the tool pose in the tip body, its name."""
    mj = _mujoco()
    bodies = _names(m, mj.mjtObj.mjOBJ_BODY, m.nbody)
    tool = np.eye(4)
    if tip is None:
        leaves = [b for b in range(1, m.nbody) if b not in set(m.body_parentid[1:])]
        if not leaves:
            raise MJCFError(f"{where}: the model has no bodies besides the world, so there is no chain of joints "
                            "to read: a serial chain needs bodies with hinge or slide joints")
        if len(leaves) != 1:
            raise MJCFError(f"{where}: the model branches (leaf bodies {', '.join(bodies[b] for b in leaves)}): "
                            "pass tip=<body or site name>")
        end = leaves[0]
    elif tip in bodies:
        end = bodies.index(tip)
    else:
        sites = [mj.mj_id2name(m, mj.mjtObj.mjOBJ_SITE, i) for i in range(m.nsite)]
        if tip not in sites:
            raise MJCFError(f"{where}: no body or site named {tip!r} (bodies: {', '.join(bodies[1:])})")
        s = sites.index(tip)
        end, tool = int(m.site_bodyid[s]), _pose(m.site_pos[s], m.site_quat[s])
    path = []
    while end != 0:
        path.append(end)
        end = int(m.body_parentid[end])
    return path[::-1], tool, bodies[path[0]] if path else "world"


def _body_inertia(m, b: int) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre of mass, inertia about it), body frame."""
    R = _pose(np.zeros(3), m.body_iquat[b])[:3, :3]
    return float(m.body_mass[b]), np.array(m.body_ipos[b]), R @ np.diag(m.body_inertia[b]) @ R.T


@strict
def from_mjcf(source: str | Path, tip: str | None = None, *, name: str | None = None) -> Robot:
    """The serial chain from the world to `tip` (a body or site name; default the only leaf
    body) of an MJCF model, in metres, joint values = MuJoCo's qpos of the chain's joints.

    >>> import kinematica as km
    >>> r = km.from_mjcf('''<mujoco><worldbody><body pos="0 0 .1"><joint axis="0 0 1"/>
    ...   <geom size=".05"/><body pos=".3 0 0"><joint axis="0 1 0"/><geom size=".05"/>
    ...   <site name="tip" pos=".2 0 0"/></body></body></worldbody></mujoco>''', tip="tip")
    >>> r.n, km.fk(r, [0, 0])[:3, 3].round(3).tolist()
    (2, [0.5, 0.0, 0.1])
    """
    mj = _mujoco()
    m, where = _compile(source)
    path, tool, _ = _chain(m, tip, where)
    jnames = _names(m, mj.mjtObj.mjOBJ_JOINT, m.njnt)
    bnames = _names(m, mj.mjtObj.mjOBJ_BODY, m.nbody)
    rows, limits, owner = [], [], []
    X = np.eye(4)  # fixed transform since the last joint's anchor
    for b in path:
        X = X @ _pose(m.body_pos[b], m.body_quat[b])
        for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
            kind = int(m.jnt_type[j])
            if kind not in (mj.mjtJoint.mjJNT_HINGE, mj.mjtJoint.mjJNT_SLIDE):
                what = {int(mj.mjtJoint.mjJNT_FREE): "free", int(mj.mjtJoint.mjJNT_BALL): "ball"}.get(kind, str(kind))
                raise MJCFError(f"{where}: joint {jnames[j]!r} of body {bnames[b]!r} is a {what} joint: a serial "
                                "chain has hinge and slide joints only")
            a, axis = np.array(m.jnt_pos[j]), np.array(m.jnt_axis[j])
            row = X @ spatial.trans(*a)
            ref = float(m.qpos0[m.jnt_qposadr[j]])  # the joint value at which the XML poses hold
            if ref != 0.0:
                row = row @ (_rotation_about(axis, -ref) if kind == mj.mjtJoint.mjJNT_HINGE
                             else spatial.trans(*(-ref * axis / np.linalg.norm(axis))))
            rows.append({"xyz": tuple(row[:3, 3]), "rotation": row[:3, :3].tolist(), "axis": tuple(axis),
                         "type": "revolute" if kind == mj.mjtJoint.mjJNT_HINGE else "prismatic",
                         "name": jnames[j]})
            limits.append(m.jnt_range[j] if m.jnt_limited[j] else (-np.inf, np.inf))
            owner.append(b)
            X = spatial.trans(*(-a))
    if not rows:
        raise MJCFError(f"{where}: no hinge or slide joint between the world and the tip")
    base = np.eye(4)
    robot = from_link_frames(rows, name=name or (m.names[:m.names.find(b"\0")].decode() or "mjcf"),
                             limits=np.array(limits), base=base, tool=X @ tool, meta={"source": where})
    joints = [int(j) for b in path for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b])]
    return robot.replace(inertials=_inertials(m, path, owner, bnames),
                         extras=dict(robot.extras) | _drives(m, joints, jnames, where))


def _drives(m, joints: list[int], jnames: list[str], where: str) -> dict:
    """{"drives": armature, viscous (damping), Coulomb (frictionloss)} of the chain's joints, when
    any is non-zero; an MJCFWarning for each term the dynamics leave out or model differently."""
    dof = [int(m.jnt_dofadr[j]) for j in joints]
    drives = {"armature": [float(m.dof_armature[d]) for d in dof],
              "viscous": [float(m.dof_damping[d]) for d in dof],
              "coulomb": [float(m.dof_frictionloss[d]) for d in dof]}
    said = []
    if any(drives["coulomb"]):
        said.append(f"frictionloss of {_which(drives['coulomb'], joints, jnames)} is read as Coulomb friction "
                    "τ_c·sign(q̇); MuJoCo solves it as a soft constraint, so torques near q̇ = 0 differ from its own")
    stiff = [float(m.jnt_stiffness[j]) for j in joints]
    if any(stiff):
        said.append(f"the joint springs (stiffness) of {_which(stiff, joints, jnames)} are left out: the dynamics "
                    "here have no spring term")
    grav = [float(x) for x in getattr(m, "body_gravcomp", np.zeros(m.nbody))[1:]]
    if any(grav):
        said.append("gravity compensation (gravcomp) of some bodies is left out: the dynamics here apply gravity to "
                    "every body's full mass")
    if m.opt.density or m.opt.viscosity:
        said.append("the medium's fluid forces (option density/viscosity) are left out: the dynamics here are "
                    "those of the arm in vacuum")
    for text in said:
        warnings.warn(MJCFWarning(f"{where}: {text}"), stacklevel=3)
    return {"drives": drives} if any(any(v) for v in drives.values()) else {}


def _which(values: list[float], joints: list[int], jnames: list[str]) -> str:
    return "joint" + ("s " if sum(v != 0 for v in values) > 1 else " ") + ", ".join(
        repr(jnames[j]) for j, v in zip(joints, values, strict=True) if v)


def _rotation_about(axis: np.ndarray, angle: float) -> np.ndarray:
    R = spatial.axis_to_z(axis)
    T = np.eye(4)
    T[:3, :3] = R @ spatial.rotz(angle)[:3, :3] @ R.T
    return T


def _up(m, b: int, stop) -> tuple[int, np.ndarray, bool]:
    """Walk from body b towards the world until `stop(body)`: that body, b's pose in it, and
    whether a joint lies on the way (b's own included)."""
    X, hinge = np.eye(4), False
    while not stop(b) and b != 0:
        hinge |= bool(m.body_jntnum[b])
        X = _pose(m.body_pos[b], m.body_quat[b]) @ X
        b = int(m.body_parentid[b])
    return b, X, hinge


def _inertials(m, path: list[int], owner: list[int], bnames: list[str]) -> tuple[Inertial, ...]:
    """Link i's inertial: the bodies link i carries — its joint's body if it is that body's
    last joint, the chain's jointless bodies after it, and every body hanging from any of
    them — moved into link frame i (the joint's anchor, body axes). A body behind a joint off
    the chain (a gripper's finger) rides along held at the joint's reference value (qpos0),
    said with an OffChainBodiesWarning, as for URDF trees."""
    order = {b: k for k, b in enumerate(path)}
    parts: dict[int, list] = {i: [] for i in range(len(owner))}
    held = []
    for b in range(1, m.nbody):
        c, X, hinge = _up(m, b, lambda d: d in order)  # its chain body c, its pose in c at qpos0
        carriers = [i for i, o in enumerate(owner) if c != 0 and order[o] <= order[c]]
        if not carriers:  # not part of the arm, or before its first joint: the fixed base
            continue
        if hinge and m.body_mass[b] > 0:
            held.append(bnames[b])
        k = carriers[-1]
        _, Y, _ = _up(m, c, lambda d, k=k: d == owner[k])  # c in the body of joint k
        a = np.array(m.jnt_pos[m.body_jntadr[owner[k]] + m.body_jntnum[owner[k]] - 1])
        F = spatial.trans(*(-a)) @ Y @ X
        mass, com, I = _body_inertia(m, b)
        parts[k].append((mass, F[:3, :3] @ com + F[:3, 3], F[:3, :3] @ I @ F[:3, :3].T))
    if held:
        warnings.warn(OffChainBodiesWarning(f"bodies behind joints off the chain ride along, held at their "
                                            f"reference values (qpos0): {', '.join(held)}"), stacklevel=3)
    return tuple(combined(p) if p else Inertial(0.0, np.zeros(3), np.zeros((3, 3))) for p in parts.values())


__all__ = ["from_mjcf", "MJCFError", "MJCFWarning"]
