"""The tests' own view of a scene robot's collision capsules: each part of `scene.geometry`
(a capsule or sphere in its body's frame) carried to the world by `km.fk_frames` and the
robot's base, and distances between segments by closed forms in NumPy — no coal, nothing of
the scene's queries. The geometry is the scene's (fitted to the Looks); only the numbers
checked against it are computed here."""

from __future__ import annotations

import numpy as np

import kinematica as km


def segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Distance from point p to segment ab, by the clamped projection."""
    d = b - a
    L2 = float(np.dot(d, d))
    t = 0.0 if L2 == 0 else float(np.clip(np.dot(p - a, d) / L2, 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * d)))


def segments_distance(a1: np.ndarray, b1: np.ndarray, a2: np.ndarray, b2: np.ndarray) -> float:
    """Distance between segments a1b1 and a2b2: |P(s) − Q(t)|² is a convex quadratic on the
    unit square, so its minimum is the interior stationary point (when it lies inside) or on
    an edge of the square, where it is a point-to-segment distance."""
    u, v, w = b1 - a1, b2 - a2, a1 - a2
    uu, uv, vv, uw, vw = u @ u, u @ v, v @ v, u @ w, v @ w
    out = min(segment_distance(a1, a2, b2), segment_distance(b1, a2, b2),
              segment_distance(a2, a1, b1), segment_distance(b2, a1, b1))
    det = uu * vv - uv * uv
    if det > 1e-12 * uu * vv:
        s, t = (uv * vw - vv * uw) / det, (uu * vw - uv * uw) / det
        if 0 <= s <= 1 and 0 <= t <= 1:
            out = min(out, float(np.linalg.norm(w + s * u - t * v)))
    return out


def world_capsules(scene: km.Scene, robot: str, q: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """(link name "robot/link", end a, end b, radius) of every capsule or sphere part of a
    scene robot at q (n,), in the scene's frame and length unit (a sphere: a = b)."""
    e, g = scene.robots[robot], scene.geometry(robot)
    F = km.fk_frames(e.robot, q)
    out = []
    for p in g.parts:
        half = 0.5 * p.shape.length if p.shape.kind == "capsule" else 0.0
        ends = []
        for z in (-half, half):
            local = p.placement @ np.array([0.0, 0.0, z, 1.0])
            body = F[p.body] @ local
            world = e.base @ np.append(body[:3] * e.scale, 1.0)
            ends.append(world[:3])
        out.append((f"{robot}/{g.names[p.body]}", ends[0], ends[1], p.shape.radius * e.scale))
    return out


def ball_gap(caps, centre: np.ndarray, rho: float) -> tuple[float, str]:
    """(signed distance, link) from a ball to the nearest capsule: |c − segment| − r − ρ."""
    return min((segment_distance(centre, a, b) - r - rho, name) for name, a, b, r in caps)


def pair_gap(caps, first: str, second: str) -> float:
    """Signed distance between two links' capsules: min over their parts of
    |segment − segment| − r₁ − r₂."""
    return min(segments_distance(a1, b1, a2, b2) - r1 - r2
               for n1, a1, b1, r1 in caps if n1 == first for n2, a2, b2, r2 in caps if n2 == second)
