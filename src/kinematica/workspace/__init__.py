"""Workspace, reachability and dexterity maps (issue 17), on this machine or a Dask cluster.

envelope: where the tool can be (sampled joint space → voxels, volume ± uncertainty);
reachability: per voxel, the share of a stated orientation set batched IK reaches (FK-judged);
dexterity: the same solves' manipulability and condition number per voxel, singular voxels.
Execution (run.py) is chunked, seeded per block, resumable; Dask is imported only here.
"""

from . import io
from .envelope import Envelope, envelope, preview
from .grid import Grid, WorkspaceError, WorkspaceWarning
from .orientations import OrientationSet, orientation_set
from .reach import ReachMap, dexterity, reachability
from .run import OtherJobError

__all__ = ["envelope", "reachability", "dexterity", "Envelope", "ReachMap", "Grid", "OrientationSet",
           "orientation_set", "WorkspaceError", "WorkspaceWarning", "OtherJobError", "preview",
           "io"]  # io: a map's files (`io.save`, `io.read`, `io.FORMATS`)
