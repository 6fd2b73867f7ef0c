"""The simulator in a real headless Chromium (Debian's, driven by Playwright), served by
`kinematica serve` on a free 127.0.0.1 port; every request elsewhere is blocked and fails the
test. Select these with `-m browser`, leave them out with `-m "not browser"`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("playwright", reason="Playwright for Python is not installed (pip install playwright)")
from playwright.sync_api import expect  # noqa: E402

import kinematica as km  # noqa: E402
import readme  # noqa: E402
from harness import (DEMO_POSES, SCREENSHOTS, Server, add_pose, choose, joint_values,  # noqa: E402
                     pose, readme_screenshots, set_joints, set_target, solve, wait_for_end, wait_for_scene)

pytestmark = pytest.mark.browser

BRACCIO = km.load("braccio")


def fk_position(q_deg: list[float]) -> np.ndarray:
    return km.fk(BRACCIO, np.radians(q_deg))[:3, 3]


def scene_pixels(page) -> np.ndarray:
    from PIL import Image

    png = page.locator(".nicegui-scene").first.screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def colour_counts(px: np.ndarray) -> dict[str, int]:
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    background = (np.abs(px - [245, 247, 250]).sum(axis=-1) < 12)
    return {
        "drawn": int((~background).sum()),
        "orange joints": int(((r > 190) & (g > 80) & (g < 190) & (b < 90)).sum()),
        "dark links": int(((r < 110) & (g < 110) & (b < 120)).sum()),
        "red tool": int(((r > 160) & (g < 90) & (b < 90)).sum()),
        "colours": colours(px),
    }


def colours(px: np.ndarray) -> int:
    """Distinct colours at 16 levels per channel."""
    q = px // 16
    return int(np.count_nonzero(np.bincount((q[..., 0] * 256 + q[..., 1] * 16 + q[..., 2]).ravel(),
                                            minlength=4096)))


def skeleton(page) -> None:
    """Show the kinematic skeleton (links, orange joints, red tool) instead of the robot's looks."""
    page.get_by_test_id("view-looks").get_by_text("Skeleton").click()
    page.wait_for_timeout(300)


def test_the_arm_is_drawn(page):
    skeleton(page)
    px = scene_pixels(page)
    counts = colour_counts(px)
    assert px.shape[0] > 400 and px.shape[1] > 600
    assert counts["drawn"] > 0.02 * px.shape[0] * px.shape[1], counts  # not a blank canvas
    assert counts["orange joints"] > 800 and counts["dark links"] > 800 and counts["red tool"] > 100, counts
    assert counts["colours"] > 30, counts
    np.testing.assert_allclose(pose(page)[:3], fk_position(np.degrees(BRACCIO.q_home)), atol=0.006)


def test_a_slider_changes_the_pose_shown_and_read_out(page):
    before_pose, before_px = pose(page), scene_pixels(page)
    slider = page.get_by_test_id("joint-1-slider")
    box = slider.bounding_box()
    page.mouse.click(box["x"] + 0.85 * box["width"], box["y"] + box["height"] / 2)
    expect(page.get_by_test_id("pose-x")).not_to_have_text(f"{before_pose[0]:.2f}")
    page.wait_for_timeout(300)
    q = joint_values(page, BRACCIO.n)
    assert q[0] > 30  # 85 % along -90° … 90°
    np.testing.assert_allclose(pose(page)[:3], fk_position(q), atol=0.01)
    moved = np.abs(scene_pixels(page) - before_px).sum(axis=-1) > 30
    assert moved.sum() > 500  # the drawn arm moved too


# Counts the events the page sends for the element `el` (window.__sent), from now on.
COUNT_SENT = """(el) => {
    const id = Number(el.id.slice(1)), send = window.socket.emit.bind(window.socket);
    window.__sent = 0;
    window.socket.emit = (name, msg, ...rest) => {
        if (name === 'event' && msg && msg.id === id) window.__sent += 1;
        return send(name, msg, ...rest);
    };
}"""


def test_a_slider_click_sends_one_event_and_a_drag_ends_where_the_thumb_does(page):
    """Quasar emits a click's value on the press and again on the release (NiceGUI's throttle
    sent that as a trailing event: two events a click for the server); the page sends each value
    once. A drag still ends with the arm where the thumb is."""
    slider = page.get_by_test_id("joint-1-slider")
    page.evaluate(COUNT_SENT, slider.element_handle())
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    for k, at in enumerate((0.3, 0.7, 0.3), start=1):
        before = page.get_by_test_id("pose-x").inner_text()
        page.mouse.click(box["x"] + at * box["width"], y)
        expect(page.get_by_test_id("pose-x")).not_to_have_text(before)
        page.wait_for_timeout(300)  # (the throttle's trailing event would have gone by now)
        assert page.evaluate("window.__sent") == k
        assert joint_values(page, BRACCIO.n)[0] == pytest.approx(-90 + 180 * at, abs=2)
    page.mouse.move(box["x"] + 0.3 * box["width"], y)
    page.mouse.down()
    for k in range(1, 11):
        page.mouse.move(box["x"] + (0.3 + 0.04 * k) * box["width"], y)
        page.wait_for_timeout(15)
    page.mouse.up()
    page.wait_for_timeout(400)
    thumb = float(slider.get_attribute("aria-valuenow"))
    assert thumb == pytest.approx(-90 + 180 * 0.7, abs=2)
    assert joint_values(page, BRACCIO.n)[0] == pytest.approx(thumb, abs=0.5)
    np.testing.assert_allclose(pose(page)[:3], fk_position(joint_values(page, BRACCIO.n)), atol=0.01)


# Armed before a change: window.__thumbs resolves to where the slider's thumb was drawn (0 … 1
# along its track) at every animation frame until 0.4 s after the slider took the server's
# value (its aria-valuenow changed), and that value.
THUMB_FRAMES = """(slider) => {
    const thumb = slider.querySelector('.q-slider__thumb'), track = slider.querySelector('.q-slider__track');
    const at = () => {
        const t = thumb.getBoundingClientRect(), k = track.getBoundingClientRect();
        return (t.left + t.width / 2 - k.left) / k.width;
    };
    const seen = [at()];
    let until = Infinity;
    window.__thumbs = new Promise(done => {
        const frame = now => {
            seen.push(at());
            if (now < until) requestAnimationFrame(frame);
            else done({seen, value: Number(slider.getAttribute('aria-valuenow'))});
        };
        requestAnimationFrame(frame);
        const set = new MutationObserver(() => { set.disconnect(); until = performance.now() + 400; });
        set.observe(slider, {attributes: true, attributeFilter: ['aria-valuenow']});
    });
}"""


def test_a_slider_moved_by_its_field_jumps_to_the_value_as_the_arm_does(page):
    """A joint typed in its field moves the arm at once, and the slider's thumb with it: it is
    never drawn between the old and the new value (Quasar's 0.28 s glide showed joint values the
    arm is not at, and re-laid out the page at each of its frames: most of the browser's work per
    slider event)."""
    slider = page.get_by_test_id("joint-1-slider")
    page.evaluate(THUMB_FRAMES, slider.element_handle())
    page.get_by_test_id("joint-1-number").fill("60")
    drawn = page.evaluate("window.__thumbs")
    old, new = drawn["seen"][0], (drawn["value"] + 90) / 180  # -90° … 90° along the track
    assert drawn["value"] == pytest.approx(60) and abs(new - old) > 0.2
    between = [round(x, 3) for x in drawn["seen"] if min(abs(x - old), abs(x - new)) > 0.01]
    assert between == [], f"the thumb was drawn between {old:.3f} and {new:.3f}"


def test_a_field_typed_past_its_range_and_entered_shows_where_the_joint_is(page):
    """Typed key by key, 95 in M1 (−90 … 90°) passes through 9; the field says it is out of range,
    and Enter puts field, slider and arm at the nearest end: never a field that disagrees."""
    field = page.get_by_test_id("joint-1-number")
    field.click()
    field.press("Control+a")
    field.press_sequentially("95", delay=80)
    expect(page.get_by_text("95 ° is outside -90 … 90 °")).to_be_visible()
    field.press("Enter")
    expect(field).to_have_value("90.00")
    expect(page.get_by_test_id("joint-1-slider")).to_have_attribute("aria-valuenow", "90")
    np.testing.assert_allclose(pose(page)[:3], fk_position(joint_values(page, BRACCIO.n)), atol=0.01)


def test_an_ik_target_gives_a_solution_whose_pose_matches(page):
    page.get_by_test_id("mode").get_by_text("IK").click()
    set_target(page, x=150, y=50, z=100)
    solve(page, "Solved")
    expect(page.get_by_test_id("solution-1")).to_be_visible()
    q = joint_values(page, BRACCIO.n)
    assert BRACCIO.within_limits(np.radians(q), tol=1e-5)
    shown = pose(page)[:3]
    np.testing.assert_allclose(shown, [150, 50, 100], atol=0.01)
    np.testing.assert_allclose(shown, fk_position(q), atol=0.01)


def test_an_unreachable_target_shows_its_message_and_changes_nothing(page):
    page.get_by_test_id("mode").get_by_text("IK").click()
    q_before, pose_before = joint_values(page, BRACCIO.n), pose(page)
    set_target(page, x=500, y=0, z=0)
    solve(page, "target out of reach")
    expect(page.get_by_test_id("ik-message")).to_contain_text("The arm was not moved")
    assert joint_values(page, BRACCIO.n) == q_before
    assert pose(page) == pose_before
    expect(page.get_by_test_id("solution-1")).to_have_count(0)


def test_saving_and_playing_a_pose_list(page):
    first, second = (np.array([v[i + 1] for i in range(BRACCIO.n)], float) for v in DEMO_POSES[:2])
    add_pose(page, DEMO_POSES[0])
    add_pose(page, DEMO_POSES[1])
    page.get_by_test_id("pose-2-name").fill("reach")
    page.get_by_test_id("pose-2-name").press("Enter")
    set_joints(page, {1: 70})  # somewhere else: playing must bring the arm back along the list
    expect(page.get_by_test_id("plan-note")).to_contain_text("2 poses")
    page.get_by_test_id("player-play").click()
    page.wait_for_timeout(700)  # part way: neither pose
    middle = joint_values(page, BRACCIO.n)
    assert min(np.abs(np.subtract(middle, first)).max(), np.abs(np.subtract(middle, second)).max()) > 1
    wait_for_end(page)
    np.testing.assert_allclose(joint_values(page, BRACCIO.n), second, atol=1e-6)
    np.testing.assert_allclose(pose(page)[:3], fk_position(second), atol=0.006)

    page.get_by_test_id("project-menu").click()
    with page.expect_download() as download:
        page.get_by_test_id("project-save").click()
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    names = [p["name"] for p in saved["poses"]["braccio"]]
    assert names == ["P1", "reach"]
    np.testing.assert_allclose(saved["poses"]["braccio"][1]["q"], second, atol=1e-9)

    page.reload()  # a reload loses nothing
    wait_for_scene(page)
    expect(page.get_by_test_id("pose-2-name")).to_have_value("reach")
    np.testing.assert_allclose(joint_values(page, BRACCIO.n), second, atol=1e-6)


def test_the_math_tab_shows_the_matrices(page):
    set_joints(page, {1: 30})
    q = np.array(joint_values(page, BRACCIO.n))
    page.get_by_test_id("tab-math").click()
    fk = page.get_by_test_id("math-fk")
    expect(fk.locator("mtable").first).to_be_visible(timeout=20_000)
    assert fk.locator("mtable").count() >= 2 * BRACCIO.n  # each link's A in symbols and in numbers, and T
    box = fk.locator("mtable").last.bounding_box()
    assert box["height"] > 50 and box["width"] > 100  # drawn as a matrix by the browser, not raw text
    text = fk.inner_text()
    for v in fk_position(np.degrees(np.radians(q))):  # the tool position, in the final T
        assert f"{abs(v):.4f}".rstrip("0").rstrip(".") in text
    page.get_by_test_id("tab-simulator").click()
    set_joints(page, {1: -30})  # the tab follows the change
    page.get_by_test_id("tab-math").click()
    expect(fk).to_contain_text("θ1 = −30.000°", timeout=20_000)


def test_a_projection_shows_the_arm_from_above(page):
    skeleton(page)
    before = colour_counts(scene_pixels(page))
    choose(page, "view-projection", "top (XY)")
    page.wait_for_timeout(300)
    wait_for_scene(page)
    after = colour_counts(scene_pixels(page))
    assert after["orange joints"] > 300 and after["red tool"] > 50, after
    assert after != before


def _looks_and_skeleton(page) -> tuple[np.ndarray, np.ndarray]:
    """Screenshots of the view as the robot looks (once every mesh file has arrived) and as its
    skeleton."""
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1500)
    looks = scene_pixels(page)
    skeleton(page)
    return looks, scene_pixels(page)


def _share_near(px: np.ndarray, where: np.ndarray, colours, tol: int = 40) -> float:
    """The share of the pixels `where` that are a shade of one of `colours` (lit from 45 % to
    110 %, within `tol` as a sum of channel differences)."""
    shades = np.array([np.clip(np.asarray(c) * k, 0, 255) for c in colours for k in np.linspace(0.45, 1.1, 14)])
    d = np.abs(px[where][:, None, :] - shades[None]).sum(axis=-1).min(axis=-1)
    return float((d < tol).mean())


def _changed(looks: np.ndarray, bones: np.ndarray) -> np.ndarray:
    """Where the looks differ from the skeleton, the background left out."""
    return (np.abs(looks - bones).sum(axis=-1) > 30) & (np.abs(looks - [245, 247, 250]).sum(axis=-1) > 12)


def test_the_braccio_looks_like_a_braccio(page):
    """Where its view differs from the skeleton's, the Braccio shows the colours of its robot
    file's shapes (near-white brackets, dark servo bodies), not the skeleton's orange joints and
    red tool."""
    looks, bones = _looks_and_skeleton(page)
    shapes = {tuple(int(c * 255 + 0.5) for c in v.color[:3]) for v in BRACCIO.visuals}
    changed = _changed(looks, bones)
    assert changed.sum() > 5000
    assert _share_near(looks, changed, shapes) > 0.8, _share_near(looks, changed, shapes)
    assert colour_counts(looks)["orange joints"] < 50 and colour_counts(looks)["red tool"] < 50
    assert colour_counts(bones)["orange joints"] > 800


def test_a_urdf_with_meshes_is_drawn_with_its_mesh_colours(browser):
    """example-robot-data's UR5: the view shows its meshes (served as glTF from their DAE files),
    in the colours of their own materials, and differs from the skeleton view."""
    import sysconfig

    import trimesh

    path = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data (a test dependency) is not installed")
    with Server(str(path)) as server:
        page = browser.page(server.url)
        wait_for_scene(page)
        looks, bones = _looks_and_skeleton(page)
        page.close()
    colours_in_files = set()
    for v in km.load(path).visuals:  # the mesh files' own material colours, read by trimesh
        for g in trimesh.load(v.path, force="scene").geometry.values():
            colours_in_files.add(tuple(int(c) for c in g.visual.material.main_color[:3]))
    assert len(colours_in_files) >= 3
    changed = _changed(looks, bones)
    assert changed.sum() > 5000
    # measured 0.69 and 0.29 (headless Chromium, SwiftShader): the rest are anti-aliased edges and
    # specular highlights; the skeleton's dark links are near some of the meshes' greys
    assert _share_near(looks, changed, colours_in_files) > 0.55, _share_near(looks, changed, colours_in_files)
    assert _share_near(bones, changed, colours_in_files) < 0.45, _share_near(bones, changed, colours_in_files)
    assert colour_counts(looks)["orange joints"] < 50 and colour_counts(bones)["orange joints"] > 800
    assert browser.blocked == []


def test_a_workspace_scene_turns_what_collides_red(page):
    """Issue 15's simulator part: the two-Braccio scene around the arm; the gripper driven into
    the table turns the table (and the gripper's collision shape) red on screen."""
    def reddish(px: np.ndarray) -> int:
        r, g, b = px[..., 0], px[..., 1], px[..., 2]
        return int(((r > 200) & (r - g > 80) & (r - b > 80)).sum())

    choose(page, "workspace-scene", "two-braccios")
    expect(page.get_by_test_id("workspace-status")).to_contain_text("no collision", timeout=15_000)
    wait_for_scene(page)
    clear = reddish(scene_pixels(page))
    set_joints(page, {1: 0, 2: -60, 3: -60, 4: -60, 5: 0})
    expect(page.get_by_test_id("workspace-status")).to_contain_text("COLLISION: left/gripper with table")
    page.wait_for_timeout(400)
    assert reddish(scene_pixels(page)) > clear + 2000  # the table is large: thousands of red pixels


def test_the_readme_screenshots(browser, server, tmp_path):
    """The README's pictures can be taken, and its words about them are what the page shows."""
    from PIL import Image

    seen: dict = {}
    paths = readme_screenshots(browser, server.url, tmp_path, seen)
    assert [p.name for p in paths] == list(SCREENSHOTS)
    for path in paths:
        px = np.asarray(Image.open(path).convert("RGB")).astype(int)
        assert px.shape[1] == 1440 and px.shape[0] >= 1000  # the Plots tab: the whole page
        assert colours(px) > 30  # the Robot tab is a table: few colours
    assert browser.blocked == []
    # The README quotes what the page showed; numbers are compared within their last printed digit
    # (an IK solution printed to 0.01° may round the other way on another CPU), words exactly.
    words = " ".join(readme.section("# The simulator").split())
    names = ("M1", "M2", "M3", "M4", "M5")
    for name, value in zip(names, seen["braccio joints"]):
        assert readme.contains_text(words, f"{name} {value}°"), (name, value)
    x, y, z, roll, pitch, yaw = seen["braccio pose"]
    assert readme.contains_text(words, f"x {x}, y {y}, z {z} mm")
    assert readme.contains_text(words, f"roll {roll}°, pitch {pitch}°, yaw {yaw}°")
    assert readme.contains_text(words, seen["braccio verdict"].removeprefix("Jacobian: "))
    assert seen["puma summary"].startswith("8 solutions, 3 within the joint limits")
    assert "all 8 solutions" in words and "3 of them are within the joint limits" in words
    assert readme.contains_text(words, seen["plan note"])
    assert readme.contains_text(words, f"stopped at {seen['half way']}")
    assert readme.contains_text(words, seen["joints caption"].rstrip("."))


def test_the_ik_panel_is_above_the_fold_at_1280_by_800(browser, server):
    """The issue's laptop screen: in IK mode the target, Solve and the verdict are all visible
    without scrolling, and the caption under the view is whole."""
    page = browser.page(server.url, {"width": 1280, "height": 800})
    wait_for_scene(page)
    page.get_by_test_id("mode").get_by_text("IK").click()
    solve(page, "Solved")
    for testid in ("target-x", "solve", "ik-message"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, (testid, box)
    caption = page.get_by_test_id("scene-caption")
    assert caption.evaluate("e => e.scrollWidth <= e.clientWidth")  # not cut short
    page.close()


def test_the_controls_under_the_view_stay_inside_it_at_1280_by_800(browser, server):
    """kuka-kr6-r900's long caption had pushed the workspace checkbox past the view's right edge
    and its tooltip against the window's, cut to one line of two: the caption wraps now, the
    controls end inside the view and the tooltip, whole, inside the window."""
    page = browser.page(server.url, {"width": 1280, "height": 800})
    wait_for_scene(page)
    choose(page, "robot-select", "kuka-kr6-r900")
    expect(page.get_by_test_id("scene-caption")).to_contain_text("kuka-kr6-r900")
    view = page.locator(".nicegui-scene").first.bounding_box()
    for testid in ("view-projection", "frames", "workspace"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["x"] + box["width"] <= view["x"] + view["width"] + 0.5, (testid, box, view)
    assert page.get_by_test_id("scene-caption").evaluate("e => e.scrollWidth <= e.clientWidth")
    page.get_by_test_id("workspace").hover()
    tip = page.locator(".q-tooltip").filter(has_text="the envelope")
    expect(tip).to_be_visible()
    page.wait_for_timeout(400)  # its transition
    box = tip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280 - 4, box  # not at the edge
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800, box
    assert tip.evaluate("e => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1")
    page.close()


def test_skeleton_kept_over_a_reload_and_the_kuka_table_line_names_the_table(page):
    """Issue 32 items 10b and 6 in the browser: Skeleton picked stays picked after a reload (it
    had come back as Looks), and kuka-table's distance line names the arm and the table, not
    two adjacent links of the arm ("kuka/base is 0.0356 m from kuka/link2")."""
    looks = page.get_by_test_id("view-looks")
    looks.get_by_text("Skeleton").click()
    expect(looks.locator('[aria-pressed="true"]')).to_have_text("Skeleton")
    page.wait_for_timeout(300)  # the choice reaches the server and is saved
    page.reload()
    wait_for_scene(page)
    expect(page.get_by_test_id("view-looks").locator('[aria-pressed="true"]')).to_have_text("Skeleton")
    choose(page, "workspace-scene", "kuka-table")
    scene = km.Scene.load("kuka-table")
    between, any_pair = scene.distance(self_pairs=False).words(), scene.distance().words()
    assert "from table" in between and between != any_pair
    expect(page.get_by_test_id("workspace-status")).to_contain_text("no collision · " + between, timeout=15_000)
    page.get_by_test_id("workspace-self-pairs").click()
    expect(page.get_by_test_id("workspace-status")).to_contain_text(any_pair)


def test_the_collision_shapes_toggle_puts_the_capsules_over_the_arm_and_takes_them_away(page):
    """Issue 32 item 7: the toggle draws the arm's collision capsules (teal, translucent) over its
    drawing and takes them away; it stays on over a reload. Teal: green and blue well above red
    (the overlay #00897b at 30 % over the view's grey background or the arm's colours); the
    Braccio's own colours have next to none of it."""
    def teal(px: np.ndarray) -> int:
        r, g, b = px[..., 0], px[..., 1], px[..., 2]
        return int(((g - r > 30) & (b - r > 30)).sum())

    box = page.get_by_test_id("collision-shapes")
    before = teal(scene_pixels(page))
    box.click()
    page.wait_for_timeout(600)
    shown = teal(scene_pixels(page))
    assert shown > before + 3000, (before, shown)  # the capsules cover the arm: thousands of pixels
    box.click()
    page.wait_for_timeout(600)
    assert teal(scene_pixels(page)) < before + 300, (before, shown)
    box.click()
    page.wait_for_timeout(300)  # the choice reaches the server and is saved
    page.reload()
    wait_for_scene(page)
    expect(page.get_by_test_id("collision-shapes")).to_have_attribute("aria-checked", "true")
    assert teal(scene_pixels(page)) > before + 3000


def chart_option(chart, path: str):
    """A part of the live chart's option, read from its ECharts instance in the page."""
    return chart.evaluate(f"el => getElement(el).chart.getOption(){path}")


def hover_tooltip(page, chart, point: list[float]) -> list[str]:
    """Move the mouse onto the chart's data point (x, y) of its first series; the tooltip's lines."""
    px = chart.evaluate("(el, p) => getElement(el).chart.convertToPixel({seriesIndex: 0}, p)", point)
    box = chart.bounding_box()
    page.mouse.move(box["x"] + px[0], box["y"] + px[1])
    page.wait_for_timeout(300)
    return [line.strip() for line in chart.inner_text().splitlines() if line.strip()]


def test_the_plots_are_charts_to_read_zoom_toggle_export_and_follow_the_player(page):
    """Issue 32 item 12: hover values equal the data, a legend entry hides its series, the wheel
    zooms, PNG and CSV download, and the time line follows the player."""
    import csv

    add_pose(page, DEMO_POSES[0])
    add_pose(page, DEMO_POSES[1])
    page.get_by_test_id("tab-plots").click()
    chart = page.get_by_test_id("chart-q")
    expect(chart.locator("canvas")).to_be_visible(timeout=20_000)
    with page.expect_download() as download:
        page.get_by_test_id("chart-q-csv").click()
    assert download.value.suggested_filename == "q.csv"
    rows = list(csv.reader(Path(download.value.path()).read_text(encoding="utf-8").splitlines()))
    names = [n.removesuffix(" [°]") for n in rows[0][1:]]
    table = np.array(rows[1:], dtype=float)
    # the trajectory runs from the first pose to the second (degrees, as typed)
    np.testing.assert_allclose(table[0, 1:], [DEMO_POSES[0][i + 1] for i in range(BRACCIO.n)], atol=1e-9)
    np.testing.assert_allclose(table[-1, 1:], [DEMO_POSES[1][i + 1] for i in range(BRACCIO.n)], atol=1e-9)

    k = len(table) // 3  # a sample where the joints move
    lines = hover_tooltip(page, chart, chart_option(chart, ".series[0].data")[k])
    shown = {lines[i]: float(lines[i + 1].replace(",", "")) for i in range(1, len(lines) - 1, 2)}
    assert list(shown) == names
    # the tooltip shows the number sent, 6 significant digits of the CSV's
    np.testing.assert_allclose([shown[n] for n in names], table[k, 1:], rtol=5e-6, atol=1e-9)

    page.mouse.click(chart.bounding_box()["x"] + 20, chart.bounding_box()["y"] + 33)  # the first legend entry
    assert chart_option(chart, ".legend[0].selected")[names[0]] is False
    lines = hover_tooltip(page, chart, chart_option(chart, ".series[1].data")[k])
    assert names[0] not in lines and names[1] in lines

    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -600)  # zoom in on the time axis
    page.wait_for_timeout(300)
    zoom = chart_option(chart, ".dataZoom[0]")
    assert zoom["end"] - zoom["start"] < 100, zoom

    tools = chart_option(chart, ".toolbox[0]")  # its last icon saves as PNG: at its top right corner
    inset = tools["padding"] + tools["itemSize"] / 2
    with page.expect_download() as download:
        page.mouse.click(box["x"] + box["width"] - tools["right"] - inset, box["y"] + tools["top"] + inset)
    assert download.value.suggested_filename == "q.png"
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    def now() -> float:
        return chart_option(chart, ".series.find(s => s.id === 'now').markLine.data[0].xAxis")

    assert now() == 0.0
    page.get_by_test_id("tab-simulator").click()
    page.get_by_test_id("player-play").click()
    page.get_by_test_id("tab-plots").click()
    # per frame the line moves while the tab is shown (tests/test_app_plots_math.py counts the
    # updates); here, on a machine of any speed: it left 0 and stops where the player stopped
    seen = [now()]
    while seen[-1] != table[-1, 0] and len(seen) < 300:
        page.wait_for_timeout(100)
        seen.append(now())
    assert seen[-1] == table[-1, 0] and seen[0] > 0.0, seen


def test_the_so101_link_draws_the_measured_arm_and_its_commanded_ghost(page):
    """Issue 28 in a real browser: the SO-101's emulator started from the card, the measured arm
    drawn in teal at once (the poller's readings), and after a pose is sent the commanded ghost
    beside it and the table of both, while the page keeps answering its sliders."""
    def teal(px: np.ndarray) -> int:  # MEASURED (#00897b) at 0.55 over the background, or over the grey ghost
        r, g, b = px[..., 0], px[..., 1], px[..., 2]
        return int(((r < 140) & (g - r > 50) & (b - r > 40) & (np.abs(g - b) < 30)).sum())

    choose(page, "robot-select", "so101")
    wait_for_scene(page)
    skeleton(page)
    before = teal(scene_pixels(page))
    page.get_by_test_id("link-emulator").click()
    expect(page.get_by_test_id("link-status")).to_contain_text("six STS3215 servos answer", timeout=15_000)
    expect(page.get_by_test_id("link-summary")).to_contain_text("nothing commanded since connecting")
    page.wait_for_timeout(400)
    assert teal(scene_pixels(page)) > before + 300  # the measured arm
    set_joints(page, {1: 30, 2: -20, 3: 30})  # answered while the link polls
    page.get_by_test_id("link-send").click()
    expect(page.get_by_test_id("link-status")).to_contain_text("pose sent at 60 °/s: arrived", timeout=15_000)
    expect(page.get_by_test_id("link-summary")).to_contain_text("mm apart (FK of each)")
    expect(page.get_by_test_id("link-readout").locator("tbody tr")).to_have_count(6)
    page.get_by_test_id("link-connect").click()
    expect(page.get_by_test_id("link-status")).to_have_text("not connected")
