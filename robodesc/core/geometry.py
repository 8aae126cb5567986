"""Shapes, materials and mesh references: what a body looks like and what it collides with.

Sizes follow the conventions users know from URDF/SDF: full box edge lengths, cylinder and
capsule `length` of the straight part along the shape's z axis, radii not diameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ResourceNotFound
from .transforms import IDENTITY


@dataclass
class Geometry:
    """Base of every geometry type."""


@dataclass
class Box(Geometry):
    size: np.ndarray  # full edge lengths (x, y, z)


@dataclass
class Sphere(Geometry):
    radius: float


@dataclass
class Cylinder(Geometry):
    radius: float
    length: float


@dataclass
class Capsule(Geometry):
    radius: float
    length: float  # of the cylindrical part, caps not included


@dataclass
class Ellipsoid(Geometry):
    radii: np.ndarray


@dataclass
class Plane(Geometry):
    normal: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    size: np.ndarray | None = None  # (x, y) extent; None = infinite


@dataclass
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
        """Read the mesh with trimesh (scaled), raising a robodesc error if that fails."""
        import trimesh  # imported here: loading a description never needs it

        path = self.resolved_path()
        try:
            mesh = trimesh.load(path, force="mesh")
        except Exception as exc:  # trimesh raises many kinds for a bad file
            raise ResourceNotFound(f"mesh {path!r} cannot be read: {exc}", construct=self.uri) from exc
        mesh.apply_scale(self.scale)
        return mesh


@dataclass
class Heightfield(Geometry):
    uri: str | None = None
    size: np.ndarray | None = None
    path: str | None = None


@dataclass
class Material:
    name: str | None = None
    color: np.ndarray | None = None  # RGBA in [0, 1]
    texture: str | None = None


@dataclass
class Shape:
    """One visual or collision element of a body: a geometry placed in the body frame."""

    geometry: Geometry
    pose: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    name: str | None = None
    material: Material | None = None
    extras: dict[str, Any] = field(default_factory=dict)
