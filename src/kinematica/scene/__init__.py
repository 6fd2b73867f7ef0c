"""Shared workspaces: several robots, obstacles, collision geometry and queries with coal.

shapes (box, sphere, cylinder, capsule, mesh → coal), linkgeom (each link's collision
geometry: capsules fitted to the Looks by capsulefit from drawn's points, URDF shapes, or
skeleton capsules), selfpairs (pairs left out of self-collision, with reasons), collider (the coal
engine with a batched broad phase), scene (`Scene`), scenefile (YAML scene files), moveit
(MoveIt planning-scene YAML), query
(`check`, `distance`), sweep (trajectories checked at a stated resolution), library (bundled
scenes).
"""

from .library import scene_names
from .linkgeom import LinkGeometry, link_geometry
from .moveit import moveit_text, read_moveit, srdf_disabled
from .query import CheckReport, DistanceReport
from .scene import Obstacle, Scene, SceneRobot, Seat, read_scene, read_scene_text
from .scenefile import SceneFileError, dump_scene
from .shapes import SHAPES, SceneError, Shape, make_shape, mesh_data
from .sweep import SweepReport, check_trajectory

__all__ = ["Scene", "SceneRobot", "Obstacle", "Seat", "SceneError", "SceneFileError", "Shape", "SHAPES",
           "make_shape", "CheckReport", "DistanceReport", "SweepReport", "check_trajectory", "read_scene",
           "read_scene_text", "scene_names",
           "dump_scene", "mesh_data", "LinkGeometry", "link_geometry", "read_moveit", "moveit_text",
           "srdf_disabled"]
