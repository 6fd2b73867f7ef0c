"""Bundled example scenes (YAML files in the package) and finding a scene's text by name or path;
`Scene.load` (scene.py) builds the scene from it."""

from __future__ import annotations

import difflib
import os
from importlib import resources
from pathlib import Path

from .scenefile import SceneFileError
from .shapes import SceneError


def _bundle() -> dict[str, Path]:
    folder = Path(str(resources.files("kinematica.scene") / "scenes"))
    return {p.stem: p for p in folder.iterdir() if p.suffix == ".yaml"}


def scene_names() -> list[str]:
    """Names of the bundled scenes, sorted."""
    return sorted(_bundle())


def scene_text(name_or_path: str | os.PathLike[str]) -> tuple[str, str, Path]:
    """The text of a bundled scene (by name) or a YAML scene file, where it came from (for error
    messages) and the folder its robot and mesh files are relative to; FileNotFoundError /
    SceneError for a missing file or name, SceneFileError for a file that is not text."""
    key = os.fspath(name_or_path)
    bundle = _bundle()
    if key in bundle:
        path, where = bundle[key], f"{key}.yaml"
    else:
        path, where = Path(key), key
        if path.suffix.lower() not in (".yaml", ".yml"):
            close = difflib.get_close_matches(key, bundle, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; bundled scenes: {', '.join(sorted(bundle))}"
            raise SceneError(f"unknown scene {key!r} (not a bundled name nor a .yaml file){hint}")
        if not path.is_file():
            raise FileNotFoundError(f"scene file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise SceneFileError(f"{where}: not a YAML text file (byte {e.start} is not UTF-8)") from None
    return text, where, path.parent
