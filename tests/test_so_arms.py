"""The bundled SO-ARMs, `so100` and `so101` (scripts/so_arm_bundle.py), against the URDFs they
were built from (example-robot-data's so_arm_description, a test dependency) and against each
other: the same chain up to the stated rounding, the SO-100's home in the SO-101's middle pose,
its servo senses from the joint axes, and both tool points placed alike on their fixed jaws."""

from __future__ import annotations

import sysconfig
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import kinematica as km
from kinematica import spatial

SOURCE = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots/so_arm_description"
TIPS = {"so100": "gripper", "so101": "gripper_frame_link"}
TURN = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # the SO-100's −y reach onto the SO-101's +x
TOOL_DEPTH = 0.0063  # m: scripts/so_arm_bundle.py's, the SO-101's gripper_frame_link behind its fixed jaw's tip
FIXED_JAW = {"so100": "Fixed_Jaw", "so101": "wrist_roll_follower_so101_v1"}


def urdf(arm: str) -> Path:
    path = SOURCE / f"urdf/{arm}.urdf"
    if not path.is_file():
        pytest.skip(f"example-robot-data's {arm}.urdf not found under {SOURCE} (a test dependency)")
    return path


def rounding(path: Path) -> tuple[float, float]:
    """(Σ|δ| rad, Σ|dust| m) of what the bundle rounded: each origin's rpy angles within 1e-4 rad
    of a multiple of π/2, and coordinates under 1 µm, over every origin in the file (more than
    the chain holds: a bound)."""
    angle = length = 0.0
    for o in ET.parse(path).getroot().iter("origin"):
        rpy = np.array(o.get("rpy", "0 0 0").split(), float)
        d = rpy - np.round(rpy / (np.pi / 2)) * np.pi / 2
        angle += float(np.abs(d[np.abs(d) < 1e-4]).sum())
        xyz = np.array(o.get("xyz", "0 0 0").split(), float)
        length += float(np.abs(xyz[np.abs(xyz) < 1e-6]).sum())
    return angle, length


@pytest.mark.parametrize("arm", ["so100", "so101"])
def test_the_bundle_is_its_urdf_up_to_the_stated_rounding(arm):
    """Joint names, limits and masses as the URDF gives them; FK within what rounding the
    exporter's near-right angles can move: each rounded angle δ turns everything beyond it by
    |δ| (orientation ≤ Σ|δ|), moving the tool by at most |δ| × its distance (≤ the arm's reach)."""
    bundled = km.load(arm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the jaw held off the chain
        raw = km.load(urdf(arm), tip=TIPS[arm], hold={"gripper": 0.0})
    assert bundled.joint_names == raw.joint_names
    np.testing.assert_array_equal(bundled.limits, raw.limits)
    assert [i.mass for i in bundled.inertials] == pytest.approx([i.mass for i in raw.inertials], rel=1e-12)
    tool = np.eye(4) if arm == "so101" else bundled.tool  # the SO-100's tool point is the bundle's own
    angle, length = rounding(urdf(arm))
    assert 0 < angle < 1e-3
    reach = 0.5  # m: longer than either arm stretched out (0.39–0.43 m from the base's origin)
    q = np.random.default_rng(11).uniform(bundled.limits[:, 0], bundled.limits[:, 1], (50, 5))
    T, U = km.fk(bundled, q), km.fk(raw, q) @ tool
    assert np.abs(T[:, :3, 3] - U[:, :3, 3]).max() <= angle * reach + length
    assert np.abs(T[:, :3, :3] - U[:, :3, :3]).max() <= angle


def test_the_so100s_home_is_the_middle_of_its_ranges_and_the_so101s_middle_pose():
    """LeRobot's calibration reads the middle tick in the middle of each joint's travel. The
    SO-101's URDF puts q = 0 there; the SO-100's zero is its folded rest pose, so its home is the
    middle of each range — and that is the SO-101's middle pose: upper arm and forearm within 3°
    (2.9° measured), the wrist roll axis within 8° (7.4°), a hand-held pose's few degrees."""
    so100, so101 = km.load("so100"), km.load("so101")
    np.testing.assert_allclose(so100.home, so100.limits.mean(axis=1), atol=1e-12)
    np.testing.assert_array_equal(so101.home, np.zeros(5))
    a = (TURN @ km.fk_frames(so100, so100.home)[:, :3, 3].T).T
    b = km.fk_frames(so101, so101.home)[:, :3, 3]
    for i in (2, 3):  # shoulder lift → elbow, elbow → wrist flex, in the arm's plane (x, z)
        u, v = (a[i + 1] - a[i])[[0, 2]], (b[i + 1] - b[i])[[0, 2]]
        assert np.linalg.norm(u) == pytest.approx(np.linalg.norm(v), abs=1e-6)  # the same links
        assert np.degrees(np.arccos(u @ v / np.linalg.norm(u) / np.linalg.norm(v))) < 3.0
    roll = TURN @ km.jacobian(so100, so100.home)[3:, 4] @ km.jacobian(so101, so101.home)[3:, 4]
    assert np.degrees(np.arccos(roll)) < 8.0


def test_the_so100s_servo_senses_are_its_axes_against_the_so101s():
    """Both arms carry their servos alike and the SO-101's URDF turns with its servos' ticks:
    at the middle pose the SO-100's shoulder pan axis points the other way, the others alike."""
    so100, so101 = km.load("so100"), km.load("so101")
    cos = np.sum(TURN @ km.jacobian(so100, so100.home)[3:] * km.jacobian(so101, so101.home)[3:], axis=0)
    assert np.all(np.abs(cos) > 0.99)
    assert so100.extras["extras"]["servo_signs"] == [*np.sign(cos).astype(int).tolist(), 1] == [-1, 1, 1, 1, 1, 1]
    assert "servo_signs" not in so101.extras["extras"]  # +1 each


@pytest.mark.parametrize("arm", ["so100", "so101"])
def test_both_tool_points_sit_alike_on_the_fixed_jaw(arm):
    """On the fixed jaw's inner face (x = 0 in the tool frame, the moving jaw at −x) and
    TOOL_DEPTH behind its tip along the approach z, within 0.3 mm (the SO-100's is rounded to
    0.1 mm), measured on the full-resolution part."""
    trimesh = pytest.importorskip("trimesh")
    robot = km.load(arm)
    shape = next(v for v in robot.visuals if Path(v.path).stem == FIXED_JAW[arm])
    stl = SOURCE / f"meshes/{arm}/{FIXED_JAW[arm]}.stl"
    if not stl.is_file():
        pytest.skip(f"{stl} not found (example-robot-data, a test dependency)")
    body = shape.origin[:3, :3] @ np.asarray(trimesh.load(stl).vertices).T + shape.origin[:3, 3:]
    inv = spatial.inv(robot.tool)
    local = (inv[:3, :3] @ body + inv[:3, 3:]).T  # the jaw in the tool frame
    tip = local[:, 2].max()
    assert tip == pytest.approx(TOOL_DEPTH, abs=3e-4)
    assert local[local[:, 2] > tip - 0.01, 0].min() == pytest.approx(0.0, abs=3e-4)


def test_the_so100s_jaw_opens_with_the_gripper():
    """The grip turns the moving jaw away from the fixed one: the gap between its tip and the
    fixed jaw's inner face (the tool's x) grows from closed to open (the bundled, decimated part)."""
    trimesh = pytest.importorskip("trimesh")
    from scipy.spatial.transform import Rotation

    robot = km.load("so100")
    jaw = next(v for v in robot.visuals if v.grip is not None)
    body = jaw.origin[:3, :3] @ np.asarray(trimesh.load(jaw.path, force="mesh").vertices).T + jaw.origin[:3, 3:]
    tip = body.T[body[1] < body[1].min() + 0.005]  # its last 5 mm, in the gripper link (the approach is −y)
    pivot, axis = np.asarray(jaw.grip.pivot), np.asarray(jaw.grip.axis)
    gaps = []
    for angle in (jaw.grip.closed, jaw.grip.open):
        turned = Rotation.from_rotvec(axis * angle).apply(tip - pivot) + pivot
        gaps.append(robot.tool[0, 3] - turned[:, 0].max())
    assert 0.01 < gaps[0] < 0.03 < gaps[1]  # 15.8 mm at the URDF's zero, as the SO-101's


def test_the_default_calibration_takes_the_grippers_sense_from_the_robot_file():
    # extras.servo_signs' sixth value is the gripper's: a jaw servo mounted the other way opens
    # towards fewer ticks, and its default range is mirrored about the middle tick with it
    from dataclasses import replace

    from kinematica.hardware.so101_calibration import CENTRE, So101Calibration

    robot = km.load("so101")
    flipped = replace(robot, extras={**robot.extras, "extras": {**robot.extras.get("extras", {}),
                                                                "servo_signs": [1, 1, 1, 1, 1, -1]}})
    plain, mirrored = So101Calibration.default(robot), So101Calibration.default(flipped)
    assert plain.servos[5].sign == 1 and mirrored.servos[5].sign == -1
    lo, hi = plain.servos[5].range
    assert mirrored.servos[5].range == (2 * CENTRE - hi, 2 * CENTRE - lo)
    q = robot.home[:5]
    assert plain.to_ticks(q, 50.0)[5] > CENTRE > mirrored.to_ticks(q, 50.0)[5]
    np.testing.assert_allclose(mirrored.to_q(mirrored.to_ticks(q, 50.0))[1], 50.0, atol=0.1)
