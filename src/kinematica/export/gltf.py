"""A digital twin as glTF 2.0 (`.glb`): the robot's frames as a node tree, a simple visual per
link, and a trajectory as an animation that Blender, three.js viewers, Godot and Unity (glTFast)
play.

The node tree follows the model's own chain, T = base · B1 · J1(q1) · A1 · … · Bn · Jn(qn) ·
An · tool: under a root node `world` (the base, in metres: a robot in millimetres is scaled
here), joint i is three nodes — `before:<joint>` (B_i, fixed), `<joint>` (J_i: a rotation
about, or a translation along, its z axis; the only node that moves) and `link:<joint>` (A_i:
link frame i) — and `tool` hangs under the last link. A trajectory becomes one animation with a
channel per joint that moves (rotation quaternions or translations, LINEAR, sampled at the
trajectory's own times), so a viewer's node `tool` at time t is the FK of the trajectory's q(t)
at its samples (float32: ~1e-7 relative).

Visuals: what the robot looks like (`robot.visuals`: its URDF meshes and primitives, a bundled
robot's primitives; `export.shapes`) as meshes under the node of the body that carries them, a
gripper's fingers at its home opening; a body with no shape (its mesh file missing), and every
body of a robot without visuals or with `looks=False`, gets the skeleton instead — a cylinder
along each link, from the joint's origin to the next joint's (or the tool), and a short one
along each joint axis, coloured alternately, as the simulator draws it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..bounds import SAMPLES, count
from ..errors import InputError, InputTypeError
from ..extras import need
from ..model.coerce import takes_robot
from ..model.robot import MAX_LENGTH, Robot
from ..model.visual import gripper_fraction, missing_bodies
from .shapes import triangles

if TYPE_CHECKING:
    from ..trajectory import Trajectory

_COLOURS = ((0.16, 0.18, 0.22, 1.0), (0.93, 0.55, 0.13, 1.0))  # link grey, joint orange


def quat_z(theta: ArrayLike) -> np.ndarray:
    """Quaternions (x, y, z, w) of rotations by theta about z, shape (..., 4)."""
    h = 0.5 * np.asarray(theta, dtype=float)
    out = np.zeros(h.shape + (4,))
    out[..., 2], out[..., 3] = np.sin(h), np.cos(h)
    return out


def _cylinder(p0: np.ndarray, p1: np.ndarray, radius: float, sections: int = 16):
    """(positions, normals, indices) of an open-ended cylinder from p0 to p1 with caps."""
    trimesh = need("trimesh", "export", "glTF export")
    if np.linalg.norm(p1 - p0) < 1e-9:
        return None
    mesh = trimesh.creation.cylinder(radius=radius, segment=np.stack([p0, p1]), sections=sections)
    return (np.asarray(mesh.vertices, np.float32), np.asarray(mesh.vertex_normals, np.float32),
            np.asarray(mesh.faces, np.uint32).ravel())


class _Buffer:
    """The GLB's binary chunk and the accessors and buffer views that point into it."""

    def __init__(self, gl, doc):
        self.gl, self.gl_doc, self.data = gl, doc, bytearray()

    def add(self, array: np.ndarray, kind: str, target: int | None = None, minmax: bool = False) -> int:
        gl = self.gl
        array = np.ascontiguousarray(array)
        while len(self.data) % 4:
            self.data.append(0)
        view = gl.BufferView(buffer=0, byteOffset=len(self.data), byteLength=array.nbytes, target=target)
        self.data.extend(array.tobytes())
        self.gl_doc.bufferViews.append(view)
        comp = gl.FLOAT if array.dtype == np.float32 else gl.UNSIGNED_INT
        acc = gl.Accessor(bufferView=len(self.gl_doc.bufferViews) - 1, componentType=comp, count=len(array),
                          type=kind)
        if minmax:
            acc.min = np.atleast_1d(array.min(axis=0)).tolist()
            acc.max = np.atleast_1d(array.max(axis=0)).tolist()
        self.gl_doc.accessors.append(acc)
        return len(self.gl_doc.accessors) - 1


def _matrix(T: np.ndarray, scale: float) -> list[float]:
    """A node's column-major 4x4 matrix, translation in metres."""
    M = np.array(T, dtype=float)
    M[:3, 3] *= scale
    return M.T.ravel().tolist()


def _trajectory(trajectory: object) -> Trajectory | None:
    """A Trajectory, None, or the trajectory in a .csv/.json file; else a clear error."""
    from ..trajectory import Trajectory, load

    if isinstance(trajectory, (str, os.PathLike)):
        trajectory = load(trajectory)
    if trajectory is None:
        return None
    if isinstance(trajectory, Trajectory):  # an animation of every sample: as many as a trajectory may have
        count(len(trajectory.t), "trajectory: samples", SAMPLES)
        return trajectory
    raise InputTypeError(f"trajectory: expected a km.Trajectory or a trajectory file path (.csv/.json), "
                         f"got {type(trajectory).__name__}")


def _radius(radius: object, unit: str) -> float | None:
    if radius is None:
        return None
    if isinstance(radius, (bool, np.bool_)) or not isinstance(radius, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"radius: expected a number ({unit}), got {type(radius).__name__}")
    if not (0 < radius <= MAX_LENGTH):  # also NaN
        raise InputError(f"radius: expected a positive number of at most {MAX_LENGTH:g} {unit}, got {radius!r}")
    return float(radius)


@takes_robot
def to_glb(robot: Robot, trajectory=None, *, radius: float | None = None, looks: bool = True) -> bytes:
    """The robot (and a `Trajectory` of it, or the path of a trajectory file, as an animation)
    as a binary glTF 2.0 file.

    radius: of the skeleton's cylinders, in the robot's length unit (default 2 % of its reach;
    positive, at most `MAX_LENGTH`);
    looks: draw `robot.visuals` where the robot has them (else the skeleton everywhere).

    >>> import kinematica as km, numpy as np
    >>> glb = km.export.to_glb(km.load("planar-3r"))
    >>> glb[:4]
    b'glTF'
    """
    trajectory, radius = _trajectory(trajectory), _radius(radius, robot.length_unit)
    gl = need("pygltflib", "export", "glTF export")
    n = robot.n
    scale = 1e-3 if robot.length_unit == "mm" else 1.0
    if trajectory is not None and (trajectory.n != n or list(trajectory.joint_names) != list(robot.joint_names)):
        raise InputError(f"trajectory: its joints {list(trajectory.joint_names)} are not {robot.name!r}'s "
                         f"{list(robot.joint_names)}")
    reach = float(sum(np.linalg.norm((robot.after[i] @ (robot.before[i + 1] if i + 1 < n else robot.tool))[:3, 3])
                      for i in range(n))) or 1.0
    r = (0.02 * reach if radius is None else float(radius)) * scale
    doc = gl.GLTF2(asset=gl.Asset(generator="kinematica", version="2.0"), scene=0,
                   scenes=[gl.Scene(nodes=[0])], buffers=[gl.Buffer()])
    buf = _Buffer(gl, doc)
    doc.materials = [gl.Material(name=f"m{k}", pbrMetallicRoughness=gl.PbrMetallicRoughness(
        baseColorFactor=list(c), metallicFactor=0.2, roughnessFactor=0.6)) for k, c in enumerate(_COLOURS)]

    def node(name: str, parent: int | None, **kw) -> int:
        doc.nodes.append(gl.Node(name=name, children=[], **kw))
        k = len(doc.nodes) - 1
        if parent is not None:
            doc.nodes[parent].children.append(k)
        return k

    colours = {c: k for k, c in enumerate(_COLOURS)}

    def material(rgba: tuple) -> int:
        rgba = tuple(round(float(c), 4) for c in rgba)
        if rgba not in colours:
            colours[rgba] = len(doc.materials)
            doc.materials.append(gl.Material(name=f"m{len(doc.materials)}", alphaMode="BLEND" if rgba[3] < 1 else None,
                                             pbrMetallicRoughness=gl.PbrMetallicRoughness(
                                                 baseColorFactor=list(rgba), metallicFactor=0.1, roughnessFactor=0.7)))
        return colours[rgba]

    def primitive(pos, nor, idx, material: int):
        return gl.Primitive(attributes=gl.Attributes(POSITION=buf.add(pos, "VEC3", gl.ARRAY_BUFFER, minmax=True),
                                                     NORMAL=buf.add(nor, "VEC3", gl.ARRAY_BUFFER)),
                            indices=buf.add(idx, "SCALAR", gl.ELEMENT_ARRAY_BUFFER), material=material)

    def mesh(p0, p1, material: int) -> int | None:
        cyl = _cylinder(np.asarray(p0, float) * scale, np.asarray(p1, float) * scale, r)
        if cyl is None:
            return None
        pos, nor, idx = cyl
        prim = gl.Primitive(attributes=gl.Attributes(POSITION=buf.add(pos, "VEC3", gl.ARRAY_BUFFER, minmax=True),
                                                     NORMAL=buf.add(nor, "VEC3", gl.ARRAY_BUFFER)),
                            indices=buf.add(idx, "SCALAR", gl.ELEMENT_ARRAY_BUFFER), material=material)
        doc.meshes.append(gl.Mesh(primitives=[prim]))
        return len(doc.meshes) - 1

    q0 = robot.q_home
    shapes = robot.visuals if looks else ()
    bare = set(missing_bodies(robot)) if shapes else set(range(robot.n + 1))
    parent = node("world", None, matrix=_matrix(robot.base, scale))
    bodies = [parent]
    joints = []
    for i, name in enumerate(robot.joint_names):
        before = node(f"before:{name}", parent, matrix=_matrix(robot.before[i], scale))
        theta = q0[i] + robot.offsets[i]
        if robot.revolute[i]:  # a helical joint also slides pitch·θ along z (T·R: they commute)
            j = node(name, before, rotation=quat_z(theta).tolist(),
                     translation=[0.0, 0.0, robot.pitch[i] * theta * scale])
        else:
            j = node(name, before, translation=[0.0, 0.0, theta * scale])
        axis = mesh([0, 0, -1.5 * r / scale], [0, 0, 1.5 * r / scale], 1) if i + 1 in bare else None
        if axis is not None:
            doc.nodes[node(f"axis:{name}", j)].mesh = axis
        joints.append(j)
        link = node(f"link:{name}", j, matrix=_matrix(robot.after[i], scale))
        # the link drawn from the joint's origin (link frame coordinates) to the next joint's
        nxt = robot.before[i + 1] if i + 1 < n else robot.tool
        A_inv = np.linalg.inv(robot.after[i])
        seg = mesh(A_inv[:3, 3], nxt[:3, 3], 0) if i + 1 in bare else None
        if seg is not None:
            doc.nodes[node(f"visual:{name}", link)].mesh = seg
        bodies.append(link)
        parent = link
    node("tool", parent, matrix=_matrix(robot.tool, scale))
    fraction = gripper_fraction(robot)
    for k, v in enumerate(shapes):  # what the robot looks like, on the bodies that carry it
        prims = [primitive(p, nrm, idx, material(rgba)) for p, nrm, idx, rgba in triangles(v, fraction, scale)]
        if prims:
            doc.meshes.append(gl.Mesh(name=v.name or v.kind, primitives=prims))
            doc.nodes[node(f"shape:{k}:{v.name or v.kind}", bodies[v.body])].mesh = len(doc.meshes) - 1
    if trajectory is not None:
        _animate(doc, buf, gl, robot, trajectory, joints, scale)
    doc.buffers[0].byteLength = len(buf.data)
    doc.set_binary_blob(bytes(buf.data))
    return b"".join(doc.save_to_bytes())


def _animate(doc, buf: _Buffer, gl, robot: Robot, tr, joints: list[int], scale: float) -> None:
    """One animation: a sampler and a channel for every joint whose value changes."""
    t = np.asarray(tr.t - tr.t[0], np.float32)
    times = buf.add(t, "SCALAR", minmax=True)
    samplers, channels = [], []
    for i, k in enumerate(joints):
        q = tr.q[:, i] + robot.offsets[i]
        if np.ptp(tr.q[:, i]) == 0:
            continue
        if robot.helical[i]:  # its slide as a channel of its own, beside the rotation below
            slide = buf.add(np.asarray(np.stack([0 * q, 0 * q, robot.pitch[i] * q * scale], axis=1), np.float32),
                            "VEC3")
            samplers.append(gl.AnimationSampler(input=times, output=slide, interpolation="LINEAR"))
            channels.append(gl.AnimationChannel(sampler=len(samplers) - 1,
                                                target=gl.AnimationChannelTarget(node=k, path="translation")))
        if robot.revolute[i]:
            out = buf.add(np.asarray(quat_z(q), np.float32), "VEC4")
            path = "rotation"
        else:
            out = buf.add(np.asarray(np.stack([0 * q, 0 * q, q * scale], axis=1), np.float32), "VEC3")
            path = "translation"
        samplers.append(gl.AnimationSampler(input=times, output=out, interpolation="LINEAR"))
        channels.append(gl.AnimationChannel(sampler=len(samplers) - 1, target=gl.AnimationChannelTarget(node=k, path=path)))
    if channels:
        doc.animations.append(gl.Animation(name="trajectory", samplers=samplers, channels=channels))


__all__ = ["to_glb", "quat_z"]
