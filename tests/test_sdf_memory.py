"""A loaded SDF model lets go of the parsed XML documents of its files (the including file and the
files it includes), yet every location in it still names the line and element path as written."""

from __future__ import annotations

import gc

import pytest
from conftest import documents_alive, write_sdf_world

import robodesc
from robodesc.core.errors import RobodescError
from robodesc.formats.xml import Document

ARM = """\
<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm">
    <link name="base">
      <inertial><mass>1</mass></inertial>
      <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>
    </link>
    <link name="tip"><pose>0 0 1 0 0 0</pose></link>
    <joint name="j" type="revolute">
      <parent>base</parent>
      <child>tip</child>
      <axis><xyz>0 0 1</xyz></axis>
    </joint>
    <plugin name="p" filename="libp.so"><gain>2</gain></plugin>
  </model>
</sdf>
"""

WORLD = """\
<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <include>
      <uri>arm</uri>
      <name>left</name>
    </include>
    <physics type="ode"><max_step_size>0.001</max_step_size></physics>
  </world>
</sdf>
"""


def test_a_loaded_model_keeps_no_parsed_document_and_its_locations_still_say_where(tmp_path):
    model = robodesc.load(write_sdf_world(tmp_path, ARM, WORLD))
    assert documents_alive(tmp_path) == []  # the trees are gone: the model keeps the files' bytes

    body = model.bodies["left::base"]
    assert (body.location.line, body.location.element) == (4, "/sdf/model[@name='arm']/link[@name='base']")
    assert body.location.file.endswith("model.sdf")
    joint = model.joints["left::j"]
    assert (joint.location.line, joint.location.element) == (9, "/sdf/model[@name='arm']/joint[@name='j']")
    extras = {extra.tag: extra for extra in model.extras}
    assert (extras["plugin"].location.line, extras["plugin"].location.element) == (
        14,
        "/sdf/model[@name='arm']/plugin[@name='p']",
    )
    assert extras["plugin"].xml == '<plugin name="p" filename="libp.so"><gain>2</gain></plugin>'
    assert (extras["physics"].location.line, extras["physics"].location.element) == (8, "/sdf/world[@name='w']/physics")


def test_a_load_leaves_no_parsed_file_for_the_cyclic_collector(tmp_path):
    """What the parse keeps of a file (its records, the deferred locations of joint ends and axes) holds no
    reference back to the file's parse: once the load is over, reference counting frees the documents."""
    path = tmp_path / "arm.sdf"
    path.write_text(ARM.replace("<child>tip</child>", "<child>tip</child><axis2><xyz>0 1 0</xyz></axis2>"))
    gc.collect()
    gc.disable()
    try:
        robodesc.load(path)
        alive = [o for o in gc.get_objects() if isinstance(o, Document) and str(tmp_path) in (o.source or "")]
    finally:
        gc.enable()
    assert alive == []


def test_errors_about_poses_joint_ends_and_axes_name_their_element(tmp_path):
    """The locations of <pose>, <parent>, <child> and <xyz> are made only for an error, from the file as parsed."""
    cases = [
        (ARM.replace("<pose>0 0 1 0 0 0</pose>", '<pose relative_to="nowhere">0 0 1 0 0 0</pose>'), 8, "pose"),
        (ARM.replace("<child>tip</child>", "<child>nowhere</child>"), 11, "child"),
        (ARM.replace("<parent>base</parent>", "<parent>nowhere</parent>"), 10, "parent"),
        (ARM.replace("<xyz>0 0 1</xyz>", '<xyz expressed_in="nowhere">0 0 1</xyz>'), 12, "xyz"),
    ]
    for text, line, tag in cases:
        path = tmp_path / f"{tag}.sdf"
        path.write_text(text)
        with pytest.raises(RobodescError) as error:
            robodesc.load(path)
        assert (error.value.location.line, error.value.location.element.rsplit("/", 1)[1]) == (line, tag)
