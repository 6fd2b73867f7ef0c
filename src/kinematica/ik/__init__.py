"""Inverse kinematics: targets, the batched numeric engine, and the `ik` front door.

Besides the verbs (`ik`, `ik_all`, `self_motion`), what a face needs to talk about a solve:
`default_tolerance(robot)` (the position tolerance a solution is held to, in the robot's length
unit), `has_analytic(robot, target)` (whether a closed form fits) and `CLOSED_FORMS` (the robots
one exists for, in words). `km.ik` is the function; this package is `kinematica.ik`.
"""

from typing import TYPE_CHECKING

from ..lazy import attach, table

if TYPE_CHECKING:  # loaded at first use (`kinematica.lazy`): the solvers bring most of the package
    from . import target
    from .all import ik_all, self_motion
    from .analytic import CLOSED_FORMS, has_analytic, helical_refusal
    from .result import IKResult
    from .solve import ik
    from .target import Target, TargetError
    from .tolerance import default_tolerance

__getattr__ = attach(__name__, {**table("all", "ik_all self_motion"),
                                **table("analytic", "CLOSED_FORMS has_analytic helical_refusal"),
                                "IKResult": "result", "ik": "solve", **table("target", "Target TargetError"),
                                "default_tolerance": "tolerance"}, modules=("target",))

__all__ = ["ik", "ik_all", "self_motion", "IKResult", "Target", "TargetError", "target",
           "default_tolerance", "has_analytic", "helical_refusal", "CLOSED_FORMS"]
