"""Fuzz: URDF — the bundled robots exported with `km.to_urdf` (and a small tree with fixed, mimic
and continuous joints), then damaged: elements deleted, duplicated or renamed, attributes deleted,
renamed or set to NaN, inf, 1e308, negative numbers, strings or the wrong count of numbers,
and the text truncated.

Each must give a RobotFileError / ValueError with a message, or a robot that passes
`fuzzing.assert_sound_robot` and survives export and import again with the same pose.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from lxml import etree

import kinematica as km

from fuzzing import assert_sound_robot, bounded, fuzz_settings, mutated_text, reference_q

TREE = """<?xml version="1.0"?>
<robot name="tree">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.2" rpy="0 0.1 0"/><mass value="2"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/></inertial></link>
  <link name="fore"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.005"/></inertial></link>
  <link name="flange"><inertial><origin xyz="0 0 0.05"/><mass value="0.3"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <link name="finger_l"/><link name="finger_r"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2.9" upper="2.9" effort="10" velocity="2"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.4" rpy="0 1.5707963 0"/><axis xyz="0 1 0"/></joint>
  <joint name="slide" type="prismatic"><parent link="fore"/><child link="flange"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/><limit lower="0" upper="0.2" effort="5" velocity="1"/></joint>
  <joint name="grip_l" type="prismatic"><parent link="flange"/><child link="finger_l"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/></joint>
  <joint name="grip_r" type="prismatic"><parent link="flange"/><child link="finger_r"/>
    <axis xyz="0 -1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/>
    <mimic joint="grip_l" multiplier="1" offset="0"/></joint>
</robot>
"""
SOURCES = {name: km.to_urdf(km.load(name)) for name in km.robot_names()} | {"tree": TREE}
TAGS = ["robot", "link", "joint", "origin", "axis", "limit", "inertial", "mass", "inertia", "parent",
        "child", "mimic", "visual", "material", "gazebo", "transmission"]
VALUES = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e400", "-1", "0", "abc", "", " ",
          "1 2", "0 0 0", "1 2 3 4", "0 0 0 0 0 0", "fixed", "floating", "planar", "revolute",
          "continuous", "prismatic", "base_link", "tool0", "base", "upper", "link1", "&amp;", "é"]
XML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=10)


@st.composite
def damaged_urdf(draw) -> str:
    """One source URDF with 1-3 damages to its element tree, or its text cut or spliced."""
    name = draw(st.sampled_from(sorted(SOURCES)))
    if draw(st.integers(0, 4)) == 0:
        return draw(mutated_text(SOURCES[name]))
    root = etree.fromstring(SOURCES[name].encode())
    for _ in range(draw(st.integers(1, 3))):
        elements = [el for el in root.iter() if isinstance(el.tag, str)]
        el = draw(st.sampled_from(elements))
        op = draw(st.sampled_from(["delete", "duplicate", "rename", "drop-attr", "rename-attr",
                                   "set-attr", "set-number"]))
        attrs = sorted(el.attrib)
        if op == "delete" and el.getparent() is not None:
            el.getparent().remove(el)
        elif op == "duplicate" and el.getparent() is not None:
            el.addnext(etree.fromstring(etree.tostring(el)))
        elif op == "rename":
            el.tag = draw(st.sampled_from(TAGS))
        elif op == "drop-attr" and attrs:
            del el.attrib[draw(st.sampled_from(attrs))]
        elif op == "rename-attr" and attrs:
            key = draw(st.sampled_from(attrs))
            value = el.attrib.pop(key)
            el.set(draw(st.sampled_from(["name", "type", "xyz", "rpy", "value", "lower", "upper",
                                         "link", "joint", key + "_"])), value)
        elif op == "set-attr" and attrs:
            el.set(draw(st.sampled_from(attrs)), draw(st.sampled_from(VALUES) | XML_TEXT))
        elif op == "set-number" and attrs:
            key = draw(st.sampled_from(attrs))
            count = max(1, len(el.get(key).split()))
            numbers = draw(st.lists(st.floats() | st.sampled_from([1e308, -1e308, 5e-324, 1e20]),
                                    min_size=count, max_size=count))
            el.set(key, " ".join(repr(x) for x in numbers))
    declaration = draw(st.sampled_from(['<?xml version="1.0"?>\n', '<?xml version="1.0" encoding="utf-8"?>\n', ""]))
    return declaration + etree.tostring(root, encoding="unicode")


def open_urdf(text: str | bytes) -> None:
    """Read `text` as URDF: a clear error, or a sound robot that exports and imports unchanged."""
    what = f"URDF {text[:200]!r}{'...' if len(text) > 200 else ''}"
    with bounded(what):
        try:
            robot = km.from_urdf(text)
        except ValueError as e:  # RobotFileError, RobotError
            assert str(e).strip(), f"{what}: {type(e).__name__} with an empty message"
            return
        assert_sound_robot(robot, what)
        again = km.from_urdf(km.to_urdf(robot))
        q = reference_q(robot)
        T = km.fk(robot, q)
        # to_urdf writes shortest round-trip decimals; what is left is the rpy <-> matrix
        # conversion, ~1e-15 relative per joint: 1e-9 of the pose's size is loose and still
        # catches a wrong frame.
        assert np.allclose(km.fk(again, q), T, rtol=0, atol=1e-9 * (1 + np.abs(T).max())), \
            f"{what}: exported to URDF and read back, it is a different robot"


@fuzz_settings(4)
@given(text=damaged_urdf())
@example(text=SOURCES["tree"].replace('version="1.0"', 'version="0.0"'))
@example(text=SOURCES["puma560"].replace("<limit", "<nolimit"))
@example(text='<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
              '<parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint></robot>')
@example(text='<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
              '<parent link="a"/><child link="b"/><origin xyz="1e308 1e308 0"/></joint></robot>')
@example(text='<robot name="r"><link name="a"/><link name="b"/><joint name="1e+308" type="continuous">'
              '<parent link="a"/><child link="b"/></joint></robot>').via("a name that reads as a number")
def test_damaged_urdf(text):
    open_urdf(text)


@fuzz_settings(1)
@given(data=st.binary(max_size=500))
@example(data=b"\x00")
@example(data=b"hello")
@example(data=b"<robot/>")
def test_random_bytes(data):
    open_urdf(data)  # bytes are always content (a str without '<' is taken for a file name)


def test_xml_version_zero_reads_like_one():
    """26 of pybullet_data's URDFs begin <?xml version="0.0"?>; Pinocchio reads them, so must we."""
    text = SOURCES["puma560"]
    q = reference_q(km.load("puma560"))
    T = km.fk(km.from_urdf(text), q)
    again = km.from_urdf(text.replace('version="1.0"', 'version="0.0"', 1))
    assert np.allclose(km.fk(again, q), T, rtol=0, atol=1e-12)


def test_a_link_without_inertial_is_massless_not_the_end_of_dynamics():
    """URDF allows a link without <inertial> (massless): the other links' dynamics still work."""
    root = etree.fromstring(SOURCES["puma560"].encode())
    link = next(el for el in root.iter("link") if el.find("inertial") is not None)
    link.remove(link.find("inertial"))
    robot = km.from_urdf(etree.tostring(root))
    assert np.all(np.isfinite(km.gravity_torques(robot, reference_q(robot))))
