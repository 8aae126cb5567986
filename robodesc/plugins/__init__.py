"""The plugin system: hook specifications, the `FormatSpec` a plugin returns, the registry."""

from .hookspecs import hookimpl, hookspec
from .manager import ENTRY_POINT_GROUP, PluginWarning, Registry, default_registry
from .spec import FormatSpec

__all__ = ["ENTRY_POINT_GROUP", "FormatSpec", "PluginWarning", "Registry", "default_registry", "hookimpl", "hookspec"]
