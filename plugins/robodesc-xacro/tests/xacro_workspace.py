"""Fixtures, imported by the tests (not a conftest.py: robodesc's own tests import helpers from
their `conftest`, and two modules of that name in one run shadow each other): a workspace of two
fake ROS packages written by the tests, and a guard against crashes.

`robot_description` (found by the source-tree walk, beside nothing else) holds the robot; it
includes `arm_parts`, which lives in another folder that only `search_paths` or
ROS_PACKAGE_PATH lead to.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli where the standard library has no tomllib
    import tomli as tomllib

from robodesc import PluginCrash

PLUGIN = Path(__file__).resolve().parents[1]


def _installed_from_the_checkout() -> None:
    """Make this checkout's plugin an installed distribution for this test run, when it is not one.

    The project's set-up (`pip install -e ".[test]"`) installs robodesc, and cannot install this
    plugin: pip takes robodesc-xacro, the `xacro` extra, from a package index only, never from a
    folder. So the plugin is put where an installation would put it: its source folder on the path,
    beside a `.dist-info` folder that declares its name, version and entry points from its own
    pyproject.toml. robodesc then finds it through the `robodesc` entry-point group, as it finds
    any installed plugin. (tests/test_packaging.py installs the plugin's real wheel.)"""
    try:
        distribution("robodesc-xacro")
        return  # installed (pip install -e ./plugins/robodesc-xacro): tested as installed
    except PackageNotFoundError:
        pass
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    site = Path(tempfile.mkdtemp(prefix="robodesc-xacro-checkout-"))
    atexit.register(shutil.rmtree, site, ignore_errors=True)
    info = site / f"robodesc_xacro-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) for group, points in groups.items())
    )
    sys.path[:0] = [str(PLUGIN / "src"), str(site)]


_installed_from_the_checkout()

STL = (
    "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid s\n"
)

ROBOT = """<?xml version="1.0"?>
<robot name="demo" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="prefix" default=""/>
  <xacro:arg name="with_gripper" default="true"/>
  <xacro:arg name="arm_length" default="0.4"/>
  <xacro:property name="prefix" value="$(arg prefix)"/>
  <xacro:property name="base_height" value="0.1"/>
  <xacro:include filename="$(find arm_parts)/urdf/arm.xacro"/>

  <link name="${prefix}base">
    <visual>
      <geometry><mesh filename="package://robot_description/meshes/base.stl"/></geometry>
    </visual>
    <inertial>
      <mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
    </inertial>
  </link>

  <xacro:arm_segment prefix="${prefix}" name="upper" parent="${prefix}base" length="$(arg arm_length)">
    <origin xyz="0 0 ${base_height}" rpy="0 0 0"/>
  </xacro:arm_segment>
  <xacro:arm_segment prefix="${prefix}" name="fore" parent="${prefix}upper" length="${$(arg arm_length) / 2}">
    <origin xyz="0 0 $(arg arm_length)" rpy="0 0 ${pi/2}"/>
  </xacro:arm_segment>

  <xacro:if value="$(arg with_gripper)">
    <link name="${prefix}gripper"/>
    <joint name="${prefix}gripper_mount" type="fixed">
      <parent link="${prefix}fore"/>
      <child link="${prefix}gripper"/>
      <origin xyz="0 0 ${$(arg arm_length) / 2}"/>
    </joint>
  </xacro:if>
</robot>
"""

ARM = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="segment_mass" value="${0.5 * 2}"/>
  <xacro:macro name="arm_segment" params="prefix name parent length *origin">
    <link name="${prefix}${name}">
      <visual>
        <origin xyz="0 0 ${length / 2}"/>
        <geometry><mesh filename="package://arm_parts/meshes/segment.stl" scale="1 1 ${length}"/></geometry>
      </visual>
      <inertial>
        <mass value="${segment_mass}"/>
        <inertia ixx="${segment_mass * length**2 / 12}" ixy="0" ixz="0"
                 iyy="${segment_mass * length**2 / 12}" iyz="0" izz="0.001"/>
      </inertial>
    </link>
    <joint name="${prefix}${name}_joint" type="revolute">
      <parent link="${parent}"/>
      <child link="${prefix}${name}"/>
      <xacro:insert_block name="origin"/>
      <axis xyz="0 1 0"/>
      <limit lower="${-pi/2}" upper="${radians(90)}" effort="10" velocity="1"/>
    </joint>
  </xacro:macro>
</robot>
"""


def package(root: Path, name: str) -> Path:
    folder = root / name
    (folder / "urdf").mkdir(parents=True)
    (folder / "meshes").mkdir()
    (folder / "package.xml").write_text(f'<?xml version="1.0"?>\n<package format="3"><name>{name}</name></package>\n')
    return folder


@pytest.fixture(name="workspace")
def workspace_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """robot_description/urdf/robot.urdf.xacro, and arm_parts in a folder of its own (`parts`)."""
    for variable in ("ROS_PACKAGE_PATH", "AMENT_PREFIX_PATH"):
        monkeypatch.delenv(variable, raising=False)
    robot = package(tmp_path / "ws" / "src", "robot_description")
    (robot / "meshes" / "base.stl").write_text(STL)
    (robot / "urdf" / "robot.urdf.xacro").write_text(ROBOT)
    parts_root = tmp_path / "vendor"
    parts = package(parts_root, "arm_parts")
    (parts / "meshes" / "segment.stl").write_text(STL)
    (parts / "urdf" / "arm.xacro").write_text(ARM)
    return {
        "robot": robot / "urdf" / "robot.urdf.xacro",
        "robot_package": robot,
        "parts_root": parts_root,
        "parts": parts,
        "tmp": tmp_path,
    }


@pytest.fixture(autouse=True)
def _no_plugin_crash(monkeypatch: pytest.MonkeyPatch):
    """A plugin crash is a RobodescError too: fail any test during which one was raised."""
    crashes: list[PluginCrash] = []
    original = PluginCrash.__init__

    def recording(self: PluginCrash, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        crashes.append(self)

    monkeypatch.setattr(PluginCrash, "__init__", recording)
    yield
    if crashes:
        pytest.fail(f"plugin crash during the test: {crashes[0]}", pytrace=False)
