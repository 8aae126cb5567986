"""Rigid-transform helpers: hand-computed values and round trips."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_close as shared_assert_close

from robodesc.core.transforms import (
    axis_angle_to_matrix,
    invert_pose,
    make_pose,
    matrix_to_quat,
    matrix_to_rpy,
    pose_from_xyz_quat,
    pose_from_xyz_rpy,
    quat_to_matrix,
    rpy_to_matrix,
)

HALF_PI = math.pi / 2
X, Y, Z = np.eye(3)


def assert_close(actual, expected, atol=1e-12):
    """Transforms are checked tighter than the other tests."""
    shared_assert_close(actual, expected, atol)


def is_rotation(r):
    return np.allclose(r @ r.T, np.eye(3), atol=1e-12) and math.isclose(np.linalg.det(r), 1.0, abs_tol=1e-12)


# -- rpy ------------------------------------------------------------------------------------------


def test_rpy_zero_is_identity():
    assert_close(rpy_to_matrix(0, 0, 0), np.eye(3))


def test_yaw_90_maps_x_to_y_and_y_to_minus_x():
    r = rpy_to_matrix(0, 0, HALF_PI)
    assert_close(r @ X, Y)
    assert_close(r @ Y, -X)
    assert_close(r @ Z, Z)


def test_pitch_90_maps_z_to_x():
    r = rpy_to_matrix(0, HALF_PI, 0)
    assert_close(r @ Z, X)
    assert_close(r @ X, -Z)


def test_roll_90_maps_y_to_z():
    r = rpy_to_matrix(HALF_PI, 0, 0)
    assert_close(r @ Y, Z)
    assert_close(r @ Z, -Y)


def test_rpy_is_fixed_axis_roll_then_pitch_then_yaw():
    roll, pitch, yaw = 0.3, -0.4, 1.1
    expected = axis_angle_to_matrix(Z, yaw) @ axis_angle_to_matrix(Y, pitch) @ axis_angle_to_matrix(X, roll)
    assert_close(rpy_to_matrix(roll, pitch, yaw), expected)
    # and not the other order (the test must be able to tell them apart)
    wrong = axis_angle_to_matrix(X, roll) @ axis_angle_to_matrix(Y, pitch) @ axis_angle_to_matrix(Z, yaw)
    assert not np.allclose(rpy_to_matrix(roll, pitch, yaw), wrong)


def test_roll_then_yaw_composition_by_hand():
    # roll 90 takes y to z; yaw 90 then leaves z alone; x goes to y.
    r = rpy_to_matrix(HALF_PI, 0, HALF_PI)
    assert_close(r @ Y, Z)
    assert_close(r @ X, Y)
    assert_close(r @ Z, X)


@pytest.mark.parametrize(
    "rpy",
    [(0.1, 0.2, 0.3), (-1.0, 0.5, 2.5), (3.0, -1.2, -3.0), (0.0, 0.0, -math.pi + 1e-3), (1e-9, -1e-9, 0.7)],
)
def test_rpy_round_trip(rpy):
    r = rpy_to_matrix(*rpy)
    assert is_rotation(r)
    back = matrix_to_rpy(r)
    assert back.shape == (3,)
    assert_close(back, rpy, atol=1e-9)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_matrix_to_rpy_at_gimbal_lock_gives_the_same_rotation_with_zero_roll(sign):
    r = rpy_to_matrix(0.4, sign * HALF_PI, 0.9)
    back = matrix_to_rpy(r)
    assert back[0] == 0.0
    assert math.isclose(back[1], sign * HALF_PI)
    assert_close(rpy_to_matrix(*back), r, atol=1e-9)


def test_matrix_to_rpy_random_rotations_round_trip_as_matrices():
    rng = np.random.default_rng(7)
    for _ in range(50):
        q = rng.normal(size=4)
        r = quat_to_matrix(q)
        assert_close(rpy_to_matrix(*matrix_to_rpy(r)), r, atol=1e-9)


# -- quaternions (w, x, y, z) -----------------------------------------------------------------------


def test_identity_quaternion():
    assert_close(quat_to_matrix([1, 0, 0, 0]), np.eye(3))
    assert_close(matrix_to_quat(np.eye(3)), [1, 0, 0, 0])


def test_quaternion_is_scalar_first():
    # 90 deg about z: w = cos 45, z = sin 45
    c = math.cos(math.pi / 4)
    r = quat_to_matrix([c, 0, 0, c])
    assert_close(r @ X, Y)
    assert_close(matrix_to_quat(rpy_to_matrix(0, 0, HALF_PI)), [c, 0, 0, c])


def test_quaternion_180_about_x():
    r = quat_to_matrix([0, 1, 0, 0])
    assert_close(r, np.diag([1.0, -1.0, -1.0]))
    q = matrix_to_quat(r)
    assert_close(np.abs(q), [0, 1, 0, 0])


def test_quat_to_matrix_normalises_its_input():
    c = math.cos(math.pi / 4)
    assert_close(quat_to_matrix([5 * c, 0, 0, 5 * c]), rpy_to_matrix(0, 0, HALF_PI))


def test_zero_quaternion_raises():
    with pytest.raises(ValueError):
        quat_to_matrix([0, 0, 0, 0])


def test_matrix_to_quat_has_non_negative_w_and_unit_norm():
    rng = np.random.default_rng(3)
    for _ in range(200):
        q = rng.normal(size=4)
        out = matrix_to_quat(quat_to_matrix(q))
        assert out[0] >= 0.0
        assert math.isclose(np.linalg.norm(out), 1.0, abs_tol=1e-12)
        expected = q / np.linalg.norm(q)
        expected = -expected if expected[0] < 0 else expected
        assert_close(out, expected, atol=1e-9)


@pytest.mark.parametrize(
    "rotation",
    [
        np.diag([1.0, -1.0, -1.0]),  # 180 about x: trace -1, x branch
        np.diag([-1.0, 1.0, -1.0]),  # 180 about y
        np.diag([-1.0, -1.0, 1.0]),  # 180 about z
    ],
)
def test_matrix_to_quat_trace_negative_branches(rotation):
    q = matrix_to_quat(rotation)
    assert q[0] >= 0
    assert_close(quat_to_matrix(q), rotation)


# -- axis-angle ---------------------------------------------------------------------------------------


def test_axis_angle_about_z_90():
    assert_close(axis_angle_to_matrix([0, 0, 1], HALF_PI) @ X, Y)


def test_axis_angle_normalises_axis():
    assert_close(axis_angle_to_matrix([0, 0, 7], HALF_PI), axis_angle_to_matrix([0, 0, 1], HALF_PI))


def test_axis_angle_120_about_diagonal_cycles_the_axes():
    r = axis_angle_to_matrix([1, 1, 1], 2 * math.pi / 3)
    assert_close(r @ X, Y)
    assert_close(r @ Y, Z)
    assert_close(r @ Z, X)


def test_axis_angle_zero_axis_raises():
    with pytest.raises(ValueError):
        axis_angle_to_matrix([0, 0, 0], 1.0)


def test_axis_angle_negative_angle_is_the_inverse():
    a = axis_angle_to_matrix([0.2, -0.5, 0.8], 0.9)
    b = axis_angle_to_matrix([0.2, -0.5, 0.8], -0.9)
    assert_close(a @ b, np.eye(3))


# -- poses ----------------------------------------------------------------------------------------------


def test_pose_from_xyz_rpy_by_hand():
    pose = pose_from_xyz_rpy([1, 2, 3], [0, 0, HALF_PI])
    assert pose.shape == (4, 4)
    assert_close(pose[3], [0, 0, 0, 1])
    # a point at x=1 in the child frame is at (1,2,3) + (0,1,0) in the parent
    assert_close(pose @ [1, 0, 0, 1], [1, 3, 3, 1])
    assert_close(pose[:3, 3], [1, 2, 3])


def test_pose_from_xyz_quat_matches_rpy():
    c = math.cos(math.pi / 4)
    assert_close(pose_from_xyz_quat([1, 2, 3], [c, 0, 0, c]), pose_from_xyz_rpy([1, 2, 3], [0, 0, HALF_PI]))


def test_make_pose_defaults_and_fields():
    assert_close(make_pose(), np.eye(4))
    p = make_pose(rotation=rpy_to_matrix(0, 0, HALF_PI))
    assert_close(p[:3, 3], [0, 0, 0])
    p = make_pose(translation=[4, 5, 6])
    assert_close(p[:3, :3], np.eye(3))
    assert_close(p[:3, 3], [4, 5, 6])


def test_invert_pose_by_hand():
    pose = pose_from_xyz_rpy([1, 0, 0], [0, 0, HALF_PI])
    inv = invert_pose(pose)
    # the parent-frame origin seen from the child: rotate (-1,0,0) by -90 deg yaw -> (0, 1, 0)
    assert_close(inv[:3, 3], [0, 1, 0])
    assert_close(inv @ pose, np.eye(4))
    assert_close(pose @ inv, np.eye(4))


def test_invert_pose_matches_general_inverse():
    rng = np.random.default_rng(11)
    for _ in range(20):
        pose = pose_from_xyz_rpy(rng.normal(size=3), rng.uniform(-3, 3, size=3))
        assert_close(invert_pose(pose), np.linalg.inv(pose), atol=1e-9)


def test_invert_pose_does_not_modify_its_argument():
    pose = pose_from_xyz_rpy([1, 2, 3], [0.1, 0.2, 0.3])
    before = pose.copy()
    invert_pose(pose)
    assert_close(pose, before, atol=0)


def test_quat_to_entries_are_the_matrix_entries_bit_for_bit():
    # readers that build poses from plain floats take the entries without the matrix: the same bits
    from robodesc.core.transforms import quat_to_entries

    rng = np.random.default_rng(7)
    quats = [*rng.normal(size=(200, 4)), [1.0, -0.0, 0.0, -0.0], [-0.0, 1.0, 0.0, 0.0], [1e200, 1e200, 0.0, 0.0]]
    for quat in quats:
        for given in (np.asarray(quat, dtype=float), tuple(float(v) for v in quat)):
            entries = quat_to_entries(given)
            assert np.array(entries).tobytes() == quat_to_matrix(given).ravel().tobytes()
    with pytest.raises(ValueError, match="zero quaternion"):
        quat_to_entries((0.0, 0.0, 0.0, 0.0))
