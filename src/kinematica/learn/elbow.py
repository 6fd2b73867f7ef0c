"""The coordinates a learned arm model works in: the wrist point seen from the shoulder, and the
elbow's cosine.

With joints 2 and 3 parallel, the wrist point W turns about joint 3's axis, so its distance r
from joint 2's axis depends on θ3 alone, and exactly as

  r² = A + B·cos(θ3 − θ3*)          (B > 0; θ3* the elbow-straight angle, where r is largest)

(the law of cosines in the plane normal to the axes; offsets move θ3* and A, nothing else).
Read joint 3 directly off the wrist point and it follows √(r_max² − r²) near the straight elbow:
its slope is unbounded there. A smooth network fitting that spends its capacity, and a joint-RMSE
loss its attention, on the few targets next to the singularity, where a joint error barely moves
the tool (measured on arm-5dof, 10 000 samples: the 2 % of validation targets within 2° of
straight held 38 % of the joints' squared error and had a below-median tool error). So the
network instead reads

  (ψ, s, β):  s = (ρw − ρs)² + (zw − zs)²,  β = atan2(zw − zs, ρw − ρs)

the squared distance and the elevation of the wrist point from the shoulder S = (ρs, zs) (where
joint 2's axis pierces the arm's vertical plane, in the cylindrical coordinates of the inputs),
and answers c = cos(θ3 − θ3*), an affine function of s, instead of θ3; the answer converts back
as θ3 = θ3* + side·arccos(clip(c, −1, 1)), side = ±1 the branch's side of straight (a c beyond 1,
a target out of reach, straightens the arm). Joint 2 is then β minus a function of s alone.
Exact for arms whose joint 2 axis crosses joint 1's vertical plane at right angles (no sideways
offset); with one, S moves a little with the target and the map is smooth, not exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics.fk import fk_frames
from ..model.robot import Robot
from .sampling import Branch, fk_targets, front, inputs, sample_joints

NAMES = ("ψ", "s", "β")  # the network's inputs (s in the length unit squared, angles in rad)
ANGULAR = (False, True)  # s, β (ψ as the task has it): β may wrap round, `scaling` cuts it where the data is thinnest
PARALLEL = 1e-9  # |a2 × a3| below this: joints 2 and 3 are parallel
FIT_SAMPLES = 64  # samples the shoulder and the straight angle are read from
SAME_SIDE = 1e-9  # rad: a sample this near straight counts on either side (a box may end there)
LAW = 1e-6  # largest residual of the cosine's affine law (rounding leaves ~1e-12; a wrist point 1 mm off
# the plane of a 200 mm arm ~1e-5)


@dataclass(frozen=True, eq=False)
class Elbow:
    """shoulder (2,): (ρs, zs) in the inputs' cylindrical coordinates (length unit); straight:
    θ3* (rad, joint 3's own value); side: +1 or −1, the sign of sin(θ3 − θ3*) on the branch."""

    shoulder: np.ndarray
    straight: float
    side: float

    def arrays(self) -> dict[str, np.ndarray]:
        return {"shoulder": self.shoulder, "angles": np.array([self.straight, self.side])}


def fits(robot: Robot) -> bool:
    """Whether joints 2 and 3 are parallel revolute joints (checked at home and at one other
    configuration): what the coordinates need."""
    if robot.n < 3 or not np.all(robot.revolute[1:3]):
        return False
    q = robot.q_home + np.array([[0.0], [0.3]]) * np.array([1.0, -2.0, 3.0, 0.5, -1.0, 2.0][:robot.n])
    return bool(np.linalg.norm(np.cross(*_axis_directions(robot, fk_frames(robot, q))), axis=1).max() <= PARALLEL)


def _axis_directions(robot: Robot, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint 2's and joint 3's axis directions (N, 3) in joint 1's frame, from frames F (N, n + 1, 4, 4)."""
    C0 = robot.C[0][:3, :3]
    return tuple(np.einsum("nij,j,ik->nk", F[:, j, :3, :3], robot.before[j][:3, 2], C0) for j in (1, 2))


def of_branch(robot: Robot, br: Branch) -> Elbow | None:
    """The elbow coordinates of a branch of a 4/5-joint or 6R arm (`of_samples` on FIT_SAMPLES
    of its samples, a fixed draw), or None where they would not be exact: joint 3 held, joints 2
    and 3 not parallel (`fits`), the branch reaching both sides of straight, or the law r² = A + B cos(θ3 − θ3*) not holding in the inputs'
    coordinates to LAW (the wrist point the inputs read lying off the arm's plane, as the
    SO-101's does by up to 26 mm; the Puma 560's wrist centre beside joint 1's axis, residual
    0.1) — there the network reads the wrist point as it is."""
    if 2 not in br.learned or not fits(robot):
        return None
    q = sample_joints(br, FIT_SAMPLES, np.random.default_rng(0), robot)
    X = inputs(robot, fk_targets(robot, q), front(robot, br), br)
    el = of_samples(robot, q, X)
    one_side = np.all(el.side * np.sin(q[:, 2] - el.straight) > -SAME_SIDE)  # a cosine cannot tell ±(θ3 − θ3*) apart
    return el if one_side and law_residual(el, q, X) <= LAW else None


def law_residual(el: Elbow, q: np.ndarray, X: np.ndarray) -> float:
    """The largest residual of cos(θ3 − θ3*) fitted as an affine function of s over samples q
    (N, n) with raw inputs X (N, ≥ 3): rounding where the coordinates are exact."""
    A = np.column_stack([coordinates(el, X)[:, 1], np.ones(len(q))])
    c = np.cos(q[:, 2] - el.straight)
    coef, *_ = np.linalg.lstsq(A, c, rcond=None)
    return float(np.abs(A @ coef - c).max())


def of_samples(robot: Robot, q: np.ndarray, X: np.ndarray) -> Elbow:
    """The elbow coordinates of a branch of an arm that `fits`, from its samples: joint values
    q (N, n) and their raw inputs X (N, ≥ 3) = (ψ, ρw, zw, …).

    S is the foot of W on joint 2's axis, read in the inputs' coordinates (ρs = S·(cos ψ, sin ψ),
    zs), the median over the samples; θ3* from r² = A + B cos θ3 + C sin θ3 fitted by least
    squares to the samples' squared distances from joint 2's axis: θ3* = atan2(C, B)."""
    C0 = robot.C[0]
    F = fk_frames(robot, q)
    d2 = _axis_directions(robot, F)[0]
    p2 = (np.einsum("nij,j->ni", F[:, 1, :3, :], robot.before[1][:, 3]) - C0[:3, 3]) @ C0[:3, :3]
    psi, rho, z = X[:, 0], X[:, 1], X[:, 2]
    W = np.column_stack([rho * np.cos(psi), rho * np.sin(psi), z])
    S = p2 + np.einsum("ni,ni->n", W - p2, d2)[:, None] * d2
    shoulder = np.array([np.median(S[:, 0] * np.cos(psi) + S[:, 1] * np.sin(psi)), np.median(S[:, 2])])
    r2 = np.sum((W - S) ** 2, axis=1)
    t = q[:, 2]
    (_, B, C), *_ = np.linalg.lstsq(np.column_stack([np.ones_like(t), np.cos(t), np.sin(t)]), r2, rcond=None)
    straight = float(np.arctan2(C, B))
    side = 1.0 if np.median(np.sin(t - straight)) >= 0 else -1.0
    return Elbow(shoulder, straight, side)


def coordinates(el: Elbow, X: np.ndarray) -> np.ndarray:
    """(ψ, s, β) (N, 3) from raw inputs X (N, ≥ 3) = (ψ, ρw, zw, …): see the module docstring."""
    u, v = X[:, 1] - el.shoulder[0], X[:, 2] - el.shoulder[1]
    return np.column_stack([X[:, 0], u * u + v * v, np.arctan2(v, u)])


def output_name(joint: str) -> str:
    """What the network answers for the elbow joint named `joint`."""
    return f"cos({joint} − {joint}*)"


def to_outputs(el: Elbow, y: np.ndarray, k: int) -> np.ndarray:
    """The network's targets: joint values y (N, K) with column k (joint 3) as cos(θ3 − θ3*)."""
    y = np.array(y, dtype=float)
    y[:, k] = np.cos(y[:, k] - el.straight)
    return y


def from_outputs(el: Elbow, y: np.ndarray, k: int, interval: np.ndarray) -> np.ndarray:
    """Joint values from the network's outputs y (N, K): column k back from the cosine,
    θ3 = θ3* + side·arccos(clip(c, −1, 1)), moved by whole turns to within ±π of the centre of
    its box `interval` (rad)."""
    y = np.array(y, dtype=float)
    theta = el.straight + el.side * np.arccos(np.clip(y[:, k], -1.0, 1.0))
    mid = 0.5 * (interval[0] + interval[1])
    y[:, k] = mid + np.angle(np.exp(1j * (theta - mid)))
    return y
