"""Forward kinematics, Jacobians, manipulability and singularities."""

from .fk import fk, fk_frames
from .jacobian import fk_jacobian, jacobian

__all__ = ["fk", "fk_frames", "fk_jacobian", "jacobian"]
