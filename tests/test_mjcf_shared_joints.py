"""Joints that write the same attributes (but their names) under the same class, such as a robot's
left and right hip joints, are read once (`elements.read_joint`): each still gets its own axis,
attributes and location, and is checked for its own name."""

from __future__ import annotations

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import DuplicateName

_TWINS = """
<mujoco>
  <default>
    <default class="hip"><joint damping="1" armature="0.1" frictionloss="0.2"/></default>
  </default>
  <worldbody>
    <body name="left"><joint name="left_hip" class="hip" axis="0 1 0" range="-1 1"/><geom size="0.1"/>
      <body name="left_knee_link"><joint name="{knee}" axis="1 0 0" range="0 2"/><geom size="0.1"/></body>
    </body>
    <body name="right"><joint name="right_hip" class="hip" axis="0 1 0" range="-1 1"/><geom size="0.1"/>
      <body name="right_knee_link"><joint name="right_knee" axis="1 0 0" range="0 2"/><geom size="0.1"/></body>
    </body>
  </worldbody>
</mujoco>
"""


def test_twin_joints_are_alike_and_share_nothing() -> None:
    model = robodesc.loads(_TWINS.format(knee="left_knee"), format="mjcf")
    for left, right in (("left_hip", "right_hip"), ("left_knee", "right_knee")):
        mine, theirs = model.joints[left], model.joints[right]
        assert mine.type == theirs.type and mine.limits == theirs.limits and mine.dynamics == theirs.dynamics
        assert np.array_equal(mine.axis, theirs.axis) and mine.axis is not theirs.axis
        assert mine.extras["mjcf"] == theirs.extras["mjcf"] and mine.extras["mjcf"] is not theirs.extras["mjcf"]
        assert mine.location.line != theirs.location.line
    hip = model.joints["right_hip"]
    assert (hip.dynamics.damping, hip.dynamics.armature, hip.dynamics.friction) == (1.0, 0.1, 0.2)
    model.joints["left_hip"].axis[0] = 5.0
    model.joints["left_hip"].extras["mjcf"]["range"] = "0 0"
    assert model.joints["right_hip"].axis[0] == 0.0 and model.joints["right_hip"].extras["mjcf"]["range"] == "-1 1"


def test_a_twin_joint_repeating_a_name_is_refused() -> None:
    with pytest.raises(DuplicateName, match="repeated name 'right_knee' in joint"):
        robodesc.loads(_TWINS.format(knee="right_knee"), format="mjcf")
