"""Errors and warnings point at the element that is wrong, not its parent (issue 12, every format)."""

from __future__ import annotations

import pytest

import robodesc
from robodesc import InvalidValue, UnresolvedReference

SDF = """<sdf version="1.11">
<model name="m">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="revolute">
    <parent>{parent}</parent>
    <child>{child}</child>
    <pose relative_to="{relative_to}">0 0 0 0 0 0</pose>
    <axis><xyz expressed_in="{expressed_in}">0 0 1</xyz>{mimic}</axis>
  </joint>
</model></sdf>"""
GOOD = {"parent": "a", "child": "b", "relative_to": "b", "expressed_in": "b", "mimic": ""}


def _sdf(**changes: str) -> str:
    return SDF.format(**{**GOOD, **changes})


@pytest.mark.parametrize(
    ("changes", "error", "line", "path"),
    [
        ({"child": "zz"}, UnresolvedReference, 7, "/joint[@name='j']/child"),
        ({"parent": "zz"}, UnresolvedReference, 6, "/joint[@name='j']/parent"),
        ({"child": "world"}, InvalidValue, 7, "/joint[@name='j']/child"),
        ({"child": "a"}, InvalidValue, 7, "/joint[@name='j']/child"),
        ({"relative_to": "qq"}, UnresolvedReference, 8, "/joint[@name='j']/pose"),
        ({"expressed_in": "qq"}, UnresolvedReference, 9, "/joint[@name='j']/axis/xyz"),
    ],
)
def test_sdf_errors_at_the_element(changes, error, line, path):
    with pytest.raises(error) as info:
        robodesc.loads(_sdf(**changes), "sdf")
    assert info.value.line == line, str(info.value)
    assert str(info.value.location).endswith(path), str(info.value)


def test_sdf_link_relative_to_at_its_pose():
    text = """<sdf version="1.11"><model name="m">
  <link name="a">
    <pose relative_to="nowhere"/>
  </link></model></sdf>"""
    with pytest.raises(UnresolvedReference) as info:
        robodesc.loads(text, "sdf")
    assert info.value.line == 3
    assert str(info.value.location).endswith("/link[@name='a']/pose")


def test_sdf_mimic_warning_at_the_mimic():
    model = robodesc.loads(_sdf(mimic='\n<mimic joint="ghost"/>'), "sdf")
    (warning,) = [d for d in model.diagnostics if d.code == "mimic-ignored"]
    assert warning.location.line == 10
    assert str(warning.location).endswith("/joint[@name='j']/axis/mimic")


URDF = """<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="revolute">
    <parent link="{parent}"/>
    <child link="{child}"/>
    <axis xyz="0 0 1"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/>
    {mimic}
  </joint>
</robot>"""


@pytest.mark.parametrize(("end", "line"), [("parent", 5), ("child", 6)])
def test_urdf_unknown_link_at_the_end(end, line):
    values = {"parent": "a", "child": "b", "mimic": ""} | {end: "zz"}
    with pytest.raises(UnresolvedReference) as info:
        robodesc.loads(URDF.format(**values), "urdf")
    assert info.value.line == line
    assert str(info.value.location).endswith(f"/joint[@name='j']/{end}")


def test_urdf_mimic_warning_at_the_mimic():
    model = robodesc.loads(URDF.format(parent="a", child="b", mimic='<mimic joint="ghost"/>'), "urdf")
    (warning,) = [d for d in model.diagnostics if d.code == "mimic-unknown-joint"]
    assert warning.location.line == 9
    assert str(warning.location).endswith("/joint[@name='j']/mimic")


def test_urdf_second_parent_at_the_child():
    text = URDF.format(parent="a", child="b", mimic="").replace(
        "</robot>", '<joint name="k" type="fixed">\n<parent link="a"/>\n<child link="b"/></joint></robot>'
    )
    with pytest.raises(robodesc.InvalidTree) as info:
        robodesc.loads(text, "urdf")
    assert info.value.line == 13
    assert str(info.value.location).endswith("/joint[@name='k']/child")


def test_urdf_check_findings_at_the_limit_and_axis(tmp_path):
    """`robodesc check` points at the <limit> a continuous joint ignores and at the <axis> it scaled,
    not at their joint."""
    path = tmp_path / "r.urdf"
    path.write_text(
        '<robot name="r">\n<link name="a"/>\n<link name="b"/>\n<joint name="j" type="continuous">\n'
        '<parent link="a"/><child link="b"/>\n<axis xyz="0 0 2"/>\n'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/>\n</joint>\n</robot>'
    )
    found = {d.code: d.location for d in robodesc.check(path).diagnostics}
    assert (found["axis-normalised"].line, found["limits-ignored"].line) == (6, 7)
    assert found["axis-normalised"].element.endswith("/joint[@name='j']/axis")
    assert found["limits-ignored"].element.endswith("/joint[@name='j']/limit")
