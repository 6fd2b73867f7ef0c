"""Trajectories: the `Trajectory` value, joint and Cartesian planners, path following, files."""

from .value import Trajectory, TrajectoryError, concatenate, for_robot

__all__ = ["Trajectory", "TrajectoryError", "concatenate", "for_robot"]
