"""spatial.py: rotations, transforms, rpy, skew, axis_to_z — properties and stacked shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from kinematica import spatial
from strategies import FAST, MEDIUM, rigid_transforms, rotations

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
vec3 = st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3).map(np.array)


def orthonormal(R: np.ndarray, tol: float = 1e-12) -> bool:
    eye = np.swapaxes(R, -1, -2) @ R
    return bool(np.all(np.abs(eye - np.eye(3)) < tol) and np.all(np.abs(np.linalg.det(R) - 1) < tol))


# --- elementary rotations ----------------------------------------------------------------
@MEDIUM
@given(angle=finite, f=st.sampled_from([spatial.rotx, spatial.roty, spatial.rotz]))
def test_elementary_rotations_are_rigid(angle, f):
    T = f(angle)
    assert T.shape == (4, 4)
    assert orthonormal(T[:3, :3])
    np.testing.assert_array_equal(T[3], [0, 0, 0, 1])
    np.testing.assert_array_equal(T[:3, 3], 0)


@MEDIUM
@given(angle=st.floats(-10, 10, allow_nan=False))
def test_elementary_rotations_match_scipy(angle):
    for f, ax in ((spatial.rotx, "x"), (spatial.roty, "y"), (spatial.rotz, "z")):
        ref = Rotation.from_euler(ax, angle).as_matrix()
        np.testing.assert_allclose(f(angle)[:3, :3], ref, atol=1e-14)


def test_rotx_quarter_turn():
    np.testing.assert_allclose(spatial.rotx(np.pi / 2)[1:3, 1:3], [[0, -1], [1, 0]], atol=1e-16)
    np.testing.assert_allclose(spatial.rotz(np.pi / 2)[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-16)
    np.testing.assert_allclose(spatial.roty(np.pi / 2)[:3, :3] @ [0, 0, 1], [1, 0, 0], atol=1e-16)


def test_rotations_carry_batch_shape():
    a = np.linspace(-3, 3, 15).reshape(5, 3)
    for f in (spatial.rotx, spatial.roty, spatial.rotz):
        T = f(a)
        assert T.shape == (5, 3, 4, 4)
        np.testing.assert_allclose(T[2, 1], f(a[2, 1]), atol=0)
        assert orthonormal(T[..., :3, :3])


# --- translations and packing ------------------------------------------------------------
def test_trans_broadcasts_and_transl_matches():
    T = spatial.trans(x=np.arange(4.0), z=2.0)
    assert T.shape == (4, 4, 4)
    np.testing.assert_array_equal(T[:, 0, 3], np.arange(4.0))
    np.testing.assert_array_equal(T[:, 2, 3], 2.0)
    np.testing.assert_array_equal(T[:, :3, :3], np.broadcast_to(np.eye(3), (4, 3, 3)))
    p = np.arange(24.0).reshape(2, 4, 3)
    Tp = spatial.transl(p)
    assert Tp.shape == (2, 4, 4, 4)
    np.testing.assert_array_equal(Tp[..., :3, 3], p)
    np.testing.assert_array_equal(spatial.transl([1, 2, 3]), spatial.trans(1, 2, 3))


def test_homogeneous_broadcasts_rotation_over_points():
    R = spatial.rotz(0.3)[:3, :3]
    p = np.arange(12.0).reshape(4, 3)
    T = spatial.homogeneous(R, p)
    assert T.shape == (4, 4, 4)
    np.testing.assert_array_equal(T[:, :3, :3], np.broadcast_to(R, (4, 3, 3)))
    np.testing.assert_array_equal(T[:, :3, 3], p)
    np.testing.assert_array_equal(T[:, 3], np.broadcast_to([0, 0, 0, 1.0], (4, 4)))


# --- inverse ------------------------------------------------------------------------------
@MEDIUM
@given(T=rigid_transforms())
def test_inverse_of_rigid_transform(T):
    np.testing.assert_allclose(spatial.inv(T) @ T, np.eye(4), atol=1e-14)
    np.testing.assert_allclose(T @ spatial.inv(T), np.eye(4), atol=1e-14)
    np.testing.assert_allclose(spatial.inv(T), np.linalg.inv(T), atol=1e-13)


@FAST
@given(Ts=st.lists(rigid_transforms(), min_size=6, max_size=6))
def test_inverse_carries_batch_shape(Ts):
    T = np.array(Ts).reshape(2, 3, 4, 4)
    Ti = spatial.inv(T)
    assert Ti.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(Ti @ T, np.broadcast_to(np.eye(4), T.shape), atol=1e-14)
    np.testing.assert_allclose(Ti[1, 2], spatial.inv(T[1, 2]), atol=0)


# --- rpy ----------------------------------------------------------------------------------
@MEDIUM
@given(r=st.floats(-np.pi + 1e-6, np.pi - 1e-6), p=st.floats(-np.pi / 2 + 1e-3, np.pi / 2 - 1e-3),
       y=st.floats(-np.pi + 1e-6, np.pi - 1e-6))
def test_rpy_round_trip_away_from_gimbal_lock(r, p, y):
    R = spatial.rpy_to_matrix([r, p, y])
    assert R.shape == (3, 3)
    assert orthonormal(R)
    np.testing.assert_allclose(spatial.matrix_to_rpy(R), [r, p, y], atol=1e-9)


@MEDIUM
@given(r=st.floats(-4, 4), p=st.floats(-4, 4), y=st.floats(-4, 4))
def test_rpy_is_urdf_convention_fixed_xyz(r, p, y):
    # R = Rz(yaw) · Ry(pitch) · Rx(roll)
    ref = spatial.rotz(y) @ spatial.roty(p) @ spatial.rotx(r)
    np.testing.assert_allclose(spatial.rpy_to_matrix([r, p, y]), ref[:3, :3], atol=1e-14)
    # and any rpy read back reproduces the same rotation, even past ±π/2 pitch
    back = spatial.matrix_to_rpy(ref[:3, :3])
    np.testing.assert_allclose(spatial.rpy_to_matrix(back), ref[:3, :3], atol=1e-12)


@MEDIUM
@given(rpy=st.lists(st.floats(-7, 7), min_size=3, max_size=3))
def test_rpy_matches_scipy_extrinsic_xyz(rpy):
    """An independent oracle: SciPy's extrinsic x-y-z Euler angles (entries of a product of
    three rotations: rounding ≤ a few ε)."""
    from scipy.spatial.transform import Rotation

    np.testing.assert_allclose(spatial.rpy_to_matrix(rpy), Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)
    batch = np.array([rpy, rpy[::-1]]).reshape(2, 1, 3)
    assert spatial.rpy_to_matrix(batch).shape == (2, 1, 3, 3)


def test_rpy_at_gimbal_lock_still_reproduces_the_rotation():
    for pitch in (np.pi / 2, -np.pi / 2):
        R = spatial.rpy_to_matrix([0.3, pitch, -0.7])
        np.testing.assert_allclose(spatial.rpy_to_matrix(spatial.matrix_to_rpy(R)), R, atol=1e-12)


def test_rpy_carries_batch_shape():
    rpy = np.random.default_rng(1).uniform(-1.2, 1.2, (4, 5, 3))
    R = spatial.rpy_to_matrix(rpy)
    assert R.shape == (4, 5, 3, 3)
    np.testing.assert_allclose(R[3, 2], spatial.rpy_to_matrix(rpy[3, 2]), atol=0)
    back = spatial.matrix_to_rpy(R)
    assert back.shape == (4, 5, 3)
    np.testing.assert_allclose(back, rpy, atol=1e-12)


# --- skew ---------------------------------------------------------------------------------
@MEDIUM
@given(v=vec3, w=vec3)
def test_skew_is_the_cross_product(v, w):
    S = spatial.skew(v)
    np.testing.assert_allclose(S @ w, np.cross(v, w), atol=1e-12)
    np.testing.assert_array_equal(S, -S.T)


def test_skew_carries_batch_shape():
    v = np.random.default_rng(2).normal(size=(3, 4, 3))
    w = np.random.default_rng(3).normal(size=(3, 4, 3))
    S = spatial.skew(v)
    assert S.shape == (3, 4, 3, 3)
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", S, w), np.cross(v, w), atol=1e-14)


# --- is_rotation --------------------------------------------------------------------------
@FAST
@given(R=rotations())
def test_is_rotation_accepts_rotations_and_rejects_reflections(R):
    assert spatial.is_rotation(R)
    assert not spatial.is_rotation(-R)  # det −1
    assert not spatial.is_rotation(2 * R)
    bad = R.copy()
    bad[0, 0] = np.nan
    assert not spatial.is_rotation(bad)
    assert not spatial.is_rotation(R[:2, :2])


# --- axis_to_z ----------------------------------------------------------------------------
@MEDIUM
@given(axis=vec3.filter(lambda a: np.linalg.norm(a) > 1e-3))
def test_axis_to_z_maps_z_onto_the_axis(axis):
    R = spatial.axis_to_z(axis)
    assert orthonormal(R)
    np.testing.assert_allclose(R[:, 2], axis / np.linalg.norm(axis), atol=1e-12)
    np.testing.assert_allclose(R @ [0, 0, 1], axis / np.linalg.norm(axis), atol=1e-12)


@pytest.mark.parametrize("axis", [[0, 0, 1], [0, 0, 5], [0, 0, -1], [0, 0, -0.2], [1, 0, 0], [0, -1, 0],
                                  [0, 1e-14, 1], [1e-14, 0, -1]])
def test_axis_to_z_special_axes(axis):
    R = spatial.axis_to_z(axis)
    assert orthonormal(R)
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    np.testing.assert_allclose(R[:, 2], u, atol=1e-12)


def test_axis_to_z_is_the_smallest_turn():
    # +z needs no turn at all; an axis in the xy plane needs exactly a quarter turn
    np.testing.assert_array_equal(spatial.axis_to_z([0, 0, 1]), np.eye(3))
    R = spatial.axis_to_z([1, 0, 0])
    angle = np.linalg.norm(Rotation.from_matrix(R).as_rotvec())
    assert angle == pytest.approx(np.pi / 2, abs=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_axis_to_z_rejects_zero_axis():
    with pytest.raises(ValueError, match="axis: must be a finite, non-zero vector"):
        spatial.axis_to_z([0, 0, 0])


def test_axis_to_z_carries_batch_shape():
    axes = np.array([[0, 0, 1.0], [1, 0, 0], [0, 0, -1]])
    R = spatial.axis_to_z(axes)
    assert R.shape == (3, 3, 3)
    np.testing.assert_allclose(R[..., :, 2], axes, atol=1e-12)
