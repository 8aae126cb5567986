"""Keyframes against MuJoCo: `forward_kinematics(model.configurations[k])` puts every body where
MuJoCo puts it after `mj_resetDataKeyframe` + `mj_kinematics`, for every keyframe: unnamed joints
(free, ball) included, keyframes an ``<attach>``ed model brings (renamed with the prefix, merged
after the file's own), ``<replicate>`` copies. On the Menagerie and MuJoCo models of the corpus too
(skipped unless ROBODESC_CORPUS is set)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import robodesc
from robodesc.core.transforms import matrix_to_quat

mujoco = pytest.importorskip("mujoco")


def compare_keyframes(path: Path, atol: float = 1e-9) -> int:
    """Every keyframe of the file, robodesc against MuJoCo; the number of keyframes compared."""
    reference = mujoco.MjModel.from_xml_path(str(path))
    model = robodesc.load(path)
    data = mujoco.MjData(reference)
    names = list(model.configurations)
    assert len(names) == reference.nkey
    for index, name in enumerate(names):
        mujoco.mj_resetDataKeyframe(reference, data, index)
        mujoco.mj_kinematics(reference, data)
        configuration = model.configurations[name]
        assert set(configuration) == set(model.joints), name  # every joint has its value
        poses = model.forward_kinematics(configuration)
        ours = list(model.bodies)  # in MuJoCo's order; unnamed bodies are compared by position
        for body in range(1, reference.nbody):
            body_name = reference.body(body).name or (ours[body] if len(ours) == reference.nbody else "")
            if not body_name:
                continue  # an unnamed body, and fusestatic merged some: no way to pair it
            pose = poses[body_name]
            np.testing.assert_allclose(pose[:3, 3], data.xpos[body], atol=atol, rtol=0, err_msg=f"{name}: {body_name}")
            quat, expected = matrix_to_quat(pose[:3, :3]), data.xquat[body]
            if np.dot(quat, expected) < 0:
                quat = -quat
            np.testing.assert_allclose(quat, expected, atol=atol, rtol=0, err_msg=f"{name}: {body_name}")
    return len(names)


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder / next(iter(files))


ARM = """<mujoco model="arm">
  <compiler angle="radian"/>
  <worldbody>
    <body name="upper" pos="0 0 1" euler="0 0.3 0">
      <joint name="shoulder" type="ball"/>
      <geom size="0.1" mass="1"/>
      <body name="lower" pos="0 0 0.5">
        <joint name="elbow" axis="0 1 0" ref="0.2"/>
        <geom size="0.1" mass="1"/>
        <body name="hand" pos="0.2 0 0"><joint type="slide" axis="1 0 0"/><geom size="0.05" mass="1"/></body>
      </body>
    </body>
  </worldbody>
  <keyframe>
    <key name="bent" qpos="0.9238795 0 0.3826834 0 0.7 0.05"/>
    <key qpos="1 0 0 0 -0.4"/>
  </keyframe>
</mujoco>
"""

MODELS = {
    "unnamed free and ball joints": {
        "main.xml": """<mujoco>
  <worldbody>
    <body name="base" pos="0 0 0.8" quat="0.9 0 0.1 0.2">
      <freejoint/>
      <geom size="0.2" mass="1"/>
      <body name="link" pos="0.3 0 0"><joint type="ball" pos="0 0 0.1"/><geom size="0.1" mass="1"/>
        <body name="tip" pos="0.2 0 0"><joint axis="0 0 1" ref="10"/><geom size="0.05" mass="1"/></body>
      </body>
    </body>
    <body name="named" pos="2 0 1"><joint name="float" type="free"/><geom size="0.2" mass="1"/></body>
  </worldbody>
  <keyframe>
    <key name="home" qpos="0.1 0.2 1.5 0.7071068 0 0.7071068 0 0.5 0.5 0.5 0.5 0.3 1 2 3 0 1 0 0"/>
    <key name="short" qpos="0 0 2"/>
    <key qpos="1 1 1 1 0 0 0 1 0 0 0 -0.3"/>
  </keyframe>
</mujoco>
"""
    },
    "attached model with keyframes": {
        "main.xml": """<mujoco>
  <asset><model name="arm" file="arm.xml"/></asset>
  <keyframe><key name="home" qpos="0 0 1 1 0 0 0 0.5"/></keyframe>
  <worldbody>
    <body name="torso" pos="0 0 1"><freejoint/><geom size="0.3" mass="5"/>
      <frame pos="0.4 0 0" euler="0 0 90">
        <attach model="arm" body="upper" prefix="left_"/>
      </frame>
      <attach model="arm" body="lower" prefix="right_"/>
    </body>
  </worldbody>
</mujoco>
""",
        "arm.xml": ARM,
    },
    "whole attached model": {
        "main.xml": """<mujoco>
  <asset><model name="arm" file="arm.xml"/></asset>
  <worldbody><body name="b" pos="1 0 0"><joint name="j"/><geom size="0.3" mass="1"/>
    <attach model="arm" prefix="a/"/></body></worldbody>
  <keyframe><key name="main" qpos="0.3"/></keyframe>
</mujoco>
""",
        "arm.xml": ARM,
    },
    "replicated attach and replicated joints": {
        "main.xml": """<mujoco>
  <asset><model name="arm" file="arm.xml"/></asset>
  <worldbody>
    <replicate count="3" offset="1 0 0" sep="_">
      <attach model="arm" body="upper" prefix="r"/>
    </replicate>
    <replicate count="2" euler="0 0 30">
      <body name="leg" pos="0 1 0"><joint name="hip" axis="1 0 0"/><geom size="0.1" mass="1"/></body>
    </replicate>
  </worldbody>
  <keyframe><key name="legs" qpos="1 0 0 0 0 0 1 0 0 0 0 0 1 0 0 0 0 0 0.4 -0.4"/></keyframe>
</mujoco>
""",
        "arm.xml": ARM,
    },
    "nested attach": {
        "main.xml": """<mujoco>
  <asset><model name="robot" file="robot.xml"/></asset>
  <worldbody><attach model="robot" prefix="r_"/></worldbody>
</mujoco>
""",
        "robot.xml": """<mujoco model="robot">
  <asset><model name="arm" file="arm.xml"/></asset>
  <worldbody><body name="base"><freejoint name="root"/><geom size="0.3" mass="1"/>
    <attach model="arm" body="upper" prefix="arm_"/></body></worldbody>
  <keyframe><key name="stand" qpos="0 0 1 1 0 0 0 0.7071068 0.7071068 0 0 0.1"/></keyframe>
</mujoco>
""",
        "arm.xml": ARM,
    },
}


@pytest.mark.parametrize("files", MODELS.values(), ids=MODELS.keys())
def test_keyframes_match_mujoco(tmp_path, files):
    assert compare_keyframes(_write(tmp_path, files)) > 0


def test_unnamed_joints_are_in_every_keyframe(tmp_path):
    model = robodesc.load(_write(tmp_path, MODELS["unnamed free and ball joints"]))
    free = next(name for name, joint in model.joints.items() if joint.type == "floating" and name != "float")
    assert free.startswith("<unnamed joint")
    np.testing.assert_allclose(model.configurations["home"][free], [0.1, 0.2, 1.5, 0.7071068, 0, 0.7071068, 0])
    assert list(model.configurations) == ["home", "short", "key2"]


def test_attached_keyframes_are_renamed_and_follow_the_files_own(tmp_path):
    model = robodesc.load(_write(tmp_path, MODELS["attached model with keyframes"]))
    reference = mujoco.MjModel.from_xml_path(str(tmp_path / "main.xml"))
    expected = ["home", "left_bent", "left_", "right_bent", "right_"]
    assert [reference.key(i).name for i in range(reference.nkey)] == expected
    assert list(model.configurations) == expected


def test_a_keyframe_name_an_attached_one_repeats_is_refused(tmp_path):
    files = dict(MODELS["attached model with keyframes"])
    files["main.xml"] = files["main.xml"].replace('name="home"', 'name="left_bent"')
    path = _write(tmp_path, files)
    with pytest.raises(Exception, match="repeated name"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(robodesc.RobodescError, match="repeated name 'left_bent' in key"):
        robodesc.load(path)


def test_an_attached_keyframe_too_long_is_refused(tmp_path):
    files = dict(MODELS["whole attached model"])
    files["arm.xml"] = ARM.replace('qpos="1 0 0 0 -0.4"', 'qpos="1 0 0 0 -0.4 0 7"')
    path = _write(tmp_path, files)
    with pytest.raises(Exception, match="invalid qpos size"):
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(robodesc.RobodescError, match="invalid qpos size") as info:
        robodesc.load(path)
    assert info.value.location.file.endswith("arm.xml")


def _corpus_files() -> list[Path]:
    root = os.environ.get("ROBODESC_CORPUS")
    if not root or not os.path.isdir(root):
        return []
    manifest = Path(root) / "mjcf" / "MANIFEST.tsv"
    files = []
    for line in manifest.read_text().splitlines()[1:]:
        repo, _, path, _ = line.split("\t")
        folder = "mujoco" if repo.endswith("/mujoco") else "mujoco_menagerie"
        files.append(Path(root) / "mjcf" / folder / path)
    return files


@pytest.mark.skipif(not _corpus_files(), reason="ROBODESC_CORPUS is not set")
def test_every_keyframe_of_the_corpus_matches_mujoco():
    compared = 0
    for path in _corpus_files():
        if mujoco.MjModel.from_xml_path(str(path)).nkey:
            compared += compare_keyframes(path)
    assert compared > 0
