"""The robot as it looks (`robot.visuals`) in the 3-D view: primitives drawn by `ui.scene`
itself, mesh files converted once to glTF binary (trimesh) and served from a route of their own.

Each body (0 the base, k link frame k) is a group moved to its frame by `place`; its shapes sit
inside at their origins, so a pose change moves n + 1 groups, not every shape. Shapes that move
with the gripper (`Visual.grip`) are groups of their own. Only files a loaded robot names are
served: the route answers for the keys registered here, nothing else on disk.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import cast

import numpy as np
from fastapi import HTTPException, Response
from nicegui import app, ui
from nicegui.elements.scene.scene_object3d import Object3D

from kinematica.model.visual import Grip, Visual

ROUTE = "/kinematica/mesh"
MESH_GREY = "#b8bec6"  # a mesh file without colours of its own (STL) and no URDF colour
PRIMITIVE_GREY = "#9aa5b1"
_Y_TO_Z = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]  # three.js cylinders run along y; URDF's along z

_files: dict[str, Path] = {}  # key -> mesh file
# key -> converted bytes, least recently used first. Bounded: every robot file a session reads
# brings its own mesh files, and a closed session's converted meshes must not stay for the
# server's lifetime; one evicted is converted again if a page asks for it.
_glb: OrderedDict[str, bytes] = OrderedDict()
GLB_BUDGET = 64 * 2**20  # bytes of converted meshes kept (of the bundled robots only the SO-ARMs have meshes: 0.42 and 0.45 MB)
_lock = threading.Lock()
CONVERTER = "kinematica-glb"  # the name of the threads that convert a page's meshes ahead of the browser


def mesh_key(path: str | Path) -> str:
    """The route key of a mesh file (registered: the route serves it from now on)."""
    p = Path(path).resolve()
    key = hashlib.sha1(str(p).encode()).hexdigest()[:16]
    _files[key] = p
    return key


def glb_bytes(key: str) -> bytes:
    """The registered mesh file as glTF binary, converted on first use (its own materials kept)."""
    with _lock:
        if key not in _glb:
            import trimesh

            loaded = trimesh.load(str(_files[key]))
            scene = loaded if isinstance(loaded, trimesh.Scene) else trimesh.Scene(loaded)
            # trimesh's export is unannotated: its inferred type is every format's (str, dict, ...); glb is bytes
            _glb[key] = cast(bytes, scene.export(file_type="glb"))
        _glb.move_to_end(key)
        data = _glb[key]
        while len(_glb) > 1 and sum(map(len, _glb.values())) > GLB_BUDGET:
            _glb.popitem(last=False)
        return data


def _convert(keys: list[str]) -> None:
    for key in keys:
        try:
            glb_bytes(key)
        except Exception:  # noqa: BLE001 — reported by the route when the browser asks for it
            pass


@app.get(ROUTE + "/{key}.glb")
def _serve(key: str) -> Response:
    if key not in _files:
        raise HTTPException(404, "no such mesh")
    try:
        data = glb_bytes(key)
    except Exception as e:  # noqa: BLE001 — a file that changed or broke since the robot was loaded
        raise HTTPException(500, f"cannot convert {_files[key].name}: {type(e).__name__}") from None
    return Response(data, media_type="model/gltf-binary", headers={"Cache-Control": "max-age=3600"})


class Looks:
    """The shapes of `visuals` drawn in `scene` (build inside `with scene:`); `step` robot units
    make one scene unit."""

    def __init__(self, scene, visuals: tuple[Visual, ...], n_bodies: int, step: float) -> None:
        self.scene, self.step, self.visuals = scene, float(step), visuals
        self.bodies = [scene.group() for _ in range(n_bodies)]
        self.gripped: list[tuple[Object3D, Grip]] = []  # a holder group and the grip that moves it
        self.fraction: float | None = None  # the gripper's as the holders were last placed
        keys = [mesh_key(v.mesh_path) for v in visuals if v.kind == "mesh"]
        if any(k not in _glb for k in keys):  # convert while the page builds, not when the browser asks
            threading.Thread(target=_convert, args=(keys,), name=CONVERTER, daemon=True).start()
        for v in visuals:
            with self.bodies[v.body]:
                if v.grip is None:
                    self._shape(v, v.origin)
                else:
                    holder = scene.group()
                    with holder:
                        self._shape(v, v.origin)
                    self.gripped.append((holder, v.grip))

    def _shape(self, v: Visual, X: np.ndarray):
        s, sc = self.step, self.scene
        R = np.asarray(X[:3, :3])
        if v.kind == "box":
            obj = sc.box(*(np.asarray(v.size) / s))
        elif v.kind == "sphere":
            obj = sc.sphere(v.size[0] / s, 24, 16)
        elif v.kind == "cylinder":
            obj = sc.cylinder(v.size[0] / s, v.size[0] / s, v.size[1] / s, 32)
            R = R @ np.asarray(_Y_TO_Z)
        else:
            obj = sc.gltf(f"{ROUTE}/{mesh_key(v.mesh_path)}.glb").scale(*(np.asarray(v.scale) / s))
        colour = v.hex_color or (MESH_GREY if v.kind == "mesh" and str(v.path).lower().endswith(".stl")
                                 else None if v.kind == "mesh" else PRIMITIVE_GREY)
        if colour is not None:
            obj.material(colour, 1.0 if v.color is None else v.color[3])
        return obj.move(*(X[:3, 3] / s)).rotate_R(R.tolist())

    def place(self, frames: np.ndarray, fraction: float = 0.0) -> None:
        """Move the bodies to `frames` (robot units: base, link frames, …) and the gripped
        shapes to the gripper's closing `fraction`."""
        for group, F in zip(self.bodies, frames[:-1], strict=True):  # the last, the tool's, carries no body
            group.move(*(F[:3, 3] / self.step)).rotate_R(F[:3, :3].tolist())
        if fraction == self.fraction:
            return  # the holders sit in their bodies' groups: they moved with them
        self.fraction = fraction
        for holder, grip in self.gripped:
            M = grip.motion(fraction)
            holder.move(*(M[:3, 3] / self.step)).rotate_R(M[:3, :3].tolist())

    def visible(self, on: bool) -> None:
        for group in self.bodies:
            group.visible(on)


def gripper_slider(robot, fraction: float, on_change) -> None:
    """A slider for the gripper's servo (the Braccio's M6), open to closed, when the robot has
    fingers that move with it: `on_change(servo value)`."""
    gripper = robot.extras.get("gripper") or {}
    servo = gripper.get("servo") or {}
    if not any(v.grip for v in robot.visuals) or not {"open", "closed"} <= set(servo):
        return
    lo, hi = sorted((servo["open"], servo["closed"]))
    value = servo["open"] + fraction * (servo["closed"] - servo["open"])
    with ui.row().classes("items-center gap-1 no-wrap bg-white/80 rounded px-2"):
        ui.label(str(gripper.get("name", "gripper")).split()[0]).classes("text-xs text-grey-8")
        ui.slider(min=lo, max=hi, step=1, value=value, on_change=lambda e: on_change(e.value)) \
            .props('dense label data-testid="view-gripper"').classes("w-28 mx-2").mark("view-gripper")
