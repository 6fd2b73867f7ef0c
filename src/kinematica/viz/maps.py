"""Figures of workspace maps (`kinematica.workspace`): a cross-section of the voxel grid as
coloured squares, or the occupied voxels as a 3-D scatter, coloured by a value per voxel
(samples, reach share, manipulability, condition number, singular).

>>> import kinematica as km
>>> env = km.workspace.envelope("planar-3r", samples=5000, voxel=5.0)
>>> fig = workspace_map(env)
>>> fig.axes[0].get_title()
'xy section, all voxels (planar)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..keywords import strict
from ..workspace.io import columns, meta
from . import style
from .style import VizError

AXES = {"xy": (0, 1, 2), "xz": (0, 2, 1), "yz": (1, 2, 0)}
LABELS = {"samples": "samples per voxel", "reached": "orientations reached", "share": "reach share",
          "manipulability_mean": "mean manipulability w", "manipulability_min": "minimum manipulability w",
          "condition_mean": "mean condition number κ", "condition_max": "maximum condition number κ",
          "singular": "holds a singular configuration"}


def map_values(m: Any) -> tuple[dict[str, Any], np.ndarray, dict[str, np.ndarray]]:
    """(meta, voxels, columns) of a map: an Envelope or ReachMap, or the dict `workspace.io.read`
    gives for an NPZ file."""
    if isinstance(m, dict):
        p = m["points"]
        values = {k: m["samples_per_voxel" if k == "samples" else k] for k in LABELS
                  if ("samples_per_voxel" if k == "samples" else k) in m}
        return m["meta"], m["voxels"], {"x": p[:, 0], "y": p[:, 1], "z": p[:, 2], **values}
    return meta(m), m.voxels, columns(m)


def default_value(info: dict[str, Any]) -> str:
    return {"envelope": "samples", "reach": "share", "dexterity": "manipulability_mean"}[info["kind"]]


@strict
def workspace_map(m: Any, value: str | None = None, view: str = "auto", at: float | None = None,
                  title: str | None = None, size: Sequence[float] | None = None,
                  dpi: float | None = None) -> Figure:
    """A map's voxels coloured by `value` (default: samples, share or mean manipulability by the
    map's kind). view: "auto" (a planar map in its plane, else the xy section), "3d" (every
    occupied voxel as a point), or a section "xy", "xz", "yz" at coordinate `at` of the normal
    axis (default: through the grid's centre, the first joint)."""
    info, voxels, cols = map_values(m)
    value = value or default_value(info)
    if value not in LABELS or value not in cols:
        raise VizError(f"value must be one of {', '.join(k for k in cols if k in LABELS)} for a "
                       f"{info['kind']} map, got {value!r}")
    grid = info["grid"]
    planar = len(grid["shape"]) == 2
    if view == "auto":
        view = "xy"
    if view not in ("3d", *AXES) or (planar and view != "xy"):
        raise VizError(f"view must be {'auto or xy (a planar map)' if planar else 'auto, 3d, xy, xz or yz'}, "
                       f"got {view!r}")
    fig = style.new_figure(size, dpi)
    v = np.asarray(cols[value], dtype=float)
    unit = info["length_unit"]
    if view == "3d":
        ax = fig.add_subplot(1, 1, 1, projection="3d")
        # (mpl_toolkits leaves zs unannotated, so pyright types it by its default 0)
        sc = ax.scatter(cols["x"], cols["y"], cols["z"], c=v, s=4, cmap="viridis", linewidths=0)  # pyright: ignore[reportArgumentType]
        ax.set_xlabel(f"x ({unit})")
        ax.set_ylabel(f"y ({unit})")
        ax.set_zlabel(f"z ({unit})")
        ax.set_title(f"{len(v)} occupied voxels")
    else:
        ax = fig.add_subplot(1, 1, 1)
        image, extent, where = _section(grid, voxels, v, view, at)
        sc = ax.imshow(image, origin="lower", extent=extent, cmap="viridis", interpolation="nearest")
        ax.set_xlabel(f"{view[0]} ({unit})")
        ax.set_ylabel(f"{view[1]} ({unit})")
        ax.set_aspect("equal")
        ax.set_title(f"{view} section, {where}")
    fig.colorbar(sc, ax=ax, shrink=0.8).set_label(LABELS[value])
    fig.suptitle(title if title is not None else f"{info['robot']}: {info['kind']} map, "
                 f"{grid['voxel']:g} {unit} voxels")
    return style.settle(fig)


def _section(grid: dict, voxels: np.ndarray, v: np.ndarray, plane: str,
             at: float | None) -> tuple[np.ndarray, tuple[float, float, float, float], str]:
    """(image, extent, words): the voxels in the layer of the section, NaN where empty."""
    shape, h, origin = tuple(grid["shape"]), float(grid["voxel"]), np.asarray(grid["origin"], float)
    ijk = np.unravel_index(voxels, shape)
    if len(shape) == 2:
        a, b = 0, 1
        keep, where = np.ones(len(voxels), bool), "all voxels (planar)"
    else:
        a, b, n = AXES[plane]
        at = origin[n] + shape[n] * h / 2 if at is None else float(at)
        layer = int(np.floor((at - origin[n]) / h))
        if not (np.isfinite(at) and 0 <= layer < shape[n]):
            raise VizError(f"at = {at:g} is outside the map's grid along {'xyz'[n]}: "
                           f"{origin[n]:g} to {origin[n] + shape[n] * h:g}")
        keep = ijk[n] == layer
        where = f"{'xyz'[n]} = {origin[n] + (layer + 0.5) * h:.4g}"
    image = np.full((shape[b], shape[a]), np.nan)
    image[ijk[b][keep], ijk[a][keep]] = v[keep]
    x0, y0 = float(origin[a]), float(origin[b])
    return image, (x0, x0 + shape[a] * h, y0, y0 + shape[b] * h), where
