"""The format-specific checks of `robodesc check`: URDF (robodesc/formats/urdf/checks.py) and MJCF
(robodesc/formats/mjcf/checks.py, plus what the MJCF reader notes while loading). Each finding is
triggered by a small handwritten file, and a clean file of each format triggers none."""

from __future__ import annotations

import struct
import textwrap
from pathlib import Path

import pytest

import robodesc
from robodesc import Severity
from robodesc.cli import main
from robodesc.formats import mjcf as mjcf_plugin
from robodesc.formats import urdf as urdf_plugin
from robodesc.formats.mjcf import meshfiles

URDF_CODES = {
    "limits-ignored",
    "limit-not-applicable",
    "fixed-joint-limits",
    "axis-normalised",
    "repeated-element",
    "unused-material",
    "material-without-name",
    "transmission-unknown-joint",
    "gazebo-unknown-reference",
}
MJCF_CODES = {"fromto-overrides-pose", "class-attribute-ignored", "mesh-unreadable"}
INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'


def text(source: str) -> str:
    """Dedent a triple-quoted file so that its first line is line 1."""
    return textwrap.dedent(source).lstrip("\n")


def check_urdf(source: str, tmp_path: Path | None = None):
    return robodesc.check(robodesc.loads(text(source), format="urdf", base_dir=tmp_path))


def check_mjcf(source: str, tmp_path: Path | None = None):
    return robodesc.check(robodesc.loads(text(source), format="mjcf", base_dir=tmp_path))


def found(report, code: str) -> list:
    return [d for d in report.diagnostics if d.code == code]


def only(report, code: str):
    (diagnostic,) = found(report, code)
    assert diagnostic.suggestion
    return diagnostic


def robot(joints: str, extra: str = "", links: tuple[str, ...] = ("b",)) -> str:
    """A URDF with massive links a and `links`, then `joints` and `extra`."""
    bodies = "".join(f'<link name="{name}">{INERTIAL}</link>\n' for name in ("a", *links))
    return f'<robot name="r">\n{bodies}{text(joints)}{text(extra)}</robot>\n'


def joint(kind: str, inner: str = "", name: str = "j", child: str = "b") -> str:
    return f'<joint name="{name}" type="{kind}"><parent link="a"/><child link="{child}"/>{inner}</joint>\n'


# =====================================================================================================
# URDF
# =====================================================================================================

CLEAN_URDF = """
<robot name="clean">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry><material name="blue"/></visual>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><sphere radius="0.1"/></geometry><material name=""><color rgba="1 0 0 1"/></material></visual>
  </link>
  <link name="wheel">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <link name="tool">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0.7071 0 0.7071"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
  <joint name="spin" type="continuous"><parent link="arm"/><child link="wheel"/><axis xyz="0 0 1"/>
    <limit effort="1" velocity="1"/></joint>
  <joint name="weld" type="fixed"><parent link="arm"/><child link="tool"/>
    <limit lower="0" upper="0" effort="0" velocity="0"/></joint>
  <transmission name="t"><joint name="shoulder"/><actuator name="m"/></transmission>
  <gazebo reference="arm"><mu1>0.5</mu1></gazebo>
  <gazebo reference="shoulder"/>
  <gazebo><static>false</static></gazebo>
</robot>
"""


def test_a_clean_urdf_has_no_findings():
    report = check_urdf(CLEAN_URDF)
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]


def test_urdf_findings_come_from_check_not_from_loading():
    source = robot(joint("continuous", '<limit lower="-1" upper="1" effort="1" velocity="1"/>'))
    model = robodesc.loads(text(source), format="urdf")
    assert not model.diagnostics
    assert [d.code for d in robodesc.check(model).diagnostics] == ["limits-ignored"]


def test_continuous_joint_limits_are_reported_with_their_values():
    report = check_urdf(robot(joint("continuous", '<limit lower="-3.5" upper="3.5" effort="1" velocity="1"/>')))
    finding = only(report, "limits-ignored")
    assert finding.severity is Severity.WARNING
    assert "'j'" in finding.message and "-3.5" in finding.message and "3.5" in finding.message
    assert finding.location.line == 4 and "joint[@name='j']" in finding.location.element
    assert report.model.joints["j"].limits.lower is None  # the model is as ROS reads it


@pytest.mark.parametrize(
    "limit",
    [
        '<limit lower="0" upper="0" effort="1" velocity="1"/>',  # boilerplate: no range
        '<limit lower="-1.0E16" upper="1.0E16" effort="1" velocity="1"/>',  # "no limit" spelled out
        '<limit effort="1" velocity="1"/>',
    ],
)
def test_continuous_joint_limits_without_a_real_range_are_not_reported(limit):
    assert not found(check_urdf(robot(joint("continuous", limit))), "limits-ignored")


@pytest.mark.parametrize(
    ("kind", "limit", "shown"),
    [
        ("planar", '<limit lower="-1" upper="1" effort="1" velocity="1"/>', "lower -1, upper 1"),
        ("floating", '<limit effort="5" velocity="2"/>', "effort and velocity"),
    ],
)
def test_a_limit_on_a_planar_or_floating_joint_is_reported(kind, limit, shown):
    finding = only(check_urdf(robot(joint(kind, limit))), "limit-not-applicable")
    assert finding.severity is Severity.WARNING
    assert f"{kind} joint 'j'" in finding.message and shown in finding.message
    assert finding.location.line == 4


def test_fixed_joints_with_a_range_are_one_finding_listing_them():
    joints = (
        joint("fixed", '<limit lower="0" upper="1.5" effort="1" velocity="1"/>', name="f1", child="b")
        + joint("fixed", '<limit upper="2" effort="1" velocity="1"/>', name="f2", child="c")
        + joint("fixed", '<limit lower="0" upper="0" effort="1" velocity="1"/>', name="f3", child="d")
    )
    report = check_urdf(robot(joints, links=("b", "c", "d")))
    finding = only(report, "fixed-joint-limits")
    assert finding.severity is Severity.INFO
    assert "2 fixed joint(s)" in finding.message
    assert "'f1' (0 .. 1.5)" in finding.message and "'f2' (0 .. 2)" in finding.message
    assert "f3" not in finding.message
    assert finding.location.line == 6  # the first of them


def test_many_fixed_joints_are_listed_shortly():
    children = tuple(f"c{i}" for i in range(8))
    joints = "".join(
        joint("fixed", '<limit lower="-1" upper="1" effort="1" velocity="1"/>', name=f"f{i}", child=c)
        for i, c in enumerate(children)
    )
    finding = only(check_urdf(robot(joints, links=children)), "fixed-joint-limits")
    assert "8 fixed joint(s)" in finding.message and "and 3 more" in finding.message


def test_a_non_unit_axis_the_reader_normalised_is_reported():
    report = check_urdf(robot(joint("revolute", '<axis xyz="0 0 2"/><limit effort="1" velocity="1"/>')))
    finding = only(report, "axis-normalised")
    assert finding.severity is Severity.INFO
    assert "(0 0 2)" in finding.message and "length 2" in finding.message
    assert 'xyz="0 0 1"' in finding.suggestion
    assert list(report.model.joints["j"].axis) == [0, 0, 1]


@pytest.mark.parametrize(
    ("kind", "axis"),
    [("revolute", "0.7071 0 0.7071"), ("revolute", "0 0 1"), ("fixed", "0 0 2"), ("floating", "1 1 0")],
)
def test_rounded_axes_and_axes_of_joints_without_one_are_not_reported(kind, axis):
    source = robot(joint(kind, f'<axis xyz="{axis}"/><limit effort="1" velocity="1"/>'))
    assert not found(check_urdf(source), "axis-normalised")


def test_elements_read_once_but_written_twice_are_reported():
    source = """
    <robot name="r">
      <link name="a">
        <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
        <inertial><mass value="5"/></inertial>
        <visual><origin xyz="1 0 0"/><origin xyz="2 0 0"/><origin xyz="3 0 0"/>
          <geometry><box size="1 1 1"/><sphere radius="1"/></geometry></visual>
        <visual><geometry><box size="1 1 1"/></geometry></visual>
      </link>
      <link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/>
        <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
    </robot>
    """
    report = check_urdf(source)
    assert report.model.bodies["a"].inertial.mass == 1 and report.model.joints["j"].limits.upper == 1
    findings = {d.location.line: d for d in found(report, "repeated-element")}
    assert sorted(findings) == [4, 5, 6, 12]
    assert all(d.severity is Severity.WARNING and d.suggestion for d in findings.values())
    assert "link 'a' has 2 <inertial> elements" in findings[4].message
    assert "link 'a' has 3 <origin> elements in one <visual>" in findings[5].message
    assert "<geometry> of link 'a' holds 2 shapes; only the first, <box>" in findings[6].message
    assert "joint 'j' has 2 <limit> elements" in findings[12].message
    assert findings[12].location.element.endswith("limit[2]")


def test_unused_robot_level_materials_are_one_finding():
    source = """
    <robot name="r">
      <material name="used"><color rgba="0 0 1 1"/></material>
      <material name="spare"><color rgba="1 0 0 1"/></material>
      <material name="other"><color rgba="0 1 0 1"/></material>
      <link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="used"/></visual></link>
    </robot>
    """
    finding = only(check_urdf(source), "unused-material")
    assert finding.severity is Severity.INFO
    assert "2 robot-level material(s)" in finding.message
    assert "'spare', 'other'" in finding.message and "'used'" not in finding.message
    assert finding.location.line == 3


def test_a_material_defined_inline_by_a_visual_is_not_unused():
    source = """
    <robot name="r">
      <link name="a"><visual><geometry><box size="1 1 1"/></geometry>
        <material name="red"><color rgba="1 0 0 1"/></material></visual></link>
    </robot>
    """
    assert not found(check_urdf(source), "unused-material")


def test_a_visual_material_without_a_name_is_an_error():
    source = """
    <robot name="r">
      <link name="a">
        <visual name="shell"><geometry><box size="1 1 1"/></geometry>
          <material><color rgba="1 0 0 1"/></material>
        </visual>
      </link>
    </robot>
    """
    report = check_urdf(source)
    finding = only(report, "material-without-name")
    assert finding.severity is Severity.ERROR and report.failed
    assert "visual 'shell' of link 'a'" in finding.message
    assert finding.location.line == 4


def test_transmissions_and_ros2_control_naming_unknown_joints_are_reported():
    extra = """
    <transmission name="t1"><joint name="j"/><actuator name="m1"/></transmission>
    <transmission name="t2"><joint name="jj"/><actuator name="m2"/></transmission>
    <ros2_control name="hw" type="system"><joint name="elbow"><command_interface name="position"/></joint>
    </ros2_control>
    """
    report = check_urdf(robot(joint("revolute", '<limit effort="1" velocity="1"/>'), extra))
    findings = found(report, "transmission-unknown-joint")
    assert [d.severity for d in findings] == [Severity.WARNING] * 2
    assert "<transmission name='t2'>" in findings[0].message and "'jj'" in findings[0].message
    assert findings[0].location.line == 6 and "'j'" in findings[0].suggestion  # did you mean
    assert "<ros2_control name='hw'>" in findings[1].message and "'elbow'" in findings[1].message


def test_a_gazebo_block_referring_to_nothing_is_reported():
    extra = '<gazebo reference="bb"><mu1>0.5</mu1></gazebo>\n<gazebo reference="b"/>\n'
    finding = only(check_urdf(robot(joint("fixed"), extra)), "gazebo-unknown-reference")
    assert finding.severity is Severity.WARNING
    assert "'bb'" in finding.message and finding.location.line == 5
    assert "'b'" in finding.suggestion


# =====================================================================================================
# MJCF
# =====================================================================================================

CLEAN_MJCF = """
<mujoco model="clean">
  <default>
    <joint damping="0.1"/>
    <default class="hinge"><joint range="-1 1" axis="0 1 0"/></default>
    <default class="limb"><geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/></default>
    <default class="shell"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default>
  </default>
  <asset>
    <mesh name="tet" vertex="0 0 0  1 0 0  0 1 0  0 0 1"/>
  </asset>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <geom class="shell" mesh="tet"/>
      <site name="grip" type="capsule" size="0.01" fromto="0 0 0 0.1 0 0" pos="0 0 0"/>
      <body name="thigh">
        <joint name="hip" class="hinge"/>
        <joint name="twist" type="ball"/>
        <geom class="limb"/>
        <geom type="cylinder" fromto="0 0 0 0.2 0 0" size="0.02" class="limb"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_a_clean_mjcf_has_no_findings():
    report = check_mjcf(CLEAN_MJCF)
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]


def mjcf(body: str, default: str = "", asset: str = "") -> str:
    return (
        f"<mujoco>\n<default>{default}</default>\n<asset>{asset}</asset>\n<worldbody>\n"
        f'<body name="b" pos="0 0 1">\n<freejoint/>\n<geom type="sphere" size="0.1"/>\n{text(body)}</body>\n'
        "</worldbody>\n</mujoco>\n"
    )


def test_fromto_with_a_non_zero_pos_is_refused_as_in_mujoco():
    with pytest.raises(robodesc.InvalidValue, match="both fromto and pos") as info:
        robodesc.loads(
            mjcf('<geom name="g" type="capsule" size="0.02" fromto="0 0 0 0 0 1" pos="1 0 0"/>\n'), format="mjcf"
        )
    assert info.value.location.line == 8 and "geom 'g'" in str(info.value)


def test_fromto_with_a_pos_from_the_default_class_is_refused_too():
    with pytest.raises(robodesc.InvalidValue, match="from its default class"):
        robodesc.loads(
            mjcf(
                '<geom class="c" type="capsule" size="0.02" fromto="0 0 0 0 0 1"/>\n',
                '<default class="c"><geom pos="1 0 0"/></default>',
            ),
            format="mjcf",
        )


def test_fromto_with_an_orientation_on_a_geom_or_a_site_is_a_warning():
    body = """
    <geom name="g" type="capsule" size="0.02" fromto="0 0 0 0 0 1" euler="0 0 90"/>
    <site name="s" type="cylinder" size="0.01" fromto="0 0 0 1 0 0" quat="1 0 0 0" pos="0 0 0"/>
    """
    report = check_mjcf(mjcf(body))
    findings = found(report, "fromto-overrides-pose")
    assert [d.severity for d in findings] == [Severity.WARNING] * 2
    assert "geom 'g'" in findings[0].message and "euler" in findings[0].message
    assert findings[0].location.line == 8
    assert "site 's'" in findings[1].message and "quat" in findings[1].message
    assert not found(report, "fromto-with-pos")  # pos="0 0 0" is what MuJoCo accepts


def test_class_attributes_a_free_joint_ignores_are_one_finding_for_all_its_joints():
    source = """
    <mujoco>
      <default><joint range="-1 1" damping="1"/></default>
      <worldbody>
        <body name="a" pos="0 0 1"><joint name="fa" type="free"/><geom size="0.1"/></body>
        <body name="b" pos="1 0 1"><joint name="fb" type="free"/><geom size="0.1"/></body>
        <body name="c" pos="2 0 1"><joint name="fc" type="free" range="0 1"/><geom size="0.1"/></body>
        <body name="d" pos="3 0 1"><freejoint name="fd"/><geom size="0.1"/></body>
      </worldbody>
    </mujoco>
    """
    finding = only(check_mjcf(source), "class-attribute-ignored")
    assert finding.severity is Severity.WARNING
    assert "default class 'main' gives range to 2 free joints ('fa', 'fb')" in finding.message
    assert "damping" not in finding.message  # free joints do take damping
    assert finding.location.line == 4


def test_class_attributes_ignored_by_ball_joints_mesh_geoms_and_fromto_are_reported():
    default = """
    <default class="arm">
      <joint axis="0 1 0"/>
      <geom size="0.05" euler="0 0 90"/>
    </default>
    """
    body = """
    <body name="c" childclass="arm">
      <joint name="ball" type="ball"/>
      <geom name="shell" type="mesh" mesh="tet"/>
      <geom name="bone" type="capsule" fromto="0 0 0 0 0 0.3"/>
    </body>
    """
    report = check_mjcf(mjcf(body, text(default), '<mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>'))
    messages = [d.message for d in found(report, "class-attribute-ignored")]
    assert len(messages) == 3
    assert any("gives axis to ball joint 'ball'" in m for m in messages)
    assert any("gives size to mesh geom 'shell'" in m for m in messages)  # a mesh geom does take euler
    assert any("gives euler to capsule geom 'bone'" in m and "fromto sets the orientation" in m for m in messages)
    assert not found(report, "fromto-overrides-pose")  # the orientation is the class's, not the geom's


def test_size_given_to_a_primitive_fitted_to_a_mesh_is_reported():
    report = check_mjcf(
        mjcf(
            '<geom name="fit" class="c" type="box" mesh="tet"/>\n',
            '<default class="c"><geom size="0.3 0.3 0.3"/></default>',
            '<mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>',
        )
    )
    assert "fitting to the mesh sets the size" in only(report, "class-attribute-ignored").message


# -- meshes that MuJoCo cannot read ---------------------------------------------------------------


def binary_stl(path: Path) -> None:
    """A tetrahedron as a binary STL."""
    points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    data = b"\0" * 80 + struct.pack("<I", len(faces))
    for face in faces:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *points[i]) for i in face) + b"\0\0"
    path.write_bytes(data)


ASCII_STL = (
    "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
)


def shells(tmp_path: Path, files: dict[str, str]) -> str:
    """A model drawing the given mesh files (name -> file) with visual-only geoms of two bodies."""
    assets = "".join(f'<mesh name="{name}" file="{file}"/>' for name, file in files.items())
    geoms = "".join(f'<geom type="mesh" mesh="{name}" contype="0" conaffinity="0" group="2"/>' for name in files)
    inertial = '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
    return (
        f"<mujoco>\n<asset>{assets}</asset>\n<worldbody>\n"
        f'<body name="one"><freejoint/>{inertial}{geoms}</body>\n'
        f'<body name="two"><freejoint/>{inertial}{geoms}</body>\n'
        "</worldbody>\n</mujoco>\n"
    )


@pytest.fixture
def mesh_reads(monkeypatch):
    """The paths `load_mesh_file` is asked for."""
    reads: list[str] = []
    original = meshfiles.load_mesh_file

    def counting(path):
        reads.append(path)
        return original(path)

    monkeypatch.setattr(meshfiles, "load_mesh_file", counting)
    return reads


def test_a_mesh_file_mujoco_cannot_read_is_an_error_found_by_check_only(tmp_path, mesh_reads):
    binary_stl(tmp_path / "good.stl")
    (tmp_path / "text.stl").write_text(ASCII_STL)
    (tmp_path / "scene.dae").write_text("<COLLADA/>")
    model = robodesc.loads(
        shells(tmp_path, {"good": "good.stl", "text": "text.stl", "scene": "scene.dae"}),
        format="mjcf",
        base_dir=tmp_path,
    )
    assert mesh_reads == [] and not model.diagnostics  # loading never reads meshes that are only drawn
    report = robodesc.check(model)
    findings = found(report, "mesh-unreadable")
    assert [d.severity for d in findings] == [Severity.ERROR] * 2 and report.failed
    by_mesh = {d.message.split()[1]: d for d in findings}
    assert set(by_mesh) == {"'text'", "'scene'"}
    text_stl = by_mesh["'text'"]
    assert "ASCII" in text_stl.message and "bodies 'one', 'two'" in text_stl.message
    assert "binary STL" in text_stl.suggestion
    assert text_stl.location.line == 2 and "mesh[@name='text']" in text_stl.location.element
    assert ".obj" in by_mesh["'scene'"].suggestion
    assert sorted(Path(p).name for p in mesh_reads) == ["good.stl", "scene.dae", "text.stl"]  # once per file


def test_mesh_check_command_line(tmp_path, capsys):
    (tmp_path / "text.stl").write_text(ASCII_STL)
    path = tmp_path / "robot.xml"
    path.write_text(shells(tmp_path, {"text": "text.stl"}))
    assert main(["check", str(path)]) == 1
    assert "error mesh-unreadable" in capsys.readouterr().out


def test_readable_meshes_give_no_finding(tmp_path):
    binary_stl(tmp_path / "good.stl")
    (tmp_path / "good.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    report = check_mjcf(shells(tmp_path, {"stl": "good.stl", "obj": "good.obj"}), tmp_path)
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]


# =====================================================================================================
# Each plugin checks models of its own format only
# =====================================================================================================


def test_each_format_checks_only_its_own_models(tmp_path):
    (tmp_path / "text.stl").write_text(ASCII_STL)
    mjcf_model = robodesc.loads(shells(tmp_path, {"text": "text.stl"}), format="mjcf", base_dir=tmp_path)
    urdf_model = robodesc.loads(
        text(robot(joint("continuous", '<limit lower="-1" upper="1" effort="1" velocity="1"/>'))), format="urdf"
    )
    assert urdf_plugin.robodesc_checks(mjcf_model) == []
    assert mjcf_plugin.robodesc_checks(urdf_model) == []
    assert [d.code for d in urdf_plugin.robodesc_checks(urdf_model)] == ["limits-ignored"]
    assert [d.code for d in mjcf_plugin.robodesc_checks(mjcf_model)] == ["mesh-unreadable"]
    assert not {d.code for d in robodesc.check(mjcf_model).diagnostics} & URDF_CODES
    assert not {d.code for d in robodesc.check(urdf_model).diagnostics} & MJCF_CODES
