"""A standard or modified DH table equivalent to any serial chain (a URDF, link frames, screws).

Every chain of revolute and prismatic joints has both: DH needs only the joint axes as lines in
space, and any two lines are related by four numbers (Spong, Hutchinson & Vidyasagar, §3.2;
Craig, §3.4 for the modified form). A chain with a helical joint has neither: a DH row's d is
constant for a revolute joint, while a screw's slides with θ (`dh_unavailable` says so).
The standard construction, on the axes at q = 0 (`screw_axes`: direction u_i, a point p_i):

- frame 0 on axis 1 (z_0 = u_1); frame i (1 ≤ i < n) with z_i = u_{i+1}, its origin where the
  common normal of axes i and i+1 meets axis i+1, x_i along that normal (away from axis i);
  where the axes meet, x_i = ±(z_{i−1} × z_i); where they are parallel, the normal through
  o_{i−1} (so d_i = 0); frame n continues frame n−1;
- a prismatic joint's axis is a direction only: its line is drawn through a point of the
  axis before it;
- then d_i, a_i, α_i and the joint offset θ_i (d_i for a prismatic joint) are read off
  consecutive frames, and the robot's base and tool transforms take up frame 0 and the tool;
- either direction along a common normal makes a valid frame: x axes are reversed where that
  zeroes joint offsets, then negative lengths a (`_tidy`), so tables read as printed ones do.

The modified (Craig) construction puts frame i on axis i itself: z_i = u_i, its origin where
the common normal to axis i + 1 leaves axis i, x_i along that normal; parallel axes take the
normal through the point where the previous normal landed (so d_i = 0); frame n continues
x_(n−1); frame 0 is frame 1 at q = 0 (α_0 = a_0 = 0). Row i is read off
T_(i−1,i) = Rx(α_(i−1))·Tx(a_(i−1))·Rz(θ_i)·Tz(d_i).

Nearly parallel axes have their common normal far away (d ~ size / angle): the table is still
exact, with large offsets that cancel, as DH always has there (the reason for Hayati's variant);
the normal's direction comes from u0 × (u1 ∓ u0) (`_normal`), square to rounding at any angle.
The result has the same FK at every q (checked in the tests to 1e-12 on every bundled robot
exported to URDF and read back). Inertials stay with the source robot (they live in its link
frames); `to_dh` returns a kinematic model.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..model.builders import from_dh, from_mdh
from ..model.coerce import takes_robot
from ..model.robot import Robot, RobotError
from .screws import screw_axes

CONVENTIONS = ("dh", "mdh")

# |u_i × u_{i+1}| below this: parallel axes. Taking axes a tilt t apart as parallel misses the
# FK by up to ~5·t·size (measured on random chains); taking them as they are, by a few ε·size/t
# (the far normal). 1e-10 keeps the first under the 1e-9·size the tests allow, and lies far
# above the ~1e-16 that round-off leaves between axes meant to be parallel (URDF round trips).
_PARALLEL = 1e-10
_MEET = 1e-9  # common-normal length (relative to the arm's size) below this: the axes meet

_Line = tuple[np.ndarray, np.ndarray]  # a joint axis at q = 0: (a point on it, its unit direction)
_Frames = tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]  # origins, z and x axes of frames


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _any_normal(z: np.ndarray) -> np.ndarray:
    """A unit vector ⟂ z (the x of a frame nothing else fixes)."""
    helper = np.eye(3)[int(np.argmin(np.abs(z)))]
    return _unit(helper - (helper @ z) * z)


def _normal(u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
    """u0 × u1 to ε relative to its own length, even for nearly (anti-)parallel axes: computed
    as u0 × (u1 ∓ u0). The plain product's components cancel to ~ε absolute error, turning its
    direction by ε/|u0 × u1|: a frame's x taken from it is out of square with z by that much, at
    ~size/|u0 × u1| from the base (Hypothesis: axes 2e-8 apart, 1.7e-11 out of square 5e7 away,
    FK off by 1.06e-4). u1 ∓ u0 is one rounded subtraction (ε relative) and u0 × (u1 ∓ u0) errs
    by ε·|u1 ∓ u0| ≈ ε·|u0 × u1|."""
    return np.cross(u0, u1 - u0 if u0 @ u1 >= 0 else u1 + u0)


def _frames(axes: list[_Line], size: float) -> _Frames:
    """Origins, z and x of DH frames 0..n from the joint axes (point, unit direction) at q = 0."""
    n = len(axes)
    o, z, x = [axes[0][0]], [axes[0][1]], [_any_normal(axes[0][1])]
    for i in range(1, n):
        p0, u0 = o[-1], z[-1]  # axis i through the previous origin
        p1, u1 = axes[i]
        c = _normal(u0, u1)
        if np.linalg.norm(c) < _PARALLEL:  # parallel: the normal through o_{i−1}
            oi = p1 + ((p0 - p1) @ u1) * u1
            d = oi - p0
            d -= (d @ u0) * u0
            xi = _unit(d) if np.linalg.norm(d) > _MEET * size else x[-1]
        else:
            q0, oi = _closest(p0, u0, p1, u1)
            gap = oi - q0
            xi = _unit(c)  # the common normal's direction, exactly normal to both axes
            if gap @ xi < 0 and np.linalg.norm(gap) > _MEET * size:
                xi = -xi  # pointing from axis i to axis i + 1, as DH draws it
        o.append(oi)
        z.append(u1)
        x.append(xi)
    o.append(o[-1])
    z.append(z[-1])
    x.append(x[-1])
    return o, z, x


def _closest(p0: np.ndarray, u0: np.ndarray, p1: np.ndarray, u1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closest points of the lines p0 + s·u0 and p1 + t·u1 (not parallel), from c = u0 × u1
    (`_normal`): stable when the axes are nearly parallel (1 − (u0·u1)² would cancel there)."""
    c = _normal(u0, u1)
    w = p1 - p0
    cc = c @ c
    return p0 + (np.cross(w, u1) @ c / cc) * u0, p1 + (np.cross(w, u0) @ c / cc) * u1


def _mdh_frames(axes: list[_Line], revolute: np.ndarray, size: float) -> _Frames:
    """Origins, z and x of modified-DH frames 1..n from the joint axes at q = 0 (see above);
    `revolute` per joint, False for a prismatic one, whose axis is a direction only."""
    n = len(axes)
    o: list[np.ndarray] = []
    z: list[np.ndarray] = []
    x: list[np.ndarray] = []
    r = axes[0][0]  # where the previous common normal lands on axis i (any point for axis 1)
    for i in range(n - 1):
        u0 = axes[i][1]
        p1, u1 = axes[i + 1]
        if not revolute[i + 1]:  # a prismatic axis is a direction only: its line through r meets axis i
            p1 = r
        c = _normal(u0, u1)
        if np.linalg.norm(c) < _PARALLEL:  # parallel: the normal through r (d = 0)
            oi, foot = r, p1 + ((r - p1) @ u1) * u1
            gap = foot - oi
            xi = _unit(gap) if np.linalg.norm(gap) > _MEET * size else (x[-1] if x else _any_normal(u0))
            xi = _unit(xi - (xi @ u0) * u0)
        else:
            oi, foot = _closest(r, u0, p1, u1)
            xi = _unit(c)
            if (foot - oi) @ xi < 0 and np.linalg.norm(foot - oi) > _MEET * size:
                xi = -xi  # from axis i towards axis i + 1, as Craig draws it
        o.append(oi)
        z.append(u0)
        x.append(xi)
        r = foot
    u = axes[-1][1]
    last = x[-1] - (x[-1] @ u) * u if x else np.zeros(3)  # frame n continues x_(n−1) where it can
    o.append(r)
    z.append(u)
    x.append(_unit(last) if np.linalg.norm(last) > 1e-6 else _any_normal(u))
    return o, z, x


def _frame(o: np.ndarray, z: np.ndarray, x: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, 0], T[:3, 2] = x, z
    T[:3, 1] = np.cross(z, x)
    T[:3, 3] = o
    return T


def dh_unavailable(robot: Robot) -> str | None:
    """Why no DH table (standard or modified) is equivalent to `robot`, or None when one is."""
    hel = np.flatnonzero(robot.helical)
    if hel.size:
        i = int(hel[0])
        return (f"joint {i + 1} ({robot.joint_names[i]}) is helical (pitch {robot.pitch[i]:g} "
                f"{robot.length_unit}/rad): a DH row turns about z with a constant d, or slides "
                "along z with a constant θ; a screw does both at once")
    return None


def _axes(robot: Robot, S: np.ndarray) -> list[_Line]:
    """(point, unit direction) of each joint axis at q = 0; a prismatic axis is a direction
    only: standard DH draws its line through the previous axis point (the one given here),
    modified DH through the point where the previous normal lands (`_mdh_frames`)."""
    axes: list[_Line] = []
    p = np.zeros(3)
    for i in range(robot.n):
        w, v = S[i, :3], S[i, 3:]
        if robot.revolute[i]:
            u, p = _unit(w), np.cross(w, v) / (w @ w)
        else:
            u = _unit(v)
        axes.append((p, u))
    return axes


def _dh_row(A: np.ndarray) -> dict[str, float]:
    """θ, d, a, α of A = Rz(θ)·Tz(d)·Tx(a)·Rx(α)."""
    theta = np.arctan2(A[1, 0], A[0, 0])
    return {"theta": float(theta), "d": float(A[2, 3]), "a": float(A[0, 3] * np.cos(theta) + A[1, 3] * np.sin(theta)),
            "alpha": float(np.arctan2(A[2, 1], A[2, 2]))}


# Rz(π): a frame's x and y reversed, z kept
_FLIP = np.diag([-1.0, -1.0, 1.0, 1.0])  # pyright: ignore[reportUnknownMemberType]  # NumPy's stubs need 3.11's typing


def _rows(F: list[np.ndarray], modified: bool) -> list[dict[str, float]]:
    """The table's numbers read off consecutive frames at q = 0."""
    read = _mdh_row if modified else _dh_row
    return [read(np.linalg.inv(F[i - 1]) @ F[i]) for i in range(1, len(F))]


def _untidiness(F: list[np.ndarray], modified: bool) -> tuple[int, int, float]:
    """How far a table is from how tables are printed: joint offsets that are not 0, then
    negative link lengths a, then the offsets' size (compared as a tuple)."""
    rows = _rows(F, modified)
    theta = [abs(r["theta"]) for r in rows]
    return sum(t > 1e-9 for t in theta), sum(r["a"] < -1e-12 for r in rows), sum(theta)


def _tidy(F: list[np.ndarray], modified: bool) -> list[np.ndarray]:
    """The frames with their x axes reversed where that makes a tidier table (`_untidiness`):
    each x lies along a common normal, and either direction along it is a valid DH frame, the
    numbers changing by signs and π. Standard DH's frame 0 has any x ⟂ z_0: x_1 (a normal to
    axis 1 too) makes θ_1 = 0. Coordinate descent over single reversals, O(n²) row readings."""
    tidy = list(F)
    if not modified:
        z0, x1 = tidy[0][:3, 2], tidy[1][:3, 0]
        tidy[0] = _frame(tidy[0][:3, 3], z0, _unit(x1 - (x1 @ z0) * z0))
    best, changed = _untidiness(tidy, modified), True
    while changed:
        changed = False
        for i in range(1 if modified else 0, len(tidy)):
            G = list(tidy)
            G[i] = tidy[i] @ _FLIP
            if modified and i == 1:
                G[0] = G[1]  # frame 0 is frame 1 at q = 0
            score = _untidiness(G, modified)
            if score < best:
                tidy, best, changed = G, score, True
    return tidy


def _mdh_row(A: np.ndarray) -> dict[str, float]:
    """α, a, θ, d of A = Rx(α)·Tx(a)·Rz(θ)·Tz(d) (its z column is Rx(α)·e_z)."""
    return {"alpha": float(np.arctan2(-A[1, 2], A[2, 2])), "a": float(A[0, 3]),
            "theta": float(np.arctan2(-A[0, 1], A[0, 0])), "d": float(A[:3, 3] @ A[:3, 2])}


@takes_robot
def to_dh(robot: Robot, convention: str = "dh") -> Robot:
    """A standard-DH (convention="dh") or modified-DH ("mdh", Craig's) robot with the same FK as
    `robot` at every q (its base and tool carry what the table cannot), the same joint names,
    limits, home and length unit. A RobotError saying why when none exists (a helical joint).

    >>> import kinematica as km, numpy as np
    >>> ur5 = km.load("ur5")
    >>> dh = km.to_dh(km.from_urdf(km.to_urdf(ur5)))
    >>> q = np.array([0.1, -0.5, 0.7, 0.2, 1.1, -0.4])
    >>> bool(np.allclose(km.fk(dh, q), km.fk(ur5, q), atol=1e-12))
    True
    >>> km.to_dh(ur5, "mdh").table.kind
    'mdh'
    """
    if convention not in CONVENTIONS:
        raise InputError(f"convention must be 'dh' (standard) or 'mdh' (modified), got {convention!r}")
    why = dh_unavailable(robot)
    if why:
        raise RobotError(f"no DH table is equivalent to {robot.name!r}: {why}")
    modified = convention == "mdh"
    M, S = screw_axes(robot)
    size = max(1.0, float(np.abs(S[:, 3:]).max()), float(np.abs(M[:3, 3]).max()))
    axes = _axes(robot, S)
    o, z, x = _mdh_frames(axes, robot.revolute, size) if modified else _frames(axes, size)
    frames = [_frame(*f) for f in zip(o, z, x, strict=True)]
    if modified:
        frames.insert(0, frames[0])  # frame 0 is frame 1 at q = 0
    F = _tidy(frames, modified)
    rows = [r | {"type": "revolute" if rev else "prismatic", "name": name}
            for r, rev, name in zip(_rows(F, modified), robot.revolute, robot.joint_names, strict=True)]
    build = from_mdh if modified else from_dh
    return build(rows, name=f"{robot.name}-{convention}", length_unit=robot.length_unit, limits=robot.limits,
                 joint_names=robot.joint_names, home=robot.q_home, base=F[0], tool=np.linalg.inv(F[-1]) @ M)


__all__ = ["dh_unavailable", "to_dh"]
