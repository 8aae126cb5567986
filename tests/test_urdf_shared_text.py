"""Values written the same way in a URDF file load as equal but separate arrays.

The reader turns each origin, scale, size and color text into an array once per load and hands out
copies, so that a file with `0 0 0` on every visual is read quickly. A caller who edits one body's
pose, one mesh's scale or one color in place must still change that one only.
"""

from __future__ import annotations

import numpy as np

import robodesc

URDF = """<robot name="r">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="a">
    <visual><origin xyz="0 0 1" rpy="0 0 0"/><geometry><box size="1 2 3"/></geometry><material name="red"/></visual>
    <visual><origin xyz="0 0 1" rpy="0 0 0"/><geometry><box size="1 2 3"/></geometry>
      <material name="blue"><color rgba="1 0 0 1"/></material></visual>
    <collision><origin xyz="0 0 1" rpy="0 0 0"/><geometry><mesh filename="m.stl" scale="2 2 2"/></geometry></collision>
    <collision><origin xyz="0 0 1" rpy="0 0 0"/><geometry><mesh filename="m.stl" scale="2 2 2"/></geometry></collision>
  </link>
  <link name="b"/>
  <link name="c"/>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0 0 1" rpy="0 0 0"/></joint>
  <joint name="bc" type="fixed"><parent link="b"/><child link="c"/><origin xyz="0 0 1" rpy="0 0 0"/></joint>
</robot>"""


def test_values_written_alike_are_equal_arrays_of_their_own():
    model = robodesc.loads(URDF, format="urdf")
    a = model.bodies["a"]
    groups = [
        [shape.pose for shape in (*a.visuals, *a.collisions)] + [j.origin for j in model.joints.values()],
        [shape.geometry.size for shape in a.visuals],
        [shape.geometry.scale for shape in a.collisions],
        [model.materials["red"].color, model.materials["blue"].color],
    ]
    for arrays in groups:
        first = arrays[0]
        for other in arrays[1:]:
            assert other is not first and not np.shares_memory(other, first)
            assert np.array_equal(other, first)
        saved = [array.copy() for array in arrays[1:]]
        first += 1.0  # an edit in place changes that array only
        for other, before in zip(arrays[1:], saved):
            assert np.array_equal(other, before)


def test_a_second_load_is_not_changed_by_edits_to_the_first():
    first = robodesc.loads(URDF, format="urdf")
    first.bodies["a"].visuals[0].pose[:3, 3] = 7.0
    first.joints["ab"].origin[0, 3] = 7.0
    second = robodesc.loads(URDF, format="urdf")
    assert second.bodies["a"].visuals[0].pose[2, 3] == 1.0 and second.bodies["a"].visuals[0].pose[0, 3] == 0.0
    assert second.joints["ab"].origin[0, 3] == 0.0
