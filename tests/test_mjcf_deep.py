"""MJCF nested as deep as MuJoCo reads it loads, with MuJoCo's answer, without Python recursion; one
level deeper is refused as MuJoCo refuses it; chains of attached files cost what is written in them."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.core.errors import InvalidValue, XMLSyntaxError

mujoco = pytest.importorskip("mujoco")


def _nested_bodies(count: int) -> str:
    opened = "".join(f'<body name="b{i}" pos="0 0 0.01"><joint axis="1 0 0"/><geom size=".1"/>\n' for i in range(count))
    return f"<mujoco><worldbody>\n{opened}{'</body>' * count}</worldbody></mujoco>"


def _in_small_stack(function):  # noqa: ANN001, ANN202
    """Run `function` in a thread whose stack is far too small for a recursive walk of the input."""
    result: dict = {}

    def target() -> None:
        try:
            result["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            result["error"] = exc

    threading.stack_size(512 * 1024)
    try:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(0)
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_bodies_nested_as_deep_as_mujoco_reads(tmp_path: Path) -> None:
    """496 bodies, each with a geom: 499 levels of XML, the deepest MuJoCo reads."""
    path = tmp_path / "deep.xml"
    path.write_text(_nested_bodies(496))
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = _in_small_stack(lambda: robodesc.load(path))
    assert len(model.bodies) == reference.nbody == 497
    data = mujoco.MjData(reference)
    data.qpos[:] = 0.001 * np.arange(reference.nq)
    mujoco.mj_kinematics(reference, data)
    configuration = dict(zip(model.joints, data.qpos))
    poses = model.forward_kinematics(configuration)
    np.testing.assert_allclose(poses["b495"][:3, 3], data.xpos[-1], atol=1e-9)


def test_one_level_deeper_is_refused_as_mujoco_refuses_it(tmp_path: Path) -> None:
    path = tmp_path / "deeper.xml"
    path.write_text(_nested_bodies(497))
    with pytest.raises(ValueError, match="nesting is too deep|DEPTH_EXCEEDED"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(XMLSyntaxError, match="nest more than 499 levels") as error:
        robodesc.load(path)
    assert error.value.line == 498


def test_default_classes_nested_deep(tmp_path: Path) -> None:
    """A childclass chain 490 classes deep: the deepest class's values reach the joint."""
    depth = 490
    classes = "".join(f'<default class="c{i}">' for i in range(depth)) + '<joint armature="0.25"/>'
    text = (
        f"<mujoco><default>{classes}{'</default>' * depth}</default><worldbody>"
        f'<body name="b" childclass="c{depth - 1}"><joint name="j"/><geom size=".1"/></body></worldbody></mujoco>'
    )
    path = tmp_path / "classes.xml"
    path.write_text(text)
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = _in_small_stack(lambda: robodesc.load(path))
    assert model.joints["j"].dynamics.armature == reference.dof_armature[0] == 0.25


def test_a_chain_of_attached_files(tmp_path: Path) -> None:
    """300 files, each attaching the next one's body: a 300-body chain, as MuJoCo builds it, with a
    keyframe of the top file reaching into the attached joints."""
    count = 300
    for k in range(count):
        asset = f'<asset><model name="m" file="f{k + 1}.xml"/></asset>' if k < count - 1 else ""
        attach = f'<attach model="m" body="b" prefix="p{k + 1}_"/>' if k < count - 1 else ""
        key = '<keyframe><key name="bent" qpos="0.1 0.2 0.3"/></keyframe>' if k == 0 else ""
        (tmp_path / f"f{k}.xml").write_text(
            f'<mujoco model="f{k}">{asset}<worldbody><body name="b" pos="0 0 0.1"><joint axis="1 0 0"/>'
            f'<geom size=".05"/>{attach}</body></worldbody>{key}</mujoco>'
        )
    path = tmp_path / "f0.xml"
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = _in_small_stack(lambda: robodesc.load(path))
    assert list(model.bodies) == [reference.body(i).name for i in range(reference.nbody)]
    data = mujoco.MjData(reference)
    mujoco.mj_resetDataKeyframe(reference, data, 0)
    mujoco.mj_kinematics(reference, data)
    poses = model.forward_kinematics(model.configurations["bent"])
    deepest = reference.body(reference.nbody - 1).name
    np.testing.assert_allclose(poses[deepest][:3, 3], data.xpos[-1], atol=1e-9)


def _urdf_chain(count: int) -> robodesc.Model:
    inertia = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
    links = "".join(f'<link name="l{i}">{inertia}</link>' for i in range(count))
    joints = "".join(
        f'<joint name="j{i}" type="continuous"><parent link="l{i}"/><child link="l{i + 1}"/><axis xyz="0 0 1"/></joint>'
        for i in range(count - 1)
    )
    return robodesc.loads(f'<robot name="r">{links}{joints}</robot>', format="urdf")


def test_the_writer_writes_up_to_what_mujoco_reads_and_refuses_deeper() -> None:
    """A URDF root becomes a body inside <worldbody>: 496 links nest 499 levels with their contents."""
    text = robodesc.dumps(_urdf_chain(496), format="mjcf")
    assert mujoco.MjModel.from_xml_string(text).nbody == 497
    with pytest.raises(InvalidValue, match="MuJoCo reads at most 499 levels"):
        robodesc.dumps(_urdf_chain(497), format="mjcf")
