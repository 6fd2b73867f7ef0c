"""The view reads at a glance: the robot's looks (visual shapes) or its skeleton, the floor under a
pedestal, the camera framing the arm and an IK target, ghost numbers beside their own tools, at
most MAX_GHOSTS ghosts with the rest named, and a caption that says what is drawn. The geometry
on its own; the page through NiceGUI's simulated user."""

from __future__ import annotations

import math

import numpy as np
import pytest
from app_user import one, shown, solve
from hypothesis import given, settings
from hypothesis import strategies as st
from nicegui.testing import User

import kinematica as km
from kinematica.app import camera, ghosts
from kinematica.app.state import PROJECTIONS

points = st.tuples(*[st.floats(-20, 20)] * 3)


# --- the maths ------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.floats(0.5, 50), st.sampled_from(sorted(PROJECTIONS)))
def test_framing_the_arm_alone_is_the_default_camera(reach: float, projection: str) -> None:
    pose, size = camera.framing(projection, reach)
    default = camera.camera_pose(projection, reach)
    for a, b in ((pose.position, default.position), (pose.look_at, default.look_at), (pose.up, default.up)):
        np.testing.assert_allclose(a, b, atol=1e-9 * reach)
    assert size == pytest.approx(camera.view_size(reach))


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 10), st.sampled_from(sorted(PROJECTIONS)), st.lists(points, min_size=1, max_size=3), st.floats(-10, 0))
def test_framing_shows_every_point_given_and_the_floor(reach, projection, pts, floor) -> None:
    pose, size = camera.framing(projection, reach, pts, floor)
    for p in [*pts, (0.0, 0.0, floor)]:
        assert not camera.outside(pose, size, projection, p), (p, pose)


def test_a_point_far_off_is_outside_the_default_view() -> None:
    pose, size = camera.framing("3d", 4.0)
    assert not camera.outside(pose, size, "3d", (2.0, 1.0, 2.0))
    assert camera.outside(pose, size, "3d", (0.0, 0.0, 14.0))  # far above the arm: the cut-off target


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(points, points), min_size=1, max_size=13), st.floats(0.05, 2))
def test_ghost_numbers_sit_on_their_own_side_and_never_overlap(pairs, gap) -> None:
    tools, elbows = np.array([p for p, _ in pairs]), np.array([e for _, e in pairs])
    spots = ghosts.label_spots(tools, elbows, gap)
    for k, (spot, leader) in enumerate(spots):
        way = elbows[k] - tools[k]
        way = way / np.linalg.norm(way) if np.linalg.norm(way) > 1e-12 else np.array([0.0, 0.0, 1.0])
        steps = (spot - tools[k]) @ way / gap
        np.testing.assert_allclose(spot, tools[k] + steps * gap * way, atol=1e-9 * (1 + gap))  # on its ghost's side
        assert steps == pytest.approx(round(steps)) and (round(steps) > 1) == leader
        for other, _ in spots[:k]:
            assert np.linalg.norm(spot - other) >= gap * (1 - 1e-6) or round(steps) == 50


def test_the_caption_says_what_is_drawn() -> None:
    assert ghosts.caption(4, 0, 0, [], False) == ('4 solutions, none within the joint limits; none drawn '
                                                  '(tick "draw the solutions outside the joint limits" to see them):')
    assert ghosts.caption(4, 0, 4, [], True) == "4 solutions, none within the joint limits; each drawn as a numbered ghost:"
    assert "those within the limits drawn" in ghosts.caption(4, 2, 2, [], False)
    assert ghosts.caption(1, 1, 1, [], False) == "1 solution, 1 within the joint limits; each drawn as a numbered ghost:"
    many = ghosts.caption(12, 12, 6, [6, 7, 8, 9, 10, 11], False)
    assert "6 drawn as numbered ghosts" in many and "not drawn: 7, 8, 9, 10, 11, 12" in many
    groups = [[0], [1, 2], [3], [4], [5], [6], [7, 8]]
    assert ghosts.drawn_and_listed(groups, 6) == (groups[:6], [7, 8])


# --- the page ---------------------------------------------------------------------------------
def _visible(scene, colour: str) -> list:
    return [o for o in scene.objects.values() if o.color == colour and o.material_is_set and shown(o)]



@pytest.mark.asyncio
async def test_the_looks_toggle_shows_the_shapes_or_the_skeleton(user: User) -> None:
    scene = one(user, "arm-scene")
    toggle = one(user, "view-looks")
    assert toggle.value == "meshes"
    servo = "#263238"  # the Braccio's servo bodies (scripts/robot_visuals.py)
    shapes = len([v for v in km.load("braccio").visuals if v.hex_color == servo])
    assert len(_visible(scene, servo)) == shapes == 5 and not _visible(scene, "#fb8c00")  # no joint housings
    toggle.value = "skeleton"
    assert not _visible(scene, servo) and len(_visible(scene, "#fb8c00")) == 5  # the skeleton's joints
    toggle.value = "meshes"
    assert len(_visible(scene, servo)) == 5
    from nicegui.elements.upload_files import SmallFileUpload

    # a robot file without visuals (every bundled robot has them): nothing to toggle
    from importlib import resources

    text = (resources.files("kinematica.model") / "robots/planar-3r.yaml").read_text(encoding="utf-8").split("\nvisuals:")[0].replace("name: planar-3r", "name: bare-arm")
    user.find(marker="open-robot-file").click()
    await user.should_see(marker="robot-upload")
    await one(user, "robot-upload").handle_uploads([SmallFileUpload("bare-arm.yaml", "application/x-yaml",
                                                                     text.encode())])
    await user.should_see("bare-arm: 3 joints")
    with pytest.raises(AssertionError, match="view-looks"):
        user.find(marker="view-looks")


@pytest.mark.asyncio
async def test_the_puma_stands_on_the_floor_under_its_pedestal(user: User) -> None:
    one(user, "robot-select").value = "puma560"
    scene = one(user, "arm-scene")
    step = 0.2  # the Puma's grid squares (m)
    floor = [o for o in scene.objects.values() if o.type == "line"]
    z = {round(p[2], 9) for o in floor for p in o.args[:2]}
    assert z == {round(-0.672 / step, 9)}  # the pedestal's foot, 0.672 m below the shoulder
    assert scene.camera.look_at_z < 0  # the camera takes the pedestal in
    one(user, "view-looks").value = "skeleton"  # the skeleton stands on that floor too, on a post
    base = [o for o in _visible(scene, "#90a4ae") if o.type == "cylinder"]  # the skeleton's pedestal grey
    bottoms = [o.z - o.sy / 2 for o in base]
    tops = [o.z + o.sy / 2 for o in base]
    assert min(bottoms) == pytest.approx(-0.672 / step, abs=1e-9)  # fails before: 0.9 radii below the shoulder
    assert max(tops) == pytest.approx(0.0, abs=1e-9)  # up to the base frame, where the skeleton starts


@pytest.mark.asyncio
async def test_ghosts_are_capped_and_the_rest_named(user: User) -> None:
    one(user, "robot-select").value = "ur5"  # 8 branches, no two drawn alike (no spherical wrist)
    one(user, "mode").value = "ik"
    one(user, "method").value = "analytic"  # every branch
    one(user, "ghosts-outside").value = True
    # the tool of q = (-124, -79, 90, 25, -122, -20)°, reached by 8 branches, no two drawn alike
    await solve(user, "Solved", x=0.143643, y=0.330159, z=0.395956, roll=52.672955, pitch=34.708004, yaw=-19.788051)
    scene = one(user, "arm-scene")
    labels = [o for o in scene.objects.values() if o.type == "text" and "font-size: 16px" in str(o.args)]
    caption = one(user, "solutions-caption").text
    note = one(user, "ghost-note")
    total = int(caption.split(" solution")[0])
    assert total > ghosts.MAX_GHOSTS, caption
    assert len(labels) == ghosts.MAX_GHOSTS
    assert note.visible and note.text.split("not drawn: ")[1] == caption.split("not drawn: ")[1].rstrip(":")


@pytest.mark.asyncio
async def test_a_target_far_above_brings_the_camera_along(user: User) -> None:
    one(user, "mode").value = "ik"
    scene = one(user, "arm-scene")
    before = scene.camera.z
    one(user, "target-z").value = 900.0  # mm: far above the Braccio (reach ~410 mm)
    view = scene.camera
    pose = camera.CameraPose((view.x, view.y, view.z), (view.look_at_x, view.look_at_y, view.look_at_z),
                             (view.up_x, view.up_y, view.up_z))
    size = camera.view_size(math.dist(pose.position, pose.look_at) / math.dist((1.05, -1.45, 0.7), (0, 0, 0)))
    assert view.z > before and not camera.outside(pose, size, "3d", (0.0, 0.0, 9.0))


# --- no clipped titles or cells -----------------------------------------------------------------
def test_a_long_convergence_title_wraps_inside_the_figure() -> None:
    import dataclasses

    from kinematica.viz import plots

    robot = km.load("puma560")
    run = km.ik(robot, km.fk(robot, np.radians([10, 20, -100, 30, 40, 50])), q0=np.zeros(6), history=True)
    long = dataclasses.replace(run, reason="stalled at joint limit θ2 = −45° " * 6)
    fig = plots.convergence(long, tol=1e-6, unit="m", size=(8.0, 4.5))
    fig.canvas.draw()
    box = fig.axes[0].title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height  # all of it on the figure
    assert fig.axes[0].get_title().count("\n") >= 2  # wrapped


def test_robot_tab_limits_in_rad_show_their_sources_precision_and_read_back_exactly() -> None:
    from kinematica.app import robotedit

    panda = km.load("panda")  # limits written in rad (2.8973 = 166.003°, not 166.00306°)
    form = robotedit.form_from_robot(panda)
    assert (form.rows[0]["lower"], form.rows[0]["upper"]) == ("-166.003", "166.003")
    assert all(len(r[k]) <= 8 for r in form.rows for k in ("lower", "upper"))
    again = robotedit.build(form)  # applied untouched: the exact limits, not the rounded ones
    np.testing.assert_allclose(again.limits, panda.limits, rtol=4e-16, atol=0)  # degrees → rad: an ulp
    form.rows[0]["upper"] = "150"  # an edited cell means what it says
    np.testing.assert_allclose(robotedit.build(form).limits[0], [panda.limits[0, 0], np.radians(150)], rtol=1e-15)
    braccio = robotedit.form_from_robot(km.load("braccio"))  # in degrees already: as written
    assert (braccio.rows[0]["lower"], braccio.rows[0]["upper"]) == ("-90", "90")


@pytest.mark.asyncio
async def test_the_braccio_fingers_follow_the_m6_slider(user: User) -> None:

    robot = km.load("braccio")
    scene = one(user, "arm-scene")
    from nicegui.elements.scene.objects.box import Box
    from nicegui.elements.scene.objects.group import Group

    # a finger is a box alone in a group of its own (its grip), inside its body's group
    fingers = [o for o in scene.objects.values() if isinstance(o, Group) and isinstance(o.parent, Group)
               and len(o.children) == 1 and isinstance(o.children[0], Box)]
    assert len(fingers) == 2
    slider = one(user, "view-gripper")
    assert slider.value == 10  # open, the gripper's home
    slider.value = 73  # closed: the fingers turn back to as drawn (grip motion = identity)
    for holder in fingers:
        np.testing.assert_allclose(holder.R, np.eye(3), atol=1e-12)
        np.testing.assert_allclose((holder.x, holder.y, holder.z), 0, atol=1e-12)
    slider.value = 10  # open: each finger turned 28° about its pivot
    k = [i for i, v in enumerate(robot.visuals) if v.grip is not None]
    M = robot.visuals[k[0]].grip.motion(0.0)
    assert any(np.allclose(h.R, M[:3, :3], atol=1e-12) for h in fingers)


@pytest.mark.parametrize("name", ["panda", "braccio"])
def test_the_robot_tab_keeps_the_looks_through_an_edit_and_a_unit_change(name: str) -> None:
    """Applying the Robot tab's form — untouched, or in the other length unit — keeps every
    shape where it was (the panda's file is in rad, the form writes degrees)."""
    from kinematica.app import robotedit
    from kinematica.model.visual import placements

    robot = km.load(name)
    want = placements(robot, km.fk_frames(robot, robot.q_home))
    form = robotedit.form_from_robot(robot)
    again = robotedit.build(form)
    np.testing.assert_allclose(placements(again, km.fk_frames(again, robot.q_home)), want, atol=1e-9)
    other = "mm" if robot.length_unit == "m" else "m"
    robotedit.convert_unit(form, other)
    moved = robotedit.build(form)
    k = 1000.0 if other == "mm" else 1e-3
    got = placements(moved, km.fk_frames(moved, robot.q_home))
    np.testing.assert_allclose(got[:, :3, :3], want[:, :3, :3], atol=1e-9)
    np.testing.assert_allclose(got[:, :3, 3], want[:, :3, 3] * k, atol=1e-9 * max(1.0, k))
    # flat lists: pytest.approx refuses nested sequences (pytest >= 8.4)
    got_sizes = [s for v in moved.visuals for s in v.size]
    assert got_sizes == pytest.approx([s * k for v in robot.visuals for s in v.size])
    assert [len(v.size) for v in moved.visuals] == [len(v.size) for v in robot.visuals]


@pytest.mark.asyncio
async def test_the_view_frames_the_whole_arm_of_every_bundled_robot(user: User) -> None:
    """Opened at home, every bundled robot's skeleton, with the links' thickness around it, lies
    inside the camera's view (the arm-5dof-geo's tool, stretched out along x, had been cut off)."""
    from kinematica.app.grid import GridScale
    from kinematica.viz.geometry import arm_geometry

    for name in km.robot_names():
        one(user, "robot-select").value = name
        await user.should_see(f"{name}: ")
        cam = one(user, "arm-scene").camera
        pose = camera.CameraPose((cam.x, cam.y, cam.z), (cam.look_at_x, cam.look_at_y, cam.look_at_z),
                                 (cam.up_x, cam.up_y, cam.up_z))
        projection = one(user, "view-projection").value
        robot = km.load(name)
        grid = GridScale.for_robot(robot)
        size = cam.params["size"] if camera.orthographic(projection) else 0.0
        pad = 0.1 * grid.reach / grid.step
        for p in grid.to_scene(arm_geometry(robot, robot.q_home).skeleton):
            assert not camera.outside(pose, size, projection, p, pad), (name, p)  # fails before the fix: arm-5dof-geo


def test_converted_meshes_are_kept_within_a_budget(tmp_path, monkeypatch) -> None:
    """The server converts each robot file's meshes to glTF once, but keeps at most GLB_BUDGET
    bytes of them: a closed session's meshes must not stay for the server's lifetime. An evicted
    mesh converts again, to the same bytes."""
    trimesh = pytest.importorskip("trimesh")
    from kinematica.app import looks

    keys = []
    for k in range(4):  # four different files of the same size
        path = tmp_path / f"part{k}.stl"
        trimesh.creation.icosphere(subdivisions=3, radius=1.0 + k).export(path)
        keys.append(looks.mesh_key(path))
    size = len(looks.glb_bytes(keys[0]))
    import threading

    for thread in threading.enumerate():  # an earlier page's meshes still converting would land in the cache below
        if thread.name == looks.CONVERTER:
            thread.join(60)
    monkeypatch.setattr(looks, "GLB_BUDGET", 2 * size)
    monkeypatch.setattr(looks, "_glb", type(looks._glb)())
    first = looks.glb_bytes(keys[0])
    for key in keys[1:]:
        looks.glb_bytes(key)
    assert sum(map(len, looks._glb.values())) <= 2 * size
    assert list(looks._glb) == keys[2:]  # the least recently used went first
    assert looks.glb_bytes(keys[0]) == first


@pytest.mark.asyncio
async def test_hidden_link_frames_are_placed_when_shown(user: User) -> None:
    """Hidden link frames are not moved with the arm (half a slider event's messages); shown again
    they stand where the arm is now, as if they had followed every move."""
    from nicegui.elements.scene.objects.group import Group

    from kinematica.app.scene import AXES

    scene = one(user, "arm-scene")
    frames = [o for o in scene.objects.values() if isinstance(o, Group) and not isinstance(o.parent, Group)
              and sorted(c.color for c in o.children) == sorted(AXES)]  # not the target's axes
    assert len(frames) == km.load("braccio").n + 2

    def placed() -> np.ndarray:
        return np.array([[o.x, o.y, o.z, *np.ravel(o.R)] for o in frames])

    toggle, slider = one(user, "frames"), one(user, "joint-1-slider")
    toggle.value = True
    slider.value = 60
    followed = placed()  # moved live
    slider.value = 30
    assert not np.allclose(placed(), followed)
    toggle.value = False
    slider.value = 60  # moved hidden
    toggle.value = True
    np.testing.assert_allclose(placed(), followed, atol=1e-12)
