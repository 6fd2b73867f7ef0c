"""Product-of-exponentials robots and screw axes, against the Modern Robotics library
(`modern_robotics`, the book's own code: FKinSpace/FKinBody, JacobianSpace/JacobianBody).

Tolerances: every quantity here is a product of six 4x4 rigid transforms of unit size (the
UR5 of Example 4.5 is under 1 m) evaluated two ways, so they agree to a few ε·n ≈ 1e-15; 1e-12
leaves room for other CPUs and BLAS builds without hiding a wrong axis or sign (≥ 1e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematica as km

from strategies import MEDIUM

mr = pytest.importorskip("modern_robotics")

# Modern Robotics, Example 4.5: the UR5 in the space frame (lengths in m).
W1, W2, L1, L2, H1, H2 = 0.109, 0.082, 0.425, 0.392, 0.089, 0.095
M = np.array([[-1, 0, 0, L1 + L2], [0, 0, 1, W1 + W2], [0, 1, 0, H1 - H2], [0, 0, 0, 1.0]])
S = np.array([[0, 0, 1, 0, 0, 0], [0, 1, 0, -H1, 0, 0], [0, 1, 0, -H1, 0, L1], [0, 1, 0, -H1, 0, L1 + L2],
              [0, 0, -1, -W1, L1 + L2, 0], [0, 1, 0, H2 - H1, 0, L1 + L2]], dtype=float)
B = S @ mr.Adjoint(mr.TransInv(M)).T  # the body screws, B_i = Ad_{M⁻¹} S_i
UR5 = km.from_poe(M, S, name="ur5-poe")
# The book's MatrixExp6 takes any |θ| < 1e-6 for zero (its NearZero test), an error of up to
# 1e-6·|axis offset| there; ours is exact, so the oracle is asked only where it is too.
angles = st.lists(st.floats(-2 * np.pi, 2 * np.pi).filter(lambda x: x == 0 or abs(x) > 1e-5),
                  min_size=6, max_size=6).map(np.array)


def test_example_4_5_pose_as_printed_in_the_book():
    # the book prints T(θ) for θ = (0, −π/2, 0, 0, π/2, 0) to three decimals
    T = km.fk(UR5, [0, -np.pi / 2, 0, 0, np.pi / 2, 0])
    book = np.array([[0, -1, 0, 0.095], [1, 0, 0, 0.109], [0, 0, 1, 0.988], [0, 0, 0, 1]])
    np.testing.assert_allclose(T, book, atol=5e-4)


@MEDIUM
@given(q=angles)
def test_space_form_matches_fkinspace_and_its_jacobians(q):
    np.testing.assert_allclose(km.fk(UR5, q), mr.FKinSpace(M, S.T, q), atol=1e-12)
    np.testing.assert_allclose(km.jacobian(UR5, q, "space"), mr.JacobianSpace(S.T, q), atol=1e-12)
    np.testing.assert_allclose(km.jacobian(UR5, q, "body"), mr.JacobianBody(B.T, q), atol=1e-12)


@MEDIUM
@given(q=angles)
def test_body_form_matches_fkinbody(q):
    robot = km.from_poe(M, B, "body")
    np.testing.assert_allclose(km.fk(robot, q), mr.FKinBody(M, B.T, q), atol=1e-12)


def test_screw_axes_of_the_poe_robot_are_the_ones_it_was_built_from():
    M0, S0 = km.screw_axes(UR5)
    np.testing.assert_allclose(M0, M, atol=1e-12)
    np.testing.assert_allclose(S0, S, atol=1e-12)
    np.testing.assert_allclose(km.screw_axes(UR5, "body")[1], B, atol=1e-12)


def test_jacobian_forms_relate_as_the_book_says():
    """J_s = Ad_T · J_b, and the default (v; ω at the tool) differs from J_s by the reference
    point: v_tool = v_s + ω × p."""
    q = np.array([0.3, -1.1, 0.7, 0.2, 1.4, -0.5])
    T = km.fk(UR5, q)
    Js, Jb, J = (km.jacobian(UR5, q, f) for f in ("space", "body", "base"))
    np.testing.assert_allclose(Js, mr.Adjoint(T) @ Jb, atol=1e-12)
    np.testing.assert_allclose(J[3:], Js[:3], atol=1e-12)
    np.testing.assert_allclose(J[:3], Js[3:] + np.cross(Js[:3].T, T[:3, 3]).T, atol=1e-12)


@pytest.mark.parametrize("name", km.robot_names())
def test_every_bundled_robot_round_trips_through_its_screws(name):
    robot = km.load(name)
    rebuilt = km.from_poe(*km.screw_axes(robot), length_unit=robot.length_unit)
    Q = np.random.default_rng(7).uniform(-np.pi, np.pi, (40, robot.n))
    T0, T1 = km.fk(robot, Q), km.fk(rebuilt, Q)
    scale = max(1.0, float(np.abs(T0[..., :3, 3]).max()))  # mm robots: compare relative to their size
    assert np.abs(T1 - T0).max() / scale < 1e-12
    np.testing.assert_allclose(km.jacobian(rebuilt, Q, "space"), km.jacobian(robot, Q, "space"), atol=1e-12 * scale)


def test_ik_on_a_poe_robot_is_confirmed_by_the_books_fk():
    rng = np.random.default_rng(3)
    q = rng.uniform(-np.pi, np.pi, (30, 6))
    res = km.ik(UR5, km.fk(UR5, q), q0="random", seed=2)
    assert res.success.all()
    for qi, Ti in zip(res.q, km.fk(UR5, q)):  # an independent FK: the book's code
        assert np.linalg.norm(mr.FKinSpace(M, S.T, qi)[:3, 3] - Ti[:3, 3]) < 1e-6


def test_prismatic_screws():
    # a Cartesian x-y gantry: two prismatic axes, the tool 1 m above
    Mg = np.eye(4)
    Mg[2, 3] = 1.0
    robot = km.from_poe(Mg, [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0]])
    np.testing.assert_allclose(km.fk(robot, [0.3, -0.2])[:3, 3], [0.3, -0.2, 1.0], atol=1e-15)
    np.testing.assert_allclose(km.screw_axes(robot)[1], [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0]], atol=1e-15)


@pytest.mark.parametrize("screws, words", [
    ([[0, 0, 2, 0, 0, 0]], "unit ω"),
    ([[0, 0, 0, 0, 0, 3]], "unit v"),
    ([[0, 0, 1, 0, 0]], "shape"),
    ([[0, 0, 1, np.nan, 0, 0]], "finite"),
])
def test_bad_screws_are_refused_in_words(screws, words):
    with pytest.raises(km.RobotError, match=words):
        km.from_poe(np.eye(4), screws)


def test_bad_home_pose_and_form_are_refused():
    with pytest.raises(km.RobotError, match="orthonormal"):
        km.from_poe(np.diag([2.0, 1, 1, 1]), S)
    with pytest.raises(km.RobotError, match="form"):
        km.from_poe(M, S, "world")
    with pytest.raises(ValueError, match="form"):
        km.screw_axes(UR5, "world")
    with pytest.raises(ValueError, match="frame"):
        km.jacobian(UR5, np.zeros(6), "spatial")


def test_cli_prints_the_space_jacobian_in_the_books_row_order(capsys):
    from cli_run import run, run_json

    q = ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6"]
    data = run_json(capsys, "jacobian", "ur5", *q, "--frame", "space")
    Js = km.jacobian(km.load("ur5"), [float(x) for x in q], "space")
    np.testing.assert_allclose(np.array(data["J"]), Js, atol=1e-12)
    code, out, _ = run(capsys, "jacobian", "ur5", *q, "--frame", "body")
    assert code == 0 and "rows (ω; v) as in Modern Robotics" in out


UR5_FILE = """\
name: ur5-poe
description: Modern Robotics, Example 4.5
kind: poe
length_unit: m
angle_unit: deg
home_pose: {rotation: [[-1, 0, 0], [0, 0, 1], [0, 1, 0]], xyz: [0.817, 0.191, -0.006]}
joints:
  - {name: j1, screw: [0, 0, 1, 0, 0, 0], limits: [-360, 360]}
  - {name: j2, screw: [0, 1, 0, -0.089, 0, 0]}
  - {name: j3, screw: [0, 1, 0, -0.089, 0, 0.425]}
  - {name: j4, screw: [0, 1, 0, -0.089, 0, 0.817]}
  - {name: j5, screw: [0, 0, -1, -0.109, 0.817, 0]}
  - {name: j6, screw: [0, 1, 0, 0.006, 0, 0.817]}
"""


def test_a_poe_robot_file_reads_and_saves(tmp_path):
    path = tmp_path / "ur5.yaml"
    path.write_text(UR5_FILE)
    robot = km.load(path)
    q = np.random.default_rng(5).uniform(-3, 3, (20, 6))
    np.testing.assert_allclose(km.fk(robot, q), km.fk(UR5, q), atol=1e-12)
    np.testing.assert_allclose(robot.limits[0], np.radians([-360, 360]), atol=1e-12)
    km.save(robot, tmp_path / "back.yaml")  # written as link frames, the form it is built in
    np.testing.assert_allclose(km.fk(km.load(tmp_path / "back.yaml"), q), km.fk(robot, q), atol=1e-12)


@pytest.mark.parametrize("change, words", [
    (("home_pose: {rotation", "tool: {rotation"), "home_pose"),
    (("screw: [0, 0, 1, 0, 0, 0], ", ""), "needs 'screw'"),
    (("[0, 0, -1, -0.109, 0.817, 0]", "[0, 0, -1, -0.109, 0.817]"), "screw"),
    (("{name: j6, screw: [0, 1, 0, 0.006, 0, 0.817]}", "{name: j6, type: revolute, screw: [0, 1, 0, 0.006, 0.5, 0.817]}"),
     "type revolute but its screw has pitch"),  # a screw of pitch 0.5 m/rad is helical
    (("{name: j1,", "{name: j1, type: helical,"), "type helical but its screw has pitch ω·v = 0"),
    (("{name: j1,", "{name: j1, type: prismatic,"), "type prismatic but its screw is revolute"),
])
def test_bad_poe_files_name_the_problem(tmp_path, change, words):
    path = tmp_path / "bad.yaml"
    path.write_text(UR5_FILE.replace(*change))
    with pytest.raises(km.RobotFileError, match=words):
        km.load(path)
