"""Safe XML for every XML dialect: a parsed document, and value readers that turn bad text into
robodesc errors naming file, line and element path.

Parsing goes through defusedxml's expat driver, so entity declarations (billion laughs) and
external entities are refused. Namespace processing is off, as in the TinyXML-based reference
parsers (urdfdom, libsdformat, MuJoCo): a tag such as `sensor:camera` is kept as written even
when its prefix is never declared.

A document type declaration is read but never applied: attribute defaults an internal subset
declares with `<!ATTLIST>` are not added to elements (TinyXML2, which the references use, ignores
DTDs), while entity declarations are still refused.

Elements are the standard library's C-built `xml.etree.ElementTree.Element`s, so a tree costs
little to build. Line numbers and element paths are needed only when something is reported, so
a `Document` works them out on first request (one more expat pass over the same bytes).

Two things that TinyXML2 reads and a strict parser refuses are read as TinyXML2 reads them (see
docs/getting-started.md, "XML as the reference parsers read it"): white space before the `<?xml ...?>`
declaration, and `--` inside a comment, which ends at the first `-->`. When expat refuses the bytes as
written, `_as_tinyxml2_reads` mends them and expat reads them again, every line and column where it was.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import chain, compress
from operator import itemgetter
from typing import Any, NamedTuple
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
    excerpt,
    lazy_location,
)
from ..plugins.spec import FormatSpec

__all__ = [
    "DetachedDocument",
    "Document",
    "Element",
    "LocatingValues",
    "Values",
    "named_at",
    "parse_xml",
    "plain_numbers",
    "root_tag",
    "to_xml",
]


class _Mended(NamedTuple):
    """Bytes for expat, mended where TinyXML2 is lenient, and how to map expat's positions back."""

    data: bytes | bytearray | memoryview
    lines: int  # line breaks cut from before the declaration: added to every line expat reports
    columns: int  # characters cut from the declaration's own line: added to columns on expat's line 1


_UTF8_BOM = b"\xef\xbb\xbf"
#: white space (XML's: space, tab, CR, LF) in front of an XML declaration
_SPACE_BEFORE_DECLARATION = re.compile(rb"[ \t\r\n]+(?=<\?xml[ \t\r\n?])")
#: where a comment may start in content or prolog, and what to step over because `<!--` in it is no comment
_MARKUP = re.compile(rb"<(?:!--|!\[CDATA\[|\?|!DOCTYPE)")
#: a DOCTYPE up to its internal subset or its end; quoted literals stepped over whole
_DOCTYPE_HEAD = re.compile(rb"<!DOCTYPE(?:[^\"'\[>]|\"[^\"]*\"|'[^']*')*")
#: inside the internal subset: a comment, a processing instruction, a literal, or the subset's end
_IN_SUBSET = re.compile(rb"<!--|<\?|[\"'\]]")


def _comment(data: bytes, start: int, mend: list[tuple[int, int]]) -> int:
    """The comment at `start` ends, as in TinyXML2, at the first `-->` after `<!--`. If its body holds
    `--` or ends with `-` (which XML forbids), note the body in `mend`. Returns where the comment ends."""
    body = start + 4
    end = data.find(b"-->", body)
    if end < 0:  # never closed: with its dashes gone expat reports an unclosed comment where it starts
        mend.append((body, len(data)))
        return len(data)
    if data.find(b"--", body, end) >= 0 or (end > body and data[end - 1] == 0x2D):
        mend.append((body, end))
    return end + 3


def _past(data: bytes, start: int, closer: bytes) -> int:
    """Where the construct opened before `start` ends: just past `closer`, or the end of the data."""
    end = data.find(closer, start)
    return len(data) if end < 0 else end + len(closer)


def _doctype(data: bytes, start: int, mend: list[tuple[int, int]]) -> int:
    """Step over the DOCTYPE at `start` (its comments mended like any other); returns where it ends."""
    pos = _DOCTYPE_HEAD.match(data, start).end()  # type: ignore[union-attr]  # always matches at <!DOCTYPE
    if data[pos : pos + 1] != b"[":
        return pos
    pos += 1
    while (found := _IN_SUBSET.search(data, pos)) is not None:
        token = found.group()
        if token == b"<!--":
            pos = _comment(data, found.start(), mend)
        elif token == b"<?":
            pos = _past(data, found.end(), b"?>")
        elif token == b"]":
            return found.end()
        else:  # a quoted literal
            pos = _past(data, found.end(), token)
    return len(data)


def _comments_to_mend(data: bytes, pos: int) -> list[tuple[int, int]]:
    """The (start, end) of every comment body from `pos` on that XML forbids and TinyXML2 reads."""
    mend: list[tuple[int, int]] = []
    if data.find(b"<!--", pos) < 0:
        return mend
    while pos < len(data) and (found := _MARKUP.search(data, pos)) is not None:
        token = found.group()
        if token == b"<!--":
            pos = _comment(data, found.start(), mend)
        elif token == b"<?":
            pos = _past(data, found.end(), b"?>")
        elif token == b"<![CDATA[":
            pos = _past(data, found.end(), b"]]>")
        else:
            pos = _doctype(data, found.start(), mend)
    return mend


def _as_tinyxml2_reads(data: bytes) -> _Mended:
    """`data` as expat can read it where TinyXML2 (the parser of urdfdom, libsdformat and MuJoCo) is
    lenient, and nowhere else:

    * white space before the XML declaration is cut, and the lines and columns it held are added back
      to every position expat reports;
    * in a comment whose body holds `--` or ends with `-`, each `-` of the body becomes a space (byte
      for byte, so lines and columns stay); the comment still ends at the first `-->`, as in TinyXML2.

    Nothing else changes, so every element, attribute, DTD and entity declaration reaches expat (and
    defusedxml's refusals) exactly as written. Files in UTF-16 or UTF-32 are left alone (TinyXML2 reads
    neither). Linear in the size of the data; bytes are copied once, and only when a comment is mended
    or a byte-order mark must be kept in front of the declaration.
    """
    if data[:2] in (b"\xfe\xff", b"\xff\xfe") or b"\x00" in data[:4]:
        return _Mended(data, 0, 0)
    bom = 3 if data.startswith(_UTF8_BOM) else 0
    lead = _SPACE_BEFORE_DECLARATION.match(data, bom)
    cut = lead.end() if lead else bom
    mend = _comments_to_mend(data, cut)
    if lead is None and not mend:
        return _Mended(data, 0, 0)
    lines = columns = 0
    if lead is not None:
        space = data[bom:cut]
        lines = space.count(b"\n") + space.count(b"\r") - space.count(b"\r\n")  # expat's line breaks
        columns = len(space) - 1 - max(space.rfind(b"\n"), space.rfind(b"\r"))
        if not mend and not bom:
            return _Mended(memoryview(data)[cut:], lines, columns)  # no copy
    mended = bytearray(data[:bom])
    mended += memoryview(data)[cut:]
    shift = cut - bom
    for start, end in mend:
        mended[start - shift : end - shift] = mended[start - shift : end - shift].replace(b"-", b" ")
    return _Mended(mended, lines, columns)


@contextmanager
def _defused_parser() -> Iterator[Any]:
    """An expat parser with defusedxml's handlers installed (they refuse entities and external
    references), let go of on exit.

    defusedxml's driver and its parser refer to each other (the driver's methods are the parser's
    handlers). Left so, the parser, with the tree builder its handlers feed and expat's buffer,
    lives until Python's cyclic collector runs; after a refused 32 MiB token that is 700 MB."""
    driver = DefusedExpatParser()
    driver.reset()
    try:
        yield driver._parser
    finally:
        driver._parser = None


def _expat(data: _Mended, source: str | None, start: Any, end: Any = None, text: Any = None) -> None:
    """Run defusedxml's expat driver over `data` with the given element handlers."""
    with _defused_parser() as parser:
        _run_expat(parser, data, source, start, end, text)


def _run_expat(parser: Any, data: _Mended, source: str | None, start: Any, end: Any, text: Any) -> None:
    parser.buffer_text = True
    parser.specified_attributes = True  # a DTD's <!ATTLIST> defaults are not applied, as in TinyXML2
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        view = data.data
        # a file of one piece (no token in it can be too long) is handed over as the final one: after a piece
        # that is not final, expat counts lines over all of it again (a tenth of the parse of a URDF)
        if len(view) <= _PIECE:
            parser.Parse(view, True)
            return
        for at in range(0, len(view), _PIECE):
            parser.Parse(view[at : at + _PIECE], False)
            if at + _PIECE - parser.CurrentByteIndex > MAX_TOKEN_BYTES:  # where the unfinished token began
                raise XMLSyntaxError(
                    f"one tag, comment or other piece of markup is longer than {MAX_TOKEN_BYTES // 2**20} MiB,"
                    " more than robodesc reads",
                    location=Location(file=source, line=parser.CurrentLineNumber + data.lines),
                    suggestion="keep large data in a file (a mesh or height-field file) instead of an attribute",
                )
        parser.Parse(b"", True)
    except DefusedXmlException as exc:
        raise UnsafeXML(
            f"refused to parse: {type(exc).__name__} ({exc})",
            location=Location(file=source, line=parser.CurrentLineNumber + data.lines),
            suggestion="remove the DTD entity declarations; robodesc does not expand entities",
        ) from None
    except ExpatError as exc:
        column = exc.offset + (data.columns if exc.lineno == 1 else 0)
        where = Location(file=source, line=exc.lineno + data.lines, column=column)
        raise XMLSyntaxError(f"not well-formed XML: {ErrorString(exc.code)}", location=where) from None
    except (LookupError, ValueError) as exc:  # an unknown encoding named in the XML declaration
        raise XMLSyntaxError(
            f"cannot read the XML: {exc}", location=Location(file=source), suggestion='declare encoding="UTF-8"'
        ) from None


class Document:
    """One parsed XML file: its root element, and element lines and paths worked out on demand."""

    def __init__(self, root: Element, data: _Mended, source: str | None) -> None:
        self.root = root
        self.source = source
        self._data = data
        # the elements in document order as parsed: readers splice included files into the tree
        # (and out of theirs) before anything is reported, so lines are matched against this list
        self._elements = list(root.iter())
        self._lines: dict[int, int] | None = None
        self._parents: dict[int, Element] | None = None
        self._positions: dict[int, int] = {}  # element -> its place among same-tag siblings (path_of)

    def line_of(self, element: Element) -> int | None:
        if self._lines is None:
            lines: list[int] = []
            shift = self._data.lines
            with _defused_parser() as parser:
                parser.StartElementHandler = lambda name, attrs: lines.append(parser.CurrentLineNumber + shift)
                parser.Parse(self._data.data, True)
                parser.StartElementHandler = None  # the handler refers to the parser
            self._lines = {id(el): line for el, line in zip(self._elements, lines)}
        return self._lines.get(id(element))

    def may_hold(self, tag: bytes) -> bool:
        """Whether the file may hold an element named `tag`: False when its bytes hold no start tag of that
        name, so that a reader can skip a walk over every element for one that most files lack (an SDF
        <include>). A file in UTF-16 spells its tags in other bytes: it may hold any."""
        data = self._data.data
        if not isinstance(data, bytes) or data[:2] in (b"\xfe\xff", b"\xff\xfe") or b"\x00" in data[:4]:
            return True
        return b"<" + tag in data

    def pin_parents(self) -> None:
        """Record every element's parent now, so that element paths stay those of the file as written
        when a reader later moves elements (MJCF splices included files into the including tree)."""
        self.parent_of(self.root)

    def parent_of(self, element: Element) -> Element | None:
        if self._parents is None:
            self._parents = {id(child): parent for parent in self.root.iter() for child in parent}
        return self._parents.get(id(element))

    def _position(self, node: Element, parent: Element | None) -> int:
        """`node`'s place (from 1) among its parent's children of its tag. A parent's children are
        numbered once, when the first of them is asked for: a file with 20,000 unnamed siblings,
        each reported, costs 20,000 steps, not 20,000 squared."""
        if parent is None:
            return 1
        if id(node) not in self._positions:
            counts: dict[str, int] = {}
            for child in parent:
                counts[child.tag] = counts.get(child.tag, 0) + 1
                self._positions[id(child)] = counts[child.tag]
        return self._positions.get(id(node), 1)

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
                position = self._position(node, parent)
                parts.append(f"{node.tag}[{position}]" if position > 1 else node.tag)
            node = parent
        return "/" + "/".join(reversed(parts))


class DetachedDocument:
    """What a model's locations need of a document once the load is over: the bytes, not the tree.

    `Document.line_of` and `path_of` answer for elements of the tree, which every `Location` made by
    `Values.where` used to keep alive (three quarters of what a loaded URDF model held). A location
    detached by `LocatingValues.detach` names its element by its place in document order instead, and
    asks this object, which parses the bytes again on the first question: the same bytes give the
    same tree, so the same line and element path."""

    __slots__ = ("source", "_data", "_parsed")

    def __init__(self, data: _Mended, source: str | None) -> None:
        self.source = source
        self._data = data
        self._parsed: Document | None = None

    def _document(self) -> Document:
        if self._parsed is None:  # (the bytes parsed before, so they have a root)
            self._parsed = Document(_tree(self._data, self.source), self._data, self.source)  # type: ignore[arg-type]
        return self._parsed

    def line_of(self, index: int) -> int | None:
        document = self._document()
        return document.line_of(document._elements[index])

    def path_of(self, index: int) -> str:
        document = self._document()
        return document.path_of(document._elements[index])


#: Elements may nest this deep (the root is level 1), exactly as deep as TinyXML2, the parser of MuJoCo,
#: libsdformat and urdfdom, reads them: it counts the document itself as a level and stops at 500
#: (checked against MuJoCo). A deeper file is refused here, with its line.
MAX_DEPTH = 499


def _deeper_than(root: Element, limit: int) -> Element | None:
    """The first element nested deeper than `limit` levels (the root is level 1), or None.

    Walked level by level keeping only elements with children (most elements are leaves, and a leaf
    leads no deeper); the level past the limit is taken whole, so its first element is the one a
    walk over every element would give. Each level is made by C iterators (`chain` over each element's
    children as a list, `filter` by `len`), not a Python loop: every file of more than `limit`
    elements pays this walk."""
    if limit < 1:
        return root
    level, depth = [root], 1
    while level:
        if depth == limit:
            return next(chain.from_iterable(level), None)
        level = list(filter(len, chain.from_iterable(map(_CHILDREN, level))))
        depth += 1
    return None


#: an element's children as a list, in one call: cheaper to chain than the element itself, whose
#: iterator asks for one child at a time and ends on an IndexError
_CHILDREN = itemgetter(slice(None))


#: One piece of markup (a tag with its attributes, a comment, a CDATA section, a processing
#: instruction, a DOCTYPE) may be this long. pyexpat hands expat 1 MiB at a time, and expat (before
#: 2.6) scans an unfinished token again from its start with each piece, so a long one takes time
#: growing with the square of its length (80 MB: 7 s, 256 MB: over a minute). `_expat` feeds the
#: pieces itself and refuses a token still unfinished this far from its start, at its line, having
#: spent at most the time of this length. No description needs more: inline mesh or height-field
#: data of a million numbers is under 10 MB.
MAX_TOKEN_BYTES = 32 * 1024 * 1024
_PIECE = 1024 * 1024  # what pyexpat hands expat at a time


def _tree(data: _Mended, source: str | None) -> Element | None:
    """The element tree of `data` (None when it has no element at all), or a robodesc error."""
    builder = TreeBuilder()  # the C implementation: no Python call per element
    _expat(data, source, builder.start, builder.end, builder.data)
    try:
        return builder.close()  # the C TreeBuilder returns None when there was no element at all
    except AssertionError:  # ... the pure-Python one (no C accelerator) asserts instead
        return None


def parse_xml(data: bytes | str, source: str | None = None) -> Document:
    """Parse XML text into a `Document`, or raise a robodesc error naming the line."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data.strip():
        raise MissingRootElement(
            "the file is empty", location=Location(file=source), suggestion="check that the right file was given"
        )
    # Bytes TinyXML2 reads and expat refuses always make expat fail (white space before the declaration,
    # `--` in a comment), so the bytes are first parsed as written, and mended only when that fails: the
    # usual file is not scanned for comments to mend, and the result is the same as mending first.
    mended = _Mended(data, 0, 0)
    try:
        root = _tree(mended, source)
    except XMLSyntaxError:
        mended = _as_tinyxml2_reads(data)
        if mended.data is data:  # nothing to mend: the error stands
            raise
        root = _tree(mended, source)
    if root is None:
        raise MissingRootElement("the file has no root element", location=Location(file=source))
    document = Document(root, mended, source)
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


@contextmanager
def named_at(where: Location | None) -> Iterator[None]:
    """Around parsing a file another file names (an include, a sub-model, a model.config): a file that
    cannot be parsed is reported at its own line, and the message says which element named it."""
    try:
        yield
    except (XMLSyntaxError, UnsafeXML, MissingRootElement) as error:
        if where is None:
            raise
        raise type(error)(
            f"{error.message} (in the file named at {where})",
            location=error.location,
            construct=error.construct,
            suggestion=error.suggestion,
        ) from None


def to_xml(element: Element) -> str:
    """An element (and everything in it) as XML text."""
    return tostring(element, encoding="unicode").strip()


def plain_numbers(parts: Iterable[str], text: str) -> list[float] | None:
    """`parts` (cut from `text`) as numbers in one pass, when `text` is ASCII without `_` and every part
    is a finite number: what `Values.parse_number` gives each part. None for anything else (a sum past
    float included), which the caller's number-by-number path decides."""
    if text.isascii() and "_" not in text:
        try:
            values = list(map(float, parts))
        except ValueError:
            return None
        if math.isfinite(sum(values)):
            return values
    return None


class Values:
    """Reads typed values out of elements of one file, raising errors that say where."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.source = document.source

    def where(self, element: Element) -> Location:
        """The location of `element`; its line and path are worked out only if someone asks."""
        return lazy_location(self.source, self.document, element)

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

    def numbers_of(
        self, element: Element, names: tuple[str, ...], defaults: tuple[Any, ...] | None = None
    ) -> list[Any]:
        """`[self.number(element, name, default) for name, default in zip(names, defaults)]` (every
        attribute required when `defaults` is None): in one pass when all are written and plain;
        otherwise name by name, so that the first fault is the one reported."""
        texts: list[Any] = list(map(element.attrib.get, names))  # str, or None where not written
        if None not in texts:
            values = plain_numbers(texts, "".join(texts))
            if values is not None:
                return values
        if defaults is None:
            defaults = (MissingAttribute,) * len(names)
        return [self.number(element, name, default) for name, default in zip(names, defaults)]

    def parse_number(self, text: str, element: Element, name: str) -> float:
        """A finite decimal number; Python-only spellings (1_000, nan, inf, non-ASCII digits) are refused."""
        try:
            value = float(text)
            if math.isfinite(value) and text.isascii() and "_" not in text:
                return value
        except ValueError:
            pass
        raise MalformedValue(
            f"{name}={excerpt(text)} on <{element.tag}> is not a finite number",
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
        # the common case in one call (vectors are read for nearly every element); anything else
        # (a wrong count, a non-ASCII digit, a value past float) is worked out by `parse_vector`
        parts = text.split(None, count)
        if len(parts) == count:
            values = plain_numbers(parts, text)
            if values is not None:
                return values
        return self.parse_vector(text, element, name, count)

    def parse_vector(self, text: str, element: Element, name: str, count: int | None) -> list[float]:
        """Numbers separated by white space; `count` of them when given. A vector of N numbers is cut
        into at most N + 1 pieces before its count is checked, so a 100 MB attribute is refused
        without being cut into millions of strings, and a message quotes an excerpt of it."""
        parts = text.split() if count is None else text.split(None, count)
        if count is not None and len(parts) != count:
            found = len(parts) if len(parts) < count else f"more than {count}"
            raise MalformedValue(
                f"{name}={excerpt(text)} on <{element.tag}> has {found} value(s), expected {count}",
                location=self.where(element),
                construct=f"{element.tag}/@{name}",
                suggestion=f"give exactly {count} numbers separated by spaces",
            )
        return self.numbers(parts, text, element, name)

    def numbers(self, parts: list[str], text: str, element: Element, name: str) -> list[float]:
        """The numbers `parts` of attribute `name` (cut from `text` by the caller)."""
        values = plain_numbers(parts, text)  # the common case: one pass, no per-number calls
        if values is not None:
            return values
        return [self.parse_number(p, element, name) for p in parts]


class LocatingValues(Values):
    """`Values` whose locations, once `detach` lets go of the parsed tree, name their element by its place
    in document order (through a `DetachedDocument`), so that the model keeps the file's bytes, not
    the tree. An element the parse did not make (one spliced in from another file) stays located as
    `Values` locates it. With `keep_located`, the locations made are kept in `located` for a reader
    that must resolve some of them before the tree goes (MJCF, whose element paths count spliced
    elements); other readers keep none.

    Places are found by `detach`, for the located elements only (see `_places`): numbering every
    element up front (a dict of all of them) cost more than that (TALOS: 1,830 elements, 278
    located). Until then a location asks the parsed document, which gives the line and path the
    place would."""

    def __init__(self, document: Document, keep_located: bool = False) -> None:
        super().__init__(document)
        self._made: list[Location] = []  # every location made since the last `detach`
        self.located: list[Location] = self._made if keep_located else []

    def where(self, element: Element) -> Location:
        location = lazy_location(self.source, self.document, element)
        self._made.append(location)
        return location

    def detach(self) -> None:
        """Let go of the parsed tree: every location made so far then answers from the file's bytes, so
        that what the reader returns does not keep the tree alive."""
        made = self._made
        self._made = []
        self.located = self._made if self.located is made else []  # (kept from now on, as before)
        document = self.document
        mine = [location for location in made if location._document is document]
        if not mine:
            return
        places = _places(document._elements, [location._at for location in mine])
        detached = DetachedDocument(document._data, document.source)
        for location in mine:
            found = places[location._at]
            if found is not None:  # (None: spliced in from another file)
                location._document, location._at = detached, found


def _places(elements: list[Element], located: list[Element]) -> dict[Element, int | None]:
    """The place in `elements` (a document's, in document order) of each element of `located`, None for
    one that is not there. Readers locate elements nearly always in document order, so each is first
    looked for from the place of the one before (`list.index` compares identities in C); at the first
    that is not found so, all are found in one pass of C iterators over the elements. Either way the
    cost is at most two passes over the elements, however many are located."""
    places: dict[Element, int | None] = {}
    find = elements.index
    at = 0
    try:
        for element in located:
            places[element] = at = find(element, at)
        return places
    except ValueError:  # one located before the one before it, or not in the document (spliced in)
        pass
    places = dict.fromkeys(located)  # by identity
    for place in compress(range(len(elements)), map(places.__contains__, elements)):
        places[elements[place]] = place
    return places


_PROLOGUE = re.compile(rb"[ \t\r\n]*(<\?.*?\?>|<!--.*?-->)", re.S)
_DOCTYPE_NAME = re.compile(rb"[ \t\r\n]*<!DOCTYPE[ \t\r\n]+([^ \t\r\n\[>]+)")
_TAG = re.compile(rb"[ \t\r\n]*<([A-Za-z_][\w:.-]*)")


def _as_utf8(head: bytes) -> bytes:
    """The first bytes of an XML file as UTF-8: a UTF-8 byte-order mark dropped, UTF-16 (marked, or
    told by the zero byte beside the first `<` or space, as expat tells it) decoded; the rest as is."""
    if head.startswith(_UTF8_BOM):
        return head[3:]
    codec = None
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec, head = ("utf-16-le" if head[0] == 0xFF else "utf-16-be"), head[2:]
    elif len(head) >= 4 and head[1] == 0 and head[3] == 0 and head[0] != 0:
        codec = "utf-16-le"
    elif len(head) >= 4 and head[0] == 0 and head[2] == 0 and head[1] != 0:
        codec = "utf-16-be"
    if codec is None:
        return head
    return head[: len(head) // 2 * 2].decode(codec, "replace").encode("utf-8")


def root_tag(head: bytes) -> str | None:
    """The name of the top element of an XML file from its first bytes (for format sniffing), read as
    the parser reads it: UTF-8 or UTF-16, after a declaration, comments, processing instructions and
    a DOCTYPE with or without an internal subset. When the head ends before the top element (a long
    internal subset), the name the DOCTYPE gives it; None when neither is there."""
    head = _as_utf8(head)
    pos, declared = 0, None
    while True:
        match = _PROLOGUE.match(head, pos)
        if match:
            pos = match.end()
            continue
        match = _DOCTYPE_NAME.match(head, pos)
        if match is None:
            break
        declared = match.group(1).decode("utf-8", "replace")
        pos = _doctype(head, head.index(b"<!DOCTYPE", pos), [])
        end = head.find(b">", pos)
        if end < 0:
            return declared
        pos = end + 1
    match = _TAG.match(head, pos)
    return match.group(1).decode("ascii", "replace") if match else declared


def _is_empty(head: bytes) -> bool:
    """Whether a file starting with `head` holds nothing but white space (in any encoding read)."""
    return not _as_utf8(head).strip(b" \t\r\n\x00")


def xml_format(
    name: str,
    extensions: tuple[str, ...],
    root: str,
    package: str,
    description: str,
    writes: bool = False,
    claims_empty: bool = False,
) -> FormatSpec:
    """The `FormatSpec` of a built-in XML dialect: recognised by its top element, read by
    `<package>.reader.read` and, when `writes`, written by `<package>.write.write(model, context)`;
    both modules are imported on first use so that listing formats stays cheap.

    The top element is matched by its local name, so a namespaced `<x:robot>` reaches the reader,
    which says what is wrong with it at its line, instead of "cannot tell the format". With
    `claims_empty` the format also takes an empty file, so that an empty `.xml` (MJCF's usual
    extension) is reported as empty by its reader."""

    def sniff(head: bytes) -> bool:
        tag = root_tag(head)
        if tag is None:
            return claims_empty and _is_empty(head)
        return tag.rpartition(":")[2] == root

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
