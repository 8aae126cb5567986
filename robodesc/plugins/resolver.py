"""The built-in URI resolver, registered through the `robodesc` entry points like any plugin."""

from __future__ import annotations

from ..core.resources import LoadContext, resolve_path
from .hookspecs import hookimpl


@hookimpl(trylast=True)
def robodesc_resolve_uri(uri: str, context: LoadContext) -> str | None:
    """The local file `uri` names. A confined load's roots go along, so that looking for the file
    stats nothing outside them (a refusal says more than a miss, and is the reader's to raise)."""
    path, tried = resolve_path(
        uri, context.base_dir, context.search_paths, context.cache_for("resolver"), roots=context.allowed_roots
    )
    context.tried.setdefault(uri, []).extend(tried)
    return path
