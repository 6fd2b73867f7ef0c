"""Optional parts and the extra that installs each: `pip install kinematica` is the core (FK, IK,
dynamics, trajectories, robot files); the faces and heavy helpers come with an extra.

  extra      brings                                   for
  app        NiceGUI (+ plot, explain, scene, hardware, export) the simulator (`kinematica serve`)
  plot       Matplotlib                               kinematica.viz, `kinematica plot / animate`
  explain    SymPy, latex2mathml, MathJax's files     kinematica.explain, `kinematica explain`
  hardware   pyserial                                 the Braccio link (`kinematica braccio`)
  scene      coal, trimesh                            collision checks (km.Scene, IK in a scene)
  export     pygltflib, trimesh, pycollada            glTF files (`kinematica export`), DAE meshes
  workspace  Dask                                     workspace maps
  plan       OMPL, toppra                             motion planning (km.plan), time-optimal retiming
  mjcf       MuJoCo                                   MJCF robot files
  docs       MkDocs, nbclient, ipykernel              the documentation site (`kinematica docs`)
  all        every one of them

Without its extra, a part says so in one line when it is imported or first used
(`MissingExtra`, a `SetupError` and an `ImportError`):

>>> require("no-such-extra", "this")
Traceback (most recent call last):
...
kinematica.errors.InputError: unknown extra 'no-such-extra'; extras: all, app, docs, explain, export, hardware, mjcf, plan, plot, scene, workspace
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .errors import InputError, SetupError

# extra -> the modules (import names) it installs that Kinematica imports
EXTRAS: dict[str, tuple[str, ...]] = {
    "plot": ("matplotlib",),
    "explain": ("sympy", "latex2mathml", "mathjax"),
    "hardware": ("serial",),
    "scene": ("coal", "trimesh"),
    "export": ("pygltflib", "trimesh", "collada"),
    "workspace": ("dask", "distributed"),
    "plan": ("toppra", "ompl"),
    "mjcf": ("mujoco",),
    "docs": ("mkdocs", "material", "mkdocstrings", "mkdocs_jupyter", "nbclient", "nbformat", "ipykernel"),
}
EXTRAS["app"] = tuple(dict.fromkeys(("nicegui", *EXTRAS["plot"], *EXTRAS["explain"], *EXTRAS["scene"],
                                     *EXTRAS["hardware"], *EXTRAS["export"])))
EXTRAS["all"] = tuple(dict.fromkeys(m for modules in EXTRAS.values() for m in modules))


class MissingExtra(SetupError, ImportError):
    """An optional part of Kinematica is not installed; the message names the extra."""

    def __init__(self, what: str, extra: str, module: str) -> None:
        super().__init__(f"{what} needs the '{extra}' extra ({module} is not installed): "
                         f'pip install "kinematica[{extra}]"')
        self.extra = extra


def _check(extra: str) -> tuple[str, ...]:
    if extra not in EXTRAS:
        raise InputError(f"unknown extra {extra!r}; extras: {', '.join(sorted(EXTRAS))}")
    return EXTRAS[extra]


def missing(extra: str) -> list[str]:
    """The modules of `extra` that are not installed here (found without importing them)."""
    return [m for m in _check(extra) if importlib.util.find_spec(m) is None]


def require(extra: str, what: str) -> None:
    """Raise MissingExtra naming `extra` unless every module it installs is here (`what` is
    the part that needs it, for the message). Cheap: nothing is imported."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(what, extra, absent[0])


def need(module: str, extra: str, what: str) -> ModuleType:
    """`import module`, or MissingExtra naming the extra that installs it. An ImportError from
    inside an installed module (a broken install) is not hidden: it propagates as it is."""
    _check(extra)
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if e.name is None or e.name.split(".")[0] != module.split(".")[0]:
            raise
        raise MissingExtra(what, extra, module.split(".")[0]) from None


__all__ = ["EXTRAS", "MissingExtra", "missing", "require", "need"]
