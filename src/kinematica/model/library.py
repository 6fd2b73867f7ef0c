"""Bundled robots (YAML files shipped in the package) and `load` / `save` by name or path."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import atomic
from ..errors import InputError
from ..keywords import strict
from .robot import Robot
from .robotfile import read_text, write_text
from .schema import RobotFileError

_SUFFIXES_YAML = (".yaml", ".yml")
_SUFFIXES_MJCF = (".xml", ".mjcf")


def _bundle() -> dict[str, Path]:
    folder = Path(__file__).with_name("robots")  # shipped beside this module (importlib.resources: +10 ms a start)
    return {p.name.rsplit(".", 1)[0]: p for p in folder.iterdir() if p.name.endswith(".yaml")}


@strict
def robot_names() -> list[str]:
    """Names of the bundled robots, sorted."""
    return sorted(_bundle())


@strict
def load(name_or_path: str | Path, *, tip: str | None = None,
         hold: Mapping[str, float] | None = None, package_dirs: Sequence[str | Path] = ()) -> Robot:
    """A bundled robot by name (``km.load("puma560")``), or a YAML, URDF or MJCF (.xml, .mjcf,
    through MuJoCo's compiler: `from_mjcf`) robot file by path.

    For a URDF, `tip` names the link that ends the chain (needed when the tree branches into
    equally long chains; `km.urdf_tips(path)` lists the candidates), `hold` the values
    (rad or m) at which movable joints off the chain are held, and `package_dirs` the folders
    holding the packages its `package://` meshes name (see `from_urdf`).
    Raises ValueError naming the robot (with close matches) when neither exists, and
    RobotFileError naming the file, line and field when a file is malformed.
    """
    key = str(name_or_path)
    bundle = _bundle()
    path = Path(key)
    urdf = key not in bundle and path.suffix.lower() == ".urdf"
    mjcf = key not in bundle and path.suffix.lower() in _SUFFIXES_MJCF
    if hold and not urdf:
        raise InputError(f"{key}: hold sets the joints off a URDF tree's chain; this is not a .urdf file"
                         + (" (an MJCF model holds them at qpos0)" if mjcf else ""))
    if not (urdf or mjcf) and tip is not None:
        raise InputError(f"{key}: tip chooses a chain of a URDF or MJCF tree; this is neither")
    if key in bundle:
        # the bundle's folder, for the meshes a bundled robot's looks name (so101/*.glb)
        return read_text(bundle[key].read_text(encoding="utf-8"), f"{key}.yaml", folder=Path(str(bundle[key])).parent,
                         bundled=True)
    if mjcf:
        from .mjcf import from_mjcf

        return from_mjcf(path, tip=tip)
    if path.suffix.lower() in _SUFFIXES_YAML + (".urdf",):
        if not path.is_file():
            raise FileNotFoundError(f"robot file not found: {path}")
        if urdf:
            from .urdf import from_urdf

            return from_urdf(path, tip=tip, hold=hold, package_dirs=package_dirs)  # the path, not its text: XML reads its own encoding
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise RobotFileError(f"{path}: not a YAML text file (byte {e.start} is not UTF-8)") from None
        return read_text(text, str(path))
    close = [n for n in sorted(bundle) if n.startswith(key.lower())] or difflib.get_close_matches(key, bundle, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; bundled robots: {', '.join(sorted(bundle))}"
    raise InputError(f"unknown robot {key!r} (not a bundled name nor a .yaml/.urdf/.xml file){hint}")


def save(robot: Robot, path: str | os.PathLike[str]) -> Path:
    """Write `robot` as YAML (.yaml/.yml) or URDF (.urdf), chosen by the file's extension (`km.save`
    also takes a name: model/__init__ wraps it, as coerce imports this module)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in _SUFFIXES_YAML:
        text = write_text(robot)
    elif suffix == ".urdf":
        from .urdf import to_urdf

        text = to_urdf(robot)
    else:
        raise InputError(f"cannot tell the format of {path.name!r}: use .yaml, .yml or .urdf")
    return atomic.write_text(path, text)
