"""Triangles of a robot's visual shapes (`robot.visuals`), for files that carry them (glTF).

`triangles(v)` gives each part of one shape as (positions, normals, indices, rgba): in the frame
of the shape's body, in metres, the shape's origin (and, for a finger, its grip at the given
closing fraction) applied. Primitives are tessellated by trimesh; a mesh file is read by trimesh
(STL, OBJ, DAE through pycollada, glTF) with its own colours, unless the robot gives one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..model.visual import Visual

if TYPE_CHECKING:
    from trimesh import Trimesh

GREY = (0.72, 0.74, 0.77, 1.0)  # a part with no colour of its own


def _colour(mesh) -> tuple[float, ...] | None:
    """The main colour a mesh file gives a part (0–1 RGBA), if any."""
    visual = getattr(mesh, "visual", None)
    material = getattr(visual, "material", None)
    colour = getattr(material, "main_color", None) if material is not None else None
    if colour is None and getattr(visual, "kind", None) in ("face", "vertex"):
        colour = getattr(visual, "main_color", None)  # (face and vertex colours have one)
    return None if colour is None else tuple(float(c) / 255 for c in np.asarray(colour)[:4])


def parts(v: Visual) -> Iterator[tuple[Trimesh, tuple[float, ...]]]:
    """(trimesh.Trimesh in the shape's own frame and the robot's unit, rgba) of each part."""
    import trimesh

    if v.kind == "box":
        yield trimesh.creation.box(extents=v.size), v.color or GREY
    elif v.kind == "cylinder":
        yield trimesh.creation.cylinder(radius=v.size[0], height=v.size[1], sections=32), v.color or GREY
    elif v.kind == "sphere":
        yield trimesh.creation.icosphere(subdivisions=2, radius=v.size[0]), v.color or GREY
    else:
        loaded = trimesh.load(v.mesh_path, force="scene")
        if not isinstance(loaded, trimesh.Scene):  # what force="scene" promises; trimesh types load wider
            raise TypeError(f"trimesh.load(force='scene') gave a {type(loaded).__name__} for {v.mesh_path}")
        for part in loaded.dump():
            if not isinstance(part, trimesh.Trimesh):  # lines or points: no triangles to draw
                raise TypeError(f"{v.mesh_path}: a {type(part).__name__} part, not a triangle mesh")
            mesh = part.copy()
            mesh.vertices = np.asarray(mesh.vertices) * np.asarray(v.scale)  # normals follow
            yield mesh, v.color or _colour(mesh) or GREY


def triangles(v: Visual, fraction: float = 0.0, unit: float = 1.0):
    """Each part of `v` as (positions float32 (k, 3), normals float32 (k, 3), indices uint32,
    rgba) in its body's frame, lengths × `unit` (1e-3 for a robot in mm → metres)."""
    X = v.origin if v.grip is None else v.grip.motion(fraction) @ v.origin
    for mesh, rgba in parts(v):
        p = np.asarray(mesh.vertices, float) @ X[:3, :3].T + X[:3, 3]
        n = np.asarray(mesh.vertex_normals, float) @ X[:3, :3].T
        if np.linalg.det(np.diag(v.scale)) < 0:  # a mirrored mesh: keep the faces outward
            faces = np.asarray(mesh.faces)[:, ::-1]
        else:
            faces = np.asarray(mesh.faces)
        yield (np.asarray(p * unit, np.float32), np.asarray(n, np.float32),
               np.asarray(faces, np.uint32).ravel(), tuple(rgba))
