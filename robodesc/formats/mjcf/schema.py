"""MuJoCo 4.0's MJCF schema: which elements may appear where, how often, and with which attributes.

MuJoCo validates every model against a schema table before reading it (``mjXSchema::Check`` over
the ``MJCF`` table in ``src/xml``) and refuses the whole file on the first unknown element
("unrecognized element"), unknown attribute ("unrecognized attribute: 'x'"), repeated unique
element or broken presence constraint ("at most one of 'fovy', 'sensorsize' can be specified").
robodesc refuses the same files, so this module carries that table and a checker that walks a
parsed tree the way MuJoCo does.

The table (schema_table.py) is MuJoCo 4.0.0's own, as its compiled library prints it (``mj_printSchema``);
attribute names are sorted, ``(R)`` marks an element that may nest in itself (``<body>``,
``<default>``), ``(?)`` at most once per parent, ``(!)`` exactly once, ``(*)`` any number of
times. The same tag means different things under different parents (a ``<joint>`` in a body, in
a ``<default>``, in ``<equality>``, in ``<tendon><fixed>``), so every element is checked against
its parent's node, never by tag alone. Templates in ``<default>`` have their own rows: no
``name``/``class``, no transmission targets on actuators. tests/test_mjcf_schema.py compares the
table row by row with the installed ``mujoco`` package when there is one. MuJoCo 4.0 also checks a
few presence constraints (`CONSTRAINTS`: ``fovy`` or ``sensorsize`` on a camera, a ``<connect>``
by sites or by body and anchor, ...); they are checked here too.

What MuJoCo does on top of the bare table, and this module copies:

* ``<include>`` may appear anywhere. MuJoCo splices the included file in before the check and
  then looks through the include element (``FirstChildElement``), so an ``<include>`` is
  transparent: its attributes are not checked and its children are checked as children of the
  include's parent.
* ``<worldbody>`` (directly under ``<mujoco>``) takes the ``<body>`` row. MuJoCo's reader then
  refuses any attribute on it and any ``<inertial>``, ``<joint>`` or ``<freejoint>`` in the world
  body (also inside a ``<frame>`` of the world body), so here ``<worldbody>`` has no attributes and
  those children are refused with MuJoCo's reason.
* ``<frame>`` and ``<replicate>`` are matched against the ``<body>`` row by name only: inside a
  body they are accepted *without checking their attributes or anything beneath them*. MuJoCo's
  body reader still refuses element tags it does not read there ("unrecognized model element"),
  and a ``<joint>``/``<freejoint>`` directly in a ``<replicate>``. These subtrees get "lenient"
  nodes (`ElementSchema.attributes` is None). With ``strict=True`` they are checked instead:
  ``<frame>``/``<replicate>`` with the attributes MuJoCo's reader takes from them
  (`FRAME_ATTRIBUTES`, `REPLICATE_ATTRIBUTES`), their contents like a body's. That refuses files
  MuJoCo loads (a misspelt attribute in a frame, which MuJoCo silently ignores).
* ``<body>``, ``<frame>`` and ``<replicate>`` directly under ``<mujoco>`` are checked against the
  ``<body>`` row and otherwise ignored by MuJoCo; they are accepted the same way here.

Use: walk the tree with `check_element` (one call per element, set and dict look-ups only), or let
`check_tree`/`iter_problems`/`validate` walk it. Each problem is a `SchemaProblem` that unpacks as
``(element, message, allowed, name)``; ``allowed`` lists the valid names for a "did you mean".
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from .schema_table import MUJOCO_VERSION, TABLE

__all__ = [
    "ANY",
    "BODY_READER_TAGS",
    "FRAME_ATTRIBUTES",
    "MUJOCO_VERSION",
    "REPLICATE_ATTRIBUTES",
    "ROOT",
    "SCHEMA",
    "STRICT_ROOT",
    "STRICT_SCHEMA",
    "CONSTRAINTS",
    "ElementSchema",
    "SchemaProblem",
    "check_attributes",
    "check_constraints",
    "check_element",
    "check_multiplicity",
    "check_root",
    "check_tree",
    "closest",
    "iter_children",
    "iter_problems",
    "root_schema",
    "validate",
]


# Attributes MuJoCo's reader takes from a <frame> / <replicate> (``mjXReader::Body``; ``class`` is
# read for every element there). MuJoCo does not check them: they are used only with strict=True.
FRAME_ATTRIBUTES = frozenset({"name", "class", "childclass", "pos", "quat", "axisangle", "xyaxes", "zaxis", "euler"})
REPLICATE_ATTRIBUTES = frozenset({"class", "childclass", "count", "offset", "euler", "sep"})

# The tags MuJoCo's body reader accepts inside a body, frame or replicate; anything else there is
# "unrecognized model element" even where the schema check does not reach (inside frames).
BODY_READER_TAGS = frozenset(
    {
        "inertial", "joint", "freejoint", "geom", "site", "camera", "light", "plugin", "flexcomp",
        "frame", "replicate", "body", "attach",
    }
)  # fmt: skip

_WORLD_FORBIDDEN = MappingProxyType(
    {
        "inertial": "the world body cannot have inertia",
        "joint": "the world body cannot have joints",
        "freejoint": "the world body cannot have joints",
    }
)
_REPLICATE_FORBIDDEN = MappingProxyType(
    {
        "joint": "a joint cannot be a direct child of <replicate>",
        "freejoint": "a joint cannot be a direct child of <replicate>",
    }
)
_BODY_FAMILY = ("body", "frame", "replicate")

# MuJoCo 4.0's presence constraints, checked right after an element's attribute names. A spec is
# "|"-separated bundles of space-separated attributes. "e": at most one bundle may appear (a bundle
# appears when any of its attributes does); "o": some bundle must appear whole; "t": the bundles
# appear all or none. Keyed by the element's canonical path (see SCHEMA).
_REFERENCE_SENSORS = ("framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel", "frameangvel")
CONSTRAINTS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "mujoco/size": (("e", "memory|nstack"), ("e", "memory|njmax")),
        "mujoco/default/camera": (("e", "fovy|sensorsize"),),
        "mujoco/default/light": (("e", "directional|type"),),
        "mujoco/asset/mesh": (("e", "builtin|file"), ("e", "builtin|vertex")),
        "mujoco/worldbody/body/inertial": (("e", "fullinertia|quat|axisangle|xyaxes|zaxis|euler"),),
        "mujoco/worldbody/body/attach": (("e", "body|frame"),),
        "mujoco/worldbody/body/camera": (("e", "fovy|sensorsize"),),
        "mujoco/worldbody/body/light": (("e", "directional|type"),),
        "mujoco/equality/connect": (
            ("e", "site1 site2|body1 body2 anchor"),
            ("o", "site1 site2|body1 anchor"),
            ("t", "site1|site2"),
        ),
        "mujoco/equality/weld": (
            ("e", "site1 site2|body1 body2 anchor relpose"),
            ("o", "site1 site2|body1"),
            ("t", "site1|site2"),
        ),
        "mujoco/sensor/rangefinder": (("e", "site|camera"), ("o", "site|camera")),
        **{f"mujoco/sensor/{tag}": (("t", "reftype|refname"),) for tag in _REFERENCE_SENSORS},
        **{
            f"mujoco/sensor/{tag}": (
                ("e", "geom1|body1"),
                ("o", "geom1|body1"),
                ("e", "geom2|body2"),
                ("o", "geom2|body2"),
            )
            for tag in ("distance", "normal", "fromto")
        },
        "mujoco/sensor/contact": (("e", "geom1|body1|subtree1|site"), ("e", "geom2|body2|subtree2")),
        "mujoco/sensor/user": (("t", "objtype|objname"),),
    }
)
_NO_PROBLEMS: tuple[SchemaProblem, ...] = ()


class _Constraint:
    """One presence constraint: its kind ("e", "o", "t"), its bundles and MuJoCo's wording."""

    __slots__ = ("kind", "spec", "bundles", "attributes", "phrase", "single")

    def __init__(self, kind: str, spec: str) -> None:
        self.kind = kind
        self.spec = spec
        self.bundles = tuple(tuple(bundle.split()) for bundle in spec.split("|"))
        self.attributes = frozenset(name for bundle in self.bundles for name in bundle)
        self.single = all(len(bundle) == 1 for bundle in self.bundles)  # each bundle one attribute
        listed = ", ".join(
            f"'{bundle[0]}'" if len(bundle) == 1 else "(" + ", ".join(f"'{name}'" for name in bundle) + ")"
            for bundle in self.bundles
        )
        if kind == "e":
            self.phrase = f"at most one of {listed} can be specified"
        elif kind == "o":
            self.phrase = f"one of {listed} must be specified"
        else:
            self.phrase = f"attributes {listed} must be specified together"

    def violated(self, element: Any) -> bool:
        if self.kind != "o" and self.attributes.isdisjoint(element.attrib):
            return False  # the common case: none of the rule's attributes written, nothing to clash
        if (
            self.kind == "e" and self.single
        ):  # (a <mesh> file, an <inertial> quat): the bundles written, counted at once
            return len(self.attributes.intersection(element.attrib)) > 1
        get = element.get
        if self.kind == "o":
            return not any(all(get(name) is not None for name in bundle) for bundle in self.bundles)
        present = sum(1 for bundle in self.bundles if any(get(name) is not None for name in bundle))
        if self.kind == "e":
            return present > 1
        return 0 < present < len(self.bundles)


class ElementSchema:
    """One element in context: its attributes, its children, and how often it may appear.

    `occurs` is the table's multiplicity: "!" exactly once, "?" at most once, "*" any number, "R"
    any number and may nest in itself. `attributes` is None and `children` is None for a subtree
    MuJoCo does not check (`ANY`: anything goes). A lenient node (inside a <frame>/<replicate> of
    a body) has `attributes` None but `children` set: MuJoCo's reader still refuses unknown tags
    there. `forbidden` maps child tags that MuJoCo's schema check accepts (and checks) but its
    reader refuses in this context to the reason; `reader_attributes` are attribute names the
    schema passes but the reader refuses (on <worldbody>); `constraints` are the presence
    constraints on the attributes (see `CONSTRAINTS`).
    """

    __slots__ = (
        "tag", "path", "occurs", "attributes", "children", "forbidden", "note", "reader_attributes", "constraints",
        "_sorted", "_unique", "_touched", "_exclusive", "_needs",
    )  # fmt: skip

    def __init__(
        self,
        tag: str,
        path: str,
        occurs: str,
        attributes: frozenset[str] | None,
        children: dict[str, ElementSchema] | None,
        forbidden: Mapping[str, str] | None = None,
        note: str | None = None,
    ) -> None:
        self.tag = tag
        self.path = path
        self.occurs = occurs
        self.attributes = attributes
        self.children = children
        self.forbidden: Mapping[str, str] = forbidden or MappingProxyType({})
        self.note = note
        self.reader_attributes: frozenset[str] = frozenset()  # passed by the schema, refused by the reader
        self.constraints: tuple[_Constraint, ...] = ()
        self._sorted: dict[str, tuple[str, ...]] = {}
        self._unique: dict[str, str] | None = None
        self._touched: frozenset[str] | None = None  # see check_constraints
        self._exclusive = False  # every constraint is "at most one of" (so one such attribute alone breaks none)
        self._needs: bool | None = None  # see _needs_child

    @property
    def repeatable(self) -> bool:
        """May appear more than once under one parent."""
        return self.occurs in "*R"

    @property
    def required(self) -> bool:
        return self.occurs == "!"

    @property
    def checked(self) -> bool:
        """MuJoCo checks this element's attribute names."""
        return self.attributes is not None

    def child(self, tag: str) -> ElementSchema | None:
        """The node of a child `tag` here (``<include>``: this node), or None when it is not allowed."""
        if tag == "include":
            return self
        if self.children is None:
            return ANY
        return self.children.get(tag)

    @property
    def allowed_attributes(self) -> tuple[str, ...]:
        """Sorted attribute names (empty when unchecked)."""
        got = self._sorted.get("a")
        if got is None:
            got = self._sorted["a"] = tuple(sorted(self.attributes or ()))
        return got

    @property
    def allowed_children(self) -> tuple[str, ...]:
        """Sorted child tags allowed here, ``include`` among them (empty when unchecked)."""
        got = self._sorted.get("c")
        if got is None:
            tags = {*self.children, "include"} - set(self.forbidden) if self.children is not None else ()
            got = self._sorted["c"] = tuple(sorted(tags))
        return got

    def __repr__(self) -> str:
        return f"<ElementSchema {self.path} ({self.occurs})>"


class SchemaProblem:
    """An element or attribute MuJoCo would refuse.

    Unpacks as ``(element, message, allowed, name)``: the offending XML element (for a repeated
    unique child, the parent, as MuJoCo reports it), a message, the valid names to suggest from,
    and the offending name. `kind` is "element", "attribute", "constraint" (attributes that may
    not, or must, appear together; `name` is then the constraint, e.g. "fovy|sensorsize") or
    "multiplicity"; `parent` is the parent element's tag. `stage` says which part of MuJoCo
    refuses it: "schema" (its schema check, "Schema violation: ..."), "reader" (its model reader,
    after the schema check passed: "unrecognized model element", "World body cannot have ...")
    or "strict" (MuJoCo accepts it; only strict checking refuses it).
    """

    __slots__ = ("kind", "element", "message", "allowed", "name", "parent", "stage")

    def __init__(
        self,
        kind: str,
        element: Any,
        message: str,
        allowed: tuple[str, ...],
        name: str,
        parent: str | None,
        stage: str = "schema",
    ) -> None:
        self.kind = kind
        self.element = element
        self.message = message
        self.allowed = allowed
        self.name = name
        self.parent = parent
        self.stage = stage

    def __iter__(self) -> Iterator[Any]:
        return iter((self.element, self.message, self.allowed, self.name))

    @property
    def suggestion(self) -> str | None:
        """The closest valid name, if one is close."""
        return closest(self.name, self.allowed)

    def __repr__(self) -> str:
        return f"SchemaProblem({self.kind!r}, {self.message!r})"

    def __str__(self) -> str:
        return self.message


def closest(name: str, allowed: Iterable[str]) -> str | None:
    """The allowed name closest to a misspelt `name`, or None when nothing is close."""
    matches = difflib.get_close_matches(name, list(allowed), n=1, cutoff=0.6)
    return matches[0] if matches else None


# -- building the nodes ---------------------------------------------------------------------------

_ROW = re.compile(r"^( *)(\S+) \(([!?*R])\)(.*)$")


def _parse_table(text: str) -> dict[str, Any]:
    """The table as nested dicts {tag, occurs, attrs, children}."""
    root: dict[str, Any] | None = None
    stack: list[tuple[int, dict[str, Any]]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _ROW.match(line)
        if match is None:  # continued attribute list
            stack[-1][1]["attrs"].extend(line.split())
            continue
        indent = len(match.group(1))
        row = {"tag": match.group(2), "occurs": match.group(3), "attrs": match.group(4).split(), "children": []}
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack:
            stack[-1][1]["children"].append(row)
        else:
            root = row
        stack.append((indent, row))
    assert root is not None
    return root


ANY = ElementSchema("*", "*", "*", None, None, note="not checked by MuJoCo: anything is accepted")


def _build(raw: dict[str, Any], strict: bool) -> tuple[ElementSchema, dict[str, ElementSchema]]:
    """The node tree for the whole table, and every node by its canonical path."""
    nodes: dict[str, ElementSchema] = {}
    top_children: dict[str, ElementSchema] = {}
    top = ElementSchema("mujoco", "mujoco", raw["occurs"], frozenset(raw["attrs"]), top_children)
    nodes["mujoco"] = top
    body_row = None
    for sub in raw["children"]:
        if sub["tag"] == "body":
            body_row = sub
            continue
        top_children[sub["tag"]] = _plain(sub, f"mujoco/{sub['tag']}", nodes)
    assert body_row is not None
    worldbody, body = _BodyFamily(body_row, nodes, strict).build()
    top_children["worldbody"] = worldbody
    # <body>, <frame>, <replicate> right under <mujoco> match the body row (and are then ignored)
    for tag in _BODY_FAMILY:
        top_children[tag] = body
    return top, nodes


def _plain(row: dict[str, Any], path: str, nodes: dict[str, ElementSchema]) -> ElementSchema:
    """The node of a table row and the nodes below it, each recorded in `nodes` by its path."""
    children: dict[str, ElementSchema] = {}
    node = ElementSchema(row["tag"], path, row["occurs"], frozenset(row["attrs"]), children)
    nodes[path] = node
    for sub in row["children"]:
        children[sub["tag"]] = _plain(sub, f"{path}/{sub['tag']}", nodes)
    if row["occurs"] == "R":
        children[row["tag"]] = node
    return node


#: A node of the body family: (role, in world body, directly in a replicate, checked).
_FamilyKey = tuple[str, bool, bool, bool]


class _BodyFamily:
    """The nodes of <worldbody>, <body>, <frame> and <replicate>: one per role and context (in the
    world body or not, directly in a replicate or not, checked or not), filled breadth-first so that
    each node's path is the shortest way to reach it."""

    def __init__(self, body_row: dict[str, Any], nodes: dict[str, ElementSchema], strict: bool) -> None:
        self.nodes = nodes
        self.strict = strict
        # children of a body that are not themselves bodies: one node each, shared by every body
        self.leaves = {
            sub["tag"]: _plain(sub, f"mujoco/worldbody/body/{sub['tag']}", nodes) for sub in body_row["children"]
        }
        self.body_attrs = frozenset(body_row["attrs"])
        self.family: dict[_FamilyKey, ElementSchema] = {}
        self.queue: deque[tuple[_FamilyKey, ElementSchema]] = deque()

    def build(self) -> tuple[ElementSchema, ElementSchema]:
        """The <worldbody> node and the node of a <body> in it."""
        worldbody = self.member(("worldbody", True, False, True), "mujoco/worldbody")
        worldbody.reader_attributes = self.body_attrs
        body = self.member(("body", False, False, True), "mujoco/worldbody/body")
        while self.queue:
            self.fill(*self.queue.popleft())
        return worldbody, body

    def member(self, key: _FamilyKey, path: str) -> ElementSchema:
        node = self.family.get(key)
        if node is None:
            role, _world, _replicate, checked = key
            attrs: frozenset[str] | None
            if not checked:
                attrs, note = None, "MuJoCo does not check attributes or contents here, only the tags it reads"
            elif role == "worldbody":
                attrs, note = frozenset(), "MuJoCo: the world body cannot have attributes"
            elif role == "frame":
                attrs, note = FRAME_ATTRIBUTES, "strict: MuJoCo itself does not check <frame>"
            elif role == "replicate":
                attrs, note = REPLICATE_ATTRIBUTES, "strict: MuJoCo itself does not check <replicate>"
            else:
                attrs, note = self.body_attrs, None
            node = ElementSchema(role, path, "R" if role in ("body", "worldbody") else "*", attrs, {}, note=note)
            self.family[key] = node
            self.nodes.setdefault(path, node)
            self.queue.append((key, node))
        return node

    def fill(self, key: _FamilyKey, node: ElementSchema) -> None:
        role, world, replicate, checked = key
        forbidden = dict(_WORLD_FORBIDDEN) if world else {}
        if replicate:
            forbidden.update(_REPLICATE_FORBIDDEN)
        node.forbidden = MappingProxyType(forbidden)
        path = node.path
        assert node.children is not None
        for tag, leaf in self.leaves.items():  # forbidden ones too: MuJoCo's schema check still looks at them
            if checked:
                node.children[tag] = leaf
            elif tag in BODY_READER_TAGS:
                node.children[tag] = ANY
        # a checked node checks the bodies in it; frames and replicates are checked only when
        # strict, and whatever sits in an unchecked node is unchecked too
        framed = checked and self.strict
        node.children["body"] = self.member(("body", False, False, checked), f"{path}/body")
        node.children["frame"] = self.member(("frame", world, replicate, framed), f"{path}/frame")
        node.children["replicate"] = self.member(("replicate", False, True, framed), f"{path}/replicate")


_RAW_TABLE = _parse_table(TABLE)
ROOT, _NODES = _build(_RAW_TABLE, strict=False)
STRICT_ROOT, _STRICT_NODES = _build(_RAW_TABLE, strict=True)
for _path, _specs in CONSTRAINTS.items():
    _NODES[_path].constraints = _STRICT_NODES[_path].constraints = tuple(_Constraint(*spec) for spec in _specs)

#: Every node of MuJoCo's schema by canonical path ("mujoco/default/geom", "mujoco/worldbody/body",
#: "mujoco/worldbody/body/geom" for a geom in any body, "mujoco/equality/joint", ...).
SCHEMA: Mapping[str, ElementSchema] = MappingProxyType(_NODES)
#: The same with <frame>/<replicate> contents checked (see the module docstring).
STRICT_SCHEMA: Mapping[str, ElementSchema] = MappingProxyType(_STRICT_NODES)


def root_schema(strict: bool = False) -> ElementSchema:
    """The node of the <mujoco> root element."""
    return STRICT_ROOT if strict else ROOT


# -- checking -------------------------------------------------------------------------------------


def iter_children(element: Any) -> Iterator[Any]:
    """The child elements as MuJoCo sees them: <include> elements looked through, comments skipped."""
    for child in element:
        tag = child.tag
        if tag == "include":
            yield from iter_children(child)
        elif isinstance(tag, str):
            yield child


def check_attributes(node: ElementSchema, element: Any, parent_tag: str | None = None) -> tuple[SchemaProblem, ...]:
    """Problems with `element`'s attribute names, `node` being its schema node."""
    allowed = node.attributes
    if allowed is None:
        return _NO_PROBLEMS
    bad = [name for name in element.keys() if name not in allowed]
    if not bad:
        return _NO_PROBLEMS
    where = f" in <{parent_tag}>" if parent_tag else ""
    reader = node.reader_attributes
    return tuple(
        SchemaProblem(
            "attribute",
            element,
            f"unknown attribute '{name}' on <{element.tag}>{where}"
            if name not in reader
            else f"the world body <{element.tag}> cannot have attributes ('{name}')",
            node.allowed_attributes,
            name,
            parent_tag,
            "reader" if name in reader else "schema",
        )
        for name in bad
    )


def check_element(
    parent: ElementSchema, element: Any, parent_tag: str | None = None
) -> tuple[ElementSchema | None, tuple[SchemaProblem, ...]]:
    """Check `element` as a child of an element whose node is `parent`.

    Returns the element's own node (to check its children against) and the problems found. The
    node is None when the element is not allowed here (do not descend into it) or is not an
    element at all (a comment). For <include> it is `parent` itself: its children belong to the
    include's parent. `parent_tag` (the parent element's tag, default the node's) is for messages.
    """
    tag = element.tag
    if not isinstance(tag, str):
        return None, _NO_PROBLEMS
    if tag == "include":
        return parent, _NO_PROBLEMS
    children = parent.children
    if children is None:
        return ANY, _NO_PROBLEMS
    node = children.get(tag)
    where = parent_tag or parent.tag
    if node is None:
        message = f"unknown element <{tag}> in <{where}>"
        stage = "schema" if parent.attributes is not None else "reader"
        return None, (SchemaProblem("element", element, message, parent.allowed_children, tag, where, stage),)
    problems = _NO_PROBLEMS
    allowed = node.attributes
    if allowed is not None:
        for name in element.keys():
            if name not in allowed:
                problems = check_attributes(node, element, where)
                break
        if node.constraints:
            problems += check_constraints(node, element)
    if parent.forbidden and tag in parent.forbidden:
        message = f"<{tag}> is not allowed in <{where}>: {parent.forbidden[tag]}"
        problems += (SchemaProblem("element", element, message, parent.allowed_children, tag, where, "reader"),)
    return node, problems


def check_constraints(node: ElementSchema, element: Any) -> tuple[SchemaProblem, ...]:
    """Problems with which of `element`'s attributes appear together (MuJoCo's presence constraints)."""
    if not node.constraints:
        return _NO_PROBLEMS
    touched = node._touched
    if touched is None:  # the attributes the rules name; empty when a rule needs one of its names written
        rules = node.constraints
        names = frozenset().union(*(rule.attributes for rule in rules))
        touched = node._touched = frozenset() if any(rule.kind == "o" for rule in rules) else names
        node._exclusive = all(rule.kind == "e" for rule in rules)
    if touched and touched.isdisjoint(element.attrib):
        return _NO_PROBLEMS  # the common case: no rule's attribute written, so none is violated (see violated)
    return tuple(
        SchemaProblem("constraint", element, f"{rule.phrase} on <{element.tag}>", (), rule.spec, None)
        for rule in node.constraints
        if rule.violated(element)
    )


def check_root(element: Any, strict: bool = False) -> tuple[ElementSchema | None, tuple[SchemaProblem, ...]]:
    """Check the root element: it must be <mujoco>, with MuJoCo's root attributes."""
    root = root_schema(strict)
    if element.tag != "mujoco":
        message = f"the root element must be <mujoco>, not <{element.tag}>"
        return None, (SchemaProblem("element", element, message, ("mujoco",), str(element.tag), None),)
    return root, check_attributes(root, element)


def check_multiplicity(node: ElementSchema, element: Any) -> tuple[SchemaProblem, ...]:
    """Problems with how often `element`'s children appear (unique children repeated, required missing)."""
    if node.children is None:
        return _NO_PROBLEMS
    unique = _unique_children(node)
    if not unique:
        return _NO_PROBLEMS
    counts: dict[str, int] = {}
    if len(element):  # most elements are leaves: nothing to count
        for child in iter_children(element):
            tag = child.tag
            if tag in unique:
                counts[tag] = counts.get(tag, 0) + 1
    if not counts and "!" not in unique.values():
        return _NO_PROBLEMS  # nothing repeated, nothing required: the loop below would find nothing
    problems = []
    # MuJoCo keeps the last complaint in table order: report in reverse so the first one is MuJoCo's
    for tag, occurs in reversed(unique.items()):
        count = counts.get(tag, 0)
        if count > 1:
            message = f"<{tag}> may appear only once in <{element.tag}>, found {count}"
        elif count == 0 and occurs == "!":
            message = f"<{element.tag}> needs a <{tag}> element"
        else:
            continue
        problems.append(SchemaProblem("multiplicity", element, message, (), tag, element.tag))
    return tuple(problems)


def _unique_children(node: ElementSchema) -> dict[str, str]:
    got = node._unique
    if got is None:
        assert node.children is not None
        got = node._unique = {tag: sub.occurs for tag, sub in node.children.items() if sub.occurs in "?!"}
    return got


def iter_problems(root: Any, strict: bool = False) -> Iterator[SchemaProblem]:
    """Every problem in the tree under `root`, in the order MuJoCo's schema check meets them.

    Like MuJoCo, an element that nests in itself (<body>, <default>) has its same-tag children
    checked before its other children, and repeated unique children are reported once an
    element's subtree has been checked. Nothing under an element that is not allowed is checked.
    """
    node, problems = check_root(root, strict)
    yield from problems
    if node is None:
        return
    # entries: (node, element, parent tag, in strict region) to check an element against its
    # parent's node, or (node, element, None, ...) once its subtree is done, to count its children
    stack: list[tuple[ElementSchema, Any, str | None, bool]] = []
    _push(stack, node, root, False)
    while stack:
        node, element, parent_tag, region = stack.pop()
        if parent_tag is None:
            problems = check_multiplicity(node, element)
            yield from (_strict(p, node) for p in problems) if region else problems
            continue
        sub, problems = check_element(node, element, parent_tag)
        if sub is None or sub is ANY:
            yield from (_strict(p, node) for p in problems) if region else problems
            continue
        frame = sub.tag in ("frame", "replicate") and sub.attributes is not None  # checked only when strict
        yield from (_strict(p, node) for p in problems) if region or frame else problems
        _push(stack, sub, element, region or frame)


def _strict(problem: SchemaProblem, parent: ElementSchema) -> SchemaProblem:
    """Re-stage a problem found where only strict checking looks (inside a <frame>/<replicate>)."""
    if problem.stage == "schema":
        # MuJoCo's body reader still refuses unknown tags in a body, frame or replicate
        reader = problem.kind == "element" and parent.tag in ("worldbody", *_BODY_FAMILY)
        problem.stage = "reader" if reader else "strict"
    return problem


def _push(
    stack: list[tuple[ElementSchema, Any, str | None, bool]], node: ElementSchema, element: Any, region: bool
) -> None:
    stack.append((node, element, None, region))
    if not len(element):  # a leaf (most elements): no children to push
        return
    children = list(iter_children(element))
    if node.occurs == "R":  # MuJoCo checks the nested bodies / defaults first
        same = "body" if node.tag == "worldbody" else node.tag
        children = [c for c in children if c.tag == same] + [c for c in children if c.tag != same]
    tag = element.tag
    for child in reversed(children):
        stack.append((node, child, tag, region))


def check_tree(root: Any, strict: bool = False) -> SchemaProblem | None:
    """The problem MuJoCo would stop at, or None when MuJoCo would accept every name in the tree.

    MuJoCo checks the whole tree against its schema before reading it, so the first "schema"
    problem comes first; failing that, the first "reader" problem in document order (then any
    "strict" one). The problem unpacks as ``(element, message, allowed, name)``.
    """
    if _accepted(root, strict):  # nearly every file: nothing to put in MuJoCo's order
        return None
    first: SchemaProblem | None = None
    later: list[SchemaProblem] = []
    for problem in iter_problems(root, strict):
        if problem.stage == "schema":
            return problem
        if first is None:
            first = problem
        later.append(problem)
    if len(later) < 2:
        return first
    order = {id(element): index for index, element in enumerate(root.iter())}
    rank = {"reader": 0, "strict": 1}
    return min(later, key=lambda p: (rank[p.stage], order.get(id(p.element), 0)))


def _accepted(root: Any, strict: bool) -> bool:
    """Whether `iter_problems` finds nothing in the tree: the same checks on the same elements, in
    document order and without the bookkeeping that puts problems in MuJoCo's order, which
    `check_tree` needs only when there is one. False also for a tree that still holds comments or
    <include>s (the reader's has neither), which that walk looks through.

    Every file is checked on every load, so `check_element` and `check_multiplicity` are done here
    inline, in one pass over each element's children: a leaf (most elements) is settled without
    being pushed, and the children of an element are counted (`check_multiplicity`) as they are
    checked, not in a second pass through `iter_children` (which only looks through comments and
    includes, which fail here anyway)."""
    node, problems = check_root(root, strict)
    if node is None or problems:
        return False
    pending = [(node, root)]  # checked elements with children still to check, with their nodes
    while pending:
        node, element = pending.pop()
        nodes, forbidden = node.children, node.forbidden
        if nodes is None:  # (ANY: anything goes, nothing beneath is checked, nothing counted)
            if any(child.tag.__class__ is not str or child.tag == "include" for child in element):
                return False
            continue
        unique = node._unique
        if unique is None:
            unique = _unique_children(node)
        seen: set[str] = set()  # the unique children met
        for child in element:
            tag = child.tag
            if tag.__class__ is not str or tag == "include":
                return False  # (a comment or an <include>: the walk of `iter_problems` looks through them)
            sub = nodes.get(tag)
            if sub is None:
                return False
            if tag in unique:
                if tag in seen:
                    return False  # a unique child repeated (`check_multiplicity`)
                seen.add(tag)
            attrib = child.attrib  # (the names, without the list `keys()` makes)
            allowed = sub.attributes
            if allowed is not None and not allowed.issuperset(attrib):
                return False
            if sub.constraints:
                # `check_constraints`' common cases inline: no rule's attribute written, or (an <inertial>'s
                # quat, a <mesh>'s file) one alone where every rule is "at most one of", which takes two
                touched = sub._touched
                if not (
                    touched
                    and (touched.isdisjoint(attrib) or (sub._exclusive and len(touched.intersection(attrib)) == 1))
                ) and check_constraints(sub, child):
                    return False
            if forbidden and tag in forbidden:
                return False
            if sub is ANY:
                continue
            if len(child):
                pending.append((sub, child))
            else:  # `check_multiplicity` of a leaf: only a required child can be missing
                needs = sub._needs
                if needs if needs is not None else _needs_child(sub):
                    return False
        needs = node._needs
        if needs if needs is not None else _needs_child(node):
            if any(occurs == "!" and tag not in seen for tag, occurs in unique.items()):
                return False  # a required child missing (`check_multiplicity`)
    return True


def _needs_child(node: ElementSchema) -> bool:
    """Whether an element of `node` must have some child (an element without children then fails);
    worked out once per node (it is asked for every leaf element of every file)."""
    needs = node._needs
    if needs is None:
        needs = node._needs = node.children is not None and "!" in _unique_children(node).values()
    return needs


def validate(root: Any, strict: bool = False) -> list[SchemaProblem]:
    """Every problem in the tree (empty when MuJoCo would accept every name in it)."""
    return list(iter_problems(root, strict))
