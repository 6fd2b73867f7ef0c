"""MoveIt interchange (issue 27): planning-scene YAML read as a `km.Scene` and written back,
motion-plan requests read as start and goal, and `kinematica plan --request`. Hand-written
files in both forms MoveIt tools write (poses as lists, as MotionBenchMaker has them, or as
{x: …} mappings, as ROS messages are dumped)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import kinematica as km
from kinematica.plan import read_request
from kinematica.scene import SceneError, SceneFileError, check_trajectory, moveit_text, read_moveit, srdf_disabled

from cli_run import run, run_json

S45 = float(np.sqrt(0.5))
SCENE = f"""robot_model_name: panda
robot_state:
  joint_state:
    name: [panda_finger_joint1, panda_joint7, panda_joint1, panda_joint2, panda_joint3, panda_joint4, panda_joint5,
           panda_joint6]
    position: [0.04, 0.5, 0.1, -0.7, 0.0, -2.3, 0.0, 1.6]
  multi_dof_joint_state:
    joint_names: [virtual_joint]
    transforms: [{{translation: [0.1, 0, 0], rotation: [0, 0, {S45}, {S45}]}}]
world:
  collision_objects:
    - id: shelf
      primitives:
        - {{type: box, dimensions: [0.6, 0.4, 0.04]}}
        - {{type: box, dimensions: [0.6, 0.04, 0.3]}}
      primitive_poses:
        - {{position: [0.6, 0, 0.3], orientation: [0, 0, 0, 1]}}
        - {{position: [0.6, 0.2, 0.45], orientation: [0, 0, 0, 1]}}
    - id: can
      pose: {{position: {{x: 0, y: 0.5, z: 0.2}}, orientation: {{x: 0, y: 0, z: {S45}, w: {S45}}}}}
      primitives: [{{type: cylinder, dimensions: [0.14, 0.03]}}]
      primitive_poses: [{{position: {{x: 0.1, y: 0, z: 0}}, orientation: {{x: 0, y: 0, z: 0, w: 1}}}}]
    - id: ball
      primitives: [{{type: sphere, dimensions: [0.05]}}]
      primitive_poses: [{{position: [-0.4, -0.4, 0.5], orientation: [0, 0, 0, 1]}}]
"""
REQUEST = """start_state:
  joint_state:
    name: [panda_joint1, panda_joint2, panda_joint3, panda_joint4, panda_joint5, panda_joint6, panda_joint7,
           panda_finger_joint1, panda_finger_joint2]
    position: [-1.2, -0.5, 0, -2.0, 0, 1.6, 0.8, 0.04, 0.04]
goal_constraints:
  - joint_constraints:
      - {joint_name: panda_joint3, position: 0.0}
      - {joint_name: panda_joint1, position: 1.2}
      - {joint_name: panda_joint2, position: -0.5}
      - {joint_name: panda_joint4, position: -2.0}
      - {joint_name: panda_joint5, position: 0.0}
      - {joint_name: panda_joint6, position: 1.6}
      - {joint_name: panda_joint7, position: 0.8}
group_name: panda_arm
planner_id: RRTConnect
"""


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "scene.yaml").write_text(SCENE, encoding="utf-8")
    (tmp_path / "request.yaml").write_text(REQUEST, encoding="utf-8")
    return tmp_path


def test_primitives_poses_and_robot_state_are_read(files):
    s = read_moveit(files / "scene.yaml", "panda")
    assert list(s.obstacles) == ["shelf.0", "shelf.1", "can", "ball"] and list(s.robots) == ["panda"]
    assert s.obstacles["shelf.1"].shape.size == (0.6, 0.04, 0.3)
    can = s.obstacles["can"]
    assert (can.shape.kind, can.shape.radius, can.shape.length) == ("cylinder", 0.03, 0.14)  # [height, radius]
    # the object's pose, then the primitive's within it: a quarter turn about z maps x onto y
    np.testing.assert_allclose(can.pose[:3, 3], [0.0, 0.6, 0.2], atol=1e-15)
    np.testing.assert_allclose(can.pose[:3, :3], Rotation.from_euler("z", 90, degrees=True).as_matrix(), atol=1e-15)
    assert s.obstacles["ball"].shape.radius == 0.05
    # q by joint name (the finger, not a joint of the arm, is skipped); the base from the virtual joint
    np.testing.assert_array_equal(s.robots["panda"].q, [0.1, -0.7, 0.0, -2.3, 0.0, 1.6, 0.5])
    np.testing.assert_allclose(s.robots["panda"].base[:3, 3], [0.1, 0, 0])
    np.testing.assert_allclose(s.robots["panda"].base[:2, 0], [0, 1], atol=1e-15)


def test_a_request_gives_start_and_goal_by_joint_name(files):
    s = read_moveit(files / "scene.yaml", "panda")
    r = read_request(files / "request.yaml", s)
    assert r.robot == "panda" and r.group == "panda_arm" and r.planner_id == "RRTConnect"
    np.testing.assert_array_equal(r.start, [-1.2, -0.5, 0, -2.0, 0, 1.6, 0.8])
    np.testing.assert_array_equal(r.goal, [1.2, -0.5, 0, -2.0, 0, 1.6, 0.8])


def test_a_written_scene_reads_back_the_same(files, tmp_path):
    s = read_moveit(files / "scene.yaml", "panda")
    s.allow("panda/link7", "ball")
    (tmp_path / "back.yaml").write_text(moveit_text(s), encoding="utf-8")
    b = read_moveit(tmp_path / "back.yaml", "panda")
    assert list(b.obstacles) == list(s.obstacles)
    for name, o in s.obstacles.items():
        assert b.obstacles[name].shape == o.shape
        np.testing.assert_allclose(b.obstacles[name].pose, o.pose, atol=1e-14)  # quaternion round trip: rounding
    np.testing.assert_allclose(b.robots["panda"].q, s.robots["panda"].q, atol=0)
    np.testing.assert_allclose(b.robots["panda"].base, s.robots["panda"].base, atol=1e-14)
    assert b.allowed == (("panda/link7", "ball"),)


def test_a_scene_in_mm_is_written_in_metres(tmp_path):
    s = km.Scene(length_unit="mm")
    s.add_obstacle("block", "box", pose=km.spatial.transl([100, 0, 50]), size=(40, 40, 100))
    text = moveit_text(s)
    assert "dimensions: [0.04, 0.04, 0.1]" in text and "x: 0.1" in text


def test_what_moveit_cannot_hold_is_refused_in_words():
    s = km.Scene()
    s.add_obstacle("pill", "capsule", radius=0.1, length=0.2)
    with pytest.raises(SceneError, match="a capsule has no MoveIt primitive"):
        moveit_text(s)
    two = km.Scene()
    two.add_robot("a", "puma560")
    two.add_robot("b", "puma560", base=km.spatial.transl([1, 0, 0]))
    with pytest.raises(SceneError, match="holds one robot"):
        moveit_text(two)


HAND_ARM = """<robot name="hand-arm">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="upper"><collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.04" length="0.5"/></geometry></collision></link>
  <link name="fore"><collision><origin xyz="0.2 0 0"/><geometry><box size="0.4 0.05 0.05"/></geometry></collision></link>
  <link name="hand"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="fore"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j3" type="fixed"><parent link="fore"/><child link="hand"/><origin xyz="0.45 0 0"/></joint>
</robot>"""


def test_a_body_pair_is_allowed_only_when_every_link_pair_in_it_is(tmp_path):
    (tmp_path / "arm.urdf").write_text(HAND_ARM, encoding="utf-8")
    robot = km.load(tmp_path / "arm.urdf")
    acm = """robot_state: {joint_state: {name: [j1, j2], position: [0, 0]}}
allowed_collision_matrix:
  entry_names: [base, fore, hand, post]
  entry_values:
    - [false, true, %s, true]
    - [true, false, true, false]
    - [%s, true, false, false]
    - [true, false, false, false]
world:
  collision_objects:
    - {id: post, primitives: [{type: box, dimensions: [0.1, 0.1, 1]}], primitive_poses: [{position: [1, 0, 0.5]}]}
"""
    (tmp_path / "half.yaml").write_text(acm % ("false", "false"), encoding="utf-8")
    (tmp_path / "whole.yaml").write_text(acm % ("true", "true"), encoding="utf-8")
    half = read_moveit(tmp_path / "half.yaml", robot, robot_name="arm")
    # "fore" is a body of two links (fore, and the hand fixed to it): base–fore alone allowed does not
    # drop the pair, since base–hand is still checked; base–post is allowed (post is the box's id)
    assert half.allowed == (("arm/base", "post"),)
    whole = read_moveit(tmp_path / "whole.yaml", robot, robot_name="arm")
    assert set(whole.allowed) == {("arm/base", "arm/fore"), ("arm/base", "post")}
    (tmp_path / "arm.srdf").write_text('<robot name="hand-arm"><disable_collisions link1="base" link2="fore"/>'
                                       '<disable_collisions link1="hand" link2="base" reason="Never"/></robot>')
    srdf = read_moveit(tmp_path / "half.yaml", robot, robot_name="arm", allow=srdf_disabled(tmp_path / "arm.srdf"))
    assert set(srdf.allowed) == set(whole.allowed)


BAD_SCENES = [
    ("world: {collision_objects: [{id: c, primitives: [{type: cone, dimensions: [1, 1]}], "
     "primitive_poses: [{position: [0, 0, 0]}]}]}", "line 1: world.collision_objects[0].primitives[0].type: "
                                                    "primitive 'cone' is not read"),
    ("world:\n  collision_objects:\n    - id: m\n      meshes: [{vertices: [], triangles: []}]\n",
     "line 4: world.collision_objects[0].meshes: meshes are not read"),
    ("world: {collision_objects: [{id: b, primitives: [{type: box, dimensions: [1, 1, 1]}], "
     "primitive_poses: []}]}", "1 primitives"),
    ("world: {collision_objects: [{id: b, primitives: [{type: box, dimensions: [1, -1, 1]}], "
     "primitive_poses: [{position: [0, 0, 0]}]}]}", "dimensions must be 3 positive numbers"),
    ("world: {collision_objects: [{id: b, primitives: [{type: sphere, dimensions: [0.1]}], "
     "primitive_poses: [{position: [0, 0, 0], orientation: [0, 0, 0, 0]}]}]}", "not a unit quaternion"),
    ("world: {collision_objects: [{id: b, operation: REMOVE}]}", "only ADD objects"),
    ("world: {collision_objects: [{id: a/b}]}", "without '/'"),
    ("start_state: {}\ngoal_constraints: []\n", "not a MoveIt planning scene"),
    ("world: {collision_objects: [{id: b, header: {frame_id: panda_hand}}]}", "world frame only"),
]


@pytest.mark.parametrize(("text", "words"), BAD_SCENES)
def test_bad_scene_files_are_refused_in_words(tmp_path, text, words):
    (tmp_path / "bad.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(SceneFileError, match=words.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        read_moveit(tmp_path / "bad.yaml", "panda")


@pytest.mark.parametrize(("edit", "words"), [
    (lambda t: t.replace("      - {joint_name: panda_joint5, position: 0.0}\n", ""), "leaves out panda_joint5"),
    (lambda t: t.replace("panda_joint5, position", "panda_joint1, position"), "panda_joint1 is constrained twice"),
    (lambda t: t.replace("goal_constraints:\n", "goal_constraints:\n  - {position_constraints: [{link_name: x}]}\n"),
     "expected one goal constraint set, got 2"),
    (lambda t: t.replace("position: [-1.2,", "position: [.nan,"), "panda_joint1: expected a finite number"),
])
def test_bad_requests_are_refused_in_words(files, edit, words):
    s = read_moveit(files / "scene.yaml", "panda")
    (files / "request.yaml").write_text(edit(REQUEST), encoding="utf-8")
    with pytest.raises(SceneFileError, match=words):
        read_request(files / "request.yaml", s)


def test_kinematica_plan_reads_a_moveit_scene_and_request(files, capsys):
    d = run_json(capsys, "plan", "--request", str(files / "request.yaml"), "--scene", str(files / "scene.yaml"),
                 "--robot", "panda", "--seed", "4")
    assert d["success"], d["reason"]
    path = np.array(d["path"])
    np.testing.assert_array_equal(path[0], [-1.2, -0.5, 0, -2.0, 0, 1.6, 0.8])
    np.testing.assert_array_equal(path[-1], [1.2, -0.5, 0, -2.0, 0, 1.6, 0.8])
    s = read_moveit(files / "scene.yaml", "panda")
    rep = check_trajectory(s, {"panda": (np.arange(len(path), dtype=float), path)}, resolution=d["resolution"] / 10)
    assert not rep.colliding, str(rep)


def test_kinematica_plan_request_needs_its_scene_and_robot(files, capsys):
    code, _, err = run(capsys, "plan", "--request", str(files / "request.yaml"), "--robot", "panda")
    assert code == 2 and "--request needs --scene" in err
    code, _, err = run(capsys, "plan", "kuka-table", "--request", str(files / "request.yaml"))
    assert code == 2 and "SCENE: --request gives the start and goal" in err
