"""The SDF parse sorts an element's children in one pass (a joint's, an axis's, a shape's, a material's, a
limit's) instead of a find per tag: the first child of each tag is the one read, as `find` gives it, the
others are kept as written in document order, and faults are reported in the order they were before (the
readers still read the children in their fixed order, not in document order).
"""

from __future__ import annotations

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import RobodescError


def _load(tmp_path, body: str, version: str = "1.9"):
    path = tmp_path / "m.sdf"
    path.write_text(f'<sdf version="{version}"><model name="m">{body}</model></sdf>')
    return robodesc.load(str(path))


def _error(tmp_path, body: str, version: str = "1.9") -> tuple[str, str | None, int | None]:
    with pytest.raises(RobodescError) as caught:
        _load(tmp_path, body, version)
    return type(caught.value).__name__, caught.value.construct, caught.value.location.line


LINKS = '<link name="a"/><link name="b"/>'


def test_first_child_of_each_tag_is_read(tmp_path):
    model = _load(
        tmp_path,
        '<link name="a"><visual name="v"><pose>1 0 0 0 0 0</pose><pose>2 0 0 0 0 0</pose>'
        "<geometry><sphere><radius>0.5</radius></sphere></geometry><geometry><box/></geometry>"
        "<material><diffuse>1 0 0 1</diffuse><diffuse>0 1 0 1</diffuse></material></visual>"
        '<collision name="c"><density>2</density><density>3</density>'
        "<geometry><box><size>1 2 3</size></box></geometry></collision></link>"
        '<link name="b"/>'
        '<joint name="j" type="prismatic"><child>b</child><parent>a</parent><parent>b</parent>'
        "<pose>0 0 1 0 0 0</pose><pose>0 0 2 0 0 0</pose>"
        "<axis><limit><upper>0.5</upper><lower>-0.5</lower><upper>9</upper></limit><xyz>0 1 0</xyz>"
        "<xyz>1 0 0</xyz></axis></joint>",
    )
    visual = model.bodies["a"].visuals[0]
    assert visual.pose[0, 3] == 1.0 and visual.geometry.radius == 0.5
    assert visual.material.color.tolist() == [1.0, 0.0, 0.0, 1.0]
    joint = model.joints["j"]
    assert joint.parent == "a" and joint.child == "b"
    assert (joint.limits.lower, joint.limits.upper) == (-0.5, 0.5)
    assert np.allclose(joint.axis, [0.0, 1.0, 0.0])


def test_other_children_are_kept_in_document_order(tmp_path):
    model = _load(
        tmp_path,
        LINKS + '<joint name="j" type="revolute"><foo/><parent>a</parent><sensor name="s1" type="force_torque"/>'
        '<child>b</child><bar/><axis><xyz>0 0 1</xyz><initial_position>0.1</initial_position></axis></joint>',
    )
    assert [extra.tag for extra in model.joints["j"].extras["xml"]] == ["foo", "sensor", "bar"]


@pytest.mark.parametrize(
    ("joint", "construct"),
    [
        # <parent> is checked before <child>, wherever each is written
        ("<child>b</child>", "joint/parent"),
        ("<parent>a</parent><parent>b</parent>", "joint/child"),
        # an axis: its <xyz> before its <limit>, its limit before the kept children after the axis is read
        (
            "<parent>a</parent><child>b</child><axis><limit><lower>x</lower></limit><xyz>0 0 y</xyz></axis>",
            "xyz",
        ),
        ("<parent>a</parent><child>b</child><axis><pose>bad</pose><limit><lower>x</lower></limit></axis>", "lower"),
        # the joint's pose before its axis, wherever each is written
        ("<parent>a</parent><child>b</child><axis><xyz>0 0 0</xyz></axis><pose>1 2</pose>", "pose"),
        # a second <axis> of the same tag is not read
        ("<parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis><axis><xyz>0 0 0</xyz></axis>", None),
    ],
)
def test_joint_faults_come_in_the_order_they_did(tmp_path, joint, construct):
    body = LINKS + f'<joint name="j" type="revolute">{joint}</joint>'
    if construct is None:
        _load(tmp_path, body)
    else:
        assert _error(tmp_path, body)[1] == construct


@pytest.mark.parametrize(
    ("shape", "construct"),
    [
        # the pose before the geometry, the geometry before the material, wherever each is written
        (
            '<visual name="v"><material><diffuse>2 2 2</diffuse></material><geometry><sphere><radius>x</radius>'
            "</sphere></geometry><pose>1</pose></visual>",
            "pose",
        ),
        (
            '<visual name="v"><material><diffuse>2 2 2</diffuse></material><geometry><sphere><radius>x</radius>'
            "</sphere></geometry></visual>",
            "radius",
        ),
        # a material's colors in their fixed order (ambient first), not in document order
        (
            '<visual name="v"><material><diffuse>2 2 2</diffuse><ambient>3 3 3</ambient></material></visual>',
            "ambient",
        ),
        (
            '<visual name="v"><material><shader type="nope"/><script><uri>u</uri></script></material></visual>',
            "script/name",
        ),
        # a collision's density after what is kept of it
        ('<collision name="c"><density>x</density><geometry><box/></geometry></collision>', "density"),
    ],
)
def test_shape_faults_come_in_the_order_they_did(tmp_path, shape, construct):
    assert _error(tmp_path, f'<link name="a">{shape}</link>')[1] == construct


@pytest.mark.parametrize("extra", [0, 1, 4])  # pushed one by one (three children or fewer) or zipped (more)
def test_kept_elements_are_checked_in_the_order_they_were(tmp_path, extra):
    """`check_kept` meets a kept element's children last first, however many there are: of two faults, the
    later one is reported."""
    padding = "<foo/>" * extra
    joint = (
        '<parent>a</parent><child>b</child><physics><ode><limit><lower>x</lower><upper>y</upper>'
        f"{padding}</limit></ode></physics>"
    )
    assert _error(tmp_path, LINKS + f'<joint name="j" type="revolute">{joint}</joint>')[1] == "upper"
