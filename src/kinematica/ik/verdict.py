"""The verdict on returned joint values: an independent FK check, the singularity flag, the
reason in words, and the result object. Nothing here trusts the solver's own bookkeeping."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kinematics.jacobian import fk_jacobian, jacobian
from ..kinematics.manipulability import singular_values
from ..model.robot import LIMIT_TOL, Robot
from .frame import fit_target, judged, solver_problem
from .linsolve import spd_factor_last
from .options import AT_LIMIT, CONVERGED, LIMIT, OUTSIDE, STALLED
from .reach import Reach, out_of_reach_message
from .residual import errors
from .result import IKResult
from .target import Target

NEAR_SINGULAR = 1e-3  # σ_min/σ_max of the task Jacobian below this: flagged
NEAR_WORDS = "converged (near a singularity: σ_min/σ_max < 1e-3)"  # the reason of a flagged success


class Verdicts(NamedTuple):
    """The independent check of N returned configurations, per target (N,): solved, position
    error (length unit), orientation error (rad), within the limits, near a singularity."""

    ok: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    within_limits: np.ndarray
    near_singular: np.ndarray


def judge(robot: Robot, t: Target, q: np.ndarray, tol_position: float, tol_orientation: float, enforce: bool):
    """(ok, position error, orientation error, within limits, Jacobians) of q (N, n), from a
    fresh FK + Jacobian pass (the Jacobians serve `near_singular`: one pass instead of two)."""
    T, J = fk_jacobian(robot, q)
    pos, ori = errors(t, T)
    inside = robot.within_limits(q)
    ok = (pos < tol_position) & (ori < tol_orientation) & (inside | (not enforce))
    return ok, pos, ori, inside, J


def check(robot: Robot, target: Target, q: np.ndarray, tol_position: float, tol_orientation: float,
          enforce: bool = True) -> Verdicts:
    """`km.ik`'s verdict on joint values q (N, n) for `target` (N,), whoever found them: (ok,
    position error, orientation error, within limits, near singular), the errors by FK in the
    world frame, the singularity flag in the frame the solvers see (a planar arm's own plane)."""
    world = judged(robot, target)
    rs, t = solver_problem(robot, fit_target(robot, world))
    ok, pos, ori, inside, J = judge(robot, world, q, tol_position, tol_orientation, enforce)
    return Verdicts(ok, pos, ori, inside, near_singular(rs, t, q, J if rs is robot else None))


def near_singular(robot: Robot, t: Target, q: np.ndarray, J: np.ndarray | None = None) -> np.ndarray:
    """σ_min/σ_max < 1e-3 for the task rows of the Jacobian at each q (N, n).

    The SVD costs ~4 µs per matrix, so most configurations are cleared without one: with
    G the smaller Gram matrix (J Jᵀ or Jᵀ J, its eigenvalues σ²) and G = L Lᵀ,
    λ_min ≥ 1/tr(G⁻¹) = 1/‖L⁻¹‖²_F and λ_max ≤ tr G; when even these bounds keep the ratio
    above 1e-6 (1e-3 squared) the flag is off; only the others get an SVD."""
    J = (jacobian(robot, q) if J is None else J)[:, t.rows]
    m = min(t.dof, robot.n)
    flag = np.zeros(len(q), bool)
    k, n = J.shape[-2:]
    if m == min(k, n) and len(q) > 8:
        JS = np.ascontiguousarray(J.transpose(1, 2, 0))  # (k, n, N)
        G = np.empty((m, m, len(q)))  # lower triangle of J Jᵀ or Jᵀ J, column by column
        for i in range(m):
            if k <= n:
                np.einsum("jnN,nN->jN", JS[i:], JS[i], out=G[i:, i])
            else:
                np.einsum("rjN,rN->jN", JS[:, i:], JS[:, i], out=G[i:, i])
        trace = G[range(m), range(m)].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            L = spd_factor_last(G)
            inv_frob = _inverse_frobenius2(L)
            clear = trace * inv_frob < 1.0 / NEAR_SINGULAR ** 2
        todo = np.flatnonzero(~(clear & np.isfinite(inv_frob)))
    else:
        todo = np.arange(len(q))
    if todo.size:
        s = singular_values(J[todo])
        flag[todo] = s[:, m - 1] < NEAR_SINGULAR * s[:, 0]
    return flag


def _inverse_frobenius2(L: np.ndarray) -> np.ndarray:
    """‖L⁻¹‖²_F for lower-triangular L (m, m, N), column by column of L⁻¹ (forward substitution)."""
    m = L.shape[0]
    total = np.zeros(L.shape[-1])
    for j in range(m):
        x = np.zeros((m, L.shape[-1]))
        x[j] = 1.0 / L[j, j]
        for i in range(j + 1, m):
            x[i] = -np.einsum("kN,kN->N", L[i, j:i], x[j:i]) / L[i, i]
        total += np.einsum("kN,kN->N", x, x)
    return total


def _joint(robot: Robot, i: int, v: float) -> str:
    if robot.revolute[i]:
        return f"{robot.joint_names[i]} = {np.degrees(v):.4g}°"
    return f"{robot.joint_names[i]} = {v:.4g} {robot.length_unit}"


def reason(robot: Robot, status: int, q: np.ndarray, pos: float, ori: float, inside: bool,
           enforce: bool, max_iter: int) -> str:
    """Why a target was not solved, in words."""
    lo, hi = robot.limits[:, 0], robot.limits[:, 1]
    bad = [i for i in range(robot.n) if not lo[i] - LIMIT_TOL <= q[i] <= hi[i] + LIMIT_TOL]
    if status == CONVERGED and enforce and not inside:
        return "converged outside the joint limits: " + ", ".join(_joint(robot, i, q[i]) for i in bad)
    err = f"position error {pos:.3g} {robot.length_unit}, orientation error {ori:.3g} rad"
    if status == OUTSIDE:
        return ("converging to a solution outside the joint limits: "
                + ", ".join(_joint(robot, i, q[i]) for i in bad) + f" ({err})")
    if status == AT_LIMIT:
        at = [i for i in range(robot.n) if np.isclose(q[i], lo[i]) or np.isclose(q[i], hi[i])]
        return "stalled at joint limit " + ", ".join(_joint(robot, i, q[i]) for i in at) + f" ({err})"
    if status == STALLED:
        return f"stalled in a local minimum ({err})"
    if status == LIMIT:
        return f"no convergence in {max_iter} iterations ({err})"
    return f"the FK check failed ({err})"


def reasons(robot: Robot, status: np.ndarray, q: np.ndarray, v: Verdicts, r: Reach, enforce: bool,
            max_iter: int) -> list[str]:
    """A sentence per target; the loop runs over the unsolved ones only."""
    out = [NEAR_WORDS if nr else "converged" for nr in v.near_singular & v.ok]
    for k in np.flatnonzero(~v.ok):
        out[k] = (out_of_reach_message(r.distance[k], r.bound, robot.length_unit) if not r.reachable[k]
                  else reason(robot, status[k], q[k], v.position_error[k], v.orientation_error[k],
                              v.within_limits[k], enforce, max_iter))
    return out


def package(shape: tuple, *, method: str, q: np.ndarray, iterations: np.ndarray, verdicts: Verdicts,
            reachable: np.ndarray, words: list[str], history: list | None = None, branch=None) -> IKResult:
    """The result of N targets (arrays over N): scalars for one target (shape ()), arrays of the
    batch shape otherwise."""
    v = verdicts
    if shape == ():
        return IKResult(q=q[0], success=bool(v.ok[0]), reason=words[0], iterations=int(iterations[0]),
                        position_error=float(v.position_error[0]), orientation_error=float(v.orientation_error[0]),
                        within_limits=bool(v.within_limits[0]), near_singular=bool(v.near_singular[0]),
                        method=method, reachable=bool(reachable[0]), history=history,
                        branch=None if branch is None else branch[0])

    def rs(a):
        return a.reshape(shape + a.shape[1:])
    return IKResult(q=rs(q), success=rs(v.ok), reason=np.array(words, dtype=object).reshape(shape),
                    iterations=rs(iterations), position_error=rs(v.position_error),
                    orientation_error=rs(v.orientation_error), within_limits=rs(v.within_limits),
                    near_singular=rs(v.near_singular), method=method, reachable=rs(reachable),
                    branch=None if branch is None else rs(branch))
