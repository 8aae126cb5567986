"""MJCF against MuJoCo itself: small handwritten models, one per construct, compiled by MuJoCo and
loaded by robodesc, compared body by body at random configurations (poses), and on joint
ranges, masses, centres of mass and inertias."""

from __future__ import annotations

import math
import random
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from fuzzing import assert_mutants_load_or_raise_robodesc_errors, mutate_structure

import robodesc
from robodesc import (
    CyclicInclude,
    DuplicateName,
    FormatError,
    InvalidValue,
    MalformedValue,
    MissingAttribute,
    ResourceNotFound,
    RobodescError,
    UnresolvedReference,
    UnsupportedJointType,
    XMLSyntaxError,
)

mujoco = pytest.importorskip("mujoco")


def compare_with_mujoco(xml: str, tmp_path: Path, samples: int = 4, files: dict[str, str] | None = None):
    """Compile `xml` with MuJoCo and robodesc; assert bodies, joints, inertias and poses agree."""
    for name, text in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / "model.xml"
    path.write_text(textwrap.dedent(xml))
    mj = mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    data = mujoco.MjData(mj)
    names = {i: mj.body(i).name for i in range(mj.nbody) if mj.body(i).name}
    for i, name in names.items():
        assert name in model.bodies, name
        inertial = model.bodies[name].inertial
        if mj.body_mass[i] > 0:
            assert inertial is not None, name
            assert inertial.mass == pytest.approx(mj.body_mass[i], rel=1e-9), name
            rot = _quat_matrix(mj.body_iquat[i])
            np.testing.assert_allclose(inertial.com, mj.body_ipos[i], atol=1e-9, err_msg=name)
            np.testing.assert_allclose(inertial.inertia, rot @ np.diag(mj.body_inertia[i]) @ rot.T, atol=1e-9)
    for j in range(mj.njnt):
        name = mj.joint(j).name
        if not name:
            continue
        joint = model.joints[name]
        assert joint.child == mj.body(mj.jnt_bodyid[j]).name
        if mj.jnt_limited[j]:
            assert joint.limits.lower == pytest.approx(mj.jnt_range[j][0], abs=1e-12)
            assert joint.limits.upper == pytest.approx(mj.jnt_range[j][1], abs=1e-12)
        else:
            assert joint.limits.lower is None and joint.limits.upper is None
    rng = np.random.default_rng(7)
    for sample in range(samples):
        qpos = mj.qpos0.copy()
        if sample:
            for j in range(mj.njnt):
                adr, kind = mj.jnt_qposadr[j], int(mj.jnt_type[j])
                if kind in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
                    qpos[adr] = rng.uniform(-1.5, 1.5)
                elif kind == int(mujoco.mjtJoint.mjJNT_BALL):
                    q = rng.normal(size=4)
                    qpos[adr : adr + 4] = q / np.linalg.norm(q)
                else:
                    q = rng.normal(size=4)
                    qpos[adr : adr + 3] = rng.uniform(-1, 1, 3)
                    qpos[adr + 3 : adr + 7] = q / np.linalg.norm(q)
        data.qpos[:] = qpos
        mujoco.mj_kinematics(mj, data)
        positions = {}
        for j in range(mj.njnt):
            name = mj.joint(j).name
            if name:
                adr = mj.jnt_qposadr[j]
                size = {0: 7, 1: 4}.get(int(mj.jnt_type[j]), 1)
                positions[name] = qpos[adr] if size == 1 else qpos[adr : adr + size]
        poses = model.forward_kinematics(positions)
        for i, name in names.items():
            expected = np.eye(4)
            expected[:3, :3] = data.xmat[i].reshape(3, 3)
            expected[:3, 3] = data.xpos[i]
            np.testing.assert_allclose(poses[name], expected, atol=1e-9, err_msg=f"{name} in sample {sample}")
        for s in range(mj.nsite):
            name = mj.site(s).name
            if name:
                np.testing.assert_allclose(poses[name][:3, 3], data.site_xpos[s], atol=1e-9, err_msg=name)
    return model


def _quat_matrix(q):
    out = np.zeros(9)
    mujoco.mju_quat2Mat(out, np.asarray(q, dtype=float))
    return out.reshape(3, 3)


# -- kinematics constructs -------------------------------------------------------------------------


def test_hinge_slide_chain_with_refs_and_ranges(tmp_path):
    model = compare_with_mujoco(
        """
        <mujoco>
          <worldbody>
            <body name="a" pos="0.1 0.2 0.3" euler="10 20 30">
              <joint name="hinge" axis="1 1 0" pos="0.1 0 0" range="-45 60" ref="15"/>
              <geom size="0.1"/>
              <body name="b" pos="0 0 0.5" quat="0.9 0.1 0.2 0.3">
                <joint name="slide" type="slide" axis="0 0 2" range="-0.1 0.2" ref="0.05"/>
                <geom type="box" size="0.1 0.2 0.3"/>
              </body>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )
    assert model.joints["hinge"].type is robodesc.JointType.REVOLUTE
    assert model.joints["hinge"].reference == pytest.approx(math.radians(15))
    assert model.joints["slide"].type is robodesc.JointType.PRISMATIC


def test_several_joints_in_one_body_ball_and_free(tmp_path):
    model = compare_with_mujoco(
        """
        <mujoco>
          <compiler angle="radian"/>
          <worldbody>
            <body name="floating" pos="1 2 3" axisangle="0 1 0 0.5">
              <freejoint name="root"/>
              <geom size="0.1"/>
              <body name="multi" pos="0 0.3 0" xyaxes="0 1 0 -1 0 0">
                <joint name="j1" axis="0 0 1" pos="0.1 0 0"/>
                <joint name="j2" axis="0 1 0" pos="0 0.2 0" ref="0.3"/>
                <joint name="j3" type="slide" axis="1 0 0"/>
                <geom type="capsule" fromto="0 0 0 0 0 0.4" size="0.05"/>
                <body name="ballbody" pos="0 0 0.4" zaxis="1 0 1">
                  <joint name="ball" type="ball" pos="0 0 0.1" range="0 1.2"/>
                  <geom type="ellipsoid" size="0.1 0.2 0.3"/>
                </body>
              </body>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )
    assert model.joints["root"].type is robodesc.JointType.FLOATING
    assert model.joints["ball"].limits.upper == pytest.approx(1.2)
    assert model.bodies["multi"].joints == ("j1", "j2", "j3")


def test_default_classes_childclass_and_frames(tmp_path):
    model = compare_with_mujoco(
        """
        <mujoco>
          <default>
            <joint damping="1" range="-30 30"/>
            <geom type="box" size="0.1 0.1 0.1" density="500"/>
            <default class="arm">
              <joint axis="0 1 0" damping="2"/>
              <default class="wrist">
                <joint axis="1 0 0" range="-90 90"/>
                <geom type="cylinder" size="0.05 0.1"/>
              </default>
            </default>
          </default>
          <worldbody>
            <body name="base" childclass="arm">
              <joint name="shoulder"/>
              <geom/>
              <frame pos="0 0 0.5" euler="0 90 0" childclass="wrist">
                <body name="hand" pos="0.1 0 0">
                  <joint name="wrist"/>
                  <joint name="plain" class="main"/>
                  <geom/>
                  <geom class="arm" pos="0 0 0.2"/>
                </body>
              </frame>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )
    assert model.joints["shoulder"].dynamics.damping == 2
    assert model.joints["wrist"].limits.upper == pytest.approx(math.pi / 2)


def test_eulerseq_extrinsic_and_intrinsic(tmp_path):
    for seq in ("xyz", "XYZ", "zyx", "ZxY"):
        compare_with_mujoco(
            f"""
            <mujoco>
              <compiler eulerseq="{seq}"/>
              <worldbody>
                <body name="b" euler="10 25 40"><joint name="j"/><geom size="0.1" euler="5 6 7"/></body>
              </worldbody>
            </mujoco>
            """,
            tmp_path,
        )


def test_replicate_and_attach(tmp_path):
    model = compare_with_mujoco(
        """
        <mujoco>
          <asset><model name="arm" file="arm.xml"/></asset>
          <worldbody>
            <replicate count="3" offset="1 0 0" euler="0 0 30" sep="-">
              <replicate count="2" offset="0 0 1">
                <body name="link" pos="0 0.5 0"><joint name="j"/><geom size="0.1"/></body>
              </replicate>
            </replicate>
            <frame pos="5 0 0" euler="0 0 45">
              <attach model="arm" body="upper" prefix="right_"/>
            </frame>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
        files={
            "arm.xml": """
            <mujoco model="arm">
              <compiler angle="radian"/>
              <default><joint damping="3" axis="0 1 0"/></default>
              <worldbody>
                <body name="base" pos="0 0 9">
                  <body name="upper" pos="0 0 1" euler="0 0 0.5">
                    <joint name="shoulder" range="-1 1"/>
                    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
                    <site name="tip" pos="0.3 0 0"/>
                    <body name="lower" pos="0.3 0 0"><joint name="elbow"/><geom size="0.05"/></body>
                  </body>
                </body>
              </worldbody>
            </mujoco>
            """
        },
    )
    assert "link0-0" in model.bodies and "link1-2" in model.bodies
    assert model.joints["right_shoulder"].dynamics.damping == 3
    assert "right_tip" in model.frames


def test_include_splices_files_relative_to_the_main_folder(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <include file="parts/defaults.xml"/>
          <worldbody><body name="b"><joint name="j"/><geom/></body></worldbody>
        </mujoco>
        """,
        tmp_path,
        files={
            "parts/defaults.xml": '<mujoco><include file="more.xml"/></mujoco>',
            "more.xml": '<mujoco><default><geom type="box" size="0.1 0.2 0.3"/></default></mujoco>',
        },
    )


# -- inertia ------------------------------------------------------------------------------------


def test_inertia_from_geoms_of_every_primitive(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <worldbody>
            <body name="b" pos="0 0 1">
              <joint name="j"/>
              <geom type="sphere" size="0.1" pos="0.1 0 0"/>
              <geom type="capsule" size="0.05 0.2" euler="0 90 0" density="300"/>
              <geom type="cylinder" fromto="0 0 0 0.1 0.2 0.3" size="0.03" mass="0.4"/>
              <geom type="ellipsoid" size="0.1 0.2 0.05" pos="0 0.3 0"/>
              <geom type="box" size="0.1 0.05 0.02" quat="1 1 0 0"/>
              <geom type="box" size="1 1 1" group="4"/>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_explicit_inertial_full_and_diagonal(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <worldbody>
            <body name="a">
              <joint name="j"/>
              <inertial pos="0.1 0.2 0.3" mass="2" fullinertia="0.3 0.2 0.25 0.01 -0.02 0.03"/>
              <body name="b" pos="0 0 1">
                <joint name="k"/>
                <inertial pos="0 0 0.1" quat="0.9 0 0.3 0.1" mass="1" diaginertia="0.1 0.2 0.15"/>
                <geom size="5"/>
              </body>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_compiler_inertiafromgeom_true_and_boundmass(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <compiler inertiafromgeom="true" boundmass="0.5" boundinertia="0.01"/>
          <worldbody>
            <body name="a">
              <joint name="j"/>
              <inertial pos="0 0 0" mass="9" diaginertia="1 1 1"/>
              <geom size="0.01"/>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def _stl(path: Path, scale: float = 1.0) -> None:
    """A closed tetrahedron as a binary STL file."""
    import struct

    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float) * scale
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    data = bytearray(80) + struct.pack("<I", len(faces))
    for a, b, c in faces:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *v[i]) for i in (a, b, c)) + b"\0\0"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "compiler",
    [
        'meshdir="meshes" discardvisual="true"',
        'assetdir="meshes" inertiagrouprange="1 2"',
        'meshdir="meshes" settotalmass="7" balanceinertia="true"',
        'meshdir="meshes" strippath="true" inertiafromgeom="true"',
    ],
)
def test_compiler_settings_against_mujoco(tmp_path, compiler):
    _stl(tmp_path / "meshes" / "tet.stl", scale=0.3)
    mesh_file = "some/dir/tet.stl" if "strippath" in compiler else "tet.stl"
    compare_with_mujoco(
        f"""
        <mujoco>
          <compiler {compiler}/>
          <asset><mesh name="tet" file="{mesh_file}" scale="1 2 1" refpos="0.1 0 0"/></asset>
          <worldbody>
            <body name="a">
              <joint name="j"/>
              <geom type="mesh" mesh="tet" group="1"/>
              <geom type="box" size="0.1 0.1 0.3" group="2" contype="0" conaffinity="0" pos="0.2 0 0"/>
              <geom type="sphere" size="0.05" group="1" shellinertia="true" density="40"/>
              <body name="b" pos="0 0 1">
                <joint name="k" type="slide"/>
                <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.15"/>
                <geom type="capsule" size="0.02 0.1" group="1"/>
              </body>
            </body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_mesh_inertia_from_an_inline_mesh(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <asset>
            <mesh name="wedge" scale="2 1 1"
                  vertex="0 0 0  1 0 0  0 1 0  0 0 1  1 1 0  1 0 1"/>
          </asset>
          <worldbody>
            <body name="b" pos="0 0 1"><joint name="j"/><geom type="mesh" mesh="wedge" pos="0.1 0 0"/></body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_fusestatic_merges_unreferenced_static_bodies(tmp_path):
    model = compare_with_mujoco(
        """
        <mujoco>
          <compiler fusestatic="true"/>
          <worldbody>
            <body name="a" pos="1 0 0"><geom size=".1"/>
              <body name="s1" pos="0 1 0" euler="0 0 30"><geom size=".1"/><site name="st"/>
                <body name="m" pos="0 0 1"><joint name="j"/><geom size=".1"/></body>
              </body>
            </body>
            <body name="mv"><joint name="k"/><geom size=".1"/>
              <body name="s3" pos="1 0 0"><geom size=".1"/></body>
              <body name="s4" pos="2 0 0"><geom size=".1"/></body>
            </body>
          </worldbody>
          <sensor><framepos objtype="body" objname="s4"/></sensor>
        </mujoco>
        """,
        tmp_path,
    )
    assert sorted(model.bodies) == ["m", "mv", "s4", "world"]
    assert model.frames["st"].body == "world"


def test_alignfree_moves_a_free_body_frame_to_its_inertial_frame(tmp_path):
    compare_with_mujoco(
        """
        <mujoco>
          <compiler alignfree="true"/>
          <worldbody>
            <body name="f" pos="1 0 0" euler="0 0 30"><freejoint name="fj"/>
              <geom type="box" size=".1 .2 .3" pos="0.1 0.2 0" euler="10 0 0"/><site name="s"/></body>
            <body name="g" pos="1 0 0"><freejoint name="gj"/><geom type="box" size=".1 .2 .3" pos="0.1 0.2 0"/>
              <body name="c"><joint name="cj"/><geom size=".1"/></body></body>
          </worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_empty_attributes_count_as_not_given(tmp_path):
    compare_with_mujoco(
        '<mujoco><worldbody><body name="b"><joint name="j"/><geom size="0.1" rgba=""/></body></worldbody></mujoco>',
        tmp_path,
    )


# -- model-level sections ----------------------------------------------------------------------


def test_keyframes_equalities_and_actuators_are_kept_structured(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(
        """
        <mujoco>
          <worldbody>
            <body name="a"><joint name="j1"/><geom size="0.1"/>
              <body name="b"><joint name="j2" type="slide"/><geom size="0.1"/></body>
            </body>
          </worldbody>
          <equality><joint joint1="j2" joint2="j1" polycoef="0 0.5 0 0 0"/></equality>
          <actuator><motor name="m" joint="j1" gear="30"/><position joint="j2" kp="10"/></actuator>
          <keyframe><key name="home" qpos="0.5 0.1"/><key name="short" qpos="0.25"/></keyframe>
          <sensor><jointpos joint="j1"/></sensor>
        </mujoco>
        """
    )
    model = robodesc.load(path)
    assert model.configurations["home"] == {"j1": 0.5, "j2": 0.1}
    assert model.configurations["short"] == {"j1": 0.25, "j2": 0.0}  # the rest from qpos0, as MuJoCo does
    (coupling,) = model.constraints
    assert coupling.kind == "joint" and coupling.elements == ("j2", "j1") and coupling.coefficients[1] == 0.5
    assert [(a.name, a.kind, a.joint, a.gear) for a in model.actuators] == [
        ("m", "motor", "j1", 30.0),
        (None, "position", "j2", 1.0),
    ]
    assert [e.tag for e in model.extras] == ["key", "key", "sensor"]


# -- what MuJoCo rejects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('<body quat="1 0 0 0" euler="0 0 0"><geom size="1"/></body>', InvalidValue),
        ('<body pos="1 2"><geom size="1"/></body>', MalformedValue),
        ('<body pos="1 2 x"><geom size="1"/></body>', MalformedValue),
        ('<body><joint type="hing"/><geom size="1"/></body>', UnsupportedJointType),
        ('<body><geom class="nope" size="1"/></body>', UnresolvedReference),
        ('<body name="a"><geom size="1"/></body><body name="a"><geom size="1"/></body>', DuplicateName),
        ('<body><joint axis="0 0 0"/><geom size="1"/></body>', InvalidValue),
        ('<body><body><freejoint/><geom size="1"/></body><geom size="1"/></body>', InvalidValue),
        ("<body><joint/></body>", InvalidValue),
        ('<body><geom type="mesh" mesh="missing"/></body>', UnresolvedReference),
        ('<body><joint limited="true"/><geom size="1"/></body>', InvalidValue),
        ('<body><joint limited="true" range="1 1"/><geom size="1"/></body>', InvalidValue),
        ('<body><joint type="ball" range="-10 30"/><geom size="1"/></body>', InvalidValue),
        ('<body><inertial pos="0 0 0" mass="1" diaginertia="1 1 5"/><joint/></body>', InvalidValue),
    ],
)
def test_what_mujoco_rejects_robodesc_rejects(tmp_path, body, error):
    text = f"<mujoco><worldbody>{body}</worldbody></mujoco>"
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(text)
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(error) as info:
        robodesc.load(path)
    assert str(path) in str(info.value)


CHECKER = 'builtin="checker" width="8" height="8" rgb1="1 1 1" rgb2="0 0 0" type="2d"'


@pytest.mark.parametrize(
    ("assets", "message"),
    [
        (f'<texture name="t" {CHECKER}/>\n<texture name="t" {CHECKER}/>', "repeated name 't' in texture"),
        ('<texture file="a.png" type="2d"/>\n<texture file="d/a.png" type="2d"/>', "repeated name 'a' in texture"),
        ('<material name="m"/>\n<material name="m"/>', "repeated name 'm' in material"),
        ('<skin file="s.skn"/>\n<skin name="s" vertex="0 0 0 1 0 0 0 1 0" face="0 1 2"/>', "repeated name 's' in skin"),
        (f'<material name="m"/><texture name="t" {CHECKER}/>\n<material name="m"/><texture name="t" {CHECKER}/>',
         "repeated name 'm' in material"),
    ],
)
def test_repeated_asset_names_are_refused_at_the_second_as_mujoco_does(assets, message):
    """Textures and skins are named from their file as meshes are; the first repeat in document
    order is the one MuJoCo reports, at its line."""
    text = f"<mujoco><asset>{assets}</asset><worldbody/></mujoco>"
    with pytest.raises(ValueError, match=message):
        mujoco.MjSpec.from_string(text)
    with pytest.raises(DuplicateName, match=message) as info:
        robodesc.loads(text, format="mjcf")
    assert info.value.location.line == 2


def test_unnamed_materials_and_textures_may_repeat():
    text = f"<mujoco><asset><material/><material/><texture {CHECKER}/><texture {CHECKER}/></asset><worldbody/></mujoco>"
    mujoco.MjSpec.from_string(text)
    assert robodesc.loads(text, format="mjcf").bodies


def test_range_without_limited_when_autolimits_is_off(tmp_path):
    text = (
        '<mujoco><compiler autolimits="false"/><worldbody><body><joint range="-1 1"/><geom size="1"/></body>'
        "</worldbody></mujoco>"
    )
    with pytest.raises(InvalidValue, match="limited"):
        robodesc.loads(text, format="mjcf")


def test_include_errors_name_the_chain(tmp_path):
    (tmp_path / "a.xml").write_text('<mujoco><include file="b.xml"/></mujoco>')
    (tmp_path / "b.xml").write_text('<mujoco><include file="a.xml"/></mujoco>')
    (tmp_path / "main.xml").write_text('<mujoco><include file="a.xml"/></mujoco>')
    with pytest.raises(CyclicInclude, match="a.xml"):
        robodesc.load(tmp_path / "main.xml")
    (tmp_path / "missing.xml").write_text('<mujoco><include file="nowhere.xml"/></mujoco>')
    with pytest.raises(ResourceNotFound, match="nowhere.xml"):
        robodesc.load(tmp_path / "missing.xml")


def test_sniffing_picks_mjcf_for_an_xml_file(tmp_path):
    path = tmp_path / "robot.xml"
    path.write_text('<mujoco><worldbody><body name="b"><geom size="1"/></body></worldbody></mujoco>')
    model = robodesc.load(path)
    assert model.format == "mjcf" and model.root.name == "world"


def test_bad_input_raises_only_robodesc_errors():
    texts = [
        "<mujoco><worldbody><body><geom size='a'/></body></worldbody></mujoco>",
        "<mujoco><worldbody><body><geom type='box' size='1'/></body></worldbody></mujoco>",
        "<mujoco><worldbody><replicate count='x'/></worldbody></mujoco>",
        "<mujoco><asset><mesh name='m' vertex='0 0 0'/></asset><worldbody><body><geom type='mesh' mesh='m'/></body>"
        "</worldbody></mujoco>",
        "<mujoco><worldbody><body><inertial mass='1'/></body></worldbody></mujoco>",
        "<mujoco><keyframe><key qpos='1 2 3'/></keyframe></mujoco>",
    ]
    for text in texts:
        with pytest.raises(RobodescError):
            robodesc.loads(text, format="mjcf")


# =====================================================================================================
# Found by fuzzing: each input once crashed, hung or misreported; now a result or a RobodescError
# =====================================================================================================


def test_an_empty_orientation_counts_as_not_written(tmp_path):
    # euler="" crashed with a TypeError; MuJoCo reads it as absent, so a class orientation still applies
    compare_with_mujoco(
        """
        <mujoco><default><geom type="box" size="0.1 0.2 0.3" quat="0.5 0.5 0.5 0.5"/></default>
          <worldbody><body name="b" euler=""><joint name="j" axis="1 0 0"/><geom euler=""/>
            <body name="c" pos="0 0 1" zaxis=""><joint name="k"/><geom xyaxes=""/></body></body></worldbody>
        </mujoco>
        """,
        tmp_path,
    )


@pytest.mark.parametrize(
    "orientation",
    ['quat="0 0 0 0"', 'axisangle="1e-7 0 0 1"', 'zaxis="0 1e-7 0"', 'xyaxes="1e-7 0 0 0 1 0"',
     'xyaxes="1 0 0 2 0 0"', 'xyaxes="1e200 0 0 0 1e200 0" euler="0 0 0"'],
)  # fmt: skip
def test_orientations_mujoco_rejects_are_rejected(tmp_path, orientation):
    # tiny or parallel axes made NaN poses (or numpy warnings); MuJoCo's limit on axes is mjEPS
    text = f'<mujoco><worldbody><body {orientation}><joint/><geom size="1"/></body></worldbody></mujoco>'
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(InvalidValue) as info:
        robodesc.loads(text, format="mjcf")
    assert info.value.line == 1


@pytest.mark.parametrize(
    ("orientation", "z_axis"),
    [('quat="1e200 0 1e200 0"', [1, 0, 0]), ('zaxis="1e200 0 0"', [1, 0, 0]), ('zaxis="0 -1e-5 0"', [0, -1, 0]),
     ('axisangle="0 1e200 0 90"', [1, 0, 0]), ('xyaxes="0 1e200 0 -1e200 0 0"', [0, 0, 1]),
     ('quat="1e308 1e308 1e308 1e308"', [1, 0, 0]), ('quat="1e308 0 -1e308 -1e308"', [-2 / 3, 2 / 3, 1 / 3])],
)  # fmt: skip
def test_huge_or_tiny_orientation_vectors_give_their_rotation(orientation, z_axis):
    # the norms came from sums of squares: 1e200 overflowed ("zero quaternion" crash, NaN or identity poses),
    # and a quaternion whose length itself overflows (all near 1e308) still crashed
    text = f'<mujoco><worldbody><body name="b" {orientation}><joint/><geom size="1"/></body></worldbody></mujoco>'
    model = robodesc.loads(text, format="mjcf")
    np.testing.assert_allclose(model.bodies["b"].pose[:3, 2], z_axis, atol=1e-12)


def test_huge_joint_axes_and_fromto_are_normalised_or_rejected():
    text = '<mujoco><worldbody><body><joint name="j" axis="1e200 1e200 0"/>{}</body></worldbody></mujoco>'
    model = robodesc.loads(text.format('<geom size="1"/>'), format="mjcf")
    np.testing.assert_allclose(model.joints["j"].axis, [0.5**0.5, 0.5**0.5, 0])
    with pytest.raises(InvalidValue, match="fromto is too long"):
        robodesc.loads(text.format('<geom type="capsule" size="1" fromto="0 0 -1e308 0 0 1e308"/>'), format="mjcf")


def test_an_inertia_that_overflows_is_an_error_not_a_numpy_crash():
    # mass=1e308 made infinite moments, NaN inertias and a LinAlgError; MuJoCo compiles an infinite inertia
    text = '<mujoco><worldbody><body name="b"><joint/><geom size="0.1" mass="1e308"/></body></worldbody></mujoco>'
    with pytest.raises(InvalidValue, match="'b' overflows") as info:
        robodesc.loads(text, format="mjcf")
    assert info.value.line == 1
    full = '<inertial pos="0 0 0" mass="1" fullinertia="1e308 1e308 1e308 1e308 1e308 1e308"/>'
    with pytest.raises(InvalidValue, match="fullinertia has no principal axes"):
        robodesc.loads(f"<mujoco><worldbody><body><joint/>{full}</body></worldbody></mujoco>", format="mjcf")


def test_welded_bodies_whose_combined_inertia_overflows_load_as_in_mujoco(tmp_path):
    compare_with_mujoco(
        """
        <mujoco><worldbody><body name="b"><joint name="j"/><geom size="1" mass="1e300" pos="1e10 0 0"/>
          <body name="c"><geom size="1" mass="1e300" pos="-1e10 0 0"/></body></body></worldbody></mujoco>
        """,
        tmp_path,
        samples=1,
    )


def test_a_refquat_whose_length_overflows_turns_the_mesh_as_its_direction_says():
    # four components near 1e308 have a length past the largest float: it made a zero quaternion (a crash)
    text = (
        '<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1" refquat="{}"/></asset>'
        '<worldbody><body name="b"><joint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )
    huge, unit, unturned = (
        robodesc.loads(text.format(q), format="mjcf") for q in ("1e308 1e308 1e308 1e308", "1 1 1 1", "1 0 0 0")
    )
    vertices = [model.bodies["b"].visuals[0].geometry.vertices for model in (huge, unit, unturned)]
    np.testing.assert_allclose(vertices[0], vertices[1], atol=1e-12)
    assert not np.allclose(vertices[1], vertices[2])


@pytest.mark.parametrize(
    ("mesh", "error", "match"),
    [('face="0 1 1e300"', InvalidValue, "vertex index does not exist"),
     ('face="0 1 2.5"', InvalidValue, "must be integers"),
     ('refquat="0 0 0 0"', InvalidValue, "zero quaternion"),
     ('scale="1e200 1e200 1e200"', InvalidValue, "too large to use")],
)  # fmt: skip
def test_bad_inline_mesh_data_is_reported(mesh, error, match):
    # face="... 1e300" raised OverflowError (int conversion), refquat="0 0 0 0" a ValueError, a huge scale
    # overflowed into a "collinear vertices" error
    text = (
        f'<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1" {mesh}/></asset>'
        '<worldbody><body><joint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>'
    )
    with pytest.raises(error, match=match) as info:
        robodesc.loads(text, format="mjcf")
    assert info.value.line == 1
    assert not isinstance(info.value, ResourceNotFound)  # the mesh is there; its data is bad


def test_lines_stay_right_after_an_include_is_spliced_in(tmp_path):
    # lines were matched against the tree with the included elements spliced in: later ones shifted or lost
    (tmp_path / "defaults.xml").write_text('<mujoco>\n<default>\n<geom rgba="1 0 0 1"/>\n</default>\n</mujoco>\n')
    (tmp_path / "main.xml").write_text(
        '<mujoco>\n<include file="defaults.xml"/>\n<worldbody>\n<body name="b">\n<joint/>\n'
        '<geom size="1"/>\n</body>\n</worldbody>\n<keyframe>\n<key qpos="1 2 3"/>\n</keyframe>\n</mujoco>\n'
    )
    with pytest.raises(InvalidValue, match="qpos") as info:
        robodesc.load(tmp_path / "main.xml")
    assert info.value.file == str(tmp_path / "main.xml")
    assert (info.value.line, info.value.element) == (10, "/mujoco/keyframe/key")
    (tmp_path / "defaults.xml").write_text("<mujoco>\n<default>\n<default>\n</default>\n</default>\n</mujoco>\n")
    with pytest.raises(MissingAttribute, match="class name") as info:
        robodesc.load(tmp_path / "main.xml")
    assert (info.value.file, info.value.line) == (str(tmp_path / "defaults.xml"), 3)
    assert info.value.element == "/mujoco/default/default"


@pytest.mark.parametrize(
    "worldbody",
    ['<replicate count="1000000000"><geom size="1"/></replicate>',
     '<replicate count="100000000"/>',
     '<replicate count="600"><replicate count="600"><geom size="1"/></replicate></replicate>'],
)  # fmt: skip
def test_a_replicate_that_would_take_forever_is_refused(worldbody):
    # count="1000000000" ran until memory ran out
    with pytest.raises(InvalidValue, match="more than the limit of 250,000") as info:
        robodesc.loads(f"<mujoco><worldbody>{worldbody}</worldbody></mujoco>", format="mjcf")
    assert info.value.line == 1


def test_counts_are_plain_whole_numbers():
    for count in ("1_0", "\u0661\u0660"):  # Python's int() reads both; MuJoCo does not
        with pytest.raises(MalformedValue, match="whole number"):
            robodesc.loads(f'<mujoco><worldbody><replicate count="{count}"/></worldbody></mujoco>', format="mjcf")


def test_a_model_attaching_itself_is_a_cycle_not_a_recursion_error(tmp_path):
    (tmp_path / "self.xml").write_text(
        '<mujoco><asset><model name="me" file="self.xml"/></asset>\n'
        '<worldbody><body name="b"><attach model="me" body="b" prefix="p"/></body></worldbody></mujoco>'
    )
    with pytest.raises(CyclicInclude, match="self.xml:b -> self.xml:b") as info:
        robodesc.load(tmp_path / "self.xml")
    assert info.value.line == 2
    (tmp_path / "a.xml").write_text(
        '<mujoco><asset><model name="b" file="b.xml"/></asset>'
        '<worldbody><body name="x"><attach model="b" body="y" prefix="p"/></body></worldbody></mujoco>'
    )
    (tmp_path / "b.xml").write_text(
        '<mujoco><asset><model name="a" file="a.xml"/></asset>'
        '<worldbody><body name="y"><attach model="a" body="x" prefix="q"/></body></worldbody></mujoco>'
    )
    with pytest.raises(CyclicInclude, match="b.xml:y -> a.xml:x -> b.xml:y"):
        robodesc.load(tmp_path / "a.xml")


def test_sub_models_of_different_files_may_share_a_name(tmp_path):
    # prepared sub-models were cached by asset name, so the inner "arm" was taken for the outer one
    (tmp_path / "main.xml").write_text(
        '<mujoco><asset><model name="arm" file="outer.xml"/></asset>'
        '<worldbody><attach model="arm" body="upper" prefix="o_"/></worldbody></mujoco>'
    )
    (tmp_path / "outer.xml").write_text(
        '<mujoco><asset><model name="arm" file="inner.xml"/></asset><worldbody><body name="upper">'
        '<joint name="j"/><geom size="1"/><attach model="arm" body="hand" prefix="i_"/></body></worldbody></mujoco>'
    )
    (tmp_path / "inner.xml").write_text(
        '<mujoco><worldbody><body name="hand" pos="0 0 1"><joint name="k"/><geom size="1"/></body></worldbody></mujoco>'
    )
    compare_with_mujoco((tmp_path / "main.xml").read_text(), tmp_path)


def test_nesting_deeper_than_mujoco_reads_is_refused_with_the_line(tmp_path):
    # past about 480 bodies the reader's recursion hit Python's limit: an error without a line
    bodies = '<body><joint/><geom size="1"/>\n' * 600 + "</body>" * 600
    text = f"<mujoco><worldbody>\n{bodies}</worldbody></mujoco>"
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(text)
    path = tmp_path / "deep.xml"
    path.write_text(text)
    with pytest.raises(XMLSyntaxError, match="nest more than 499") as info:
        robodesc.load(path)
    assert (info.value.file, info.value.line) == (str(path), 498)  # the first element 500 levels deep


def test_an_xml_file_of_no_known_format_names_the_file(tmp_path):
    path = tmp_path / "thing.xml"
    path.write_text("<thing/>")
    with pytest.raises(FormatError) as info:
        robodesc.load(path)
    assert info.value.file == str(path)


def test_a_short_size_keeps_the_rest_of_the_class_size(tmp_path):
    # MuJoCo reads size over the inherited values (through nested classes too); robodesc took the
    # written values alone and refused size="0.01" on a box
    compare_with_mujoco(
        """
        <mujoco><default><geom type="box" size="0.1 0.2 0.3"/>
          <default class="c"><geom type="cylinder" size="0.5 0.6"/></default></default>
          <worldbody><body name="a"><joint name="j"/><geom size="0.01"/><geom size=""/><geom class="c" size="0.05"/>
            <geom class="c" type="box" size="0.05 0.06" pos="0 0 1"/></body></worldbody>
        </mujoco>
        """,
        tmp_path,
    )


def test_boundmass_and_boundinertia_reach_bodies_without_any_mass(tmp_path):
    # a body with no geom and no inertial kept no inertial; MuJoCo bounds every body but the world (and
    # puts the bounded mass at the body's pose as written)
    compare_with_mujoco(
        """
        <mujoco><compiler boundmass="0.001" boundinertia="0.0001"/><worldbody>
          <body name="host"><body name="c"><joint name="j"/><geom size="1"/></body></body>
          <body name="empty" pos="1 0 0" euler="90 0 0"/><body name="moving" pos="0 1 0"><joint name="k"/></body>
          <frame pos="1 1 1"><body name="framed" pos="0.5 0 0"/></frame>
        </worldbody></mujoco>
        """,
        tmp_path,
    )


def test_polynomial_damping_and_short_polycoef_load_as_in_mujoco():
    # MuJoCo 4 reads up to 3 damping and stiffness terms and a polycoef of up to 5 (default for the rest)
    text = (
        '<mujoco><worldbody><body><joint name="a" damping="0.1 0.2 0.3" stiffness="1 2"/><joint name="b"/>'
        '<geom size="1"/></body></worldbody><equality><joint joint1="a" joint2="b" polycoef="1 2"/></equality>'
        "</mujoco>"
    )
    mj = mujoco.MjModel.from_xml_string(text)
    model = robodesc.loads(text, format="mjcf")
    assert model.joints["a"].dynamics.damping == mj.dof_damping[0] == 0.1
    assert model.joints["a"].dynamics.spring_stiffness == mj.jnt_stiffness[0] == 1
    np.testing.assert_array_equal(model.constraints[0].coefficients, mj.eq_data[0][:5])


FUZZ_SEED = """<mujoco model="fuzz">
  <compiler angle="radian" autolimits="true"/>
  <default>
    <joint damping="0.1"/>
    <geom type="capsule" size="0.05 0.1"/>
    <default class="arm"><joint axis="0 1 0" range="-1 1"/><geom type="box" size="0.1 0.1 0.1"/></default>
  </default>
  <asset><mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="0.1 0.1 0.1"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="torso" pos="0 0 1" childclass="arm">
      <freejoint name="root"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
      <site name="s0" pos="0 0 0.1"/>
      <frame name="fr" pos="0.1 0 0" euler="0 0 1.57">
        <body name="upper" axisangle="0 0 1 0.5">
          <joint name="shoulder"/>
          <geom name="ug" type="mesh" mesh="tet"/>
          <body name="lower" pos="0 0 0.3" zaxis="0 1 0">
            <joint name="elbow" type="slide" axis="1 0 0" range="0 0.1"/>
            <geom name="lg" fromto="0 0 0 0 0 0.2" type="capsule" size="0.02"/>
            <body name="hand" xyaxes="1 0 0 0 1 0">
              <joint name="wrist" type="ball" range="0 1"/>
              <geom name="hg" type="ellipsoid" size="0.01 0.02 0.03" quat="1 0 0 0"/>
            </body>
          </body>
        </body>
      </frame>
      <replicate count="3" euler="0 0 1" offset="0.1 0 0">
        <body name="rep"><joint name="rj"/><geom type="sphere" size="0.01"/></body>
      </replicate>
    </body>
  </worldbody>
  <equality><joint joint1="shoulder" joint2="elbow"/><weld body1="hand" body2="torso"/></equality>
  <actuator><motor name="m1" joint="shoulder" gear="2"/><position joint="elbow" kp="10"/></actuator>
  <keyframe><key name="home" qpos="0 0 1 1 0 0 0 0.5"/></keyframe>
</mujoco>
"""
_FUZZ_GARBAGE = ["", "nan", "inf", "1e999", "-0", "1,2", "0x10", "-1", "1e308", "1e-320", "0 0 0", "0 0 0 0", "\u00e4"]
_REFERENCES = ("class", "childclass", "mesh", "joint", "joint1", "body1", "body2", "name")


def _mutate_mjcf(root: ET.Element, rng: random.Random) -> str | None:
    element, parent, roll = mutate_structure(root, rng)
    if roll < 3:  # deleted, duplicated or moved
        pass
    elif roll in (3, 4) and element.attrib:  # a number (or the whole value) replaced by garbage, or dropped
        key = rng.choice(sorted(element.attrib))
        numbers = element.get(key).split()
        if numbers and roll == 3:
            numbers[rng.randrange(len(numbers))] = rng.choice(_FUZZ_GARBAGE)
            element.set(key, " ".join(numbers))
        elif rng.random() < 0.7:
            element.set(key, "" if rng.random() < 0.3 else rng.choice(_FUZZ_GARBAGE))
        else:
            del element.attrib[key]
    elif roll == 5:  # a reference to itself, its parent, or garbage
        own = [e.get("name") or e.get("class") for e in (element, parent) if e.get("name") or e.get("class")]
        element.set(rng.choice(_REFERENCES), rng.choice(own + _FUZZ_GARBAGE + ["main", "arm"]))
    elif roll == 6:  # a near-miss tag or type
        if element.get("type") is not None and rng.random() < 0.5:
            element.set("type", rng.choice(["hinge", "slide", "ball", "free", "box", "mesh", "plane", "Hinge", ""]))
        else:
            element.tag = rng.choice([element.tag.upper(), element.tag[:-1] or "x", element.tag + "s", "body", "frame"])
    elif roll == 7:  # wrong value count, or a huge replicate count
        if rng.random() < 0.3:
            root.find(".//replicate").set("count", rng.choice(["1000000000", "0", "2.5", "-3", "1_0"]))
        elif element.attrib:
            key = rng.choice(sorted(element.attrib))
            element.set(key, " ".join(element.get(key).split() * rng.choice((2, 3))) or "1")
    elif roll == 8:
        return ET.tostring(root, encoding="unicode")[: rng.randrange(1, 2000)]  # truncate
    return None


def test_fuzzed_mjcf_loads_or_raises_robodesc_error():
    assert_mutants_load_or_raise_robodesc_errors(FUZZ_SEED, _mutate_mjcf, "mjcf", seed=20240613)


def test_a_symmetric_actuator_force_range_is_the_joints_effort_limit():
    model = robodesc.loads(
        """<mujoco><default><joint actuatorfrcrange="-5 5"/></default><worldbody><body>
        <joint name="from_class"/><joint name="own" axis="1 0 0" actuatorfrcrange="-3 3"/>
        <joint name="lopsided" axis="0 1 0" actuatorfrcrange="-1 2"/>
        <joint name="off" axis="0 0 1" actuatorfrcrange="-3 3" actuatorfrclimited="false"/>
        <geom size=".1"/></body></worldbody></mujoco>""",
        format="mjcf",
    )
    efforts = {name: joint.limits.effort for name, joint in model.joints.items()}
    assert efforts == {"from_class": 5.0, "own": 3.0, "lopsided": None, "off": None}
