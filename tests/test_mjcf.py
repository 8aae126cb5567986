"""MJCF against MuJoCo itself: small handwritten models, one per construct, compiled by MuJoCo and
loaded by robodesc, compared body by body at random configurations (poses), and on joint
ranges, masses, centres of mass and inertias."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc import (
    CyclicInclude,
    DuplicateName,
    InvalidValue,
    MalformedValue,
    ResourceNotFound,
    RobodescError,
    UnresolvedReference,
    UnsupportedJointType,
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
