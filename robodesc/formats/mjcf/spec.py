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
from collections.abc import Collection, Iterator
from functools import partial
from typing import Any

import numpy as np

from ...core.diagnostics import Severity
from ...core.errors import (
    CyclicInclude,
    DuplicateName,
    InvalidValue,
    MissingAttribute,
    RobodescError,
    UnresolvedReference,
    did_you_mean,
)
from ...core.resources import ELEMENTS_VARIABLE, max_elements
from ...core.transforms import IDENTITY, euler_to_quat, make_pose, quat_to_matrix
from ...core.walk import Step, run
from ..xml import Document, Element
from .attributes import Attributes
from .checks import listing
from .elements import read_geom, read_inertial, read_joint, read_site
from .engine import note_engine_refusals
from .flexcomp import check_held, flexcomp_bodies
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

#: Model-level sections kept as written.
_MODEL_EXTRAS = {"option", "size", "visual", "statistic", "custom", "contact", "tendon", "sensor", "extension",
                 "deformable"}  # fmt: skip
#: Sections whose attributes may name a body (a body they name is not fused by fusestatic).
_REFERRING_SECTIONS = ("sensor", "equality", "actuator", "contact", "tendon", "keyframe", "custom")
#: How many qpos numbers each joint type has.
_QPOS_SIZE = {"free": 7, "ball": 4, "slide": 1, "hinge": 1}
#: How many degrees of freedom each joint type has.
_DOFS = {"free": 6, "ball": 3, "slide": 1, "hinge": 1}


def read_spec(state: LoadState, document: Document) -> ModelSpec:
    """The spec of the main file `document` (and of everything it includes and attaches)."""
    root = document.root
    name = root.get("model", "MuJoCo Model")
    main = prepare_file(state, document)
    state.prepared_main = main
    read = Attributes(state, main)
    world = BodySpec("world", IDENTITY.copy(), None, read.where(root))
    spec = ModelSpec(name=name, source=state.context.source, compiler=main.compiler, world=world)
    walker = _Walker(read, spec)
    walker.adopt(main)
    _check_expansion(walker, root)
    for worldbody in children(root, "worldbody"):
        run(walker.children(worldbody, world, "world", IDENTITY, None))
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
    spec.keyframes.extend(spec.attached_keys)  # MuJoCo: the file's own keyframes, then attached ones
    _name_keyframes(spec.keyframes)
    if spec.compiler.fusestatic:
        spec.referenced = {
            value
            for section in root
            if section.tag in _REFERRING_SECTIONS
            for element in section.iter()
            for key, value in element.attrib.items()
            if key != "name"
        }
    check_held(world, spec.unheld_flexes)
    note_engine_refusals(read, root, spec)
    _report_ignored(state)
    spec.diagnostics = state.diagnostics
    return spec


#: What the qpos layout of a file reads next (_Walker._layout): an element, whether it is read itself or
#: its children, the trail, the childclass in force, the walker reading it, the attach chain.
_Pending = tuple[Element, bool, tuple, "str | None", "_Walker", tuple]


class _Walker:
    """Walks the body tree of one file (the main file, or a sub-model being attached)."""

    def __init__(self, read: Attributes, spec: ModelSpec) -> None:
        self.read = read
        self.spec = spec
        #: ids of the <attach>es and (<replicate>, copy)s being read through (see JointSpec.trail)
        self.trail: tuple = ()
        #: a self-attachment copies what is read before it: the walk ends at this <attach>
        self.stop: Element | None = None
        self.stopped = False
        #: for a walker of the keyframe layout, the attach chain down to its file (None: the body walk's)
        self.chain: tuple | None = None

    def adopt(self, scope: FileScope) -> None:
        """A newly prepared file's named materials and kept assets join the model."""
        self.spec.materials.update(scope.model_materials)
        self.spec.extras.extend(scope.extras)

    # -- the body tree ----------------------------------------------------------------------
    # The walk is made of steps (core.walk): a step yields the steps it nests, so that a tree nested
    # hundreds of levels deep is read without Python recursion.
    def children(
        self, element: Element, body: BodySpec, parent: str, frame: np.ndarray, active: str | None
    ) -> Step[None]:
        """Read the children of a body (or of a <frame> inside it); `frame` places them in the body;
        `parent` names the body's parent."""
        read, items = self.read, body.items
        for child in list(element):
            if self.stopped or child is self.stop:
                self.stopped = True
                return
            tag = child.tag
            if tag == "body":
                items.append((yield self.body(child, body.name, frame, active)))
                if body.name == "world":  # twist bodies of flexcomps in it follow a top-level body
                    items.extend(self.spec.twist_bodies)
                    self.spec.twist_bodies.clear()
            elif tag == "frame":
                attrs = child.attrib
                inner = read.placed_pose(child, attrs, frame)
                yield self.children(child, body, parent, inner, attrs.get("childclass", active))
            elif tag == "geom":
                items.append(read_geom(read, child, frame, active))
            elif tag == "site":
                attrs = read.defaulted(child, active)
                named = bool(attrs.get("name"))
                items.append(read_site(read, child, attrs, frame, active) if named else read.extra(child, body.name))
            elif tag in ("joint", "freejoint"):
                if body.name == "world":
                    raise read.error(
                        InvalidValue,
                        child,
                        "joints cannot be attached to the world body",
                        construct=tag,
                        suggestion="put the joint in a <body>",
                    )
                joint = read_joint(read, child, frame, active)
                joint.trail = (*self.trail, id(child))
                items.append(joint)
            elif tag == "inertial":
                if body.name != "world":
                    body.inertial = read_inertial(read, child)
            elif tag == "replicate":
                yield self.replicate(child, body, parent, frame, active)
            elif tag == "attach":
                yield self.attach(child, body, parent, frame)
            elif tag == "flexcomp":
                generated_bodies, held, twists = flexcomp_bodies(read, child, body, frame, active)
                if not held:
                    self.spec.unheld_flexes.append((body.name, partial(read.error, InvalidValue, child)))
                for generated in generated_bodies + twists:
                    for item in generated.items:
                        if isinstance(item, JointSpec):
                            item.trail = (*self.trail, id(child), item.name)
                items.extend(generated_bodies)
                (items if body.name == "world" else self.spec.twist_bodies).extend(twists)
                items.append(read.extra(child, body.name))  # its flex (elements, elasticity, contact) as written
            elif tag in ("camera", "light"):
                extra = read.extra(child, body.name)
                extra.attributes = dict(read.defaulted(child, active))
                items.append(extra)
            else:  # composite, plugin, ...
                items.append(read.extra(child, body.name))
                read.state.diagnose(
                    Severity.WARNING,
                    "not-modelled",
                    f"<{tag}> is kept as written but not compiled into the model",
                    read.where(child),
                )

    def body(self, element: Element, parent: str, frame: np.ndarray, active: str | None) -> Step[BodySpec]:
        read = self.read
        attrs = element.attrib
        name = read.name(attrs, "body")
        names = read.state.body_names
        read.unique(element, name, "body", names)
        written, pose = read.poses(element, attrs, frame)
        body = BodySpec(name, pose, written, read.where(element), plain_pose=frame is IDENTITY)
        names.add(name)
        # its children are read in this step (`yield from`: one level of delegation, however deep the
        # tree), which is one step of the walk per body instead of two (each finished step costs `run`
        # a StopIteration); a nested body is still a step of its own, yielded by `children`
        yield from self.children(element, body, parent, IDENTITY, attrs.get("childclass", active))
        kinds = [item.kind for item in body.items if isinstance(item, JointSpec)]
        if len(kinds) > 1:  # (one joint has at most 6 dofs and nothing after it)
            _check_joint_sequence(read, element, name, kinds)
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

    def replicate(
        self, element: Element, body: BodySpec, parent: str, frame: np.ndarray, active: str | None
    ) -> Step[None]:
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
        outer, outer_trail = read.suffix, self.trail
        placement = IDENTITY
        try:
            for index in range(count):
                read.suffix = f"{sep}{index:0{width}d}{outer}"
                self.trail = (*outer_trail, (id(element), index))
                yield self.children(element, body, parent, frame @ placement, active)
                placement = placement @ step
        finally:
            read.suffix, self.trail = outer, outer_trail

    def attach(self, element: Element, body: BodySpec, parent: str, frame: np.ndarray) -> Step[None]:
        """<attach model body|frame prefix>: graft a body subtree, the contents of a ``<frame>``, or
        (neither given) the whole ``<worldbody>`` of an ``<asset><model>`` file, names prefixed.
        Without `model` the source is this file itself (MuJoCo's self-attachment: of what is read
        before the attach).

        A sub-model is read with its own compiler settings and default classes; what is grafted
        keeps its pose relative to its old parent (a frame's own pose included), now relative to the
        attachment point. The sub-model's keyframes join the model's, renamed with the prefix.
        """
        read = self.read
        state = read.state
        attrs = element.attrib
        model_name, body_name, frame_name = attrs.get("model"), attrs.get("body"), attrs.get("frame")
        read.require(
            "prefix" in attrs,
            MissingAttribute,
            element,
            "required attribute missing: 'prefix'",
            construct="attach/@prefix",
            suggestion='add prefix="..." (it is put before every attached name)',
        )
        if model_name is None:
            scope: FileScope = read.scope
            source = scope.document
        else:
            submodels = read.scope.submodels
            found = submodels.get(model_name)
            if found is None:
                raise read.error(
                    UnresolvedReference,
                    element,
                    f"unknown model {model_name!r} in attach",
                    construct=model_name,
                    suggestion=did_you_mean(model_name, submodels) or "declare it as <asset><model name=... file=...>",
                )
            source = found
        key = (source.source or model_name or "", body_name or frame_name or "")
        if model_name is not None:
            _check_cycle(read, element, key, state.attaching)
        prefix = read.prefix + attrs.get("prefix", "")
        if model_name is not None:
            # keyed by the parsed file, not by the asset name: two files may each name a sub-model "arm"
            scope = self.scope_of(source, prefix)
        root = scope.document.root
        stop = element if model_name is None else None
        target = _attach_target(read, element, root, body_name, frame_name, stop, model_name)
        walker = _Walker(Attributes(state, scope, prefix, read.suffix), self.spec)
        walker.trail = (*self.trail, id(element))
        walker.stop = stop
        first = model_name is not None and not state.attaching and id(element) not in state.attached
        state.attaching[key] = None
        try:
            if first:  # a replicated attach brings its keyframes once, for copy 0
                state.attached.add(id(element))
                self.spec.attached_keys.extend((yield walker.file_keyframes(root)))
            if target is None:  # the whole model
                for worldbody in children(root, "worldbody"):
                    yield walker.children(worldbody, body, parent, frame, None)
            elif target.tag == "body":
                body.items.append((yield walker.body(target, body.name, frame, _childclass_above(root, target))))
            else:
                above = _childclass_above(root, target)
                inner = walker.read.placed_pose(target, target.attrib, frame)
                yield walker.children(target, body, parent, inner, target.get("childclass", above))
        finally:
            state.attaching.popitem()

    def scope_of(self, source: Document, prefix: str) -> FileScope:
        """The prepared scope of a sub-model file (prepared once per load, its assets adopted then)."""
        state = self.read.state
        scope = state.prepared.get(id(source))
        if scope is None:  # compiler, defaults and assets of a sub-model are read once per load
            scope = state.prepared[id(source)] = prepare_file(state, source, prefix)
            self.adopt(scope)
            _note_option_conflicts(self.read, scope)
        return scope

    # -- how large the body tree grows --------------------------------------------------------------
    def expanded(self, element: Element, sizes: dict[int, int], limit: int, chain: tuple = ()) -> Step[int]:
        """How many elements `element` and what it holds become once replicates and attaches are
        expanded (a step of core.walk: files attaching files are followed without recursion).

        Each element is measured once (`sizes`, by element), so a file attached many times, or
        files that each attach the next twice, cost their own size, not what they expand to. An
        expansion past `limit` is refused at its element. What the body walk refuses (an unknown
        model or body, an attach cycle) counts as nothing here and is refused there, in order;
        `chain` holds the (file, body or frame) attaches being measured, as the body walk's does.
        """
        key = id(element)
        if key in sizes:
            return sizes[key]
        sizes[key] = 0  # while measured: an attach cycle adds nothing (the body walk refuses it)
        read, tag = self.read, element.tag
        if tag == "attach":
            size = 1 + (yield self._attached_size(element, sizes, limit, chain))
        else:
            inner = 0
            for child in element:
                if len(child) or child.tag in ("attach", "replicate"):
                    inner += yield self.expanded(child, sizes, limit, chain)
                else:  # a leaf (most elements) is itself, without a step of its own
                    inner += 1
            if tag == "replicate":  # each copy costs a pass, even an empty one
                size = 1 + max(inner, 1) * _whole(element.get("count"))
            else:
                size = 1 + inner
        if size > limit and tag in ("attach", "replicate"):
            raise read.error(
                InvalidValue,
                element,
                f"this <{tag}> expands to {size:,} elements, more than the limit of {limit:,}",
                construct=tag,
                suggestion=f"if the model is right, raise the limit: {ELEMENTS_VARIABLE}=N "
                "(attaches and replicates inside one another multiply)",
            )
        sizes[key] = size
        return size

    def _attached_size(self, element: Element, sizes: dict[int, int], limit: int, chain: tuple) -> Step[int]:
        """How many elements an <attach> grafts, expanded (0 where the body walk will refuse it)."""
        read, model_name = self.read, element.get("model")
        try:
            if model_name is None:  # a self-attachment copies part of what is already being read
                target = _attach_target(read, element, read.scope.document.root, *_attach_names(element), element, None)
                return 0 if target is None else sum(1 for _ in target.iter())
            source = read.scope.submodels.get(model_name)
            key = (source.source or model_name, element.get("body") or element.get("frame") or "") if source else None
            if source is None or key in chain:
                return 0
            chain = (*chain, key)
            prefix = read.prefix + element.get("prefix", "")
            scope = self.scope_of(source, prefix)
            root = scope.document.root
            target = _attach_target(read, element, root, *_attach_names(element), None, model_name)
        except RobodescError:
            return 0
        walker = _Walker(Attributes(read.state, scope, prefix, read.suffix), self.spec)
        if target is None:
            parts = [child for worldbody in children(root, "worldbody") for child in worldbody]
        else:
            parts = [target] if target.tag == "body" else list(target)
        total = 0
        for part in parts:
            total += yield walker.expanded(part, sizes, limit, chain)
        return total

    # -- an attached file's keyframes ---------------------------------------------------------------
    def file_keyframes(self, root: Element) -> Step[list[KeyframeSpec]]:
        """The keyframes of the file of this walker (an attached one) as MuJoCo attaches them: its own,
        then those of the files it attaches, each naming its joints by their trail (its qpos is in
        the order of that file's own joints); names get the prefix.

        A keyframe's qpos is matched with the file's joints only as far as it goes, so a chain of
        files attaching one another costs what is written in them, not the chain's length squared.
        """
        read = self.read
        keys: list[KeyframeSpec] = []
        written = [key for keyframe in children(root, "keyframe") for key in keyframe]
        layout = (slot for kind, slot in self._layout(root, whole=True) if kind == "joint")
        slots: list[tuple[tuple, int]] = []  # the file's joints in qpos order, as far as a keyframe needed
        total = 0
        for key in written:
            qpos = read.floats(key, key.attrib, "qpos", None, [])
            name = read.prefix + key.get("name", "")
            while total < len(qpos) and (slot := next(layout, None)) is not None:
                slots.append(slot)
                total += slot[1]
            _check_qpos_size(read, key, name, len(qpos), total)
            values: dict[tuple, list[float]] = {}
            start = 0
            for trail, size in slots:
                if start >= len(qpos):
                    break
                values[trail] = list(qpos[start : start + size])
                start += size
            keys.append(KeyframeSpec(name, [], values, read.where(key)))
            self.spec.extras.append(read.extra(key, None))
        for kind, (walker, nested_root) in self._layout(root, whole=False):
            if kind == "attach":
                keys.extend((yield walker.file_keyframes(nested_root)))
        return keys

    def _layout(self, root: Element, whole: bool) -> Iterator[tuple[str, Any]]:
        """This walker's file in its qpos order: with `whole`, ("joint", (trail, qpos size)) for every
        joint, those of the files it attaches included, every replicate copy; without, ("attach",
        (walker, root)) for each file it attaches itself (first copies only), with a walker placed
        as the body walk places it. Lazily, so a caller stops when it has what it needs."""
        # an explicit stack, popped in document order
        stack: list[_Pending] = [
            (worldbody, False, self.trail, None, self, self.chain or tuple(self.read.state.attaching))
            for worldbody in reversed(list(children(root, "worldbody")))
        ]
        while stack:
            element, itself, trail, active, walker, chain = stack.pop()
            reader, pending = walker.read, []
            for child in [element] if itself else element:
                tag = child.tag
                if tag in ("joint", "freejoint") and whole:
                    attrs = child.attrib if tag == "freejoint" else reader.defaulted(child, active)
                    kind = "free" if tag == "freejoint" else attrs.get("type", "hinge")
                    yield "joint", ((*trail, id(child)), _QPOS_SIZE.get(kind, 1))
                elif tag in ("body", "frame"):
                    pending.append((child, False, trail, child.get("childclass", active), walker, chain))
                elif tag == "replicate":
                    count = reader.integer(child, child.attrib, "count", 0)  # within the element limit
                    copies = range(count) if whole else range(min(count, 1))
                    pending.extend((child, False, (*trail, (id(child), i)), active, walker, chain) for i in copies)
                elif tag == "attach" and child.get("model") is not None and (whole or walker is self):
                    inner, inner_root, contents = self._nested(walker, child, trail, chain)
                    if walker is self and not whole and inner is not None:
                        yield "attach", (inner, inner_root)
                    if whole:
                        pending.extend(contents)
            stack.extend(reversed(pending))

    def _nested(
        self, walker: _Walker, element: Element, trail: tuple, chain: tuple
    ) -> tuple[_Walker | None, Element | None, list[_Pending]]:
        """A file attached inside this walker's file: its walker, its root, and what the layout reads of it."""
        reader = walker.read
        source = reader.scope.submodels.get(element.get("model", ""))
        if source is None:
            return None, None, []  # refused where the body walk meets it
        body, frame = element.get("body"), element.get("frame")
        key = (source.source or element.get("model", ""), body or frame or "")
        _check_cycle(reader, element, key, chain)
        chain = (*chain, key)
        prefix = reader.prefix + element.get("prefix", "")
        scope = self.scope_of(source, prefix)
        inner = _Walker(Attributes(reader.state, scope, prefix), self.spec)
        inner.trail = (*trail, id(element))
        inner.chain = chain
        root = scope.document.root
        target = _attach_target(reader, element, root, body, frame, None, element.get("model"))
        contents: list[_Pending]
        if target is None:
            contents = [(w, False, inner.trail, None, inner, chain) for w in children(root, "worldbody")]
        elif target.tag == "frame":
            above = _childclass_above(root, target)
            contents = [(target, False, inner.trail, target.get("childclass", above), inner, chain)]
        else:
            contents = [(target, True, inner.trail, _childclass_above(root, target), inner, chain)]
        return inner, root, contents

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
        """The main file's keyframes become named configurations. As in MuJoCo, a qpos shorter than the
        model's is completed (by the build stage) with the joints' reference values; a longer one is
        an error. Its qpos covers every joint, those attached from other files too."""
        read, spec = self.read, self.spec
        size = sum(_QPOS_SIZE[joint.kind] for joint in _joints(spec.world))
        for key in element:
            qpos = read.floats(key, key.attrib, "qpos", None, [])
            name = key.get("name", "")
            _check_qpos_size(read, key, name, len(qpos), size)
            spec.keyframes.append(KeyframeSpec(name, qpos, None, read.where(key)))
            spec.extras.append(read.extra(key, None))


def _check_joint_sequence(read: Attributes, element: Element, name: str, kinds: list[str]) -> None:
    """MuJoCo's rules for several joints in one body: at most 6 degrees of freedom, and no hinge or
    ball after a ball joint (a slide may follow it)."""
    read.require(
        sum(_DOFS[kind] for kind in kinds) <= 6,
        InvalidValue,
        element,
        f"more than 6 dofs in body {name!r}",
        construct=name,
        suggestion="split the joints over nested bodies",
    )
    after_ball = kinds[kinds.index("ball") + 1 :] if "ball" in kinds else []
    read.require(
        not any(kind in ("ball", "hinge") for kind in after_ball),
        InvalidValue,
        element,
        f"ball followed by rotation in body {name!r}",
        construct=name,
        suggestion="put the hinge before the ball joint, or in a body of its own",
    )


def _check_qpos_size(read: Attributes, key: Element, name: str, given: int, size: int) -> None:
    """MuJoCo's rule: a keyframe's qpos has at most the model's (or its file's) qpos size."""
    if given > size:
        raise read.error(
            InvalidValue,
            key,
            f"keyframe {name!r}: invalid qpos size, expected at most {size}, got {given}",
            construct="key/@qpos",
            suggestion="give one value per joint coordinate, in the order the joints appear",
        )


def _name_keyframes(keyframes: list[KeyframeSpec]) -> None:
    """Names as MuJoCo's: a repeated name is an error; an unnamed keyframe (MuJoCo's "") is called
    ``key<N>``, N its index among all of them (MuJoCo's key id), unless a named one is called so."""
    taken: set[str] = set()
    for keyframe in keyframes:
        if keyframe.name:
            location = keyframe.location
            if keyframe.name in taken and location is not None:
                raise DuplicateName(
                    f"repeated name {keyframe.name!r} in key",
                    location=location,
                    construct=keyframe.name,
                    suggestion="give each keyframe its own name (an attached model's keyframes get the attach prefix)",
                )
            taken.add(keyframe.name)
    for index, keyframe in enumerate(keyframes):
        if not keyframe.name:
            name = f"key{index}"
            keyframe.name = name if name not in taken else f"<unnamed key {index}>"
            taken.add(keyframe.name)


def _joints(body: BodySpec) -> list[JointSpec]:
    """The joints of a body tree in document order (MuJoCo's joint and qpos order)."""
    found: list[JointSpec] = []
    pending = [iter(body.items)]  # the items still to read of each body being read
    while pending:
        item = next(pending[-1], None)
        if item is None:
            pending.pop()
        elif isinstance(item, JointSpec):
            found.append(item)
        elif isinstance(item, BodySpec):
            pending.append(iter(item.items))
    return found


def _check_expansion(walker: _Walker, root: Element) -> None:
    """Refuse, before anything is built, a body tree that expands past the element limit."""
    limit = max_elements()
    sizes: dict[int, int] = {}
    for worldbody in children(root, "worldbody"):
        if next(worldbody.iter("replicate"), None) is None and next(worldbody.iter("attach"), None) is None:
            total = len(list(worldbody.iter()))  # nothing copied (most files): `expanded` counts each element once
        else:
            total = run(walker.expanded(worldbody, sizes, limit))
        if total > limit:
            raise walker.read.error(
                InvalidValue,
                worldbody,
                f"the body tree expands to {total:,} elements, more than the limit of {limit:,}",
                construct="worldbody",
                suggestion=f"if the model is right, raise the limit: {ELEMENTS_VARIABLE}=N",
            )


def _whole(text: str | None) -> int:
    """A replicate count as far as measuring needs it (the body walk checks it properly)."""
    try:
        return max(int(text or "1"), 0)
    except ValueError:
        return 1


def _attach_names(element: Element) -> tuple[str | None, str | None]:
    return element.get("body"), element.get("frame")


def _check_cycle(read: Attributes, element: Element, key: tuple, chain: Collection[tuple]) -> None:
    """An attach of (file, body or frame) already being attached is a cycle."""
    if key in chain:
        names = " -> ".join(f"{os.path.basename(f)}:{b}" for f, b in [*chain, key])
        model = element.get("model")
        raise read.error(
            CyclicInclude,
            element,
            f"attaching {key[1]!r} of model {model!r} attaches it again, without end: {names}",
            construct=model,
            suggestion="a sub-model cannot attach a body it is itself attached from",
        )


def _attach_target(
    read: Attributes,
    element: Element,
    root: Element,
    body: str | None,
    frame: str | None,
    stop: Element | None,
    model: str | None,
) -> Element | None:
    """What an <attach> grafts: the named body or frame of the source file (for a self-attachment,
    one read before the attach, as MuJoCo finds it), or None for the whole model."""
    if body is None and frame is None:
        read.require(
            model is not None,
            MissingAttribute,
            element,
            "an attach without model needs a body or a frame of this file",
            construct="attach/@model",
            suggestion='add model="..." or body="..."',
        )
        return None
    tag, name = ("body", body) if body is not None else ("frame", frame)
    for candidate in root.iter():
        if candidate is stop:
            break
        if candidate.tag == tag and candidate.get("name") == name:
            return candidate
    where = "in the current model for self-attachment" if model is None else f"in model asset {model!r}"
    raise read.error(
        UnresolvedReference,
        element,
        f"could not find {tag} {name!r} {where}",
        construct=name,
        suggestion="a self-attachment copies a body or frame written before it" if model is None else None,
    )


#: MuJoCo 4.0's <option> values (attribute -> default as MuJoCo prints it) that an attached model
#: may not change: the parent's value is kept, with a warning.
_OPTION_DEFAULTS = {
    "timestep": "0.002", "impratio": "1", "tolerance": "1e-08", "ls_tolerance": "0.01",
    "noslip_tolerance": "1e-06", "ccd_tolerance": "1e-06", "gravity": "0 0 -9.81", "wind": "0 0 0",
    "magnetic": "0 -0.5 0", "density": "0", "viscosity": "0", "o_margin": "0", "o_solref": "0.02 1",
    "o_solimp": "0.9 0.95 0.001 0.5 2", "o_friction": "1 1 0.005 0.0001 0.0001", "integrator": "Euler",
    "cone": "pyramidal", "jacobian": "auto", "solver": "Newton", "iterations": "100", "ls_iterations": "50",
    "noslip_iterations": "0", "ccd_iterations": "35", "sdf_iterations": "10", "sdf_initpoints": "40",
}  # fmt: skip


def _option_values(read: Attributes, root: Element) -> dict[str, tuple[str, bool]]:
    """A file's <option> values in force: attribute -> (value as written, whether written)."""
    values = {name: (default, False) for name, default in _OPTION_DEFAULTS.items()}
    for option in children(root, "option"):
        for name, text in option.attrib.items():
            if name in _OPTION_DEFAULTS and text.strip():
                values[name] = (text, True)
    return values


def _same_option(first: str, second: str) -> bool:
    try:
        return [float(v) for v in first.split()] == [float(v) for v in second.split()]
    except ValueError:
        return first.strip() == second.strip()


def _note_option_conflicts(read: Attributes, scope: FileScope) -> None:
    """MuJoCo's attach conflicts: an attached file whose <option> sets a value the parent has
    otherwise keeps the parent's, with a warning (what MuJoCo prints), located at the child's <option>."""
    main = read.state.prepared_main
    if main is None:
        return
    parent = _option_values(read, main.document.root)
    child_root = scope.document.root
    options = list(children(child_root, "option"))
    for name, (value, written) in _option_values(read, child_root).items():
        mine, mine_written = parent[name]
        if written and not _same_option(value, mine):
            option = next(o for o in reversed(options) if o.get(name, "").strip())
            model = child_root.get("model", "MuJoCo Model")
            into = main.document.root.get("model")
            read.state.diagnose(
                Severity.WARNING,
                "attach-conflict",
                f"attach conflict when attaching {model!r}{f' to {into!r}' if into else ''}: {name}: parent has {mine}"
                f"{'' if mine_written else ' (default)'}, child has {value}, keeping parent value",
                Attributes(read.state, scope).where(option),
                f"set {name} in the parent model's <option>, or give both the same value",
            )


def _childclass_above(root: Element, target: Element) -> str | None:
    """The childclass in force at `target` (a body deep in a sub-model's tree), if any."""
    pending: list[tuple[Element, str | None]] = [(root, None)]  # elements to look in, with the class in force
    while pending:
        node, active = pending.pop()
        for child in node:
            if child is target:
                return active
            pending.append((child, child.get("childclass", active) if child.tag in ("body", "frame") else active))
    return None


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
