"""Array types with their shapes, for the signatures of the public verbs.

Each alias is an `Annotated` type: the type is what a type checker holds a call to (anything
array-like going in, a float64 array coming out), the string is the shape, batch first: `...`
is any number of leading batch axes (none for one configuration), `n` the robot's joint count.

    def fk(robot: Robot, q: Q) -> Poses          # q (..., n) -> T (..., 4, 4)

>>> import kinematica as km, numpy as np
>>> from kinematica.typing import shape_of
>>> shape_of(Q), shape_of(Poses)
('(..., n)', '(..., 4, 4)')
>>> km.fk("puma560", np.zeros((2, 3, 6))).shape   # ... = (2, 3)
(2, 3, 4, 4)
"""

from __future__ import annotations

from typing import Annotated, Any, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

# going in: lists, tuples or arrays, batch first
Q = Annotated[ArrayLike, "(..., n)"]  # joint values: rad (revolute), the length unit (prismatic)
QD = Annotated[ArrayLike, "(..., n)"]  # joint rates, per s
QDD = Annotated[ArrayLike, "(..., n)"]  # joint accelerations, per s²
PoseLike = Annotated[ArrayLike, "(..., 4, 4)"]  # homogeneous transforms (an IK target)
# coming out: float64 arrays
Poses = Annotated[NDArray[np.float64], "(..., 4, 4)"]  # homogeneous base-to-tool transforms
Jacobians = Annotated[NDArray[np.float64], "(..., 6, n)"]  # rows (v; ω), columns the joints
Torques = Annotated[NDArray[np.float64], "(..., n)"]  # N·m (revolute), N (prismatic)


def shape_of(alias: Any) -> str:
    """The shape string of one of the aliases above ("(..., n)")."""
    meta = [m for m in get_args(alias)[1:] if isinstance(m, str)]
    if not meta:
        raise TypeError(f"{alias!r} carries no shape")
    return meta[0]


__all__ = ["Q", "QD", "QDD", "PoseLike", "Poses", "Jacobians", "Torques", "shape_of"]
