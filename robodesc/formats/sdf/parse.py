"""One SDF document -> its parsed form (`desc.FileDesc`): the `<sdf>` root and its top elements.

libsdformat's rules for a file as a whole live here: `<sdf>` as the root and a version it reads,
unique world names, one kind of top element (a model, a light or an actor; or worlds), a
top-level `<include>` standing for the file's model. The elements themselves are parsed by
`elements.py` and `joints.py`, includes by `includes.py`, names checked by `names.py`; once the
file has parsed, `checks.lint` adds the diagnostics about what loads but is doubtful.

`parse_file` is what the loader (`loader.py`) is given to parse each file of a load with.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ...core.diagnostics import Severity
from ...core.errors import (
    DuplicateName,
    InvalidTree,
    Location,
    MissingAttribute,
    MissingRootElement,
    UnsupportedVersion,
    excerpt,
)
from ..xml import Document, Element
from .checks import lint
from .context import FileContext
from .desc import FileDesc, Instance, ModelDesc, Node
from .elements import parse_model, parse_world
from .includes import include
from .loader import Loader
from .names import name_of
from .spec import SUPPORTED_VERSIONS, parse_version


@dataclass
class _TopElements:
    """The `<sdf>` root's models, lights and actors, as written or as included."""

    models: list[Element | Instance] = field(default_factory=list)  # <model>s, or a top-level <include>'s instance
    lights: list[Element | Node] = field(default_factory=list)  # elements, or the nodes of included lights
    actors: list[Element | Node] = field(default_factory=list)

    def groups(self) -> list[tuple[str, list]]:
        return [(n, g) for n, g in (("model", self.models), ("light", self.lights), ("actor", self.actors)) if g]


def parse_file(loader: Loader, document: Document, base_dirs: list[str], edited: bool = False) -> FileDesc:
    """The parsed form of `document`, whose relative URIs resolve against `base_dirs`.

    Its locations name elements of the tree as parsed; unless the tree was `edited` (whose element
    paths only the edited tree knows), they are detached from it once the file is read, so that the
    parsed form and the model keep the file's bytes, not its tree (`LocatingValues.detach`)."""
    ctx = FileContext(loader, document, base_dirs)
    root = document.root
    ctx.version = _version(ctx, root)
    desc = FileDesc(source=ctx.source, version=ctx.version, diagnostics=ctx.diagnostics)
    tops = _top_elements(ctx, root, desc)
    _check_one_kind(ctx, tops)
    if desc.worlds and tops.groups():
        ctx.diagnose(
            Severity.WARNING,
            "model-beside-world",
            "the file holds a <world> and a top-level model, light or actor; robodesc loads the world and "
            "keeps the others as extras",
            root,
            "put the model inside the world",
        )
        for item in tops.models + tops.lights + tops.actors:
            if not isinstance(item, Instance):
                desc.worlds[0].kept.append(item if isinstance(item, Node) else ctx.keep(item, "sdf"))
    else:
        _file_model(ctx, desc, tops)
    ctx.count_unknown()
    lint(ctx)  # what loads but is doubtful: reader diagnostics on the raw XML
    if not edited:
        ctx.detach()
    return desc


def _version(ctx: FileContext, root: Element) -> tuple[int, int]:
    """The version `<sdf>` declares, one libsdformat reads."""
    if root.tag != "sdf":
        raise ctx.error(
            MissingRootElement,
            root,
            f"an SDF file has <sdf> as its top element, not <{root.tag}>",
            root.tag,
            'wrap the content in <sdf version="1.12">...</sdf> (files with a <gazebo> root are '
            "SDF 1.2 or older, which libsdformat no longer reads)",
        )
    text = root.get("version")
    if text is None:
        raise ctx.error(
            MissingAttribute, root, "<sdf> has no version attribute", "sdf/@version", 'write <sdf version="1.12">'
        )
    version = parse_version(text)
    if version is None or version not in SUPPORTED_VERSIONS:
        raise ctx.error(
            UnsupportedVersion,
            root,
            f"SDF version {excerpt(text)} cannot be read (robodesc reads 1.0 to 1.12, as libsdformat 16 does)",
            "sdf/@version",
            'write a version from 1.4 to 1.12, e.g. version="1.12"',
        )
    return version


def _top_elements(ctx: FileContext, root: Element, desc: FileDesc) -> _TopElements:
    """Read the worlds into `desc`; collect the models, lights and actors; keep anything else."""
    tops = _TopElements()
    for child in root:
        tag = child.tag
        if tag == "world":
            world = parse_world(ctx, child)
            if any(w.name == world.name for w in desc.worlds):
                raise ctx.error(
                    DuplicateName,
                    child,
                    f"there are two worlds named {world.name!r}",
                    world.name,
                    "give each world its own name",
                )
            desc.worlds.append(world)
        elif tag == "model":
            tops.models.append(child)
        elif tag == "light":
            tops.lights.append(child)
        elif tag == "actor":
            tops.actors.append(child)
        elif tag == "include":
            holder = ModelDesc(name="", version=ctx.version, source=ctx.source, location=ctx.where(child))
            include(ctx, child, holder)
            tops.models.extend(holder.models)
            for node in holder.kept:
                (tops.lights if node.element.tag == "light" else tops.actors).append(node)
        else:
            ctx.unknown(child)
            desc.kept.append(ctx.keep(child, "sdf"))
    return tops


def _check_one_kind(ctx: FileContext, tops: _TopElements) -> None:
    """A file holds one model, one light or one actor (besides its worlds)."""
    groups = tops.groups()

    def located(item: Element | Instance | Node) -> Location:
        return item.location if isinstance(item, (Instance, Node)) else ctx.where(item)

    if len(groups) > 1:
        raise InvalidTree(
            "the <sdf> element holds more than one kind of top element: " + ", ".join(n for n, _ in groups),
            location=located(groups[1][1][0]),
            construct=groups[1][0],
            suggestion="a file holds one <model>, one <light> or one <actor> (or worlds)",
        )
    for name, group in groups:
        if len(group) > 1:
            raise InvalidTree(
                f"the <sdf> element holds more than one <{name}>",
                location=located(group[1]),
                construct=name,
                suggestion=f"keep one <{name}> per file, or put them in a <world>",
            )


def _file_model(ctx: FileContext, desc: FileDesc, tops: _TopElements) -> None:
    """The file's model (parsed, or included at the top with the include's overrides), light or actor."""
    if tops.models:
        first = tops.models[0]
        if isinstance(first, Instance):  # a top-level <include>: the included model, overridden
            desc.model = dataclasses.replace(
                first.desc,
                name=first.name,
                pose=first.pose,
                static=first.static,
                placement_frame=first.placement_frame,
                kept=first.desc.kept + first.kept,
                scope=None,
            )
        else:
            desc.model = parse_model(ctx, first, top=True)
    desc.lights = [el if isinstance(el, Node) else ctx.keep(el, "sdf") for el in tops.lights]
    desc.actors = [el if isinstance(el, Node) else ctx.keep(el, "sdf") for el in tops.actors]
    for node in desc.lights + desc.actors:
        name_of(ctx, node.element)
