"""The Robot tab's equivalent-DH card (`app.dhcard`): the table with the same motion as the
current robot, standard or modified, for any robot (URDF and link-frame ones through
`km.to_dh`), and the reason when there is none (a helical joint) — the pure view and the tab
through NiceGUI's simulated user, as tests/test_app_robot.py does.

Tolerance: the card shows lengths to 6 decimals and angles to 4 (in degrees); a table typed
back from it moves the tool within that rounding times the arm's few links (1e-4 of its size
and 1e-4 rad are far above it and far below a wrong row, ≥ 1e-2).
"""

from __future__ import annotations

import numpy as np
import pytest
from app_user import one
from nicegui.testing import User

import kinematica as km
from kinematica.app.dhcard import COLUMNS, default_convention, dh_view

ROBOTS = list(km.robot_names())
HELICAL_FILE = b"""name: screw-arm
kind: poe
length_unit: m
home_pose: {xyz: [0.5, 0, 0.2]}
joints:
  - {name: spindle, type: helical, screw: [0, 0, 1, 0, 0, 0.01]}
  - {name: elbow, screw: [0, 1, 0, -0.2, 0, 0.3]}
"""


def typed_back(robot: km.Robot, convention: str) -> km.Robot:
    """The robot a reader would build from the card's numbers (rows, base and tool)."""
    view, exact = dh_view(robot, convention), km.to_dh(robot, convention)
    keys = [k for k, _, _ in COLUMNS[convention]]
    rows = [{"type": r[1]} | {k: float(v) for k, v in zip(keys, r[2:])} for r in view.rows]
    build = km.from_mdh if convention == "mdh" else km.from_dh
    # base and tool as shown are rounded too, but they are checked on their own below
    return build(rows, deg=True, length_unit=robot.length_unit, base=exact.base, tool=exact.tool)


@pytest.mark.parametrize("convention", ["dh", "mdh"])
@pytest.mark.parametrize("name", ROBOTS)
def test_the_cards_numbers_move_the_robot_as_it_does(name: str, convention: str) -> None:
    robot = km.from_urdf(km.to_urdf(km.load(name)))  # a URDF robot: link frames, no table of its own
    view = dh_view(robot, convention)
    assert not view.reason and len(view.rows) == robot.n
    assert view.headers[2:] == tuple(f"{h} ({'°' if a else 'm'})" for _, h, a in COLUMNS[convention])
    back = typed_back(robot, convention)
    Q = np.random.default_rng(2).uniform(-2, 2, (20, robot.n))
    T, Tb = km.fk(robot, Q), km.fk(back, Q)
    size = max(1.0, float(np.abs(T[..., :3, 3]).max()))
    assert np.abs(T[..., :3, 3] - Tb[..., :3, 3]).max() < 1e-4 * size
    assert np.abs(T[..., :3, :3] - Tb[..., :3, :3]).max() < 1e-4


def test_a_helical_robot_has_no_table_and_the_card_says_why() -> None:
    robot = km.model.robotfile.read_text(HELICAL_FILE.decode())
    view = dh_view(robot, "dh")
    assert view.rows == () and "joint 1 (spindle) is helical" in view.reason
    assert "a screw does both at once" in view.reason


def test_the_card_opens_on_the_convention_the_robot_does_not_already_show() -> None:
    assert default_convention(km.load("puma560")) == "mdh"  # its own table is standard DH
    assert default_convention(km.load("panda")) == "dh"
    assert default_convention(km.from_urdf(km.to_urdf(km.load("ur5")))) == "dh"


async def open_robot_tab(user: User) -> None:
    user.find(marker="tab-robot").click()
    await user.should_see(marker="dh-card")


@pytest.mark.asyncio
async def test_the_robot_tab_shows_the_equivalent_table_of_a_link_frame_robot(user: User) -> None:
    one(user, "robot-select").value = "kuka-kr6-r900"  # bundled as link frames
    await open_robot_tab(user)
    robot = km.load("kuka-kr6-r900")
    assert one(user, "dh-convention").value == "dh"
    view = dh_view(robot, "dh")
    for i, row in enumerate(view.rows):
        assert one(user, f"dh-cell-{i + 1}-a").text == row[4]
        assert one(user, f"dh-cell-{i + 1}-alpha").text == row[5]
    await user.should_see("Base (frame 0 in the world)")
    one(user, "dh-convention").value = "mdh"
    await user.should_see("α_(i−1) (°)")
    mdh = dh_view(robot, "mdh")
    assert one(user, "dh-cell-4-a").text == mdh.rows[3][3]


@pytest.mark.asyncio
async def test_a_helical_robot_file_shows_the_reason_instead(user: User) -> None:
    from nicegui.elements.upload_files import SmallFileUpload

    user.find(marker="open-robot-file").click()
    await user.should_see(marker="robot-upload")
    await one(user, "robot-upload").handle_uploads([SmallFileUpload("screw-arm.yaml", "application/x-yaml",
                                                                    HELICAL_FILE)])
    await user.should_see("screw-arm: 2 joints")
    await open_robot_tab(user)
    assert "joint 1 (spindle) is helical" in one(user, "dh-reason").text
    await user.should_not_see(marker="dh-cell-1-a")
    assert one(user, "robot-cell-1-type").value == "helical"  # the editable table keeps the type


def test_the_editable_table_keeps_a_helical_joints_pitch() -> None:
    """The Robot tab's own table has no pitch column: a helical row keeps its pitch from the
    file (scaled with a new length unit), loses it when typed revolute, and a row typed
    helical without one is refused naming the joint."""
    from kinematica.app.robotedit import EditError, build, convert_unit, form_from_robot

    robot = km.model.robotfile.read_text(HELICAL_FILE.decode())
    form = form_from_robot(robot)
    assert form.rows[0]["type"] == "helical"
    q = np.array([1.0, 2.0])
    np.testing.assert_allclose(km.fk(build(form), q), km.fk(robot, q), atol=1e-12)
    convert_unit(form, "mm")
    in_mm = build(form)
    assert in_mm.pitch[0] == pytest.approx(10.0)
    np.testing.assert_allclose(km.fk(in_mm, q)[:3, 3], 1000 * km.fk(robot, q)[:3, 3], atol=1e-9)
    form = form_from_robot(robot)
    form.rows[0]["type"] = "revolute"
    assert not build(form).helical.any()
    form = form_from_robot(robot)
    form.rows[1]["type"] = "helical"
    with pytest.raises(EditError, match="Joint 2 \\(elbow\\).*helical joint needs a nonzero pitch"):
        build(form)
