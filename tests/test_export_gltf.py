"""The glTF digital twin, read back with pygltflib (an independent reader): its node tree is the
robot's chain, its animation has a channel per moving joint, and the tool node's world pose at
every keyframe is the FK of the trajectory there (float32 storage: 1e-6 of the arm's size)."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km

gl = pytest.importorskip("pygltflib")
from scipy.spatial.transform import Rotation  # noqa: E402


def read(glb: bytes):
    doc = gl.GLTF2.load_from_bytes(glb)
    blob = doc.binary_blob()

    def data(k: int) -> np.ndarray:
        acc = doc.accessors[k]
        view = doc.bufferViews[acc.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
        dtype = np.float32 if acc.componentType == gl.FLOAT else np.uint32
        raw = np.frombuffer(blob, dtype, acc.count * width, view.byteOffset + (acc.byteOffset or 0))
        return raw.reshape(acc.count, width) if width > 1 else raw

    return doc, data


def local(node, rotation=None, translation=None) -> np.ndarray:
    if node.matrix:
        return np.array(node.matrix, dtype=float).reshape(4, 4).T
    T = np.eye(4)
    q = rotation if rotation is not None else node.rotation
    t = translation if translation is not None else node.translation
    if q is not None:
        T[:3, :3] = Rotation.from_quat(np.asarray(q, float)).as_matrix()
    if t is not None:
        T[:3, 3] = t
    return T


def world_of(doc, name: str, overrides: dict) -> np.ndarray:
    parent = {c: i for i, n in enumerate(doc.nodes) for c in n.children}
    k = next(i for i, n in enumerate(doc.nodes) if n.name == name)
    T = np.eye(4)
    while True:
        T = local(doc.nodes[k], **overrides.get(k, {})) @ T
        if k not in parent:
            return T
        k = parent[k]


@pytest.mark.parametrize("name", ["puma560", "braccio", "kuka-kr6-r900"])
def test_the_tool_node_follows_the_trajectory(name):
    robot = km.load(name)
    q1 = np.clip(robot.q_home + 0.6, *robot.limits.T)
    q1[0] = robot.q_home[0]  # one joint stays still: no channel for it
    tr = km.trajectory.quintic(robot.q_home, q1, duration=2.0, steps=12, robot=robot)
    doc, data = read(km.export.to_glb(robot, tr))
    n = robot.n
    assert len(doc.nodes) >= 3 * n + 2
    names = [x.name for x in doc.nodes]
    assert names[0] == "world" and "tool" in names and all(j in names for j in robot.joint_names)
    (anim,) = doc.animations
    moving = int(np.sum(np.ptp(tr.q, axis=0) > 0))  # joints already at a limit stay still too
    assert 0 < moving < n and len(anim.channels) == moving
    scale = 1e-3 if robot.length_unit == "mm" else 1.0
    times = data(anim.samplers[0].input)
    np.testing.assert_allclose(times, tr.t - tr.t[0], atol=1e-6)
    size = max(1.0, np.abs(km.fk(robot, tr.q)[:, :3, 3]).max()) * scale
    for k in range(len(tr.t)):
        overrides = {}
        for ch in anim.channels:
            value = data(anim.samplers[ch.sampler].output)[k]
            overrides[ch.target.node] = {ch.target.path: value}
        T = world_of(doc, "tool", overrides)
        want = km.fk(robot, tr.q[k])
        np.testing.assert_allclose(T[:3, 3], want[:3, 3] * scale, atol=1e-6 * size)
        np.testing.assert_allclose(T[:3, :3], want[:3, :3], atol=1e-6)


def test_without_a_trajectory_the_rest_pose_is_home_and_trimesh_reads_it():
    import io

    import trimesh

    robot = km.load("panda")
    glb = km.export.to_glb(robot)
    doc, _ = read(glb)
    assert not doc.animations
    np.testing.assert_allclose(world_of(doc, "tool", {}), km.fk(robot, robot.q_home), atol=1e-6)
    scene = trimesh.load(io.BytesIO(glb), file_type="glb")
    assert len(scene.geometry) >= robot.n  # a joint axis each, and the links of non-zero length


def test_a_trajectory_of_another_robot_is_refused():
    tr = km.trajectory.quintic(np.zeros(3), np.ones(3), duration=1.0)
    with pytest.raises(ValueError, match="trajectory"):
        km.export.to_glb(km.load("puma560"), tr)


def test_the_cli_writes_a_glb_with_the_motion_and_a_urdf(capsys, tmp_path):
    from cli_run import run, run_json

    robot = km.load("ur5")
    tr = km.trajectory.quintic(robot.q_home, robot.q_home + 0.5, duration=1.0, steps=10, robot=robot)
    traj = km.trajectory.save(tr, tmp_path / "move.json")
    data = run_json(capsys, "export", "ur5", "--trajectory", str(traj), "--out", str(tmp_path / "ur5.glb"))
    assert data["format"] == "gltf" and data["animation"]["samples"] == 11
    doc, _ = read((tmp_path / "ur5.glb").read_bytes())
    assert len(doc.animations[0].channels) == 6
    data = run_json(capsys, "export", "ur5", "--out", str(tmp_path / "ur5.urdf"))
    again = km.from_urdf(tmp_path / "ur5.urdf")
    np.testing.assert_allclose(km.fk(again, robot.q_home), km.fk(robot, robot.q_home), atol=1e-12)
    for argv, words in ((["--out", str(tmp_path / "x.obj")], "cannot tell the format"),
                        (["--out", str(tmp_path / "x.urdf"), "--trajectory", str(traj)], "holds no motion"),
                        (["--out", str(tmp_path / "x.glb"), "--format", "urdf"], "written as .urdf")):
        code, out, err = run(capsys, "export", "ur5", *argv)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, err
    code, _, err = run(capsys, "export", "puma560", "--trajectory", str(traj), "--out", str(tmp_path / "p.glb"))
    assert code == 2 and "kinematica: error:" in err

