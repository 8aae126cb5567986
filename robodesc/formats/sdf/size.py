"""How large a description grows once its includes are expanded, refused past a limit before it is built.

A file is parsed once however often it is included, so twenty small files that each include the
next twice parse in no time and describe 2^20 links. The builder would then make every one of
them, for minutes and gigabytes. So the parsed form is measured first: each parsed model's
links, joints, frames and nested models, counted once per model and multiplied by how often it
is placed. A description past the limit is refused at the element that places the largest part.
`<include merge="true">` copies an included model's content into the including one while
parsing, so each merge is measured too (`check_merged`).

The limit is `core.resources.max_elements()`: `ROBODESC_MAX_ELEMENTS`, or 250,000, for every format.
"""

from __future__ import annotations

from ...core.errors import InvalidValue, Location
from ...core.resources import ELEMENTS_VARIABLE, max_elements
from .desc import FileDesc, Instance, ModelDesc, WorldDesc


def _own(desc: ModelDesc | WorldDesc) -> int:
    links = len(desc.links) if isinstance(desc, ModelDesc) else 0
    return links + len(desc.joints) + len(desc.frames) + len(desc.models)


def _elements(what: str, count: int, limit: int) -> str:
    return f"{what} expands to {count:,} links, joints, frames and models, more than the limit of {limit:,}"


def _too_large(message: str, location: Location, construct: str) -> InvalidValue:
    return InvalidValue(
        message,
        location=location,
        construct=construct,
        suggestion=f"if the description is right, raise the limit: {ELEMENTS_VARIABLE}=N (includes that include "
        "each other several times multiply)",
    )


def check_size(file: FileDesc) -> None:
    """Refuse a description whose expanded size is past the limit, before anything is built.

    Sizes are worked out per parsed model (once, however often it is placed), children first,
    with a stack; the first model found too large is refused at its largest placed part."""
    limit = max_elements()
    model = file.model
    if model is not None and not model.models and not file.worlds:  # (most files: nothing placed, no stack)
        total = _own(model)
        if total > limit:
            raise _too_large(_elements(f"model {model.name!r}", total, limit), model.location, model.name)
        return
    tops: list[ModelDesc | WorldDesc] = [*file.worlds, *([model] if model is not None else [])]
    sizes: dict[int, int] = {}
    for top in tops:
        stack: list[ModelDesc | WorldDesc] = [top]
        while stack:
            desc = stack[-1]
            if id(desc) in sizes:
                stack.pop()
                continue
            waiting = [i.desc for i in desc.models if id(i.desc) not in sizes]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            total = _own(desc) + sum(sizes[id(i.desc)] for i in desc.models)
            sizes[id(desc)] = total
            if total > limit:
                largest = max(desc.models, key=lambda i: sizes[id(i.desc)], default=None)
                where, construct = _where(desc, largest)
                what = f"{'world' if isinstance(desc, WorldDesc) else 'model'} {desc.name!r}"
                raise _too_large(_elements(what, total, limit), where, construct)


def _where(desc: ModelDesc | WorldDesc, largest: Instance | None) -> tuple[Location, str]:
    if largest is None:
        return desc.location, desc.name
    return largest.location, largest.uri or largest.name


def check_merged(parent: ModelDesc | WorldDesc, instance: Instance) -> None:
    """Refuse a merge that makes the including model's own content larger than the limit: merges of
    merges copy content (kept elements too) while parsing, where `check_size` cannot see it yet."""
    limit = max_elements()
    count = _own(parent) + len(parent.kept)
    if count > limit:
        message = (
            f"merging {instance.name!r} makes the content of {parent.name!r} {count:,} links, joints, frames, "
            f"models and kept elements, more than the limit of {limit:,}"
        )
        raise _too_large(message, instance.location, instance.uri or instance.name)


def check_copied(count: int, location: Location, construct: str) -> None:
    """Refuse include expansion for `<experimental:params>` (which copies each included file's XML
    once per include) past the limit, counted in XML elements copied."""
    limit = max_elements()
    if count > limit:
        message = (
            f"the includes of a model edited with <experimental:params> copy {count:,} XML elements, "
            f"more than the limit of {limit:,}"
        )
        raise _too_large(message, location, construct)
