"""Model objects as Python values: equality with numpy arrays inside, short reprs, and Mesh.load's errors."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import math
import pickle
import struct

import numpy as np
import pytest

import robodesc
from robodesc import (
    Body,
    Box,
    Diagnostic,
    Ellipsoid,
    Extra,
    Frame,
    Inertial,
    Joint,
    JointType,
    Limits,
    Material,
    Mesh,
    Model,
    Plane,
    Severity,
    Shape,
    Sphere,
)
from robodesc.core import errors
from robodesc.core import geometry as geometry_module
from robodesc.core import model as model_module
from robodesc.core.record import Record

URDF = """<robot name="arm">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <visual><geometry><box size="0.1 0.2 0.3"/></geometry><material name="red"/></visual>
  </link>
  <link name="upper">
    <inertial>
      <origin xyz="0 0 0.1"/>
      <mass value="1.5"/>
      <inertia ixx="0.01" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.03"/>
    </inertial>
    <visual><geometry><mesh filename="upper.stl" scale="1 1 1"/></geometry></visual>
    <collision><geometry><cylinder radius="0.05" length="0.3"/></geometry></collision>
  </link>
  <link name="lower">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <visual><geometry><sphere radius="0.04"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3" rpy="0 0 0.5"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="5" velocity="2"/>
  </joint>
  <gazebo reference="upper"><material>Gazebo/Red</material></gazebo>
</robot>
"""

MJCF = """<mujoco model="pendulum">
  <worldbody>
    <body name="pole" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" range="-1 1" ref="0.2"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="1"/>
      <site name="tip" pos="0 0 -0.5"/>
      <body name="bob" pos="0 0 -0.5">
        <joint name="ball" type="ball"/>
        <geom type="sphere" size="0.05" mass="0.3"/>
      </body>
    </body>
    <body name="free_box" pos="1 0 0.5">
      <freejoint name="free"/>
      <geom type="box" size="0.1 0.1 0.1" mass="0.2"/>
    </body>
  </worldbody>
  <keyframe><key name="home" qpos="0.3  1 0 0 0  1 0 0.5 1 0 0 0"/></keyframe>
</mujoco>
"""


@pytest.fixture(params=["urdf", "mjcf"])
def model(request, tmp_path) -> Model:
    if request.param == "urdf":
        (tmp_path / "upper.stl").write_text(ASCII_STL)
        return robodesc.loads(URDF, format="urdf", base_dir=str(tmp_path))
    return robodesc.loads(MJCF, format="mjcf")


ASCII_STL = """solid tri
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
endsolid tri
"""


def record_classes() -> list[type]:
    """Every dataclass of the model, from core.model and core.geometry."""
    found = []
    for module in (model_module, geometry_module):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found.append(value)
    return found


# -- equality -------------------------------------------------------------------------------------


def test_a_model_equals_its_deep_copy_and_a_second_load(model):
    assert model == copy.deepcopy(model)
    assert not (model != copy.deepcopy(model))
    assert model == copy.copy(model)
    again = robodesc.loads(MJCF, format="mjcf") if model.format == "mjcf" else None
    if again is not None:
        assert model == again


def test_a_model_loaded_twice_from_the_same_text_is_equal(tmp_path):
    (tmp_path / "upper.stl").write_text(ASCII_STL)
    first = robodesc.loads(URDF, format="urdf", base_dir=str(tmp_path))
    second = robodesc.loads(URDF, format="urdf", base_dir=str(tmp_path))
    assert first == second
    assert first.extras and first.extras[0] == second.extras[0]  # the <gazebo> block, compared by its XML


def test_one_inertia_entry_makes_models_unequal(model):
    other = copy.deepcopy(model)
    name = next(b.name for b in other.bodies.values() if b.inertial is not None)
    other.bodies[name].inertial.inertia[0, 1] += 1e-9
    assert model != other
    assert model.bodies[name] != other.bodies[name]
    assert model.bodies[name].inertial != other.bodies[name].inertial
    other.bodies[name].inertial.inertia[0, 1] = model.bodies[name].inertial.inertia[0, 1]
    assert model == other


def test_changing_any_array_makes_models_unequal(model):
    other = copy.deepcopy(model)
    joint = next(iter(other.joints.values()))
    joint.axis = joint.axis * -1
    assert model != other
    other = copy.deepcopy(model)
    body = list(other.bodies.values())[1]
    body.pose = body.pose.copy()
    body.pose[0, 3] += 0.5
    assert model != other


def load_again(model: Model, tmp_path) -> Model:
    if model.format == "urdf":
        return robodesc.loads(URDF, format="urdf", base_dir=str(tmp_path))
    return robodesc.loads(MJCF, format="mjcf")


def test_membership_index_and_remove_never_raise(model, tmp_path):
    twin = load_again(model, tmp_path)  # equal objects that are not the same objects
    bodies = list(model.bodies.values())
    joints = list(model.joints.values())
    for i, (body, same) in enumerate(zip(bodies, twin.bodies.values())):
        assert body in bodies and same in bodies
        assert bodies.index(body) == bodies.index(same) == i
    for i, (joint, same) in enumerate(zip(joints, twin.joints.values())):
        assert joints.index(joint) == joints.index(same) == i
    last = list(twin.bodies.values())[-1]
    bodies.remove(last)
    assert last not in bodies and len(bodies) == len(model.bodies) - 1
    shapes = [shape for _, shape, _ in model.iter_shapes()]
    for shape, same in zip(shapes, [shape for _, shape, _ in twin.iter_shapes()]):
        assert shape in shapes and same in shapes
    assert Body(name="nobody") not in bodies
    frames = list(model.frames.values())
    assert all(frame in frames for frame in twin.frames.values())


def test_deep_copies_stay_equal_after_locations_were_read(model):
    for body in model.bodies.values():
        str(body.location)  # reads the line and the element path
    assert all(copy.deepcopy(body) == body for body in model.bodies.values())
    assert model == copy.deepcopy(model)


def test_the_compiled_kinematics_take_no_part(model):
    other = copy.deepcopy(model)
    model.forward_kinematics()
    assert model._kinematics is not None and other._kinematics is None
    assert model == other


def test_keyframes_with_arrays_compare(model):
    other = copy.deepcopy(model)
    other.configurations["extra"] = {"elbow": np.array([0.1])}
    assert model != other
    model.configurations["extra"] = {"elbow": np.array([0.1])}
    assert model == other


def test_shapes_with_a_different_mesh_scale_are_unequal():
    a = Shape(Mesh("m.stl", scale=np.array([1.0, 1.0, 1.0])))
    b = Shape(Mesh("m.stl", scale=np.array([1.0, 1.0, 0.001])))
    assert a != b
    assert a == Shape(Mesh("m.stl"))
    assert [a, b].index(b) == 1


def test_arrays_of_another_shape_or_none_are_unequal_without_error():
    assert Box(np.ones(3)) != Box(np.ones(2))
    assert Box(np.ones(3)) != Box(np.ones((3, 1)))
    assert Plane(size=None) != Plane(size=np.array([1.0, 1.0]))
    assert Plane(size=np.array([1.0, 1.0])) != Plane(size=None)
    assert Material(color=np.array([1, 0, 0, 1.0])) != Material(color=None)
    assert Joint("j", JointType.BALL, "a", "b", reference=np.array([1.0, 0, 0, 0])) != Joint(
        "j", JointType.BALL, "a", "b", reference=0.0
    )
    assert Joint("j", JointType.REVOLUTE, "a", "b", reference=np.float64(0.5)) == Joint(
        "j", JointType.REVOLUTE, "a", "b", reference=0.5
    )


def test_the_dtype_is_not_compared_but_the_values_are():
    assert Box(np.array([1, 2, 3])) == Box(np.array([1.0, 2.0, 3.0]))
    assert Box(np.array([1, 2, 3])) != Box(np.array([1.0, 2.0, 3.5]))


def test_different_classes_are_never_equal():
    assert Box(np.ones(3)) != Ellipsoid(np.ones(3))
    assert Sphere(1.0) != 1.0
    assert Body(name="a") != "a"
    assert Frame(name="f", body="a") != Body(name="f")


def test_nan_equals_nan():
    assert Inertial(math.nan) == Inertial(math.nan)
    nan_com = np.array([0.0, math.nan, 0.0])
    assert Inertial(1.0, com=nan_com) == Inertial(1.0, com=nan_com.copy())
    assert Inertial(1.0, com=nan_com) != Inertial(1.0)
    assert Limits(lower=math.nan) == Limits(lower=float("nan"))


def test_an_extra_compares_by_its_xml_rendered_or_not():
    lazy = Extra("gazebo", source=lambda: "<gazebo/>")
    assert lazy == Extra("gazebo", source="<gazebo/>")
    assert lazy != Extra("gazebo", source="<gazebo>x</gazebo>")


def test_every_model_class_shares_one_equality_and_stays_unhashable():
    classes = record_classes()
    assert {"Model", "Body", "Joint", "Inertial", "Frame", "Extra", "Shape", "Mesh", "Box", "Material"} <= {
        c.__name__ for c in classes
    }
    for cls in classes:
        assert issubclass(cls, Record), cls
        assert cls.__eq__ is Record.__eq__, f"{cls.__name__} has its own __eq__ (declare it with eq=False)"
        assert cls.__hash__ is None, f"{cls.__name__} is hashable"
    with pytest.raises(TypeError):
        hash(Body(name="a"))
    with pytest.raises(TypeError):
        {Mesh("m.stl")}  # noqa: B018
    diagnostic = Diagnostic(Severity.WARNING, "code", "message")  # frozen: hashable, as before
    assert hash(diagnostic) == hash(Diagnostic(Severity.WARNING, "code", "message"))


def test_records_are_slotted_and_copy_and_pickle_with_every_protocol():
    """No instance dictionary (smaller records); copies and pickles of any protocol still carry every field."""
    for cls in record_classes():
        assert "__dict__" not in dir(cls), cls.__name__
    mesh = Mesh("m.stl", scale=np.array([1.0, 2.0, 3.0]), tried=["a"])
    records = [
        Body(name="b", pose=np.eye(4), visuals=[Shape(Box(np.ones(3)), name="s")], extras={"urdf": {"k": 1}}),
        Joint("j", JointType.REVOLUTE, "a", "b", limits=Limits(lower=-1.0, upper=1.0)),
        Extra("gazebo", source=lambda: "<gazebo/>"),
        Model("m", bodies={"b": Body(name="b")}),
        mesh,
    ]
    records[2].xml  # noqa: B018 - rendered: a lambda does not pickle
    for record in records:
        assert copy.copy(record) == record and copy.deepcopy(record) == record
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            again = pickle.loads(pickle.dumps(record, protocol=protocol))
            assert type(again) is type(record) and again == record, (record, protocol)
    with pytest.raises(AttributeError):
        mesh.colour = "red"  # a misspelt field is refused, not kept aside
    with pytest.raises(AttributeError):
        Shape(Box(np.ones(3))).note = "mine"  # type: ignore[attr-defined]  # data of one's own goes in extras


def test_a_copy_shares_the_values_and_a_deep_copy_keeps_what_was_shared():
    shape = Shape(Box(np.ones(3)), pose=np.eye(4))
    body = Body(name="b", visuals=[shape], collisions=[shape])  # one geom, drawn and colliding (MJCF)
    shallow = copy.copy(body)
    assert shallow is not body and shallow.visuals is body.visuals and shallow.pose is body.pose
    deep = copy.deepcopy(body)
    assert deep == body and deep.visuals is not body.visuals and deep.visuals[0] is not shape
    assert deep.visuals[0] is deep.collisions[0]  # still one shape, as in the original
    deep.visuals[0].pose[0, 3] = 1.0
    assert shape.pose[0, 3] == 0.0
    partial = object.__new__(Limits)  # a record made without __init__: its unset slots stay unset
    partial.lower = -1.0
    assert copy.copy(partial).lower == copy.deepcopy(partial).lower == -1.0
    with pytest.raises(AttributeError):
        copy.copy(partial).upper  # noqa: B018


# -- repr -----------------------------------------------------------------------------------------


def chain_urdf(n: int) -> str:
    box = '<visual><geometry><box size="1 1 1"/></geometry></visual>'
    links = "".join(f'<link name="l{i}">{box}</link>' for i in range(n))
    joints = "".join(
        f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
        f'<origin xyz="0 0 0.1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(1, n)
    )
    return f'<robot name="snake">{links}{joints}</robot>'


def test_a_model_repr_is_one_short_line_however_large_the_model():
    model = robodesc.loads(chain_urdf(1000), format="urdf")
    text = repr(model)
    assert len(text) < 300, text
    assert "\n" not in text
    for part in ("'snake'", "'urdf'", "bodies=1000", "joints=999", "frames=0", "root='l0'"):
        assert part in text
    assert str(model) == text


def test_the_model_repr_names_the_source_and_copes_with_an_empty_model(tmp_path):
    path = tmp_path / ("a" * 200) / "robot.urdf"
    path.parent.mkdir()
    path.write_text(chain_urdf(3))
    text = repr(robodesc.load(path))
    assert len(text) < 300 and "robot.urdf" in text
    assert repr(Model(name="empty")) == "Model(name='empty', root=None, bodies=0, joints=0, frames=0)"


def test_body_and_joint_reprs_stay_short(model):
    for body in model.bodies.values():
        assert len(repr(body)) < 600, repr(body)
        assert "\n" not in repr(body)
    for joint in model.joints.values():
        assert len(repr(joint)) < 600, repr(joint)


def test_a_body_repr_counts_its_shapes_and_summarises_large_arrays():
    shapes = [Shape(Mesh(f"mesh{i}.stl", tried=[f"/path/{k}/mesh{i}.stl" for k in range(50)])) for i in range(1000)]
    body = Body(name="cloud", visuals=shapes, extras={"points": np.zeros((100000, 3))})
    text = repr(body)
    assert len(text) < 300, text
    assert "visuals=<1000 Shape>" in text and "<array (100000, 3) float64>" in text
    mesh_text = repr(shapes[0].geometry)
    assert len(mesh_text) < 300 and "... 46 more" in mesh_text


def test_small_arrays_print_inline_and_defaults_are_left_out():
    body = Body(name="b", inertial=Inertial(2.0, com=np.array([0.0, 0.0, 0.25])))
    assert repr(body) == "Body(name='b', inertial=Inertial(mass=2.0, com=[0, 0, 0.25]))"
    joint = Joint("j", JointType.REVOLUTE, "a", "b", axis=np.array([0.0, 0.0, 1.0]), limits=Limits(-1.0, 1.0))
    assert repr(joint) == (
        "Joint(name='j', type='revolute', parent='a', child='b', axis=[0, 0, 1], limits=Limits(lower=-1.0, upper=1.0))"
    )


# -- Mesh.load ------------------------------------------------------------------------------------


def binary_stl(triangles: list[tuple[float, ...]]) -> bytes:
    body = b"".join(struct.pack("<12fH", 0, 0, 1, *t, 0) for t in triangles)
    return b"\0" * 80 + struct.pack("<I", len(triangles)) + body


DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <library_geometries><geometry id="tri"><mesh>
    <source id="pos"><float_array id="pos-array" count="9">0 0 0 1 0 0 0 1 0</float_array>
      <technique_common><accessor source="#pos-array" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
    <triangles count="1"><input semantic="VERTEX" source="#verts" offset="0"/><p>0 1 2</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#tri"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
"""

# UV coordinates and no material file: trimesh gives the mesh a default texture image, which needs Pillow
TEXTURED_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n"


def mesh_at(path) -> Mesh:
    return Mesh(uri=path.name, path=str(path), scale=np.array([2.0, 2.0, 2.0]))


def test_a_good_mesh_loads_scaled(tmp_path):
    (tmp_path / "ascii.stl").write_text(ASCII_STL)
    (tmp_path / "binary.stl").write_bytes(binary_stl([(0, 0, 0, 1, 0, 0, 0, 1, 0)]))
    for name in ("ascii.stl", "binary.stl"):
        mesh = mesh_at(tmp_path / name).load()
        assert mesh.vertices.max() == pytest.approx(2.0)


def test_a_mesh_loaded_through_a_model(tmp_path):
    (tmp_path / "upper.stl").write_text(ASCII_STL)
    model = robodesc.loads(URDF, format="urdf", base_dir=str(tmp_path))
    assert len(model.bodies["upper"].visuals[0].geometry.load().faces) == 1


@pytest.mark.parametrize("make", ["absent", "folder"])
def test_only_an_absent_or_unopenable_file_is_resource_not_found(tmp_path, make):
    path = tmp_path / "part.stl"
    if make == "folder":
        path.mkdir()
    with pytest.raises(errors.ResourceNotFound) as caught:
        mesh_at(path).load()
    assert str(path) in str(caught.value)


def test_a_collada_mesh_without_pycollada_names_the_package(tmp_path, monkeypatch):
    from trimesh.exceptions import ExceptionWrapper
    from trimesh.exchange import load as trimesh_load

    # what trimesh installs for .dae when `import collada` fails
    monkeypatch.setitem(
        trimesh_load.mesh_loaders, "dae", ExceptionWrapper(ImportError("missing `pip install pycollada`"))
    )
    (tmp_path / "part.dae").write_text(DAE)
    with pytest.raises(errors.MissingDependency) as caught:
        mesh_at(tmp_path / "part.dae").load()
    error = caught.value
    assert not isinstance(error, errors.ResourceNotFound)
    assert error.package == "pycollada" and error.code == "missing-dependency"
    assert "pip install pycollada" in str(error) and "part.dae" in str(error)
    assert error.extra == "meshes" and "robodesc[meshes]" in str(error)  # the extra that brings it


@pytest.mark.skipif(importlib.util.find_spec("collada") is not None, reason="pycollada is installed")
def test_a_collada_mesh_without_pycollada_installed(tmp_path):
    (tmp_path / "part.dae").write_text(DAE)
    with pytest.raises(errors.MissingDependency, match="pycollada"):
        mesh_at(tmp_path / "part.dae").load()


def test_a_textured_obj_without_pillow_names_the_package(tmp_path, monkeypatch):
    from trimesh.exceptions import ExceptionWrapper
    from trimesh.visual import material

    # what trimesh holds in place of PIL.Image when Pillow is not installed
    monkeypatch.setattr(material, "Image", ExceptionWrapper(ModuleNotFoundError("No module named 'PIL'")))
    (tmp_path / "part.obj").write_text(TEXTURED_OBJ)
    with pytest.raises(errors.MissingDependency) as caught:
        mesh_at(tmp_path / "part.obj").load()
    assert caught.value.package == "Pillow"
    assert "pip install Pillow" in str(caught.value)


@pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="needs Pillow")
def test_a_textured_obj_loads_with_pillow(tmp_path):
    (tmp_path / "part.obj").write_text(TEXTURED_OBJ)
    assert len(mesh_at(tmp_path / "part.obj").load().faces) == 1


@pytest.mark.parametrize(
    "name, content",
    [
        ("corrupt.stl", b"\0" * 80 + struct.pack("<I", 1000) + b"\x91\xff" * 30),  # a binary STL cut short
        ("garbage.stl", b"this is not an STL file at all\n"),
        ("empty.stl", b""),
        ("empty.obj", b""),
        ("garbage.ply", b"not a ply\n"),
    ],
)
def test_a_mesh_file_that_cannot_be_parsed_is_invalid_not_missing(tmp_path, name, content):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(errors.InvalidValue) as caught:
        mesh_at(tmp_path / name).load()
    error = caught.value
    assert not isinstance(error, errors.ResourceNotFound)
    assert error.file == str(tmp_path / name) and name in str(error)
    assert error.construct == name


def test_record_fields_keep_their_order() -> None:
    """Records can be made with positional arguments (the readers do, for speed): their fields keep
    this order, so a positional call keeps filling the same fields."""
    from dataclasses import fields

    from robodesc.core.geometry import Material, Mesh, Shape
    from robodesc.core.model import Body, Dynamics, Extra, Inertial, Joint, Limits, Mimic

    expected = {
        Body: "name parent joints pose inertial visuals collisions static floating location extras",
        Joint: "name type parent child origin axis axis2 limits limits2 dynamics mimic reference pitch location extras",
        Limits: "lower upper velocity effort",
        Dynamics: "damping friction spring_stiffness spring_reference armature",
        Mimic: "joint multiplier offset",
        Inertial: "mass com inertia",
        Extra: "tag source location owner attributes",
        Shape: "geometry pose name material extras",
        Mesh: "uri scale path tried vertices faces",
        Material: "name color texture",
    }
    for record, names in expected.items():
        assert [f.name for f in fields(record) if f.init] == names.split(), record.__name__
