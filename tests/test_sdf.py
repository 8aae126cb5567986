"""The SDFormat reader: every construct it models, per version, and what it keeps.

Each test loads a small handwritten SDF and checks what libsdformat 16 would make of it: names
scoped with '::', world poses of links and frames, joint origins and axes, limits, inertials.
Errors and includes are in test_sdf_errors.py and test_sdf_includes.py.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest
from conftest import assert_close

import robodesc
from robodesc import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Geometry,
    Heightfield,
    JointType,
    Mesh,
    Plane,
    Severity,
    Sphere,
)
from robodesc.core.transforms import make_pose, pose_from_xyz_rpy, quat_to_matrix, rpy_to_matrix

HALF_PI = math.pi / 2


def sdf(body: str, version: str = "1.9", name: str = "m") -> str:
    """A model file holding `body`."""
    return f'<sdf version="{version}"><model name="{name}">{textwrap.dedent(body)}</model></sdf>'


def world(body: str, version: str = "1.9") -> str:
    return f'<sdf version="{version}"><world name="w">{textwrap.dedent(body)}</world></sdf>'


def loads(text: str, **kw) -> robodesc.Model:
    return robodesc.loads(text, format="sdf", **kw)


def translation(x, y, z):
    return make_pose(None, [x, y, z])


# =====================================================================================================
# The format and the model's shape
# =====================================================================================================


def test_sdf_is_a_registered_format_found_by_extension_and_content():
    spec = {f.name: f for f in robodesc.formats()}["sdf"]
    assert ".sdf" in spec.extensions and ".world" in spec.extensions
    model = robodesc.loads(sdf('<link name="a"/>'))  # no format given: sniffed from <sdf>
    assert model.format == "sdf"


def test_a_model_file_has_a_world_root_and_links_by_name():
    model = loads(sdf('<link name="a"/><link name="b"/>'))
    assert model.name == "m"
    assert list(model.bodies) == ["world", "a", "b"]
    assert model.root.name == "world"
    assert model.bodies["a"].parent == "world" and model.bodies["a"].joints == ()


def test_a_link_without_inertial_gets_libsdformat_defaults():
    inertial = loads(sdf('<link name="a"/>')).bodies["a"].inertial
    assert inertial.mass == 1.0
    assert_close(inertial.com, [0, 0, 0])
    assert_close(inertial.inertia, np.eye(3))


def test_inertial_pose_and_tensor_are_expressed_about_the_com_in_link_axes():
    model = loads(
        sdf(
            """
            <link name="a">
              <inertial>
                <pose>0.1 0.2 0.3 0 0 1.5707963267948966</pose>
                <mass>2.5</mass>
                <inertia><ixx>1</ixx><iyy>2</iyy><izz>3</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
              </inertial>
            </link>
            """
        )
    )
    inertial = model.bodies["a"].inertial
    assert inertial.mass == 2.5
    assert_close(inertial.com, [0.1, 0.2, 0.3])
    assert_close(inertial.inertia, np.diag([2.0, 1.0, 3.0]))  # x and y swap under a quarter turn about z


def test_an_inertial_without_a_pose_keeps_its_tensor_as_written():
    """In the link frame the tensor is the one written, bit for bit: off-diagonal products of either sign,
    zeros and moments of very different sizes."""
    moments = "<ixx>0.3</ixx><iyy>0.2</iyy><izz>0.25</izz><ixy>-0.01</ixy><ixz>0</ixz><iyz>1e-300</iyz>"
    model = loads(sdf(f'<link name="a"><inertial><mass>2</mass><inertia>{moments}</inertia></inertial></link>'))
    inertia = model.bodies["a"].inertial.inertia
    expected = np.array([[0.3, -0.01, 0.0], [-0.01, 0.2, 1e-300], [0.0, 1e-300, 0.25]])
    assert inertia.tobytes() == expected.tobytes()
    assert_close(model.bodies["a"].inertial.com, [0, 0, 0])


def test_auto_inertia_from_collisions_sdf_1_11():
    model = loads(
        sdf(
            """
            <link name="a">
              <inertial auto="true"><density>6</density></inertial>
              <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
            </link>
            <link name="b">
              <inertial auto="true"><mass>6</mass></inertial>
              <collision name="up"><pose>0 0 0.25 0 0 0</pose><geometry><box><size>1 1 0.5</size></box></geometry>
                </collision>
              <collision name="down"><pose>0 0 -0.25 0 0 0</pose><geometry><box><size>1 1 0.5</size></box></geometry>
                </collision>
            </link>
            """,
            version="1.11",
        )
    )
    for name in ("a", "b"):
        inertial = model.bodies[name].inertial
        assert inertial.mass == pytest.approx(6.0)
        assert_close(inertial.com, [0, 0, 0])
        assert_close(inertial.inertia, np.eye(3))  # a 6 kg unit cube


def test_a_model_file_is_placed_by_its_own_pose():
    model = loads(sdf('<pose>1 2 3 0 0 0</pose><link name="a"><pose>0 0 1 0 0 0</pose></link>'))
    assert_close(model.forward_kinematics()["a"], translation(1, 2, 4))


# =====================================================================================================
# Poses: rotation formats, degrees, versions
# =====================================================================================================


def test_pose_in_quaternion_xyzw_and_in_degrees_sdf_1_9():
    model = loads(
        sdf(
            """
            <link name="q"><pose rotation_format="quat_xyzw">1 2 3 0 0 0.7071068 0.7071068</pose></link>
            <link name="d"><pose degrees="true">1 2 3 90 0 0</pose></link>
            <link name="e"><pose/></link>
            """
        )
    )
    poses = model.forward_kinematics()
    assert_close(poses["q"], make_pose(quat_to_matrix([0.7071068, 0, 0, 0.7071068]), [1, 2, 3]), atol=1e-7)
    assert_close(poses["d"], pose_from_xyz_rpy([1, 2, 3], [HALF_PI, 0, 0]))
    assert_close(poses["e"], np.eye(4))


def test_pose_frame_attribute_of_sdf_1_6_is_ignored_with_a_warning():
    model = loads(sdf('<link name="a"/><link name="b"><pose frame="a">1 0 0 0 0 0</pose></link>', version="1.6"))
    assert_close(model.forward_kinematics()["b"], translation(1, 0, 0))  # relative to the model, not to a
    assert any(d.code == "pose-frame-ignored" and d.severity is Severity.WARNING for d in model.diagnostics)


def test_pose_relative_to_a_link_sdf_1_7():
    model = loads(
        sdf(
            """
            <link name="a"><pose>0 0 1 0 0 1.5707963267948966</pose></link>
            <link name="b"><pose relative_to="a">1 0 0 0 0 0</pose></link>
            """,
            version="1.7",
        )
    )
    assert_close(model.forward_kinematics()["b"][:3, 3], [0, 1, 1])


# =====================================================================================================
# Geometry and materials
# =====================================================================================================


def test_every_geometry_maps_to_a_robodesc_shape():
    model = loads(
        sdf(
            """
            <link name="a">
              <visual name="box"><geometry><box><size>1 2 3</size></box></geometry></visual>
              <visual name="sphere"><geometry><sphere><radius>0.5</radius></sphere></geometry></visual>
              <visual name="cylinder"><geometry><cylinder><radius>0.1</radius><length>2</length></cylinder></geometry>
                </visual>
              <visual name="capsule"><geometry><capsule><radius>0.1</radius><length>0.4</length></capsule></geometry>
                </visual>
              <visual name="ellipsoid"><geometry><ellipsoid><radii>1 2 3</radii></ellipsoid></geometry></visual>
              <visual name="plane"><geometry><plane><normal>0 0 2</normal><size>5 6</size></plane></geometry></visual>
              <visual name="mesh"><pose>0 0 1 0 0 0</pose><geometry>
                <mesh><uri>meshes/part.dae</uri><scale>2 2 2</scale><submesh><name>wheel</name><center>true</center>
                  </submesh></mesh>
              </geometry></visual>
              <collision name="hm"><geometry><heightmap><uri>terrain.png</uri><size>10 10 2</size><pos>1 0 0</pos>
                </heightmap></geometry></collision>
              <collision name="poly"><geometry><polyline><point>0 0</point><point>1 0</point><point>0 1</point>
                <height>2</height></polyline></geometry></collision>
            </link>
            """,
            version="1.11",
        )
    )
    body = model.bodies["a"]
    shapes = {s.name: s for s in body.visuals + body.collisions}
    assert isinstance(shapes["box"].geometry, Box) and list(shapes["box"].geometry.size) == [1, 2, 3]
    assert isinstance(shapes["sphere"].geometry, Sphere) and shapes["sphere"].geometry.radius == 0.5
    assert isinstance(shapes["cylinder"].geometry, Cylinder) and shapes["cylinder"].geometry.length == 2
    assert isinstance(shapes["capsule"].geometry, Capsule)
    assert isinstance(shapes["ellipsoid"].geometry, Ellipsoid)
    plane = shapes["plane"].geometry
    assert isinstance(plane, Plane) and list(plane.normal) == [0, 0, 1] and list(plane.size) == [5, 6]
    mesh = shapes["mesh"].geometry
    assert isinstance(mesh, Mesh) and mesh.uri == "meshes/part.dae" and list(mesh.scale) == [2, 2, 2]
    assert mesh.path is None and mesh.tried  # not found: kept, with where robodesc looked
    assert shapes["mesh"].extras["sdf"]["geometry"]["submesh"] == {"name": "wheel", "center": True}
    assert_close(shapes["mesh"].pose, translation(0, 0, 1))
    assert isinstance(shapes["hm"].geometry, Heightfield) and shapes["hm"].geometry.uri == "terrain.png"
    assert list(shapes["hm"].extras["sdf"]["geometry"]["pos"]) == [1, 0, 0]
    poly = shapes["poly"]
    assert type(poly.geometry) is Geometry
    assert poly.extras["sdf"]["geometry"]["kind"] == "polyline"
    assert poly.extras["sdf"]["geometry"]["lines"][0]["points"].shape == (3, 2)
    assert any(d.code == "resource-not-found" for d in model.diagnostics)


def test_material_color_script_and_pbr():
    model = loads(
        sdf(
            """
            <link name="a">
              <visual name="v"><geometry><box/></geometry>
                <material>
                  <ambient>0.1 0.1 0.1 1</ambient><diffuse>0.8 0.1 0.1</diffuse>
                  <script><uri>file://media/materials/scripts/gazebo.material</uri><name>Gazebo/Red</name></script>
                  <pbr><metal><albedo_map>albedo.png</albedo_map></metal></pbr>
                </material>
              </visual>
            </link>
            """
        )
    )
    material = model.bodies["a"].visuals[0].material
    assert material.name == "Gazebo/Red"
    assert_close(material.color, [0.8, 0.1, 0.1, 1.0])
    assert material.texture == "albedo.png"


# =====================================================================================================
# Joints
# =====================================================================================================

TWO_LINKS = """
<link name="a"><pose>0 0 1 0 0 0</pose></link>
<link name="b"><pose>1 0 1 0 0 0</pose></link>
"""


def joint(kind: str, inside: str, version: str = "1.9", links: str = TWO_LINKS) -> robodesc.Model:
    return loads(
        sdf(f'{links}<joint name="j" type="{kind}"><parent>a</parent><child>b</child>{inside}</joint>', version)
    )


def test_revolute_joint_tree_origin_axis_and_limits():
    model = joint(
        "revolute",
        """<pose>0 0 0.5 0 0 0</pose>
           <axis><xyz>0 0 2</xyz><limit><lower>-1</lower><upper>2</upper><effort>3</effort><velocity>4</velocity>
             </limit>
           <dynamics><damping>0.1</damping><friction>0.2</friction><spring_reference>0.3</spring_reference>
           <spring_stiffness>0.4</spring_stiffness></dynamics></axis>""",
    )
    j = model.joints["j"]
    assert (j.type, j.parent, j.child) == (JointType.REVOLUTE, "a", "b")
    assert model.bodies["b"].parent == "a" and model.bodies["b"].joints == ("j",)
    assert_close(j.origin, translation(1, 0, 0.5))  # the joint frame, 0.5 above b's origin, in a's frame
    assert_close(j.axis, [0, 0, 1])
    assert (j.limits.lower, j.limits.upper, j.limits.effort, j.limits.velocity) == (-1, 2, 3, 4)
    d = j.dynamics
    assert (d.damping, d.friction, d.spring_reference, d.spring_stiffness) == (0.1, 0.2, 0.3, 0.4)
    poses = model.forward_kinematics({"j": HALF_PI})
    # b turns a quarter about the joint's z axis at (1, 0, 1.5): its origin stays on that axis
    assert_close(poses["b"], make_pose(rpy_to_matrix(0, 0, HALF_PI), [1, 0, 1]))


def test_limits_unlimited_when_huge_infinite_or_continuous():
    model = joint("revolute", "<axis><xyz>1 0 0</xyz></axis>")  # libsdformat defaults: +-1e16
    assert (model.joints["j"].limits.lower, model.joints["j"].limits.upper) == (None, None)
    model = joint("revolute", "<axis><xyz>1 0 0</xyz><limit><lower>-inf</lower><upper>inf</upper></limit></axis>")
    assert (model.joints["j"].limits.lower, model.joints["j"].limits.upper) == (None, None)
    model = joint("continuous", "<axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>")
    assert (model.joints["j"].limits.lower, model.joints["j"].limits.upper) == (None, None)
    model = joint("revolute", "<axis><xyz>1 0 0</xyz><limit><effort>-1</effort><velocity>-1</velocity></limit></axis>")
    assert (model.joints["j"].limits.effort, model.joints["j"].limits.velocity) == (None, None)


def test_prismatic_fixed_and_ball_joints():
    model = joint("prismatic", "<axis><xyz>0 1 0</xyz></axis>")
    assert_close(model.forward_kinematics({"j": 0.5})["b"], translation(1, 0.5, 1))
    model = joint("fixed", "")
    assert model.joints["j"].type is JointType.FIXED and model.joints["j"].dof == 0
    model = joint("ball", "")
    q = [math.cos(0.25), 0, 0, math.sin(0.25)]  # w x y z: half a radian about z
    assert_close(model.forward_kinematics({"j": q})["b"], make_pose(rpy_to_matrix(0, 0, 0.5), [1, 0, 1]))


@pytest.mark.parametrize("kind", ["universal", "revolute2"])
def test_two_axis_joints_turn_about_axis_then_axis2(kind):
    model = joint(kind, "<axis><xyz>0 0 1</xyz></axis><axis2><xyz>1 0 0</xyz></axis2>")
    j = model.joints["j"]
    assert j.type is JointType(kind)
    assert_close(j.axis2, [1, 0, 0])
    pose = model.forward_kinematics({"j": [0.3, 0.4]})["b"]
    assert_close(pose[:3, :3], rpy_to_matrix(0, 0, 0.3) @ rpy_to_matrix(0.4, 0, 0))


def test_screw_joint_pitch_new_and_old_spelling():
    model = joint("screw", "<axis><xyz>0 0 1</xyz></axis><screw_thread_pitch>0.5</screw_thread_pitch>", "1.10")
    angle = 2 * math.pi
    assert_close(model.forward_kinematics({"j": angle})["b"][:3, 3], [1, 0, 1.5])  # one turn: 0.5 m along z
    old = joint("screw", "<axis><xyz>0 0 1</xyz></axis><thread_pitch>-12.566370614359172</thread_pitch>", "1.6")
    assert old.joints["j"].pitch == pytest.approx(model.joints["j"].pitch)  # screw_thread_pitch = -2 pi / thread_pitch
    both = joint(
        "screw", "<axis><xyz>0 0 1</xyz></axis><screw_thread_pitch>2</screw_thread_pitch><thread_pitch>1</thread_pitch>"
    )
    assert both.joints["j"].extras["sdf"]["screw_thread_pitch"] == 2.0  # the new element wins


def test_gearbox_is_a_zero_dof_joint_with_a_constraint():
    model = joint("gearbox", "<gearbox_ratio>3</gearbox_ratio><gearbox_reference_body>a</gearbox_reference_body>")
    j = model.joints["j"]
    assert j.type is JointType.GEARBOX and j.dof == 0
    assert "gearbox_ratio" not in j.extras and "sdf" not in j.extras  # the constraint holds ratio and reference
    assert [(c.kind, c.elements, c.coefficients) for c in model.constraints] == [("gearbox", ("j", "a"), (3.0,))]


def test_mimic_joint_sdf_1_11():
    links = TWO_LINKS + '<link name="c"><pose>2 0 1 0 0 0</pose></link>'
    model = loads(
        sdf(
            f"""{links}
            <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
            <joint name="k" type="revolute"><parent>a</parent><child>c</child>
              <axis><xyz>0 0 1</xyz><mimic joint="j"><multiplier>2</multiplier><offset>0.5</offset>
              <reference>0.1</reference></mimic></axis>
            </joint>""",
            "1.11",
        )
    )
    mimic = model.joints["k"].mimic
    assert mimic.joint == "j" and mimic.multiplier == 2.0 and mimic.offset == pytest.approx(0.5 - 0.2)
    assert "k" not in model.movable_joints()


def test_joint_pose_is_in_the_child_frame_and_can_name_another_frame():
    links = """<link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>"""
    model = joint("revolute", "<pose>1 0 0 0 0 0</pose><axis><xyz>1 0 0</xyz></axis>", "1.7", links)
    assert_close(model.joints["j"].origin[:3, 3], [0, 1, 1])  # 1 m along b's x, which is the world's y
    model = joint("revolute", '<pose relative_to="a">1 0 0 0 0 0</pose><axis><xyz>1 0 0</xyz></axis>', "1.7", links)
    assert_close(model.joints["j"].origin[:3, 3], [1, 0, 0])


def test_axis_expressed_in_the_model_frame_sdf_1_7():
    links = """<link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>"""
    model = joint("revolute", '<axis><xyz expressed_in="__model__">1 0 0</xyz></axis>', "1.7", links)
    assert_close(model.joints["j"].axis, [0, -1, 0])  # the model's x, seen from the joint frame (turned by b)
    model = joint("revolute", "<axis><xyz>1 0 0</xyz></axis>", "1.7", links)
    assert_close(model.joints["j"].axis, [1, 0, 0])  # default: the joint frame


def test_use_parent_model_frame_sdf_1_5_and_1_6():
    links = """<link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>"""
    for version in ("1.5", "1.6"):
        model = joint(
            "revolute",
            "<axis><xyz>1 0 0</xyz><use_parent_model_frame>true</use_parent_model_frame></axis>",
            version,
            links,
        )
        assert_close(model.joints["j"].axis, [0, -1, 0])
        model = joint("revolute", "<axis><xyz>1 0 0</xyz></axis>", version, links)
        assert_close(model.joints["j"].axis, [1, 0, 0])


def test_sdf_1_4_axes_of_top_level_joints_are_in_the_model_frame():
    body = """
    <link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>
    <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>
    <model name="n">
      <link name="a"/><link name="b"><pose>0 0 1 0 0 1.5707963267948966</pose></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>
    </model>
    """
    model = loads(sdf(body, "1.4"))
    assert_close(model.joints["j"].axis, [0, -1, 0])
    assert_close(model.joints["n::j"].axis, [1, 0, 0])  # libsdformat's 1.4 converter leaves nested models alone
    model = loads(world(f'<model name="r">{body}</model>', "1.4"))
    assert_close(model.joints["r::j"].axis, [0, -1, 0])


def test_joint_parent_world_and_a_joint_loop():
    model = loads(
        sdf(
            """<link name="a"/><link name="b"/>
            <joint name="w" type="revolute"><parent>world</parent><child>a</child><axis><xyz>0 0 1</xyz></axis></joint>
            <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
            <joint name="loop" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>
            """
        )
    )
    assert model.joints["w"].parent == "world" and model.bodies["a"].joints == ("w",)
    assert model.bodies["b"].joints == ("j",) and model.joints["loop"].extras["sdf"]["loop"]
    assert [(c.kind, c.elements) for c in model.constraints] == [("loop", ("loop",))]
    assert any(d.code == "kinematic-loop" for d in model.diagnostics)
    # the loop-closing joint is off the tree: a value for it is accepted and changes nothing
    assert_close(model.forward_kinematics({"loop": 1.0})["b"], model.forward_kinematics()["b"])
    assert "loop" not in model.movable_joints()


def test_missing_axis_defaults_to_z_with_a_warning():
    model = joint("revolute", "")
    assert_close(model.joints["j"].axis, [0, 0, 1])
    assert any(d.code == "missing-axis" for d in model.diagnostics)


def test_joint_type_is_case_insensitive_as_in_libsdformat():
    assert joint("Revolute", "<axis><xyz>0 0 1</xyz></axis>").joints["j"].type is JointType.REVOLUTE


# =====================================================================================================
# Frames, nested models, canonical links, placement frames
# =====================================================================================================


def test_explicit_frames_attached_to_links_joints_and_other_frames():
    model = loads(
        sdf(
            """
            <link name="a"><pose>0 0 1 0 0 0</pose></link>
            <link name="b"><pose>1 0 1 0 0 0</pose></link>
            <joint name="j" type="fixed"><parent>a</parent><child>b</child></joint>
            <frame name="f_model"><pose>0 0 5 0 0 0</pose></frame>
            <frame name="f_link" attached_to="b"><pose>0 1 0 0 0 0</pose></frame>
            <frame name="f_joint" attached_to="j"/>
            <frame name="f_frame" attached_to="f_link"><pose relative_to="a">0 0 1 0 0 0</pose></frame>
            """,
            "1.7",
        )
    )
    frames = model.frames
    assert frames["f_model"].body == "a"  # __model__ is attached to the canonical link, the first link
    assert frames["f_link"].body == "b" and frames["f_joint"].body == "b" and frames["f_frame"].body == "b"
    poses = model.forward_kinematics()
    assert_close(poses["f_model"], translation(0, 0, 5))
    assert_close(poses["f_link"], translation(1, 1, 1))
    assert_close(poses["f_joint"], translation(1, 0, 1))
    assert_close(poses["f_frame"], translation(0, 0, 2))


def test_nested_models_scoped_names_canonical_link_and_static():
    model = loads(
        sdf(
            """
            <link name="base"/>
            <model name="arm" canonical_link="tip">
              <pose>1 0 0 0 0 0</pose>
              <link name="root"/>
              <link name="tip"><pose>0 0 1 0 0 0</pose></link>
              <model name="hand"><link name="finger"><pose>0 1 0 0 0 0</pose></link></model>
            </model>
            <model name="fixture"><static>true</static><link name="plate"/></model>
            <frame name="on_arm" attached_to="arm"/>
            <joint name="j" type="revolute"><parent>base</parent><child>arm::hand::finger</child>
              <axis><xyz>0 0 1</xyz></axis></joint>
            """,
            "1.8",
        )
    )
    assert {"arm::root", "arm::tip", "arm::hand::finger", "fixture::plate"} <= set(model.bodies)
    assert model.frames["on_arm"].body == "arm::tip"
    assert model.joints["j"].child == "arm::hand::finger"
    assert model.bodies["fixture::plate"].static is True
    poses = model.forward_kinematics()
    assert_close(poses["arm::hand::finger"], translation(1, 1, 0))
    assert_close(poses["on_arm"], translation(1, 0, 0))  # the model frame, attached to its canonical link


def test_placement_frame_on_a_model_sdf_1_8():
    model = loads(
        world(
            """
            <model name="table" placement_frame="leg">
              <pose>5 0 0 0 0 0</pose>
              <link name="top"><pose>0 0 1 0 0 0</pose></link>
              <frame name="leg" attached_to="top"><pose relative_to="__model__">1 0 0 0 0 0</pose></frame>
            </model>
            """,
            "1.8",
        )
    )
    poses = model.forward_kinematics()
    assert_close(poses["table::leg"], translation(5, 0, 0))  # the placement frame lands on the model's pose
    assert_close(poses["table::top"], translation(4, 0, 1))


def test_flattened_names_of_sdf_1_7_resolve_as_written():
    model = loads(
        world(
            """
            <model name="m">
              <frame name="n::__model__" attached_to="n::l"><pose relative_to="__model__">0 1 0 0 0 0</pose></frame>
              <link name="n::l"><pose relative_to="n::__model__">1 0 0 0 0 0</pose></link>
            </model>
            """,
            "1.7",
        )
    )
    assert_close(model.forward_kinematics()["m::n::l"], translation(1, 1, 0))


# =====================================================================================================
# Worlds
# =====================================================================================================


def test_world_models_frames_joints_and_kept_elements():
    model = loads(
        world(
            """
            <gravity>0 0 -9.8</gravity>
            <physics type="ode"><max_step_size>0.001</max_step_size></physics>
            <light type="directional" name="sun"><diffuse>1 1 1 1</diffuse></light>
            <model name="ground"><static>true</static><link name="l"/></model>
            <model name="robot"><pose>0 0 1 0 0 0</pose><link name="l"/>
              <plugin filename="libcontroller.so" name="controller"/></model>
            <frame name="spot" attached_to="robot"><pose>1 0 0 0 0 0</pose></frame>
            <joint name="hold" type="fixed"><parent>world</parent><child>robot::l</child></joint>
            """,
            "1.10",
        )
    )
    assert model.name == "w"
    assert list(model.bodies) == ["world", "ground::l", "robot::l"]
    assert model.bodies["ground::l"].static is True
    assert model.bodies["robot::l"].static is False
    assert model.joints["hold"].parent == "world" and model.bodies["robot::l"].joints == ("hold",)
    assert model.frames["spot"].body == "robot::l"
    assert_close(model.forward_kinematics()["spot"], translation(1, 0, 1))
    tags = {(e.tag, e.owner) for e in model.extras}
    assert {("gravity", None), ("physics", None), ("light", None), ("plugin", "robot")} <= tags
    assert "libcontroller.so" in next(e for e in model.extras if e.tag == "plugin").xml


def test_pre_1_7_name_collisions_are_renamed_with_a_warning():
    model = loads(
        sdf(
            """
            <link name="base"/><link name="attachment"><pose>0 2 0 0 0 0</pose></link>
            <joint name="attachment" type="fixed"><parent>base</parent><child>attachment</child></joint>
            """,
            "1.6",
        )
    )
    assert "attachment_joint" in model.joints
    assert model.joints["attachment_joint"].child == "attachment"
    assert any(d.code == "name-collision-renamed" for d in model.diagnostics)


def test_a_file_holding_only_a_light_is_an_empty_model_with_the_light_kept():
    model = loads('<sdf version="1.6"><light type="point" name="lamp"/></sdf>')
    assert model.name == "lamp" and list(model.bodies) == ["world"]
    assert [e.tag for e in model.extras] == ["light"]


def test_links_keep_sensors_and_other_elements_as_extras():
    model = loads(
        sdf(
            """
            <link name="a">
              <sensor name="cam" type="camera"><update_rate>30</update_rate></sensor>
              <velocity_decay><linear>0.1</linear></velocity_decay>
            </link>
            <link name="b"/>
            <joint name="j" type="fixed"><parent>a</parent><child>b</child>
              <sensor name="ft" type="force_torque"/></joint>
            """
        )
    )
    assert [(e.tag, e.owner) for e in model.bodies["a"].extras["xml"]] == [("sensor", "a"), ("velocity_decay", "a")]
    assert model.joints["j"].extras["xml"][0].tag == "sensor"


def test_root_links_of_free_models_are_marked_floating():
    model = loads(
        world(
            """
            <model name="ground"><static>true</static><link name="l"/></model>
            <model name="box"><link name="l"/><link name="lid"/>
              <joint name="hinge" type="revolute"><parent>l</parent><child>lid</child>
                <axis><xyz>1 0 0</xyz></axis></joint>
            </model>
            """
        )
    )
    assert model.bodies["box::l"].floating is True
    assert model.bodies["box::lid"].floating is False
    assert model.bodies["ground::l"].floating is False


def test_a_shape_pose_relative_to_a_frame_sdf_1_7():
    model = loads(
        sdf(
            """
            <link name="a"><pose>0 0 1 0 0 0</pose>
              <visual name="v"><pose relative_to="f">0 0 0 0 0 0</pose><geometry><box/></geometry></visual>
              <visual name="w"><pose relative_to="nowhere">0 0 0 0 0 0</pose><geometry><box/></geometry></visual>
            </link>
            <frame name="f"><pose>2 0 0 0 0 0</pose></frame>
            """,
            "1.7",
        )
    )
    visual, unresolved = model.bodies["a"].visuals
    assert_close(visual.pose, translation(2, 0, -1))  # the frame's pose, seen from the link
    assert_close(unresolved.pose, np.eye(4))
    assert any(d.code == "unresolved-shape-frame" for d in model.diagnostics)


def test_a_world_beside_a_model_loads_the_world_and_keeps_the_model():
    model = loads('<sdf version="1.9"><world name="w"/><model name="m"><link name="l"/></model></sdf>')
    assert model.name == "w" and list(model.bodies) == ["world"]
    assert [e.tag for e in model.extras] == ["model"]
    assert any(d.code == "model-beside-world" for d in model.diagnostics)


def test_shapes_keep_their_other_elements_as_extras():
    model = loads(
        sdf(
            """
            <link name="a">
              <visual name="v"><geometry><box/></geometry><cast_shadows>false</cast_shadows></visual>
              <collision name="c"><geometry><unknown_shape/></geometry><surface><friction/></surface></collision>
            </link>
            """
        )
    )
    visual, collision = model.bodies["a"].visuals[0], model.bodies["a"].collisions[0]
    assert [e.tag for e in visual.extras["xml"]] == ["cast_shadows"]
    assert type(collision.geometry) is Geometry
    assert [e.tag for e in collision.extras["xml"]] == ["geometry", "surface"]
    assert "unknown_shape" in collision.extras["xml"][0].xml


def test_unknown_elements_are_kept_with_an_info_diagnostic():
    model = loads(sdf('<link name="a"><not_a_link_element/><ns:custom xmlns:ns="x"/></link><strange/>'))
    assert [e.tag for e in model.bodies["a"].extras["xml"]] == ["not_a_link_element", "ns:custom"]
    assert "strange" in [e.tag for e in model.extras]
    unknown = [d for d in model.diagnostics if d.code == "unknown-element"]
    assert len(unknown) == 2 and all(d.severity is Severity.INFO for d in unknown)


def test_sdf_specific_extras_live_under_extras_sdf():
    model = loads(
        world(
            """
            <model name="ground"><static>true</static><link name="l"/></model>
            <model name="robot">
              <link name="a"><inertial><mass>2</mass></inertial><sensor name="s" type="imu"/>
                <visual name="v"><pose relative_to="b">0 0 1 0 0 0</pose><geometry><cone/></geometry></visual>
              </link>
              <link name="b"/>
              <joint name="u" type="universal"><parent>a</parent><child>b</child>
                <axis><xyz>1 0 0</xyz></axis>
                <axis2><xyz>0 1 0</xyz><dynamics><damping>0.5</damping></dynamics>
                  <mimic joint="v"><multiplier>2</multiplier></mimic></axis2>
              </joint>
            </model>
            """,
            "1.11",
        )
    )
    a, b = model.bodies["robot::a"], model.bodies["robot::b"]
    assert a.extras["sdf"] == {"model": "robot", "inertial_defaults": ("inertia",)}
    assert b.extras["sdf"] == {"model": "robot", "inertial_defaults": ("mass", "inertia")}
    assert [e.tag for e in a.extras["xml"]] == ["sensor"]  # kept elements stay in extras["xml"], as in every reader
    assert (a.static, a.floating, b.floating) == (False, True, False)
    assert (model.bodies["ground::l"].static, model.bodies["ground::l"].floating) == (True, False)
    visual = a.visuals[0].extras["sdf"]
    assert visual["pose_relative_to"] == "b" and visual["geometry"]["kind"] == "cone"
    u = model.joints["robot::u"].extras["sdf"]
    assert u["dynamics2"].damping == 0.5
    assert [(m["axis"], m["joint"], m["multiplier"]) for m in u["mimic"]] == [("axis2", "robot::v", 2.0)]
    shapes = [s for body in model.bodies.values() for s in body.visuals]
    items = [*model.bodies.values(), *model.joints.values(), *shapes]
    assert {key for item in items for key in item.extras} <= {"sdf", "xml"}  # no flat keys
