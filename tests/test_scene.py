"""Seeing a model: shapes as trimesh meshes and `model.scene()` for every format (docs/seeing.md)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import trimesh

import robodesc
from robodesc import Box, Capsule, Cylinder, Ellipsoid, Mesh, Plane, Sphere
from robodesc.core import errors
from robodesc.core import geometry as geometry_module
from robodesc.core.geometry import Cone
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


def test_a_heightfield_is_drawn():
    model = robodesc.loads(
        '<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 1 0.1"/></asset>'
        '<worldbody><geom type="hfield" hfield="h"/><geom type="sphere" size="0.1"/></worldbody></mujoco>',
        format="mjcf",
    )
    scene = model.scene()
    assert len(scene.geometry) == 2 and not scene.metadata["robodesc"]["skipped"]
    assert_placed(model, scene)  # the differential tests against MuJoCo are in test_heightfield.py


def test_a_cone_is_centred_on_its_origin_apex_up():
    mesh = as_trimesh(Cone(radius=0.2, length=0.6))
    np.testing.assert_allclose(mesh.bounds, [[-0.2, -0.2, -0.3], [0.2, 0.2, 0.3]], atol=1e-9)
    assert np.all(mesh.vertices[mesh.vertices[:, 2] > 0.29][:, :2] == 0)  # the apex is the top


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
    original = geometry_module.Mesh.load_parts

    def counting(self):
        calls.append(self.uri)
        return original(self)

    monkeypatch.setattr(geometry_module.Mesh, "load_parts", counting)
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
    monkeypatch.setattr(geometry_module.Mesh, "load_parts", lambda self: built.append(self) or None)
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


def test_an_sdf_cone_is_drawn():
    model = robodesc.loads(
        '<sdf version="1.11"><model name="m"><link name="l"><visual name="c"><geometry>'
        "<cone><radius>0.2</radius><length>0.1</length></cone></geometry></visual></link></model></sdf>",
        format="sdf",
    )
    assert isinstance(model.bodies["l"].visuals[0].geometry, Cone)
    scene = model.scene()
    assert not scene.metadata["robodesc"]["skipped"]
    np.testing.assert_allclose(scene.geometry["l/c"].extents, [0.4, 0.4, 0.1], atol=1e-3)


def test_a_shape_of_a_type_robodesc_does_not_model_is_left_out_by_its_name():
    model = robodesc.loads(
        '<sdf version="1.11"><model name="m"><link name="l"><visual name="p"><geometry>'
        "<polyline><point>0 0</point><point>1 0</point><point>0 1</point><height>0.1</height></polyline>"
        "</geometry></visual></link></model></sdf>",
        format="sdf",
    )
    scene = model.scene()
    assert not scene.geometry
    (skipped,) = scene.metadata["robodesc"]["skipped"]
    assert skipped["node"] == "l/p" and "sdf polyline" in skipped["reason"]


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


OBJ = """mtllib parts.mtl
o left
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
usemtl red
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
o right
v 3 0 0
v 4 0 0
v 3 1 0
v 3 0 1
usemtl green
f 5 7 6
f 5 6 8
f 5 8 7
f 6 7 8
"""

MTL = """newmtl red
Kd 1 0 0
newmtl green
Kd 0 1 0
"""


def two_part_urdf(tmp_path: Path, mesh: str, scale: str = "1 1 1") -> robodesc.Model:
    (tmp_path / "r.urdf").write_text(
        f'<robot name="r"><link name="a"/><link name="b"><visual><origin xyz="0 0 0.5"/><geometry>'
        f'<mesh filename="{mesh}" scale="{scale}"/></geometry></visual></link>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>'
    )
    return robodesc.load(tmp_path / "r.urdf")


def world_points(scene: trimesh.Scene, node: str) -> np.ndarray:
    return trimesh.transform_points(scene.geometry[node].vertices, scene.graph[node][0])


def test_an_obj_of_two_objects_gives_a_node_per_part_with_its_own_material(tmp_path):
    (tmp_path / "parts.obj").write_text(OBJ)
    (tmp_path / "parts.mtl").write_text(MTL)
    model = two_part_urdf(tmp_path, "parts.obj", scale="2 2 2")
    scene = model.scene({"j": 0.4})
    parts = sorted(scene.graph.nodes_geometry)
    assert len(parts) == 2 and all(p.startswith("b/visual/0/") for p in parts)
    colours = {tuple(scene.geometry[p].visual.material.main_color[:3]) for p in parts}
    assert colours == {(255, 0, 0), (0, 255, 0)}
    # together the parts sit where the whole mesh (Mesh.load, one Trimesh as before) sits
    whole = model.bodies["b"].visuals[0].geometry.load()
    expected = trimesh.transform_points(whole.vertices, model.pose("b", {"j": 0.4}) @ model.bodies["b"].visuals[0].pose)
    ours = np.concatenate([world_points(scene, p) for p in parts])
    np.testing.assert_allclose(np.sort(ours, axis=0), np.sort(expected, axis=0), atol=1e-9)
    update_scene(scene, model, {"j": -1.0})
    again = np.concatenate([world_points(scene, p) for p in parts])
    pose = model.pose("b", {"j": -1.0}) @ model.bodies["b"].visuals[0].pose
    np.testing.assert_allclose(
        np.sort(again, axis=0), np.sort(trimesh.transform_points(whole.vertices, pose), axis=0), atol=1e-9
    )
    assert all("local" in scene.metadata["robodesc"]["nodes"][p] for p in parts)


def write_two_node_dae(path: Path) -> None:
    """A COLLADA file of two nodes, each a triangle-mesh tetrahedron with its own material, the second
    node moved and turned: written with pycollada, by hand."""
    collada = pytest.importorskip("collada")
    mesh = collada.Collada()
    vertices = np.array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], dtype=float)
    indices = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
    nodes = []
    for i, (name, rgb, matrix) in enumerate(
        [
            ("base", (1.0, 0.0, 0.0), np.eye(4)),
            ("lid", (0.0, 0.0, 1.0), trimesh.transformations.rotation_matrix(0.5, [0, 0, 1], [0, 0, 0])),
        ]
    ):
        if i:
            matrix[:3, 3] = [2.0, 0.0, 1.0]
        effect = collada.material.Effect(f"effect{i}", [], "phong", diffuse=rgb)
        material = collada.material.Material(f"material{i}", f"mat{i}", effect)
        mesh.effects.append(effect)
        mesh.materials.append(material)
        source = collada.source.FloatSource(f"verts{i}", vertices, ("X", "Y", "Z"))
        geometry = collada.geometry.Geometry(mesh, f"geometry{i}", name, [source])
        inputs = collada.source.InputList()
        inputs.addInput(0, "VERTEX", f"#verts{i}")
        geometry.primitives.append(geometry.createTriangleSet(indices, inputs, f"materialref{i}"))
        mesh.geometries.append(geometry)
        bound = collada.scene.MaterialNode(f"materialref{i}", material, inputs=[])
        node = collada.scene.GeometryNode(geometry, [bound])
        nodes.append(collada.scene.Node(name, [node], transforms=[collada.scene.MatrixTransform(matrix.ravel())]))
    mesh.scenes.append(collada.scene.Scene("scene", nodes))
    mesh.scene = mesh.scenes[0]
    mesh.write(str(path))


def test_a_dae_of_two_nodes_gives_a_node_per_part_placed_by_its_transform(tmp_path):
    write_two_node_dae(tmp_path / "parts.dae")
    model = two_part_urdf(tmp_path, "parts.dae", scale="0.5 0.5 0.5")
    scene = model.scene({"j": 0.3})
    nodes = scene.metadata["robodesc"]["nodes"]
    parts = sorted(scene.graph.nodes_geometry)
    assert len(parts) == 2, parts
    colours = sorted(tuple(scene.geometry[p].visual.material.main_color[:3]) for p in parts)
    assert colours == [(0, 0, 255), (255, 0, 0)]
    placed = model.pose("b", {"j": 0.3}) @ model.bodies["b"].visuals[0].pose
    lid = next(p for p in parts if np.any(nodes[p]["local"][:3, 3] != 0))
    np.testing.assert_allclose(nodes[lid]["local"][:3, 3], [1.0, 0.0, 0.5])  # the file's offset, scaled
    np.testing.assert_allclose(scene.graph[lid][0], placed @ nodes[lid]["local"], atol=1e-12)
    whole = model.bodies["b"].visuals[0].geometry.load()
    ours = np.concatenate([world_points(scene, p) for p in parts])
    expected = trimesh.transform_points(whole.vertices, placed)
    np.testing.assert_allclose(np.sort(ours, axis=0), np.sort(expected, axis=0), atol=1e-9)


def test_a_non_uniform_scale_is_baked_into_the_parts(tmp_path):
    write_two_node_dae(tmp_path / "parts.dae")
    model = two_part_urdf(tmp_path, "parts.dae", scale="1 2 3")
    scene = model.scene()
    placed = model.pose("b") @ model.bodies["b"].visuals[0].pose
    whole = model.bodies["b"].visuals[0].geometry.load()
    ours = np.concatenate([world_points(scene, p) for p in scene.graph.nodes_geometry])
    expected = trimesh.transform_points(whole.vertices, placed)
    np.testing.assert_allclose(np.sort(ours, axis=0), np.sort(expected, axis=0), atol=1e-9)


def test_inline_vertex_meshes_sit_where_mujoco_puts_them(tmp_path):
    # faces given; vertices alone (MuJoCo draws their convex hull); and a mesh frame moved by refpos/refquat
    (tmp_path / "m.xml").write_text(
        """<mujoco><asset>
          <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3" scale="0.5 0.5 0.5"/>
          <mesh name="cloud" vertex="0 0 0 1 0 0 0 2 0 0 0 3 1 1 1 0.2 0.2 0.2" refpos="0.1 0.2 0.3"
                refquat="0.9 0.1 0.3 0.2" scale="1 2 3"/>
        </asset><worldbody>
          <body name="a" pos="0 0 1" euler="10 20 30"><joint type="hinge"/>
            <geom type="mesh" mesh="tet" pos="0.1 0 0"/><geom type="mesh" mesh="cloud" pos="0 0.3 0" euler="0 30 0"/>
          </body></worldbody></mujoco>"""
    )
    assert_meshes_where_mujoco_puts_them(tmp_path / "m.xml")
    model = robodesc.load(tmp_path / "m.xml")
    assert not model.scene().metadata["robodesc"]["skipped"]


def test_a_mesh_file_with_refpos_and_a_scale_sits_where_mujoco_puts_it(tmp_path):
    part = trimesh.creation.box(extents=[0.2, 0.1, 0.05])
    part.apply_translation([0.3, -0.1, 0.05])
    part.export(tmp_path / "part.stl")
    (tmp_path / "m.xml").write_text(
        """<mujoco><asset><mesh name="part" file="part.stl" scale="2 2 2" refpos="0.1 0.2 0.3"
            refquat="0.9 0.1 0.3 0.2"/><mesh name="skew" file="part.stl" scale="1 2 3" refpos="0.1 0.2 0.3"/>
        </asset><worldbody><body name="a" pos="0 0 1"><joint type="hinge"/>
          <geom type="mesh" mesh="part" pos="0.1 0 0" euler="0 45 0"/><geom type="mesh" mesh="skew"/>
        </body></worldbody></mujoco>"""
    )
    assert_meshes_where_mujoco_puts_them(tmp_path / "m.xml")


# A COLLADA file as some CAD exporters write it: the geometry binds a material the file never
# declares. pycollada drops the bound instance, so trimesh alone finds nothing; RViz draws it grey.
BROKEN_MATERIAL_DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri-mesh" name="tri">
      <mesh>
        <source id="tri-pos">
          <float_array id="tri-pos-array" count="12">0 0 0 1 0 0 0 1 0 0 0 1</float_array>
          <technique_common><accessor source="#tri-pos-array" count="4" stride="3">
            <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
          </accessor></technique_common>
        </source>
        <vertices id="tri-verts"><input semantic="POSITION" source="#tri-pos"/></vertices>
        <triangles material="paint" count="4">
          <input semantic="VERTEX" source="#tri-verts" offset="0"/>
          <p>0 2 1 0 1 3 0 3 2 1 2 3</p>
        </triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="outer" name="outer" type="NODE">
        <matrix sid="transform">1 0 0 5 0 1 0 0 0 0 1 0 0 0 0 1</matrix>
        <node id="part" name="part" type="NODE">
          <matrix sid="transform">0.5 0 0 0 0 0.5 0 0 0 0 0.5 0 0 0 0 1</matrix>
          <instance_geometry url="#tri-mesh" name="tri">
            <bind_material><technique_common>
              <instance_material symbol="paint" target="#never-declared-material"/>
            </technique_common></bind_material>
          </instance_geometry>
        </node>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
"""


def test_a_dae_binding_an_undeclared_material_is_drawn_without_it(tmp_path):
    pytest.importorskip("collada")
    (tmp_path / "part.dae").write_text(BROKEN_MATERIAL_DAE)
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="part.dae" scale="2 2 2"/></geometry>'
        "</visual></link></robot>"
    )
    assert len(trimesh.load(tmp_path / "part.dae", force="scene").geometry) == 0  # what trimesh alone gives
    model = robodesc.load(urdf)
    mesh = model.bodies["a"].visuals[0].geometry.load()
    assert len(mesh.faces) == 4
    # the nodes' transforms apply (outer moves by 5 in x, the part is halved), then the URDF scale
    assert np.allclose(mesh.bounds, [[10.0, 0.0, 0.0], [11.0, 1.0, 1.0]])
    scene = model.scene()
    assert scene.metadata["robodesc"]["skipped"] == []
    assert np.allclose(scene.bounds, mesh.bounds)
