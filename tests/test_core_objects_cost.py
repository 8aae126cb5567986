"""The model's records and the per-load validation walk, made cheaper: the same checks and messages."""

from __future__ import annotations

import numpy as np
import pytest

from robodesc import Body, InvalidTree, Joint, JointType, Model
from robodesc.core.validation import validate_structure


def two_bodies(**joint: object) -> Model:
    fields: dict = {"name": "j", "type": JointType.REVOLUTE, "parent": "a", "child": "b", **joint}
    return Model(
        "m",
        bodies={"a": Body(name="a"), "b": Body(name="b", parent="a", joints=("j",))},
        joints={"j": Joint(**fields)},
    )


@pytest.mark.parametrize(
    ("joint", "message"),
    [
        ({"parent": "x", "child": "b"}, "joint 'j' names body 'x', which does not exist"),
        ({"child": "y"}, "joint 'j' names body 'y', which does not exist"),
        ({"axis": np.zeros(2)}, "the axis of joint 'j' has shape (2,), not (3,)"),
        ({"axis2": np.zeros((3, 1))}, "the axis2 of joint 'j' has shape (3, 1), not (3,)"),
        ({"axis": [1.0, 0.0], "axis2": np.zeros(4)}, "the axis of joint 'j' has shape (2,), not (3,)"),
    ],
)
def test_a_bad_joint_is_refused_with_its_first_fault(joint, message):
    model = two_bodies(**joint)
    model.bodies["b"].joints = ()  # no body lists the joint: the joint's own checks speak
    with pytest.raises(InvalidTree) as caught:
        validate_structure(model)
    assert caught.value.message == message


def test_a_joint_naming_two_missing_bodies_names_its_parent():
    model = two_bodies(parent="x", child="y")
    model.bodies["b"].joints = ()
    with pytest.raises(InvalidTree) as caught:
        validate_structure(model)
    assert caught.value.message == "joint 'j' names body 'x', which does not exist"


def test_good_axes_of_any_sequence_pass():
    validate_structure(two_bodies(axis=[0.0, 0.0, 1.0], axis2=(1.0, 0.0, 0.0)))
