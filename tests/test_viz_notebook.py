"""km.viz.view: the notebook's 3-D view — the page holds the robot's glTF posed at q and three.js,
asks nothing of the network, and (in headless Chromium) draws the arm."""

from __future__ import annotations

import base64
import html
import re
import sys
from pathlib import Path

import numpy as np
import pygltflib as gl
import pytest

import kinematica as km
from kinematica.export.gltf import quat_z as _quat_z

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
from harness import CHROMIUM, FLAGS, why_not_available

PUMA = km.load("puma560")
Q = np.radians([20.0, -40.0, 60.0, 10.0, 30.0, -15.0])


def embedded(page: str, kind: str) -> bytes:
    m = re.search(rf'<script type="{kind}" id="[^"]+">([^<]*)</script>', page)
    assert m, kind
    return base64.b64decode(m.group(1))


def test_the_page_holds_the_robot_posed_at_q():
    page = km.viz.view(PUMA, Q).html()
    doc = gl.GLTF2.load_from_bytes(embedded(page, "model/gltf-binary"))
    nodes = {nd.name: nd for nd in reversed(doc.nodes)}  # the first of a name wins, as in the view
    for i, name in enumerate(PUMA.joint_names):
        # glTF stores float32: 1e-7 is its round-off on a unit quaternion
        np.testing.assert_allclose(nodes[name].rotation, _quat_z(Q[i] + PUMA.offsets[i]), atol=1e-7)
    assert "tool" in nodes and len(doc.meshes) > 0


def world_of(doc, name: str) -> np.ndarray:
    """The node's pose in the glTF scene: its local transforms composed from the root down."""
    parent = {c: k for k, nd in enumerate(doc.nodes) for c in nd.children}
    k = next(i for i, nd in enumerate(doc.nodes) if nd.name == name)
    T = np.eye(4)
    while k is not None:
        nd = doc.nodes[k]
        if nd.matrix:
            L = np.array(nd.matrix).reshape(4, 4).T  # glTF matrices are column-major
        else:
            x, y, z, w = nd.rotation or (0, 0, 0, 1)
            L = np.eye(4)
            L[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
            L[:3, 3] = nd.translation or (0, 0, 0)
        T = L @ T
        k = parent.get(k)
    return T


@pytest.mark.parametrize("name, q", [("puma560", Q), ("braccio", np.radians([30, 20, -40, 10, 50])),
                                     ("screw", np.array([0.7, 1.5, 2.0]))])
def test_the_tool_in_the_view_is_at_the_fk_of_q(name, q):
    """Independent of node names: the tool node composed through the tree is FK(q) (m)."""
    if name == "screw":  # Modern Robotics' FKinSpace example: joint 3 is helical, pitch 0.1 m/rad
        M = np.array([[-1, 0, 0, 0], [0, 1, 0, 6], [0, 0, -1, 2], [0, 0, 0, 1.0]])
        S = np.array([[0, 0, 1, 4, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, -1, -6, 0, -0.1]])
        robot = km.from_poe(M, S, name="screw")
    else:
        robot = km.load(name)
    doc = gl.GLTF2.load_from_bytes(embedded(km.viz.view(robot, q).html(), "model/gltf-binary"))
    T = km.fk(robot, q)
    scale = 1e-3 if robot.length_unit == "mm" else 1.0
    # float32 storage of every node: ~1e-7 relative per node, a few nodes deep
    tool, p = world_of(doc, "tool"), T[:3, 3] * scale
    np.testing.assert_allclose(tool[:3, :3], T[:3, :3], atol=2e-6)
    np.testing.assert_allclose(tool[:3, 3], p, atol=2e-6 * (1 + np.abs(p).max()))


def test_no_network_three_js_is_inside():
    page = km.viz.view(km.load("braccio")).html()
    three = embedded(page, "application/octet-stream").decode()
    assert "GLTFLoader" in three and "OrbitControls" in three and 'const t="180"' in three  # three.js r180
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page + three))
    assert urls <= {"http://www.w3.org/1999/xhtml"}, urls  # an XML namespace, never fetched: no CDN


def test_repr_html_is_an_iframe_of_the_page():
    v = km.viz.view("planar-3r", [0.1, 0.2, 0.3], width=300, height=200)
    r = v._repr_html_()
    assert r.startswith("<iframe srcdoc=\"") and 'width="300"' in r and 'height="200"' in r
    assert html.unescape(re.search(r'srcdoc="([^"]*)"', r).group(1)) == v.html()


def test_bad_input_is_refused_in_words():
    with pytest.raises(km.InputError, match="expected 6 finite joint values of puma560"):
        km.viz.view(PUMA, [0, 0])
    with pytest.raises(km.InputError, match="width: expected a whole number of pixels"):
        km.viz.view(PUMA, width=10)


@pytest.mark.browser
def test_chromium_draws_the_arm(tmp_path):
    if why_not_available():
        pytest.skip(why_not_available())
    from playwright.sync_api import sync_playwright

    path = km.viz.view(PUMA, Q, width=400, height=300).save(tmp_path / "view.html")
    tried: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 400, "height": 300})
        page.route("http*://**", lambda route: (tried.append(route.request.url), route.abort()))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function("window.kinematicaView !== undefined", timeout=60_000)
        meshes = page.evaluate("(() => { let n = 0; window.kinematicaView.gltf.scene.traverse("
                               "o => { if (o.isMesh) n++; }); return n; })()")
        page.wait_for_timeout(300)  # a few frames
        shot = page.screenshot()
        browser.close()
    assert errors == [] and tried == [] and meshes > 0
    import io

    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB")).astype(int)
    background = np.array([0xF4, 0xF5, 0xF7])
    dark = (np.abs(img - background).sum(axis=2) > 150).mean()  # the grey links against the light page
    assert dark > 0.005, dark


def test_a_trajectory_becomes_the_animation_the_view_plays():
    robot = km.load("braccio")
    tr = km.trajectory.quintic(robot.q_home, robot.q_home + np.radians([40, 10, -20, 0, 30]), 1.0, steps=20,
                               robot=robot)
    page = km.viz.view(robot, trajectory=tr).html()
    doc = gl.GLTF2.load_from_bytes(embedded(page, "model/gltf-binary"))
    assert len(doc.animations) == 1 and len(doc.animations[0].channels) == 4  # M4 does not move
    assert "AnimationMixer" in page and "playing its trajectory" in page
