"""`<include>`: another file's model (or light, or actor) placed in the including model or world.

The included file is found and parsed once per load by the loader (`loader.py`); here its model
becomes an `Instance` under the include's overrides (`<name>`, `<pose>`, `<static>`,
`<placement_frame>`), is merged into the including scope for `merge="true"` (`merge.py`), or
is parsed again with the include's `<experimental:params>` edits applied (`params.py`). An
included light or actor is kept where it is included, renamed or moved by the include.
"""

from __future__ import annotations

import copy

from ...core.errors import Location, MissingAttribute, MissingRootElement, ReservedName
from ..xml import Element, named_at, parse_xml
from .context import FileContext
from .desc import FileDesc, Instance, ModelDesc, Node, WorldDesc
from .loader import include_bases
from .merge import merge_into
from .names import reference
from .params import apply_params
from .spec import is_custom, is_reserved_name
from .values import parse_bool, text_of

_OVERRIDES = ("uri", "name", "pose", "static", "placement_frame")  # what an include says itself; the rest is kept


def include(ctx: FileContext, element: Element, parent: ModelDesc | WorldDesc) -> None:
    """An `<include>` in `parent` (a model or a world): an instance of the included model, merged or nested."""
    uri, where, path, folder, included = _included_file(ctx, element)
    name_override = ctx.child_text(element, "name")
    pose_el = element.find("pose")
    placement_el = element.find("placement_frame")
    placement = None
    if placement_el is not None:
        placement = reference(ctx, text_of(placement_el), placement_el, "placement_frame")
        ctx.require(
            pose_el is not None,
            MissingAttribute,
            element,
            "<include> gives a <placement_frame> but no <pose>",
            "include/pose",
            "add the <pose> the placement frame should take",
        )
    kept = [ctx.keep(c) for c in element if c.tag not in _OVERRIDES]
    if included.model is None:  # a light or actor: kept where it is included
        node = (included.lights or included.actors)[0]
        parent.kept.append(_overridden_node(node, name_override, pose_el, ctx.where(element)))
        return
    desc = included.model
    if any(is_custom(c.tag) and c.tag.endswith(":params") for c in element):
        desc = _customized(ctx, path, folder, element, where)
    merge_text = element.get("merge")
    if merge_text is None:
        merge = False
        ctx.vetted.add(element)  # (an old file's lint looks at an <include> for @merge alone)
    else:
        merge = parse_bool(merge_text, ctx.at(element), "include/@merge")
    static_el = element.find("static")
    instance = Instance(
        desc=desc,
        name=name_override if name_override else desc.name,
        pose=ctx.pose_element(pose_el) if pose_el is not None else desc.pose,
        static=parse_bool(text_of(static_el), ctx.at(static_el), "static") if static_el is not None else desc.static,
        placement_frame=placement if placement is not None else desc.placement_frame,
        location=where,
        kept=kept,
        uri=uri,
    )
    if name_override is not None and is_reserved_name(instance.name):
        raise ReservedName(
            f"the model name {instance.name!r} is reserved",
            location=where,
            construct=instance.name,
            suggestion="rename it",
        )
    if merge:
        merge_into(instance, parent)
    else:
        parent.models.append(instance)


def _included_file(ctx: FileContext, element: Element) -> tuple[str, Location, str, str | None, FileDesc]:
    """(uri, its location, the file, the model folder or None, the file parsed) of an `<include>`."""
    uri_el = element.find("uri")
    uri = text_of(uri_el) if uri_el is not None else ""
    if uri_el is None or not uri:
        raise ctx.error(
            MissingAttribute, element, "<include> has no <uri>", "include/uri", "add <uri>model://NAME</uri>"
        )
    where = ctx.where(uri_el)
    path, folder = ctx.loader.include_path(uri, where, ctx.base_dirs)
    included = ctx.loader.file_desc(path, where, folder)
    if included.worlds or (included.model is None and not included.lights and not included.actors):
        raise MissingRootElement(
            f"the file included as {uri!r} ({path}) has no top-level <model>, <light> or <actor>",
            location=where,
            construct=uri,
            suggestion="include a file whose top element holds one <model>",
        )
    return uri, where, path, folder, included


def _overridden_node(node: Node, name: str | None, pose_el: Element | None, where: Location) -> Node:
    """An included light or actor renamed or moved by its <include>: a copy, located at the include."""
    if name is None and pose_el is None:
        return node
    element = copy.deepcopy(node.element)
    if name:
        element.set("name", name)
    if pose_el is not None:
        old = element.find("pose")
        if old is not None:
            element.remove(old)
        element.insert(0, copy.deepcopy(pose_el))
    return Node(element, where)


def _customized(ctx: FileContext, path: str, folder: str | None, include_el: Element, where: Location) -> ModelDesc:
    """The included model with `<experimental:params>` applied (parsed again, not cached)."""
    with named_at(where):
        document = parse_xml(ctx.loader.read(path, where), path)
    bases = include_bases(path, folder)
    apply_params(ctx, document, include_el, bases)
    desc = ctx.loader.parse(ctx.loader, document, bases, edited=True)
    ctx.diagnostics.extend(desc.diagnostics)
    if desc.model is None:
        raise MissingRootElement(f"{path} has no <model>", location=where, construct=path)
    return desc.model
