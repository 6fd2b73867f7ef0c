"""The arm plane: a yaw joint followed by parallel joints, reduced to a planar chain.

Most arms with closed-form IK (Puma 560, KUKA KR6, UR5, the 5-DOF arms of papers 002/003)
start with a yaw joint θ1 whose axis is perpendicular to the next two or three joints, and those
joints are parallel to each other. Any point x carried by the parallel joints (the wrist centre,
the wrist point) then keeps a constant lateral offset d along their common axis h, so

  yaw     p · Rz(θ1) h = d,  p = C0⁻¹ x   →   θ1 = atan2(p_y, p_x) − atan2(ρ, d) − ∠h,
          ρ = ±√(p_x² + p_y² − d²)   (the shoulder branches; ρ = (ẑ × Rz(θ1) h) · p is how
          far the point lies ahead of axis 1 in the arm plane)
  plane   g = C1⁻¹ Rz(−θ1) p,  the point in the frame of joint 2, where the chain is planar:
          g_xy = Σ_j L_j u(A_j + s_j β_j),   u(α) = (cos α, sin α)
          A_1 = θ2,  A_(j+1) = A_j + s_j κ_j + s_(j+1) θ_(j+1)

L_j, β_j: length and in-plane angle of the vector from parallel axis j to the next (the last
one to the point itself), κ_j: the in-plane turn of the constant transform between them,
s_j = ±1: +1 when joint j's z axis points the same way as joint 2's. Everything is read from
the robot's own chain constants at θ = 0, whatever it was built from (DH, MDH, link frames,
URDF). The two unknown angles left then solve as the planar two-link arm (`planar.elbow`).

Labels. Seen from the joint-2 frame, axis 1 points along u = R1ᵀ ẑ and ρ = ρ(axis 2) +
g × u, so "up" is on the left of the line from axis 2 to the point exactly when the point lies
ahead of axis 2 (ρ > ρ(axis 2)). The two-link elbow lies on the left of that line when its
angle is negative; "elbow up" therefore takes the elbow sign −sign ρ. For a branch whose point
lies behind axis 2 (a wrist over the top, or between axes 1 and 2) the label keeps the branch's
convention while the elbow is geometrically below the line.

Angles here are θ = q + offset; the solvers subtract the offsets at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.robot import Robot
from .geometry import ANGLE_TOL, LENGTH_TOL, ROUNDING, frames0, in_frame, require, size
from .planar import elbow


# --- the arm plane ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ArmPlane:
    """Joint 1 (yaw) and the parallel joints after it, as numbers (see the module docstring)."""

    parallel: tuple[int, ...]  # 0-based indices of the parallel joints, e.g. (1, 2)
    R0: np.ndarray  # rotation of C0 (world → joint-1 frame)
    p0: np.ndarray  # origin of C0
    R1: np.ndarray  # rotation of C1 (joint-1 frame → joint-2 frame)
    p1: np.ndarray  # origin of C1, seen from the joint-2 frame: R1ᵀ p1
    h_angle: float  # ∠h: direction of the parallel axes in the joint-1 frame
    d: float  # lateral offset of the arm point along h
    L: np.ndarray  # (m,) lengths: axis j → axis j+1, …, last axis → point
    beta: np.ndarray  # (m,) their in-plane angles
    kappa: np.ndarray  # (m − 1,) in-plane turns between parallel joints
    sense: np.ndarray  # (m,) ±1 senses, sense[0] = 1
    front: float  # sign of ρ at θ = 0: which shoulder branch reaches forward
    scale: float  # the robot's length scale

    @property
    def flip(self) -> np.ndarray:
        """X = diag(1, s_m, s_m): frame of the last parallel joint = R(joint 2) Rz(A_m) X."""
        return np.diag([1.0, self.sense[-1], self.sense[-1]])

    def shoulder_names(self, front: str = "shoulder front", back: str = "shoulder back") -> list[str]:
        """Names of the shoulder branches ρ > 0, ρ < 0: right/left when the arm has a lateral
        offset d (right: the offset on the right of the reach, axis 1 up), else front/back."""
        if abs(self.d) > LENGTH_TOL * self.scale:
            right = "shoulder right", "shoulder left"
            return list(right if self.d > 0 else right[::-1])
        return [front, back] if self.front > 0 else [back, front]


def arm_plane(robot: Robot, parallel: tuple[int, ...], point: np.ndarray) -> ArmPlane:
    """Read the arm plane of `robot` for the world point `point` (at θ = 0) carried by the last
    of the `parallel` joints; raise `NotAnalytic` when the axes are not arranged that way."""
    F, C = frames0(robot), robot.C
    scale = size(robot)
    require(all(robot.revolute[: parallel[-1] + 1]), robot, "the arm joints must be revolute")
    h = C[1][:3, 2]
    require(abs(h[2]) < ANGLE_TOL, robot, "axis 2 is not perpendicular to axis 1")
    sense, kappa, L, beta = [1.0], [], [], []
    for j in parallel[1:]:
        Q = C[j][:3, :3]
        require(abs(abs(Q[2, 2]) - 1) < ANGLE_TOL, robot,
                f"axis {j + 1} is not parallel to axis {j} (the arm joints must be parallel)")
        sense.append(sense[-1] * np.sign(Q[2, 2]))
        kappa.append(np.arctan2(Q[1, 0], Q[0, 0]))
        L.append(np.hypot(*C[j][:2, 3]))
        beta.append(np.arctan2(C[j][1, 3], C[j][0, 3]))
    t = in_frame(F[parallel[-1]], point)
    L.append(np.hypot(t[0], t[1]))
    beta.append(np.arctan2(t[1], t[0]))
    require(min(L[:2]) > LENGTH_TOL * scale, robot, "an arm link has zero length in the arm plane")
    f0 = in_frame(F[0], point)
    rho0 = np.cross([0.0, 0.0, 1.0], h) @ f0
    d = float(h @ f0)
    d = 0.0 if abs(d) < ROUNDING * scale else d  # rounding of an arm without lateral offset
    return ArmPlane(tuple(parallel), C[0][:3, :3].copy(), C[0][:3, 3].copy(), C[1][:3, :3].copy(),
                    C[1][:3, 3] @ C[1][:3, :3], float(np.arctan2(h[1], h[0])), d, np.array(L),
                    np.array(beta), np.array(kappa), np.array(sense), 1.0 if rho0 >= 0 else -1.0, scale)


# --- solving: yaw, then the plane ------------------------------------------------------------
SHOULDER = np.array([1.0, -1.0])  # ρ signs of the two shoulder branches


def to_base(plane: ArmPlane, x: np.ndarray, vector: bool = False) -> np.ndarray:
    """World points (or directions) (..., 3) in the joint-1 frame: C0⁻¹ x."""
    return times(x if vector else x - plane.p0, plane.R0)


def yaw(plane: ArmPlane, p: np.ndarray, ref: np.ndarray, hint: np.ndarray | None = None):
    """θ1 (N, 2) of both shoulder branches for points p (N, 3) in the joint-1 frame, and whether
    each point is outside the cylinder of radius |d| around axis 1 (N,).

    A point on axis 1 (d = 0) leaves θ1 to other constraints: a direction `hint` (N, 3) that
    must lie in the arm plane (a 5-DOF arm's roll axis) fixes it when it is not vertical;
    otherwise θ1 is free and the branches take ref ((N,) or (1,)) and ref + π.
    """
    x, y = p[:, 0], p[:, 1]
    r2 = x * x + y * y
    if plane.d == 0:  # atan2(±ρ, 0) = ±π/2
        th = (np.arctan2(y, x) - plane.h_angle)[:, None] - SHOULDER * (np.pi / 2)
    else:
        rho = np.sqrt(np.maximum(r2 - plane.d ** 2, 0.0))[:, None] * SHOULDER
        th = (np.arctan2(y, x) - plane.h_angle)[:, None] - np.arctan2(rho, plane.d)
    free = r2 <= (ROUNDING * plane.scale) ** 2
    if free.any():
        guess = np.broadcast_to(ref, free.shape)[free, None] + np.array([0.0, np.pi])
        if hint is not None:
            hx, hy = hint[free, 0], hint[free, 1]
            flat = np.hypot(hx, hy) > ROUNDING
            along = (np.arctan2(hy, hx) - plane.h_angle)[:, None] - SHOULDER * np.pi / 2
            guess[flat] = along[flat]
        th[free] = guess
    return th, r2 >= plane.d ** 2 - (LENGTH_TOL * plane.scale) ** 2


def unit(theta: np.ndarray) -> np.ndarray:
    """e^(iθ) = cos θ + i sin θ; for many values from t = tan(θ/2): ((1 − t²) + 2it)/(1 + t²)
    — exact to rounding, and several times cheaper than NumPy's sin and cos, which are not
    vectorised on every build."""
    if theta.size <= 64:  # a few values: two calls cost less than the eight below
        return np.exp(1j * theta)
    t = np.tan(0.5 * theta)
    k = 1.0 / (1.0 + t * t)
    e = np.empty(theta.shape, np.complex128)  # (what `complex` means; typed, so e.real is an array)
    np.multiply(1.0 - t * t, k, out=e.real)
    np.multiply(t + t, k, out=e.imag)
    return e


def turn_back(e: np.ndarray, V: np.ndarray, R: np.ndarray | None = None) -> np.ndarray:
    """Rz(−θ) V for vectors V (..., 3) given e = e^(iθ) (broadcast against V[..., 0]): the
    vectors seen from a frame turned by θ about z — (x + iy)·e^(−iθ) — then times R (3, j)
    on the right (row vectors: Rᵀ applied to each) when given."""
    xy = xy_of(V) * e.conj()[..., None]
    out = np.empty(xy.shape[:-1] + (3,))
    out[..., :2] = xy.view(float)
    out[..., 2] = V[..., 2]
    return out if R is None else times(out, R)


def xy_of(v: np.ndarray) -> np.ndarray:
    """The x and y of vectors v (..., 3) as complex numbers x + i y, shape (..., 1) (a view
    when v's last axis is contiguous)."""
    if v.strides[-1] != v.itemsize:
        v = np.ascontiguousarray(v)
    return v[..., :2].view(complex)


def times(V: np.ndarray, R: np.ndarray) -> np.ndarray:
    """V (..., 3) @ R (3, j), for many vectors as one 2-D (BLAS) product."""
    if V.size <= 192:
        return V @ R
    return (np.ascontiguousarray(V).reshape(-1, 3) @ R).reshape(V.shape[:-1] + R.shape[1:])


def to_plane(plane: ArmPlane, theta1: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Vectors V (N, m, 3) of the joint-1 frame seen from the joint-2 frame of each shoulder
    branch θ1 (N, 2): R1ᵀ Rz(−θ1) V, shape (N, 2, m, 3). (A point also needs − R1ᵀ p1.)"""
    return turn_back(unit(theta1)[:, :, None], V[:, None], plane.R1)


def chain(plane: ArmPlane, gx: np.ndarray, gy: np.ndarray, elbow_sign: np.ndarray,
          A_last: np.ndarray | None = None):
    """The parallel joints' angles for the in-plane point (gx, gy) of the joint-2 frame.

    Two parallel joints: the point is reached by the two-link arm (L1, L2) directly. Three: the
    last angle A_m is given (the pitch), the wrist point W = g − L3 u(A_m + s3 β3) is reached by
    the first two links, and θ4 = s3 (A_m − A_2 − s2 κ2). `elbow_sign` = ±1 picks the elbow
    branch (the sign of the two-link elbow angle); everything broadcasts. Returns ([θ2, θ3(, θ4)], A_m,
    reachable).
    """
    L, beta, kappa, s = plane.L, plane.beta, plane.kappa, plane.sense
    if A_last is not None:
        e = L[2] * unit(A_last + s[2] * beta[2])
        gx, gy = gx - e.real, gy - e.imag
    phi1, gamma, ok = elbow(gx, gy, L[0], L[1], elbow_sign)
    th2 = phi1 - beta[0]
    A2 = phi1 + gamma - s[1] * beta[1]
    out = [th2, s[1] * (A2 - th2 - kappa[0])]
    if A_last is None:
        return out, A2, ok
    out.append(s[2] * (A_last - A2 - s[1] * kappa[1]))
    return out, A_last, ok


def last_angle(plane: ArmPlane, theta: np.ndarray) -> np.ndarray:
    """A_m, the in-plane angle of the last parallel frame, from the parallel joints' θ (..., m)."""
    A = theta[..., 0]
    for j in range(1, len(plane.parallel)):
        A = A + plane.sense[j - 1] * plane.kappa[j - 1] + plane.sense[j] * theta[..., j]
    return A
