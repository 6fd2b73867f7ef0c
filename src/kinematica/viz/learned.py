"""Figures of a learned model (issue 13): its training curve (an IK model: the tool error of its
answers to validation targets per epoch; otherwise RMSE per epoch, training and validation, per
learned output) and the histogram of its answers' errors.

>>> import numpy as np
>>> report = {"rmse_train": [[0.3, 0.2], [0.1, 0.1]], "rmse_validation": [[0.3, 0.3], [0.2, 0.1]],
...           "joints": ["j1", "j2"]}
>>> fig = training_curve(report, unit="rad", size=(5, 3))
>>> len(fig.axes[0].get_lines())  # training and validation per joint, and the epoch kept
5
>>> fig = error_histogram(np.array([0.1, 0.2, 0.4, 2.0]), unit="mm", size=(5, 3))
>>> int(sum(p.get_height() for p in fig.axes[0].patches))
4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import style
from .style import VizError

__all__ = ["COLOURS", "kept_epoch", "training_curve", "error_histogram"]

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")


def _curves(report: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None]:
    try:
        train = np.asarray(report["rmse_train"], dtype=float)
    except (KeyError, TypeError, ValueError):
        raise VizError("the model's report has no training history (rmse_train)") from None
    if train.ndim == 1:
        train = train[:, None]
    if train.ndim != 2 or len(train) == 0:
        raise VizError(f"rmse_train: expected (epochs, outputs) numbers, got shape {train.shape}")
    val = report.get("rmse_validation")
    val = None if val is None else np.asarray(val, dtype=float).reshape(train.shape)
    return train, val


def kept_epoch(report: dict[str, Any]) -> int | None:
    """The epoch (from 1) whose parameters the model kept: the lowest validation RMSE summed
    over the outputs (`learn.anfis.train`), or None without a validation history."""
    _train, val = _curves(report)
    return None if val is None else int(np.argmin(val.sum(axis=1))) + 1


def training_curve(report: dict[str, Any], *, unit: str = "", title: str | None = None,
                   size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """Training per epoch. An IK model's report with "tool_validation" (`learn.train`): the tool
    error of its answers to validation targets, by FK — position median (solid) and mean
    (dashed) in report["length_unit"], the training targets' median (dotted) where the report
    has "tool_train", orientation median in degrees on the right axis — the
    quantity the histogram of its answers shows. Otherwise (a dynamics model, an older file) the
    RMSE of each output on a log scale in `unit`: training (solid) and validation (dashed).
    Either way the epoch whose parameters the model kept is marked."""
    if isinstance(report.get("tool_validation"), dict):
        return _tool_curve(report, title, size, dpi)
    train, val = _curves(report)
    epochs = np.arange(1, len(train) + 1)
    names = list(report.get("joints") or [f"output {k + 1}" for k in range(train.shape[1])])
    fig = style.new_figure(size, dpi)
    ax = fig.add_subplot()
    for k in range(train.shape[1]):
        c = COLOURS[k % len(COLOURS)]
        ax.plot(epochs, train[:, k], "o-", color=c, ms=4, lw=1.6, label=f"{names[k]} training")
        if val is not None:
            ax.plot(epochs, val[:, k], "s--", color=c, ms=3, lw=1.2, label=f"{names[k]} validation")
    if val is not None:
        kept = int(np.argmin(val.sum(axis=1))) + 1
        ax.axvline(kept, color="#555555", ls=":", lw=1.2, label=f"kept: epoch {kept}")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"RMSE [{unit}]" if unit else "RMSE")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="major", lw=0.5, alpha=0.5)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize="small", frameon=False)
    ax.set_title(title or f"Training: {len(train)} epoch{'s' if len(train) != 1 else ''} of hybrid learning",
                 fontsize="medium")
    return fig


def _tool_curve(report: dict[str, Any], title: str | None, size: Sequence[float] | None,
                dpi: float | None) -> Figure:
    tool, unit = report["tool_validation"], str(report.get("length_unit", ""))
    try:
        med, mean, deg = (np.asarray(tool[k], dtype=float) for k in
                          ("position_median", "position_mean", "orientation_median_deg"))
    except (KeyError, TypeError, ValueError):
        raise VizError("the report's tool_validation lacks position_median, position_mean or "
                       "orientation_median_deg per epoch") from None
    if med.ndim != 1 or not len(med) == len(mean) == len(deg) > 0:
        raise VizError(f"tool_validation: expected one number per epoch, got {med.shape}, {mean.shape}, {deg.shape}")
    epochs = np.arange(1, len(med) + 1)
    fig = style.new_figure(size, dpi)
    ax = fig.add_subplot()
    ax.plot(epochs, med, "o-", color=COLOURS[0], ms=4, lw=1.6, label=f"position, median [{unit}]")
    ax.plot(epochs, mean, "s--", color=COLOURS[0], ms=3, lw=1.2, label=f"position, mean [{unit}]")
    train = report.get("tool_train")  # the same on training targets (issue 29), where the report has it
    if isinstance(train, dict) and len(train.get("position_median", [])) == len(med):
        ax.plot(epochs, np.asarray(train["position_median"], dtype=float), "o:", color=COLOURS[2], ms=3, lw=1.2,
                label=f"position, median, training [{unit}]")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"tool position error [{unit}]")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="major", lw=0.5, alpha=0.5)
    handles, labels = ax.get_legend_handles_labels()
    if np.any(deg > 0):  # a planar arm's point without heading has none
        right = ax.twinx()
        right.plot(epochs, deg, "^-", color=COLOURS[1], ms=4, lw=1.2, label="orientation, median [°]")
        right.set_ylabel("tool orientation error [°]")
        right.set_ylim(bottom=0)
        h, lab = right.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    kept = kept_epoch(report) if "rmse_train" in report else None
    if kept is not None:
        handles.append(ax.axvline(kept, color="#555555", ls=":", lw=1.2))
        labels.append(f"kept: epoch {kept}")
    fig.legend(handles, labels, loc="outside right upper", fontsize="small", frameon=False)
    ax.set_title(title or f"Tool error of the answers to {tool.get('count', '?')} validation targets"
                 + (" (and training targets)" if isinstance(train, dict) else "") + ", per epoch",
                 fontsize="medium")
    return fig


def error_histogram(errors: np.ndarray, *, unit: str = "", title: str | None = None, bins: int = 40,
                    size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """How many answers miss by how much: a histogram of errors on log-spaced bins (errors span
    decades), with the median and the 95th percentile marked."""
    e = np.asarray(errors, dtype=float).ravel()
    if e.size == 0 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise VizError("errors: expected finite non-negative numbers, at least one")
    pos = e[e > 0]
    lo = pos.min() if pos.size else 1.0
    hi = max(e.max(), lo * 10)
    edges = np.geomspace(lo, hi, bins + 1)
    fig = style.new_figure(size, dpi)
    ax = fig.add_subplot()
    ax.hist(np.clip(e, lo, hi), bins=edges, color=style.ARM, alpha=0.8)
    med, p95 = np.median(e), np.percentile(e, 95)
    ax.axvline(med, color="#2ca02c", lw=1.6, label=f"median {med:.3g} {unit}".rstrip())
    ax.axvline(p95, color=style.TARGET, ls="--", lw=1.4, label=f"95th percentile {p95:.3g} {unit}".rstrip())
    ax.set_xscale("log")
    ax.set_xlabel(f"error [{unit}]" if unit else "error")
    ax.set_ylabel("answers")
    ax.grid(True, which="major", lw=0.5, alpha=0.5)
    ax.legend(fontsize="small", frameon=False)
    ax.set_title(title or f"Errors of {e.size} answers", fontsize="medium")
    return fig
