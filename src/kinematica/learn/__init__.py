"""Learned kinematics and dynamics: ANFIS (paper 002) trained on a robot's own FK and RNE,
evaluated honestly, and usable alone or as the warm start of the numeric IK solver.

>>> import kinematica as km, numpy as np
>>> from kinematica.learn import train_ik
>>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
>>> target = km.targets.planar([10, 45], np.radians(100))
>>> km.ik("planar-3r", target, method="anfis", model=m).success  # the model alone: approximate
False
>>> km.ik("planar-3r", target, q0=m).success  # LM seeded by the model
True
"""

from .anfis import Anfis, AnfisError
from .dynamics import train_dynamics
from .model import (
           DynamicsModel,
           IKModel,
           ModelFileError,
           WrongRobotError,
           load_model,
           save_model,
)
from .sampling import LearnError, branch
from .train import train_ik

__all__ = ["Anfis", "AnfisError", "LearnError", "ModelFileError", "WrongRobotError", "IKModel", "DynamicsModel",
           "train_ik", "train_dynamics", "load_model", "save_model", "branch"]
