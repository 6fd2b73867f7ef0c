"""Robot models: the immutable `Robot`, its builders, robot files and the bundled robots."""

from .builders import from_dh, from_link_frames, from_mdh, from_planar
from .poe import from_poe
from .mjcf import MJCFError, from_mjcf
from .inertial import Inertial, InertialError
from . import library as _library
from .library import load, robot_names
from .robot import ParameterTable, Robot, RobotError
from .schema import RobotFileError
from . import urdf as _urdf
from .coerce import takes_robot as _takes_robot
from .urdf import from_urdf, urdf_tips
from .urdf_bodies import MissingLimitWarning, OffChainBodiesWarning, URDFWarning
from .servo import from_servo, to_servo

# the loader sits below coerce (which loads a robot by name) and urdf.py below the loader (load reads
# URDF files): their writers take a name here, at the top of the package
save = _takes_robot(_library.save)
to_urdf = _takes_robot(_urdf.to_urdf)

__all__ = ["Robot", "RobotError", "RobotFileError", "ParameterTable", "Inertial", "InertialError",
           "from_dh", "from_mdh", "from_planar", "from_link_frames", "load", "save", "robot_names"]
__all__ += ["to_servo", "from_servo", "from_poe", "from_mjcf", "MJCFError"]
__all__ += ["from_urdf", "to_urdf", "urdf_tips", "URDFWarning", "OffChainBodiesWarning", "MissingLimitWarning"]
