"""A chain of joints at rest skips M(ref) and its inverse (`_rest_shift`): the terms must be those that
computing them gives, bit for bit, including where -0.0 or a non-finite axis rules the shortcut out."""

import numpy as np
import pytest

from robodesc.core import kinematics
from robodesc.core.model import Body, Joint, JointType
from robodesc.core.transforms import pose_from_xyz_rpy

NAN_AXIS = np.array([np.nan, 0.0, 1.0])
HUGE_AXIS = np.array([1e200, 0.0, 1.0])


def _terms(joints: list[Joint]) -> bytes:
    body = Body(
        name="b", parent="p", joints=tuple(j.name for j in joints), pose=pose_from_xyz_rpy([0.1, 0, 0], [0, 0.2, 0])
    )
    prefix = {"b": pose_from_xyz_rpy([0, 0.3, 0], [0.4, 0, 0])}
    with np.errstate(all="ignore"):
        (terms,) = kinematics._chain_terms([body], {"b": joints}, prefix, {j.name: (0, 1.0, 0.0) for j in joints})
    return b"".join(pre.tobytes() + post.tobytes() for _, pre, post, _ in terms)


def _computed(joints: list[Joint], monkeypatch: pytest.MonkeyPatch) -> bytes:
    with monkeypatch.context() as patch:
        patch.setattr(kinematics, "_rest_shift", lambda joint: None)
        return _terms(joints)


@pytest.mark.parametrize(
    ("kind", "reference", "axis", "rests"),
    [
        (JointType.REVOLUTE2, 0.0, np.array([0.0, 0.0, 1.0]), True),
        (JointType.UNIVERSAL, np.zeros(2), np.array([0.0, -1.0, -0.0]), True),
        (JointType.BALL, np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), True),
        (JointType.FLOATING, 0.0, np.array([1.0, 0.0, 0.0]), True),
        (JointType.REVOLUTE, -0.0, np.array([0.0, 0.0, 1.0]), False),
        (JointType.BALL, np.array([1.0, -0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), False),
        (JointType.FLOATING, np.array([0.0, -2.5, 1.06, 1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), True),
        (JointType.FLOATING, np.array([-0.0, 0.0, 1.06, 1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), False),
        (JointType.FLOATING, np.array([0.0, -np.inf, 1.0, 1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), False),
        (JointType.FLOATING, np.array([0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5]), np.array([1.0, 0.0, 0.0]), False),
        (JointType.PRISMATIC, 0.0, np.array([0.0, -1.0, 0.0]), False),
        (JointType.REVOLUTE2, 0.0, NAN_AXIS, False),
        (JointType.REVOLUTE2, 0.0, HUGE_AXIS, False),
    ],
)
def test_terms_at_rest_are_the_computed_ones(kind, reference, axis, rests, monkeypatch):
    origin = pose_from_xyz_rpy([0.0, -0.0, 0.5], [0.0, 0.0, -0.3])
    joints = [
        Joint(name="j", type=kind, parent="p", child="b", origin=origin, axis=axis, reference=reference),
        Joint(name="k", type=JointType.REVOLUTE, parent="p", child="b", origin=origin, axis=np.array([1.0, 0.0, 0.0])),
    ]
    assert (kinematics._rest_shift(joints[0]) is not None) is rests
    assert _terms(joints) == _computed(joints, monkeypatch)
