"""The workspace envelope: tool positions of configurations sampled uniformly within the joint
limits (batched FK, block by block), the voxels they fall in, cross-sections, and the volume
(area, for a planar arm) with its uncertainty.

>>> import kinematica as km
>>> env = envelope(km.load("planar-3r"), samples=20_000, voxel=5.0)
>>> bool(np.all(np.hypot(*env.points()[:, :2].T) <= 60 + 5 / np.sqrt(2)))  # within reach + half a voxel
True
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bounds import ENVELOPE, POINTS, count
from ..ik.reach import bound
from ..kinematics.fk import fk
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..model.robotfile import write_text
from .grid import Grid, WorkspaceError, grid_around, volume
from .orientations import task_kind
from .run import Parts, block_seed, check_seed, execute

SAMPLE_BLOCK = 8192  # configurations per seeded block: the unit the map's randomness is cut into
DEFAULT_VOXELS_ACROSS = 50  # default voxel: the reach over this


@dataclass(frozen=True, eq=False)
class Envelope:
    """Occupied voxels (flat indices into `grid`, sorted) and how many samples fell in each;
    the volume (area when planar; length unit³ or ²) = `volume` ± `volume_uncertainty`."""

    robot: str
    length_unit: str
    grid: Grid
    voxels: np.ndarray
    samples_per_voxel: np.ndarray
    volume: float
    volume_uncertainty: float
    samples: int
    seed: int
    elapsed: float
    blocks_resumed: int = 0
    description: str = field(default="", repr=False)  # the robot file (YAML) the map was made from

    def points(self) -> np.ndarray:
        """(k, 3) centres of the occupied voxels: the reachable point cloud at voxel resolution."""
        return self.grid.centres(self.voxels)

    def section(self, plane: str, at: float) -> np.ndarray:
        """Centres (k, 3) of the occupied voxels cut by the plane `plane` ("xy", "xz", "yz") at
        coordinate `at` of its normal axis (z for "xy"), i.e. within half a voxel of it."""
        axis = {"xy": 2, "xz": 1, "yz": 0}.get(plane)
        if axis is None:
            raise WorkspaceError(f"plane must be xy, xz or yz, got {plane!r}")
        p = self.points()
        return p[np.abs(p[:, axis] - at) <= self.grid.voxel / 2]


def sampling_ranges(robot: Robot) -> np.ndarray:
    """(n, 2) ranges to sample: the limits; [−π, π] for an unlimited revolute joint. A prismatic
    or helical joint without limits has no range (an error naming it)."""
    lim = np.array(robot.limits, dtype=float)
    for i in np.flatnonzero(~np.all(np.isfinite(lim), axis=1)):
        if not robot.wraps[i]:  # a helical joint's turns reach ever further along its axis
            kind = "helical" if robot.helical[i] else "prismatic"
            raise WorkspaceError(f"joint {robot.joint_names[i]} is {kind} without finite limits: "
                                 "give it limits to map the workspace")
        lo, hi = lim[i]
        lim[i] = (max(lo, -np.pi) if np.isfinite(lo) else -np.pi, min(hi, np.pi) if np.isfinite(hi) else np.pi)
        if lim[i, 0] >= lim[i, 1]:  # a one-sided limit beyond ±π
            lim[i] = (lo, lo + 2 * np.pi) if np.isfinite(lo) else (hi - 2 * np.pi, hi)
    return lim


def robot_grid(robot: Robot, voxel: float | None) -> Grid:
    """The grid about the first joint covering the arm's reach bound (`ik.reach`); planar arms
    get a grid in their plane."""
    p1, reach = bound(robot)
    plane = float(fk(robot, robot.q_home)[2, 3]) if task_kind(robot) == "planar" else None
    return grid_around(p1, reach, reach / DEFAULT_VOXELS_ACROSS if voxel is None else voxel, plane)


def sample_blocks(robot: Robot, grid: Grid, lim: np.ndarray, seed: int, samples: int,
                  start: int, stop: int) -> dict[str, np.ndarray]:
    """Occupied voxels and sample counts of blocks start … stop − 1 (each SAMPLE_BLOCK
    configurations from its own seed; the last block holds what is left of `samples`)."""
    hits = []
    for b in range(start, stop):
        m = min(SAMPLE_BLOCK, samples - b * SAMPLE_BLOCK)
        Q = np.random.default_rng(block_seed(seed, 0, b)).uniform(lim[:, 0], lim[:, 1], size=(m, robot.n))
        idx = grid.index(fk(robot, Q)[:, :3, 3])
        hits.append(idx[idx >= 0])
    voxels, counts = np.unique(np.concatenate(hits), return_counts=True)
    return {"voxels": voxels, "counts": counts}


@takes_robot
def preview(robot: Robot, samples: int = 20_000, voxel: float | None = None, *,
            seed: int = 0) -> tuple[np.ndarray, np.ndarray, Grid]:
    """(centres (k, 3), samples per voxel (k,), grid) of `envelope`'s map for the same arguments,
    computed here in one call without Dask: for a quick look (the simulator's overlay)."""
    samples = count(samples, "samples", POINTS, error=WorkspaceError)
    grid = robot_grid(robot, voxel)
    out = sample_blocks(robot, grid, sampling_ranges(robot), check_seed(seed), samples, 0,
                        -(-samples // SAMPLE_BLOCK))
    return grid.centres(out["voxels"]), out["counts"], grid


def job_key(robot: Robot, **params: Any) -> dict[str, Any]:
    """What identifies a job (for resuming): the robot file's hash and the parameters."""
    return {"robot_sha256": hashlib.sha256(write_text(robot).encode()).hexdigest(), **params}


@takes_robot
def envelope(robot: Robot, samples: int = 200_000, voxel: float | None = None, *, seed: int = 0,
             chunk: int = 65_536, scheduler: str | None = None, resume: str | None = None,
             progress: Callable[[int, int], None] | None = None) -> Envelope:
    """The voxels reached by `samples` configurations uniform within the limits.

    voxel: edge in the robot's length unit (default: the reach / 50); chunk: samples per Dask
    task (rounded up to whole blocks of 8192; the map does not depend on it); scheduler: a Dask
    scheduler address (default: threads in this process); resume: a directory keeping each
    finished task's result, so a rerun after an interruption continues where it stopped."""
    t0 = time.perf_counter()
    samples = count(samples, "samples", ENVELOPE, error=WorkspaceError)
    chunk = count(chunk, "chunk", ENVELOPE, error=WorkspaceError)
    seed = check_seed(seed)
    grid, lim = robot_grid(robot, voxel), sampling_ranges(robot)
    n_blocks = -(-samples // SAMPLE_BLOCK)
    parts = Parts(resume, job_key(robot, kind="envelope", samples=samples, voxel=grid.voxel, seed=seed)) \
        if resume is not None else None
    dense = np.zeros(grid.size, np.int64)  # samples per voxel: integer sums, exact in any order

    def combine(span, result):
        np.add.at(dense, result["voxels"], result["counts"])
    resumed = execute(sample_blocks, lambda a, b: (robot, grid, lim, seed, samples, a, b), n_blocks,
                      -(-chunk // SAMPLE_BLOCK), combine, scheduler=scheduler, parts=parts, progress=progress)
    voxels = np.flatnonzero(dense)
    counts = dense[voxels]
    vol, unc = volume(grid, voxels)
    return Envelope(robot.name, robot.length_unit, grid, voxels, counts, vol, unc, samples, seed,
                    time.perf_counter() - t0, resumed, write_text(robot))
