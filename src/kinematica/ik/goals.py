"""Targets in the compiled core's goal layout (src/core/residual.hpp): 16 doubles a target, laid
out as a 4 × 4 pose, row-major — R_d and p_d where a pose has them, the approach axis a_d in
12–14, a planar heading φ_d in 15. A pose T is its own goal (its top three rows are read).

>>> import kinematica as km, numpy as np
>>> from kinematica.ik.target import as_target
>>> T = km.fk("puma560", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
>>> bool(np.array_equal(goals(as_target(T)).reshape(4, 4)[:3], T[:3]))
True
"""

from __future__ import annotations

import numpy as np

from .target import Target


def goals(t: Target) -> np.ndarray:
    """The targets t (N,) as the core's goals (N, 16): laid out as 4 × 4 poses, row-major — R_d
    and p_d where a pose has them, a_d in 12–14, φ_d in 15 (src/core/residual.hpp)."""
    N = int(np.prod(t.shape))
    G = np.zeros((N, 4, 4))
    p = t.p.reshape(N, -1)  # (a planar target's is (x, y) or (x, y, 0))
    G[:, :p.shape[1], 3] = p
    if t.R is not None:
        G[:, :3, :3] = t.R.reshape(N, 3, 3)
    if t.a is not None:
        G[:, 3, :3] = t.a.reshape(N, 3)
    if t.phi is not None:
        G[:, 3, 3] = t.phi.reshape(N)
    return G.reshape(N, 16)
