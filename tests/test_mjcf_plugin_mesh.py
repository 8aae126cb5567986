"""Meshes made by a plugin (``<mesh><plugin instance=.../></mesh>``, MuJoCo's SDF plugins) load:
robodesc cannot make their geometry, so where a body's mass depends on one it says so at the geom,
instead of refusing the file; everything else matches MuJoCo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodesc

TORUS = """<mujoco>
  <extension>
    <plugin plugin="mujoco.sdf.torus">
      <instance name="torus"><config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance>
    </plugin>
  </extension>
  <asset><mesh name="torus"><plugin instance="torus"/></mesh></asset>
  <worldbody>
    <body name="ring" pos="0 0 1">
      <freejoint/>
      <geom type="sdf" name="torus" mesh="torus" density="100"><plugin instance="torus"/></geom>
    </body>
    <body name="weighed" pos="1 0 0">
      <joint type="hinge"/>
      <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/>
      <geom type="mesh" mesh="torus"/>
    </body>
  </worldbody>
</mujoco>"""


@pytest.fixture
def torus(tmp_path: Path) -> Path:
    path = tmp_path / "torus.xml"
    path.write_text(TORUS)
    return path


def test_plugin_meshes_load_with_a_located_warning(torus: Path) -> None:
    model = robodesc.load(torus)
    notes = [d for d in model.diagnostics if d.code == "not-modelled"]
    # only the body whose inertia comes from the geom: the other states its own <inertial>
    assert len(notes) == 1
    assert notes[0].location.line == 11 and "'ring'" in notes[0].message and "'torus'" in notes[0].message
    assert model.bodies["weighed"].inertial is not None and model.bodies["weighed"].inertial.mass == 2.0


def test_the_rest_matches_mujoco(torus: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    reference = mujoco.MjModel.from_xml_path(str(torus))
    assert reference.body("ring").mass[0] > 0  # MuJoCo makes the torus and weighs it; robodesc cannot
    model = robodesc.load(torus)
    data = mujoco.MjData(reference)
    mujoco.mj_kinematics(reference, data)
    poses = model.forward_kinematics({})
    for name in ("ring", "weighed"):
        np.testing.assert_allclose(poses[name][:3, 3], data.xpos[reference.body(name).id], atol=1e-12)
    assert model.bodies["weighed"].inertial.mass == reference.body("weighed").mass[0]


def test_a_plugin_mesh_is_listed_as_not_drawn(torus: Path) -> None:
    """Like a mesh whose file is missing: refused by default, listed as skipped on request."""
    pytest.importorskip("trimesh")
    model = robodesc.load(torus)
    with pytest.raises(robodesc.ResourceNotFound, match="plugin:torus"):
        model.scene()
    scene = model.scene(skip_missing=True)
    skipped = scene.metadata["robodesc"]["skipped"]
    assert any("torus" in str(entry) for entry in skipped)
