"""An equivalent standard or modified DH table for any chain (`km.to_dh`): the same FK at every q.

Tolerance: FK of two chains of ≤ 7 unit-size transforms built from the same axes by different
routes agree to a few ε·n; 1e-12 relative to the arm's size (1e-9 for the random chains, whose
nearly parallel or nearly meeting axes make the DH numbers ill-conditioned) is far below any
real discrepancy (a wrong sign or offset moves the tool by ≥ 1e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import kinematica as km

from strategies import MEDIUM, rotations


def same_fk(a: km.Robot, b: km.Robot, rtol: float, seed: int = 0) -> None:
    """FK equal to rtol of the arm's size, plus the round-off of b's own DH numbers: nearly
    parallel axes have their common normal far away (d ~ size / angle between them, 4e6 for a
    2.4e-7 rad tilt Hypothesis found), and the chain's ± d cancel to ~ε·|d| (modified DH puts
    that far point in the base, frame 1 being on axis 1 where the normal leaves it)."""
    Q = np.random.default_rng(seed).uniform(-3, 3, (100, a.n))
    Ta, Tb = km.fk(a, Q), km.fk(b, Q)
    scale = max(1.0, float(np.abs(Ta[..., :3, 3]).max()))
    rows = b.table.as_dicts() if b.table.kind in ("dh", "mdh") else []
    far = max([abs(r[k]) for r in rows for k in ("a", "d")] + [np.abs(T[:3, 3]).max() for T in (b.base, b.tool)])
    assert np.abs(Ta - Tb).max() <= rtol * scale + 16 * np.finfo(float).eps * far


@pytest.mark.parametrize("convention", ["dh", "mdh"])
@pytest.mark.parametrize("name", km.robot_names())
def test_every_bundled_robot_and_its_urdf_export_have_an_equivalent_dh_table(name, convention):
    robot = km.load(name)
    same_fk(robot, km.to_dh(robot, convention), 1e-12)
    urdf = km.from_urdf(km.to_urdf(robot))  # link frames, metres: DH must be found again
    dh = km.to_dh(urdf, convention)
    same_fk(urdf, dh, 1e-12)
    assert dh.table.kind == convention and list(dh.joint_names) == list(robot.joint_names)
    np.testing.assert_array_equal(dh.limits, urdf.limits)


def test_the_pandas_modified_dh_table_comes_back_from_its_urdf():
    """The bundled Panda is Franka's own modified-DH table: the same numbers return, signs too
    (the x axes are turned for zero offsets and then for a ≥ 0 where a choice exists; Franka
    prints a5 = −0.0825, and so does the table found)."""
    table = km.load("panda").table.as_dicts()
    mdh = km.to_dh(km.from_urdf(km.to_urdf(km.load("panda"))), "mdh")
    rows = mdh.table.as_dicts()
    for key in ("a", "alpha", "theta"):
        np.testing.assert_allclose([r[key] for r in rows], [r[key] for r in table], atol=1e-9)
    # frame 0 is frame 1 at q = 0, so d1 = 0.333 sits in the base
    np.testing.assert_allclose([r["d"] for r in rows[1:]], [r["d"] for r in table[1:]], atol=1e-9)
    np.testing.assert_allclose(mdh.base[:3, 3], [0, 0, 0.333], atol=1e-12)


TABLED = [n for n in km.robot_names() if km.load(n).table.kind in ("dh", "mdh")]


@pytest.mark.parametrize("name", TABLED)
def test_a_tabled_robots_twists_come_back_from_its_urdf(name):
    """The link twists |α_i| are the angles between consecutive axes, which no choice of frames
    changes: the table found from the URDF (same convention) has the bundled table's, row by row."""
    robot = km.load(name)
    found = km.to_dh(km.from_urdf(km.to_urdf(robot)), robot.table.kind).table.as_dicts()
    alpha = np.array([r["alpha"] for r in robot.table.as_dicts()])
    alpha = np.radians(alpha) if robot.table.angle_unit == "deg" else alpha
    np.testing.assert_allclose(np.abs([r["alpha"] for r in found]), np.abs(alpha), atol=1e-9)


def test_no_table_for_a_helical_joint_and_the_reason_is_given():
    screw = km.from_poe(np.eye(4), [[0, 0, 1, 0, 0, 0.05], [0, 1, 0, 0, 0, 0]])
    assert "joint 1 (q1) is helical" in km.kinematics.dh_from.dh_unavailable(screw)
    assert km.kinematics.dh_from.dh_unavailable(km.load("ur5")) is None
    for convention in ("dh", "mdh"):
        with pytest.raises(km.RobotError, match="no DH table .* helical .* a screw does both"):
            km.to_dh(screw, convention)
    with pytest.raises(ValueError, match="convention"):
        km.to_dh(km.load("ur5"), "craig")


def test_the_ur5s_published_lengths_come_back_from_its_urdf():
    rows = km.to_dh(km.from_urdf(km.to_urdf(km.load("ur5")))).table.as_dicts()
    a, d = (sorted(abs(r[key]) for r in rows) for key in ("a", "d"))
    np.testing.assert_allclose([x for x in a if x > 1e-9], [0.39225, 0.425], atol=1e-9)
    np.testing.assert_allclose([x for x in d if x > 1e-9], [0.089159, 0.09465, 0.10915], atol=1e-9)


def test_parallel_axes_give_link_lengths_and_no_offsets():
    rows = km.to_dh(km.load("planar-3r")).table.as_dicts()
    assert all(abs(r["d"]) < 1e-12 and abs(r["alpha"]) < 1e-12 for r in rows)
    np.testing.assert_allclose([r["a"] for r in rows[:2]], [20, 20], atol=1e-9)


axis_choice = st.sampled_from([(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, -1)]) | st.lists(
    st.floats(-1, 1), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 0.1).map(tuple)


@MEDIUM
@given(n=st.integers(1, 6), data=st.data())
def test_random_link_frame_chains_have_an_equivalent_dh_table(n, data):
    """Axes along the frame's own axes (parallel and meeting axes, the special cases) or in
    random directions; revolute or prismatic; random offsets and rotations between frames."""
    rows = []
    for _ in range(n):
        R = data.draw(rotations())
        rows.append({"xyz": tuple(data.draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3))),
                     "rotation": R.tolist(), "axis": data.draw(axis_choice),
                     "type": data.draw(st.sampled_from(["revolute", "revolute", "prismatic"]))})
    robot = km.from_link_frames(rows, limits=[[-3, 3]] * n)
    same_fk(robot, km.to_dh(robot), 1e-9)
    same_fk(robot, km.to_dh(robot, "mdh"), 1e-9)


def test_nearly_parallel_axes_are_exact_not_swapped_for_parallel_ones():
    """Found by Hypothesis in CI: two z axes 2.4e-7 rad apart. The closest points come from
    u0 × u1 (1 − (u0·u1)² cancels to nothing there), so the table stays exact to ε·|d|."""
    rows = [{"rotation": [[-1, 0, 0], [0, 0.6, 0.8], [0, 0.8, -0.6]]},
            {"xyz": (0, 1, 0), "rotation": [[-1, 0, 0], [0, -1, 2.38418579e-07], [0, 2.38418579e-07, 1]]}]
    robot = km.from_link_frames(rows, limits=[[-3, 3]] * 2)
    same_fk(robot, km.to_dh(robot), 1e-12)
    same_fk(robot, km.to_dh(robot, "mdh"), 1e-12)


@pytest.mark.parametrize("tilt", [2e-8, 9e-10])
def test_nearly_parallel_axes_give_frames_square_to_rounding(tilt):
    """Found by Hypothesis at tilt 2e-8: axes 1 and 2 that far apart in angle, 1 apart (their
    common normal ~1/tilt away), axis 3 on axis 2. u0 × u1 taken plainly has ~ε absolute error,
    so x_1 = its unit vector was out of square with z_1 by 1.7e-11 and, 5e7 from the base, the
    table's FK missed by 1.06e-4; from u0 × (u1 − u0) the miss is ~3e-8, a few ε·|d| (same_fk's
    allowance). At 9e-10 the axes were taken as parallel, the FK off by 1.6e-9: they are not."""
    half_turn = 2 * np.outer([8, 1, 4], [8, 1, 4]) / 81 - np.eye(3)  # the drawn rotation (w = 0)
    c, s = np.cos(tilt), np.sin(tilt)
    rows = [{"rotation": half_turn.tolist()},
            {"xyz": (0, 1, 0), "rotation": [[-1, 0, 0], [0, -c, s], [0, s, c]]},
            {"rotation": np.eye(3).tolist()}]
    robot = km.from_link_frames(rows, limits=[[-3, 3]] * 3)
    for convention in ("dh", "mdh"):
        dh = km.to_dh(robot, convention)
        far = max([abs(r["d"]) for r in dh.table.as_dicts()] + [np.abs(dh.base[:3, 3]).max()])
        assert far > 0.1 / tilt  # the exact table, its normal ~1/tilt away
        same_fk(robot, dh, 1e-12)


def test_show_prints_the_equivalent_table(capsys):
    from cli_run import run

    code, out, _ = run(capsys, "show", "ur5", "--dh")
    assert code == 0 and "ur5-dh" in out and "standard DH" in out
    code, out, _ = run(capsys, "show", "ur5", "--mdh")
    assert code == 0 and "ur5-mdh" in out and "modified DH" in out
