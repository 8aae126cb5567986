"""The spec stage, element by element: one ``<joint>``, ``<inertial>``, ``<geom>`` or ``<site>``
into its record, with the default class applied, every value parsed and checked in the order
MuJoCo checks it, and angles in radians.

What MuJoCo compiles but silently overrides is noted here too: ``fromto-overrides-pose`` at once,
attributes a default class gives but MuJoCo ignores (checks.py has the rules) for one
``class-attribute-ignored`` finding per class once the whole model is read (spec.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import InvalidValue, MissingAttribute
from ...core.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Geometry,
    Heightfield,
    Material,
    Mesh,
    Plane,
    Shape,
    Sphere,
)
from ...core.inertia import PRIMITIVE_SIZES, PRIMITIVES
from ...core.resources import ResourceRefused
from ...core.transforms import IDENTITY, make_pose, quat_between, quat_to_entries, quat_to_matrix
from ..xml import Element
from . import inertia as mass_properties
from .attributes import ORIENTATION_NAMES, ORIENTATIONS, Attributes, merged
from .checks import FROMTO_KINDS, MAYBE_IGNORED, ignored_class_attributes
from .mesh_assets import MeshAsset
from .mujoco_math import MJ_MINVAL
from .records import ClassedGeom, GeomSpec, HfieldAsset, JointSpec, Principal, Rotation, SiteSpec, plain, pose_array

GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")
JOINT_TYPES = ("free", "ball", "slide", "hinge")
_Z = (0.0, 0.0, 1.0)
#: The attributes of a joint's dynamics (`_read_joint_limits_and_dynamics`).
_DYNAMICS = frozenset(("damping", "frictionloss", "stiffness", "armature"))


# -- joints ---------------------------------------------------------------------------------------
def read_joint(read: Attributes, element: Element, frame: np.ndarray, active: str | None) -> JointSpec:
    """A joint of the body being read; `frame` places the joint's element in the body.

    A robot's left and right limbs have joints that write the same axis and range under the same
    class: a joint placed right in its body that writes what one read before it wrote, but its name,
    takes that joint's values (`FileScope.joint_classes`), and reads only its name."""
    if element.tag == "freejoint":
        attrs = element.attrib  # <freejoint> takes no defaults
        kind = "free"
        note_ignored(read, element, attrs, active, kind)
        return _joint(read, element, attrs, kind, frame)
    own = element.attrib
    attrs = read.defaulted(element, active)
    key = None
    if frame is IDENTITY:
        key = (own.get("class") or active or "main", tuple([item for item in own.items() if item[0] != "name"]))
        known = read.scope.joint_classes.get(key)
        if known is not None:
            return _classed_joint(read, element, attrs, active, *known)
    kind = read.keyword(element, attrs, "type", JOINT_TYPES, "hinge")
    ignored = note_ignored(read, element, attrs, active, kind)
    joint = _joint(read, element, attrs, kind, frame)
    if key is not None:
        read.scope.joint_classes[key] = (joint, ignored)
    return joint


def _classed_joint(
    read: Attributes,
    element: Element,
    attrs: dict[str, str],
    active: str | None,
    known: JointSpec,
    ignored: dict[str, str] | None,
) -> JointSpec:
    """A joint that writes what `known` wrote but its name: `known`'s values (its arrays and
    attributes copied: no two records share them), its own name and location, checked in the order
    `_joint` checks them (only its name can be wrong: everything else was read from the same text)."""
    if ignored:
        record_ignored(read, element, attrs, active, known.kind, ignored)
    name = read.name(attrs, "joint")
    names = read.state.joint_names
    read.unique(element, name, "joint", names)
    names.add(name)
    return JointSpec(
        name,
        known.kind,
        known.anchor.copy(),
        known.axis.copy(),
        known.limits,
        known.reference,
        known.spring_reference,
        known.damping,
        known.friction,
        known.stiffness,
        known.armature,
        dict(known.attributes),
        read.where(element),
    )


def generated_joint(read: Attributes, element: Element, active: str | None, written: dict[str, str]) -> JointSpec:
    """A joint MuJoCo adds on its own for `element` (a ``<flexcomp>`` vertex's slides): the attributes
    it sets (`written`, with the type) over the joint defaults of the class in force, `active`."""
    classes = read.resolve(
        element, read.scope.defaults, active or "main", "default class name", "define it in <default>"
    )
    attrs = merged(classes.get("joint", {}), written)
    return _joint(read, element, attrs, attrs["type"], IDENTITY)


def _joint(read: Attributes, element: Element, attrs: dict[str, str], kind: str, frame: np.ndarray) -> JointSpec:
    name = read.name(attrs, "joint")
    names = read.state.joint_names
    kept = read.state.texts.setdefault
    read.unique(element, name, "joint", names)
    pos = read.floats(element, attrs, "pos", 3, [0.0, 0.0, 0.0])
    axis = read.floats(element, attrs, "axis", 3, [0.0, 0.0, 1.0])
    if kind == "free":  # it moves the body's own frame: anchor and axis as written, unused
        anchor, direction = np.array(pos), np.array(axis)
    else:
        anchor, direction = _anchor_and_axis(read, element, kind, pos, axis, frame)
    joint = JointSpec(
        name=name,
        kind=kind,
        anchor=anchor,
        axis=direction,
        limits=None,
        reference=0.0,
        spring_reference=0.0,
        damping=0.0,
        friction=0.0,
        stiffness=0.0,
        armature=0.0,
        attributes={k: kept(v, v) for k, v in attrs.items() if k not in ("name", "class")},
        location=read.where(element),
    )
    if kind != "free":
        _read_joint_limits_and_dynamics(read, element, attrs, joint)
    names.add(name)
    return joint


def _anchor_and_axis(
    read: Attributes, element: Element, kind: str, pos: list[float], axis: list[float], frame: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The anchor and unit axis of a hinge, slide or ball joint in body coordinates (`frame` places its
    element in the body)."""
    norm = math.hypot(*axis)  # neither overflows (1e200) nor underflows as a sum of squares would
    if norm < MJ_MINVAL and kind in ("hinge", "slide"):
        raise read.error(
            InvalidValue,
            element,
            "axis too small in joint",
            construct=f"{element.tag}/@axis",
            suggestion='give the axis direction, e.g. axis="0 0 1"',
        )
    unit = [c / norm for c in axis] if norm >= MJ_MINVAL else list(_Z)  # numpy's division, number by number
    if frame is IDENTITY and not any(c == 0.0 and math.copysign(1.0, c) < 0.0 for c in unit):
        # a joint right in its body (most are): the products below, bit for bit, without the matrix
        # products. Each entry of IDENTITY @ v is v's own plus +-0 terms: exact when non-zero, and +0
        # when v's is +0 (a sum with a +0 term); adding the +0 translation also makes a -0 anchor entry
        # +0, as `+ 0.0` does. Only a -0 axis entry could come out either way: it takes the products.
        return np.array([p + 0.0 for p in pos]), np.array(unit)
    rotation = frame[:3, :3]  # a joint inside a <frame>: into body coordinates
    return rotation @ np.array(pos) + frame[:3, 3], rotation @ np.array(unit)


def _read_joint_limits_and_dynamics(
    read: Attributes, element: Element, attrs: dict[str, str], joint: JointSpec
) -> None:
    """Limits, reference and dynamics of a hinge, slide or ball joint."""
    kind, angle = joint.kind, read.scope.compiler.angle
    limited, low, high = _limited(read, element, attrs, kind)
    if kind == "hinge":
        joint.reference = angle(read.floats(element, attrs, "ref", 1, [0.0])[0])
        if limited:
            joint.limits = (angle(low), angle(high))
        joint.spring_reference = angle(read.floats(element, attrs, "springref", 1, [0.0])[0])
    elif kind == "slide":
        joint.reference = read.floats(element, attrs, "ref", 1, [0.0])[0]
        if limited:
            joint.limits = (low, high)
        joint.spring_reference = read.floats(element, attrs, "springref", 1, [0.0])[0]
    elif limited:
        joint.limits = (0.0, angle(high))
    if _DYNAMICS.isdisjoint(attrs):  # none written or inherited (the record's 0.0s): nothing to read
        return
    # MuJoCo 4 reads damping and stiffness as polynomials of up to 3 terms; the first is the linear one
    joint.damping = (read.sizes(element, attrs, "damping", 3) or [0.0])[0]
    joint.friction = read.floats(element, attrs, "frictionloss", 1, [0.0])[0]
    joint.stiffness = (read.sizes(element, attrs, "stiffness", 3) or [0.0])[0]
    joint.armature = read.floats(element, attrs, "armature", 1, [0.0])[0]


def _limited(read: Attributes, element: Element, attrs: dict[str, str], kind: str) -> tuple[bool, float, float]:
    """Whether the joint is limited, with its range (read once for the caller too), by MuJoCo's rules
    on the values in force (its own or its class's): ``limited="auto"`` (or absent) means lower <
    upper when autolimits is on, and with autolimits off is an error when the range is not 0 0
    (MuJoCo's default range); a limited ball joint needs range[0] = 0 (its upper bound is any
    number), a limited hinge or slide lower < upper.
    An unlimited joint's range is never checked: a ball joint may inherit a hinge's range."""
    value = attrs.get("limited", "auto")
    if value not in ("true", "false", "auto"):
        raise read.error(
            InvalidValue, element, f"limited={value!r} must be true, false or auto", construct=f"{element.tag}/@limited"
        )
    low, high = read.floats(element, attrs, "range", 2, [0.0, 0.0])
    if value == "auto":
        if not (read.scope.compiler.autolimits or (low == 0 and high == 0)):
            raise read.error(
                InvalidValue,
                element,
                "joint has `range` but not `limited`",
                construct=f"{element.tag}/@range",
                suggestion='set autolimits="true" in <compiler>, or give limited="true" or "false"',
            )
        limited = low < high
    else:
        limited = value == "true"
    if limited and kind == "ball":
        if low != 0:
            raise read.error(
                InvalidValue,
                element,
                "range[0] should be 0 in ball joint",
                construct=f"{element.tag}/@range",
                suggestion='write range="0 max-angle"',
            )
    elif limited and not low < high:
        raise read.error(
            InvalidValue,
            element,
            "range[0] should be smaller than range[1] in joint",
            construct=f"{element.tag}/@range",
            suggestion='write range="lower upper"',
        )
    return limited, low, high


# -- inertial -------------------------------------------------------------------------------------
def read_inertial(read: Attributes, element: Element) -> Principal:
    """An <inertial>: mass, centre of mass and inertia, in principal form (fullinertia diagonalised
    as MuJoCo does)."""
    attrs = element.attrib
    mass = _required(read, element, "mass", 1, 'add mass="..."')
    pos = _required(read, element, "pos", 3, 'add pos="x y z" (the centre of mass in the body frame)')
    diag = read.floats(element, attrs, "diaginertia", 3)
    full = read.floats(element, attrs, "fullinertia", 6)
    if (diag is None) == (full is None):
        raise read.error(
            MissingAttribute,
            element,
            "<inertial> needs exactly one of diaginertia and fullinertia",
            construct="inertial",
            suggestion='add diaginertia="ixx iyy izz"',
        )
    if full is not None:
        read.require(
            not any(n in element.attrib for n in ORIENTATIONS),
            InvalidValue,
            element,
            "fullinertia and an inertial orientation cannot both be given",
            construct="inertial/@fullinertia",
        )
        ixx, iyy, izz, ixy, ixz, iyz = full
        with np.errstate(all="ignore"):  # huge values overflow in the Jacobi rotations: refused below
            moments, quat = mass_properties.principal_axes(
                np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            )
        read.require(
            np.isfinite(moments).all() and np.isfinite(quat).all(),
            InvalidValue,
            element,
            "fullinertia has no principal axes: its values are so large that computing them overflows",
            construct="inertial/@fullinertia",
            suggestion="give the inertia in smaller units",
        )
    else:
        moments, quat = np.array(diag), read.quat(element, attrs)
    return Principal(mass[0], np.array(pos), np.asarray(quat, dtype=float), np.asarray(moments), full=full is not None)


def _required(read: Attributes, element: Element, name: str, count: int, suggestion: str) -> list[float]:
    values = read.floats(element, element.attrib, name, count)
    if values is None:
        raise read.error(
            MissingAttribute,
            element,
            f"<inertial> needs a {name}",
            construct=f"inertial/@{name}",
            suggestion=suggestion,
        )
    return values


# -- geoms ----------------------------------------------------------------------------------------
def read_geom(read: Attributes, element: Element, frame: np.ndarray, active: str | None) -> GeomSpec:
    """A geom of the body being read; `frame` places the geom's element in the body.

    Most geoms write only a class, a name, a mesh and a material, and the others of a robot come in
    pairs (its left and right limbs): all but a geom's `_PER_GEOM` values are the same for every geom
    placed right in its body that has the same class and writes the same other attributes
    (`ClassedGeom`). The first one is read in full, the others take what it gave and read only their
    own values."""
    attrs = read.defaulted(element, active)
    own = element.attrib
    key = None
    if frame is IDENTITY:
        written = () if _PER_GEOM.issuperset(own) else tuple([i for i in own.items() if i[0] not in _PER_GEOM])
        key = (own.get("class") or active or "main", written, bool(attrs.get("mesh")))
        known = read.scope.geom_classes.get(key)
        if known is not None:
            return _classed_geom(read, element, attrs, active, known)
    kind = read.keyword(element, attrs, "type", GEOM_TYPES, "sphere")
    pose, size = geom_pose(read, element, attrs, kind, read.sizes(element, attrs, "size", 3), frame)
    ignored = note_ignored(read, element, attrs, active, kind)
    contype = read.integer(element, attrs, "contype", 1)
    conaffinity = read.integer(element, attrs, "conaffinity", 1)
    group = read.integer(element, attrs, "group", 0)
    asset = _mesh_asset(read, element, attrs, kind)
    made_by = _plugin_instance(asset.element) if asset is not None else None
    fitted = False
    if asset is not None and kind in PRIMITIVES:  # sized and placed to fit the mesh (MuJoCo's fitting)
        fitted = True
        if made_by is None:
            size, pose = _fitted(read, element, attrs, kind, asset, pose)
        else:
            read.state.diagnose(
                Severity.WARNING,
                "not-modelled",
                f"cannot fit a {kind} to mesh {asset.name!r}: plugin instance {made_by!r} makes it, and robodesc "
                "cannot; the geom keeps the size written",
                read.where(element),
            )
    density = read.floats(element, attrs, "density", 1, [1000.0])[0]
    mass = read.floats(element, attrs, "mass", 1, None)
    shell = read.boolean(element, attrs, "shellinertia", False)
    if kind in PRIMITIVE_SIZES:
        _check_size(read, element, kind, size)
    mesh_shape = _mesh_geometry(read, asset, made_by) if asset is not None and kind in ("mesh", "sdf") else None
    collides = bool(contype or conaffinity)
    discarded = not collides and read.scope.compiler.discardvisual  # MuJoCo drops it but still counts its mass
    name = read.name(attrs, "geom") if attrs.get("name") else None
    rgba = read.floats(element, attrs, "rgba", 4, None)
    classed = ClassedGeom(
        kind=kind,
        size=size,
        pose=pose,
        ignored=ignored,
        mass=mass[0] if mass else None,
        density=density,
        group=group,
        contype=contype,
        conaffinity=conaffinity,
        shell=shell,
        drawn=not discarded and (group <= 2 or not collides),  # shown by default, or drawn and never collides
        rgba=rgba,
        plain_pose=mesh_shape is not None and plain(pose),
    )
    # not shared: a fitted size and pose (they depend on the mesh), nor an orientation written beside
    # fromto (noted for each geom that writes it)
    if key is not None and not fitted and (ORIENTATION_NAMES.isdisjoint(own) or "fromto" not in attrs):
        read.scope.geom_classes[key] = classed
    return _geom(read, element, attrs, classed, name, asset, made_by, mesh_shape, size, pose)


#: What each geom reads of its own (`_classed_geom`), whatever the others sharing its values write.
_PER_GEOM = frozenset(("class", "name", "mesh", "material"))


def _classed_geom(
    read: Attributes, element: Element, attrs: dict[str, str], active: str | None, known: ClassedGeom
) -> GeomSpec:
    """A geom whose values but its `_PER_GEOM` ones are those of a geom read before it (`known`): only
    those are read, in the order `read_geom` reads them."""
    kind = known.kind
    if known.ignored:
        record_ignored(read, element, attrs, active, kind, known.ignored)
    asset = _mesh_asset(read, element, attrs, kind)
    made_by = _plugin_instance(asset.element) if asset is not None else None
    mesh_shape = _mesh_geometry(read, asset, made_by) if asset is not None and kind in ("mesh", "sdf") else None
    name = read.name(attrs, "geom") if attrs.get("name") else None
    # a mesh file's shape has a pose of its own (`_geom`): the record's may then be the shared one,
    # which nobody changes (the compile stage reads it, and makes new ones); any other shape's is it
    pose = known.pose if mesh_shape is not None and mesh_shape[1] is not None else known.pose.copy()
    return _geom(read, element, attrs, known, name, asset, made_by, mesh_shape, list(known.size), pose)


def _geom(
    read: Attributes,
    element: Element,
    attrs: dict[str, str],
    classed: ClassedGeom,
    name: str | None,
    asset: MeshAsset | None,
    made_by: str | None,
    mesh_shape: tuple[Mesh, np.ndarray | None] | None,
    size: list[float],
    pose: np.ndarray,
) -> GeomSpec:
    """The record of a geom, with its shape: what its class gives (`classed`) and its own values;
    `mesh_shape` is a mesh geom's mesh and the pose of its vertices in the geom frame (`_mesh_geometry`)."""
    kind = classed.kind
    material = _material(read, attrs, classed.rgba)
    geometry: Geometry
    shape_pose = pose
    if mesh_shape is not None:
        geometry, placement = mesh_shape
        if placement is None:
            shape_pose = pose
        elif classed.plain_pose and asset is not None and asset.frame().identity:  # (most mesh geoms)
            shape_pose = pose.copy()  # `pose @ placement`, bit for bit (records.plain)
        else:
            shape_pose = pose @ placement
    elif kind == "hfield":
        geometry = _heightfield(_hfield(read, element, attrs))
    else:
        geometry = _primitive(kind, size)
    mjcf: dict[str, Any] = {"contype": classed.contype, "conaffinity": classed.conaffinity, "group": classed.group}
    if asset is not None and mesh_shape is not None:
        mjcf["mesh"], mjcf["mesh_location"] = asset.name, asset.location
    return GeomSpec(
        shape=Shape(geometry=geometry, pose=shape_pose, name=name, material=material, extras={"mjcf": mjcf}),
        collides=bool(classed.contype or classed.conaffinity),
        drawn=classed.drawn,
        kind=kind,
        size=size,
        pose=pose,
        mass=classed.mass,
        density=classed.density,
        group=classed.group,
        shell=classed.shell,
        mesh=asset if mesh_shape is not None else None,
        plugin=made_by if mesh_shape is not None else None,
        locator=read,
        element=element,
    )


def _primitive(kind: str, size: list[float]) -> Geometry:
    """The shape of a primitive geom (or a plane) of this size as MuJoCo compiles it (half sizes)."""
    if kind == "sphere":
        return Sphere(radius=size[0])
    if kind == "capsule":
        return Capsule(radius=size[0], length=2 * size[1])
    if kind == "cylinder":
        return Cylinder(radius=size[0], length=2 * size[1])
    if kind == "ellipsoid":
        return Ellipsoid(radii=np.array(size[:3]))
    if kind == "box":  # full sizes from half sizes, doubled as Python floats: 1e308 gives inf, not a warning
        return Box(size=np.array([2 * s for s in size[:3]]))
    assert kind == "plane"  # (mesh, sdf and hfield geoms have their own)
    extent = size + [0.0] * (2 - len(size))
    return Plane(size=np.array([2 * s for s in extent[:2]]) if all(s > 0 for s in extent[:2]) else None)


def _heightfield(asset: HfieldAsset) -> Heightfield:
    """An ``<hfield>`` as robodesc's heightfield: ``size`` (rx, ry, z, base) as full extents, the
    inline heights as the spec stage normalised them, or the file (a PNG, else MuJoCo's binary)."""
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


def _hfield(read: Attributes, element: Element, attrs: dict[str, str]) -> HfieldAsset:
    """The height field an hfield geom draws: one of its file's ``<hfield>`` assets."""
    name = attrs.get("hfield")
    if name is None:
        raise read.error(
            MissingAttribute,
            element,
            "an hfield geom needs an hfield attribute",
            construct="geom/@hfield",
            suggestion='add hfield="<asset hfield name>"',
        )
    return read.resolve(element, read.scope.hfields, name, "hfield", "declare it in <asset>")


def _mesh_asset(read: Attributes, element: Element, attrs: dict[str, str], kind: str) -> MeshAsset | None:
    """The mesh a geom names: a mesh or sdf geom's shape, or the mesh a primitive is fitted to."""
    mesh_name = attrs.get("mesh")
    if kind not in ("mesh", "sdf") and not mesh_name:
        return None
    if mesh_name is None:
        raise read.error(
            MissingAttribute,
            element,
            "a mesh geom needs a mesh attribute",
            construct="geom/@mesh",
            suggestion='add mesh="<asset mesh name>"',
        )
    return read.resolve(element, read.scope.meshes, mesh_name, "mesh", "declare it in <asset>")


def _fitted(
    read: Attributes, element: Element, attrs: dict[str, str], kind: str, asset: MeshAsset, pose: np.ndarray
) -> tuple[list[float], np.ndarray]:
    """The size and pose of a primitive fitted to a mesh, as MuJoCo fits it."""
    try:
        fitted, offset_pos, offset_quat = mass_properties.fit_primitive_to_mesh(
            kind,
            asset.processed(),
            fitaabb=read.scope.compiler.fitaabb,
            fitscale=read.floats(element, attrs, "fitscale", 1, [1.0])[0],
        )
    except ValueError as exc:
        raise read.error(
            InvalidValue, element, f"cannot fit a {kind} to mesh {asset.name!r}: {exc}", construct="geom/@mesh"
        ) from None
    return list(fitted), pose @ make_pose(quat_to_matrix(offset_quat), offset_pos)


def _check_size(read: Attributes, element: Element, kind: str, size: list[float]) -> None:
    """A primitive needs its sizes, all positive."""
    count = PRIMITIVE_SIZES[kind]
    if len(size) < count or any([s <= 0 for s in size[:count]]):
        raise read.error(
            InvalidValue,
            element,
            f"{kind} geom needs {count} positive size value(s)",
            construct="geom/@size",
            suggestion=f"give size with {count} positive numbers",
        )


def _plugin_instance(element: Element) -> str | None:
    """The plugin instance that makes a ``<mesh>`` (MuJoCo's SDF plugins: a torus, a gear, ...), if any."""
    if not len(element):  # a mesh file's <mesh> (nearly all): no child, no plugin
        return None
    plugin = next((child for child in element if child.tag == "plugin"), None)
    return None if plugin is None else plugin.get("instance") or plugin.get("plugin") or "unnamed"


def _mesh_geometry(read: Attributes, asset: MeshAsset, made_by: str | None) -> tuple[Mesh, np.ndarray | None]:
    """What a mesh geom draws, and the pose of the mesh's vertices in the geom frame (None: the geom
    frame itself). A mesh file that does not exist is noted (MuJoCo would refuse it). A mesh a plugin
    makes (`made_by`, the instance) has no geometry robodesc can read (compile.py leaves it out of
    masses).

    The vertices are placed as MuJoCo places them: ``scale * R(refquat)^T (v - refpos)`` in the geom
    frame (MuJoCo then moves that frame to the mesh's centre of mass and principal axes, and the
    vertices with it, which leaves them where they are in the body). Inline vertices are moved into
    the mesh frame here, so the shape needs only the geom's pose and the scale; a file is drawn with
    the scale and the mesh's rigid placement (`MeshFrame.placement`)."""
    frame = asset.frame()
    scale = frame.scale.copy()
    if made_by is not None:
        return Mesh(uri=f"plugin:{made_by}", scale=scale, path=None, tried=[]), frame.placement
    uri = asset.attrs.get("file") or f"mesh:{asset.attrs.get('name', '')}"
    path, tried = None, []
    if asset.path is not None:
        tried = [asset.path]
        checked = read.state.context.cache_for("mjcf-mesh-checked")  # files found fit, once per load
        try:  # a device, a FIFO or a file over the limit is no mesh to draw: say which it is
            path = checked.get(asset.path)
            if path is None:
                path = checked[asset.path] = read.state.context.check(asset.path, kind="mesh", what="mesh file")
        except (OSError, ResourceRefused) as exc:
            why = exc.message if isinstance(exc, ResourceRefused) else f"mesh file {asset.path!r} does not exist"
            read.state.diagnose(
                Severity.WARNING, "mesh-not-found", why, asset.location, "check meshdir/assetdir in <compiler>"
            )
    else:  # inline data: kept for drawing (process_mesh checks it when MuJoCo would)
        written = read.floats(asset.element, asset.attrs, "vertex", None, None)
        if written is not None and len(written) % 3 == 0:
            rotation, refpos = frame.reference[:3, :3], frame.reference[:3, 3]
            # R^T (v - refpos), row by row
            vertices = (np.array(written, dtype=float).reshape(-1, 3) - refpos) @ rotation
            written_faces = read.floats(asset.element, asset.attrs, "face", None, None)
            faces = None
            if written_faces and len(written_faces) % 3 == 0:
                faces = np.array(written_faces, dtype=float).reshape(-1, 3)
            return Mesh(uri=uri, scale=scale, path=None, tried=[], vertices=vertices, faces=faces), None
    return Mesh(uri=uri, scale=scale, path=path, tried=tried), frame.placement


def _material(read: Attributes, attrs: dict[str, str], rgba: list[float] | None) -> Material | None:
    """A geom's material: the named one of its file (or one of that name alone), else its `rgba`."""
    material = attrs.get("material")
    if material is not None:
        return read.scope.materials.get(material) or Material(name=material)
    if rgba is not None:
        return Material(color=np.array(rgba))
    return None


def geom_pose(
    read: Attributes, element: Element, attrs: dict[str, str], kind: str, size: list[float], frame: np.ndarray
) -> tuple[np.ndarray, list[float]]:
    """The pose of a geom or site in its body (`frame` places its element there) and its size;
    `fromto` sets both (z along from -> to)."""
    fromto = read.floats(element, attrs, "fromto", 6, None)
    if fromto is None:
        return read.placed_pose(element, attrs, frame), size
    if kind not in FROMTO_KINDS:
        raise read.error(
            InvalidValue,
            element,
            f"fromto is not allowed for {kind} {element.tag}s",
            construct=f"{element.tag}/@fromto",
            suggestion="use fromto with capsule, cylinder, box or ellipsoid",
        )
    # plain floats: the same IEEE arithmetic as numpy's element-wise operations, without an array per
    # step (an overflowing difference is inf without a warning, as under numpy's errstate before)
    sx, sy, sz, ex, ey, ez = fromto
    direction = (ex - sx, ey - sy, ez - sz)
    length = math.hypot(*direction)
    if length < MJ_MINVAL:
        raise read.error(InvalidValue, element, "fromto has zero length", construct=f"{element.tag}/@fromto")
    if not math.isfinite(length):
        raise read.error(
            InvalidValue, element, "fromto is too long (its length overflows)", construct=f"{element.tag}/@fromto"
        )
    _note_fromto(read, element, attrs)
    radius = size[0] if size else 0.0
    # MuJoCo: the first size is the radius (capsule, cylinder) or both cross half-sizes (box, ellipsoid)
    size = [radius, length / 2] if kind in ("capsule", "cylinder") else [radius, radius, length / 2]
    middle = [(sx + ex) / 2, (sy + ey) / 2, (sz + ez) / 2]
    if not all(map(math.isfinite, middle)):  # the sum overflows: numpy's way, with its overflow warning, as before
        middle = list((np.array(fromto[:3]) + np.array(fromto[3:])) / 2)
        return frame @ make_pose(quat_to_matrix(quat_between(_Z, direction)), middle), size  # not finite: no `placed`
    # the same fromto gives the same pose: worked out once per load (robots repeat their limbs' geoms)
    known = read.state.fromto_poses
    local = known.get(attrs["fromto"])
    if local is None:
        rotation = _z_onto(direction, length)
        local = known[attrs["fromto"]] = (rotation, tuple([v + 0.0 for v in rotation]), middle)
    rotation, rotation_plus_zero, middle = local
    if frame is not IDENTITY:
        return frame @ pose_array(rotation, middle), size
    # `placed(IDENTITY, pose)` is the pose with +0 added to every entry (records.placed): done on the floats
    return pose_array(rotation_plus_zero, [m + 0.0 for m in middle]), size


def _z_onto(direction: tuple[float, float, float], length: float) -> Rotation:
    """The entries, row by row, of ``quat_to_matrix(quat_between(_Z, direction))`` (`length`: the
    direction's hypot), bit for bit, on plain floats where numpy's arithmetic is IEEE's: without
    the arrays of `quat_between` (four), `quat_to_matrix` and `make_pose` for every fromto.

    The dot products `quat_between` takes stay numpy's (its summation may be fused), but one: with
    z = (0, 0, 1) the cosine ``z @ unit`` is unit's z plus products 0 * x that are +-0, that is unit's
    z when it is not 0; when it is, its sign cannot matter (``atan2(sin, +-0)`` is the same for the
    sin > 0 used here). A direction along z (sin about 0) takes `quat_between` itself."""
    bx, by, bz = (c / length for c in direction)  # `_unit3`, whose hypot `length` is
    ax, ay, az = _Z
    axis = (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
    vector = np.array(axis)
    sin = math.sqrt(float(vector.dot(vector)))
    if sin < 1e-14:
        return quat_to_entries(quat_between(_Z, direction))
    half = math.atan2(sin, bz) / 2  # (`axis_angle_to_quat`'s angle / 2)
    norm = math.hypot(*axis)
    s = math.sin(half)
    quat = (math.cos(half), axis[0] / norm * s, axis[1] / norm * s, axis[2] / norm * s)
    return quat_to_entries(quat)


def _note_fromto(read: Attributes, element: Element, attrs: dict[str, str]) -> None:
    """MuJoCo places a geom or site by fromto alone: a non-zero pos beside it is an error ("both pos
    and fromto defined"), an orientation written beside it is silently replaced (a warning here)."""
    pos = read.floats(element, attrs, "pos", 3, None)
    what = read.label(element, attrs)
    if pos is not None and any(pos):
        source = "" if "pos" in element.attrib else " (from its default class)"
        raise read.error(
            InvalidValue,
            element,
            f"{what} has both fromto and pos{source}; MuJoCo refuses this (both pos and fromto defined)",
            construct=f"{element.tag}/@fromto",
            suggestion="remove pos and put the offset into the fromto end points",
        )
    written = [n for n in ORIENTATIONS if n in element.attrib]
    if written:
        read.state.diagnose(
            Severity.WARNING,
            "fromto-overrides-pose",
            f"{what} has fromto and {', '.join(written)}: MuJoCo orients it along fromto and ignores "
            f"{', '.join(written)}",
            read.where(element),
            f"remove {', '.join(written)}, or drop fromto and give pos and size",
        )


def note_ignored(
    read: Attributes, element: Element, attrs: dict[str, str], active: str | None, kind: str
) -> dict[str, str] | None:
    """Remember attributes a default class gave this element that MuJoCo ignores for it; they are
    returned (attribute -> why), None when there are none."""
    if element.tag == "freejoint":
        return None
    own = element.attrib  # only names MuJoCo may ignore matter (most elements inherit none of them)
    if len(attrs) == len(own):  # `attrs` holds `own`: as many names means none inherited
        return None
    inherited = [name for name in MAYBE_IGNORED.intersection(attrs) if name not in own]
    if not inherited:
        return None
    ignored = ignored_class_attributes(element.tag, kind, attrs, inherited)
    if not ignored:
        return None
    record_ignored(read, element, attrs, active, kind, ignored)
    return ignored


def record_ignored(
    read: Attributes, element: Element, attrs: dict[str, str], active: str | None, kind: str, ignored: dict[str, str]
) -> None:
    """Add the element to the `class-attribute-ignored` finding of its class for `ignored`."""
    class_name = element.get("class") or active or "main"
    key = (read.prefix + class_name, element.tag, kind, tuple(ignored.items()))
    name = attrs.get("name")
    label = repr(read.prefix + name + read.suffix) if name else "unnamed"
    read.state.ignored.setdefault(key, []).append((label, read.where(element)))


# -- sites ----------------------------------------------------------------------------------------
def read_site(
    read: Attributes, element: Element, attrs: dict[str, str], frame: np.ndarray, active: str | None
) -> SiteSpec:
    """A named site (`attrs`: its attributes in force) of the body being read."""
    name = read.name(attrs, "site")
    names = read.state.site_names
    kept = read.state.texts.setdefault
    read.unique(element, name, "site", names)
    kind = attrs.get("type", "sphere")
    pose, _ = geom_pose(read, element, attrs, kind, read.sizes(element, attrs, "size", 3), frame)
    note_ignored(read, element, attrs, active, kind)
    names.add(name)
    return SiteSpec(
        name=name,
        pose=pose,
        attributes={k: kept(v, v) for k, v in attrs.items() if k != "name"},
        location=read.where(element),
    )
