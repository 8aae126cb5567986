"""`<include>`: finding models (model://, model paths, relative and absolute paths, model.config),
overriding name/pose/static/placement_frame, merge="true", URDF includes, experimental params,
and the per-load cache that parses an included model once however often it is included.

The models live in tests/data/sdf/models (small handwritten folders with a model.config).
"""

from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path

import pytest
from conftest import assert_close

import robodesc
from robodesc import CyclicInclude, JointType, MissingAttribute, MissingRootElement, ResourceNotFound
from robodesc.core.transforms import make_pose

DATA = Path(__file__).resolve().parent / "data" / "sdf"
MODELS = DATA / "models"


def translation(x, y, z):
    return make_pose(None, [x, y, z])


def world(body: str, version: str = "1.9", **kw) -> robodesc.Model:
    text = f'<sdf version="{version}"><world name="w">{textwrap.dedent(body)}</world></sdf>'
    kw.setdefault("base_dir", DATA)
    return robodesc.loads(text, format="sdf", **kw)


def test_model_uri_through_search_paths_with_name_pose_and_static_overrides():
    model = world(
        """
        <include><uri>model://arm</uri></include>
        <include><uri>model://arm</uri><name>arm2</name><pose>1 0 0 0 0 0</pose><static>true</static></include>
        """,
        search_paths=[MODELS],
    )
    assert {"arm::base", "arm::upper", "arm2::base", "arm2::upper"} <= set(model.bodies)
    assert set(model.joints) == {"arm::shoulder", "arm2::shoulder"}
    poses = model.forward_kinematics()
    assert_close(poses["arm::upper"], translation(0, 0, 1.5))  # the model's own pose without an override
    assert_close(poses["arm2::upper"], translation(1, 0, 1))  # the include's pose replaces it
    assert model.bodies["arm2::base"].static is True
    assert model.bodies["arm::base"].static is False
    assert model.frames["arm2::tool"].body == "arm2::upper"
    plugins = [e for e in model.extras if e.tag == "plugin"]
    assert sorted(e.owner for e in plugins) == ["arm", "arm2"]


def test_model_config_picks_the_highest_version_libsdformat_reads():
    model = world("<include><uri>model://arm</uri></include>", search_paths=[MODELS])
    assert "arm::upper" in model.bodies  # model.sdf (1.9), not model-1_4.sdf, and not the 2.5 entry


def test_model_paths_from_the_gazebo_environment(monkeypatch):
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(MODELS))
    assert "arm::base" in world("<include><uri>model://arm</uri></include>").bodies


def test_bare_relative_and_absolute_uris():
    model = world(
        f"""
        <include><uri>arm</uri></include>
        <include><uri>parts/wheel.sdf</uri></include>
        <include><uri>file://parts/wheel.sdf</uri><name>wheel2</name></include>
        <include><uri>{DATA / "parts" / "wheel.sdf"}</uri><name>wheel3</name></include>
        """,
        search_paths=[MODELS],
    )
    assert {"arm::base", "wheel::rim", "wheel2::rim", "wheel3::rim"} <= set(model.bodies)


def test_nested_includes_resolve_next_to_the_model_folder():
    # kit/model.sdf includes the bare URI "gripper": libsdformat finds it beside the kit folder
    model = world("<include><uri>models/kit</uri><pose>0 1 0 0 0 0</pose></include>")
    assert model.joints["kit::attach"].child == "kit::gripper::palm"
    assert model.joints["kit::gripper::slide"].type is JointType.PRISMATIC
    poses = model.forward_kinematics()
    assert_close(poses["kit::gripper::palm"], translation(0, 1, 1))
    assert_close(poses["kit::gripper::tcp"], translation(0, 1, 1.2))


def test_placement_frame_of_an_include():
    model = world(
        """
        <include><uri>model://arm</uri><placement_frame>tool</placement_frame><pose>5 0 0 0 0 0</pose></include>
        """,
        search_paths=[MODELS],
    )
    poses = model.forward_kinematics()
    assert_close(poses["arm::tool"], translation(5, 0, 0))
    assert_close(poses["arm::base"], translation(5, 0, -1.5))


def test_placement_frame_needs_a_pose():
    with pytest.raises(MissingAttribute):
        world("<include><uri>model://arm</uri><placement_frame>tool</placement_frame></include>", search_paths=[MODELS])


def test_merge_include_into_a_model_sdf_1_9():
    text = """<sdf version="1.9"><model name="robot">
      <link name="body"/>
      <include merge="true"><uri>model://gripper</uri><pose>0 0 2 0 0 0</pose></include>
      <joint name="mount" type="fixed"><parent>body</parent><child>palm</child></joint>
    </model></sdf>"""
    model = robodesc.loads(text, format="sdf", search_paths=[MODELS])
    assert {"body", "palm", "finger"} <= set(model.bodies)  # no "gripper::" prefix
    assert "slide" in model.joints and "tcp" in model.frames
    assert "_merged__gripper__model__" in model.frames
    poses = model.forward_kinematics()
    assert_close(poses["palm"], translation(0, 0, 2))
    assert_close(poses["tcp"], translation(0, 0, 2.2))


def test_merge_include_into_a_world_sdf_1_10():
    text = """<sdf version="1.10"><world name="w">
      <include merge="true"><uri>models/kit</uri><pose>3 0 0 0 0 0</pose></include>
    </world></sdf>"""
    with pytest.raises(robodesc.InvalidValue):  # the kit has links of its own: a world holds none
        robodesc.loads(text, format="sdf", base_dir=DATA)


def test_including_a_light():
    model = world("<include><uri>model://lamp</uri><name>bulb</name></include>", search_paths=[MODELS])
    light = next(e for e in model.extras if e.tag == "light")
    assert 'name="bulb"' in light.xml


def test_including_a_urdf_model():
    model = world("<include><uri>model://legacy</uri><pose>0 0 1 0 0 0</pose></include>", search_paths=[MODELS])
    joint = model.joints["legacy::axle"]
    assert joint.type is JointType.CONTINUOUS and joint.child == "legacy::wheel"
    assert_close(joint.axis, [0, 1, 0])
    poses = model.forward_kinematics({"legacy::axle": math.pi / 2})
    assert_close(poses["legacy::wheel"][:3, 3], [0.2, 0, 1])


def test_experimental_params_edit_the_included_model():
    text = """<sdf version="1.7" xmlns:experimental="http://sdformat.org/schemas/experimental"><world name="w">
      <include><uri>model://gripper</uri>
        <experimental:params>
          <link element_id="" name="extra" action="add"><pose>0 0 3 0 0 0</pose></link>
          <visual element_id="finger::pad" action="remove"/>
          <link element_id="finger" action="modify"><pose>0.5 0 0 0 0 0</pose></link>
        </experimental:params>
      </include>
    </world></sdf>"""
    model = robodesc.loads(text, format="sdf", search_paths=[MODELS])
    assert "gripper::extra" in model.bodies
    assert model.bodies["gripper::finger"].visuals == []
    assert_close(model.forward_kinematics()["gripper::finger"], translation(0.5, 0, 0))
    bad = text.replace('element_id="finger::pad"', 'element_id="finger::nothing"')
    with pytest.raises(robodesc.RobodescError):
        robodesc.loads(bad, format="sdf", search_paths=[MODELS])


def test_a_missing_model_lists_every_path_tried():
    with pytest.raises(ResourceNotFound) as info:
        world("<include><uri>model://nowhere</uri></include>", search_paths=[MODELS])
    assert any(str(MODELS / "nowhere") in t for t in info.value.tried)
    assert info.value.line == 1 and "include" in info.value.element


def test_a_model_folder_without_model_config():
    with pytest.raises(ResourceNotFound) as info:
        world("<include><uri>model://no_config</uri></include>", search_paths=[MODELS])
    assert "model.config" in str(info.value)


def test_include_errors():
    with pytest.raises(MissingAttribute):
        world("<include><name>x</name></include>")
    with pytest.raises(CyclicInclude):
        world("<include><uri>model://loop_a</uri></include>", search_paths=[MODELS])
    with pytest.raises(MissingRootElement):  # a file holding a world cannot be included
        world("<include><uri>parts/small_world.sdf</uri></include>")


def test_an_included_model_is_parsed_once_per_load(monkeypatch):
    from robodesc.formats.sdf import loader  # reads every file of the load

    calls = []
    real = loader.parse_xml

    def counting(data, source=None):
        calls.append(source)
        return real(data, source)

    monkeypatch.setattr(loader, "parse_xml", counting)
    includes = "".join(
        f"<include><uri>model://arm</uri><name>arm_{i}</name><pose>{i} 0 0 0 0 0</pose></include>" for i in range(200)
    )
    model = world(includes, search_paths=[MODELS])
    assert len(model.bodies) == 1 + 2 * 200
    assert sum(1 for c in calls if c and c.endswith(os.path.join("arm", "model.sdf"))) == 1
    assert_close(model.forward_kinematics()["arm_199::upper"], translation(199, 0, 1))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-16-le"])
def test_includes_are_found_in_any_encoding(encoding):
    # a file whose bytes hold no "<include" is not searched for includes; in UTF-16 the bytes spell the tag
    # otherwise, and its includes must still be found
    text = '<sdf version="1.9"><world name="w"><include><uri>model://arm</uri></include></world></sdf>'
    model = robodesc.loads(text.encode(encoding), format="sdf", base_dir=DATA, search_paths=[MODELS])
    assert {"arm::base", "arm::upper"} <= set(model.bodies)


def test_a_top_level_include_is_the_file_s_model():
    text = '<sdf version="1.9"><include><uri>model://gripper</uri><name>hand</name></include></sdf>'
    model = robodesc.loads(text, format="sdf", search_paths=[MODELS])
    assert model.name == "hand"
    assert {"palm", "finger"} <= set(model.bodies)  # a model file: names below its top model


def test_the_load_cache_gives_each_owner_its_own_namespace():
    from robodesc.formats.sdf.reader import read
    from robodesc.plugins.manager import default_registry

    context = default_registry().new_context(None, str(DATA), [str(MODELS)])
    text = "<include><uri>model://arm</uri></include><include><uri>model://legacy</uri></include>"
    model = read(f'<sdf version="1.9"><world name="w">{text}</world></sdf>'.encode(), context)
    assert {"arm::upper", "legacy::wheel"} <= set(model.bodies)
    assert {"sdf", "resolve"} <= set(context.cache)  # owner -> that owner's dict, nothing else at the top
    assert all(isinstance(owner, str) and isinstance(space, dict) for owner, space in context.cache.items())
    files = context.cache_for("sdf")["files"]  # the SDF reader's parsed files, the URDF one included
    assert sorted(os.path.basename(os.path.dirname(path)) for path, _ in files) == ["arm", "legacy"]
    assert context.at(str(MODELS)).cache_for("sdf") is context.cache_for("sdf")  # shared across the load
