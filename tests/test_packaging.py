"""The package as a user would install it once published: `python -m build` makes an sdist and a
wheel (the wheel built from the sdist, so the sdist holds everything a build needs), and the wheel
installs into a fresh environment where the library, its formats and the command work.

The fresh environment gets robodesc only from the wheel; its dependencies (numpy, trimesh, ...)
are borrowed from this environment's site-packages through a path file, so the test needs no
download beyond the build backend. That folder's own path files are not processed, so the
checkout's editable install stays invisible there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import other_plugins

import robodesc

ROOT = Path(__file__).resolve().parents[1]

SMOKE = """
import sys
import robodesc
assert robodesc.__file__.startswith(sys.prefix), robodesc.__file__  # the wheel's copy, not the checkout
model = robodesc.loads('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
                       '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                       '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>', format="urdf")
pose = model.forward_kinematics({"j": 0.5}, backend="numpy")["b"]
print(robodesc.__version__, sorted(spec.name for spec in robodesc.formats()), pose.shape)
"""


XACRO_ROBOT = """<?xml version="1.0"?>
<robot name="pair" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="prefix" default=""/>
  <xacro:macro name="segment" params="name">
    <link name="$(arg prefix)${name}"/>
  </xacro:macro>
  <xacro:segment name="base"/>
  <xacro:segment name="tip"/>
  <joint name="$(arg prefix)hinge" type="continuous">
    <parent link="$(arg prefix)base"/><child link="$(arg prefix)tip"/><axis xyz="0 0 1"/>
  </joint>
</robot>
"""


def build(project: Path, out: Path) -> None:
    """`python -m build` of one project (sdist, then the wheel from the sdist) into `out`."""
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(project)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0 and "Could not find a version that satisfies" in done.stdout + done.stderr:
        pytest.skip("the build backend cannot be downloaded here")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """robodesc's and the xacro plugin's sdists and wheels."""
    pytest.importorskip("build", reason="the build package makes the sdist and the wheel")
    out = tmp_path_factory.mktemp("dist")
    build(ROOT, out)
    build(ROOT / "plugins" / "robodesc-xacro", out)
    return out


def fresh_environment(folder: Path, wheels: list[Path], enabled: set[str] = frozenset()) -> tuple[Path, dict[str, str]]:
    """A new virtual environment with `wheels` installed from their files, and the environment
    variables to run it with. Dependencies are borrowed from this environment's site-packages; of
    the plugins installed here, only those `enabled` are left on (the others could not import)."""
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", *map(str, wheels)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr
    # the dependencies, from this environment (appended after the fresh site-packages)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "borrowed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    disabled = [name for name in other_plugins().split(",") if name and name not in enabled]
    clean["ROBODESC_DISABLE_PLUGINS"] = ",".join(disabled)
    return python, clean


def test_the_sdist_and_wheel_hold_the_package_its_licence_and_nothing_of_the_checkout(dist: Path) -> None:
    version = robodesc.__version__
    (wheel,) = dist.glob(f"robodesc-{version}-py3-none-any.whl")
    (sdist,) = dist.glob(f"robodesc-{version}.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    assert "robodesc/py.typed" in names and "robodesc/formats/mjcf/reader.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "benchmarks/", "plugins/", "docs/")) for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"robodesc-{version}.dist-info/METADATA").decode()
    assert f"Version: {version}" in metadata and "Classifier: Typing :: Typed" in metadata
    # robodesc[xacro] names the plugin's distribution (resolved from an index once published)
    assert "Provides-Extra: xacro" in metadata and 'Requires-Dist: robodesc-xacro>=0.1; extra == "xacro"' in metadata
    entry_points = zipfile.ZipFile(wheel).read(f"robodesc-{version}.dist-info/entry_points.txt").decode()
    assert "[robodesc]" in entry_points and "robodesc = robodesc.cli:main" in entry_points
    members = tarfile.open(sdist).getnames()
    assert f"robodesc-{version}/LICENSE" in members and f"robodesc-{version}/pyproject.toml" in members


def test_the_wheel_installs_and_runs_in_a_fresh_environment(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("robodesc-*.whl")
    env_dir = tmp_path / "env"
    python, clean = fresh_environment(env_dir, [wheel])
    run = subprocess.run(
        [str(python), "-c", SMOKE], capture_output=True, text=True, timeout=300, env=clean, cwd=tmp_path
    )
    assert not run.stderr, run.stderr  # no warning either
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("[")[0].strip() == robodesc.__version__
    assert "['mjcf', 'sdf', 'urdf']" in run.stdout and "(4, 4)" in run.stdout
    command = env_dir / ("Scripts/robodesc.exe" if os.name == "nt" else "bin/robodesc")
    shown = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=120, env=clean)
    assert shown.returncode == 0 and shown.stdout.strip() == f"robodesc {robodesc.__version__}", shown


def test_the_xacro_plugins_wheel_is_found_through_its_entry_point(dist: Path, tmp_path: Path) -> None:
    """The plugin as `pip install robodesc-xacro` will install it: robodesc's command reads a
    `.urdf.xacro` with an argument, and lists the plugin as a distribution of its own."""
    wheels = [*dist.glob("*.whl")]
    assert sorted(w.name.split("-")[0] for w in wheels) == ["robodesc", "robodesc_xacro"]
    env_dir = tmp_path / "env"
    python, clean = fresh_environment(env_dir, wheels, enabled={"xacro"})
    robot = tmp_path / "pair.urdf.xacro"
    robot.write_text(XACRO_ROBOT)
    command = env_dir / ("Scripts/robodesc.exe" if os.name == "nt" else "bin/robodesc")
    shown = subprocess.run(
        [str(command), "tree", str(robot), "--arg", "prefix:=left_"],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean,
    )
    assert shown.returncode == 0, shown.stderr
    assert "left_base" in shown.stdout and "left_tip" in shown.stdout and "left_hinge" in shown.stdout
    where = subprocess.run(
        [str(python), "-c", "import robodesc_xacro, sys; print(robodesc_xacro.__file__.startswith(sys.prefix))"],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean,
    )
    assert where.stdout.strip() == "True", where.stdout + where.stderr  # the wheel's copy, not the checkout
    listed = subprocess.run([str(command), "plugins"], capture_output=True, text=True, timeout=120, env=clean)
    assert listed.returncode == 0 and "robodesc-xacro" in listed.stdout, listed.stdout + listed.stderr
