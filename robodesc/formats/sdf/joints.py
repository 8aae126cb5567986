"""`<joint>` and its `<axis>`/`<axis2>` -> their parsed form (`desc.py`), as libsdformat reads them.

The joint's type (any letter case), its two ends (names of frames, resolved later by `graph.py`),
the axes with their limits, dynamics and mimic, screw pitch in both spellings, gearbox ratio and
reference body. The version converters that matter for kinematics are applied here: before SDF
1.7 `use_parent_model_frame` puts an axis in the model frame, and a 1.4 top-level model's axes
are in the model frame (`convert14`).
"""

from __future__ import annotations

import math

import numpy as np

from ...core.errors import InvalidValue, MissingAttribute, UnsupportedJointType, did_you_mean
from ...core.model import Dynamics, JointType, Limits
from ..xml import Element
from .context import FileContext
from .desc import AxisDesc, JointDesc, Node
from .names import duplicate, name_of, reference
from .spec import AXISLESS_JOINT_TYPES, JOINT_TYPE_NAMES, ONE_AXIS_JOINT_TYPES
from .values import TAG_AND_TEXT, of_unit_length, parse_bool, text_of

_JOINT_TYPES = {name: JointType(name) for name in JOINT_TYPE_NAMES}
_TRUE_TEXTS = ("true", "True", "TRUE", "1")  # what the 1.6 -> 1.7 converter maps for use_parent_model_frame
_NO_LIMIT = 1e16  # libsdformat's "no limit"
_JOINT_CHILDREN = {  # read here; any other child is kept
    "pose",
    "parent",
    "child",
    "axis",
    "axis2",
    "thread_pitch",
    "screw_thread_pitch",
    "gearbox_ratio",
    "gearbox_reference_body",
}
_LIMIT_TAGS = ("lower", "upper", "effort", "velocity", "stiffness", "dissipation")
_LIMIT_DEFAULTS = (-_NO_LIMIT, _NO_LIMIT, -1.0, -1.0, 0.0, 0.0)
_DYNAMICS_TAGS = ("damping", "friction", "spring_reference", "spring_stiffness")
_ONE_AXIS_OR_NONE = AXISLESS_JOINT_TYPES | ONE_AXIS_JOINT_TYPES  # the types whose <axis2> is ignored
_ENDS = (("parent", "joint parent"), ("child", "joint child"))  # a joint's ends, as their errors name them
_BOOL_TEXTS = ("true", "1", "false", "0")  # what `parse_bool` reads (lowered); it refuses anything else


def parse_joint(ctx: FileContext, element: Element, convert14: bool) -> JointDesc:
    name = name_of(ctx, element, "joint")
    kind = _joint_type(ctx, element, name)
    # the first child of each tag read, and the others, sorted in one pass of tests of the tag (a find per tag,
    # or a dict of them, cost more)
    parent_el = child_el = pose_el = axis_el = axis2_el = None
    kept_els: list[Element] = []
    for end_el in element:
        tag = end_el.tag
        if tag == "parent":
            if parent_el is None:
                parent_el = end_el
        elif tag == "child":
            if child_el is None:
                child_el = end_el
        elif tag == "axis":
            if axis_el is None:
                axis_el = end_el
        elif tag == "axis2":
            if axis2_el is None:
                axis2_el = end_el
        elif tag == "pose":
            if pose_el is None:
                pose_el = end_el
        elif tag not in _JOINT_CHILDREN:  # (the others read, rare, are found by the readers of a screw or gearbox)
            kept_els.append(end_el)
    (parent, parent_end), (child, child_end) = _joint_ends(ctx, element, name, parent_el, child_el)
    where = ctx.where(element)
    joint = JointDesc(
        name=name,
        type=kind,
        parent=parent,
        child=child,
        pose=ctx.pose_in(pose_el, where),
        location=where,
        parent_at=ctx.kept_at(parent_end),
        child_at=ctx.kept_at(child_end),
    )
    plain = kind is not JointType.CONTINUOUS  # (whose limits the lint looks at)
    if axis_el is not None:
        joint.axis, unit = parse_axis(ctx, axis_el, convert14)
        plain = plain and unit and kind not in AXISLESS_JOINT_TYPES
    if axis2_el is not None:
        joint.axis2, unit = parse_axis(ctx, axis2_el, convert14)
        plain = plain and unit and kind not in _ONE_AXIS_OR_NONE
    if plain:
        ctx.plain_joints.add(element)
        if name.strip():  # (the lint says nothing else of a plain joint)
            ctx.vetted.add(element)
    if kind is JointType.SCREW:
        pitch = _screw_thread_pitch(ctx, element)
        joint.pitch = pitch / (2.0 * math.pi)
        joint.properties = {"screw_thread_pitch": pitch}
    if kind is JointType.GEARBOX:
        ratio = ctx.child_double(element, "gearbox_ratio", 1.0)
        joint.gearbox = (ratio, ctx.child_text(element, "gearbox_reference_body") or "")
    if kept_els:
        sensors: set[str] = set()
        kept: list[Node] = []
        for child_el in kept_els:
            sensor = child_el.get("name") if child_el.tag == "sensor" else None
            if sensor is not None:
                if sensor in sensors:  # libsdformat's loadUniqueRepeated rejects it, as in links
                    raise duplicate("sensor", sensor, f"joint {name!r}", ctx.where(child_el))
                sensors.add(sensor)
            kept.append(ctx.keep(child_el, "joint"))
        joint.kept = kept
    return joint


def _joint_type(ctx: FileContext, element: Element, name: str) -> JointType:
    type_text = ctx.required(element, "type").strip().lower()
    kind = _JOINT_TYPES.get(type_text)
    if kind is None:
        raise ctx.error(
            UnsupportedJointType,
            element,
            f"joint {name!r} has the type {element.get('type')!r}, which SDF does not define",
            element.get("type"),
            did_you_mean(type_text, _JOINT_TYPES) or "use one of " + ", ".join(_JOINT_TYPES),
        )
    return kind


def _joint_ends(
    ctx: FileContext, element: Element, name: str, parent_el: Element | None, child_el: Element | None
) -> tuple[tuple[str, Element], tuple[str, Element]]:
    """(parent, its element), (child, its element) as written in the joint's first `<parent>` and `<child>`
    (given, None when not written): the names of two different frames, the child not the world."""
    ends = []
    for (end, attribute), end_el in zip(_ENDS, (parent_el, child_el)):
        if end_el is None:
            raise ctx.error(
                MissingAttribute,
                element,
                f"joint {name!r} has no <{end}>",
                f"joint/{end}",
                f"add <{end}>LINK_NAME</{end}>",
            )
        ends.append((reference(ctx, text_of(end_el), end_el, attribute), end_el))
    (parent, parent_el), (child, child_el) = ends
    if child == "world":
        swap = "the world can only be a joint's parent; swap <parent> and <child>"
        raise ctx.error(InvalidValue, child_el, f"joint {name!r} has the world as its child", "joint/child", swap)
    if child == parent:
        both = f"joint {name!r} names {child!r} as both parent and child"
        raise ctx.error(InvalidValue, child_el, both, "joint/child", "a joint connects two different links")
    return (parent, parent_el), (child, child_el)


def _screw_thread_pitch(ctx: FileContext, element: Element) -> float:
    """Metres per revolution: `<screw_thread_pitch>` (1.10), else the old `<thread_pitch>` converted."""
    if element.find("screw_thread_pitch") is not None:
        return ctx.child_double(element, "screw_thread_pitch", 1.0)
    if element.find("thread_pitch") is not None:
        old = ctx.child_double(element, "thread_pitch", 1.0)
        return -2.0 * math.pi / old if old != 0.0 else 0.0
    return 1.0  # libsdformat's default


# -- axes ------------------------------------------------------------------------------------
def parse_axis(ctx: FileContext, element: Element, convert14: bool) -> tuple[AxisDesc, bool]:
    """The axis, and whether its `<xyz>` is of unit length as written (`values.of_unit_length`; the default
    0 0 1 is), which the lint would otherwise read again (`FileContext.plain_joints`)."""
    # the first child of each tag read, and the others, sorted in one pass of tests of the tag (five finds, or a
    # dict of them, cost more)
    xyz_el = limit_el = flag_el = dynamics_el = mimic_el = None
    others: list[Element] = []  # checked as kept elements, once the axis is read
    for child in element:
        tag = child.tag
        if tag == "xyz":
            if xyz_el is None:
                xyz_el = child
        elif tag == "limit":
            if limit_el is None:
                limit_el = child
        elif tag == "use_parent_model_frame":
            if flag_el is None:
                flag_el = child
        elif tag == "dynamics":
            if dynamics_el is None:
                dynamics_el = child
        elif tag == "mimic":
            if mimic_el is None:
                mimic_el = child
        elif tag != "initial_position":  # (the one other child of an axis, not read)
            others.append(child)
    expressed_in = ""
    xyz, unit = _DEFAULT_XYZ
    if xyz_el is not None:
        # the direction and whether it is of unit length, once per text as written in the file (a robot's axes
        # repeat a few directions); only read by the builder, which makes each joint's own
        written = xyz_el.text
        found = ctx.plain_axes.get(written)
        if found is None:
            x, y, z = ctx.floats_of(xyz_el, 3, "xyz")
            norm = math.hypot(x, y, z)  # neither overflows (1e200) nor underflows (1e-200) as a sum of squares would
            if norm != 0.0:  # (float division, as numpy's: the same bits)
                found = ctx.plain_axes[written] = (np.array([x / norm, y / norm, z / norm]), of_unit_length(x, y, z))
        written_in = xyz_el.get("expressed_in")
        if written_in is not None:  # (most axes have none: "" as read)
            expressed_in = reference(ctx, written_in, xyz_el, "//axis/xyz/@expressed_in")
        else:
            ctx.vetted.add(xyz_el)  # (an old file's lint looks at an <xyz> for @expressed_in alone)
        if found is None:  # (refused after its expressed_in is read, as it always was)
            raise ctx.error(
                InvalidValue,
                xyz_el,
                "the norm of the axis xyz vector is zero",
                "axis/xyz",
                "give the axis direction, e.g. <xyz>0 0 1</xyz>",
            )
        xyz, unit = found
    if ctx.version <= (1, 6) and _in_model_frame(ctx, flag_el, convert14):
        expressed_in = "__model__"
    axis = AxisDesc(
        xyz=xyz,
        expressed_in=expressed_in,
        limits=_limits(ctx, limit_el),
        dynamics=_dynamics(ctx, dynamics_el),
        location=ctx.kept_at(element),
        xyz_at=ctx.kept_at(xyz_el) if xyz_el is not None else None,
    )
    if mimic_el is not None:
        axis.mimic_location = ctx.where(mimic_el)
        leader = ctx.required(mimic_el, "joint").strip()
        axis.mimic = (
            leader,
            mimic_el.get("axis", "axis").strip(),
            ctx.child_double(mimic_el, "multiplier", 1.0),
            ctx.child_double(mimic_el, "offset", 0.0),
            ctx.child_double(mimic_el, "reference", 0.0),
        )
    for child in others:
        ctx.check_kept(child, element.tag)
    return axis, unit


def _in_model_frame(ctx: FileContext, flag: Element | None, convert14: bool) -> bool:
    """Whether a pre-1.7 axis is expressed in the model frame (`use_parent_model_frame`, its `flag` if written)."""
    if flag is None:
        return convert14  # the 1.4 -> 1.5 converter adds use_parent_model_frame=true
    text = text_of(flag)
    if text.lower() not in _BOOL_TEXTS:  # (the usual flag reads without a locator made for an error)
        parse_bool(text, ctx.at(flag), "use_parent_model_frame")
    return text in _TRUE_TEXTS


def _limits(ctx: FileContext, limit_el: Element | None) -> Limits:
    """`<limit>`: a bound of magnitude 1e16 or more is none, as is a negative effort or velocity.

    Read once per (tag, text) of its children in the file (a robot's joints repeat the same few limits), and
    shared by the axes of those texts: the builder reads it and makes each joint's own (`Builder._axis`)."""
    if limit_el is None:
        return _UNLIMITED
    key = tuple(map(TAG_AND_TEXT, limit_el))  # (what `child_doubles` reads of it; what fails is not kept)
    limits = ctx.plain_limits.get(key)
    if limits is None:  # (stiffness and dissipation are read to be checked, as libsdformat does)
        lower, upper, effort, velocity, _, _ = ctx.child_doubles(limit_el, _LIMIT_TAGS, _LIMIT_DEFAULTS, True)
        limits = ctx.plain_limits[key] = _bounded(lower, upper, effort, velocity)
    return limits


def _bounded(lower: float, upper: float, effort: float, velocity: float) -> Limits:
    return Limits(
        lower=lower if abs(lower) < _NO_LIMIT else None,
        upper=upper if abs(upper) < _NO_LIMIT else None,
        velocity=velocity if 0 <= velocity < math.inf else None,
        effort=effort if 0 <= effort < math.inf else None,
    )


#: An axis's direction without an <xyz> (0 0 1, of unit length; only read, see `parse_axis`)
_DEFAULT_XYZ = (np.array([0.0, 0.0, 1.0]), True)
_DEFAULT_XYZ[0].flags.writeable = False
#: An axis's limits without a <limit> (read only: shared by every such axis, see `_limits`)
_UNLIMITED = _bounded(-_NO_LIMIT, _NO_LIMIT, -1.0, -1.0)


def _dynamics(ctx: FileContext, dynamics_el: Element | None) -> Dynamics:
    if dynamics_el is None:
        return Dynamics()
    damping, friction, spring_reference, spring_stiffness = ctx.child_doubles(
        dynamics_el, _DYNAMICS_TAGS, (0.0, 0.0, 0.0, 0.0)
    )
    return Dynamics(
        damping=damping, friction=friction, spring_reference=spring_reference, spring_stiffness=spring_stiffness
    )
