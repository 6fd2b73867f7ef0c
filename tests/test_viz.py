"""Figures: each kind renders at the requested pixel size and is not blank; the overlays, the
convergence plot and the animation show what they claim; the CLI writes the files."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageSequence

import kinematica as km
from kinematica import viz
from kinematica.viz.geometry import arm_geometry, project
from cli_run import run

deg = np.radians
PAPER003 = [59.98, 21.83, 42.33]


def pixel_stats(path: Path) -> tuple[tuple[int, int], float, float]:
    """(width, height), the standard deviation of the grey levels, and the fraction of pixels
    that differ from the background (the most common colour) by more than a faint tint."""
    with Image.open(path) as im:
        size = im.size
        rgb = np.asarray(im.convert("RGB"), dtype=float)
    packed = (rgb.astype(np.int64) * [65536, 256, 1]).sum(axis=-1).ravel()
    top = int(np.argmax(np.bincount(packed)))
    background = np.array([top >> 16, (top >> 8) & 255, top & 255], dtype=float)
    ink = np.abs(rgb - background).max(axis=-1) > 24
    return size, float(rgb.mean(axis=-1).std()), float(ink.mean())


def assert_drawn(path: Path, size: tuple[int, int]) -> None:
    got, std, ink = pixel_stats(path)
    assert got == size
    assert std > 15, f"{path.name}: grey-level std {std:.1f} — blank?"
    assert ink > 0.03, f"{path.name}: only {ink:.1%} of the pixels drawn"


@pytest.fixture(scope="module")
def kuka_motion() -> tuple[km.Robot, km.Trajectory]:
    robot = km.load("kuka-kr6-r900")
    return robot, km.trajectory.quintic(np.zeros(6), deg([60, -30, 40, 90, 45, 120]), 2.0,
                                        robot=robot, steps=30)


def _figures(kuka_motion):
    planar, kuka = km.load("planar-3r"), kuka_motion[0]
    run = km.ik(planar, [-10, 35], deg([30, 30, 20]), history=True)
    return {
        "arm-planar": lambda s: viz.arm(planar, deg([30, 30, 20]), target=[-10, 35], size=s),
        "arm-3d-frames": lambda s: viz.arm(km.load("puma560"), frames=True, size=s),
        "projections": lambda s: viz.projections(kuka, deg([10, 20, -30, 0, 40, 0]), size=s),
        "workspace": lambda s: viz.workspace(km.load("puma560"), 400, size=s),
        "workspace-planar": lambda s: viz.workspace(planar, 400, color=None, size=s),
        "convergence": lambda s: viz.convergence(run, unit="mm", tol=0.1, size=s),
        "time-plots": lambda s: viz.time_plots(kuka_motion[1], robot=kuka, size=s),
        "ee-path": lambda s: viz.ee_path(kuka_motion[1], robot=kuka, size=s),
    }


@pytest.mark.parametrize("kind", ["arm-planar", "arm-3d-frames", "projections", "workspace",
                                  "workspace-planar", "convergence", "time-plots", "ee-path"])
def test_every_figure_has_the_requested_size_and_is_not_blank(kind, kuka_motion, tmp_path):
    fig = _figures(kuka_motion)[kind]((4.0, 3.0))  # 400 x 300 px at 100 dpi
    path = viz.save(fig, tmp_path / f"{kind}.png")
    assert_drawn(path, (400, 300))


def test_800_by_600_at_100_dpi_and_other_formats(tmp_path):
    fig = viz.arm(km.load("planar-3r"), size=(8, 6), dpi=100)
    assert_drawn(viz.save(fig, tmp_path / "a.png"), (800, 600))
    assert (viz.save(fig, tmp_path / "a.svg")).read_text().lstrip().startswith("<?xml")
    with pytest.raises(viz.VizError, match="image format"):
        viz.save(fig, tmp_path / "a.bmp")


def test_a_white_figure_fails_the_blank_check(tmp_path):
    path = viz.save(viz.new_figure((2, 1.5), dpi=50), tmp_path / "white.png")
    size, std, ink = pixel_stats(path)
    assert size == (100, 75) and std < 1 and ink == 0


# --- what the drawings show ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["planar-3r", "puma560", "panda", "kuka-kr6-r900", "ur5"])
def test_skeleton_runs_from_the_base_to_the_tool_through_every_joint(name):
    robot = km.load(name)
    q = np.random.default_rng(3).uniform(*robot.limits.clip(-3, 3).T, size=(4, robot.n))
    g = arm_geometry(robot, q)
    F = km.fk_frames(robot, q)
    np.testing.assert_allclose(g.skeleton[:, 0], F[:, 0, :3, 3], atol=1e-12)
    np.testing.assert_allclose(g.skeleton[:, -1], km.fk(robot, q)[:, :3, 3], atol=1e-12)
    for i in range(robot.n):  # every joint origin is a vertex of the polyline
        gap = np.linalg.norm(g.skeleton - g.joints[:, i:i + 1], axis=-1).min(axis=-1)
        assert np.all(gap < 1e-12)


def test_planar_arm_is_drawn_in_its_plane_with_the_reach_circle():
    fig = viz.arm(km.load("planar-3r"), deg([30, 30, 20]), target=[-10, 35], size=(4, 3))
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_aspect()) == ("x [mm]", "y [mm]", 1.0)
    links = ax.get_lines()[0]
    np.testing.assert_allclose(links.get_xydata()[-1], [30.79, 47.02], atol=5e-3)
    assert any("reach ≤ 60 mm" in t.get_text() for t in fig.legends[0].get_texts())


def test_paper003_both_elbow_solutions_overlaid_in_three_planes():
    arm = km.load("arm-5dof-geo")
    sols = km.ik_all(arm, km.targets.approach(PAPER003, pitch=deg(45)))
    front = [s for s in sols if s.branch.startswith("front")]
    fig = viz.solutions(arm, front, target=PAPER003, size=(9, 3.5))
    assert [ax.get_title() for ax in fig.axes] == ["XY plane (top view)", "XZ plane (side view)",
                                                   "YZ plane (front view)"]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "front / elbow down: (20.0°, 16.3°, 44.2°, -15.5°, 0.0°)" in labels
    assert "front / elbow up: (20.0°, 45.1°, -44.2°, 44.1°, 0.0°)" in labels
    xz = fig.axes[1]
    arms = [l for l in xz.get_lines() if l.get_label().startswith("front")]
    assert len(arms) == 2
    for line in arms:  # both reach the target, by different elbows
        np.testing.assert_allclose(line.get_xydata()[-1], [PAPER003[0], PAPER003[2]], atol=1e-3)
    a, b = (line.get_xydata() for line in arms)
    assert np.abs(a[:, 1] - b[:, 1]).max() > 10  # one elbow low, one high (z, mm)


def test_convergence_of_paper000_has_one_point_per_iteration():
    run = km.ik(km.load("planar-3r"), [-10, 35], deg([30, 30, 20]), history=True)
    fig = viz.convergence(run, unit="mm")
    ax, lam_ax = fig.axes
    main_line = ax.get_lines()[0]
    assert len(main_line.get_xdata()) == len(run.history) == run.iterations == 5
    np.testing.assert_allclose(main_line.get_ydata(), [h["error_after"] for h in run.history])
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "error ‖e‖ [mm]"
    assert len(lam_ax.get_lines()[0].get_xdata()) == 5 and lam_ax.get_ylabel() == "damping λ"
    assert ax.get_lines()[1].get_ydata()[0] == pytest.approx(42.527, abs=1e-3)  # ‖e₀‖


def test_rejected_steps_are_marked_and_keep_the_error():
    run = km.ik(km.load("planar-3r"), [-10, 35], deg([100, 0, 0]), history=True)
    rejected = [h for h in run.history if not h["accepted"]]
    assert rejected
    ax = viz.convergence(run).axes[0]
    marks = [l for l in ax.get_lines() if l.get_label().startswith("rejected")][0]
    np.testing.assert_allclose(marks.get_ydata(), [h["error_after"] for h in rejected])
    after = ax.get_lines()[0].get_ydata()
    for k, h in enumerate(run.history):
        assert after[k] == pytest.approx(h["error_after"] if h["accepted"] else h["error"])


def test_time_plots_label_units_and_show_degrees(kuka_motion):
    robot, tr = kuka_motion
    fig = viz.time_plots(tr, robot=robot)
    assert [ax.get_ylabel() for ax in fig.axes] == ["q [deg]", "q̇ [deg/s]", "q̈ [deg/s²]",
                                                    "τ [N·m]"]
    q1 = fig.axes[0].get_lines()[0].get_ydata()
    assert q1[-1] == pytest.approx(60.0)
    no_tau = viz.time_plots(tr, quantities=["q"], degrees=False)
    assert [ax.get_ylabel() for ax in no_tau.axes] == ["q [rad]"]
    with pytest.raises(viz.VizError, match="no torques"):
        viz.time_plots(tr, quantities=["tau"])


def test_workspace_points_stay_within_reach():
    robot = km.load("puma560")
    p, w = viz.workspace_points(robot, 500, measure="manipulability")
    assert p.shape == (500, 3) and np.all(w >= 0)
    assert np.linalg.norm(p, axis=1).max() <= viz.reach(robot) + 1e-9


def test_figures_build_in_parallel_threads():
    robot = km.load("planar-3r")
    qs = deg([[30, 30, 20], [60, 10, -20], [90, -30, 40], [45, 45, 45]])
    with ThreadPoolExecutor(4) as pool:
        figs = list(pool.map(lambda q: viz.arm(robot, q, size=(5, 3.5)), qs))
    for fig, q in zip(figs, qs):
        tip = fig.axes[0].get_lines()[0].get_xydata()[-1]
        np.testing.assert_allclose(tip, km.fk(robot, q)[:2, 3], atol=1e-9)


@pytest.mark.parametrize("call, message", [
    (lambda: viz.arm(km.load("planar-3r"), [1, 2]), "expected 3 joint values"),
    (lambda: viz.arm(km.load("planar-3r"), view="top"), "view must be"),
    (lambda: viz.arm(km.load("planar-3r"), target=[1, 2, 3, 4]), "target"),
    (lambda: viz.convergence(km.ik(km.load("planar-3r"), [-10, 35])), "history=True"),
    (lambda: viz.solutions(km.load("planar-3r"), []), "no solutions"),
    (lambda: viz.workspace_points(km.load("planar-3r"), 0), "samples"),
    (lambda: project(np.zeros(3), "ab"), "plane must be"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- animation ----------------------------------------------------------------------------------
def test_gif_has_the_requested_frames_and_size(kuka_motion, tmp_path):
    robot, tr = kuka_motion
    path = viz.animate(robot, tr, tmp_path / "a.gif", frames=4, fps=10, size=(2, 1.5), dpi=50)
    with Image.open(path) as im:
        frames = list(ImageSequence.Iterator(im))
        assert im.size == (100, 75) and len(frames) == 4
        assert im.info["duration"] == 100  # ms per frame at 10 fps
    assert viz.frame_times(tr, fps=5).size == 11  # real time: 2 s at 5 fps, both ends


def test_mp4_without_ffmpeg_is_a_clear_error(kuka_motion, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(viz.AnimationError, match="needs ffmpeg"):
        viz.animate(*kuka_motion, tmp_path / "a.mp4", frames=2)
    with pytest.raises(viz.VizError, match="animation format"):
        viz.animate(*kuka_motion, tmp_path / "a.avi", frames=2)


# --- command line -------------------------------------------------------------------------------


def test_cli_plot_arm_writes_the_requested_size(capsys, tmp_path):
    out = tmp_path / "arm.png"
    code, text, err = run(capsys, "plot", "planar-3r", "arm", "--q", "30", "30", "20", "--deg",
                          "--target", "-10", "35", "--out", str(out), "--size", "640", "480")
    assert (code, err) == (0, "") and text == f"wrote {out} (640 × 480 px PNG)\n"
    assert_drawn(out, (640, 480))


def test_cli_plot_convergence_and_solutions_json(capsys, tmp_path):
    code, text, err = run(capsys, "plot", "planar-3r", "convergence", "--position", "-10", "35",
                          "--q0", "30", "30", "20", "--deg", "--out", str(tmp_path / "c.png"),
                          "--size", "400", "300", "--json")
    data = json.loads(text)
    assert code == 0 and data["note"] == "converged; 5 iterations plotted"
    assert data["written"]["width_px"] == 400 and (tmp_path / "c.png").exists()
    code, text, err = run(capsys, "plot", "arm-5dof-geo", "solutions", "--position",
                          *map(str, PAPER003), "--pitch", "45", "--deg",
                          "--out", str(tmp_path / "s.png"), "--size", "600", "250", "--json")
    assert code == 0 and json.loads(text)["note"] == "4 solutions"
    assert_drawn(tmp_path / "s.png", (600, 250))


def test_cli_trajectory_plots_and_animation(capsys, tmp_path, kuka_motion):
    robot, tr = kuka_motion
    csv = km.trajectory.save(tr, tmp_path / "m.csv", degrees=True)
    for kind in ("trajectory", "path"):
        out = tmp_path / f"{kind}.png"
        code, _, err = run(capsys, "plot", robot.name, kind, "--trajectory", str(csv),
                           "--out", str(out), "--size", "500", "400")
        assert (code, err) == (0, "")
        assert_drawn(out, (500, 400))
    gif = tmp_path / "m.gif"
    code, text, err = run(capsys, "animate", robot.name, "--trajectory", str(csv), "--out",
                          str(gif), "--n-frames", "3", "--size", "160", "120", "--json")
    assert code == 0 and json.loads(text)["written"]["frames"] == 3
    with Image.open(gif) as im:
        assert im.size == (160, 120) and im.n_frames == 3


@pytest.mark.parametrize("argv, message", [
    (["plot", "planar-3r", "teapot", "--out", "x.png"], "invalid choice: 'teapot'"),
    (["plot", "planar-3r", "arm", "--out", "x.jpg"], "use .png, .svg, .pdf"),
    (["plot", "planar-3r", "arm", "--trajectory", "m.csv", "--out", "x.png"],
     "--trajectory goes with trajectory or path, not arm"),
    (["plot", "planar-3r", "trajectory", "--out", "x.png"], "needs --trajectory"),
    (["plot", "planar-3r", "arm", "--q", "1", "2", "--out", "x.png"], "expected 3 joint values"),
    (["plot", "planar-3r", "arm", "--out", "x.png", "--size", "0", "10"], "--size"),
    (["plot", "planar-3r", "convergence", "--position", "-10", "35", "--method", "analytic",
      "--out", "x.png"], "no iterations to plot"),
    (["animate", "planar-3r", "--trajectory", "m.csv", "--out", "x.mov"], "use .gif, .mp4"),
    (["animate", "planar-3r", "--trajectory", "m.csv", "--out", "x.gif", "--fps", "0"], "--fps"),
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("kinematica: error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "x.png").exists()


def test_cli_unreachable_convergence_and_mp4_without_ffmpeg_exit_1(capsys, tmp_path, monkeypatch,
                                                                    kuka_motion):
    code, _, err = run(capsys, "plot", "planar-3r", "convergence", "--position", "100", "35",
                       "--out", str(tmp_path / "c.png"))
    assert code == 1 and "target out of reach" in err
    csv = km.trajectory.save(kuka_motion[1], tmp_path / "m.csv")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, _, err = run(capsys, "animate", kuka_motion[0].name, "--trajectory", str(csv),
                       "--out", str(tmp_path / "m.mp4"))
    assert code == 1 and "needs ffmpeg" in err
