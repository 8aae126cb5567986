"""The plugin system: hook specifications, the `FormatSpec` a plugin returns, the registry."""

from .hookspecs import hookimpl, hookspec
from .manager import DISABLE_VARIABLE, ENTRY_POINT_GROUP, PluginInfo, PluginWarning, Registry, default_registry
from .spec import FormatSpec

__all__ = [
    "DISABLE_VARIABLE",
    "ENTRY_POINT_GROUP",
    "FormatSpec",
    "PluginInfo",
    "PluginWarning",
    "Registry",
    "default_registry",
    "hookimpl",
    "hookspec",
]
