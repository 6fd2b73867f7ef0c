"""Robot models: the immutable `Robot`, its builders, robot files and the bundled robots."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

from . import library as _library
from .builders import from_dh, from_link_frames, from_mdh, from_planar
from .coerce import takes_robot as _takes_robot
from .inertial import Inertial, InertialError
from .library import load, robot_names
from .mjcf import MJCFError, MJCFWarning, from_mjcf
from .poe import from_poe
from .robot import ParameterTable, Robot, RobotError
from .schema import RobotFileError
from .servo import from_servo, to_servo
from .urdf_bodies import MissingLimitWarning, OffChainBodiesWarning, URDFWarning

if TYPE_CHECKING:  # loaded at first use by __getattr__ below
    from .urdf import from_urdf, urdf_tips


# The loader sits below coerce (which loads a robot by name) and urdf.py below the loader (load reads
# URDF files): their writers take a name here, at the top of the package.
@_takes_robot
def save(robot: "Robot | str", path: "str | os.PathLike[str]") -> Path:
    """Write a robot (a Robot, a bundled name or a robot file) as YAML (.yaml/.yml) or URDF (.urdf),
    chosen by the file's extension; the path written.

    >>> import tempfile, kinematica as km
    >>> km.save("planar-3r", Path(tempfile.mkdtemp()) / "arm.yaml").name
    'arm.yaml'
    """
    return _library.save(cast(Robot, robot), path)  # (made a Robot by _takes_robot, typed F -> F)


@_takes_robot
def to_urdf(robot: "Robot | str", *, mesh_folder: str | None = None) -> str:
    """URDF text of a robot (a Robot, a bundled name or a robot file), in metres: `world` →
    `base_link` → one link per joint → `tool0`; `from_urdf` of it gives back the same FK, limits,
    names and inertials. With `mesh_folder`, mesh visuals are named `mesh_folder/<file>` (copy the
    files there: `kinematica export ROBOT --out arm.urdf` does). A helical joint is refused (URDF
    has none).

    >>> import kinematica as km
    >>> km.to_urdf("planar-3r").count("<joint ")
    4
    """
    from .urdf import to_urdf as write

    return write(cast(Robot, robot), mesh_folder=mesh_folder)  # (made a Robot by _takes_robot)


def __getattr__(name: str):
    # the URDF reader loads lxml (~15 ms of every start-up): only when a URDF is read
    if name in ("from_urdf", "urdf_tips"):
        from . import urdf

        return getattr(urdf, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Robot", "RobotError", "RobotFileError", "ParameterTable", "Inertial", "InertialError",
           "from_dh", "from_mdh", "from_planar", "from_link_frames", "load", "save", "robot_names"]
__all__ += ["to_servo", "from_servo", "from_poe", "from_mjcf", "MJCFError", "MJCFWarning"]
__all__ += ["from_urdf", "to_urdf", "urdf_tips", "URDFWarning", "OffChainBodiesWarning", "MissingLimitWarning"]
