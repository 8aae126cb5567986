"""What a plugin hands robodesc for each format it provides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.model import Model
    from ..core.resources import LoadContext


@dataclass
class FormatSpec:
    name: str
    extensions: tuple[str, ...]
    read: Callable[[bytes, LoadContext], Model] | None = None
    sniff: Callable[[bytes], bool] | None = None
    write: Callable[[Model], str] | None = None
    description: str = ""
    plugin: str = ""  # filled in by robodesc: the plugin that provided this format

    @property
    def can_read(self) -> bool:
        return self.read is not None

    @property
    def can_write(self) -> bool:
        return self.write is not None
