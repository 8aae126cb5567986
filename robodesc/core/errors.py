"""The one exception family robodesc raises, and the location every error and diagnostic carries.

A user who loads a broken file wants to know *where* (file, line, element path), *what*
(the construct that is wrong) and *how to fix it*. Every error therefore carries a `Location`
and an optional suggestion, and renders them in one consistent line.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class Location:
    """Where something sits in a description file. Every field is optional.

    `element` is an element path such as ``/robot/joint[@name='elbow']/axis``. A reader may pass
    `node=(document, element)` instead of `line` and `element`, where `document` has
    `line_of(element)` and `path_of(element)`: both are then worked out only when someone reads
    them, which keeps loading fast when nothing goes wrong.

    The node is kept in two slots (`_document`, `_at`), not as the tuple given: readers make a
    location per element they read, and a kept tuple is one more object for Python's cyclic
    collector to count and walk (TALOS: 372 per load).
    """

    __slots__ = ("file", "column", "_line", "_element", "_document", "_at")
    _document: Any  # has line_of(at) and path_of(at); None when nothing is left to work out
    _at: Any  # the element (or what stands for it) that `_document` is asked about

    def __init__(
        self,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        element: str | None = None,
        node: tuple[Any, Any] | None = None,
    ) -> None:
        self.file = file
        self.column = column
        self._line = line
        self._element = element
        self._document, self._at = (None, None) if node is None else node

    @property
    def _node(self) -> tuple[Any, Any] | None:
        """`(document, element)` as given, or None once resolved elsewhere (a plugin that moves a
        location to another file sets it to None, having set `file`, `_line` and `_element`)."""
        return None if self._document is None else (self._document, self._at)

    @_node.setter
    def _node(self, node: tuple[Any, Any] | None) -> None:
        self._document, self._at = (None, None) if node is None else node

    @property
    def line(self) -> int | None:
        if self._line is None and self._document is not None:
            self._line = self._document.line_of(self._at)
        return self._line

    @property
    def element(self) -> str | None:
        if self._element is None and self._document is not None:
            self._element = self._document.path_of(self._at)
        return self._element

    def _key(self) -> tuple:
        return (self.file, self.line, self.column, self.element)

    def __reduce__(self) -> tuple:
        """Copies and pickles carry the resolved line and element, not the parsed document behind them
        (whose lookups are keyed by object identity and would answer wrongly for a copy)."""
        return (Location, self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Location) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Location(file={self.file!r}, line={self.line!r}, column={self.column!r}, element={self.element!r})"

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        elif self.line is not None:
            parts.append("<string>")
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        head = ":".join(parts)
        if self.element:
            return f"{head}: {self.element}" if head else self.element
        return head


_new_object = object.__new__


def lazy_location(file: str | None, document: Any, at: Any) -> Location:
    """`Location(file, node=(document, at))`: `document.line_of(at)` and `document.path_of(at)` give its
    line and element path when first asked. Made without a call to `__init__` and the node's tuple,
    which is a quarter of a location's cost: readers make one per element they locate."""
    location = _new_object(Location)
    location.file = file
    location.column = None
    location._line = None
    location._element = None
    location._document = document
    location._at = at
    return location


class RobodescError(Exception):
    """Root of every error robodesc raises.

    `code` is a stable identifier (also used by diagnostics), `construct` names the thing that is
    wrong (an attribute, a joint type, a URI), `suggestion` says how to fix it where we know.
    """

    code = "error"

    def __init__(
        self,
        message: str,
        *,
        location: Location | None = None,
        construct: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.message = message
        self.location = location or Location()
        self.construct = construct
        self.suggestion = suggestion
        super().__init__(self._render())

    @property
    def file(self) -> str | None:
        return self.location.file

    @property
    def line(self) -> int | None:
        return self.location.line

    @property
    def element(self) -> str | None:
        return self.location.element

    def _render(self) -> str:
        where = str(self.location)
        text = f"{where}: {self.message}" if where else self.message
        if self.suggestion:
            text += f" (suggestion: {self.suggestion})"
        return text


class FormatError(RobodescError):
    """No registered format can read the input, or the format named does not exist."""

    code = "unknown-format"


class PluginError(RobodescError):
    """A plugin failed to import, returned something robodesc cannot use, or two plugins claim one format.

    `plugin` names the plugin at fault when one is known.
    """

    code = "plugin-error"

    def __init__(self, message: str, *, plugin: str | None = None, **kwargs: Any) -> None:
        self.plugin = plugin
        super().__init__(message, **kwargs)


class PluginCrash(PluginError):
    """A plugin raised an exception that is not a robodesc error: a bug in that plugin, not bad input.

    `original` is the exception the plugin raised (also the `__cause__`), `hook` what robodesc had
    asked the plugin to do (``read``, ``write``, ``robodesc_resolve_uri``, ...). Tests that promise
    "only robodesc errors" must treat this class as the failure it is.
    """

    code = "plugin-crash"

    def __init__(self, message: str, *, original: BaseException, hook: str, **kwargs: Any) -> None:
        self.original = original
        self.hook = hook
        super().__init__(message, **kwargs)


class ReaderCrash(PluginCrash):
    """A format's reader crashed (raised a foreign exception) on some input."""

    code = "reader-crash"


class MissingDependency(RobodescError):
    """An optional package needed for this input (a mesh or texture reader, ...) is not installed."""

    code = "missing-dependency"

    def __init__(self, message: str, *, package: str, extra: str | None = None, **kwargs: Any) -> None:
        self.package = package
        self.extra = extra
        if "suggestion" not in kwargs or kwargs["suggestion"] is None:
            how = f"pip install {package}"
            if extra:
                how += f" (or pip install 'robodesc[{extra}]')"
            kwargs["suggestion"] = how
        super().__init__(message, **kwargs)


class InvalidArgument(RobodescError, TypeError):
    """A Python call was given an argument of the wrong kind (a number where a path belongs, ...).

    Also a `TypeError`, which is what such a mistake is in Python; still a `RobodescError`, so
    `except RobodescError` around robodesc calls catches everything robodesc raises.
    """

    code = "invalid-argument"


class DescriptionSyntaxError(RobodescError):
    """The file is not well-formed in its own syntax (for a plugin's format: JSON, YAML, a line format).

    Give the line (and column) in the `Location`. XML formats raise the subclass `XMLSyntaxError`.
    """

    code = "syntax-error"


class XMLSyntaxError(DescriptionSyntaxError):
    """The file is not well-formed XML."""

    code = "xml-syntax"


class UnsafeXML(RobodescError):
    """The XML declares entities or external references, which robodesc refuses to expand."""

    code = "unsafe-xml"


class MissingRootElement(RobodescError):
    """The file is empty or its top element is not the one the format requires."""

    code = "missing-root"


class MissingAttribute(RobodescError):
    """A required attribute or child element is absent."""

    code = "missing-attribute"


class MalformedValue(RobodescError):
    """A number or vector cannot be read: not a number, not finite, or the wrong count."""

    code = "malformed-value"


class MalformedPose(MalformedValue):
    """An origin/pose cannot be read."""

    code = "malformed-pose"


class InvalidValue(RobodescError):
    """A value reads fine but is not allowed (a zero joint axis, a negative size, ...)."""

    code = "invalid-value"


class UnsupportedJointType(RobodescError):
    code = "unsupported-joint-type"


class UnsupportedGeometry(RobodescError):
    code = "unsupported-geometry"


class DuplicateName(RobodescError):
    code = "duplicate-name"


class UnresolvedReference(RobodescError):
    """A name refers to a link, joint, frame or material that does not exist."""

    code = "unresolved-reference"


class InvalidTree(RobodescError):
    """The bodies do not form a single tree: no root, several roots, a loop, two parents."""

    code = "invalid-tree"


class ResourceNotFound(RobodescError):
    """A file a description refers to (mesh, include, model://) cannot be found."""

    code = "resource-not-found"

    def __init__(self, message: str, *, tried: Iterable[str] = (), **kwargs: Any) -> None:
        self.tried = list(tried)
        if self.tried:
            message += "; tried: " + ", ".join(self.tried)
        super().__init__(message, **kwargs)


class CyclicInclude(RobodescError):
    code = "cyclic-include"


class CyclicAttachment(RobodescError):
    code = "cyclic-attachment"


class ConfigurationError(RobodescError, ValueError):
    """Joint values handed to kinematics do not fit the model (unknown joint, wrong shape)."""

    code = "bad-configuration"


#: How much of a value an error message quotes: enough to recognise it, never the size of a file.
EXCERPT = 60


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` quoted for a message (its repr), cut to its first `limit` characters with the length said.

    Values come from files, and a 100 MB attribute must not make a 100 MB error message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' suggestion for a misspelt name, or None when nothing is close.

    A name given without the scope a world adds (`shoulder` for `double_pendulum::shoulder`) is
    matched on its last `::` part first: it is no misspelling, and may be far from the full name."""
    names = list(candidates)
    matches = [name for name in names if name.rpartition("::")[2] == word and name != word][:3]
    matches = matches or difflib.get_close_matches(word, names, n=3, cutoff=0.6)
    if not matches:
        return None
    return "did you mean " + " or ".join(repr(m) for m in matches) + "?"


class UnsupportedVersion(RobodescError):
    """The file declares a format version this reader cannot read (e.g. `<sdf version="2.0">`)."""

    code = "unsupported-version"


class CyclicPoseReference(RobodescError):
    """Poses are expressed relative to each other in a loop (SDF `relative_to`), so none can be placed."""

    code = "cyclic-pose-reference"


class ExportFailed(RobodescError):
    """A scene could not be written to a file: the folder is missing or not writable, or trimesh
    refused the scene. The file that was there before is left as it was."""

    code = "export-failed"


class LossyConversion(RobodescError):
    """A strict conversion was refused: the target format cannot express everything the source
    says. `.losses` lists each construct (`robodesc.Loss`); nothing was written."""

    code = "lossy-conversion"

    def __init__(self, message: str, *, losses: list[Any], **kwargs: Any) -> None:
        self.losses = losses
        super().__init__(message, **kwargs)


class ReservedName(InvalidValue):
    """A name the format reserves for itself (SDF `world`, `__model__`, `__root__`, `__anything__`)."""

    code = "reserved-name"
