"""Seeing a model: shapes as trimesh meshes, and a `trimesh.Scene` of a model at one configuration.

Everything a picture, an exported file or a viewer needs starts here, so it lives in the core and
works alike for every format. Three rules shape it:

* **One node per shape**, placed directly under the scene's base frame at the shape's world pose
  (body pose from forward kinematics @ `shape.pose`). A flat graph keeps re-posing to one
  transform per shape and makes ``scene.graph[node]`` the world pose without walking a tree.
* **Mesh files are read once per model.** The meshes read for one scene are kept on the model and
  shared by every later scene of it, so a scene at another configuration reads no file again.
  The geometry in a scene is therefore shared with the model's cache: copy it before editing it.
* **Re-posing touches only transforms** (`update_scene`): an animation calls it every frame.

This module imports trimesh only when called: loading a description never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConfigurationError, InvalidArgument, RobodescError, UnsupportedGeometry
from .geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Heightfield, Material, Mesh, Plane, Shape, Sphere

if TYPE_CHECKING:
    import trimesh

    from .model import Model

#: Side of the square patch drawn for an infinite plane (or one with no size), in metres.
INFINITE_PLANE_SIZE = 10.0
#: Segments around a cylinder or capsule, and icosphere subdivisions of a sphere/ellipsoid: enough
#: to look round in a picture while keeping a many-shape robot light.
ROUND_SECTIONS = 32
SPHERE_SUBDIVISIONS = 3

#: Key of robodesc's own entry in ``scene.metadata``.
METADATA_KEY = "robodesc"

Positions = Mapping[str, Any] | Sequence[float] | np.ndarray | None


def as_trimesh(geometry: Geometry, color: np.ndarray | Sequence[float] | None = None) -> trimesh.Trimesh:
    """One geometry as a `trimesh.Trimesh` in the shape's own frame (not posed, not cached).

    Sizes follow robodesc's conventions: full box edges, cylinder/capsule `length` of the
    straight part along z, radii. A plane becomes a thin square patch (its `size`, or
    `INFINITE_PLANE_SIZE` on a side when infinite) whose top face is the plane. A mesh is read
    with `Mesh.load` (scale applied) and raises what it raises: `ResourceNotFound`,
    `MissingDependency`, `InvalidValue`. A heightfield raises `UnsupportedGeometry` (not drawn yet).

    `color` (RGBA in 0..1) becomes the face colours of a primitive, and of a mesh whose file
    brings no colours or texture of its own; a mesh's own visuals are kept.
    """
    import trimesh

    mesh: trimesh.Trimesh
    if isinstance(geometry, Mesh):
        mesh = geometry.load()
    elif isinstance(geometry, Box):
        mesh = trimesh.creation.box(extents=np.asarray(geometry.size, dtype=float))
    elif isinstance(geometry, Sphere):
        mesh = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=float(geometry.radius))
    elif isinstance(geometry, Cylinder):
        mesh = trimesh.creation.cylinder(
            radius=float(geometry.radius), height=float(geometry.length), sections=ROUND_SECTIONS
        )
    elif isinstance(geometry, Capsule):
        mesh = trimesh.creation.capsule(
            height=float(geometry.length), radius=float(geometry.radius), count=[ROUND_SECTIONS, ROUND_SECTIONS]
        )
    elif isinstance(geometry, Ellipsoid):
        mesh = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=1.0)
        mesh.apply_scale(np.asarray(geometry.radii, dtype=float))
    elif isinstance(geometry, Plane):
        mesh = _plane_patch(geometry)
    elif isinstance(geometry, Heightfield):
        raise UnsupportedGeometry(
            f"heightfield {geometry.uri or ''!r} cannot be turned into a mesh yet (its height data is not read)",
            construct=geometry.uri,
        )
    else:
        raise UnsupportedGeometry(f"no mesh for geometry type {type(geometry).__name__}")
    if color is not None:
        _paint(mesh, color, keep_own=isinstance(geometry, Mesh))
    return mesh


def _plane_patch(plane: Plane) -> trimesh.Trimesh:
    """A thin box whose top face lies on the plane: visible from above, with a tiny thickness (1/1000
    of its larger side) so renderers and exporters that drop degenerate faces still keep it."""
    import trimesh

    if plane.size is not None and np.all(np.asarray(plane.size) > 0):
        sx, sy = (float(v) for v in np.asarray(plane.size)[:2])
    else:
        sx = sy = INFINITE_PLANE_SIZE
    thickness = max(sx, sy) * 1e-3
    patch = trimesh.creation.box(extents=[sx, sy, thickness])
    patch.apply_translation([0.0, 0.0, -thickness / 2])
    normal = np.asarray(plane.normal, dtype=float)
    normal = normal / np.linalg.norm(normal)
    if not np.allclose(normal, [0.0, 0.0, 1.0]):
        patch.apply_transform(trimesh.geometry.align_vectors([0.0, 0.0, 1.0], normal))
    return patch


def _paint(mesh: trimesh.Trimesh, color: np.ndarray | Sequence[float], keep_own: bool) -> None:
    """Set every face to `color` (RGBA 0..1), unless `keep_own` and the mesh has visuals of its own."""
    import trimesh

    if keep_own and _has_own_visuals(mesh):
        return
    rgba = np.clip(np.round(np.asarray(color, dtype=float) * 255), 0, 255).astype(np.uint8)
    if rgba.shape == (3,):
        rgba = np.append(rgba, np.uint8(255))
    mesh.visual = trimesh.visual.ColorVisuals(mesh, face_colors=np.tile(rgba, (len(mesh.faces), 1)))


def _has_own_visuals(mesh: trimesh.Trimesh) -> bool:
    """Whether a mesh read from a file brought textures, materials or colours of its own."""
    visual = mesh.visual
    return visual is not None and bool(visual.defined)


def _shape_color(shape: Shape) -> np.ndarray | None:
    material: Material | None = shape.material
    return None if material is None else material.color


def node_name(body: str, kind: str, index: int, shape: Shape) -> str:
    """The scene node of a shape: ``"<body>/<shape name>"`` when the shape is named, else
    ``"<body>/<kind>/<index>"`` (index in `body.visuals` or `body.collisions`). Names are made unique
    in `Model.scene` by appending ``"~2"``, ``"~3"``, ... to repeats."""
    return f"{body}/{shape.name}" if shape.name else f"{body}/{kind}/{index}"


def _cached_mesh(model: Model, shape: Shape) -> trimesh.Trimesh:
    """The trimesh of a shape, built once per model and shared by every scene of it.

    Keyed by what the mesh depends on (file, scale, colour; sizes for primitives), so editing a
    shape by hand gives a new entry rather than a stale one."""
    geometry = shape.geometry
    color = _shape_color(shape)
    if isinstance(geometry, Heightfield):
        return as_trimesh(geometry)  # raises: not drawn yet
    color_key = None if color is None else tuple(np.asarray(color, dtype=float).round(6))
    if isinstance(geometry, Mesh):
        key: Any = ("mesh", geometry.path, geometry.uri, tuple(np.asarray(geometry.scale, dtype=float)), color_key)
        cache = model._meshes
        found = cache.get(key)
        if found is None:
            raw_key = ("file", geometry.path, geometry.uri, key[3])
            raw = cache.get(raw_key)
            if raw is None:
                raw = cache[raw_key] = geometry.load()
            found = raw if color is None or _has_own_visuals(raw) else raw.copy()
            if color is not None:
                _paint(found, color, keep_own=True)
            cache[key] = found
        return found
    key = ("primitive", type(geometry).__name__, _field_key(geometry), color_key)
    found = model._meshes.get(key)
    if found is None:
        found = model._meshes[key] = as_trimesh(geometry, color)
    return found


def _field_key(geometry: Geometry) -> tuple[Any, ...]:
    """The field values of a primitive as a hashable key (arrays as tuples)."""
    out: list[Any] = []
    for f in fields(geometry):
        value = getattr(geometry, f.name)
        out.append(tuple(np.asarray(value, dtype=float).ravel()) if isinstance(value, np.ndarray) else value)
    return tuple(out)


def build_scene(
    model: Model,
    positions: Positions = None,
    kind: str = "visual",
    skip_missing: bool = False,
) -> trimesh.Scene:
    """A `trimesh.Scene` of `model` at `positions`: one node per shape of `kind` ("visual" or
    "collision"), named by `node_name`, at world pose ``model.pose(body) @ shape.pose``.

    A mesh that cannot be read raises its robodesc error (`ResourceNotFound`, `MissingDependency`,
    `InvalidValue`); with ``skip_missing=True`` such shapes are left out instead. Heightfields are
    always left out for now. Every shape left out is listed, with the reason, in
    ``scene.metadata["robodesc"]["skipped"]``; ``scene.metadata["robodesc"]["nodes"]`` maps each
    node to its body, kind and index, which `update_scene` uses to re-pose the scene.
    """
    import trimesh

    if kind not in ("visual", "collision"):
        raise InvalidArgument(f"kind must be 'visual' or 'collision', not {kind!r}", construct=str(kind))
    poses = model.forward_kinematics(positions)
    scene = trimesh.Scene()
    nodes: dict[str, dict[str, Any]] = {}
    skipped: list[dict[str, Any]] = []
    for body in model.bodies.values():
        shapes = body.visuals if kind == "visual" else body.collisions
        for index, shape in enumerate(shapes):
            name = node_name(body.name, kind, index, shape)
            if name in nodes:
                repeat = 2
                while f"{name}~{repeat}" in nodes:
                    repeat += 1
                name = f"{name}~{repeat}"
            try:
                mesh = _cached_mesh(model, shape)
            except UnsupportedGeometry as exc:
                skipped.append(_skip_record(name, body.name, kind, index, exc, _written_as(shape)))
                continue
            except RobodescError as exc:
                if not skip_missing:
                    raise
                skipped.append(_skip_record(name, body.name, kind, index, exc))
                continue
            scene.add_geometry(mesh, geom_name=name, node_name=name, transform=poses[body.name] @ shape.pose)
            nodes[name] = {"body": body.name, "kind": kind, "index": index, "shape": shape.name}
    scene.metadata[METADATA_KEY] = {"model": model.name, "kind": kind, "nodes": nodes, "skipped": skipped}
    return scene


def _skip_record(
    node: str, body: str, kind: str, index: int, exc: RobodescError, written_as: str | None = None
) -> dict[str, Any]:
    reason = str(exc) if written_as is None else f"{written_as} cannot be drawn yet ({exc})"
    return {"node": node, "body": body, "kind": kind, "index": index, "code": exc.code, "reason": reason}


def _written_as(shape: Shape) -> str | None:
    """What the description called a shape robodesc has no geometry type for (e.g. "the sdf cone"),
    from what the reader kept in ``shape.extras[format]["geometry"]["kind"]``, so the reason a shape
    is left out names what the user wrote rather than the base class."""
    if type(shape.geometry) is not Geometry:
        return None
    for fmt, kept in shape.extras.items():
        written = kept.get("geometry") if isinstance(kept, dict) else None
        if isinstance(written, dict) and isinstance(written.get("kind"), str):
            return f"the {fmt} {written['kind']} geometry"
    return None


def update_scene(scene: trimesh.Scene, model: Model, positions: Positions = None) -> trimesh.Scene:
    """Move the nodes of a scene made by `build_scene` / `Model.scene` to `positions`, in place.

    Only node transforms change: no geometry is built or read, which makes this cheap enough to
    call every frame of an animation. Returns the same scene.
    """
    try:
        nodes = scene.metadata[METADATA_KEY]["nodes"]
    except (KeyError, TypeError):
        raise ConfigurationError("this scene was not made by robodesc's Model.scene: no node list to re-pose") from None
    poses = model.forward_kinematics(positions)
    graph = scene.graph
    for name, where in nodes.items():
        body = model.bodies[where["body"]]
        shape = (body.visuals if where["kind"] == "visual" else body.collisions)[where["index"]]
        graph.update(frame_to=name, matrix=poses[body.name] @ shape.pose)
    return scene
