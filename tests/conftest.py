"""Shared test helpers and guards.

A plugin crash (`PluginCrash`, including a built-in reader's `ReaderCrash`) is a `RobodescError`, so
`pytest.raises(RobodescError)` or `except RobodescError` would accept it as a clean refusal. Every
test therefore fails when a crash was raised during it, caught or not, unless the test is marked
`plugin_crash` (it provokes one on purpose).
"""

from __future__ import annotations

import gc
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

from robodesc import PluginCrash
from robodesc.formats.xml import Document


def assert_close(actual: object, expected: object, atol: float = 1e-9) -> None:
    """Element-wise equality of numbers or arrays within `atol` (absolute; no relative slack)."""
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), atol=atol, rtol=0)


def other_plugins() -> str:
    """The installed plugins that are not robodesc's own (robodesc-xacro, installed with the project),
    as ROBODESC_DISABLE_PLUGINS takes them: for a subprocess whose output lists robodesc's formats."""
    return ",".join(e.name for e in entry_points(group="robodesc") if not e.value.startswith("robodesc."))


def documents_alive(folder: Path) -> list[Document]:
    """The parsed XML documents of files in `folder` still in memory, after a collection: a loaded
    model should keep none (its locations keep the files' bytes, not their trees)."""
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, Document) and str(folder) in (o.source or "")]


def write_sdf_world(folder: Path, model_sdf: str, world_sdf: str) -> Path:
    """`folder/world.sdf`, whose includes name the model folder `arm` (model.sdf and its
    model.config) beside it. Returns the world's path."""
    (folder / "arm").mkdir()
    (folder / "arm" / "model.sdf").write_text(model_sdf)
    (folder / "arm" / "model.config").write_text(
        '<?xml version="1.0"?>\n<model><name>arm</name><sdf version="1.9">model.sdf</sdf></model>\n'
    )
    world = folder / "world.sdf"
    world.write_text(world_sdf)
    return world


def mimic_chain_urdf(count: int, offset: float = 0.001) -> str:
    """A URDF robot of `count` prismatic joints, each following the next (declared before its leader)
    with `offset`; the last, j{count - 1}, leads them all. A walk up the leaders per follower would
    cost the chain's length squared (or cubed); the readers, checks and writers walk it once."""
    links = '<link name="base"/>' + "".join(f'<link name="l{k}"/>' for k in range(count))
    joints = "".join(
        f'<joint name="j{k}" type="prismatic"><parent link="base"/><child link="l{k}"/><axis xyz="1 0 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
        + (f'<mimic joint="j{k + 1}" offset="{offset!r}"/>' if k < count - 1 else "")
        + "</joint>"
        for k in range(count)
    )
    return f'<robot name="chain">{links}{joints}</robot>'


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "plugin_crash: the test makes a plugin crash on purpose")


@pytest.fixture(autouse=True)
def _no_plugin_crash(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    crashes: list[PluginCrash] = []
    original = PluginCrash.__init__

    def recording(self: PluginCrash, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        crashes.append(self)

    monkeypatch.setattr(PluginCrash, "__init__", recording)
    yield
    if crashes and request.node.get_closest_marker("plugin_crash") is None:
        crash = crashes[0]
        pytest.fail(f"{len(crashes)} plugin crash(es) during the test, first: {crash}", pytrace=False)
