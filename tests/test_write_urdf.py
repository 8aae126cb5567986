"""The URDF writer, proven by yourdfpy (the reference URDF reading) and by robodesc reading its output.

Every source body's pose relative to the root (or, below a floating joint, relative to the body that
joint moves: yourdfpy holds floating joints still) must be what robodesc's kinematics of the source
gives, at random configurations mapped with `joint_values`; total mass must match; what URDF cannot
hold must be listed as losses. The corpus loop does the same for every golden file of
$ROBODESC_CORPUS (skipped when it is unset).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import mimic_chain_urdf

import robodesc
from robodesc import WriteContext
from robodesc.core.model import JointType
from robodesc.formats.urdf.write import ball_angles, joint_values, plan

yourdfpy = pytest.importorskip("yourdfpy")

URDF = """<?xml version="1.0"?>
<robot name="arm &amp; co">
  <material name="blue"><color rgba="0 0 0.8 1"/></material>
  <material name="unused"><color rgba="0.1 0.2 0.3 0.4"/></material>
  <link name="base">
    <inertial>
      <origin xyz="0.1 0 0.05" rpy="0.3 0.2 0.1"/>
      <mass value="2.5"/>
      <inertia ixx="0.1" ixy="0.01" ixz="0.002" iyy="0.2" iyz="0.003" izz="0.3"/>
    </inertial>
    <visual name="v0">
      <origin xyz="0 0 0.1" rpy="0 1.5707963267948966 0"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
      <material name="blue"/>
    </visual>
    <visual>
      <geometry><mesh filename="meshes/base.stl" scale="0.001 0.001 0.001"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material>
    </visual>
    <collision><geometry><cylinder radius="0.05" length="0.2"/></geometry></collision>
    <collision><geometry><sphere radius="0.07"/></geometry></collision>
    <sensor:camera name="cam"><range>3</range></sensor:camera>
  </link>
  <link name="upper">
    <inertial><mass value="1.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><capsule radius="0.03" length="0.4"/></geometry></collision>
  </link>
  <link name="lower">
    <inertial><mass value="0.5"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial>
  </link>
  <link name="slider"/>
  <link name="finger"/>
  <link name="tip"/>
  <link name="plate"/>
  <joint name="shoulder" type="revolute">
    <origin xyz="0 0 0.3" rpy="0.1 -0.2 0.3"/>
    <parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="30" velocity="2"/>
    <dynamics damping="0.5" friction="0.1"/>
    <safety_controller k_velocity="10" k_position="15" soft_lower_limit="-1.4" soft_upper_limit="1.4"/>
    <calibration rising="0.2"/>
  </joint>
  <joint name="elbow" type="continuous">
    <origin xyz="0 0 0.4"/>
    <parent link="upper"/><child link="lower"/>
    <axis xyz="1 0 0"/>
  </joint>
  <joint name="slide" type="prismatic">
    <origin xyz="0.1 0 0" rpy="0 0 1"/>
    <parent link="lower"/><child link="slider"/>
    <axis xyz="0 0 1"/>
    <limit lower="0" upper="0.2" effort="5" velocity="0.1"/>
  </joint>
  <joint name="finger_joint" type="revolute">
    <parent link="slider"/><child link="finger"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="elbow" multiplier="-2" offset="0.1"/>
  </joint>
  <joint name="tip_joint" type="fixed">
    <origin xyz="0 0 0.05"/>
    <parent link="finger"/><child link="tip"/>
  </joint>
  <joint name="plate_joint" type="planar">
    <parent link="base"/><child link="plate"/>
    <axis xyz="0 0 1"/>
  </joint>
  <transmission name="shoulder_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface></joint>
    <actuator name="shoulder_motor"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
  <gazebo reference="upper"><material>Gazebo/Orange</material></gazebo>
  <ros2_control name="sys" type="system"><hardware><plugin>mock/GenericSystem</plugin></hardware></ros2_control>
</robot>
"""

MJCF = """<mujoco model="creature">
  <default><joint damping="0.2"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 1" quat="0.9 0.1 0.2 0.3">
      <freejoint name="root"/>
      <inertial pos="0.01 0.02 0.03" mass="3" fullinertia="0.3 0.25 0.2 0.01 0.02 0.03"/>
      <geom type="capsule" size="0.05 0.2"/>
      <site name="imu" pos="0 0 0.1"/>
      <body name="thigh" pos="0.1 0 -0.2" euler="0.2 0.1 0">
        <joint name="hip_x" type="hinge" axis="1 0 0" pos="0 0 0.05" range="-1 1"/>
        <joint name="hip_y" type="hinge" axis="0 1 0" pos="0.02 0 0.05" ref="0.3"/>
        <geom type="ellipsoid" size="0.05 0.06 0.1" mass="1"/>
        <body name="shin" pos="0 0 -0.4">
          <joint name="knee" type="hinge" axis="0 1 0" range="-2 0" armature="0.01"/>
          <geom type="cylinder" size="0.04 0.15" mass="0.7"/>
          <body name="foot" pos="0 0 -0.3">
            <joint name="ankle" type="ball" pos="0 0 0.02"/>
            <geom type="box" size="0.05 0.1 0.02" mass="0.3"/>
            <body name="toe" pos="0.1 0 0">
              <joint name="toe_slide" type="slide" axis="1 0 0"/>
              <joint name="toe_hinge" type="hinge" axis="0 0 1" pos="0.01 0 0" ref="-0.2"/>
              <geom type="sphere" size="0.02" mass="0.05"/>
            </body>
          </body>
        </body>
      </body>
      <body name="arm" pos="0 0.2 0">
        <joint name="arm_hinge" type="hinge" axis="0 0 1"/>
        <geom type="box" size="0.02 0.02 0.1" mass="0.4"/>
        <body name="hand" pos="0 0 -0.2">
          <joint name="hand_hinge" type="hinge" axis="0 0 1"/>
          <geom type="sphere" size="0.03" mass="0.1"/>
        </body>
      </body>
    </body>
    <body name="box" pos="2 0 0.5">
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="knee" coef="1"/><joint joint="hip_y" coef="-1"/></fixed></tendon>
  <equality><joint joint1="hand_hinge" joint2="arm_hinge" polycoef="0.1 -0.5 0 0 0"/></equality>
  <actuator><motor name="knee_motor" joint="knee" gear="50"/></actuator>
  <sensor><jointpos name="knee_pos" joint="knee"/></sensor>
  <keyframe><key name="crouch" qpos="0 0 1 1 0 0 0 0 0.3 -1 1 0 0 0 0 -0.2 0 0"/></keyframe>
</mujoco>
"""

SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <model name="cart">
      <pose>1 2 0 0 0 0.5</pose>
      <link name="chassis">
        <inertial><mass>10</mass><inertia><ixx>1</ixx><iyy>2</iyy><izz>3</izz></inertia></inertial>
        <sensor name="lidar" type="gpu_lidar"/>
      </link>
      <link name="steer"><pose>1 0 0 0 0 0</pose>
        <inertial><mass>1</mass></inertial>
      </link>
      <link name="wheel"><pose>1 0.3 0 1.5707963267948966 0 0</pose>
        <inertial><mass>2</mass></inertial>
        <collision name="c">
          <geometry><cylinder><radius>0.2</radius><length>0.1</length></cylinder></geometry>
        </collision>
      </link>
      <link name="screw_link"><pose>0 0 0.5 0 0 0</pose>
        <inertial><mass>0.5</mass></inertial>
      </link>
      <link name="rev2_link"><pose>-1 0 0 0 0 0</pose>
        <inertial><mass>0.5</mass></inertial>
      </link>
      <joint name="steer_joint" type="universal">
        <pose>0.1 0 0 0 0 0</pose>
        <parent>chassis</parent><child>steer</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-0.5</lower><upper>0.5</upper></limit></axis>
        <axis2><xyz>0 1 0</xyz></axis2>
      </joint>
      <joint name="wheel_joint" type="revolute">
        <parent>steer</parent><child>wheel</child>
        <axis><xyz>0 0 1</xyz></axis>
      </joint>
      <joint name="screw_joint" type="screw">
        <parent>chassis</parent><child>screw_link</child>
        <thread_pitch>100</thread_pitch>
        <axis><xyz>0 0 1</xyz></axis>
      </joint>
      <joint name="rev2_joint" type="revolute2">
        <parent>chassis</parent><child>rev2_link</child>
        <axis><xyz>1 0 0</xyz></axis>
        <axis2><xyz>0 0 1</xyz></axis2>
      </joint>
      <frame name="sensor_mount" attached_to="chassis"><pose>0.2 0 0.3 0 0 0</pose></frame>
      <plugin filename="libdrive.so" name="drive"/>
    </model>
    <model name="table">
      <static>true</static>
      <pose>3 0 0 0 0 0</pose>
      <link name="top"><inertial><mass>5</mass></inertial></link>
    </model>
  </world>
</sdf>
"""


_HELD = (JointType.FLOATING, JointType.PLANAR)


def _anchor(model: robodesc.Model, body: str, root: str | None = None) -> str:
    """The body `body`'s pose is compared in: the nearest body moved by a floating or planar joint
    (yourdfpy holds those still), else the root."""
    for name in (body, *model.ancestors(body)):
        if any(model.joints[j].type in _HELD for j in model.bodies[name].joints):
            return name
    return root or plan(model).root  # the model's root, or its one child when the root is an empty placeholder


def _compared(model: robodesc.Model) -> list[str]:
    """The bodies compared: all but an empty root the writer leaves out (an SDF model's world)."""
    dropped = plan(model).dropped
    return [name for name in model.bodies if name != dropped]


def _truth_positions(model: robodesc.Model, positions: dict, layout=None) -> dict:
    """`positions` with the joint couplings the writer turned into <mimic> applied (the source's
    kinematics ignores constraints; the URDF follows them)."""
    out = dict(positions)
    for follower, (leader, multiplier, offset) in (layout or plan(model)).mimics.items():
        leader_value = out.get(leader, float(np.atleast_1d(model.joints[leader].reference)[0]))
        out[follower] = multiplier * float(np.asarray(leader_value).reshape(-1)[0]) + offset
    return out


def _random_positions(model: robodesc.Model, rng: np.random.Generator) -> dict:
    positions: dict = {}
    for name in model.movable_joints():
        joint = model.joints[name]
        if joint.type is JointType.BALL:
            q = rng.normal(size=4)
            positions[name] = q / np.linalg.norm(q)
        elif joint.type is JointType.FLOATING:
            q = rng.normal(size=4)
            positions[name] = [*rng.uniform(-1, 1, 3), *(q / np.linalg.norm(q))]
        elif joint.dof == 1:
            positions[name] = float(rng.uniform(-1.5, 1.5))
        else:
            positions[name] = rng.uniform(-1, 1, joint.dof).tolist()
    return positions


def _load_urdf(path: Path):
    logging.getLogger("yourdfpy").setLevel(logging.ERROR)
    return yourdfpy.URDF.load(
        str(path),
        build_scene_graph=True,
        load_meshes=False,
        build_collision_scene_graph=False,
        load_collision_meshes=False,
    )


def _set_cfg(urdf, model: robodesc.Model, positions: dict) -> None:
    """yourdfpy's single-valued joints at the URDF values of `positions` (0 for the others)."""
    values = joint_values(model, positions)
    single = {
        j.name for j in urdf.robot.joints if j.type in ("revolute", "continuous", "prismatic") and j.mimic is None
    }
    urdf.update_cfg({name: float(values.get(name, 0.0)) for name in single})


def _worst(model: robodesc.Model, urdf, positions: dict, bodies: list[str]) -> tuple[float, str]:
    poses = model.forward_kinematics(_truth_positions(model, positions))
    _set_cfg(urdf, model, positions)
    worst, where = 0.0, ""
    root = plan(model).root
    for body in bodies:
        anchor = _anchor(model, body, root)
        expected = np.linalg.inv(poses[anchor]) @ poses[body]
        error = float(np.abs(urdf.get_transform(body, anchor) - expected).max())
        if error > worst:
            worst, where = error, body
    return worst, where


class _Chain:
    """yourdfpy's reading of a URDF without its scene graph (whose build costs seconds on large files):
    link poses from yourdfpy's own joint transforms (`_forward_kinematics_joint`, mimic included),
    composed down the tree."""

    def __init__(self, model: robodesc.Model, path: Path) -> None:
        logging.getLogger("yourdfpy").setLevel(logging.ERROR)
        self.urdf = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False)
        self.model = model
        self.layout = plan(model)
        joints = {j.child: j for j in self.urdf.robot.joints}
        self.order: list = []
        self.base = self.urdf.base_link or self.urdf.robot.links[0].name  # None when there is no joint
        pending = [self.base]
        children: dict[str, list] = {}
        for joint in self.urdf.robot.joints:
            children.setdefault(joint.parent, []).append(joint)
        while pending:
            link = pending.pop()
            for joint in children.get(link, ()):
                self.order.append(joint)
                pending.append(joint.child)
        assert len(self.order) == len(joints)

    def poses(self, positions: dict) -> dict[str, np.ndarray]:
        urdf = self.urdf
        values = joint_values(self.model, positions, self.layout)
        cfg = np.zeros(len(urdf.cfg))
        for i, name in enumerate(urdf.actuated_joint_names):
            joint = urdf.joint_map[name]
            if joint.type in ("revolute", "continuous", "prismatic"):
                cfg[urdf.actuated_dof_indices[i]] = float(values.get(name, 0.0))
        urdf._cfg = cfg
        out = {self.base: np.eye(4)}
        for joint in self.order:
            matrix, _ = urdf._forward_kinematics_joint(joint)
            out[joint.child] = out[joint.parent] @ matrix
        return out


def _worst_light(chain: _Chain, positions: dict, bodies: list[str]) -> tuple[float, str]:
    model = chain.model
    poses = model.forward_kinematics(_truth_positions(model, positions, chain.layout))
    got = chain.poses(positions)
    worst, where = 0.0, ""
    for body in bodies:
        anchor = _anchor(model, body, chain.layout.root)
        expected = np.linalg.inv(poses[anchor]) @ poses[body]
        error = float(np.abs(np.linalg.inv(got[anchor]) @ got[body] - expected).max())
        if error > worst:
            worst, where = error, body
    return worst, where


def _mass(model: robodesc.Model) -> float:
    return sum(b.inertial.mass for b in model.bodies.values() if b.inertial is not None)


def _urdf_mass(urdf) -> float:
    return sum(link.inertial.mass for link in urdf.robot.links if link.inertial is not None and link.inertial.mass)


def _convert(source: robodesc.Model, tmp_path: Path) -> tuple[Path, list]:
    out = tmp_path / "out" / "robot.urdf"
    out.parent.mkdir(exist_ok=True)
    losses = robodesc.dump(source, out)
    return out, losses


def _same_kinematics(source: robodesc.Model, tmp_path: Path, configurations: int = 6) -> tuple[Path, list]:
    out, losses = _convert(source, tmp_path)
    urdf = _load_urdf(out)
    rng = np.random.default_rng(7)
    for _ in range(configurations):
        positions = _random_positions(source, rng)
        worst, body = _worst(source, urdf, positions, _compared(source))
        assert worst < 1e-9, f"{body} off by {worst} at {positions}"
    assert _urdf_mass(urdf) == pytest.approx(_mass(source), rel=1e-12)
    again = robodesc.load(out)  # robodesc reads its own output, with the same values
    for _ in range(3):
        positions = _random_positions(source, rng)
        expected = source.forward_kinematics(_truth_positions(source, positions))
        got = again.forward_kinematics(joint_values(source, positions))
        root = plan(source).root
        for body in _compared(source):
            anchor = _anchor(source, body, root)
            want = np.linalg.inv(expected[anchor]) @ expected[body]
            assert np.abs(np.linalg.inv(got[anchor]) @ got[body] - want).max() < 1e-9, body
    return out, losses


@pytest.fixture
def urdf_source(tmp_path: Path) -> robodesc.Model:
    folder = tmp_path / "src"
    (folder / "meshes").mkdir(parents=True)
    (folder / "meshes" / "base.stl").write_text("solid s\nendsolid s\n")
    (folder / "robot.urdf").write_text(URDF)
    return robodesc.load(folder / "robot.urdf")


# -- URDF sources -------------------------------------------------------------------------------------
def test_urdf_source_converts_exactly_and_keeps_its_idioms(urdf_source, tmp_path):
    out, losses = _same_kinematics(urdf_source, tmp_path)
    assert [loss.code for loss in losses] == ["capsule"]
    text = out.read_text()
    assert '<robot name="arm &amp; co">' in text
    assert text.count('<material name="blue">') == 1 and '<material name="unused">' in text
    assert '<mesh filename="../src/meshes/base.stl" scale="0.001 0.001 0.001"/>' in text
    assert '<mimic joint="elbow" multiplier="-2" offset="0.1"/>' in text
    assert '<joint name="plate_joint" type="planar">' in text
    assert "<safety_controller " in text and '<calibration rising="0.2"/>' in text
    again = robodesc.load(out)
    assert list(again.bodies) == list(urdf_source.bodies)  # no helper link was needed
    assert list(again.joints) == list(urdf_source.joints)
    for name, joint in urdf_source.joints.items():
        copy = again.joints[name]
        assert copy.type == joint.type and copy.parent == joint.parent and copy.child == joint.child
        assert np.abs(copy.origin - joint.origin).max() < 1e-12
        assert copy.limits == joint.limits and copy.dynamics == joint.dynamics and copy.mimic == joint.mimic
    base, copy = urdf_source.bodies["base"].inertial, again.bodies["base"].inertial
    assert copy.mass == base.mass and np.array_equal(copy.com, base.com)
    assert np.abs(copy.inertia - base.inertia).max() < 1e-15  # the full tensor in body axes
    assert again.joints["shoulder"].extras["urdf"]["safety_controller"]["k_position"] == 15.0


def _canonical(xml: str) -> str:
    return re.sub(r">\s+<", "><", xml.strip())


def test_urdf_extension_elements_survive_a_round_trip(urdf_source, tmp_path):
    out, _ = _convert(urdf_source, tmp_path)
    again = robodesc.load(out)
    assert [e.tag for e in again.extras] == ["transmission", "gazebo", "ros2_control"]
    for before, after in zip(urdf_source.extras, again.extras):
        assert _canonical(after.xml) == _canonical(before.xml)
        assert after.attributes == before.attributes
    camera = again.bodies["base"].extras["xml"][0]
    assert camera.tag == "sensor:camera" and _canonical(camera.xml) == _canonical(
        urdf_source.bodies["base"].extras["xml"][0].xml
    )


def _rounded(text: str) -> str:
    return re.sub(r"-?\d+\.\d+(e-?\d+)?", lambda m: f"{float(m.group()):.11g}", text)


def test_writing_twice_gives_the_same_text_and_a_rewrite_the_same_document(urdf_source, tmp_path):
    first = robodesc.dumps(urdf_source, "urdf")
    assert first == robodesc.dumps(urdf_source, "urdf")
    out, _ = _convert(urdf_source, tmp_path)
    again = robodesc.load(out)
    second = tmp_path / "out" / "again.urdf"
    robodesc.dump(again, second)
    # the same document, numbers equal to 11 digits (roll-pitch-yaw go through a matrix and back)
    assert _rounded(second.read_text()) == _rounded(out.read_text())


def test_floats_are_written_exactly():
    model = robodesc.loads(
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
        '<origin xyz="0.1 1e-12 123456.789012345678" rpy="0.3 1.5707963 -2.9"/>'
        '<parent link="a"/><child link="b"/></joint></robot>',
        format="urdf",
    )
    again = robodesc.loads(robodesc.dumps(model, "urdf"), format="urdf")
    assert np.abs(again.joints["j"].origin - model.joints["j"].origin).max() < 1e-12
    assert again.joints["j"].origin[0, 3] == 0.1 and again.joints["j"].origin[1, 3] == 1e-12
    assert again.joints["j"].origin[2, 3] == 123456.789012345678


# -- MJCF sources -------------------------------------------------------------------------------------
def test_mjcf_source_converts_exactly_with_helper_links(tmp_path):
    source = robodesc.loads(MJCF, format="mjcf")
    out, losses = _same_kinematics(source, tmp_path)
    codes = Counter(loss.code for loss in losses)
    assert codes["ball-joint"] == 1 and codes["unlimited-joint"] == 1
    assert codes["capsule"] == codes["ellipsoid"] == codes["plane"] == 2  # MJCF geoms are visual and collision
    assert codes["tendon"] == 1 and codes["actuator"] == 1 and codes["sensor"] == 1 and codes["keyframe"] == 1
    assert codes["joint-reference"] >= 2 and codes["joint-armature"] == 1
    assert codes["constraint"] == 0  # the joint coupling became a <mimic>
    assert all(loss.location.line is not None for loss in losses if loss.code in ("tendon", "actuator", "sensor"))
    text = out.read_text()
    assert '<mimic joint="arm_hinge" multiplier="-0.5" offset="0.1"/>' in text
    assert '<joint name="root" type="floating">' in text
    again = robodesc.load(out)
    for body in ("world", "torso", "thigh", "shin", "foot", "toe", "arm", "hand", "box", "imu"):
        assert body in again.bodies
    for joint in ("root", "hip_x", "hip_y", "knee", "toe_slide", "toe_hinge", "ankle__x", "ankle__y", "ankle__z"):
        assert joint in again.joints
    assert again.joints["knee"].limits == source.joints["knee"].limits.__class__(
        source.joints["knee"].limits.lower, source.joints["knee"].limits.upper, 0.0, 0.0
    )
    assert again.joints["hip_y"].type is JointType.CONTINUOUS
    assert "thigh__hip_x_frame" in again.bodies and again.bodies["thigh__hip_x_frame"].inertial is None


def test_ball_angles_reproduce_the_rotation():
    from robodesc.core.transforms import axis_angle_to_matrix, quat_to_matrix

    rng = np.random.default_rng(3)
    for q in [*rng.normal(size=(20, 4)), [0.7071067811865476, 0, 0.7071067811865476, 0]]:
        a, b, c = ball_angles(q)
        r = axis_angle_to_matrix([1, 0, 0], a) @ axis_angle_to_matrix([0, 1, 0], b) @ axis_angle_to_matrix([0, 0, 1], c)
        assert np.abs(r - quat_to_matrix(q)).max() < 1e-12


# -- SDF sources --------------------------------------------------------------------------------------
def test_sdf_world_converts_with_split_joints_and_frame_links(tmp_path):
    source = robodesc.loads(SDF, format="sdf")
    out, losses = _same_kinematics(source, tmp_path)
    codes = Counter(loss.code for loss in losses)
    assert codes["universal-joint"] == 1 and codes["revolute2-joint"] == 1 and codes["screw-joint"] == 1
    assert codes["sensor"] == 1 and codes["plugin"] == 1
    text = out.read_text()
    assert '<joint name="cart::steer_joint__1" type="revolute">' in text
    assert '<joint name="cart::steer_joint__2" type="continuous">' in text
    assert re.search(r'<mimic joint="cart::screw_joint" multiplier="[^"]+" offset="0"/>', text)
    again = robodesc.load(out)
    assert "cart::sensor_mount" in again.bodies and again.root.name == "world"
    sdf_mass = _mass(source)
    assert _mass(again) == pytest.approx(sdf_mass)


def test_dumps_without_a_path_writes_absolute_mesh_paths(urdf_source):
    text = robodesc.dumps(urdf_source, "urdf")
    mesh = urdf_source.bodies["base"].visuals[1].geometry
    assert f'filename="{mesh.path}"' in text


def test_copy_assets_refers_to_the_copies(urdf_source, tmp_path):
    context = WriteContext(tmp_path / "x" / "r.urdf", copy_assets=True)
    from robodesc.formats.urdf.write import write

    text = write(urdf_source, context)
    assert 'filename="r_assets/base.stl"' in text and len(context.assets) == 1


# -- the corpus ---------------------------------------------------------------------------------------
def _corpus() -> Path:
    value = os.environ.get("ROBODESC_CORPUS")
    if not value or not Path(value).is_dir():
        pytest.skip("ROBODESC_CORPUS is not set: no corpus to convert")
    return Path(value)


def _source_file(corpus: Path, fmt: str, rel: str) -> Path | None:
    for candidate in (corpus / fmt / rel, corpus / rel):
        if candidate.is_file():
            return candidate
    return None


def _search_paths(corpus: Path, fmt: str, golden: dict) -> list[str]:
    found = []
    for key in ("search_paths", "model_path_dirs"):
        value = golden.get(key) or []
        for rel in value.split(",") if isinstance(value, str) else value:
            for base in (corpus / fmt / rel, corpus / rel):
                if rel and base.is_dir():
                    found.append(str(base))
                    break
    return found


def test_corpus_converts_to_urdf_that_yourdfpy_reads_with_the_same_poses(tmp_path):
    corpus = _corpus()
    started = time.perf_counter()
    results: dict[str, Counter] = {}
    failures: list[str] = []
    for fmt in ("urdf", "mjcf", "sdf"):
        tally = results.setdefault(fmt, Counter())
        for gpath in sorted((corpus / "golden" / fmt).rglob("*.json")):
            golden = json.loads(gpath.read_text())
            path = _source_file(corpus, fmt, golden.get("file", ""))
            if "error" in golden or path is None:
                tally["skipped (the reference rejects it)"] += 1
                continue
            try:
                source = robodesc.load(path, search_paths=_search_paths(corpus, fmt, golden))
            except robodesc.RobodescError:
                tally["skipped (robodesc refuses it)"] += 1
                continue
            label = f"{fmt}/{gpath.relative_to(corpus / 'golden' / fmt)}"
            out = tmp_path / fmt / (gpath.stem.replace(".", "_") + ".urdf")
            out.parent.mkdir(exist_ok=True)
            try:
                robodesc.dump(source, out)
                chain = _Chain(source, out)
            except Exception as exc:  # noqa: BLE001 - every failure is reported
                failures.append(f"{label}: {type(exc).__name__}: {exc}")
                continue
            bodies = _compared(source)
            worst, where = 0.0, ""
            for sample in golden.get("samples", []):
                positions = {k: v for k, v in sample["positions"].items() if k in source.joints}
                error, body = _worst_light(chain, positions, bodies)
                if error > worst:
                    worst, where = error, body
            mass_ok = _urdf_mass(chain.urdf) == pytest.approx(_mass(source), rel=1e-9, abs=1e-12)
            if worst > 1e-6 or not mass_ok:
                failures.append(f"{label}: body {where!r} off by {worst:.3g}; mass ok: {mass_ok}")
                tally["failing"] += 1
                continue
            floating = any(j.type in _HELD for j in source.joints.values())
            tally["exact relative to the floating base" if floating else "exact"] += 1
    elapsed = time.perf_counter() - started
    print(
        f"\nURDF writer over the corpus in {elapsed:.1f} s: " + "; ".join(f"{f}: {dict(c)}" for f, c in results.items())
    )
    assert not failures, f"{len(failures)} file(s) differ:\n" + "\n".join(failures[:20])


def test_an_sdf_model_has_its_root_link_as_urdf_root(tmp_path):
    source = robodesc.loads(
        '<sdf version="1.9"><model name="m"><pose>0 0 1 0 0 0</pose>'
        "<link name='base'><inertial><mass>2</mass></inertial></link>"
        "<link name='arm'><pose>0 0 0.5 0 0 0</pose></link>"
        "<joint name='j' type='revolute'><parent>base</parent><child>arm</child><axis><xyz>0 1 0</xyz></axis></joint>"
        "</model></sdf>",
        format="sdf",
    )
    out, losses = _same_kinematics(source, tmp_path)
    again = robodesc.load(out)
    assert again.root.name == "base" and "world" not in again.bodies and list(again.joints) == ["j"]
    assert [loss.code for loss in losses] == ["root-pose"]  # the model's placement in the world


def test_a_static_sdf_model_is_fixed_to_a_world_link_where_it_stands(tmp_path):
    sdf = robodesc.loads(
        '<sdf version="1.9"><model name="ground"><static>true</static><pose>1 2 0 0 0 0.5</pose>'
        '<link name="slab"><visual name="v"><geometry><box><size>1 1 0.1</size></box></geometry></visual></link>'
        "</model></sdf>",
        format="sdf",
    )
    context = robodesc.WriteContext(tmp_path / "ground.urdf")
    text = robodesc.dumps(sdf, "urdf", context=context)
    assert [loss.code for loss in context.losses] == ["static"]
    urdf = robodesc.loads(text, format="urdf")
    assert urdf.root.name == "world" and urdf.joints["slab__fixed"].type == "fixed"
    assert np.allclose(urdf.forward_kinematics()["slab"], sdf.forward_kinematics()["slab"])  # where it stood


def test_a_long_chain_of_mimics_is_written_with_each_follower_on_the_leading_joint():
    """yourdfpy follows only independent joints, so every follower names the chain's leading joint,
    with the offsets summed along the chain; each follower's answer is composed from its leader's."""
    count = 3000
    text = robodesc.dumps(robodesc.loads(mimic_chain_urdf(count, offset=0.5), format="urdf"), format="urdf")
    offsets = [float(o) for o in re.findall(r'<mimic joint="j2999" multiplier="1" offset="([^"]+)"/>', text)]
    assert offsets == [0.5 * (count - 1 - k) for k in range(count - 1)]
