"""The URDF reader: every construct it models, what it keeps, and how it rejects broken files.

robodesc follows urdfdom (what ROS loads), except that it also rejects a zero joint axis, a mimic
naming an unknown joint, a link that is the child of two joints, and malformed numbers anywhere.
"""

from __future__ import annotations

import math
import random
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_close

import robodesc
from robodesc import (
    Box,
    Capsule,
    Cylinder,
    DuplicateName,
    InvalidTree,
    InvalidValue,
    JointType,
    MalformedPose,
    MalformedValue,
    Mesh,
    MissingAttribute,
    MissingRootElement,
    ResourceNotFound,
    RobodescError,
    Severity,
    Sphere,
    UnresolvedReference,
    UnsafeXML,
    UnsupportedJointType,
    XMLSyntaxError,
)
from robodesc.core.transforms import pose_from_xyz_rpy, rpy_to_matrix

HALF_PI = math.pi / 2
ARM = Path(__file__).resolve().parents[1] / "examples" / "arm.urdf"


def doc(text: str) -> str:
    """Dedent a triple-quoted URDF so that its first line is line 1."""
    return textwrap.dedent(text).lstrip("\n")


def loads(text: str, **kw) -> robodesc.Model:
    return robodesc.loads(doc(text), format="urdf", **kw)


def two_links(joint_body: str, kind: str = "revolute") -> str:
    return f"""
    <robot name="r">
      <link name="a"/>
      <link name="b"/>
      <joint name="j" type="{kind}">
        <parent link="a"/>
        <child link="b"/>
        {joint_body}
      </joint>
    </robot>
    """


LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'


# =====================================================================================================
# What a valid file turns into
# =====================================================================================================


def test_robot_name_links_and_format():
    model = loads('<robot name="my_bot"><link name="only"/></robot>')
    assert model.name == "my_bot"
    assert list(model.bodies) == ["only"]
    assert model.root.name == "only"
    assert model.joints == {}
    assert model.format == "urdf"


def test_empty_robot_name_is_accepted():
    assert loads('<robot name=""><link name="a"/></robot>').name == ""


@pytest.mark.parametrize("version", ["1.0", " 1.0", "+1.0", "01.00", "1.00"])
def test_version_1_0_spellings_are_accepted(version):
    assert loads(f'<robot name="r" version="{version}"><link name="a"/></robot>').name == "r"


@pytest.mark.parametrize("version", ["2.0", "1", "1.0.0", "1.", ".1", "abc", "a.c", "1.c", "1.0~pre6", "-1.0", "1.1"])
def test_other_versions_are_rejected(version):
    with pytest.raises(MalformedValue) as info:
        loads(f'<robot name="r" version="{version}"><link name="a"/></robot>')
    assert "version" in str(info.value)


SIX_TYPES = """
<robot name="six">
  <link name="base"/>
  <link name="l_rev"/><link name="l_cont"/><link name="l_pri"/>
  <link name="l_fix"/><link name="l_float"/><link name="l_plan"/>
  <joint name="rev" type="revolute">
    <parent link="base"/><child link="l_rev"/>
    <origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 0 2"/>
    <limit lower="-1.5" upper="2.5" effort="30" velocity="4"/>
  </joint>
  <joint name="cont" type="continuous">
    <parent link="base"/><child link="l_cont"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="6"/>
  </joint>
  <joint name="pri" type="prismatic">
    <parent link="base"/><child link="l_pri"/>
    <axis xyz="3 0 4"/>
    <limit effort="100" velocity="0.5"/>
  </joint>
  <joint name="fix" type="fixed">
    <parent link="base"/><child link="l_fix"/>
    <origin rpy="0.1 0.2 0.3"/>
  </joint>
  <joint name="flo" type="floating">
    <parent link="base"/><child link="l_float"/>
  </joint>
  <joint name="pla" type="planar">
    <parent link="base"/><child link="l_plan"/>
    <axis xyz="0 0 1"/>
  </joint>
</robot>
"""


@pytest.fixture(scope="module")
def six():
    return robodesc.loads(SIX_TYPES, format="urdf")


def test_all_six_joint_types(six):
    kinds = {name: j.type for name, j in six.joints.items()}
    assert kinds == {
        "rev": JointType.REVOLUTE,
        "cont": JointType.CONTINUOUS,
        "pri": JointType.PRISMATIC,
        "fix": JointType.FIXED,
        "flo": JointType.FLOATING,
        "pla": JointType.PLANAR,
    }
    assert six.joints["rev"].parent == "base" and six.joints["rev"].child == "l_rev"
    assert six.bodies["l_rev"].parent == "base"
    assert six.bodies["l_rev"].joints == ("rev",)
    # value counts: 1 + 1 + 1 + 0 + 7 + 3
    assert six.kinematics.nq == 13


def test_joint_origin_xyz_rpy(six):
    assert_close(six.joints["rev"].origin, pose_from_xyz_rpy([1, 2, 3], [0, 0, HALF_PI]))
    assert_close(six.joints["fix"].origin[:3, :3], rpy_to_matrix(0.1, 0.2, 0.3))
    assert_close(six.joints["fix"].origin[:3, 3], [0, 0, 0])
    assert_close(six.joints["flo"].origin, np.eye(4))
    # the child link sits at the joint origin as written
    assert_close(six.forward_kinematics()["l_rev"], six.joints["rev"].origin)


def test_axis_is_normalised(six):
    assert_close(six.joints["rev"].axis, [0, 0, 1])
    assert_close(six.joints["pri"].axis, [0.6, 0, 0.8])


def test_axis_defaults_to_x():
    model = loads(two_links(LIMIT))
    assert_close(model.joints["j"].axis, [1, 0, 0])


def test_limits(six):
    rev = six.joints["rev"].limits
    assert (rev.lower, rev.upper, rev.effort, rev.velocity) == (-1.5, 2.5, 30.0, 4.0)
    pri = six.joints["pri"].limits
    assert (pri.lower, pri.upper) == (0.0, 0.0)  # lower/upper default to 0
    assert (pri.effort, pri.velocity) == (100.0, 0.5)


def test_continuous_ignores_lower_and_upper(six):
    limits = six.joints["cont"].limits
    assert limits.lower is None and limits.upper is None
    assert (limits.effort, limits.velocity) == (5.0, 6.0)


def test_continuous_without_limit_is_unlimited():
    model = loads(two_links('<axis xyz="0 0 1"/>', kind="continuous"))
    limits = model.joints["j"].limits
    assert limits.lower is None and limits.upper is None


def test_dynamics():
    model = loads(two_links(LIMIT + '<dynamics damping="0.7" friction="0.2"/>'))
    assert (model.joints["j"].dynamics.damping, model.joints["j"].dynamics.friction) == (0.7, 0.2)
    model = loads(two_links(LIMIT + '<dynamics friction="0.3"/>'))
    assert (model.joints["j"].dynamics.damping, model.joints["j"].dynamics.friction) == (0.0, 0.3)
    model = loads(two_links(LIMIT))
    assert (model.joints["j"].dynamics.damping, model.joints["j"].dynamics.friction) == (0.0, 0.0)


def test_mimic():
    model = loads(
        """
        <robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="lead" type="revolute"><parent link="a"/><child link="b"/>
            <limit effort="1" velocity="1"/></joint>
          <joint name="f" type="revolute"><parent link="a"/><child link="c"/>
            <limit effort="1" velocity="1"/><mimic joint="lead" multiplier="-2" offset="0.25"/></joint>
          </robot>
        """
    )
    mimic = model.joints["f"].mimic
    assert (mimic.joint, mimic.multiplier, mimic.offset) == ("lead", -2.0, 0.25)
    assert model.joints["lead"].mimic is None
    assert not model.joints["f"].is_movable
    assert model.joints["lead"].is_movable


def test_mimic_defaults():
    model = loads(
        """
        <robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="lead" type="continuous"><parent link="a"/><child link="b"/></joint>
          <joint name="f" type="continuous"><parent link="a"/><child link="c"/><mimic joint="lead"/></joint>
        </robot>
        """
    )
    mimic = model.joints["f"].mimic
    assert (mimic.multiplier, mimic.offset) == (1.0, 0.0)


def test_safety_controller_and_calibration_are_kept_in_the_urdf_extras_of_the_joint():
    model = loads(
        two_links(
            LIMIT
            + '<safety_controller k_velocity="10" k_position="15" soft_lower_limit="-0.5" soft_upper_limit="0.5"/>'
            + '<calibration rising="0.1" falling="-0.2"/>'
        )
    )
    assert set(model.joints["j"].extras) == {"urdf"}  # URDF-only data never sits beside other formats' keys
    extras = model.joints["j"].extras["urdf"]
    assert extras["safety_controller"] == {
        "k_velocity": 10.0,
        "k_position": 15.0,
        "soft_lower_limit": -0.5,
        "soft_upper_limit": 0.5,
    }
    calibration = extras["calibration"]
    assert calibration["rising"] == 0.1
    assert calibration["falling"] == -0.2


def test_safety_controller_defaults_and_empty_calibration():
    model = loads(two_links(LIMIT + '<safety_controller k_velocity="3"/><calibration/>'))
    extras = model.joints["j"].extras["urdf"]
    assert extras["safety_controller"]["k_velocity"] == 3.0
    assert extras["safety_controller"]["k_position"] == 0.0
    assert extras["safety_controller"]["soft_lower_limit"] == 0.0
    assert extras["safety_controller"]["soft_upper_limit"] == 0.0
    assert extras["calibration"].get("rising") is None
    assert extras["calibration"].get("falling") is None


def test_safety_controller_needs_k_velocity():
    with pytest.raises(MissingAttribute):
        loads(two_links(LIMIT + '<safety_controller k_position="1"/>'))


INERTIAL = """
<robot name="r">
  <link name="a">
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="{rpy}"/>
      <mass value="2.5"/>
      <inertia ixx="1" ixy="0.1" ixz="0.2" iyy="2" iyz="0.3" izz="3"/>
    </inertial>
  </link>
</robot>
"""


def test_inertial_without_rotation():
    inertial = loads(INERTIAL.format(rpy="0 0 0")).bodies["a"].inertial
    assert inertial.mass == 2.5
    assert_close(inertial.com, [0.1, 0.2, 0.3])
    assert_close(inertial.inertia, [[1, 0.1, 0.2], [0.1, 2, 0.3], [0.2, 0.3, 3]])


def test_inertial_origin_rpy_rotates_the_tensor_into_body_axes():
    rpy = (0.3, -0.5, 1.2)
    inertial = loads(INERTIAL.format(rpy=" ".join(map(str, rpy)))).bodies["a"].inertial
    tensor = np.array([[1, 0.1, 0.2], [0.1, 2, 0.3], [0.2, 0.3, 3]])
    r = rpy_to_matrix(*rpy)
    assert_close(inertial.inertia, r @ tensor @ r.T)
    assert_close(inertial.com, [0.1, 0.2, 0.3])
    # same eigenvalues: a rotation, not some other transform
    assert_close(np.linalg.eigvalsh(inertial.inertia), np.linalg.eigvalsh(tensor))


def test_inertial_yaw_90_swaps_ixx_and_iyy_by_hand():
    text = INERTIAL.format(rpy=f"0 0 {HALF_PI}").replace('ixy="0.1" ixz="0.2"', 'ixy="0" ixz="0"')
    text = text.replace('iyz="0.3"', 'iyz="0"')
    inertial = loads(text).bodies["a"].inertial
    assert_close(inertial.inertia, np.diag([2.0, 1.0, 3.0]))


SHAPES = """
<robot name="r">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <material name="tex"><texture filename="skin.png"/></material>
  <link name="a">
    <visual name="v_box">
      <origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
      <material name="blue"/>
    </visual>
    <visual name="v_cyl">
      <geometry><cylinder radius="0.05" length="0.4"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material>
    </visual>
    <visual>
      <geometry><sphere radius="0.3"/></geometry>
      <material name="red"/>
    </visual>
    <visual>
      <geometry><capsule radius="0.02" length="0.5"/></geometry>
      <material name="tex"/>
    </visual>
    <collision name="c_mesh">
      <origin xyz="0 0 0.5"/>
      <geometry><mesh filename="meshes/part.stl" scale="2 3 4"/></geometry>
    </collision>
    <collision>
      <geometry><mesh filename="meshes/part.stl"/></geometry>
    </collision>
  </link>
</robot>
"""


@pytest.fixture()
def shapes_model(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "part.stl").write_bytes(b"solid x\nendsolid x\n")
    return robodesc.loads(SHAPES, format="urdf", base_dir=tmp_path)


def test_several_visuals_with_names_and_origins(shapes_model):
    body = shapes_model.bodies["a"]
    assert [v.name for v in body.visuals] == ["v_box", "v_cyl", None, None]
    assert_close(body.visuals[0].pose, pose_from_xyz_rpy([1, 0, 0], [0, 0, HALF_PI]))
    assert_close(body.visuals[1].pose, np.eye(4))
    assert [c.name for c in body.collisions] == ["c_mesh", None]
    assert_close(body.collisions[0].pose, pose_from_xyz_rpy([0, 0, 0.5], [0, 0, 0]))


def test_geometry_types(shapes_model):
    visuals = shapes_model.bodies["a"].visuals
    box, cyl, sph, cap = (v.geometry for v in visuals)
    assert isinstance(box, Box)
    assert_close(box.size, [0.1, 0.2, 0.3])
    assert isinstance(cyl, Cylinder) and (cyl.radius, cyl.length) == (0.05, 0.4)
    assert isinstance(sph, Sphere) and sph.radius == 0.3
    assert isinstance(cap, Capsule) and (cap.radius, cap.length) == (0.02, 0.5)


def test_mesh_scale_and_default_scale(shapes_model, tmp_path):
    scaled, plain = (c.geometry for c in shapes_model.bodies["a"].collisions)
    assert isinstance(scaled, Mesh) and isinstance(plain, Mesh)
    assert scaled.uri == "meshes/part.stl"
    assert_close(scaled.scale, [2, 3, 4])
    assert_close(plain.scale, [1, 1, 1])
    # relative mesh paths resolve against base_dir
    assert Path(scaled.resolved_path()) == tmp_path / "meshes" / "part.stl"


def test_robot_level_and_inline_materials(shapes_model):
    materials = shapes_model.materials
    visuals = shapes_model.bodies["a"].visuals
    assert_close(materials["blue"].color, [0, 0, 1, 1])
    assert materials["tex"].texture == "skin.png"
    # a visual naming a robot-level material gets its colour
    assert visuals[0].material.name == "blue"
    assert_close(visuals[0].material.color, [0, 0, 1, 1])
    # an inline definition is used, and becomes referable by name from later visuals
    assert_close(visuals[1].material.color, [1, 0, 0, 1])
    assert "red" in materials
    assert_close(visuals[2].material.color, [1, 0, 0, 1])
    assert visuals[3].material.texture == "skin.png"
    assert not [d for d in shapes_model.diagnostics if d.severity is Severity.WARNING]


def test_undefined_material_is_a_warning_not_an_error():
    model = loads(
        """
        <robot name="r">
          <material name="green"><color rgba="0 1 0 1"/></material>
          <link name="a">
            <visual><geometry><box size="1 1 1"/></geometry><material name="gren"/></visual>
          </link>
        </robot>
        """
    )
    warnings = [d for d in model.diagnostics if d.code == "undefined-material"]
    assert len(warnings) == 1
    assert warnings[0].severity is Severity.WARNING
    assert warnings[0].location.line == 4
    assert "green" in (warnings[0].suggestion or "")


def test_material_without_color_or_texture_is_a_warning():
    model = loads('<robot name="r"><material name="m"/><link name="a"/></robot>')
    assert [d.code for d in model.diagnostics] == ["empty-material"]
    assert "m" in model.materials


def test_material_rgba_needs_four_numbers():
    with pytest.raises(MalformedValue):
        loads('<robot name="r"><material name="m"><color rgba="1 0 0"/></material><link name="a"/></robot>')


EXTRAS = """<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="a">
    <sensor:camera name="cam">
      <sensor:fov>1.2</sensor:fov>
    </sensor:camera>
    <my_note kind="x">hello</my_note>
  </link>
  <link name="b"/>
  <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
  <gazebo reference="a">
    <material>Gazebo/Orange</material>
    <plugin name="p" filename="libp.so"><rate>10</rate></plugin>
  </gazebo>
  <transmission name="t">
    <type>transmission_interface/SimpleTransmission</type>
  </transmission>
  <ros2_control name="rc" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
  </ros2_control>
  <custom_thing answer="42"/>
  <xacro:property name="w" value="1"/>
</robot>
"""


@pytest.fixture(scope="module")
def extras_model():
    return robodesc.loads(EXTRAS, format="urdf")


def test_extension_elements_are_kept_with_raw_xml_and_lines(extras_model):
    by_tag = {e.tag: e for e in extras_model.extras}
    assert set(by_tag) == {"gazebo", "transmission", "ros2_control", "custom_thing", "xacro:property"}
    gazebo = by_tag["gazebo"]
    assert gazebo.owner == "a"
    assert gazebo.location.line == 10
    assert "Gazebo/Orange" in gazebo.xml
    assert 'filename="libp.so"' in gazebo.xml
    assert "<rate>10</rate>" in gazebo.xml
    assert by_tag["transmission"].location.line == 14
    assert "SimpleTransmission" in by_tag["transmission"].xml
    assert by_tag["ros2_control"].location.line == 17
    assert "mock_components/GenericSystem" in by_tag["ros2_control"].xml
    assert by_tag["custom_thing"].attributes == {"answer": "42"}
    assert by_tag["custom_thing"].location.line == 20
    assert by_tag["xacro:property"].attributes["value"] == "1"


def test_extras_keep_document_order(extras_model):
    assert [e.tag for e in extras_model.extras] == [
        "gazebo",
        "transmission",
        "ros2_control",
        "custom_thing",
        "xacro:property",
    ]


def test_unknown_elements_are_reported_as_info(extras_model):
    infos = [d for d in extras_model.diagnostics if d.code == "unknown-element"]
    assert all(d.severity is Severity.INFO for d in infos)
    mentioned = " ".join(d.message for d in infos)
    assert "custom_thing" in mentioned
    # the known extension tags are not "unknown"
    assert "<gazebo>" not in mentioned


def test_unknown_link_children_and_undeclared_prefixes_are_kept(extras_model):
    kept = extras_model.bodies["a"].extras["xml"]
    tags = [e.tag for e in kept]
    assert tags == ["sensor:camera", "my_note"]
    camera = kept[0]
    assert camera.owner == "a"
    assert camera.location.line == 3
    assert "<sensor:fov>1.2</sensor:fov>" in camera.xml
    assert "hello" in kept[1].xml


def test_raw_xml_of_an_extra_parses_back(extras_model):
    import xml.dom.minidom

    for extra in extras_model.extras:
        xml.dom.minidom.parseString(extra.xml.replace(":", "_"))  # well-formed


# -- mesh URIs -----------------------------------------------------------------------------------------

MESH_URDF = doc(
    """
    <robot name="r">
      <link name="a">
        <visual><geometry><mesh filename="{uri}"/></geometry></visual>
      </link>
    </robot>
    """
)


def mesh_of(model) -> Mesh:
    return model.bodies["a"].visuals[0].geometry


@pytest.fixture()
def package_tree(tmp_path):
    """tmp/ws/robodesc_testpkg_a1/meshes/base.stl, and an unrelated folder to load from."""
    pkg = tmp_path / "ws" / "robodesc_testpkg_a1"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "base.stl").write_bytes(b"not really an stl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return tmp_path / "ws", pkg, elsewhere


def test_package_uri_resolved_via_search_paths(package_tree, monkeypatch):
    ws, pkg, elsewhere = package_tree
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    text = MESH_URDF.format(uri="package://robodesc_testpkg_a1/meshes/base.stl")
    model = robodesc.loads(text, format="urdf", base_dir=elsewhere, search_paths=[ws])
    assert Path(mesh_of(model).resolved_path()) == pkg / "meshes" / "base.stl"
    assert not [d for d in model.diagnostics if d.code == "mesh-not-found"]


def test_package_uri_resolved_via_ros_package_path(package_tree, monkeypatch):
    ws, pkg, elsewhere = package_tree
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(ws))
    text = MESH_URDF.format(uri="package://robodesc_testpkg_a1/meshes/base.stl")
    model = robodesc.loads(text, format="urdf", base_dir=elsewhere)
    assert Path(mesh_of(model).resolved_path()) == pkg / "meshes" / "base.stl"


def test_package_uri_via_load_search_paths(package_tree, monkeypatch):
    ws, pkg, elsewhere = package_tree
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    path = elsewhere / "robot.urdf"
    path.write_text(MESH_URDF.format(uri="package://robodesc_testpkg_a1/meshes/base.stl"))
    model = robodesc.load(path, search_paths=[ws])
    assert Path(mesh_of(model).resolved_path()) == pkg / "meshes" / "base.stl"


def test_relative_mesh_resolves_against_the_file_folder(tmp_path):
    (tmp_path / "desc" / "meshes").mkdir(parents=True)
    (tmp_path / "desc" / "meshes" / "m.dae").write_text("<garbage")
    path = tmp_path / "desc" / "robot.urdf"
    path.write_text(MESH_URDF.format(uri="meshes/m.dae"))
    model = robodesc.load(path)
    assert Path(mesh_of(model).resolved_path()) == tmp_path / "desc" / "meshes" / "m.dae"


def test_file_uri_resolves(tmp_path):
    mesh = tmp_path / "abs.obj"
    mesh.write_text("o garbage")
    model = robodesc.loads(MESH_URDF.format(uri=f"file://{mesh}"), format="urdf", base_dir=tmp_path)
    assert Path(mesh_of(model).resolved_path()) == mesh


def test_unresolvable_mesh_is_a_warning_and_resolved_path_lists_what_was_tried(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    search = tmp_path / "search_root"
    search.mkdir()
    text = MESH_URDF.format(uri="package://robodesc_no_such_pkg_zz9/meshes/x.stl")
    model = robodesc.loads(text, format="urdf", base_dir=tmp_path, search_paths=[search])
    misses = [d for d in model.diagnostics if d.code == "mesh-not-found"]
    assert len(misses) == 1
    assert misses[0].severity is Severity.WARNING
    assert misses[0].location.line == 3
    assert "robodesc_no_such_pkg_zz9" in misses[0].message
    mesh = mesh_of(model)
    with pytest.raises(ResourceNotFound) as info:
        mesh.resolved_path()
    err = info.value
    assert err.tried, "the error must list where robodesc looked"
    expected = str(search / "robodesc_no_such_pkg_zz9" / "meshes" / "x.stl")
    assert expected in err.tried
    assert expected in str(err)


def test_a_confined_load_refuses_a_mesh_outside_its_folders_at_the_mesh(tmp_path):
    text = MESH_URDF.format(uri="../outside.stl")
    (tmp_path / "inside").mkdir()
    with pytest.raises(robodesc.ResourceRefused) as info:
        robodesc.loads(text, format="urdf", base_dir=tmp_path / "inside", confine=True)
    assert info.value.location.line == 3
    assert info.value.location.element.endswith("/visual/geometry/mesh")
    unconfined = robodesc.loads(text, format="urdf", base_dir=tmp_path / "inside")
    assert [d.location.line for d in unconfined.diagnostics if d.code == "mesh-not-found"] == [3]


def test_unresolvable_relative_mesh(tmp_path):
    model = robodesc.loads(MESH_URDF.format(uri="nope/missing.stl"), format="urdf", base_dir=tmp_path)
    assert [d.code for d in model.diagnostics] == ["mesh-not-found"]
    with pytest.raises(ResourceNotFound) as info:
        mesh_of(model).resolved_path()
    assert str(tmp_path / "nope" / "missing.stl") in str(info.value)


def test_loading_never_reads_mesh_files(tmp_path, monkeypatch):
    mesh = tmp_path / "garbage.stl"
    mesh.write_bytes(b"\x00\xff" * 1000 + b"this is not a mesh")
    path = tmp_path / "robot.urdf"
    path.write_text(MESH_URDF.format(uri="garbage.stl"))

    import builtins
    import io

    real_open = io.open

    def guarded_open(file, *args, **kwargs):
        if isinstance(file, (str, Path)) and Path(file).name == "garbage.stl":
            raise AssertionError("robodesc opened a mesh file while loading")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(builtins, "open", guarded_open)
    model = robodesc.load(path)
    monkeypatch.undo()
    assert Path(mesh_of(model).resolved_path()) == mesh
    assert not model.diagnostics


# =====================================================================================================
# Error paths: the right error class, the file and line in the message, a suggestion where known
# =====================================================================================================


def load_error(tmp_path, text: str, cls: type, line: int | None):
    path = tmp_path / "robot.urdf"
    path.write_text(doc(text))
    with pytest.raises(cls) as info:
        robodesc.load(path)
    err = info.value
    assert isinstance(err, RobodescError)
    message = str(err)
    assert str(path) in message, message
    assert err.file == str(path)
    if line is not None:
        assert err.line == line, message
        assert f"{path}:{line}" in message, message
    return err


def test_unknown_joint_type_suggests_the_right_one(tmp_path):
    err = load_error(tmp_path, two_links(LIMIT, kind="revolut"), UnsupportedJointType, 4)
    assert "revolut" in str(err)
    assert "did you mean" in err.suggestion
    assert "'revolute'" in err.suggestion
    assert "joint[@name='j']" in (err.element or "")


def test_unknown_joint_type_without_close_match_lists_the_types(tmp_path):
    err = load_error(tmp_path, two_links("", kind="hinge"), UnsupportedJointType, 4)
    assert "revolute" in err.suggestion and "fixed" in err.suggestion


def test_joint_without_type(tmp_path):
    text = two_links("", kind="X").replace(' type="X"', "")
    err = load_error(tmp_path, text, MissingAttribute, 4)
    assert "type" in str(err)


@pytest.mark.parametrize("end", ["parent", "child"])
def test_missing_link_reference(tmp_path, end):
    text = two_links(LIMIT).replace(f'<{end} link="{"a" if end == "parent" else "b"}"/>', f'<{end} link="bb"/>')
    err = load_error(tmp_path, text, UnresolvedReference, 5 if end == "parent" else 6)  # at the <parent>/<child>
    assert "'bb'" in str(err)
    assert err.suggestion


def test_missing_link_reference_suggests_a_close_name(tmp_path):
    text = two_links(LIMIT).replace('<child link="b"/>', '<child link="bee"/>').replace('name="b"', 'name="be"')
    err = load_error(tmp_path, text, UnresolvedReference, 6)  # the <child> line
    assert "'be'" in err.suggestion


def test_joint_without_parent_element(tmp_path):
    text = two_links(LIMIT).replace('<parent link="a"/>', "")
    load_error(tmp_path, text, MissingAttribute, 4)


def test_duplicate_link(tmp_path):
    text = """
    <robot name="r">
      <link name="a"/>
      <link name="b"/>
      <link name="a"/>
    </robot>
    """
    err = load_error(tmp_path, text, DuplicateName, 4)
    assert "'a'" in str(err)
    assert err.suggestion


def test_duplicate_joint(tmp_path):
    text = """
    <robot name="r">
      <link name="a"/><link name="b"/><link name="c"/>
      <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
      <joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>
    </robot>
    """
    err = load_error(tmp_path, text, DuplicateName, 4)
    assert "'j'" in str(err)


def test_duplicate_robot_level_material(tmp_path):
    text = """
    <robot name="r">
      <material name="m"><color rgba="1 0 0 1"/></material>
      <link name="a"/>
      <material name="m"><color rgba="0 1 0 1"/></material>
    </robot>
    """
    err = load_error(tmp_path, text, DuplicateName, 4)
    assert "'m'" in str(err)


def test_inline_material_may_share_a_name_with_a_robot_level_one():
    # only robot-level materials are checked for duplicates (urdfdom does the same)
    model = loads(
        """
        <robot name="r">
          <link name="a"><visual><geometry><box size="1 1 1"/></geometry>
            <material name="m"><color rgba="1 0 0 1"/></material></visual></link>
          <material name="m"><color rgba="0 1 0 1"/></material>
        </robot>
        """
    )
    assert "m" in model.materials


def test_two_root_links(tmp_path):
    text = """
    <robot name="r">
      <link name="a"/>
      <link name="b"/>
    </robot>
    """
    err = load_error(tmp_path, text, InvalidTree, 1)
    assert "root" in str(err)
    assert "'b'" in err.suggestion


def test_loop_without_root(tmp_path):
    text = """
    <robot name="r">
      <link name="a"/><link name="b"/>
      <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
      <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint>
    </robot>
    """
    err = load_error(tmp_path, text, InvalidTree, 1)
    assert "root" in str(err)
    assert err.suggestion


def test_loop_detached_from_the_root(tmp_path):
    text = """
    <robot name="r">
      <link name="root"/>
      <link name="a"/><link name="b"/>
      <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
      <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint>
    </robot>
    """
    err = load_error(tmp_path, text, InvalidTree, 3)
    assert "loop" in str(err)


def test_link_child_of_two_joints(tmp_path):
    text = """
    <robot name="r">
      <link name="a"/><link name="b"/>
      <joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>
      <joint name="j2" type="fixed"><parent link="a"/><child link="b"/></joint>
    </robot>
    """
    err = load_error(tmp_path, text, InvalidTree, 4)
    assert "'j1'" in str(err) and "'j2'" in str(err)
    assert err.suggestion


def test_mimic_of_unknown_joint_loads_with_a_warning_and_holds_the_follower_at_its_offset():
    # urdfdom does not check the name and yourdfpy holds the follower at its offset; robodesc does
    # the same and says so.
    model = loads(
        """
        <robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="finger" type="continuous"><parent link="a"/><child link="b"/></joint>
          <joint name="f2" type="prismatic"><parent link="a"/><child link="c"/><axis xyz="1 0 0"/>
            <limit effort="1" velocity="1"/><mimic joint="fingr" offset="0.25"/></joint>
        </robot>
        """
    )
    (diag,) = [d for d in model.diagnostics if d.code == "mimic-unknown-joint"]
    assert diag.severity is Severity.WARNING
    assert "'fingr'" in diag.message and "'finger'" in diag.suggestion
    assert_close(model.forward_kinematics({"finger": 1.0})["c"][:3, 3], [0.25, 0, 0])


def test_mimic_without_joint_attribute(tmp_path):
    text = two_links(LIMIT + '<mimic multiplier="2"/>')
    load_error(tmp_path, text, MissingAttribute, 7)


@pytest.mark.parametrize(
    "bad", ["abc", "1,5", "1.2.3", "0x10", "", "1e", ".", "1_000", "--1", "1.0abc", "\u0661", "\uff11"]
)
def test_malformed_number_in_a_joint(tmp_path, bad):
    text = two_links(f'<limit lower="-1" upper="1" effort="{bad}" velocity="2"/>')
    err = load_error(tmp_path, text, MalformedValue, 7)
    assert "effort" in str(err)
    assert err.suggestion


@pytest.mark.parametrize("good", ["1", "1.", ".5", "+3", "1e5", "1.E-3", " 2", "1e-400", "-0"])
def test_number_spellings_urdfdom_accepts(good):
    text = two_links(f'<limit lower="-1" upper="1" effort="{good}" velocity="2"/>')
    assert loads(text).joints["j"].limits.effort == float(good)


def test_malformed_number_inside_a_link_is_an_error_too(tmp_path):
    # urdfdom only logs link-level errors; robodesc rejects malformed numbers anywhere
    text = """
    <robot name="r">
      <link name="a">
        <inertial>
          <mass value="1,5"/>
          <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
        </inertial>
      </link>
    </robot>
    """
    err = load_error(tmp_path, text, MalformedValue, 4)
    assert "mass" in (err.element or "")


@pytest.mark.parametrize("bad", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_rejected(tmp_path, bad):
    text = """
    <robot name="r">
      <link name="a">
        <visual><geometry><sphere radius="{bad}"/></geometry></visual>
      </link>
    </robot>
    """.replace("{bad}", bad)
    err = load_error(tmp_path, text, MalformedValue, 3)
    assert "radius" in str(err)


@pytest.mark.parametrize("bad", ["nan 0 0", "0 inf 0"])
def test_non_finite_numbers_in_an_origin_are_rejected(tmp_path, bad):
    err = load_error(tmp_path, two_links(f'<origin xyz="{bad}"/>' + LIMIT), MalformedPose, 7)
    assert "xyz" in str(err)


@pytest.mark.parametrize(
    "snippet, attribute, cls",
    [
        ('<origin xyz="1 2"/>', "xyz", MalformedPose),
        ('<origin xyz="1 2 3 4"/>', "xyz", MalformedPose),
        ('<origin rpy="0 0"/>', "rpy", MalformedPose),
        ('<origin rpy="0 0 0 0"/>', "rpy", MalformedPose),
        ('<origin xyz="1 2 x"/>', "xyz", MalformedPose),
        ('<axis xyz="0 1"/>', "xyz", MalformedValue),
    ],
)
def test_wrong_vector_length_in_a_joint(tmp_path, snippet, attribute, cls):
    err = load_error(tmp_path, two_links(snippet + LIMIT), cls, 7)
    assert attribute in str(err)
    assert err.suggestion


@pytest.mark.parametrize("size", ["1 1", "1 1 1 1", ""])
def test_wrong_vector_length_in_box_size(tmp_path, size):
    text = """
    <robot name="r">
      <link name="a">
        <collision><geometry><box size="SIZE"/></geometry></collision>
      </link>
    </robot>
    """.replace("SIZE", size)
    err = load_error(tmp_path, text, MalformedValue, 3)
    assert "size" in str(err)


def test_wrong_vector_length_in_a_visual_origin(tmp_path):
    text = """
    <robot name="r">
      <link name="a">
        <visual>
          <origin rpy="0 0"/>
          <geometry><sphere radius="1"/></geometry>
        </visual>
      </link>
    </robot>
    """
    load_error(tmp_path, text, MalformedPose, 4)


def test_missing_robot_name(tmp_path):
    err = load_error(tmp_path, '<?xml version="1.0"?>\n<robot>\n  <link name="a"/>\n</robot>\n', MissingAttribute, 2)
    assert "name" in str(err)
    assert err.suggestion


def test_wrong_root_element(tmp_path):
    err = load_error(tmp_path, '<sdf version="1.7">\n  <model name="m"/>\n</sdf>\n', MissingRootElement, 1)
    assert "<sdf>" in str(err)
    assert err.suggestion


@pytest.mark.parametrize("content", ["", "   \n\n  "])
def test_empty_file(tmp_path, content):
    path = tmp_path / "empty.urdf"
    path.write_text(content)
    with pytest.raises(MissingRootElement) as info:
        robodesc.load(path)
    assert str(path) in str(info.value)
    assert "empty" in str(info.value)


def test_robot_without_links(tmp_path):
    load_error(tmp_path, '<robot name="r">\n</robot>\n', InvalidTree, 1)


def test_not_well_formed_xml(tmp_path):
    text = """
    <robot name="r">
      <link name="a">
        <visual>
      </link>
    </robot>
    """
    err = load_error(tmp_path, text, XMLSyntaxError, 4)
    assert "well-formed" in str(err) or "mismatched" in str(err)


def test_not_xml_at_all(tmp_path):
    load_error(tmp_path, "this is not xml\n", XMLSyntaxError, 1)


@pytest.mark.parametrize("kind", ["revolute", "prismatic"])
def test_joint_without_limit(tmp_path, kind):
    err = load_error(tmp_path, two_links('<axis xyz="0 0 1"/>', kind=kind), MissingAttribute, 4)
    assert "limit" in str(err)
    assert "<limit" in err.suggestion


@pytest.mark.parametrize("missing", ["effort", "velocity"])
def test_limit_without_effort_or_velocity(tmp_path, missing):
    limit = LIMIT.replace(f' {missing}="{"10" if missing == "effort" else "2"}"', "")
    assert missing not in limit
    err = load_error(tmp_path, two_links(limit), MissingAttribute, 7)
    assert missing in str(err)


def test_bad_limit_on_a_fixed_joint_is_still_an_error(tmp_path):
    load_error(tmp_path, two_links('<limit lower="x" effort="1" velocity="1"/>', kind="fixed"), MalformedValue, 7)


def test_dynamics_without_damping_and_friction(tmp_path):
    err = load_error(tmp_path, two_links(LIMIT + "\n<dynamics/>"), MissingAttribute, 8)
    assert "damping" in str(err)
    assert err.suggestion


@pytest.mark.parametrize("kind", ["revolute", "prismatic", "continuous", "planar"])
def test_zero_axis_is_rejected(tmp_path, kind):
    err = load_error(tmp_path, two_links('<axis xyz="0 0 0"/>' + LIMIT, kind=kind), InvalidValue, 7)
    assert "axis" in str(err)
    assert err.suggestion


@pytest.mark.parametrize("kind", ["fixed", "floating"])
def test_zero_axis_is_ignored_where_there_is_no_axis(kind):
    assert loads(two_links('<axis xyz="0 0 0"/>', kind=kind)).joints["j"].type.value == kind


def test_unsupported_version(tmp_path):
    err = load_error(tmp_path, '<robot name="r" version="2.0">\n  <link name="a"/>\n</robot>\n', MalformedValue, 1)
    assert "2.0" in str(err)
    assert err.suggestion


def test_billion_laughs_is_refused(tmp_path):
    text = '<?xml version="1.0"?>\n<!DOCTYPE robot [\n  <!ENTITY lol "lol">\n'
    for i in range(1, 10):
        prev = "lol" if i == 1 else f"lol{i - 1}"
        text += f'  <!ENTITY lol{i} "{("&" + prev + ";") * 10}">\n'
    text += ']>\n<robot name="&lol9;">\n  <link name="a"/>\n</robot>\n'
    path = tmp_path / "bomb.urdf"
    path.write_text(text)
    with pytest.raises(UnsafeXML) as info:
        robodesc.load(path)
    assert str(path) in str(info.value)
    assert info.value.line is not None
    with pytest.raises(UnsafeXML):
        robodesc.loads(text, format="urdf")


def test_external_entity_is_refused(tmp_path):
    text = (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE robot [\n  <!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
        '<robot name="&secret;">\n  <link name="a"/>\n</robot>\n'
    )
    path = tmp_path / "xxe.urdf"
    path.write_text(text)
    with pytest.raises(UnsafeXML) as info:
        robodesc.load(path)
    assert str(path) in str(info.value)
    assert "root:" not in str(info.value)  # nothing from /etc/passwd leaks into the message


def test_error_codes_are_stable(tmp_path):
    err = load_error(tmp_path, two_links(LIMIT, kind="revolut"), UnsupportedJointType, 4)
    assert err.code == "unsupported-joint-type"


# =====================================================================================================
# Divergences from urdfdom that the stated policy does not allow (kept out of the main suite)
# =====================================================================================================


def test_axis_element_without_xyz_uses_x_and_warns():
    # urdfdom reads a zero axis here; yourdfpy (the conformance reference) uses 1 0 0, and so does robodesc.
    model = loads(two_links("<axis/>" + LIMIT))
    assert_close(model.joints["j"].axis, [1, 0, 0])
    assert [d.code for d in model.diagnostics] == ["axis-without-xyz"]


@pytest.mark.parametrize("padded", ["1 ", " 2.5  "])
def test_spaces_around_a_number_are_accepted(padded):
    # urdfdom refuses a trailing space; robodesc, like yourdfpy, reads the number.
    model = loads(two_links(f'<limit effort="{padded}" velocity="1"/>'))
    assert model.joints["j"].limits.effort == float(padded)


def test_robot_level_material_takes_precedence_over_an_inline_one():
    model = loads(
        """
        <robot name="r">
          <material name="m"><color rgba="0 1 0 1"/></material>
          <link name="a"><visual><geometry><box size="1 1 1"/></geometry>
            <material name="m"><color rgba="1 0 0 1"/></material></visual></link>
        </robot>
        """
    )
    assert_close(model.bodies["a"].visuals[0].material.color, [0, 1, 0, 1])


@pytest.mark.parametrize(
    "link",
    [
        '<link name="a"><visual><geometry><box/></geometry></visual></link>',
        '<link name="a"><visual><geometry><sphere/></geometry></visual></link>',
        '<link name="a"><visual><geometry><cone radius="1"/></geometry></visual></link>',
        '<link name="a"><visual><origin xyz="0 0 0"/></visual></link>',
        "<link/>",
    ],
)
def test_shape_errors_that_yourdfpy_also_refuses_reject_the_model(link):
    # urdfdom only logs these; yourdfpy (the conformance reference) refuses them, so robodesc does too.
    with pytest.raises(RobodescError):
        loads(f'<robot name="r">{link}</robot>')


@pytest.mark.parametrize(
    "inertial",
    [
        '<inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>',
        '<inertial><mass value="2"/></inertial>',
    ],
)
def test_incomplete_inertial_loads_without_an_inertial_and_reports_it(inertial):
    model = loads(f'<robot name="r"><link name="a">{inertial}</link></robot>')
    assert model.bodies["a"].inertial is None
    assert [d.code for d in model.diagnostics] == ["incomplete-inertial"]
    assert model.diagnostics[0].location.line == 1


def test_mesh_without_filename_is_left_out_and_reported():
    model = loads(
        '<robot name="r"><link name="a"><visual><geometry><mesh/></geometry></visual>'
        '<visual><geometry><sphere radius="1"/></geometry></visual></link></robot>'
    )
    assert [type(v.geometry).__name__ for v in model.bodies["a"].visuals] == ["Sphere"]
    assert [d.code for d in model.diagnostics] == ["mesh-without-filename"]


def test_unknown_xml_encoding_is_an_xml_syntax_error(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text('<?xml version="1.0" encoding="no-such-encoding"?>\n<robot name="r"><link name="a"/></robot>\n')
    with pytest.raises(XMLSyntaxError) as info:
        robodesc.load(path)
    assert str(path) in str(info.value)


# =====================================================================================================
# Fuzz-ish: mutated versions of the demo arm either load or raise a RobodescError, nothing else
# =====================================================================================================

_ATTRIBUTE = re.compile(r'\s[\w:]+="[^"]*"')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ELEMENT = re.compile(
    r"<(link|joint|material|visual|collision|inertial|origin|axis|limit|mimic)\b.*?(?:/>|</\1>)", re.S
)
_GARBAGE = ["abc", "nan", "inf", "", "1e999", "1,5", "--1", "0x1F", "1 2", "\u0661", "1_0", " ", "&amp;", "-"]


def _mutate(text: str, rng: random.Random) -> str:
    kind = rng.randrange(5)
    pattern = {1: _ATTRIBUTE, 2: _NUMBER, 3: _ELEMENT, 4: _ELEMENT}.get(kind)
    matches = list(pattern.finditer(text)) if pattern is not None else []
    if not matches:  # truncate (also the fallback when there is nothing left to mutate)
        return text[: rng.randrange(len(text))]
    m = rng.choice(matches)
    if kind == 1:  # delete an attribute
        return text[: m.start()] + text[m.end() :]
    if kind == 2:  # replace a number with garbage
        return text[: m.start()] + rng.choice(_GARBAGE) + text[m.end() :]
    if kind == 3:  # duplicate an element
        return text[: m.end()] + "\n" + m.group(0) + text[m.end() :]
    return text[: m.start()] + text[m.end() :]  # delete an element


def _mutations(count: int, seed: int) -> list[str]:
    original = ARM.read_text()
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = original
        for _ in range(rng.choice((1, 1, 2, 3))):
            if text:
                text = _mutate(text, rng)
        out.append(text)
    return out


def test_fuzzed_arm_loads_or_raises_robodesc_error():
    mutants = _mutations(200, seed=20240611)
    assert len(set(mutants)) > 150  # the mutations really differ
    loaded = rejected = 0
    foreign = []
    for i, text in enumerate(mutants):
        try:
            model = robodesc.loads(text, format="urdf")
            model.forward_kinematics()
            loaded += 1
        except robodesc.PluginCrash as exc:  # the reader's own exception, wrapped: a bug
            foreign.append((i, f"{type(exc.original).__name__}: {exc.original}"))
        except RobodescError:
            rejected += 1
        except Exception as exc:  # noqa: BLE001 - this is what the test looks for
            foreign.append((i, f"{type(exc).__name__}: {exc}"))
    assert not foreign, f"non-robodesc exceptions escaped: {foreign[:5]}"
    # both outcomes happen, so the test exercises the error paths and the happy path
    assert loaded > 10 and rejected > 10


def test_the_unmutated_arm_loads():
    model = robodesc.load(ARM)
    assert model.name == "demo_arm"
    assert len(model.bodies) == 8
    assert len(model.joints) == 7


# =====================================================================================================
# Details where urdfdom and the references decide
# =====================================================================================================


def test_only_the_first_inertial_of_a_link_counts():
    model = loads(
        """
        <robot name="r"><link name="a">
          <inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
          <inertial><mass value="5"/></inertial>
        </link></robot>
        """
    )
    assert model.bodies["a"].inertial.mass == 2
    assert not model.diagnostics


def test_mimic_on_a_multi_valued_joint_is_ignored_with_a_warning():
    model = loads(
        """
        <robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="lead" type="continuous"><parent link="a"/><child link="b"/></joint>
          <joint name="plane" type="planar"><parent link="a"/><child link="c"/><mimic joint="lead"/></joint>
        </robot>
        """
    )
    assert model.joints["plane"].mimic is None
    assert [d.code for d in model.diagnostics] == ["mimic-ignored"]
    model.forward_kinematics({"lead": 0.2})  # kinematics work


def test_a_mimic_on_a_fixed_joint_is_harmless_and_kept():
    model = loads(
        """
        <robot name="r">
          <link name="a"/><link name="b"/><link name="c"/>
          <joint name="lead" type="continuous"><parent link="a"/><child link="b"/></joint>
          <joint name="weld" type="fixed"><parent link="a"/><child link="c"/><mimic joint="lead"/></joint>
        </robot>
        """
    )
    assert model.joints["weld"].mimic.joint == "lead"
    assert not model.diagnostics


def test_a_mesh_uri_naming_a_folder_does_not_resolve(tmp_path):
    (tmp_path / "meshes").mkdir()
    model = robodesc.loads(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="meshes"/></geometry></visual></link></robot>',
        format="urdf",
        base_dir=tmp_path,
    )
    assert model.bodies["a"].visuals[0].geometry.path is None
    assert [d.code for d in model.diagnostics] == ["mesh-not-found"]


# =====================================================================================================
# Found by fuzzing: each input once crashed, hung or misreported; now a result or a RobodescError
# =====================================================================================================


@pytest.mark.parametrize(
    ("xyz", "expected"),
    [("1e200 0 0", [1, 0, 0]), ("0 1e-200 0", [0, 1, 0]), ("-1e308 0 -1e308", [-(0.5**0.5), 0, -(0.5**0.5)])],
)
def test_a_huge_or_tiny_axis_is_normalised_not_zeroed(xyz, expected):
    # the length came from a sum of squares: 1e200 overflowed to inf (a silently zero axis), 1e-200
    # underflowed to 0 (an error for a valid direction)
    model = loads(
        f"""
        <robot name="r"><link name="a"/><link name="b"/>
          <joint name="j" type="continuous"><parent link="a"/><child link="b"/><axis xyz="{xyz}"/></joint>
        </robot>
        """
    )
    assert_close(model.joints["j"].axis, expected)


def test_a_long_unconnected_loop_is_reported_without_quadratic_work():
    # finding the stray link rebuilt a set of the reached links for every link: minutes on 20000 links
    links = "".join(f'<link name="l{i}"/>' for i in range(3000))
    chain = "".join(
        f'<joint name="j{i}" type="fixed"><parent link="l{i}"/><child link="l{i + 1}"/></joint>' for i in range(2999)
    )
    loop = (
        '<link name="x"/><link name="y"/><joint name="xy" type="fixed"><parent link="x"/><child link="y"/></joint>'
        '<joint name="yx" type="fixed"><parent link="y"/><child link="x"/></joint>'
    )
    with pytest.raises(InvalidTree, match="'x' is in a loop") as info:
        robodesc.loads(f'<robot name="r">{links}{chain}\n{loop}</robot>', format="urdf")
    assert info.value.line == 2


def test_elements_nested_absurdly_deep_are_refused_with_the_line(tmp_path):
    # deeper than the reference parsers (TinyXML2) read; the readers would recurse past Python's limit
    path = tmp_path / "deep.urdf"
    path.write_text('<robot name="r"><link name="a"/>\n<gazebo>' + "<x>" * 600 + "</x>" * 600 + "</gazebo></robot>")
    with pytest.raises(XMLSyntaxError, match="nest more than 499") as info:
        robodesc.load(path)
    assert info.value.file == str(path) and info.value.line == 2
    assert robodesc.check(path).failed


def test_check_survives_an_inertia_whose_symmetric_part_overflows():
    # (I + I.T) / 2 overflowed to inf for ixz=1e308 and numpy's eigvalsh raised LinAlgError out of check()
    model = loads(
        """
        <robot name="r"><link name="a"><inertial><mass value="1"/>
          <inertia ixx="1" ixy="0" ixz="1e308" iyy="1" iyz="0" izz="1"/></inertial></link></robot>
        """
    )
    report = robodesc.check(model)
    assert "inertia-not-positive" in [d.code for d in report.diagnostics]
