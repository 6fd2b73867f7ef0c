"""Rigid-body inertial parameters of one link, given directly or computed from a solid.

All quantities are expressed in the link frame, in the robot's length unit and kg:
mass m, centre of mass c (3,), inertia tensor I (3, 3) about the centre of mass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import KinematicaError


class InertialError(KinematicaError, ValueError):
    """Inertial parameters are not physical (negative mass, non-symmetric or non-PSD tensor)."""


@dataclass(frozen=True, eq=False)
class Inertial:
    """Mass (kg), centre of mass (length unit) and inertia about it (kg·unit²), link frame."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    shape: str | None = None  # "cylinder r=… h=…" when computed from a solid, for display

    def __post_init__(self) -> None:
        m = float(self.mass)
        com = np.array(self.com, dtype=float).reshape(3)
        inertia = np.array(self.inertia, dtype=float).reshape(3, 3)
        if not np.isfinite(m) or m < 0:
            raise InertialError(f"mass must be a finite number >= 0, got {self.mass}")
        if not (np.all(np.isfinite(com)) and np.all(np.isfinite(inertia))):
            raise InertialError("centre of mass and inertia must be finite")
        if not np.allclose(inertia, inertia.T, atol=1e-12 * max(1.0, np.abs(inertia).max())):
            raise InertialError("inertia tensor must be symmetric")
        if np.linalg.eigvalsh(inertia).min() < -1e-12 * max(1.0, np.abs(inertia).max()):
            raise InertialError("inertia tensor must be positive semi-definite")
        com.setflags(write=False)
        inertia.setflags(write=False)
        object.__setattr__(self, "mass", m)
        object.__setattr__(self, "com", com)
        object.__setattr__(self, "inertia", inertia)

    @classmethod
    def cylinder(cls, mass: float, radius: float, height: float, axis: str = "z",
                 com: ArrayLike = (0.0, 0.0, 0.0)) -> Inertial:
        """Solid cylinder along `axis`: I_axis = m r²/2, I_perp = m (3r² + h²)/12.

        >>> Inertial.cylinder(0.102, 0.06, 0.071).inertia.diagonal().round(7)
        array([0.0001346, 0.0001346, 0.0001836])
        """
        ax = _axis_index(axis)
        perp = mass * (3 * radius**2 + height**2) / 12.0
        d = np.full(3, perp)
        d[ax] = mass * radius**2 / 2.0
        return cls(mass, np.asarray(com, float), np.diag(d), f"cylinder r={radius} h={height} axis={axis}")

    @classmethod
    def box(cls, mass: float, size: ArrayLike, com: ArrayLike = (0.0, 0.0, 0.0)) -> Inertial:
        """Solid box with edges (x, y, z): I_xx = m (y² + z²)/12 and so on."""
        x, y, z = np.asarray(size, dtype=float)
        d = mass / 12.0 * np.array([y * y + z * z, x * x + z * z, x * x + y * y])
        return cls(mass, np.asarray(com, float), np.diag(d), f"box {x}×{y}×{z}")

    @classmethod
    def sphere(cls, mass: float, radius: float, com: ArrayLike = (0.0, 0.0, 0.0)) -> Inertial:
        """Solid sphere: I = 2/5 m r² on every axis."""
        return cls(mass, np.asarray(com, float), np.eye(3) * 0.4 * mass * radius**2, f"sphere r={radius}")


def combined(parts) -> Inertial:
    """One rigid body from parts (mass, centre of mass (3,), inertia about it (3, 3)) given in
    one frame: m = Σ m_k, c = Σ m_k c_k / m, I = Σ I_k + m_k (‖d_k‖²·1 − d_k d_kᵀ), d_k = c_k − c
    (parallel axes). A massless whole keeps the first part's centre.

    >>> combined([(1.0, [0, 0, 0], np.zeros((3, 3))), (1.0, [2, 0, 0], np.zeros((3, 3)))]).inertia.diagonal()
    array([0., 2., 2.])
    """
    parts = [(float(m), np.asarray(c, dtype=float), np.asarray(I, dtype=float)) for m, c, I in parts]
    m = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / m if m > 0 else parts[0][1]
    I = sum(p[2] + p[0] * (np.dot(p[1] - c, p[1] - c) * np.eye(3) - np.outer(p[1] - c, p[1] - c)) for p in parts)
    return Inertial(m, c, (I + I.T) / 2)


def _axis_index(axis: str) -> int:
    try:
        return "xyz".index(axis)
    except ValueError:
        raise InertialError(f"axis must be 'x', 'y' or 'z', got {axis!r}") from None
