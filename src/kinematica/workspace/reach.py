"""Reachability (capability) and dexterity maps: per voxel of the envelope, the share of a fixed
orientation set (`orientations`) that batched `km.ik` reaches at the voxel centre — each answer
judged by km.ik's independent FK check against the tolerances and the joint limits — and, for
the dexterity map, Yoshikawa's manipulability w = √det(J Jᵀ) and the condition number
κ = σ_max/σ_min of the task Jacobian at every configuration reached (mean and minimum w, mean
and maximum κ per voxel); a voxel holds a singular configuration when one of them has
κ > 1e3 (σ_min/σ_max < 1e-3, the threshold km.ik calls "near a singularity").

Voxels are solved in blocks of `block_voxels(k)` (about 2048 targets for k orientations), one
`km.ik` call per block seeded from (job seed, block): the map is the same for any chunk size or
worker count.

>>> import kinematica as km
>>> m = reachability(km.load("planar-3r"), voxel=10.0, orientations=4, samples=20_000)
>>> m.orientations.describe(), int(m.reached.max())  # θ1 ∈ [20°, 160°]: at most 2 of 4 headings
('4 headings of the last link, uniform over 360°', 2)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bounds import ENVELOPE, RESTARTS, VOXELS, count
from ..ik.analytic import has_analytic
from ..ik.solve import ik
from ..kinematics.jacobian import jacobian
from ..kinematics.manipulability import (
    condition,
    manipulability,
    select_rows,
    task_rows,
)
from ..model.coerce import takes_robot
from ..model.robot import Robot
from ..model.urdf_bodies import warn  # attributed to the user's line
from .envelope import Envelope, envelope, job_key, robot_grid
from .grid import Grid, WorkspaceError, WorkspaceWarning
from .orientations import OrientationSet, orientation_set
from .run import Parts, block_seed, check_seed, execute

BLOCK_TARGETS = 2048  # IK targets per seeded block (one batched km.ik call): a pass's fixed cost shared
SINGULAR_CONDITION = 1e3  # κ above this: "near a singularity", as km.ik says (σ_min/σ_max < 1e-3)
NEAR_EMPTY = 0.05  # a map whose reachable voxels are fewer than this share of the envelope's gets a note
MEASURES = ("manipulability_mean", "manipulability_min", "condition_mean", "condition_max", "singular")


@dataclass(frozen=True, eq=False)
class ReachMap:
    """Per occupied voxel of `envelope` (arrays aligned with `envelope.voxels`): `reached` of
    `orientations.size` orientations, `share` = reached / size, one `witness_q` that reaches
    (NaN when none) with its orientation index `witness_orientation` (−1); for a dexterity map
    also the MEASURES (NaN where nothing was reached)."""

    kind: str
    envelope: Envelope
    orientations: OrientationSet
    reached: np.ndarray
    witness_q: np.ndarray
    witness_orientation: np.ndarray
    measures: dict[str, np.ndarray] | None
    seed: int
    restarts: int
    solves: int
    elapsed: float
    blocks_resumed: int = 0
    note: str = ""  # why the map is empty or near-empty (`sparse_note`); "" otherwise

    @property
    def grid(self) -> Grid:
        return self.envelope.grid

    @property
    def voxels(self) -> np.ndarray:
        return self.envelope.voxels

    @property
    def share(self) -> np.ndarray:
        return self.reached / self.orientations.size

    def summary(self) -> dict[str, Any]:
        return {"kind": self.kind, "voxels": int(self.voxels.size), "orientations": self.orientations.size,
                "reachable_voxels": int(np.count_nonzero(self.reached)),
                "mean_share": float(self.share.mean()) if self.share.size else 0.0, "solves": self.solves,
                "time_s": self.elapsed, "solves_per_s": self.solves / self.elapsed if self.elapsed > 0 else None,
                "note": self.note}


def block_voxels(k: int) -> int:
    """Voxels per seeded block for k orientations per voxel."""
    return max(1, BLOCK_TARGETS // k)


def solve_blocks(robot: Robot, grid: Grid, oset: OrientationSet, voxels: np.ndarray, seed: int, restarts: int,
                 measures: bool, nb: int, start: int, stop: int) -> dict[str, np.ndarray]:
    """Results of voxel blocks start … stop − 1 of nb voxels each; `voxels` is the slice of occupied
    voxels they hold (nb is passed, not recomputed: a worker's process has its own constants)."""
    out: dict[str, list] = {}
    for b in range(start, stop):
        sub = voxels[(b - start) * nb:(b - start + 1) * nb]
        for k, v in _block(robot, grid, oset, sub, block_seed(seed, 1, b), restarts, measures).items():
            out.setdefault(k, []).append(v)
    return {k: np.concatenate(v) for k, v in out.items()}


def _block(robot, grid, oset, voxels, seed, restarts, measures) -> dict[str, np.ndarray]:
    B, K = len(voxels), oset.size
    res = ik(robot, oset.targets(grid.centres(voxels)), restarts=restarts, seed=seed)
    ok = np.asarray(res.success).reshape(B, K)  # km.ik's verdict: an independent FK of q, and the limits
    q = np.asarray(res.q).reshape(B, K, robot.n)
    first = np.where(ok.any(axis=1), np.argmax(ok, axis=1), -1)
    witness = np.where((first >= 0)[:, None], q[np.arange(B), np.maximum(first, 0)], np.nan)
    out = {"reached": ok.sum(axis=1), "witness_q": witness, "witness_orientation": first}
    if measures:
        out.update(_measures(robot, q, ok, measure_rows(robot, oset)))
    return out


def measure_rows(robot: Robot, oset: OrientationSet) -> str | tuple[int, ...]:
    """The task Jacobian's rows: `km.task_rows`, but (vx, vy) for a planar arm that cannot
    choose its heading (2R: its 3 x 2 planar Jacobian has κ = ∞ everywhere)."""
    return (0, 1) if oset.kind == "planar" and oset.values is None else task_rows(robot)


def _measures(robot: Robot, q: np.ndarray, ok: np.ndarray, rows: str | tuple[int, ...]) -> dict[str, np.ndarray]:
    """Per voxel (row of ok), w and κ of the task Jacobian over the configurations reached."""
    J = select_rows(jacobian(robot, q[ok]), rows)
    w, kappa = manipulability(J), condition(J)
    row = np.nonzero(ok)[0]
    B = ok.shape[0]
    out = {k: np.full(B, np.nan) for k in MEASURES[:4]}
    out["singular"] = np.zeros(B, bool)
    for i in range(B):
        wi, ki = w[row == i], kappa[row == i]
        if wi.size:
            finite = ki[np.isfinite(ki)]
            out["manipulability_mean"][i], out["manipulability_min"][i] = wi.mean(), wi.min()
            out["condition_mean"][i] = finite.mean() if finite.size else np.inf
            out["condition_max"][i] = ki.max()
            out["singular"][i] = bool(np.any(ki > SINGULAR_CONDITION))
    return out


WHY = {
    "approach": "this 5-joint arm cannot choose its roll and its approach does not stay in the vertical plane "
                "through joint 1 (no pitch set fits it), so fixed world directions seldom match one it can take",
    "pitch": "at each voxel the set holds pitches the arm can take in principle; its joint limits rule them out here",
    "pose": "the set's orientations are fixed in the world; narrow joint limits rule most of them out at each voxel",
    "planar": "the set's headings are fixed; narrow joint limits rule most of them out at each voxel",
    "position": "km.ik reached few voxel centres although the envelope's samples fell in those voxels",
}


def sparse_note(oset: OrientationSet, reached: np.ndarray, restarts: int) -> str:
    """Words for an empty or near-empty map (under NEAR_EMPTY of the envelope's voxels reach any
    orientation), saying why it may be so; "" for a map with reachable voxels to show."""
    k, V = int(np.count_nonzero(reached)), int(reached.size)
    if V and k >= NEAR_EMPTY * V:
        return ""
    what = ("the envelope has no voxel" if not V else f"no voxel of {V} reached any of the {oset.size} orientations"
            if not k else f"only {k} of {V} voxels ({k / V:.1%}) reached any of the {oset.size} orientations")
    return (f"{what} ({oset.describe()}): {WHY[oset.kind]}; each share is a lower bound from km.ik with "
            f"{restarts} random restarts per target (raise restarts, or try more orientations)")


def default_restarts(robot: Robot, oset: OrientationSet) -> int:
    """0 where a closed form fits the robot and the orientation task: km.ik then tries every
    closed-form branch of each target Levenberg–Marquardt misses (`ik.closed.rescue`), so random
    restarts cannot add a solution (the Puma's map is identical with 0 and 8, 3.4× faster with 0:
    benchmarks/bench_workspace.py); else 8."""
    return 0 if has_analytic(robot, oset.targets(np.zeros((1, 3)))) else 8


@takes_robot
def reachability(robot: Robot, voxel: float | None = None, *, orientations: int = 20, rolls: int = 4,
                 samples: int = 200_000, seed: int = 0, restarts: int | None = None, chunk: int = 256,
                 scheduler: str | None = None, resume: str | None = None,
                 progress: Callable[[int, int], None] | None = None, _kind: str = "reach") -> ReachMap:
    """The reachability map: the envelope (`envelope(robot, samples, voxel, …)`), then at every
    occupied voxel's centre batched IK for each orientation of `orientation_set(robot,
    orientations, rolls)`, `restarts` random restarts per unsolved target (a share is what this
    budget reached: a lower bound; default `default_restarts`). chunk: voxels per Dask task
    (rounded up to whole blocks); scheduler, resume, progress: as for `envelope` (the envelope's
    parts in resume/envelope)."""
    t0 = time.perf_counter()
    chunk = count(chunk, "chunk", VOXELS, error=WorkspaceError)
    seed = check_seed(seed)
    oset = orientation_set(robot, orientations, rolls)
    restarts = default_restarts(robot, oset) if restarts is None else \
        count(restarts, "restarts", RESTARTS, minimum=0, error=WorkspaceError)
    measures = _kind == "dexterity"
    parts = None if resume is None else Parts(resume, job_key(  # another job's parts are refused before any work
        robot, kind=_kind, samples=count(samples, "samples", ENVELOPE, error=WorkspaceError),
        voxel=robot_grid(robot, voxel).voxel, seed=seed, orientations=orientations, rolls=rolls, restarts=restarts))
    env = envelope(robot, samples, voxel, seed=seed, scheduler=scheduler, progress=progress,
                   resume=None if resume is None else f"{resume}/envelope")
    V, nb = env.voxels, block_voxels(oset.size)
    cat = _empty(robot, V.size, measures)

    def combine(span, result):
        for k, v in result.items():
            cat[k][span[0] * nb:span[0] * nb + len(v)] = v
    resumed = execute(
        solve_blocks, lambda a, b: (robot, env.grid, oset, V[a * nb:b * nb], seed, restarts, measures, nb, a, b),
        -(-V.size // nb), -(-chunk // nb), combine, scheduler=scheduler, parts=parts, progress=progress)
    note = sparse_note(oset, cat["reached"], restarts)
    if note:
        warn(WorkspaceWarning(f"{robot.name}: {note}"))
    return ReachMap(_kind, env, oset, cat["reached"], cat["witness_q"], cat["witness_orientation"],
                    {k: cat[k] for k in MEASURES} if measures else None, seed, restarts, V.size * oset.size,
                    time.perf_counter() - t0, resumed, note)


def _empty(robot: Robot, k: int, measures: bool) -> dict[str, np.ndarray]:
    """The per-voxel arrays of a map of k voxels, before any block is combined."""
    out = {"reached": np.zeros(k, np.int64), "witness_q": np.full((k, robot.n), np.nan),
           "witness_orientation": np.full(k, -1, np.int64)}
    if measures:
        out.update({m: np.zeros(k, bool) if m == "singular" else np.full(k, np.nan) for m in MEASURES})
    return out


@takes_robot
def dexterity(robot: Robot, voxel: float | None = None, *, orientations: int = 20, rolls: int = 4,
              samples: int = 200_000, seed: int = 0, restarts: int | None = None, chunk: int = 256,
              scheduler: str | None = None, resume: str | None = None,
              progress: Callable[[int, int], None] | None = None) -> ReachMap:
    """The reachability map with the dexterity measures (see the module docstring); the
    arguments as for `reachability` (spelled out: a wrong keyword names this function)."""
    return reachability(robot, voxel, orientations=orientations, rolls=rolls, samples=samples, seed=seed,
                        restarts=restarts, chunk=chunk, scheduler=scheduler, resume=resume, progress=progress,
                        _kind="dexterity")
