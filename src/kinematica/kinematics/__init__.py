"""Forward kinematics, Jacobians, manipulability and singularities."""

from .derivative import jacobian_derivative
from .dh_from import dh_unavailable, to_dh
from .fk import fk, fk_frames
from .jacobian import fk_jacobian, jacobian
from .manipulability import (
                             ROWS,
                             JacobianReport,
                             condition,
                             det_jjt,
                             is_planar,
                             manipulability,
                             rank,
                             report,
                             select_rows,
                             singular_values,
                             task_rows,
)
from .offsets import OffsetFit, identify_offsets
from .planar import planar_fk, planar_jacobian
from .screws import screw_axes
from .singularity import Singularity, singularity

__all__ = ["screw_axes", "to_dh", "dh_unavailable", "fk", "fk_frames", "fk_jacobian", "jacobian", "jacobian_derivative", "planar_fk",
           "planar_jacobian", "manipulability", "det_jjt", "condition", "rank", "singular_values",
           "select_rows", "task_rows", "report", "JacobianReport", "singularity", "Singularity", "is_planar",
           "ROWS", "identify_offsets", "OffsetFit"]
