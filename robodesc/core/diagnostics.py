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


#: Where a diagnostic with no location is: nowhere in particular (one shared, empty `Location`).
_NOWHERE = Location()


@dataclass(frozen=True, init=False)
class Diagnostic:
    """A frozen dataclass (fields, equality, hashing, `dataclasses.replace` as for any), with its own
    `__init__`: the generated one of a frozen dataclass sets each field through `object.__setattr__`,
    and readers make one per finding (TALOS: 94 `mesh-not-found` per load), so this one writes the
    fields straight into the instance's `__dict__` (what `object.__setattr__` would store), at less
    than half the cost."""

    severity: Severity
    code: str
    message: str
    location: Location = _NOWHERE
    suggestion: str | None = None

    def __init__(
        self,
        severity: Severity,
        code: str,
        message: str,
        location: Location = _NOWHERE,
        suggestion: str | None = None,
    ) -> None:
        fields = self.__dict__
        fields["severity"] = severity
        fields["code"] = code
        fields["message"] = message
        fields["location"] = location
        fields["suggestion"] = suggestion

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
