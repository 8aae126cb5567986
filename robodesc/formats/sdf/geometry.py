"""`<visual>` and `<collision>`: geometry, material, and what libsdformat checks about them.

Every SDF geometry maps to a robodesc geometry: box, sphere, cylinder, capsule, ellipsoid, plane
and mesh to their namesakes, heightmap to `Heightfield`. A polyline, cone, image or empty geometry
has no robodesc counterpart: the shape keeps a base `Geometry` and its parameters in
`shape.extras["sdf"]["geometry"]`, so nothing is dropped.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

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
from .spec import SHADER_TYPES
from .values import parse_bool, parse_color, parse_double, parse_finite, parse_vector, text_of

if TYPE_CHECKING:
    from .parse import FileParser


def read_shape(parser: FileParser, element, kind: str) -> tuple[Shape, dict]:
    """A `<visual>` or `<collision>` as a Shape, and the solid parameters auto-inertia needs."""
    name = element.get("name")
    shape = Shape(geometry=Geometry(), pose=parser.pose_of(element).matrix, name=name)
    pose_el = element.find("pose")
    if pose_el is not None and pose_el.get("relative_to", "").strip():
        shape.extras.setdefault("sdf", {})["pose_relative_to"] = pose_el.get("relative_to").strip()
    solid: dict = {}
    geometry_el = element.find("geometry")
    if geometry_el is None:  # libsdformat adds the required <geometry> as empty
        parser.diagnose(
            Severity.WARNING,
            "missing-geometry",
            f"<{kind}> {name!r} has no <geometry>; it is kept empty, as libsdformat does",
            element,
            "add <geometry><box><size>1 1 1</size></box></geometry>",
        )
    else:
        shape.geometry, solid = read_geometry(parser, geometry_el)
        if not solid and len(geometry_el):  # nothing robodesc knows: the whole <geometry> is kept
            shape.extras.setdefault("xml", []).append(parser.keep(geometry_el).extra(None))
        if solid.get("kind") and (type(shape.geometry) is Geometry or solid["kind"] in ("mesh", "heightmap")):
            shape.extras.setdefault("sdf", {})["geometry"] = dict(solid)  # what the robodesc geometry does not hold
    material_el = element.find("material")
    if material_el is not None and kind == "visual":
        shape.material = read_material(parser, material_el)
    for child in element:
        if child.tag not in ("geometry", "pose", "material"):
            shape.extras.setdefault("xml", []).append(parser.keep(child, kind).extra(None))
    if kind == "collision":
        density_el = element.find("density")
        if density_el is not None:
            solid["density"] = parse_double(text_of(density_el), parser.at(density_el), "density")
    return shape, solid


def read_geometry(parser: FileParser, element) -> tuple[Geometry, dict]:
    """The shape of a `<geometry>`; of several, the one libsdformat's `Geometry::Load` takes first."""
    shapes = sorted((c for c in element if c.tag in _READERS), key=lambda c: SHAPE_PRECEDENCE.index(c.tag))
    if not shapes:
        for child in element:
            parser.unknown(child)
        return Geometry(), {}
    shape_el = shapes[0]
    if shape_el.tag == "polyline":
        return _polyline(parser, element)
    return _READERS[shape_el.tag](parser, shape_el)


def _double(parser: FileParser, element, tag: str, default: float) -> float:
    child = element.find(tag)
    if child is None:
        return default
    return parse_finite(text_of(child), parser.at(child), tag)


def _vector(parser: FileParser, element, tag: str, count: int, default) -> np.ndarray:
    child = element.find(tag)
    if child is None:
        return np.array(default, dtype=float)
    return parse_vector(text_of(child), count, parser.at(child), tag)


def _positive(parser: FileParser, element, what: str, values) -> None:
    """Sizes of the shapes the format-neutral `shape-size` check cannot see (cone, plane, capsule length)."""
    if np.any(np.asarray(values) <= 0):
        parser.diagnose(
            Severity.WARNING,
            "non-positive-size",
            f"<{element.tag}> has a {what} that is not positive: {np.asarray(values).tolist()}",
            element,
            f"give the {what} as positive numbers",
        )


def _box(parser, el):
    size = _vector(parser, el, "size", 3, (1.0, 1.0, 1.0))
    return Box(size=size), {"kind": "box", "size": size}


def _sphere(parser, el):
    radius = _double(parser, el, "radius", 1.0)
    return Sphere(radius=radius), {"kind": "sphere", "radius": radius}


def _cylinder(parser, el):
    radius, length = _double(parser, el, "radius", 1.0), _double(parser, el, "length", 1.0)
    return Cylinder(radius=radius, length=length), {"kind": "cylinder", "radius": radius, "length": length}


def _capsule(parser, el):
    radius, length = _double(parser, el, "radius", 0.5), _double(parser, el, "length", 1.0)
    if length < 0:  # the radius is the format-neutral check's; a length of 0 makes a sphere
        _positive(parser, el, "length", length)
    return Capsule(radius=radius, length=length), {"kind": "capsule", "radius": radius, "length": length}


def _cone(parser, el):
    radius, length = _double(parser, el, "radius", 1.0), _double(parser, el, "length", 1.0)
    _positive(parser, el, "radius and length", (radius, length))
    return Geometry(), {"kind": "cone", "radius": radius, "length": length}


def _ellipsoid(parser, el):
    radii = _vector(parser, el, "radii", 3, (1.0, 1.0, 1.0))
    return Ellipsoid(radii=radii), {"kind": "ellipsoid", "radii": radii}


def _plane(parser, el):
    normal = _vector(parser, el, "normal", 3, (0.0, 0.0, 1.0))
    norm = math.hypot(*normal)
    if norm == 0.0:
        parser.diagnose(
            Severity.WARNING,
            "zero-plane-normal",
            "the normal of a <plane> is zero; robodesc uses 0 0 1",
            el,
            "give a direction such as 0 0 1",
        )
        normal, norm = np.array([0.0, 0.0, 1.0]), 1.0
    size = _vector(parser, el, "size", 2, (1.0, 1.0))
    _positive(parser, el, "size", size)
    return Plane(normal=normal / norm, size=size), {"kind": "plane"}


def _mesh(parser, el):
    uri_el = el.find("uri")
    uri = text_of(uri_el) if uri_el is not None else ""
    if not uri or uri == "__default__":
        raise MissingAttribute(
            "a <mesh> needs a <uri>",
            location=parser.at(el)(),
            construct="mesh/uri",
            suggestion="add <uri>model://NAME/meshes/part.dae</uri>",
        )
    scale = _vector(parser, el, "scale", 3, (1.0, 1.0, 1.0))
    mesh = Mesh(uri=uri, scale=scale)
    mesh.path, mesh.tried = parser.resolve_resource(uri, el)
    details: dict[str, object] = {"kind": "mesh"}
    submesh = el.find("submesh")
    if submesh is not None:
        name_el, center_el = submesh.find("name"), submesh.find("center")
        details["submesh"] = {
            "name": text_of(name_el) if name_el is not None else "",
            "center": parse_bool(text_of(center_el), parser.at(center_el), "center")
            if center_el is not None
            else False,
        }
    for attribute in ("optimization", "simplification"):
        if el.get(attribute) is not None:
            details[attribute] = el.get(attribute)
    return mesh, details


def _heightmap(parser, el):
    uri_el = el.find("uri")
    uri = text_of(uri_el) if uri_el is not None else ""
    field = Heightfield(uri=uri or None, size=_vector(parser, el, "size", 3, (1.0, 1.0, 1.0)))
    if uri:
        field.path, _ = parser.resolve_resource(uri, el)
    details = {"kind": "heightmap", "pos": _vector(parser, el, "pos", 3, (0.0, 0.0, 0.0))}
    return field, details


def _polyline(parser, el):
    lines = []
    for line in el.findall("polyline"):
        points = [parse_vector(text_of(p), 2, parser.at(p), "point") for p in line.findall("point")]
        height = _double(parser, line, "height", 1.0)
        _positive(parser, line, "height", height)
        lines.append({"points": np.array(points).reshape(-1, 2), "height": height})
    return Geometry(), {"kind": "polyline", "lines": lines}


def _image(parser, el):
    uri_el = el.find("uri")
    return Geometry(), {"kind": "image", "uri": text_of(uri_el) if uri_el is not None else ""}


def _empty(parser, el):
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


def read_material(parser: FileParser, element) -> Material:
    """A `<material>`: the diffuse color (else ambient), the script name, a PBR albedo map as texture.

    libsdformat rejects a `<script>` without a `<uri>` or `<name>`, an unknown `<shader type>`,
    and a normal-map shader without a `<normal_map>`.
    """
    material = Material()
    colors = {}
    for tag in ("ambient", "diffuse", "specular", "emissive"):
        child = element.find(tag)
        if child is not None:
            colors[tag] = parse_color(text_of(child), parser.at(child), tag)
    material.color = colors.get("diffuse", colors.get("ambient"))
    script = element.find("script")
    if script is not None:
        for tag in ("uri", "name"):
            child = script.find(tag)
            value = text_of(child) if child is not None else ""
            if not value or value == "__default__":
                raise MissingAttribute(
                    f"a material <script> has no <{tag}>, or it is empty",
                    location=parser.at(script)(),
                    construct=f"script/{tag}",
                    suggestion="give both, e.g. <uri>file://media/materials/scripts/gazebo.material</uri> "
                    "<name>Gazebo/Grey</name>, or remove <script>",
                )
        material.name = text_of(script.find("name"))
    shader = element.find("shader")
    if shader is not None:
        kind = shader.get("type", "pixel").strip()
        if kind not in SHADER_TYPES:
            raise InvalidValue(
                f"<shader type={kind!r}> is not a shader type",
                location=parser.at(shader)(),
                construct="shader/@type",
                suggestion="use one of " + ", ".join(SHADER_TYPES),
            )
        normal_map = shader.find("normal_map")
        if kind.startswith("normal_map") and (normal_map is None or not text_of(normal_map)):
            raise MissingAttribute(
                f"a {kind} shader needs a <normal_map>",
                location=parser.at(shader)(),
                construct="shader/normal_map",
                suggestion="add <normal_map>file.png</normal_map>",
            )
    pbr = element.find("pbr")
    if pbr is not None:
        for workflow in pbr:
            albedo = workflow.find("albedo_map")
            if albedo is not None and text_of(albedo):
                material.texture = text_of(albedo)
                break
    return material
