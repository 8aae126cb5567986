"""The hooks a robodesc plugin can implement. Their names and arguments are a public contract.

A plugin is any module or object with functions marked `@robodesc.hookimpl`, registered under
the `robodesc` entry-point group (or at run time with `robodesc.register_plugin`). The built-in
URDF reader is a plugin registered exactly that way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from ..core.diagnostics import Diagnostic
    from ..core.model import Model
    from ..core.resources import LoadContext
    from .spec import FormatSpec

hookspec = pluggy.HookspecMarker("robodesc")
hookimpl = pluggy.HookimplMarker("robodesc")


@hookspec
def robodesc_formats() -> list[FormatSpec]:  # type: ignore[empty-body]  # a specification: never called
    """Return the formats this plugin provides.

    Each `FormatSpec` names the format, the file extensions it claims, a reader
    `read(data: bytes, context: LoadContext) -> Model`, optionally a `sniff(head: bytes) -> bool`
    that recognises the format from the start of a file (used when no extension decides, e.g.
    `.xml`), and optionally a writer `write(model) -> str`. What is returned is checked: anything
    but a list of valid specs is reported against the plugin and left out. robodesc keeps its own
    format names; two third-party plugins offering one name make it unusable, naming both.
    """


@hookspec(firstresult=True)
def robodesc_resolve_uri(uri: str, context: LoadContext) -> str | None:
    """Return a local path for `uri` (package://, model://, file://, relative or custom), or None.

    The first non-None answer wins; plugins registered later are asked first, and the built-in
    resolver (search_paths, ROS_PACKAGE_PATH, AMENT_PREFIX_PATH, the Gazebo resource variables)
    is asked last. A resolver may record the paths it tried in `context.tried[uri]` so that a miss
    can list them. A resolver that raises is reported as a crash of its own plugin, never of the
    reader that asked.
    """


@hookspec
def robodesc_model_loaded(model: Model, context: LoadContext) -> None:
    """Post-process every model after a reader produced it and robodesc validated it (add
    diagnostics, extras, ...). `wrapper=True` implementations see the others run inside them."""


@hookspec
def robodesc_checks(model: Model) -> list[Diagnostic]:  # type: ignore[empty-body]  # never called
    """Return findings about a loaded model, for `robodesc.check` and `robodesc check`.

    Called on every model that is checked, after robodesc's own format-neutral checks. Each
    finding is a `Diagnostic` with a stable code of the plugin's own (prefix it with the plugin's
    name to avoid clashes). A check that raises anything but a `RobodescError` is a crash of its
    plugin (`PluginCrash`); a result that is not a list of `Diagnostic` is reported and skipped.
    """
