"""Fuzz: YAML robot files — random bytes, mutated bundled robots, damaged text.

Every input is written to a file and opened the way a user opens one (`km.load(path)`): it must
give a RobotFileError / ValueError with a message, or a robot that passes
`fuzzing.assert_sound_robot` (finite FK, Jacobian and gravity torques; writes back unchanged).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

import kinematica as km
from kinematica.model.robotfile import read_text, robot_to_dict, write_text

from fuzzing import assert_sound_robot, bounded, fuzz_settings, mutated_text, mutated_tree

NAMES = km.robot_names()
BUNDLED_TEXT = {n: (Path(km.__file__).parent / "model" / "robots" / f"{n}.yaml").read_text(encoding="utf-8")
                for n in NAMES}
BUNDLED_DICT = {n: yaml.safe_load(t) for n, t in BUNDLED_TEXT.items()}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz-robot-files")


def open_robot_file(folder: Path, data: bytes, suffix: str = ".yaml") -> None:
    """Load `data` as a robot file: a clear error or a sound robot, nothing else."""
    path = folder / f"fuzzed{suffix}"
    path.write_bytes(data)
    what = f"robot file {data[:300]!r}{'...' if len(data) > 300 else ''}"
    with bounded(what):
        try:
            robot = km.load(path)
        except ValueError as e:  # RobotFileError is one
            assert str(e).strip(), f"{what}: {type(e).__name__} with an empty message"
            return
    assert_sound_robot(robot, what)


@fuzz_settings(2)
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".yaml", ".yml", ".urdf"]))
@example(data=b"\xff\xfe\x00garbage", suffix=".yaml")
@example(data=b"", suffix=".yaml")
@example(data=b"[1, 2, 3]", suffix=".yaml")
@example(data=b"name: x\nname: y\nkind: dh\nlength_unit: m\njoints: [{a: 1}]\n", suffix=".yaml")
@example(data=b"name: x\nkind: dh\nlength_unit: m\njoints:\n- {d: 1.0e+308, inertial: {mass: 1, "
             b"com: [0, 0, 0], inertia: [1, 1, 1, 0, 0, 0]}}\n", suffix=".yaml").via("torques overflowed")
@example(data=b"name: x\nkind: dh\nlength_unit: m\nangle_unit: deg\njoints:\n- {theta: 1.7976931348623151e+308}\n",
         suffix=".yaml").via("15 digits of the largest float round up to inf on writing")
def test_random_bytes(folder, data, suffix):
    open_robot_file(folder, data, suffix)


@fuzz_settings(3)
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_mutated_bundled_robot(folder, data, name):
    """A bundled robot's file with fields deleted, duplicated, renamed, or set to NaN, inf, 1e308,
    negative numbers, strings, lists — dumped back to YAML."""
    tree = data.draw(mutated_tree(BUNDLED_DICT[name]))
    open_robot_file(folder, yaml.safe_dump(tree, allow_unicode=True, sort_keys=False).encode("utf-8"))


@fuzz_settings(2)
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_damaged_text(folder, data, name):
    """A bundled robot's text truncated, with spans deleted, repeated (duplicate keys) or spliced."""
    open_robot_file(folder, data.draw(mutated_text(BUNDLED_TEXT[name])).encode("utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_duplicate_key_is_refused(folder, name):
    """A key given twice (the damage `test_damaged_text` makes most often) is an error naming
    the key, not 'the last one wins'."""
    text = BUNDLED_TEXT[name].replace("\nlength_unit:", "\nlength_unit: m\nlength_unit:", 1)
    path = folder / "duplicate.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="length_unit"):
        km.load(path)


@fuzz_settings(1)
@given(robot=st.sampled_from(NAMES).map(km.load), data=st.data())
def test_every_written_robot_reads_back(folder, robot, data):
    """The writer's own output, with one number replaced by a hostile one, is read or refused."""
    tree = robot_to_dict(robot)
    open_robot_file(folder, yaml.safe_dump(data.draw(mutated_tree(tree, 1)), allow_unicode=True).encode())


@fuzz_settings(1)
@given(names=st.lists(st.sampled_from(["1e3", "1e+308", ".inf", "-.5", "yes", "null", "~", "0x1F", "1_000"])
                      | st.text(min_size=1, max_size=12), min_size=6, max_size=6, unique=True))
@example(names=["1e3", "1e+308", ".inf", "yes", "null", "1.5"]).via("names YAML 1.2 reads as numbers")
@example(names=["\x85", "a\u2028b", "\u2029", " ", "x\ty", "\x07"]).via("line breaks YAML folds")
def test_any_joint_name_writes_back(names):
    """Whatever the joint names, the robot file written for a robot reads back with them."""
    robot = km.load("puma560").replace(joint_names=tuple(names))
    with bounded(f"joint names {names!r}"):
        assert read_text(write_text(robot)).joint_names == tuple(names)
