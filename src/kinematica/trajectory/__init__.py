"""Trajectories: the `Trajectory` value, joint and Cartesian planners, path following, files.

Joint space (each returns a `Trajectory`):
  joint        linear interpolation between saved poses (paper 000)
  cubic        cubic polynomial, boundary velocities
  quintic      quintic polynomial, boundary velocities and accelerations
  trapezoidal  LSPB within per-joint velocity/acceleration limits, joints synchronised
  min_duration the shortest synchronised trapezoidal move
  via          through via poses: parabolic blends, or a stop on each
  time_optimal the fastest timing of a joint path under velocity, acceleration and torque
               limits (TOPP-RA, the `toppra` package)
Cartesian paths (each returns a `CartesianPath`: times, poses (k, 4, 4), arc length):
  line         straight line in N intervals, orientation by slerp (paper 004)
  arc_through  circular arc through 3 points (paper 004); circle_through: the full circle
  spline       C² cubic spline or paper 004's glued 3-point cubics through points
  retime       constant speed or a trapezoidal speed profile along the arc length
Path following:
  follow       IK of every point, warm-started, on one branch, with a per-point report
Files: save, load, save_scenarios (see `files`). Piecewise-linear velocity profiles: `ramp`.
"""

from . import files, ramp
from .arc import arc_through, circle, circle_through
from .cartesian import line
from .files import load, save, save_scenarios
from .follow import TASKS, FollowReport, follow
from .joint import joint
from .path import CartesianPath, retime
from .polynomial import cubic, quintic
from .spline import curve, spline
from .topp import time_optimal
from .trapezoidal import min_duration, trapezoidal
from .value import Trajectory, TrajectoryError, concatenate, for_robot
from .via import via

__all__ = ["files", "ramp", "load", "save", "save_scenarios", "Trajectory", "TrajectoryError", "concatenate", "for_robot",
           "joint", "cubic", "quintic", "trapezoidal", "min_duration", "via", "time_optimal",
           "CartesianPath", "line", "arc_through", "circle_through", "circle", "spline", "curve", "retime",
           "follow", "FollowReport", "TASKS"]
