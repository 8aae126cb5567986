"""The build stage: a `ModelSpec` (records.py) into a `core.Model`.

This stage maps MJCF's notions onto robodesc's format-neutral ones: a body's pose in its parent,
joint types and origins (a hinge with a range is revolute, without one continuous; a free joint is
floating, its reference the pose as written), shapes from geoms (which are drawn, which collide),
sites as frames, equalities as constraints, actuators with their transmission, keyframes as named
configurations completed with the joints' references. It never looks at XML: everything it needs
is in the records, already parsed and checked by the spec stage, so it has nothing to refuse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Heightfield, Mesh, Plane, Shape, Sphere
from ...core.model import (
    Actuator,
    Body,
    Constraint,
    Dynamics,
    Extra,
    Frame,
    Joint,
    JointType,
    Limits,
    Model,
)
from ...core.transforms import make_pose, matrix_to_quat
from .records import (
    ActuatorSpec,
    BodySpec,
    EqualitySpec,
    GeomSpec,
    HfieldAsset,
    JointSpec,
    KeyframeSpec,
    MeshShape,
    ModelSpec,
    SiteSpec,
)

#: An actuator's transmission: the attribute naming what it drives (slidersite goes with cranksite).
_TRANSMISSIONS = ("joint", "jointinparent", "tendon", "site", "body", "cranksite", "slidersite")
#: The elements an equality other than a joint equality names.
_EQUALITY_ELEMENTS = ("body1", "body2", "site1", "site2", "tendon1", "tendon2", "flex")


def build_model(spec: ModelSpec) -> Model:
    """The model the records describe, before MuJoCo's compile steps (compile.py)."""
    model = Model(name=spec.name, format="mjcf", source=spec.source)
    model.materials.update(spec.materials)
    world = spec.world
    model.bodies["world"] = Body(name="world", location=world.location)
    joints: list[Joint] = []  # in document order: MuJoCo's qpos order
    trails: list[tuple] = []  # of each of `joints` (JointSpec.trail)
    _add_items(model, world, joints, trails)
    model.constraints.extend(_constraint(equality) for equality in spec.equalities)
    model.actuators.extend(_actuator(actuator) for actuator in spec.actuators)
    for keyframe in spec.keyframes:
        model.configurations[keyframe.name] = _configuration(joints, trails, keyframe)
    model.extras.extend(spec.extras)
    model.diagnostics.extend(spec.diagnostics)
    return model


def _add_items(model: Model, top: BodySpec, joints: list[Joint], trails: list[tuple]) -> None:
    """What body `top` holds, in document order, into the model (child bodies with what they hold,
    each before the items that follow it)."""
    pending = [(top, model.bodies[top.name], iter(top.items))]  # bodies being read, with the items still to read
    while pending:
        spec, body, items = pending[-1]
        item = next(items, None)
        if item is None:
            pending.pop()
        elif isinstance(item, GeomSpec):  # (the most common item first)
            _add_shape(body, item)
        elif isinstance(item, BodySpec):
            child = model.bodies[item.name] = Body(
                name=item.name, parent=spec.name, pose=item.pose, location=item.location
            )
            pending.append((item, child, iter(item.items)))
        elif isinstance(item, JointSpec):
            joint = _joint(item, body)
            model.joints[item.name] = joint
            body.joints = (*body.joints, item.name)
            joints.append(joint)
            trails.append(item.trail)
        elif isinstance(item, SiteSpec):
            extras = {"mjcf": item.attributes}
            frame = Frame(name=item.name, body=spec.name, pose=item.pose, location=item.location, extras=extras)
            model.frames[item.name] = frame
        else:
            assert isinstance(item, Extra)
            body.extras.setdefault("xml", []).append(item)


def _joint(spec: JointSpec, body: Body) -> Joint:
    """A joint moving `body` relative to its parent (each part given to the constructor: no default
    limits, dynamics or extras made only to be replaced)."""
    assert body.parent is not None  # the spec stage refuses joints in the world body
    extras = {"mjcf": spec.attributes}
    if spec.kind == "free":
        pose = body.pose
        reference = np.concatenate([pose[:3, 3], matrix_to_quat(pose[:3, :3])])
        return Joint(
            name=spec.name,
            type=JointType.FLOATING,
            parent=body.parent,
            child=body.name,
            origin=pose,
            reference=reference,
            location=spec.location,
            extras=extras,
        )
    limits = spec.limits
    if spec.kind == "hinge":
        kind = JointType.REVOLUTE if limits is not None else JointType.CONTINUOUS
    else:
        kind = JointType.PRISMATIC if spec.kind == "slide" else JointType.BALL
    effort = _effort_limit(spec.attributes)
    return Joint(
        name=spec.name,
        type=kind,
        parent=body.parent,
        child=body.name,
        origin=body.pose @ make_pose(translation=spec.anchor),
        axis=spec.axis,
        limits=Limits(effort=effort) if limits is None else Limits(lower=limits[0], upper=limits[1], effort=effort),
        dynamics=Dynamics(
            damping=spec.damping,
            friction=spec.friction,
            spring_stiffness=spec.stiffness,
            spring_reference=spec.spring_reference,
            armature=spec.armature,
        ),
        reference=np.array([1.0, 0.0, 0.0, 0.0]) if spec.kind == "ball" else spec.reference,
        location=spec.location,
        extras=extras,
    )


def _add_shape(body: Body, spec: GeomSpec) -> None:
    """A geom as a collision shape (when it collides) and a visual one (when it is drawn)."""
    geometry, pose = _geometry(spec)
    mjcf: dict[str, Any] = {"contype": spec.contype, "conaffinity": spec.conaffinity, "group": spec.group}
    if spec.mesh is not None:
        mjcf["mesh"], mjcf["mesh_location"] = spec.mesh.asset, spec.mesh.asset_location
    shape = Shape(geometry=geometry, pose=pose, name=spec.name, material=spec.material, extras={"mjcf": mjcf})
    if spec.contype or spec.conaffinity:
        body.collisions.append(shape)
    if spec.drawn:
        body.visuals.append(shape)


def _geometry(spec: GeomSpec) -> tuple[Geometry, np.ndarray]:
    """A geom's shape and its pose in the body (a mesh's: the frame its file's vertices are in)."""
    kind, size, pose = spec.kind, spec.size, spec.pose
    if kind == "sphere":
        return Sphere(radius=size[0]), pose
    if kind == "capsule":
        return Capsule(radius=size[0], length=2 * size[1]), pose
    if kind == "cylinder":
        return Cylinder(radius=size[0], length=2 * size[1]), pose
    if kind == "ellipsoid":
        return Ellipsoid(radii=np.array(size[:3])), pose
    if kind == "box":  # full sizes from half sizes, doubled as Python floats: 1e308 gives inf, not a warning
        return Box(size=np.array([2 * s for s in size[:3]])), pose
    if kind == "plane":
        extent = size + [0.0] * (2 - len(size))
        return Plane(size=np.array([2 * s for s in extent[:2]]) if all(s > 0 for s in extent[:2]) else None), pose
    if kind == "hfield":
        return _heightfield(spec.hfield), pose
    mesh = spec.mesh
    assert mesh is not None  # the spec stage gives every mesh and sdf geom its mesh
    return _mesh(mesh, pose)


def _heightfield(asset: HfieldAsset | None) -> Heightfield:
    """An ``<hfield>`` as robodesc's heightfield: ``size`` (rx, ry, z, base) as full extents, the
    inline heights as the spec stage normalised them, or the file (a PNG, else MuJoCo's binary)."""
    assert asset is not None  # the spec stage resolves every hfield geom's asset
    rx, ry, top, base = asset.size
    is_png = asset.path is not None and asset.path.lower().endswith(".png")
    return Heightfield(
        uri=asset.uri or f"hfield:{asset.name}",
        size=np.array([2 * rx, 2 * ry, top]),
        path=asset.path,
        elevation=None if asset.elevation is None else asset.elevation.copy(),
        base=base,
        file_format="image" if is_png else "mujoco",
        normalize="range",  # MuJoCo maps every height field's values to 0..1
    )


def _mesh(mesh: MeshShape, pose: np.ndarray) -> tuple[Geometry, np.ndarray]:
    """A mesh geom's shape placed as MuJoCo places its vertices: ``scale * R(refquat)^T (v - refpos)``
    in the geom frame (MuJoCo then moves that frame to the mesh's centre of mass and principal axes,
    and the vertices with it, which leaves them where they are in the body).

    Inline vertices are moved into the mesh frame here, so the shape needs only the geom's pose and
    the scale. A file is drawn with `scale` and the mesh's rigid placement (`MeshFrame.placement`)."""
    scale = np.array(mesh.scale, dtype=float)
    if mesh.vertices is not None:
        rotation, refpos = mesh.reference[:3, :3], mesh.reference[:3, 3]
        vertices = (mesh.vertices - refpos) @ rotation  # R^T (v - refpos), row by row
        faces = None if mesh.faces is None else mesh.faces.copy()
        geometry = Mesh(uri=mesh.uri, scale=scale, path=None, tried=[], vertices=vertices, faces=faces)
        return geometry, pose
    geometry = Mesh(uri=mesh.uri, scale=scale, path=mesh.path, tried=mesh.tried)
    return geometry, pose @ mesh.placement


def _constraint(spec: EqualitySpec) -> Constraint:
    attrs = spec.attributes
    if spec.tag == "joint":
        assert spec.coefficients is not None  # the spec stage completes every joint equality's polycoef
        joints = tuple(j for j in (attrs.get("joint1"), attrs.get("joint2")) if j)
        return Constraint(
            kind="joint",
            elements=joints,
            name=attrs.get("name"),
            coefficients=spec.coefficients,
            location=spec.location,
        )
    return Constraint(
        kind=spec.tag,
        elements=tuple(attrs[k] for k in _EQUALITY_ELEMENTS if k in attrs),
        name=attrs.get("name"),
        location=spec.location,
        extras={"mjcf": dict(attrs)},
    )


def _actuator(spec: ActuatorSpec) -> Actuator:
    attrs = spec.attributes
    transmission = next((t for t in _TRANSMISSIONS if t in attrs and t != "slidersite"), None)
    target = attrs.get(transmission) if transmission else None
    return Actuator(
        name=attrs.get("name"),
        kind=spec.tag,
        joint=target if transmission in ("joint", "jointinparent") else None,
        gear=spec.gear[0] if spec.gear else 1.0,
        transmission=transmission or "none",
        target=target,
        location=spec.location,
        extras={"mjcf": dict(attrs)},
    )


def _configuration(joints: list[Joint], trails: list[tuple], keyframe: KeyframeSpec) -> dict[str, Any]:
    """A keyframe's value of every joint, unnamed ones included (under their generated names): its
    qpos (or, for a keyframe an attached file brought, the values it gives its joints), completed
    with the joints' references (MuJoCo's qpos0)."""
    references = [np.atleast_1d(np.asarray(j.reference, dtype=float)) for j in joints]
    full = np.concatenate(references) if joints else np.zeros(0)
    full[: len(keyframe.qpos)] = keyframe.qpos
    given = keyframe.values or {}
    values: dict[str, Any] = {}
    start = 0
    for joint, trail, reference in zip(joints, trails, references):
        size = len(reference)
        chunk = full[start : start + size].copy()
        start += size
        if trail in given:
            written = given[trail][:size]
            chunk[: len(written)] = written
        values[joint.name] = float(chunk[0]) if size == 1 else chunk
    return values


def _effort_limit(attributes: dict[str, str]) -> float | None:
    """The joint's effort limit: a symmetric `actuatorfrcrange` (-e, e), which clamps the force or
    torque all actuators together apply to the joint, as URDF's `effort` and SDF's `<effort>` do.
    None when the range is not in force (`actuatorfrclimited="false"`), absent or not symmetric
    (the range stays in `extras["mjcf"]` as written)."""
    if attributes.get("actuatorfrclimited") == "false":
        return None
    parts = (attributes.get("actuatorfrcrange") or "").split()
    try:
        low, high = (float(part) for part in parts)
    except ValueError:  # absent, or not two numbers (the reader's checks report a malformed range)
        return None
    return high if high > 0 and low == -high else None
