"""The MJCF writer's shapes: geoms, and the mesh, height-field and material assets they name.

A shape is written as one ``<geom>`` at its pose in the body. Sources other than MJCF say whether
a shape is drawn or collides; MJCF geoms are both, so visuals get ``contype="0" conaffinity="0"
group="2"`` and collisions ``group="3"`` (the convention of MuJoCo Menagerie); an MJCF source's
geoms keep their own contype, conaffinity and group, and are written once even when the reader
listed them as both. Mesh files are referred to through the `WriteContext` (relative to the
output's folder); MuJoCo moves a mesh's frame to its centre of mass and principal axes but keeps
its vertices where ``geom pose @ (scale * v)`` puts them, so the shape's pose is written as it is.
"""

from __future__ import annotations

import math
import os
from typing import Any
from xml.etree.ElementTree import Element, SubElement

import numpy as np

from ...core.errors import RobodescError
from ...core.geometry import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    Ellipsoid,
    Heightfield,
    Material,
    Mesh,
    Plane,
    Shape,
    Sphere,
)
from ...core.resources import read_head
from ...core.transforms import make_pose, matrix_to_quat, quat_between
from ...core.writing import WriteContext, unique_name

#: Mesh files MuJoCo 4.0 decodes itself; any other kind (COLLADA, glTF, PLY, ...) is lost.
MESH_EXTENSIONS = (".stl", ".obj", ".msh")
#: Thickness of the box a plane on a moving body is written as.
PLANE_THICKNESS = 1e-3
#: Sides of the pyramid a cone is written as (MuJoCo has no cone).
CONE_SIDES = 32
#: Most height-field samples written inline; a larger terrain is referred to by its file.
MAX_INLINE_SAMPLES = 1 << 20


def num(value: Any) -> str:
    """A number as Python's shortest exact spelling (repr), integers without '.0'."""
    value = float(value)
    if value == 0.0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def nums(values: Any) -> str:
    return " ".join(num(v) for v in np.asarray(values, dtype=float).reshape(-1))


def set_pose(element: Element, pose: np.ndarray) -> None:
    """`pos` and `quat` attributes of a 4x4 pose, left out when zero / the identity."""
    translation = pose[:3, 3]
    if np.any(translation != 0):
        element.set("pos", nums(translation))
    rotation = pose[:3, :3]
    if not np.array_equal(rotation, np.eye(3)):
        element.set("quat", nums(matrix_to_quat(rotation)))


class GeomWriter:
    """Writes one model's shapes into bodies and collects the assets they need."""

    def __init__(self, model: Any, context: WriteContext, lose: Any) -> None:
        self.model = model
        self.context = context
        self.lose = lose
        self.is_mjcf = model.format == "mjcf"
        self.meshes: list[Element] = []
        self.hfields: list[Element] = []
        self.materials: dict[str, Element] = {}
        self.mesh_names: set[str] = set()
        self.hfield_names: set[str] = set()
        self.material_colors: dict[str, Any] = {}
        self._mesh_keys: dict[Any, str] = {}
        self.geom_names: set[str] = {s.name for _, s, _ in model.iter_shapes() if s.name}
        self._geoms_written: set[str] = set()
        self.renamed: list[str] = []  # geoms renamed because an earlier one had the name
        self.textures = {
            e.attributes.get("name") for e in model.extras if e.tag == "texture" and e.attributes.get("name")
        }
        for name, material in model.materials.items():
            self._material(name, material)

    # -- materials ------------------------------------------------------------------------------
    def _material(self, name: str, material: Material) -> bool:
        """Declare material `name` (first definition wins); False when an earlier one differs."""
        color = None if material.color is None else tuple(float(c) for c in material.color)
        if name in self.materials:
            return self.material_colors[name] == color
        element = Element("material", name=name)
        if color is not None:
            element.set("rgba", nums(color))
        if material.texture:
            if material.texture in self.textures:
                element.set("texture", material.texture)
            else:
                self.lose(
                    "texture",
                    f"material {name!r} has the texture {material.texture!r}, which is not written",
                    construct=name,
                    instead="the material's colour only",
                )
        self.materials[name] = element
        self.material_colors[name] = color
        return True

    def _color(self, geom: Element, material: Material | None) -> None:
        if material is None:
            return
        if material.name and self._material(material.name, material):
            geom.set("material", material.name)
        elif material.color is not None:
            geom.set("rgba", nums(material.color))

    # -- geoms ----------------------------------------------------------------------------------
    def write_body_shapes(self, body: Any, parent: Element, static: bool) -> None:
        """Every shape of `body` as a geom of `parent`, each once: visuals first, then collisions.
        `static`: the body never moves (MuJoCo allows planes and height fields only there)."""
        self.static = static
        written: set[int] = set()
        for kind, shapes in (("visual", body.visuals), ("collision", body.collisions)):
            for shape in shapes:
                if id(shape) in written:
                    continue
                written.add(id(shape))
                self._geom(body, shape, kind, parent)

    def _geom(self, body: Any, shape: Shape, kind: str, parent: Element) -> None:
        geometry = shape.geometry
        attributes: dict[str, str] = {}
        pose = np.asarray(shape.pose, dtype=float)
        what = f"{kind} {shape.name!r} of body {body.name!r}" if shape.name else f"a {kind} of body {body.name!r}"
        if isinstance(geometry, Box):
            attributes.update(type="box", size=nums(np.asarray(geometry.size, dtype=float) / 2))
        elif isinstance(geometry, Sphere):
            attributes.update(type="sphere", size=num(geometry.radius))
        elif isinstance(geometry, Cylinder | Capsule):
            kind_name = "cylinder" if isinstance(geometry, Cylinder) else "capsule"
            attributes.update(type=kind_name, size=f"{num(geometry.radius)} {num(geometry.length / 2)}")
        elif isinstance(geometry, Ellipsoid):
            attributes.update(type="ellipsoid", size=nums(geometry.radii))
        elif isinstance(geometry, Plane):
            pose = self._plane(geometry, pose, attributes, what)
            if not attributes:
                return
        elif isinstance(geometry, Cone):
            attributes.update(type="mesh", mesh=self._cone(geometry, body, shape))
        elif isinstance(geometry, Mesh):
            name = self._mesh(geometry, body, shape, what)
            if name is None:
                return
            attributes.update(type="mesh", mesh=name)
        elif isinstance(geometry, Heightfield):
            written = self._hfield(geometry, body, shape, what)
            if written is None:
                return
            name, offset = written
            pose = pose @ offset
            attributes.update(type="hfield", hfield=name)
        else:
            kind_name = type(geometry).__name__
            self.lose("geometry", f"{what} is a {kind_name}, which MJCF has no geom for", construct=body.name)
            return
        size = attributes.get("size")
        if size is not None and attributes.get("type") != "plane" and any(float(v) <= 0 for v in size.split()):
            self.lose("geom-size", f"{what} has a size that is not positive ({size}), which MuJoCo refuses")
            return
        geom = SubElement(parent, "geom")
        if shape.name:
            name = shape.name
            if name in self._geoms_written:  # names of another body's shapes (SDF scopes them by link)
                name = unique_name(f"{body.name}::{shape.name}", self.geom_names)
                self.renamed.append(f"{shape.name} -> {name}")
            self._geoms_written.add(name)
            geom.set("name", name)
        for key, value in attributes.items():
            geom.set(key, value)
        set_pose(geom, pose)
        self._groups(geom, shape, kind)
        self._color(geom, shape.material)

    def _groups(self, geom: Element, shape: Shape, kind: str) -> None:
        own = shape.extras.get("mjcf") if self.is_mjcf else None
        if isinstance(own, dict) and "group" in own:
            if own.get("contype", 1) != 1:
                geom.set("contype", str(own["contype"]))
            if own.get("conaffinity", 1) != 1:
                geom.set("conaffinity", str(own["conaffinity"]))
            if own.get("group", 0):
                geom.set("group", str(own["group"]))
        elif kind == "visual":
            geom.set("contype", "0")
            geom.set("conaffinity", "0")
            geom.set("group", "2")
        else:
            geom.set("group", "3")

    def _plane(self, plane: Plane, pose: np.ndarray, attributes: dict[str, str], what: str) -> np.ndarray:
        size = plane.size
        half = "0 0" if size is None else nums(np.asarray(size, dtype=float)[:2] / 2)
        if not self.static:  # MuJoCo allows planes only in bodies that never move
            if size is None or not np.all(np.asarray(size, dtype=float)[:2] > 0):
                self.lose("plane", f"{what} is an infinite plane on a moving body, which MuJoCo refuses")
                return pose
            attributes.update(type="box", size=f"{half} {num(PLANE_THICKNESS / 2)}")
            self.lose(
                "plane",
                f"{what} is a plane on a moving body, which MuJoCo refuses",
                instead=f"a box of its size, {num(PLANE_THICKNESS)} thick, its top face on the plane",
            )
            pose = pose @ make_pose(translation=(0.0, 0.0, -PLANE_THICKNESS / 2))
        else:
            attributes.update(type="plane", size=f"{half} 1")
        normal = np.asarray(plane.normal, dtype=float)
        if np.allclose(normal, (0.0, 0.0, 1.0), rtol=0.0, atol=0.0):
            return pose
        from ...core.transforms import quat_to_matrix

        turn = quat_to_matrix(quat_between((0.0, 0.0, 1.0), normal / np.linalg.norm(normal)))
        return pose @ make_pose(turn)

    # -- meshes ---------------------------------------------------------------------------------
    def _mesh(self, mesh: Mesh, body: Any, shape: Shape, what: str) -> str | None:
        """The name of the mesh asset for `mesh` (declared on first use), or None when it is lost."""
        scale = tuple(float(s) for s in np.asarray(mesh.scale, dtype=float).reshape(-1))
        if mesh.vertices is not None:
            key: Any = ("inline", id(mesh.vertices), scale)
        else:
            extension = os.path.splitext(mesh.path or mesh.uri)[1].lower()
            if mesh.path is None:
                self.lose(
                    "mesh-not-found",
                    f"{what}: the mesh {mesh.uri!r} was not found when loading, so MuJoCo could not read it",
                    location=body.location,
                    construct=mesh.uri,
                )
                return None
            if extension not in MESH_EXTENSIONS:
                self.lose(
                    "mesh-format",
                    f"{what}: MuJoCo cannot read {extension or 'extension-less'} mesh files ({mesh.uri})",
                    location=body.location,
                    construct=mesh.uri,
                    instead="nothing (convert the file to STL or OBJ and add the geom)",
                )
                return None
            if extension == ".stl" and not _binary_stl(mesh.path):
                self.lose(
                    "mesh-format",
                    f"{what}: {mesh.uri} is an ASCII STL file, which MuJoCo cannot read",
                    location=body.location,
                    construct=mesh.uri,
                    instead="nothing (save the file as binary STL and add the geom)",
                )
                return None
            key = ("file", os.path.abspath(mesh.path), scale)
        known = self._mesh_keys.get(key)
        if known is not None:
            return known
        wanted = shape.extras.get("mjcf", {}).get("mesh") if self.is_mjcf else None
        if not wanted:
            wanted = os.path.splitext(os.path.basename(mesh.uri))[0] or "mesh"
        name = unique_name(str(wanted), self.mesh_names)
        element = Element("mesh", name=name)
        if mesh.vertices is not None:
            element.set("vertex", nums(mesh.vertices))
            if mesh.faces is not None and np.size(mesh.faces):
                element.set("face", " ".join(str(int(i)) for i in np.asarray(mesh.faces).reshape(-1)))
        else:
            element.set("file", self.context.file_reference(mesh.path, mesh.uri))
        if scale != (1.0, 1.0, 1.0):
            element.set("scale", nums(scale))
        self.meshes.append(element)
        self._mesh_keys[key] = name
        return name

    def _cone(self, cone: Cone, body: Any, shape: Shape) -> str:
        """A cone as a mesh of its apex and a polygon of its base (MuJoCo takes their convex hull)."""
        key = ("cone", float(cone.radius), float(cone.length))
        known = self._mesh_keys.get(key)
        if known is None:
            angles = np.arange(CONE_SIDES) * (2 * math.pi / CONE_SIDES)
            half = cone.length / 2
            base = np.stack([cone.radius * np.cos(angles), cone.radius * np.sin(angles), np.full(CONE_SIDES, -half)], 1)
            vertices = np.vstack([[0.0, 0.0, half], base])
            known = unique_name("cone", self.mesh_names)
            self.meshes.append(Element("mesh", name=known, vertex=nums(vertices)))
            self._mesh_keys[key] = known
        self.lose(
            "cone",
            f"a shape of body {body.name!r} is a cone, which MuJoCo has no geom for",
            location=body.location,
            construct=shape.name or body.name,
            instead=f"a {CONE_SIDES}-sided pyramid mesh of the same radius and length",
        )
        return known

    # -- height fields --------------------------------------------------------------------------
    def _hfield(self, field: Heightfield, body: Any, shape: Shape, what: str) -> tuple[str, np.ndarray] | None:
        """An ``<hfield>`` asset for `field` and the offset of the geom frame from the shape's; MuJoCo
        maps the heights to 0..1 itself, so the written size and offset undo that where needed."""
        size = np.asarray(field.size if field.size is not None else (1.0, 1.0, 1.0), dtype=float)
        try:
            heights = field.heights()
        except RobodescError as exc:
            self.lose("heightfield", f"{what}: its heights cannot be read ({exc})", construct=field.uri)
            return None
        low, high = float(heights.min()), float(heights.max())
        base = float(field.base)
        if base <= 0:
            base = max(1e-3 * float(size[2]), 1e-6)
            self.lose(
                "heightfield-base",
                f"{what} is a surface; MuJoCo's height fields stand on a solid base",
                construct=field.uri,
                instead=f"a base {num(base)} deep",
            )
        stem = os.path.splitext(os.path.basename(field.uri or "terrain"))[0]
        name = unique_name(stem or "terrain", self.hfield_names)
        element = Element("hfield", name=name)
        top = float(size[2]) * (high - low) if high > low else float(size[2])
        use_file = field.path is not None and field.normalize == "range" and high > low
        use_file = use_file and (field.file_format == "mujoco" or str(field.path).lower().endswith(".png"))
        if use_file or heights.size > MAX_INLINE_SAMPLES:
            if not use_file:
                self.lose("heightfield", f"{what} has too many samples to write inline", construct=field.uri)
                return None
            element.set("file", self.context.file_reference(field.path, field.uri or ""))
        else:
            rows, columns = heights.shape
            element.set("nrow", str(rows))
            element.set("ncol", str(columns))
            element.set("elevation", nums(np.flipud(heights)))
        element.set("size", f"{num(size[0] / 2)} {num(size[1] / 2)} {num(top)} {num(base)}")
        self.hfields.append(element)
        offset = np.asarray(field.center, dtype=float) + np.array([0.0, 0.0, float(size[2]) * low])
        return name, make_pose(translation=offset)

    def assets(self) -> list[Element]:
        return [*self.materials.values(), *self.meshes, *self.hfields]


def _binary_stl(path: str) -> bool:
    """Whether an STL file is binary (its size is what its triangle count says): MuJoCo reads only those."""
    try:
        size = os.path.getsize(path)
        head = read_head(path, 84)
    except (OSError, RobodescError):
        return True  # MuJoCo will say what is wrong with it
    if len(head) < 84:
        return False
    return size == 84 + 50 * int.from_bytes(head[80:84], "little")
