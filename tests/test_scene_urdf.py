"""Link collision geometry from a URDF's <collision> elements (issue 15): primitives, meshes
found through package:// and relative paths, the fallback to capsules, and the Panda of
example-robot-data against Pinocchio's own geometry model (coal underneath both)."""

from __future__ import annotations

import sysconfig
import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh

import kinematica as km
from kinematica import spatial

SHARE = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share"
PANDA_URDF = SHARE / "example-robot-data/robots/panda_description/urdf/panda.urdf"

ARM = """<robot name="two-link">
  <link name="base"><collision><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="upper"><collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.04" length="0.5"/></geometry></collision></link>
  <link name="fore">
    <collision><origin xyz="0.2 0 0" rpy="0 1.5707963267948966 0"/><geometry><mesh filename="{mesh}"/></geometry></collision>
    <collision><origin xyz="0.4 0 0"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="fore"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
</robot>"""


def test_urdf_collision_primitives_and_meshes_place_like_fk(tmp_path):
    (tmp_path / "meshes").mkdir()
    trimesh.creation.box((0.4, 0.06, 0.06)).export(tmp_path / "meshes" / "fore.stl")
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM.format(mesh="meshes/fore.stl"), encoding="utf-8")  # relative to the URDF
    robot = km.load(urdf)
    s = km.Scene()
    s.add_robot("a", robot)
    g = s.geometry("a")
    assert g.source == ("urdf", "urdf", "urdf") and g.radius is None
    assert [p.shape.kind for p in g.parts] == ["box", "cylinder", "mesh", "sphere"]
    # the sphere at fore's x = 0.4: a ball placed by FK there collides; moved 0.05 + 0.02 + margin
    # further along fore's x it is `margin` away (sphere-sphere: closed form in coal)
    q = np.array([0.7, -0.4])
    F = km.fk_frames(robot, q)
    centre = (F[2] @ [0.4, 0, 0, 1])[:3]
    x_fore = F[2][:3, 0]
    s.add_obstacle("ball", "sphere", spatial.transl(centre), radius=0.02)
    assert ("a/fore", "ball") in s.check({"a": q}).collisions
    s.move("ball", spatial.transl(centre + x_fore * (0.05 + 0.02 + 0.013)))
    d = s.distance({"a": q})
    assert d.pair == ("a/fore", "ball") and abs(d.min_distance - 0.013) < 1e-9


def test_missing_urdf_mesh_falls_back_to_capsules_with_a_warning(tmp_path):
    urdf = tmp_path / "arm.urdf"
    text = ARM.replace('<cylinder radius="0.04" length="0.5"/>', '<mesh filename="package://nowhere/upper.stl"/>')
    urdf.write_text(text.format(mesh="fore.stl"), encoding="utf-8")
    trimesh.creation.box((0.4, 0.06, 0.06)).export(tmp_path / "fore.stl")
    with pytest.warns(km.URDFWarning, match="collision mesh package://nowhere/upper.stl not found: capsules"):
        robot = km.load(urdf)
    g = km.scene.linkgeom.link_geometry(robot)
    assert g.source == ("urdf", "capsule", "urdf")
    capsule = next(p for p in g.parts if p.body == 1)
    assert capsule.shape.kind == "capsule" and capsule.shape.length == pytest.approx(0.5, abs=1e-12)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_panda_urdf_meshes_agree_with_pinocchio():
    """Every checked link pair of the example-robot-data Panda (meshes for the links, boxes for
    the fingers, fingers held at 0), at 30 random configurations: the colliding pairs equal
    Pinocchio's computeCollisions and the minimum distance its computeDistances to 1e-9 m
    (both run coal on the same meshes; the broad phase must not change the answer)."""
    pin = pytest.importorskip("pinocchio")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)  # fingers held at 0: said, and expected
        robot = km.load(PANDA_URDF)
    s = km.Scene()
    s.add_robot("p", robot)
    assert not s.check({"p": km.load("panda").home}).colliding  # Franka's ready pose is clear
    model = pin.buildModelFromUrdf(str(PANDA_URDF))
    geom = pin.buildGeomFromUrdf(model, str(PANDA_URDF), pin.GeometryType.COLLISION, package_dirs=[str(SHARE)])
    body = [min(g.parentJoint, 7) for g in geom.geometryObjects]  # finger joints ride on link 7
    c = s.compiled()
    checked = {tuple(sorted((c.collider.bodies[a], c.collider.bodies[b]))) for a, b in zip(c.collider.pa, c.collider.pb)}
    for i in range(len(body)):
        for j in range(i + 1, len(body)):
            if tuple(sorted((body[i], body[j]))) in checked:
                geom.addCollisionPair(pin.CollisionPair(i, j))
    data, gdata = model.createData(), pin.GeometryData(geom)
    Q = np.random.default_rng(0).uniform(robot.limits[:, 0], robot.limits[:, 1], (30, 7))
    ours, dist = s.check({"p": Q}), s.distance({"p": Q})
    assert 0 < ours.colliding.sum() < 30
    for k, q in enumerate(Q):
        qq = np.concatenate([q, [0.0, 0.0]])
        pin.computeCollisions(model, data, geom, gdata, qq, False)
        pin.computeDistances(model, data, geom, gdata, qq)
        theirs = set()
        for n, cp in enumerate(geom.collisionPairs):
            if gdata.collisionResults[n].isCollision():
                a, b = sorted((body[cp.first], body[cp.second]))
                theirs.add((c.names[a], c.names[b]))
        assert set(ours.collisions[k]) == theirs
        dmin = min(r.min_distance for r in gdata.distanceResults)
        assert abs(dist.min_distance[k] - dmin) < 1e-9


TIAGO_URDF = SHARE / "example-robot-data/robots/tiago_description/robots/tiago_no_hand.urdf"
TIAGO_Q = [0.002166, 1.247355, 0.512361, -1.845942, 1.956511, 0.238673, 0.803991, 2.077189]  # issue 30


@pytest.mark.skipif(not TIAGO_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_tiago_base_above_the_chain_collides_as_pinocchio_says():
    """The TIAGo's chain (torso lift + 7 arm joints) hangs from torso_fixed_link, below the root
    base_footprint: the chassis, torso column, casters, wheels and antennas are fixed to the root
    and belong to body 0 ("base") with it. At 300 random configurations and the one of issue 30
    the touching shapes equal Pinocchio's computeCollisions on the same URDF (coal under both).

    Mapping the two: Pinocchio's geometry objects sit on its joints (the wheels and head on joints
    of their own, held at 0 as from_urdf holds them); each maps to our body by walking up its joint
    tree to the first joint of our chain (the root: body 0). Pinocchio is given a collision pair
    for every two geometries whose bodies we check (not the same body: rigid together; not
    adjacent bodies, excluded by our self-pair rule — none here is 'always touching'), and each
    answer is compared at the level of the links the touching shapes belong to (check(q,
    shapes=True)), so like is compared with like."""
    pin = pytest.importorskip("pinocchio")
    with pytest.warns(km.OffChainBodiesWarning, match="collision shapes of the links behind 2 movable joints off "
                      "the chain are held at wheel_right_joint = 0 rad, wheel_left_joint = 0 rad"):
        robot = km.load(TIAGO_URDF)
    s = km.Scene()
    s.add_robot("t", robot)
    g = s.geometry("t")
    base = {p.link for p in g.parts if p.body == 0}
    assert {"base_link", "torso_fixed_column_link", "caster_back_left_2_link", "wheel_left_link",
            "base_antenna_left_link", "torso_fixed_link"} <= base
    assert sum(p.body == 0 for p in g.parts) == 12  # Pinocchio's 10 on the universe, wheels' 2 on their joints
    rep = s.check({"t": TIAGO_Q}, shapes=True)
    assert rep.collisions == [("t/base", "t/arm_1_link")]
    assert rep.shapes == [("t/torso_fixed_column_link", "t/arm_1_link")]
    assert "torso_fixed_column_link with t/arm_1_link" in str(rep)

    model = pin.buildModelFromUrdf(str(TIAGO_URDF))
    geom = pin.buildGeomFromUrdf(model, str(TIAGO_URDF), pin.GeometryType.COLLISION, package_dirs=[str(SHARE)])
    chain = {name: k + 1 for k, name in enumerate(robot.joint_names)}

    def body_of(j: int) -> int:
        while j != 0 and model.names[j] not in chain:
            j = model.parents[j]
        return 0 if j == 0 else chain[model.names[j]]

    body = [body_of(o.parentJoint) for o in geom.geometryObjects]
    link = ["t/" + model.frames[o.parentFrame].name for o in geom.geometryObjects]
    c = s.compiled()
    checked = {tuple(sorted((int(c.collider.bodies[a]), int(c.collider.bodies[b]))))
               for a, b in zip(c.collider.pa, c.collider.pb)}
    for i in range(len(body)):
        for j in range(i + 1, len(body)):
            if body[i] != body[j] and tuple(sorted((body[i], body[j]))) in checked:
                geom.addCollisionPair(pin.CollisionPair(i, j))
    assert len(geom.collisionPairs) == c.collider.n_pairs  # the same shape pairs, one to one
    data, gdata = model.createData(), pin.GeometryData(geom)
    Q = np.vstack([TIAGO_Q, np.random.default_rng(0).uniform(robot.limits[:, 0], robot.limits[:, 1], (300, 8))])
    ours = s.check({"t": Q}, shapes=True)
    assert 50 < ours.colliding.sum() < 250  # both answers occur often: the comparison has teeth
    for k, q in enumerate(Q):
        qq = pin.neutral(model)  # wheels and head at 0
        for name, b in chain.items():
            qq[model.joints[model.getJointId(name)].idx_q] = q[b - 1]
        pin.computeCollisions(model, data, geom, gdata, qq, False)
        theirs = {tuple(sorted((link[cp.first], link[cp.second]))) for n, cp in enumerate(geom.collisionPairs)
                  if gdata.collisionResults[n].isCollision()}
        assert {tuple(sorted(p)) for p in ours.shapes[k]} == theirs, f"q = {q.tolist()}"
        assert bool(ours.colliding[k]) == bool(theirs)
