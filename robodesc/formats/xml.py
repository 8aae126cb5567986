"""Safe XML for every XML dialect: a parsed document, and value readers that turn bad text into
robodesc errors naming file, line and element path.

Parsing goes through defusedxml's expat driver, so entity declarations (billion laughs) and
external entities are refused. Namespace processing is off, as in the TinyXML-based reference
parsers (urdfdom, libsdformat, MuJoCo): a tag such as `sensor:camera` is kept as written even
when its prefix is never declared.

Elements are the standard library's C-built `xml.etree.ElementTree.Element`s, so a tree costs
little to build. Line numbers and element paths are needed only when something is reported, so
a `Document` works them out on first request (one more expat pass over the same bytes).
"""

from __future__ import annotations

import importlib
import math
import re
from typing import Any
from xml.etree.ElementTree import Element, TreeBuilder, tostring
from xml.parsers.expat import ErrorString, ExpatError

from defusedxml.common import DefusedXmlException
from defusedxml.expatreader import DefusedExpatParser

from ..core.errors import (
    Location,
    MalformedValue,
    MissingAttribute,
    MissingRootElement,
    RobodescError,
    UnsafeXML,
    XMLSyntaxError,
)
from ..plugins.spec import FormatSpec

__all__ = ["Document", "Element", "Values", "parse_xml", "root_tag", "to_xml"]


def _expat(data: bytes, source: str | None, start: Any, end: Any = None, text: Any = None) -> None:
    """Run defusedxml's expat driver over `data` with the given element handlers."""
    driver = DefusedExpatParser()  # installs the handlers that refuse entities and external references
    driver.reset()
    parser = driver._parser
    parser.buffer_text = True
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except DefusedXmlException as exc:
        raise UnsafeXML(
            f"refused to parse: {type(exc).__name__} ({exc})",
            location=Location(file=source, line=parser.CurrentLineNumber),
            suggestion="remove the DTD entity declarations; robodesc does not expand entities",
        ) from None
    except ExpatError as exc:
        where = Location(file=source, line=exc.lineno, column=exc.offset)
        raise XMLSyntaxError(f"not well-formed XML: {ErrorString(exc.code)}", location=where) from None
    except (LookupError, ValueError) as exc:  # an unknown encoding named in the XML declaration
        raise XMLSyntaxError(
            f"cannot read the XML: {exc}", location=Location(file=source), suggestion='declare encoding="UTF-8"'
        ) from None


class Document:
    """One parsed XML file: its root element, and element lines and paths worked out on demand."""

    def __init__(self, root: Element, data: bytes, source: str | None) -> None:
        self.root = root
        self.source = source
        self._data = data
        # the elements in document order as parsed: readers splice included files into the tree
        # (and out of theirs) before anything is reported, so lines are matched against this list
        self._elements = list(root.iter())
        self._lines: dict[int, int] | None = None
        self._parents: dict[int, Element] | None = None

    def line_of(self, element: Element) -> int | None:
        if self._lines is None:
            lines: list[int] = []
            parser_holder: list[Any] = []

            def start(name: str, attrs: dict) -> None:
                lines.append(parser_holder[0].CurrentLineNumber)

            driver = DefusedExpatParser()
            driver.reset()
            parser_holder.append(driver._parser)
            driver._parser.StartElementHandler = start
            driver._parser.Parse(self._data, True)
            self._lines = {id(el): line for el, line in zip(self._elements, lines)}
        return self._lines.get(id(element))

    def pin_parents(self) -> None:
        """Record every element's parent now, so that element paths stay those of the file as written
        when a reader later moves elements (MJCF splices included files into the including tree)."""
        self.parent_of(self.root)

    def parent_of(self, element: Element) -> Element | None:
        if self._parents is None:
            self._parents = {id(child): parent for parent in self.root.iter() for child in parent}
        return self._parents.get(id(element))

    def path_of(self, element: Element) -> str:
        """Element path such as /robot/joint[@name='elbow']/limit or /robot/gazebo[3]."""
        parts = []
        node: Element | None = element
        while node is not None:
            parent = self.parent_of(node)
            name = node.get("name")
            if name is not None:
                parts.append(f"{node.tag}[@name='{name}']")
            else:
                same = [c for c in parent if c.tag == node.tag] if parent is not None else [node]
                position = next(i for i, c in enumerate(same) if c is node) + 1
                parts.append(f"{node.tag}[{position}]" if position > 1 else node.tag)
            node = parent
        return "/" + "/".join(reversed(parts))


#: Elements may nest this deep, about as deep as TinyXML2 (the parser of MuJoCo, libsdformat and urdfdom)
#: lets them; readers recurse along the nesting, so a deeper file is refused here, with its line.
MAX_DEPTH = 500


def _deeper_than(root: Element, limit: int) -> Element | None:
    """The first element nested deeper than `limit` levels (the root is level 1), or None."""
    level, depth = [root], 1
    while level:
        if depth > limit:
            return level[0]
        level = [child for element in level for child in element]
        depth += 1
    return None


def parse_xml(data: bytes | str, source: str | None = None) -> Document:
    """Parse XML text into a `Document`, or raise a robodesc error naming the line."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data.strip():
        raise MissingRootElement(
            "the file is empty", location=Location(file=source), suggestion="check that the right file was given"
        )
    builder = TreeBuilder()  # the C implementation: no Python call per element
    _expat(data, source, builder.start, builder.end, builder.data)
    try:
        root = builder.close()  # the C TreeBuilder returns None when there was no element at all
    except AssertionError:  # ... the pure-Python one (no C accelerator) asserts instead
        root = None
    if root is None:
        raise MissingRootElement("the file has no root element", location=Location(file=source))
    document = Document(root, data, source)
    if len(document._elements) > MAX_DEPTH:
        deep = _deeper_than(root, MAX_DEPTH)
        if deep is not None:
            raise XMLSyntaxError(
                f"elements nest more than {MAX_DEPTH} levels deep, more than robodesc (and TinyXML2) reads",
                location=Location(file=source, line=document.line_of(deep)),
                construct=deep.tag,
                suggestion="flatten the description",
            )
    return document


def to_xml(element: Element) -> str:
    """An element (and everything in it) as XML text."""
    return tostring(element, encoding="unicode").strip()


class Values:
    """Reads typed values out of elements of one file, raising errors that say where."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.source = document.source

    def where(self, element: Element) -> Location:
        """The location of `element`; its line and path are worked out only if someone asks."""
        return Location(file=self.source, node=(self.document, element))

    def error(
        self,
        kind: type[RobodescError],
        element: Element,
        message: str,
        construct: str | None = None,
        suggestion: str | None = None,
    ) -> RobodescError:
        """An error of class `kind` located at `element`, to `raise`: one line instead of a block."""
        return kind(message, location=self.where(element), construct=construct, suggestion=suggestion)

    def require(
        self,
        condition: object,
        kind: type[RobodescError],
        element: Element,
        message: str,
        construct: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        """Raise `error(kind, element, message, ...)` unless `condition` holds."""
        if not condition:
            raise self.error(kind, element, message, construct, suggestion)

    def required(self, element: Element, name: str, what: str | None = None) -> str:
        value = element.attrib.get(name)
        if value is None:
            raise MissingAttribute(
                f"<{element.tag}> needs the attribute {name!r}" + (f" ({what})" if what else ""),
                location=self.where(element),
                construct=f"{element.tag}/@{name}",
                suggestion=f'add {name}="..." to <{element.tag}>',
            )
        return value

    def number(self, element: Element, name: str, default: Any = MissingAttribute) -> float:
        text = element.attrib.get(name)
        if text is None:
            if default is MissingAttribute:
                self.required(element, name)
            return default
        return self.parse_number(text, element, name)

    def parse_number(self, text: str, element: Element, name: str) -> float:
        """A finite decimal number; Python-only spellings (1_000, nan, inf, non-ASCII digits) are refused."""
        try:
            value = float(text)
            if math.isfinite(value) and text.isascii() and "_" not in text:
                return value
        except ValueError:
            pass
        raise MalformedValue(
            f"{name}={text!r} on <{element.tag}> is not a finite number",
            location=self.where(element),
            construct=f"{element.tag}/@{name}",
            suggestion="write a plain decimal number such as 0.5",
        )

    def vector(self, element: Element, name: str, count: int, default: Any = MissingAttribute) -> list[float]:
        text = element.attrib.get(name)
        if text is None:
            if default is MissingAttribute:
                self.required(element, name)
            return default
        return self.parse_vector(text, element, name, count)

    def parse_vector(self, text: str, element: Element, name: str, count: int | None) -> list[float]:
        parts = text.split()
        if count is not None and len(parts) != count:
            raise MalformedValue(
                f"{name}={text!r} on <{element.tag}> has {len(parts)} value(s), expected {count}",
                location=self.where(element),
                construct=f"{element.tag}/@{name}",
                suggestion=f"give exactly {count} numbers separated by spaces",
            )
        if text.isascii() and "_" not in text:  # the common case: one pass, no per-number calls
            try:
                values = [float(p) for p in parts]
                if math.isfinite(sum(values)):
                    return values
            except ValueError:
                pass
        return [self.parse_number(p, element, name) for p in parts]


_PROLOGUE = re.compile(rb"\s*(<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)", re.S)
_TAG = re.compile(rb"\s*<([A-Za-z_][\w:.-]*)")


def root_tag(head: bytes) -> str | None:
    """The name of the first element in the first bytes of an XML file (for format sniffing)."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    pos = 0
    while True:
        match = _PROLOGUE.match(head, pos)
        if not match:
            break
        pos = match.end()
    match = _TAG.match(head, pos)
    return match.group(1).decode("ascii", "replace") if match else None


def xml_format(
    name: str, extensions: tuple[str, ...], root: str, package: str, description: str, writes: bool = False
) -> FormatSpec:
    """The `FormatSpec` of a built-in XML dialect: recognised by its top element, read by
    `<package>.reader.read` and, when `writes`, written by `<package>.write.write(model, context)`;
    both modules are imported on first use so that listing formats stays cheap."""

    def sniff(head: bytes) -> bool:
        return root_tag(head) == root

    def read(data: bytes, context: Any) -> Any:
        return importlib.import_module(f"{package}.reader").read(data, context)

    def write(model: Any, context: Any) -> Any:
        return importlib.import_module(f"{package}.write").write(model, context)

    return FormatSpec(
        name=name,
        extensions=extensions,
        read=read,
        sniff=sniff,
        write=write if writes else None,
        description=description,
    )


def format_checks(model: Any, name: str, package: str, function: str = "check") -> list:
    """Run `<package>.checks.<function>(model)` on models of format `name` only (imported on first use)."""
    if model.format != name:
        return []
    return getattr(importlib.import_module(f"{package}.checks"), function)(model)
