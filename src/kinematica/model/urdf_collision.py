"""The `<collision>` shapes of a URDF chain's links, for collision checking (kinematica.scene).

Each body of the chain — body 0 the link the first movable joint hangs from, body k the child
link of movable joint k — gets the collision elements of its link and of every link rigidly
attached to it off the chain (through fixed joints, and through movable joints off the chain
held as `from_urdf` holds them), placed in that link's frame (= the Robot's link frame k).
Body 0 is everything that does not move with the chain: the root link and every link fixed to
it anywhere in the tree (a mobile base's chassis, casters, a torso column above the arm's first
joint), not only what hangs below the first movable joint. A movable joint off the chain (a
wheel, a head's pan joint) is held at its `held` value (0 within its limits unless `hold` says
otherwise): its links are checked there, and `from_urdf` warns which joints are held.
Each shape is plain data — {"kind": "box", "size": (x, y, z)} | {"kind": "sphere", "radius"}
| {"kind": "cylinder", "radius", "length"} | {"kind": "mesh", "path", "scale"} — with its 4x4
placement, lengths in the Robot's unit. Mesh files are found as ROS does: `package://PKG/rest`
under the nearest folder above the URDF that is (or holds) PKG; `file://` and relative
paths from the URDF's folder; else under `package_dirs` (`resolve_mesh`). A body whose mesh cannot be found or read, or is scaled
unevenly, keeps no URDF shapes (a URDFWarning says so; it falls back to capsules).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .urdf_bodies import URDFWarning, children_of, hanging, motion, warn

__all__ = ["resolve_mesh", "collision_shapes"]


def resolve_mesh(filename: str, folder: Path | None, package_dirs: Sequence[str | Path] = ()) -> Path | None:
    """The mesh file a URDF names, or None when it is not found: as ROS finds it from the URDF's
    `folder`, else (`package://PKG/rest`) under each of `package_dirs` — a folder that is PKG
    (`dir/rest`), holds it (`dir/PKG/rest`) or holds its contents (`dir/rest`)."""
    if filename.startswith("file://"):
        p = Path(filename[len("file://"):])
        return p if p.is_file() else None
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://"):].partition("/")
        for d in ([folder, *folder.parents] if folder else []):
            for cand in (d / rest if d.name == pkg else None, d / pkg / rest):
                if cand is not None and cand.is_file():
                    return cand
        for d in map(Path, package_dirs):
            for cand in (d / rest if d.name == pkg else None, d / pkg / rest, d / rest):
                if cand is not None and cand.is_file():
                    return cand
        return None
    p = Path(filename)
    p = p if p.is_absolute() or folder is None else folder / p
    return p if p.is_file() else None


def _shape(geometry: Any, folder: Path | None, package_dirs: Sequence, scale: float, link: str,
           where: str) -> dict | None:
    g = geometry
    if g.box is not None:
        return {"kind": "box", "size": tuple(float(v) * scale for v in g.box.size)}
    if g.sphere is not None:
        return {"kind": "sphere", "radius": float(g.sphere.radius) * scale}
    if g.cylinder is not None:
        return {"kind": "cylinder", "radius": float(g.cylinder.radius) * scale, "length": float(g.cylinder.length) * scale}
    if g.mesh is not None:
        path = resolve_mesh(g.mesh.filename, folder, package_dirs)
        s = np.atleast_1d(1.0 if g.mesh.scale is None else np.asarray(g.mesh.scale, dtype=float))
        if path is None or not np.allclose(s, s[0]):
            why = "not found" if path is None else f"scaled unevenly ({s.tolist()})"
            warn(URDFWarning(f"{where}: link {link!r}: collision mesh {g.mesh.filename} {why}: "
                             "capsules stand in for this link"))
            return None
        return {"kind": "mesh", "path": str(path), "scale": float(s[0]) * scale}
    return None


def _root_frame(urdf: Any, link: str, held: dict[str, float]) -> tuple[str, np.ndarray]:
    """(root link, `link`'s frame in the root link's frame), walking up the parent joints."""
    parent = {j.child: j for j in urdf.robot.joints}
    T = np.eye(4)
    while link in parent:
        j = parent[link]
        X = np.eye(4) if j.origin is None else np.asarray(j.origin, dtype=float)
        T = (X @ motion(j, held[j.name]) if j.name in held else X) @ T
        link = j.parent
    return link, T


def collision_shapes(urdf: Any, bodies: list[str], chain: set[str], held: dict[str, float],
                     scale: float, folder: Path | None, where: str, package_dirs: Sequence[str | Path] = ()
                     ) -> tuple[dict[int, list[tuple[dict, np.ndarray]]], set[str]]:
    """({body index: [(shape dict, placement 4x4), ...]}, the held joints whose links brought
    shapes) of the links `bodies` (body 0 first: it takes the whole tree above and beside the
    chain, from the root link down). Each shape dict names its URDF `link`."""
    children = children_of(urdf)
    root, to_body0 = _root_frame(urdf, bodies[0], held)
    out: dict[int, list[tuple[dict, np.ndarray]]] = {}
    crossed: set[str] = set()
    for k, link in enumerate(bodies):
        start, T0 = (root, np.linalg.inv(to_body0)) if k == 0 else (link, np.eye(4))
        found, ok, via_found = [], True, set()
        for name, T, via in hanging(start, children, chain, held):
            for c in urdf.link_map[name].collisions:
                shape = _shape(c.geometry, folder, package_dirs, scale, name, where)
                if shape is None:
                    ok = False
                    continue
                X = T0 @ T @ (np.eye(4) if c.origin is None else np.asarray(c.origin, dtype=float))
                X[:3, 3] *= scale
                found.append((shape | {"link": name}, X))
                via_found.update(via)
        if found and ok:
            out[k] = found
            crossed |= via_found
    return out, crossed
