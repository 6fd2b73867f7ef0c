"""What every figure shares: a thread-safe Agg figure of an exact size, colours, units in labels.

Figures are built with `matplotlib.figure.Figure` and an Agg canvas, never through pyplot: no
global figure registry, no GUI backend, safe to build in several threads at once (the web app).

>>> fig = new_figure((4, 3), dpi=50)
>>> fig.canvas.get_width_height()
(200, 150)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import atomic
from ..errors import KinematicaError
from ..keywords import strict
from ..model.robot import Robot

__all__ = ["DEFAULT_SIZE", "DEFAULT_DPI", "ARM", "ARM_FRAMES", "JOINT_FACE", "TOOL", "TARGET", "REACH",
           "AXES_RGB", "GHOST_ALPHA", "PALETTE", "SAVE_FORMATS", "VizError", "new_figure", "save", "title",
           "settle", "joint_scale", "joint_unit", "units_label", "format_q", "format_point"]

DEFAULT_SIZE = (8.0, 6.0)  # inches; at the default 100 dpi an 800 x 600 pixel image
DEFAULT_DPI = 100.0

ARM = "#1f4e79"  # the arm drawn in its current configuration
ARM_FRAMES = "#4d4d4d"  # the arm when its frames (red, green, blue axes) are drawn on it
JOINT_FACE = "white"
TOOL = "#d95f02"  # the end effector
TARGET = "#c0143c"
REACH = "#7f7f7f"
AXES_RGB = ("#d62728", "#2ca02c", "#1f77b4")  # frame axes x, y, z
GHOST_ALPHA = 0.35
# distinct colours for overlaid configurations (IK solutions): Okabe–Ito, readable by all
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442",
           "#000000")
SAVE_FORMATS = {".png": "PNG", ".svg": "SVG", ".pdf": "PDF"}


class VizError(KinematicaError, ValueError):
    """Bad input to a figure (wrong shapes, nothing to draw, an unknown view)."""


@strict
def new_figure(size: Sequence[float] | None = None, dpi: float | None = None) -> Figure:
    """An empty figure of `size` inches (width, height) at `dpi`, with an Agg canvas and
    constrained layout (labels never cut off, the pixel size exactly width·dpi x height·dpi)."""
    w, h = DEFAULT_SIZE if size is None else (float(size[0]), float(size[1]))
    dpi = DEFAULT_DPI if dpi is None else float(dpi)
    if not (w > 0 and h > 0 and np.isfinite(w) and np.isfinite(h)):
        raise VizError(f"size: expected two positive numbers (inches), got {size!r}")
    if not (dpi > 0 and np.isfinite(dpi)):
        raise VizError(f"dpi: expected a positive number, got {dpi!r}")
    fig = Figure(figsize=(w, h), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


@strict
def save(fig: Figure, path: str | Path) -> Path:
    """Write a figure to .png, .svg or .pdf (told by the extension) at its own size and dpi."""
    path = Path(path)
    fmt = path.suffix.lower()
    if fmt not in SAVE_FORMATS:
        raise VizError(f"cannot tell the image format of {path.name!r}: use "
                       f"{', '.join(SAVE_FORMATS)}")
    with atomic.replacing(path) as tmp:  # the whole image or none
        fig.savefig(tmp, dpi=fig.dpi, format=fmt[1:])
    return path


def title(fig: Figure, axes: Sequence, text: str) -> None:
    """The figure's title: on its one axes when there is one (constrained layout then keeps a
    fixed-aspect axes and a side legend in the figure), above all the panels otherwise."""
    if len(axes) == 1 and not axes[0].get_title():
        axes[0].set_title(text, fontsize="large")
    else:
        fig.suptitle(text, fontsize="large")


def settle(fig: Figure) -> Figure:
    """Run the layout once ahead of saving. Constrained layout places fixed-aspect axes (arm
    drawings) right only from its second pass; without this a y label can end up clipped."""
    fig.draw_without_rendering()
    return fig


# --- units ---------------------------------------------------------------------------------------
def joint_scale(revolute: np.ndarray, degrees: bool = True) -> np.ndarray:
    """Per joint: the factor from q to what is shown (180/π for revolute joints in degrees)."""
    return np.where(np.asarray(revolute, bool) & degrees, 180.0 / np.pi, 1.0)


def joint_unit(revolute: bool, length_unit: str, suffix: str = "", degrees: bool = True) -> str:
    """The unit of one joint value: deg or rad (revolute), the length unit (prismatic)."""
    return ("deg" if degrees else "rad") + suffix if revolute else length_unit + suffix


def units_label(units: Sequence[str]) -> str:
    """One unit for a panel's axis label: the common one, or the distinct ones joined by '|'."""
    seen = list(dict.fromkeys(units))
    return " | ".join(seen)


def format_q(robot: Robot, q: np.ndarray, digits: int = 1) -> str:
    """Joint values for a title: degrees for revolute joints, the length unit for prismatic."""
    parts = [f"{v * 180 / np.pi:.{digits}f}°" if r else f"{v:.{digits + 1}g} {robot.length_unit}"
             for v, r in zip(np.asarray(q, float), robot.revolute, strict=True)]
    return "(" + ", ".join(parts) + ")"


def format_point(p: np.ndarray, unit: str) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in np.asarray(p, float)) + f") {unit}"
