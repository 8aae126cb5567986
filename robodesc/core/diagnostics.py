"""Findings a reader (or a check) makes about a model that still loads.

A `Diagnostic` reads like a `RobodescError` — code, message, location, suggestion — so an error
that stops a load and a warning that does not look alike to the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .errors import Location


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    location: Location = Location()
    suggestion: str | None = None

    def __str__(self) -> str:
        where = str(self.location)
        text = (
            f"{where}: {self.severity} {self.code}: {self.message}"
            if where
            else (f"{self.severity} {self.code}: {self.message}")
        )
        if self.suggestion:
            text += f" (suggestion: {self.suggestion})"
        return text
