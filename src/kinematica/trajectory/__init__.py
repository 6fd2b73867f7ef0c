"""Trajectories: the `Trajectory` value, joint and Cartesian planners, path following, files."""

from . import files
from .files import load, save, save_scenarios
from .value import Trajectory, TrajectoryError, concatenate, for_robot

__all__ = ["files", "load", "save", "save_scenarios", "Trajectory", "TrajectoryError", "concatenate", "for_robot"]
