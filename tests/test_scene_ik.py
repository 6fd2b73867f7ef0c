"""Collision-aware IK (issue 15): `km.ik` and `km.ik_all` with `scene=`."""

from __future__ import annotations

import numpy as np
import pytest

import kinematica as km
from kinematica import spatial

KUKA = km.load("kuka-kr6-r900")
Q = np.array([0.3, 0.2, -0.4, 0.5, 0.6, 0.7])
T = km.fk(KUKA, Q)


def post_at_elbow() -> tuple[km.Scene, np.ndarray]:
    """A small sphere where the KUKA's elbow (joint 3's origin) is at Q: the branch through Q
    collides, other branches of the same target do not."""
    F = km.fk_frames(KUKA, Q)
    elbow = (F[2] @ KUKA.before[2])[:3, 3]
    s = km.Scene()
    s.add_robot("kuka", KUKA)
    s.add_obstacle("post", "sphere", spatial.transl(elbow), radius=0.03)
    return s, elbow


def test_ik_all_marks_colliding_solutions_and_can_drop_them():
    s, elbow = post_at_elbow()
    plain = km.ik_all(KUKA, T)
    marked = km.ik_all(KUKA, T, scene=s)
    assert len(marked) == len(plain) >= 4
    hits = [r for r in marked if r.collision is not None]
    assert hits and len(hits) < len(marked)
    for r in marked:
        # independent of the scene's verdict: the elbow joint's origin vs the post centre
        e = (km.fk_frames(KUKA, r.q)[2] @ KUKA.before[2])[:3, 3]
        if np.linalg.norm(e - elbow) < 1e-9:
            assert r.collision == ("kuka/link2", "post") and not r.success
            assert "kuka/link2 collides with post" in r.reason
        if r.collision is None:
            assert r.success and r.position_error < 1e-6
    dropped = km.ik_all(KUKA, T, scene=s, colliding="drop")
    assert len(dropped) == len(marked) - len(hits) and all(r.collision is None for r in dropped)


def test_ik_finds_a_collision_free_solution_when_the_first_collides():
    s, elbow = post_at_elbow()
    first = km.ik(KUKA, T, q0=Q + 0.01)
    assert np.allclose(first.q, Q, atol=1e-6)  # without the scene: the branch through the post
    res = km.ik(KUKA, T, q0=Q + 0.01, scene=s)
    assert res.success and res.collision is None
    assert km.fk(KUKA, res.q)[:3, 3] == pytest.approx(T[:3, 3], abs=1e-6)
    assert not s.check({"kuka": res.q}).colliding


def test_ik_marks_a_target_inside_an_obstacle():
    s = km.Scene.load("kuka-table")
    r = s.robots["kuka"].robot
    box = s.obstacles["box"].pose[:3, 3]
    targets = np.stack([spatial.transl(box + [0, 0, 0.02]) @ spatial.rotx(np.pi),   # inside the box
                        spatial.transl(box + [0, 0, 0.25]) @ spatial.rotx(np.pi)])  # above it
    res = km.ik(r, targets, scene=s)
    assert list(res.success) == [False, True]
    assert res.collision[0] is not None and "box" in res.collision[0] and res.collision[1] is None
    assert res.reason[0].startswith("reaches the target, but") and res.position_error[0] < 1e-6
    one = km.ik(r, targets[0], scene=s)
    assert not one.success and one.collision == res.collision[0]
    assert one.to_dict()["collision"] == list(one.collision)


def test_scene_argument_must_name_the_robot():
    s = km.Scene.load("two-braccios")  # both robots are the same bundled Robot object
    b = s.robots["left"].robot
    p = km.fk(b, np.radians([0, -30, -30, -30, 0]))[:3, 3]
    with pytest.raises(ValueError, match="appears as left, right.*for_robot"):
        km.ik(b, p, scene=s)
    res = km.ik(b, p, scene=s.for_robot("left", {"right": b.q_home}))
    assert res.success and res.collision is None
    with pytest.raises(ValueError, match="not one of its robots"):
        km.ik(KUKA, T, scene=s)
    with pytest.raises(ValueError, match="has 5 joints, the robot solved has 6"):
        km.ik(KUKA, T, scene=s.for_robot("left"))
    with pytest.raises(TypeError, match="scene: expected a Scene"):
        km.ik_all(KUKA, T, scene="two-braccios")
    with pytest.raises(km.SceneError, match="unknown robot 'middle'"):
        s.for_robot("middle")


def test_batched_ik_re_solves_only_the_colliding_targets():
    """A batch: the target whose first solution goes through the post is re-solved onto a
    clear branch, the other target (far from the post) keeps its first answer."""
    s, _ = post_at_elbow()
    other = km.fk(KUKA, [2.0, 1.0, 0.2, 0.0, 0.5, 0.0])
    q0 = np.stack([Q + 0.01, [2.0, 1.0, 0.2, 0.0, 0.5, 0.0]])
    plain = km.ik(KUKA, np.stack([T, other]), q0=q0)
    res = km.ik(KUKA, np.stack([T, other]), q0=q0, scene=s)
    assert list(res.success) == [True, True] and list(res.collision) == [None, None]
    assert not np.allclose(res.q[0], plain.q[0], atol=1e-3)  # another branch
    np.testing.assert_array_equal(res.q[1], plain.q[1])
    assert not s.check({"kuka": res.q}).colliding.any()
    assert np.allclose(km.fk(KUKA, res.q)[:, :3, 3], [T[:3, 3], other[:3, 3]], atol=1e-6)
