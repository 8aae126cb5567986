"""Format-neutral core: model types, transforms, kinematics, diagnostics, errors, resources.

Nothing here imports from `robodesc.formats` or `robodesc.plugins`.
"""

from .diagnostics import Diagnostic, Severity
from .errors import Location, RobodescError
from .export import export_scene
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
from .scene import as_trimesh, update_scene

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
