"""URDF-specific checks for `robodesc check` (the `robodesc_checks` hook of the URDF plugin).

The reader already refuses what urdfdom (`check_urdf`, and every ROS tool) refuses to load, and
notes on `model.diagnostics` what it decided while loading. These checks add what a URDF loads
with but what is still wrong or lost somewhere: values the URDF readers ignore, constructs urdfdom
drops, and references of the ROS extension elements that lead nowhere. They read the loaded model
and the facts the reader keeps under `extras["urdf"]` (see reader.py).

Codes (docs/diagnostics.md):

* ``limits-ignored`` (warning): a continuous joint whose `<limit>` gives lower/upper. Readers ignore
  them; reported unless they give no range (lower == upper, such as the 0 0 of boilerplate) or an
  unbounded one (both beyond +-1e6, a spelling of "no limit").
* ``limit-not-applicable`` (warning): a `<limit>` on a floating or planar joint; nothing bounds those.
* ``fixed-joint-limits`` (info): fixed joints whose `<limit>` gives a range (lower < upper): they do
  not move, so they were perhaps meant to be revolute or prismatic. One finding per file, listing
  them; a `<limit>` without a range on a fixed joint is boilerplate and not reported.
* ``axis-normalised`` (info): a joint axis written with a length other than 1 (off by more than
  1e-4, more than rounding), which robodesc (like KDL and pinocchio) scaled to unit length.
* ``repeated-element`` (warning): an element read once written several times in a link, joint,
  inertial, visual or collision (two `<origin>`s, two `<limit>`s, two `<inertial>`s, ...), or a
  `<geometry>` with several shapes: urdfdom and robodesc read the first and silently drop the rest.
* ``unused-material`` (info): robot-level `<material>`s no visual names. One finding per file.
* ``material-without-name`` (error): a visual `<material>` without a name; urdfdom ("Visual material
  must contain a name attribute") and PyBullet refuse the visual.
* ``transmission-unknown-joint`` (warning): a `<transmission>` or `<ros2_control>` naming a joint the
  robot does not have; the controller manager fails on it.
* ``gazebo-unknown-reference`` (warning): a `<gazebo reference="...">` naming neither a link nor a
  joint; Gazebo ignores the whole block.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import Location, RobodescError, did_you_mean
from ...core.model import Extra, JointType, Model
from ..xml import parse_xml

#: An axis whose length is off 1 by more than this was not merely rounded when written.
AXIS_TOLERANCE = 1e-4
#: Lower and upper limits both beyond this (in magnitude) spell "unlimited".
UNBOUNDED = 1e6
#: How many names a grouped finding lists before "and N more".
LISTED = 5


def check(model: Model) -> list[Diagnostic]:
    """Every URDF-specific finding on a model the URDF reader produced."""
    if model.format != "urdf":
        return []
    found: list[Diagnostic] = []
    for rule in (_joint_limits, _axes, _repeated, _materials, _shapes, _extensions):
        found.extend(rule(model))
    return found


def _urdf(extras: dict) -> dict:
    facts = extras.get("urdf")
    return facts if isinstance(facts, dict) else {}


def _where(model: Model, location: Location | None) -> Location:
    return location if location is not None else Location(file=model.source)


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def _range(lower: float | None, upper: float | None) -> str:
    return f"lower {'-' if lower is None else f'{lower:g}'}, upper {'-' if upper is None else f'{upper:g}'}"


# -- joints ---------------------------------------------------------------------------------------
def _joint_limits(model: Model) -> Iterator[Diagnostic]:
    fixed: list[tuple[str, str, Location]] = []
    for joint in model.joints.values():
        lower, upper = _urdf(joint.extras).get("dropped_limits", (None, None))
        given = lower is not None or upper is not None
        low, high = (0.0 if lower is None else lower), (0.0 if upper is None else upper)  # urdfdom's defaults
        if joint.type is JointType.CONTINUOUS and given:
            if low == high or min(abs(low), abs(high)) >= UNBOUNDED:
                continue  # no range (0 0 boilerplate), or "no limit" spelled as huge numbers
            yield Diagnostic(
                Severity.WARNING,
                "limits-ignored",
                f"continuous joint {joint.name!r} has {_range(lower, upper)} in its <limit>, which continuous "
                "joints ignore: it turns without bound",
                _urdf(joint.extras).get("limit_location", joint.location),
                "make the joint revolute to keep the limits, or drop lower and upper",
            )
        elif joint.type in (JointType.FLOATING, JointType.PLANAR) and (given or joint.limits.effort is not None):
            what = _range(lower, upper) if given else "effort and velocity"
            yield Diagnostic(
                Severity.WARNING,
                "limit-not-applicable",
                f"{joint.type} joint {joint.name!r} has a <limit> ({what}), which {joint.type} joints ignore: "
                "nothing bounds their motion",
                joint.location,
                "remove the <limit>; bound the motion with revolute or prismatic joints if it must be bounded",
            )
        elif joint.type is JointType.FIXED and given and low < high:
            fixed.append((joint.name, f"{joint.name!r} ({low:g} .. {high:g})", joint.location))
    if fixed:
        names = [label for _, label, _ in fixed]
        yield Diagnostic(
            Severity.INFO,
            "fixed-joint-limits",
            f"{len(fixed)} fixed joint(s) have a <limit> with a range, which fixed joints ignore: "
            f"{_listing(names)}; they do not move",
            fixed[0][2],
            "if they should move, make them revolute or prismatic; otherwise remove the <limit>",
        )


def _axes(model: Model) -> Iterator[Diagnostic]:
    for joint in model.joints.values():
        written = _urdf(joint.extras).get("written_axis")
        if written is None or joint.type in (JointType.FIXED, JointType.FLOATING):
            continue
        length = math.sqrt(sum(float(c) * float(c) for c in written))
        if abs(length - 1.0) <= AXIS_TOLERANCE:
            continue
        axis = " ".join(f"{float(c):g}" for c in written)
        unit = " ".join(f"{float(c):.6g}" for c in joint.axis)
        yield Diagnostic(
            Severity.INFO,
            "axis-normalised",
            f"the axis of joint {joint.name!r} ({axis}) has length {length:.6g}; robodesc uses the unit axis {unit}",
            _urdf(joint.extras).get("axis_location", joint.location),
            f'write xyz="{unit}" so that every tool reads the same axis',
        )


def _repeated(model: Model) -> Iterator[Diagnostic]:
    owners = [("link", body.name, body.extras) for body in model.bodies.values()]
    owners += [("joint", joint.name, joint.extras) for joint in model.joints.values()]
    for kind, name, extras in owners:
        for fact in _urdf(extras).get("repeated", ()):
            tag, parent, count = fact["tag"], fact["parent"], fact["count"]
            if parent == "geometry":
                what = f"a <geometry> of {kind} {name!r} holds {count} shapes; only the first, <{tag}>, is read"
                fix = "keep one shape per <geometry>; add a <visual> or <collision> for each other shape"
            else:
                inside = "" if parent == kind else f" in one <{parent}>"
                what = f"{kind} {name!r} has {count} <{tag}> elements{inside}; only the first is read"
                fix = f"merge them into one <{tag}>, or remove the others"
            yield Diagnostic(
                Severity.WARNING,
                "repeated-element",
                what + " (by urdfdom and robodesc alike), the others are silently ignored",
                _where(model, fact.get("location")),
                fix,
            )


# -- materials and shapes -----------------------------------------------------------------------
def _materials(model: Model) -> Iterator[Diagnostic]:
    if not model.bodies:
        return
    locations: dict[str, Location] = _urdf(model.root.extras).get("material_locations", {})
    defined = list(locations) if locations else list(model.materials)
    used = {
        shape.material.name
        for body in model.bodies.values()
        for shape in body.visuals
        if shape.material is not None and shape.material.name
    }
    unused = [name for name in defined if name not in used]
    if unused:
        yield Diagnostic(
            Severity.INFO,
            "unused-material",
            f"{len(unused)} robot-level material(s) are used by no visual: {_listing([repr(n) for n in unused])}",
            _where(model, locations.get(unused[0])),
            "remove them, or name them in a visual's <material name=...>",
        )


def _shapes(model: Model) -> Iterator[Diagnostic]:
    for body, shape, kind in model.iter_shapes():
        label = f"{kind} {shape.name!r}" if shape.name else f"a {kind}"
        if kind == "visual" and shape.material is not None and shape.material.name is None:  # name="" is fine
            yield Diagnostic(
                Severity.ERROR,
                "material-without-name",
                f"{label} of link {body.name!r} has a <material> without a name; urdfdom (ROS) and PyBullet "
                "refuse such a visual",
                _where(model, _urdf(shape.extras).get("material_location") or body.location),
                'give the material a name: <material name="...">',
            )


# -- extension elements ------------------------------------------------------------------------
def _parsed(extra: Extra):
    try:
        return parse_xml(extra.xml).root
    except RobodescError:  # pragma: no cover - the text was written from a parsed element
        return None


def _extensions(model: Model) -> Iterator[Diagnostic]:
    links_and_joints = {*model.bodies, *model.joints}
    for extra in model.extras:
        if extra.tag == "gazebo":
            reference = extra.attributes.get("reference")
            if reference is not None and reference not in links_and_joints:
                yield Diagnostic(
                    Severity.WARNING,
                    "gazebo-unknown-reference",
                    f"<gazebo reference={reference!r}> names neither a link nor a joint; Gazebo ignores the block",
                    extra.location,
                    did_you_mean(reference, links_and_joints) or "name a link or joint of this robot",
                )
        elif extra.tag in ("transmission", "ros2_control"):
            element = _parsed(extra)
            if element is None:
                continue
            owner = f"<{extra.tag}" + (f" name={element.get('name')!r}>" if element.get("name") else ">")
            for joint in element.iter("joint"):
                name = joint.get("name")
                if name is not None and name not in model.joints:
                    yield Diagnostic(
                        Severity.WARNING,
                        "transmission-unknown-joint",
                        f"{owner} names joint {name!r}, which is not a joint of this robot",
                        extra.location,
                        did_you_mean(name, model.joints) or "name an existing joint",
                    )


__all__ = ["check"]
