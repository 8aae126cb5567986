"""Format-neutral core: model types, transforms, kinematics, diagnostics, errors, resources.

Nothing here imports from `robodesc.formats` or `robodesc.plugins`.

Every load imports this package, so the scene and export functions (trimesh glue, with tempfile,
shutil and the compression modules behind them) are imported on first use, not here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, Severity
from .errors import Location, RobodescError
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
from .kinematics import Kinematics, Poses
from .model import Actuator, Body, Constraint, Dynamics, Extra, Frame, Inertial, Joint, JointType, Limits, Mimic, Model
from .resources import LoadContext

if TYPE_CHECKING:
    from .export import export_scene
    from .scene import as_trimesh, update_scene

#: names imported from their module on first use
_LAZY = {"export_scene": "export", "as_trimesh": "scene", "update_scene": "scene"}

__all__ = [
    "Actuator",
    "Body",
    "Box",
    "Capsule",
    "Cone",
    "Constraint",
    "Cylinder",
    "Diagnostic",
    "Dynamics",
    "Ellipsoid",
    "Extra",
    "Frame",
    "Geometry",
    "Heightfield",
    "Inertial",
    "Joint",
    "JointType",
    "Kinematics",
    "Limits",
    "LoadContext",
    "Location",
    "Material",
    "Mesh",
    "Mimic",
    "Model",
    "Plane",
    "Poses",
    "RobodescError",
    "Severity",
    "Shape",
    "Sphere",
    "as_trimesh",
    "export_scene",
    "update_scene",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
