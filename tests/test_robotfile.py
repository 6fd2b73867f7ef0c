"""YAML robot files: save/load round trips and validation messages naming file, line and field."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km
from kinematica.model.robotfile import read_text, write_text
from strategies import FAST, dh_robots, random_q


def assert_same_robot(a: km.Robot, b: km.Robot, rng=None, link_frames: bool = True) -> None:
    assert b.name == a.name
    assert b.n == a.n
    assert b.joint_types == a.joint_types
    assert b.joint_names == a.joint_names
    assert b.length_unit == a.length_unit
    assert b.link_names == a.link_names
    np.testing.assert_allclose(b.limits, a.limits, rtol=1e-12, atol=1e-12)
    if a.home is None:
        assert b.home is None
    else:
        np.testing.assert_allclose(b.home, a.home, rtol=1e-12, atol=1e-12)
    lim = np.clip(a.limits, -np.pi, np.pi)
    rng = rng or np.random.default_rng(0)
    q = lim[:, 0] + rng.random((8, a.n)) * (lim[:, 1] - lim[:, 0])
    np.testing.assert_allclose(km.fk(b, q), km.fk(a, q), rtol=0, atol=1e-10)
    if link_frames:
        np.testing.assert_allclose(km.fk_frames(b, q)[..., 1:-1, :, :], km.fk_frames(a, q)[..., 1:-1, :, :],
                                   rtol=0, atol=1e-10)
    else:  # at least the joint origins
        np.testing.assert_allclose(km.fk_frames(b, q)[..., 1:-1, :3, 3], km.fk_frames(a, q)[..., 1:-1, :3, 3],
                                   rtol=0, atol=1e-10)
    np.testing.assert_allclose(b.base, a.base, atol=1e-12)
    if a.inertials is None:
        assert b.inertials is None
    else:
        assert len(b.inertials) == len(a.inertials)
        for x, y in zip(a.inertials, b.inertials):
            assert (x is None) == (y is None)
            if x is not None:
                assert y.mass == pytest.approx(x.mass, rel=1e-12)
                np.testing.assert_allclose(y.com, x.com, rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(y.inertia, x.inertia, rtol=1e-12, atol=0)


# --- round trips ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", km.robot_names())
def test_bundled_robot_round_trips(name, tmp_path):
    robot = km.load(name)
    for suffix in (".yaml", ".yml"):
        path = km.save(robot, tmp_path / f"{name}{suffix}")
        assert path.exists()
        again = km.load(path)
        assert_same_robot(robot, again)
        assert km.load(str(path)).name == robot.name
        # a second round trip writes the same text
        assert write_text(again) == write_text(robot)


def test_every_bundled_robot_file_passes_the_schema():
    # km.load skips the schema pass for the package's own files (start-up: no jsonschema import);
    # this is the check it relies on, and that both reads give the same robot
    from kinematica.model.library import _bundle
    from kinematica.model.schema import parse

    for name, path in _bundle().items():
        text = path.read_text(encoding="utf-8")
        assert parse(text, f"{name}.yaml") == parse(text, f"{name}.yaml", schema=False)
        assert_same_robot(km.load(name), read_text(text, f"{name}.yaml", folder=Path(str(path)).parent))


def test_bundled_robots_are_listed_and_load():
    names = km.robot_names()
    assert names == sorted(names)
    for required in ("arm-4dof", "arm-5dof", "arm-5dof-geo", "kuka-kr6-r900", "planar-3r"):
        assert required in names
    for name in names:
        r = km.load(name)
        assert isinstance(r, km.Robot) and r.name == name


inertials = st.one_of(
    st.none(),
    st.builds(lambda m, s, c: km.Inertial.box(m, s, c), st.floats(0.1, 10),
              st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3),
              st.lists(st.floats(-0.5, 0.5), min_size=3, max_size=3)),
    st.builds(lambda m, r, h: km.Inertial.cylinder(m, r, h, "x"), st.floats(0.1, 10), st.floats(0.01, 0.2),
              st.floats(0.05, 1.0)),
)


@FAST
@given(robot=dh_robots(), data=st.data())
def test_random_dh_robots_round_trip(robot, data, tmp_path_factory):
    inert = tuple(data.draw(inertials) for _ in range(robot.n))
    home = random_q(robot, np.random.default_rng(0)) if data.draw(st.booleans()) else None
    robot = robot.replace(inertials=inert if any(i is not None for i in inert) else None, home=home,
                          length_unit=data.draw(st.sampled_from(["m", "mm"])),
                          description="random robot", source="hypothesis")
    path = km.save(robot, tmp_path_factory.mktemp("rt") / "robot.yaml")
    again = km.load(path)
    assert_same_robot(robot, again)
    assert again.description == "random robot" and again.source == "hypothesis"
    assert again.table.kind == robot.table.kind


def test_prismatic_robot_round_trips(tmp_path):
    rows = [{"name": "lift", "type": "prismatic", "d": 0.1, "theta": 0.2, "a": 0.05, "alpha": -np.pi / 2,
             "limits": [0.0, 0.8]},
            {"name": "turn", "a": 0.3, "d": 0.02, "alpha": np.pi / 2, "limits": [-2, 2]},
            {"name": "reach", "type": "prismatic", "theta": 0.4, "limits": [-0.25, 0.5]}]
    for build in (km.from_dh, km.from_mdh):
        robot = build(rows, name="cartesian-ish", home=[0.4, 0.1, 0.0], tool=km.spatial.trans(0, 0, 0.1))
        again = km.load(km.save(robot, tmp_path / "p.yaml"))
        assert again.joint_types == ("prismatic", "revolute", "prismatic")
        assert_same_robot(robot, again)


def test_degree_table_round_trips_in_degrees(tmp_path):
    robot = km.from_dh([{"d": 70, "alpha": 90, "limits": [-90, 90]}, {"a": 82, "theta": 30}],
                       length_unit="mm", deg=True, home=[10, 20])
    text = write_text(robot)
    assert "angle_unit: deg" in text and "alpha: 90.0" in text and "[-90.0, 90.0]" in text
    assert_same_robot(robot, read_text(text))


def test_planar_and_link_frame_robots_round_trip(tmp_path):
    planar = km.from_planar([20, 10, 5], limits=[[-1, 1], [-2, 2], [-3, 3]], home=[0.1, 0.2, 0.3],
                            base=km.spatial.trans(1, 2, 3) @ km.spatial.rotz(0.3),
                            meta={"inertials": (km.Inertial.sphere(1.0, 2.0), None, None)})
    again = km.load(km.save(planar, tmp_path / "planar.yaml"))
    assert again.table.kind == "planar"
    assert_same_robot(planar, again)
    np.testing.assert_allclose(again.tool, planar.tool, atol=1e-12)
    # link frames with every axis along z: written back as they are
    frames = km.from_link_frames(
        [{"name": "a", "xyz": [0, 0, 0.3]},
         {"name": "b", "xyz": [0.1, 0, 0.2], "rpy": [0.3, -0.2, 0.1]},
         {"name": "c", "type": "prismatic", "xyz": [0.4, 0, 0], "rotation": km.spatial.roty(0.5)[:3, :3].tolist()},
         {"name": "d", "xyz": [0, 0.1, 0], "rotation": km.spatial.rotx(0.5)[:3, :3].tolist()}],
        name="frames", limits=[[-1, 1]] * 4, tool=km.spatial.trans(0, 0, 0.05))
    assert_same_robot(frames, km.load(km.save(frames, tmp_path / "frames.yaml")))


AXES = [{"name": "a", "xyz": [0, 0, 0.3], "axis": [0, 0, 1]},
        {"name": "b", "xyz": [0.1, 0, 0.2], "rpy": [0.3, -0.2, 0.1], "axis": [0, 1, 0]},
        {"name": "c", "type": "prismatic", "xyz": [0.4, 0, 0], "axis": [1, 1, 0]},
        {"name": "d", "xyz": [0, 0.1, 0], "rotation": km.spatial.rotx(0.5)[:3, :3].tolist(), "axis": [0, 0, -1]}]


def test_link_frames_with_other_axes_keep_their_kinematics(tmp_path):
    frames = km.from_link_frames(AXES, name="frames", limits=[[-1, 1]] * 4, tool=km.spatial.trans(0, 0, 0.05))
    assert_same_robot(frames, km.load(km.save(frames, tmp_path / "frames.yaml")), link_frames=False)


def test_link_frames_with_other_axes_keep_their_frames(tmp_path):
    frames = km.from_link_frames(AXES, name="frames", limits=[[-1, 1]] * 4)
    again = km.load(km.save(frames, tmp_path / "frames.yaml"))
    q = np.array([0.3, -0.2, 0.5, 0.7])
    np.testing.assert_allclose(km.fk_frames(again, q), km.fk_frames(frames, q), atol=1e-10)


def test_extras_survive_a_round_trip(tmp_path):
    robot = km.load("arm-5dof")
    assert "notes" in robot.extras
    again = km.load(km.save(robot, tmp_path / "x.yaml"))
    assert again.extras["notes"] == robot.extras["notes"]


def test_joint_names_given_as_argument_round_trip():
    robot = km.from_dh([{"a": 1.0}, {"a": 2.0}], joint_names=["shoulder", "elbow"])
    assert read_text(write_text(robot)).joint_names == ("shoulder", "elbow")


def test_half_infinite_limits_round_trip():
    robot = km.from_dh([{"type": "prismatic"}, {"a": 1.0}], limits=[[0, np.inf], [-np.inf, 1.0]])
    np.testing.assert_array_equal(read_text(write_text(robot)).limits, robot.limits)


def test_small_and_large_numbers_keep_their_digits():
    # a small link in kg·m² and metres, and a long one in millimetres: relative, not absolute, precision
    robot = km.from_dh([{"a": 1.234567891234e-5, "d": 123456.789012345,
                         "inertial": km.Inertial.sphere(0.0123, 0.00123, com=[1.23456789e-7, 0, 0])}])
    again = read_text(write_text(robot))
    np.testing.assert_allclose(again.inertials[0].inertia, robot.inertials[0].inertia, rtol=1e-13)
    np.testing.assert_allclose(again.inertials[0].com, robot.inertials[0].com, rtol=1e-13)
    np.testing.assert_allclose(again.table.rows[0][3:5], [123456.789012345, 1.234567891234e-5], rtol=1e-14)


# --- load / save by name and path ----------------------------------------------------------------
def test_unknown_robot_name_suggests_close_names():
    with pytest.raises(ValueError, match="did you mean planar-3r"):
        km.load("planar3r")
    with pytest.raises(ValueError, match="kuka-kr6-r900"):
        km.load("kuka-kr6-r90")
    with pytest.raises(ValueError, match="no-such-robot") as e:
        km.load("no-such-robot")
    assert "arm-4dof" in str(e.value)  # lists the bundled robots when nothing is close


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.yaml"):
        km.load(tmp_path / "missing.yaml")
    with pytest.raises(FileNotFoundError):
        km.load(str(tmp_path / "missing.yml"))


def test_save_refuses_unknown_extension(tmp_path):
    with pytest.raises(ValueError, match=r"\.yaml"):
        km.save(km.load("arm-4dof"), tmp_path / "robot.txt")
    assert not (tmp_path / "robot.txt").exists()


# --- validation messages --------------------------------------------------------------------
GOOD = textwrap.dedent("""\
    name: test-arm
    kind: dh
    length_unit: m
    angle_unit: deg
    joints:
      - name: q1
        d: 0.3
        alpha: 90
        limits: [-170, 170]
      - name: q2
        a: 0.4
        inertial:
          mass: 2.0
          com: [-0.2, 0, 0]
          cylinder: {radius: 0.05, height: 0.4, axis: x}
    """)


def write(tmp_path: Path, text: str, name: str = "robot.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def load_error(tmp_path: Path, text: str) -> str:
    p = write(tmp_path, text)
    with pytest.raises(km.RobotFileError) as e:
        km.load(p)
    msg = str(e.value)
    assert str(p) in msg, msg  # the file is named
    return msg


def test_good_file_loads(tmp_path):
    r = km.load(write(tmp_path, GOOD))
    assert r.n == 2 and r.joint_names == ("q1", "q2")
    np.testing.assert_allclose(r.limits[0], np.radians([-170, 170]))
    assert r.inertials[0] is None and r.inertials[1].mass == 2.0
    np.testing.assert_allclose(km.fk(r, [0, 0])[:3, 3], [0.4, 0, 0.3], atol=1e-12)


def test_robot_file_error_is_a_value_error():
    assert issubclass(km.RobotFileError, ValueError)


def test_unknown_field_names_its_line_and_key(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("    alpha: 90", "    alpah: 90"))
    assert "line 8" in msg and "'alpah'" in msg and "unknown field" in msg
    assert "joints[0].alpah" in msg
    assert "alpha" in msg  # lists what is allowed


def test_unknown_top_level_field(tmp_path):
    msg = load_error(tmp_path, GOOD + "colour: red\n")
    assert "line 16" in msg and "'colour'" in msg


def test_wrong_type_names_its_line(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("    a: 0.4", "    a: long"))
    assert "line 11" in msg and "joints[1].a" in msg and "'long'" in msg and "number" in msg


def test_wrong_type_inside_inertial(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("mass: 2.0", "mass: heavy"))
    assert "line 13" in msg and "mass" in msg


def test_missing_joints(tmp_path):
    text = GOOD.split("joints:")[0]
    msg = load_error(tmp_path, text)
    assert "'joints' is a required property" in msg and "line 1" in msg


def test_bad_kind(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("kind: dh", "kind: denavit"))
    assert "line 2" in msg and "kind" in msg and "'denavit'" in msg and "mdh" in msg


def test_bad_length_unit(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("length_unit: m", "length_unit: cm"))
    assert "line 3" in msg and "length_unit" in msg and "'cm'" in msg


def test_limits_with_three_numbers(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("[-170, 170]", "[-170, 0, 170]"))
    assert "line 9" in msg and "joints[0].limits" in msg and "too long" in msg


def test_empty_file(tmp_path):
    msg = load_error(tmp_path, "")
    assert "empty" in msg
    assert "empty" in load_error(tmp_path, "# nothing but a comment\n")


def test_invalid_yaml_syntax_names_the_line(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("    alpha: 90", "    alpha: [90"))
    assert "not valid YAML" in msg
    assert re.search(r"line \d+", msg)
    msg = load_error(tmp_path, "name: x\nkind: dh\n  length_unit: m\n")
    assert "line 3" in msg and "not valid YAML" in msg


def test_negative_mass(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("mass: 2.0", "mass: -2.0"))
    assert "line 13" in msg and "mass" in msg and "minimum" in msg


def test_not_a_mapping(tmp_path):
    msg = load_error(tmp_path, "- 1\n- 2\n")
    assert "line 1" in msg and "object" in msg
    msg = load_error(tmp_path, GOOD.replace("  - name: q1", "  - 7\n  - name: q1"))
    assert "joints[0]" in msg and "line 6" in msg


FRAMES = textwrap.dedent("""\
    name: frames-arm
    kind: frames
    length_unit: m
    joints:
      - name: j1
        xyz: [0, 0, 0.3]
        rotation: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
      - name: j2
        xyz: [0.2, 0, 0]
    """)


def test_non_orthonormal_rotation_is_rejected(tmp_path):
    assert km.load(write(tmp_path, FRAMES)).n == 2
    msg = load_error(tmp_path, FRAMES.replace("[0, 1, 0], [0, 0, 1]]", "[0, 2, 0], [0, 0, 1]]"))
    assert ("joint 1" in msg or "joints[0]" in msg) and "rotation" in msg and "orthonormal" in msg, msg
    msg = load_error(tmp_path, GOOD + "base: {rotation: [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}\n")
    assert "base" in msg and ("rigid" in msg or "orthonormal" in msg), msg


@pytest.mark.parametrize("text, line", [
    pytest.param(FRAMES.replace("[0, 1, 0], [0, 0, 1]]", "[0, 2, 0], [0, 0, 1]]"), 7, id="rotation"),
    pytest.param("name: p\nkind: planar\nlength_unit: mm\njoints:\n  - {length: 20}\n  - {name: b}\n", 6,
                 id="planar-length"),
    pytest.param(GOOD.replace("[-170, 170]", "[170, -170]"), 9, id="limits"),
    pytest.param(GOOD.replace("angle_unit: deg", "angle_unit: deg\nhome: [0, 0, 0]"), 5, id="home"),
])
def test_semantic_errors_name_the_line(tmp_path, text, line):
    msg = load_error(tmp_path, text)
    assert f"line {line}" in msg, msg


def test_lower_limit_above_upper(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("[-170, 170]", "[170, -170]"))
    assert "lower" in msg and "upper" in msg and ("joint 1" in msg or "joints[0]" in msg), msg


def test_home_of_wrong_length(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("angle_unit: deg", "angle_unit: deg\nhome: [0, 0, 0]"))
    assert "home" in msg and re.search(r"\b2\b", msg) and re.search(r"\b3\b", msg), msg


def test_planar_joint_needs_length(tmp_path):
    msg = load_error(tmp_path, "name: p\nkind: planar\nlength_unit: mm\njoints:\n  - {length: 20}\n  - {name: b}\n")
    assert ("joint 2" in msg or "joints[1]" in msg) and "length" in msg, msg


def test_python_tags_are_a_robot_file_error(tmp_path):
    load_error(tmp_path, GOOD.replace("name: test-arm", "name: !!python/name:os.system"))


def test_exponent_without_dot_is_a_number(tmp_path):
    r = km.load(write(tmp_path, GOOD.replace("a: 0.4", "a: 4e-1")))
    np.testing.assert_allclose(km.fk(r, [0, 0])[0, 3], 0.4)


@pytest.mark.parametrize("text, key, first, again", [
    (GOOD.replace("    alpha: 90\n", "    alpha: 90\n    alpha: 45\n"), "alpha", 8, 9),  # in a joint
    (GOOD.replace("length_unit: m\n", "length_unit: m\nlength_unit: mm\n"), "length_unit", 3, 4),
    (GOOD.replace("{radius: 0.05, height: 0.4, axis: x}", "{radius: 0.05, height: 0.4, radius: 1}"),
     "radius", 15, 15),  # a flow mapping
    (GOOD + "name: other\n", "name", 1, 16),
], ids=["joint", "top", "flow", "far"])
def test_duplicate_keys_are_refused_with_both_lines(tmp_path, text, key, first, again):
    msg = load_error(tmp_path, text)
    assert f"line {again}: key {key!r} appears twice" in msg and f"first at line {first}" in msg, msg


def test_merge_keys_may_still_override(tmp_path):
    text = GOOD.replace("  - name: q2\n    a: 0.4\n", "  - &second\n    name: q2\n    a: 0.4\n")
    r = km.load(write(tmp_path, text))
    assert r.joint_names == ("q1", "q2")
    merged = text.replace("    d: 0.3\n", "    <<: {d: 0.1, a: 0.5}\n    d: 0.3\n")
    assert km.fk(km.load(write(tmp_path, merged)), [0, 0])[0, 3] == pytest.approx(0.9)
