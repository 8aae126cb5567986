"""What robodesc knows of the SDFormat specification beyond the elements it models.

libsdformat reads every element against the spec and rejects a file whose values do not parse
(``<gravity>0 1 bad</gravity>``) or whose required attributes are missing. robodesc checks the
elements it models as it reads them, and walks the elements it only keeps (physics, scene,
lights, sensors, ...) with the table below, so a typo there is rejected the same way. The table
names only elements whose type is certain; anything else is kept unchecked.
"""

from __future__ import annotations

import re

#: Versions libsdformat 16 reads (and converts to 1.12); ordered pairs.
SUPPORTED_VERSIONS = {(1, 0), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (1, 8), (1, 9), (1, 10), (1, 11), (1, 12)}
LATEST_VERSION = (1, 12)
_VERSION_NUMBER = re.compile(r"[0-9]{1,9}")  # one part of MAJOR.MINOR: ASCII digits, as libsdformat reads them

#: Value types of elements by (parent tag, tag).
TYPED_CHILDREN: dict[tuple[str, str], str] = {}


def _add(parent: str, kind: str, *tags: str) -> None:
    for tag in tags:
        TYPED_CHILDREN[(parent, tag)] = kind


_add("world", "vector3", "gravity", "magnetic_field")
_add("wind", "vector3", "linear_velocity")
_add("atmosphere", "double", "temperature", "pressure", "temperature_gradient")
_add("spherical_coordinates", "double", "latitude_deg", "longitude_deg", "elevation", "heading_deg")
_add("physics", "double", "max_step_size", "real_time_factor", "real_time_update_rate")
_add("physics", "int", "max_contacts")
_add("scene", "color", "ambient", "background")
_add("scene", "bool", "shadows", "grid", "origin_visual")
_add("model", "bool", "static", "self_collide", "allow_auto_disable", "enable_wind")
_add("link", "bool", "gravity", "enable_wind", "self_collide", "kinematic", "must_be_base_link")
_add("velocity_decay", "double", "linear", "angular")
_add("visual", "bool", "cast_shadows")
_add("visual", "double", "transparency", "laser_retro")
_add("collision", "double", "laser_retro", "density")
_add("collision", "int", "max_contacts")
_add("material", "color", "ambient", "diffuse", "specular", "emissive")
_add("material", "bool", "lighting", "double_sided")
_add("material", "double", "shininess")
_add("light", "color", "diffuse", "specular")
_add("light", "bool", "cast_shadows")
_add("light", "vector3", "direction")
_add("light", "double", "intensity")
_add("attenuation", "double", "range", "constant", "linear", "quadratic")
_add("spot", "double", "inner_angle", "outer_angle", "falloff")
_add("sensor", "bool", "always_on", "visualize")
_add("sensor", "double", "update_rate")
_add("limit", "double", "lower", "upper", "effort", "velocity", "stiffness", "dissipation")
_add("dynamics", "double", "damping", "friction", "spring_reference", "spring_stiffness")
#: Typed elements the specification marks optional (required="0"): an empty one takes its default,
#: as libsdformat's `Param::SetFromString` does, instead of failing to parse.
EMPTY_IS_DEFAULT: set[tuple[str, str]] = set()
_FIRST_OPTIONAL = len(TYPED_CHILDREN)
# <surface> of a collision (surface.sdf): every value libsdformat parses as a number or a boolean
_add("bounce", "double", "restitution_coefficient", "threshold")
_add("torsional", "double", "coefficient", "patch_radius", "surface_radius")
_add("torsional", "bool", "use_patch_radius")
_add("ode", "double", "mu", "mu2", "slip", "slip1", "slip2", "soft_cfm", "soft_erp", "kp", "kd", "max_vel", "min_depth")
_add("ode", "vector3", "fdir1")
_add("bullet", "double", "friction", "friction2", "rolling_friction", "soft_cfm", "soft_erp", "kp", "kd")
_add("bullet", "double", "split_impulse_penetration_threshold")
_add("bullet", "vector3", "fdir1")
_add("bullet", "bool", "split_impulse")
_add("contact", "bool", "collide_without_contact")
_add("contact", "unsigned int", "collide_without_contact_bitmask", "collide_bitmask", "category_bitmask")
_add("contact", "double", "poissons_ratio", "elastic_modulus")
_add("dart", "double", "bone_attachment", "stiffness", "damping", "flesh_mass_fraction")
# a joint's <physics> (joint.sdf) and the world's <physics> engines (physics.sdf)
_add("ode", "double", "fudge_factor", "cfm", "erp", "bounce", "max_force", "velocity")
_add("ode", "bool", "cfm_damping", "implicit_spring_damper")
_add("simbody", "bool", "must_be_loop_joint")
_add("physics", "bool", "provide_feedback")
_add("solver", "double", "min_step_size", "sor")
_add("solver", "int", "iters", "precon_iters", "island_threads")
_add("solver", "bool", "use_dynamic_moi_rescaling", "thread_position_correction")
_add("constraints", "double", "cfm", "erp", "contact_max_correcting_vel", "contact_surface_layer")
_add("constraints", "bool", "split_impulse")
_add("constraints", "double", "split_impulse_penetration_threshold")
# <inertial> children robodesc keeps (inertial.sdf)
_add(
    "fluid_added_mass",
    "double",
    *"xx xy xz xp xq xr yy yz yp yq yr zz zp zq zr pp pq pr qq qr rr".split(),
)
EMPTY_IS_DEFAULT.update(list(TYPED_CHILDREN)[_FIRST_OPTIONAL:])
for _owner in ("sensor", "light", "camera", "projector", "particle_emitter", "audio_source", "actor", "waypoint"):
    _add(_owner, "pose", "pose")  # poses of kept elements: libsdformat rejects a malformed one as any other

#: Attributes libsdformat requires in elements robodesc keeps unread: tag -> (parent tags, attributes);
#: an empty parent set means anywhere.
REQUIRED_ATTRIBUTES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sensor": (("link", "joint"), ("name", "type")),
    "light": (("world", "link", "sdf"), ("name",)),
    "actor": (("world", "sdf"), ("name",)),
    "plugin": ((), ("filename",)),
}

#: The children the 1.12 specification defines (or earlier ones kept it): anything else draws an
#: `info` diagnostic, as libsdformat warns about it (robodesc keeps it as an extra all the same).
KNOWN_CHILDREN: dict[str, frozenset[str]] = {
    "world": frozenset(
        "audio wind include gravity magnetic_field atmosphere gui physics scene light frame model actor plugin "
        "road spherical_coordinates state population joint".split()
    ),
    "model": frozenset(
        "static self_collide allow_auto_disable include model enable_wind frame pose link joint plugin gripper".split()
    ),
    "link": frozenset(
        "gravity enable_wind self_collide kinematic must_be_base_link velocity_decay frame pose inertial collision "
        "visual sensor projector audio_sink audio_source battery light particle_emitter".split()
    ),
    "joint": frozenset(
        "parent child gearbox_ratio gearbox_reference_body thread_pitch screw_thread_pitch axis axis2 physics frame "
        "pose sensor".split()
    ),
}

#: Elements under which libsdformat does not check anything (free-form content).
FREE_FORM = {"plugin"}

JOINT_TYPE_NAMES = (
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "ball",
    "universal",
    "revolute2",
    "screw",
    "gearbox",
)
#: Joint types that use no axis, and those that use one: an `<axis>` of the first, an `<axis2>` of either
#: is ignored by libsdformat (the lint warns: `checks._Lint.joint`).
AXISLESS_JOINT_TYPES = frozenset(("fixed", "ball"))
ONE_AXIS_JOINT_TYPES = frozenset(("revolute", "continuous", "prismatic", "screw"))
GEOMETRY_TAGS = (
    "box",
    "sphere",
    "cylinder",
    "capsule",
    "ellipsoid",
    "plane",
    "mesh",
    "heightmap",
    "polyline",
    "cone",
    "image",
    "empty",
)
SHADER_TYPES = ("pixel", "vertex", "normal_map_object_space", "normal_map_tangent_space")


def is_reserved_name(name: str) -> bool:
    """libsdformat's reserved names: ``world`` and anything that starts and ends with ``__``."""
    return name == "world" or (len(name) >= 4 and name.startswith("__") and name.endswith("__"))


def is_custom(tag: str) -> bool:
    """A namespaced custom element (``<foo:bar>``), which libsdformat copies without checking."""
    return ":" in tag


def parse_version(text: str) -> tuple[int, int] | None:
    """``"1.10"`` -> (1, 10); None when the text is not MAJOR.MINOR."""
    parts = text.strip().split(".", 2)
    if len(parts) != 2 or not (_VERSION_NUMBER.fullmatch(parts[0]) and _VERSION_NUMBER.fullmatch(parts[1])):
        return None  # ASCII digits only ("1.²" is no version), and no more than a version ever has
    return int(parts[0]), int(parts[1])
