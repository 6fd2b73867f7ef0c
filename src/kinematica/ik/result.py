"""The result of an IK solve: values, an honest verdict and the reason for it, in words."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputTypeError


@dataclass(frozen=True, eq=False, kw_only=True)
class IKResult:
    """Joint values and verdict for one target, or arrays over a batch of targets.

    q: (…, n) joint values (the best found, even when success is False);
    success: the FK of q meets the tolerances and, when limits are enforced, q is within them —
    checked by an independent FK call, never taken from the solver's own bookkeeping;
    reason: a sentence per target; iterations: solver iterations spent, restarts included;
    position_error (length unit), orientation_error (rad): of the returned q;
    within_limits; near_singular: σ_min/σ_max of the task Jacobian at q below 1e-3;
    history: per-iteration records (error, λ, Δq, q, accepted) when asked for, single target only;
    collision: when solved against a scene, the first colliding pair of names (None when clear).
    """

    q: np.ndarray
    success: np.ndarray | bool
    reason: Any
    iterations: np.ndarray | int
    position_error: np.ndarray | float
    orientation_error: np.ndarray | float
    within_limits: np.ndarray | bool
    near_singular: np.ndarray | bool
    method: str
    reachable: np.ndarray | bool = True
    branch: Any = None
    history: list[dict] | None = field(default=None, repr=False)
    collision: Any = None

    @property
    def batched(self) -> bool:
        return np.ndim(self.success) > 0

    def __getitem__(self, idx) -> IKResult:
        """The result of one target of a batch."""
        if not self.batched:
            raise InputTypeError("a single-target result cannot be indexed")
        pick = {k: (np.asarray(v, dtype=object)[idx] if k in ("reason", "branch", "collision") and v is not None
                    else (v[idx] if isinstance(v, np.ndarray) else v))
                for k, v in self.__dict__.items() if k != "history"}
        out: dict[str, Any] = {k: (v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v)  # one per field
                               for k, v in pick.items()}
        return IKResult(**out, history=None)

    def to_dict(self, angle_scale: np.ndarray | None = None) -> dict[str, Any]:
        """Plain data for JSON; q_deg too when the per-joint degree scale is given."""
        d: dict[str, Any] = {
            "q": np.asarray(self.q).tolist(), "success": np.asarray(self.success).tolist(),
            "reason": self.reason if isinstance(self.reason, str) else list(self.reason),
            "iterations": np.asarray(self.iterations).tolist(),
            "position_error": np.asarray(self.position_error).tolist(),
            "orientation_error": np.asarray(self.orientation_error).tolist(),
            "within_limits": np.asarray(self.within_limits).tolist(),
            "near_singular": np.asarray(self.near_singular).tolist(), "method": self.method,
            "reachable": np.asarray(self.reachable).tolist(),
        }
        if angle_scale is not None:
            d["q_deg"] = (np.asarray(self.q) * angle_scale).tolist()
        if self.branch is not None:
            d["branch"] = self.branch
        if self.collision is not None:
            d["collision"] = np.asarray(self.collision, dtype=object).tolist()
        return d

    def _repr_html_(self) -> str:  # Jupyter
        from ..htmlrepr import ik_html

        return ik_html(self)

    def __repr__(self) -> str:
        if self.batched:
            ok = np.asarray(self.success)
            return f"IKResult({ok.sum()} of {ok.size} solved, method {self.method!r})"
        return (f"IKResult(success={bool(self.success)}, reason={self.reason!r}, q={np.round(self.q, 6).tolist()}, "
                f"iterations={int(self.iterations)}, position_error={float(self.position_error):.3g}, "
                f"orientation_error={float(self.orientation_error):.3g})")
