"""Singularity verdicts: singular / near / regular, the kind, and the sentence for people."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import brentq

import kinematica as km

KUKA = km.load("kuka-kr6-r900")
SENTENCE = re.compile(r"^(singular \(rank \d+ of \d+, det\(J Jᵀ\) = [^)]+\)|near a singularity \(σ_min/σ_max = "
                      r"[^)]+\)|regular \(σ_min/σ_max = [^)]+\))(: (wrist|shoulder|elbow) — [a-z].*[a-z0-9]"
                      r"|: kind not recognised)?$")


def assert_sentence(s: km.Singularity) -> None:
    assert isinstance(s.message, str)
    assert SENTENCE.match(s.message), s.message
    for junk in ("None", "[", "array", "nan"):
        assert junk not in s.message, s.message
    if s.kind:
        assert f": {s.kind} — " in s.message


def test_arm_4dof_stretched_out_is_an_elbow_singularity():
    s = km.singularity(km.load("arm-4dof"), [0, 0, 0, 0])
    assert s.singular and not s.near
    assert s.kind == "elbow"
    assert "stretched out" in s.message
    assert s.message == "singular (rank 2 of 3, det(J Jᵀ) = 0): elbow — the arm is stretched out at joint 3"
    assert s.jacobian.rows == "position" and s.jacobian.rank == 2
    assert_sentence(s)


def test_kuka_home_is_a_wrist_singularity():
    s = km.singularity(KUKA, np.zeros(6))  # paper 004's home pose: θ5 = 0
    assert s.singular and not s.near
    assert s.kind == "wrist"
    assert "joints 4 and 6" in s.message
    assert s.jacobian.rank == 5 and s.jacobian.det_JJT == pytest.approx(0, abs=1e-20)
    assert_sentence(s)


def test_kuka_with_bent_wrist_is_regular():
    s = km.singularity(KUKA, [0, 0, 0, 0, 0.5, 0])
    assert not s.singular and not s.near
    assert s.kind is None
    assert s.message.startswith("regular")
    assert s.jacobian.rank == 6 and s.jacobian.det_JJT > 0
    assert_sentence(s)


def test_kuka_home_is_regular_for_position_only():
    s = km.singularity(KUKA, np.zeros(6), rows="position")
    assert not s.singular and s.jacobian.rows == "position"


@pytest.mark.parametrize("q5", [1e-4, 1e-5, 1e-6])
def test_small_wrist_bend_is_near_a_wrist_singularity(q5):
    s = km.singularity(KUKA, [0.3, -0.2, 0.4, 0.1, q5, 0.2])
    assert s.near and not s.singular
    assert s.kind == "wrist"
    assert s.message.startswith("near a singularity")
    assert_sentence(s)


def test_near_threshold_is_respected():
    q = [0.3, -0.2, 0.4, 0.1, 1e-2, 0.2]
    ratio = km.singular_values(km.jacobian(KUKA, q))
    ratio = ratio[-1] / ratio[0]
    assert km.singularity(KUKA, q, near=ratio * 2).near
    assert not km.singularity(KUKA, q, near=ratio / 2).near


def test_kuka_wrist_centre_on_axis_1_is_a_shoulder_singularity():
    q1 = 0.2
    along = np.array([-np.sin(q1), np.cos(q1), 0.0])  # the arm's horizontal reach direction

    def reach(q3):
        return km.fk_frames(KUKA, [q1, 0.3, q3, 0.4, 0.7, -0.3])[5, :3, 3] @ along  # wrist centre

    q3 = brentq(reach, 0.6, 1.1, xtol=1e-15)
    q = np.array([q1, 0.3, q3, 0.4, 0.7, -0.3])
    assert KUKA.within_limits(q)
    w = km.fk_frames(KUKA, q)[5, :3, 3]
    assert np.hypot(w[0], w[1]) < 1e-12  # on the z axis of joint 1
    s = km.singularity(KUKA, q)
    assert s.singular
    assert s.kind == "shoulder"
    assert "the wrist centre lies on the axis of joint 1" in s.message
    assert_sentence(s)
    # away from the axis it is regular again
    q_off = q + np.array([0, 0, 0.1, 0, 0, 0])
    assert not km.singularity(KUKA, q_off).singular


def test_planar_3r_with_straight_elbow():
    r = km.load("planar-3r")
    s = km.singularity(r, [0.5, 0.0, 0.3])
    assert km.task_rows(r) == "planar"
    assert s.singular and s.kind == "elbow"
    assert "stretched out at joint 2" in s.message
    assert_sentence(s)
    assert not km.singularity(r, [0.5, 0.6, 0.3]).singular


def test_planar_folded_back_elbow():
    r = km.load("planar-3r")
    assert not r.within_limits([0.5, np.pi, 0.3])  # θ2 = π is outside the bundled limits
    r = km.from_planar([20, 10, 15])  # no limits, unequal links: joint 3 stays off axis 1
    s = km.singularity(r, [0.5, np.pi, 0.3])
    assert s.singular and s.kind == "elbow"
    assert "folded back at joint 2" in s.message
    assert_sentence(s)


def test_planar_near_elbow():
    s = km.singularity(km.from_planar([20, 10, 15]), [0.5, 1e-5, 0.3])
    assert s.near and not s.singular and s.kind == "elbow"
    assert_sentence(s)


def test_every_verdict_on_random_configurations_is_a_sentence():
    rng = np.random.default_rng(11)
    for name in ("kuka-kr6-r900", "arm-4dof", "arm-5dof", "planar-3r"):
        r = km.load(name)
        lo, hi = np.maximum(r.limits[:, 0], -np.pi), np.minimum(r.limits[:, 1], np.pi)
        for q in lo + rng.random((10, r.n)) * (hi - lo):
            s = km.singularity(r, q)
            assert_sentence(s)
            assert s.singular == (s.jacobian.rank < s.jacobian.J.shape[0])
            assert not (s.singular and s.near)


def test_bad_input():
    with pytest.raises(ValueError, match=r"\(6,\)"):
        km.singularity(KUKA, np.zeros((2, 6)))
    with pytest.raises(ValueError, match=r"\(\.\.\., 6\)"):
        km.singularity(KUKA, np.zeros(5))
    with pytest.raises(ValueError, match="NaN"):
        km.singularity(KUKA, [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match="rows must be one of"):
        km.singularity(KUKA, np.zeros(6), rows="everything")
