"""What robots look like (`robot.visuals`): URDF `<visual>` meshes and primitives against
Pinocchio's visual model, a missing mesh (one warning, the link left to the skeleton), the
package path, robot files' `visuals:` (round trip, bad input), and the bundled robots' shapes."""

from __future__ import annotations

import sysconfig
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica.model.visual import Grip, Visual, gripper_fraction, lowest_point, missing_bodies, placements
from kinematica.model.robotfile import read_text, write_text

SHARE = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share"
ROBOTS = SHARE / "example-robot-data/robots"
UR5 = ROBOTS / "ur_description/urdf/ur5_robot.urdf"
PANDA = ROBOTS / "panda_description/urdf/panda.urdf"
needs_erd = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data (a test dependency) is not installed")


@needs_erd
@pytest.mark.filterwarnings("ignore::kinematica.URDFWarning")
@pytest.mark.parametrize("path", [UR5, PANDA], ids=["ur5", "panda"])
def test_urdf_visuals_are_placed_as_pinocchio_places_them(path: Path) -> None:
    """Every <visual> of the chain's links (and of the Panda's hand and held fingers), at random
    configurations: the pose kinematica gives it equals Pinocchio's oMg, to rounding (1e-12 m
    on a metre-sized arm after a dozen 4x4 products)."""
    pin = pytest.importorskip("pinocchio")
    robot = km.load(path)
    model, _, vis = pin.buildModelsFromUrdf(str(path), str(SHARE))
    data, vdata = model.createData(), pin.GeometryData(vis)
    ours = {(v.name, Path(v.path).name): k for k, v in enumerate(robot.visuals)}
    theirs = {(model.frames[g.parentFrame].name, Path(g.meshPath).name): k for k, g in enumerate(vis.geometryObjects)}
    assert set(ours) == set(theirs) and len(ours) == len(robot.visuals) == vis.ngeoms
    rng = np.random.default_rng(16)
    for q in rng.uniform(np.maximum(robot.limits[:, 0], -np.pi), np.minimum(robot.limits[:, 1], np.pi), (3, robot.n)):
        qp = pin.neutral(model)
        for name, value in zip(robot.joint_names, q):
            qp[model.joints[model.getJointId(name)].idx_q] = value
        pin.forwardKinematics(model, data, qp)
        pin.updateGeometryPlacements(model, data, vis, vdata)
        X = placements(robot, km.fk_frames(robot, q))
        for key, k in ours.items():
            np.testing.assert_allclose(X[k], vdata.oMg[theirs[key]].homogeneous, atol=1e-12)
            np.testing.assert_allclose(robot.visuals[k].scale, vis.geometryObjects[theirs[key]].meshScale)
    assert all(Path(v.path).is_file() for v in robot.visuals)


@needs_erd
def test_the_ur5_has_a_mesh_on_every_body() -> None:
    robot = km.load(UR5)
    assert [v.body for v in robot.visuals] == list(range(robot.n + 1))
    assert missing_bodies(robot) == ()


def _urdf(mesh: str, extra: str = "") -> str:
    return f"""<robot name="two">
  <material name="blue"><color rgba="0.1 0.2 0.9 1"/></material>
  <link name="base"><visual><origin xyz="0 0 -0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry>
    <material name="blue"/></visual></link>
  <link name="a"><visual><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.03" length="0.5"/></geometry>
    <material name="red"><color rgba="1 0 0 0.5"/></material></visual></link>
  <link name="b"><visual><geometry><mesh filename="{mesh}" scale="2 2 2"/></geometry></visual>{extra}</link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def test_a_missing_mesh_warns_once_and_leaves_its_link_to_the_skeleton(tmp_path: Path) -> None:
    path = tmp_path / "two.urdf"
    path.write_text(_urdf("package://nowhere/meshes/b.stl", '<visual><geometry><mesh filename="gone.obj"/>'
                                                            "</geometry></visual>"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = km.load(path)
    ours = [w for w in caught if issubclass(w.category, km.URDFWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    assert "2 visual mesh files not found" in str(ours[0].message) and "package_dirs" in str(ours[0].message)
    assert ours[0].filename == __file__  # attributed to the user's line
    assert [v.kind for v in robot.visuals] == ["box", "cylinder"] and missing_bodies(robot) == (2,)
    box, cyl = robot.visuals
    assert box.color == (0.1, 0.2, 0.9, 1.0) and box.hex_color == "#1a33e6"  # a named material, looked up
    assert cyl.color == (1.0, 0.0, 0.0, 0.5) and cyl.size == (0.03, 0.5)
    assert lowest_point(robot) == pytest.approx(-0.1)  # the box reaches 0.1 below the base frame
    np.testing.assert_allclose(km.fk(robot, [0.3, 0.2])[:3, 3], [0, 0, 0.5], atol=1e-15)  # the load is whole


def test_package_paths_given_by_the_user(tmp_path: Path) -> None:
    import trimesh

    mesh = tmp_path / "elsewhere/mypkg/meshes/b.stl"
    mesh.parent.mkdir(parents=True)
    trimesh.creation.box((0.1, 0.1, 0.1)).export(mesh)
    (tmp_path / "robot").mkdir()
    path = tmp_path / "robot/two.urdf"
    path.write_text(_urdf("package://mypkg/meshes/b.stl"))
    with pytest.warns(km.URDFWarning, match="1 visual mesh file not found"):
        assert missing_bodies(km.load(path)) == (2,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        robot = km.load(path, package_dirs=[tmp_path / "elsewhere"])
    (v,) = [v for v in robot.visuals if v.kind == "mesh"]
    assert Path(v.path) == mesh and v.scale == (2.0, 2.0, 2.0) and v.body == 2
    mm = km.from_urdf(path, length_unit="mm", package_dirs=[str(tmp_path / "elsewhere")])
    assert [v.scale for v in mm.visuals if v.kind == "mesh"] == [(2000.0, 2000.0, 2000.0)]  # file metres → mm
    assert [v.size for v in mm.visuals if v.kind == "cylinder"] == [(30.0, 500.0)]


FILE = """name: stick
kind: dh
length_unit: mm
angle_unit: deg
joints:
  - {theta: 0, d: 0, a: 100, alpha: 0}
  - {theta: 0, d: 0, a: 50, alpha: 0}
gripper: {servo: {range: [10, 73], open: 10, closed: 73}, home: 10}
visuals:
  source: drawn for the test
  shapes:
    - {body: 0, cylinder: {radius: 40, length: 30}, xyz: [0, 0, -15], color: "#ffffff"}
    - {body: 1, box: {size: [100, 20, 20]}, xyz: [-50, 0, 0], color: [0.2, 0.2, 0.2]}
    - {body: 2, name: finger, box: {size: [5, 5, 30]}, xyz: [0, 10, 15], rpy: [0, 0, 90],
       grip: {axis: [1, 0, 0], pivot: [0, 10, 0], open: 30, closed: 0}}
"""


def test_robot_file_visuals_round_trip_and_move_with_the_gripper() -> None:
    robot = read_text(FILE, "stick.yaml")
    again = read_text(write_text(robot), "again.yaml")
    assert robot.extras["visual_source"] == again.extras["visual_source"] == "drawn for the test"
    for a, b in zip(robot.visuals, again.visuals, strict=True):
        assert (a.body, a.kind, a.size, a.color, a.name) == (b.body, b.kind, b.size, b.color, b.name)
        np.testing.assert_allclose(a.origin, b.origin, atol=1e-12)
    finger = robot.visuals[2]
    assert finger.grip is not None and finger.grip.open == pytest.approx(np.radians(30))
    assert lowest_point(robot) == pytest.approx(-30.0)
    frames = km.fk_frames(robot, [0.0, 0.0])
    assert gripper_fraction(robot) == 0.0 and gripper_fraction(robot, 73) == 1.0
    opened, closed = placements(robot, frames, 0.0)[2], placements(robot, frames, 1.0)[2]
    # closed: the finger as drawn; open: turned 30° about x through the pivot, which stays put
    np.testing.assert_allclose(closed, frames[2] @ finger.origin, atol=1e-12)
    pivot = frames[2] @ [0, 10, 0, 1]
    for X in (opened, closed):
        assert np.linalg.norm((X @ np.linalg.inv(finger.origin) @ [0, 10, 0, 1]) - pivot) < 1e-9
    assert np.degrees(np.arccos(np.clip((np.trace(opened[:3, :3].T @ closed[:3, :3]) - 1) / 2, -1, 1))) \
        == pytest.approx(30.0)


@pytest.mark.parametrize("change, message", [
    ("{body: 3, sphere: {radius: 5}}", "body 3 does not exist"),
    ("{body: 0, sphere: {radius: -5}}", "visuals.shapes"),
    ("{body: 0, box: {size: [1, 1, 1]}, sphere: {radius: 1}}", "visuals.shapes"),
    ("{body: 0, sphere: {radius: 1}, color: '#12345'}", "color"),
    ("{body: 0, sphere: {radius: 1}, colour: red}", "unknown field 'colour'"),
])
def test_bad_visuals_in_a_robot_file_name_the_field(change: str, message: str) -> None:
    text = FILE.split("  shapes:")[0] + f"  shapes:\n    - {change}\n"
    with pytest.raises(km.RobotFileError, match=message):
        read_text(text, "bad.yaml")


def test_bad_visual_values_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="kind 'cone'"):
        Visual(0, "cone")
    with pytest.raises(ValueError, match="3 positive size"):
        Visual(0, "box", size=(1, 0, 1))
    with pytest.raises(ValueError, match="path"):
        Visual(0, "mesh")
    with pytest.raises(ValueError, match="color"):
        Visual(0, "sphere", size=(1,), color=(2, 0, 0))
    with pytest.raises(ValueError, match="origin"):
        Visual(0, "sphere", size=(1,), origin=np.full((4, 4), np.nan))


@settings(max_examples=40, deadline=None)
@given(st.floats(-3, 3), st.floats(0, 1), st.floats(-1, 1), st.floats(-1, 1), st.floats(0.1, 1))
def test_a_turning_grip_keeps_its_pivot_and_a_slide_moves_along_its_axis(a, f, x, y, z) -> None:
    turn = Grip((x, y, z), (0.3, -0.2, 0.1), open=a, closed=0.0).motion(f)
    np.testing.assert_allclose(turn @ [0.3, -0.2, 0.1, 1], [0.3, -0.2, 0.1, 1], atol=1e-12)
    np.testing.assert_allclose(turn[:3, :3] @ turn[:3, :3].T, np.eye(3), atol=1e-12)
    slide = Grip((x, y, z), open=a, closed=0.0, slide=True).motion(f)
    u = np.array([x, y, z]) / np.linalg.norm([x, y, z])
    np.testing.assert_allclose(slide[:3, 3], (1 - f) * a * u, atol=1e-12)


def test_a_robot_file_mesh_is_found_beside_it_or_warned_about(tmp_path: Path) -> None:
    import trimesh

    (tmp_path / "meshes").mkdir()
    trimesh.creation.box((0.1, 0.02, 0.02)).export(tmp_path / "meshes/link.stl")
    text = FILE + "    - {body: 1, mesh: {file: meshes/link.stl, scale: [1000, 1000, 1000]}}\n" \
                  "    - {body: 2, mesh: {file: meshes/gone.stl}}\n"
    path = tmp_path / "stick.yaml"
    path.write_text(text)
    with pytest.warns(UserWarning, match="1 visual mesh file not found .*gone.stl"):
        robot = km.load(path)
    (mesh,) = [v for v in robot.visuals if v.kind == "mesh"]
    assert Path(mesh.path) == tmp_path / "meshes/link.stl" and mesh.scale == (1000.0, 1000.0, 1000.0)
    glb = km.export.to_glb(robot)  # the mesh, scaled to mm and back to metres, in the glTF
    import io

    scene = trimesh.load(io.BytesIO(glb), file_type="glb")
    assert len(scene.geometry) == len(robot.visuals)


def test_the_command_line_takes_package_dirs_and_warns_in_one_line(capsys, tmp_path: Path) -> None:
    import trimesh
    from cli_run import run

    mesh = tmp_path / "share/mypkg/meshes/b.stl"
    mesh.parent.mkdir(parents=True)
    trimesh.creation.box((0.1, 0.1, 0.1)).export(mesh)
    path = tmp_path / "two.urdf"
    path.write_text(_urdf("package://mypkg/meshes/b.stl"))
    code, out, err = run(capsys, "export", str(path), "--out", str(tmp_path / "a.glb"), "--json")
    assert code == 0 and err.count("\n") == 1 and "kinematica: warning:" in err and "1 visual mesh file not found" in err
    assert '"visuals": 2' in out
    code, out, err = run(capsys, "export", str(path), "--package-dir", str(tmp_path / "share"), "--out",
                         str(tmp_path / "b.urdf"), "--json")
    assert code == 0 and err == "" and '"visuals": 3' in out
    assert (tmp_path / "b_meshes/b.stl").read_bytes() == mesh.read_bytes()  # copied beside the URDF
    assert missing_bodies(km.load(tmp_path / "b.urdf")) == ()  # and found there on reading it back


def test_a_visual_with_nothing_to_draw_is_left_out_with_a_warning() -> None:
    text = _urdf("x.stl").replace('<box size="0.2 0.2 0.1"/>', '<box size="0.2 0 0.1"/>')
    with pytest.warns(km.URDFWarning, match=r"1 <visual> element left out \(link 'base': a box visual needs 3 positive"):
        robot = km.from_urdf(text)
    assert [v.kind for v in robot.visuals] == ["cylinder"]  # the file still loads, the box is gone


def _box_gap(v: Visual, X: np.ndarray, pts: np.ndarray) -> float:
    """The least distance from `pts` (k, 3, world) to the box around shape `v` placed at X
    (a cylinder's or a sphere's bounding box: the box holds the shape, so a point it misses
    the shape misses too)."""
    local = (np.linalg.inv(X) @ np.c_[pts, np.ones(len(pts))].T)[:3].T
    centre, half = _extent(v)
    return float(np.min(np.linalg.norm(np.maximum(np.abs(local - centre) - half, 0.0), axis=1)))


def _box_points(v: Visual, X: np.ndarray) -> np.ndarray:
    """A 5 x 5 x 5 grid through the box around the shape, in world coordinates."""
    centre, half = _extent(v)
    t = np.linspace(-1.0, 1.0, 5)
    grid = np.array([[a, b, c] for a in t for b in t for c in t]) * half + centre
    return (X @ np.c_[grid, np.ones(len(grid))].T)[:3].T


def _extent(v: Visual) -> tuple[np.ndarray, np.ndarray]:
    """(centre, half size) of the box around a shape in its own frame: a mesh's from its file."""
    if v.kind != "mesh":
        return np.zeros(3), v.corners().max(axis=0)
    import trimesh

    lo, hi = trimesh.load(v.path, force="mesh").bounds * np.asarray(v.scale)
    return (lo + hi) / 2, (hi - lo) / 2


@pytest.mark.parametrize("name", km.robot_names())
@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_every_bundled_robot_has_looks_and_each_shape_sits_along_its_link(name: str, fraction: float) -> None:
    """Every bundled robot has a look of primitives (or licensed meshes shipped with it, the SO-100 and SO-101)
    on every body, and each shape lies along the
    piece of the skeleton its body carries (the base's from the floor under its pedestal up), or
    touches a shape of the same body that does (a UR5's joint cap on its housing). Whether a
    shape sits on the right body does not depend on q (both are rigid in the body's frame), so
    the home pose settles it. Tolerances, as a share of the arm's reach: 10 % for how far a link
    may stand off its joint line (the UR5's upper arm tube, 0.136 m across it as on the real
    arm, misses the DH line by 7.6 %; the Braccio's wrist servo by 7 %), 2 % for two shapes to
    touch (the grid of 125 points through a box samples its extent in steps of a quarter)."""
    from kinematica.model.visual import lowest_point, placements
    from kinematica.viz.geometry import body_pieces, reach

    robot = km.load(name)
    assert robot.visuals and not missing_bodies(robot), name  # fails before: arm-4dof, arm-5dof, ...
    for v in robot.visuals:  # bundled: primitives, or meshes shipped in the package with their license
        if v.kind == "mesh":
            folder = Path(v.path).parent
            assert Path(v.path).is_file() and (folder / "LICENSE").is_file() and (folder / "NOTICE").is_file(), v.path
            assert Path(km.__file__).parent in Path(v.path).parents, v.path
    pieces, X = body_pieces(robot, robot.q_home), placements(robot, km.fk_frames(robot, robot.q_home), fraction)
    low, r = lowest_point(robot), reach(robot)
    t = np.linspace(0.0, 1.0, 201)[:, None]
    for k in range(robot.n + 1):
        piece = pieces[k]
        if k == 0 and low is not None and low < piece[0][2]:  # the post down to the floor
            piece = np.vstack([[*piece[0][:2], low], piece])
        line = np.vstack([a + t * (b - a) for a, b in zip(piece[:-1], piece[1:])])
        mine = [i for i, v in enumerate(robot.visuals) if v.body == k]
        placed = {i for i in mine if _box_gap(robot.visuals[i], X[i], line) <= 0.10 * r}
        assert placed, (name, k, "no shape on its link")
        grown = True
        while grown:  # shapes touching a placed shape of their body are placed too
            more = {i for i in mine if i not in placed and any(
                _box_gap(robot.visuals[j], X[j], _box_points(robot.visuals[i], X[i])) <= 0.02 * r for j in placed)}
            placed |= more
            grown = bool(more)
        stray = [robot.visuals[i].name for i in mine if i not in placed]
        assert not stray, (name, k, stray)
