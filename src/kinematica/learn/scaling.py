"""Input scaling of a learned model: angles wrapped into one window, then every input mapped
affinely so the training data spans [−1, 1].

An angle input (a heading φ) is periodic; a network sees a line. It is cut once, where the
training data is thinnest (the emptiest of 72 bins of 5°), and read as an angle in the 2π
window starting there: the cut costs accuracy only for the few targets next to it.

>>> s = fit(np.array([[0.0, 3.0], [10.0, -3.0]]), (False, True))  # angles 3 and −3 rad: 0.28 apart
>>> apply(s, np.array([[5.0, np.pi]])).round(3).tolist()  # π lies half-way between them
[[0.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BINS = 72


@dataclass(frozen=True, eq=False)
class Scaling:
    """cut (d,): start of each angle's 2π window (NaN for a plain input); lo, hi (d,): the
    training span of each input after wrapping."""

    cut: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return {"cut": self.cut, "lo": self.lo, "hi": self.hi}


def _cut(a: np.ndarray) -> float:
    counts, edges = np.histogram(np.mod(a, 2 * np.pi), bins=BINS, range=(0, 2 * np.pi))
    k = int(np.argmin(counts))
    return float(edges[k] + np.pi / BINS)  # the middle of the emptiest bin


def wrap(cut: np.ndarray, X: np.ndarray) -> np.ndarray:
    """X (N, d) with each angle column moved by multiples of 2π into [cut, cut + 2π)."""
    X = np.array(X, dtype=float)
    ang = np.isfinite(cut)
    X[:, ang] = cut[ang] + np.mod(X[:, ang] - cut[ang], 2 * np.pi)
    return X


def fit(X: np.ndarray, angular) -> Scaling:
    """The scaling of training inputs X (N, d); angular: which columns are angles."""
    cut = np.array([_cut(X[:, i]) if a else np.nan for i, a in enumerate(angular)])
    W = wrap(cut, X)
    lo, hi = W.min(axis=0), W.max(axis=0)
    hi = np.where(hi > lo, hi, lo + 1.0)  # a constant input: any span will do
    return Scaling(cut, lo, hi)


def apply(s: Scaling, X: np.ndarray) -> np.ndarray:
    """Scaled inputs (N, d): training data in [−1, 1], others beyond it."""
    return 2.0 * (wrap(s.cut, X) - s.lo) / (s.hi - s.lo) - 1.0
