"""`<experimental:params>` on an `<include>`: edits libsdformat applies to the included model.

Each child of `<experimental:params>` names an element of the included model by `element_id`
(scoped names: ``chassis::camera``; ``""`` is the model itself) and an `action`:

* ``add``: the element is added as a child of the element `element_id` names;
* ``modify``: attributes and child values are changed in place (children must exist);
* ``remove``: the element is removed (or, when children are listed, those children);
* ``replace``: the element is replaced by the new one;
* no action: the children carry the actions, applied to the element `element_id` names.

The included model's own includes are expanded first, so ids may reach into them. What
libsdformat reports as an error (a missing `element_id`, an unknown action, an element that
cannot be found, an addition that already exists, an invalid value) is an error here too.
robodesc parses such an include again for each use instead of sharing a cached parse.
"""

from __future__ import annotations

import copy
import os

from ...core.errors import (
    CyclicInclude,
    InvalidValue,
    Location,
    MalformedValue,
    MissingAttribute,
    RobodescError,
    excerpt,
)
from ..xml import Document, Element, named_at, parse_xml, to_xml
from .context import FileContext
from .loader import include_bases
from .size import check_copied
from .spec import GEOMETRY_TAGS, is_custom
from .values import parse_typed, text_of

_ACTIONS = ("add", "modify", "remove", "replace")
_CONTROL = ("element_id", "action")
_NAMED = {"model", "link", "joint", "frame", "visual", "collision", "sensor", "light", "actor", "plugin", "camera"}
_KNOWN = {
    *GEOMETRY_TAGS,
    *_NAMED,
    "pose",
    "inertial",
    "mass",
    "inertia",
    "ixx",
    "ixy",
    "ixz",
    "iyy",
    "iyz",
    "izz",
    "geometry",
    "material",
    "ambient",
    "diffuse",
    "specular",
    "emissive",
    "script",
    "uri",
    "name",
    "shader",
    "normal_map",
    "pbr",
    "lighting",
    "transparency",
    "cast_shadows",
    "laser_retro",
    "surface",
    "size",
    "radius",
    "length",
    "radii",
    "normal",
    "scale",
    "submesh",
    "center",
    "always_on",
    "update_rate",
    "visualize",
    "topic",
    "horizontal_fov",
    "image",
    "width",
    "height",
    "format",
    "clip",
    "near",
    "far",
    "noise",
    "axis",
    "axis2",
    "xyz",
    "limit",
    "lower",
    "upper",
    "effort",
    "velocity",
    "dynamics",
    "damping",
    "friction",
    "parent",
    "child",
    "static",
    "self_collide",
    "gravity",
    "kinematic",
    "velocity_decay",
    "max_contacts",
    "density",
    "enable_wind",
    "visibility_flags",
    "meta",
    "layer",
    "contact",
    "bounce",
    "ode",
    "bullet",
    "torsional",
    "mu",
    "mu2",
    "attenuation",
    "range",
    "direction",
    "double_sided",
    "shininess",
    "render_order",
}
_ATTRIBUTES = {
    "relative_to",
    "rotation_format",
    "degrees",
    "type",
    "filename",
    "attached_to",
    "canonical_link",
    "placement_frame",
    "expressed_in",
    "auto",
    "version",
}
_TYPES = {
    "pose": "pose",
    "size": "vector3",
    "scale": "vector3",
    "xyz": "vector3",
    "normal": "vector3",
    "radii": "vector3",
    "radius": "double",
    "length": "double",
    "mass": "double",
    "ixx": "double",
    "ixy": "double",
    "ixz": "double",
    "iyy": "double",
    "iyz": "double",
    "izz": "double",
    "transparency": "double",
    "update_rate": "double",
    "horizontal_fov": "double",
    "near": "double",
    "far": "double",
    "lower": "double",
    "upper": "double",
    "effort": "double",
    "velocity": "double",
    "damping": "double",
    "friction": "double",
    "width": "int",
    "height": "int",
    "always_on": "bool",
    "visualize": "bool",
    "static": "bool",
    "cast_shadows": "bool",
    "lighting": "bool",
    "ambient": "color",
    "diffuse": "color",
    "specular": "color",
    "emissive": "color",
}


class _Editor:
    def __init__(self, ctx: FileContext, include_el: Element) -> None:
        self.ctx = ctx
        self.include_el = include_el

    def fail(
        self, message: str, element: Element, kind: type[RobodescError] = InvalidValue, suggestion: str | None = None
    ) -> RobodescError:
        """The error for a bad edit (`element`), to raise: located at the `<include>` that carries it."""
        return self.ctx.error(
            kind,
            self.include_el,
            f"<experimental:params>: {message}: {_short(element)}",
            "experimental:params",
            suggestion or "fix or remove this edit of the included model",
        )

    # -- finding elements ----------------------------------------------------------------------
    def by_id(self, model, element_id: str, tag: str | None):
        """The element `element_id` names under the model (the model itself for ''), or None."""
        if element_id == "":
            return model
        node = model
        parts = element_id.split("::")
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            found = None
            for child in node:
                if child.get("name") == part and (not last or tag is None or child.tag == tag):
                    found = child
                    break
            if found is None:
                return None
            node = found
        return node

    @staticmethod
    def child_of(element, xml):
        """The child of `element` that `xml` stands for: same tag, and same name where both have one."""
        name = xml.get("name")
        for child in element:
            if child.tag == xml.tag and (name is None or child.get("name") in (name, None)):
                return child
        return None

    # -- checks ---------------------------------------------------------------------------
    def check_new(self, xml) -> None:
        if not is_custom(xml.tag) and xml.tag not in _KNOWN:
            raise self.fail(f"<{xml.tag}> is not an SDF element", xml)
        if xml.tag == "plugin" and xml.get("filename") is None:
            raise self.fail("a <plugin> needs a filename", xml, MissingAttribute)
        if xml.tag == "sensor" and xml.get("type") is None:
            raise self.fail("a <sensor> needs a type", xml, MissingAttribute)

    def check_value(self, xml) -> None:
        kind = _TYPES.get(xml.tag)
        text = text_of(xml)
        if kind is None or not text:
            return
        try:
            parse_typed(kind, text, self.ctx.at(self.include_el), xml.tag, xml.get("rotation_format", "euler_rpy"))
        except MalformedValue:
            raise self.fail(f"the value {excerpt(text)} of <{xml.tag}> is invalid", xml, MalformedValue) from None

    @staticmethod
    def clean(xml):
        new = copy.deepcopy(xml)
        for node in new.iter():
            for attribute in _CONTROL:
                node.attrib.pop(attribute, None)
        return new

    # -- actions --------------------------------------------------------------------------
    def apply(self, model, params) -> None:
        for xml in params:
            element_id = xml.get("element_id")
            if element_id is None:
                raise self.fail("an edit needs an element_id", xml, MissingAttribute)
            element_id = element_id.strip()
            if element_id.endswith("::"):
                raise self.fail("the element_id ends with '::'", xml)
            action = xml.get("action", "").strip()
            if action == "add":
                target = self.by_id(model, element_id, None)
            else:
                target = self.by_id(model, element_id, xml.tag)
            if target is None:
                raise self.fail(f"no element {element_id!r} in the included model", xml)
            if not action:
                self.child_actions(xml, target)
                continue
            if action not in _ACTIONS:
                raise self.fail(f"{action!r} is not an action (use add, modify, remove or replace)", xml)
            if action == "add":
                self.add(xml, target, top=True)
            elif action == "modify":
                self.modify(xml, target)
            elif action == "remove":
                self.remove(xml, target, model)
            else:
                self.replace(xml, target, model)

    def add(self, xml, parent, top: bool = False) -> None:
        self.check_new(xml)
        if top:
            if xml.get("name") is None:
                raise self.fail("an added element needs a name", xml, MissingAttribute)
            if not xml.get("name").strip():
                raise self.fail("an added element's name is empty", xml)
            if xml.tag != "plugin" and self.child_of(parent, xml) is not None:
                raise self.fail("the element to add already exists in the included model", xml)
        for child in xml.iter():
            if child is not xml:
                self.check_value(child)
        parent.append(self.clean(xml))

    def modify(self, xml, target) -> None:
        for attribute, value in xml.attrib.items():
            if attribute in _CONTROL or attribute == "name" or is_custom(attribute):
                continue
            if attribute not in target.attrib and attribute not in _ATTRIBUTES:
                raise self.fail(f"the attribute {attribute!r} cannot be modified", xml)
            target.set(attribute, value)
        for attribute, value in xml.attrib.items():
            if is_custom(attribute):
                target.set(attribute, value)
        if xml.get("name") is not None and xml.get("action") is not None:
            target.set("name", xml.get("name"))
        if len(xml) == 0 and text_of(xml):
            self.check_value(xml)
            target.text = xml.text
        self.modify_children(xml, target)

    def modify_children(self, xml, target) -> None:
        """Apply the children of a modify edit to `target`'s children, as deep as the edit goes: in
        document order, with a stack of the edits open (nothing recurses as deep as they nest)."""
        open_edits = [(iter(xml), target)]
        while open_edits:
            children, target = open_edits[-1]
            child = next(children, None)
            if child is None:
                open_edits.pop()
                continue
            found = self.child_of(target, child)
            if found is None:
                raise self.fail(f"there is no <{child.tag}> to modify", child)
            if len(child):
                open_edits.append((iter(child), found))
            elif text_of(child):
                self.check_value(child)
                found.text = child.text
            elif child.tag == "pose" or _TYPES.get(child.tag) is None:
                found.text = ""  # an empty value: the element's default (the identity for a pose)
            else:
                target.remove(found)  # back to the spec default
                continue
            for attribute, value in child.attrib.items():
                if attribute not in _CONTROL:
                    found.set(attribute, value)

    def remove(self, xml, target, model) -> None:
        """Remove what a remove edit names: `target` itself when the edit is empty, else the children
        it lists, as deep as it goes (in document order, with a stack of the edits open)."""
        if len(xml) == 0:
            parent = _parent_of(model, target)
            if parent is not None:
                parent.remove(target)
            return
        open_edits = [(iter(xml), target)]
        while open_edits:
            children, target = open_edits[-1]
            child = next(children, None)
            if child is None:
                open_edits.pop()
            elif (found := self.child_of(target, child)) is None:
                raise self.fail(f"there is no <{child.tag}> to remove", child)
            elif len(child):
                open_edits.append((iter(child), found))
            else:
                target.remove(found)

    def replace(self, xml, target, model) -> None:
        if xml.tag in _NAMED and xml.get("name") is None:
            raise self.fail("a replacement needs a name", xml, MissingAttribute)
        self.check_new(xml)
        parent = _parent_of(model, target)
        if parent is None:
            raise self.fail("the included model itself cannot be replaced", xml)
        index = list(parent).index(target)
        parent.remove(target)
        parent.insert(index, self.clean(xml))

    def child_actions(self, xml, target) -> None:
        for child in xml:
            action = child.get("action", "").strip()
            if not action:
                raise self.fail("an edit has no action", child, MissingAttribute)
            if action not in _ACTIONS:
                raise self.fail(f"{action!r} is not an action (use add, modify, remove or replace)", child)
            if action == "add":
                self.add(child, target)
                continue
            found = self.child_of(target, child)
            if found is None:
                raise self.fail(f"there is no <{child.tag}> to {action}", child)
            if action == "modify":
                self.modify(child, found)
            elif action == "remove":
                self.remove(child, found, target)
            else:
                self.replace(child, found, target)


def _parent_of(root, element):
    for node in root.iter():
        for child in node:
            if child is element:
                return node
    return None


def _short(element) -> str:
    text = " ".join(to_xml(element).split())
    return text if len(text) < 120 else text[:117] + "..."


def expand_includes(ctx: FileContext, document: Document, model: Element, base_dirs: list[str]) -> None:
    """Replace the `<include>`s below a `<model>` element by the models they include (in place).

    As deep as they go, with a stack of the models still to expand (each with the files that
    included it, so that a loop is an error), never recursing; each include copies its file's XML,
    so the copies are counted and refused past the size limit (`size.check_copied`). `model` is in
    `document`; what goes wrong is located in the file that holds the include.
    """
    copied = 0
    pending: list[tuple[Element, Document, list[str], tuple[str, ...]]] = [(model, document, base_dirs, ())]
    while pending:
        model, document, base_dirs, files = pending.pop()
        for index, child in enumerate(list(model)):
            if child.tag == "model":
                pending.append((child, document, base_dirs, files))
                continue
            if child.tag != "include" or (child.get("merge") or "").strip().lower() in ("true", "1"):
                continue
            uri_el = child.find("uri")
            uri = text_of(uri_el) if uri_el is not None else ""
            where = Location(file=document.source, node=(document, child))
            if not uri:
                raise MissingAttribute("<include> has no <uri>", location=where, construct="include/uri")
            path, folder = ctx.loader.include_path(uri, where, base_dirs)
            if path in files:
                chain = " -> ".join(os.path.basename(f) for f in (*files, path))
                raise CyclicInclude(
                    f"files include each other in a loop: {chain}",
                    location=where,
                    construct=path,
                    suggestion="remove one <include> of the loop",
                )
            with named_at(where):
                included_document = parse_xml(ctx.loader.read(path, where), path)
            included = included_document.root.find("model")
            if included is None:
                continue  # a light or actor: left for the parser
            copied += sum(1 for _ in included.iter())  # parsed for this include alone: placed as it is
            check_copied(copied, where, uri)
            name = child.find("name")
            if name is not None and text_of(name):
                included.set("name", text_of(name))
            for tag in ("pose", "static"):
                override = child.find(tag)
                if override is not None:
                    old = included.find(tag)
                    if old is not None:
                        included.remove(old)
                    included.insert(0, copy.deepcopy(override))
            placement = child.find("placement_frame")
            if placement is not None:
                included.set("placement_frame", text_of(placement))
            for extra in child:
                if extra.tag == "plugin":
                    included.append(copy.deepcopy(extra))
            pending.append((included, included_document, include_bases(path, folder), (*files, path)))
            model.remove(child)
            model.insert(index, included)


def apply_params(ctx: FileContext, document: Document, include_el: Element, base_dirs: list[str]) -> None:
    """Expand the included model's includes, then apply the include's `<experimental:params>`.

    `ctx` is the including file's context: the edits' errors are located at its `<include>`.
    """
    model = document.root.find("model")
    if model is None:
        return
    expand_includes(ctx, document, model, base_dirs)
    editor = _Editor(ctx, include_el)
    for params in include_el:
        if is_custom(params.tag) and params.tag.endswith(":params"):
            editor.apply(model, params)
