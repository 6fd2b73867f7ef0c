"""The voxel grid of a workspace map: where each voxel is, which voxel a point falls in, and the
volume (area, for a planar arm) of a set of voxels with its uncertainty.

The grid is a cube (a square in the plane of a planar arm) of edge 2R + h centred on the first
joint, R the arm's reach bound (`ik.reach`: never too small), h the voxel edge: the map of a
robot, voxel and dimension is the same grid whatever the samples, chunks or workers.

>>> g = Grid(origin=np.array([0.0, 0.0, 0.0]), voxel=1.0, shape=(3, 3), plane_z=0.0)
>>> g.index(np.array([[0.2, 0.4, 0.0], [2.9, 1.1, 0.0], [5.0, 0.0, 0.0]]))
array([ 0,  7, -1])
>>> g.centres(np.array([7]))
array([[2.5, 1.5, 0. ]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bounds import VOXELS
from ..errors import KinematicaError


class WorkspaceError(KinematicaError, ValueError):
    """Bad input to a workspace map (a voxel size, a count, a scheduler, a file)."""


class WorkspaceWarning(UserWarning):
    """A map was made but says little: empty or near-empty (the message says why it may be)."""


@dataclass(frozen=True)
class Grid:
    """Voxels of edge `voxel` (robot length unit); voxel i covers origin + h·idx … + h·(idx + 1).

    shape has 3 entries (x, y, z) or 2 for a planar arm, whose voxels are squares in its plane
    at height `plane_z`."""

    origin: np.ndarray
    voxel: float
    shape: tuple[int, ...]
    plane_z: float | None = None

    @property
    def dim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def cell(self) -> float:
        """Volume (mm³ or m³) of one voxel, or area of one square for a planar grid."""
        return self.voxel ** self.dim

    def index(self, points: np.ndarray) -> np.ndarray:
        """Flat voxel index (C order) of each point (..., 3); −1 for points outside the grid."""
        p = np.asarray(points, dtype=float)[..., :self.dim]
        ijk = np.floor((p - self.origin[:self.dim]) / self.voxel).astype(np.int64)
        inside = np.all((ijk >= 0) & (ijk < np.array(self.shape)), axis=-1)
        flat = np.ravel_multi_index(tuple(np.moveaxis(np.where(inside[..., None], ijk, 0), -1, 0)), self.shape)
        return np.where(inside, flat, -1)

    def centres(self, flat: np.ndarray) -> np.ndarray:
        """(k, 3) centres of the voxels with flat indices `flat` (z = plane height when planar)."""
        ijk = np.stack(np.unravel_index(np.asarray(flat, dtype=np.int64), self.shape), axis=-1)
        xyz = self.origin[:self.dim] + (ijk + 0.5) * self.voxel
        if self.dim == 2:
            xyz = np.concatenate([xyz, np.full((len(xyz), 1), self.plane_z)], axis=1)
        return xyz

    def to_dict(self) -> dict:
        return {"origin": self.origin.tolist(), "voxel": self.voxel, "shape": list(self.shape),
                "plane_z": self.plane_z}


def check_voxel(voxel: object) -> float:
    """The voxel edge as a positive finite float, else a WorkspaceError naming it."""
    if isinstance(voxel, (bool, np.bool_)) or not isinstance(voxel, (int, float, np.integer, np.floating)):
        raise WorkspaceError(f"voxel: expected a positive length, got {voxel!r}")
    h = float(voxel)
    if not (np.isfinite(h) and h > 0):
        raise WorkspaceError(f"voxel: expected a positive finite length, got {voxel!r}")
    return h


def grid_around(centre: np.ndarray, reach: float, voxel: float, plane_z: float | None = None) -> Grid:
    """The grid covering the ball (disc when `plane_z` is given) of radius `reach` about `centre`,
    voxel edge `voxel` at most the ball's diameter 2·reach (a larger voxel holds the whole
    workspace in one cell: a map that says nothing, whose volume would overflow for a huge
    one); its voxel count within `kinematica.bounds.VOXELS`."""
    h = check_voxel(voxel)
    dim = 2 if plane_z is not None else 3
    if not np.isfinite(reach):
        raise WorkspaceError("the arm's reach is unbounded (a prismatic joint without limits): give it limits")
    if h > 2 * reach:
        raise WorkspaceError(f"voxel = {h:g} is larger than the arm's whole workspace (2 × its reach = "
                             f"{2 * reach:.4g}): one voxel would hold it all; use a voxel of at most {2 * reach:.4g} "
                             f"(the default is the reach / 50 = {reach / 50:.4g})")
    across = 2 * reach / h  # inf for a voxel far below the reach's scale: counted as a float, before int()
    total = (np.ceil(across) + 1) ** dim if across < 1e9 else np.inf
    if not total <= VOXELS.value:
        raise WorkspaceError(f"voxel = {h:g} gives {total:.3g} voxels over a reach of {reach:.4g}, over the limit "
                             f"of {VOXELS.value:,} {VOXELS.what} ({VOXELS.name}): {VOXELS.hint}")
    per_axis = int(np.ceil(across)) + 1
    origin = np.asarray(centre, dtype=float)[:3] - per_axis * h / 2
    return Grid(origin, h, (per_axis,) * dim, plane_z)


def boundary(grid: Grid, flat: np.ndarray) -> np.ndarray:
    """For each occupied voxel (flat indices, sorted unique), whether one of its 2·dim face
    neighbours is empty (or off the grid): the voxels the envelope's surface passes through."""
    occ = np.zeros(grid.shape, dtype=bool)
    occ.reshape(-1)[flat] = True
    padded = np.pad(occ, 1, constant_values=False)
    full = np.ones(grid.shape, dtype=bool)
    for axis in range(grid.dim):
        for step in (-1, 1):
            full &= np.roll(padded, step, axis=axis)[(slice(1, -1),) * grid.dim]
    return ~full.reshape(-1)[flat]


def volume(grid: Grid, flat: np.ndarray) -> tuple[float, float]:
    """(estimate, uncertainty) of the volume (area when planar) covered by occupied voxels.

    The true set contains every interior voxel and meets every boundary voxel (b of them), so it
    lies between (k − b)·v and k·v for k occupied voxels of volume v: V = (k − b/2)·v ± (b/2)·v.
    That assumes the sampling found every voxel the set meets (dense samples; the share of
    voxels each run finds is what `Envelope.samples_per_voxel` shows).

    >>> g = Grid(np.zeros(3), 1.0, (4, 4), 0.0)
    >>> volume(g, np.array([5, 6, 9, 10]))  # a 2 x 2 block: all four on the boundary
    (2.0, 2.0)
    """
    flat = np.unique(np.asarray(flat, dtype=np.int64))
    k = flat.size
    b = int(np.count_nonzero(boundary(grid, flat))) if k else 0
    return (k - b / 2) * grid.cell, (b / 2) * grid.cell
