"""An interactive 3-D view of a robot for Jupyter, offline: `view(robot, q)`.

The robot is exported as a glTF 2.0 binary (`kinematica.export.to_glb`, the same visuals as the
digital twin), posed at q, and embedded in base64 in a self-contained HTML page together with
three.js r180 and its GLTFLoader and OrbitControls — taken from the ES module NiceGUI ships
(`nicegui/elements/scene/dist/index.js`, MIT), never from a CDN. Drag to orbit, wheel to zoom,
right-drag to pan. With a trajectory the view plays it as the glTF animation, looping.

In a notebook the returned `View` shows itself (`_repr_html_`: the page in a sandboxed iframe,
so the scripts run in Jupyter, JupyterLab and VS Code alike); `View.html()` is the page and
`View.save(path)` writes it.

>>> import kinematica as km
>>> v = km.viz.view(km.load("planar-3r"), [0.3, 0.2, 0.1])
>>> v.html().count("model/gltf-binary"), "cdn" in v.html().lower()
(1, False)
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from .. import atomic
from ..errors import InputError, SetupError
from ..model.coerce import takes_robot
from ..model.robot import Robot

THREE_MODULE = ("nicegui", "elements/scene/dist/index.js")


def three_module() -> str:
    """The text of the three.js ES module bundled with NiceGUI (THREE, GLTFLoader, OrbitControls)."""
    package, name = THREE_MODULE
    try:
        return (resources.files(package) / name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as e:
        raise SetupError(f"the 3-D view needs three.js from NiceGUI's package ({package}/{name}): {e}") from None


def posed_glb(robot: Robot, q: np.ndarray, trajectory=None) -> bytes:
    """The glTF of `robot` with its joint nodes set to q (to_glb draws q_home).

    The joint node of joint i is the node named after it: a rotation about z by q_i + offset_i
    (revolute; a helical joint also slides pitch·(q_i + offset_i)), or a translation along z
    (prismatic, metres)."""
    import pygltflib as gl

    from ..export import to_glb
    from ..export.gltf import quat_z

    doc = gl.GLTF2.load_from_bytes(to_glb(robot, trajectory))
    if doc is None:  # (pygltflib's type allows it; bytes that to_glb wrote always load)
        raise ValueError("pygltflib could not read the GLB that to_glb wrote")
    scale = 1e-3 if robot.length_unit == "mm" else 1.0
    index = {}
    for k, nd in enumerate(doc.nodes):
        index.setdefault(nd.name, k)  # the first node of that name: the joint (visual nodes are prefixed)
    for i, name in enumerate(robot.joint_names):
        nd = doc.nodes[index[name]]
        theta = float(q[i] + robot.offsets[i])
        if robot.revolute[i]:  # a helical joint also slides pitch·θ along z, as to_glb draws it
            nd.rotation = quat_z(theta).tolist()
            nd.translation = [0.0, 0.0, float(robot.pitch[i]) * theta * scale]
        else:
            nd.translation = [0.0, 0.0, theta * scale]
    return b"".join(doc.save_to_bytes())


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>html,body{{margin:0;height:100%;background:#f4f5f7;font:12px sans-serif;overflow:hidden}}
#kin-view{{width:100%;height:100%;display:block}}
#kin-note{{position:absolute;left:8px;bottom:6px;color:#555}}</style></head>
<body><canvas id="kin-view"></canvas><div id="kin-note">{note}</div>
<script type="application/octet-stream" id="kin-three">{three}</script>
<script type="model/gltf-binary" id="kin-model">{model}</script>
<script type="module">
const bytes = id => Uint8Array.from(atob(document.getElementById(id).textContent.trim()), c => c.charCodeAt(0));
const url = URL.createObjectURL(new Blob([bytes("kin-three")], {{type: "text/javascript"}}));
const {{THREE, GLTFLoader, OrbitControls}} = await import(url);
const canvas = document.getElementById("kin-view");
const renderer = new THREE.WebGLRenderer({{canvas, antialias: true}});
renderer.setPixelRatio(window.devicePixelRatio);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f5f7);
scene.add(new THREE.HemisphereLight(0xffffff, 0x888899, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.8); sun.position.set(2, -3, 4); scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.001, 1000);
camera.up.set(0, 0, 1);  // the robot's z is up
const controls = new OrbitControls(camera, canvas);
const root = new THREE.Group(); scene.add(root);
let mixer = null; const clock = new THREE.Clock();
new GLTFLoader().parse(bytes("kin-model").buffer, "", gltf => {{
  root.add(gltf.scene);  // the twin keeps the robot's own frame: z up, as the camera is set
  const box = new THREE.Box3().setFromObject(root), size = box.getSize(new THREE.Vector3()).length() || 1;
  const centre = box.getCenter(new THREE.Vector3());
  const grid = new THREE.GridHelper(size * 2, 20, 0xbbbbbb, 0xdddddd); grid.rotation.x = Math.PI / 2;
  grid.position.z = Math.min(0, box.min.z); scene.add(grid); scene.add(new THREE.AxesHelper(size * 0.15));
  controls.target.copy(centre);
  camera.position.copy(centre).add(new THREE.Vector3(1.1, -1.3, 0.8).multiplyScalar(size));
  camera.near = size / 1000; camera.far = size * 100; camera.updateProjectionMatrix(); controls.update();
  if (gltf.animations.length) {{
    mixer = new THREE.AnimationMixer(gltf.scene); mixer.clipAction(gltf.animations[0]).play();
  }}
  window.kinematicaView = {{scene, camera, gltf}};  // for a test or a curious console
}}, err => {{ document.getElementById("kin-note").textContent = "could not load the model: " + err; }});
function resize() {{
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== w || canvas.height !== h) {{ renderer.setSize(w, h, false); camera.aspect = w / h;
    camera.updateProjectionMatrix(); }}
}}
renderer.setAnimationLoop(() => {{
  resize(); if (mixer) mixer.update(clock.getDelta()); renderer.render(scene, camera);
}});
</script></body></html>
"""


class View:
    """A self-contained HTML page showing a robot in 3-D (see the module)."""

    def __init__(self, page: str, width: int, height: int) -> None:
        self._page, self.width, self.height = page, width, height

    def html(self) -> str:
        """The page: one HTML file with the model and three.js inside, no network needed."""
        return self._page

    def save(self, path: str | Path) -> Path:
        return atomic.write_text(path, self._page)

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self._page, quote=True)}" width="{self.width}" '
                f'height="{self.height}" style="border:1px solid #ddd" sandbox="allow-scripts"></iframe>')


@takes_robot
def view(robot: Robot, q: ArrayLike | None = None, *, trajectory=None, width: int = 640,
         height: int = 420) -> View:
    """An interactive 3-D view of `robot` at joint values q (default its home), offline.

    q: shape (n,), rad for revolute joints, the robot's length unit for prismatic ones.
    trajectory: a `Trajectory` of the robot, played in a loop as the glTF animation.
    width, height: of the view in the notebook, pixels.
    """
    q = robot.q_home if q is None else np.asarray(q, dtype=float)
    if q.shape != (robot.n,) or not np.all(np.isfinite(q)):
        raise InputError(f"q: expected {robot.n} finite joint values of {robot.name}, got shape {q.shape}")
    for name, v in (("width", width), ("height", height)):
        if not (isinstance(v, int) and 50 <= v <= 4000):
            raise InputError(f"{name}: expected a whole number of pixels in [50, 4000], got {v!r}")
    model = base64.b64encode(posed_glb(robot, q, trajectory)).decode()
    three = base64.b64encode(three_module().encode()).decode()
    where = "playing its trajectory" if trajectory is not None else "q = " + json.dumps(
        np.round(q * robot.angle_scale, 2).tolist()) + " (° / " + robot.length_unit + ")"
    note = html.escape(f"{robot.name}, {where} — drag to orbit, wheel to zoom")
    return View(_PAGE.format(title=html.escape(robot.name), note=note, three=three, model=model), width, height)
