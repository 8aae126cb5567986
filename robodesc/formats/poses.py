"""Poses the readers build for nearly every element, built cheaply in their commonest case.

`core.transforms` is the one home of the arithmetic; what is here only skips it where the answer is
known: an origin or `<pose>` that turns nothing (roll, pitch and yaw all +0.0) is a copy of one
template with its translation filled in, bit for bit what `pose_from_xyz_rpy` returns (whose
-sin(pitch) is -0.0), at a fraction of the six sines and cosines and the nested-list array.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.transforms import VectorLike, pose_from_xyz_rpy

_ZERO3 = (0.0, 0.0, 0.0)
_UNTURNED = pose_from_xyz_rpy(_ZERO3, _ZERO3)
_UNTURNED.flags.writeable = False
_IDENTITY = np.eye(4)
_IDENTITY.flags.writeable = False


def pose_xyz_rpy(xyz: VectorLike, rpy: VectorLike) -> np.ndarray:
    """`core.transforms.pose_from_xyz_rpy(xyz, rpy)`, bit for bit; a -0.0 angle takes the general path
    (its sine is -0.0, which changes signs of zeros in the matrix)."""
    if not any(rpy) and sum(map(math.copysign, (1.0, 1.0, 1.0), rpy)) == 3.0:
        pose = _UNTURNED.copy()
        pose[:3, 3] = xyz
        return pose
    return pose_from_xyz_rpy(xyz, rpy)


def identity() -> np.ndarray:
    """A new 4x4 identity, as `np.eye(4)` makes it, from a template (a third of its cost)."""
    return _IDENTITY.copy()
