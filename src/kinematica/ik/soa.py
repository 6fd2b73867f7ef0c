"""FK + Jacobian for the batch engine, with the batch on the last axis and reused buffers.

`kinematics.chain.end_pass` returns poses (N, 4, 4) and Jacobians (N, 6, n), which is what a
user wants; the solver wants the opposite layout (every later operation runs on contiguous
rows of N values), and it calls the pass ~20 times per target. Going through `end_pass` costs
two transposing copies of J per iteration plus fresh multi-megabyte arrays every call, whose
first touch (page faults) measured as much as the arithmetic: 0.47 µs per pose against
0.19 µs here for the Puma 560 at 4096 poses. So this module drives the chain's own chunk
kernel (`_run_chunk`, the same arithmetic as `end_pass`) into buffers allocated once per solve
and keeps its batch-last Jacobian as is.
"""

from __future__ import annotations

import numpy as np

from ..kinematics.chain import _parts, _run_chunk, helical_columns
from ..model.robot import Robot


class Workspace:
    """Buffers for up to `size` problems, reused by every iteration of one solve."""

    def __init__(self, robot: Robot, size: int):
        n = robot.n
        self.robot, self.parts, self.size = robot, _parts(robot), size
        self._S = np.empty(24 * size)
        self._T = np.empty(16 * size)
        self._J = np.empty(6 * n * size)
        self._P = np.empty(3 * n * size)
        self._tmp = np.empty(n * size)
        self._start = np.empty((3, size, 4))
        self._start[:] = robot.C[0, :3, None, :]  # C0's top rows: the state before joint 1

    def pass_(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For q (n, P), P ≤ size: the top rows of the end poses, Tr (3, P, 4) with
        Tr[r, k, c] = T_k[r, c], and the geometric Jacobians J (6, n, P). Both are views into
        the buffers: valid until the next call."""
        robot, n, P = self.robot, self.robot.n, q.shape[1]
        S = self._S[:24 * P].reshape(2, 3, P, 4)  # views contiguous for every P
        Tb = self._T[:16 * P].reshape(4, P, 4)
        J = self._J[:6 * n * P].reshape(6, n, P)
        Pj = self._P[:3 * n * P].reshape(3, n, P)
        np.copyto(S[0], self._start[:, :P])
        # Qc = q.T: the kernel reads Qc.T (contiguous here) and writes T row by row into Tb
        _run_chunk(robot, self.parts, q.T, S, Tb.transpose(1, 0, 2), J[3:], Pj)
        Z = J[3:]
        D = np.subtract(Tb[:3, None, :, 3], Pj, out=Pj)  # p_e − p_i
        tmp = self._tmp[:n * P].reshape(n, P)
        for r in range(3):  # z × (p_e − p), row by row
            a, b = (r + 1) % 3, (r + 2) % 3
            np.multiply(Z[a], D[b], out=J[r])
            J[r] -= np.multiply(Z[b], D[a], out=tmp)
        pri = self.parts.pri
        if pri.size:  # a prismatic column is [z; 0]
            J[:3, pri] = Z[:, pri]
            J[3:, pri] = 0.0
        helical_columns(self.parts, J)
        return Tb[:3], J
