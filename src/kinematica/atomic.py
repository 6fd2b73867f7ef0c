"""Files and folders written whole or not at all: every file Kinematica writes goes through here.

A file is written to a temporary name in its own folder, flushed to the disk (fsync), then
renamed over the target in one step (`os.replace`, atomic on POSIX and Windows within a
folder), and the folder's entry is synced too. A reader — or a run killed half-way, or a full
disk — finds the old file or the new one, never a part of one; a failed write removes its
temporary file and leaves the target as it was. A folder of outputs is built under a temporary
name and renamed into place when it is new; into a folder that exists, each file is renamed in
on its own (each whole; other files there are kept).

Temporary names are hidden and say whose they are, ``.<name>.<pid>-<random>.tmp<suffix>``
(the suffix kept, as image and video writers choose their format by it); one left by a process
that was killed is removed by the next write to the same target (POSIX).

A target that cannot be written — a folder, a missing folder, no permission, a full disk — is a
`WriteError` naming the path and why, before anything is left behind.

>>> import tempfile, pathlib
>>> p = write_text(pathlib.Path(tempfile.mkdtemp()) / "a.txt", "whole")
>>> p.read_text(), sorted(x.name for x in p.parent.iterdir())
('whole', ['a.txt'])
>>> write_text(p.parent / "no-such-folder" / "b.txt", "x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kinematica.errors.WriteError: cannot write .../no-such-folder/b.txt: folder .../no-such-folder does not exist
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import WriteError


def _why(e: OSError) -> str:
    """The system's own words ("No space left on device", "Permission denied"), or ours."""
    return "it is a folder" if e.errno == errno.EISDIR else e.strerror or str(e)


def check(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """`path` as a Path if a file (or, with `folder`, a folder) can be written there: its parent
    folder exists and is one, and the path itself is not a folder (or, with `folder`, not a
    file); else a WriteError saying which. Cheap: call it before long work whose result goes there."""
    p = Path(path)
    parent = p.parent
    if not parent.is_dir():
        what = "is a file, not a folder" if parent.exists() else "does not exist"
        raise WriteError(f"cannot write {p}: folder {parent} {what}")
    if not folder and p.is_dir():
        raise WriteError(f"cannot write {p}: it is a folder")
    if folder and p.exists() and not p.is_dir():
        raise WriteError(f"cannot write the folder {p}: a file of that name is in the way")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise WriteError(f"cannot write {p}: folder {parent} is not writable")
    return p


def _temp_name(p: Path) -> Path:
    return p.with_name(f".{p.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp{p.suffix}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def sweep(p: Path) -> None:
    """Remove the temporary files and folders a killed writer of `p` left beside it (POSIX
    only: there a process id tells whether their writer still runs)."""
    if os.name != "posix":
        return
    pattern = re.compile(rf"\.{re.escape(p.name)}\.(\d+)-[0-9a-f]{{8}}\.tmp{re.escape(p.suffix)}")
    try:
        entries = list(os.scandir(p.parent))
    except OSError:
        return
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            _remove(Path(entry.path))


def _remove(p: Path) -> None:
    try:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    except OSError:
        pass


def _sync(p: Path) -> None:
    """Flush a file's data, or a folder's entries (POSIX: where a folder can be opened), to the disk."""
    if p.is_dir():
        if os.name != "posix":
            return
        fd = os.open(p, os.O_RDONLY)
    else:
        fd = os.open(p, os.O_RDWR | getattr(os, "O_BINARY", 0))  # Windows syncs only a file open for writing
    try:
        os.fsync(fd)
    except OSError as e:  # a folder some file systems cannot fsync: its entries are still written
        if not p.is_dir() or e.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _keep_mode(tmp: Path, target: Path) -> None:
    """A file written over an existing one keeps that one's permission bits."""
    try:
        os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
    except FileNotFoundError:
        pass


@contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Context manager for a writer that needs a file name: yields a temporary path beside
    `path` (same suffix); when the block ends without error the file there is synced and renamed
    over `path`, otherwise removed. A WriteError names `path` when it cannot be written."""
    p = check(path)
    sweep(p)
    tmp = _temp_name(p)
    try:
        yield tmp
        if not tmp.is_file():
            raise WriteError(f"cannot write {p}: the writer made no file")
        _sync(tmp)
        _keep_mode(tmp, p)
        os.replace(tmp, p)
        _sync(p.parent)
    except WriteError:
        raise
    except OSError as e:
        raise WriteError(f"cannot write {p}: {_why(e)}") from None
    finally:
        if tmp.exists():
            _remove(tmp)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> Path:
    """Write `data` to `path` whole or not at all (see the module); returns the path. `mode`:
    the new file's permission bits (e.g. 0o600 for a secret; the temporary file has them from
    the start); default those of the file replaced, or as `open` would give a new one."""
    with replacing(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o666 if mode is None else mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    if mode is not None:
        os.chmod(path, mode)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` whole or not at all (see `write_bytes`); returns the path."""
    return write_bytes(path, text.encode(encoding))


@contextmanager
def folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Context manager for a folder of outputs: yields a temporary folder beside `path` to
    write into; when the block ends without error, a new `path` is that folder renamed (whole in
    one step), and into an existing `path` each file is renamed in on its own (each whole,
    subfolders made as needed, files already there and not written kept). On error the
    temporary folder is removed and `path` is as it was."""
    p = check(path, folder=True)
    sweep(p)
    tmp = _temp_name(p)
    try:
        tmp.mkdir()
        yield tmp
        for root, _, files in os.walk(tmp):
            for name in files:
                _sync(Path(root, name))
            _sync(Path(root))
        if not p.exists():
            os.replace(tmp, p)
        else:
            _merge(tmp, p)
        _sync(p.parent)
    except WriteError:
        raise
    except OSError as e:
        raise WriteError(f"cannot write the folder {p}: {_why(e)}") from None
    finally:
        if tmp.exists():
            _remove(tmp)


def _merge(source: Path, target: Path) -> None:
    for root, _, files in os.walk(source):
        into = target / Path(root).relative_to(source)
        into.mkdir(exist_ok=True)
        for name in files:
            _keep_mode(Path(root, name), into / name)
            os.replace(Path(root, name), into / name)
        _sync(into)


__all__ = ["check", "folder", "replacing", "sweep", "write_bytes", "write_text"]
