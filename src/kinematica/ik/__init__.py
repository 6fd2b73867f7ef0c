"""Inverse kinematics: targets, the batched numeric engine, and the `ik` front door."""

from . import target
from .result import IKResult
from .solve import ik
from .target import Target, TargetError

__all__ = ["ik", "IKResult", "Target", "TargetError", "target"]
