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
from .transforms import IDENTITY


@dataclass(eq=False, repr=False)
class Geometry(Record):
    """Base of every geometry type."""

    def as_trimesh(self, color: np.ndarray | None = None) -> Any:
        """This geometry as a `trimesh.Trimesh` in its own frame; see `robodesc.core.scene.as_trimesh`.

        `color` (RGBA in 0..1) paints a primitive, or a mesh whose file has no colours of its own.
        """
        from .scene import as_trimesh  # here, not at the top: scene builds on this module

        return as_trimesh(self, color)


@dataclass(eq=False, repr=False)
class Box(Geometry):
    size: np.ndarray  # full edge lengths (x, y, z)


@dataclass(eq=False, repr=False)
class Sphere(Geometry):
    radius: float


@dataclass(eq=False, repr=False)
class Cylinder(Geometry):
    radius: float
    length: float


@dataclass(eq=False, repr=False)
class Capsule(Geometry):
    radius: float
    length: float  # of the cylindrical part, caps not included


@dataclass(eq=False, repr=False)
class Ellipsoid(Geometry):
    radii: np.ndarray


@dataclass(eq=False, repr=False)
class Plane(Geometry):
    normal: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    size: np.ndarray | None = None  # (x, y) extent; None = infinite


@dataclass(eq=False, repr=False)
class Mesh(Geometry):
    """A mesh file as the description names it; the file is read only on request.

    `path` is the local file the URI resolved to while loading (None when it did not), and
    `tried` lists where robodesc looked, so a failure can say so.
    """

    uri: str
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    path: str | None = None
    tried: list[str] = field(default_factory=list)

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
        """Read the mesh with trimesh (scaled) and return a `trimesh.Trimesh`.

        Raises `ResourceNotFound` when the file is absent or cannot be opened, `MissingDependency`
        when trimesh needs an optional package that is not installed (pycollada for COLLADA, Pillow
        for textured OBJ, ...), and `InvalidValue` when the file is there but is not a mesh trimesh
        can read, or holds no geometry.
        """
        import trimesh  # imported here: loading a description never needs it

        path = self.resolved_path()
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            why = exc.strerror or exc
            raise ResourceNotFound(f"mesh {path!r} cannot be opened: {why}", construct=self.uri) from None
        kind = os.path.splitext(path)[1].lstrip(".").upper() or "mesh"
        try:
            mesh = trimesh.load(path, force="mesh")
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
        if len(getattr(mesh, "vertices", ())) == 0:
            raise InvalidValue(
                f"mesh {self.uri!r} holds no geometry: the file is empty or not a valid {kind} file",
                location=Location(file=path),
                construct=self.uri,
            )
        mesh.apply_scale(self.scale)
        return mesh


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


@dataclass(eq=False, repr=False)
class Heightfield(Geometry):
    uri: str | None = None
    size: np.ndarray | None = None
    path: str | None = None


@dataclass(eq=False, repr=False)
class Material(Record):
    name: str | None = None
    color: np.ndarray | None = None  # RGBA in [0, 1]
    texture: str | None = None


@dataclass(eq=False, repr=False)
class Shape(Record):
    """One visual or collision element of a body: a geometry placed in the body frame."""

    geometry: Geometry
    pose: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    name: str | None = None
    material: Material | None = None
    extras: dict[str, Any] = field(default_factory=dict)
