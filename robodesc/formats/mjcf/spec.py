"""The spec stage: an MJCF document into a `ModelSpec` (records.py), the way MuJoCo's parser fills
its ``mjSpec``.

`prepare_file` (prepare.py) splices includes, checks the schema and reads compiler settings,
default classes and assets. Then `read_spec` walks ``<worldbody>``: ``<frame>``s vanish into the
poses of what they hold, ``<replicate>`` copies its contents (names suffixed as MuJoCo suffixes
them), ``<attach>`` grafts a body of a sub-model read with its own file's settings, and every
joint, geom, site and inertial becomes a record (elements.py). The model-level sections follow:
equalities, actuators, keyframes, and what robodesc keeps as written.

Everything MuJoCo refuses is refused here, in document order, with the element's location; the
stages after this one only assemble and compute.
"""

from __future__ import annotations

import os

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import CyclicInclude, InvalidValue, UnresolvedReference, did_you_mean
from ...core.transforms import IDENTITY, euler_to_quat, make_pose, quat_to_matrix
from ..xml import Document, Element
from .attributes import Attributes
from .checks import listing
from .elements import read_geom, read_inertial, read_joint, read_site
from .prepare import children, prepare_file
from .records import (
    ActuatorSpec,
    BodySpec,
    EqualitySpec,
    JointSpec,
    KeyframeSpec,
    ModelSpec,
)
from .state import FileScope, LoadState

#: At most this many elements come out of <replicate>s (counts multiply when replicates nest): a guard
#: against a count that would take minutes and gigabytes to expand.
MAX_REPLICATED = 20_000
#: Model-level sections kept as written.
_MODEL_EXTRAS = {"option", "size", "visual", "statistic", "custom", "contact", "tendon", "sensor", "extension",
                 "deformable"}  # fmt: skip
#: Sections whose attributes may name a body (a body they name is not fused by fusestatic).
_REFERRING_SECTIONS = ("sensor", "equality", "actuator", "contact", "tendon", "keyframe", "custom")
#: How many qpos numbers each joint type has.
_QPOS_SIZE = {"free": 7, "ball": 4, "slide": 1, "hinge": 1}


def read_spec(state: LoadState, document: Document) -> ModelSpec:
    """The spec of the main file `document` (and of everything it includes and attaches)."""
    root = document.root
    name = root.get("model", "MuJoCo Model")
    main = prepare_file(state, document)
    read = Attributes(state, main)
    world = BodySpec("world", IDENTITY.copy(), None, read.where(root))
    spec = ModelSpec(name=name, source=state.context.source, compiler=main.compiler, world=world)
    walker = _Walker(read, spec)
    walker.adopt(main)
    for worldbody in children(root, "worldbody"):
        walker.children(worldbody, world, "world", IDENTITY, None)
    for child in root:
        tag = child.tag
        if tag == "equality":
            walker.equalities(child)
        elif tag == "actuator":
            walker.actuators(child)
        elif tag == "keyframe":
            walker.keyframes(child)
        elif tag in _MODEL_EXTRAS:
            spec.extras.append(read.extra(child, None))
    if spec.compiler.fusestatic:
        spec.referenced = {
            value
            for section in root
            if section.tag in _REFERRING_SECTIONS
            for element in section.iter()
            for key, value in element.attrib.items()
            if key != "name"
        }
    _report_ignored(state)
    spec.diagnostics = state.diagnostics
    return spec


class _Walker:
    """Walks the body tree of one file (the main file, or a sub-model being attached)."""

    def __init__(self, read: Attributes, spec: ModelSpec, copies: int = 1) -> None:
        self.read = read
        self.spec = spec
        self.copies = copies  # product of the counts of enclosing <replicate>s

    def adopt(self, scope: FileScope) -> None:
        """A newly prepared file's named materials and kept assets join the model."""
        self.spec.materials.update(scope.model_materials)
        self.spec.extras.extend(scope.extras)

    # -- the body tree ----------------------------------------------------------------------
    def children(self, element: Element, body: BodySpec, parent: str, frame: np.ndarray, active: str | None) -> None:
        """Read the children of a body (or of a <frame> inside it); `frame` places them in the body;
        `parent` names the body's parent."""
        read, items = self.read, body.items
        for child in list(element):
            tag = child.tag
            if tag == "body":
                items.append(self.body(child, body.name, frame, active))
            elif tag == "frame":
                attrs = child.attrib
                self.children(child, body, parent, frame @ read.pose(child, attrs), attrs.get("childclass", active))
            elif tag == "geom":
                items.append(read_geom(read, child, frame, active))
            elif tag == "site":
                attrs = read.defaulted(child, active)
                named = bool(attrs.get("name"))
                items.append(read_site(read, child, attrs, frame, active) if named else read.extra(child, body.name))
            elif tag in ("joint", "freejoint"):
                read.require(
                    body.name != "world",
                    InvalidValue,
                    child,
                    "joints cannot be attached to the world body",
                    construct=tag,
                    suggestion="put the joint in a <body>",
                )
                items.append(read_joint(read, child, frame, active))
            elif tag == "inertial":
                if body.name != "world":
                    body.inertial = read_inertial(read, child)
            elif tag == "replicate":
                self.replicate(child, body, parent, frame, active)
            elif tag == "attach":
                items.append(self.attach(child, body.name, frame))
            elif tag in ("camera", "light"):
                extra = read.extra(child, body.name)
                extra.attributes = dict(read.defaulted(child, active))
                items.append(extra)
            else:  # composite, flexcomp, plugin, ...
                items.append(read.extra(child, body.name))
                read.state.diagnose(
                    Severity.WARNING,
                    "not-modelled",
                    f"<{tag}> is kept as written but not compiled into the model",
                    read.where(child),
                )

    def body(self, element: Element, parent: str, frame: np.ndarray, active: str | None) -> BodySpec:
        read = self.read
        attrs = element.attrib
        name = read.name(attrs, "body")
        names = read.state.body_names
        read.unique(element, name, "body", names)
        written = read.pose(element, attrs)
        body = BodySpec(name, frame @ written, written, read.where(element))
        names.add(name)
        self.children(element, body, parent, IDENTITY, attrs.get("childclass", active))
        kinds = [item.kind for item in body.items if isinstance(item, JointSpec)]
        if "free" in kinds:
            read.require(
                parent == "world",
                InvalidValue,
                element,
                "free joint can only be used on top level",
                construct=name,
                suggestion="make the body a child of <worldbody>",
            )
            read.require(
                len(kinds) == 1,
                InvalidValue,
                element,
                "a free joint must be the only joint of its body",
                construct=name,
            )
        return body

    def replicate(self, element: Element, body: BodySpec, parent: str, frame: np.ndarray, active: str | None) -> None:
        """<replicate count offset euler sep>: copy i is placed by the step composed i times.

        Names inside copy i get sep + i (zero-padded to the digits of count) after any suffix
        an inner replicate added, as MuJoCo names them.
        """
        read = self.read
        compiler = read.scope.compiler
        attrs = element.attrib
        count = read.integer(element, attrs, "count", 0)
        read.require(
            count >= 1,
            InvalidValue,
            element,
            "replicate needs count >= 1",
            construct="replicate/@count",
            suggestion='write count="2" or more',
        )
        angles = [compiler.angle(a) for a in read.floats(element, attrs, "euler", 3, [0.0, 0.0, 0.0])]
        step = make_pose(
            quat_to_matrix(euler_to_quat(angles, compiler.eulerseq)),
            read.floats(element, attrs, "offset", 3, [0.0, 0.0, 0.0]),
        )
        sep = attrs.get("sep", "")
        width = len(str(count))
        copies = self.copies * count  # copies of this replicate's contents, counting enclosing replicates
        size = max(1, sum(1 for _ in element.iter()) - 1)  # an empty copy still costs a pass
        if copies * size > MAX_REPLICATED:
            raise read.error(
                InvalidValue,
                element,
                f"replicate count={count} would make {copies * size} elements; robodesc reads at most "
                f"{MAX_REPLICATED} replicated elements",
                construct="replicate/@count",
                suggestion="lower the count (of this replicate or of those around it)",
            )
        outer, outer_copies = read.suffix, self.copies
        placement = IDENTITY
        try:
            self.copies = copies
            for index in range(count):
                read.suffix = f"{sep}{index:0{width}d}{outer}"
                self.children(element, body, parent, frame @ placement, active)
                placement = placement @ step
        finally:
            read.suffix, self.copies = outer, outer_copies

    def attach(self, element: Element, parent: str, frame: np.ndarray) -> BodySpec:
        """<attach model body prefix>: graft a body subtree of an <asset><model> file, names prefixed.

        The sub-model is read with its own compiler settings and default classes; the grafted body
        keeps its pose relative to its old parent, now relative to the attachment point.
        """
        read = self.read
        state = read.state
        attrs = element.attrib
        model_name, body_name = attrs.get("model"), attrs.get("body")
        submodels = read.scope.submodels
        source = submodels.get(model_name) if model_name is not None else None
        if source is None:
            raise read.error(
                UnresolvedReference,
                element,
                f"unknown model {model_name!r} in attach",
                construct=model_name,
                suggestion=did_you_mean(model_name or "", submodels)
                or "declare it as <asset><model name=... file=...>",
            )
        key = (source.source or model_name or "", body_name)
        if key in state.attaching:
            chain = " -> ".join(f"{os.path.basename(f)}:{b}" for f, b in [*state.attaching, key])
            raise read.error(
                CyclicInclude,
                element,
                f"attaching body {body_name!r} of model {model_name!r} attaches it again, without end: {chain}",
                construct=model_name,
                suggestion="a sub-model cannot attach a body it is itself attached from",
            )
        prefix = read.prefix + attrs.get("prefix", "")
        # keyed by the parsed file, not by the asset name: two files may each name a sub-model "arm"
        scope = state.prepared.get(id(source))
        if scope is None:  # compiler, defaults and assets of a sub-model are read once per load
            scope = state.prepared[id(source)] = prepare_file(state, source, prefix)
            self.adopt(scope)
        root = scope.document.root
        target = next((b for b in root.iter("body") if b.get("name") == body_name), None)
        if target is None:
            raise read.error(
                UnresolvedReference, element, f"model {model_name!r} has no body {body_name!r}", construct=body_name
            )
        walker = _Walker(Attributes(state, scope, prefix, read.suffix), self.spec, self.copies)
        state.attaching.append(key)
        try:
            return walker.body(target, parent, frame, _childclass_above(root, target))
        finally:
            state.attaching.pop()

    # -- model-level sections ---------------------------------------------------------------
    def equalities(self, element: Element) -> None:
        read = self.read
        for child in element:
            attrs = read.defaulted(child, None)
            coefficients = None
            if child.tag == "joint":
                written = read.sizes(child, attrs, "polycoef", 5)  # MuJoCo keeps its default for the rest
                coefficients = tuple(written + [0.0, 1.0, 0.0, 0.0, 0.0][len(written) :])
            self.spec.equalities.append(EqualitySpec(child.tag, attrs, coefficients, read.where(child)))

    def actuators(self, element: Element) -> None:
        read = self.read
        for child in element:
            if child.tag == "plugin":
                self.spec.extras.append(read.extra(child, None))
                continue
            attrs = read.defaulted(child, None)
            gear = read.floats(child, attrs, "gear", None, [1.0])
            self.spec.actuators.append(ActuatorSpec(child.tag, attrs, gear, read.where(child)))

    def keyframes(self, element: Element) -> None:
        """Keyframes become named configurations. As in MuJoCo, a qpos shorter than the model's is
        completed (by the build stage) with the joints' reference values; a longer one is an error."""
        read, spec = self.read, self.spec
        size = sum(_QPOS_SIZE[joint.kind] for joint in _joints(spec.world))
        for index, key in enumerate(element):
            qpos = read.floats(key, key.attrib, "qpos", None, [])
            name = key.get("name") or f"key{index}"
            if len(qpos) > size:
                raise read.error(
                    InvalidValue,
                    key,
                    f"keyframe {name!r}: invalid qpos size, expected at most {size}, got {len(qpos)}",
                    construct="key/@qpos",
                    suggestion="give one value per joint coordinate, in the order the joints appear",
                )
            spec.keyframes.append(KeyframeSpec(name, qpos))
            spec.extras.append(read.extra(key, None))


def _joints(body: BodySpec) -> list[JointSpec]:
    """The joints of a body tree in document order (MuJoCo's joint and qpos order)."""
    found: list[JointSpec] = []
    for item in body.items:
        if isinstance(item, JointSpec):
            found.append(item)
        elif isinstance(item, BodySpec):
            found.extend(_joints(item))
    return found


def _childclass_above(root: Element, target: Element) -> str | None:
    """The childclass in force at `target` (a body deep in a sub-model's tree), if any."""

    def walk(node: Element, active: str | None) -> tuple[bool, str | None]:
        """(whether `target` is below `node`, the childclass in force at it)."""
        for child in node:
            if child is target:
                return True, active
            found = walk(child, child.get("childclass", active) if child.tag in ("body", "frame") else active)
            if found[0]:
                return found
        return False, None

    return walk(root, None)[1]


def _report_ignored(state: LoadState) -> None:
    """One `class-attribute-ignored` per class, element kind and attributes, listing the elements."""
    for (name, tag, kind, ignored), elements in state.ignored.items():
        if len(elements) == 1:
            label = elements[0][0]
            whom = f"{kind} {tag} {label}" if label != "unnamed" else f"an unnamed {kind} {tag}"
        else:
            whom = f"{len(elements)} {kind} {tag}s ({listing([label for label, _ in elements])})"
        names = ", ".join(attribute for attribute, _ in ignored)
        reasons = "; ".join(dict.fromkeys(why for _, why in ignored))
        state.diagnose(
            Severity.WARNING,
            "class-attribute-ignored",
            f"default class {name!r} gives {names} to {whom}, which MuJoCo ignores there ({reasons})",
            elements[0][1],
            f"move {names} to a class used only by elements that use it, or give these elements another class",
        )
