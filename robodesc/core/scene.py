"""Seeing a model: shapes as trimesh meshes, and a `trimesh.Scene` of a model at one configuration.

Everything a picture, an exported file or a viewer needs starts here, so it lives in the core and
works alike for every format. Three rules shape it:

* **One node per shape** (per part, for a mesh file of several parts), placed directly under the
  scene's base frame at its world pose (body pose from forward kinematics @ `shape.pose`, @ the
  part's transform in its file). A flat graph keeps re-posing to one transform per node and makes
  ``scene.graph[node]`` the world pose without walking a tree.
* **Mesh files are read once per model.** The meshes read for one scene are kept on the model and
  shared by every later scene of it, so a scene at another configuration reads no file again.
  The geometry in a scene is therefore shared with the model's cache: copy it before editing it.
* **Re-posing touches only transforms** (`update_scene`): an animation calls it every frame.

This module imports trimesh only when called: loading a description never needs it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConfigurationError, InvalidArgument, RobodescError, UnsupportedGeometry
from .geometry import (
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
    `MissingDependency`, `InvalidValue`. A cone is centred on its origin, apex up. A heightfield
    is a grid of its heights (read from its file if it has no elevation), with walls and a bottom
    down to its `base` when it has one; a grid of more than `MAX_HEIGHTFIELD_SAMPLES` is refused.

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
    elif isinstance(geometry, Cone):
        # trimesh's cone stands on z = 0; robodesc's (SDFormat's) is centred on its origin
        mesh = trimesh.creation.cone(
            radius=float(geometry.radius), height=float(geometry.length), sections=ROUND_SECTIONS
        )
        mesh.apply_translation([0.0, 0.0, -float(geometry.length) / 2])
    elif isinstance(geometry, Ellipsoid):
        mesh = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=1.0)
        mesh.apply_scale(np.asarray(geometry.radii, dtype=float))
    elif isinstance(geometry, Plane):
        mesh = _plane_patch(geometry)
    elif isinstance(geometry, Heightfield):
        mesh = _heightfield_mesh(geometry)
    else:
        if type(geometry) is Geometry:  # what a reader gives for an empty, missing or unmodelled geometry
            raise UnsupportedGeometry("the shape has no geometry robodesc can draw (empty, missing or not modelled)")
        raise UnsupportedGeometry(f"no mesh for geometry type {type(geometry).__name__}")
    if color is not None:
        _paint(mesh, color, keep_own=isinstance(geometry, Mesh))
    return mesh


def _heightfield_mesh(field: Heightfield) -> trimesh.Trimesh:
    """The grid of a heightfield's heights, built with array operations only (two triangles per
    cell, wound to face +z); with a base, walls from the edge of the grid down to ``-base`` and a
    bottom closing it, as MuJoCo draws its height fields."""
    import trimesh

    heights = field.heights()
    rows, columns = heights.shape
    sx, sy, sz = (float(v) for v in (np.ones(3) if field.size is None else np.asarray(field.size, dtype=float)))
    cx, cy, cz = (float(v) for v in np.asarray(field.center, dtype=float))
    xs, ys = np.meshgrid(np.linspace(-sx / 2, sx / 2, columns) + cx, np.linspace(-sy / 2, sy / 2, rows) + cy)
    top = np.column_stack([xs.ravel(), ys.ravel(), cz + heights.ravel() * sz])
    index = np.arange(rows * columns).reshape(rows, columns)
    a, b = index[:-1, :-1].ravel(), index[:-1, 1:].ravel()
    c, d = index[1:, 1:].ravel(), index[1:, :-1].ravel()
    faces = [np.column_stack([a, b, c]), np.column_stack([a, c, d])]
    vertices = [top]
    base = float(field.base)
    if base > 0:
        # the edge of the grid counter-clockwise seen from above, each corner once
        ring = np.concatenate([index[0, :-1], index[:-1, -1], index[-1, :0:-1], index[:0:-1, 0]])
        count, first = len(ring), len(top)
        bottom = top[ring].copy()
        bottom[:, 2] = cz - base
        centre = np.array([[cx, cy, cz - base]])
        k = np.arange(count)
        following = (k + 1) % count
        low, low_next = first + k, first + following
        faces += [
            np.column_stack([ring, low, low_next]),
            np.column_stack([ring, low_next, ring[following]]),
            np.column_stack([np.full(count, first + count), low_next, low]),
        ]
        vertices += [bottom, centre]
    return trimesh.Trimesh(vertices=np.concatenate(vertices), faces=np.concatenate(faces), process=False)


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


#: One drawable piece of a shape: (part name or None for the whole shape, transform of the part in
#: the shape frame, mesh).
Part = tuple[str | None, np.ndarray, "trimesh.Trimesh"]


def _cached_parts(model: Model, shape: Shape) -> list[Part]:
    """The meshes of a shape, built once per model and shared by every scene of it: one for a
    primitive, a heightfield or a mesh file of one part; one per part of a file of several parts.

    Keyed by what the mesh depends on (file, scale, colour; sizes for primitives; the data itself
    for inline vertices and heightfields), so editing a shape by hand gives a new entry rather than
    a stale one. Each file is read once per model whatever colours its shapes give it."""
    geometry = shape.geometry
    color = _shape_color(shape)
    color_key = None if color is None else tuple(np.asarray(color, dtype=float).round(6))
    cache = model._meshes
    identity = np.eye(4)
    if isinstance(geometry, Mesh):
        raw_key = (
            "parts",
            geometry.path,
            geometry.uri,
            tuple(np.asarray(geometry.scale, dtype=float)),
            _digest(geometry.vertices),
            _digest(geometry.faces),
        )
        key: Any = (*raw_key, color_key)
        found = cache.get(key)
        if found is None:
            raw = cache.get(raw_key)
            if raw is None:
                raw = cache[raw_key] = geometry.load_parts()
            found = cache[key] = [(name, local, _painted(mesh, color)) for name, local, mesh in raw]
        return found
    if isinstance(geometry, Heightfield):
        key = ("heightfield", _field_key(geometry, skip=("elevation",)), _digest(geometry.elevation), color_key)
    else:
        key = ("primitive", type(geometry).__name__, _field_key(geometry), color_key)
    mesh = cache.get(key)
    if mesh is None:
        mesh = cache[key] = as_trimesh(geometry, color)
    return [(None, identity, mesh)]


def _painted(mesh: trimesh.Trimesh, color: np.ndarray | None) -> trimesh.Trimesh:
    """`mesh` in `color` (a copy), unless it has no colour to take or visuals of its own to keep."""
    if color is None or _has_own_visuals(mesh):
        return mesh
    painted = mesh.copy()
    _paint(painted, color, keep_own=False)
    return painted


def _digest(values: np.ndarray | None) -> str | None:
    """A short fingerprint of an array, for cache keys: linear in its size, small whatever its size."""
    if values is None:
        return None
    array = np.ascontiguousarray(values)
    return f"{array.dtype.str}{array.shape}" + hashlib.blake2b(array.tobytes(), digest_size=16).hexdigest()


def _field_key(geometry: Geometry, skip: tuple[str, ...] = ()) -> tuple[Any, ...]:
    """The field values of a primitive as a hashable key (arrays as tuples), but those in `skip`."""
    out: list[Any] = []
    for f in fields(geometry):
        if f.name in skip:
            continue
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
    "collision"), named by `node_name`, at world pose ``model.pose(body) @ shape.pose``. A mesh file
    of several parts (a DAE of several nodes, an OBJ of several objects) gives one node per part,
    ``"<shape node>/<part>"``, at ``model.pose(body) @ shape.pose @ <the part's transform>``, each
    with its own material.

    A mesh or heightfield that cannot be read raises its robodesc error (`ResourceNotFound`,
    `MissingDependency`, `InvalidValue`); with ``skip_missing=True`` such shapes are left out
    instead. A shape of a kind robodesc cannot draw (an SDF polyline or image) is always left out.
    Every shape left out is listed, with the reason, in ``scene.metadata["robodesc"]["skipped"]``;
    ``scene.metadata["robodesc"]["nodes"]`` maps each node to its body, kind, index, part and the
    part's transform in the shape frame (``local``), which `update_scene` uses to re-pose the scene.
    """
    import trimesh

    if kind not in ("visual", "collision"):
        raise InvalidArgument(f"kind must be 'visual' or 'collision', not {kind!r}", construct=str(kind))
    poses = model.forward_kinematics(positions, backend="numpy")  # once per scene: not worth loading numba
    scene = trimesh.Scene()
    nodes: dict[str, dict[str, Any]] = {}
    skipped: list[dict[str, Any]] = []
    for body in model.bodies.values():
        shapes = body.visuals if kind == "visual" else body.collisions
        for index, shape in enumerate(shapes):
            name = _unique(node_name(body.name, kind, index, shape), nodes)
            try:
                parts = _cached_parts(model, shape)
            except UnsupportedGeometry as exc:
                skipped.append(_skip_record(name, body.name, kind, index, exc, _written_as(shape)))
                continue
            except RobodescError as exc:
                if not skip_missing:
                    raise
                skipped.append(_skip_record(name, body.name, kind, index, exc))
                continue
            placed = poses[body.name] @ shape.pose
            for part, local, mesh in parts:
                node = name if part is None else _unique(f"{name}/{part}", nodes)
                scene.add_geometry(mesh, geom_name=node, node_name=node, transform=placed @ local)
                nodes[node] = {"body": body.name, "kind": kind, "index": index, "shape": shape.name}
                if part is not None:
                    nodes[node].update(part=part, local=local)
    scene.metadata[METADATA_KEY] = {"model": model.name, "kind": kind, "nodes": nodes, "skipped": skipped}
    return scene


def _unique(name: str, taken: Mapping[str, Any]) -> str:
    """`name`, or `name~2`, `name~3`, ... when it is taken."""
    if name not in taken:
        return name
    repeat = 2
    while f"{name}~{repeat}" in taken:
        repeat += 1
    return f"{name}~{repeat}"


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
        matrix = poses[body.name] @ shape.pose
        local = where.get("local")
        graph.update(frame_to=name, matrix=matrix if local is None else matrix @ local)
    return scene
