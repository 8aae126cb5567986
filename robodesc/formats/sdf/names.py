"""libsdformat's naming rules: required and reserved names, unique names per scope, old-file renames.

A name is required on models, links, joints, frames, visuals, collisions, sensors, lights and
actors; `world` and `__anything__` are reserved, and `__root__` may not be named as a frame.
Within a model, links, joints, frames and nested models each need unique names; across those
kinds a clash is an error from SDF 1.7, while older files are fixed up as libsdformat's
converter does (the later element renamed `NAME_link`, `NAME_joint`, `NAME_frame`, with a
warning). Worlds follow the same rules for their models, joints, frames, lights and actors.

The element parsers call `name_of` and `reference` while reading; the scope-wide checks run
once a model or world has been read, on its parsed form.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import DuplicateName, Location, ReservedName
from ..xml import Element, Values
from .desc import FrameDesc, JointDesc, LinkDesc, ModelDesc, WorldDesc
from .spec import is_reserved_name

_Named = TypeVar("_Named", LinkDesc, JointDesc, FrameDesc)  # what a pre-1.7 name collision renames
_RESERVED = "names 'world' and __anything__ are reserved; rename it"


def name_of(values: Values, element: Element, what: str | None = None) -> str:
    """The element's `name`, which must be given and not be reserved."""
    name = element.get("name")
    if name is None:
        name = values.required(element, "name")  # (raises: the name is missing)
    # names are read for nearly every element: the usual one is told apart without a call
    if (name == "world" or name.startswith("__")) and is_reserved_name(name):
        message = f"the {what or element.tag} name {name!r} is reserved"
        raise values.error(ReservedName, element, message, name, _RESERVED)
    return name


def reference(values: Values, value: str, element: Element, attribute: str) -> str:
    """A frame reference (relative_to, attached_to, ...), stripped: '__root__' is reserved."""
    value = value.strip()
    if value == "__root__":
        raise values.error(
            ReservedName,
            element,
            f"'__root__' is reserved; it cannot be the value of {attribute}",
            attribute,
            "name a frame of this model or world",
        )
    return value


def duplicate(kind: str, name: str, owner: str, location: Location) -> DuplicateName:
    """The error for a second `kind` called `name` in `owner` (e.g. "link 'base'"), to raise."""
    return DuplicateName(
        f"{kind} with name {name!r} already exists in {owner}",
        location=location,
        construct=name,
        suggestion=f"rename one of the {kind}s called {name!r}",
    )


def _clash(kind: str, name: str, owner: str, other: str, location: Location, suggestion: str) -> DuplicateName:
    """The error for a `kind` called `name` in `owner` that has the name of an `other` there, to raise."""
    return DuplicateName(
        f"{kind} {name!r} in {owner} has the name of a {other}",
        location=location,
        construct=name,
        suggestion=suggestion,
    )


def check_model_names(model: ModelDesc, diagnostics: list[Diagnostic]) -> None:
    """Unique names per kind; across kinds an error from SDF 1.7, a rename before (as libsdformat)."""
    seen: dict[str, str] = {}
    for kind, attr, suffix in (
        ("model", "models", ""),
        ("link", "links", "_link"),
        ("joint", "joints", "_joint"),
        ("frame", "frames", "_frame"),
    ):
        kept = []
        own: set[str] = set()
        for item in getattr(model, attr):
            if item.name in own:
                raise duplicate(kind, item.name, f"model {model.name!r}", item.location)
            own.add(item.name)
            if item.name in seen:
                if model.version < (1, 7) and kind != "model":
                    item = _renamed(item, seen, suffix, kind, model.name, diagnostics)
                else:
                    raise _clash(
                        kind,
                        item.name,
                        f"model {model.name!r}",
                        seen[item.name],
                        item.location,
                        "since SDF 1.7 the links, joints, frames and models of a model need distinct names",
                    )
            seen[item.name] = kind
            kept.append(item)
        setattr(model, attr, kept)


def check_world_names(world: WorldDesc, version: tuple[int, int], diagnostics: list[Diagnostic]) -> None:
    """Unique lights, actors, models, joints and frames; a frame clashing with a model or joint is
    an error from SDF 1.7 and renamed before."""
    owner = f"world {world.name!r}"
    for tag in ("light", "actor"):
        names: set[str] = set()
        for node in world.kept:
            if node.element.tag == tag:
                name = node.element.get("name", "")
                if name in names:
                    raise duplicate(tag, name, owner, node.location)
                names.add(name)
    seen: dict[str, str] = {}
    for kind, items in (("model", world.models), ("joint", world.joints)):
        for item in items:
            if item.name in seen and seen[item.name] == kind:
                raise duplicate(kind, item.name, owner, item.location)
            seen.setdefault(item.name, kind)
    frames: list[FrameDesc] = []
    for frame in world.frames:
        if any(f.name == frame.name for f in frames):
            raise duplicate("frame", frame.name, owner, frame.location)
        if frame.name in seen:
            if version < (1, 7):
                frame = _renamed(frame, seen, "_frame", "frame", world.name, diagnostics)
            else:
                raise _clash(
                    "frame",
                    frame.name,
                    owner,
                    seen[frame.name],
                    frame.location,
                    "since SDF 1.7 models, joints and frames of a world need distinct names",
                )
        seen[frame.name] = "frame"
        frames.append(frame)
    world.frames = frames
    for joint in world.joints:
        if joint.name in (m.name for m in world.models):
            raise _clash(
                "joint", joint.name, owner, "model", joint.location, "give models, joints and frames distinct names"
            )


def _renamed(
    item: _Named, seen: dict[str, str], suffix: str, kind: str, owner: str, diagnostics: list[Diagnostic]
) -> _Named:
    """libsdformat's fix for pre-1.7 name collisions: NAME_link, NAME_joint, NAME_frame (numbered)."""
    new = item.name + suffix
    i = 0
    while new in seen:
        new = f"{item.name}{suffix}{i}"
        i += 1
    diagnostics.append(
        Diagnostic(
            Severity.WARNING,
            "name-collision-renamed",
            f"{kind} {item.name!r} in {owner!r} has the name of another element; renamed {new!r}, as "
            "libsdformat does for files older than SDF 1.7",
            item.location,
            "give every link, joint, frame and model of a scope its own name",
        )
    )
    return dataclasses.replace(item, name=new)
