"""The build stage: a `ModelSpec` (records.py) into a `core.Model`.

This stage maps MJCF's notions onto robodesc's format-neutral ones: a body's pose in its parent,
joint types and origins (a hinge with a range is revolute, without one continuous; a free joint is
floating, its reference the pose as written), geoms' shapes (made by the spec stage as it reads
them) as collision and visual shapes, sites as frames, equalities as constraints, actuators with
their transmission, keyframes as named configurations completed with the joints' references. It
never looks at XML: everything it needs is in the records, already parsed and checked by the spec
stage, so it has nothing to refuse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    JointSpec,
    KeyframeSpec,
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
            # its shape lists copied to their length: a list grown by appends keeps room for up to
            # three more shapes (a body of one shape keeps 88 bytes per list, its copy 64)
            if body.visuals:
                body.visuals = body.visuals[:]
            if body.collisions:
                body.collisions = body.collisions[:]
        elif isinstance(item, GeomSpec):  # (the most common item first)
            _add_shape(body, item)
        elif isinstance(item, BodySpec):
            child = model.bodies[item.name] = Body(
                name=item.name, parent=spec.name, pose=item.pose, location=item.location
            )
            pending.append((item, child, iter(item.items)))
        elif isinstance(item, JointSpec):
            joint = _joint(item, body, spec.plain_pose)
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


def _joint(spec: JointSpec, body: Body, plain_pose: bool) -> Joint:
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
        origin=_origin(spec, body, plain_pose),
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


def _origin(spec: JointSpec, body: Body, plain_pose: bool) -> np.ndarray:
    """The joint's frame in the parent body: ``body.pose @ make_pose(translation=spec.anchor)``.

    A body's first joint anchored at its origin (most joints) has the body's pose itself, as a URDF
    joint's origin is its child's pose: the product would be the same bits (the anchor's matrix has
    the identity's values, and the pose is `records.plain`, as `BodySpec.plain_pose` says without
    looking at its entries) in an array of its own per joint. A second joint of the body gets its own
    array: two joints never share one."""
    pose = body.pose
    if plain_pose and not body.joints and not any(spec.anchor.tolist()):  # (floats: no numpy call)
        return pose
    return pose @ make_pose(translation=spec.anchor)


def _add_shape(body: Body, spec: GeomSpec) -> None:
    """A geom's shape as a collision shape (when it collides) and a visual one (when it is drawn)."""
    if spec.collides:
        body.collisions.append(spec.shape)
    if spec.drawn:
        body.visuals.append(spec.shape)


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
    transmission: str | None = None
    for name in _TRANSMISSIONS:  # (a loop, not next() over a generator, which is then closed with GeneratorExit)
        if name in attrs and name != "slidersite":
            transmission = name
            break
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
    if len(parts) != 2:  # absent (most joints: no exception raised for them), or not two numbers
        return None
    try:
        low, high = float(parts[0]), float(parts[1])
    except ValueError:  # not numbers (the reader's checks report a malformed range)
        return None
    return high if high > 0 and low == -high else None
