"""Bundled example scenes (YAML files in the package) and reading a scene by name or path."""

from __future__ import annotations

import difflib
import os
from importlib import resources
from pathlib import Path

from .scene import Scene
from .scenefile import SceneFileError, fail_at, parse
from .shapes import SceneError


def _bundle() -> dict[str, Path]:
    folder = Path(str(resources.files("kinematica.scene") / "scenes"))
    return {p.stem: p for p in folder.iterdir() if p.suffix == ".yaml"}


def scene_names() -> list[str]:
    """Names of the bundled scenes, sorted."""
    return sorted(_bundle())


def read_scene(name_or_path: "str | os.PathLike[str]") -> Scene:
    """A bundled scene by name, or a YAML scene file; SceneFileError naming the file, line and
    field of the first problem, FileNotFoundError / SceneError for a missing file or name."""
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
    return read_scene_text(text, where, path.parent)


def read_scene_text(text: str, where: str = "<scene>", folder: Path | None = None) -> Scene:
    """A scene from the text of a YAML scene file (robot and mesh files relative to `folder`)."""
    folder = folder or Path(".")
    return _build(parse(text, where, folder), folder)


def _build(parsed: dict, folder: Path) -> Scene:
    scene = Scene(parsed["name"], length_unit=parsed["length_unit"], description=parsed["description"])
    for r in parsed["robots"]:
        src = r["source"]
        if Path(src).suffix and not Path(src).is_absolute():
            src = str(folder / src)
        c = r["collision"]
        try:
            scene.add_robot(r["name"], r["robot"], r["base"], q=r["q"], radius=c.get("radius"),
                            exclude=c.get("exclude", ()), include=c.get("include", ()), source=src)
        except SceneError as e:
            raise fail_at(parsed, r["path"] + (["collision"] if c else []), str(e)) from None
    for o in parsed["obstacles"]:
        scene.add_obstacle(o["name"], o["shape"], o["pose"])
    for i, (a, b) in enumerate(parsed["allow"]):
        try:
            scene.allow(a, b)
        except SceneError as e:
            raise fail_at(parsed, ["allow", i], str(e)) from None
    return scene
