"""Which link pairs of one robot are left out of its self-collision check, and why.

Three rules, each listed with its reason so a user can see it and overrule it:
- "adjacent": two links joined by a joint (bodies with no geometry between them are skipped:
  the Braccio's upper arm and gripper would otherwise be "adjacent" across a wrist of zero
  length only if the wrist had no shape — it does, via its neighbours);
- "always touching": their shapes overlap in every one of `SAMPLES` configurations (the home
  configuration and random ones within the limits, fixed seed) — capsules that meet around a
  short link by construction, which no motion separates;
- "touching at home": they touch in the robot's stated home configuration (`home` in its
  file) — a pose the real arm takes, so shapes overlapping there overlap in the model only
  (the Panda's wrist meshes of example-robot-data do);
- "listed": the robot file's (or the scene's) `collision.exclude` pairs.
A pair in `collision.include` is checked whatever the rules say.

Pairs that "never touch" are not guessed by sampling (as MoveIt's setup assistant does): a pair
no sample caught can still meet — the Panda's hand reaches its first link in about 2 % of
random configurations, a rarer pose would slip through. List such pairs in `collision.exclude`
to skip them; skipping only saves time.

>>> import kinematica as km
>>> from kinematica.scene.linkgeom import link_geometry
>>> sorted(excluded_pairs(km.load("planar-3r"), link_geometry(km.load("planar-3r"))).items())
[((0, 1), 'adjacent'), ((1, 2), 'adjacent'), ((2, 3), 'adjacent')]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from ..model.robot import Robot
from .collider import Collider
from .linkgeom import LinkGeometry, body_poses
from .shapes import SceneError

SAMPLES = 100  # configurations sampled for "always touching"


def _sample(robot: Robot, k: int, seed: int) -> np.ndarray:
    """The home configuration and k − 1 uniform random ones within the limits (an unlimited
    revolute joint over ±π, an unlimited prismatic one over ±1)."""
    lo, hi = robot.limits[:, 0].copy(), robot.limits[:, 1].copy()
    span = np.where(robot.revolute, np.pi, 1.0)
    lo, hi = np.where(np.isfinite(lo), lo, -span), np.where(np.isfinite(hi), hi, span)
    rng = np.random.default_rng(seed)
    return np.vstack([robot.q_home, rng.uniform(lo, hi, (k - 1, robot.n))])


def named_pairs(geom: LinkGeometry, pairs: Iterable[Sequence[str]], what: str, robot_name: str) -> set[tuple[int, int]]:
    """Body-number pairs of link-name pairs; SceneError naming an unknown link or a bad pair."""
    out = set()
    for p in pairs:
        if isinstance(p, str) or len(p) != 2:
            raise SceneError(f"{robot_name}: collision.{what}: expected pairs of link names, got {p!r}")
        a, b = (geom.index(str(x), robot_name) for x in p)
        if a == b:
            raise SceneError(f"{robot_name}: collision.{what}: {p[0]!r} paired with itself")
        out.add((min(a, b), max(a, b)))
    return out


def excluded_pairs(robot: Robot, geom: LinkGeometry, exclude: Iterable[Sequence[str]] = (),
                   include: Iterable[Sequence[str]] = (), samples: int = SAMPLES,
                   seed: int = 0) -> dict[tuple[int, int], str]:
    """{(body a, body b): reason} of the pairs left out of self-collision, a < b. `exclude`
    and `include` add to the robot file's own `collision.exclude` / `collision.include`."""
    own = robot.extras.get("collision", {})
    exclude = list(own.get("exclude", ())) + list(exclude)
    include = list(own.get("include", ())) + list(include)
    shaped = geom.bodies_with_geometry()
    out: dict[tuple[int, int], str] = {(a, b): "adjacent" for a, b in itertools.pairwise(shaped)}
    rest = [(a, b) for i, a in enumerate(shaped) for b in shaped[i + 1:] if (a, b) not in out]
    if rest:
        col = Collider([p.shape for p in geom.parts], [p.body for p in geom.parts],
                       np.array([p.placement for p in geom.parts]), rest)
        hits = col.collide(body_poses(robot, _sample(robot, samples, seed)))
        for pair in set.intersection(*hits):
            out[pair] = "always touching"
        if robot.home is not None:
            for pair in hits[0]:  # sample 0 is the home configuration
                out.setdefault(pair, "touching at home")
    for pair in named_pairs(geom, exclude, "exclude", robot.name):
        out.setdefault(pair, "listed")
    for pair in named_pairs(geom, include, "include", robot.name):
        out.pop(pair, None)
    return dict(sorted(out.items()))
