"""The pose error of IK: how far a pose T = (R, p) is from the target (R_d, p_d).

  e = [p_d − p; log(R_d Rᵀ)]  (6,)      position in length units, orientation as θ·a in rad
  E = ½‖e‖²,  position error ‖p_d − p‖,  orientation error θ = ‖log(R_d Rᵀ)‖

`pose_error` takes a batch (the batch engine's layout, batch on the last axis); `pose_error_one`
takes one target on floats, for the NumPy single-target loop (a batch of one costs ~25 µs of
array calls per iteration, several times the rest of the iteration). Both take the rotation
part from `spatial.rotation_error` and its float form, which the compiled kernel
(ik/lm_kernel.py `pose_error`) compiles as it stands.
"""

from __future__ import annotations

import math

import numpy as np

from ..spatial import rotation_error, rotation_error_floats


def pose_error(pd: np.ndarray, Rd: np.ndarray, Tr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unweighted pose error e (6, P), the position error (P,) and the orientation error
    θ (P,) with the batch on the last axis: pd (3, P), Rd (3, 3, P) and the top rows of the
    poses, Tr (3, P, 4) with Tr[r, k, c] = T_k[r, c]. One transposing copy of Tr first: every
    later operation runs on contiguous rows."""
    Tf = np.ascontiguousarray(Tr.transpose(0, 2, 1))  # Tf[r, c] = T[:, r, c]
    e = np.empty((6, Tf.shape[-1]))
    np.subtract(pd, Tf[:, 3], out=e[:3])
    _, theta = rotation_error(Rd, Tf[:, :3], out=e[3:])
    return e, np.sqrt(np.einsum("aP,aP->P", e[:3], e[:3])), theta


def pose_error_one(pd: np.ndarray, Rd: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """`pose_error` for one pose T (4, 4) and target pd (3,), Rd (3, 3): e (6,), E = ½‖e‖²,
    the position and the orientation error, computed on floats."""
    x, y, z = (pd - T[:3, 3]).tolist()
    w0, w1, w2, theta = rotation_error_floats(*Rd.dot(T[:3, :3].T).ravel().tolist())
    pos2 = x * x + y * y + z * z
    E = 0.5 * (pos2 + w0 * w0 + w1 * w1 + w2 * w2)
    return np.array([x, y, z, w0, w1, w2]), E, math.sqrt(pos2), theta
