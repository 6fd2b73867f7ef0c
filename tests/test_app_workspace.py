"""The simulator's workspace (issue 15, first part): a bundled scene drawn around the arm,
checked as it moves, through NiceGUI's simulated user."""

from __future__ import annotations

import numpy as np
import pytest
from app_user import one, solve
from nicegui.testing import User

import kinematica as km
from kinematica.app.collision import HIT as OWN_HIT, SHAPE
from kinematica.app.workspace import HIT, OBSTACLE, OTHER

DOWN = [0, -60, -60, -60, 0]  # deg: the left Braccio's gripper into the table


def objects(user: User) -> dict:
    return one(user, "arm-scene").objects


@pytest.mark.asyncio
async def test_a_scene_is_drawn_around_the_arm_and_checked_as_it_moves(user: User) -> None:
    before = len(objects(user))
    await user.should_see("no scene")
    one(user, "workspace-scene").value = "two-braccios"
    assert one(user, "workspace-seat").value == "left"  # the session's Braccio plays the first one
    scene = km.Scene.load("two-braccios")
    words = scene.distance({"left": km.load("braccio").q_home}, self_pairs=False).words()
    await user.should_see("no collision · " + words)
    drawn = len(objects(user)) - before
    c = scene.compiled()
    around = [sh for sh, b in zip(c.collider.shapes, c.collider.bodies) if not c.names[b].startswith("left/")]
    capsules = sum(sh.kind == "capsule" for sh in around)
    # a capsule: cylinder + 2 balls; the left arm's own shapes are the view's overlay, off
    assert drawn == 3 * capsules + (len(around) - capsules)
    assert not any((o.color, o.opacity) == SHAPE for o in objects(user).values())
    # The view keeps the left arm's base frame, in grid squares of 100 mm: the table (a box
    # 800 x 400 x 20 mm centred 250 mm ahead of the left base and 10 mm down) is at (2.5, 0, -0.1)
    # with its size as scale; the right arm, 500 mm ahead, is drawn by its capsules.
    boxes = [o for o in objects(user).values() if o.type == "box" and (o.color, o.opacity) == OBSTACLE]
    assert len(boxes) == 1
    assert np.allclose([boxes[0].x, boxes[0].y, boxes[0].z], [2.5, 0, -0.1], atol=1e-12)
    assert np.allclose([boxes[0].sx, boxes[0].sy, boxes[0].sz], [8, 4, 0.2], atol=1e-12)
    right, left_base = scene.robots["right"], scene.robots["left"].base
    F = km.fk_frames(right.robot, right.q)
    ends = [(np.linalg.inv(left_base) @ right.base @ F[p.body] @ p.placement @ [0, 0, z, 1])[:3] / 100
            for p in scene.geometry("right").parts if p.shape.kind == "capsule"
            for z in (-p.shape.length / 2, p.shape.length / 2)]
    balls = [o for o in objects(user).values() if o.type == "sphere" and (o.color, o.opacity) == OTHER]
    assert ends and all(any(np.allclose([b.x, b.y, b.z], e, atol=1e-9) for b in balls) for e in ends)

    for i, v in enumerate(DOWN):
        one(user, f"joint-{i + 1}-slider").value = v
    expected = scene.check({"left": np.radians(DOWN)})
    assert ("left/gripper", "table") in expected.collisions
    await user.should_see("COLLISION: " + "; ".join(f"{a} with {b}" for a, b in expected.collisions))
    colours = {(o.color, o.opacity) for o in objects(user).values()}
    assert HIT in colours and OBSTACLE not in colours  # the table (the one obstacle) is red
    # the gripper's own shapes show, red, though the overlay is off: a contact is never hidden
    mine = [o for o in objects(user).values() if (o.color, o.opacity) == OWN_HIT and o.visible_]
    hit_parts = [p for p in scene.geometry("left").parts if ("left/" + scene.geometry("left").names[p.body])
                 in {n for pair in expected.collisions for n in pair}]
    assert len(mine) == sum(3 if p.shape.kind == "capsule" else 1 for p in hit_parts)

    one(user, "joint-1-slider").value = 0
    for i, v in enumerate(np.degrees(km.load("braccio").q_home)):
        one(user, f"joint-{i + 1}-slider").value = v
    await user.should_see("no collision")
    assert OBSTACLE in {(o.color, o.opacity) for o in objects(user).values()}


@pytest.mark.asyncio
async def test_choosing_a_scene_of_another_robot_switches_to_it_and_none_closes_it(user: User) -> None:
    one(user, "workspace-scene").value = "kuka-table"
    assert one(user, "robot-select").value == "kuka-kr6-r900"
    scene = km.Scene.load("kuka-table")
    await user.should_see("no collision · " + scene.distance(self_pairs=False).words())
    one(user, "workspace-scene").value = "(none)"
    await user.should_see("no scene")
    assert one(user, "robot-select").value == "kuka-kr6-r900"


@pytest.mark.asyncio
async def test_choosing_another_robot_closes_the_scene_in_the_card_too(user: User) -> None:
    """The arm is no robot of the scene any more: the card says no scene is open, with no seat,
    obstacle or self-pair controls left from the scene closed."""
    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    one(user, "robot-select").value = "puma560"
    await user.should_see("no scene")
    assert one(user, "workspace-scene").value == "(none)"  # fails before the fix: "two-braccios"
    for marker in ("workspace-seat", "workspace-obstacle", "workspace-self-pairs"):
        await user.should_not_see(marker=marker)


def test_a_session_keeps_its_scene_only_while_the_arm_is_its_seat() -> None:
    from kinematica.app.state import Session

    s = Session()
    s.scene, s.seat = km.Scene.load("two-braccios"), "left"
    s.set_robot("braccio")  # the left seat's robot: the scene stays open
    assert s.scene is not None and s.seat == "left"
    s.set_robot("puma560")
    assert s.scene is None and s.seat is None


@pytest.mark.asyncio
async def test_the_distance_line_names_the_arm_and_an_obstacle_and_self_pairs_on_request(user: User) -> None:
    """kuka-table's line had read "kuka/base is 0.0356 m from kuka/link2" whatever A2 and A3 did:
    an adjacent pair of the arm's own links is always the nearest. It names the arm and the table
    or the box now, and moves with the arm; the checkbox brings the self pairs back."""
    one(user, "workspace-scene").value = "kuka-table"
    scene = km.Scene.load("kuka-table")
    kuka = km.load("kuka-kr6-r900")
    await user.should_see("no collision · " + scene.distance(self_pairs=False).words())  # before: kuka/base ...
    assert "from table" in scene.distance(self_pairs=False).words()
    q = kuka.q_home.copy()
    q[1], q[2] = np.radians(-20.0), np.radians(-60.0)  # A2 and A3 lower the wrist towards the table
    for i, v in enumerate(np.degrees(q)):
        one(user, f"joint-{i + 1}-slider").value = v
    words = scene.distance({"kuka": q}, self_pairs=False).words()
    assert words != scene.distance(self_pairs=False).words() and "table" in words, words
    await user.should_see(words)
    one(user, "workspace-self-pairs").value = True
    await user.should_see(scene.distance({"kuka": q}).words())


@pytest.mark.asyncio
async def test_ik_solutions_that_collide_are_marked(user: User) -> None:
    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    braccio = km.load("braccio")
    p = km.fk(braccio, np.radians(DOWN))[:3, 3]  # the tool 18.5 mm into the table top
    await solve(user, "Solved", x=float(p[0]), y=float(p[1]), z=float(p[2]))
    marks = user.find(marker="solution-1-collides").elements
    assert len(marks) == 1 and next(iter(marks)).text.startswith("collides: left/")
    assert "with table" in next(iter(marks)).text


@pytest.mark.asyncio
async def test_the_player_stops_at_the_first_collision(user: User) -> None:
    import asyncio

    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    user.find(marker="pose-add").click()  # home
    for i, v in enumerate(DOWN):
        one(user, f"joint-{i + 1}-slider").value = v
    user.find(marker="pose-add").click()  # into the table
    one(user, "plan-seconds").value = 0.5
    await user.should_see("2 poses, 0.5 s, joint space.")
    user.find(marker="pose-1-goto").click()
    user.find(marker="player-play").click()
    await asyncio.sleep(1.0)
    await user.should_see("Stopped at the first collision")
    t = float(one(user, "player-time").text.split("/")[0])
    assert 0 < t < 0.5
    # the same motion (the player's plan: a quintic at rest on both poses) checked by the library
    from kinematica.app.playlist import STEPS

    b = km.load("braccio")
    scene = km.Scene.load("two-braccios")
    motion = km.trajectory.quintic(b.q_home, np.radians(DOWN), 0.5, steps=STEPS, robot=b)
    rep = km.scene.check_trajectory(scene, {"left": motion})
    assert rep.colliding and abs(t - rep.time) < 0.006  # the player shows t to 0.01 s
    await user.should_see("COLLISION: " + "; ".join(f"{a} with {c}" for a, c in rep.collisions))


@pytest.mark.asyncio
async def test_the_sliders_drive_one_arm_at_a_time(user: User) -> None:
    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    one(user, "joint-1-slider").value = 30
    one(user, "workspace-seat").value = "right"
    assert one(user, "workspace-seat").value == "right"
    home = np.degrees(km.load("braccio").q_home)
    np.testing.assert_allclose([one(user, f"joint-{i + 1}-slider").value for i in range(5)], home, atol=1e-9)
    one(user, "workspace-seat").value = "left"  # back: the left arm is where it was left
    assert one(user, "joint-1-slider").value == pytest.approx(30, abs=1e-9)  # through rad and back


@pytest.mark.asyncio
async def test_an_obstacle_moved_by_numbers(user: User) -> None:
    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    assert one(user, "workspace-obstacle").value == "table"
    assert one(user, "workspace-obstacle-z").value == -10
    one(user, "workspace-obstacle-z").value = 120  # the table rises into the arm
    scene = km.Scene.load("two-braccios")
    T = np.array(scene.obstacles["table"].pose)
    T[2, 3] = 120
    scene.move("table", T)
    expected = scene.check({"left": km.load("braccio").q_home})
    assert expected.colliding
    await user.should_see("COLLISION: " + "; ".join(f"{a} with {b}" for a, b in expected.collisions))


@pytest.mark.asyncio
async def test_an_obstacle_dragged_in_the_view(user: User) -> None:
    from nicegui import events

    one(user, "workspace-scene").value = "two-braccios"
    await user.should_see("no collision")
    scene = one(user, "arm-scene")
    table = next(o for o in scene.objects.values() if o.type == "box" and (o.color, o.opacity) == OBSTACLE)
    assert table.draggable_
    # dropped 100 mm further along y (the view: the left arm's base frame, 100 mm squares)
    args = {"type": "dragend", "object_id": table.id, "object_name": table.name, "x": 2.5, "y": 1.0, "z": -0.1}
    scene._handle_drag(events.GenericEventArguments(sender=scene, client=scene.client, args=args))
    assert one(user, "workspace-obstacle-y").value == pytest.approx(100, abs=1e-9)
    assert one(user, "workspace-obstacle-x").value == pytest.approx(0, abs=1e-9)  # the world's x
    assert one(user, "workspace-obstacle-z").value == pytest.approx(-10, abs=1e-9)


def test_the_workspace_is_saved_with_the_project() -> None:
    from kinematica.app import project
    from kinematica.app.state import Session

    s = Session()
    s.scene, s.seat = km.Scene.load("two-braccios"), "left"
    reach = np.radians([0, -60, -30, -30, 0])
    s.scene.set_q("right", reach)
    T = np.array(s.scene.obstacles["table"].pose)
    T[2, 3] = 35.0
    s.scene.move("table", T)
    again = project.loads(project.dumps(s))
    assert again.seat == "left" and list(again.scene.robots) == ["left", "right"]
    np.testing.assert_allclose(again.scene.robots["right"].q, reach, atol=1e-12)
    np.testing.assert_allclose(again.scene.obstacles["table"].pose, T, atol=1e-12)
    assert again.scene.excluded() == s.scene.excluded()
    data = project.to_dict(s)
    data["workspace"]["seat"] = "middle"
    with pytest.raises(project.ProjectError, match="workspace.seat: 'middle' is not a robot of the scene"):
        project.from_dict(data)
    data["workspace"]["scene"]["obstacles"][0]["size"] = [1, 2]
    with pytest.raises(project.ProjectError, match=r"obstacles\[0\]\.size"):
        project.from_dict(data)
    assert "workspace" not in project.to_dict(Session())


@pytest.mark.asyncio
async def test_a_reload_keeps_the_workspace(user: User) -> None:
    one(user, "workspace-scene").value = "two-braccios"
    one(user, "workspace-seat").value = "right"
    await user.should_see("no collision")
    await user.open("/")
    assert one(user, "workspace-scene").value == "two-braccios"
    assert one(user, "workspace-seat").value == "right"
    await user.should_see("no collision · ")


@pytest.mark.asyncio
async def test_a_scene_file_opens_and_a_bad_one_is_refused_in_words(user: User) -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    text = ("name: my-cell\nlength_unit: m\nrobots:\n  - {name: arm, robot: kuka-kr6-r900}\n"
            "obstacles:\n  - {name: post, shape: cylinder, radius: 0.05, length: 1.0, pose: {xyz: [0.4, 0.3, 0.5]}}\n")
    user.find(marker="open-scene-file").click()
    await user.should_see(marker="scene-upload")
    bad = text.replace("radius: 0.05, ", "")
    await one(user, "scene-upload").handle_uploads([SmallFileUpload("bad.yaml", "text/yaml", bad.encode())])
    await user.should_see("Not opened — bad.yaml line 6: obstacles[0]: a cylinder needs 'radius'")
    await one(user, "scene-upload").handle_uploads([SmallFileUpload("my-cell.yaml", "text/yaml", text.encode())])
    scene = km.scene.read_scene_text(text, "my-cell.yaml")
    await user.should_see("no collision · " + scene.distance(self_pairs=False).words())  # (the upload is handled in a task)
    assert one(user, "workspace-scene").value == "my-cell"
    assert one(user, "robot-select").value == "kuka-kr6-r900"
