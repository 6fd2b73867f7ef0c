"""A URDF's mesh packages in the simulator: a .zip of the package folder(s) unpacked safely,
the URDFs in it, the folders `package://NAME/...` resolves against, and the one summary of the
mesh files a URDF names that cannot be found.

A zip is untrusted input. Before a byte is written it is refused, in words, when it holds more
than `MAX_MEMBERS` entries, a name that is absolute or climbs out of the folder (`..`), a
symbolic link, more than `MAX_UNPACKED` bytes once unpacked, or a member that unpacks to more
than `MAX_RATIO` times its packed size (a zip bomb: meshes pack 3–10×, bombs 1000× and more).
`zipfile` stops each member at the size its directory declares (a member that lies fails its
CRC), so the declared sizes checked are the bytes written.
"""

from __future__ import annotations

import io
import shutil
import stat
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

import lxml.etree as etree  # (lxml/__init__ does not name etree: type checkers find it this way)

from kinematica.errors import InputError
from kinematica.model.urdf_collision import resolve_mesh

MAX_UPLOAD = 200 * 2**20  # bytes of the .zip itself
MAX_UNPACKED = 1 * 2**30  # bytes once unpacked
MAX_MEMBERS = 20_000
MAX_RATIO = 200.0
_CHUNK = 2**20


def _member_path(info: zipfile.ZipInfo, where: str) -> PurePosixPath | None:
    """The member's path inside the folder (None for a folder entry); InputError for a name
    that would land outside it or a link."""
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or (path.parts and ":" in path.parts[0]) or ".." in path.parts:
        raise InputError(f"{where}: the entry {info.filename!r} would be written outside the folder "
                         "it is unpacked into; nothing was unpacked")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise InputError(f"{where}: the entry {info.filename!r} is a symbolic link; links are not "
                         "unpacked (they can point anywhere on the server); nothing was unpacked")
    return None if info.is_dir() else path


def check_zip(archive: zipfile.ZipFile, where: str) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """The files of `archive` to unpack, with their paths; InputError (in words, naming the
    bound) for an archive refused as the module docstring says."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InputError(f"{where}: {len(infos)} entries, more than the {MAX_MEMBERS} a robot package may hold")
    files, total = [], 0
    for info in infos:
        path = _member_path(info, where)
        if path is None:
            continue
        total += info.file_size
        if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > _CHUNK:
            raise InputError(f"{where}: the entry {info.filename!r} unpacks to {info.file_size / 2**20:.0f} MB "
                             f"from {info.compress_size} bytes (more than {MAX_RATIO:.0f}× its packed size): "
                             "refused as a zip bomb; nothing was unpacked")
        files.append((info, path))
    if total > MAX_UNPACKED:
        raise InputError(f"{where}: unpacks to {total / 2**20:.0f} MB, more than the "
                         f"{MAX_UNPACKED // 2**20} MB a robot package may take; nothing was unpacked")
    return files


def unpack(data: bytes, into: Path, where: str) -> Path:
    """Unpack the .zip `data` (the user's file `where`) into the new folder `into`; returns it.
    InputError for a file that is not a zip or is refused (see `check_zip`); a refused archive
    leaves nothing behind in `into`."""
    if len(data) > MAX_UPLOAD:
        raise InputError(f"{where}: {len(data) / 2**20:.0f} MB, more than the {MAX_UPLOAD // 2**20} MB a "
                         "robot package upload may be")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InputError(f"{where}: not a .zip archive") from None
    with archive:
        files = check_zip(archive, where)
        into.mkdir(parents=True)
        try:
            for info, path in files:
                target = into.joinpath(*path.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError) as e:
            shutil.rmtree(into, ignore_errors=True)
            raise InputError(f"{where}: cannot be unpacked ({e})") from None
    return into


def urdfs_in(folder: Path) -> list[Path]:
    """The .urdf files under `folder`, by their path in it (macOS's `__MACOSX` copies left out)."""
    return sorted((p for p in folder.rglob("*") if p.suffix.lower() == ".urdf" and p.is_file()
                   and "__MACOSX" not in p.relative_to(folder).parts),
                  key=lambda p: (len(p.relative_to(folder).parts), str(p)))


def package_dirs(folder: Path, urdf: Path) -> tuple[Path, ...]:
    """Where `package://NAME/rest` of `urdf` is looked for in the unpacked `folder`: every
    folder in it named NAME (`resolve_mesh` takes `<it>/rest`), then `folder` itself (a zip of the
    package's contents: `folder/rest`)."""
    names = {pkg for pkg, _ in map(_package, mesh_names(urdf)) if pkg}
    found = [p for p in folder.rglob("*") if p.is_dir() and p.name in names]
    return tuple(sorted(found, key=lambda p: len(p.parts))) + (folder,)


def mesh_names(urdf: Path | bytes) -> list[str]:
    """The mesh file names a URDF's <mesh> elements give, visual and collision, in file order."""
    try:
        root = etree.fromstring(urdf.read_bytes() if isinstance(urdf, Path) else urdf)
    except etree.XMLSyntaxError:
        return []
    return [m.get("filename") for m in root.iter("mesh") if m.get("filename")]


def _package(filename: str) -> tuple[str, str]:
    if not filename.startswith("package://"):
        return "", filename
    pkg, _, rest = filename[len("package://"):].partition("/")
    return pkg, rest


def missing_meshes(urdf: Path, dirs: Iterable[Path] = ()) -> dict[str, list[str]]:
    """{package name ("" for a plain path): its mesh files named by `urdf` that neither ROS's
    way nor `dirs` finds}, each file once."""
    out: dict[str, list[str]] = defaultdict(list)
    dirs = tuple(dirs)
    for name in dict.fromkeys(mesh_names(urdf)):
        if resolve_mesh(name, urdf.parent, dirs) is None:
            out[_package(name)[0]].append(name)
    return dict(out)


def summary(missing: dict[str, list[str]], shown: int = 3) -> str:
    """One paragraph for all the missing mesh files: per package, how many and the first few,
    what that does to the robot, and how to give them."""
    parts = []
    for pkg, names in missing.items():
        tails = [_package(n)[1] for n in names]
        listed = ", ".join(tails[:shown]) + (f" and {len(tails) - shown} more" if len(tails) > shown else "")
        where = f"under package {pkg!r}" if pkg else "at the paths the URDF gives"
        parts.append(f"{len(names)} mesh file{'s' * (len(names) != 1)} not found {where} ({listed})")
    how = ("upload the URDF and its package folder together as one .zip (a folder named after the package, "
           "e.g. " + next((f"{p}/" for p in missing if p), "meshes/") + "…, with the .urdf inside it), or type the "
           "folder on the server's machine that holds the package")
    return "; ".join(parts) + ": the robot is drawn as its skeleton where a mesh is missing and capsules stand " \
        f"in for its collision meshes. To get them, {how}."


def one_notice(messages: list[str], missing: dict[str, list[str]]) -> str | None:
    """The one notification for opening a URDF: the mesh `summary` in place of the warnings that
    name a missing mesh (one per link, or one per file), then the other `messages`, once each."""
    names = [n for files in missing.values() for n in files]
    rest = [m for m in dict.fromkeys(messages) if not any(n in m for n in names)]
    lines = ([summary(missing)] if missing else []) + rest
    return "\n".join(lines) or None


# Whether a page may name folders on the server's machine: only while the server listens on this
# machine alone (`kinematica serve`'s default 127.0.0.1); a server reachable from elsewhere must
# not let a visitor make it read files under any path. `app.main.run` sets it from --host.
SERVER_FOLDERS = {"allowed": True}


def server_dirs(text: str | None) -> tuple[Path, ...]:
    """The package folder typed as a path on the server's machine (`~` expanded): () for none,
    InputError for a path that is not a folder there, or while the server is reachable from
    other machines (`SERVER_FOLDERS`)."""
    if not text or not text.strip():
        return ()
    if not SERVER_FOLDERS["allowed"]:
        raise InputError("package folders on the server's machine are off while it listens beyond this "
                         "machine (--host); upload a .zip of the URDF with its package folder instead")
    folder = Path(text.strip()).expanduser()
    if not folder.is_dir():
        raise InputError(f"the package folder {text.strip()!r} is not a folder on the server's machine")
    return (folder,)
