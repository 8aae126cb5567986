"""robodesc-xacro as a user meets it: installed through its entry point, loading .xacro files the
tests write, through the API and the command line, with robodesc's resolver and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from xacro_workspace import _no_plugin_crash, workspace_fixture  # noqa: F401 - fixtures, found by name

import robodesc
from robodesc.cli import main

XACRO_NS = 'xmlns:xacro="http://www.ros.org/wiki/xacro"'


def env_path(*folders: str | Path) -> str:
    """Folders as an environment variable lists them."""
    return os.pathsep.join(str(f) for f in folders)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


# -- found through the entry point, like any third party's plugin ------------------------------------
def test_the_plugin_is_installed_through_its_entry_point() -> None:
    info = {p.name: p for p in robodesc.list_plugins()}["xacro"]
    assert info.status == "active" and not info.builtin
    assert info.distribution == "robodesc-xacro" and info.formats == ["xacro"]
    spec = {f.name: f for f in robodesc.formats()}["xacro"]
    assert ".urdf.xacro" in spec.extensions and ".xacro" in spec.extensions


# -- macros, includes across packages, args, math, conditionals --------------------------------------
def test_macros_includes_args_math_and_conditionals(workspace: dict[str, Path]) -> None:
    model = robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]])
    assert model.source == str(workspace["robot"])
    assert list(model.bodies) == ["base", "upper", "fore", "gripper"]  # gripper: with_gripper defaults to true
    upper, fore = model.joints["upper_joint"], model.joints["fore_joint"]
    assert upper.parent == "base" and fore.parent == "upper"
    np.testing.assert_allclose(upper.origin[:3, 3], [0, 0, 0.1])  # <xacro:insert_block> of the caller's origin
    np.testing.assert_allclose(fore.origin[:3, 3], [0, 0, 0.4])  # $(arg arm_length) default
    assert fore.limits.lower == pytest.approx(-np.pi / 2) and fore.limits.upper == pytest.approx(np.pi / 2)
    # ${segment_mass * length**2 / 12}, with the fore arm half as long: ${$(arg arm_length) / 2}
    assert model.bodies["fore"].inertial.mass == pytest.approx(1.0)
    assert model.bodies["fore"].inertial.inertia[0, 0] == pytest.approx(1.0 * 0.2**2 / 12)
    np.testing.assert_allclose(model.pose("gripper")[:3, 3], [0, 0, 0.1 + 0.4 + 0.2])
    # meshes resolve through the same resolver: package:// of both packages
    base_mesh = model.bodies["base"].visuals[0].geometry
    segment_mesh = model.bodies["upper"].visuals[0].geometry
    assert base_mesh.path == str(workspace["robot_package"] / "meshes" / "base.stl")  # the source-tree walk
    assert segment_mesh.path == str(workspace["parts"] / "meshes" / "segment.stl")  # search_paths
    assert not [d for d in model.diagnostics if d.code == "mesh-not-found"]


def test_args_override_defaults(workspace: dict[str, Path]) -> None:
    model = robodesc.load(
        workspace["robot"],
        search_paths=[workspace["parts_root"]],
        args={"prefix": "left_", "with_gripper": "false", "arm_length": "1.0"},
    )
    assert list(model.bodies) == ["left_base", "left_upper", "left_fore"]  # <xacro:if> false: no gripper
    np.testing.assert_allclose(model.pose("left_fore")[:3, 3], [0, 0, 1.1])
    assert model.bodies["left_fore"].visuals[0].geometry.scale == pytest.approx([1, 1, 0.5])


def test_args_of_the_wrong_kind_are_invalid_arguments(workspace: dict[str, Path]) -> None:
    for wrong in (["prefix"], {"arm_length": 1.0}, "prefix:=x"):
        with pytest.raises(robodesc.InvalidArgument, match="args"):
            robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]], args=wrong)


def test_a_package_found_through_a_relative_search_path(
    workspace: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative search path is the current folder's, as for `package://`; the include `$(find)` leads to
    is not read from the including file's folder."""
    monkeypatch.chdir(workspace["tmp"])
    model = robodesc.load(workspace["robot"], search_paths=["vendor"])
    assert "upper" in model.bodies and "fore" in model.bodies


def test_a_package_found_through_ros_package_path(workspace: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROS_PACKAGE_PATH", env_path(workspace["tmp"] / "elsewhere", workspace["parts_root"]))
    model = robodesc.load(workspace["robot"])
    assert model.bodies["upper"].visuals[0].geometry.path == str(workspace["parts"] / "meshes" / "segment.stl")


def test_a_package_found_through_ament_prefix_path(workspace: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = workspace["tmp"] / "install"
    (prefix / "share").mkdir(parents=True)
    os.symlink(workspace["parts"], prefix / "share" / "arm_parts")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    model = robodesc.load(workspace["robot"])
    assert "fore" in model.bodies


def test_a_missing_package_lists_every_place_tried(workspace: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(workspace["tmp"] / "ros"))
    with pytest.raises(robodesc.ResourceNotFound) as caught:
        robodesc.load(workspace["robot"], search_paths=[workspace["tmp"] / "mine"])
    error = caught.value
    assert "$(find arm_parts)" in str(error)
    assert error.file == str(workspace["robot"]) and error.line == 8  # the <xacro:include> naming it
    assert str(workspace["tmp"] / "mine" / "arm_parts") in error.tried  # search path
    assert str(workspace["tmp"] / "ros" / "arm_parts") in error.tried  # ROS_PACKAGE_PATH
    assert str(workspace["robot_package"].parent / "arm_parts") in error.tried  # the source-tree walk


def test_relative_includes_and_text_given_to_loads(tmp_path: Path) -> None:
    write(
        tmp_path / "parts" / "wheel.xacro",
        f"""
        <robot {XACRO_NS}>
          <xacro:macro name="wheel" params="side y">
            <link name="${{side}}_wheel"/>
            <joint name="${{side}}_axle" type="continuous">
              <parent link="chassis"/><child link="${{side}}_wheel"/>
              <origin xyz="0 ${{y}} 0"/><axis xyz="0 1 0"/>
            </joint>
          </xacro:macro>
        </robot>
        """,
    )
    text = f"""<robot name="cart" {XACRO_NS}>
      <xacro:include filename="parts/wheel.xacro"/>
      <link name="chassis"/>
      <xacro:wheel side="left" y="0.3"/>
      <xacro:wheel side="right" y="${{-0.3}}"/>
    </robot>"""
    model = robodesc.loads(text, format="xacro", base_dir=tmp_path)
    assert set(model.joints) == {"left_axle", "right_axle"}
    np.testing.assert_allclose(model.pose("right_wheel")[:3, 3], [0, -0.3, 0])


# -- errors in the file the user wrote --------------------------------------------------------------
def test_an_undefined_property_in_a_macro_call_is_located_at_the_call(workspace: dict[str, Path]) -> None:
    bad = write(
        workspace["robot"].parent / "bad.urdf.xacro",
        f"""
        <robot name="b" {XACRO_NS}>
          <xacro:include filename="$(find arm_parts)/urdf/arm.xacro"/>
          <link name="base"/>
          <xacro:arm_segment prefix="" name="upper" parent="base" length="${{undefined_length}}">
            <origin xyz="0 0 0"/>
          </xacro:arm_segment>
        </robot>
        """,
    )
    with pytest.raises(robodesc.UnresolvedReference, match="undefined_length") as caught:
        robodesc.load(bad, search_paths=[workspace["parts_root"]])
    assert (caught.value.file, caught.value.line) == (str(bad), 4)
    assert not isinstance(caught.value.__cause__, robodesc.RobodescError)  # xacro's exception kept as the cause


def test_a_urdf_error_made_by_a_macro_names_the_macro_body_and_the_call(tmp_path: Path) -> None:
    bad = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="b" {XACRO_NS}>
          <xacro:macro name="hinge" params="kind">
            <joint name="j" type="${{kind}}">
              <parent link="base"/><child link="c"/>
            </joint>
          </xacro:macro>
          <link name="base"/>
          <link name="c"/>

          <xacro:hinge kind="hinge"/>
        </robot>
        """,
    )
    with pytest.raises(robodesc.UnsupportedJointType) as caught:
        robodesc.load(bad)
    error = caught.value
    assert (error.file, error.line) == (str(bad), 3)  # the <joint> in the macro body, not the expanded text
    assert f"called at {bad}:10" in str(error)
    assert "<expanded xacro>" not in str(error)


def test_a_bad_expression_is_located_at_its_element(tmp_path: Path) -> None:
    bad = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="b" {XACRO_NS}>
          <link name="base">
            <inertial>
              <mass value="${{1/0}}"/>
            </inertial>
          </link>
        </robot>
        """,
    )
    with pytest.raises(robodesc.InvalidValue, match="division by zero") as caught:
        robodesc.load(bad)
    assert (caught.value.file, caught.value.line) == (str(bad), 4)


def test_an_unset_arg_suggests_passing_it(tmp_path: Path) -> None:
    bad = write(tmp_path / "robot.urdf.xacro", f'<robot name="b" {XACRO_NS}>\n  <link name="$(arg side)"/>\n</robot>\n')
    with pytest.raises(robodesc.UnresolvedReference, match=r"\$\(arg side\)") as caught:
        robodesc.load(bad)
    assert caught.value.line == 2 and "--arg side:=VALUE" in caught.value.suggestion
    assert list(robodesc.load(bad, args={"side": "left"}).bodies) == ["left"]


def test_a_missing_include_is_resource_not_found(tmp_path: Path) -> None:
    bad = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="b" {XACRO_NS}>
          <link name="base"/>
          <xacro:include filename="nowhere.xacro"/>
        </robot>
        """,
    )
    with pytest.raises(robodesc.ResourceNotFound) as caught:
        robodesc.load(bad)
    assert caught.value.line == 3 and str(tmp_path / "nowhere.xacro") in caught.value.tried


def test_a_file_that_includes_itself(tmp_path: Path) -> None:
    text = f'<robot name="b" {XACRO_NS}>\n  <xacro:include filename="loop.xacro"/>\n</robot>\n'
    bad = write(tmp_path / "loop.xacro", text)
    with pytest.raises(robodesc.CyclicInclude):
        robodesc.load(bad)


def test_macros_expanding_without_end_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBODESC_MAX_ELEMENTS", "1000")
    doubling = "\n".join(
        f'  <xacro:macro name="m{i}"><xacro:m{i - 1}/><xacro:m{i - 1}/></xacro:macro>' for i in range(1, 30)
    )
    bad = write(
        tmp_path / "bomb.xacro",
        f'<robot name="b" {XACRO_NS}>\n  <xacro:macro name="m0"><link name="x"/></xacro:macro>\n'
        f"{doubling}\n  <xacro:m29/>\n</robot>\n",
    )
    with pytest.raises(robodesc.ResourceNotFound, match="more than 1000 elements"):  # ResourceRefused
        robodesc.load(bad)


# -- XML safety and confinement ---------------------------------------------------------------------
def test_entity_declarations_and_doctypes_are_refused_in_includes_too(tmp_path: Path) -> None:
    write(
        tmp_path / "evil.xacro",
        """
        <!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
        <robot><link name="&b;"/></robot>
        """,
    )
    write(tmp_path / "attlist.xacro", '<!DOCTYPE robot [<!ATTLIST link name CDATA "x">]>\n<robot><link/></robot>\n')
    for evil in ("evil.xacro", "attlist.xacro"):
        text = f'<robot name="t" {XACRO_NS}>\n  <xacro:include filename="{evil}"/>\n</robot>\n'
        text = f'<robot name="t" {XACRO_NS}>\n  <xacro:include filename="{evil}"/>\n</robot>\n'
        top = write(tmp_path / "top.xacro", text)
        with pytest.raises(robodesc.UnsafeXML) as caught:
            robodesc.load(top)
        assert caught.value.file == str(tmp_path / evil)


def test_confine_holds_for_what_xacro_includes(workspace: dict[str, Path], tmp_path: Path) -> None:
    outside = write(
        tmp_path / "secret" / "parts.xacro",
        f'<robot {XACRO_NS}><link name="secret"/><joint name="j" type="fixed">'
        '<parent link="base"/><child link="secret"/></joint></robot>\n',
    )
    inside = write(
        tmp_path / "robot" / "robot.urdf.xacro",
        f'<robot name="r" {XACRO_NS}>\n  <link name="base"/>\n  <xacro:include filename="{outside}"/>\n</robot>\n',
    )
    assert "secret" in robodesc.load(inside).bodies
    with pytest.raises(robodesc.ResourceNotFound, match="outside the folders") as caught:  # ResourceRefused
        robodesc.load(inside, confine=True)
    assert caught.value.line == 3
    # $(find) may not lead out either: the package is found only inside the search paths given
    with pytest.raises(robodesc.ResourceNotFound):
        robodesc.load(workspace["robot"], confine=True)
    assert robodesc.load(workspace["robot"], confine=True, search_paths=[workspace["parts_root"]]).bodies


def test_xacro_state_is_restored_and_expansions_are_serialised(workspace: dict[str, Path]) -> None:
    import xml.dom.minidom as minidom

    import xacro
    import xacro.substitution_args

    before = (xacro.parse, xacro.eval_all, xacro.substitution_args._eval_find, minidom._clone_node, xacro.filestack)
    errors: list[BaseException] = []

    def load(prefix: str) -> None:
        try:
            model = robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]], args={"prefix": prefix})
            assert list(model.bodies)[0] == f"{prefix}base"
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(f"t{i}_",)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    after = (xacro.parse, xacro.eval_all, xacro.substitution_args._eval_find, minidom._clone_node, xacro.filestack)
    assert after == before and "open" not in vars(xacro)
    assert xacro.substitution_args._eval_dict["find"] is xacro.substitution_args._eval_find
    assert xacro.substitution_args_context.get("arg", {}) == {}


# -- the command line --------------------------------------------------------------------------------
def test_the_cli_reads_xacro_with_args(workspace: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--search-path", str(workspace["parts_root"]), "--arg", "prefix:=right_", "--arg", "with_gripper:=false"]
    assert main(["info", str(workspace["robot"]), "--json", *common]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["counts"]["bodies"] == 3 and facts["root"] == "right_base"  # no gripper
    assert facts["source"] == str(workspace["robot"]) and facts["format"] == "urdf"
    assert main(["tree", str(workspace["robot"]), *common]) == 0
    tree = capsys.readouterr().out
    assert "right_base" in tree and "right_fore" in tree and "gripper" not in tree
    assert main(["fk", str(workspace["robot"]), "--json", "--frame", "right_fore", *common]) == 0
    poses = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(np.array(poses["right_fore"])[:3, 3], [0, 0, 0.5])
    assert main(["check", str(workspace["robot"]), *common]) == 0


def test_check_of_a_folder_leaves_out_files_of_macros_for_others(
    workspace: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A package's urdf/ folder holds the robot and the macro files it includes: walking it checks
    the robot, not each macro file (alone they describe no robot); named alone, one is checked."""
    urdf = workspace["robot_package"] / "urdf"
    (urdf / "arm.xacro").write_text((workspace["parts"] / "urdf" / "arm.xacro").read_text())  # macros only
    write(urdf / "broken.xacro", f"<robot {XACRO_NS}><xacro:property name='x' value='1'/>")
    write(urdf / "calls.xacro", f"<robot {XACRO_NS}><xacro:include filename='arm.xacro'/><xacro:arm_segment/></robot>")
    assert main(["check", "--json", str(urdf), "--search-path", str(workspace["parts_root"])]) != 0
    report = json.loads(capsys.readouterr().out)
    checked = {Path(entry["file"]).name: entry for entry in report["files"]}
    assert set(checked) == {"robot.urdf.xacro", "broken.xacro", "calls.xacro"}  # not arm.xacro
    assert not checked["robot.urdf.xacro"]["failed"]
    assert checked["broken.xacro"]["failed"] and checked["calls.xacro"]["failed"]  # not well-formed; a bad call
    assert main(["check", str(urdf / "arm.xacro")]) != 0  # named on its own: checked, and no robot
    assert "arm.xacro" in capsys.readouterr().out


def test_the_cli_refuses_an_arg_not_spelt_as_xacro_spells_it(
    workspace: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["info", str(workspace["robot"]), "--arg", "prefix=left_"])
    assert caught.value.code == 2 and "NAME:=VALUE" in capsys.readouterr().err


def test_the_cli_reports_a_missing_package_with_where_it_looked(
    workspace: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(workspace["robot"])]) != 0
    err = capsys.readouterr().err
    assert "arm_parts" in err and "tried" in err and f"{workspace['robot']}:8" in err


def test_convert_xacro_to_mjcf(workspace: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "robot.xml"
    out.parent.mkdir()
    code = main(
        [
            "convert",
            str(workspace["robot"]),
            "-o",
            str(out),
            "--search-path",
            str(workspace["parts_root"]),
            "--arg",
            "prefix:=l_",
        ]
    )
    assert code == 0, capsys.readouterr()
    converted = robodesc.load(out)
    assert converted.format == "mjcf" and {"l_base", "l_upper", "l_fore", "l_gripper"} <= set(converted.bodies)
    original = robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]], args={"prefix": "l_"})
    values = {"l_upper_joint": 0.3, "l_fore_joint": -0.7}
    np.testing.assert_allclose(converted.pose("l_gripper", values), original.pose("l_gripper", values), atol=1e-9)


# -- the same URDF as the xacro command makes ------------------------------------------------------
AMENT_SHIM = '''
"""A stand-in for ament_index_python for the xacro command in this test: packages from XACRO_TEST_PACKAGES."""
import os

def get_package_share_directory(name):
    for entry in os.environ["XACRO_TEST_PACKAGES"].split(os.pathsep):
        folder = os.path.join(entry, name)
        if os.path.isdir(folder):
            return folder
    raise LookupError(name)
'''


@pytest.mark.parametrize("args", [{}, {"prefix": "left_", "with_gripper": "false", "arm_length": "0.7"}])
def test_the_same_urdf_as_the_xacro_command(workspace: dict[str, Path], tmp_path: Path, args: dict[str, str]) -> None:
    shim = tmp_path / "shim" / "ament_index_python"
    write(shim / "__init__.py", "")
    write(shim / "packages.py", AMENT_SHIM)
    env = {
        **os.environ,
        "PYTHONPATH": env_path(tmp_path / "shim", *sys.path[1:]),
        "XACRO_TEST_PACKAGES": env_path(workspace["robot_package"].parent, workspace["parts_root"]),
    }
    # the `xacro` console script (xacro:main), run by this Python so that it finds the stand-in
    run_xacro = "import sys, xacro; sys.argv[0] = 'xacro'; xacro.main()"
    command = [sys.executable, "-c", run_xacro, str(workspace["robot"]), *(f"{k}:={v}" for k, v in args.items())]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    by_xacro = robodesc.loads(
        done.stdout, format="urdf", base_dir=workspace["robot"].parent, search_paths=[workspace["parts_root"]]
    )
    ours = robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]], args=args)
    difference = robodesc.diff(ours, by_xacro)
    assert difference.agree, difference.summary()
    assert list(ours.bodies) == list(by_xacro.bodies) and list(ours.joints) == list(by_xacro.joints)
    for name, body in ours.bodies.items():
        theirs = by_xacro.bodies[name]
        assert [s.geometry for s in body.visuals] == [s.geometry for s in theirs.visuals]


def test_yaml_loaded_by_xacro_is_read_through_robodesc(tmp_path: Path) -> None:
    write(tmp_path / "config" / "dims.yaml", "arm:\n  length: 0.25\n")
    robot = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="y" {XACRO_NS}>
          <xacro:property name="dims" value="${{xacro.load_yaml('config/dims.yaml')}}"/>
          <link name="base"/>
          <link name="tip"/>
          <joint name="j" type="fixed">
            <parent link="base"/><child link="tip"/><origin xyz="0 0 ${{dims['arm']['length']}}"/>
          </joint>
        </robot>
        """,
    )
    np.testing.assert_allclose(robodesc.load(robot).pose("tip")[:3, 3], [0, 0, 0.25])
    secret = write(tmp_path / "secret.yaml", "arm:\n  length: 1\n")
    robot.write_text(robot.read_text().replace("config/dims.yaml", str(secret)))
    assert robodesc.load(robot, confine=True).pose("tip")[2, 3] == 1  # secret.yaml sits in the robot's folder
    (tmp_path / "inner").mkdir()
    inner = write(tmp_path / "inner" / "robot.urdf.xacro", robot.read_text())
    with pytest.raises(robodesc.ResourceNotFound, match="outside the folders"):
        robodesc.load(inner, confine=True)


def test_xacro_warnings_become_diagnostics_in_the_users_file(tmp_path: Path) -> None:
    robot = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="w" {XACRO_NS}>
          <link name="base"/>
          <xacro:include filename="optional/*.xacro"/>
        </robot>
        """,
    )
    model = robodesc.load(robot)
    warnings = [d for d in model.diagnostics if d.code == "xacro-warning"]
    assert len(warnings) == 1 and "matched no files" in warnings[0].message
    assert (warnings[0].location.file, warnings[0].location.line) == (str(robot), 3)


def test_a_wrong_macro_parameter_is_located_at_the_call(workspace: dict[str, Path]) -> None:
    bad = write(
        workspace["robot"].parent / "bad.urdf.xacro",
        f"""
        <robot name="b" {XACRO_NS}>
          <xacro:include filename="$(find arm_parts)/urdf/arm.xacro"/>
          <link name="base"/>
          <xacro:arm_segment prefix="" name="upper" parent="base" length="1" colour="red">
            <origin xyz="0 0 0"/>
          </xacro:arm_segment>
        </robot>
        """,
    )
    with pytest.raises(robodesc.InvalidValue, match='Invalid parameter "colour"') as caught:
        robodesc.load(bad, search_paths=[workspace["parts_root"]])
    assert (caught.value.file, caught.value.line) == (str(bad), 4) and "called at" not in str(caught.value)


def test_an_optional_include_that_is_missing_is_left_out(tmp_path: Path) -> None:
    robot = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="o" {XACRO_NS}>
          <link name="base"/>
          <xacro:include filename="extras.xacro" optional="true"/>
        </robot>
        """,
    )
    assert list(robodesc.load(robot).bodies) == ["base"]


def test_find_asks_resolver_plugins_first(workspace: dict[str, Path]) -> None:
    parts = workspace["parts"]

    class Vendor:
        """A resolver plugin that knows where arm_parts is; no search path or variable does."""

        @robodesc.hookimpl
        def robodesc_resolve_uri(self, uri: str, context: robodesc.LoadContext) -> str | None:
            prefix = "package://arm_parts/"
            return str(parts / uri[len(prefix) :]) if uri.startswith(prefix) else None

    name = robodesc.register_plugin(Vendor(), name="vendor-resolver")
    try:
        model = robodesc.load(workspace["robot"])
    finally:
        robodesc.unregister_plugin(name)
    assert model.bodies["fore"].visuals[0].geometry.path == str(parts / "meshes" / "segment.stl")


def test_dirname_is_the_folder_of_the_file_being_expanded(tmp_path: Path) -> None:
    write(
        tmp_path / "parts" / "part.xacro",
        f"""
        <robot {XACRO_NS}>
          <link name="part"><visual><geometry><mesh filename="$(dirname)/part.stl"/></geometry></visual></link>
        </robot>
        """,
    )
    (tmp_path / "parts" / "part.stl").write_text("solid s\nendsolid s\n")
    robot = write(
        tmp_path / "robot.urdf.xacro",
        f"""
        <robot name="d" {XACRO_NS}>
          <link name="$(dirname)"/>
          <xacro:include filename="parts/part.xacro"/>
          <joint name="j" type="fixed"><parent link="$(dirname)"/><child link="part"/></joint>
        </robot>
        """,
    )
    model = robodesc.load(robot)
    assert list(model.bodies) == [str(tmp_path), "part"]
    assert model.bodies["part"].visuals[0].geometry.path == str(tmp_path / "parts" / "part.stl")


def test_a_wildcard_include_may_not_list_folders_outside_a_confined_load(tmp_path: Path) -> None:
    write(tmp_path / "other" / "a.xacro", f'<robot {XACRO_NS}><link name="other"/></robot>\n')
    robot = write(
        tmp_path / "robot" / "robot.urdf.xacro",
        f"""
        <robot name="g" {XACRO_NS}>
          <link name="base"/>
          <xacro:include filename="../other/*.xacro"/>
        </robot>
        """,
    )
    with pytest.raises(robodesc.ResourceNotFound, match="outside the folders") as caught:
        robodesc.load(robot, confine=True)
    assert caught.value.line == 3


def test_an_sdf_xacro_is_read_by_the_sdf_reader(tmp_path: Path) -> None:
    world = write(
        tmp_path / "model.sdf.xacro",
        f"""
        <sdf version="1.9" {XACRO_NS}>
          <xacro:property name="h" value="0.5"/>
          <model name="m">
            <link name="base"/>
            <link name="top"><pose>0 0 ${{h * 2}} 0 0 0</pose></link>
            <joint name="j" type="fixed"><parent>base</parent><child>top</child></joint>
          </model>
        </sdf>
        """,
    )
    model = robodesc.load(world)
    assert model.format == "sdf" and model.source == str(world)
    np.testing.assert_allclose(model.pose("top")[:3, 3], [0, 0, 1.0])


def test_package_uris_in_include_filenames(workspace: dict[str, Path], tmp_path: Path) -> None:
    robot = write(
        workspace["robot"].parent / "uri.urdf.xacro",
        f"""
        <robot name="u" {XACRO_NS}>
          <xacro:include filename="package://arm_parts/urdf/arm.xacro"/>
          <link name="base"/>
          <xacro:arm_segment prefix="" name="upper" parent="base" length="1"><origin/></xacro:arm_segment>
          <xacro:include filename="package://arm_parts/urdf/missing.xacro"/>
        </robot>
        """,
    )
    with pytest.raises(robodesc.ResourceNotFound) as caught:
        robodesc.load(robot, search_paths=[workspace["parts_root"]])
    assert caught.value.line == 5 and str(workspace["parts"] / "urdf" / "missing.xacro") in caught.value.tried
    missing = '  <xacro:include filename="package://arm_parts/urdf/missing.xacro"/>\n'
    robot.write_text(robot.read_text().replace(missing, ""))
    assert "upper" in robodesc.load(robot, search_paths=[workspace["parts_root"]]).bodies


def test_diagnostics_and_model_locations_point_into_the_xacro_files(workspace: dict[str, Path]) -> None:
    (workspace["parts"] / "meshes" / "segment.stl").unlink()  # every segment's mesh now missing
    model = robodesc.load(workspace["robot"], search_paths=[workspace["parts_root"]])
    arm = str(workspace["parts"] / "urdf" / "arm.xacro")
    missing = [d for d in model.diagnostics if d.code == "mesh-not-found"]
    assert missing and {(d.location.file, d.location.line) for d in missing} == {(arm, 8)}  # the <mesh> in the macro
    assert (model.joints["fore_joint"].location.file, model.joints["fore_joint"].location.line) == (arm, 16)
    assert (model.bodies["base"].location.file, model.bodies["base"].location.line) == (str(workspace["robot"]), 10)
    report = robodesc.check(workspace["robot"], search_paths=[workspace["parts_root"]])
    assert all(d.location.file in (arm, str(workspace["robot"]), None) for d in report.diagnostics)


@pytest.mark.parametrize("broken", [False, True])
def test_a_load_leaves_nothing_for_the_cyclic_collector(workspace: dict[str, Path], broken: bool) -> None:
    """As every robodesc load: minidom's documents (parent/child cycles) are unlinked when the expansion ends."""
    import gc

    search = [] if broken else [workspace["parts_root"]]  # broken: $(find arm_parts) fails mid-expansion

    def load() -> None:
        try:
            robodesc.load(workspace["robot"], search_paths=search)
        except robodesc.ResourceNotFound:
            assert broken

    load()  # imports, caches
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        load()
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert not [name for name in left if name in ("Document", "Element", "Text", "_Expander", "LoadContext")], left


def test_mypy_finds_no_error_in_the_plugin(tmp_path: Path) -> None:
    """The plugin is typed as robodesc is (its own [tool.mypy] settings), and stays so."""
    pytest.importorskip("mypy")
    plugin = Path(__file__).resolve().parents[1]
    # run from the repository's root, where mypy finds robodesc's sources (an editable install's
    # import hook is invisible to mypy)
    command = ["--config-file", str(plugin / "pyproject.toml"), str(plugin / "src" / "robodesc_xacro")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), *command],
        cwd=plugin.parents[1],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"mypy robodesc_xacro failed:\n{result.stdout}{result.stderr}"
