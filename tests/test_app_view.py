"""The simulator's view: XY / XZ / YZ projections beside the 3-D view, and IK targets set by
dragging the marker and its orientation handles. The geometry (camera placement, handles ↔
rotation / pitch) is checked on its own; the page through NiceGUI's simulated user, with drops
delivered the way the browser's scene component reports them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from app_user import one
from hypothesis import given, settings
from hypothesis import strategies as st
from nicegui import events
from nicegui.testing import User

import kinematica as km
from kinematica import spatial
from kinematica.app import camera, handles
from kinematica.app.state import PROJECTIONS, TargetSpec

angles = st.floats(-math.pi, math.pi, allow_nan=False)
rotations = st.tuples(angles, st.floats(-1.5, 1.5), angles).map(lambda rpy: spatial.rpy_to_matrix(rpy))
directions = st.tuples(*[st.floats(-1, 1)] * 3).map(np.array).filter(lambda v: np.linalg.norm(v) > 0.1)


# --- the maths ------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(rotations, rotations, st.floats(0.1, 10))
def test_handles_round_trip_a_rotation(R0: np.ndarray, R1: np.ndarray, length: float) -> None:
    """Placing the handles of R1 and dropping them on R0 (approach first, then roll) gives R1."""
    center = np.array([1.0, -2.0, 0.5])
    spots = handles.handle_points(center, R1, length, ("x", "z"))
    R = handles.aim(R0, "z", spots["z"] - center)
    R = handles.aim(R, "x", spots["x"] - center)
    np.testing.assert_allclose(R, R1, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(rotations, directions, st.sampled_from("xz"))
def test_aim_points_the_axis_and_keeps_a_rotation(R: np.ndarray, d: np.ndarray, axis: str) -> None:
    out = handles.aim(R, axis, d)
    assert spatial.is_rotation(out, 1e-9)
    np.testing.assert_allclose(out[:, handles.AXIS_INDEX[axis]], d / np.linalg.norm(d), atol=1e-12)
    # the other axis stays as close as it can: R's own, less its part along the new axis
    j = 2 - handles.AXIS_INDEX[axis]
    u = d / np.linalg.norm(d)
    kept = R[:, j] - (R[:, j] @ u) * u
    if np.linalg.norm(kept) > 1e-6:
        np.testing.assert_allclose(out[:, j], kept / np.linalg.norm(kept), atol=1e-9)


def test_aim_when_the_other_axis_is_dropped_onto() -> None:
    out = handles.aim(np.eye(3), "z", [1.0, 0.0, 0.0])  # z dropped on where x was
    assert spatial.is_rotation(out)
    np.testing.assert_allclose(out[:, 2], [1, 0, 0], atol=1e-12)


def test_aim_refuses_a_zero_direction_and_an_unknown_axis() -> None:
    with pytest.raises(ValueError, match="non-zero"):
        handles.aim(np.eye(3), "z", [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="'x' or 'z'"):
        handles.aim(np.eye(3), "y", [1.0, 0.0, 0.0])


@settings(max_examples=200, deadline=None)
@given(st.floats(-179, 179), st.tuples(st.floats(-500, 500), st.floats(-500, 500), st.floats(-500, 500))
       .filter(lambda p: math.hypot(p[0], p[1]) > 1e-3))
def test_approach_pitch_round_trips_the_targets_approach(pitch_deg: float, p: tuple) -> None:
    a = km.targets.approach(p, pitch=math.radians(pitch_deg)).a
    assert math.degrees(handles.approach_pitch(a, p)) == pytest.approx(pitch_deg, abs=1e-9)


def test_turned_and_moved_specs() -> None:
    pose = TargetSpec("pose", (100.0, 0.0, 50.0), (0.0, 0.0, 0.0), 0.0)
    down = handles.turned(pose, "z", [0.0, 0.0, -1.0])  # tool z from up to down: half a turn
    R = spatial.rpy_to_matrix(np.radians(down.rpy_deg))
    np.testing.assert_allclose(R[:, 2], [0, 0, -1], atol=1e-6)
    approach = TargetSpec("approach", (100.0, 100.0, 50.0), pitch_deg=0.0)
    assert handles.turned(approach, "z", [1.0, 1.0, math.sqrt(2)]).pitch_deg == pytest.approx(45.0)
    assert handles.moved(pose, [1.23456, 2.0, 3.0], 2).position == (1.23, 2.0, 3.0)
    with pytest.raises(ValueError, match="target position: expected 3 finite numbers"):
        handles.moved(pose, [1.0, math.nan, 3.0], 2)
    assert handles.length_digits(100.0) == 1 and handles.length_digits(0.2) == 4


@pytest.mark.parametrize("projection", ["xy", "xz", "yz"])
def test_projection_cameras_look_along_the_hidden_axis(projection: str) -> None:
    pose = camera.camera_pose(projection, 4.0)
    view = np.subtract(pose.look_at, pose.position)
    hidden = camera.hidden_axis(projection)
    assert np.count_nonzero(view) == 1 and view[hidden] != 0
    right = np.cross(view, pose.up)  # the screen's rightward direction
    a, b = camera.plane_axes(projection)
    assert right[a] > 0 and pose.up[b] > 0  # first axis to the right, second up: as on paper
    for p, q, _ in camera.grid_segments(projection, 3):
        assert p[hidden] == q[hidden] != 0  # the grid lies in the shown plane, behind the arm
    assert [name for name, _ in camera.axis_labels(projection, 3)] == ["xyz"[a], "xyz"[b]]


def test_unknown_projection_is_refused() -> None:
    with pytest.raises(ValueError, match="3d, xy, xz, yz"):
        camera.check("zx")
    assert set(PROJECTIONS) == {"3d", "xy", "xz", "yz"}


# --- the page ---------------------------------------------------------------------------------
def drop(scene, obj, x: float, y: float, z: float) -> None:
    """Deliver a drag end on `obj` at (x, y, z), as the browser's scene component emits it."""
    args = {"type": "dragend", "object_id": obj.id, "object_name": obj.name, "x": x, "y": y, "z": z}
    scene._handle_drag(events.GenericEventArguments(sender=scene, client=scene.client, args=args))


def target_fields(user: User) -> np.ndarray:
    return np.array([one(user, f"target-{a}").value for a in "xyz"], dtype=float)


@pytest.mark.asyncio
async def test_projection_select_changes_the_camera(user: User) -> None:
    select = one(user, "view-projection")
    assert select.value == "3d" and one(user, "arm-scene").camera.type == "perspective"
    select.value = "xz"
    scene = one(user, "arm-scene")
    assert scene.camera.type == "orthographic"
    assert scene.camera.y < 0 and scene.camera.x == scene.camera.look_at_x  # looking along +y
    assert scene.props["control-type"] == "map"
    await user.should_see("drag to pan, scroll to zoom")
    select.value = "xy"
    scene = one(user, "arm-scene")
    assert scene.camera.z > 0 and (scene.camera.up_x, scene.camera.up_y, scene.camera.up_z) == (0, 1, 0)
    one(user, "robot-select").value = "puma560"  # a spatial arm keeps the chosen view
    assert one(user, "view-projection").value == "xy" and one(user, "arm-scene").camera.type == "orthographic"
    one(user, "view-projection").value = "3d"
    assert one(user, "arm-scene").camera.type == "perspective"


@pytest.mark.asyncio
async def test_a_planar_robot_opens_in_the_xy_view(user: User) -> None:
    one(user, "robot-select").value = "planar-3r"
    assert one(user, "view-projection").value == "xy"
    scene = one(user, "arm-scene")
    assert scene.camera.type == "orthographic" and scene.camera.z > 0


@pytest.mark.asyncio
async def test_dropping_the_target_sets_its_fields(user: User) -> None:
    one(user, "mode").value = "ik"
    one(user, "view-projection").value = "xz"  # a front view: the drop keeps y
    scene = one(user, "arm-scene")
    before = target_fields(user)
    target = _target_group(scene)
    drop(scene, target, 1.5, 7.0, 2.0)  # scene units: 100 mm squares for the Braccio
    np.testing.assert_allclose(target_fields(user), [150.0, before[1], 200.0], atol=1e-9)
    np.testing.assert_allclose((target.x, target.y, target.z), (1.5, before[1] / 100.0, 2.0), atol=1e-9)


@pytest.mark.asyncio
async def test_dropping_the_approach_handle_sets_the_orientation(user: User) -> None:
    one(user, "robot-select").value = "puma560"
    one(user, "mode").value = "ik"
    assert one(user, "target-kind").value == "pose"
    scene = one(user, "arm-scene")
    target = _target_group(scene)
    center = np.array([target.x, target.y, target.z])
    z_handle = _handle(scene, "#1e88e5")
    drop(scene, z_handle, *(center + [0.0, 0.0, -1.0]))  # point the tool straight down
    R = spatial.rpy_to_matrix(np.radians([one(user, f"target-{a}").value for a in ("roll", "pitch", "yaw")]))
    np.testing.assert_allclose(R[:, 2], [0, 0, -1], atol=1e-3)
    spot = np.array([z_handle.x, z_handle.y, z_handle.z])
    assert spot[2] < center[2] and np.allclose(spot[:2], center[:2], atol=1e-3)  # redrawn on the new axis
    one(user, "target-kind").value = "approach"
    drop(scene, z_handle, *(center + np.r_[center[:2] / np.linalg.norm(center[:2]), 1.0]))
    assert one(user, "target-approach-pitch").value == pytest.approx(45.0)


def _target_group(scene):
    """The draggable group that is the target marker (the one holding the translucent sphere)."""
    found = [o for o in scene.objects.values() if o.type == "group" and o.draggable_]
    assert len(found) == 1
    return found[0]


def _handle(scene, colour: str):
    found = [o for o in scene.objects.values() if o.type == "sphere" and o.draggable_ and o.color == colour]
    assert len(found) == 1
    return found[0]


@pytest.mark.asyncio
async def test_a_planar_pose_target_turns_in_its_plane(user: User) -> None:
    """In the top view of a planar arm the z handle would point at the viewer: only x is
    offered, and dropping it turns the target about z."""
    one(user, "robot-select").value = "planar-3r"
    one(user, "mode").value = "ik"
    one(user, "target-kind").value = "pose"
    scene = one(user, "arm-scene")
    assert not [o for o in scene.objects.values() if o.type == "sphere" and o.draggable_ and o.color == "#1e88e5"]
    target = _target_group(scene)
    x_handle = _handle(scene, "#e53935")
    drop(scene, x_handle, target.x, target.y + 1.0, target.z)
    R = spatial.rpy_to_matrix(np.radians([one(user, f"target-{a}").value for a in ("roll", "pitch", "yaw")]))
    np.testing.assert_allclose(R[:, 0], [0, 1, 0], atol=1e-3)
    np.testing.assert_allclose(R[:, 2], [0, 0, 1], atol=1e-3)


@pytest.mark.asyncio
async def test_a_spatial_arm_after_a_planar_one_opens_in_the_view_the_user_had(user: User) -> None:
    """planar-3r puts the view in its plane (top, XY); choosing the UR5 next gives the 3-D view
    back, and a projection the user picked on the planar arm stays theirs."""
    one(user, "robot-select").value = "planar-3r"
    await user.should_see("planar-3r: 3 joints")
    assert one(user, "view-projection").value == "xy"
    one(user, "robot-select").value = "ur5"
    await user.should_see("ur5: 6 joints")
    assert one(user, "view-projection").value == "3d"
    one(user, "robot-select").value = "planar-3r"
    await user.should_see("planar-3r: 3 joints")
    one(user, "view-projection").value = "xz"
    one(user, "robot-select").value = "ur5"
    await user.should_see("ur5: 6 joints")
    assert one(user, "view-projection").value == "xz"
