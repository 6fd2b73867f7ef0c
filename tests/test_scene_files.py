"""Scene files (issue 15): bundled scenes, save/load round trips, meshes, and bad input —
malformed files, unknown names, wrong joint counts, missing mesh files — with errors that
name the file, line and field."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import trimesh

import kinematica as km
from kinematica import spatial
from kinematica.scene import SceneError, SceneFileError, scene_names


def write(tmp_path, text: str, name: str = "cell.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_bundled_scenes_load_and_are_clear_at_their_scene_configuration():
    assert {"two-braccios", "kuka-table"} <= set(scene_names())
    for name in scene_names():
        s = km.Scene.load(name)
        assert s.robots and s.obstacles
        assert not s.check().colliding, name
        assert s.distance().min_distance > 0


def test_kuka_table_scene_reaching_into_the_box_collides():
    s = km.Scene.load("kuka-table")
    box = s.obstacles["box"].pose[:3, 3]
    r = s.robots["kuka"].robot
    res = km.ik(r, box + [0, 0, 0.02], q0="random")  # tool point inside the box
    assert res.success
    rep = s.check({"kuka": res.q})
    assert rep.colliding and any("box" in pair for pair in rep.collisions)


def test_save_load_round_trip_gives_the_same_answers(tmp_path):
    s = km.Scene.load("two-braccios")
    s.add_obstacle("can", "cylinder", spatial.transl([0, 120, 60]) @ spatial.rotx(0.3), radius=25, length=120)
    s.add_obstacle("pill", "capsule", spatial.transl([0, -120, 80]), radius=15, length=60)
    s.add_robot("third", km.load("braccio").replace(name="custom"), spatial.transl([0, 180, 0]), radius=12)
    s.allow("third", "table")
    path = s.save(tmp_path / "cell.yaml")
    assert (tmp_path / "cell.third.yaml").is_file()  # a Robot object is written beside the scene
    t = km.Scene.load(path)
    assert list(t.robots) == list(s.robots) and list(t.obstacles) == list(s.obstacles)
    assert t.geometry("third").radius == 12
    rng = np.random.default_rng(0)
    lim = km.load("braccio").limits
    q = {name: rng.uniform(lim[:, 0], lim[:, 1], (30, 5)) for name in s.robots}
    a, b = s.check(q), t.check(q)
    assert np.array_equal(a.colliding, b.colliding) and list(a.collisions) == list(b.collisions)
    # poses go through 15 significant digits and rpy: ~1e-12 mm on values ~100 mm
    assert np.allclose(s.distance(q).min_distance, t.distance(q).min_distance, atol=1e-9)
    assert s.excluded() == t.excluded()


def test_robot_file_collision_section_sets_radius_and_pairs(tmp_path):
    text = (km.model.robotfile.write_text(km.load("braccio"))
            + "collision: {radius: 11, exclude: [[base, gripper]]}\n")
    (tmp_path / "arm.yaml").write_text(text, encoding="utf-8")
    robot = km.load(tmp_path / "arm.yaml")
    assert robot.extras["collision"]["radius"] == 11
    again = km.model.robotfile.read_text(km.model.robotfile.write_text(robot))
    assert again.extras["collision"] == robot.extras["collision"]  # written back
    p = write(tmp_path, """\
        robots:
          - {name: a, robot: arm.yaml}
        """)
    s = km.Scene.load(p)
    assert s.geometry("a").radius == 11
    assert ("a/base", "a/gripper", "listed") in s.excluded()


def test_mesh_obstacle_matches_the_primitive_box(tmp_path):
    """A box written as an STL and read back (trimesh → coal BVH) is as far from the arm as
    coal's primitive box of the same size (outside the box both are exact: ~1e-12 mm)."""
    trimesh.creation.box((60.0, 40.0, 30.0)).export(tmp_path / "block.stl")
    pose = spatial.transl([200, 30, 40]) @ spatial.rotz(0.4)
    mesh, prim = km.Scene(length_unit="mm"), km.Scene(length_unit="mm")
    for s in (mesh, prim):
        s.add_robot("arm", "braccio")
    mesh.add_obstacle("block", "mesh", pose, path=tmp_path / "block.stl")
    prim.add_obstacle("block", "box", pose, size=(60, 40, 30))
    rng = np.random.default_rng(2)
    lim = km.load("braccio").limits
    Q = rng.uniform(lim[:, 0], lim[:, 1], (40, 5))
    dm, dp = mesh.distance({"arm": Q}).min_distance, prim.distance({"arm": Q}).min_distance
    out = dp > 1e-6
    assert out.sum() > 10
    assert np.allclose(dm[out], dp[out], atol=1e-7)
    assert np.array_equal(mesh.check({"arm": Q}).colliding[out], prim.check({"arm": Q}).colliding[out])
    # and the scene file form, the path relative to the file
    p = write(tmp_path, """\
        length_unit: mm
        robots: [{name: arm, robot: braccio}]
        obstacles:
          - {name: block, shape: mesh, path: block.stl, pose: {xyz: [200, 30, 40]}}
        """)
    assert km.Scene.load(p).obstacles["block"].shape.kind == "mesh"


# --- bad input ----------------------------------------------------------------------------
BAD_FILES = [
    ("robots: [", r"line \d: not valid YAML"),  # where the parser notices: line 1 or the end (2)
    ("robots:\n  - {name: a, robot: braccio, colour: red}\n", r"line 2: robots\[0\]\.colour: unknown field 'colour'"),
    ("robots:\n  - {name: a, robot: nosuch}\n", r"line 2: robots\[0\]\.robot: unknown robot 'nosuch'"),
    ("robots:\n  - {name: a, robot: braccio, q: [1, 2]}\n", r"line 2: robots\[0\]\.q: braccio has 5 joints, got 2"),
    ("robots:\n  - {name: a, robot: braccio}\n  - {name: a, robot: puma560}\n",
     r"line 3: robots\[1\]\.name: name 'a' is used twice \(first at line 2\)"),
    ("robots:\n  - {name: l/r, robot: braccio}\n", r"line 2: robots\[0\]\.name: 'l/r': a name may not"),
    ("obstacles:\n  - {name: t, shape: box, size: [1, 2]}\n", r"line 2: obstacles\[0\]\.size: \[1, 2\] is too short"),
    ("obstacles:\n  - {name: t, shape: sphere}\n", r"line 2: obstacles\[0\]: a sphere needs 'radius'"),
    ("obstacles:\n  - {name: t, shape: box, radius: 2, size: [1, 2, 3]}\n",
     r"obstacles\[0\]\.radius: a box takes size, not 'radius'"),
    ("obstacles:\n  - {name: t, shape: cone, radius: 1}\n", r"obstacles\[0\]\.shape: 'cone' is not one of"),
    ("obstacles:\n  - {name: t, shape: sphere, radius: -1}\n", r"obstacles\[0\]\.radius: -1"),
    ("obstacles:\n  - name: t\n    shape: mesh\n    path: nothere.stl\n",
     r"line 4: obstacles\[0\]\.path: mesh file not found: .*nothere\.stl"),
    ("robots:\n  - {name: a, robot: braccio}\nallow:\n  - [a/hand, a/base]\n",
     r"line 4: allow\[0\]: unknown link 'hand': a has link0, base, upper arm"),
    ("robots:\n  - name: a\n    robot: braccio\n    collision: {exclude: [[base, hand]]}\n",
     r"line 4: robots\[0\]\.collision: unknown link 'hand'"),
    ("robots:\n  - name: a\n    robot: braccio\n    base: {xyz: [0, 0, 0], matrix: [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}\n",
     r"line 4: robots\[0\]\.base\.xyz: give only one of matrix, xyz"),
    ("robots:\n  - name: a\n    robot: braccio\n    base: {rotation: [[1,0,0],[0,1,0],[0,0,2]]}\n",
     r"line 4: robots\[0\]\.base: not a rigid placement"),
    ("robots:\n  - name: a\n    robot: braccio\n  - name: a\n    robot: braccio\n", r"line 4"),
    ("name: x\nname: y\n", "line 2: key 'name' appears twice"),
    ("length_unit: inch\n", r"line 1: length_unit: 'inch' is not one of"),
    ("", "the file is empty"),
]


@pytest.mark.parametrize("text,message", BAD_FILES)
def test_malformed_scene_files_name_file_line_and_field(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(SceneFileError, match=message) as e:
        km.Scene.load(p)
    assert str(e.value).startswith(str(p))


def test_missing_scene_file_and_unknown_bundled_name(tmp_path):
    with pytest.raises(FileNotFoundError, match="scene file not found"):
        km.Scene.load(tmp_path / "none.yaml")
    with pytest.raises(SceneError, match="unknown scene 'two-braccio'.*did you mean two-braccios"):
        km.Scene.load("two-braccio")


def test_api_bad_input_names_the_problem(tmp_path):
    s = km.Scene.load("two-braccios")
    with pytest.raises(SceneError, match=r"q: unknown robot 'middle': the scene has left, right"):
        s.check({"middle": np.zeros(5)})
    with pytest.raises(SceneError, match=r"q\['left'\]: braccio has 5 joints .* got \(4,\)"):
        s.check({"left": np.zeros(4)})
    with pytest.raises(SceneError, match=r"q\['left'\]: contains NaN"):
        s.distance({"left": [0, np.nan, 0, 0, 0]})
    with pytest.raises(SceneError, match=r"batch shape \(3,\) differs"):
        s.check({"left": np.zeros((2, 5)), "right": np.zeros((3, 5))})
    with pytest.raises(SceneError, match="mesh: file not found"):
        s.add_obstacle("part", "mesh", path=tmp_path / "part.stl")
    with pytest.raises(SceneError, match="already has a robot or obstacle named 'table'"):
        s.add_obstacle("table", "sphere", radius=1)
    with pytest.raises(SceneError, match="unknown shape 'cube'"):
        s.add_obstacle("c", "cube", size=(1, 1, 1))
    with pytest.raises(SceneError, match="capsule: missing 'length'"):
        s.add_obstacle("c", "capsule", radius=1)
    with pytest.raises(SceneError, match="sphere: radius must be a positive finite number"):
        s.add_obstacle("c", "sphere", radius=float("inf"))
    with pytest.raises(SceneError, match="pose: not a rigid transform"):
        s.add_obstacle("c", "sphere", np.diag([2.0, 1, 1, 1]), radius=1)
    with pytest.raises(SceneError, match="robot name must be a non-empty text without '/'"):
        s.add_robot("a/b", "braccio")
    with pytest.raises(SceneError, match="unknown link 'elbow'"):
        s.allow("left/elbow", "table")
    with pytest.raises(ValueError, match="unknown robot 'bracio'"):
        s.add_robot("third", "bracio")
    assert list(s.robots) == ["left", "right"] and list(s.obstacles) == ["table"]  # nothing lost
    bad = tmp_path / "bad.stl"
    bad.write_text("not a mesh", encoding="utf-8")
    with pytest.raises(SceneError, match="mesh: .*bad.stl"):
        s.add_obstacle("m", "mesh", path=bad)
    assert list(s.obstacles) == ["table"]


def test_move_remove_allow_and_an_empty_scene():
    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "braccio")
    tool = km.fk("braccio", km.load("braccio").q_home)[:3, 3]
    s.add_obstacle("ball", "sphere", spatial.transl(tool), radius=5)
    assert ("arm/gripper", "ball") in s.check().collisions
    s.allow("arm/gripper", "ball")
    assert ("arm/gripper", "ball") not in s.check().collisions
    assert ("arm/gripper", "ball", "allowed in the scene") in s.excluded()
    s.move("ball", spatial.transl(tool + [0, 0, 500]))
    assert not s.check().colliding
    s.move("arm", spatial.transl([0, 0, 500]))  # the arm's base moves up, the ball onto its elbow
    b = km.load("braccio")
    elbow = (km.fk_frames(b, b.q_home)[2] @ b.before[2])[:3, 3]
    s.move("ball", spatial.transl(elbow + [0, 0, 500]))
    hit = s.check().collisions
    assert hit and all("ball" in p for p in hit) and ("arm/gripper", "ball") not in hit
    s.remove("ball")
    assert list(s.obstacles) == [] and s.allowed == ()
    with pytest.raises(SceneError, match="unknown robot or obstacle 'ball'"):
        s.remove("ball")
    empty = km.Scene().distance()
    assert empty.pair is None and empty.min_distance == np.inf and empty.words() == "nothing to check"


def test_robot_file_referenced_relative_to_the_scene_survives_save_elsewhere(tmp_path):
    (tmp_path / "robots").mkdir()
    km.save(km.load("braccio"), tmp_path / "robots" / "arm.yaml")
    p = write(tmp_path, """\
        length_unit: mm
        robots: [{name: a, robot: robots/arm.yaml, base: {xyz: [10, 20, 30], rpy: [0, 0, 90]}}]
        obstacles: [{name: b, shape: sphere, radius: 20, pose: {xyz: [200, 0, 100]}}]
        """)
    s = km.Scene.load(p)
    (tmp_path / "elsewhere").mkdir()
    t = km.Scene.load(s.save(tmp_path / "elsewhere" / "copy.yaml"))
    assert np.allclose(t.robots["a"].base, s.robots["a"].base, atol=1e-12)
    assert t.distance().min_distance == pytest.approx(s.distance().min_distance, abs=1e-9)
    assert "../robots/arm.yaml" in (tmp_path / "elsewhere" / "copy.yaml").read_text(encoding="utf-8")


def test_the_docs_scene_file_example_loads(tmp_path):
    """docs/scenes.md's scene file is a real one (with a part.stl beside it)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "scenes.md").read_text(encoding="utf-8")
    block = doc.split("```yaml\n")[1].split("```", 1)[0]
    trimesh.creation.box((40.0, 40.0, 20.0)).export(tmp_path / "part.stl")
    s = km.Scene.load(write(tmp_path, block))
    assert list(s.obstacles) == ["table", "can", "pill", "ball", "part"] and s.length_unit == "mm"
    assert ("left/base", "left/forearm", "listed") in s.excluded()
    assert s.geometry("left").radius == 20
    rep = s.check()
    assert isinstance(rep.colliding, bool)


def test_sweep_bad_input():
    s = km.Scene.load("two-braccios")
    b = km.load("braccio")
    tr = km.trajectory.joint([b.q_home, b.q_home + 0.1], robot=b)
    with pytest.raises(SceneError, match="'left' has a motion; q holds the robots that stay still"):
        km.scene.check_trajectory(s, {"left": tr}, {"left": b.q_home})
    with pytest.raises(SceneError, match="unknown robot 'middle'"):
        km.scene.check_trajectory(s, {"middle": tr})
    with pytest.raises(SceneError, match=r"left: expected t \(T,\) and q \(T, 5\)"):
        km.scene.check_trajectory(s, {"left": (tr.t, tr.q[:, :4])})
    with pytest.raises(SceneError, match="times must increase strictly"):
        km.scene.check_trajectory(s, {"left": (tr.t[::-1], tr.q)})
    with pytest.raises(SceneError, match="resolution must be a positive finite length"):
        km.scene.check_trajectory(s, {"left": tr}, resolution=0)
    with pytest.raises(SceneError, match="over the limit"):
        km.scene.check_trajectory(s, {"left": tr}, resolution=1e-9)


def test_set_q_is_the_configuration_queries_default_to():
    s = km.Scene.load("two-braccios")
    reach = np.radians([0, -60, -30, -30, 0])
    s.set_q("left", reach)
    s.set_q("right", reach)
    assert s.check().colliding and np.array_equal(s.robots["left"].q, reach)
    with pytest.raises(SceneError, match="left: q: braccio has 5 joints"):
        s.set_q("left", [0, 0])
    with pytest.raises(SceneError, match="unknown robot 'middle'"):
        s.set_q("middle", reach)
