"""Safe XML for every XML dialect: a small element tree with line numbers, and value readers
that turn bad text into robodesc errors naming file, line and element path.

Parsing goes through defusedxml's expat driver, so entity declarations (billion laughs) and
external entities are refused. Namespace processing is off, as in the TinyXML-based reference
parsers (urdfdom, libsdformat, MuJoCo): a tag such as `sensor:camera` is kept as written even
when its prefix is never declared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any
from xml.sax import SAXParseException

from defusedxml.common import DefusedXmlException
from defusedxml.expatreader import DefusedExpatParser

from ..core.errors import Location, MalformedValue, MissingAttribute, MissingRootElement, UnsafeXML, XMLSyntaxError


class Element:
    """One XML element: tag, attributes, children, text and the line it starts on."""

    __slots__ = ("tag", "attrib", "children", "text", "line", "parent")

    def __init__(self, tag: str, attrib: dict[str, str], line: int, parent: Element | None) -> None:
        self.tag = tag
        self.attrib = attrib
        self.children: list[Element] = []
        self.text = ""
        self.line = line
        self.parent = parent

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrib.get(name, default)

    def find(self, tag: str) -> Element | None:
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]

    def __iter__(self) -> Iterator[Element]:
        return iter(self.children)

    @property
    def path(self) -> str:
        """Element path such as /robot/joint[@name='elbow']/limit, for error messages."""
        parts = []
        node: Element | None = self
        while node is not None:
            name = node.attrib.get("name")
            if name is not None:
                parts.append(f"{node.tag}[@name='{name}']")
            elif node.parent is not None and sum(c.tag == node.tag for c in node.parent.children) > 1:
                same = [c for c in node.parent.children if c.tag == node.tag]
                parts.append(f"{node.tag}[{same.index(node) + 1}]")
            else:
                parts.append(node.tag)
            node = node.parent
        return "/" + "/".join(reversed(parts))

    def to_xml(self, indent: str = "") -> str:
        """Serialise this element back to XML text (for extras kept verbatim)."""
        attrs = "".join(f' {k}="{_escape(v, True)}"' for k, v in self.attrib.items())
        text = _escape(self.text.strip(), False)
        if not self.children and not text:
            return f"{indent}<{self.tag}{attrs}/>"
        inner = text
        if self.children:
            inner += "\n" + "\n".join(c.to_xml(indent + "  ") for c in self.children) + "\n" + indent
        return f"{indent}<{self.tag}{attrs}>{inner}</{self.tag}>"


def _escape(text: str, attribute: bool) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if attribute else text


class _TreeParser(DefusedExpatParser):
    """defusedxml's expat driver building `Element`s directly (no SAX objects per element)."""

    def __init__(self) -> None:
        super().__init__(namespaceHandling=0)
        self.root: Element | None = None
        self._stack: list[Element] = []

    def reset(self) -> None:
        super().reset()
        self._parser.buffer_text = True
        self._parser.CharacterDataHandler = self._characters

    def start_element(self, name: str, attrs: dict[str, str]) -> None:
        parent = self._stack[-1] if self._stack else None
        element = Element(name, attrs, self._parser.CurrentLineNumber, parent)
        if parent is None:
            self.root = element
        else:
            parent.children.append(element)
        self._stack.append(element)

    def end_element(self, name: str) -> None:
        self._stack.pop()

    def _characters(self, data: str) -> None:
        if self._stack:
            self._stack[-1].text += data


def parse_xml(data: bytes | str, source: str | None = None) -> Element:
    """Parse XML text into an `Element` tree, or raise a robodesc error naming the line."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    location = Location(file=source)
    if not data.strip():
        raise MissingRootElement(
            "the file is empty", location=location, suggestion="check that the right file was given"
        )
    parser = _TreeParser()
    try:
        parser.feed(data, isFinal=True)
    except SAXParseException as exc:
        where = Location(file=source, line=exc.getLineNumber(), column=exc.getColumnNumber())
        raise XMLSyntaxError(f"not well-formed XML: {exc.getMessage()}", location=where) from None
    except DefusedXmlException as exc:
        where = Location(file=source, line=parser._parser.CurrentLineNumber if parser._parser else None)
        raise UnsafeXML(
            f"refused to parse: {type(exc).__name__} ({exc})",
            location=where,
            suggestion="remove the DTD entity declarations; robodesc does not expand entities",
        ) from None
    except RecursionError:
        raise XMLSyntaxError("the XML is nested too deeply to read", location=location) from None
    if parser.root is None:
        raise MissingRootElement("the file has no root element", location=location)
    return parser.root


class Values:
    """Reads typed values out of elements of one file, raising errors that say where."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def where(self, element: Element) -> Location:
        return Location(file=self.source, line=element.line, element=element.path)

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
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or "_" in text or not math.isfinite(value):
            raise MalformedValue(
                f"{name}={text!r} on <{element.tag}> is not a finite number",
                location=self.where(element),
                construct=f"{element.tag}/@{name}",
                suggestion="write a plain decimal number such as 0.5",
            )
        return value

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
