"""The Plots and Math tabs through NiceGUI's simulated user (no browser), and their helpers
(app/figures.py, app/mathdoc.py) on their own. Numbers are checked against the core."""

from __future__ import annotations

import asyncio
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import pytest_asyncio
from app_user import one, solve
from nicegui.testing import User, user_simulation

import kinematica as km
from kinematica.app import figures, mathdoc
from kinematica.app.page import Page
from kinematica.app.playlist import q_at
from kinematica.app.state import Session

MATHML = "{http://www.w3.org/1998/Math/MathML}"
PAGES: list[Page] = []


def root() -> None:
    """The app's page without the browser storage, kept so a test can reach its session."""
    PAGES.append(Page(Session()))


@pytest_asyncio.fixture
async def user():
    PAGES.clear()
    async with user_simulation(root=root) as u:
        await u.open("/")
        yield u


def marked(user: User, marker: str) -> set:
    """The elements marked `marker`, none without failing (find fails on none)."""
    try:
        return user.find(marker=marker).elements
    except AssertionError:
        return set()


async def appears(user: User, marker: str, seconds: float = 30.0):
    """The element marked `marker` once the tab's worker thread has drawn it."""
    for _ in range(int(seconds / 0.05)):
        found = marked(user, marker)
        if found:
            return next(iter(found))
        await asyncio.sleep(0.05)
    raise AssertionError(f"nothing marked {marker!r} after {seconds} s")


def matrices(html: str) -> dict[str, list[np.ndarray]]:
    """Every numeric `name = [matrix]` in the MathML of an HTML fragment, by the name's plain text."""
    out: dict[str, list[np.ndarray]] = {}
    for chunk in re.findall(r"<math\b.*?</math>", html, flags=re.DOTALL):
        row = ET.fromstring(chunk).find(f"{MATHML}mrow")
        if row is None or len(row) < 3 or row[1].text != "=":
            continue
        table = row.find(f".//{MATHML}mtable")
        if table is None:
            continue
        name = "".join(row[0].itertext())
        try:
            values = [[float("".join(td.itertext()).replace("−", "-")) for td in tr] for tr in table]
        except ValueError:  # a symbolic matrix (c1, s23 …): not a number to compare
            continue
        out.setdefault(name, []).append(np.array(values))
    return out


def plan(robot: km.Robot) -> km.Trajectory:
    return km.trajectory.quintic(robot.q_home, robot.q_home + 0.3, 1.5, steps=40, robot=robot)


# --- helpers on their own ---------------------------------------------------------------------
def test_the_caption_gives_duration_samples_and_peaks() -> None:
    r = km.load("braccio")
    tr = plan(r)
    words = figures.trajectory_caption(tr, r)
    assert words.startswith(f"1.5 s, {len(tr)} samples")
    peak = np.degrees(np.abs(tr.qd).max(axis=0))
    for name, v in zip(r.joint_names, peak):
        assert f"{name} {v:.3g} °/s" in words
    tau = np.abs(km.rne(r, tr.q, tr.qd, tr.qdd)).max()
    assert f"peak |τ| {tau:.3g} N·m" in words
    assert figures.torque_note(tr, r) is None


def test_a_robot_without_inertials_says_why_there_are_no_torques() -> None:
    r = km.load("planar-3r")
    tr = plan(r)
    assert "peak |τ|" not in figures.trajectory_caption(tr, r)
    assert "no inertial parameters" in figures.torque_note(tr, r)


def test_the_trajectory_groups_hold_charts_and_the_tool_path() -> None:
    r = km.load("planar-3r")
    tr = plan(r)
    joints, path = figures.trajectory_plots(tr, r)
    assert (joints.key, path.key) == ("plot-joints", "plot-path")
    assert [c.key for c in joints.charts] == ["chart-q", "chart-qd", "chart-qdd"]  # no inertials: no τ
    assert [c.key for c in path.charts] == ["chart-tool"] and path.path is not None and path.path.planar
    np.testing.assert_allclose(path.path.points, km.fk(r, tr.q)[:, :3, 3])


def test_convergence_notes_say_why_there_is_no_plot() -> None:
    r = km.load("braccio")
    assert "No IK solve yet" in figures.convergence_note(None)
    assert "refused" in figures.convergence_note(None, "Bad target.")
    T = km.fk(r, r.q_home + 0.2)
    closed = km.ik(r, km.targets.approach(T[:3, 3], pitch=0.3), r.q_home, method="analytic", history=True)
    assert "no iterations" in figures.convergence_note(closed)
    run = km.ik(r, T[:3, 3], r.q_home, history=True)
    assert figures.convergence_note(run) is None
    plot = figures.convergence_plot(run, r)
    assert [c.key for c in plot.charts] == ["chart-convergence"] and f"({run.iterations} in all)" in plot.caption


@pytest.mark.parametrize("name", ["braccio", "kuka-kr6-r900"])
def test_the_fk_fragment_holds_the_end_pose_as_mathml(name: str) -> None:
    r = km.load(name)
    q = r.q_home + 0.1
    html = mathdoc.topic_html(r, "fk", q=q)
    assert "<script" not in html and "<mtable" in html
    np.testing.assert_allclose(matrices(html)["T"][-1], km.fk(r, q), atol=6e-5)


def test_an_unknown_topic_is_refused() -> None:
    with pytest.raises(ValueError, match="topic"):
        mathdoc.topic_html(km.load("braccio"), "statics", q=np.zeros(5))


# --- the tabs on the page -----------------------------------------------------------------------
on_the_page = pytest.mark.asyncio


@on_the_page
async def test_without_a_trajectory_the_plots_tab_says_how_to_get_one(user: User) -> None:
    page = PAGES[-1]
    page.select("plots")
    await appears(user, "plots-go-simulator")
    await user.should_see("No trajectory yet")
    await user.should_see("No IK solve yet")
    user.find(marker="plots-go-simulator").click()
    assert page.current == "simulator"


@on_the_page
async def test_plots_appear_for_a_trajectory_with_its_numbers(user: User) -> None:
    page = PAGES[-1]
    s = page.session
    s.trajectory = plan(s.robot)
    page.changed("plan")
    page.select("plots")
    await appears(user, "plot-joints")
    q = await appears(user, "chart-q")
    first = q.options["series"][0]
    assert first["name"] == s.robot.joint_names[0]
    np.testing.assert_allclose([v for _, v in first["data"]], np.degrees(s.trajectory.q[:, 0]), rtol=5e-6)
    for key in ("chart-qd", "chart-qdd", "chart-tau", "chart-tool", "chart-path", "chart-q-csv"):
        await appears(user, key)
    await appears(user, "plot-path")
    caption = one(user, "plot-joints-caption").text
    assert caption.startswith(f"1.5 s, {len(s.trajectory)} samples") and "peak |τ|" in caption
    await user.should_not_see(marker="plots-go-simulator")


def now_line(chart) -> float:
    return chart.options["series"][-1]["markLine"]["data"][0]["xAxis"]


async def sent(tab) -> None:
    """Until the tab's time-line update has gone to the page."""
    for _ in range(400):
        await asyncio.sleep(0.01)
        if not tab._busy:
            return
    raise AssertionError("the time-line update never finished")


@on_the_page
async def test_the_time_line_follows_the_player_and_a_new_q_rebuilds_nothing(user: User, monkeypatch) -> None:
    from kinematica.app import plots

    monkeypatch.setattr(plots, "WAIT", 0.05)  # no browser answers the simulated user's chart calls
    page = PAGES[-1]
    s = page.session
    s.trajectory = plan(s.robot)
    page.changed("plan")
    page.select("plots")
    q = await appears(user, "chart-q")
    tab = page.tabs["plots"]
    await sent(tab)
    assert now_line(q) == 0.0
    s.t = 0.8
    tab._sent = (tab._sent[0] - 1.0, tab._sent[1])  # the last update a second ago
    page.played()  # what the player does every frame while it runs
    await sent(tab)
    assert now_line(q) == 0.8
    s.t = 0.9
    page.played()  # within 1/RATE s of the last: not sent
    await sent(tab)
    assert now_line(q) == 0.8
    tab._sent = (tab._sent[0] - 1.0, tab._sent[1])  # a frame later and more
    page.played()
    await sent(tab)
    assert now_line(q) == 0.9
    path = one(user, "chart-path")
    np.testing.assert_allclose(path.options["series"][-1]["data"][0],
                               km.fk(s.robot, q_at(s.trajectory, 0.9))[:3, 3], rtol=5e-6, atol=1e-9)
    s.q = s.q + 0.1  # the player paused there: every tab hears of the new q
    page.changed("q", "plan")
    assert one(user, "chart-q") is q  # the same chart, not a new one
    page.select("simulator")
    s.t = 1.2
    page.played()  # not shown: nothing sent
    await sent(tab)
    assert now_line(q) == 0.9
    page.select("plots")  # shown again: it catches up
    await sent(tab)
    assert now_line(q) == 1.2


@on_the_page
async def test_convergence_appears_after_an_ik_solve(user: User) -> None:
    page = PAGES[-1]
    s = page.session
    await solve(user, x=150.0, y=50.0, z=100.0)
    page.select("plots")
    await appears(user, "plot-convergence")
    chart = await appears(user, "chart-convergence")
    errors = [v for _, v in chart.options["series"][0]["data"]]
    assert errors[0] == pytest.approx(s.ik_run.history[0]["error"], rel=5e-6)
    assert f"({s.ik_run.iterations} in all)" in one(user, "plot-convergence-caption").text
    np.testing.assert_array_equal(s.ik_start, km.load("braccio").q_home)


@on_the_page
async def test_math_tab_shows_fk_at_q_and_follows_a_slider(user: User) -> None:
    page = PAGES[-1]
    s = page.session
    page.select("math")
    fk = await appears(user, "math-fk")
    assert "<mtable" in fk.content
    np.testing.assert_allclose(matrices(fk.content)["T"][-1], km.fk(s.robot, s.q), atol=6e-3)
    page.select("simulator")
    one(user, "joint-1-slider").value = 40
    page.select("math")
    before = km.fk(s.robot, s.robot.q_home)
    for _ in range(600):  # the new q's explanation replaces the old one in its worker thread
        found = marked(user, "math-fk")
        if found and not np.allclose(matrices(next(iter(found)).content)["T"][-1], before, atol=1e-3):
            break
        await asyncio.sleep(0.05)
    np.testing.assert_allclose(matrices(one(user, "math-fk").content)["T"][-1], km.fk(s.robot, s.q), atol=6e-3)
    assert s.q[0] == pytest.approx(np.radians(40))


@on_the_page
async def test_math_topics_jacobian_dynamics_and_ik(user: User) -> None:
    page = PAGES[-1]
    s = page.session
    page.select("math")
    await appears(user, "math-fk")
    one(user, "math-topic").value = "jacobian"
    jac = await appears(user, "math-jacobian")
    J = km.jacobian(s.robot, s.q)
    assert any(m.shape == J.shape and np.allclose(m, J, atol=6e-3)
               for ms in matrices(jac.content).values() for m in ms)
    one(user, "math-topic").value = "dynamics"
    dyn = await appears(user, "math-dynamics")
    assert "<math" in dyn.content
    one(user, "math-topic").value = "ik"
    await user.should_see("No IK solve yet")
    page.select("simulator")
    await solve(user, x=150.0, y=50.0, z=100.0)
    page.select("math")
    ik = await appears(user, "math-ik")
    assert "<math" in ik.content and "Levenberg" in one(user, "math-ik-note").text


@on_the_page
async def test_a_robot_without_inertials_says_so_in_both_tabs(user: User) -> None:
    page = PAGES[-1]
    one(user, "robot-select").value = "planar-3r"
    s = page.session
    assert s.robot_name == "planar-3r"
    s.trajectory = plan(s.robot)
    page.changed("plan")
    page.select("plots")
    await appears(user, "plot-joints")
    assert "No torques: planar-3r has no inertial parameters" in one(user, "plot-joints-caption").text
    page.select("math")
    await appears(user, "math-fk")
    one(user, "math-topic").value = "dynamics"
    await appears(user, "math-dynamics-note")
    await user.should_see("No dynamics: planar-3r has no inertial parameters")
    await user.should_not_see(marker="math-dynamics")
