"""robodesc.core.diff: two descriptions compared as robots, across formats.

One small arm is written by hand in URDF, MJCF and SDF (equivalent); each test changes one thing and
checks that exactly that is reported.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import robodesc
from robodesc.core.diff import DiffEntry, ModelDiff, compare

# base -j1 (revolute y, limited)-> l1 -j2 (continuous x)-> l2 -jt (fixed)-> tool (no mass: a frame)
ARM_URDF = """<robot name="arm">
  <link name="base"><inertial><origin xyz="0 0 0.1"/><mass value="2"/>
    <inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l1"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.5" rpy="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" velocity="2" effort="3"/></joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.2 0 0.4"/><axis xyz="1 0 0"/></joint>
  <joint name="jt" type="fixed"><parent link="l2"/><child link="tool"/><origin xyz="0 0 0.3"/></joint>
</robot>"""

ARM_MJCF = """<mujoco model="arm"><compiler angle="radian"/><worldbody>
  <body name="base"><inertial pos="0 0 0.1" mass="2" diaginertia="0.1 0.2 0.3"/>
    <body name="l1" pos="0 0 0.5" euler="0 0 0.3">
      <joint name="j1" axis="0 1 0" range="-1 1" limited="true"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.02 0.03"/>
      <body name="l2" pos="0.2 0 0.4">
        <joint name="j2" axis="1 0 0"/>
        <inertial pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.01 0.01"/>
        <site name="tool" pos="0 0 0.3"/>
      </body>
    </body>
  </body>
</worldbody></mujoco>"""

ARM_SDF = """<sdf version="1.9"><model name="arm">
  <link name="base"><inertial><pose>0 0 0.1 0 0 0</pose><mass>2</mass>
    <inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.3</izz></inertia></inertial></link>
  <link name="l1"><pose relative_to="base">0 0 0.5 0 0 0.3</pose><inertial><mass>1</mass>
    <inertia><ixx>0.01</ixx><iyy>0.02</iyy><izz>0.03</izz></inertia></inertial></link>
  <link name="l2"><pose relative_to="l1">0.2 0 0.4 0 0 0</pose><inertial><pose>0.1 0 0 0 0 0</pose><mass>0.5</mass>
    <inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
  <joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>
  <joint name="j1" type="revolute"><parent>base</parent><child>l1</child><axis><xyz>0 1 0</xyz>
    <limit><lower>-1</lower><upper>1</upper><velocity>2</velocity><effort>3</effort></limit></axis></joint>
  <joint name="j2" type="continuous"><parent>l1</parent><child>l2</child><axis><xyz>1 0 0</xyz></axis></joint>
  <frame name="tool" attached_to="l2"><pose relative_to="l2">0 0 0.3 0 0 0</pose></frame>
</model></sdf>"""


def urdf(text: str = ARM_URDF) -> robodesc.Model:
    return robodesc.loads(text, format="urdf")


def mjcf(text: str = ARM_MJCF) -> robodesc.Model:
    return robodesc.loads(text, format="mjcf")


def sdf(text: str = ARM_SDF) -> robodesc.Model:
    return robodesc.loads(text, format="sdf")


def edited(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def note_codes(diff: ModelDiff) -> set[str]:
    return {n.code for n in diff.notes}


# -- agreement ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("load", [urdf, mjcf, sdf], ids=["urdf", "mjcf", "sdf"])
def test_a_model_agrees_with_itself_without_notes(load):
    diff = compare(load(), load())
    assert diff.agree, str(diff)
    assert diff.differences == [] and diff.notes == []
    assert diff.compared["bodies"] == len(load().bodies)
    assert len(diff.configurations) == 9


def test_the_same_arm_in_urdf_and_mjcf_agrees():
    diff = compare(urdf(), mjcf())
    assert diff.agree, str(diff)
    assert diff.root == ("base", "base")
    # MJCF's world body, the URDF fixed joint to a massless link that MJCF writes as a site, and
    # MJCF having no velocity/effort limits at all: explained, not disagreements.
    assert note_codes(diff) == {"helper_body", "body_is_frame", "fixed_joint", "limit_not_stated"}
    helper = next(n for n in diff.notes if n.code == "helper_body")
    assert helper.names == ("world",) and helper.b == "world" and helper.a is None
    assert diff.compared == {"bodies": 3, "joints": 2, "frames": 1}
    assert diff.total_mass == pytest.approx((3.5, 3.5))


@pytest.mark.parametrize("pair", [(urdf, sdf), (sdf, mjcf), (mjcf, urdf)], ids=["urdf-sdf", "sdf-mjcf", "mjcf-urdf"])
def test_the_same_arm_agrees_across_every_pair_of_formats(pair):
    first, second = pair
    diff = compare(first(), second())
    assert diff.agree, str(diff)


def test_a_mimic_joint_agrees_with_an_mjcf_joint_equality():
    a = urdf(
        edited(
            ARM_URDF,
            "</robot>",
            '<link name="finger"><inertial><mass value="0.1"/>'
            '<inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>'
            '<joint name="jf" type="prismatic"><parent link="l2"/><child link="finger"/><origin xyz="0 0.1 0"/>'
            '<axis xyz="0 1 0"/><limit lower="-1" upper="1" velocity="1" effort="1"/>'
            '<mimic joint="j1" multiplier="0.5" offset="0.1"/></joint></robot>',
        )
    )
    finger = (
        '<body name="finger" pos="0 0.1 0"><joint name="jf" type="slide" axis="0 1 0" range="-1 1" limited="true"/>'
        '<inertial pos="0 0 0" mass="0.1" diaginertia="0.001 0.001 0.001"/></body>'
    )
    text = edited(ARM_MJCF, '<site name="tool" pos="0 0 0.3"/>', '<site name="tool" pos="0 0 0.3"/>' + finger)
    b = mjcf(
        edited(
            text, "</mujoco>", '<equality><joint joint1="jf" joint2="j1" polycoef="0.1 0.5 0 0 0"/></equality></mujoco>'
        )
    )
    diff = compare(a, b)
    assert diff.agree, str(diff)
    # The follower is set from its leader where it takes a value of its own (MJCF), so poses agree.
    reverse = compare(b, a)
    assert reverse.agree, str(reverse)
    for row in reverse.configurations:
        assert row["jf"] == pytest.approx(0.1 + 0.5 * row["j1"])
    changed = mjcf(
        edited(
            text, "</mujoco>", '<equality><joint joint1="jf" joint2="j1" polycoef="0.1 0.6 0 0 0"/></equality></mujoco>'
        )
    )
    assert compare(a, changed).codes[0] == "joint_mimic"


# -- one change, reported as such ----------------------------------------------------------------------
def test_a_changed_joint_limit_is_reported_as_a_limit():
    diff = compare(urdf(), urdf(edited(ARM_URDF, 'upper="1" velocity="2"', 'upper="1.2" velocity="2"')))
    assert diff.codes == ["joint_limit"], str(diff)
    entry = diff.differences[0]
    assert entry.names == ("j1",) and entry.details["field"] == "upper"
    assert (entry.a, entry.b) == (1.0, 1.2)
    assert "upper" in entry.message and "j1" in entry.message


def test_a_limit_on_one_side_only_is_a_difference():
    diff = compare(
        mjcf(),
        mjcf(edited(ARM_MJCF, '<joint name="j2" axis="1 0 0"/>', '<joint name="j2" axis="1 0 0" range="-2 2"/>')),
    )
    assert sorted(diff.codes) == ["joint_limit", "joint_limit"]
    assert {d.details["field"] for d in diff.differences} == {"lower", "upper"}
    assert diff.differences[0].a is None


def test_a_moved_body_is_one_pose_difference_and_what_hangs_below_moves_with_it():
    diff = compare(urdf(), urdf(edited(ARM_URDF, '<origin xyz="0.2 0 0.4"/>', '<origin xyz="0.2 0 0.45"/>')))
    assert diff.codes == ["pose"], str(diff)
    entry = diff.differences[0]
    assert entry.names == ("l2",)
    assert entry.details["configuration"] == 0  # the same everywhere: reported at the reference
    assert entry.details["translation_error"] == pytest.approx(0.05)
    assert entry.details["rotation_error"] == pytest.approx(0.0, abs=1e-9)
    assert entry.details["configurations_differing"] == 9
    assert entry.details["moved_with_it"] == 1  # tool
    assert entry.b["xyz"][2] - entry.a["xyz"][2] == pytest.approx(0.05)
    assert "at the reference" in entry.message


def test_a_renamed_link_is_reported_as_renamed():
    text = ARM_URDF.replace('"l1"', '"arm"')
    diff = compare(urdf(), urdf(text))
    assert diff.codes == ["body_renamed"], str(diff)
    entry = diff.differences[0]
    assert entry.names == ("l1", "arm") and (entry.a, entry.b) == ("l1", "arm")
    assert diff.compared["bodies"] == 4  # the renamed body is compared like the others


def test_renames_follow_each_other_down_the_tree():
    text = ARM_URDF.replace('"l1"', '"arm"').replace('"l2"', '"hand"')
    diff = compare(urdf(), urdf(text))
    assert diff.codes == ["body_renamed", "body_renamed"], str(diff)
    assert [d.names for d in diff.differences] == [("l1", "arm"), ("l2", "hand")]


def test_a_renamed_joint_is_reported_as_renamed():
    diff = compare(urdf(), urdf(ARM_URDF.replace('"j2"', '"elbow"')))
    assert diff.codes == ["joint_renamed"], str(diff)
    assert diff.differences[0].names == ("j2", "elbow")
    assert "j2" in diff.configurations[1]  # a renamed joint is still sampled on both sides


def test_a_moved_and_renamed_body_is_removed_and_added():
    text = edited(ARM_URDF.replace('"l2"', '"hand"'), '<origin xyz="0.2 0 0.4"/>', '<origin xyz="0.3 0 0.4"/>')
    diff = compare(urdf(), urdf(text))
    assert diff.codes == ["body_removed", "body_added", "pose"], str(diff)
    assert diff.differences[2].names == ("tool",)  # what hangs below moved with it


def test_a_changed_mass_is_reported_as_a_mass_and_in_the_total():
    diff = compare(mjcf(), mjcf(edited(ARM_MJCF, 'mass="0.5"', 'mass="0.7"')))
    assert diff.codes == ["mass", "total_mass"], str(diff)
    mass, total = diff.differences
    assert mass.names == ("l2",) and (mass.a, mass.b) == (0.5, 0.7)
    assert (total.a, total.b) == pytest.approx((3.5, 3.7))


def test_a_changed_inertia_and_centre_of_mass_are_reported():
    text = edited(
        ARM_MJCF,
        'pos="0.1 0 0" mass="0.5" diaginertia="0.01 0.01 0.01"',
        'pos="0.1 0 0.01" mass="0.5" diaginertia="0.01 0.01 0.02"',
    )
    diff = compare(mjcf(), mjcf(text))
    assert diff.codes == ["com", "inertia"], str(diff)
    assert all(d.names == ("l2",) for d in diff.differences)


def test_a_removed_joint_is_reported_as_removed():
    diff = compare(mjcf(), mjcf(edited(ARM_MJCF, '<joint name="j2" axis="1 0 0"/>', "")))
    assert diff.codes == ["joint_removed"], str(diff)
    assert diff.differences[0].names == ("j2",) and diff.differences[0].a == "j2"
    reverse = compare(mjcf(edited(ARM_MJCF, '<joint name="j2" axis="1 0 0"/>', "")), mjcf())
    assert reverse.codes == ["joint_added"]


def test_a_changed_axis_is_reported_with_the_motion_it_changes():
    diff = compare(urdf(), urdf(edited(ARM_URDF, '<axis xyz="1 0 0"/>', '<axis xyz="0 0 1"/>')))
    assert diff.codes[0] == "joint_axis" and set(diff.codes) == {"joint_axis", "pose"}, str(diff)
    pose = diff.differences[1]
    assert pose.names == ("l2",) and pose.details["configuration"] > 0  # same at the reference, not when moved


def test_a_changed_joint_type_is_reported():
    text = edited(ARM_URDF, '<joint name="j2" type="continuous">', '<joint name="j2" type="prismatic">')
    text = edited(
        text,
        '<axis xyz="1 0 0"/></joint>',
        '<axis xyz="1 0 0"/><limit lower="-1" upper="1" velocity="1" effort="1"/></joint>',
    )
    diff = compare(urdf(), urdf(text))
    assert diff.codes[0] == "joint_type", str(diff)
    assert (diff.differences[0].a, diff.differences[0].b) == ("continuous", "prismatic")


def test_a_helper_link_between_two_joints_is_a_note():
    # MJCF puts two joints on one body; URDF needs a massless link between them.
    two_joints = edited(
        ARM_MJCF,
        '<joint name="j1" axis="0 1 0" range="-1 1" limited="true"/>',
        '<joint name="j1" axis="0 1 0" range="-1 1" limited="true"/>'
        '<joint name="lift" type="slide" axis="0 0 1" range="-1 1" limited="true"/>',
    )
    with_helper = edited(
        ARM_URDF,
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>',
        '<link name="l1_lift"/><joint name="lift" type="prismatic"><parent link="l1_lift"/><child link="l1"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1_lift"/>',
    )
    diff = compare(mjcf(two_joints), urdf(with_helper))
    assert diff.agree, str(diff)
    helpers = [n for n in diff.notes if n.code == "helper_body"]
    assert [n.names for n in helpers] == [("world",), ("l1_lift",)]
    assert "lift" in diff.configurations[1] and "j1" in diff.configurations[1]  # both moved, poses compared through it
    # the helper is the only change from the plain URDF arm apart from the added joint
    plain = compare(urdf(), urdf(with_helper))
    assert plain.codes == ["joint_added"] and "helper_body" in note_codes(plain)


def test_frames_are_compared_by_name():
    moved = compare(mjcf(), mjcf(edited(ARM_MJCF, 'pos="0 0 0.3"', 'pos="0 0 0.31"')))
    assert moved.codes == ["frame_pose"] and moved.differences[0].names == ("tool",)
    gone = compare(mjcf(), mjcf(edited(ARM_MJCF, '<site name="tool" pos="0 0 0.3"/>', "")))
    assert gone.codes == ["frame_removed"]


def test_a_removed_body_with_mass_is_a_difference():
    text = edited(
        ARM_URDF,
        '<link name="tool"/>',
        '<link name="tool"><inertial><mass value="0.2"/>'
        '<inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>',
    )
    diff = compare(urdf(text), mjcf())
    assert sorted(diff.codes) == ["body_removed", "frame_added", "total_mass"], str(diff)


# -- tolerance and sampling ----------------------------------------------------------------------------
def test_the_tolerance_is_respected():
    slightly = urdf(edited(ARM_URDF, '<origin xyz="0.2 0 0.4"/>', '<origin xyz="0.2 0 0.4000001"/>'))
    assert compare(urdf(), slightly).agree
    assert compare(urdf(), slightly, tolerance=1e-8).codes == ["pose"]
    heavier = urdf(edited(ARM_URDF, '<mass value="2"/>', '<mass value="2.0000001"/>'))  # 5e-8 relative
    assert compare(urdf(), heavier).agree
    assert compare(urdf(), heavier, tolerance=1e-8).codes == ["mass", "total_mass"]
    wider = urdf(edited(ARM_URDF, 'upper="1" velocity="2"', 'upper="1.0005" velocity="2"'))
    assert compare(urdf(), wider, tolerance=1e-3).agree
    assert not compare(urdf(), wider, tolerance=1e-4).agree


def test_samples_are_deterministic_with_the_seed_and_within_limits():
    one = compare(urdf(), mjcf(), samples=20, seed=7)
    two = compare(urdf(), mjcf(), samples=20, seed=7)
    other = compare(urdf(), mjcf(), samples=20, seed=8)
    assert one.configurations == two.configurations
    assert one.as_dict() == two.as_dict()
    assert one.configurations != other.configurations
    assert len(one.configurations) == 21
    assert one.configurations[0] == {"j1": 0.0, "j2": 0.0}  # the reference
    j1 = [c["j1"] for c in one.configurations[1:]]
    j2 = [c["j2"] for c in one.configurations[1:]]
    assert all(-1 <= v <= 1 for v in j1)
    assert all(-np.pi <= v <= np.pi for v in j2) and max(abs(v) for v in j2) > 1  # unlimited: a turn either way
    assert len(compare(urdf(), mjcf(), samples=0).configurations) == 1


def test_a_pose_difference_names_the_configuration_it_was_seen_at():
    diff = compare(urdf(), urdf(edited(ARM_URDF, '<axis xyz="1 0 0"/>', '<axis xyz="0 0 1"/>')), seed=3)
    pose = next(d for d in diff.differences if d.code == "pose")
    c = pose.details["configuration"]
    assert c in range(1, 9) and set(diff.configurations[c]) == {"j1", "j2"}
    assert f"sample {c}" in pose.message


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        compare(urdf(), urdf(), tolerance=-1)
    with pytest.raises(ValueError):
        compare(urdf(), urdf(), samples=-1)


# -- the report ----------------------------------------------------------------------------------------
def test_the_report_has_one_line_per_difference_and_a_summary():
    diff = compare(mjcf(), mjcf(edited(ARM_MJCF, 'mass="0.5"', 'mass="0.7"')), labels=("a.xml", "b.xml"))
    lines = str(diff).splitlines()
    assert lines[0].startswith("- mass: body 'l2'")
    assert lines[1].startswith("- total_mass:")
    assert lines[-1] == diff.summary()
    assert lines[-1].startswith("a.xml and b.xml differ: 2 differences")
    assert compare(mjcf(), mjcf()).summary().startswith("arm and arm agree")


def test_as_dict_is_json():
    diff = compare(urdf(), urdf(edited(ARM_URDF, '<origin xyz="0.2 0 0.4"/>', '<origin xyz="0.2 0 0.45"/>')))
    data = json.loads(json.dumps(diff.as_dict()))
    assert data["agree"] is False and data["root"] == ["base", "base"]
    assert data["differences"][0]["code"] == "pose"
    assert set(data["differences"][0]) == {"code", "names", "a", "b", "message", "details"}
    assert len(data["configurations"]) == 9
    assert isinstance(diff.differences[0], DiffEntry)


# -- size ----------------------------------------------------------------------------------------------
def chain(count: int, rename: str = "", moved: int | None = None) -> str:
    inertial = (
        '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    )
    parts = ['<robot name="chain">']
    parts += [f'<link name="{rename}l{i}">{inertial}</link>' for i in range(count)]
    for i in range(1, count):
        z = 0.11 if i == moved else 0.1
        parts.append(
            f'<joint name="j{i}" type="revolute"><parent link="{rename}l{i - 1}"/><child link="{rename}l{i}"/>'
            f'<origin xyz="0 0 {z}" rpy="0.01 0 0"/><axis xyz="{"1 0 0" if i % 2 else "0 1 0"}"/>'
            '<limit lower="-0.01" upper="0.01" velocity="1" effort="1"/></joint>'
        )
    parts.append("</robot>")
    return "".join(parts)


def test_a_2000_link_chain_compares_structurally():
    a = urdf(chain(2000))
    same = compare(a, urdf(chain(2000)), samples=4)
    assert same.agree and same.compared == {"bodies": 2000, "joints": 1999, "frames": 0}
    moved = compare(a, urdf(chain(2000, moved=1000)), samples=4)
    assert moved.codes == ["pose"] and moved.differences[0].names == ("l1000",)
    assert moved.differences[0].details["moved_with_it"] == 999
    renamed = compare(a, urdf(chain(2000, rename="r")), samples=1)
    assert renamed.codes == ["body_renamed"] * 2000
    assert renamed.differences[-1].names == ("l1999", "rl1999")


def test_an_mjcf_ref_moved_into_the_urdf_joint_frame_agrees():
    # MJCF stands as written at j1 = ref = 0.3; the URDF writes the same motion with the ref turned
    # into its joint origin. Axes are compared at the shared configuration, not each side's reference.
    inertial = '<inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'
    with_ref = mjcf(
        '<mujoco model="r"><compiler angle="radian"/><worldbody><body name="base">'
        + inertial
        + '<body name="l1" pos="0 0 0.5"><joint name="j1" axis="0 0 1" ref="0.3"/><joint name="j2" axis="1 0 0"/>'
        + inertial
        + "</body></body></worldbody></mujoco>"
    )
    link = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    baked = urdf(
        f'<robot name="r"><link name="base">{link}</link><link name="l1_j1"/><link name="l1">{link}</link>'
        '<joint name="j1" type="continuous"><parent link="base"/><child link="l1_j1"/>'
        '<origin xyz="0 0 0.5" rpy="0 0 -0.3"/><axis xyz="0 0 1"/></joint>'
        '<joint name="j2" type="continuous"><parent link="l1_j1"/><child link="l1"/><axis xyz="1 0 0"/></joint>'
        "</robot>"
    )
    for diff in (compare(with_ref, baked), compare(baked, with_ref)):
        assert diff.agree, str(diff)
    assert compare(with_ref, baked).configurations[0]["j1"] == pytest.approx(0.3)


def test_a_huge_position_limit_is_no_limit():
    unlimited = edited(ARM_MJCF, '<joint name="j2" axis="1 0 0"/>', '<joint name="j2" type="slide" axis="1 0 0"/>')
    huge = edited(
        ARM_MJCF, '<joint name="j2" axis="1 0 0"/>', '<joint name="j2" type="slide" axis="1 0 0" range="-1e9 1e9"/>'
    )
    diff = compare(mjcf(unlimited), mjcf(huge))
    assert diff.agree, str(diff)
    assert all(abs(c["j2"]) <= 1 for c in diff.configurations)  # sampled within a metre, as unlimited


def test_a_free_sdf_root_matches_a_urdf_root_but_not_a_welded_mjcf_body():
    urdf = robodesc.loads(
        '<robot name="r"><link name="base"><inertial><mass value="1"/>'
        '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>',
        format="urdf",
    )
    sdf = robodesc.loads(
        '<sdf version="1.9"><model name="r"><link name="base"><inertial><mass>1</mass>'
        "<inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link></model></sdf>",
        format="sdf",
    )
    mjcf = robodesc.loads(
        '<mujoco model="r"><worldbody><body name="base"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
        "</body></worldbody></mujoco>",
        format="mjcf",
    )
    assert sdf.bodies["base"].floating and not urdf.bodies["base"].floating
    result = compare(urdf, sdf)
    assert result.agree and "root_floating" in [n.code for n in result.notes]
    welded = compare(mjcf, sdf)
    assert "body_floating" in welded.codes  # MJCF welds a body without joints to the world: not free
    with pytest.raises(robodesc.ConfigurationError):
        compare(urdf, sdf, tolerance=-1)


def test_the_worlds_own_shapes_on_a_helper_link_are_a_note_not_an_added_body():
    mjcf = robodesc.loads(
        '<mujoco model="w"><worldbody><geom name="floor" type="plane" size="1 1 0.1"/>'
        '<body name="box" pos="0 0 1"><joint name="j" type="slide" axis="0 0 1"/><geom type="box" size=".1 .1 .1"/>'
        "</body></worldbody></mujoco>",
        format="mjcf",
    )
    sdf = robodesc.loads(robodesc.dumps(mjcf, "sdf"), format="sdf")
    extra = [name for name in sdf.bodies if name not in mjcf.bodies]
    assert len(extra) == 1 and sdf.bodies[extra[0]].collisions  # SDF's world holds no shapes: a link does
    result = compare(mjcf, sdf)
    assert result.agree, str(result)
    assert "world_shapes" in [n.code for n in result.notes]
    moved = robodesc.loads(robodesc.dumps(mjcf, "sdf").replace("<mass>0</mass>", "<mass>2</mass>", 1), format="sdf")
    assert not compare(mjcf, moved).agree  # with a mass of its own it is an added body


def test_an_unnamed_joint_given_a_name_is_a_note():
    unnamed = robodesc.loads(
        '<mujoco model="f"><worldbody><body name="b" pos="0 0 1"><freejoint/><geom size="0.1"/></body></worldbody>'
        "</mujoco>",
        format="mjcf",
    )
    named = robodesc.loads(
        '<mujoco model="f"><worldbody><body name="b" pos="0 0 1"><freejoint name="b_free"/><geom size="0.1"/></body>'
        "</worldbody></mujoco>",
        format="mjcf",
    )
    result = compare(unnamed, named)
    assert result.agree and [n.code for n in result.notes] == ["joint_renamed"]
    renamed = robodesc.loads(robodesc.dumps(named, "mjcf").replace('"b_free"', '"other"'), format="mjcf")
    assert compare(named, renamed).codes == ["joint_renamed"]  # a name the user wrote, changed: a difference


def test_unnamed_free_bodies_match_wherever_their_reference_places_them():
    # Two unnamed free boxes; through URDF their reference placement (the free joint's value at
    # qpos0) is not kept, but they are the same bodies moved by the same joint values.
    mjcf = robodesc.loads(
        '<mujoco model="boxes"><worldbody>'
        '<body pos="1 0 1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>'
        '<body pos="-1 0 1"><freejoint/><geom type="box" size=".1 .2 .1"/></body>'
        "</worldbody></mujoco>",
        format="mjcf",
    )
    back = robodesc.loads(
        robodesc.dumps(robodesc.loads(robodesc.dumps(mjcf, "urdf"), format="urdf"), "mjcf"), format="mjcf"
    )
    result = compare(mjcf, back)
    assert result.agree, str(result)
    assert result.compared["bodies"] == len(mjcf.bodies)
    free = [name for name in back.bodies if name != "world"]
    back.bodies[free[1]].inertial.mass *= 2
    assert not compare(mjcf, back).agree  # a free body with another inertia is not the same body


def test_a_massless_link_holding_the_worlds_frames_is_a_helper():
    world = robodesc.loads(
        '<sdf version="1.9"><world name="w"><frame name="spot"><pose>1 2 3 0 0 0</pose></frame>'
        '<model name="m"><link name="l"><inertial><mass>1</mass></inertial></link></model></world></sdf>',
        format="sdf",
    )
    as_model = robodesc.loads(
        robodesc.dumps(robodesc.loads(robodesc.dumps(world, "mjcf"), format="mjcf"), "sdf"), format="sdf"
    )
    anchors = [b for b in as_model.bodies if b not in world.bodies]
    assert anchors and any(f.body in anchors for f in as_model.frames.values())  # the frame hangs on a new link
    result = compare(world, as_model)
    assert result.agree, str(result)
    assert "helper_body" in [n.code for n in result.notes] and result.compared["frames"] == 1
