"""The built-in formats, one subpackage each, plus the XML helpers they share (`xml.py`).

Each subpackage is a plugin registered through the `robodesc` entry points in pyproject.toml,
exactly as a third party's format would be; nothing here is imported by name elsewhere.

This package is also what `robodesc.formats` is, so `import robodesc.formats.urdf` works; calling
it, `robodesc.formats()`, lists the registered formats (the package is made callable below).
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..plugins.spec import FormatSpec


class _FormatsPackage(types.ModuleType):
    def __call__(self) -> list[FormatSpec]:
        """The registered formats: name, extensions, can_read / can_write, and the plugin providing each."""
        from ..plugins.manager import default_registry

        return list(default_registry().formats().values())


sys.modules[__name__].__class__ = _FormatsPackage
