"""What the SDF reader rejects (what libsdformat 16 rejects), and how it says so.

Every error is a RobodescError subclass naming the file, the line, the element path and the
construct, with a suggestion; nothing else escapes, whatever the input.
"""

from __future__ import annotations

import random
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from fuzzing import assert_mutants_load_or_raise_robodesc_errors, mutate_structure

import robodesc
from robodesc import (
    CyclicAttachment,
    DuplicateName,
    InvalidTree,
    InvalidValue,
    MalformedPose,
    MalformedValue,
    MissingAttribute,
    MissingRootElement,
    RobodescError,
    UnresolvedReference,
    UnsupportedJointType,
    XMLSyntaxError,
)
from robodesc.core.errors import CyclicPoseReference, PluginCrash, ReservedName, UnsupportedVersion


def doc(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def loads(text: str, **kw) -> robodesc.Model:
    return robodesc.loads(doc(text), format="sdf", **kw)


def model(body: str, version: str = "1.9") -> str:
    return f'<sdf version="{version}">\n<model name="m">\n{textwrap.dedent(body)}\n</model>\n</sdf>\n'


def rejects(kind, text: str, construct: str | None = None, line: int | None = None) -> RobodescError:
    with pytest.raises(kind) as info:
        robodesc.loads(text, format="sdf")
    error = info.value
    if construct is not None:
        assert error.construct == construct
    if line is not None:
        assert error.line == line
    return error


# =====================================================================================================
# The document
# =====================================================================================================


def test_a_root_other_than_sdf_is_missing_root_element():
    error = rejects(MissingRootElement, '<gazebo version="1.2"><model name="m"/></gazebo>', "gazebo")
    assert "SDF 1.2" in str(error)


def test_a_missing_or_unknown_version():
    rejects(MissingAttribute, "<sdf><model name='m'><link name='a'/></model></sdf>", "sdf/@version")
    rejects(UnsupportedVersion, "<sdf version='100'><model name='m'><link name='a'/></model></sdf>")
    rejects(UnsupportedVersion, "<sdf version='2.0'><model name='m'><link name='a'/></model></sdf>")


def test_malformed_xml():
    rejects(XMLSyntaxError, "<sdf version='1.9'><model name='m'><link name='a'></model></sdf>")


@pytest.mark.parametrize(
    "body",
    [
        "<model name='a'><link name='l'/></model><model name='b'><link name='l'/></model>",
        "<model name='a'><link name='l'/></model><light name='s' type='point'/>",
        "<light name='a' type='point'/><light name='b' type='point'/>",
    ],
)
def test_several_top_level_elements_are_rejected(body):
    rejects(InvalidTree, f"<sdf version='1.8'>{body}</sdf>")


def test_an_empty_sdf_is_an_empty_model():
    assert list(robodesc.loads("<sdf version='1.8'></sdf>", format="sdf").bodies) == ["world"]


# =====================================================================================================
# Values
# =====================================================================================================


def test_malformed_pose_names_file_line_and_element():
    text = model('<link name="a">\n  <pose>1 2 bad 0 0 0</pose>\n</link>')
    error = rejects(MalformedPose, text, line=4)
    assert error.element == "/sdf/model[@name='m']/link[@name='a']/pose"
    assert error.suggestion


@pytest.mark.parametrize(
    "pose",
    [
        "<pose>1 2 3 4 5</pose>",
        "<pose>1 2 3 4 5 6 7</pose>",
        "<pose rotation_format='quat_xyzw'>1 2 3 0 0 0</pose>",
        "<pose rotation_format='quat_xyzw'>1 2 3 0 0 0 0</pose>",
        "<pose rotation_format='rpy_degrees'>1 2 3 0 0 0</pose>",
        "<pose rotation_format='quat_xyzw' degrees='true'>1 2 3 0 0 0 1</pose>",
        "<pose degrees='maybe'>1 2 3 0 0 0</pose>",
        "<pose>1 2 3 nan 0 0</pose>",
    ],
)
def test_poses_libsdformat_refuses(pose):
    with pytest.raises((MalformedPose, MalformedValue)):
        loads(model(f'<link name="a">{pose}</link>'))


def test_values_of_kept_elements_are_checked_like_libsdformat():
    rejects(MalformedValue, "<sdf version='1.6'><world name='w'><gravity>0 1 bad</gravity></world></sdf>", "gravity")
    rejects(MalformedValue, model('<link name="a"><velocity_decay><linear>bad</linear></velocity_decay></link>'))
    rejects(MalformedValue, model('<static>maybe</static><link name="a"/>'), "static")


@pytest.mark.parametrize("color", ["1.5 0 0 1", "0 0.1", "0.1 0.2 -1", "0.1 0.2 0.3 0.4 0.5"])
def test_colors_must_have_three_or_four_components_in_0_1(color):
    text = model(
        f'<link name="a"><visual name="v"><geometry><box/></geometry>'
        f"<material><ambient>{color}</ambient></material></visual></link>"
    )
    rejects(MalformedValue, text, "ambient")


def test_material_script_and_shader_checks():
    visual = '<link name="a"><visual name="v"><geometry><box/></geometry><material>{}</material></visual></link>'
    rejects(MissingAttribute, model(visual.format("<script><name>Gazebo/Grey</name></script>")), "script/uri")
    rejects(MissingAttribute, model(visual.format("<script><uri>__default__</uri><name>x</name></script>")))
    rejects(InvalidValue, model(visual.format("<shader type='invalid'/>")), "shader/@type")
    rejects(MissingAttribute, model(visual.format("<shader type='normal_map_tangent_space'/>")))


def test_invalid_inertia():
    text = model(
        '<link name="a"><inertial><mass>-1</mass>'
        "<inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>"
    )
    rejects(InvalidValue, text, "inertial")
    text = model('<link name="a"><inertial><inertia><ixx>1</ixx><iyy>1</iyy><izz>5</izz></inertia></inertial></link>')
    rejects(InvalidValue, text, "inertial")  # 1 + 1 < 5: no rigid body has these moments


def test_zero_joint_axis():
    text = model(
        '<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent>a</parent><child>b</child>'
        "<axis><xyz>0 0 0</xyz></axis></joint>"
    )
    rejects(InvalidValue, text, "axis/xyz")


# =====================================================================================================
# Names
# =====================================================================================================


def test_required_names():
    rejects(MissingAttribute, model("<link/>"), "link/@name")
    rejects(MissingAttribute, "<sdf version='1.6'><world><model name='m'><link name='a'/></model></world></sdf>")
    rejects(MissingAttribute, model('<link name="a"><sensor name="s"/></link>'), "sensor/@type")
    rejects(MissingAttribute, model('<link name="a"/><plugin name="p"/>'), "plugin/@filename")


@pytest.mark.parametrize(
    "body,kind",
    [
        ('<link name="a"/><link name="a"/>', DuplicateName),
        (
            '<link name="a"><visual name="v"><geometry><box/></geometry></visual>'
            '<visual name="v"><geometry><box/></geometry></visual></link>',
            DuplicateName,
        ),
        ('<link name="world"/>', ReservedName),
        ('<link name="a"/><frame name="__frame__"/>', ReservedName),
        ('<link name="a"><pose relative_to="__root__"/></link>', ReservedName),
    ],
)
def test_duplicate_and_reserved_names(body, kind):
    rejects(kind, model(body))


def test_name_collisions_across_kinds_are_errors_from_sdf_1_7():
    body = (
        '<link name="base"/><link name="x"/><joint name="x" type="fixed"><parent>base</parent><child>x</child></joint>'
    )
    rejects(DuplicateName, model(body, "1.7"), "x")
    assert "x_joint" in loads(model(body, "1.6")).joints


def test_world_name_checks():
    rejects(
        DuplicateName,
        "<sdf version='1.7'><world name='w'><model name='m'><link name='l'/></model>"
        "<model name='m'><link name='l'/></model></world></sdf>",
    )
    rejects(
        DuplicateName,
        "<sdf version='1.7'><world name='w'><model name='ground'><link name='l'/></model>"
        "<frame name='ground'/></world></sdf>",
    )
    rejects(DuplicateName, "<sdf version='1.6'><world name='w'/><world name='w'/></sdf>")


# =====================================================================================================
# Joints and frames
# =====================================================================================================


def joint(kind: str = "revolute", parent: str = "a", child: str = "b", extra: str = "") -> str:
    return model(
        f'<link name="a"/><link name="b"/><joint name="j" type="{kind}"><parent>{parent}</parent>'
        f"<child>{child}</child><axis><xyz>0 0 1</xyz></axis>{extra}</joint>",
        "1.8",
    )


def test_joint_type_and_ends():
    error = rejects(UnsupportedJointType, joint("hinge"), "hinge")
    assert "revolute" in error.suggestion or "use one of" in error.suggestion
    rejects(UnsupportedJointType, joint("floating"))
    rejects(InvalidValue, joint(child="world"))
    rejects(InvalidValue, joint(parent="b", child="b"))
    rejects(UnresolvedReference, joint(parent="c"), "c")
    error = rejects(UnresolvedReference, joint(child="bb"), "bb")
    assert "'b'" in error.suggestion
    rejects(MissingAttribute, model('<link name="a"/><joint name="j" type="fixed"><child>a</child></joint>'))


def test_joint_ends_resolving_to_the_same_link():
    text = model(
        '<link name="a"/><link name="b"/>'
        '<joint name="j1" type="fixed"><parent>a</parent><child>b</child></joint>'
        '<joint name="j2" type="fixed"><parent>j1</parent><child>b</child></joint>',
        "1.8",
    )
    rejects(InvalidTree, text)
    rejects(CyclicAttachment, joint(child="j"))  # a joint attached to itself


def test_frame_graph_errors():
    rejects(UnresolvedReference, model('<link name="a"/><frame name="f" attached_to="nowhere"/>', "1.7"))
    rejects(
        CyclicAttachment,
        model('<link name="a"/><frame name="f1" attached_to="f2"/><frame name="f2" attached_to="f1"/>', "1.7"),
    )
    rejects(
        CyclicPoseReference,
        model(
            '<link name="a"/><frame name="f1"><pose relative_to="f2"/></frame>'
            '<frame name="f2"><pose relative_to="f1"/></frame>',
            "1.7",
        ),
    )
    rejects(UnresolvedReference, model('<link name="a"><pose relative_to="b"/></link>', "1.7"), "b")
    rejects(
        UnresolvedReference,
        joint(extra="").replace("<xyz>", '<xyz expressed_in="nowhere">'),
        "nowhere",
    )


def test_model_without_links_canonical_link_and_placement_frame():
    rejects(InvalidTree, model('<frame name="f"/>', "1.7"))
    assert list(loads(model('<static>true</static><frame name="f"/>', "1.7")).bodies) == ["world"]
    text = "<sdf version='1.7'><model name='m' canonical_link='c'><link name='a'/></model></sdf>"
    rejects(UnresolvedReference, text, "c")
    text = "<sdf version='1.8'><model name='m' placement_frame='c'><link name='a'/></model></sdf>"
    rejects(UnresolvedReference, text, "c")
    text = "<sdf version='1.8'><model name='m'><pose relative_to='x'/><link name='a'/></model></sdf>"
    rejects(InvalidValue, text, "pose/@relative_to")


# =====================================================================================================
# Nothing but robodesc errors, whatever the input
# =====================================================================================================

SEED_DOCS = [
    model(
        """
        <link name="a"><pose>0 0 1 0 0 0</pose>
          <inertial><mass>1</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
          <visual name="v"><geometry><mesh><uri>x.dae</uri></mesh></geometry></visual></link>
        <link name="b"/>
        <model name="n"><link name="c"/><frame name="f" attached_to="c"/></model>
        <joint name="j" type="universal"><parent>a</parent><child>n::c</child>
          <axis><xyz expressed_in="n::f">0 0 1</xyz><limit><lower>-1</lower></limit></axis><axis2><xyz>1 0 0</xyz>
            </axis2>
        </joint>
        <frame name="g" attached_to="j"><pose relative_to="b">1 0 0 0 0 0</pose></frame>
        """,
        "1.9",
    ),
    "<sdf version='1.10'><world name='w'><model name='m' placement_frame='f'><pose>1 0 0 0 0 0</pose>"
    "<link name='l'/><frame name='f' attached_to='l'/></model><frame name='wf' attached_to='m::l'/>"
    "<joint name='j' type='ball'><parent>world</parent><child>m</child></joint></world></sdf>",
]
GARBAGE = ["", "bad", "1 2", "nan", "-inf", "0", "__model__", "world", "::", "a::b", "__root__", "1 2 3 4 5 6 7"]


@pytest.mark.parametrize("seed", range(60))
def test_mutated_files_raise_only_robodesc_errors(seed):
    rng = random.Random(seed)
    root = ET.fromstring(rng.choice(SEED_DOCS))
    elements = list(root.iter())
    for _ in range(rng.randint(1, 4)):
        element = rng.choice(elements)
        roll = rng.random()
        if roll < 0.4:
            element.text = rng.choice(GARBAGE)
        elif roll < 0.7:
            key = rng.choice(["name", "type", "relative_to", "attached_to", "expressed_in", "version"])
            element.set(key, rng.choice(GARBAGE + [e.get("name", "") for e in elements]))
        else:
            for parent in elements:
                if element in list(parent):
                    parent.remove(element)
                    break
    try:
        robodesc.loads(ET.tostring(root, encoding="unicode"), format="sdf").forward_kinematics()
    except PluginCrash as exc:  # the reader's own exception, wrapped by the plugin manager
        pytest.fail(f"the reader crashed: {exc.original!r}")
    except RobodescError:
        pass


# =====================================================================================================
# Found by fuzzing: each input once crashed or misreported; now a result or a RobodescError
# =====================================================================================================


@pytest.mark.parametrize("xyz", ["1e300 0 0", "1e-300 0 0", "1e308 1e308 0"])
def test_a_huge_or_tiny_joint_axis_is_normalised(xyz):
    # the length came from a sum of squares: 1e300 overflowed and made the axis NaN, 1e-300 underflowed
    m = loads(
        model(f"""
        <link name="a"/><link name="b"/>
        <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>{xyz}</xyz></axis></joint>
        <link name="p"><visual name="v"><geometry><plane><normal>0 {xyz}</normal></plane></geometry></visual></link>
        """)
    )
    axis = m.joints["j"].axis
    assert np.isfinite(axis).all() and abs(np.linalg.norm(axis) - 1) < 1e-12
    assert np.isfinite(m.bodies["p"].visuals[0].geometry.normal).all()


def test_a_renamed_included_actor_clash_points_at_the_include(tmp_path):
    # the renamed actor is a copy that is in no file, so the error had no line
    (tmp_path / "actor.sdf").write_text('<sdf version="1.9"><actor name="walker"/></sdf>')
    (tmp_path / "world.sdf").write_text(
        '<sdf version="1.9"><world name="w">\n<include><uri>actor.sdf</uri><name>a</name></include>\n'
        "<include><uri>actor.sdf</uri><name>a</name><pose>1 0 0 0 0 0</pose></include>\n</world></sdf>"
    )
    with pytest.raises(DuplicateName, match="actor with name 'a'") as info:
        robodesc.load(tmp_path / "world.sdf")
    assert info.value.file == str(tmp_path / "world.sdf") and info.value.line == 3


FUZZ_SEED = """<sdf version="1.11">
<world name="w">
  <frame name="wf"><pose>1 0 0 0 0 0</pose></frame>
  <model name="m" canonical_link="base">
    <pose relative_to="wf" degrees="true">0 0 1 0 0 90</pose>
    <link name="base">
      <inertial><pose>0 0 0.1 0 0 0</pose><mass>2</mass>
        <inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>
      <visual name="v"><geometry><box><size>1 2 3</size></box></geometry></visual>
      <collision name="c"><geometry><cylinder><radius>0.1</radius><length>0.2</length></cylinder></geometry></collision>
    </link>
    <link name="l1"><pose relative_to="j1">0 0 0 0 0 0</pose>
      <visual name="s"><geometry><sphere><radius>0.2</radius></sphere></geometry></visual></link>
    <link name="l2"><pose relative_to="l1" rotation_format="quat_xyzw">0 0 1 0 0 0 1</pose>
      <visual name="p"><geometry><plane><normal>0 0 1</normal><size>1 1</size></plane></geometry></visual></link>
    <link name="l3"><pose relative_to="f1">0 0 1 0 0 0</pose></link>
    <frame name="f1" attached_to="l2"><pose relative_to="base">0 0 0.1 0 0 0</pose></frame>
    <joint name="j1" type="revolute"><pose relative_to="base">0 0 1 0 0 0</pose><parent>base</parent><child>l1</child>
      <axis><xyz expressed_in="__model__">0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
    <joint name="j2" type="prismatic"><parent>l1</parent><child>l2</child>
      <axis><xyz>1 0 0</xyz><mimic joint="j1"><multiplier>2</multiplier></mimic></axis></joint>
    <joint name="j3" type="universal"><parent>l2</parent><child>l3</child>
      <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>
    <joint name="j4" type="screw"><parent>l3</parent><child>inner::a</child><thread_pitch>0.1</thread_pitch></joint>
    <model name="inner"><link name="a"/><link name="b"/>
      <joint name="k" type="ball"><parent>a</parent><child>b</child></joint></model>
  </model>
  <joint name="wj" type="fixed"><parent>world</parent><child>m</child></joint>
</world>
</sdf>
"""
_REFERENCES = ("relative_to", "attached_to", "expressed_in", "canonical_link", "joint", "name")
_FUZZ_GARBAGE = ["", "nan", "inf", "1e999", "-0", "1,2", "0x10", "-1", "1e308", "1e-320", "0 0 0", "ä", "__model__"]


def _mutate_sdf(root: ET.Element, rng: random.Random) -> str | None:
    element, parent, roll = mutate_structure(root, rng)
    if roll < 3:  # deleted, duplicated or moved
        pass
    elif roll == 3:  # garbage text or a number replaced by garbage
        text = element.text or ""
        numbers = text.split()
        if numbers and rng.random() < 0.5:
            numbers[rng.randrange(len(numbers))] = rng.choice(_FUZZ_GARBAGE)
            element.text = " ".join(numbers)
        else:
            element.text = rng.choice(_FUZZ_GARBAGE)
    elif roll == 4:  # a reference to itself, its parent, or garbage
        own = [e.get("name") for e in (element, parent) if e.get("name")] or ["x"]
        element.set(rng.choice(_REFERENCES), rng.choice(own + _FUZZ_GARBAGE))
    elif roll == 5:  # a near-miss tag or type
        if element.get("type") is not None and rng.random() < 0.5:
            element.set("type", rng.choice(["revolute2", "gearbox", "Revolute", "", "ball", "continuous"]))
        else:
            element.tag = rng.choice([element.tag.upper(), element.tag[:-1] or "x", element.tag + "s", "frame", "link"])
    elif roll == 6:  # wrong value count
        element.text = " ".join((element.text or "1").split() * rng.choice((2, 3)))
    elif roll == 7:  # an attribute emptied or dropped
        if not element.attrib:
            return None
        key = rng.choice(sorted(element.attrib))
        if rng.random() < 0.5:
            element.set(key, "")
        else:
            del element.attrib[key]
    else:
        return ET.tostring(root, encoding="unicode")[: rng.randrange(1, 2000)]  # truncate
    return None


def test_fuzzed_sdf_loads_or_raises_robodesc_error():
    assert_mutants_load_or_raise_robodesc_errors(FUZZ_SEED, _mutate_sdf, "sdf", seed=20240612)
