"""The `<visual>` shapes of a URDF chain's links, as `kinematica.model.visual.Visual`s.

Body 0 (the Robot's base frame = the link the first movable joint hangs from) gets the visuals
of the root link and of everything fixed between it and that link, re-expressed in that link's
frame; body k (the child link of movable joint k) those of its link and of every link hanging
from it off the chain (fixed, or movable off the chain held as `from_urdf` holds them), as
`urdf_bodies.hanging` walks them. Each keeps its `<origin>`, mesh `scale` and `<material>`
colour (a named material defined at the top of the file is looked up). Mesh files are found as
ROS does, and also under each of `package_dirs` (`urdf_collision.resolve_mesh`). A mesh that
cannot be found is left out — its body falls back to the skeleton in a drawing — and one
URDFWarning for the whole file names them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .urdf_bodies import URDFWarning, children_of, hanging, warn
from .urdf_collision import resolve_mesh
from .visual import Visual, rgba

__all__ = ["visual_shapes", "mesh_files", "write_visual"]


def _colour(material: Any, named: dict[str, Any]) -> tuple[float, float, float, float] | None:
    if material is None:
        return None
    color = material.color if material.color is not None else getattr(named.get(material.name), "color", None)
    return None if color is None else rgba(np.clip(color.rgba, 0.0, 1.0).tolist())


def _shape(geometry: Any, folder: Path | None, package_dirs: Sequence, scale: float,
           missing: list[str]) -> tuple[str, tuple, str | None, tuple] | None:
    """(kind, size, mesh path, mesh scale) of a URDF geometry; None for a missing mesh (noted)."""
    g = geometry
    if g.box is not None:
        return "box", tuple(float(v) * scale for v in g.box.size), None, (1.0, 1.0, 1.0)
    if g.sphere is not None:
        return "sphere", (float(g.sphere.radius) * scale,), None, (1.0, 1.0, 1.0)
    if g.cylinder is not None:
        return "cylinder", (float(g.cylinder.radius) * scale, float(g.cylinder.length) * scale), None, (1.0, 1.0, 1.0)
    if g.mesh is not None:
        path = resolve_mesh(g.mesh.filename, folder, package_dirs) if g.mesh.filename else None
        if path is None:
            missing.append(g.mesh.filename or "<mesh> without a filename")
            return None
        s = np.atleast_1d(np.asarray(1.0 if g.mesh.scale is None else g.mesh.scale, dtype=float)).ravel()
        s = np.repeat(s, 3) if s.size == 1 else s  # a Visual refuses any other count
        return "mesh", (), str(path), tuple(float(v) * scale for v in s)
    return None


def visual_shapes(urdf: Any, path: list, links: list[str], chain: set[str], held: dict[str, float],
                  scale: float, folder: Path | None, where: str,
                  package_dirs: Sequence[str | Path] = ()) -> tuple[Visual, ...]:
    """The visuals of the chain `path` (the joints from the root link to the tip), body 0 first,
    then the child links `links` of its movable joints; lengths ×`scale`."""
    children = children_of(urdf)
    named = {m.name: m for m in urdf.robot.materials if m.name}
    # body 0: everything from the root link down to the first movable joint, in its parent's frame
    to_base = np.eye(4)
    for j in path:
        if j.type != "fixed":
            break
        to_base = to_base @ (np.eye(4) if j.origin is None else j.origin)
    root = path[0].parent
    out: list[Visual] = []
    missing: list[str] = []
    bad: list[str] = []
    for body, (link, T0) in enumerate([(root, np.linalg.inv(to_base))] + [(name, np.eye(4)) for name in links]):
        for name, T, _ in hanging(link, children, chain, held):
            for v in urdf.link_map[name].visuals:
                shape = _shape(v.geometry, folder, package_dirs, scale, missing)
                if shape is None:
                    continue
                X = T0 @ T @ (np.eye(4) if v.origin is None else np.asarray(v.origin, dtype=float))
                X = X.copy()
                X[:3, 3] *= scale
                kind, size, mesh, mesh_scale = shape
                try:
                    out.append(Visual(body, kind, X, size, _colour(v.material, named), mesh, mesh_scale, name))
                except InputError as e:  # a zero size or scale: nothing to draw, and no reason to refuse the file
                    bad.append(f"link {name!r}: {e}")
    if bad:
        warn(URDFWarning(f"{where}: {len(bad)} <visual> element{'s' * (len(bad) != 1)} left out ("
                         + "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more" if len(bad) > 3 else "") + ")"))
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        warn(URDFWarning(f"{where}: {len(missing)} visual mesh file{'s' * (len(missing) != 1)} not found "
                         f"({shown}): those links are drawn as the skeleton. Give the folder that holds "
                         "the package with package_dirs=[...] (--package-dir on the command line)"))
    return tuple(out)


# --- writing ----------------------------------------------------------------------------------
def mesh_files(shapes: Sequence[Visual], folder: str = "meshes") -> dict[str, str]:
    """{mesh file path: the relative name a written URDF gives it} — `folder/<file name>`, with
    a number added when two different files share a name — for copying the files beside it."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for v in shapes:
        if v.kind != "mesh" or v.path in out:
            continue
        p = Path(v.mesh_path)
        name, k = p.name, 1
        while name.lower() in taken:
            k += 1
            name = f"{p.stem}_{k}{p.suffix}"
        taken.add(name.lower())
        out[v.mesh_path] = f"{folder}/{name}"
    return out


def write_visual(link: Any, v: Visual, H: np.ndarray, per_m: float, fraction: float, files: dict[str, str]) -> None:
    """Append `v`'s <visual> to the lxml element `link`: placed at H · (grip at `fraction`) ·
    origin in the URDF link's frame, lengths in metres (`per_m` robot units make a metre), a
    mesh named as `files` says (else by its absolute path)."""
    import lxml.etree as etree  # (lxml/__init__ does not name etree: type checkers find it this way)

    from .. import spatial

    X = H @ (v.origin if v.grip is None else v.grip.motion(fraction) @ v.origin)
    el = etree.SubElement(link, "visual", **({"name": v.name} if v.name else {}))
    xyz = " ".join(repr(float(x) / per_m + 0.0) for x in X[:3, 3])
    etree.SubElement(el, "origin", xyz=xyz, rpy=" ".join(repr(float(a) + 0.0) for a in spatial.matrix_to_rpy(X[:3, :3])))
    geometry = etree.SubElement(el, "geometry")
    if v.kind == "box":
        etree.SubElement(geometry, "box", size=" ".join(repr(s / per_m) for s in v.size))
    elif v.kind == "cylinder":
        etree.SubElement(geometry, "cylinder", radius=repr(v.size[0] / per_m), length=repr(v.size[1] / per_m))
    elif v.kind == "sphere":
        etree.SubElement(geometry, "sphere", radius=repr(v.size[0] / per_m))
    else:
        etree.SubElement(geometry, "mesh", filename=files.get(v.mesh_path, Path(v.mesh_path).resolve().as_uri()),
                         scale=" ".join(repr(s / per_m) for s in v.scale))
    hex_color = v.hex_color
    if v.color is not None and hex_color is not None:  # (a colour has its hex form)
        material = etree.SubElement(el, "material", name=hex_color + (f"_{round(v.color[3] * 100)}" if v.color[3] < 1 else ""))
        etree.SubElement(material, "color", rgba=" ".join(repr(float(c)) for c in v.color))
