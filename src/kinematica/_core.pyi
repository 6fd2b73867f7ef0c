# Types of the compiled core (src/core/module.cpp), for type checkers: the C++ has none they read.
from typing import Any

import numpy as np

BASE: int
TOOL: int
SPACE: int
BODY: int
WIDTH: int

class Chain:
    """A robot's kinematic tables, packed once (kinematics/handle.py makes it)."""

    n: int
    def __init__(self, C: np.ndarray, joints: np.ndarray, before: np.ndarray, after: np.ndarray,
                 base: np.ndarray, tool: np.ndarray) -> None: ...
    def fk(self, q: Any) -> np.ndarray: ...
    def jacobian(self, q: Any, frame: int = 0) -> np.ndarray: ...
    def fk_jacobian(self, q: Any, frame: int = 0) -> tuple[np.ndarray, np.ndarray]: ...
    def frames(self, q: Any) -> np.ndarray: ...

class Dynamics:
    """A robot's dynamic tables (dynamics/packing.py makes it)."""

    n: int
    def __init__(self, D: np.ndarray, gravity: np.ndarray) -> None: ...
    def rne_one(self, q: Any, qd: Any, qdd: Any, friction: Any) -> np.ndarray | None: ...
    def rne(self, q: Any, qd: Any, qdd: Any, gravity: Any, wrench: Any | None, friction: bool) -> np.ndarray: ...
    def mass_matrix(self, q: Any) -> np.ndarray: ...
