"""Geoms that take their values from one default class (and write the same other attributes) are
read once and share what was read: each still gets its own shape, pose, size, geometry and
material, so editing one geom of a loaded model leaves the others as they were."""

from __future__ import annotations

import numpy as np

import robodesc

_TWINS = """
<mujoco>
  <asset><mesh name="part" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
  <default>
    <default class="pad"><geom type="box" size="0.1 0.2 0.3" pos="1 0 0" quat="0 1 0 0" rgba="1 0 0 1"/></default>
    <default class="skin"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default>
  </default>
  <worldbody>
    <body name="left">
      <geom class="pad" name="left_pad"/>
      <geom class="skin" mesh="part"/>
      <geom class="pad" size="0.5"/>
    </body>
    <body name="right" pos="0 1 0">
      <geom class="pad" name="right_pad"/>
      <geom class="skin" mesh="part"/>
      <geom class="pad" size="0.5"/>
    </body>
  </worldbody>
</mujoco>
"""


def test_geoms_sharing_a_class_share_nothing_a_user_can_edit() -> None:
    model = robodesc.loads(_TWINS, format="mjcf")
    left, right = model.bodies["left"], model.bodies["right"]
    for mine, theirs in zip(left.collisions + left.visuals, right.collisions + right.visuals):
        assert mine is not theirs
        assert mine.pose is not theirs.pose and np.array_equal(mine.pose, theirs.pose)
        assert mine.geometry is not theirs.geometry
        assert mine.extras["mjcf"] is not theirs.extras["mjcf"]
    pads = [shape for shape in left.collisions + right.collisions if shape.name in ("left_pad", "right_pad")]
    assert [shape.name for shape in pads] == ["left_pad", "right_pad"]
    assert pads[0].material is not pads[1].material
    assert pads[0].geometry.size is not pads[1].geometry.size
    pads[0].pose[0, 3] = 5.0
    pads[0].geometry.size[0] = 7.0
    pads[0].material.color[0] = 0.0
    assert pads[1].pose[0, 3] == 1.0 and pads[1].geometry.size[0] == 0.2 and pads[1].material.color[0] == 1.0
    meshes = [shape for shape in left.visuals + right.visuals if shape.extras["mjcf"].get("mesh") == "part"]
    assert len(meshes) == 2 and meshes[0].geometry.scale is not meshes[1].geometry.scale


def test_a_geom_writing_its_own_values_over_its_class_keeps_them() -> None:
    model = robodesc.loads(_TWINS, format="mjcf")
    sizes = [shape.geometry.size.tolist() for shape in model.bodies["left"].collisions]
    assert sizes == [[0.2, 0.4, 0.6], [1.0, 0.4, 0.6]]  # size="0.5" over the class's "0.1 0.2 0.3"


def test_mesh_file_geoms_sharing_a_class_each_have_their_own_shape_pose(tmp_path) -> None:
    (tmp_path / "part.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    text = """<mujoco>
      <asset><mesh name="part" file="part.obj" refpos="0.1 0 0"/></asset>
      <default>
        <default class="skin"><geom type="mesh" mesh="part" pos="1 0 0" contype="0" conaffinity="0"/></default>
      </default>
      <worldbody>
        <body name="left"><geom class="skin"/></body>
        <body name="right" pos="0 1 0"><geom class="skin"/></body>
      </worldbody>
    </mujoco>"""
    model = robodesc.loads(text, format="mjcf", base_dir=tmp_path)
    left, right = model.bodies["left"].visuals[0], model.bodies["right"].visuals[0]
    assert left.pose is not right.pose and np.array_equal(left.pose, right.pose)
    assert left.geometry.scale is not right.geometry.scale
    left.pose[0, 3] = 5.0
    assert right.pose[0, 3] != 5.0
