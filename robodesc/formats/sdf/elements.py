"""`<world>`, `<model>`, `<link>`, `<inertial>` and `<frame>` -> their parsed form (`desc.py`).

This is where libsdformat's rules for the elements that make a scope live: what each needs
(names, a valid mass matrix, finite values), the defaults it takes (mass 1 and identity inertia,
`<inertial auto="true">` computed from the collisions), and which version converter applies (a
1.4 model's joint axes in the model frame, handed on to `joints.py`). A scope's names are
checked by `names.py` once the scope is read; `<include>`s go to `includes.py`, shapes to
`geometry.py`; everything else is kept as written.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import InvalidValue, MissingAttribute
from ...core.transforms import IDENTITY, pose_from_xyz_rpy
from ..xml import Element
from .context import FileContext
from .desc import FrameDesc, InertialDesc, Instance, LinkDesc, ModelDesc, Node, WorldDesc
from .geometry import read_shape
from .includes import include
from .inertia import clearly_valid_moments, combine, is_valid_mass_matrix, solid
from .joints import parse_joint
from .names import check_model_names, check_world_names, duplicate, name_of, reference
from .values import TAG_AND_TEXT, parse_bool

_LINK_NAMED = ("visual", "collision", "sensor", "light")  # children of a link that need unique names


# -- worlds and models -----------------------------------------------------------------------
def parse_world(ctx: FileContext, element: Element) -> WorldDesc:
    name = ctx.required(element, "name")
    if name.strip():  # (the lint says nothing else of a <world> itself)
        ctx.vetted.add(element)
    world = WorldDesc(name=name, version=ctx.version, source=ctx.source, location=ctx.where(element))
    ctx.scopes[id(element)] = world
    world.node = Node(element, world.location)
    for child in element:
        tag = child.tag
        if tag == "model":
            world.models.append(_instance(parse_model(ctx, child, top=False, convert14=True)))
        elif tag == "include":
            include(ctx, child, world)
        elif tag == "frame":
            world.frames.append(parse_frame(ctx, child))
        elif tag == "joint":
            world.joints.append(parse_joint(ctx, child, convert14=False))
        else:
            world.kept.append(ctx.keep(child, "world"))
    check_world_names(world, ctx.version, ctx.diagnostics)
    return world


def _instance(desc: ModelDesc) -> Instance:
    """A `<model>` in a world or another model, placed where it is written."""
    return Instance(
        desc=desc,
        name=desc.name,
        pose=desc.pose,
        static=desc.static,
        placement_frame=desc.placement_frame,
        location=desc.location,
    )


def parse_model(ctx: FileContext, element: Element, top: bool, convert14: bool | None = None) -> ModelDesc:
    """A `<model>` and the models nested in it; `convert14`: its joints' axes are in the model frame
    (SDF 1.4, top-level models and models of a world; nested models never).

    Models nest as deep as the XML does (500 levels), so they are read with a stack of the models
    open, not by recursion: each model's children in document order, a nested model read where it
    stands, a model's names checked once everything in it is read, exactly as a recursive reader would.
    """
    if convert14 is None:
        convert14 = top
    first = _model_header(ctx, element, top)
    open_models: list[tuple[ModelDesc, Iterator[Element], bool]] = [(first, iter(element), convert14)]
    while open_models:
        model, children, convert = open_models[-1]
        for child in children:
            tag = child.tag
            if tag == "link":
                model.links.append(parse_link(ctx, child))
            elif tag == "joint":
                model.joints.append(parse_joint(ctx, child, convert and ctx.version <= (1, 4)))
            elif tag == "frame":
                model.frames.append(parse_frame(ctx, child))
            elif tag == "model":
                nested = _model_header(ctx, child, top=False)
                model.models.append(_instance(nested))
                open_models.append((nested, iter(child), False))
                break  # read the nested model now; this one's remaining children after it
            elif tag == "include":
                include(ctx, child, model)
            elif tag in ("pose", "static"):
                continue
            else:
                model.kept.append(ctx.keep(child, "model"))
        else:
            check_model_names(model, ctx.diagnostics)
            open_models.pop()
    return first


def _model_header(ctx: FileContext, element: Element, top: bool) -> ModelDesc:
    """The model's own attributes, `<static>` and `<pose>`: everything but its content."""
    name = name_of(ctx, element, "model")
    if not name and not top:  # its links would be named '::link', which no reference can reach
        raise ctx.error(
            InvalidValue,
            element,
            "a model inside a world or another model has an empty name",
            "model/@name",
            'give the model a name="..." (its links and joints are named after it)',
        )
    where = ctx.where(element)
    canonical_link = placement_frame = ""
    canonical_written, placement_written = element.get("canonical_link"), element.get("placement_frame")
    if canonical_written is not None:
        canonical_link = reference(ctx, canonical_written, element, "canonical_link")
    if placement_written is not None:
        placement_frame = reference(ctx, placement_written, element, "placement_frame")
    # the lint's say of a <model> itself: a blank name, an attribute too new for the file (both 1.8 has)
    if name.strip() and (ctx.version >= (1, 8) or canonical_written is placement_written is None):
        ctx.vetted.add(element)
    static = ctx.child_bool(element, "static", False)
    model = ModelDesc(  # (its pose given, not a default one made to be replaced)
        name=name,
        version=ctx.version,
        source=ctx.source,
        location=where,
        static=static,
        canonical_link=canonical_link,
        placement_frame=placement_frame,
        pose=ctx.pose_of(element, where),
    )
    ctx.scopes[id(element)] = model
    pose_el = element.find("pose")
    if top and pose_el is not None and model.pose.relative_to:
        raise ctx.error(
            InvalidValue,
            pose_el,
            f"the pose of the top model {name!r} is relative_to {model.pose.relative_to!r}; a top-level "
            "model's pose cannot name a frame",
            "pose/@relative_to",
            "remove relative_to from the top model's <pose>",
        )
    return model


# -- links -----------------------------------------------------------------------------------
#: libsdformat's inertia of a link that gives none (1 kg m^2 about each axis), copied for each such link
_UNIT_INERTIA = np.eye(3)
_UNIT_INERTIA.flags.writeable = False
#: The placeholder a link's inertial holds while the link is read (never seen outside `parse_link`).
_UNREAD = InertialDesc(1.0, np.zeros(3), _UNIT_INERTIA)


def parse_link(ctx: FileContext, element: Element) -> LinkDesc:
    name = name_of(ctx, element, "link")
    if name.strip():  # (the lint says nothing else of a <link> itself)
        ctx.vetted.add(element)
    where = ctx.where(element)
    link = LinkDesc(
        name=name,
        pose=ctx.pose_of(element, where),
        inertial=_UNREAD,  # replaced below, once the collisions (auto inertia) are read
        visuals=[],
        collisions=[],
        location=where,
    )
    solids = []
    named: set[tuple[str, str]] = set()  # (tag, name) of the visuals, collisions, sensors and lights read
    inertial_el = None
    kept: list[Node] = []
    for child in element:
        tag = child.tag
        if tag in _LINK_NAMED:
            child_name = name_of(ctx, child, tag)
            if (tag, child_name) in named:
                raise duplicate(tag, child_name, f"link {name!r}", ctx.where(child))
            named.add((tag, child_name))
            if tag != "sensor" and child_name.strip():  # (the lint looks into a sensor; of the others, the name)
                ctx.vetted.add(child)
        if tag == "inertial":
            inertial_el = child
        elif tag in ("visual", "collision"):
            shape, params = read_shape(ctx, child, tag)
            (link.visuals if tag == "visual" else link.collisions).append(shape)
            if "pose_relative_to" in shape.extras.get("sdf", ()):
                link.shape_frames = True
            if tag == "collision":
                solids.append((shape, params))
        elif tag == "pose":
            continue
        else:
            kept.append(ctx.keep(child, "link"))
    if kept:
        link.kept = kept
    if inertial_el is not None:
        properties: dict[str, object] = {}
        link.inertial = parse_inertial(ctx, inertial_el, name, solids)
        inertial_kept = [ctx.keep(c, "inertial") for c in inertial_el if c.tag not in _INERTIAL_READ]
        if inertial_kept:
            properties["inertial_kept"] = inertial_kept
        defaults = _inertial_defaults(inertial_el)
        if defaults:
            properties["inertial_defaults"] = defaults
        if properties:
            link.properties = properties
    else:
        link.inertial = InertialDesc(1.0, np.zeros(3), _UNIT_INERTIA.copy())  # libsdformat's default
        link.properties = {"inertial_defaults": _ALL_DEFAULTS}
    return link


_ALL_DEFAULTS = ("mass", "inertia")  # what libsdformat fills in of a link without an <inertial>


def _inertial_defaults(inertial_el: Element) -> tuple[str, ...]:
    """What of a link's mass properties libsdformat fills in with its defaults (mass 1, inertia identity).

    Nothing for `<inertial auto="true">`: the computed values (or the auto-inertia warning) stand.
    """
    if (inertial_el.get("auto") or "").strip().lower() in ("true", "1"):
        return ()
    # (told by two tests, not a generator per link: most inertials give both)
    if inertial_el.find("mass") is None:
        return ("mass", "inertia") if inertial_el.find("inertia") is None else ("mass",)
    return ("inertia",) if inertial_el.find("inertia") is None else ()


#: The moments of an `<inertia>`, in the order they are read, and libsdformat's default for each.
_MOMENTS = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
_UNIT_MOMENTS = (1.0, 1.0, 1.0, 0.0, 0.0, 0.0)
#: The centre of mass of an inertial without a <pose> (read only: each such inertial gets a copy)
_AT_ORIGIN = np.zeros(3)
_AT_ORIGIN.flags.writeable = False


def parse_inertial(ctx: FileContext, element: Element, link_name: str, solids: list) -> InertialDesc:
    auto_text = element.get("auto")
    if auto_text is None:
        auto = False
        ctx.vetted.add(element)  # (an old file's lint looks at an <inertial> for @auto alone)
    else:
        auto = parse_bool(auto_text, ctx.at(element), "inertial/@auto")
    pose = _inertial_pose(ctx, element, link_name)
    mass = ctx.child_double(element, "mass", 1.0)
    if auto:
        density = ctx.child_double(element, "density", 1000.0)
        total, com, inertia = _auto_inertial(ctx, element, link_name, solids, density)
        if element.find("mass") is not None and total > 0:  # libsdformat 15.2: scaled to the given mass
            inertia = inertia * (mass / total)
            total = mass
        return InertialDesc(total, com, inertia)
    # the tensor read once per (tag, text) of the <inertia>'s children in the file (a robot's links repeat a few
    # inertias: TIAGo's 130 are 30 texts), shared (read only) by the links of those texts; what fails is not kept
    inertia_el = element.find("inertia")
    key = None if inertia_el is None else tuple(map(TAG_AND_TEXT, inertia_el))
    moments = ctx.plain_inertias.get(key)
    if moments is None:
        moments = ctx.plain_inertias[key] = _moments(ctx, inertia_el)
    tensor, clearly_valid, negative_zero = moments
    # the mass and moments are finite as read (`child_double` refuses what is not); a plain pose's numbers are
    # too, and a matrix is tested with a third of np.isfinite's cost
    if isinstance(pose, np.ndarray) and not all(map(math.isfinite, pose.ravel().tolist())):
        raise ctx.error(
            InvalidValue,
            element,
            f"link {link_name!r} has an inertial that is not finite",
            "inertial",
            "give finite numbers for mass and inertia",
        )
    if not (clearly_valid and mass >= 0) and not is_valid_mass_matrix(mass, tensor):
        raise ctx.error(
            InvalidValue,
            element,
            f"link {link_name!r} has an invalid inertia: the mass must not be negative and the inertia "
            "matrix must be positive semi-definite with principal moments obeying the triangle inequality",
            "inertial",
            "check <mass> and the signs of <ixy>, <ixz>, <iyz>",
        )
    # Turned by the identity (no <pose>, or one that only moves the centre of mass: most), the tensor is
    # the tensor as written: each entry of the products is that entry plus products with zeros. Unless
    # an entry is -0.0, which such a sum makes +0.0 (or not, depending on the signs of the others).
    if pose is None:
        if not negative_zero:
            return InertialDesc(mass, _AT_ORIGIN.copy(), tensor.copy())
        pose = IDENTITY  # (only read)
    elif isinstance(pose, list):  # a plain pose: one that turns nothing only moves the centre of mass
        if not any(pose[3:]) and not negative_zero:  # (angles of +-0.0 turn by the identity)
            return InertialDesc(mass, np.array(pose[:3]), tensor.copy())
        pose = pose_from_xyz_rpy(pose[:3], pose[3:])
    rotation = pose[:3, :3]
    if rotation.tolist() == _UNTURNED_ROWS and not negative_zero:  # (== takes -0.0 for 0.0)
        return InertialDesc(mass, pose[:3, 3].copy(), tensor.copy())
    return InertialDesc(mass, pose[:3, 3].copy(), rotation @ tensor @ rotation.T)


def _moments(ctx: FileContext, inertia_el: Element | None) -> tuple[np.ndarray, bool, bool]:
    """The tensor of an `<inertia>` (None: libsdformat's default, the unit tensor), read only; whether it is valid
    with any mass that is not negative (`inertia.clearly_valid_moments`: else each link's mass matrix is tested);
    whether an entry is -0.0."""
    values = _UNIT_MOMENTS if inertia_el is None else ctx.child_doubles(inertia_el, _MOMENTS, _UNIT_MOMENTS)
    ixx, iyy, izz, ixy, ixz, iyz = values
    # (one flat sequence, reshaped: numpy reads nested ones row by row, each a sequence to measure)
    tensor = np.array((ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz)).reshape(3, 3)
    tensor.flags.writeable = False
    return tensor, clearly_valid_moments(ixx, iyy, izz, ixy, ixz, iyz), _has_negative_zero(values)


#: The rows of a rotation that turns nothing, as `tolist` gives them
_UNTURNED_ROWS = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


def _has_negative_zero(values: tuple[float, ...] | list[float]) -> bool:
    """Whether one of `values` is -0.0, which turning a tensor by the identity makes +0.0 (or not,
    depending on the signs of the other moments): the one case where the product is not the tensor."""
    # (copysign tells -0.0 from 0.0, == does not; asked of the zeros only, not by repr of every value)
    return 0.0 in values and any(math.copysign(1.0, value) < 0.0 for value in values if value == 0.0)


def _inertial_pose(ctx: FileContext, element: Element, link_name: str) -> list[float] | np.ndarray | None:
    """The inertial's pose, always in the link frame (a relative_to is ignored, with a warning), as
    `FileContext.pose_reading` gives it (a plain pose as its six numbers); None without a `<pose>`: the
    link frame itself, finite, which the caller reads as the identity."""
    pose_el = element.find("pose")
    if pose_el is None:
        return None
    value, relative_to = ctx.pose_reading(pose_el)
    if relative_to:
        ctx.diagnose(
            Severity.WARNING,
            "inertial-relative-to",
            f"the inertial pose of link {link_name!r} names relative_to={relative_to!r}; an inertial "
            "pose is always in the link frame",
            pose_el,
            "remove relative_to",
        )
    return value


def _auto_inertial(
    ctx: FileContext, element: Element, link_name: str, solids: list, density: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, com, inertia) of the link's collisions as solids, as libsdformat's `Link::ResolveAutoInertials`.

    Each collision's density is its own `<density>`, else the inertial's, else 1000. A mesh counts
    as libsdformat counts it without a custom calculator: 1 kg with a unit inertia at the collision's
    origin (with a warning). A shape with no inertia formula (plane, heightmap, polyline, ...) or
    with sizes or a density the formula refuses makes libsdformat report an invalid inertia: an error.
    """
    ctx.require(
        solids,
        MissingAttribute,
        element,
        f'link {link_name!r} has <inertial auto="true"> but no <collision> to compute it from',
        "inertial/@auto",
        "add a <collision> or give <mass> and <inertia>",
    )
    parts = []
    for shape, params in solids:
        kind = params.get("kind")
        where = params.get("element", element)
        if kind == "mesh":
            ctx.diagnose(
                Severity.WARNING,
                "auto-inertia-unsupported",
                f"collision {shape.name!r} of link {link_name!r} is a mesh, whose inertia libsdformat computes "
                "only with a custom calculator (Gazebo registers one); without it, as here, the mesh counts as "
                "1 kg with a unit inertia at the collision's origin",
                where,
                "give <mass> and <inertia> explicitly, or approximate the mesh by primitive collisions",
            )
            result: tuple[float, np.ndarray, np.ndarray] | None = (1.0, np.zeros(3), np.eye(3))
        else:
            result = solid(kind, params, params.get("density", density)) if kind else None
        if result is None:
            raise ctx.error(
                InvalidValue,
                where,
                f"the inertia of collision {shape.name!r} of link {link_name!r} cannot be computed: "
                + (
                    f"a {kind} has no inertia formula in libsdformat"
                    if kind not in _SOLID_KINDS
                    else f"the {kind}'s sizes and density must be positive"
                ),
                "inertial/@auto",
                "give <mass> and <inertia> explicitly, or use box, sphere, cylinder, capsule, ellipsoid or cone "
                "collisions with positive sizes and density",
            )
        mass, centroid, inertia = result
        pose = np.array(shape.pose, dtype=float)
        pose[:3, 3] = pose[:3, :3] @ centroid + pose[:3, 3]
        parts.append((mass, pose, inertia))
    with np.errstate(all="ignore"):
        mass, com, inertia = combine(parts)
    ctx.require(
        math.isfinite(mass) and np.isfinite(com).all() and np.isfinite(inertia).all(),
        InvalidValue,
        element,
        f"the inertia computed for link {link_name!r} from its collisions is not finite",
        "inertial/@auto",
        "check the sizes and densities of the collisions",
    )
    return mass, com, inertia


_INERTIAL_READ = ("mass", "inertia", "pose", "density")
_SOLID_KINDS = ("box", "sphere", "cylinder", "capsule", "ellipsoid", "cone")


# -- frames ----------------------------------------------------------------------------------
def parse_frame(ctx: FileContext, element: Element) -> FrameDesc:
    name = name_of(ctx, element, "frame")
    attached_written = element.get("attached_to")
    attached_to = reference(ctx, attached_written or "", element, "attached_to")
    if name.strip() and (attached_written is None or ctx.version >= (1, 7)):  # (the lint's say of a <frame>)
        ctx.vetted.add(element)
    for child in element:
        if child.tag != "pose":
            ctx.check_kept(child)
    where = ctx.where(element)
    return FrameDesc(name=name, attached_to=attached_to, pose=ctx.pose_of(element, where), location=where)
