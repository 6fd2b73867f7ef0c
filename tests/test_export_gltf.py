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



# --- what the robot looks like ------------------------------------------------------------------
def _shape_vertices(doc, data) -> dict[str, np.ndarray]:
    """World positions (home pose) of every shape node's vertices, by node name."""
    out = {}
    for node in doc.nodes:
        if node.name and node.name.startswith("shape:") and node.mesh is not None:
            T = world_of(doc, node.name, {})
            pts = np.vstack([data(p.attributes.POSITION) for p in doc.meshes[node.mesh].primitives])
            out[node.name] = pts @ T[:3, :3].T + T[:3, 3]
    return out


def test_the_glb_carries_the_ur5_meshes_where_pinocchio_puts_them():
    """Each mesh of example-robot-data's UR5, read by trimesh from its own file and placed by
    Pinocchio's visual model at home, has the same bounds as the glb's shape node (float32
    storage: 1e-5 m on a metre-sized arm)."""
    import sysconfig
    from pathlib import Path

    import trimesh

    pin = pytest.importorskip("pinocchio")
    share = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share"
    path = share / "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data (a test dependency) is not installed")
    robot = km.load(path)
    doc, data = read(km.export.to_glb(robot))
    shapes = _shape_vertices(doc, data)
    assert len(shapes) == len(robot.visuals) == 7
    assert not [n.name for n in doc.nodes if n.name and n.name.startswith(("visual:", "axis:"))]  # no skeleton
    model, _, vis = pin.buildModelsFromUrdf(str(path), str(share))
    pdata, vdata = model.createData(), pin.GeometryData(vis)
    pin.forwardKinematics(model, pdata, robot.q_home)
    pin.updateGeometryPlacements(model, pdata, vis, vdata)
    for k, g in enumerate(vis.geometryObjects):
        mesh = trimesh.load(g.meshPath, force="mesh")
        M = vdata.oMg[k].homogeneous
        want = (np.asarray(mesh.vertices) * g.meshScale) @ M[:3, :3].T + M[:3, 3]
        (name,) = [n for n in shapes if n.endswith(":" + model.frames[g.parentFrame].name)]
        np.testing.assert_allclose(shapes[name].min(axis=0), want.min(axis=0), atol=1e-5)
        np.testing.assert_allclose(shapes[name].max(axis=0), want.max(axis=0), atol=1e-5)


def test_the_braccio_glb_has_its_shapes_colours_and_fingers():
    from kinematica.model.visual import gripper_fraction, placements

    robot = km.load("braccio")
    doc, data = read(km.export.to_glb(robot))
    shapes = _shape_vertices(doc, data)
    assert len(shapes) == len(robot.visuals)
    colours = np.array([m.pbrMetallicRoughness.baseColorFactor for m in doc.materials])
    for v in robot.visuals:  # each shape's own colour is a material (stored to 1e-4)
        assert np.abs(colours - v.color).max(axis=1).min() < 1e-4, v
    X = placements(robot, km.fk_frames(robot, robot.q_home), gripper_fraction(robot))
    for k, v in enumerate(robot.visuals):  # each shape's box, at home and the gripper's home opening
        (name,) = [n for n in shapes if n.startswith(f"shape:{k}:")]
        corners = v.corners() @ X[k][:3, :3].T + X[k][:3, 3]
        np.testing.assert_allclose(shapes[name].min(axis=0), corners.min(axis=0) * 1e-3, atol=1e-6 if v.kind == "box" else 1e-3)
    skeleton = km.export.to_glb(robot, looks=False)
    assert not [n for n in read(skeleton)[0].nodes if n.name and n.name.startswith("shape:")]


def test_a_written_urdf_carries_the_visuals_and_its_meshes_beside_it(capsys, tmp_path):
    import sysconfig
    from pathlib import Path

    from cli_run import run_json
    from kinematica.model.visual import gripper_fraction, placements

    braccio = km.load("braccio")
    again = km.from_urdf(km.to_urdf(braccio), length_unit="mm")
    f = gripper_fraction(braccio)
    np.testing.assert_allclose(placements(again, km.fk_frames(again, braccio.q_home)),
                               placements(braccio, km.fk_frames(braccio, braccio.q_home), f), atol=1e-9)
    assert [v.color for v in again.visuals] == [v.color for v in braccio.visuals]
    path = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data (a test dependency) is not installed")
    out = tmp_path / "twin" / "ur5.urdf"
    out.parent.mkdir()
    data = run_json(capsys, "export", str(path), "--out", str(out))
    assert data["visuals"] == 7 and len(data["meshes"]) == 7 and all(Path(m).is_file() for m in data["meshes"])
    assert {Path(m).parent.name for m in data["meshes"]} == {"ur5_meshes"}
    ur5, twin = km.load(path), km.load(out)  # found beside it, relative to the written file
    q = np.random.default_rng(5).uniform(-3, 3, (2, 6))
    for qi in q:
        np.testing.assert_allclose(placements(twin, km.fk_frames(twin, qi)), placements(ur5, km.fk_frames(ur5, qi)),
                                   atol=1e-12)
