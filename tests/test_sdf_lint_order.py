"""The SDF lint reports its findings in document order, whatever order its walk looks at elements in.

`checks._Lint.run` looks at each element's children in one run and pushes those with children of their
own, so it meets a model's later joints before the content of its earlier links; it sorts what it found
back into document order (stably: several findings about one element keep the order they are made in).
"""

from __future__ import annotations

import textwrap

import robodesc

NESTED = textwrap.dedent(
    """\
    <sdf version="1.6">
      <model name="m">
        <link name="a">
          <visual name="">
            <pose degrees="true" rotation_format="euler_rpy">0 0 0 0.785398 0 0</pose>
            <geometry/>
          </visual>
          <pose>0 0 0 90 0 0</pose>
        </link>
        <joint name="j" type="fixed">
          <parent>a</parent>
          <child>b</child>
          <axis><xyz>2 0 0</xyz></axis>
        </joint>
        <link name="b">
          <sensor name="s" type="no_such_sensor"><update_rate>-1</update_rate></sensor>
        </link>
        <plugin filename="" name=""/>
      </model>
    </sdf>
    """
)


def test_lint_findings_are_in_document_order():
    found = [d for d in robodesc.loads(NESTED, format="sdf").diagnostics if d.code.startswith("sdf-")]
    assert [(d.location.line, d.code) for d in found] == [
        (4, "sdf-empty-name"),
        (5, "sdf-newer-than-version"),  # @degrees, then @rotation_format: the order they are written in
        (5, "sdf-newer-than-version"),
        (5, "sdf-angle-units"),
        (6, "sdf-empty-geometry"),
        (8, "sdf-angle-units"),
        (13, "sdf-axis-ignored"),
        (16, "sdf-unknown-sensor-type"),
        (16, "sdf-sensor-update-rate"),
        (18, "sdf-empty-plugin-filename"),
        (18, "sdf-empty-plugin-name"),
    ]


OLD_POSES = textwrap.dedent(
    """\
    <sdf version="1.6">
      <model name="m">
        <link name="a"><pose relative_to="__model__">0 0 0 0 0 0.5</pose></link>
        <link name="b"><pose>0 0 0 90 0 0</pose></link>
        <link name="c"><pose>1 2 3 0.1 0.2 0.3</pose></link>
      </model>
    </sdf>
    """
)


def test_poses_the_parse_read_plain_are_linted_for_their_attributes_alone():
    """The parse tells the lint which poses it read as plain angles within a turn (`FileContext.plain_poses`):
    such a pose still has its attributes checked against the file's version; a pose past a turn is looked at whole."""
    found = [d for d in robodesc.loads(OLD_POSES, format="sdf").diagnostics if d.code.startswith("sdf-")]
    assert [(d.location.line, d.code) for d in found] == [(3, "sdf-newer-than-version"), (4, "sdf-angle-units")]


JOINTS = textwrap.dedent(
    """\
    <sdf version="1.12">
      <model name="m">
        <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
        <joint name="" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
        <joint name="k" type="revolute"><parent>b</parent><child>c</child><axis><xyz>0 0 2</xyz></axis></joint>
        <joint name="l" type="prismatic"><parent>c</parent><child>d</child>
          <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>
        <joint name="n" type="continuous"><parent>d</parent><child>e</child>
          <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
      </model>
    </sdf>
    """
)


def test_joints_the_parse_read_plain_are_linted_for_their_name_alone():
    """The parse tells the lint which joints it found plain (`FileContext.plain_joints`: unit axes, each used by
    the joint's type, not continuous): such a joint still has its name checked; any other is looked at whole."""
    found = [d for d in robodesc.loads(JOINTS, format="sdf").diagnostics if d.code.startswith("sdf-")]
    assert [(d.location.line, d.code) for d in found] == [
        (4, "sdf-empty-name"),
        (5, "sdf-axis-not-unit"),
        (7, "sdf-axis-ignored"),
        (9, "sdf-continuous-with-limits"),
    ]
