"""Shapes, materials and mesh references: what a body looks like and what it collides with.

Sizes follow the conventions users know from URDF/SDF: full box edge lengths, cylinder and
capsule `length` of the straight part along the shape's z axis, radii not diameters.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InvalidValue, Location, MissingDependency, ResourceNotFound
from .record import Record
from .resources import check_file, open_file, read_file
from .transforms import IDENTITY


@dataclass(eq=False, repr=False, slots=True)
class Geometry(Record):
    """Base of every geometry type."""

    def as_trimesh(self, color: np.ndarray | None = None) -> Any:
        """This geometry as a `trimesh.Trimesh` in its own frame; see `robodesc.core.scene.as_trimesh`.

        `color` (RGBA in 0..1) paints a primitive, or a mesh whose file has no colours of its own.
        """
        from .scene import as_trimesh  # here, not at the top: scene builds on this module

        return as_trimesh(self, color)


@dataclass(eq=False, repr=False, slots=True)
class Box(Geometry):
    size: np.ndarray  # full edge lengths (x, y, z)


@dataclass(eq=False, repr=False, slots=True)
class Sphere(Geometry):
    radius: float


@dataclass(eq=False, repr=False, slots=True)
class Cylinder(Geometry):
    radius: float
    length: float


@dataclass(eq=False, repr=False, slots=True)
class Capsule(Geometry):
    radius: float
    length: float  # of the cylindrical part, caps not included


@dataclass(eq=False, repr=False, slots=True)
class Cone(Geometry):
    """A right circular cone (SDFormat 1.11's ``<cone>``): centred on its origin along z, the base
    circle of `radius` at z = -length/2 and the apex at z = +length/2, as libsdformat and gz-math
    place it (their bounding box is symmetric about the origin)."""

    radius: float
    length: float  # base to apex


@dataclass(eq=False, repr=False, slots=True)
class Ellipsoid(Geometry):
    radii: np.ndarray


@dataclass(eq=False, repr=False, slots=True)
class Plane(Geometry):
    normal: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    size: np.ndarray | None = None  # (x, y) extent; None = infinite


@dataclass(eq=False, repr=False, slots=True)
class Mesh(Geometry):
    """A mesh: a file as the description names it (read only on request), or vertex data written in
    the description itself (MJCF ``<mesh vertex="..." face="...">``).

    `path` is the local file the URI resolved to while loading (None when it did not, or when the
    mesh has no file), and `tried` lists where robodesc looked, so a failure can say so.

    `vertices` ((n, 3), in the mesh's own frame, before `scale`) and `faces` ((m, 3) vertex indices)
    hold a mesh given inline; when set, `load` builds the mesh from them and reads no file. Without
    `faces` the mesh is the convex hull of the vertices, which is what MuJoCo draws and collides
    for a ``<mesh>`` given by vertices alone. For a mesh read from a file both stay None.
    """

    uri: str
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    path: str | None = None
    tried: list[str] = field(default_factory=list)
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None

    def resolved_path(self) -> str:
        """The local file of this mesh; raises `ResourceNotFound` listing every path tried."""
        if self.path is None:
            raise ResourceNotFound(
                f"mesh {self.uri!r} cannot be found",
                tried=self.tried,
                construct=self.uri,
                suggestion="pass search_paths=[...] or set ROS_PACKAGE_PATH",
            )
        return self.path

    def load(self) -> Any:
        """Read the mesh with trimesh (scaled) and return one `trimesh.Trimesh` (a file of several
        parts joined into one; `load_parts` keeps them apart).

        Raises `ResourceNotFound` when the file is absent or cannot be opened, `MissingDependency`
        when trimesh needs an optional package that is not installed (pycollada for COLLADA, Pillow
        for textured OBJ, SciPy for the hull of vertices without faces, ...), and `InvalidValue`
        when the file is there but is not a mesh trimesh can read, or holds no geometry.
        """
        if self.vertices is not None:
            return self._inline()
        mesh = self._read("mesh")
        mesh.apply_scale(self.scale)
        return mesh

    def load_parts(self) -> list[tuple[str | None, np.ndarray, Any]]:
        """The parts of the mesh file as ``(name, transform, trimesh.Trimesh)``: one per geometry node
        of the file (a DAE node, an OBJ object), each with its own material, `transform` (4x4) placing
        the part in the mesh frame once `scale` is applied. A file of one part gives one entry named
        None with the whole (scaled) mesh, exactly what `load` returns; so does inline vertex data.

        With a uniform scale each part's geometry is scaled and its transform stays rigid (the
        translation scaled); with a non-uniform one the transform is baked into the part's vertices
        and `transform` is the identity, since a rigid pose cannot carry it. Raises what `load` raises.
        """
        if self.vertices is not None:
            return [(None, np.eye(4), self._inline())]
        scene = self._read("scene")
        nodes = list(scene.graph.nodes_geometry)
        if len(nodes) <= 1:
            mesh = scene.to_mesh() if nodes else None
            if mesh is None or len(mesh.vertices) == 0:
                raise self._empty()
            mesh.apply_scale(self.scale)
            return [(None, np.eye(4), mesh)]
        scale = np.asarray(self.scale, dtype=float)
        uniform = bool(np.all(scale == scale[0]))
        parts: list[tuple[str | None, np.ndarray, Any]] = []
        for node in nodes:
            matrix, geometry_name = scene.graph[node]
            part = scene.geometry[geometry_name].copy()
            if len(getattr(part, "vertices", ())) == 0:
                continue  # a node holding no triangles (a point cloud, a path) has nothing to draw
            local = np.array(matrix, dtype=float)
            if uniform:
                part.apply_scale(float(scale[0]))
                local[:3, 3] *= scale[0]
            else:
                part.apply_transform(np.diag([*scale, 1.0]) @ local)
                local = np.eye(4)
            parts.append((str(node), local, part))
        if not parts:
            raise self._empty()
        return parts

    def _inline(self) -> Any:
        """The mesh of inline vertex data: its faces, or the convex hull of its vertices; scaled."""
        import trimesh

        vertices = np.asarray(self.vertices, dtype=float).reshape(-1, 3)
        if self.faces is not None and np.size(self.faces):
            faces = np.asarray(self.faces, dtype=np.int64).reshape(-1, 3)
            if faces.min() < 0 or faces.max() >= len(vertices):
                raise InvalidValue(
                    f"mesh {self.uri!r} has a face index outside its {len(vertices)} vertices", construct=self.uri
                )
            mesh = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
        else:
            try:
                mesh = trimesh.convex.convex_hull(vertices)
            except ImportError as exc:
                raise MissingDependency(
                    f"drawing mesh {self.uri!r}, given by vertices alone, needs their convex hull, which trimesh"
                    " computes with SciPy; it is not installed",
                    package="scipy",
                    extra="meshes",
                    construct=self.uri,
                ) from exc
            except Exception as exc:  # qhull refuses flat or too few points
                raise InvalidValue(
                    f"mesh {self.uri!r}: the convex hull of its vertices cannot be built ({_describe(exc)})",
                    construct=self.uri,
                ) from exc
        mesh.apply_scale(self.scale)
        return mesh

    def _empty(self) -> InvalidValue:
        kind = os.path.splitext(self.path or "")[1].lstrip(".").upper() or "mesh"
        return InvalidValue(
            f"mesh {self.uri!r} holds no geometry: the file is empty or not a valid {kind} file",
            location=Location(file=self.path),
            construct=self.uri,
        )

    def _read(self, force: str) -> Any:
        """The file read by trimesh as one mesh (``force="mesh"``) or a scene of parts ("scene"), with
        every failure turned into the robodesc error `load` documents."""
        import trimesh  # imported here: loading a description never needs it

        path = self.resolved_path()
        try:
            check_file(path, kind="mesh", what="mesh", construct=self.uri)  # no device, FIFO or huge file
        except OSError as exc:
            why = exc.strerror or exc
            raise ResourceNotFound(f"mesh {path!r} cannot be opened: {why}", construct=self.uri) from None
        kind = os.path.splitext(path)[1].lstrip(".").upper() or "mesh"
        try:
            loaded = trimesh.load(path, force=force, resolver=_bounded_resolver(path))
        except ImportError as exc:
            # trimesh imports its optional packages lazily: a reader that needs one raises ImportError
            # when called (e.g. "missing `pip install pycollada`", "No module named 'PIL'")
            package = _missing_package(exc)
            failure = _first_failure(exc)
            if failure is not None:  # the file failed to parse, and only trimesh's fallback needed the package
                raise InvalidValue(
                    f"mesh {self.uri!r} cannot be read by trimesh as {kind}: {_describe(failure)}"
                    f" (trying another way needs {package}, which is not installed)",
                    location=Location(file=path),
                    construct=self.uri,
                ) from exc
            raise MissingDependency(
                f"reading the {kind} mesh {path!r} needs the optional package {package!r}, which is not installed"
                f" (trimesh: {exc})",
                package=package,
                extra="meshes",
                construct=self.uri,
            ) from exc
        except OSError as exc:
            raise ResourceNotFound(f"mesh {path!r} cannot be read: {exc.strerror or exc}", construct=self.uri) from exc
        except Exception as exc:  # trimesh raises many kinds for a bad file
            raise InvalidValue(
                f"mesh {self.uri!r} cannot be read by trimesh as {kind}: {_describe(exc)}",
                location=Location(file=path),
                construct=self.uri,
            ) from exc
        if kind == "DAE" and _holds_nothing(loaded):
            loaded = _collada_shapes_only(path, force) or loaded
        if force == "mesh" and len(getattr(loaded, "vertices", ())) == 0:
            raise self._empty()
        return loaded


def _bounded_resolver(path: str) -> Any:
    """trimesh's resolver for the files a mesh names (OBJ materials, textures), reading each through
    `read_file`, so a material naming /dev/zero or a FIFO is refused instead of read forever."""
    from trimesh.resolvers import FilePathResolver

    class BoundedResolver(FilePathResolver):
        def get(self, name: str) -> bytes:
            for candidate in dict.fromkeys((name.strip(), name.strip().lstrip("/"), os.path.basename(name))):
                try:
                    found = self.absolute(candidate)
                except ValueError:  # outside the mesh's folder: trimesh refuses it too
                    continue
                if found.exists():
                    return read_file(str(found), kind="mesh", what="file named by mesh")
            return super().get(name)  # raises trimesh's own error for a name it cannot find

    return BoundedResolver(path)


def _holds_nothing(loaded: Any) -> bool:
    """Whether trimesh's result has no triangles (a mesh without vertices, a scene without geometry)."""
    if hasattr(loaded, "geometry"):
        return not any(len(getattr(g, "vertices", ())) for g in loaded.geometry.values())
    return len(getattr(loaded, "vertices", ())) == 0


def _collada_shapes_only(path: str, force: str) -> Any:
    """The triangles of a COLLADA file whose materials trimesh cannot resolve, without the materials.

    Some DAE files exported by CAD tools bind a material, effect or texture they never declare;
    pycollada then drops the whole geometry instance and trimesh returns nothing, while ROS's RViz
    draws the shapes in its default colour. This reads the file again with pycollada, ignoring
    broken references, walks the scene's nodes (a loop with a stack, composing each node's matrix
    with its parents'), and keeps the triangles of every `<instance_geometry>` at its node's
    transform, as trimesh places parts. None when that finds nothing either, so the caller reports
    the file as it found it."""
    import collada
    import trimesh

    try:
        document = collada.Collada(path, ignore=[collada.common.DaeUnsupportedError, collada.common.DaeBrokenRefError])
        geometries = {geometry.id: geometry for geometry in document.geometries}
        instance = collada.common.tag("instance_geometry")
        parts = []
        stack = [(node, np.eye(4)) for node in (document.scene.nodes if document.scene is not None else ())]
        while stack:
            node, parent = stack.pop()
            matrix = parent @ np.asarray(getattr(node, "matrix", np.eye(4)), dtype=float)
            stack.extend((child, matrix) for child in getattr(node, "children", ()) if hasattr(child, "children"))
            element = getattr(node, "xmlnode", None)
            for used in element.findall(instance) if element is not None else ():
                geometry = geometries.get(str(used.get("url", "")).lstrip("#"))
                for primitive in geometry.primitives if geometry is not None else ():
                    if isinstance(primitive, collada.polylist.Polylist):
                        primitive = primitive.triangleset()
                    if not isinstance(primitive, collada.triangleset.TriangleSet) or primitive.vertex is None:
                        continue  # lines and points have no faces to draw
                    faces = np.asarray(primitive.vertex_index, dtype=np.int64).reshape(-1, 3)
                    if len(faces):
                        part = trimesh.Trimesh(
                            vertices=np.asarray(primitive.vertex, dtype=float), faces=faces, process=False
                        )
                        parts.append(part.apply_transform(matrix))
    except Exception:  # a file pycollada cannot read either: the caller reports it as it found it
        return None
    if not parts:
        return None
    if force == "mesh":
        return trimesh.util.concatenate(parts)
    return trimesh.Scene(parts)


#: Import names of trimesh's optional packages whose pip name differs.
_PIP_NAMES = {
    "PIL": "Pillow",
    "collada": "pycollada",
    "charset_normalizer": "charset-normalizer",
    "cv2": "opencv-python",
    "yaml": "PyYAML",
    "sklearn": "scikit-learn",
}


def _missing_package(exc: ImportError) -> str:
    """The pip name of the package an ImportError says is missing.

    trimesh re-raises a stored ImportError from its message alone, so `exc.name` is often unset.
    """
    text = str(exc)
    wanted = re.search(r"pip install\s+([A-Za-z0-9_.\-\[\]]+)", text)
    if wanted:
        return wanted.group(1)
    module = exc.name or (re.search(r"No module named '([\w.]+)'", text) or [None, None])[1]
    if module:
        top = module.split(".")[0]
        return _PIP_NAMES.get(top, top)
    return "trimesh[easy]"  # trimesh's extra with all its optional readers


def _first_failure(exc: BaseException) -> BaseException | None:
    """The first error, other than an ImportError, that `exc` was raised while handling, if any."""
    found = None
    seen = {id(exc)}
    current = exc.__cause__ or exc.__context__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if not isinstance(current, ImportError):
            found = current
        current = current.__cause__ or current.__context__
    return found


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


#: Most samples (rows x columns) a heightfield may have before robodesc refuses to read or draw it:
#: 4096 x 4096. A grid mesh of that many vertices already takes about 1 GB; a bad header or a huge
#: image should be an error, not an attempt to allocate gigabytes.
MAX_HEIGHTFIELD_SAMPLES = 4096 * 4096

#: How `Heightfield.file_format` says its file is written.
HEIGHTFIELD_FILE_FORMATS = ("image", "mujoco")
#: How `Heightfield.normalize` turns the values of a file into fractions of the height.
HEIGHTFIELD_NORMALIZATIONS = ("range", "max")


@dataclass(eq=False, repr=False, slots=True)
class Heightfield(Geometry):
    """A terrain: a grid of heights over a rectangle (MJCF ``<hfield>``, SDFormat ``<heightmap>``).

    The surface spans ``size[0]`` along x and ``size[1]`` along y, centred on `center` (the shape
    frame's origin unless SDF's ``<pos>`` moves it); a sample of height ``h`` in 0..1 stands at
    ``center z + h * size[2]``. Below the surface a solid base reaches down `base` (MuJoCo's
    ``base_z``; 0 for SDF, whose heightmap is a surface).

    The heights are either `elevation`, kept by the reader (an (rows, columns) array of fractions
    in 0..1; row 0 along the -y edge, column 0 along the -x edge), or read from the file at `path`
    on request (`heights()`): `file_format` "image" (a greyscale picture, its top row along +y as
    seen from above; needs Pillow) or "mujoco" (MuJoCo's binary: int32 rows, int32 columns, then
    rows x columns float32, row 0 along -y). `normalize` says how the file's values become 0..1:
    "range" maps the smallest to 0 and the largest to 1 (MuJoCo), "max" divides by the largest
    (Gazebo, which divides by the brightest pixel). A colour picture's red channel is its grey,
    as MuJoCo's decoder gives it.
    """

    uri: str | None = None
    size: np.ndarray | None = None  # (x, y, z): full extent of the footprint, height of elevation 1
    path: str | None = None
    elevation: np.ndarray | None = None
    base: float = 0.0
    center: np.ndarray = field(default_factory=lambda: np.zeros(3))
    file_format: str = "image"
    normalize: str = "range"

    def heights(self) -> np.ndarray:
        """The (rows, columns) heights in 0..1, row 0 along -y: `elevation`, else read from the file.

        Raises `ResourceNotFound` when there is neither (or the file cannot be opened),
        `MissingDependency` (robodesc[meshes]) when an image needs Pillow, and `InvalidValue` when
        the file is not a heightfield of its format or has more than `MAX_HEIGHTFIELD_SAMPLES`.
        """
        if self.elevation is not None:
            grid = np.asarray(self.elevation, dtype=float)
            if grid.ndim != 2 or grid.shape[0] < 2 or grid.shape[1] < 2:
                raise InvalidValue(
                    f"heightfield {self.uri or ''!r} needs at least 2 x 2 heights, not {grid.shape}",
                    construct=self.uri,
                )
            _bounded(grid.shape[0], grid.shape[1], self.uri, None)
            return grid
        if self.path is None:
            raise ResourceNotFound(
                f"heightfield {self.uri or ''!r} has no height data: no elevation, and no file was found",
                construct=self.uri,
            )
        raw = _read_mujoco_heights(self.path, self.uri) if self.file_format == "mujoco" else None
        if raw is None:
            raw = _read_image_heights(self.path, self.uri)
        if raw.shape[0] < 2 or raw.shape[1] < 2:
            raise InvalidValue(
                f"heightfield {self.uri!r} needs at least 2 x 2 samples, its file has {raw.shape[0]} x {raw.shape[1]}",
                location=Location(file=self.path),
                construct=self.uri,
            )
        return _normalized(raw, self.normalize)


def _bounded(rows: int, columns: int, uri: str | None, path: str | None) -> None:
    if rows * columns > MAX_HEIGHTFIELD_SAMPLES:
        raise InvalidValue(
            f"heightfield {uri or ''!r} has {rows} x {columns} samples, more than robodesc draws"
            f" ({MAX_HEIGHTFIELD_SAMPLES})",
            location=Location(file=path) if path else None,
            construct=uri,
            suggestion="downsample the terrain",
        )


def _normalized(raw: np.ndarray, how: str) -> np.ndarray:
    """File values as fractions: "range" (min -> 0, max -> 1, MuJoCo), else "max" (value / max, Gazebo)."""
    raw = np.asarray(raw, dtype=float)
    low, high = float(raw.min()), float(raw.max())
    if how == "range":
        return (raw - low) / (high - low) if high > low else np.zeros_like(raw)
    return raw / high if high > 0 else np.zeros_like(raw)


def _read_mujoco_heights(path: str, uri: str | None) -> np.ndarray:
    """MuJoCo's binary heightfield: int32 rows, int32 columns, rows x columns float32; row 0 along -y.
    The size is checked against the header before anything is allocated."""
    where = Location(file=path)
    try:
        with open_file(path, kind="mesh", what="heightfield file", construct=uri) as (handle, _):
            header = handle.read(8)
            if len(header) < 8:
                raise InvalidValue(
                    f"heightfield file {path!r} is too short for MuJoCo's header (two int32 counts)",
                    location=where,
                    construct=uri,
                )
            rows, columns = (int(v) for v in np.frombuffer(header, dtype="<i4"))
            if rows < 1 or columns < 1:
                raise InvalidValue(
                    f"heightfield file {path!r} says it has {rows} x {columns} samples", location=where, construct=uri
                )
            _bounded(rows, columns, uri, path)
            data = handle.read(4 * rows * columns + 1)
    except OSError as exc:
        raise ResourceNotFound(
            f"heightfield {path!r} cannot be read: {exc.strerror or exc}", tried=[path], construct=uri
        ) from None
    if len(data) != 4 * rows * columns:
        raise InvalidValue(
            f"heightfield file {path!r} holds {len(data)} bytes of data, its header promises {rows} x {columns}"
            " float32 values",
            location=where,
            construct=uri,
        )
    values = np.frombuffer(data, dtype="<f4").astype(float).reshape(rows, columns)
    if not np.all(np.isfinite(values)):
        raise InvalidValue(f"heightfield file {path!r} holds values that are not finite", location=where, construct=uri)
    return values


def _read_image_heights(path: str, uri: str | None) -> np.ndarray:
    """A greyscale picture as heights in 0..max, flipped so that row 0 lies along -y (the picture's
    top row along +y, seen from above). A colour picture's red channel is its grey, and a 16-bit one
    is read by its high byte, as MuJoCo's PNG decoder gives them."""
    try:
        from PIL import Image
    except ImportError as exc:
        raise MissingDependency(
            f"reading the heightfield image {path!r} needs the optional package 'Pillow', which is not installed",
            package="Pillow",
            extra="meshes",
            construct=uri,
        ) from exc
    where = Location(file=path)
    try:
        check_file(path, kind="mesh", what="heightfield image", construct=uri)  # no device, FIFO or huge file
        with Image.open(path) as image:
            columns, rows = image.size
            _bounded(rows, columns, uri, path)
            if image.mode in ("I;16", "I;16B", "I;16L", "I"):
                pixels = np.asarray(image, dtype=np.int64) >> 8
            elif image.mode == "F":  # a floating-point picture (a DEM in TIFF): its values are heights
                pixels = np.asarray(image, dtype=float)
            else:
                if image.mode not in ("L", "LA", "RGB", "RGBA"):
                    image = image.convert("RGB")
                pixels = np.asarray(image)
                pixels = pixels if pixels.ndim == 2 else pixels[:, :, 0]
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise ResourceNotFound(
                f"heightfield {path!r} cannot be read: {exc.strerror or exc}", tried=[path], construct=uri
            ) from None
        raise InvalidValue(
            f"heightfield {uri!r} is not an image Pillow can read: {_describe(exc)}", location=where, construct=uri
        ) from None
    except Image.DecompressionBombError as exc:
        raise InvalidValue(f"heightfield image {path!r} is too large: {exc}", location=where, construct=uri) from None
    return np.flipud(np.asarray(pixels, dtype=float))


@dataclass(eq=False, repr=False, slots=True)
class Material(Record):
    name: str | None = None
    color: np.ndarray | None = None  # RGBA in [0, 1]
    texture: str | None = None


@dataclass(eq=False, repr=False, slots=True)
class Shape(Record):
    """One visual or collision element of a body: a geometry placed in the body frame."""

    geometry: Geometry
    pose: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    name: str | None = None
    material: Material | None = None
    extras: dict[str, Any] = field(default_factory=dict)
