"""Collision geometry of a robot's links: the URDF's own `<collision>` shapes where the robot
came with them; else, where it has Looks, capsules fitted to what is drawn for each link (one,
or up to 4 for a flat one); else capsules around each link's segments.

Bodies are numbered 0..n: body 0 is the fixed base (from the base frame to joint 1), body k
the link moved by joint k, rigid with link frame k (`km.fk_frames(robot, q)[..., k, :, :]`);
the last link reaches to the tool point.

Fitted to the Looks (`robot.visuals`: primitives and meshes, the real arm's shapes): each body
with drawn shapes gets the tightest capsule along a principal direction of their points
(`capsulefit`: every drawn vertex inside, least volume), so the capsule sits where the link is
drawn — the KR6's arm beside its skeleton, 0.10 m along joint 2's axis, the UR5's upper arm
0.136 m — not on the kinematic skeleton. A shape too compact for an axis becomes a sphere.

Skeleton capsules, for a robot without Looks, a body with nothing drawn, or whenever a
collision `radius` is given (by the robot file's `collision: {radius: …}`, a scene file's or
`Scene.add_robot(radius=…)`: a user's model wins over the fitted one): a link's segments are
those the arm drawing uses (`viz.geometry`): from joint k's origin first along joint k's
axis, then straight to the next joint's origin (so a DH offset d and length a make an L, not
a chord cutting the corner). Each segment gets a capsule of the collision radius; a link of
zero length gets none (its neighbours' capsules cover the joint). For a prismatic joint the
capsule rides with the carriage; the rail behind it is not modelled. The radius when none is
given is `DEFAULT_RADIUS_FRACTION` (5 %) of the arm's length (the sum of its segments'
lengths): about 21 mm for the Braccio, 70 mm for the Panda and the KUKA KR6.

>>> import kinematica as km
>>> g = link_geometry(km.load("planar-3r"), radius=3.0)
>>> g.names, g.source, round(g.radius, 6), [p.shape.length for p in g.parts]
(('base', 'link1', 'link2', 'link3'), ('none', 'capsule', 'capsule', 'capsule'), 3.0, [20.0, 20.0, 20.0])
>>> link_geometry(km.load("planar-3r")).source
('looks', 'looks', 'looks', 'looks')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import spatial
from ..kinematics.fk import fk_frames
from ..model.robot import Robot
from .capsulefit import FittedCapsule
from .drawn import fitted_capsules
from .shapes import SceneError, Shape, make_shape

DEFAULT_RADIUS_FRACTION = 0.05  # of the arm's length: link radius when the robot file gives none


@dataclass(frozen=True)
class Part:
    """One shape rigidly attached to a body: `placement` (4, 4) puts the shape's frame in the
    body's frame (link frame k), lengths in the robot's length unit; `link` the link it belongs
    to (a URDF link folded into the body, e.g. a mobile base's caster on body 0; else the
    body's own name)."""

    body: int
    shape: Shape
    placement: np.ndarray
    link: str = ""


@dataclass(frozen=True)
class LinkGeometry:
    """The collision geometry of one robot: body names (n + 1: the fixed base, then one per
    link), the parts, the smallest capsule (or sphere) radius among them (None when every
    link had URDF shapes), and `source` per body: "urdf", "looks" (fitted to the drawn
    shapes), "capsule" (around the skeleton) or "none"."""

    names: tuple[str, ...]
    parts: tuple[Part, ...]
    radius: float | None
    source: tuple[str, ...]

    def bodies_with_geometry(self) -> list[int]:
        return sorted({p.body for p in self.parts})

    def index(self, name: str, robot_name: str = "") -> int:
        """Body number of link `name`; SceneError listing the names when there is none."""
        if name in self.names:
            return self.names.index(name)
        who = f"{robot_name} has" if robot_name else "links are"
        raise SceneError(f"unknown link {name!r}: {who} {', '.join(self.names)}")


def body_names(robot: Robot) -> tuple[str, ...]:
    """'base' (or 'link0' when a moving link is called base) and the link names (or link1..n)."""
    links = tuple(robot.link_names) if robot.link_names else tuple(f"link{k}" for k in range(1, robot.n + 1))
    return ("link0" if "base" in links else "base",) + links


def segments(robot: Robot) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """Per body 0..n, its segments (start, end) in its own frame, zero-length ones left out."""
    out = []
    for k in range(robot.n + 1):
        if k == 0:
            start, axis = np.zeros(3), np.array([0.0, 0.0, 1.0])
        else:
            A_inv = spatial.inv(robot.after[k - 1])  # joint k's frame seen from link frame k
            start, axis = A_inv[:3, 3], A_inv[:3, 2]
        end = robot.before[k][:3, 3] if k < robot.n else robot.tool[:3, 3]
        corner = start + np.dot(end - start, axis) * axis
        tol = 1e-9 * (1.0 + np.abs(np.concatenate([start, end])).max())
        out.append([(a, b) for a, b in ((start, corner), (corner, end)) if np.linalg.norm(b - a) > tol])
    return out


def arm_length(robot: Robot) -> float:
    """Sum of the segments' lengths (robot's length unit)."""
    return float(sum(np.linalg.norm(b - a) for segs in segments(robot) for a, b in segs))


def capsule_part(body: int, a: np.ndarray, b: np.ndarray, radius: float, link: str = "") -> Part:
    """A capsule of `radius` around the segment a → b (its axis z along b − a) on link `link`."""
    d = b - a
    L = float(np.linalg.norm(d))
    T = spatial.homogeneous(spatial.axis_to_z(d / L), 0.5 * (a + b))
    return Part(body, make_shape("capsule", radius=radius, length=L), T, link)


def default_radius(robot: Robot) -> float:
    """The capsule radius when the robot file states none: 5 % of the arm's length."""
    return DEFAULT_RADIUS_FRACTION * arm_length(robot)


def fitted_part(body: int, c: FittedCapsule, link: str) -> Part:
    """The part of a capsule fitted to a body's drawn shapes (a sphere when it has no length)."""
    if c.length <= 1e-9 * c.radius:
        return Part(body, make_shape("sphere", radius=c.radius), spatial.transl(0.5 * (c.a + c.b)), link)
    return capsule_part(body, c.a, c.b, c.radius, link)


def link_geometry(robot: Robot, radius: float | None = None) -> LinkGeometry:
    """The collision geometry of `robot` (see the module text): its URDF `<collision>` shapes
    where it has them (`robot.extras["collision_shapes"]`); with no `radius` given here or in
    the robot file's `collision.radius`, capsules fitted to its Looks where it has them;
    skeleton capsules of that radius (default `default_radius`) elsewhere."""
    given = robot.extras.get("collision", {}).get("radius") if radius is None else radius
    r = float(given) if given is not None else default_radius(robot)
    if not (np.isfinite(r) and r > 0):
        raise SceneError(f"{robot.name}: collision radius must be a positive number, got {given!r}")
    urdf = robot.extras.get("collision_shapes") or {}
    fitted = fitted_capsules(robot, [k for k in range(robot.n + 1) if not urdf.get(k)]) if given is None else {}
    names = body_names(robot)
    parts: list[Part] = []
    source = []
    for k, segs in enumerate(segments(robot)):
        own = urdf.get(k)
        if own:
            parts += [Part(k, make_shape(d["kind"], **{key: v for key, v in d.items() if key not in ("kind", "link")}),
                           np.asarray(T, dtype=float), d.get("link") or names[k]) for d, T in own]
            source.append("urdf")
        elif k in fitted:
            parts += [fitted_part(k, c, names[k]) for c in fitted[k]]
            source.append("looks")
        elif segs:
            parts += [capsule_part(k, a, b, r, names[k]) for a, b in segs]
            source.append("capsule")
        else:
            source.append("none")
    radii = [p.shape.round_radius for p in parts if p.shape.kind in ("capsule", "sphere") and source[p.body] != "urdf"]
    return LinkGeometry(names, tuple(parts), min(radii) if radii else None, tuple(source))


def body_poses(robot: Robot, q: np.ndarray, base: np.ndarray | None = None, scale: float = 1.0) -> np.ndarray:
    """World poses (..., n + 1, 4, 4) of bodies 0..n at q (..., n): `base` · link frame k with
    every translation multiplied by `scale` (the robot's length unit → the scene's)."""
    F = fk_frames(robot, q)[..., :-1, :, :]
    if scale != 1.0:
        F = F.copy()
        F[..., :3, 3] *= scale
    return F if base is None else base @ F
