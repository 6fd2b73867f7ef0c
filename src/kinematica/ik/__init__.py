"""Inverse kinematics: targets, the batched numeric engine, and the `ik` front door."""

from . import target
from .all import ik_all, self_motion
from .result import IKResult
from .solve import ik
from .target import Target, TargetError

__all__ = ["ik", "ik_all", "self_motion", "IKResult", "Target", "TargetError", "target"]
