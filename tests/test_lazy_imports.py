"""`import robodesc` stays light, and a load imports only what loading (and its format) needs.

The first `load` in a process used to pay for every reader, the differ, the renderer and the
conversion code: here the modules a step brings in are checked in a fresh interpreter, through
`sys.modules` (what was imported), never by timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

URDF = (
    '<robot name="r"><link name="a"/><link name="b"/>'
    '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>'
)


def _modules_after(code: str) -> set[str]:
    script = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_import_robodesc_imports_no_numpy_plugin_machinery_or_readers():
    modules = _modules_after("import robodesc")
    heavy = {"numpy", "pluggy", "importlib.metadata", "trimesh", "mujoco", "defusedxml", "robodesc.core"}
    assert not heavy & modules, sorted(heavy & modules)
    assert not [m for m in modules if m.startswith(("robodesc.formats", "robodesc.plugins"))]


def test_a_urdf_load_imports_neither_other_readers_nor_the_differ_renderer_or_converter():
    modules = _modules_after(f"import robodesc\nrobodesc.loads({URDF!r}, format='urdf')")
    assert "robodesc.formats.urdf.reader" in modules
    unwanted = {
        "robodesc.formats.sdf.reader",
        "robodesc.formats.mjcf.reader",
        "robodesc.core.diff",
        "robodesc.core.render",
        "robodesc.conversion",
        "trimesh",
        "mujoco",
    }
    assert not unwanted & modules, sorted(unwanted & modules)


def test_public_names_resolve_on_first_use():
    modules = _modules_after(
        """
        import robodesc
        from robodesc import Model, RobodescError, diff, render, convert, formats
        from robodesc import *  # every name in __all__ resolves
        assert robodesc.diff is diff and robodesc.Model is Model
        assert callable(robodesc.formats) and [f.name for f in robodesc.formats()]
        assert robodesc.core.transforms.rpy_to_matrix
        assert set(robodesc.__all__) <= set(dir(robodesc))
        try:
            robodesc.no_such_name
        except AttributeError as error:
            assert "no_such_name" in str(error)
        else:
            raise AssertionError("robodesc.no_such_name did not raise AttributeError")
        """
    )
    assert "robodesc.core.diff" in modules


def test_a_load_and_one_configuration_import_neither_checks_writers_nor_thread_pools():
    """`check` and `dump` import robodesc's checks and the writers' context, and a large batch
    imports concurrent.futures (with logging) for its threads: a load and a forward_kinematics
    call need none of them. Entry points are found without importlib.metadata (and the email
    and zipfile packages it imports) where the sys.path folders hold every distribution."""
    modules = _modules_after(
        f"import robodesc\nrobodesc.loads({URDF!r}, format='urdf').forward_kinematics(backend='numpy')"
    )
    unwanted = {"robodesc.core.checks", "robodesc.core.writing", "concurrent.futures", "logging", "importlib.metadata"}
    assert not unwanted & modules, sorted(unwanted & modules)
