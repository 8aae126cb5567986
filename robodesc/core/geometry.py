"""Shapes, materials and mesh references: what a body looks like and what it collides with.

Sizes follow the conventions users know from URDF/SDF: full box edge lengths, cylinder and
capsule `length` of the straight part along the shape's z axis, radii not diameters.

This module also holds `Record`, the base of every model dataclass (here and in `model.py`):
equality that compares numpy arrays element-wise, and a short repr.
"""

from __future__ import annotations

import os
import re
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .errors import InvalidValue, Location, MissingDependency, ResourceNotFound
from .transforms import IDENTITY

# -- equality and repr shared by every model dataclass ------------------------------------------


def values_equal(a: Any, b: Any) -> bool:
    """Whether two field values are equal, looking into numpy arrays, lists, tuples and dicts.

    Arrays are equal when they have the same shape and the same values (the dtype is not compared);
    NaN equals NaN, in arrays and in plain floats, so that a copy of anything compares equal to it.
    Everything else compares with ``==``.
    """
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _arrays_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            isinstance(a, list) == isinstance(b, list)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # both NaN
    return bool(a == b)


def _arrays_equal(a: Any, b: Any) -> bool:
    for value in (a, b):
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex, list, tuple)):
            return False  # None, a string, an object: never equal to an array
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return False
    try:
        return bool(np.array_equal(x, y, equal_nan=True))
    except TypeError:  # equal_nan needs numbers
        return bool(np.array_equal(x, y))


class Record:
    """Base of the model's dataclasses (declared with ``@dataclass(eq=False, repr=False)``).

    * ``==`` compares the fields that take part in comparison with `values_equal`, so numpy
      arrays compare element-wise and never raise "truth value of an array is ambiguous".
      Objects of different classes are never equal. Records stay unhashable: they are mutable.
    * ``repr`` is short: arrays of up to 16 numbers inline and rounded, larger ones by shape;
      lists of records by count; long strings and lists cut; fields at their default left out.
    """

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Any]]

    def _compared(self) -> list[Any]:
        """The values `==` compares, in order (a class may add derived ones)."""
        return [getattr(self, f.name) for f in fields(self) if f.compare]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return all(values_equal(a, b) for a, b in zip(self._compared(), other._compared()))

    # Defining __eq__ sets __hash__ to None, as a dataclass with eq=True and frozen=False has.

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            if not f.repr:
                continue
            value = getattr(self, f.name)
            if f.default is not MISSING and values_equal(value, f.default):
                continue
            if f.default_factory is not MISSING and values_equal(value, f.default_factory()):
                continue
            parts.append(f"{f.name}={brief(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"


_MAX_INLINE_ARRAY = 16
_MAX_ITEMS = 4
_MAX_TEXT = 60


def brief(value: Any) -> str:
    """A short, one-line text for a field value in a repr."""
    if isinstance(value, np.ndarray):
        return _brief_array(value)
    if isinstance(value, Enum):
        return repr(value.value)
    if isinstance(value, str):
        if len(value) > _MAX_TEXT:
            half = _MAX_TEXT // 2 - 2
            value = f"{value[:half]}...{value[-half:]}"
        return repr(value)
    if isinstance(value, Location):  # file name and line, without the folder and the element path
        short = Location(os.path.basename(value.file) if value.file else None, value.line, value.column)
        return brief(str(short) or value.element or "")
    if isinstance(value, (list, tuple)):
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        if not value:
            return open_ + close
        kinds = {type(item) for item in value}
        if all(isinstance(item, Record) for item in value):
            what = kinds.pop().__name__ if len(kinds) == 1 else "records"
            return f"<{len(value)} {what}>"
        shown = ", ".join(brief(item) for item in value[:_MAX_ITEMS])
        if len(value) > _MAX_ITEMS:
            shown += f", ... {len(value) - _MAX_ITEMS} more"
        elif len(value) == 1 and isinstance(value, tuple):
            shown += ","
        return open_ + shown + close
    if isinstance(value, dict):
        if len(value) > _MAX_ITEMS:
            return f"<{len(value)} items>"
        return "{" + ", ".join(f"{brief(k)}: {brief(v)}" for k, v in value.items()) + "}"
    text = repr(value)
    if len(text) > 2 * _MAX_TEXT and not isinstance(value, Record):
        text = text[: 2 * _MAX_TEXT - 3] + "..."
    return text


def _brief_array(array: np.ndarray) -> str:
    if array.size > _MAX_INLINE_ARRAY or array.ndim > 2 or array.dtype.kind not in "biuf":
        return f"<array {array.shape} {array.dtype}>"
    if array.ndim == 0:
        return _brief_number(array.item())
    if array.ndim == 1:
        return "[" + ", ".join(_brief_number(x) for x in array.tolist()) + "]"
    return "[" + ", ".join(_brief_array(row) for row in array) + "]"


def _brief_number(x: Any) -> str:
    if isinstance(x, float):
        return "0" if abs(x) < 1e-12 else format(x, ".4g")  # rounding noise such as cos(pi/2) reads as 0
    return repr(x)


# -- geometry ------------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class Geometry(Record):
    """Base of every geometry type."""


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
