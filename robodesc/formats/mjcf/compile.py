"""The compile stage: what MuJoCo's compiler computes on top of the spec, done to the built model.

In MuJoCo's order (``mjCModel::Compile``): ``fusestatic`` merges bodies without joints into their
parents; every body's inertia is its ``<inertial>`` or is inferred from its geoms (solid or shell
primitives, meshes as MuJoCo processes them), bounded by ``boundmass``/``boundinertia``, balanced,
scaled by ``settotalmass``; moving bodies must have mass; ``alignfree`` moves a free body's frame to
its inertial frame. Last, the joints equalities and actuators name must exist.

The settings are the main file's compiler settings (MuJoCo compiles an attached sub-model as part
of the model that attaches it). This stage reads no XML: mesh files are read through the spec's
mesh records, on first use.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from dataclasses import dataclass, field, replace

import numpy as np

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import InvalidValue, UnresolvedReference, did_you_mean
from ...core.inertia import PRIMITIVES
from ...core.model import Body, Inertial, JointType, Model
from ...core.transforms import (
    IDENTITY,
    invert_pose,
    make_pose,
    matrix_to_quat,
    quat_to_entries,
    quat_to_matrix,
    stacked,
)
from . import inertia as mass_properties
from .mujoco_math import MJ_MINVAL
from .records import BodySpec, Compiler, GeomSpec, JointSpec, MassPart, ModelSpec, Principal


@dataclass
class _MassBody:
    """What the compile stage knows of one body: where its mass comes from, and what it computed."""

    spec: BodySpec
    geoms: list[GeomSpec]
    moving: bool  # has joints
    fused: list[MassPart] = field(default_factory=list)  # <inertial>s of bodies fusestatic merged into it
    merged: bool = False  # fusestatic merged a body into it
    unknown: bool = False  # part of its mass comes from a mesh a plugin makes, which robodesc cannot
    principal: Principal | None = None  # the compiled inertia, kept for alignfree


def compile_model(spec: ModelSpec, model: Model) -> None:
    """Apply MuJoCo's compile steps to `model`, built from `spec`."""
    compiler = spec.compiler
    bodies = _mass_bodies(spec.world)
    if compiler.fusestatic:
        _fuse_static(model, bodies, spec.referenced)
    _note_plugin_meshes(model, bodies, compiler)
    _inertias(model, bodies, compiler)
    if compiler.alignfree:
        _align_free(model, bodies)
    _check_references(model)


def _mass_bodies(top: BodySpec) -> dict[str, _MassBody]:
    """Every body of the tree below `top` (itself first), in document order."""
    found: dict[str, _MassBody] = {}
    pending = [top]
    while pending:
        spec = pending.pop()
        geoms: list[GeomSpec] = []
        inner: list[BodySpec] = []
        moving = False
        for item in spec.items:  # one pass over what the body holds
            if isinstance(item, GeomSpec):
                geoms.append(item)
            elif isinstance(item, BodySpec):
                inner.append(item)
            elif isinstance(item, JointSpec):
                moving = True
        found[spec.name] = _MassBody(spec, geoms, moving)
        pending.extend(reversed(inner))
    return found


# -- fusestatic -----------------------------------------------------------------------------------
def _fuse_static(model: Model, bodies: dict[str, _MassBody], referenced: set[str | None]) -> None:
    """compiler/@fusestatic: a body without joints merges into its parent (the world too), unless
    something refers to it by name; its geoms, sites and children move up, re-expressed."""
    referenced = referenced | {
        e.attributes.get("target") for b in model.bodies.values() for e in b.extras.get("xml", ())
    }
    for name in list(model.bodies):
        info = bodies[name]
        body = model.bodies[name]
        if body.parent is None or info.moving or name in referenced or body.joints:
            continue
        parent = bodies[body.parent]
        parent.merged = True
        pose = body.pose
        parent.geoms.extend(replace(geom, pose=pose @ geom.pose) for geom in info.geoms)
        if info.spec.inertial is not None:
            parent.fused.append(info.spec.inertial.part(pose))
        parent.fused.extend((m, pose[:3, :3] @ p + pose[:3, 3], _compose_quat(pose, q), d) for m, p, q, d in info.fused)
        _move_contents(model, name, body.parent, pose)
        del model.bodies[name]
        del bodies[name]


def _move_contents(model: Model, name: str, parent_name: str, pose: np.ndarray) -> None:
    """Shapes, kept elements, sites and child bodies of body `name` into its parent; `pose` is the
    body's pose in the parent."""
    body, parent = model.bodies[name], model.bodies[parent_name]
    for kind in ("visuals", "collisions"):
        for shape in getattr(body, kind):
            shape.pose = pose @ shape.pose
            getattr(parent, kind).append(shape)
    for extra in body.extras.get("xml", ()):
        parent.extras.setdefault("xml", []).append(extra)
    for frame in model.frames.values():
        if frame.body == name:
            frame.body, frame.pose = parent_name, pose @ frame.pose
    for child in model.bodies.values():
        if child.parent == name:
            child.parent, child.pose = parent_name, pose @ child.pose
            for jname in child.joints:
                joint = model.joints[jname]
                joint.parent, joint.origin = parent_name, pose @ joint.origin
                if joint.type is JointType.FLOATING:
                    joint.reference = np.concatenate([child.pose[:3, 3], matrix_to_quat(child.pose[:3, :3])])


def _compose_quat(pose: np.ndarray, quat: np.ndarray) -> np.ndarray:
    return matrix_to_quat(pose[:3, :3] @ quat_to_matrix(quat))


# -- inertia --------------------------------------------------------------------------------------
def _inertias(model: Model, bodies: dict[str, _MassBody], c: Compiler) -> None:
    """Body inertias in MuJoCo 4.0's order: explicit or inferred from geoms (inertiafromgeom,
    inertiagrouprange), checked, bounded and balanced; then moving bodies must have mass; then
    settotalmass (measured: a moving body too light before the scaling is refused however large
    the scaling)."""
    for name, info in bodies.items():
        if name != "world":
            _body_inertia(model.bodies[name], info, c)
    _store_inertials(model, bodies)
    _check_moving_bodies_have_mass(model, bodies)
    if c.settotalmass > 0:
        _set_total_mass(bodies, c.settotalmass)
        _store_inertials(model, bodies)


def _store_inertials(model: Model, bodies: dict[str, _MassBody]) -> None:
    """Every compiled inertia onto its body, in the body's axes; an overflow is refused.

    The products ``R diag(moments) R^T`` of all bodies are taken in one stacked matmul, which makes
    the same BLAS call per body as a matmul of each alone (the same bits), without two matmuls, a
    diagonal matrix and a centre-of-mass copy per body: each body's inertia and centre of mass are
    views of one array of the load's."""
    found: list[tuple[Body, float]] = []  # (body, mass), in the order checked
    rotations: list[float] = []  # the entries of each body's rotation, row by row (`quat_to_matrix`'s)
    positions: list[np.ndarray] = []
    moments: list[np.ndarray] = []
    finite = math.isfinite  # on the arrays' numbers: np.isfinite(...).all(), without two ufunc calls
    for name, info in bodies.items():
        p = info.principal
        if p is not None:
            body = model.bodies[name]
            if not (finite(p.mass) and all(map(finite, p.pos.tolist())) and all(map(finite, p.moments.tolist()))):
                raise InvalidValue(  # MuJoCo compiles an infinite inertia; nothing can be computed from it
                    f"the mass or inertia of body {name!r} overflows (it is not a finite number)",
                    location=body.location,
                    construct=name,
                    suggestion="check the masses, densities, sizes and positions of the body's geoms",
                )
            found.append((body, p.mass))
            rotations += quat_to_entries(p.quat)
            positions.append(p.pos)
            moments.append(p.moments)
    if not found:
        return
    count = len(found)
    turns = np.array(rotations).reshape(count, 3, 3)
    diagonals = np.zeros((count, 9))  # np.diag of each body's moments, row by row
    diagonals[:, ::4] = stacked(moments, (3,))
    diagonals.shape = (count, 3, 3)
    inertias = turns @ diagonals @ turns.transpose(0, 2, 1)
    coms = stacked(positions, (3,))
    for index, (body, mass) in enumerate(found):
        body.inertial = Inertial(mass, coms[index], inertias[index])


def _body_inertia(body: Body, info: _MassBody, c: Compiler) -> None:
    """One body's compiled inertia (`info.principal`), or no inertial at all."""
    explicit = info.spec.inertial
    low, high = c.inertiagrouprange
    use_geoms = c.inertiafromgeom == "true" or (c.inertiafromgeom == "auto" and explicit is None)
    if use_geoms:  # meshes are read only here, when a body's inertia comes from them
        counted = [g for g in info.geoms if low <= g.group <= high and not g.plugin]
        parts = [p for g in counted for p in [_geom_mass(g)] if p is not None]
    else:
        parts = [explicit.part(IDENTITY)] if explicit is not None else []
    parts += info.fused
    if not parts:  # MuJoCo bounds every body but the world, even one with nothing that has mass
        if c.boundmass > 0 or c.boundinertia > 0:
            mass, moments = mass_properties.bound_and_balance(
                0.0, np.zeros(3), boundmass=c.boundmass, boundinertia=c.boundinertia
            )
            # such a body's inertial frame is, in MuJoCo, its pose as written (measured on mujoco 4.0)
            written = info.spec.written
            if written is None:
                written = IDENTITY
            info.principal = Principal(mass, written[:3, 3].copy(), matrix_to_quat(written[:3, :3]), moments)
        else:
            body.inertial = None
        return
    try:
        if explicit is not None and explicit.full:  # MuJoCo tests a fullinertia first,
            mass_properties.check_principal_moments(explicit.moments, boundinertia=c.boundinertia)  # used or not
        if len(parts) == 1 and not info.fused:
            # one part of its own (its <inertial>, or its one geom), which MuJoCo takes as it is: combine_geoms'
            # copy of it is not needed (the part's arrays were made for it, and its moments are bounded into new
            # ones), nor an errstate (np.maximum and float arithmetic raise no floating-point warning)
            mass, pos, quat, moments = parts[0]
            mass = float(mass)
        else:
            with np.errstate(over="ignore", invalid="ignore") if len(parts) > 1 else nullcontext():
                # huge parts: refused once all are combined. Fused static bodies are checked as MuJoCo's
                # fusestatic checks them: boundinertia does not help
                bound = 0.0 if info.merged else c.boundinertia
                combined = mass_properties.combine_geoms(parts, boundinertia=bound)
            mass, pos, quat, moments = combined.mass, combined.pos, combined.quat, combined.inertia
        mass, moments = mass_properties.bound_and_balance(
            mass, moments, boundmass=c.boundmass, boundinertia=c.boundinertia, balanceinertia=c.balanceinertia
        )
    except ValueError as exc:
        raise InvalidValue(
            f"the inertia of body {body.name!r} is not valid: {exc}",
            location=body.location,
            construct=body.name,
            suggestion='set balanceinertia="true" in <compiler>, or fix the inertia values',
        ) from None
    info.principal = Principal(mass, pos, quat, np.asarray(moments))


def _set_total_mass(bodies: dict[str, _MassBody], total_wanted: float) -> None:
    """compiler/@settotalmass: every mass and inertia scaled so that the masses add up to it; as
    MuJoCo 4.0 scales (measured), the factor is at least mjMINVAL."""
    total = sum(i.principal.mass for i in bodies.values() if i.principal is not None)
    if total > MJ_MINVAL:
        scale = max(MJ_MINVAL, total_wanted / total)
        for info in bodies.values():
            if info.principal is not None:
                info.principal.mass *= scale
                with np.errstate(over="ignore"):  # an overflow is refused by the caller
                    info.principal.moments = info.principal.moments * scale


def _geom_mass(geom: GeomSpec) -> MassPart | None:
    """(mass, pos, quat, principal moments) of one geom's inertia in body coordinates, or None
    for a massless geom (planes, height fields, zero mass)."""
    try:
        if geom.kind in PRIMITIVES:
            pose = geom.pose
            with np.errstate(over="ignore", invalid="ignore"):  # huge sizes or masses: refused once combined
                mass, tensor = mass_properties.primitive_mass_properties(
                    geom.kind, geom.size, density=geom.density, mass=geom.mass, shell=geom.shell
                )
        elif geom.kind in ("mesh", "sdf") and geom.mesh is not None:
            mesh = geom.mesh.processed()
            mass, tensor = mesh.mass_properties(density=geom.density, mass=geom.mass)
            pose = geom.pose @ make_pose(quat_to_matrix(mesh.orientation), mesh.com_offset)
        else:
            return None
    except ValueError as exc:
        raise InvalidValue(
            f"cannot compute the inertia of this geom: {exc}", location=geom.location, construct=geom.kind
        ) from None
    if mass <= 0:
        return None
    return mass, pose[:3, 3].copy(), matrix_to_quat(pose[:3, :3]), np.diag(tensor).copy()


def _check_moving_bodies_have_mass(model: Model, bodies: dict[str, _MassBody]) -> None:
    children: dict[str, list[str]] = {}
    for name, body in model.bodies.items():
        if body.parent is not None:
            children.setdefault(body.parent, []).append(name)
    for name, info in bodies.items():
        if info.moving and not _welded_body_has_mass(bodies, name, children):
            raise InvalidValue(
                "mass and inertia of moving bodies must be larger than mjMINVAL",
                location=model.bodies[name].location,
                construct=name,
                suggestion="give the body an <inertial> or a geom with mass",
            )


def _note_plugin_meshes(model: Model, bodies: dict[str, _MassBody], c: Compiler) -> None:
    """A geom whose mesh a plugin makes adds mass in MuJoCo that robodesc cannot compute: say so at
    the geom, and let its body pass the moving-body mass check (MuJoCo decides it on that mass)."""
    low, high = c.inertiagrouprange
    for name, info in bodies.items():
        if not (c.inertiafromgeom == "true" or (c.inertiafromgeom == "auto" and info.spec.inertial is None)):
            continue
        for geom in info.geoms:
            if geom.mesh is not None and geom.plugin is not None and low <= geom.group <= high:
                info.unknown = True
                model.diagnostics.append(
                    Diagnostic(
                        Severity.WARNING,
                        "not-modelled",
                        f"the mass and inertia of this geom come from mesh {geom.mesh.name!r}, which plugin "
                        f"instance {geom.plugin!r} makes; robodesc cannot make it, so body {name!r} "
                        "has them without this geom",
                        geom.location,
                        "give the body an <inertial> to state its mass",
                    )
                )


def _has_mass(info: _MassBody) -> bool:
    if info.unknown:
        return True
    p = info.principal  # (the moments compared as plain floats: np.all's verdict, NaN failing, without its wrapper)
    return p is not None and p.mass >= MJ_MINVAL and all(moment >= MJ_MINVAL for moment in p.moments.tolist())


def _welded_body_has_mass(bodies: dict[str, _MassBody], name: str, children: dict[str, list[str]]) -> bool:
    """MuJoCo 4.0's check (measured): a moving body passes when it, or one of the bodies welded
    below it (reached through bodies without joints, at any depth), has on its own a mass and three
    principal moments of at least mjMINVAL. Masses of several bodies are not added up."""
    stack = [name]
    while stack:
        current = stack.pop()
        if _has_mass(bodies[current]):
            return True
        stack.extend(child for child in children.get(current, ()) if not bodies[child].moving)
    return False


# -- alignfree and references ---------------------------------------------------------------------
def _align_free(model: Model, bodies: dict[str, _MassBody]) -> None:
    """compiler/@alignfree: a free body without child bodies gets its inertial frame as its frame."""
    has_children = {b.parent for b in model.bodies.values()}
    for name, info in bodies.items():
        body = model.bodies[name]
        joints = [model.joints[j] for j in body.joints]
        if name in has_children or not joints or joints[0].type is not JointType.FLOATING or info.principal is None:
            continue
        shift = make_pose(quat_to_matrix(info.principal.quat), info.principal.pos)
        back = invert_pose(shift)
        body.pose = body.pose @ shift
        for shape in (*body.visuals, *body.collisions):
            shape.pose = back @ shape.pose
        for frame in model.frames.values():
            if frame.body == name:
                frame.pose = back @ frame.pose
        joint = joints[0]
        joint.origin = body.pose
        joint.reference = np.concatenate([body.pose[:3, 3], matrix_to_quat(body.pose[:3, :3])])
        body.inertial = Inertial(info.principal.mass, np.zeros(3), np.diag(info.principal.moments))


def _check_references(model: Model) -> None:
    """The joints that joint equalities and actuators name exist."""
    joints = model.joints
    for constraint in model.constraints:
        if constraint.kind == "joint":
            for name in constraint.elements:
                if name not in joints:
                    raise UnresolvedReference(
                        f"equality refers to unknown joint {name!r}",
                        location=constraint.location,
                        construct=name,
                        suggestion=did_you_mean(name, joints),
                    )
    for actuator in model.actuators:
        if actuator.joint is not None and actuator.joint not in joints:
            raise UnresolvedReference(
                f"actuator refers to unknown joint {actuator.joint!r}",
                location=actuator.location,
                construct=actuator.joint,
                suggestion=did_you_mean(actuator.joint, joints),
            )
