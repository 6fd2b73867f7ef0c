"""Helical (screw) joints: a revolute joint with a pitch h that also slides h·θ along its axis
(*Modern Robotics*' screw of finite pitch), through FK, Jacobians, dynamics, IK and files.

Oracles: the book's own code (`modern_robotics`: its FKinSpace docstring robot has a screw of
pitch 0.1), finite differences of FK, and Pinocchio's `JointModelHelicalUnaligned`.
Tolerances: products of a few unit-size transforms agree to a few ε·n ≈ 1e-15 (1e-12 leaves
room for other BLAS builds, far below a wrong sign or pitch, ≥ 1e-3); central differences at
step 1e-6 err by ~h²·|T'''| + ε/h ≈ 1e-10 (1e-7 allowed); dynamics against Pinocchio to 1e-10
relative, as tests/test_dynamics.py states for the same algorithms.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinematica as km
from kinematica.dynamics.params import link_params
from kinematica.ik.analytic import has_analytic
from kinematica.kinematics.derivative import jacobian_derivative
from kinematica.model.inertial import Inertial
from kinematica.model.poe import adjoint

mr = pytest.importorskip("modern_robotics")

# The FKinSpace / FKinBody docstring example of the modern_robotics package: joint 3 is a screw
# (ω = (0, 0, −1), v = (−6, 0, −0.1): pitch ω·v = 0.1 m/rad).
M = np.array([[-1, 0, 0, 0], [0, 1, 0, 6], [0, 0, -1, 2], [0, 0, 0, 1.0]])
S = np.array([[0, 0, 1, 4, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, -1, -6, 0, -0.1]], dtype=float)
THETA = np.array([np.pi / 2, 3, np.pi])
B = S @ np.linalg.inv(adjoint(M)).T
BOOK = km.from_poe(M, S, name="mr-docstring")
# MatrixExp6 takes |θ| < 1e-6 for zero (its NearZero test): ask the oracle only where it is exact
angles = st.lists(st.floats(-2 * np.pi, 2 * np.pi).filter(lambda x: x == 0 or abs(x) > 1e-5),
                  min_size=3, max_size=3).map(np.array)


def test_the_books_docstring_robot_has_a_helical_third_joint():
    assert BOOK.helical.tolist() == [False, False, True] and BOOK.pitch[2] == pytest.approx(0.1)
    assert repr(BOOK).endswith("3 joints RPH, unit m)")
    assert BOOK.wraps.tolist() == [True, False, False]  # 2π on joint 3 moves it 0.2π m


def test_fkinspace_and_fkinbody_docstring_poses():
    np.testing.assert_allclose(km.fk(BOOK, THETA), mr.FKinSpace(M, S.T, THETA), atol=1e-12)
    # the docstring's printed answer, to its 4 decimals
    np.testing.assert_allclose(km.fk(BOOK, THETA), [[0, 1, 0, -5], [1, 0, 0, 4], [0, 0, -1, 1.6858],
                                                    [0, 0, 0, 1]], atol=1e-4)
    body = km.from_poe(M, B, "body")
    np.testing.assert_allclose(km.fk(body, THETA), mr.FKinBody(M, B.T, THETA), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(angles)
def test_fk_and_jacobians_match_the_book_anywhere(th):
    np.testing.assert_allclose(km.fk(BOOK, th), mr.FKinSpace(M, S.T, th), atol=1e-12)
    np.testing.assert_allclose(km.jacobian(BOOK, th, "space"), mr.JacobianSpace(S.T, th), atol=1e-12)
    np.testing.assert_allclose(km.jacobian(BOOK, th, "body"), mr.JacobianBody(B.T, th), atol=1e-12)


def test_batch_single_and_frames_agree():
    Q = np.random.default_rng(3).uniform(-4, 4, (40, 3))  # 40 > the single-call cut-off: the batch pass
    T, J = km.fk(BOOK, Q), km.jacobian(BOOK, Q)
    for k in (0, 17, 39):
        np.testing.assert_allclose(T[k], km.fk(BOOK, Q[k]), atol=1e-13)
        np.testing.assert_allclose(J[k], km.jacobian(BOOK, Q[k]), atol=1e-13)
    np.testing.assert_allclose(km.fk_frames(BOOK, Q)[:, -1], T, atol=1e-13)


def test_screw_axes_round_trip():
    M2, S2 = km.screw_axes(BOOK)
    np.testing.assert_allclose(M2, M, atol=1e-14)
    np.testing.assert_allclose(S2, S, atol=1e-14)
    again = km.from_poe(*km.screw_axes(BOOK, "body"), "body")
    np.testing.assert_allclose(again.pitch, BOOK.pitch, atol=1e-14)
    Q = np.random.default_rng(0).uniform(-3, 3, (20, 3))
    np.testing.assert_allclose(km.fk(again, Q), km.fk(BOOK, Q), atol=1e-12)


def random_helical_robot(rng: np.random.Generator, unit: str = "m", n: int = 5) -> km.Robot:
    """A DH chain with revolute, prismatic and helical joints, random lengths and inertials."""
    L = 1.0 if unit == "m" else 1000.0
    rows, inert = [], []
    for i in range(n):
        kind = ("helical", "revolute", "prismatic")[i % 3] if i else "helical"
        rows.append({"a": rng.uniform(-1, 1) * L, "d": rng.uniform(-1, 1) * L, "alpha": rng.uniform(-3, 3),
                     "theta": rng.uniform(-3, 3), "type": kind}
                    | ({"pitch": rng.uniform(-0.3, 0.3) * L} if kind == "helical" else {}))
        A = rng.normal(size=(3, 3))
        inert.append(Inertial(rng.uniform(0.1, 5), rng.normal(size=3) * 0.3 * L, (A @ A.T + np.eye(3)) * L * L))
    base = km.spatial.homogeneous(km.spatial.rpy_to_matrix(rng.normal(size=3)), rng.normal(size=3) * L)
    return km.from_dh(rows, length_unit=unit, base=base, meta={"inertials": tuple(inert)})


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["m", "mm"]))
def test_jacobian_against_finite_differences(seed, unit):
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit)
    q, h = rng.uniform(-3, 3, robot.n), 1e-6
    J = km.jacobian(robot, q)
    scale = max(1.0, float(np.abs(J).max()))
    for i in range(robot.n):
        dq = np.zeros(robot.n)
        dq[i] = h
        Tp, Tm = km.fk(robot, q + dq), km.fk(robot, q - dq)
        v = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        W = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h) @ km.fk(robot, q)[:3, :3].T  # [ω]×
        assert np.abs(v - J[:3, i]).max() <= 1e-7 * scale
        assert np.abs([W[2, 1], W[0, 2], W[1, 0]] - J[3:, i]).max() <= 1e-7
    np.testing.assert_allclose(jacobian_derivative(robot, q), J, atol=1e-12 * scale)


def pin_model(robot: km.Robot) -> pin.Model:
    """Pinocchio's model of our canonical chain (as tests/test_dynamics.py builds it), a helical
    joint as Pinocchio's own JointModelHelicalUnaligned about z with the pitch in m/rad."""
    p = link_params(robot)
    model, parent = pin.Model(), 0
    for i in range(robot.n):
        X = robot.base @ robot.before[0] if i == 0 else robot.after[i - 1] @ robot.before[i]
        if robot.helical[i]:
            joint = pin.JointModelHelicalUnaligned(np.array([0.0, 0.0, 1.0]), robot.pitch[i] * p.scale)
        else:
            joint = pin.JointModelRZ() if robot.revolute[i] else pin.JointModelPZ()
        parent = model.addJoint(parent, joint, pin.SE3(X[:3, :3], X[:3, 3] * p.scale), f"j{i}")
        A = robot.after[i]
        com = A[:3, :3] @ p.com[i] + A[:3, 3] * p.scale
        model.appendBodyToJoint(parent, pin.Inertia(p.mass[i], com, A[:3, :3] @ p.inertia[i] @ A[:3, :3].T),
                                pin.SE3.Identity())
    return model


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["m", "mm"]))
def test_dynamics_match_pinocchios_helical_joint(seed, unit):
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng, unit)
    model = pin_model(robot)
    data, g = model.createData(), model.gravity.linear
    si = np.where(robot.revolute, 1.0, link_params(robot).scale)
    q, qd, qdd = rng.normal(size=(3, robot.n))
    qp = (q + robot.offsets) * si
    ref = pin.rnea(model, data, qp, qd * si, qdd * si)
    tol = 1e-10 * max(1.0, np.abs(ref).max())
    np.testing.assert_allclose(km.rne(robot, q, qd, qdd, gravity=g), ref, atol=tol)
    batch = km.rne(robot, np.tile(q, (40, 1)), np.tile(qd, (40, 1)), np.tile(qdd, (40, 1)), gravity=g)
    np.testing.assert_allclose(batch, np.tile(ref, (40, 1)), atol=tol)  # the vectorised program
    Mp = pin.crba(model, data, qp)
    Mp = np.triu(Mp) + np.triu(Mp, 1).T
    np.testing.assert_allclose(km.mass_matrix(robot, q), Mp, atol=1e-10 * np.abs(Mp).max())
    tau = km.rne(robot, q, qd, qdd, gravity=g)  # forward dynamics inverts it
    # the LDLᵀ solve loses ~ε·κ(M) relative: 1e-12·κ allows for it
    np.testing.assert_allclose(km.forward_dynamics(robot, q, qd, tau, gravity=g), qdd,
                               atol=1e-12 * np.linalg.cond(Mp) * max(1.0, np.abs(qdd).max()))


def test_ik_solves_a_helical_robot_and_does_not_wrap_the_screw():
    # joint 3 limited to [0, 4π]: its solution θ = 3π must not be "wrapped" to π, which would
    # move the tool 0.2π m along the screw
    robot = BOOK.replace(limits=[[-np.pi, np.pi], [-5, 5], [0, 4 * np.pi]])
    q = np.array([0.5, 1.0, 3 * np.pi])
    res = km.ik(robot, km.fk(robot, q), q0=[0.4, 0.9, 3 * np.pi - 0.2])
    assert res.success and abs(res.q[2] - 3 * np.pi) < 1e-6
    np.testing.assert_allclose(km.fk(robot, res.q), km.fk(robot, q), atol=1e-6)
    batch = km.ik(robot, np.stack([km.fk(robot, q)] * 8), seed=1)
    assert batch.success.all()
    assert np.abs(km.fk(robot, batch.q) - km.fk(robot, q)).max() < 1e-6


def test_closed_forms_urdf_and_the_step_by_step_dynamics_refuse_in_words():
    with pytest.raises(ValueError, match="joint 3 .* is helical .*closed-form"):
        km.ik(BOOK, km.fk(BOOK, THETA), method="analytic")
    assert not has_analytic(BOOK, "pose")
    with pytest.raises(km.RobotError, match="URDF has no helical joint"):
        km.to_urdf(BOOK)


def test_robot_files_carry_the_pitch(tmp_path):
    text = km.model.robotfile.write_text(BOOK)
    assert "helical" in text and "pitch" in text
    back = km.model.robotfile.read_text(text)
    np.testing.assert_allclose(back.pitch, BOOK.pitch)
    Q = np.random.default_rng(1).uniform(-3, 3, (10, 3))
    np.testing.assert_allclose(km.fk(back, Q), km.fk(BOOK, Q), atol=1e-12)
    poe = km.model.robotfile.read_text(
        "name: screw\nkind: poe\nlength_unit: m\nhome_pose: {xyz: [0, 0, 1]}\n"
        "joints:\n  - {type: helical, screw: [0, 0, 1, 0, 0, 0.05]}\n")
    np.testing.assert_allclose(km.fk(poe, [2 * np.pi])[:3, 3], [0, 0, 1 + 0.1 * np.pi], atol=1e-12)


@pytest.mark.parametrize("row, words", [
    ({"type": "helical"}, "helical joint needs a nonzero pitch"),
    ({"type": "prismatic", "pitch": 0.1}, "only a revolute joint can have a pitch"),
    ({"type": "revolute", "pitch": "fine"}, "pitch must be a number"),
])
def test_bad_pitches_are_refused_in_words(row, words):
    with pytest.raises(km.RobotError, match=words):
        km.from_dh([row])


def link_energy(robot: km.Robot, q: np.ndarray, qd: np.ndarray, h: float = 1e-6) -> float:
    """Kinetic energy Σ ½ m |v_c|² + ½ ωᵀ R I Rᵀ ω of the links (a metre robot), from the link
    frames' motion by central differences of FK along q̇ — an oracle that never forms M."""
    Fp, Fm, F = (km.fk_frames(robot, q + s * h * qd)[1:-1] for s in (1, -1, 0))
    energy = 0.0
    for i, inert in enumerate(robot.inertials):
        dF = (Fp[i] - Fm[i]) / (2 * h)
        R = F[i][:3, :3]
        W = dF[:3, :3] @ R.T
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        v = dF[:3, :3] @ inert.com + dF[:3, 3]
        energy += 0.5 * inert.mass * v @ v + 0.5 * w @ R @ inert.inertia @ R.T @ w
    return energy


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_mass_matrix_against_the_links_kinetic_energy(seed):
    """½ q̇ᵀ M q̇ equals the links' kinetic energy from their frames' motion (central differences
    err by ~h²·|T'''| ≈ 1e-12 relative; 1e-7 allowed)."""
    rng = np.random.default_rng(seed)
    robot = random_helical_robot(rng)
    q, qd = rng.uniform(-3, 3, robot.n), rng.normal(size=robot.n)
    e = link_energy(robot, q, qd)
    assert 0.5 * qd @ km.mass_matrix(robot, q) @ qd == pytest.approx(e, rel=1e-7)


def test_the_closed_form_chain_has_the_slide():
    import sympy as sp

    from kinematica.explain import explain
    from kinematica.explain.symbolic import chain, jacobian_symbolic

    ch = chain(BOOK)
    assert ch.T[2, 3].free_symbols == {ch.q[2]}  # z = 2 − θ3/10: the screw's slide
    q = np.array([0.3, 0.5, 0.7])
    np.testing.assert_allclose(np.array(sp.lambdify([ch.q], ch.T)(q), float), km.fk(BOOK, q), atol=1e-12)
    J = np.array(sp.lambdify([ch.q], jacobian_symbolic(BOOK))(q), float)
    np.testing.assert_allclose(J, km.jacobian(BOOK, q), atol=1e-12)
    with pytest.raises(ValueError, match="helical"):
        explain(random_helical_robot(np.random.default_rng(0)), "dynamics", q=np.zeros(5))


def test_a_screw_about_z_makes_a_planar_arm_spatial():
    rows = [{"a": 1.0}, {"a": 1.0}]
    assert km.task_rows(km.from_dh(rows)) == "planar"
    screw = km.from_dh([{"a": 1.0, "type": "helical", "pitch": 0.1}, {"a": 1.0}])
    assert km.task_rows(screw) == "position"  # the tool rises 0.1 per rad: not in a plane
    assert km.fk(screw, [1.0, 0.0])[2, 3] == pytest.approx(0.1, abs=1e-15)


def test_the_regressor_is_linear_in_a_helical_robots_parameters():
    from kinematica.dynamics.regressor import inertial_parameters

    robot = random_helical_robot(np.random.default_rng(4))
    q, qd, qdd = np.random.default_rng(1).normal(size=(3, robot.n))
    tau = km.rne(robot, q, qd, qdd, friction=False)
    # ten parameters a link, each column one rne: the sum agrees to ε·Σ|terms|
    np.testing.assert_allclose(km.regressor(robot, q, qd, qdd) @ inertial_parameters(robot), tau,
                               atol=1e-12 * max(1.0, np.abs(tau).max()))


def test_the_gltf_twin_turns_and_slides_the_screw():
    pytest.importorskip("pygltflib")
    from test_export_gltf import read, world_of

    robot = BOOK.replace(limits=[[-3, 3], [-5, 5], [-7, 7]])
    tr = km.trajectory.quintic([0.0, 0.0, 0.0], [1.0, 2.0, 6.0], duration=2.0, steps=9, robot=robot)
    doc, data = read(km.export.to_glb(robot, tr))
    (anim,) = doc.animations
    assert len(anim.channels) == 4  # joint 3 has a rotation and a translation channel
    for k in range(len(tr.t)):
        overrides: dict = {}
        for ch in anim.channels:
            overrides.setdefault(ch.target.node, {})[ch.target.path] = data(anim.samplers[ch.sampler].output)[k]
        T, want = world_of(doc, "tool", overrides), km.fk(robot, tr.q[k])
        np.testing.assert_allclose(T[:3, 3], want[:3, 3], atol=1e-5)  # float32 of lengths ~6
        np.testing.assert_allclose(T[:3, :3], want[:3, :3], atol=1e-6)


def test_the_command_line_shows_the_pitch_and_refuses_in_one_line(capsys, tmp_path):
    from cli_run import run, run_json

    path = tmp_path / "book.yaml"
    km.save(BOOK, path)
    data = run_json(capsys, "show", str(path))
    assert data["pitch"] == pytest.approx([0, 0, 0.1])
    fk = run_json(capsys, "fk", str(path), *map(str, THETA))
    np.testing.assert_allclose(fk["position"], mr.FKinSpace(M, S.T, THETA)[:3, 3], atol=1e-12)
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0 and "3 joints RPH" in out and "q3 0.1 m/rad" in out
    for argv, words in ((["show", str(path), "--dh"], "is helical"),
                        (["ik", str(path), "--position", "-5", "4", "1.6858", "--method", "analytic"],
                         "closed-form solvers assume revolute and prismatic joints only")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, err
