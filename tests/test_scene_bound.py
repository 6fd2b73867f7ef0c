"""The core's clearance bound for planning (scene/spheres.py, scene/bound.py, src/core/clearance.cpp):
the covering spheres contain every kind of shape, and the bound is never above coal's distance
(never positive where coal finds a contact) — on the bundled scenes, with the other robot held
still, with every primitive and a mesh as obstacles, and on the Panda's URDF collision meshes.
Oracle: coal through `scene.distance` (exact), and points drawn inside each shape."""

from __future__ import annotations

import sysconfig
import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica import spatial
from kinematica.scene.bound import ClearanceBound
from kinematica.scene.shapes import make_shape, mesh_data
from kinematica.scene.spheres import cover

SHARE = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share"
PANDA_URDF = SHARE / "example-robot-data/robots/panda_description/urdf/panda.urdf"
EPS = 1e-12  # m: a point on a sphere's surface, rounded


def points_inside(shape, rng, count=4000):
    """Points drawn inside `shape` (its own frame), surface points included."""
    u = rng.uniform(-1, 1, (count, 3))
    if shape.kind == "box":
        return u * 0.5 * np.asarray(shape.size)
    if shape.kind == "sphere":
        return u / np.maximum(np.linalg.norm(u, axis=1), 1.0)[:, None] * shape.radius
    if shape.kind == "cylinder":
        xy = u[:, :2] / np.maximum(np.linalg.norm(u[:, :2], axis=1), 1.0)[:, None] * shape.radius
        return np.column_stack([xy, u[:, 2] * shape.length / 2])
    # capsule: within R of a point of its axis segment (the caps' far points among them)
    axis = np.column_stack([np.zeros((count, 2)), u[:, 2] * shape.length / 2])
    v = rng.normal(size=(count, 3))
    return axis + v / np.linalg.norm(v, axis=1)[:, None] * shape.radius * rng.uniform(0, 1, (count, 1)) ** 0.3


def assert_covered(shape, P):
    c, r = cover(shape)
    gap = np.min(np.linalg.norm(P[:, None] - c[None], axis=-1) - r[None], axis=1)
    assert gap.max() <= EPS, (shape, gap.max())
    return c, r


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["box", "sphere", "cylinder", "capsule"]),
       st.lists(st.floats(0.005, 2.0), min_size=3, max_size=3), st.integers(0, 2 ** 31))
def test_covering_spheres_contain_every_primitive(kind, dims, seed):
    if kind == "box":
        shape = make_shape(kind, size=dims)
    elif kind == "sphere":
        shape = make_shape(kind, radius=dims[0])
    else:
        shape = make_shape(kind, radius=dims[0], length=dims[1])
    rng = np.random.default_rng(seed)
    c, r = assert_covered(shape, points_inside(shape, rng))
    # and they are a model, not a bloated ball: no sphere reaches a third of the shape's size beyond it
    size = max(dims) if kind == "box" else dims[0] + (dims[1] / 2 if kind != "sphere" else 0.0)
    assert np.max(np.linalg.norm(c, axis=1) + r) <= 1.4 * size


def test_covering_spheres_contain_a_mesh_and_its_hull(tmp_path):
    rng = np.random.default_rng(4)
    for k, mesh in enumerate([trimesh.creation.capsule(height=0.6, radius=0.05),
                              trimesh.creation.icosphere(subdivisions=2, radius=0.2),
                              trimesh.creation.box(extents=(0.5, 0.08, 0.02))]):
        mesh.apply_transform(spatial.rotx(0.4) @ spatial.roty(0.7))
        path = tmp_path / f"m{k}.stl"
        mesh.export(path)
        shape = make_shape("mesh", path=str(path))
        V = mesh_data(shape)[0]  # (as read: an STL holds float32)
        w = rng.dirichlet(np.ones(4), 3000)  # points of the hull: convex combinations of vertices
        P = np.concatenate([V, np.einsum("ij,ijk->ik", w, V[rng.integers(0, len(V), (3000, 4))])])
        assert_covered(shape, P)


def panda_scene(table: bool):
    """example-robot-data's Panda (its URDF collision meshes) as robot "p", on a box table or not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", km.URDFWarning)  # fingers held at 0: said, and expected
        robot = km.load(PANDA_URDF)
    s = km.Scene()
    s.add_robot("p", robot)
    if table:
        s.add_obstacle("table", "box", pose=spatial.transl([0.5, 0.0, 0.2]), size=(0.4, 0.8, 0.05))
    return s, robot


def random_states(robot, rng, count):
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -np.pi)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], np.pi)
    return rng.uniform(lo, hi, (count, robot.n))


def assert_bound_holds(scene, robot, Q, refine=0.0):
    """Bound ≤ coal's distance where coal finds the robot clear, ≤ 0 where it finds a contact;
    returns (free by the bound, free by coal) as fractions."""
    from kinematica.scene.query import joint_batch

    bound = ClearanceBound.build(scene, robot, refine=refine).bound(Q)
    # coal's distance over the pairs that involve the robot (another robot's own links, held
    # still, can be nearer each other than anything of this one: not what the bound measures)
    c = scene.compiled()
    mine = c.slices[robot]
    only = [mine.start <= a < mine.stop or mine.start <= b < mine.stop for a, b in c.collider.pair_bodies]
    found = c.collider.distance(c.body_poses(joint_batch(scene, {robot: Q})[0], len(Q)), np.array(only))
    exact = np.array([np.inf if f is None else f.distance for f in found])
    assert np.all(bound <= np.maximum(exact, 0.0) + EPS), np.max(bound - np.maximum(exact, 0.0))
    return float(np.mean(bound > 0)), float(np.mean(exact > 0))


@pytest.mark.parametrize("name", ["kuka-table", "two-braccios"])
def test_the_bound_never_exceeds_coal_on_the_bundled_scenes(name):
    scene = km.Scene.load(name)
    for robot in scene.robots:  # each in turn, the other held still
        by_bound, by_coal = assert_bound_holds(scene, robot, random_states(scene.robots[robot].robot,
                                                                          np.random.default_rng(2), 1500))
        assert by_bound >= 0.9 * by_coal  # tight enough that coal sees few of the free states


def test_the_bound_never_exceeds_coal_against_every_obstacle_kind(tmp_path):
    mesh = trimesh.creation.icosphere(subdivisions=1, radius=0.1)
    mesh.export(tmp_path / "ball.stl")
    s = km.Scene()
    s.add_robot("arm", "puma560", base=spatial.rotz(0.3))
    s.add_obstacle("box", "box", pose=spatial.transl([0.5, -0.2, 0.3]) @ spatial.rotz(0.5), size=(0.2, 0.1, 0.3))
    s.add_obstacle("ball", "sphere", pose=spatial.transl([-0.4, 0.3, 0.5]), radius=0.12)
    s.add_obstacle("post", "cylinder", pose=spatial.transl([0.2, 0.5, 0.2]) @ spatial.rotx(0.3), radius=0.05, length=0.6)
    s.add_obstacle("rail", "capsule", pose=spatial.transl([-0.3, -0.4, 0.1]) @ spatial.roty(1.2), radius=0.04, length=0.5)
    s.add_obstacle("rock", "mesh", pose=spatial.transl([0.0, -0.6, 0.6]), path=str(tmp_path / "ball.stl"))
    assert_bound_holds(s, "arm", random_states(s.robots["arm"].robot, np.random.default_rng(5), 3000))


def test_a_robot_in_millimetres_in_a_scene_in_metres():
    s = km.Scene()
    s.add_robot("b", "braccio", base=spatial.transl([0.1, 0.0, 0.0]))
    s.add_obstacle("wall", "box", pose=spatial.transl([0.35, 0.0, 0.2]), size=(0.05, 0.6, 0.4))
    assert_bound_holds(s, "b", random_states(s.robots["b"].robot, np.random.default_rng(6), 2000))


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_the_bound_never_exceeds_coal_on_the_pandas_collision_meshes():
    s, robot = panda_scene(table=True)
    assert_bound_holds(s, "p", random_states(robot, np.random.default_rng(7), 400))


def test_nan_states_are_refused_in_words():
    b = ClearanceBound.build(km.Scene.load("kuka-table"), "kuka")
    with pytest.raises(km.SceneError, match=r"q\['kuka'\]: contains NaN or infinity"):
        b.bound(np.full((3, 6), np.nan))


def test_an_edge_the_bound_clears_is_free_under_coal_at_ten_times_the_resolution():
    # the core's one-call edge certificate against coal's own sampling of the same straight motion
    scene = km.Scene.load("kuka-table")
    robot = scene.robots["kuka"].robot
    rng = np.random.default_rng(8)
    A = random_states(robot, rng, 100)
    B = np.clip(A + rng.normal(0, 0.4, A.shape), robot.limits[:, 0], robot.limits[:, 1])
    cleared, _ = _edges_cleared_are_free(scene, "kuka", 0.02, A, B, 0.002)
    assert cleared >= 20  # the certificate is not vacuous


def _edges_cleared_are_free(scene, robot, resolution, A, B, fine):
    """Every edge a → b (rows of A, B) the core's certificate clears is free under coal's own
    sampling at `fine` (scene unit). Returns (edges it cleared, edges coal finds touching the
    scene between two free ends: those a certificate that trusts its ends too far would pass).
    `robot`: a name, or a group's names (their states side by side)."""
    from kinematica.plan.edges import DEPTH, EdgeChecker
    from kinematica.plan.group import split
    from kinematica.scene import check_trajectory

    names = (robot,) if isinstance(robot, str) else robot
    lo = np.concatenate([scene.robots[n].robot.limits[:, 0] for n in names])
    hi = np.concatenate([scene.robots[n].robot.limits[:, 1] for n in names])
    checker = EdgeChecker.build(scene, robot, lo, hi, resolution)
    cleared = crossing = 0
    for a, b in zip(A, B, strict=True):
        clear, states = checker.fast.edge_clear(a, b, checker.weights, checker.resolution, DEPTH)
        assert states >= 1
        paths = {n: (np.array([0.0, 1.0]), np.stack([qa, qb]))
                 for (n, qa), qb in zip(split(scene, robot, a).items(), split(scene, robot, b).values(), strict=True)}
        rep = check_trajectory(scene, paths, resolution=fine)
        assert not (clear and rep.colliding), (a, b, str(rep))
        cleared += bool(clear)
        ends = scene.check({n: np.stack([x[1][0], x[1][-1]]) for n, x in paths.items()}).colliding
        crossing += bool(rep.colliding and not np.any(ends))
    return cleared, crossing


def test_an_arm_swept_past_a_post_is_never_cleared_through_it():
    # the core clears a piece pair by pair, a link against an obstacle by the joints before the
    # link only: the base joint swings the Puma past a thin post (its own pairs allowed, so the
    # post alone decides), and every edge coal finds crossing it must be refused. Measured: 23
    # of 80 cross it between free ends; an edge's L_p taken at 0.2 of itself, or without the base
    # joint, passes some of them
    s = km.Scene()
    s.add_robot("arm", "puma560")
    s.allow("arm", "arm")
    s.add_obstacle("post", "box", pose=spatial.transl([0.55, 0.0, 0.3]), size=(0.05, 0.05, 0.6))
    A = random_states(s.robots["arm"].robot, np.random.default_rng(3), 80)
    B = A.copy()
    A[:, 0], B[:, 0] = -0.6, 0.6
    cleared, crossing = _edges_cleared_are_free(s, "arm", 0.02, A, B, 0.002)
    assert cleared >= 20 and crossing >= 10, (cleared, crossing)


def test_two_arms_swept_past_each_other_are_never_cleared_through_each_other():
    # two robots planned together: a pair across them moves by both robots' joints up to each
    # side. One arm swings its base joint past the other, held still, then the other way round
    # (so both sides' joints count); measured: 9 of 150 edges cross between free ends (125 cleared), and
    # leaving out either robot's joints passes some of them
    g = km.Scene()
    g.add_robot("left", "puma560", base=spatial.transl([0, -0.5, 0]) @ spatial.rotz(np.pi / 2))
    g.add_robot("right", "puma560", base=spatial.transl([0, 0.5, 0]) @ spatial.rotz(-np.pi / 2))
    g.allow("left", "left")
    g.allow("right", "right")
    names = ("left", "right")
    rng = np.random.default_rng(5)
    A = np.concatenate([random_states(g.robots[n].robot, rng, 150) for n in names], axis=1)
    B = A.copy()
    h = len(A) // 2
    A[:h, 0], B[:h, 0], A[:h, 6], B[:h, 6] = -0.7, 0.7, 0.0, 0.0
    A[h:, 6], B[h:, 6], A[h:, 0], B[h:, 0] = -0.7, 0.7, 0.0, 0.0
    cleared, crossing = _edges_cleared_are_free(g, names, 0.02, A, B, 0.002)
    assert cleared >= 50 and crossing >= 4, (cleared, crossing)


def test_an_arm_folding_through_itself_is_never_cleared():
    # the KR6's own pairs: edges across its whole joint box, a third of which fold a link
    # through another between free ends (measured: 25 of 100)
    s = km.Scene()
    s.add_robot("arm", "kuka-kr6-r900")
    rng = np.random.default_rng(4)
    A, B = (random_states(s.robots["arm"].robot, rng, 100) for _ in range(2))
    cleared, crossing = _edges_cleared_are_free(s, "arm", 0.02, A, B, 0.002)
    assert cleared >= 15 and crossing >= 10, (cleared, crossing)


# Two robots turning about z (URDF): "bar", one link that is a 0.6 m bar centred on its axis (its
# middle never moves); "ball", a 5 cm ball on a second joint 0.3 m out, carried 0.3 m back from it
# (at q2 = 0 it sits on the first joint's axis). Each with the post its swing passes through.
SWINGS = {
    "bar": ('<link name="l1"><collision><geometry><box size="0.6 0.01 0.01"/></geometry></collision></link>',
            "", [0.0, 0.2, 0.05]),
    "ball": ('<link name="l1"/>', '<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>'
             '<origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>{limit}</joint><link name="l2"><collision>'
             '<origin xyz="-0.3 0 0"/><geometry><sphere radius="0.01"/></geometry></collision></link>',
             [0.3, -0.3, 0.05]),
}


@pytest.mark.parametrize("which", sorted(SWINGS))
def test_a_link_swung_about_an_axis_near_its_middle_is_never_cleared_through_a_post(tmp_path, which):
    # the certificate bounds a side's speed about joint j by how far it is from j's axis at the
    # piece's ends: the farthest point of its enclosing sphere (a bar centred on its axis has its
    # centre still while its ends sweep), from that joint's own axis (the ball sits on the first
    # joint's axis, 0.3 m from the second's). The last joint swings the link through a post: half
    # the edges cross it between free ends (measured: 20 of 40), and taking the centre's distance,
    # or another axis's, clears them
    link, joint2, post = SWINGS[which]
    limit = '<limit lower="-7" upper="7" effort="1" velocity="1"/>'
    path = tmp_path / f"{which}.urdf"
    path.write_text(f'<robot name="{which}"><link name="base"/>{link}<joint name="j1" type="revolute"><parent '
                    f'link="base"/><child link="l1"/><origin xyz="0 0 0.05"/><axis xyz="0 0 1"/>{limit}</joint>'
                    f'{joint2.format(limit=limit)}</robot>')
    robot = km.load(path)
    s = km.Scene()
    s.add_robot("arm", robot)
    s.add_obstacle("post", "box", pose=spatial.transl(post), size=(0.004, 0.004, 0.3))
    A = np.zeros((40, robot.n))
    A[:, -1] = np.random.default_rng(6).uniform(0.3, 0.8, 40)
    B = A.copy()
    B[:, -1] += np.where(np.arange(40) % 2, 0.4, 1.6)  # half end before the post, half swing past it
    cleared, crossing = _edges_cleared_are_free(s, "arm", 0.01, A, B, 0.001)
    assert cleared >= 10 and crossing >= 15, (cleared, crossing)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_an_edge_the_core_clears_on_the_pandas_meshes_is_free_under_coal():
    # where the spheres fail, the core measures a pair on its convex pieces (GJK with climbed
    # support points) and the wrist on its table: the certificate must still hold on the meshes
    s, robot = panda_scene(table=True)
    rng = np.random.default_rng(22)
    A = random_states(robot, rng, 40)
    B = np.clip(A + rng.normal(0, 0.3, A.shape), robot.limits[:, 0], robot.limits[:, 1])
    cleared, _ = _edges_cleared_are_free(s, "p", 0.01, A, B, 0.001)
    assert cleared >= 8, cleared


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_a_state_the_core_calls_free_is_free_under_coal_and_outside_the_box_is_not():
    # the planner's one-state check (Clearance.state_free: spheres, else convex pieces by GJK
    # stopping early) against coal on the Panda's meshes beside a table: never free where coal
    # finds a contact, and free at nearly every state coal finds free (measured: all 239)
    s, robot = panda_scene(table=True)
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    core = ClearanceBound.build(s, "p", refine=0.01).core
    Q = random_states(robot, np.random.default_rng(5), 300)
    free = np.array([core.state_free(q, lo, hi, 0.01) for q in Q])
    coal_free = ~s.check({"p": Q}).colliding
    assert not np.any(free & ~coal_free)
    assert free.sum() >= 0.95 * coal_free.sum(), (free.sum(), coal_free.sum())
    q = Q[np.flatnonzero(free)[0]]
    assert not core.state_free(np.where(np.arange(len(q)) == 0, hi[0] + 1e-9, q), lo, hi, 0.01)
    assert not core.state_free(np.full(len(q), np.nan), lo, hi, 0.01)


def test_the_bound_of_two_robots_moving_together_never_exceeds_coal():
    # a group planned in one joint space: both robots' states side by side, their pairs across
    scene = km.Scene.load("two-braccios")
    names = tuple(scene.robots)
    rng = np.random.default_rng(9)
    Qs = {n: random_states(scene.robots[n].robot, rng, 2000) for n in names}
    bound = ClearanceBound.build(scene, names).bound(np.concatenate([Qs[n] for n in names], axis=1))
    exact = np.atleast_1d(scene.distance(Qs).min_distance)
    assert np.all(bound <= np.maximum(exact, 0.0) + EPS)
    assert np.mean(bound > 0) >= 0.9 * np.mean(exact > 0)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_a_check_with_a_margin_is_coals_distance_below_the_margin_on_meshes():
    # what plan/edges.py relies on: a state no pair of which is within the margin is at least the
    # margin clear. Oracle: coal's distance, on the Panda's collision meshes (self pairs among
    # them) and a box; a state within 1e-6 m of the margin either way is not counted (coal's GJK
    # and its margin test each round to ~1e-8 of the distance)
    s, robot = panda_scene(table=True)
    Q = random_states(robot, np.random.default_rng(11), 400)
    d = np.atleast_1d(s.distance({"p": Q}).min_distance)
    for margin in (0.0, 0.003, 0.01):  # (some Panda link pairs are never more than a few cm apart)
        hit = np.atleast_1d(s.check({"p": Q}, margin=margin).colliding)
        sure = np.abs(d - margin) > 1e-6
        assert np.array_equal(hit[sure], (d < margin)[sure]), margin
        assert 0 < np.mean(hit) < 1  # both answers occur
    with pytest.raises(km.SceneError, match="margin: expected a length ≥ 0"):
        s.check({"p": Q[0]}, margin=-0.01)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_a_pair_the_spheres_leave_beyond_the_margin_is_beyond_it_under_coal():
    # the planner's broad phase (ClearanceBound.near_pairs): coal looks only at the body pairs it
    # flags, so a pair it does not flag must be at least the margin apart. Oracle: coal's distance
    # per body pair, on the Panda's meshes (self pairs) and a box
    from kinematica.scene.query import joint_batch

    s, robot = panda_scene(table=True)
    Q = random_states(robot, np.random.default_rng(12), 60)
    c = s.compiled()
    poses = c.body_poses(joint_batch(s, {"p": Q})[0], len(Q))
    bound = ClearanceBound.build(s, "p")
    col = c.collider
    body_pair = [col.pair_bodies.index(tuple(sorted((int(col.bodies[i]), int(col.bodies[j])))))
                 for i, j in zip(col.pa, col.pb)]  # each part pair's body pair
    for margin in (0.0, 0.01):
        parts = bound.near_pairs(Q, margin)
        assert parts.shape == (len(Q), col.n_pairs) and 0 < parts.mean() < 1
        near = np.zeros((len(Q), len(col.pair_bodies)), bool)  # a body pair is near if any of its part pairs is
        for k, bp in enumerate(body_pair):
            near[:, bp] |= parts[:, k]
        for k in range(near.shape[1]):
            only = np.zeros(near.shape[1], bool)
            only[k] = True
            d = np.array([f.distance for f in c.collider.distance(poses, only)])
            assert np.all(d[~near[:, k]] >= margin - EPS), (c.collider.pair_bodies[k], margin)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_the_wrists_table_keeps_the_bound_below_coal_and_proves_more_states_free(monkeypatch):
    # the Panda's forearm and hand (joints 6 and 7 between them) are ~2 cm apart at the median
    # pose, within any sphere model's slack: scene/pairtable.py tabulates their exact distance.
    # Oracle: coal's distance (the bound never above it), and the same bound without tables —
    # both on the spheres alone (the convex pieces, which separate this pair anyway, left out)
    import kinematica.scene.bound as bound_module

    s, robot = panda_scene(table=False)
    Q = random_states(robot, np.random.default_rng(13), 300)
    monkeypatch.setattr(bound_module, "placed_pieces", lambda shape, placement, slabs=False: [])
    with_tables, by_coal = assert_bound_holds(s, "p", Q)
    monkeypatch.setattr(bound_module, "CLOSE", 2.0)  # no pair touches at 200 % of the probes: no table
    without, _ = assert_bound_holds(s, "p", Q)
    assert with_tables >= without + 0.2 and with_tables >= 0.4 * by_coal, (with_tables, without, by_coal)  # seen: 0.44, 0.03, 0.88


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_a_table_is_measured_on_the_pieces_and_by_coal_only_where_they_touch(monkeypatch):
    # scene/pairtable.py: any lower bound serves at a grid point, so the wrist's grid is measured by
    # the core on the convex pieces and coal only where they touch. Oracle: the table made by coal
    # on every point — never below the mixed one, and equal where coal was asked (measured: coal on
    # 11 % of the points)
    import kinematica.scene.bound as bound_module
    import kinematica.scene.pairtable as pt

    s, _ = panda_scene(table=False)
    monkeypatch.setattr(bound_module, "CLOSE", 2.0)  # the bound without tables: its pieces alone
    core = ClearanceBound.build(s, "p").core
    start = s.compiled().slices["p"].start
    pairs = [(start + a, start + b) for a, b in zip(core.self_pairs[::2], core.self_pairs[1::2], strict=True)]
    k = pairs.index((start + 5, start + 7))  # the forearm and the hand: joints 6 and 7 between them
    monkeypatch.setattr(pt, "_MADE", {})
    exact = pt._table(s, "p", pairs[k], (5, 6))
    monkeypatch.setattr(pt, "_MADE", {})
    asked = []
    mixed = pt._table(s, "p", pairs[k], (5, 6), lambda Q: (asked.append(core.pair_bounds(Q, k)), asked[-1])[1])
    for a, b in zip(exact[:3], mixed[:3], strict=True):
        assert np.array_equal(a, b)  # the same grid
    lb = asked[0].reshape(exact[3].shape)
    assert np.all(mixed[3] <= exact[3] + 1e-12) and np.all(lb <= exact[3] + 1e-9)
    touch = ~(lb > 0)
    assert np.array_equal(mixed[3][touch], exact[3][touch]) and np.array_equal(mixed[3][~touch], lb[~touch])
    assert 0.01 < touch.mean() < 0.3, touch.mean()
    with pytest.raises(IndexError):
        core.pair_bounds(np.zeros((2, 6)), k)
    with pytest.raises(IndexError):
        core.pair_bounds(np.zeros((2, 7)), len(pairs) + 10 ** 6)
    with pytest.raises(ValueError, match="not finite"):
        core.pair_bounds(np.full((2, 7), np.nan), k)


@pytest.mark.skipif(not PANDA_URDF.is_file(), reason="example-robot-data (a test dependency) not installed")
def test_the_convex_pieces_prove_nearly_every_free_state_of_the_panda_free():
    # spheres fitted to a Panda link are ~15 cm across: alone they prove few states near
    # anything free. The convex pieces (scene/pieces.py: slab hulls of each mesh, measured by
    # GJK in the core) are the meshes' hulls, so they prove nearly every state coal finds free
    # (seen: all 264 of 300), and never a state coal finds in contact (assert_bound_holds).
    s, robot = panda_scene(table=True)
    Q = random_states(robot, np.random.default_rng(5), 300)
    proved, by_coal = assert_bound_holds(s, "p", Q, refine=0.01)
    assert proved >= 0.95 * by_coal, (proved, by_coal)


def test_a_pairs_own_rates_bound_how_fast_its_distance_changes_and_are_no_looser_than_the_arms():
    # scene/pairrate.py: per joint between two links (one or two), how fast their distance can
    # change. Oracle: coal's distance of the pair at states a small turn of that joint apart,
    # on the Panda's URDF meshes, for every self pair with one or two joints between
    from kinematica.scene.pairrate import pair_rates
    from kinematica.scene.query import joint_batch
    from kinematica.scene.sweep import motion_bounds

    s, robot = panda_scene(table=False)
    entry, geom, comp = s.robots["p"], s.geometry("p"), s.compiled()
    box = np.stack([robot.limits[:, 0], robot.limits[:, 1]])
    arm = motion_bounds(entry, geom, box)
    rng = np.random.default_rng(5)
    Q = random_states(robot, rng, 40)
    tried = 0
    for a, b in comp.collider.pair_bodies:
        if not 1 <= b - a <= 2 or b > robot.n:
            continue
        rates = pair_rates(entry, geom, a, b)
        assert np.all(rates <= arm[a:b] + 1e-12) and np.all(rates > 0)
        only = np.array([p == (a, b) for p in comp.collider.pair_bodies])
        for i, j in enumerate(range(a, b)):
            step = np.zeros(robot.n)
            step[j] = 0.02  # rad
            Q2 = np.clip(Q + step, box[0], box[1])
            d = [np.array([f.distance for f in comp.collider.distance(comp.body_poses(joint_batch(s, {"p": X})[0],
                                                                                      len(X)), only)])
                 for X in (Q, Q2)]
            free = (d[0] > 0) & (d[1] > 0)  # (coal's penetration depth is not a distance)
            moved = np.abs(Q2[:, j] - Q[:, j])
            assert np.all(np.abs(d[1] - d[0])[free] <= rates[i] * moved[free] + 1e-9), (a, b, j)
            tried += int(free.sum())
    assert tried > 100
