"""The SDF checks: what libsdformat loads but is doubtful (robodesc/formats/sdf/checks.py).

Each check is triggered by a small handwritten file and named by its code; a clean file that uses
every feature the checks look at triggers none. Findings carry a location (file, line, element
path) and a suggestion.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import robodesc
from robodesc import DuplicateName, MalformedPose, Severity
from robodesc.cli import main
from robodesc.formats.sdf import robodesc_checks

INERTIAL = "<inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>"


def model(body: str, version: str = "1.9") -> str:
    """A model with two links `a` and `b` (complete inertials) and `body` added to it."""
    return textwrap.dedent(
        f"""\
        <sdf version="{version}">
          <model name="m">
            <link name="a">{INERTIAL}</link>
            <link name="b">{INERTIAL}</link>
            {body}
          </model>
        </sdf>
        """
    )


def findings(text: str, code_prefix: str = "sdf-") -> list[robodesc.Diagnostic]:
    report = robodesc.check(robodesc.loads(text, format="sdf"))
    return [d for d in report.diagnostics if d.code.startswith(code_prefix)]


def only(text: str, code: str, severity: Severity = Severity.WARNING) -> robodesc.Diagnostic:
    """The one SDF finding of `text`, which must have `code` and `severity`, a line and a suggestion."""
    found = findings(text)
    assert [d.code for d in found] == [code], [str(d) for d in found]
    finding = found[0]
    assert finding.severity is severity
    assert finding.location.line is not None and finding.location.element
    assert finding.suggestion
    return finding


# =====================================================================================================
# A clean file triggers nothing
# =====================================================================================================

CLEAN = f"""\
<?xml version="1.0"?>
<sdf version="1.11">
  <world name="w">
    <plugin filename="gz-sim-physics-system" name="gz::sim::systems::Physics"/>
    <light name="sun" type="directional">
      <pose relative_to="robot::base">0 0 10 0 0 0</pose>
    </light>
    <model name="robot">
      <pose degrees="true">0 0 0.5 0 0 90</pose>
      <link name="base">
        {INERTIAL}
        <collision name="c"><geometry><box><size>0.4 0.3 0.1</size></box></geometry></collision>
        <visual name="v"><geometry><box><size>0.4 0.3 0.1</size></box></geometry></visual>
        <visual name="poly"><geometry>
          <polyline><point>0 0</point><point>1 0</point><point>0 1</point><height>0.1</height></polyline>
          <polyline><point>0 0</point><point>1 1</point><point>0 1</point><height>0.1</height></polyline>
        </geometry></visual>
        <sensor name="imu" type="imu"><update_rate>100</update_rate><pose relative_to="arm">0 0 0 0 0 0</pose></sensor>
        <sensor name="cam" type="camera">
          <pose rotation_format="quat_xyzw">0 0 0.1 0 0 0.7071068 0.7071068</pose>
          <update_rate>30</update_rate>
        </sensor>
      </link>
      <link name="arm">
        <pose relative_to="base">0 0 0.1 0 0 1.5708</pose>
        <inertial auto="true"><density>500</density></inertial>
        <collision name="c">
          <geometry><cylinder><radius>0.02</radius><length>0.3</length></cylinder></geometry>
        </collision>
        <visual name="v"><geometry><cone><radius>0.02</radius><length>0.3</length></cone></geometry></visual>
      </link>
      <link name="wheel">
        {INERTIAL}
        <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
      </link>
      <link name="wrist">{INERTIAL}</link>
      <joint name="shoulder" type="revolute">
        <parent>base</parent><child>arm</child>
        <axis><xyz expressed_in="__model__">0 0.6 0.8</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
      </joint>
      <joint name="spin" type="continuous">
        <parent>base</parent><child>wheel</child>
        <axis><xyz>0 1 0</xyz><limit><effort>10</effort><velocity>5</velocity></limit></axis>
      </joint>
      <joint name="cross" type="universal">
        <parent>arm</parent><child>wrist</child>
        <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>
        <sensor name="ft" type="force_torque"><update_rate>0</update_rate></sensor>
      </joint>
      <frame name="tool" attached_to="wrist"><pose>0 0 0.05 0 0 0</pose></frame>
      <plugin filename="gz-sim-joint-state-publisher-system" name="gz::sim::systems::JointStatePublisher">
        <anything filename="" name="">free-form</anything>
      </plugin>
    </model>
    <model name="ground">
      <static>true</static>
      <link name="l">
        <collision name="c"><geometry><plane><normal>0 0 1</normal><size>10 10</size></plane></geometry></collision>
        <visual name="v"><geometry><empty/></geometry></visual>
      </link>
    </model>
  </world>
</sdf>
"""


def test_a_clean_file_triggers_no_finding_at_all(tmp_path):
    path = tmp_path / "clean.sdf"
    path.write_text(CLEAN)
    report = robodesc.check(path)
    assert report.loaded
    assert [str(d) for d in report.diagnostics] == []
    assert not report.failed and not robodesc.check(path, strict=True).failed


# =====================================================================================================
# The document and names
# =====================================================================================================


def test_an_sdf_element_with_nothing_to_load():
    only('<sdf version="1.9">\n  <unknown_thing/>\n</sdf>\n', "sdf-empty-document")
    only('<sdf version="1.9"></sdf>', "sdf-empty-document")


@pytest.mark.parametrize(
    "body",
    [
        '<frame name=""/>',
        '<link name="c"><visual name=" "><geometry><box><size>1 1 1</size></box></geometry></visual></link>',
        '<link name="c"><collision name=""><geometry><sphere><radius>1</radius></sphere></geometry></collision></link>',
        '<link name="c"><sensor name="" type="imu"/></link>',
        '<link name="c"><light name="" type="point"/></link>',
    ],
)
def test_empty_names_are_errors(body):
    finding = only(model(body), "sdf-empty-name", Severity.ERROR)
    assert "empty name" in finding.message


def test_an_empty_world_or_model_name_is_an_error():
    only('<sdf version="1.9"><world name=""/></sdf>', "sdf-empty-name", Severity.ERROR)
    only('<sdf version="1.9"><model name=""><link name="a"/></model></sdf>', "sdf-empty-name", Severity.ERROR)


def test_a_nested_model_with_an_empty_name_is_rejected_its_links_could_not_be_named():
    for text in (
        model('<model name=""><link name="x"/></model>'),
        '<sdf version="1.9"><world name="w"><model name=""><link name="a"/></model></world></sdf>',
    ):
        with pytest.raises(robodesc.InvalidValue) as info:
            robodesc.loads(text, format="sdf")
        assert info.value.construct == "model/@name" and info.value.line is not None


def test_sensors_of_a_joint_need_distinct_names_as_in_libsdformat():
    with pytest.raises(DuplicateName) as info:
        robodesc.loads(
            model(
                '<joint name="j" type="fixed"><parent>a</parent><child>b</child>'
                '<sensor name="s" type="force_torque"/>\n<sensor name="s" type="force_torque"/></joint>'
            ),
            format="sdf",
        )
    assert info.value.line == 6 and info.value.construct == "s"


# =====================================================================================================
# Poses
# =====================================================================================================


def test_a_quaternion_that_is_not_unit():
    finding = only(
        model('<frame name="f"><pose rotation_format="quat_xyzw">0 0 0 0 0 0 2</pose></frame>'),
        "sdf-quaternion-not-normalized",
    )
    assert "frame 'f'" in finding.message and "length 2" in finding.message
    assert finding.location.element.endswith("/frame[@name='f']/pose")
    # rounding in the last written digit is not worth a warning
    rounded = '<frame name="f"><pose rotation_format="quat_xyzw">0 0 0 0 0 0.707 0.707</pose></frame>'
    assert findings(model(rounded)) == []


def test_angles_that_look_like_degrees_without_degrees_true():
    finding = only(model('<frame name="f"><pose>0 0 0 0 0 90</pose></frame>'), "sdf-angle-units")
    assert "90 looks like degrees" in finding.message and 'degrees="true"' in finding.suggestion
    # radians beyond a turn that are not round numbers are left alone
    assert findings(model('<frame name="f"><pose>0 0 0 -5.75943 -11.7811 5.23583</pose></frame>')) == []


def test_angles_that_look_like_radians_with_degrees_true():
    finding = only(model('<frame name="f"><pose degrees="true">0 0 0 0 0 1.5708</pose></frame>'), "sdf-angle-units")
    assert "looks like radians" in finding.message and "90" in finding.suggestion
    assert findings(model('<frame name="f"><pose degrees="true">0 0 0 0 45 3</pose></frame>')) == []


def test_an_attribute_newer_than_the_declared_version():
    finding = only(
        model('<frame name="f"><pose degrees="true">0 0 0 0 0 90</pose></frame>', version="1.7"),
        "sdf-newer-than-version",
    )
    assert "@degrees" in finding.message and "1.9" in finding.suggestion
    only(model('<frame name="f" attached_to="a"/>', version="1.6"), "sdf-newer-than-version")
    assert findings(model('<frame name="f" attached_to="a"/>', version="1.7")) == []


@pytest.mark.parametrize("owner", ["sensor name='s' type='imu'", "light name='s' type='point'"])
def test_a_pose_relative_to_nothing_in_a_sensor_or_light(owner):
    tag = owner.split()[0]
    text = model(f'<link name="c"><{owner}><pose relative_to="nowhere">0 0 0 0 0 0</pose></{tag}></link>')
    finding = only(text, "sdf-unresolved-frame")
    assert "'nowhere'" in finding.message and "model 'm'" in finding.message


def test_poses_relative_to_frames_that_exist_are_fine_scoped_names_too():
    nested = '<model name="n"><link name="x"/></model>'
    for ref in ("a", "__model__", "n", "n::x", "n::__model__"):
        sensor_el = f'<sensor name="s" type="imu"><pose relative_to="{ref}"/></sensor>'
        assert findings(model(f'{nested}<link name="c">{sensor_el}</link>')) == [], ref
    sensor_el = '<sensor name="s" type="imu"><pose relative_to="n::y"/></sensor>'
    assert findings(model(f'{nested}<link name="c">{sensor_el}</link>'))


def test_a_world_light_relative_to_nothing():
    text = (
        '<sdf version="1.9"><world name="w"><light name="l" type="point"><pose relative_to="m::nope">0 0 1 0 0 0</pose>'
        '</light><model name="m"><static>true</static><link name="a"/></model></world></sdf>'
    )
    finding = only(text, "sdf-unresolved-frame")
    assert "world 'w'" in finding.message


def test_a_malformed_sensor_pose_is_rejected_as_libsdformat_does():
    text = model('<link name="c"><sensor name="s" type="imu"><pose>0 0 0 0 0</pose></sensor></link>')
    with pytest.raises(MalformedPose):
        robodesc.loads(text, format="sdf")


# =====================================================================================================
# Joints
# =====================================================================================================


def joint(kind: str, inner: str) -> str:
    return model(f'<joint name="j" type="{kind}"><parent>a</parent><child>b</child>{inner}</joint>')


def test_an_axis_that_is_not_unit():
    finding = only(joint("revolute", "<axis><xyz>0 0 2</xyz></axis>"), "sdf-axis-not-unit")
    assert "length 2" in finding.message and "0 0 1" in finding.suggestion
    assert finding.location.element.endswith("/axis/xyz")
    only(joint("universal", "<axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 3 4</xyz></axis2>"), "sdf-axis-not-unit")


@pytest.mark.parametrize(
    "kind, inner",
    [
        ("revolute", "<axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>"),
        ("prismatic", "<axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>"),
        ("fixed", "<axis><xyz>0 0 1</xyz></axis>"),
        ("ball", "<axis><xyz>0 0 1</xyz></axis>"),
    ],
)
def test_an_axis_the_joint_type_does_not_use(kind, inner):
    only(joint(kind, inner), "sdf-axis-ignored")


def test_two_axis_joints_use_axis2():
    for kind in ("universal", "revolute2", "gearbox"):
        assert findings(joint(kind, "<axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2>")) == [], kind


def test_a_continuous_joint_with_finite_position_limits():
    finding = only(
        joint("continuous", "<axis><xyz>0 0 1</xyz><limit><lower>-3.14</lower><upper>3.14</upper></limit></axis>"),
        "sdf-continuous-with-limits",
    )
    assert "lower -3.14" in finding.message and "revolute" in finding.suggestion
    no_limits = "<axis><xyz>0 0 1</xyz><limit><lower>-1e16</lower><upper>1e16</upper><effort>1</effort></limit></axis>"
    assert findings(joint("continuous", no_limits)) == []


def test_inverted_limits_and_zero_axes_are_left_to_the_format_neutral_check_and_the_reader():
    report = robodesc.check(
        robodesc.loads(
            joint("revolute", "<axis><xyz>0 0 1</xyz><limit><lower>1</lower><upper>-1</upper></limit></axis>"),
            format="sdf",
        )
    )
    assert [d.code for d in report.diagnostics] == ["limits-inverted"]
    with pytest.raises(robodesc.InvalidValue):
        robodesc.loads(joint("revolute", "<axis><xyz>0 0 0</xyz></axis>"), format="sdf")


# =====================================================================================================
# Geometry
# =====================================================================================================


def shape(geometry: str, kind: str = "visual") -> str:
    return model(f'<link name="c"><{kind} name="v"><geometry>{geometry}</geometry></{kind}></link>')


def test_a_geometry_with_several_shapes_uses_libsdformats_choice():
    text = shape("<sphere><radius>1</radius></sphere><box><size>1 2 3</size></box>")
    finding = only(text, "sdf-several-shapes")
    assert "uses the box" in finding.message
    loaded = robodesc.loads(text, format="sdf")
    assert isinstance(loaded.bodies["c"].visuals[0].geometry, robodesc.Box)  # as libsdformat's Geometry::Load


def test_a_geometry_without_a_shape():
    finding = only(shape(""), "sdf-empty-geometry")
    assert "visual 'v'" in finding.message
    assert "<boxx>" in only(shape("<boxx/>"), "sdf-empty-geometry").message
    assert findings(shape("<empty/>")) == []


@pytest.mark.parametrize(
    "geometry",
    [
        "<cone><radius>0</radius><length>1</length></cone>",
        "<plane><normal>0 0 1</normal><size>0 10</size></plane>",
        "<capsule><radius>1</radius><length>-1</length></capsule>",
        "<polyline><point>0 0</point><point>1 0</point><height>0</height></polyline>",
    ],
)
def test_sizes_the_format_neutral_check_cannot_see(geometry):
    report = robodesc.check(robodesc.loads(shape(geometry), format="sdf"))
    assert [d.code for d in report.diagnostics] == ["non-positive-size"]


def test_a_zero_box_is_reported_once_by_the_format_neutral_check():
    report = robodesc.check(robodesc.loads(shape("<box><size>0 1 1</size></box>", "collision"), format="sdf"))
    assert [d.code for d in report.diagnostics] == ["shape-size"]


# =====================================================================================================
# Sensors and plugins
# =====================================================================================================


def sensor(inner: str, kind: str = "imu") -> str:
    return model(f'<link name="c"><sensor name="s" type="{kind}">{inner}</sensor></link>')


def test_a_sensor_type_libsdformat_does_not_know():
    finding = only(sensor("", "camra"), "sdf-unknown-sensor-type", Severity.ERROR)
    assert "'camra'" in finding.message and "'camera'" in finding.suggestion
    only(joint("fixed", '<sensor name="s" type=""/>'), "sdf-unknown-sensor-type", Severity.ERROR)
    for kind in ("camera", "gpu_lidar", "ray", "navsat", "wideanglecamera", "boundingbox_camera", "custom"):
        assert findings(sensor("", kind)) == [], kind


@pytest.mark.parametrize("rate, read", [("-5", "read as -5"), ("inf", ""), ("nan", ""), ("30 Hz", "read as 30")])
def test_a_sensor_update_rate_that_is_negative_or_not_a_plain_number(rate, read):
    finding = only(sensor(f"<update_rate>{rate}</update_rate>"), "sdf-sensor-update-rate")
    assert repr(rate) in finding.message and read in finding.message
    assert finding.location.element.endswith("/sensor[@name='s']/update_rate")


def test_a_sensor_update_rate_that_is_no_number_at_all_is_rejected_by_the_reader():
    with pytest.raises(robodesc.MalformedValue):
        robodesc.loads(sensor("<update_rate>fast</update_rate>"), format="sdf")


def test_a_plugin_with_an_empty_filename_or_name():
    only(model('<plugin filename="" name="p"/>'), "sdf-empty-plugin-filename")
    only(model('<plugin filename="libp.so" name=" "/>'), "sdf-empty-plugin-name")
    found = findings(model('<link name="c"><sensor name="s" type="imu"><plugin filename="" name=""/></sensor></link>'))
    assert sorted(d.code for d in found) == ["sdf-empty-plugin-filename", "sdf-empty-plugin-name"]


def test_the_content_of_plugins_and_custom_elements_is_not_checked():
    text = model(
        '<plugin filename="p" name="p"><pose>0 0 0 0 0 90</pose><sensor type="x" name=""/></plugin>'
        "<ns:thing><pose>0 0 0 0 0 90</pose></ns:thing>"
    )
    assert findings(text) == []


# =====================================================================================================
# Inertials (the hook: it needs the loaded model)
# =====================================================================================================


def test_a_moving_link_with_an_inertial_but_no_inertia():
    text = model(
        '<link name="c"><inertial><mass>2</mass></inertial></link>'
        '<joint name="j" type="revolute"><parent>a</parent><child>c</child><axis><xyz>0 0 1</xyz></axis></joint>'
    )
    finding = only(text, "sdf-default-inertia")
    assert "link 'c'" in finding.message and "without <inertia>" in finding.message
    assert "ixx = iyy = izz = 1" in finding.message and "auto" in finding.suggestion


def test_a_moving_part_of_a_mechanism_without_any_inertial():
    part = '<link name="c"><collision name="k"><geometry><box><size>1 1 1</size></box></geometry></collision></link>'
    moves = '<joint name="j" type="prismatic"><parent>a</parent><child>c</child><axis><xyz>0 0 1</xyz></axis></joint>'
    finding = only(model(part + moves), "sdf-default-inertia")
    assert "no <inertial>" in finding.message and "mass 1 kg" in finding.message


def test_links_that_do_not_move_or_are_no_part_may_omit_the_inertial():
    part = '<link name="c"><collision name="k"><geometry><box><size>1 1 1</size></box></geometry></collision></link>'
    fixed_to_world = '<joint name="j" type="fixed"><parent>world</parent><child>a</child></joint>'
    welded = '<joint name="k" type="fixed"><parent>a</parent><child>c</child></joint>'
    assert findings(model(part + fixed_to_world + welded)) == []  # welded to the world: nothing moves
    assert findings(model("<static>true</static>" + part.replace('"c"', '"d"'))) == []
    bare = '<link name="bare"/><joint name="j" type="revolute"><parent>a</parent><child>bare</child></joint>'
    assert findings(model(bare)) == []  # a frame-like link
    assert findings(model(part)) == []  # a lone free body: its default inertial is deliberate


def test_a_link_included_many_times_is_reported_once(tmp_path):
    (tmp_path / "part.sdf").write_text(
        model(
            '<link name="c"><inertial><mass>2</mass></inertial></link>'
            '<joint name="j" type="revolute"><parent>a</parent><child>c</child><axis><xyz>0 0 1</xyz></axis></joint>'
        )
    )
    includes = "".join(f"<include><uri>part.sdf</uri><name>p{i}</name></include>" for i in range(3))
    (tmp_path / "world.sdf").write_text(f'<sdf version="1.9"><world name="w">{includes}</world></sdf>')
    found = [d for d in robodesc.check(tmp_path / "world.sdf").diagnostics if d.code.startswith("sdf-")]
    assert len(found) == 1 and "2 more instances" in found[0].message
    assert found[0].location.file == str(tmp_path / "part.sdf") and found[0].location.line == 5


def test_a_free_link_of_mass_zero():
    text = model(
        '<link name="c"><inertial><mass>0</mass><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia>'
        "</inertial></link>"
    )
    finding = only(text, "sdf-massless-free-link")
    assert "link 'c'" in finding.message


def test_the_hook_leaves_other_formats_alone():
    urdf = robodesc.loads('<robot name="r"><link name="a"/></robot>', format="urdf")
    assert robodesc_checks(urdf) == []


# =====================================================================================================
# Where findings point, and the command
# =====================================================================================================


def test_findings_name_file_line_and_element(tmp_path):
    path = tmp_path / "m.sdf"
    path.write_text(model('<link name="c">\n<sensor name="s" type="imu"><update_rate>-1</update_rate></sensor></link>'))
    (finding,) = [d for d in robodesc.check(path).diagnostics if d.code.startswith("sdf-")]
    assert finding.location.file == str(path)
    assert finding.location.line == 6
    assert finding.location.element == "/sdf/model[@name='m']/link[@name='c']/sensor[@name='s']/update_rate"
    assert str(path) + ":6" in str(finding)


def test_the_command_fails_on_an_sdf_error_finding_and_filters_by_prefix(tmp_path, capsys):
    path = tmp_path / "m.sdf"
    path.write_text(sensor("<update_rate>-1</update_rate>", "camra"))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error sdf-unknown-sensor-type" in out and "warning sdf-sensor-update-rate" in out
    assert main(["check", "--json", "--ignore", "sdf-unknown", str(path)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in payload["files"][0]["diagnostics"]] == ["sdf-sensor-update-rate"]
