"""How fast the distance between two links of one robot can change per unit of each joint
between them: the Lipschitz constants of a self pair's distance table (scene/pairtable.py).

`sweep.motion_bounds` bounds the motion of every point of *all* the links after a joint, which
holds for any pair but is loose for a pair near the base: on the UR5 the base and the upper arm
are ~1.6 cm apart at most states, and the whole arm's ~0.9 m per rad about the pan joint left a
6 000-point table ~4 cm of slack — no use. A pair's distance changes with joint j no faster
than the points of *either* link move about joint j's axis relative to the other, and one of
them is often small about it (the base about the pan axis: its own radius). For links a and
b = a + 1 (one joint j between) the axis is fixed in both, so the rate is the smaller of their
farthest points from it. For b = a + 2 (joints j, k, link m between) the axis of j is fixed in
a and the axis of k in b; b's distance from the axis of j changes with q_k, but for s the point
of k's axis nearest j's, every point p of b (turning about k's axis) stays within |p − s| of s,
and s within dist(s, axis j) of that axis — and the same with the roles swapped for a and k.

The points of a link are its collision shapes' (a mesh's vertices, a box's corners, a sphere's,
capsule's or cylinder's axis ends plus its radius): distance from a line or a point is convex,
so its largest value over a convex shape is at one of these.

>>> import kinematica as km
>>> s = km.Scene()
>>> _ = s.add_robot("arm", "puma560")
>>> r = pair_rates(s.robots["arm"], s.geometry("arm"), 0, 1)
>>> r.shape, bool(r[0] <= km.scene.sweep.motion_bounds(s.robots["arm"], s.geometry("arm"), np.zeros((1, 6)))[0])
((1,), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import spatial
from .shapes import mesh_data


def _points(geom: Any, body: int) -> tuple[np.ndarray, np.ndarray]:
    """(points (m, 3), radii (m,)) in body `body`'s frame (robot unit) whose balls hold the
    convex hulls of its shapes' extreme points (module text)."""
    P, r = [np.zeros((0, 3))], [np.zeros(0)]
    for part in geom.parts:
        if part.body != body:
            continue
        s = part.shape
        if s.kind == "mesh":
            local, rad = mesh_data(s)[0], 0.0
        elif s.kind == "box":
            local = 0.5 * np.array(s.size) * np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
            rad = 0.0
        elif s.kind == "sphere":
            local, rad = np.zeros((1, 3)), float(s.radius)
        else:  # capsule, cylinder (inside its capsule): axis ends along z
            local, rad = np.array([[0.0, 0.0, -0.5 * s.length], [0.0, 0.0, 0.5 * s.length]]), float(s.radius)
        P.append(local @ part.placement[:3, :3].T + part.placement[:3, 3])
        r.append(np.full(len(local), rad))
    return np.concatenate(P), np.concatenate(r)


def _from_line(P: np.ndarray, r: np.ndarray, o: np.ndarray, z: np.ndarray) -> float:
    """The farthest any ball (P, r) reaches from the line through o along unit z."""
    if not len(P):
        return 0.0
    d = P - o
    return float((np.linalg.norm(d - np.outer(d @ z, z), axis=1) + r).max())


def _from_point(P: np.ndarray, r: np.ndarray, o: np.ndarray) -> float:
    return float((np.linalg.norm(P - o, axis=1) + r).max()) if len(P) else 0.0


def _nearest(o1: np.ndarray, z1: np.ndarray, o2: np.ndarray, z2: np.ndarray) -> np.ndarray:
    """The point of line 2 (o2, z2) nearest line 1 (o1, z1); o2 when they are parallel."""
    w, b = o2 - o1, float(z1 @ z2)
    den = 1.0 - b * b
    if den < 1e-12:
        return o2
    t = (b * float(w @ z1) - float(w @ z2)) / den
    return o2 + t * z2


def _line_distance(p: np.ndarray, o: np.ndarray, z: np.ndarray) -> float:
    d = p - o
    return float(np.linalg.norm(d - (d @ z) * z))


def pair_rates(entry: Any, geom: Any, a: int, b: int) -> np.ndarray:
    """Per joint between bodies a < b of the robot in `entry` (b − a of them, 1 or 2): how far
    the distance between the two bodies can change per rad of it (scene length unit per rad;
    inf for a joint that is not plainly revolute — prismatic or helical: left to
    `motion_bounds`). See the module text."""
    robot = entry.robot
    joints = list(range(a, b))
    out = np.full(len(joints), np.inf)
    if not all(robot.revolute[j] and robot.pitch[j] == 0 for j in joints):
        return out
    Pa, ra = _points(geom, a)
    Pb, rb = _points(geom, b)
    if len(joints) == 1:  # the axis is fixed in both links
        j = joints[0]
        back = spatial.inv(robot.after[j])
        out[0] = min(_from_line(Pa, ra, robot.before[j][:3, 3], robot.before[j][:3, 2]),
                     _from_line(Pb, rb, back[:3, 3], back[:3, 2]))
        return out * entry.scale
    j, k = joints
    # both axes in the middle link's frame: j's after it turns, k's before it does
    inv_aj = spatial.inv(robot.after[j])
    bk = robot.before[k]
    oj, zj = inv_aj[:3, 3], inv_aj[:3, 2]
    ok, zk = bk[:3, 3], bk[:3, 2]
    # joint j: a about its axis (fixed in a), or b within |p − s| of s on k's axis
    s = _nearest(oj, zj, ok, zk)
    s_b = spatial.inv(robot.after[k]) @ spatial.inv(bk) @ np.append(s, 1.0)  # (on k's axis: the same point in b)
    out[0] = min(_from_line(Pa, ra, robot.before[j][:3, 3], robot.before[j][:3, 2]),
                 _from_point(Pb, rb, s_b[:3]) + _line_distance(s, oj, zj))
    # joint k: b about its axis (fixed in b), or a within |p − f| of f on j's axis
    f = _nearest(ok, zk, oj, zj)
    f_a = robot.before[j] @ robot.after[j] @ np.append(f, 1.0)  # (on j's axis: the same point in a)
    back_k = spatial.inv(robot.after[k])
    out[1] = min(_from_line(Pb, rb, back_k[:3, 3], back_k[:3, 2]),
                 _from_point(Pa, ra, f_a[:3]) + _line_distance(f, ok, zk))
    return out * entry.scale


__all__ = ["pair_rates"]
