"""The Arduino sketch shipped in the package (`firmware/braccio_kinematica/`), written out for
the Arduino IDE or arduino-cli.

The IDE wants a sketch in a folder of its own name, so `write_firmware(DIR)` writes
DIR/braccio_kinematica/braccio_kinematica.ino. An existing file with other content is kept
(FileExistsError) unless `overwrite=True`: it may hold the user's own changes.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .. import atomic

__all__ = ["SKETCH", "sketch_text", "write_firmware"]

SKETCH = "braccio_kinematica"


def sketch_text() -> str:
    """The sketch's source, as shipped."""
    return (resources.files("kinematica.hardware") / "firmware" / SKETCH / f"{SKETCH}.ino").read_text(encoding="utf-8")


def write_firmware(out: str | Path, overwrite: bool = False) -> Path:
    """Write the sketch into `out`/braccio_kinematica/ (folders made as needed, `out`'s parent
    must exist); returns the .ino path."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is a file: give a folder for the sketch")
    if not out.parent.is_dir():
        raise FileNotFoundError(f"the folder {out.parent} does not exist")
    path = out / SKETCH / f"{SKETCH}.ino"
    text = sketch_text()
    if path.exists() and not overwrite and path.read_text(encoding="utf-8", errors="replace") != text:
        raise FileExistsError(f"{path} exists and differs from this version's sketch: move it away or "
                              "overwrite it (--force)")
    # the outermost folder this makes appears whole, or not at all; into folders already there
    # the file is renamed in, from a temporary beside `out` — never one inside the sketch's own
    # folder, where a writer killed mid-write would leave it among the sketch's files
    new = path.parent if out.exists() and not path.parent.exists() else out
    with atomic.folder(new) as tmp:
        inner = tmp / SKETCH if new == out else tmp
        inner.mkdir(exist_ok=True)
        (inner / path.name).write_text(text, encoding="utf-8")
    return path
