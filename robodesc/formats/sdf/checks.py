"""SDF checks: what libsdformat loads but is doubtful, each finding a `Diagnostic` with an `sdf-` code.

The reader rejects what libsdformat rejects. What loads but is probably not what the author meant
is found in two places:

* `lint(ctx)` runs on every SDF file the reader parses, after the file parsed without
  error. It looks at what only the XML still shows (the quaternion as written, an axis before it
  is normalised, an empty plugin filename, a sensor type) and adds reader diagnostics, so they
  reach `model.diagnostics` and name the exact line. Included files are checked once per load.
* `check_loaded(model)` is run by the `robodesc_checks` hook (see `__init__.py`) on loaded SDF
  models. It needs the built model: which links move (joints, static models, free links).

Codes (docs/diagnostics.md has a line for each):

========================================  =======  ==============================================
``sdf-empty-document``                    warning  ``<sdf>`` holds no world, model, actor, light,
                                                   include or plugin
``sdf-empty-name``                        error    a world, model, link, joint, frame, visual,
                                                   collision, sensor, light or actor named ``""``
``sdf-quaternion-not-normalized``         warning  a ``quat_xyzw`` pose whose quaternion is not unit
``sdf-angle-units``                       warning  roll/pitch/yaw that look like degrees without
                                                   ``degrees="true"``, or like radians with it
``sdf-newer-than-version``                warning  an attribute the file's declared version lacks
``sdf-unresolved-frame``                  warning  a sensor, light, ... pose relative_to nothing
``sdf-axis-not-unit``                     warning  an axis ``<xyz>`` that is not of unit length
``sdf-axis-ignored``                      warning  ``<axis2>`` on a one-axis joint, an axis on a
                                                   fixed or ball joint
``sdf-continuous-with-limits``            warning  a continuous joint with finite lower/upper
``sdf-several-shapes``                    warning  a ``<geometry>`` holding more than one shape
``sdf-empty-geometry``                    warning  a ``<geometry>`` holding no shape
``sdf-unknown-sensor-type``               error    a sensor type libsdformat does not know
``sdf-sensor-update-rate``                warning  an update rate that is negative or not a number
``sdf-empty-plugin-filename``             warning  ``<plugin filename="">``
``sdf-empty-plugin-name``                 warning  ``<plugin name="">``
``sdf-default-inertia``                   warning  a moving link without ``<inertia>``/``<mass>``:
                                                   libsdformat gives it 1 kg and 1 kg m^2
``sdf-massless-free-link``                warning  a free (jointless, not static) link of mass 0
========================================  =======  ==============================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from itertools import count

from ...core.checks import moving_bodies
from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import did_you_mean, excerpt
from ...core.model import Body, Model
from ..xml import Element
from .context import FileContext
from .desc import ModelDesc, WorldDesc
from .geometry import SHAPE_PRECEDENCE
from .spec import AXISLESS_JOINT_TYPES, GEOMETRY_TAGS, ONE_AXIS_JOINT_TYPES
from .values import A_TURN, UNIT_TOLERANCE, of_unit_length, text_of, within_a_turn

#: Sensor types libsdformat 16's `Sensor::Load` accepts (any other is an error there).
SENSOR_TYPES = frozenset(
    "air_flow air_pressure air_speed altimeter boundingbox boundingbox_camera camera contact custom depth "
    "depth_camera force_torque gps gpu_lidar gpu_ray imu lidar logical_camera magnetometer multicamera navsat ray "
    "rfid rfidtag rgbd rgbd_camera segmentation segmentation_camera sonar thermal thermal_camera "
    "wide_angle_camera wideanglecamera wireless_receiver wireless_transmitter".split()
)
#: Elements with a name that libsdformat uses to tell them apart (an empty one cannot be referred to).
NAMED = frozenset("world model link joint frame visual collision sensor light actor".split())
#: Attributes newer than some SDF versions: (element, attribute) -> the first version that has it.
SINCE = {
    ("pose", "relative_to"): (1, 7),
    ("frame", "attached_to"): (1, 7),
    ("xyz", "expressed_in"): (1, 7),
    ("model", "canonical_link"): (1, 7),
    ("model", "placement_frame"): (1, 8),
    ("pose", "rotation_format"): (1, 9),
    ("pose", "degrees"): (1, 9),
    ("include", "merge"): (1, 9),
    ("inertial", "auto"): (1, 11),
}
#: The version that has every attribute of `SINCE`: a file declaring it (or later) uses none too early.
_NEWEST_ATTRIBUTES = max(SINCE.values())
#: Owners of a `<pose>` whose relative_to the reader resolves (an error when it names nothing).
POSES_RESOLVED = frozenset("model link joint frame visual collision inertial include".split())
_NO_LIMIT = 1e16  # libsdformat's "no limit"
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TWO_PI = 2.0 * math.pi


#: The tags `_Lint.element` has anything to say about: named ones, those it looks into and, in a file of a
#: version older than some attributes, those with such attributes. Every other element (most: <mass>,
#: <size>, <lower>, ...) is only walked through.
_LOOKED_INTO = NAMED | {"pose", "plugin", "sensor", "joint", "geometry"}
_SINCE_TAGS = frozenset(tag for tag, _ in SINCE)
_SHAPE_TAGS = frozenset(GEOMETRY_TAGS)
_SHAPE_OWNERS = frozenset(("visual", "collision"))
#: Named tags `_Lint.element` looks at for their name alone (links, visuals, collisions, ...)
_NAME_ONLY = NAMED - {"joint", "sensor"} - _SINCE_TAGS
_LINTED_BEFORE_NEWEST = _LOOKED_INTO | _SINCE_TAGS
#: Tags `_Lint.element` looks at in an old file for their attributes' versions alone (an <xyz>, ...)
_ATTRIBUTES_ONLY = _SINCE_TAGS - _LOOKED_INTO


def _numbers(text: str) -> list[float] | None:
    """The blank-separated numbers of `text`, or None when one is not a plain number or there are more
    than a pose has (7): the checks look at poses and axes, and a huge value is never split whole."""
    tokens = text.split(None, 7)
    if len(tokens) > 7 or not all(_PLAIN_NUMBER.fullmatch(t) for t in tokens):
        return None
    return [float(t) for t in tokens]


def _turns_less_than_once(text: str) -> bool:
    """Whether `text`, read as a pose x y z roll pitch yaw, has no angle beyond a turn, in one
    `float` per number instead of a pattern match per number: then `_Lint.angles` without degrees has
    nothing to report. False when unsure (not six plain numbers, or a large angle): `_numbers` decides."""
    tokens = text.split(None, 6)
    if len(tokens) != 6:
        return False
    try:
        roll, pitch, yaw = map(float, tokens[3:])
    except ValueError:
        return False
    return within_a_turn(roll, pitch, yaw)


def _is_unit_vector(text: str) -> bool:
    """Whether `text` is three numbers of unit length (`values.of_unit_length`), read with one `float`
    per number: then `_Lint.joint` has nothing to report about it. False when unsure: `_numbers` decides."""
    tokens = text.split(None, 3)
    if len(tokens) != 3:
        return False
    try:
        x, y, z = map(float, tokens)
    except ValueError:
        return False
    return of_unit_length(x, y, z)


def _leading_number(text: str) -> float | None:
    match = _PLAIN_NUMBER.match(text.strip())
    return float(match.group(0)) if match else None


def _label(element) -> str:
    name = element.get("name")
    return f"{element.tag} {name!r}" if name else f"<{element.tag}>"


def _version_text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def resolves(desc: ModelDesc | WorldDesc, ref: str) -> bool:
    """Whether `ref` names a frame of a parsed model or world (scoped names such as ``arm::hand`` too).

    Scoped names are tried down the nested models with a stack (a name may hold ``::`` itself, so
    each split is tried), never recursing as deep as models nest."""
    pending: list[tuple[ModelDesc | WorldDesc, str]] = [(desc, ref)]
    while pending:
        desc, ref = pending.pop()
        if ref == ("world" if isinstance(desc, WorldDesc) else "__model__"):
            return True
        if isinstance(desc, ModelDesc) and any(link.name == ref for link in desc.links):
            return True
        if any(item.name == ref for items in (desc.models, desc.joints, desc.frames) for item in items):
            return True
        start = ref.find("::")
        while start >= 0:
            head, rest = ref[:start], ref[start + 2 :]
            pending.extend((instance.desc, rest) for instance in desc.models if instance.name == head)
            start = ref.find("::", start + 2)
    return False


# =====================================================================================================
# The reader's half: the raw XML of each parsed file
# =====================================================================================================


class _Lint:
    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.version = ctx.version
        self.document = ctx.document
        self.older = ctx.version < _NEWEST_ATTRIBUTES  # a file some attributes are too new for
        self.linted = _LINTED_BEFORE_NEWEST if self.older else _LOOKED_INTO
        self.visiting: Element | None = None  # the element being looked at: its findings are reported in its place
        self.found: list[tuple] = []  # (element looked at, severity, code, message, element, suggestion)

    def add(self, severity: Severity, code: str, message: str, element, suggestion: str | None) -> None:
        self.found.append((self.visiting, severity, code, message, element, suggestion))

    def run(self) -> None:
        """Look at every element, each with its parent and the parsed model or world it is in, and report
        what is found in document order.

        Walked with a stack of the elements whose children are still to be looked at, so nothing recurses
        as deep as the XML nests; an element is looked at while its parent's children are, and only one
        with children of its own is pushed (most elements are leaves: <mass>, <size>, <lower>, ...). Each
        element's children are looked at in one run, not resumed after each nested element as a walk in
        document order must be (that was a tenth of the lint), so what the walk finds is sorted into
        document order before it is reported: by the place of the element looked at, stably, so that
        several findings about one element keep their order, exactly as a walk in document order
        reports them. Files with nothing to report (most) are not walked at all: `quiet` tells them apart."""
        root = self.document.root
        self.visiting = root
        self.document_content(root)
        if not self.found:  # (an empty document is reported by the walk)
            if self.quiet():
                return
            self.found.clear()  # what `quiet` found is found again by the walk, in its place
        scopes, linted, plain_poses, older = self.ctx.scopes, self.linted, self.ctx.plain_poses, self.older
        plain_joints = self.ctx.plain_joints
        pending: list[tuple] = [(None, (root,), None)]  # (element, its children, the model or world it is in)
        while pending:
            parent, children, scope = pending.pop()
            for element in children:
                tag = element.tag  # (a comment's is a function, never linted and without children)
                if tag in linted:
                    self.visiting = element
                    # what `element` would find nothing to say about, told apart without calling it: a
                    # plain <pose> within a turn (most poses), a named element with a name and nothing
                    # else to look at (links, visuals, collisions, ...; joints the parse found plain), a
                    # <geometry> of one shape
                    if tag == "pose":
                        if element in plain_poses:  # read by the parse: only its attributes' versions to look at
                            if older and element.keys():
                                self.element(element, parent, scope)
                        elif element.keys() or parent is None or not _turns_less_than_once(text_of(element)):
                            self.element(element, parent, scope)
                    elif tag in _NAME_ONLY or (tag == "joint" and element in plain_joints):
                        name = element.get("name")
                        if name is not None and not name.strip():
                            self.empty_name(element)
                    elif tag != "geometry" or parent is None or parent.tag not in _SHAPE_OWNERS:
                        self.element(element, parent, scope)
                    elif len(element) != 1 or element[0].tag not in _SHAPE_TAGS:
                        self.geometry(element, parent)
                    if tag == "plugin" or not len(element):
                        continue  # a plugin's content is free-form: nothing below is SDF
                elif not len(element) or not isinstance(tag, str) or ":" in tag:
                    continue  # a leaf, a comment, or a custom element (`is_custom`), whose content is not SDF
                inner = scopes.get(id(element), scope) if tag in ("model", "world") else scope
                pending.append((element, element[:], inner))
        if self.found:
            place = dict(zip(root.iter(), count()))
            self.found.sort(key=lambda finding: place[finding[0]])
            for _, severity, code, message, element, suggestion in self.found:
                self.ctx.diagnose(severity, code, message, element, suggestion)

    def quiet(self) -> bool:
        """Whether the walk of `run` would find nothing, told without it: most files have nothing to report.

        The elements the walk looks at are found in one pass over the tree (`iter`, whose loop runs in C),
        without the walk's stack of parents and models, and looked at as the walk would. A pose the parse did
        not read plain and a <geometry> of other than one shape, whose findings need their owner or model,
        count as findings, as does anything the pass meets in a plugin's or a custom element's content
        (which the walk passes over). On a finding, what it found is dropped and the walk decides: a file
        with something to report costs at most one pass more (the pass stops at its first finding)."""
        linted, plain_poses, plain_joints, older = self.linted, self.ctx.plain_poses, self.ctx.plain_joints, self.older
        vetted = self.ctx.vetted
        # (the root is <sdf>, which `parse_file` insists on and the walk does not look at)
        for element in self.document.root.iter():
            tag = element.tag
            if tag not in linted or element in vetted:
                continue  # (most elements: <size>, <lower>, ...; and most linted ones the parse read: `vetted`)
            if tag == "pose":  # (never the root: its owner is not None)
                if element in plain_poses:
                    if older and element.keys():
                        return False
                elif element.keys() or not _turns_less_than_once(text_of(element)):
                    return False
            elif tag in _NAME_ONLY or (tag == "joint" and element in plain_joints):
                name = element.get("name")
                if name is not None and not name.strip():
                    return False
            elif tag == "geometry":
                if len(element) != 1 or element[0].tag not in _SHAPE_TAGS:
                    return False
            elif tag in _ATTRIBUTES_ONLY and not element.keys():
                continue  # (an old file's <xyz>, <inertial>, <include>: `element` looks only at attributes)
            else:  # a model, frame, plugin, sensor, joint, or in an old file an element with too new attributes
                self.element(element, None, None)
                # looked at whole, as the walk does in a link or a joint and in a model or a world: what finds
                # nothing so finds nothing wherever it is
                if tag == "sensor":
                    self.sensor(element)
                elif tag == "joint":
                    self.joint(element)
                if self.found:
                    return False
        return True

    def element(self, element, parent, scope) -> None:
        """What there is to say about a linted element (a <geometry> of a shape: `run` looks at it itself)."""
        tag = element.tag
        if tag in NAMED:
            name = element.get("name")
            if name is not None and not name.strip():
                self.empty_name(element)
        for attribute in element.keys() if self.older and tag in _SINCE_TAGS else ():  # (attrib makes a dict)
            since = SINCE.get((tag, attribute))
            if since is not None and self.version < since:
                self.add(
                    Severity.WARNING,
                    "sdf-newer-than-version",
                    f"{_label(element)} uses @{attribute}, which SDF {_version_text(since)} introduced, in a file "
                    f"that declares SDF {_version_text(self.version)}; libsdformat 16 reads it, older versions "
                    "ignore it",
                    element,
                    f'declare <sdf version="{_version_text(since)}"> or later',
                )
        if tag == "pose" and parent is not None:
            self.pose(element, parent, scope)
        elif tag == "plugin":
            self.plugin(element)
        elif tag == "sensor" and parent is not None and parent.tag in ("link", "joint"):
            self.sensor(element)
        elif tag == "joint" and parent is not None and parent.tag in ("model", "world"):
            self.joint(element)

    # -- the document ------------------------------------------------------------------------
    def document_content(self, root) -> None:
        kinds = ("world", "model", "actor", "light", "include", "plugin")
        if not any(child.tag in kinds for child in root):
            self.add(
                Severity.WARNING,
                "sdf-empty-document",
                "<sdf> holds no <world>, <model>, <actor>, <light>, <include> or <plugin>: there is nothing to load",
                root,
                'add a <model name="..."> or a <world name="...">',
            )

    def empty_name(self, element) -> None:
        self.add(
            Severity.ERROR,
            "sdf-empty-name",
            f"a <{element.tag}> has an empty name; nothing can refer to it and simulators tell "
            f"{element.tag}s apart by name",
            element,
            f'give the <{element.tag}> a name="..." unique among its siblings',
        )

    # -- poses -------------------------------------------------------------------------------
    def pose(self, element, parent, scope) -> None:
        text = text_of(element)
        if not element.keys():  # the common pose: no attributes, so roll, pitch and yaw in radians and no frame
            if not _turns_less_than_once(text):
                values = _numbers(text)
                if values is not None and len(values) == 6:
                    self.angles(element, parent, values[3:], False)
            return
        rotation_format = element.get("rotation_format", "euler_rpy").strip()
        degrees = (element.get("degrees") or "").strip().lower() in ("true", "1")
        if rotation_format == "euler_rpy" and not degrees and _turns_less_than_once(text):
            values = None  # the common pose: nothing `angles` could report
        else:
            values = _numbers(text)
        if values is not None and rotation_format == "quat_xyzw" and len(values) == 7:
            norm = math.sqrt(sum(v * v for v in values[3:]))
            if norm > 0 and abs(norm - 1.0) > UNIT_TOLERANCE:
                self.add(
                    Severity.WARNING,
                    "sdf-quaternion-not-normalized",
                    f"the quaternion of the pose of {_label(parent)} has length {norm:.6g}; libsdformat normalises it",
                    element,
                    "write a unit quaternion qx qy qz qw (divide each by " + f"{norm:.6g})",
                )
        elif values is not None and rotation_format == "euler_rpy" and len(values) == 6:
            self.angles(element, parent, values[3:], degrees)
        relative_to = element.get("relative_to", "").strip()
        if relative_to and scope is not None and parent.tag not in POSES_RESOLVED and not resolves(scope, relative_to):
            kind = "world" if isinstance(scope, WorldDesc) else "model"
            self.add(
                Severity.WARNING,
                "sdf-unresolved-frame",
                f"the pose of {_label(parent)} is relative_to {relative_to!r}, which is not a frame of {kind} "
                f"{scope.name!r}; libsdformat resolves it only when asked, and fails then",
                element,
                did_you_mean(relative_to, _frame_names(scope))
                or (
                    "name a model, joint or frame of the world"
                    if kind == "world"
                    else "name a link, joint, frame or nested model of the model"
                ),
            )

    def angles(self, element, parent, angles: list[float], degrees: bool) -> None:
        if not degrees:  # 90, 45, 22.5: whole or half numbers beyond a turn (radians past 2 pi are rarely round)
            large = [a for a in angles if abs(a) > A_TURN and abs(2 * a - round(2 * a)) < 1e-9]
            if large:
                self.add(
                    Severity.WARNING,
                    "sdf-angle-units",
                    f"the pose of {_label(parent)} has roll/pitch/yaw {' '.join(f'{a:g}' for a in angles)}, read as "
                    f"radians; {large[0]:g} looks like degrees",
                    element,
                    'add degrees="true" to the <pose> (SDF 1.9), or write the angles in radians',
                )
            return
        radian_like = [a for a in angles if abs(a) > 1e-9 and _near_quarter_pi(a)]
        if radian_like and all(abs(a) <= _TWO_PI for a in angles):
            self.add(
                Severity.WARNING,
                "sdf-angle-units",
                f'the pose of {_label(parent)} has degrees="true" but roll/pitch/yaw '
                f"{' '.join(f'{a:g}' for a in angles)}; {radian_like[0]:g} looks like radians",
                element,
                f"write the angles in degrees ({', '.join(f'{math.degrees(a):g}' for a in angles)}), or remove "
                'degrees="true"',
            )

    # -- plugins and sensors -----------------------------------------------------------------
    def plugin(self, element) -> None:
        filename = element.get("filename")
        if filename is not None and not filename.strip():
            self.add(
                Severity.WARNING,
                "sdf-empty-plugin-filename",
                f"{_label(element)} has an empty filename; the simulator has no library to load",
                element,
                'name the plugin\'s library, e.g. filename="gz-sim-joint-state-publisher-system"',
            )
        name = element.get("name")
        if name is not None and not name.strip():
            self.add(
                Severity.WARNING,
                "sdf-empty-plugin-name",
                f"<plugin filename={filename!r}> has an empty name",
                element,
                'give the plugin\'s class name, e.g. name="gz::sim::systems::JointStatePublisher", or drop name=""',
            )

    def sensor(self, element) -> None:
        kind = element.get("type")
        if kind is not None and kind.strip() not in SENSOR_TYPES:
            self.add(
                Severity.ERROR,
                "sdf-unknown-sensor-type",
                f"{_label(element)} has the type {kind!r}, which libsdformat does not know: it rejects the file",
                element,
                did_you_mean(kind.strip(), SENSOR_TYPES) or "use one of " + ", ".join(sorted(SENSOR_TYPES)),
            )
        rate_el = element.find("update_rate")
        if rate_el is None:
            return
        text = text_of(rate_el)
        value = _leading_number(text)
        if value is None or _PLAIN_NUMBER.fullmatch(text) is None or value < 0:
            read = "" if value is None else f" (read as {value:g})"
            self.add(
                Severity.WARNING,
                "sdf-sensor-update-rate",
                f"the update rate of {_label(element)} is {excerpt(text)}{read}; it is a frequency in Hz, >= 0 "
                "(0: as fast as possible)",
                rate_el,
                "write a plain non-negative number such as 30",
            )

    # -- joints ------------------------------------------------------------------------------
    def joint(self, element) -> None:
        kind = (element.get("type") or "").strip().lower()
        for tag in ("axis", "axis2"):
            axis = element.find(tag)
            if axis is None:
                continue
            if kind in AXISLESS_JOINT_TYPES or (tag == "axis2" and kind in ONE_AXIS_JOINT_TYPES):
                self.add(
                    Severity.WARNING,
                    "sdf-axis-ignored",
                    f"{kind} joint {element.get('name')!r} has an <{tag}>, which this joint type does not use",
                    axis,
                    f"remove <{tag}>, or use a joint type that moves about it"
                    + (" (universal, revolute2)" if tag == "axis2" else ""),
                )
                continue
            xyz = axis.find("xyz")
            text = text_of(xyz) if xyz is not None else ""
            values = None if _is_unit_vector(text) else _numbers(text)
            if values is not None and len(values) >= 3:
                norm = math.sqrt(sum(v * v for v in values[:3]))
                if norm > 0 and abs(norm - 1.0) > UNIT_TOLERANCE:
                    self.add(
                        Severity.WARNING,
                        "sdf-axis-not-unit",
                        f"the <{tag}> of {_label(element)} has length {norm:.6g}; libsdformat normalises it",
                        xyz,
                        "write a unit vector, e.g. " + " ".join(f"{v / norm:.6g}" for v in values[:3]),
                    )
            if kind == "continuous" and tag == "axis":
                self.continuous_limits(element, axis)

    def continuous_limits(self, joint, axis) -> None:
        limit = axis.find("limit")
        if limit is None:
            return
        given = {}
        for tag in ("lower", "upper"):
            child = limit.find(tag)
            value = _leading_number(text_of(child)) if child is not None else None
            if value is not None and abs(value) < _NO_LIMIT:
                given[tag] = value
        if given:
            self.add(
                Severity.WARNING,
                "sdf-continuous-with-limits",
                f"continuous joint {joint.get('name')!r} has position limits "
                + ", ".join(f"{k} {v:g}" for k, v in given.items())
                + "; a continuous joint has none, so they are ignored",
                limit,
                'make it type="revolute" to keep the limits, or remove <lower> and <upper>',
            )

    # -- geometry ----------------------------------------------------------------------------
    def geometry(self, element, owner) -> None:
        """A <geometry> holding several shapes or none (`element` looks at one holding one shape no further)."""
        shapes = list(dict.fromkeys(child.tag for child in element if child.tag in GEOMETRY_TAGS))
        if len(shapes) > 1:  # (several <polyline>s make one shape)
            used = min(shapes, key=SHAPE_PRECEDENCE.index)
            self.add(
                Severity.WARNING,
                "sdf-several-shapes",
                f"the <geometry> of {_label(owner)} holds {len(shapes)} shapes ({', '.join(shapes)}); libsdformat "
                f"uses the {used} and ignores the others",
                element,
                f"keep one shape per <geometry>; use another <{owner.tag}> for each other shape",
            )
        elif not shapes:
            others = [child.tag for child in element if isinstance(child.tag, str)]
            what = f" (only {', '.join(f'<{t}>' for t in others)}, not SDF shapes)" if others else ""
            self.add(
                Severity.WARNING,
                "sdf-empty-geometry",
                f"the <geometry> of {_label(owner)} holds no shape{what}; it has nothing to show or collide with",
                element,
                "add a shape such as <box><size>1 1 1</size></box>, or <empty/> if that is intended",
            )


def _near_quarter_pi(angle: float) -> bool:
    """Close to a multiple of pi/4 (0.785, 1.571, 3.142, ...): an angle written in radians."""
    quarters = abs(angle) / (math.pi / 4)
    return round(quarters) >= 1 and abs(abs(angle) - round(quarters) * math.pi / 4) < 2e-3 and angle != round(angle)


def _frame_names(scope: ModelDesc | WorldDesc) -> list[str]:
    names = [item.name for items in (scope.models, scope.joints, scope.frames) for item in items]
    if isinstance(scope, ModelDesc):
        names += [link.name for link in scope.links]
    return names


def lint(ctx: FileContext) -> None:
    """Add the reader's diagnostics about the raw XML of a parsed file to `ctx.diagnostics`.

    A crash here is a bug in robodesc's SDF reader and is not caught: the plugin manager reports it
    as a crash of the reader, never as something wrong with the file.
    """
    _Lint(ctx).run()


# =====================================================================================================
# The hook's half: the loaded model
# =====================================================================================================


def _inertial_defaults(body: Body) -> tuple[str, ...]:
    """What of the body's mass properties the reader filled in with libsdformat's defaults."""
    return (body.extras.get("sdf") or {}).get("inertial_defaults") or ()


def check_loaded(model: Model) -> list[Diagnostic]:
    """The SDF findings that need the loaded model (the hook `robodesc_checks` returns them)."""
    return list(_inertials(model))


def _inertials(model: Model) -> Iterator[Diagnostic]:
    moving = moving_bodies(model, carried=True)  # not static, and free or below a joint that moves
    jointed = {j.parent for j in model.joints.values()} | {j.child for j in model.joints.values()}
    defaulted: dict[tuple, list] = {}  # one finding per <link> written, however often its model is included
    for body in model.bodies.values():
        if body.name not in moving:
            continue
        defaults = _inertial_defaults(body)
        # A partial <inertial> always; no <inertial> at all only on a part (shapes) of a mechanism (joints):
        # a lone free body or a bare frame-like link without one is common and deliberate.
        partial = defaults and len(defaults) == 1
        bare = defaults and not partial and (body.collisions or body.visuals) and body.name in jointed
        if partial or bare:
            where = body.location
            defaulted.setdefault((where.file, where.line, where.element), []).append(body)
        inertial = body.inertial
        if body.floating and inertial is not None and inertial.mass == 0:
            yield Diagnostic(
                Severity.WARNING,
                "sdf-massless-free-link",
                f"link {body.name!r} moves freely (no joint holds it, its model is not static) but has mass 0",
                body.location,
                "give it a positive mass and inertia, or make its model <static>true</static>",
            )
    given = {"mass": "mass 1 kg", "inertia": "inertia ixx = iyy = izz = 1 kg m^2"}
    for bodies in defaulted.values():
        body, defaults = bodies[0], _inertial_defaults(bodies[0])
        what = f"an <inertial> without <{defaults[0]}>" if len(defaults) == 1 else "no <inertial>"
        also = f" (and {len(bodies) - 1} more instances of this link)" if len(bodies) > 1 else ""
        yield Diagnostic(
            Severity.WARNING,
            "sdf-default-inertia",
            f"link {body.name!r}{also} moves but has {what}; libsdformat gives it "
            + " and ".join(given[tag] for tag in defaults)
            + ", which rarely fits the part",
            body.location,
            'give <inertial> its <mass> and <inertia>, or write <inertial auto="true"> (SDF 1.11) to compute them '
            "from the collisions",
        )


__all__ = ["SENSOR_TYPES", "check_loaded", "lint", "resolves"]
