"""Kinematica: kinematics and dynamics of serial robot manipulators.

>>> import kinematica as km
>>> robot = km.load("kuka-kr6-r900")
>>> km.fk(robot, [0, 0, 0, 0, 0, 0])[:3, 3].round(4)
array([0.    , 0.5615, 0.89  ])
"""

from . import spatial
from .kinematics import (JacobianReport, Singularity, condition, det_jjt, fk, fk_frames,
                         fk_jacobian, jacobian, jacobian_derivative, manipulability,
                         planar_fk, planar_jacobian, rank, singular_values, singularity,
                         task_rows)
from .model import from_urdf, to_urdf
from .dynamics import (DynamicsError, computed_torque, coriolis, energy, forward_dynamics,
                       gravity_torques, mass_matrix, pd_gravity, rne, simulate, with_payload)
from . import trajectory
from .trajectory import Trajectory
from .ik import IKResult, Target, TargetError, ik, ik_all, self_motion
from .ik import target as targets
from .model import (Inertial, ParameterTable, Robot, RobotError, RobotFileError, from_dh,
                    from_link_frames, from_mdh, from_planar, load, robot_names, save)
from .model import from_servo, to_servo

__version__ = "0.1.0"

__all__ = ["spatial", "Robot", "RobotError", "RobotFileError", "ParameterTable", "Inertial",
           "from_dh", "from_mdh", "from_planar", "from_link_frames", "load", "save", "robot_names",
           "fk", "fk_frames", "fk_jacobian", "jacobian", "jacobian_derivative", "planar_fk",
           "planar_jacobian", "manipulability", "det_jjt", "condition", "rank", "singular_values",
           "task_rows", "singularity", "Singularity", "JacobianReport",
           "ik", "ik_all", "self_motion", "IKResult", "Target", "TargetError", "targets"]
__all__ += ["to_servo", "from_servo"]
__all__ += ["from_urdf", "to_urdf"]
__all__ += ["rne", "mass_matrix", "gravity_torques", "coriolis", "forward_dynamics", "with_payload",
            "DynamicsError"]
__all__ += ["simulate", "pd_gravity", "computed_torque", "energy", "trajectory", "Trajectory"]
