"""The Robot tab: the editable parameter table (pure form ↔ robot round trips and validation
in words) and the tab through NiceGUI's simulated user (Apply, a refused value, Revert, Save
YAML, Export URDF)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from app_user import one, shown_q
from hypothesis import given
from hypothesis import strategies as st
from nicegui.testing import User
from strategies import FAST

import kinematica as km
from kinematica.app import robotedit
from kinematica.app.robotedit import (
    EditError,
    build,
    convert_unit,
    form_from_robot,
    header,
)
from kinematica.model.robotfile import read_text, robot_from_dict, robot_to_dict

ROBOTS = list(km.robot_names())


def random_q(robot: km.Robot, unit: list[float]) -> np.ndarray:
    """q inside the limits (±π / ±1 length unit where a limit is open) from numbers in [0, 1]."""
    wide = np.where(robot.revolute, np.pi, 1.0)
    lo = np.where(np.isfinite(robot.limits[:, 0]), robot.limits[:, 0], -wide)
    hi = np.where(np.isfinite(robot.limits[:, 1]), robot.limits[:, 1], wide)
    return lo + np.asarray(unit[: robot.n]) * (hi - lo)


def assert_same_fk(a: km.Robot, b: km.Robot, q: np.ndarray) -> None:
    scale = 1.0 if a.length_unit == "m" else 1000.0
    T1, T2 = km.fk(a, q), km.fk(b, q)
    np.testing.assert_allclose(T1[:3, :3], T2[:3, :3], atol=1e-9)
    np.testing.assert_allclose(T1[:3, 3], T2[:3, 3], atol=1e-9 * scale)


# --- the pure form --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ROBOTS)
@FAST
@given(unit=st.lists(st.floats(0, 1), min_size=8, max_size=8))
def test_every_bundled_robot_reads_back_from_its_rows(name: str, unit: list[float]) -> None:
    robot = km.load(name)
    again = build(form_from_robot(robot))
    assert again.n == robot.n and again.joint_types == robot.joint_types
    assert again.joint_names == robot.joint_names and again.length_unit == robot.length_unit
    np.testing.assert_allclose(again.limits, robot.limits, rtol=1e-11)
    np.testing.assert_allclose(again.q_home, robot.q_home, atol=1e-11)
    assert_same_fk(robot, again, random_q(robot, unit))


@pytest.mark.parametrize("name", ROBOTS)
def test_what_the_table_leaves_out_is_kept(name: str) -> None:
    robot = km.load(name)
    again = build(form_from_robot(robot))
    np.testing.assert_allclose(again.base, robot.base, atol=1e-12)
    assert (again.inertials is None) == (robot.inertials is None)
    if robot.inertials is not None:
        for a, b in zip(again.inertials, robot.inertials):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.mass == pytest.approx(b.mass)
                np.testing.assert_allclose(a.inertia, b.inertia, atol=1e-12)
    for key in ("servo", "drives", "gripper", "notes", "extras"):
        assert (key in again.extras) == (key in robot.extras)
    assert again.description == robot.description


def test_a_urdf_robot_shows_link_frames_and_reads_back() -> None:
    robot = km.from_urdf(km.to_urdf(km.load("braccio")))
    form = form_from_robot(robot)
    assert form.kind == "frames" and {"x", "roll", "ax"} <= set(form.rows[0])
    q = np.radians([10, -20, 30, 40, 50])
    assert_same_fk(robot, build(form), q)


@FAST
@given(unit=st.lists(st.floats(0, 1), min_size=6, max_size=6))
def test_changing_the_length_unit_keeps_the_robot_the_same_size(unit: list[float]) -> None:
    robot = km.load("puma560")  # lengths in m, with a base, a tool and inertials
    form = form_from_robot(robot)
    convert_unit(form, "mm")
    mm = build(form)
    assert mm.length_unit == "mm"
    q = random_q(robot, unit)
    np.testing.assert_allclose(km.fk(mm, q)[:3, 3], 1000 * km.fk(robot, q)[:3, 3], atol=1e-6)
    np.testing.assert_allclose(mm.inertials[1].com, 1000 * robot.inertials[1].com, atol=1e-9)


def test_headers_name_the_convention_and_units() -> None:
    form = form_from_robot(km.load("braccio"))
    heads = [header(c, form) for c in robotedit.columns("dh")]
    assert heads == ["name", "type", "θ offset (°)", "d (mm)", "a (mm)", "α (°)", "lower (°)", "upper (°)", "home (°)"]
    mdh = form_from_robot(km.load("panda"))
    assert [header(c, mdh) for c in robotedit.columns("mdh")][2:6] == ["α(i−1) (°)", "a(i−1) (m)", "θ offset (°)", "d (m)"]


@pytest.mark.parametrize("row, key, text, words", [
    (2, "a", "", "Joint 3 (M3 elbow), column “a (mm)”: fill in a number."),
    (2, "a", "12,5", "Joint 3 (M3 elbow), column “a (mm)”: '12,5' is not a number."),
    (0, "alpha", "nan", "Joint 1 (M1 base), column “α (°)”: 'nan' is not a finite number."),
    (1, "lower", "100", "Joint 2 (M2 shoulder), column “lower (°)”: the lower limit 100 is above the upper limit 75."),
    (3, "home", "200", "Joint 4 (M4 wrist pitch), column “home (°)”: home 200 is outside the limits -90 … 90."),
    (4, "name", "M1 base", "Joint 5 (M1 base), column “name”: the name 'M1 base' is already joint 1's"),
])
def test_a_bad_cell_is_named_by_joint_and_column(row: int, key: str, text: str, words: str) -> None:
    form = form_from_robot(km.load("braccio"))
    form.rows[row][key] = text
    with pytest.raises(EditError) as err:
        build(form)
    assert str(err.value).startswith(words)
    assert (err.value.row, err.value.column) == (row, key)


def test_core_messages_are_put_in_the_tables_terms() -> None:
    form = form_from_robot(km.load("planar-3r"))
    form.rows[1]["length"] = "-3"
    with pytest.raises(EditError, match=r"Joint 2 \(θ2\), column “L \(mm\)”: a link length cannot be negative"):
        build(form)
    frames = form_from_robot(km.load("kuka-kr6-r900"))
    for k in ("ax", "ay", "az"):
        frames.rows[0][k] = "0"
    with pytest.raises(EditError, match="axis cannot be zero") as err:
        build(frames)
    assert err.value.row == 0
    empty = form_from_robot(km.load("braccio"))
    empty.name = " "
    with pytest.raises(EditError, match="needs a name") as err:
        build(empty)
    assert err.value.column == "robot-name"


def test_empty_limits_mean_no_limit() -> None:
    form = form_from_robot(km.load("braccio"))
    form.rows[0]["lower"], form.rows[0]["upper"] = "", ""
    robot = build(form)
    assert robot.limits[0, 0] == -math.inf and robot.limits[0, 1] == math.inf


def test_kept_q_is_clipped_into_the_new_limits() -> None:
    old = km.load("braccio")
    form = form_from_robot(old)
    form.rows[0]["upper"] = "10"
    new = build(form)
    q = robotedit.kept_q(old, np.radians([45, -45, 90, 90, 0]), new)
    np.testing.assert_allclose(q, np.radians([10, -45, 90, 90, 0]))


# --- the tab through the simulated user -------------------------------------------------------


async def open_robot_tab(user: User) -> None:
    user.find(marker="tab-robot").click()
    await user.should_see(marker="robot-apply")


@pytest.mark.asyncio
async def test_editing_a_link_length_and_applying_switches_every_tab(user: User) -> None:
    one(user, "joint-2-slider").value = -30
    await open_robot_tab(user)
    assert one(user, "robot-header-a").text == "a (mm)"
    one(user, "robot-cell-3-a").value = "150"
    user.find(marker="robot-apply").click()
    await user.should_see("every tab now uses 'braccio (edited)'")
    select = one(user, "robot-select")
    assert select.value == "braccio (edited)" and "braccio" in select.options
    braccio = km.load("braccio")
    q = shown_q(user, braccio)
    np.testing.assert_allclose(q, np.radians([0, -30, 90, 90, 0]), atol=1e-12)  # q kept
    form = form_from_robot(braccio)
    form.rows[2]["a"] = "150"
    new = build(form)
    p = np.array([float(one(user, f"pose-{a}").text) for a in "xyz"])
    np.testing.assert_allclose(p, km.fk(new, q)[:3, 3], atol=0.006)
    assert not np.allclose(p, km.fk(braccio, q)[:3, 3], atol=1)


@pytest.mark.asyncio
async def test_a_bad_value_is_refused_in_words_and_changes_nothing(user: User) -> None:
    await open_robot_tab(user)
    before = np.array([float(one(user, f"pose-{a}").text) for a in "xyz"])
    one(user, "robot-cell-2-lower").value = "abc"
    user.find(marker="robot-apply").click()
    await user.should_see("Joint 2 (M2 shoulder), column “lower (°)”: 'abc' is not a number. Nothing was changed.")
    assert one(user, "robot-cell-2-lower").props["error"] is True
    assert one(user, "robot-cell-2-lower").value == "abc"  # the edit is kept to be corrected
    assert one(user, "robot-select").value == "braccio"
    assert "braccio (edited)" not in one(user, "robot-select").options
    np.testing.assert_array_equal([float(one(user, f"pose-{a}").text) for a in "xyz"], before)
    user.find(marker="robot-revert").click()
    await user.should_see("Reverted")
    assert one(user, "robot-cell-2-lower").value == "-75"
    assert not one(user, "robot-cell-2-lower").props["error"]


@pytest.mark.asyncio
async def test_save_yaml_and_export_urdf_load_back(user: User) -> None:
    await open_robot_tab(user)
    one(user, "robot-cell-1-d").value = "80"
    one(user, "robot-name").value = "my-braccio"
    user.find(marker="robot-save-yaml").click()
    text = (await user.download.next()).text
    robot = read_text(text)
    assert robot.name == "my-braccio" and robot.table.rows[0][3] == 80
    again = robot_from_dict(robot_to_dict(robot))
    q = np.radians([10, -20, 30, 40, 50])
    assert_same_fk(robot, again, q)
    user.find(marker="robot-export-urdf").click()
    urdf = km.from_urdf((await user.download.next()).text, length_unit="mm")
    np.testing.assert_allclose(km.fk(urdf, q)[:3, 3], km.fk(robot, q)[:3, 3], atol=1e-6)
    assert one(user, "robot-select").value == "braccio"  # saving does not switch the robot


@pytest.mark.asyncio
async def test_the_table_follows_the_robot_and_keeps_edits_while_joints_move(user: User) -> None:
    one(user, "robot-select").value = "kuka-kr6-r900"
    await open_robot_tab(user)
    await user.should_see("link frames (origin xyz, rpy, axis) — 6 joints")
    assert one(user, "robot-header-x").text == "x (m)" and one(user, "robot-header-roll").text == "roll (°)"
    await user.should_see("Inertials: link masses")
    one(user, "robot-cell-1-z").value = "0.3"
    user.find(marker="tab-simulator").click()
    one(user, "joint-1-slider").value = 20
    await open_robot_tab(user)
    assert one(user, "robot-cell-1-z").value == "0.3"


@pytest.mark.asyncio
async def test_a_new_length_unit_converts_the_cells(user: User) -> None:
    await open_robot_tab(user)
    one(user, "robot-unit").value = "m"
    assert one(user, "robot-header-d").text == "d (m)"
    assert one(user, "robot-cell-1-d").value == "0.0715"
    user.find(marker="robot-apply").click()
    await user.should_see("braccio: 5 joints, lengths in m")


@pytest.mark.asyncio
async def test_every_bundled_robot_shows_its_table(user: User) -> None:
    for name in ROBOTS:
        robot = km.load(name)
        one(user, "robot-select").value = name
        await open_robot_tab(user)
        kind = form_from_robot(robot).kind
        await user.should_see(f"{robotedit.KIND_NAMES[kind]} — {robot.n} joints")
        await user.should_see(marker=f"robot-cell-{robot.n}-home")
        assert one(user, "robot-cell-1-name").value == robot.joint_names[0]
        user.find(marker="tab-simulator").click()
