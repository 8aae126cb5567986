"""Rigid transforms on numpy: roll-pitch-yaw, quaternions (w, x, y, z), axis-angle, 4x4 matrices.

Conventions follow URDF/SDF/MuJoCo: rpy is fixed-axis X then Y then Z (R = Rz(yaw) Ry(pitch)
Rx(roll)); quaternions are scalar-first; poses are 4x4 homogeneous matrices that map points of
the child frame into the parent frame. Scalar helpers use `math` because they run once per
element while loading, where numpy's per-call overhead would dominate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

VectorLike: TypeAlias = Sequence[float] | np.ndarray
"""A short vector given as a list, tuple or numpy array (what every helper here accepts)."""

IDENTITY = np.eye(4)
IDENTITY.flags.writeable = False


def rpy_to_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """3x3 rotation for fixed-axis roll (X), pitch (Y), yaw (Z): Rz @ Ry @ Rx."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


#: `pose_from_xyz_rpy` at roll, pitch and yaw all +0.0, bit for bit (its -sin(pitch) is -0.0)
_UNTURNED = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
_UNTURNED.flags.writeable = False


def pose_from_xyz_rpy(xyz: VectorLike, rpy: VectorLike) -> np.ndarray:
    """4x4 pose from a translation and fixed-axis roll, pitch, yaw (URDF's <origin>).

    Most origins and poses readers meet turn nothing: with every angle +0.0 the result is a copy of
    a template with the translation filled in, the same bits at a fraction of the cost. A -0.0
    angle takes the general path (its sine is -0.0, which changes signs of zeros in the matrix)."""
    if not any(rpy) and sum(map(math.copysign, (1.0, 1.0, 1.0), rpy)) == 3.0:
        pose = _UNTURNED.copy()
        pose[0, 3], pose[1, 3], pose[2, 3] = xyz  # (three stores: a slice's would make an array of `xyz` first)
        return pose
    cr, sr = math.cos(rpy[0]), math.sin(rpy[0])
    cp, sp = math.cos(rpy[1]), math.sin(rpy[1])
    cy, sy = math.cos(rpy[2]), math.sin(rpy[2])
    # (one flat list, reshaped: numpy reads nested lists row by row, each a sequence to measure)
    row0 = (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, xyz[0])
    row1 = (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, xyz[1])
    return np.array((*row0, *row1, -sp, cp * sr, cp * cr, xyz[2], 0.0, 0.0, 0.0, 1.0)).reshape(4, 4)


def matrix_to_rpy(rotation: np.ndarray) -> np.ndarray:
    """Inverse of `rpy_to_matrix`, picking roll = 0 at the pitch = ±90° singularity."""
    r = np.asarray(rotation, dtype=float)
    sp = -r[2, 0]
    if abs(sp) >= 1.0 - 1e-12:
        pitch = math.copysign(math.pi / 2, sp)
        return np.array([0.0, pitch, math.atan2(-r[0, 1], r[1, 1])])
    return np.array([math.atan2(r[2, 1], r[2, 2]), math.asin(sp), math.atan2(r[1, 0], r[0, 0])])


def quat_to_matrix(q: VectorLike) -> np.ndarray:
    """3x3 rotation of a quaternion (w, x, y, z); the quaternion is normalised first."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = quat_to_entries(q)
    return np.array([[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]])


def quat_to_entries(q: VectorLike) -> tuple[float, ...]:
    """The nine entries, row by row, of `quat_to_matrix(q)`, as plain floats: for readers that build
    poses from floats, without an array made only to be read back."""
    if isinstance(q, np.ndarray) and q.dtype == np.float64 and q.ndim == 1:
        w, x, y, z = q.tolist()  # the same floats as float() of each, in one call (a pose's quaternion, mostly)
    else:
        w, x, y, z = (float(v) for v in q)
    n = math.hypot(w, x, y, z)  # neither overflows nor underflows on huge or tiny components
    if n == 0.0 or not math.isfinite(n):
        raise ValueError("zero quaternion" if n == 0.0 else "quaternion is not finite")
    return _rotation_entries(w / n, x / n, y / n, z / n)


def _rotation_entries(w: float, x: float, y: float, z: float) -> tuple[float, ...]:
    """The nine entries, row by row, of the rotation of the unit quaternion (w, x, y, z)."""
    return (
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    )  # fmt: skip


def matrix_to_quat(rotation: np.ndarray) -> np.ndarray:
    """Quaternion (w, x, y, z) with w >= 0 of a 3x3 rotation."""
    r = np.asarray(rotation, dtype=float)
    return _quat_of_entries(r[0, 0], r[0, 1], r[0, 2], r[1, 0], r[1, 1], r[1, 2], r[2, 0], r[2, 1], r[2, 2])


def _quat_of_entries(
    r00: Any, r01: Any, r02: Any, r10: Any, r11: Any, r12: Any, r20: Any, r21: Any, r22: Any
) -> np.ndarray:
    """`matrix_to_quat` of the rotation with these entries: numpy's scalars (a zero divisor gives inf,
    with a warning) or Python floats (the same arithmetic, but a zero divisor raises ZeroDivisionError)."""
    trace = r00 + r11 + r22
    if trace > 0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = [0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s]
    elif r00 > r11 and r00 > r22:
        s = 2.0 * math.sqrt(1.0 + r00 - r11 - r22)
        q = [(r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s]
    elif r11 > r22:
        s = 2.0 * math.sqrt(1.0 + r11 - r00 - r22)
        q = [(r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + r22 - r00 - r11)
        q = [(r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s]
    quat = np.array(q)
    quat /= math.sqrt(float(quat.dot(quat)))  # np.linalg.norm of a 1-D float array, bit for bit, without its overhead
    return -quat if quat[0] < 0 else quat


def quat_through_matrix(quat: np.ndarray) -> np.ndarray:
    """``matrix_to_quat(quat_to_matrix(quat) + 0.0)`` bit for bit, on plain floats: without the
    matrix, its +0 copy and the lookups of its entries (MJCF places every body's <inertial> this way,
    as MuJoCo does). Python's float arithmetic is numpy's scalars' (IEEE), so only a zero divisor
    differs: that quaternion, like any the two functions refuse, is left to them."""
    try:
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = quat_to_entries(quat)
    except ValueError:
        return matrix_to_quat(quat_to_matrix(quat) + 0.0)  # (raises as they do)
    try:  # (each entry + 0.0, as in the matrix's +0 copy)
        return _quat_of_entries(
            r00 + 0.0, r01 + 0.0, r02 + 0.0, r10 + 0.0, r11 + 0.0, r12 + 0.0, r20 + 0.0, r21 + 0.0, r22 + 0.0
        )
    except ZeroDivisionError:
        return matrix_to_quat(quat_to_matrix(quat) + 0.0)


def _unit3(v: VectorLike) -> tuple[float, float, float]:
    """A 3-vector scaled to length 1 (by hypot: no overflow or underflow on huge or tiny components)."""
    x, y, z = (float(c) for c in v)
    n = math.hypot(x, y, z)
    if n == 0.0 or not math.isfinite(n):
        raise ValueError("zero rotation axis" if n == 0.0 else "rotation axis is not finite")
    return x / n, y / n, z / n


def axis_angle_to_matrix(axis: VectorLike, angle: float) -> np.ndarray:
    """3x3 rotation by `angle` radians about `axis` (normalised here)."""
    x, y, z = _unit3(axis)
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array(
        [
            [c + x * x * t, x * y * t - z * s, x * z * t + y * s],
            [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
            [z * x * t - y * s, z * y * t + x * s, c + z * z * t],
        ]
    )


def make_pose(rotation: np.ndarray | None = None, translation: VectorLike | None = None) -> np.ndarray:
    """4x4 homogeneous pose from a 3x3 rotation and a translation (either may be omitted)."""
    pose = IDENTITY.copy()
    if rotation is not None:
        pose[:3, :3] = rotation
    if translation is not None:
        pose[:3, 3] = translation
    return pose


def pose_from_xyz_quat(xyz: VectorLike, quat: VectorLike) -> np.ndarray:
    return make_pose(quat_to_matrix(quat), xyz)


def invert_pose(pose: np.ndarray) -> np.ndarray:
    """Inverse of a rigid 4x4 pose (cheaper and exacter than a general inverse)."""
    inv = IDENTITY.copy()
    rt = pose[:3, :3].T
    inv[:3, :3] = rt
    inv[:3, 3] = -rt @ pose[:3, 3]
    return inv


def stacked(arrays: Sequence[Any], shape: tuple[int, ...] = (4, 4)) -> np.ndarray:
    """Arrays of one shape (poses, axes) as one float array of shape (n, *shape), n = 0 included.

    Their numbers are copied end to end by one `np.concatenate`: the bits `np.array(arrays, dtype=float)`
    gives, without its look into each array as a nested sequence, which costs 1.4 to 2.5 times as much for
    200 poses (compiling kinematics and checking a model stack every pose of every load)."""
    if not len(arrays):
        return np.empty((0, *shape))
    return np.concatenate(arrays, dtype=float).reshape(-1, *shape)


def float_poses_stacked(poses: Sequence[np.ndarray]) -> np.ndarray:
    """`stacked(poses)` of 4x4 float64 arrays only, read only: their bytes joined, half the cost of
    `np.concatenate`, for a reader stacking poses it made itself. (Another dtype would be misread:
    `stacked` takes any.)"""
    return np.frombuffer(b"".join(map(np.ndarray.tobytes, poses))).reshape(len(poses), 4, 4)


def invert_poses(poses: np.ndarray) -> np.ndarray:
    """`invert_pose` of each of a stack (n, 4, 4) of rigid poses, bit for bit: the same transposes and
    products, in two numpy calls for the whole stack instead of several per pose."""
    rotations = poses[:, :3, :3].transpose(0, 2, 1)
    inverses = np.zeros_like(poses)
    inverses[:, 3, 3] = 1.0
    inverses[:, :3, :3] = rotations
    inverses[:, :3, 3:4] = -rotations @ poses[:, :3, 3:4]
    return inverses


def skew(v: VectorLike) -> np.ndarray:
    """The cross-product matrix of a 3-vector."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def quat_multiply(a: VectorLike, b: VectorLike) -> np.ndarray:
    """Hamilton product a * b of quaternions (w, x, y, z): rotate by b, then by a."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def axis_angle_to_quat(axis: VectorLike, angle: float) -> np.ndarray:
    """Quaternion (w, x, y, z) of a rotation by `angle` about `axis` (normalised here)."""
    x, y, z = _unit3(axis)
    s = math.sin(angle / 2)
    return np.array([math.cos(angle / 2), x * s, y * s, z * s])


def euler_to_quat(angles: VectorLike, sequence: str = "xyz") -> np.ndarray:
    """Quaternion of three rotations about the axes named by `sequence` (MuJoCo's eulerseq).

    A lower-case letter rotates about the axis of the frame as already rotated (intrinsic), an
    upper-case letter about the fixed original axis (extrinsic); the two may be mixed.
    """
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for angle, letter in zip(angles, sequence):
        axis = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}[letter.lower()]
        r = axis_angle_to_quat(axis, angle)
        q = quat_multiply(q, r) if letter.islower() else quat_multiply(r, q)
    return q


def cross(a: VectorLike, b: VectorLike) -> np.ndarray:
    """The cross product of two 3-vectors: `np.cross`'s result, bit for bit, without its overhead."""
    ax, ay, az = a
    bx, by, bz = b
    return np.array([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], dtype=float)


def quat_between(a: VectorLike, b: VectorLike) -> np.ndarray:
    """The shortest rotation (w, x, y, z) taking direction `a` to direction `b`."""
    ta, tb = _unit3(a), _unit3(b)
    ua = np.array(ta)
    ub = np.array(tb)
    cos = float(ua @ ub)
    # `cross`'s arithmetic on plain floats; its array only for the dot product, whose summation
    # (BLAS, maybe fused) is numpy's: np.linalg.norm of a 1-D float array is sqrt(x.dot(x)), so
    # this is its result, bit for bit, without its overhead (this runs for every fromto geom)
    ax, ay, az = ta
    bx, by, bz = tb
    axis = (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
    vector = np.array(axis)
    sin = math.sqrt(float(vector.dot(vector)))
    if sin < 1e-14:
        if cos > 0:
            return np.array([1.0, 0.0, 0.0, 0.0])
        helper = np.array([1.0, 0.0, 0.0]) if abs(ua[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        return axis_angle_to_quat(cross(ua, helper), math.pi)
    return axis_angle_to_quat(axis, math.atan2(sin, cos))
