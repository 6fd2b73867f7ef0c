"""URDF import and export: round trips of every bundled robot, a hand-written URDF against
Pinocchio's own URDF parser, chain selection in trees, bodies off the chain held (against
Pinocchio's reduced model, also on random trees), warnings, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from lxml import etree
from strategies import FAST, dh_robots

import kinematica as km
from kinematica import spatial

RNG_SEED = 20240611


def sample_q(robot: km.Robot, count: int, seed: int = RNG_SEED) -> np.ndarray:
    """Random configurations inside the limits (±π rad or ±1 unit where a limit is infinite)."""
    lo, hi = robot.limits[:, 0].copy(), robot.limits[:, 1].copy()
    wide = np.where(robot.revolute, np.pi, 1.0)
    lo, hi = np.where(np.isinf(lo), -wide, lo), np.where(np.isinf(hi), wide, hi)
    return lo + np.random.default_rng(seed).random((count, robot.n)) * (hi - lo)


def size(robot: km.Robot) -> float:
    """A length scale of the robot (in its own unit) for relative tolerances."""
    slides = robot.limits[~robot.revolute]
    return 1.0 + float(np.linalg.norm(robot.C[:, :3, 3], axis=-1).sum()) + float(
        np.abs(slides[np.isfinite(slides)]).sum())


def world_inertials(robot: km.Robot, q: np.ndarray) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """(mass, COM, inertia about the COM) of every link in base coordinates at q."""
    F = km.fk_frames(robot, q)
    out = []
    for i in range(robot.n):
        inert = None if robot.inertials is None else robot.inertials[i]
        if inert is None:
            out.append((0.0, np.zeros(3), np.zeros((3, 3))))
            continue
        R, p = F[i + 1, :3, :3], F[i + 1, :3, 3]
        out.append((inert.mass, R @ inert.com + p, R @ inert.inertia @ R.T))
    return out


def pin_model(xml: str) -> tuple[pin.Model, pin.Data]:
    model = pin.buildModelFromXML(xml)
    return model, model.createData()


def pin_frames(model: pin.Model, data: pin.Data, robot: km.Robot, q: np.ndarray,
               frames: list[str]) -> list[np.ndarray]:
    """Pinocchio's placements of the named link (body) frames at the Robot's configuration q."""
    qp = pin.neutral(model)
    for name, v in zip(robot.joint_names, q):
        j = model.joints[model.getJointId(name)]
        qp[j.idx_q:j.idx_q + j.nq] = [np.cos(v), np.sin(v)] if j.nq == 2 else [v]  # continuous: cos, sin
    pin.framesForwardKinematics(model, data, qp)
    return [data.oMf[model.getFrameId(f, pin.BODY)].homogeneous for f in frames]


# --- round trips -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", km.robot_names())
def test_bundled_robot_round_trip(name, tmp_path):
    robot = km.load(name)
    path = km.save(robot, tmp_path / f"{name}.urdf")
    back = km.from_urdf(path, length_unit=robot.length_unit)
    q = sample_q(robot, 40)
    tol = 1e-12 * size(robot)
    np.testing.assert_allclose(km.fk(back, q), km.fk(robot, q), rtol=0, atol=tol)
    assert back.name == robot.name and back.length_unit == robot.length_unit
    assert back.joint_names == robot.joint_names and back.joint_types == robot.joint_types
    assert back.link_names == (robot.link_names or tuple(f"link{i + 1}" for i in range(robot.n)))
    np.testing.assert_allclose(back.limits, robot.limits, rtol=1e-14, atol=0)
    assert back.table.kind == "frames"
    # Inertials: same bodies in space (the URDF link frame may be the joint frame, not the DH one).
    assert (back.inertials is None) == (robot.inertials is None)
    if robot.inertials is not None:
        for qi in q[:5]:
            for (m0, c0, I0), (m1, c1, I1) in zip(world_inertials(robot, qi), world_inertials(back, qi)):
                assert m1 == pytest.approx(m0, rel=1e-14)
                np.testing.assert_allclose(c1, c0, rtol=0, atol=tol)
                np.testing.assert_allclose(I1, I0, rtol=0, atol=1e-12 * max(1.0, np.abs(I0).max()))
    # The file is valid for urdfdom too: Pinocchio gives the same tool pose, in metres.
    model, data = pin_model(path.read_text(encoding="utf-8"))
    s = 1e-3 if robot.length_unit == "mm" else 1.0
    for qi in q[:5]:
        T = km.fk(robot, qi)
        T[:3, 3] *= s
        np.testing.assert_allclose(pin_frames(model, data, robot, qi, ["tool0"])[0], T, atol=tol * s)


def test_mm_robot_is_written_in_metres_and_says_so(tmp_path):
    mm = [n for n in km.robot_names() if km.load(n).length_unit == "mm"]
    robot = km.load(mm[0])
    path = km.save(robot, tmp_path / "arm.urdf")
    text = path.read_text(encoding="utf-8")
    assert "length unit is mm" in text and "length_unit='mm'" in text
    in_m = km.load(path)  # URDF is metres unless told otherwise
    assert in_m.length_unit == "m"
    q = sample_q(robot, 10)
    np.testing.assert_allclose(km.fk(in_m, q)[..., :3, 3] * 1000, km.fk(robot, q)[..., :3, 3],
                               atol=1e-12 * size(robot))


def test_round_trip_with_base_offsets_prismatic_and_clashing_names():
    rows = [{"name": "a", "theta": 0.3, "d": 0.2, "a": 0.1, "alpha": 1.2, "limits": [-1, 2]},
            {"name": "b", "type": "prismatic", "theta": -0.7, "d": 0.05, "a": 0.3, "alpha": -0.4},
            {"name": "c", "theta": 1.0, "d": -0.1, "a": 0.0, "alpha": 0.5, "limits": [-np.inf, 1.5]},
            {"name": "d", "type": "prismatic", "theta": 0.2, "d": 0.4, "a": 0.0, "alpha": 0.3,
             "limits": [0.0, 0.3]}]
    base = spatial.homogeneous(spatial.rpy_to_matrix([0.1, -0.2, 0.3]), [1, 2, 3])
    tool = spatial.homogeneous(spatial.rpy_to_matrix([0.4, 0.5, -0.6]), [0.1, 0, 0.2])
    for build in (km.from_dh, km.from_mdh):
        robot = build(rows, base=base, tool=tool, meta={"link_names": ("base_link", "tool0", "world", "x")})
        text = km.to_urdf(robot)
        root = etree.fromstring(text.encode())
        assert [el.get("name") for el in root.findall("link")] == [
            "world_2", "base_link_2", "base_link", "tool0", "world", "x", "tool0_2"]
        assert root.find("joint[@name='b']/limit").get("upper") == "1.7976931348623157e+308"
        back = km.from_urdf(text)
        np.testing.assert_allclose(back.base, base, atol=1e-15)
        q = sample_q(robot, 30)
        np.testing.assert_allclose(km.fk(back, q), km.fk(robot, q), atol=1e-12 * size(robot))
        np.testing.assert_array_equal(back.limits, robot.limits)
        assert back.link_names == robot.link_names


def test_unlimited_revolute_joint_is_continuous():
    robot = km.from_dh([{"a": 0.5}, {"a": 0.3, "limits": [-1, 1]}])
    root = etree.fromstring(km.to_urdf(robot).encode())
    assert [j.get("type") for j in root.findall("joint")] == ["continuous", "revolute", "fixed"]
    assert root.find("joint[@name='q1']/limit") is None


@FAST
@given(dh_robots())
def test_random_dh_robots_round_trip(robot):
    back = km.from_urdf(km.to_urdf(robot))
    q = sample_q(robot, 8)
    np.testing.assert_allclose(km.fk(back, q), km.fk(robot, q), atol=1e-12 * size(robot))
    np.testing.assert_allclose(back.limits, robot.limits, rtol=1e-15)


# --- a hand-written URDF against Pinocchio -------------------------------------------------------
def inertial(mass, xyz, rpy, ixx, ixy, ixz, iyy, iyz, izz):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial>')


HANDMADE = f"""<?xml version="1.0"?>
<robot name="handmade">
  <!-- a comment -->
  <link name="world"/>
  <link name="base_link">{inertial(5, "0 0 0.1", "0 0 0", 1, 0, 0, 1, 0, 1)}</link>
  <link name="link1">{inertial(2.0, "0.01 0.02 0.15", "0.3 -0.2 0.1", 0.02, 0.001, -0.002, 0.03, 0.003, 0.01)}</link>
  <link name="flange1">{inertial(0.5, "0 0 0.02", "0 0 0", 0.001, 0, 0, 0.001, 0, 0.002)}</link>
  <link name="link2">{inertial(1.5, "0.2 0 0", "0 1.5707963267948966 0", 0.001, 0, 0, 0.02, 0, 0.02)}</link>
  <link name="camera">{inertial(0.3, "0.01 0 0", "0.5 0 0", 0.0004, 0, 0, 0.0002, 0, 0.0003)}</link>
  <link name="link3"/>
  <link name="link4">{inertial(0.8, "0 0 -0.05", "0 0 0", 0.004, 0, 0.0001, 0.004, 0, 0.001)}</link>
  <link name="link5">{inertial(0.4, "0.01 0.01 0.03", "0.1 0.2 0.3", 0.001, 0, 0, 0.002, 0, 0.0015)}</link>
  <link name="tcp"/>
  <joint name="world_fixed" type="fixed"><parent link="world"/><child link="base_link"/>
    <origin xyz="0.1 -0.2 0.3" rpy="0.1 0.2 0.3"/></joint>
  <joint name="j1" type="revolute"><parent link="base_link"/><child link="link1"/>
    <origin xyz="0 0 0.3" rpy="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="-2.9" upper="2.9" effort="87" velocity="2.175"/></joint>
  <joint name="flange" type="fixed"><parent link="link1"/><child link="flange1"/>
    <origin xyz="0.05 0 0.1" rpy="1.5707963267948966 0 0"/></joint>
  <joint name="j2" type="revolute"><parent link="flange1"/><child link="link2"/>
    <origin xyz="0 0.1 0" rpy="-0.4 0.3 0.2"/><axis xyz="0 -1 0"/>
    <limit lower="-1.5" upper="2.0" effort="87" velocity="2.175"/></joint>
  <joint name="cam" type="fixed"><parent link="link2"/><child link="camera"/>
    <origin xyz="0.02 0.03 0.04" rpy="0 0.5 0"/></joint>
  <joint name="j3" type="continuous"><parent link="link2"/><child link="link3"/>
    <origin xyz="0.4 0 0" rpy="0.3 1.5707963267948966 -0.2"/></joint>
  <joint name="j4" type="prismatic"><parent link="link3"/><child link="link4"/>
    <origin xyz="0 0 0.1"/><axis xyz="0.6 0 -0.8"/>
    <limit lower="0" upper="0.25" effort="100" velocity="0.5"/></joint>
  <joint name="j5" type="revolute"><parent link="link4"/><child link="link5"/>
    <origin xyz="0.05 0.05 0" rpy="0 0 -1.2"/><axis xyz="0 0.6 0.8"/>
    <limit lower="-3" upper="3" effort="12" velocity="2.6"/></joint>
  <joint name="tool" type="fixed"><parent link="link5"/><child link="tcp"/>
    <origin xyz="0 0 0.12" rpy="3.141592653589793 0 0"/></joint>
</robot>
"""
LINKS = ["link1", "link2", "link3", "link4", "link5"]


def test_handmade_urdf_matches_pinocchio():
    robot = km.from_urdf(HANDMADE)
    assert robot.joint_names == ("j1", "j2", "j3", "j4", "j5")
    assert robot.joint_types == ("revolute",) * 3 + ("prismatic", "revolute")
    assert robot.link_names == tuple(LINKS)
    np.testing.assert_array_equal(robot.limits, [[-2.9, 2.9], [-1.5, 2.0], [-np.inf, np.inf],
                                                 [0, 0.25], [-3, 3]])
    assert robot.table.kind == "frames"
    assert robot.extras["urdf"]["effort"] == (87, 87, None, 100, 12)
    model, data = pin_model(HANDMADE)
    for q in sample_q(robot, 25):
        F = km.fk_frames(robot, q)
        P = pin_frames(model, data, robot, q, ["base_link", *LINKS, "tcp"])
        np.testing.assert_allclose(F, np.stack(P), rtol=0, atol=1e-12)
        np.testing.assert_allclose(km.fk(robot, q), P[-1], rtol=0, atol=1e-12)


def test_handmade_inertials_match_pinocchio():
    """Folded fixed links (flange on link1, a side-branch camera on link2) combine as Pinocchio
    combines them; the base link's own mass is not part of any moving link."""
    robot = km.from_urdf(HANDMADE)
    model, _ = pin_model(HANDMADE)
    for name, inert in zip(robot.joint_names, robot.inertials):
        ref = model.inertias[model.getJointId(name)]
        if inert is None:
            assert ref.mass == 0
            continue
        assert inert.mass == pytest.approx(ref.mass, rel=1e-15)
        np.testing.assert_allclose(inert.com, ref.lever, rtol=0, atol=1e-15)
        np.testing.assert_allclose(inert.inertia, ref.inertia, rtol=0, atol=1e-15)
    assert robot.inertials[0].mass == pytest.approx(2.5) and robot.inertials[1].mass == pytest.approx(1.8)


def test_handmade_in_millimetres():
    m, mm = km.from_urdf(HANDMADE), km.from_urdf(HANDMADE, length_unit="mm")
    q_m, q_mm = sample_q(m, 10), sample_q(m, 10) * np.where(m.revolute, 1.0, 1000.0)
    np.testing.assert_allclose(km.fk(mm, q_mm)[..., :3, 3], km.fk(m, q_m)[..., :3, 3] * 1000, atol=1e-9)
    np.testing.assert_allclose(mm.limits[3], [0, 250])
    np.testing.assert_allclose(mm.inertials[1].com, m.inertials[1].com * 1000, atol=1e-12)
    np.testing.assert_allclose(mm.inertials[1].inertia, m.inertials[1].inertia * 1e6, atol=1e-9)
    back = km.from_urdf(km.to_urdf(mm), length_unit="mm")
    np.testing.assert_allclose(km.fk(back, q_mm), km.fk(mm, q_mm), atol=1e-12 * size(mm))


def test_text_bytes_and_path_read_the_same(tmp_path):
    path = tmp_path / "handmade.urdf"
    path.write_text(HANDMADE, encoding="utf-8")
    robots = [km.from_urdf(HANDMADE), km.from_urdf(HANDMADE.encode()), km.from_urdf(path),
              km.from_urdf(str(path)), km.load(path)]
    q = sample_q(robots[0], 5)
    for r in robots[1:]:
        np.testing.assert_array_equal(km.fk(r, q), km.fk(robots[0], q))
    assert str(path) in robots[2].description
    assert km.from_urdf(HANDMADE, name="other").name == "other"


# --- trees: which chain ------------------------------------------------------------------------
def tree(extra: str = "", fingers: bool = True, mimic: bool = True) -> str:
    """A Panda-like arm: three revolute joints, a hand, a TCP and (optionally) two fingers."""
    links = ["l0", "l1", "l2", "l3", "hand", "tcp", "left", "right", "cam"]
    j = [("j1", "revolute", "l0", "l1"), ("j2", "revolute", "l1", "l2"), ("j3", "revolute", "l2", "l3"),
         ("hand_joint", "fixed", "l3", "hand"), ("tcp_joint", "fixed", "hand", "tcp"),
         ("cam_joint", "fixed", "l0", "cam")]
    if fingers:
        j += [("f1", "prismatic", "hand", "left"), ("f2", "prismatic", "hand", "right")]
    body = "".join(f'<link name="{n}"/>' for n in links)
    for name, kind, parent, child in j:
        m = '<mimic joint="f1"/>' if name == "f2" and mimic else ""
        body += (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                 f'<origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>{m}'
                 f'<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')
    return f'<robot name="tree">{body}{extra}</robot>'


def test_gripper_branch_is_not_part_of_the_arm():
    robot = km.from_urdf(tree())
    assert robot.joint_names == ("j1", "j2", "j3")
    np.testing.assert_allclose(robot.tool[:3, 3], [0, 0, 0.2])  # on through hand to the TCP
    assert km.from_urdf(tree(), tip="left").joint_names == ("j1", "j2", "j3", "f1")
    assert km.from_urdf(tree(), tip="l2").joint_names == ("j1", "j2")
    with pytest.raises(km.RobotFileError, match="'f2' mimics 'f1'"):
        km.from_urdf(tree(), tip="right")


def test_two_equal_branches_are_ambiguous():
    with pytest.raises(km.RobotFileError, match=r"branches into 2 chains.*'left'.*'right'.*tip="):
        km.from_urdf(tree(mimic=False))
    assert km.from_urdf(tree(mimic=False), tip="right").joint_names == ("j1", "j2", "j3", "f2")


# --- bad input ---------------------------------------------------------------------------------
def chain(joint: str, links: str = '<link name="a"/><link name="b"/>') -> str:
    return f'<robot name="r">{links}{joint}</robot>'


def joint(kind: str, inner: str = "", name: str = "j") -> str:
    return f'<joint name="{name}" type="{kind}"><parent link="a"/><child link="b"/>{inner}</joint>'


@pytest.mark.parametrize("text, match", [
    ('<robot name="r"><link name="a"></robot>', r"malformed XML at line 1: Opening and ending tag mismatch"),
    ("", r"malformed XML"),
    ('<?xml version="1.0"?>\n<robot name="r">\n  <link name="a"/>\n  <oops>\n</robot>', r"line 5"),
    (chain(joint("fixed")), r"no movable joint"),
    ('<robot name="r"><link name="a"/></robot>', r"no movable joint"),
    (chain(joint("floating")), r"joint 'j' is floating: only revolute, continuous, prismatic and fixed"),
    (chain(joint("planar")), r"joint 'j' is planar"),
    (chain(joint("revolute", '<mimic joint="j"/>')), r"no movable joint .* other than mimic joints"),
    ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>'
     '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/></joint>'
     '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><mimic joint="j1"/></joint>'
     '<joint name="j3" type="revolute"><parent link="c"/><child link="d"/></joint></robot>',
     r"joint 'j2' mimics 'j1': mimic \(coupled\) joints are not supported"),
    (chain(joint("hinge")), r"line 1: <joint>: joint 'j': type 'hinge' unknown"),
    (chain(joint("revolute", '<origin xyz="1 2"/>')), r"<origin>: xyz='1 2' must be 3 finite numbers"),
    (chain(joint("revolute", '<origin rpy="0 nan 0"/>')), r"rpy='0 nan 0' must be 3 finite numbers"),
    (chain(joint("revolute", '<axis xyz="0 0 0"/>')), r"joint 'j': axis must be a non-zero vector"),
    (chain(joint("revolute", '<limit lower="1" upper="-1" effort="1" velocity="1"/>')),
     r"lower 1.0 > upper -1.0"),
    (chain(joint("revolute"), '<link name="a"/>'), r"child link 'b' is not defined"),
    (chain(joint("revolute") + joint("revolute", name="k")), r"link 'b' has two parent joints"),
    (chain(joint("revolute", name="j") + joint("fixed", name="j")), r"joint name 'j' used twice"),
    (chain(joint("revolute"), '<link name="a"/><link name="a"/>'), r"link name 'a' used twice"),
    (chain(joint("revolute"), '<link name="a"/><link name="b"><inertial><mass value="1"/></inertial></link>'),
     r"link 'b': <inertia> needs ixx"),
    (chain(joint("revolute"), '<link name="a"/><link name="b"/><link name="c"/>'), r"2 roots \(a, c\)"),
    (chain(joint("revolute") + '<joint name="k" type="fixed"><parent link="c"/><child link="d"/></joint>'
           '<joint name="m" type="fixed"><parent link="d"/><child link="c"/></joint>',
           '<link name="a"/><link name="b"/><link name="c"/><link name="d"/>'), r"links c, d form a cycle"),
    ('<robot><link name="a"/></robot>', r"the robot has no name"),
    ('<model name="r"/>', r"root element is <model>, expected <robot>"),
    ('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:property name="x" value="1"/></robot>',
     r"xacro file"),
    ('<!DOCTYPE r [<!ENTITY e "x">]><robot name="&e;"/>', r"DOCTYPE"),
])
def test_bad_urdf_raises_a_clear_error(text, match):
    with pytest.raises(km.RobotFileError, match=match) as info:
        km.from_urdf(text, where="bad.urdf")
    assert str(info.value).startswith("bad.urdf: ")


def test_unknown_tip_suggests_close_names():
    with pytest.raises(km.RobotFileError, match=r"tip link 'tpc' not found; did you mean tcp"):
        km.from_urdf(tree(), tip="tpc")
    with pytest.raises(km.RobotFileError, match=r"no movable joint between the root link and tip 'l0'"):
        km.from_urdf(tree(), tip="l0")


def test_missing_file_and_bad_unit(tmp_path):
    with pytest.raises(FileNotFoundError, match="URDF file not found"):
        km.from_urdf(tmp_path / "nope.urdf")
    with pytest.raises(FileNotFoundError):
        km.load(tmp_path / "nope.urdf")
    with pytest.raises(km.RobotError, match="length unit 'cm' unknown"):
        km.from_urdf(HANDMADE, length_unit="cm")


def test_urdf_frames_survive_export_unchanged():
    """For a URDF robot, export keeps the link frames: origins, axes and inertials come back as
    they were (not merely the same end pose)."""
    robot = km.from_urdf(HANDMADE)
    back = km.from_urdf(km.to_urdf(robot))
    q = sample_q(robot, 10)
    np.testing.assert_allclose(km.fk_frames(back, q)[..., 1:-1, :, :], km.fk_frames(robot, q)[..., 1:-1, :, :],
                               atol=1e-14)
    for a, b in zip(robot.table.as_dicts(), back.table.as_dicts()):
        np.testing.assert_allclose(b["xyz"], a["xyz"], atol=1e-15)
        np.testing.assert_allclose(spatial.rpy_to_matrix(b["rpy"]), spatial.rpy_to_matrix(a["rpy"]),
                                   atol=1e-15)
        np.testing.assert_allclose(b["axis"], np.asarray(a["axis"]) / np.linalg.norm(a["axis"]), atol=1e-15)
    for a, b in zip(robot.inertials, back.inertials):
        if a is None:
            assert b is None
            continue
        assert b.mass == a.mass
        np.testing.assert_allclose(b.com, a.com, atol=1e-15)
        np.testing.assert_allclose(b.inertia, a.inertia, atol=1e-15)
    assert back.extras["urdf"] == robot.extras["urdf"]


# --- trees: bodies off the chain, held -------------------------------------------------------
def heavy_tree() -> str:
    """An arm j1–j3 to a TCP, a hand with two fingers (f2 mimics f1 at 2·f1 + 0.01; f1 in
    [0.02, 0.04] m, so 0 is not within its limits), and a second arm k1–k2 on link l1 (k2 in
    [0.3, 2] rad): every link has mass, so the held bodies matter."""
    inert = [(1.0 + 0.1 * i, f"{0.01 * i} 0.02 {0.05 + 0.01 * i}", f"{0.1 * i} 0.2 0") for i in range(11)]
    links = ["l0", "l1", "l2", "l3", "hand", "tcp", "left", "right", "a1", "a2", "a3"]
    body = "".join(f'<link name="{n}">{inertial(m, xyz, rpy, 0.01, 0.001, 0, 0.02, 0, 0.015)}</link>'
                   for n, (m, xyz, rpy) in zip(links, inert))
    joints = [("j1", "revolute", "l0", "l1", "0 0 1"), ("j2", "revolute", "l1", "l2", "0 1 0"),
              ("j3", "continuous", "l2", "l3", "1 0 0"), ("hand_joint", "fixed", "l3", "hand", "0 0 1"),
              ("tcp_joint", "fixed", "hand", "tcp", "0 0 1"), ("f1", "prismatic", "hand", "left", "0 1 0"),
              ("f2", "prismatic", "hand", "right", "0 -1 0"), ("k1", "revolute", "l1", "a1", "1 0 0"),
              ("k2", "revolute", "a1", "a2", "0 1 0"), ("k3", "fixed", "a2", "a3", "0 0 1")]
    for name, kind, parent, child, axis in joints:
        extra = '<mimic joint="f1" multiplier="2" offset="0.01"/>' if name == "f2" else ""
        lim = ('<limit lower="0.02" upper="0.04" effort="1" velocity="1"/>' if name == "f1" else
               '<limit lower="0" upper="0.1" effort="1" velocity="1"/>' if name == "f2" else
               '<limit lower="0.3" upper="2" effort="1" velocity="1"/>' if name == "k2" else
               '<limit lower="-2" upper="2" effort="1" velocity="1"/>')
        body += (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                 f'<origin xyz="0.1 0.05 0.2" rpy="0.3 -0.2 0.1"/><axis xyz="{axis}"/>{extra}{lim}</joint>')
    return f'<?xml version="1.0"?><robot name="heavy">{body}</robot>'


def test_bodies_off_the_chain_ride_along_held_and_match_pinocchio():
    from pin_tree import Reduced, compare, pin_model

    text = heavy_tree()
    for tip, hold, held in [
        ("tcp", None, {"f1": 0.02, "f2": 0.05, "k1": 0.0, "k2": 0.3}),  # 0 clipped into the limits
        ("tcp", {"f1": 0.03, "k1": 0.7}, {"f1": 0.03, "f2": 0.07, "k1": 0.7, "k2": 0.3}),  # f2 follows f1
        ("a3", None, {"j2": 0.0, "j3": 0.0, "f1": 0.02, "f2": 0.05}),  # the other arm; j2, j3 held
    ]:
        with pytest.warns(km.OffChainBodiesWarning, match=r"kg of links behind \d movable joints? off the "
                          r"chain ride along rigidly, held at .*hold=\{'joint name': value\}"):
            robot = km.from_urdf(text, tip=tip, hold=hold)
        assert robot.extras["urdf"]["held"] == pytest.approx(held)
        compare(robot, Reduced(pin_model(text), robot, tip), np.random.default_rng(3), samples=5)
    # Held elsewhere, the dynamics differ: the held bodies are really part of them.
    with pytest.warns(km.OffChainBodiesWarning):
        a, b = (km.from_urdf(text, tip="tcp", hold={"k1": v}) for v in (0.0, 1.5))
    q = np.array([0.3, 0.4, 0.5])
    assert abs(km.gravity_torques(a, q)[0] - km.gravity_torques(b, q)[0]) > 0.1


def test_no_warning_when_nothing_with_mass_is_held():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        robot = km.from_urdf(tree())  # massless fingers
    assert robot.extras["urdf"]["held"] == {"f1": 0.0, "f2": 0.0}


@pytest.mark.parametrize("hold, match", [
    ({"k9": 0.1}, r"hold: no joint 'k9' in the URDF; joints that can be held: f1, f2, k1, k2"),
    ({"k_1": 0.1}, r"hold: no joint 'k_1' in the URDF; did you mean k1"),
    ({"j2": 0.1}, r"hold: joint 'j2' is on the chain \(it moves\)"),
    ({"k3": 0.1}, r"hold: joint 'k3' is fixed"),
    ({"k2": 0.0}, r"hold: joint 'k2' = 0.0 must be a finite number within its limits \[0.3, 2.0\] \(rad\)"),
    ({"f1": float("nan")}, r"hold: joint 'f1' = nan must be .*\(m\)"),
    ({"k1": "1"}, r"hold: joint 'k1' = '1' must be a finite number"),
    ({"k1": True}, r"hold: joint 'k1' = True must be a finite number"),
])
def test_bad_hold_names_the_joint(hold, match):
    with pytest.raises(km.RobotFileError, match=match):
        km.from_urdf(heavy_tree(), tip="tcp", hold=hold)


def test_link_without_inertial_is_massless_not_the_end_of_dynamics():
    """HANDMADE's link3 has no <inertial>: legal, massless; RNE and M still match Pinocchio."""
    from pin_tree import Reduced, compare, pin_model

    robot = km.from_urdf(HANDMADE)
    assert robot.has_inertials and robot.inertials[2].mass == 0
    compare(robot, Reduced(pin_model(HANDMADE), robot, "tcp"), np.random.default_rng(4), samples=5)
    bare = km.from_urdf(chain(joint("revolute", '<limit lower="-1" upper="1" effort="1" velocity="1"/>')))
    assert bare.inertials is None  # nothing on the chain has mass: no dynamics, said by DynamicsError
    with pytest.raises(km.DynamicsError, match="no inertial parameters"):
        km.mass_matrix(bare, [0.0])


@pytest.mark.parametrize("declaration", ['<?xml version="0.0"?>', "<?xml version='0.0' encoding='utf-8'?>",
                                         '\ufeff<?xml version="2.5" ?>'])
def test_any_xml_version_reads_as_pinocchio_reads_it(declaration, tmp_path):
    text = declaration + HANDMADE.split("?>", 1)[1]
    path = tmp_path / "v.urdf"
    path.write_text(text, encoding="utf-8")
    q = sample_q(km.from_urdf(HANDMADE), 5)
    for r in (km.from_urdf(text), km.load(path)):
        np.testing.assert_array_equal(km.fk(r, q), km.fk(km.from_urdf(HANDMADE), q))
    with pytest.raises(km.RobotFileError, match=r"line 3: <link>: link name 'z' used twice"):
        km.from_urdf(text.replace("<!-- a comment -->", '<link name="z"/><link name="z"/>'))  # lines kept


def test_non_psd_inertia_names_link_and_line():
    bad = inertial(1.0, "0 0 0", "0 0 0", 1, 2, 0, 1, 0, 1)  # eigenvalues −1, 1, 3
    text = f'<robot name="r">\n<link name="a"/>\n<link name="b">\n{bad}</link>\n' + joint("continuous") + "</robot>"
    with pytest.raises(km.RobotFileError, match=r"bad.urdf: line 4: link 'b': <inertial>: inertia tensor "
                                                r"must be positive semi-definite"):
        km.from_urdf(text, where="bad.urdf")


def test_revolute_or_prismatic_joint_without_limit_warns():
    for kind in ("revolute", "prismatic"):
        with pytest.warns(km.MissingLimitWarning, match=rf"r.urdf: line 1: {kind} joint 'j' has no <limit> "
                                                         r"\(URDF requires one\): taken as unlimited"):
            robot = km.from_urdf(chain(joint(kind)), where="r.urdf")
        assert np.all(np.isinf(robot.limits))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        km.from_urdf(chain(joint("continuous")))


def test_branched_tree_says_what_to_pass_and_lists_the_tips(tmp_path):
    path = tmp_path / "tree.urdf"
    path.write_text(tree(mimic=False), encoding="utf-8")
    assert km.urdf_tips(path) == {"tcp": ("j1", "j2", "j3"), "left": ("j1", "j2", "j3", "f1"),
                                  "right": ("j1", "j2", "j3", "f2")}
    with pytest.raises(km.RobotFileError, match=r"ending at 'left', 'right'; choose one with tip=<link name> "
                       r"\(km.load\(path, tip=...\), or --tip LINK on the command line\); candidate tips: "
                       r"'tcp' \(3 joints\), 'left' \(4 joints\), 'right' \(4 joints\)"):
        km.load(path)
    assert km.load(path, tip="tcp").joint_names == ("j1", "j2", "j3")
    assert km.load(path, tip="right", hold={"f1": 0.5}).extras["urdf"]["held"] == {"f1": 0.5}
    with pytest.raises(ValueError, match="tip chooses a chain of a URDF or MJCF tree"):
        km.load("puma560", tip="link6")


@st.composite
def random_trees(draw) -> tuple[str, str, dict[str, float]]:
    """(URDF text, a candidate tip, a hold for some joints off its chain): 2–9 links, each hung
    from an earlier one by a revolute, continuous, prismatic or fixed joint with a random origin,
    axis and limits, every link (but some) with a random physical inertial."""
    count = draw(st.integers(2, 9))
    num = st.floats(-0.5, 0.5, allow_nan=False).map(lambda x: round(x, 6))
    vec = st.tuples(num, num, num).map(lambda v: " ".join(map(str, v)))
    links, joints = [], []
    for i in range(count):
        body = ""
        if i and draw(st.sampled_from([True, True, False])):
            a, b, c = draw(st.tuples(*[st.floats(0.001, 0.1)] * 3))  # ∫x², ∫y², ∫z² dm
            ixx, iyy, izz = b + c, a + c, a + b  # principal moments of a real body
            body = inertial(draw(st.floats(0.1, 5.0)), draw(vec), draw(vec), ixx, 0, 0, iyy, 0, izz)
        links.append(f'<link name="L{i}">{body}</link>')
        if i:
            kind = draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed"]))
            lo = draw(st.floats(-2.0, 1.0))
            axis = draw(vec.filter(lambda v: any(abs(float(x)) > 0.05 for x in v.split())))
            limit = f'<limit lower="{lo}" upper="{lo + draw(st.floats(0.1, 2.0))}" effort="1" velocity="1"/>'
            joints.append(f'<joint name="J{i}" type="{kind}"><parent link="L{draw(st.integers(0, i - 1))}"/>'
                          f'<child link="L{i}"/><origin xyz="{draw(vec)}" rpy="{draw(vec)}"/>'
                          f'<axis xyz="{axis}"/>{limit if kind != "continuous" else ""}</joint>')
    text = f'<robot name="random">{"".join(links)}{"".join(joints)}</robot>'
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)
        tips = km.urdf_tips(text)
    assume(tips)
    tip = draw(st.sampled_from(sorted(tips)))
    root = etree.fromstring(text.encode())
    off = [j for j in root.findall("joint") if j.get("type") != "fixed" and j.get("name") not in tips[tip]]
    hold = {}
    for j in draw(st.lists(st.sampled_from(off), unique=True)) if off else ():
        lim = j.find("limit")
        lo, hi = (-np.pi, np.pi) if lim is None else (float(lim.get("lower")), float(lim.get("upper")))
        hold[j.get("name")] = draw(st.floats(lo, hi))
    return text, tip, hold


@FAST
@given(random_trees())
def test_random_trees_match_pinocchio_on_every_chain(case):
    """Any chain of a random tree, held anywhere: FK, J, RNE and M equal Pinocchio's reduced model."""
    from pin_tree import Reduced, compare, pin_model

    text, tip, hold = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)
        robot = km.from_urdf(text, tip=tip, hold=hold)
    assert {k: robot.extras["urdf"]["held"][k] for k in hold} == hold
    oracle = Reduced(pin_model(text), robot, tip)
    massless = all(oracle.model.inertias[i].mass == 0 for i in range(1, oracle.model.njoints))
    assert (robot.inertials is None) == massless  # no dynamics only when nothing on the chain has mass
    compare(robot, oracle, np.random.default_rng(0), samples=2)
