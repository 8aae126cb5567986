"""robodesc's annotations are checked, shipped (PEP 561), and what the checker found stays fixed."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import robodesc

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_package(tmp_path):
    # the settings are pyproject.toml's [tool.mypy]; the cache goes to tmp_path, not into the work tree
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"mypy robodesc failed:\n{result.stdout}{result.stderr}"


def test_the_installed_package_has_a_py_typed_marker():
    marker = resources.files("robodesc").joinpath("py.typed")
    assert marker.is_file()


def test_setuptools_puts_py_typed_into_the_built_package(tmp_path):
    # build_py is the step that lays out what goes into a wheel: the packages and their package data
    pytest.importorskip("setuptools", reason="the build backend is needed to see what a build ships")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "robodesc", source / "robodesc", ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "-d", str(tmp_path / "out")],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out" / "robodesc" / "__init__.py").is_file()
    assert (tmp_path / "out" / "robodesc" / "py.typed").is_file()


# -- bugs the type checker found ----------------------------------------------------------------------


def test_a_mimic_of_a_loop_closing_joint_is_evaluated(tmp_path):
    # j2 closes a loop (c is already the child of j3), so it takes no value; j3 mimics it. The
    # kinematics looked up j2's column, found none and crashed with AttributeError.
    path = tmp_path / "loop.sdf"
    path.write_text(
        """<sdf version="1.10"><model name="m">
          <link name="a"/>
          <link name="b"><pose>1 0 0 0 0 0</pose></link>
          <link name="c"><pose>2 0 0 0 0 0</pose></link>
          <joint name="j1" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
          <joint name="j3" type="revolute"><parent>a</parent><child>c</child>
            <axis><xyz>0 0 1</xyz><mimic joint="j2"><multiplier>2</multiplier><offset>0.5</offset></mimic></axis>
          </joint>
          <joint name="j2" type="revolute"><parent>b</parent><child>c</child><axis><xyz>0 0 1</xyz></axis></joint>
        </model></sdf>"""
    )
    model = robodesc.load(str(path))
    assert model.bodies["c"].joints == ("j3",)  # the tree joint; j2 is kept off the tree
    pose = model.forward_kinematics({"j2": 1.0})["c"]  # a loop joint's value is ignored: it stands at 0
    c, s = math.cos(0.5), math.sin(0.5)  # so its follower stands at the offset, 0.5
    assert np.allclose(pose[:3, :3], [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], atol=1e-12)
    assert np.allclose(pose[:3, 3], [2.0, 0.0, 0.0], atol=1e-12)
