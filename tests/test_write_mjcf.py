"""The MJCF writer, proven by MuJoCo: handwritten URDF, MJCF and SDF sources written as MJCF, loaded
by MuJoCo, and every body's pose relative to the root at random configurations compared with
robodesc's forward kinematics of the source; masses and inertias compared with the source's.

The corpus loop does the same for every golden file of the shared corpus (ROBODESC_CORPUS)."""

from __future__ import annotations

import json
import os
import struct
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import mimic_chain_urdf

import robodesc
from robodesc.core.model import JointType
from robodesc.core.transforms import quat_to_matrix
from robodesc.core.writing import WriteContext
from robodesc.formats.mjcf.write import TINY_MASS, qpos

mujoco = pytest.importorskip("mujoco")


# -- helpers -------------------------------------------------------------------------------------
def _write(model, folder: Path, name: str = "out.xml"):
    path = folder / name
    context = WriteContext(path)
    text = robodesc.dumps(model, "mjcf", context=context)
    path.write_text(text)
    return mujoco.MjModel.from_xml_path(str(path)), context.losses, text


def _random_positions(model, rng):
    positions = {}
    for name in model.movable_joints():
        joint = model.joints[name]
        if joint.type is JointType.BALL:
            q = rng.normal(size=4)
            positions[name] = q / np.linalg.norm(q)
        elif joint.type is JointType.FLOATING:
            q = rng.normal(size=4)
            positions[name] = np.concatenate([rng.uniform(-1, 1, 3), q / np.linalg.norm(q)])
        else:
            low, high = joint.limits.lower, joint.limits.upper
            size = joint.dof
            if low is not None and high is not None and low < high:
                positions[name] = rng.uniform(low, high, size) if size > 1 else float(rng.uniform(low, high))
            else:
                positions[name] = rng.uniform(-1.5, 1.5, size) if size > 1 else float(rng.uniform(-1.5, 1.5))
    return positions


def _mj_pose(data, body_id):
    pose = np.eye(4)
    pose[:3, :3] = data.xmat[body_id].reshape(3, 3)
    pose[:3, 3] = data.xpos[body_id]
    return pose


def _pose_error(model, mj, configurations, bodies=None):
    """Largest difference of a body's pose relative to the root, MuJoCo vs robodesc, over configurations."""
    data = mujoco.MjData(mj)
    root = model.root.name
    root_id = 0 if root == "world" else mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, root)
    names = [b for b in (bodies or model.bodies) if not b.startswith("<unnamed") and b != "world"]
    ids = [mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, b) for b in names]
    missing = [n for n, i in zip(names, ids) if i < 0]
    assert not missing, f"bodies missing from the MJCF: {missing[:5]}"
    vectors = qpos(model, configurations)
    worst = (0.0, None)
    for positions, vector in zip(configurations, vectors):
        data.qpos[:] = vector
        mujoco.mj_kinematics(mj, data)
        poses = model.forward_kinematics(positions)
        to_root = np.linalg.inv(poses[root])
        mj_to_root = np.linalg.inv(_mj_pose(data, root_id))
        for name, body_id in zip(names, ids):
            error = float(np.abs(mj_to_root @ _mj_pose(data, body_id) - to_root @ poses[name]).max())
            if error > worst[0]:
                worst = (error, name)
    return worst


def _check_inertials(model, mj, losses):
    changed = {loss.construct for loss in losses if loss.code.startswith("inertia") or loss.code == "massless-body"}
    for body in model.bodies.values():
        if body.inertial is None or body.name in changed or body.name == "world":
            continue
        i = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, body.name)
        assert mj.body_mass[i] == pytest.approx(body.inertial.mass, rel=1e-12, abs=1e-15), body.name
        np.testing.assert_allclose(mj.body_ipos[i], body.inertial.com, atol=1e-12)
        rotation = quat_to_matrix(mj.body_iquat[i])
        tensor = rotation @ np.diag(mj.body_inertia[i]) @ rotation.T
        scale = max(1e-12, float(np.abs(body.inertial.inertia).max()))
        np.testing.assert_allclose(tensor, body.inertial.inertia, atol=1e-9 * scale, err_msg=body.name)


def _expected_mass(model, losses):
    total = sum(b.inertial.mass for b in model.bodies.values() if b.inertial is not None)
    for loss in losses:
        if loss.code == "massless-body":
            inertial = model.bodies[loss.construct].inertial
            if inertial is None or inertial.mass < 1e-15:
                total += TINY_MASS
    return total


def _binary_stl(path: Path) -> None:
    """A unit tetrahedron as a binary STL file."""
    v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    data = bytearray(80) + struct.pack("<I", len(faces))
    for face in faces:
        data += struct.pack("<3f", 0, 0, 0)
        for index in face:
            data += struct.pack("<3f", *v[index])
        data += b"\0\0"
    path.write_bytes(bytes(data))


def _assert_exact(model, tmp_path, name="out.xml", samples=6):
    mj, losses, text = _write(model, tmp_path, name)
    rng = np.random.default_rng(7)
    configurations = [{}] + [_random_positions(model, rng) for _ in range(samples)]
    error, body = _pose_error(model, mj, configurations)
    assert error < 1e-9, f"body {body!r} is off by {error}"
    _check_inertials(model, mj, losses)
    assert float(mj.body_mass.sum()) == pytest.approx(_expected_mass(model, losses), rel=1e-12, abs=1e-12)
    return mj, losses, text


# -- URDF ----------------------------------------------------------------------------------------
URDF = """<robot name="arm">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial><origin xyz="0 0 0.1" rpy="0.1 0.2 0.3"/><mass value="2"/>
      <inertia ixx="0.02" ixy="0.001" ixz="-0.002" iyy="0.03" iyz="0.0005" izz="0.025"/></inertial>
    <visual><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry><material name="blue"/></visual>
    <collision><geometry><mesh filename="tet.stl" scale="0.1 0.2 0.3"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><cylinder radius="0.03" length="0.4"/></geometry></visual>
  </link>
  <link name="massless"/>
  <link name="lower">
    <inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" iyy="0.002" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <link name="tool"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"
      ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="finger_a"><inertial><mass value="0.05"/><inertia ixx="1e-5" iyy="1e-5" izz="1e-5"
      ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="finger_b"><inertial><mass value="0.05"/><inertia ixx="1e-5" iyy="1e-5" izz="1e-5"
      ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="drone"><inertial><mass value="0.3"/><inertia ixx="1e-3" iyy="1e-3" izz="2e-3"
      ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="cart"><inertial><mass value="0.3"/><inertia ixx="1e-3" iyy="1e-3" izz="2e-3"
      ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.2" rpy="0.3 -0.2 0.5"/>
    <axis xyz="0 1 1"/><limit lower="-1" upper="1.2" effort="5" velocity="2"/>
    <dynamics damping="0.3" friction="0.1"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="massless"/><origin xyz="0 0.1 0.4" rpy="0 0.5 0"/><axis xyz="1 0 0"/>
  </joint>
  <joint name="slider" type="prismatic">
    <parent link="massless"/><child link="lower"/><origin xyz="0.1 0 0" rpy="0.2 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-0.1" upper="0.2" effort="1" velocity="1"/>
  </joint>
  <joint name="weld" type="fixed"><parent link="lower"/><child link="tool"/><origin xyz="0.2 0 0" rpy="0 0 1"/></joint>
  <joint name="finger_a_joint" type="prismatic">
    <parent link="tool"/><child link="finger_a"/><origin xyz="0 0.02 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="1" velocity="1"/>
  </joint>
  <joint name="finger_b_joint" type="prismatic">
    <parent link="tool"/><child link="finger_b"/><origin xyz="0 -0.02 0"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="1" velocity="1"/>
    <mimic joint="finger_a_joint" multiplier="0.5" offset="0.01"/>
  </joint>
  <joint name="fly" type="floating">
    <parent link="base"/><child link="drone"/><origin xyz="1 0 0" rpy="0 0 0.4"/>
  </joint>
  <joint name="glide" type="planar"><parent link="base"/><child link="cart"/><origin xyz="0 1 0" rpy="0.2 0 0"/>
    <axis xyz="0 0 1"/></joint>
</robot>
"""


@pytest.fixture
def urdf_model(tmp_path):
    _binary_stl(tmp_path / "tet.stl")
    (tmp_path / "arm.urdf").write_text(URDF)
    return robodesc.load(tmp_path / "arm.urdf")


def test_urdf_source_kinematics_masses_and_inertias_match_mujoco(urdf_model, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    mj, losses, text = _assert_exact(urdf_model, out)
    codes = {loss.code for loss in losses}
    assert {"fixed-joint", "planar-joint", "massless-body", "velocity-limit"} <= codes
    assert 'file="../tet.stl"' in text  # relative to the output's folder
    assert 'angle="radian"' in text and 'autolimits="true"' in text and 'inertiafromgeom="false"' in text
    # the floating joint of a child of the (fixed) root becomes a free joint of a world body
    assert mj.jnt_type[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, "fly")] == mujoco.mjtJoint.mjJNT_FREE
    assert mj.body_parentid[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "drone")] == 0
    # names kept; scalar joints take the source's values at their qpos address
    vector = qpos(urdf_model, {"shoulder": 0.25, "slider": 0.125})
    assert vector[mj.joint("shoulder").qposadr[0]] == 0.25
    assert vector[mj.joint("slider").qposadr[0]] == 0.125
    # the visual is drawn only (group 2), the collision collides (group 3)
    groups = sorted(int(g) for g in mj.geom_group)
    assert groups == [2, 2, 3, 3]
    assert mj.geom_contype[mj.geom_group == 2].max() == 0


def test_mimic_is_an_equality(urdf_model, tmp_path):
    mj, _, _ = _write(urdf_model, tmp_path)
    assert mj.neq == 1
    assert mj.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    follower, leader = mj.eq_obj1id[0], mj.eq_obj2id[0]
    assert mj.joint(follower).name == "finger_b_joint" and mj.joint(leader).name == "finger_a_joint"
    np.testing.assert_allclose(mj.eq_data[0][:5], [0.01, 0.5, 0, 0, 0])
    # the coupling holds at a configuration the writer computes: the constraint residual is zero
    data = mujoco.MjData(mj)
    data.qpos[:] = qpos(urdf_model, {"finger_a_joint": 0.03})
    mujoco.mj_forward(mj, data)
    rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert np.abs(data.efc_pos[rows]).max() < 1e-12


def test_a_configuration_of_a_long_chain_of_mimics_follows_the_leading_joint():
    """Each follower's value is composed from its leader's, once per joint."""
    count = 3000
    model = robodesc.loads(mimic_chain_urdf(count, offset=0.5), format="urdf")
    values = qpos(model, {f"j{count - 1}": 0.25})
    assert values.tolist() == [0.25 + 0.5 * (count - 1 - k) for k in range(count)]


def test_losses_name_the_construct_and_what_was_written(urdf_model, tmp_path):
    _, losses, _ = _write(urdf_model, tmp_path)
    massless = [loss for loss in losses if loss.code == "massless-body"]
    assert [loss.construct for loss in massless] == ["massless"]
    assert "added" in massless[0].instead
    planar = next(loss for loss in losses if loss.code == "planar-joint")
    assert planar.construct == "glide" and planar.location.line is not None


def test_dumps_and_dump_work_through_the_registry(urdf_model, tmp_path):
    assert any(f.name == "mjcf" and f.can_write for f in robodesc.formats())
    text = robodesc.dumps(urdf_model, "mjcf")
    assert text.startswith('<mujoco model="arm">') and "\n  <worldbody>" in text
    assert robodesc.dumps(urdf_model, "mjcf") == text  # deterministic
    losses = robodesc.dump(urdf_model, tmp_path / "arm.xml", format="mjcf")
    assert losses and (tmp_path / "arm.xml").is_file()
    mujoco.MjModel.from_xml_path(str(tmp_path / "arm.xml"))


# -- MJCF ----------------------------------------------------------------------------------------
MJCF = """<mujoco model="m">
  <compiler angle="degree"/>
  <option timestep="0.002"/>
  <default>
    <joint damping="0.5"/>
    <default class="arm"><joint armature="0.01" range="-90 90"/><geom rgba="1 0 0 1"/></default>
    <position kp="50"/>
  </default>
  <asset><material name="grey" rgba="0.5 0.5 0.5 1"/></asset>
  <worldbody>
    <light name="sun" pos="0 0 3"/>
    <geom name="floor" type="plane" size="2 2 0.1" material="grey"/>
    <body name="base" pos="0 0 0.5" euler="10 20 30">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.05" mass="2"/>
      <body name="link1" pos="0.2 0 0" childclass="arm">
        <joint name="j1" axis="0 0 1" pos="0.05 0 0" ref="15"/>
        <joint name="j1b" type="slide" axis="1 1 0" range="-0.1 0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <site name="tip" pos="0.3 0 0" size="0.01"/>
        <body name="link2" pos="0.3 0 0" quat="0.9 0.1 0.2 0.3">
          <joint name="ball" type="ball" pos="0 0.01 0" range="0 60"/>
          <inertial pos="0.1 0 0" mass="0.4" fullinertia="0.002 0.003 0.004 0.0001 -0.0002 0.0003"/>
          <geom type="ellipsoid" size="0.05 0.04 0.03" contype="0" conaffinity="0" group="1"/>
          <camera name="eye" pos="0 0 0.1" euler="0 90 0"/>
          <body name="link3" pos="0.2 0 0">
            <joint name="j3" axis="0 1 0" range="-30 45" stiffness="2" springref="10"/>
            <geom type="sphere" size="0.04"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><joint joint1="j3" joint2="j1" polycoef="0 0.5 0 0 0"/></equality>
  <tendon><fixed name="t"><joint joint="j1" coef="1"/><joint joint="j3" coef="-1"/></fixed></tendon>
  <actuator><position name="act" joint="j1" ctrlrange="-1 1"/><motor name="m3" joint="j3" gear="2"/></actuator>
  <sensor><jointpos name="s1" joint="j1"/></sensor>
  <keyframe><key name="home" qpos="0 0 1 1 0 0 0 0.5 0.05 0.9 0.1 0.1 0.1 0.2" ctrl="0.5 0"/></keyframe>
</mujoco>
"""


def test_mjcf_source_round_trips_through_mujoco(tmp_path):
    source = tmp_path / "m.xml"
    source.write_text(MJCF)
    model = robodesc.load(source)
    out = tmp_path / "out"
    out.mkdir()
    mj, losses, text = _assert_exact(model, out)
    original = mujoco.MjModel.from_xml_path(str(source))
    assert sorted(loss.code for loss in losses) == ["actuator-attribute", "default-class"]  # kp of <motor>
    # the same counts, the same actuators, tendon, sensor, equality; the keyframe in the same qpos order
    for count in ("nbody", "njnt", "nq", "ngeom", "nsite", "nu", "ntendon", "nsensor", "neq", "nkey", "ncam", "nlight"):
        assert getattr(mj, count) == getattr(original, count), count
    np.testing.assert_allclose(mj.key_qpos, original.key_qpos, atol=1e-12)
    np.testing.assert_allclose(mj.key_ctrl, original.key_ctrl)
    np.testing.assert_allclose(mj.qpos0, original.qpos0, atol=1e-12)
    np.testing.assert_allclose(mj.jnt_range, original.jnt_range, atol=1e-12)
    np.testing.assert_allclose(mj.dof_damping, original.dof_damping)
    np.testing.assert_allclose(mj.dof_armature, original.dof_armature)
    np.testing.assert_allclose(mj.jnt_stiffness, original.jnt_stiffness)
    np.testing.assert_allclose(mj.qpos_spring, original.qpos_spring, atol=1e-12)
    np.testing.assert_allclose(mj.actuator_gainprm, original.actuator_gainprm)
    np.testing.assert_allclose(mj.actuator_biasprm, original.actuator_biasprm)
    np.testing.assert_allclose(mj.actuator_gear, original.actuator_gear)
    np.testing.assert_allclose(mj.body_mass, original.body_mass, rtol=1e-12)
    np.testing.assert_allclose(mj.geom_rgba, original.geom_rgba)
    np.testing.assert_allclose(mj.geom_group, original.geom_group)
    np.testing.assert_allclose(mj.cam_mat0, original.cam_mat0, atol=1e-12)  # degrees turned to radians
    # same poses as MuJoCo's own at the keyframe
    for reference, written in ((original, mujoco.MjData(original)), (mj, mujoco.MjData(mj))):
        mujoco.mj_resetDataKeyframe(reference, written, 0)
        mujoco.mj_kinematics(reference, written)
        if reference is original:
            expected = written.xpos.copy(), written.xquat.copy()
    np.testing.assert_allclose(written.xpos, expected[0], atol=1e-12)
    np.testing.assert_allclose(written.xquat, expected[1], atol=1e-12)
    assert "class=" not in text and 'name="tip"' in text


# -- SDF -----------------------------------------------------------------------------------------
SDF = """<?xml version="1.0"?>
<sdf version="1.12">
  <model name="rig">
    <link name="base">
      <pose>0 0 1 0 0 0.3</pose>
      <inertial><mass>3</mass><inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.25</izz></inertia></inertial>
      <visual name="v"><geometry><box><size>0.3 0.3 0.1</size></box></geometry></visual>
      <collision name="c"><geometry><cone><radius>0.1</radius><length>0.2</length></cone></geometry></collision>
    </link>
    <link name="yoke">
      <pose relative_to="base">0.2 0 0 0.1 0.2 0.3</pose>
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      <visual name="v"><geometry><sphere><radius>0.05</radius></sphere></geometry></visual>
    </link>
    <link name="tip">
      <pose relative_to="yoke">0 0.3 0 0 0 0</pose>
      <inertial><mass>0.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
    </link>
    <link name="knob">
      <pose relative_to="tip">0 0 0.1 0 0 0</pose>
      <inertial><mass>0.2</mass><inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial>
    </link>
    <joint name="cross" type="universal">
      <pose>0 0 0.05 0 0.4 0</pose>
      <parent>base</parent><child>yoke</child>
      <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
      <axis2><xyz>0 1 0</xyz><limit><lower>-0.5</lower><upper>0.5</upper></limit></axis2>
    </joint>
    <joint name="twist" type="ball"><pose>0 0 0 0.3 0 0</pose><parent>yoke</parent><child>tip</child></joint>
    <joint name="spin" type="screw">
      <parent>tip</parent><child>knob</child><axis><xyz>0 0 1</xyz></axis><thread_pitch>0.01</thread_pitch>
    </joint>
    <frame name="marker" attached_to="tip"><pose>0 0 0.2 0 0 0</pose></frame>
    <plugin name="p" filename="libfoo.so"/>
  </model>
</sdf>
"""


def test_sdf_source_kinematics_match_mujoco(tmp_path):
    (tmp_path / "rig.sdf").write_text(SDF)
    model = robodesc.load(tmp_path / "rig.sdf")
    mj, losses, text = _assert_exact(model, tmp_path)
    codes = {loss.code for loss in losses}
    assert {"universal-joint", "cone", "plugin", "screw-joint", "joint-value-convention"} <= codes
    assert mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_SITE, "marker") >= 0
    # the free root link of a model that is not static moves freely in MuJoCo too
    assert mj.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)  # at qpos0: the link where the source puts it
    np.testing.assert_allclose(_mj_pose(data, 1), model.forward_kinematics()["base"], atol=1e-12)


def test_written_without_a_path_refers_to_meshes_absolutely(urdf_model, tmp_path):
    text = robodesc.dumps(urdf_model, "mjcf")
    assert f'file="{tmp_path / "tet.stl"}"' in text


# -- the corpus ----------------------------------------------------------------------------------
#: Files of the corpus whose MJCF MuJoCo refuses or that convert only approximately, with why.
KNOWN = {}
#: Bodies compared per sample in a large world (a fixed choice): enough to cover every robot.
MAX_BODIES = 120


def _corpus() -> Path:
    value = os.environ.get("ROBODESC_CORPUS")
    if not value or not Path(value).is_dir():
        pytest.skip("ROBODESC_CORPUS is not set: no corpus to convert")
    return Path(value)


def _golden_source(corpus: Path, golden: dict) -> Path | None:
    for candidate in (corpus / golden["format"] / golden["file"], corpus / golden["file"]):
        if candidate.is_file():
            return candidate
    return None


def test_corpus_converts_to_mjcf_that_mujoco_loads_with_the_same_kinematics(tmp_path):
    corpus = _corpus()
    started = time.monotonic()
    results: dict[str, list[str]] = {"exact": [], "skipped": []}
    problems = []
    for index, golden_path in enumerate(sorted((corpus / "golden").rglob("*.json"))):
        golden = json.loads(golden_path.read_text())
        if "error" in golden or not golden.get("samples"):
            continue
        source = _golden_source(corpus, golden)
        if source is None:
            continue
        fmt = golden["format"]
        search = [str(corpus / fmt / p) for p in golden.get("search_paths") or []]
        label = f"{fmt}: {golden['file']}"
        try:
            model = robodesc.load(source, search_paths=search) if search else robodesc.load(source)
        except robodesc.RobodescError:
            results["skipped"].append(label)  # robodesc refuses it (as a reference may): nothing to convert
            continue
        try:
            mj, losses, _ = _write(model, tmp_path, f"{index}.xml")
        except ValueError as exc:  # MuJoCo refuses the output
            if label not in KNOWN:
                problems.append(f"{label}: MuJoCo refuses the MJCF: {str(exc).splitlines()[0]}")
            continue
        configurations = [{k: v for k, v in s["positions"].items() if k in model.joints} for s in golden["samples"]]
        bodies = [b for b in model.bodies if b in golden["samples"][0]["poses"]] or list(model.bodies)
        if len(bodies) > MAX_BODIES:
            bodies = bodies[:: max(1, len(bodies) // MAX_BODIES)]
        error, body = _pose_error(model, mj, configurations, bodies)
        mass, expected = float(mj.body_mass.sum()), _expected_mass(model, losses)
        if error > 1e-6:
            problems.append(f"{label}: body {body!r} off by {error:.3g}")
        elif abs(mass - expected) > 1e-9 * max(1.0, expected):
            problems.append(f"{label}: total mass {mass} != {expected}")
        else:
            results["exact"].append(label)
    elapsed = time.monotonic() - started
    print(f"\nMJCF conversion of the corpus: {len(results['exact'])} exact, {len(results['skipped'])} not loaded by"
          f" robodesc, {len(problems)} failing, {elapsed:.1f} s")  # fmt: skip
    assert results["exact"], "no corpus file was converted"
    assert not problems, "\n".join(problems)


def test_a_moving_body_needs_one_welded_body_with_mass_and_inertia_of_its_own():
    # Two point masses welded to a massless moving link: together they have inertia about every
    # axis, but MuJoCo 4.0 asks it of one body alone, so the link gets a tiny mass and inertia.
    urdf = """<robot name="r"><link name="a"/><link name="b"/>
      <link name="p1"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
        <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="p2"><inertial><origin xyz="0 0.1 0"/><mass value="1"/>
        <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="f1" type="fixed"><parent link="b"/><child link="p1"/></joint>
      <joint name="f2" type="fixed"><parent link="b"/><child link="p2"/></joint></robot>"""
    context = robodesc.WriteContext()
    text = robodesc.dumps(robodesc.loads(urdf, format="urdf"), "mjcf", context=context)
    assert [loss.construct for loss in context.losses if loss.code == "massless-body"] == ["b"]
    mujoco.MjModel.from_xml_string(text)  # accepted
    without = text.replace('mass="1e-06"', 'mass="0"')
    assert without != text
    with pytest.raises(ValueError, match="mass and inertia"):
        mujoco.MjModel.from_xml_string(without)  # what MuJoCo says without the added mass
