"""Screw axes of any robot: the product-of-exponentials description (*Modern Robotics*, ch. 4).

At θ = 0 the space Jacobian's columns are the space screw axes S_i = (ω_i; v_i) and the body
Jacobian's the body screw axes B_i; with M = T(0), T(θ) = e^[S1]θ1 ⋯ e^[Sn]θn·M for every robot,
whatever form it was built in (DH, link frames, URDF), so `km.from_poe(*screw_axes(r))`
rebuilds an equivalent robot.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..model.coerce import takes_robot
from ..model.robot import Robot
from .jacobian import fk_jacobian


@takes_robot
def screw_axes(robot: Robot, form: str = "space") -> tuple[np.ndarray, np.ndarray]:
    """(M, screws): the tool's pose at q = 0 (4, 4) and the screw axes (n, 6), rows (ω; v), in
    the space frame (form="space", the base of `km.fk`) or the tool frame (form="body").

    >>> import kinematica as km
    >>> M, S = km.screw_axes(km.load("planar-3r"))
    >>> S[:, :3].round(12) + 0.0  # every axis along z
    array([[0., 0., 1.],
           [0., 0., 1.],
           [0., 0., 1.]])
    """
    if form not in ("space", "body"):
        raise InputError(f"form must be 'space' or 'body', got {form!r}")
    M, J = fk_jacobian(robot, np.zeros(robot.n), form)
    return M, np.copy(np.transpose(J), order="C")


__all__ = ["screw_axes"]
