"""Seeing a model: shapes as trimesh meshes and `model.scene()` for every format (docs/seeing.md)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import trimesh

import robodesc
from robodesc import Box, Capsule, Cylinder, Ellipsoid, Heightfield, Mesh, Plane, Sphere
from robodesc.core import errors
from robodesc.core import geometry as geometry_module
from robodesc.core.scene import INFINITE_PLANE_SIZE, as_trimesh, update_scene

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

URDF = """<robot name="two">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <visual name="plate"><origin xyz="0 0 0.01"/><geometry><box size="0.4 0.2 0.02"/></geometry>
      <material name="red"/></visual>
    <visual><origin xyz="0.1 0 0.1"/><geometry><sphere radius="0.05"/></geometry></visual>
    <collision><geometry><box size="0.5 0.3 0.04"/></geometry></collision>
  </link>
  <link name="arm">
    <visual><origin xyz="0 0 0.2" rpy="0.3 0 0"/><geometry><cylinder radius="0.03" length="0.4"/></geometry>
      <material name="blue"><color rgba="0 0 1 0.5"/></material></visual>
    <visual><origin xyz="0 0.1 0"/><geometry><mesh filename="part.stl" scale="2 3 4"/></geometry>
      <material name="red"/></visual>
    <collision><geometry><capsule radius="0.03" length="0.4"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
</robot>"""

SDF = """<sdf version="1.9"><model name="m">
  <link name="base">
    <visual name="v"><pose>0 0 0.1 0 0 0</pose><geometry><cylinder><radius>0.1</radius><length>0.2</length></cylinder>
      </geometry><material><diffuse>0 1 0 1</diffuse></material></visual>
    <visual name="floor"><geometry><plane><normal>0 0 1</normal><size>2 3</size></plane></geometry></visual>
  </link>
  <link name="top"><pose>0 0 0.3 0 0 0</pose>
    <visual name="v"><geometry><sphere><radius>0.05</radius></sphere></geometry></visual>
  </link>
  <joint name="j" type="revolute"><parent>base</parent><child>top</child><axis><xyz>1 0 0</xyz></axis></joint>
</model></sdf>"""

MJCF = """<mujoco model="m">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="b" pos="0 0 1">
      <joint name="hinge" axis="0 1 0"/>
      <geom name="pill" type="capsule" size="0.05 0.2" rgba="1 1 0 1"/>
      <geom name="egg" type="ellipsoid" size="0.1 0.2 0.3" pos="0.5 0 0"/>
      <geom type="box" size="0.1 0.1 0.1" pos="0 0 0.5" euler="0 0 45"/>
    </body>
  </worldbody>
</mujoco>"""


def write_part(directory: Path) -> Path:
    path = directory / "part.stl"
    trimesh.creation.box(extents=[0.1, 0.1, 0.1]).export(path)
    return path


@pytest.fixture
def urdf(tmp_path):
    write_part(tmp_path)
    path = tmp_path / "two.urdf"
    path.write_text(URDF)
    return robodesc.load(path)


def assert_placed(model, scene, kind="visual", positions=None):
    """Every shape of `kind` has a node at model.pose(body) @ shape.pose, and nothing else does."""
    nodes = scene.metadata["robodesc"]["nodes"]
    expected = sum(len(getattr(b, kind + "s")) for b in model.bodies.values())
    assert len(nodes) == expected == len(scene.graph.nodes_geometry)
    for name, where in nodes.items():
        body = model.bodies[where["body"]]
        shape = getattr(body, kind + "s")[where["index"]]
        matrix, geometry = scene.graph[name]
        assert geometry == name
        np.testing.assert_allclose(matrix, model.pose(body.name, positions) @ shape.pose, atol=1e-12)


def test_every_visual_shape_of_a_urdf_gets_a_node_at_its_world_pose(urdf):
    scene = urdf.scene({"j": 0.7})
    assert_placed(urdf, scene, positions={"j": 0.7})
    assert set(scene.graph.nodes_geometry) == {"base/plate", "base/visual/1", "arm/visual/0", "arm/visual/1"}


def test_sdf_and_mjcf_scenes(tmp_path):
    sdf = robodesc.loads(SDF, format="sdf")
    assert_placed(sdf, sdf.scene())
    mjcf = robodesc.loads(MJCF, format="mjcf")
    scene = mjcf.scene({"hinge": 0.4})
    assert_placed(mjcf, scene, positions={"hinge": 0.4})
    # MJCF geoms are visual and collision alike
    assert_placed(mjcf, mjcf.scene(kind="collision"), kind="collision")


def test_collision_scenes_use_the_collision_shapes(urdf):
    scene = urdf.scene(kind="collision")
    assert_placed(urdf, scene, kind="collision")
    assert scene.metadata["robodesc"]["kind"] == "collision"
    np.testing.assert_allclose(scene.geometry["base/collision/0"].extents, [0.5, 0.3, 0.04])


def test_an_unknown_kind_is_an_error(urdf):
    with pytest.raises(errors.InvalidArgument, match="kind"):
        urdf.scene(kind="visuals")


@pytest.mark.parametrize(
    "geometry, lower, upper",
    [
        (Box(size=np.array([0.4, 0.2, 0.1])), [-0.2, -0.1, -0.05], [0.2, 0.1, 0.05]),
        (Sphere(radius=0.3), [-0.3] * 3, [0.3] * 3),
        (Cylinder(radius=0.1, length=0.5), [-0.1, -0.1, -0.25], [0.1, 0.1, 0.25]),
        (Capsule(radius=0.1, length=0.5), [-0.1, -0.1, -0.35], [0.1, 0.1, 0.35]),
        (Ellipsoid(radii=np.array([0.1, 0.2, 0.3])), [-0.1, -0.2, -0.3], [0.1, 0.2, 0.3]),
        (Plane(size=np.array([2.0, 3.0])), [-1.0, -1.5, -0.003], [1.0, 1.5, 0.0]),
    ],
    ids=lambda value: type(value).__name__ if not isinstance(value, list) else "",
)
def test_primitive_sizes_follow_the_description(geometry, lower, upper):
    mesh = geometry.as_trimesh()
    assert isinstance(mesh, trimesh.Trimesh) and len(mesh.faces) > 0
    np.testing.assert_allclose(mesh.bounds, [lower, upper], atol=1e-3)


def test_an_infinite_plane_is_a_finite_patch_facing_its_normal():
    mesh = as_trimesh(Plane(normal=np.array([1.0, 0.0, 0.0])))
    np.testing.assert_allclose(mesh.extents[1:], [INFINITE_PLANE_SIZE] * 2, atol=1e-9)
    assert mesh.bounds[1][0] == pytest.approx(0.0, abs=1e-9)  # the top face is the plane


def test_a_heightfield_is_left_out_with_a_reason():
    with pytest.raises(errors.UnsupportedGeometry, match="heightfield"):
        as_trimesh(Heightfield(uri="terrain.png"))
    model = robodesc.loads(
        '<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 1 0.1"/></asset>'
        '<worldbody><geom type="hfield" hfield="h"/><geom type="sphere" size="0.1"/></worldbody></mujoco>',
        format="mjcf",
    )
    scene = model.scene()
    assert len(scene.geometry) == 1
    (skipped,) = scene.metadata["robodesc"]["skipped"]
    assert "heightfield" in skipped["reason"] and skipped["code"] == errors.UnsupportedGeometry.code


def test_colours_come_from_the_materials(urdf):
    scene = urdf.scene()
    assert (scene.geometry["base/plate"].visual.face_colors == [255, 0, 0, 255]).all()
    assert (scene.geometry["arm/visual/0"].visual.face_colors == [0, 0, 255, 128]).all()
    assert (scene.geometry["arm/visual/1"].visual.face_colors == [255, 0, 0, 255]).all()  # an STL has none
    mjcf = robodesc.loads(MJCF, format="mjcf").scene()
    assert (mjcf.geometry["b/pill"].visual.face_colors == [255, 255, 0, 255]).all()
    sdf = robodesc.loads(SDF, format="sdf").scene()
    assert (sdf.geometry["base/v"].visual.face_colors == [0, 255, 0, 255]).all()


def test_a_mesh_with_colours_of_its_own_keeps_them(tmp_path):
    pytest.importorskip("scipy", reason="trimesh needs scipy (robodesc[meshes]) to load a mesh with face colours")
    part = trimesh.creation.box(extents=[0.1, 0.1, 0.1])
    part.visual.face_colors = [10, 200, 30, 255]
    part.export(tmp_path / "own.ply")
    (tmp_path / "r.urdf").write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="own.ply"/></geometry>'
        '<material name="red"><color rgba="1 0 0 1"/></material></visual></link></robot>'
    )
    scene = robodesc.load(tmp_path / "r.urdf").scene()
    assert (scene.geometry["a/visual/0"].visual.face_colors == [10, 200, 30, 255]).all()


def test_mesh_scale_is_applied(urdf):
    mesh = urdf.scene().geometry["arm/visual/1"]
    np.testing.assert_allclose(mesh.extents, [0.2, 0.3, 0.4], atol=1e-9)


def test_mesh_files_are_read_once_per_model(urdf, monkeypatch):
    calls = []
    original = geometry_module.Mesh.load

    def counting(self):
        calls.append(self.uri)
        return original(self)

    monkeypatch.setattr(geometry_module.Mesh, "load", counting)
    urdf.scene({"j": 0.1})
    assert calls == ["part.stl"]
    again = urdf.scene({"j": -1.0})
    assert calls == ["part.stl"]  # another configuration reads nothing again
    assert_placed(urdf, again, positions={"j": -1.0})


def test_re_posing_changes_transforms_only(urdf, monkeypatch):
    scene = urdf.scene({"j": 0.0})
    geometry = dict(scene.geometry)
    built = []
    monkeypatch.setattr(geometry_module.Mesh, "load", lambda self: built.append(self) or None)
    monkeypatch.setattr(trimesh.creation, "box", lambda *a, **k: built.append(a) or None)
    before = scene.graph["arm/visual/0"][0].copy()
    assert update_scene(scene, urdf, {"j": 1.2}) is scene
    assert not built and scene.geometry == geometry
    assert all(scene.geometry[name] is mesh for name, mesh in geometry.items())
    assert not np.allclose(scene.graph["arm/visual/0"][0], before)
    assert_placed(urdf, scene, positions={"j": 1.2})


def test_re_posing_a_scene_robodesc_did_not_make_is_an_error(urdf):
    with pytest.raises(errors.ConfigurationError):
        update_scene(trimesh.Scene(), urdf, None)


def test_a_missing_mesh_raises_resource_not_found(tmp_path):
    (tmp_path / "r.urdf").write_text(URDF)  # no part.stl next to it
    model = robodesc.load(tmp_path / "r.urdf")
    with pytest.raises(errors.ResourceNotFound, match="part.stl"):
        model.scene()


def test_skip_missing_leaves_the_shape_out_and_says_so(tmp_path):
    (tmp_path / "r.urdf").write_text(URDF)
    scene = robodesc.load(tmp_path / "r.urdf").scene(skip_missing=True)
    assert "arm/visual/1" not in scene.graph.nodes_geometry
    assert len(scene.graph.nodes_geometry) == 3
    (skipped,) = scene.metadata["robodesc"]["skipped"]
    assert skipped["node"] == "arm/visual/1" and skipped["body"] == "arm"
    assert skipped["code"] == errors.ResourceNotFound.code and "part.stl" in skipped["reason"]


def test_repeated_shape_names_get_unique_nodes():
    model = robodesc.loads(
        '<robot name="r"><link name="a">'
        '<visual name="v"><geometry><sphere radius="0.1"/></geometry></visual>'
        '<visual name="v"><geometry><sphere radius="0.2"/></geometry></visual>'
        "</link></robot>",
        format="urdf",
    )
    assert set(model.scene().graph.nodes_geometry) == {"a/v", "a/v~2"}


def test_the_same_scene_as_yourdfpy_on_the_example_arm(tmp_path):
    yourdfpy = pytest.importorskip("yourdfpy")
    # yourdfpy reads no <capsule> (a urdfdom extension): compare on a copy with a cylinder in its place
    text = (EXAMPLES / "arm.urdf").read_text().replace("<capsule", "<cylinder")
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    theirs = yourdfpy.URDF.load(str(path)).scene
    ours = robodesc.load(path).scene()
    assert len(ours.graph.nodes_geometry) == len(theirs.graph.nodes_geometry)
    np.testing.assert_allclose(ours.bounds, theirs.bounds, atol=1e-3)


def test_a_shape_of_a_type_robodesc_does_not_model_is_left_out_by_its_name():
    model = robodesc.loads(
        '<sdf version="1.11"><model name="m"><link name="l"><visual name="c"><geometry>'
        "<cone><radius>0.2</radius><length>0.1</length></cone></geometry></visual></link></model></sdf>",
        format="sdf",
    )
    scene = model.scene()
    assert not scene.geometry
    (skipped,) = scene.metadata["robodesc"]["skipped"]
    assert skipped["node"] == "l/c" and "sdf cone" in skipped["reason"]


def mujoco_mesh_bounds(path: Path) -> dict[str, list[np.ndarray]]:
    """World bounds (2x3) of every mesh geom as MuJoCo places it, by body."""
    mujoco = pytest.importorskip("mujoco")
    mj = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    out: dict[str, list[np.ndarray]] = {}
    for gid in range(mj.ngeom):
        if mj.geom_type[gid] != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        mesh = mj.geom_dataid[gid]
        start = mj.mesh_vertadr[mesh]
        local = mj.mesh_vert[start : start + mj.mesh_vertnum[mesh]]
        world = local @ data.geom_xmat[gid].reshape(3, 3).T + data.geom_xpos[gid]
        key = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, mj.geom_bodyid[gid])
        out.setdefault(key, []).append(np.array([world.min(0), world.max(0)]))
    return out


def assert_meshes_where_mujoco_puts_them(path: Path) -> None:
    model = robodesc.load(path)
    ours: dict[str, list[np.ndarray]] = {}
    for kind in ("visual", "collision"):
        scene = model.scene(kind=kind)
        for name, where in scene.metadata["robodesc"]["nodes"].items():
            shape = getattr(model.bodies[where["body"]], kind + "s")[where["index"]]
            if isinstance(shape.geometry, Mesh):
                points = trimesh.transform_points(scene.geometry[name].vertices, scene.graph[name][0])
                ours.setdefault(where["body"], []).append(np.array([points.min(0), points.max(0)]))
    theirs = mujoco_mesh_bounds(path)
    assert theirs.keys() == ours.keys()
    for key, boxes in theirs.items():
        for box in boxes:  # every MuJoCo mesh geom has a robodesc shape with the same world bounds
            assert min(np.abs(box - other).max() for other in ours[key]) < 1e-6, key


def test_mjcf_meshes_sit_where_mujoco_puts_them(tmp_path):
    # an off-centre, scaled mesh: MuJoCo moves a mesh's frame to its centre of mass and inertia axes
    part = trimesh.creation.box(extents=[0.2, 0.1, 0.05])
    part.apply_translation([0.3, -0.1, 0.05])
    part.export(tmp_path / "part.stl")
    (tmp_path / "m.xml").write_text(
        """<mujoco><asset><mesh name="part" file="part.stl" scale="1 2 3"/></asset><worldbody>
        <body name="a" pos="0 0 1" euler="10 20 30"><joint type="hinge"/>
          <geom type="mesh" mesh="part" pos="0.1 0 0" euler="0 45 0"/>
          <body name="b" pos="0.5 0 0"><geom type="mesh" mesh="part" contype="0" conaffinity="0" group="2"/></body>
        </body></worldbody></mujoco>"""
    )
    assert_meshes_where_mujoco_puts_them(tmp_path / "m.xml")


@pytest.mark.parametrize("robot", ["franka_emika_panda/panda.xml", "shadow_hand/right_hand.xml"])
def test_menagerie_meshes_sit_where_mujoco_puts_them(robot):
    corpus = os.environ.get("ROBODESC_CORPUS")
    path = Path(corpus or "/nonexistent") / "mjcf" / "mujoco_menagerie" / robot
    if not path.is_file():
        pytest.skip("needs ROBODESC_CORPUS with MuJoCo Menagerie")
    assert_meshes_where_mujoco_puts_them(path)


def test_a_mesh_needing_a_missing_package_names_the_extra_or_is_skipped(tmp_path, monkeypatch):
    from trimesh.exceptions import ExceptionWrapper
    from trimesh.exchange import load as trimesh_load

    # what trimesh installs for .dae when `import collada` fails
    monkeypatch.setitem(
        trimesh_load.mesh_loaders, "dae", ExceptionWrapper(ImportError("missing `pip install pycollada`"))
    )
    (tmp_path / "part.dae").write_text("<COLLADA/>")
    (tmp_path / "r.urdf").write_text(URDF.replace("part.stl", "part.dae"))
    model = robodesc.load(tmp_path / "r.urdf")
    with pytest.raises(errors.MissingDependency, match=r"robodesc\[meshes\]"):
        model.scene()
    (skipped,) = model.scene(skip_missing=True).metadata["robodesc"]["skipped"]
    assert skipped["code"] == errors.MissingDependency.code and "pycollada" in skipped["reason"]
