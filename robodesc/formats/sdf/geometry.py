"""`<visual>` and `<collision>`: geometry, material, and what libsdformat checks about them.

Every SDF geometry maps to a robodesc geometry: box, sphere, cylinder, capsule, cone, ellipsoid,
plane and mesh to their namesakes, heightmap to `Heightfield` (its image read on request, heights
divided by the brightest pixel as Gazebo does, spread over `<size>` around `<pos>`). A polyline,
image or empty geometry has no robodesc counterpart: the shape keeps a base `Geometry` and its
parameters in `shape.extras["sdf"]["geometry"]`, so nothing is dropped (a scene lists it as left out).
"""

from __future__ import annotations

import math

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import InvalidValue, MissingAttribute
from ...core.geometry import (
    Box,
    Capsule,
    Cone,
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
from ...core.transforms import IDENTITY
from ..xml import Element
from .context import FileContext
from .desc import Node
from .spec import SHADER_TYPES
from .values import first_children, parse_bool, parse_color, parse_double, text_of


def read_shape(ctx: FileContext, element: Element, kind: str) -> tuple[Shape, dict]:
    """A `<visual>` or `<collision>` as a Shape, and the solid parameters auto-inertia needs."""
    name = element.get("name")
    # the children sorted in one pass (a find per tag cost more than the pass: most shapes have two or three)
    pose_el = geometry_el = material_el = density_el = None
    others: list[Element] = []  # kept as written, in document order
    for child in element:
        tag = child.tag
        if tag == "geometry":
            if geometry_el is None:
                geometry_el = child
            continue
        if tag == "pose":
            if pose_el is None:
                pose_el = child
            continue
        if tag == "material":
            if material_el is None:
                material_el = child
            continue
        if tag == "density" and density_el is None:  # (kept as written as well)
            density_el = child
        others.append(child)
    matrix, relative_to = ctx.pose_value(pose_el) if pose_el is not None else (IDENTITY.copy(), "")
    solid: dict  # what auto-inertia needs of the geometry (and what the SDF writer keeps of it)
    if geometry_el is None:  # libsdformat adds the required <geometry> as empty
        ctx.diagnose(
            Severity.WARNING,
            "missing-geometry",
            f"<{kind}> {name!r} has no <geometry>; it is kept empty, as libsdformat does",
            element,
            "add <geometry><box><size>1 1 1</size></box></geometry>",
        )
        geometry, solid = Geometry(), {}
    else:
        geometry, solid = read_geometry(ctx, geometry_el)
    shape = Shape(geometry=geometry, pose=matrix, name=name)
    if relative_to:
        shape.extras.setdefault("sdf", {})["pose_relative_to"] = relative_to
    if geometry_el is not None:
        if not solid and len(geometry_el):  # nothing robodesc knows: the whole <geometry> is kept
            shape.extras.setdefault("xml", []).append(ctx.keep(geometry_el).extra(None))
        solid_kind = solid.get("kind")
        if solid_kind and (type(geometry) is Geometry or solid_kind in ("mesh", "heightmap", "cone")):
            shape.extras.setdefault("sdf", {})["geometry"] = dict(solid)  # what the robodesc geometry does not hold
            if type(geometry) is Geometry:  # polyline, image, empty: the SDF writer's copy
                shape.extras["sdf"]["geometry_xml"] = Node(geometry_el, ctx.where(geometry_el)).extra(None)
    if material_el is not None and kind == "visual":
        shape.material = read_material(ctx, material_el)
        # the element as written (scripts, specular, PBR, ...), rendered only if the SDF writer asks
        shape.extras.setdefault("sdf", {})["material"] = Node(material_el, ctx.where(material_el)).extra(None)
    for child in others:
        shape.extras.setdefault("xml", []).append(ctx.keep(child, kind).extra(None))
    if kind == "collision":
        if density_el is not None:
            solid["density"] = parse_double(text_of(density_el), ctx.at(density_el), "density")
        solid["element"] = element  # where an auto-inertia error points
    return shape, solid


def read_geometry(ctx: FileContext, element: Element) -> tuple[Geometry, dict]:
    """The shape of a `<geometry>`; of several, the one libsdformat's `Geometry::Load` takes first."""
    if len(element) == 1:  # (most: one shape, read without a pass to rank the children)
        only = element[0]
        reader = _READERS.get(only.tag)  # (an element's, or a comment's, which is no shape)
        if reader is not None:
            ctx.vetted.add(element)  # (its one child a shape: the lint's say of a <geometry> is about several or none)
            return _polyline(ctx, element) if reader is _polyline else reader(ctx, only)
    shape_el, first = None, len(SHAPE_PRECEDENCE)
    for child in element:  # the first child of the earliest kind
        rank = _PRECEDENCE.get(child.tag, first)
        if rank < first:
            shape_el, first = child, rank
    if shape_el is None:
        for child in element:
            ctx.unknown(child)
        return Geometry(), {}
    if shape_el.tag == "polyline":
        return _polyline(ctx, element)
    return _READERS[shape_el.tag](ctx, shape_el)


#: The defaults of a shape's vectors (read only: `_vector` gives each shape a copy)
_ONES, _UP, _ORIGIN = np.ones(3), np.array([0.0, 0.0, 1.0]), np.zeros(3)
for _default in (_ONES, _UP, _ORIGIN):
    _default.flags.writeable = False


def _vector(ctx: FileContext, element: Element, tag: str, count: int, default: np.ndarray) -> np.ndarray:
    child = element.find(tag)
    if child is None:
        return default.copy()  # (a copy of a made array: a third of making one from a tuple)
    return np.array(ctx.floats_of(child, count, tag))  # (`vector_of`, one call less)


def _positive(ctx: FileContext, element: Element, what: str, values) -> None:
    """Sizes of the shapes the format-neutral `shape-size` check cannot see (cone, plane, capsule length)."""
    if np.any(np.asarray(values) <= 0):
        ctx.diagnose(
            Severity.WARNING,
            "non-positive-size",
            f"<{element.tag}> has a {what} that is not positive: {np.asarray(values).tolist()}",
            element,
            f"give the {what} as positive numbers",
        )


def _box(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    size = _vector(ctx, el, "size", 3, _ONES)
    return Box(size=size), {"kind": "box", "size": size}


def _sphere(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    radius = ctx.child_double(el, "radius", 1.0)
    return Sphere(radius=radius), {"kind": "sphere", "radius": radius}


def _cylinder(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    radius, length = ctx.child_double(el, "radius", 1.0), ctx.child_double(el, "length", 1.0)
    return Cylinder(radius=radius, length=length), {"kind": "cylinder", "radius": radius, "length": length}


def _capsule(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    radius, length = ctx.child_double(el, "radius", 0.5), ctx.child_double(el, "length", 1.0)
    if length < 0:  # the radius is the format-neutral check's; a length of 0 makes a sphere
        _positive(ctx, el, "length", length)
    return Capsule(radius=radius, length=length), {"kind": "capsule", "radius": radius, "length": length}


def _cone(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    radius, length = ctx.child_double(el, "radius", 1.0), ctx.child_double(el, "length", 1.0)
    _positive(ctx, el, "radius and length", (radius, length))
    return Cone(radius=radius, length=length), {"kind": "cone", "radius": radius, "length": length}


def _ellipsoid(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    radii = _vector(ctx, el, "radii", 3, _ONES)
    return Ellipsoid(radii=radii), {"kind": "ellipsoid", "radii": radii}


def _plane(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    normal = _vector(ctx, el, "normal", 3, _UP)
    norm = math.hypot(*normal)
    if norm == 0.0:
        ctx.diagnose(
            Severity.WARNING,
            "zero-plane-normal",
            "the normal of a <plane> is zero; robodesc uses 0 0 1",
            el,
            "give a direction such as 0 0 1",
        )
        normal, norm = np.array([0.0, 0.0, 1.0]), 1.0
    size = _vector(ctx, el, "size", 2, _ONES[:2])
    _positive(ctx, el, "size", size)
    return Plane(normal=normal / norm, size=size), {"kind": "plane"}


def _mesh(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    uri_el = el.find("uri")
    uri = text_of(uri_el) if uri_el is not None else ""
    if not uri or uri == "__default__":
        raise ctx.error(
            MissingAttribute, el, "a <mesh> needs a <uri>", "mesh/uri", "add <uri>model://NAME/meshes/part.dae</uri>"
        )
    scale = _vector(ctx, el, "scale", 3, _ONES)
    mesh = Mesh(uri=uri, scale=scale)
    mesh.path, mesh.tried = ctx.resolve_resource(uri, el)
    details: dict[str, object] = {"kind": "mesh"}
    submesh = el.find("submesh")
    if submesh is not None:
        name_el, center_el = submesh.find("name"), submesh.find("center")
        details["submesh"] = {
            "name": text_of(name_el) if name_el is not None else "",
            "center": parse_bool(text_of(center_el), ctx.at(center_el), "center") if center_el is not None else False,
        }
    for attribute in ("optimization", "simplification"):
        if el.get(attribute) is not None:
            details[attribute] = el.get(attribute)
    return mesh, details


def _heightmap(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    uri_el = el.find("uri")
    uri = text_of(uri_el) if uri_el is not None else ""
    pos = _vector(ctx, el, "pos", 3, _ORIGIN)
    field = Heightfield(
        uri=uri or None,
        size=_vector(ctx, el, "size", 3, _ONES),
        center=pos.copy(),
        file_format="image",
        normalize="max",  # Gazebo divides by the brightest pixel
    )
    if uri:
        field.path, _ = ctx.resolve_resource(uri, el)
    details = {"kind": "heightmap", "pos": pos}
    return field, details


def _polyline(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    lines = []
    for line in el.findall("polyline"):
        points = [ctx.vector_of(p, 2, "point") for p in line.findall("point")]
        height = ctx.child_double(line, "height", 1.0)
        _positive(ctx, line, "height", height)
        lines.append({"points": np.array(points).reshape(-1, 2), "height": height})
    return Geometry(), {"kind": "polyline", "lines": lines}


def _image(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    uri_el = el.find("uri")
    return Geometry(), {"kind": "image", "uri": text_of(uri_el) if uri_el is not None else ""}


def _empty(ctx: FileContext, el: Element) -> tuple[Geometry, dict]:
    return Geometry(), {"kind": "empty"}


#: The order in which libsdformat's `Geometry::Load` looks for a shape (image and empty: robodesc's own).
SHAPE_PRECEDENCE = (
    "box",
    "capsule",
    "cone",
    "cylinder",
    "ellipsoid",
    "plane",
    "sphere",
    "mesh",
    "heightmap",
    "polyline",
    "image",
    "empty",
)
_PRECEDENCE = {tag: rank for rank, tag in enumerate(SHAPE_PRECEDENCE)}

_READERS = {
    "box": _box,
    "sphere": _sphere,
    "cylinder": _cylinder,
    "capsule": _capsule,
    "cone": _cone,
    "ellipsoid": _ellipsoid,
    "plane": _plane,
    "mesh": _mesh,
    "heightmap": _heightmap,
    "polyline": _polyline,
    "image": _image,
    "empty": _empty,
}


#: The colors of a `<material>`, in the order they are read (and checked)
_COLOR_TAGS = ("ambient", "diffuse", "specular", "emissive")
_COLORS = frozenset(_COLOR_TAGS)


def read_material(ctx: FileContext, element: Element) -> Material:
    """A `<material>`: the diffuse color (else ambient), the script name, a PBR albedo map as texture.

    libsdformat rejects a `<script>` without a `<uri>` or `<name>`, an unknown `<shader type>`,
    and a normal-map shader without a `<normal_map>`.
    """
    material = Material()
    first = first_children(element)  # (seven finds cost more: most materials have one child)
    if not _COLORS.isdisjoint(first):
        colors: dict[str, list[float] | np.ndarray] = {}  # each color read, to be checked; an array made of one
        for tag in _COLOR_TAGS:
            child = first.get(tag)
            if child is not None:
                text = text_of(child)
                rgba = ctx.plain_color(text)  # the common case, without making a locator for an error
                colors[tag] = rgba if rgba is not None else parse_color(text, ctx.at(child), tag)
        color = colors.get("diffuse", colors.get("ambient"))
        material.color = np.array(color) if isinstance(color, list) else color
    script = first.get("script")
    if script is not None:
        value = ""
        for tag in ("uri", "name"):
            child = script.find(tag)
            value = text_of(child) if child is not None else ""
            if not value or value == "__default__":
                raise ctx.error(
                    MissingAttribute,
                    script,
                    f"a material <script> has no <{tag}>, or it is empty",
                    f"script/{tag}",
                    "give both, e.g. <uri>file://media/materials/scripts/gazebo.material</uri> "
                    "<name>Gazebo/Grey</name>, or remove <script>",
                )
        material.name = value  # (the <name>'s, read last)
    shader = first.get("shader")
    if shader is not None:
        kind = shader.get("type", "pixel").strip()
        if kind not in SHADER_TYPES:
            raise ctx.error(
                InvalidValue,
                shader,
                f"<shader type={kind!r}> is not a shader type",
                "shader/@type",
                "use one of " + ", ".join(SHADER_TYPES),
            )
        normal_map = shader.find("normal_map")
        ctx.require(
            not kind.startswith("normal_map") or (normal_map is not None and text_of(normal_map)),
            MissingAttribute,
            shader,
            f"a {kind} shader needs a <normal_map>",
            "shader/normal_map",
            "add <normal_map>file.png</normal_map>",
        )
    pbr = first.get("pbr")
    if pbr is not None:
        for workflow in pbr:
            albedo = workflow.find("albedo_map")
            if albedo is not None and text_of(albedo):
                material.texture = text_of(albedo)
                break
    return material
