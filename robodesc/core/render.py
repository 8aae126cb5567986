"""Pictures of a model with no display, no GPU and no system packages: a z-buffer in numpy.

Why this route: continuous integration and users' servers have no display and no GPU. pyrender
needs OSMesa or EGL system libraries plus PyOpenGL, which a ``pip install`` cannot bring;
matplotlib's 3D axes draw each triangle as a Python object and take minutes on a robot of 100,000+
triangles. A vectorised numpy z-buffer needs nothing beyond numpy, which the core already has, and
gives the same picture on every machine, so tests can assert on pixels.

How a picture is made (`render_scene`):

* **Gather** every `trimesh.Trimesh` of the scene at its world pose (``scene.graph[node]``), with
  one colour per face: face colours, vertex colours averaged over each face, texture colours
  sampled at the UVs (``visual.to_color()``), the material's main colour, or trimesh's grey.
  Faces whose alpha is 0 are left out (MJCF geoms hidden with ``rgba="... 0"``); other
  transparency is drawn opaque.
* **Frame** the drawn vertices automatically: a perspective camera (`FIELD_OF_VIEW` degrees across
  the picture's shorter side) looks from the `VIEWS` direction at the centre of the bounding box,
  from the distance at which every vertex projects inside the picture; the projection is then
  centred and scaled so the robot fills the picture up to `MARGIN` on each side. Any size of
  robot (1 cm or 100 m) and any aspect ratio gives the same framing.
* **Shade** each face flat: ambient light plus a Lambertian key light near the camera, using
  ``|n . l|`` so faces are lit from either side (many robot meshes have inconsistent winding).
* **Rasterise** without a Python loop per triangle: triangles are grouped by the power-of-two size
  of their pixel bounding box (large ones cut into tiles of `TILE` pixels), every candidate pixel
  of a group is tested with barycentric coordinates by broadcasting, in chunks of at most
  `CHUNK_PIXELS` candidates so memory stays bounded for any mesh, and the nearest fragment of
  each pixel wins through ``np.maximum.at`` on inverse depth. A triangle too small to cover any
  pixel centre still marks the pixel under its centre, so thin parts do not vanish.
* **Smooth edges** by rendering at twice the size and averaging 2x2 blocks (pictures up to
  `SUPERSAMPLE_MAX_PIXELS` pixels; larger ones are drawn without it).

`encode_png` / `write_png` write the image with zlib and struct only, so the core needs no Pillow.
trimesh is imported only when a scene is rendered.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InvalidArgument, InvalidValue, did_you_mean
from .export import write_whole
from .geometry import Plane
from .scene import METADATA_KEY

if TYPE_CHECKING:
    import trimesh

    from .model import Model
    from .scene import Positions

#: View name → (direction from the robot toward the camera, world axis pointing up in the picture).
#: x forward, y left, z up (ROS / MuJoCo): "front" looks at the robot's face, "side" at its left
#: side (its front to the left of the picture), "top" down from above with x pointing up in the
#: picture, "iso" from front-left-above.
VIEWS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "side": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "top": ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0)),
    "iso": ((1.0, 0.8, 0.6), (0.0, 0.0, 1.0)),
}
#: Field of view across the picture's shorter side, in degrees (narrowed a little when the robot's
#: outline is then centred and scaled to fill the picture).
FIELD_OF_VIEW = 40.0
#: Free space left on each side of the robot, as a fraction of half the picture's width or height.
MARGIN = 0.05
#: Smallest and largest width or height accepted, in pixels.
MIN_SIZE = 16
MAX_SIZE = 8192
#: Pictures of at most this many pixels are rendered at twice the size and averaged down.
SUPERSAMPLE_MAX_PIXELS = 2048 * 2048
#: Largest side of a triangle's candidate grid; bigger triangles are cut into tiles of this side.
TILE = 64
#: Candidate pixels tested at once: bounds the memory of one step whatever the mesh size.
CHUNK_PIXELS = 1 << 21
#: Light: ambient share, and the key light's direction in camera axes (right, up, toward camera).
AMBIENT = 0.3
KEY_LIGHT = (0.35, 0.45, 1.0)
#: A weak white highlight (Blinn-Phong, flat per face): keeps the shape of dark parts readable.
SPECULAR = 0.3
SHININESS = 8.0
#: RGBA (0..255) of faces whose mesh has no colour at all (trimesh's default grey).
DEFAULT_COLOR = (102, 102, 102, 255)
#: Slack of the inside test in barycentric units, so pixel centres on a shared edge are never lost
#: to rounding on both sides (which would leave a crack).
_EDGE_SLACK = 1e-5


def render_scene(
    scene: trimesh.Scene | trimesh.Trimesh,
    size: Sequence[int] = (800, 600),
    view: str = "iso",
    background: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    *,
    antialias: bool = True,
) -> np.ndarray:
    """An RGBA picture (H, W, 4) uint8 of a `trimesh.Scene` (or one mesh), framed automatically.

    `size` is (width, height) in pixels, each `MIN_SIZE`..`MAX_SIZE`; `view` one of `VIEWS`;
    `background` an RGB or RGBA colour in 0..1. A scene with no geometry gives the background
    only. A scene with geometry of which nothing can be drawn (every face fully transparent,
    flat, or thinner than a pixel from this view) raises `InvalidValue` rather than handing back a
    blank picture. Geometry that is not a triangle mesh (a point cloud, a path) is not drawn.
    """
    width, height = _check_size(size)
    directions = _check_view(view)
    bg = _check_background(background)
    vertices, faces, colors, hidden = _gather(scene)
    ss = 2 if antialias and width * height <= SUPERSAMPLE_MAX_PIXELS else 1
    if len(faces) == 0 and hidden:
        raise InvalidValue(
            f"nothing of this scene can be drawn: all of its {hidden} faces are fully transparent (alpha 0)",
            suggestion="give the shapes a colour with alpha above 0, or render kind='collision'",
        )
    if len(faces) == 0:
        return _finish(np.zeros((0, 0, 4), np.uint8), np.zeros(0, np.int32), bg, width, height, ss)
    used = np.zeros(len(vertices), bool)
    used[faces.ravel()] = True
    camera = _frame(vertices[used], directions, width, height)
    px, py, zinv = _project(vertices, camera, ss)
    diffuse, highlight = _shade(vertices, faces, camera)
    rgb = np.clip(colors[:, :3].astype(np.float32) * diffuse[:, None] + 255 * highlight[:, None], 0, 255)
    face_rgba = np.concatenate([np.round(rgb).astype(np.uint8), np.full((len(faces), 1), 255, np.uint8)], axis=1)
    ids = _rasterise(px, py, zinv, faces, width * ss, height * ss)
    if not np.any(ids >= 0):
        raise InvalidValue(
            f"nothing of this scene could be drawn from the {view!r} view: its {len(faces)} faces are "
            "flat or thinner than a pixel from there",
            construct=str(view),
            suggestion="try another view or a larger size",
        )
    return _finish(face_rgba, ids, bg, width, height, ss)


def render(
    model: Model,
    positions: Positions = None,
    *,
    kind: str = "visual",
    size: Sequence[int] = (800, 600),
    view: str = "iso",
    skip_missing: bool = False,
    background: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
    antialias: bool = True,
) -> np.ndarray:
    """A picture of `model` at `positions`: ``render_scene(model.scene(positions, kind=kind,
    skip_missing=skip_missing), size, view, background)``. See `render_scene` for what is drawn.

    An infinite plane (a floor, as in every MuJoCo Menagerie ``scene.xml``) is drawn as a patch
    reaching a little beyond the rest of the model, not as its 10 m stand-in: the camera frames
    everything drawn, and a 10 m floor would leave the robot a speck in the middle.

    The arguments are checked before any mesh is read, so a typo in `view` fails at once."""
    _check_size(size)
    _check_view(view)
    _check_background(background)
    scene = fit_floors(model.scene(positions, kind=kind, skip_missing=skip_missing), model)
    return render_scene(scene, size=size, view=view, background=background, antialias=antialias)


#: How far a floor patch reaches beyond the rest of the model, as a fraction of the model's size.
FLOOR_REACH = 0.25


def fit_floors(scene: trimesh.Scene, model: Model) -> trimesh.Scene:
    """What `render` draws of a scene of `model`: the scene with each infinite plane replaced by a
    patch under the other shapes (in the plane's own x, y, plus `FLOOR_REACH` of their size on each
    side), in the plane's colour. The model's cached meshes are not touched: a new scene holds the
    same geometry and the new patches."""
    import trimesh

    infinite = set()
    for node, where in scene.metadata.get(METADATA_KEY, {}).get("nodes", {}).items():
        body = model.bodies.get(where.get("body"))
        if body is None:
            continue
        shapes = body.visuals if where.get("kind") == "visual" else body.collisions
        index = where.get("index", -1)
        geometry = shapes[index].geometry if 0 <= index < len(shapes) else None
        if isinstance(geometry, Plane) and not (geometry.size is not None and np.all(np.asarray(geometry.size) > 0)):
            infinite.add(node)
    if not infinite:
        return scene
    others = [
        np.asarray(scene.geometry[name].vertices) @ np.asarray(pose)[:3, :3].T + np.asarray(pose)[:3, 3]
        for node in scene.graph.nodes_geometry
        if node not in infinite
        for pose, name in [scene.graph[node]]
        if isinstance(scene.geometry.get(name), trimesh.Trimesh) and len(scene.geometry[name].vertices)
    ]
    if not others:
        return scene  # nothing but floors: draw them as they are
    points = np.concatenate(others)
    points = points[np.all(np.isfinite(points), axis=1)]
    if not len(points):
        return scene
    size = float(np.max(points.max(axis=0) - points.min(axis=0)))
    reach = FLOOR_REACH * (size if size > 0 else 1.0)
    patched = trimesh.Scene()
    for node in scene.graph.nodes_geometry:
        pose, name = scene.graph[node]
        pose = np.asarray(pose, dtype=float)
        mesh = scene.geometry[name]
        if node in infinite:
            local = (points - pose[:3, 3]) @ pose[:3, :3]  # the other shapes in the plane's frame
            low, high = local[:, :2].min(axis=0) - reach, local[:, :2].max(axis=0) + reach
            thickness = float(np.max(high - low)) * 1e-3
            color = _face_colors(mesh, np.asarray(mesh.faces).reshape(-1, 3))
            patch = trimesh.creation.box(extents=[*(high - low), thickness])
            patch.apply_translation([*((low + high) / 2), -thickness / 2])
            patch.visual.face_colors = color[0] if len(color) else DEFAULT_COLOR
            mesh = patch
        patched.add_geometry(mesh, geom_name=node, node_name=node, transform=pose)
    patched.metadata.update(scene.metadata)
    return patched


# --- arguments ---------------------------------------------------------------------------------


def _check_size(size: object) -> tuple[int, int]:
    try:
        items = list(size)  # type: ignore[call-overload]
    except TypeError:
        items = []
    if len(items) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise InvalidArgument(
            f"size must be (width, height) in whole pixels, not {size!r}", suggestion="e.g. size=(800, 600)"
        )
    width, height = int(items[0]), int(items[1])
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise InvalidArgument(
            f"size {width}x{height} is out of range: width and height must be {MIN_SIZE}..{MAX_SIZE} pixels",
            construct=f"{width}x{height}",
            suggestion="e.g. size=(800, 600)",
        )
    return width, height


def _check_view(view: object) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(view, str) or view not in VIEWS:
        names = ", ".join(repr(v) for v in VIEWS)
        hint = did_you_mean(view, VIEWS) if isinstance(view, str) else None
        raise InvalidArgument(
            f"unknown view {view!r}: the views are {names}",
            construct=str(view),
            suggestion=hint or f"use one of {names}",
        )
    direction, up = VIEWS[view]
    return np.asarray(direction, float), np.asarray(up, float)


def _check_background(background: object) -> np.ndarray:
    try:
        values = np.asarray(background, dtype=float)
    except (TypeError, ValueError):
        values = np.zeros(0)
    if values.shape not in ((3,), (4,)) or not np.all(np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise InvalidArgument(
            f"background must be an RGB or RGBA colour with values in 0..1, not {background!r}",
            suggestion="e.g. background=(1, 1, 1, 1) for opaque white, (1, 1, 1, 0) for transparent",
        )
    if values.shape == (3,):
        values = np.append(values, 1.0)
    return values


# --- scene → triangles -------------------------------------------------------------------------


def _gather(scene: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """World-space vertices (V, 3), faces (F, 3) and face colours (F, 4) uint8 of every mesh in the
    scene, leaving out fully transparent faces and faces with a non-finite vertex; and how many
    faces were left out for being fully transparent."""
    import trimesh

    if isinstance(scene, trimesh.Trimesh):
        parts: list[tuple[np.ndarray, trimesh.Trimesh]] = [(np.eye(4), scene)]
    elif isinstance(scene, trimesh.Scene):
        parts = []
        for node in scene.graph.nodes_geometry:
            pose, name = scene.graph[node]
            geometry = scene.geometry.get(name)
            if isinstance(geometry, trimesh.Trimesh):
                parts.append((np.asarray(pose, dtype=float), geometry))
    else:
        raise InvalidArgument(
            f"render_scene needs a trimesh.Scene (from model.scene()) or a trimesh.Trimesh, not {type(scene).__name__}",
            suggestion="use render(model) to render a model",
        )
    all_vertices, all_faces, all_colors = [], [], []
    offset = hidden = 0
    for pose, mesh in parts:
        faces = np.asarray(mesh.faces, dtype=np.int64).reshape(-1, 3)
        local = np.asarray(mesh.vertices, dtype=float).reshape(-1, 3)
        if len(faces) == 0 or len(local) == 0:
            continue
        if faces.min() < 0 or faces.max() >= len(local):
            raise InvalidValue(f"a mesh of the scene has faces that refer to missing vertices ({len(local)} vertices)")
        world = local @ pose[:3, :3].T + pose[:3, 3]
        colors = _face_colors(mesh, faces)
        visible = colors[:, 3] > 0
        hidden += int(len(faces) - visible.sum())
        keep = visible & np.all(np.isfinite(world), axis=1)[faces].all(axis=1)
        all_vertices.append(world)
        all_faces.append(faces[keep] + offset)
        all_colors.append(colors[keep])
        offset += len(world)
    if not all_faces:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros((0, 4), np.uint8), hidden
    return np.concatenate(all_vertices), np.concatenate(all_faces), np.concatenate(all_colors), hidden


def _face_colors(mesh: trimesh.Trimesh, faces: np.ndarray) -> np.ndarray:
    """One RGBA (uint8) per face: face colours, vertex colours averaged per face, texture colours at
    the UVs averaged per face, the material's main colour, else `DEFAULT_COLOR`."""
    visual = mesh.visual
    count = len(faces)
    kind = getattr(visual, "kind", None)
    try:
        if kind == "face":
            return _rgba(visual.face_colors, count)  # type: ignore[union-attr]
        if kind == "vertex":
            return _per_face(_rgba(visual.vertex_colors, len(mesh.vertices)), faces)  # type: ignore[union-attr]
        if kind == "texture":
            material = getattr(visual, "material", None)
            try:
                sampled = visual.to_color().vertex_colors  # type: ignore[union-attr]
                return _per_face(_rgba(sampled, len(mesh.vertices)), faces)
            except Exception:  # noqa: BLE001 - an unreadable texture falls back to the material colour
                main = getattr(material, "main_color", None)
                if main is not None:
                    return np.tile(_rgba(np.asarray(main).reshape(1, -1), 1), (count, 1))
    except _ColorMismatch:
        pass
    return np.tile(np.asarray(DEFAULT_COLOR, np.uint8), (count, 1))


class _ColorMismatch(Exception):
    """Colours whose count does not match the mesh: the mesh is drawn in the default colour."""


def _rgba(colors: Any, count: int) -> np.ndarray:
    array = np.asarray(colors)
    if array.ndim != 2 or len(array) != count or array.shape[1] not in (3, 4):
        raise _ColorMismatch
    if array.dtype.kind == "f":
        array = np.round(np.clip(array, 0, 1) * 255)  # colours as 0..1 floats
    array = np.clip(array, 0, 255).astype(np.uint8)
    if array.shape[1] == 3:
        array = np.concatenate([array, np.full((count, 1), 255, np.uint8)], axis=1)
    return array


def _per_face(vertex_colors: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Vertex colours averaged over each face's three corners; a face with any fully transparent
    corner counts as transparent (a hidden mesh stays hidden)."""
    corners = vertex_colors[faces]
    mean = np.round(corners.astype(np.float32).mean(axis=1)).astype(np.uint8)
    mean[:, 3] = np.where(corners[:, :, 3].min(axis=1) == 0, 0, mean[:, 3])
    return mean


# --- camera ------------------------------------------------------------------------------------


class _Camera:
    """A pinhole camera: world point p → pixel (cx + f * X / d + ox, cy - f * Y / d + oy), where
    X, Y are p's coordinates along `right`, `up` and d its depth along the viewing direction."""

    def __init__(self, eye: np.ndarray, right: np.ndarray, up: np.ndarray, back: np.ndarray) -> None:
        self.eye, self.right, self.up, self.back = eye, right, up, back
        self.focal = 1.0
        self.center = np.zeros(2)  # pixel position of the optical axis

    def camera_coordinates(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rel = points - self.eye
        return rel @ self.right, rel @ self.up, -(rel @ self.back)


def _frame(points: np.ndarray, directions: tuple[np.ndarray, np.ndarray], width: int, height: int) -> _Camera:
    """The camera of a view that shows every point with `MARGIN` to spare on each side."""
    direction, world_up = directions
    back = direction / np.linalg.norm(direction)
    right = np.cross(world_up, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    low, high = points.min(axis=0), points.max(axis=0)
    target = (low + high) / 2
    radius = float(np.linalg.norm(high - low)) / 2
    scale = radius if radius > 0 else 1.0
    rel = points - target
    x, y, z = rel @ right, rel @ up, rel @ back
    focal = (min(width, height) / 2) / np.tan(np.radians(FIELD_OF_VIEW) / 2)
    room_x = (width / 2) * (1 - MARGIN) / focal
    room_y = (height / 2) * (1 - MARGIN) / focal
    # distance from the target at which each point just fits: depth (distance - z) >= |x| / room
    distance = float(np.max(np.maximum(z + np.abs(x) / room_x, z + np.abs(y) / room_y)))
    distance = max(distance, float(z.max()) + 0.05 * scale)
    camera = _Camera(target + distance * back, right, up, back)
    cx, cy, depth = camera.camera_coordinates(points)
    sx, sy = cx / depth, cy / depth  # image-plane coordinates at focal length 1
    half_w, half_h = (sx.max() - sx.min()) / 2, (sy.max() - sy.min()) / 2
    # centre the outline, then scale it to fill the picture up to the margin
    fill = [(size / 2) * (1 - MARGIN) / half for size, half in ((width, half_w), (height, half_h)) if half > 0]
    camera.focal = min(fill) if fill else focal
    mid_x, mid_y = (sx.max() + sx.min()) / 2, (sy.max() + sy.min()) / 2
    camera.center = np.array([width / 2 - camera.focal * mid_x, height / 2 + camera.focal * mid_y])
    return camera


def _project(vertices: np.ndarray, camera: _Camera, ss: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel coordinates (in the `ss` times larger picture) and inverse depth (0 behind the camera:
    only vertices of faces not drawn can be there, as the camera frames every drawn one)."""
    x, y, depth = camera.camera_coordinates(vertices)
    ahead = depth > 0
    safe = np.where(ahead, depth, 1.0)
    px = (camera.center[0] + camera.focal * x / safe) * ss
    py = (camera.center[1] - camera.focal * y / safe) * ss
    return px, py, np.where(ahead, 1.0 / safe, 0.0)


def _shade(vertices: np.ndarray, faces: np.ndarray, camera: _Camera) -> tuple[np.ndarray, np.ndarray]:
    """Per face: brightness (AMBIENT..1, Lambert with the key light) and a white highlight
    (0..SPECULAR), both lit from either side of the face (``|n . l|``)."""
    corners = vertices[faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    normals /= np.where(lengths > 0, lengths, 1.0)[:, None]
    kx, ky, kz = KEY_LIGHT
    light = kx * camera.right + ky * camera.up + kz * camera.back
    light /= np.linalg.norm(light)
    halfway = light + camera.back
    halfway /= np.linalg.norm(halfway)
    diffuse = AMBIENT + (1 - AMBIENT) * np.abs(normals @ light)
    highlight = SPECULAR * np.abs(normals @ halfway) ** SHININESS
    return diffuse.astype(np.float32), highlight.astype(np.float32)


# --- rasterising -------------------------------------------------------------------------------


def _rasterise(
    px: np.ndarray, py: np.ndarray, zinv: np.ndarray, faces: np.ndarray, width: int, height: int
) -> np.ndarray:
    """The face drawn at each pixel (H * W int32, -1 where none): nearest fragment wins."""
    zbuf = np.zeros(width * height, np.float64)
    ids = np.full(width * height, -1, np.int32)
    x0, x1, x2 = px[faces[:, 0]], px[faces[:, 1]], px[faces[:, 2]]
    y0, y1, y2 = py[faces[:, 0]], py[faces[:, 1]], py[faces[:, 2]]
    z0, z1, z2 = zinv[faces[:, 0]], zinv[faces[:, 1]], zinv[faces[:, 2]]
    area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    ahead = (z0 > 0) & (z1 > 0) & (z2 > 0)
    ok = ahead & (np.abs(area) > 1e-12)
    tri = np.nonzero(ok)[0]
    x0, x1, x2, y0, y1, y2, z0, z1, z2, area = (a[tri] for a in (x0, x1, x2, y0, y1, y2, z0, z1, z2, area))
    # barycentric weights of corners 0 and 1, and inverse depth, as planes a*x + b*y + c over pixels
    a0, b0, c0 = (y1 - y2) / area, (x2 - x1) / area, (x1 * y2 - x2 * y1) / area
    a1, b1, c1 = (y2 - y0) / area, (x0 - x2) / area, (x2 * y0 - x0 * y2) / area
    az = a0 * (z0 - z2) + a1 * (z1 - z2)
    bz = b0 * (z0 - z2) + b1 * (z1 - z2)
    cz = c0 * (z0 - z2) + c1 * (z1 - z2) + z2
    # pixels whose centres (i + 0.5) lie in each triangle's bounding box
    lo_x = np.ceil(np.minimum(np.minimum(x0, x1), x2) - 0.5)
    hi_x = np.floor(np.maximum(np.maximum(x0, x1), x2) - 0.5)
    lo_y = np.ceil(np.minimum(np.minimum(y0, y1), y2) - 0.5)
    hi_y = np.floor(np.maximum(np.maximum(y0, y1), y2) - 0.5)
    lo_x, lo_y = np.maximum(lo_x, 0), np.maximum(lo_y, 0)
    hi_x, hi_y = np.minimum(hi_x, width - 1), np.minimum(hi_y, height - 1)
    span_x, span_y = hi_x - lo_x + 1, hi_y - lo_y + 1
    covers = (span_x > 0) & (span_y > 0)

    def merge(pixels: np.ndarray, depth: np.ndarray, face: np.ndarray) -> None:
        np.maximum.at(zbuf, pixels, depth)
        won = depth >= zbuf[pixels]
        ids[pixels[won]] = face[won]

    # triangles that cover no pixel centre mark the pixel under their centre, if in the picture
    dots = np.nonzero(~covers)[0]
    if len(dots):
        cx, cy = (x0[dots] + x1[dots] + x2[dots]) / 3, (y0[dots] + y1[dots] + y2[dots]) / 3
        inside = (cx >= 0) & (cx < width) & (cy >= 0) & (cy < height)
        dots, cx, cy = dots[inside], cx[inside], cy[inside]
        pixels = np.floor(cy).astype(np.int64) * width + np.floor(cx).astype(np.int64)
        merge(pixels, (z0[dots] + z1[dots] + z2[dots]) / 3, tri[dots].astype(np.int32))

    big = np.nonzero(covers)[0]
    if not len(big):
        return ids
    span_x, span_y = span_x[big].astype(np.int64), span_y[big].astype(np.int64)
    grid_x, grid_y = _grid(span_x), _grid(span_y)
    tiles_x, tiles_y = -(-span_x // grid_x), -(-span_y // grid_y)
    count = tiles_x * tiles_y
    # one task per (triangle, tile): the triangle, and the tile's corner pixel
    task = np.repeat(big, count)
    nth = np.arange(len(task)) - np.repeat(np.cumsum(count) - count, count)
    per_row = np.repeat(tiles_x, count)
    gx, gy = np.repeat(grid_x, count), np.repeat(grid_y, count)
    ox = lo_x[task].astype(np.int64) + (nth % per_row) * gx
    oy = lo_y[task].astype(np.int64) + (nth // per_row) * gy
    key = gx * (TILE + 1) + gy
    order = np.argsort(key, kind="stable")
    task, ox, oy, gx, gy, key = task[order], ox[order], oy[order], gx[order], gy[order], key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], len(key)]
    for start, end in zip(starts, ends, strict=True):
        sx, sy = int(gx[start]), int(gy[start])
        step = max(1, CHUNK_PIXELS // (sx * sy))
        lx = np.arange(sx, dtype=np.float32)[None, None, :]
        ly = np.arange(sy, dtype=np.float32)[None, :, None]
        for first in range(start, end, step):
            last = min(first + step, end)
            t = task[first:last]
            cxo, cyo = ox[first:last] + 0.5, oy[first:last] + 0.5
            w0 = _plane_over_tile(a0[t], b0[t], c0[t], cxo, cyo, lx, ly)
            w1 = _plane_over_tile(a1[t], b1[t], c1[t], cxo, cyo, lx, ly)
            inside = (w0 >= -_EDGE_SLACK) & (w1 >= -_EDGE_SLACK) & (w0 + w1 <= 1 + _EDGE_SLACK)
            k, iy, ix = np.nonzero(inside)
            if not len(k):
                continue
            gpx = ox[first:last][k] + ix
            gpy = oy[first:last][k] + iy
            within = (gpx < width) & (gpy < height)
            k, gpx, gpy = k[within], gpx[within], gpy[within]
            face = t[k]
            depth = az[face] * (gpx + 0.5) + bz[face] * (gpy + 0.5) + cz[face]
            merge(gpy * width + gpx, depth, tri[face].astype(np.int32))
    return ids


def _plane_over_tile(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, x: np.ndarray, y: np.ndarray, lx: np.ndarray, ly: np.ndarray
) -> np.ndarray:
    """a*x + b*y + c at every pixel centre of each task's tile, as (K, rows, columns) float32: the
    value at the tile's first pixel centre (x, y) plus a per column and b per row. Single precision
    is plenty for weights near 0..1 over a tile of at most `TILE` pixels, and halves the memory
    traffic of the widest arrays."""
    first = (a * x + b * y + c).astype(np.float32)[:, None, None]
    return (first + a.astype(np.float32)[:, None, None] * lx) + b.astype(np.float32)[:, None, None] * ly


#: Sides a candidate grid may have: steps of at most 1.5x, so a bounding box wastes less than
#: half its grid (powers of two alone would waste up to three quarters in 2-D).
_GRID_SIDES = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256], np.int64)


def _grid(span: np.ndarray) -> np.ndarray:
    """Side of the candidate grid for a bounding-box side: the next of `_GRID_SIDES`, at most `TILE`
    (a larger side is covered by several tiles of `TILE`)."""
    sides = np.append(_GRID_SIDES[_GRID_SIDES < TILE], TILE)
    return sides[np.minimum(np.searchsorted(sides, span), len(sides) - 1)]


def _finish(face_rgba: np.ndarray, ids: np.ndarray, bg: np.ndarray, width: int, height: int, ss: int) -> np.ndarray:
    """The picture: each pixel's face colour over the background, averaged down by `ss`."""
    background = np.round(bg * 255).astype(np.uint8)
    if len(face_rgba) == 0:
        return np.tile(background, (height, width, 1))
    big = face_rgba[np.maximum(ids, 0)]
    big[ids < 0] = background
    big = big.reshape(height * ss, width * ss, 4)
    if ss == 1:
        return big
    samples = [big[i::ss, j::ss] for i in range(ss) for j in range(ss)]
    if background[3] == 255:  # everything opaque: a plain average
        total = sum((s.astype(np.uint16) for s in samples), np.zeros((height, width, 4), np.uint16))
        return ((total + len(samples) // 2) // len(samples)).astype(np.uint8)
    # a see-through background: average colours weighted by alpha (premultiplied), so the edge
    # pixels of the robot take its colour, not the background's, at partial alpha
    alpha = [s[..., 3:4].astype(np.float32) for s in samples]
    weight = sum(alpha, np.zeros((height, width, 1), np.float32))
    color = sum((s[..., :3] * a for s, a in zip(samples, alpha, strict=True)), np.zeros((height, width, 3), np.float32))
    out = np.empty((height, width, 4), np.uint8)
    out[..., :3] = np.round(np.clip(color / np.where(weight > 0, weight, 1.0), 0, 255))
    out[..., 3] = np.round(weight[..., 0] / len(samples))
    return out


# --- PNG ---------------------------------------------------------------------------------------


#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, 4) RGBA or (H, W, 3) RGB uint8 image, made with zlib and struct only,
    so writing a picture needs no imaging library. Rows use PNG's "Sub" filter, which packs the
    flat areas of a rendering well."""
    array = np.asarray(image) if isinstance(image, np.ndarray) else None
    if (
        array is None
        or array.dtype != np.uint8
        or array.ndim != 3
        or array.shape[2] not in (3, 4)
        or array.shape[0] < 1
        or array.shape[1] < 1
    ):
        described = f"{array.dtype} array of shape {array.shape}" if array is not None else type(image).__name__
        raise InvalidArgument(
            f"encode_png needs an (H, W, 4) or (H, W, 3) uint8 array, not a {described}",
            suggestion="pass the array render() returns",
        )
    height, width, channels = array.shape
    rows = np.ascontiguousarray(array).reshape(height, width * channels)
    filtered = rows.copy()
    filtered[:, channels:] = rows[:, channels:] - rows[:, :-channels]  # uint8 wraps: mod 256, as PNG wants
    raw = np.concatenate([np.ones((height, 1), np.uint8), filtered], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if channels == 4 else 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(image: np.ndarray, path: str | os.PathLike[str]) -> None:
    """Write `image` as a PNG file (see `encode_png`). The file is replaced only once the new one is
    complete, so a failure never leaves half a picture; failures raise `ExportFailed`."""
    data = encode_png(image)
    try:
        destination = os.fspath(path)
    except TypeError:
        raise InvalidArgument(f"path must be a file path, not {type(path).__name__}") from None
    write_whole(destination, data)


__all__ = ["VIEWS", "encode_png", "render", "render_scene", "write_png"]
