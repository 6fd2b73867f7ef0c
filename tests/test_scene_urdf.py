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
