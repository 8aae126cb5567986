"""What a plugin hands robodesc for each format it provides, and the checks robodesc makes of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.model import Model
    from ..core.resources import LoadContext
    from ..core.writing import WriteContext


@dataclass
class FormatSpec:
    """One format: its name, the file extensions it claims (with the leading dot, any case),
    `read(data, context) -> Model`, optionally `sniff(head) -> bool` and `write(model, context) -> str`
    (`context` is a `WriteContext`: where the text goes, and where the writer reports what the
    format cannot express).

    `fragment(data) -> bool`, also optional, says whether a whole file holds only parts for other
    files to include (a xacro file of macros, with no robot of its own): `robodesc check FOLDER`
    leaves such files out of a folder, as it leaves out XML no format recognises. A file named
    on its own is checked whatever `fragment` says."""

    name: str
    extensions: tuple[str, ...]
    read: Callable[[bytes, LoadContext], Model] | None = None
    sniff: Callable[[bytes], bool] | None = None
    write: Callable[[Model, WriteContext], str] | None = None
    fragment: Callable[[bytes], bool] | None = None
    description: str = ""
    plugin: str = ""  # filled in by robodesc: the plugin that provided this format

    @property
    def can_read(self) -> bool:
        return self.read is not None

    @property
    def can_write(self) -> bool:
        return self.write is not None


def checked_specs(plugin: str, result: Any, report: Callable[[str, str], None]) -> list[FormatSpec]:
    """The valid specs of what a plugin's `robodesc_formats` returned, stamped with the plugin's name.

    Anything else (a dict, None, a spec with no name or an extension without its dot) is reported
    against the plugin and left out; the plugin's valid formats and everyone else's still work.
    Specs are copied, so the plugin's own objects are never changed; extensions are lower-cased.
    """
    if not isinstance(result, (list, tuple)):
        report(plugin, f"robodesc_formats returned {type(result).__name__}, not a list of FormatSpec")
        return []
    specs = []
    for item in result:
        problem = _spec_problem(item)
        if problem:
            report(plugin, f"robodesc_formats returned an invalid format: {problem}")
            continue
        specs.append(dataclasses.replace(item, extensions=tuple(e.lower() for e in item.extensions), plugin=plugin))
    return specs


def _spec_problem(spec: Any) -> str | None:
    if not isinstance(spec, FormatSpec):
        return f"{type(spec).__name__} is not a FormatSpec"
    if not isinstance(spec.name, str) or not spec.name.strip():
        return f"the name {spec.name!r} is empty or not text"
    if isinstance(spec.extensions, str) or not isinstance(spec.extensions, (tuple, list)):
        return f"format {spec.name!r}: extensions must be a tuple of strings like ('.urdf',), not {spec.extensions!r}"
    for ext in spec.extensions:
        if not isinstance(ext, str) or not ext.startswith(".") or len(ext) < 2:
            return f"format {spec.name!r}: extension {ext!r} must start with a dot, like '.urdf'"
    for role in ("read", "sniff", "write", "fragment"):
        if getattr(spec, role) is not None and not callable(getattr(spec, role)):
            return f"format {spec.name!r}: {role} is not callable"
    if spec.read is None and spec.write is None:
        return f"format {spec.name!r} can neither read nor write"
    return None
