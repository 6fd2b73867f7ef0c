"""Shared workspaces (issue 15): collision and distance queries, self-collision, two arms,
trajectories — each checked against numbers computed independently here with NumPy: the
links' capsules (fitted to the Looks: the scene's geometry) carried to the world by
`km.fk_frames`, distances by closed forms (`capsule_oracle`), never by the scene's queries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kinematica as km
from kinematica import spatial
from capsule_oracle import ball_gap, pair_gap, world_capsules

BRACCIO = km.load("braccio")
PANDA = km.load("panda")
REACH = np.radians([0, -60, -30, -30, 0])  # Braccio reaching forward and down: tool 311 mm out


def one_braccio(**obstacle) -> km.Scene:
    s = km.Scene(length_unit="mm")
    s.add_robot("arm", "braccio")
    if obstacle:
        s.add_obstacle("ball", "sphere", **obstacle)
    return s


# --- a sphere at the tool point -----------------------------------------------------------
@pytest.mark.parametrize("q", [BRACCIO.q_home, REACH, np.radians([40, 30, 45, -60, 20])])
def test_sphere_at_tool_point_collides_with_last_link(q):
    tool = km.fk(BRACCIO, q)[:3, 3]
    s = one_braccio(pose=spatial.transl(tool), radius=5.0)
    rep = s.check({"arm": q})
    assert rep.colliding is True
    assert ("arm/gripper", "ball") in rep.collisions


@settings(max_examples=40)
@given(st.floats(0.01, 10.0), st.floats(-1, 1), st.floats(-1, 1), st.floats(0, 1),
       st.sampled_from([0, 1, 2]))
def test_sphere_moved_clear_by_a_margin_is_that_far(margin, u, v, w, k):
    """The sphere is moved from the gripper capsule's far end (from the wrist-roll joint)
    outwards (d · axis ≥ 0: that end of its segment is nearest) by capsule radius + sphere radius + margin: the
    distance the scene reports equals the margin and the independent ball-to-capsules distance
    (the minimum over every link's capsule), to 1e-9 mm (values ~100 mm, coal's sphere-capsule
    distance is closed-form: errors ~1e-13)."""
    q = [BRACCIO.q_home, REACH, np.radians([40, 30, 45, -60, 20])][k]
    s = one_braccio(pose=np.eye(4), radius=4.0)
    caps = world_capsules(s, "arm", q)
    ((_, a, b, R),) = [c for c in caps if c[0] == "arm/gripper"]  # the gripper has one capsule
    wrist = km.fk_frames(BRACCIO, q)[5, :3, 3]  # the gripper's own frame, on the wrist-roll axis
    if np.linalg.norm(a - wrist) > np.linalg.norm(b - wrist):
        a, b = b, a
    axis = (b - a) / np.linalg.norm(b - a)
    d = np.array([u, v, w]) + 1e-3
    d = d - min(0.0, d @ axis) * axis  # point away from the link (d · axis ≥ 0)
    d /= np.linalg.norm(d)
    centre = b + d * (R + 4.0 + margin)
    s.move("ball", spatial.transl(centre))
    rep = s.distance({"arm": q}, self_pairs=False)  # the arm's own links may be nearer each other
    independent, nearest = ball_gap(caps, centre, 4.0)
    assert nearest == "arm/gripper" and abs(independent - margin) < 1e-9
    assert rep.pair == ("arm/gripper", "ball")
    assert abs(rep.min_distance - margin) < 1e-9
    assert abs(rep.min_distance - independent) < 1e-9
    # witness points: on the capsule surface and on the sphere, margin apart
    p1, p2 = rep.points
    assert abs(np.linalg.norm(p2 - p1) - margin) < 1e-9
    assert abs(np.linalg.norm(p2 - centre) - 4.0) < 1e-9
    assert ("arm/gripper", "ball") not in s.check({"arm": q}).collisions


def test_batch_equals_loop_of_single_queries():
    rng = np.random.default_rng(3)
    Q = rng.uniform(BRACCIO.limits[:, 0], BRACCIO.limits[:, 1], (40, 5))
    s = one_braccio(pose=spatial.transl([150, 0, 150]), radius=40.0)
    batch, dist = s.check({"arm": Q}), s.distance({"arm": Q})
    assert batch.colliding.shape == (40,) and dist.min_distance.shape == (40,)
    assert batch.colliding.any() and not batch.colliding.all()  # both kinds are in the sample
    for i, q in enumerate(Q):
        one = s.check({"arm": q})
        assert one.colliding == batch.colliding[i] and one.collisions == batch.collisions[i]
        d = s.distance({"arm": q})
        assert d.min_distance == pytest.approx(dist.min_distance[i], abs=1e-12)
        assert (d.min_distance <= 0) == one.colliding or abs(d.min_distance) < 1e-9


def test_distance_is_exact_minimum_over_all_pairs():
    """The broad phase prunes pairs; the answer must still be the minimum over every pair:
    brute force with coal on every checked pair (no pruning) agrees."""
    import coal

    s = km.Scene.load("kuka-table")
    rng = np.random.default_rng(5)
    r = s.robots["kuka"].robot
    Q = rng.uniform(r.limits[:, 0], r.limits[:, 1], (25, 6))
    rep = s.distance({"kuka": Q})
    c = s.compiled()
    W = c.collider.part_poses(c.body_poses({"kuka": Q}, len(Q)))
    for i in range(len(Q)):
        best = np.inf
        for a, b in zip(c.collider.pa, c.collider.pb):
            Ta = coal.Transform3s(W[i, a, :3, :3], W[i, a, :3, 3])
            Tb = coal.Transform3s(W[i, b, :3, :3], W[i, b, :3, 3])
            best = min(best, coal.distance(c.collider.geoms[a], Ta, c.collider.geoms[b], Tb,
                                           coal.DistanceRequest(), coal.DistanceResult()))
        assert rep.min_distance[i] == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("name, seat", [("kuka-table", "kuka"), ("two-braccios", "left")])
def test_distance_without_self_pairs_is_the_minimum_between_different_bodies(name: str, seat: str):
    """self_pairs=False: the minimum over every checked part pair whose bodies belong to
    different robots or obstacles (brute force with coal), never a pair of one robot's links."""
    import coal

    s = km.Scene.load(name)
    r = s.robots[seat].robot
    Q = np.random.default_rng(6).uniform(r.limits[:, 0], r.limits[:, 1], (15, r.n))
    rep = s.distance({seat: Q}, self_pairs=False)
    c = s.compiled()
    from kinematica.scene.query import joint_batch

    owner = [n.split("/")[0] for n in c.names]
    W = c.collider.part_poses(c.body_poses(joint_batch(s, {seat: Q})[0], len(Q)))
    for i in range(len(Q)):
        best = np.inf
        for a, b in zip(c.collider.pa, c.collider.pb):
            if owner[c.collider.bodies[a]] == owner[c.collider.bodies[b]]:
                continue
            Ta = coal.Transform3s(W[i, a, :3, :3], W[i, a, :3, 3])
            Tb = coal.Transform3s(W[i, b, :3, :3], W[i, b, :3, 3])
            best = min(best, coal.distance(c.collider.geoms[a], Ta, c.collider.geoms[b], Tb,
                                           coal.DistanceRequest(), coal.DistanceResult()))
        assert rep.min_distance[i] == pytest.approx(best, abs=1e-12)  # the same coal call: exact
        a, b = rep.pair[i]
        assert a.split("/")[0] != b.split("/")[0]
    lone = km.Scene()
    lone.add_robot("arm", "braccio")  # no other body: nothing to measure between bodies
    assert lone.distance(self_pairs=False).words() == "nothing to check"
    assert lone.distance().pair is not None


# --- self-collision -----------------------------------------------------------------------
def test_panda_folded_into_its_base_collides_home_does_not():
    s = km.Scene()
    s.add_robot("panda", PANDA)
    assert not s.check({"panda": PANDA.q_home}).colliding
    # independently: at home every checked pair of capsules is apart
    home = world_capsules(s, "panda", PANDA.q_home)
    left_out = {(a, b) for a, b, _ in s.excluded()}
    links = sorted({n for n, *_ in home})
    checked = [(a, b) for i, a in enumerate(links) for b in links[i + 1:] if (a, b) not in left_out]
    assert len(checked) > 10 and min(pair_gap(home, a, b) for a, b in checked) > 0
    # IK puts the flange 0.12 m from the base axis at 0.25 m height: the hand is folded back
    # into the first link (independently: link 1's and link 7's capsules overlap)
    res = km.ik(PANDA, [0.12, 0.05, 0.25], q0="random")
    assert res.success
    assert pair_gap(world_capsules(s, "panda", res.q), "panda/link1", "panda/link7") < 0
    rep = s.check({"panda": res.q})
    assert rep.colliding and ("panda/link1", "panda/link7") in rep.collisions


def test_excluded_pairs_are_listed_with_reasons_and_editable():
    s = km.Scene()
    s.add_robot("p", "panda")
    ex = {(a, b): why for a, b, why in s.excluded()}
    # link 2 has no length on the skeleton, but it is drawn: 1–2 and 2–3 are the neighbours
    assert ex[("p/link1", "p/link2")] == ex[("p/link2", "p/link3")] == "adjacent"
    assert ("p/link1", "p/link3") not in ex
    assert set(ex.values()) <= {"adjacent", "always touching"}
    t = km.Scene()
    t.add_robot("p", "panda", exclude=[("link1", "link7")], include=[("link5", "link7")])
    ex2 = {(a, b): why for a, b, why in t.excluded()}
    assert ex2[("p/link1", "p/link7")] == "listed" and ("p/link5", "p/link7") not in ex2
    folded = km.ik(PANDA, [0.12, 0.05, 0.25], q0="random").q
    assert ("p/link1", "p/link7") not in t.check({"p": folded}).collisions
    with pytest.raises(km.SceneError, match="unknown link 'hand'.*link1"):
        km.Scene().add_robot("p", "panda", exclude=[("hand", "link1")])


# --- two facing Braccios ------------------------------------------------------------------
def test_two_facing_braccios_meeting_in_the_middle_collide():
    s = km.Scene.load("two-braccios")
    assert not s.check().colliding  # both at home
    rep = s.check({"left": REACH, "right": REACH})
    tool = (s.robots["left"].base @ km.fk(BRACCIO, REACH))[:3, 3]
    assert abs(tool[0] - (-250 + 311.2)) < 0.1 and abs(tool[1]) < 1e-9  # left's tool is past the middle
    # independently: the pairs of the two arms' capsules (carried to the world) that overlap
    # are those the scene reports; the grippers passed each other, each in the other's wrist
    meet = world_capsules(s, "left", REACH) + world_capsules(s, "right", REACH)
    lefts, rights = (sorted({n for n, *_ in meet if n.startswith(side)}) for side in ("left/", "right/"))
    gaps = {(a, b): pair_gap(meet, a, b) for a in lefts for b in rights}
    assert min(abs(g) for g in gaps.values()) > 1e-6  # no pair grazing: the verdicts are clear-cut
    between = {p for p in rep.collisions if p[0].startswith("left/") and p[1].startswith("right/")}
    assert between == {p for p, g in gaps.items() if g < 0}
    assert {("left/gripper", "right/wrist"), ("left/wrist", "right/gripper")} <= between
    # one arm pulled back: clear, and the distance is at most the gap between the arms' capsules
    back = np.radians([0, -20, -30, -30, 0])
    d = s.distance({"left": REACH, "right": back})
    assert not s.check({"left": REACH, "right": back}).colliding and d.min_distance > 0
    apart = world_capsules(s, "left", REACH) + world_capsules(s, "right", back)
    gap = min(pair_gap(apart, a, b) for a in lefts for b in rights)
    assert 0 < gap and d.min_distance <= gap + 1e-9


def test_unit_conversion_mm_robot_in_metre_scene():
    """The same Braccio reaching into the same sphere, in a scene in m and one in mm: the same
    verdict and distances scaled by 1000."""
    tool = km.fk(BRACCIO, REACH)[:3, 3]
    mm, m = km.Scene(length_unit="mm"), km.Scene()
    mm.add_robot("a", "braccio")
    m.add_robot("a", "braccio")
    mm.add_obstacle("b", "sphere", spatial.transl(tool + [0, 0, 60]), radius=10)
    m.add_obstacle("b", "sphere", spatial.transl((tool + [0, 0, 60]) / 1000), radius=0.01)
    dmm, dm = mm.distance({"a": REACH}), m.distance({"a": REACH})
    assert dmm.pair == dm.pair and dm.min_distance * 1000 == pytest.approx(dmm.min_distance, abs=1e-9)


# --- trajectories -------------------------------------------------------------------------
def _yaw_sweep_scene(z_offset: float = 0.0) -> tuple[km.Scene, np.ndarray, float]:
    """The Braccio reaching out, a ball in its tool's circle at yaw 30°, radius 15 mm."""
    q = REACH.copy()
    q[0] = np.radians(30)
    centre = km.fk(BRACCIO, q)[:3, 3] + [0, 0, z_offset]
    s = one_braccio(pose=spatial.transl(centre), radius=15.0)
    return s, centre, 15.0


def test_trajectory_through_an_obstacle_is_caught_at_the_right_time():
    s, centre, rho = _yaw_sweep_scene()
    start, end = REACH.copy(), REACH.copy()
    start[0], end[0] = np.radians(-80), np.radians(80)
    tr = km.trajectory.joint([start, end], duration=4.0, steps=20, robot=BRACCIO)
    res = 2.0  # mm
    rep = km.scene.check_trajectory(s, {"arm": tr}, resolution=res)
    assert rep.colliding and ("arm/gripper", "ball") in rep.collisions

    # The oracle: every link capsule against the ball, by NumPy on a fine yaw grid (the parts
    # carried by `km.fk_frames`); the first time a distance drops to the radii sum is the true
    # first contact.
    ts = np.linspace(0, 4, 40001)
    Q = np.tile(REACH, (len(ts), 1))
    Q[:, 0] = np.interp(ts, [0, 4], [start[0], end[0]])
    F = km.fk_frames(BRACCIO, Q)
    gap = np.full(len(ts), np.inf)
    for part in s.geometry("arm").parts:
        half = 0.5 * part.shape.length if part.shape.kind == "capsule" else 0.0
        a, b = ((F[:, part.body] @ part.placement @ [0, 0, z, 1])[:, :3] for z in (-half, half))
        t_seg = np.clip(np.sum((centre - a) * (b - a), -1) / np.maximum(np.sum((b - a) ** 2, -1), 1e-300), 0, 1)
        gap = np.minimum(gap, np.linalg.norm(centre - (a + t_seg[:, None] * (b - a)), axis=-1) - part.shape.radius - rho)
    t_true = ts[np.argmax(gap <= 0)]
    # the report is late by at most one check: every point moved ≤ resolution since t_true
    assert rep.clear_until < t_true + 1e-4 and rep.time >= t_true - 1e-4
    def tool(t):
        q = REACH.copy()
        q[0] = np.interp(t, [0, 4], [start[0], end[0]])
        return km.fk(BRACCIO, q)[:3, 3]
    assert np.linalg.norm(tool(rep.time) - tool(t_true)) <= res + 1e-6
    assert np.linalg.norm(tool(rep.time) - tool(rep.clear_until)) <= res + 1e-9

    away, _, _ = _yaw_sweep_scene(z_offset=200.0)
    clear = km.scene.check_trajectory(away, {"arm": tr}, resolution=res)
    assert not clear.colliding and clear.time is None and clear.checks > 20


@pytest.mark.parametrize("name", ["panda", "kuka-kr6-r900", "braccio"])
def test_trajectory_resolution_bounds_every_link_point(name):
    """Property of the sweep's bound: between consecutive checks no point of any link shape
    moves more than the resolution. Checked by brute force: the extreme points of every part's
    bounding sphere (centre ± radius along 26 directions) carried by FK of the body frames at
    every check of a straight joint-space move (the sweep cuts each step evenly, so checks
    along one straight move are evenly spaced)."""
    robot = km.load(name)
    s = km.Scene()
    s.add_robot("r", robot)
    a = robot.q_home
    b = np.clip(a + np.linspace(0.9, -0.7, robot.n), robot.limits[:, 0], robot.limits[:, 1])
    tr = km.trajectory.joint([a, b], duration=1.0, steps=1, robot=robot)
    res = 0.005
    rep = km.scene.check_trajectory(s, {"r": tr}, resolution=res)
    Q = a + np.outer(np.linspace(0, 1, rep.checks), b - a)
    F = km.fk_frames(robot, Q)[:, :-1] * np.array([1, 1, 1, s.robots["r"].scale])  # → scene unit
    F[..., 3, 3] = 1.0
    dirs = np.array([[i, j, k] for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1) if (i, j, k) != (0, 0, 0)])
    dirs = dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
    scale = s.robots["r"].scale
    for p in s.geometry("r").parts:
        c, rho = km.scene.shapes.bounding_sphere(p.shape)
        local = (p.placement[:3, :3] @ c + p.placement[:3, 3] + rho * dirs) * scale
        world = F[:, p.body, :3, :3] @ local.T + F[:, p.body, :3, 3:4]  # (checks, 3, points)
        step = np.linalg.norm(np.diff(world, axis=0), axis=1).max()
        assert step <= res * (1 + 1e-9), (p.body, step)


def test_pairs_touching_at_the_stated_home_are_excluded_and_say_so():
    """The home pose is one the real arm takes: shapes overlapping there overlap in the model
    only. planar-3r folded (link 3 back over link 1) as its home: link1-link3 excluded."""
    folded = km.load("planar-3r").replace(home=np.radians([0, 175, -175]))
    s = km.Scene()
    s.add_robot("r", folded)
    assert ("r/link1", "r/link3", "touching at home") in s.excluded()
    assert not s.check().colliding
    t = km.Scene()
    t.add_robot("r", "planar-3r")  # its own home is straight: the pair is checked
    assert ("r/link1", "r/link3") in t.check({"r": np.radians([0, 175, -175])}).collisions


@settings(max_examples=40)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3), st.floats(-70, 70), st.floats(-70, 70),
       st.floats(-10, 10), st.floats(0.5, 15))
def test_distance_to_a_sphere_equals_the_segment_oracle(q, x, y, z, rho):
    """planar-3r and a ball anywhere: the scene's signed distance is the minimum over the links'
    capsules (fitted to its Looks, carried to the world by `km.fk_frames`) of |centre − axis
    segment| − r − ρ. Its self pairs are left out so that the ball alone decides. Where a
    capsule and the ball overlap coal reports the penetration depth, which for a sphere against
    a capsule is the same expression (negative) — so one formula, 1e-9 mm."""
    robot = km.load("planar-3r")
    s = km.Scene(length_unit="mm")
    links = ("base", "link1", "link2", "link3")
    s.add_robot("r", robot, exclude=[(a, b) for i, a in enumerate(links) for b in links[i + 1:]])
    s.add_obstacle("ball", "sphere", spatial.transl([x, y, z]), radius=rho)
    oracle, nearest = ball_gap(world_capsules(s, "r", np.asarray(q)), np.array([x, y, z]), rho)
    rep = s.distance({"r": q})
    assert abs(rep.min_distance - oracle) < 1e-9
    assert s.check({"r": q}).colliding == (oracle < 0) or abs(oracle) < 1e-9


# --- sizes and edges of a query (issue 30) ------------------------------------------------------
def test_an_empty_batch_gets_an_empty_answer():
    s = one_braccio(pose=spatial.transl([150, 0, 150]), radius=40.0)
    rep, dist = s.check({"arm": np.zeros((0, 5))}), s.distance({"arm": np.zeros((0, 5))})
    assert rep.colliding.shape == (0,) and rep.collisions.shape == (0,) and str(rep) == "0 of 0 configurations collide"
    assert dist.min_distance.shape == (0,) and dist.points.shape == (0, 2, 3)
    assert s.check({"arm": np.zeros((3, 0, 5))}).colliding.shape == (3, 0)


def test_a_batch_over_the_limit_is_refused_before_anything_is_allocated():
    """10⁷ configurations (a broadcast view: no memory) are refused in words naming the limit,
    not met by a MemoryError for the 7 GiB of poses (issue 30)."""
    s = one_braccio(pose=spatial.transl([150, 0, 150]), radius=40.0)
    huge = np.broadcast_to(REACH, (10 ** 7, 5))
    with pytest.raises(km.scene.SceneError, match=r"q: the batch's configurations = 10000000 is over the limit of "
                       r"1,000,000 configurations of one scene query \(kinematica.bounds.QUERY\)"):
        s.check({"arm": huge})
    with pytest.raises(km.scene.SceneError, match="QUERY"):
        s.distance({"arm": huge})


def test_a_large_batch_is_checked_in_passes_of_bounded_memory(monkeypatch):
    """20 000 configurations at once would hold ~50 MB of poses (measured); in passes of CHUNK
    the peak stays near that of one pass (~8 MB measured), and the answers are those of single
    queries (a pass boundary changes nothing: CHUNK = 7 splits the batch unevenly)."""
    import tracemalloc

    import kinematica.scene.query as query

    s = one_braccio(pose=spatial.transl([150, 0, 150]), radius=40.0)
    Q = np.random.default_rng(4).uniform(BRACCIO.limits[:, 0], BRACCIO.limits[:, 1], (20_000, 5))
    s.check({"arm": Q[:2]})  # the engine is built outside the measurement
    tracemalloc.start()
    try:
        s.check({"arm": Q})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 25e6, peak
    monkeypatch.setattr(query, "CHUNK", 7)
    few = Q[:30]
    rep, dist = s.check({"arm": few}, shapes=True), s.distance({"arm": few})
    assert rep.colliding.any() and not rep.colliding.all()
    for i, q in enumerate(few):
        one = s.check({"arm": q}, shapes=True)
        assert (one.colliding, one.collisions, one.shapes) == (rep.colliding[i], rep.collisions[i], rep.shapes[i])
        assert s.distance({"arm": q}).min_distance == pytest.approx(dist.min_distance[i], abs=1e-12)


@pytest.mark.parametrize("where", ["folder", "missing"])
def test_saving_a_scene_where_no_file_can_be_written_names_the_path(tmp_path, where):
    s = one_braccio(pose=spatial.transl([150, 0, 150]), radius=40.0)
    path = tmp_path if where == "folder" else tmp_path / "nowhere" / "s.yaml"
    said = "it is a folder" if where == "folder" else f"folder {tmp_path / 'nowhere'} does not exist"
    with pytest.raises(km.WriteError, match=f"cannot write {path}: {said}"):
        s.save(path)
    assert list(tmp_path.iterdir()) == []
