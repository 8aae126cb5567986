# ruff: noqa: E501 - the handwritten sources are easier to read one element a line
"""The SDFormat writer: handwritten URDF, MJCF and SDF sources written as SDF 1.12 and read back by
robodesc's SDF reader with the same kinematics (every body's pose relative to the root at random
configurations, to 1e-9), masses and inertias; losses listed; SDF extension elements kept."""

from __future__ import annotations

import numpy as np
import pytest

import robodesc
from robodesc.core.model import JointType, Model
from robodesc.core.writing import WriteContext
from robodesc.formats.sdf.write import SdfWriter

URDF = """<robot name="arm">
  <link name="base"><inertial><origin xyz="0 0 0.1"/><mass value="2"/>
    <inertia ixx="0.2" ixy="0.01" ixz="0" iyy="0.25" iyz="0.02" izz="0.3"/></inertial>
    <visual><geometry><box size="0.2 0.3 0.1"/></geometry><material name="red"><color rgba="1 0 0 1"/></material></visual>
    <collision><geometry><cylinder radius="0.1" length="0.2"/></geometry></collision></link>
  <link name="upper"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><origin xyz="0 0 0.2" rpy="0.1 0.2 0.3"/><geometry><sphere radius="0.05"/></geometry></visual></link>
  <link name="lower"/>
  <link name="finger"/>
  <link name="slider"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3" rpy="0 1.5707963267948966 0.2"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1.5" effort="10" velocity="2"/><dynamics damping="0.5" friction="0.1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.4 0 0" rpy="0.3 0 0"/><axis xyz="1 1 0"/></joint>
  <joint name="grip" type="prismatic"><parent link="lower"/><child link="finger"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 0 1"/><limit lower="0" upper="0.04" effort="1" velocity="1"/>
    <mimic joint="elbow" multiplier="0.5" offset="0.01"/></joint>
  <joint name="plane" type="planar"><parent link="base"/><child link="slider"/><origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/></joint>
  <transmission name="t1"><type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint></transmission>
  <gazebo><plugin name="ctrl" filename="libctrl.so"/></gazebo>
</robot>
"""

MJCF = """<mujoco model="bot">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <site name="corner" pos="1 1 0"/>
    <body name="torso" pos="0 0 1" quat="0.9 0.1 0.2 0.3">
      <freejoint name="root"/>
      <geom type="capsule" size="0.05 0.2" mass="3"/>
      <body name="thigh" pos="0 0.1 -0.2" euler="10 20 30">
        <joint name="hip_x" type="hinge" axis="1 0 0" pos="0 0 0.05" ref="0.3" range="-60 60"/>
        <joint name="hip_y" type="hinge" axis="0 1 0" pos="0.01 0 0.05"/>
        <joint name="hip_s" type="slide" axis="0 0 1" ref="0.05"/>
        <geom type="box" size="0.05 0.05 0.2" mass="2"/>
        <site name="tip" pos="0 0 -0.2"/>
        <body name="foot" pos="0 0 -0.4">
          <joint name="ankle" type="ball" pos="0 0 0.02"/>
          <geom type="ellipsoid" size="0.1 0.05 0.02" mass="0.5"/>
        </body>
      </body>
    </body>
    <body name="lamp" pos="2 0 1"><geom type="sphere" size="0.1" mass="1"/></body>
    <body name="cart" pos="0 2 0.1">
      <joint name="rail" type="slide" axis="1 0 0" ref="0.2"/>
      <geom type="box" size="0.1 0.1 0.1" mass="4"/>
      <body name="pole"><joint name="pole" type="hinge" axis="0 1 0"/><geom type="cylinder" size="0.02 0.3" mass="0.3"/></body>
    </body>
  </worldbody>
  <equality><joint joint1="pole" joint2="hip_y" polycoef="0.1 2 0 0 0"/></equality>
  <tendon><fixed name="t"><joint joint="hip_x" coef="1"/></fixed></tendon>
  <actuator><motor name="m" joint="hip_x"/></actuator>
  <keyframe><key name="home" qpos="0 0 1 1 0 0 0 0 0 0 1 0 0 0 0 0"/></keyframe>
</mujoco>
"""

SDF = """<?xml version="1.0"?>
<sdf version="1.12">
  <world name="w">
    <physics name="fast" type="ode"><max_step_size>0.002</max_step_size></physics>
    <plugin name="wp" filename="libworld.so"><x>1</x></plugin>
    <model name="ground"><static>true</static>
      <link name="plane"><collision name="c"><geometry><plane><normal>0 0 1</normal><size>10 10</size></plane></geometry>
        <surface><friction><ode><mu>0.5</mu></ode></friction></surface></collision></link>
    </model>
    <model name="robot">
      <pose>1 2 0.5 0 0 0.4</pose>
      <plugin name="mp" filename="libmodel.so"><gain>3</gain></plugin>
      <link name="base">
        <inertial><pose>0.1 0 0 0 0 0</pose><mass>3</mass><inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.25</izz></inertia></inertial>
        <visual name="v"><geometry><mesh><uri>meshes/base.dae</uri><scale>2 2 2</scale></mesh></geometry>
          <material><script><uri>file://media/materials/scripts/gazebo.material</uri><name>Gazebo/Grey</name></script>
          <diffuse>0.5 0.5 0.5 1</diffuse></material></visual>
        <sensor name="imu" type="imu"><update_rate>100</update_rate></sensor>
      </link>
      <link name="wheel"><pose relative_to="base">0.2 0 0 1.5707963267948966 0 0</pose>
        <collision name="c"><geometry><cone><radius>0.1</radius><length>0.2</length></cone></geometry></collision></link>
      <link name="cross"><pose relative_to="base">0 0.3 0 0 0 0</pose></link>
      <link name="arm"><pose relative_to="base">0 0 0.4 0 0.3 0</pose></link>
      <link name="nut"><pose relative_to="arm">0 0 0.2 0 0 0</pose></link>
      <joint name="spin" type="revolute"><parent>base</parent><child>wheel</child>
        <pose>0 0 0.05 0 0 0</pose><axis><xyz expressed_in="base">0 1 0</xyz></axis></joint>
      <joint name="uj" type="universal"><parent>base</parent><child>cross</child>
        <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
        <axis2><xyz>0 1 0</xyz></axis2></joint>
      <joint name="shoulder" type="ball"><parent>base</parent><child>arm</child><pose>0 0 -0.1 0 0 0</pose>
        <sensor name="ft" type="force_torque"/></joint>
      <joint name="screw" type="screw"><parent>arm</parent><child>nut</child><axis><xyz>0 0 1</xyz></axis>
        <screw_thread_pitch>0.01</screw_thread_pitch></joint>
      <joint name="follow" type="revolute"><parent>base</parent><child>wheel</child>
        <axis><xyz>0 0 1</xyz></axis></joint>
      <model name="gripper">
        <link name="palm"><pose relative_to="__model__">0 0 1 0 0 0</pose></link>
        <link name="jaw"><pose relative_to="palm">0.05 0 0 0 0 0</pose></link>
        <joint name="slide" type="prismatic"><parent>palm</parent><child>jaw</child>
          <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>0.1</upper></limit></axis></joint>
        <joint name="copy" type="prismatic"><parent>palm</parent><child>jaw</child>
          <axis><xyz>1 0 0</xyz><mimic joint="slide"><multiplier>2</multiplier><offset>0.1</offset></mimic></axis></joint>
        <frame name="tcp" attached_to="jaw"><pose>0 0 0.1 0 0 0</pose></frame>
      </model>
      <joint name="mount" type="fixed"><parent>arm</parent><child>gripper::palm</child></joint>
    </model>
    <frame name="spot"><pose>3 3 0 0 0 0</pose></frame>
  </world>
</sdf>
"""


def _load(tmp_path, name: str, text: str) -> Model:
    path = tmp_path / name
    path.write_text(text)
    return robodesc.load(str(path))


def _written(tmp_path, source: Model, name: str = "out.sdf") -> tuple[Model, SdfWriter, list, str]:
    path = tmp_path / name
    context = WriteContext(path)
    writer = SdfWriter(source, context)
    text = writer.text()
    path.write_text(text)
    back = robodesc.load(str(path))
    return back, writer, context.losses, text


def _random_positions(model: Model, rng: np.random.Generator) -> dict:
    out: dict = {}
    for name in model.movable_joints():
        joint = model.joints[name]
        if joint.type is JointType.FLOATING:
            continue  # SDF's free link has no joint value: held at the reference
        if joint.type is JointType.BALL:
            q = rng.normal(size=4)
            out[name] = q / np.linalg.norm(q)
        elif joint.type is JointType.PLANAR:
            continue
        else:
            out[name] = rng.uniform(-1, 1, size=joint.dof) if joint.dof > 1 else float(rng.uniform(-1, 1))
    return out


def _same_kinematics(source: Model, back: Model, names: dict[str, str], samples: int = 5) -> None:
    rng = np.random.default_rng(7)
    root = source.root.name
    for _ in range(samples):
        q = _random_positions(source, rng)
        for constraint in source.constraints:  # MJCF joint equalities are written as <mimic>: follow it
            if constraint.kind == "joint":
                follower, leader = (source.joints[n] for n in constraint.elements)
                c = constraint.coefficients
                q[follower.name] = float(follower.reference) + c[0] + c[1] * (q[leader.name] - float(leader.reference))
        a = source.forward_kinematics(q)
        b = back.forward_kinematics({names[k]: v for k, v in q.items() if names.get(k) in back.joints})
        for body in source.bodies:
            expected = np.linalg.inv(a[root]) @ a[body]
            got = np.linalg.inv(b[root]) @ b[body]
            np.testing.assert_allclose(got, expected, atol=1e-9, err_msg=body)


def _same_inertia(source: Model, back: Model) -> None:
    for name, body in source.bodies.items():
        other = back.bodies[name].inertial
        if body.inertial is None:
            assert other is None or other.mass == 0.0
            continue
        assert other is not None and other.mass == pytest.approx(body.inertial.mass, abs=1e-12)
        np.testing.assert_allclose(other.com, body.inertial.com, atol=1e-12)
        np.testing.assert_allclose(other.inertia, body.inertial.inertia, atol=1e-12)


def _no_errors(back: Model) -> None:
    errors = [d for d in robodesc.check(back).diagnostics if str(getattr(d.severity, "value", d.severity)) == "error"]
    assert not errors, errors


def test_urdf_to_sdf(tmp_path):
    source = _load(tmp_path, "arm.urdf", URDF)
    back, writer, losses, text = _written(tmp_path, source)
    assert text.startswith('<?xml version="1.0" ?>\n<sdf version="1.12">\n  <model name="arm">')
    _same_kinematics(source, back, writer.joint_names)
    _same_inertia(source, back)
    _no_errors(back)
    assert back.joints["grip"].mimic is not None and back.joints["grip"].mimic.multiplier == 0.5
    assert back.joints["shoulder"].limits.upper == 1.5 and back.joints["shoulder"].dynamics.damping == 0.5
    assert back.joints["elbow"].type is JointType.CONTINUOUS
    assert back.bodies["base"].visuals[0].material.color.tolist() == [1, 0, 0, 1]
    codes = {loss.code for loss in losses}
    assert {"planar-joint", "transmission"} <= codes
    assert {"plane_x", "plane_y", "plane_angle"} <= set(back.joints)
    assert '<plugin name="ctrl" filename="libctrl.so"' in text  # a <gazebo> plugin goes into the model
    # the planar joint's parts move the slider as the planar joint does
    q = {"plane": [0.3, -0.2, 0.7]}
    a = source.pose("slider", q, relative_to="base")
    b = back.pose("slider", {"plane_x": 0.3, "plane_y": -0.2, "plane_angle": 0.7}, relative_to="base")
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_mjcf_to_sdf(tmp_path):
    source = _load(tmp_path, "bot.xml", MJCF)
    back, writer, losses, text = _written(tmp_path, source)
    _same_kinematics(source, back, writer.joint_names)
    _same_inertia(source, back)
    _no_errors(back)
    assert set(source.bodies) <= set(back.bodies)
    # several joints on one body: massless helper links between them
    assert back.bodies["thigh"].parent not in ("torso", None)
    assert back.bodies["torso"].floating and "root" not in back.joints
    # a body without joints is welded to the world; the world's geoms sit on a link fixed to it
    assert back.bodies["lamp"].parent == "world" and back.bodies["lamp"].joints
    assert any(b.collisions and b.collisions[0].name == "floor" for b in back.bodies.values())
    assert back.joints[writer.joint_names["pole"]].mimic is not None  # the joint equality (renamed: a body is 'pole')
    codes = {loss.code for loss in losses}
    assert {"floating-joint", "actuator", "tendon", "keyframe", "joint-equality"} <= codes
    for loss in losses:
        if loss.code in ("actuator", "tendon", "joint-equality"):
            assert loss.location.file and loss.location.file.endswith("bot.xml")
    assert "corner" in back.frames  # a site of the world body, on the world's link


def test_sdf_world_round_trip_keeps_extensions(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "base.dae").write_text("<COLLADA/>")
    source = _load(tmp_path, "world.sdf", SDF)
    out = tmp_path / "out"
    out.mkdir()
    back, writer, losses, text = _written(out, source, "again.sdf")
    assert losses == []
    assert '<world name="w">' in text and "<uri>../meshes/base.dae</uri>" in text
    assert set(back.bodies) == set(source.bodies) and set(back.joints) == set(source.joints)
    assert set(back.frames) == set(source.frames)
    _same_kinematics(source, back, writer.joint_names)
    _same_inertia(source, back)
    _no_errors(back)
    for tag in ("physics", "plugin"):
        kept = sorted("".join(e.xml.split()) for e in back.extras if e.tag == tag)
        assert kept == sorted("".join(e.xml.split()) for e in source.extras if e.tag == tag)
    assert [e.tag for e in back.bodies["robot::base"].extras["xml"]] == ["sensor"]
    assert [e.tag for e in back.joints["robot::shoulder"].extras["xml"]] == ["sensor"]
    assert back.bodies["ground::plane"].static and back.bodies["ground::plane"].collisions[0].extras["xml"]
    assert back.bodies["robot::base"].visuals[0].material.name == "Gazebo/Grey"
    assert back.joints["robot::screw"].pitch == pytest.approx(source.joints["robot::screw"].pitch, rel=1e-12)
    assert back.joints["robot::gripper::copy"].mimic.multiplier == 2.0
    # and again: a second round trip keeps the same elements
    twice, _, losses, _ = _written(out, back, "twice.sdf")
    assert losses == [] and set(twice.bodies) == set(back.bodies) and len(twice.extras) == len(back.extras)


def test_output_is_deterministic_and_exact(tmp_path):
    source = _load(tmp_path, "bot.xml", MJCF)
    assert robodesc.dumps(source, "sdf") == robodesc.dumps(source, "sdf")
    assert "0.30000000000000004" not in robodesc.dumps(_load(tmp_path, "arm.urdf", URDF), "sdf")


def test_joint_names_taken_by_links_are_renamed_with_a_loss(tmp_path):
    source = _load(
        tmp_path,
        "same.xml",
        """<mujoco><worldbody><body name="a"><joint name="a" axis="0 0 1"/><geom size="0.1" mass="1"/>
        </body></worldbody></mujoco>""",
    )
    back, writer, losses, _ = _written(tmp_path, source)
    assert writer.joint_names["a"] == "a_joint" and "a_joint" in back.joints
    assert [loss.code for loss in losses if loss.code == "renamed"] == ["renamed"]
    _same_kinematics(source, back, writer.joint_names)
