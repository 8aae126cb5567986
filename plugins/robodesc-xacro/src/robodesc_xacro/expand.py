"""Expanding a xacro file with the `xacro` package, inside robodesc's rules.

xacro is written as a command: it keeps its state in module globals (the arguments, the stack of
files and macros, every file it included) and opens files, finds packages (through
ament_index_python) and prints warnings itself. To use it as a reader, one expansion at a time
holds `_LOCK` and, while it runs, replaces a few of xacro's module-level functions (all of them
restored afterwards, with the globals as they were):

* `parse` and `open`: every file xacro reads (includes, `xacro.load_yaml`) goes through
  `LoadContext.read`, so confinement, the size limit and the regular-file rule hold for them as
  for any file robodesc reads; each XML file is first parsed by robodesc's defusedxml parser (no
  entity declarations) and refused if it has a DOCTYPE at all, since minidom would apply it;
* `substitution_args._eval_find`: `$(find pkg)` asks robodesc's resolver (the
  `robodesc_resolve_uri` hook for `package://pkg/package.xml`, then the package folders the
  built-in resolver searches), never a ROS installation; a miss is a `ResourceNotFound` listing
  every folder tried;
* `eval_all`, `handle_macro_call`, `check_attrs`, `reqd_attrs` and minidom's `_clone_node`: only
  wrapped, to know which element of which file (and which macro call) was being expanded when
  something went wrong, since minidom keeps no line numbers; and to stop macro expansions that
  would build more elements than robodesc reads;
* `warning` and `print_location`: collected as diagnostics instead of printed.

The expanded document is handed to robodesc's URDF reader in memory with the same context, seen
as coming from a placeholder file name; every location the reader reports there (errors,
diagnostics, the model's elements) is mapped back to the element of the `.xacro` file (or of the
macro body, with the macro call that made it) the expanded element came from.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import glob as _glob
import io
import os
import threading
import types
import xml.dom.minidom as minidom
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from xml.parsers import expat

import robodesc
from robodesc import Location, Model, RobodescError
from robodesc.core.errors import (
    CyclicInclude,
    InvalidValue,
    ResourceNotFound,
    UnresolvedReference,
    UnsafeXML,
    XMLSyntaxError,
)
from robodesc.core.resources import LoadContext, ResourceRefused, confined_path, max_elements, package_roots
from robodesc.formats.xml import parse_xml

#: xacro's globals are one per process: one expansion at a time (re-entrant: a resolver plugin asked
#: during an expansion may itself load a xacro file in the same thread; the state is saved and restored
#: around each expansion, so a nested one leaves the outer one's as it found it)
_LOCK = threading.RLock()
#: the reader of the expanded document, by its root element: robot.urdf.xacro, world.sdf.xacro, scene.xml.xacro
_READERS = {"robot": "urdf", "sdf": "sdf", "mujoco": "mjcf"}
#: the file name the URDF reader sees for the expanded text; mapped back before anyone sees it
EXPANDED = "<expanded xacro>"

Origin = tuple[str | None, int | None]  # (file, line) of an element as written


@dataclasses.dataclass
class Expansion:
    """What one expansion produced: the URDF text, where each of its lines came from, and what xacro warned about."""

    text: str
    #: the expanded text's element start lines, ascending, and for each: where it was written, and
    #: the macro calls (innermost first) that put it there
    lines: list[int]
    origins: list[tuple[Origin, tuple[Origin, ...]]]
    warnings: list[tuple[str, Location]]
    files: list[str]
    root: str = "robot"  # the expanded document's root element

    def origin_of(self, line: int | None) -> tuple[Origin, tuple[Origin, ...]] | None:
        """Where the element on (or last started before) `line` of the expanded text was written."""
        if line is None or not self.lines:
            return None
        index = bisect.bisect_right(self.lines, line) - 1
        return self.origins[max(index, 0)]


class _Refused(Exception):
    """Raised from expat handlers: the file has a DOCTYPE or an entity declaration."""


def _element_lines(data: bytes, source: str | None) -> list[int]:
    """The line of every element's start tag, in document order (minidom's order too). A DOCTYPE
    is refused: minidom would apply an internal subset's attribute defaults."""
    parser = expat.ParserCreate()
    lines: list[int] = []

    def refuse(*_: Any) -> None:
        raise _Refused()

    parser.StartElementHandler = lambda name, attrs: lines.append(parser.CurrentLineNumber)
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except _Refused:
        raise UnsafeXML(
            "refused a document type declaration (DOCTYPE) in a xacro file",
            location=Location(file=source, line=parser.CurrentLineNumber),
            suggestion="remove the <!DOCTYPE ...>; xacro files need none, and robodesc applies no DTD",
        ) from None
    except expat.ExpatError as exc:
        raise XMLSyntaxError(
            f"not well-formed XML: {expat.ErrorString(exc.code)}",
            location=Location(file=source, line=exc.lineno, column=exc.offset),
        ) from None
    finally:
        parser.StartElementHandler = None  # the handler refers to the parser: no cycle left for the collector
    return lines


class _Expander:
    """One expansion of one xacro file: the side tables that give minidom's nodes a file and line,
    and the functions that stand in for xacro's own while it runs."""

    def __init__(self, context: LoadContext, xacro: Any) -> None:
        self.context = context
        self.xacro = xacro
        self.origin: dict[int, Origin] = {}  # id(element) -> where it was written
        self.calls: dict[int, list[Origin]] = {}  # id(element) -> macro calls that made it, innermost first
        self.keep: list[Any] = []  # every node keyed above, so that ids stay unique while we look
        self.call_stack: list[Origin] = []
        self.stack: list[Any] = []  # the elements eval_all is in, outermost first
        self.current: Any = None  # the xacro element being handled (check_attrs / reqd_attrs saw it)
        self.warnings: list[tuple[str, Location]] = []
        self.files: list[str] = []
        self.documents: list[Any] = []  # every minidom document parsed, unlinked when the expansion is over
        self.elements = 0
        self.limit = max_elements()

    # -- where things are ------------------------------------------------------------------------
    def mark(self, node: Any, origin: Origin) -> None:
        self.origin[id(node)] = origin
        self.keep.append(node)

    def location(self, node: Any) -> Location:
        file, line = self.origin.get(id(node), (None, None))
        return Location(file=file, line=line, element=getattr(node, "tagName", None))

    def handled(self, node: Any) -> Any:
        """The element being expanded inside `node`'s eval_all: a xacro element its loop is handling
        inline (`<xacro:if>`, `<xacro:arg>`, `<xacro:include>`, seen by check_attrs), else `node`."""
        current = self.current
        if current is not None and current.parentNode is node:
            return current
        return node

    def here(self) -> Location | None:
        """Where expansion is now, for a file or package that is being looked for."""
        node = self.handled(self.stack[-1] if self.stack else None)
        return self.location(node) if node is not None else None

    def blame(self, exc: BaseException, node: Any) -> None:
        """Record (once: the innermost handler wins) the element `exc` is about, and the macro calls
        it sits in."""
        if getattr(exc, "_robodesc_xacro_where", None) is not None:
            return
        node = self.handled(node)
        try:
            exc._robodesc_xacro_where = (self.location(node), tuple(self.call_stack))  # type: ignore[attr-defined]
        except AttributeError:  # an exception type without a __dict__: no location, still translated
            pass

    # -- reading files ---------------------------------------------------------------------------
    def parse_bytes(self, data: bytes, source: str | None) -> Any:
        """`data` as a minidom document, checked by robodesc's XML parser first, with its elements' lines recorded."""
        parse_xml(data, source)  # defusedxml: entity declarations and bad XML refused, with the line
        lines = _element_lines(data, source)
        try:
            document = minidom.parseString(data)
        except expat.ExpatError as exc:  # what robodesc's parser reads as TinyXML2 does, minidom refuses
            raise XMLSyntaxError(
                f"not well-formed XML for xacro: {expat.ErrorString(exc.code)}",
                location=Location(file=source, line=exc.lineno, column=exc.offset),
            ) from None
        self.documents.append(document)
        for element, line in zip(document.getElementsByTagName("*"), lines):
            self.mark(element, (source, line))
        if source is not None:
            self.files.append(source)
        return document

    def read(self, path: str, what: str) -> bytes:
        """A file xacro asked for, read as robodesc reads any file (confinement, limits, regular files only)."""
        return self.context.read(path, what=what, location=self.here(), construct=path)

    def parse(self, inp: Any, filename: str | None = None) -> Any:
        """Stands in for `xacro.parse`: includes are read here, never by minidom from the file system."""
        if inp is not None:
            return self.parse_bytes(inp.encode("utf-8") if isinstance(inp, str) else inp, filename)
        path = os.path.normpath(os.path.abspath(filename or ""))
        stack = self.xacro.filestack or []
        if path in (os.path.normpath(os.path.abspath(f)) for f in stack[:-1] if f):
            raise CyclicInclude(
                f"{path} includes itself (through {' -> '.join(str(f) for f in stack)})",
                location=self.here(),
                construct=path,
            )
        try:
            data = self.read(path, "included xacro file")
        except FileNotFoundError as exc:
            stack.pop()  # as xacro's parse does: the missing file is not "the file being processed"
            raise self.xacro.XacroException(f"No such file or directory: {path}", exc=exc) from None
        except OSError as exc:
            stack.pop()
            raise self.xacro.XacroException(f"{exc.strerror or exc}: {path}", exc=exc) from None
        return self.parse_bytes(data, path)

    def open(self, filename: str, *_: Any, **__: Any) -> io.StringIO:
        """Stands in for `open` inside xacro (`xacro.load_yaml`)."""
        return io.StringIO(self.read(os.fspath(filename), "YAML file xacro loads").decode("utf-8"))

    def glob(self, pattern: str) -> list[str]:
        """Stands in for `glob.glob` in `<xacro:include filename="dir/*.xacro">`: in a confined load the
        folder is checked before it is listed, and each match is checked again when it is read."""
        if self.context.allowed_roots is not None:
            fixed = re_magic_prefix(pattern)
            self.context.permitted(fixed, "folder a xacro include lists", self.here(), pattern)
        return _glob.glob(pattern)

    # -- $(find pkg) -------------------------------------------------------------------------------
    def find(self, package: str) -> str:
        """The folder of ROS package `package`, found as robodesc finds `package://package/...`, as
        an absolute path as ROS gives it: xacro reads an include's relative filename from the
        including file's folder, so a folder found through a relative search path must not stay
        relative."""
        where = self.here()
        uri = f"package://{package}/package.xml"
        found, tried = self.context.resolve(uri, where)
        if found is not None:
            return os.path.abspath(os.path.dirname(found))
        roots = self.context.allowed_roots
        folders = package_roots(package, self.context.base_dir, self.context.search_paths)
        for folder in folders:
            real = folder if roots is None else confined_path(folder, roots)
            if real is not None and os.path.isdir(real):
                return os.path.abspath(folder)
        listed = list(dict.fromkeys([*folders, *(os.path.dirname(t) for t in tried)]))
        raise ResourceNotFound(
            f"$(find {package}): no package {package!r}",
            tried=listed,
            location=where,
            construct=f"$(find {package})",
            suggestion=f"add the folder holding {package}/ to search_paths (--search-path DIR) or ROS_PACKAGE_PATH",
        )

    def wrap_filename(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """`<xacro:include filename="package://pkg/...">` (and `xacro.load_yaml('package://...')`): ROS 2's
        newer xacro reads package URIs there; resolved here as robodesc resolves any `package://`."""

        def abs_filename_spec(spec: str) -> str:
            if not isinstance(spec, str) or not spec.startswith("package://"):
                return original(spec)
            found, tried = self.context.resolve(spec, self.here())
            if found is None:
                raise ResourceNotFound(
                    f"{spec} not found",
                    tried=tried,
                    construct=spec,
                    suggestion="add the folder holding the package to search_paths (--search-path DIR) "
                    "or ROS_PACKAGE_PATH",
                )
            return found

        return abs_filename_spec

    # -- wrappers around xacro's own functions ---------------------------------------------------
    def blamed(self, original: Callable[..., Any], node: Any, macros: Any, symbols: Any) -> Any:
        """`original(node, macros, symbols)`, with an error it raises blamed on `node`."""
        try:
            return original(node, macros, symbols)
        except Exception as exc:
            self.blame(exc, node)
            raise

    def wrap_eval_all(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def eval_all(node: Any, macros: Any, symbols: Any) -> Any:
            self.stack.append(node)
            result = self.blamed(original, node, macros, symbols)
            self.stack.pop()  # left in place on an error: `here` and `blame` still see the path
            return result

        return eval_all

    def wrap_attrs(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def attrs(tag: Any, *args: Any, **kwargs: Any) -> Any:
            self.current = tag
            return original(tag, *args, **kwargs)

        return attrs

    def wrap_macro_call(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def handle_macro_call(node: Any, macros: Any, symbols: Any) -> Any:
            if not node.tagName.startswith("xacro:"):
                return False
            parent = node.parentNode
            before = list(parent.childNodes) if parent is not None else []
            known = {id(child) for child in before}
            site = self.origin.get(id(node), (None, None))
            self.current = node
            self.call_stack.append(site)
            done = self.blamed(original, node, macros, symbols)
            self.call_stack.pop()  # left in place on an error, as eval_all's stack
            if done and parent is not None:
                for child in parent.childNodes:
                    if id(child) in known or child.nodeType != child.ELEMENT_NODE:
                        continue
                    for element in (child, *child.getElementsByTagName("*")):
                        self.calls.setdefault(id(element), []).append(site)
                        self.keep.append(element)
            return done

        return handle_macro_call

    def wrap_clone(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def _clone_node(node: Any, deep: Any, owner: Any) -> Any:
            clone = original(node, deep, owner)
            origin = self.origin.get(id(node))
            if origin is not None:
                self.mark(clone, origin)
                self.elements += 1
                if self.elements > self.limit:
                    raise ResourceRefused(
                        f"the macros expand to more than {self.limit} elements, more than robodesc reads",
                        location=self.here(),
                        suggestion="check for macros that call each other without end; if the robot is right, "
                        "raise ROBODESC_MAX_ELEMENTS",
                    )
            return clone

        return _clone_node

    def wrap_extension(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """`$(dirname)` is the folder of the file being expanded (an included file's, inside it)."""

        def eval_extension(text: str) -> Any:
            stack = self.xacro.filestack
            self.xacro.substitution_args_context["filename"] = stack[-1] if stack else None
            return original(text)

        return eval_extension

    def warning(self, *args: Any, **_: Any) -> None:
        where = self.here() or Location(file=self.context.source)
        self.warnings.append((" ".join(str(a) for a in args), where))


def re_magic_prefix(pattern: str) -> str:
    """The folder part of a glob pattern before its first wildcard."""
    cut = min((i for i in (pattern.find(c) for c in "*?[") if i >= 0), default=len(pattern))
    return os.path.dirname(pattern[:cut]) or "."


@contextmanager
def _patched(target: Any, name: str, value: Any) -> Iterator[None]:
    """`target.name` is `value` inside the block, and as it was (or absent) after it."""
    missing = object()
    old = vars(target).get(name, missing)
    setattr(target, name, value)
    try:
        yield
    finally:
        if old is missing:
            delattr(target, name)
        else:
            setattr(target, name, old)


def _import_xacro() -> Any:
    try:
        import xacro
        import xacro.substitution_args
    except ImportError as exc:  # installed without its dependency, or a broken install
        raise robodesc.MissingDependency(f"reading xacro needs the xacro package: {exc}", package="xacro") from None
    return xacro


def _expand_document(expander: _Expander, data: bytes, source: str | None, args: dict[str, str]) -> Any:
    """Run xacro over the parsed `data` with every patch in place; xacro's globals restored after."""
    xacro = expander.xacro
    subst = xacro.substitution_args
    base = expander.context.base_dir
    with _LOCK:  # xacro's functions are read (to wrap them) and replaced only while holding it
        patches = [
            (xacro, "parse", expander.parse),
            (xacro, "open", expander.open),
            (xacro, "glob", types.SimpleNamespace(glob=expander.glob)),  # not a class: a class is a cycle
            (xacro, "eval_all", expander.wrap_eval_all(xacro.eval_all)),
            (xacro, "handle_macro_call", expander.wrap_macro_call(xacro.handle_macro_call)),
            (xacro, "check_attrs", expander.wrap_attrs(xacro.check_attrs)),
            (xacro, "reqd_attrs", expander.wrap_attrs(xacro.reqd_attrs)),
            (xacro, "warning", expander.warning),
            (xacro, "abs_filename_spec", expander.wrap_filename(xacro.abs_filename_spec)),
            (xacro, "eval_extension", expander.wrap_extension(xacro.eval_extension)),
            (xacro, "print_location", lambda *a, **k: None),
            (subst, "_eval_find", expander.find),
            (minidom, "_clone_node", expander.wrap_clone(minidom._clone_node)),  # type: ignore[attr-defined]
        ]
        saved = (
            dict(xacro.substitution_args_context),
            xacro.filestack,
            xacro.macrostack,
            list(xacro.all_includes),
            xacro.verbosity,
            xacro.root_dir,
            subst._eval_dict.get("find"),
        )
        try:
            with _all(patches):
                subst._eval_dict["find"] = expander.find
                document = expander.parse_bytes(data, source)
                # relative includes and $(dirname) are taken from the file; text given to loads sits in base_dir
                xacro.init_stacks(source or os.path.join(base, "<string>"))
                xacro.root_dir = os.curdir
                xacro.process_doc(document, mappings=dict(args), verbosity=1)
                return document
        finally:
            context, xacro.filestack, xacro.macrostack, includes, xacro.verbosity, xacro.root_dir, find = saved
            xacro.substitution_args_context.clear()
            xacro.substitution_args_context.update(context)
            xacro.all_includes[:] = includes
            subst._eval_dict["find"] = find


@contextmanager
def _all(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    if not patches:
        yield
        return
    (target, name, value), rest = patches[0], patches[1:]
    with _patched(target, name, value), _all(rest):
        yield


def _cause(exc: BaseException) -> BaseException:
    """The error under xacro's wrappers (`XacroException(exc=...)`)."""
    seen = set()
    while getattr(exc, "exc", None) is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.exc  # type: ignore[attr-defined]
    return exc


def _where(exc: BaseException, fallback: Location) -> tuple[Location, tuple[Origin, ...]]:
    """The location recorded on `exc` (or on one of the exceptions xacro wrapped it in)."""
    seen = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        found = getattr(node, "_robodesc_xacro_where", None)
        if found is not None:
            return found
        node = getattr(node, "exc", None)
    return fallback, ()


def _via(calls: tuple[Origin, ...] | list[Origin]) -> str:
    """' (in the macro called at robot.urdf.xacro:12, called at ...)' for a message."""
    sites = [f"{file or '<string>'}:{line}" for file, line in reversed(list(calls))]
    # call_stack is outermost first; the calls recorded on elements are innermost first
    return f" (in the macro called at {', called at '.join(sites)})" if sites else ""


def _relocated(error: RobodescError, location: Location, note: str = "") -> RobodescError:
    """`error` (its own class and fields, `tried` too) at `location`, with `note` added to its message."""
    moved = copy.copy(error)
    moved.location = location
    moved.message = error.message + note
    moved.args = (moved._render(),)
    moved.__cause__ = error.__cause__
    return moved


def _translate(exc: BaseException, source: str | None) -> RobodescError:
    """What xacro raised, as the robodesc error a user reads: located in the file they wrote."""
    where, calls = _where(exc, Location(file=source))
    if calls and calls[-1] == (where.file, where.line):
        calls = calls[:-1]  # the error is at the macro call itself: no need to say it is in that call
    via = _via(calls[::-1])  # call_stack is outermost first: innermost first for _via
    cause = _cause(exc)
    if isinstance(cause, RobodescError):
        if cause is exc and (cause.location.file is not None or cause.location.line is not None):
            return cause  # ours, raised straight through xacro, and located already
        # a copy: the error xacro wrapped refers to the wrapper (`exc`), which will be the copy's cause
        located = cause.location.file is not None or cause.location.line is not None
        return _relocated(cause, cause.location if located else where, "" if located else via)
    text = " ".join(str(exc).split())
    name = type(cause).__name__
    if isinstance(cause, FileNotFoundError):
        missing = cause.filename or text
        return ResourceNotFound(
            f"xacro include not found: {missing}{via}",
            tried=[str(missing)],
            location=where,
            construct=str(missing),
            suggestion='check the filename, or mark the include optional="true"',
        )
    if name == "ArgException":
        return UnresolvedReference(
            f"$(arg {cause}) is not set and has no <xacro:arg> default{via}",
            location=where,
            construct=f"$(arg {cause})",
            suggestion=f"pass it: args={{'{cause}': '...'}} (--arg {cause}:=VALUE), or declare "
            f'<xacro:arg name="{cause}" default="..."/>',
        )
    if isinstance(cause, NameError) or "unknown macro name" in text or "Undefined" in text:
        return UnresolvedReference(f"xacro: {text}{via}", location=where, construct=where.element)
    if isinstance(cause, RecursionError):
        return InvalidValue(
            f"xacro: macros or properties refer to each other without end{via}", location=where, construct=where.element
        )
    return InvalidValue(f"xacro: {text or name}{via}", location=where, construct=where.element)


def expand(data: bytes, context: LoadContext) -> Expansion:
    """Expand xacro `data` (the file `context.source`, or text in `context.base_dir`) to URDF text,
    with `context.args` as the `<xacro:arg>` values. Raises robodesc errors only, located in the
    xacro file the user wrote."""
    xacro = _import_xacro()
    expander = _Expander(context, xacro)
    source = context.source
    # the lock is held until the document is written out: xacro moves one shared text node
    # (`xacro._empty_text_node`) from document to document, and dropping it from this one must not
    # race with another expansion inserting it into theirs
    with _LOCK:
        try:
            try:
                document = _expand_document(expander, data, source, context.args)
            except Exception as exc:  # xacro's own errors, whatever a user's ${expression} raised, and ours
                error: list[BaseException] = [_translate(exc, source)]
                try:
                    if error[0] is exc:
                        raise
                    raise error[0] from exc
                finally:
                    error.clear()  # this frame is in the error's traceback: no cycle through it
            root = document.documentElement
            tag = root.tagName
            _drop_blank_text(root)
            text = root.toprettyxml(indent="  ")
            finals = [root, *root.getElementsByTagName("*")]
            origins = [
                (expander.origin.get(id(e), (source, None)), tuple(expander.calls.get(id(e), ()))) for e in finals
            ]
        finally:
            _unlink(expander)
    lines = _element_lines(text.encode("utf-8"), EXPANDED)
    return Expansion(text, lines, origins, expander.warnings, expander.files, tag)


def _unlink(expander: _Expander) -> None:
    """Break the parent/child cycles of every document the expansion parsed (minidom's `unlink`), so
    that they are freed when the load returns, as everything a robodesc load parses is, rather than
    when Python's cyclic collector next runs. xacro's shared text node is detached first: it is not ours."""
    shared = getattr(expander.xacro, "_empty_text_node", None)
    if shared is not None and shared.parentNode is not None:
        shared.parentNode.removeChild(shared)
    for document in expander.documents:
        document.unlink()
    for node in expander.keep:  # macro bodies and their clones are in no document any more
        node.unlink()
    expander.documents.clear()
    expander.keep.clear()


def _drop_blank_text(element: Any) -> None:
    """Drop white-space text (and comments) so that every element of the expanded text starts its own line."""
    for child in list(element.childNodes):
        if child.nodeType == child.COMMENT_NODE or (child.nodeType == child.TEXT_NODE and not child.data.strip()):
            element.removeChild(child)
        elif child.nodeType == child.ELEMENT_NODE:
            _drop_blank_text(child)


def _map(location: Location, expansion: Expansion) -> tuple[Location, str] | None:
    """A location in the expanded text as a location in the xacro file, and the macro calls note."""
    if location.file != EXPANDED:
        return None
    found = expansion.origin_of(location.line)
    if found is None:
        return Location(file=None, element=location.element), ""
    (file, line), calls = found
    return Location(file=file, line=line, element=location.element), _via(calls)


def _relocate_model(model: Model, expansion: Expansion) -> None:
    """Every `Location` of the expanded text in `model` (bodies, joints, shapes, extras,
    diagnostics) changed in place to the place in the xacro file it came from."""
    seen: set[int] = set()
    stack: list[Any] = [model]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Location):
            mapped = _map(item, expansion)
            if mapped is not None:
                element = item.element
                item.file, item._line, item._element, item._node = mapped[0].file, mapped[0].line, element, None
            continue
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item) if not f.name.startswith("_"))


def read(data: bytes, context: LoadContext) -> Model:
    """The `xacro` format's reader: expand, then read the result with robodesc's reader for its root
    element (URDF for `<robot>`; SDF, MJCF for `<sdf>`, `<mujoco>`), in memory and with this load's
    context (its search paths, confinement, limits and cache)."""
    expansion = expand(data, context)
    encoded = expansion.text.encode("utf-8")
    limit = context.limit("file")
    if len(encoded) > limit:
        raise ResourceRefused(
            f"the xacro file expands to {len(encoded)} bytes of URDF, more than the limit of {limit} bytes",
            location=Location(file=context.source),
            suggestion="if the robot is right, raise the limit: ROBODESC_MAX_FILE_BYTES=BYTES",
        )
    reader = robodesc.default_registry().get(_READERS.get(expansion.root, "urdf"))
    assert reader.read is not None  # robodesc's own formats read
    inner = dataclasses.replace(context, source=EXPANDED, format=reader.name)
    try:
        model = reader.read(encoded, inner)
    except RobodescError as error:
        mapped = _map(error.location, expansion)
        if mapped is None:
            raise
        raise _relocated(error, mapped[0], mapped[1]) from error
    _relocate_model(model, expansion)
    model.source = context.source
    for message, where in expansion.warnings:
        model.diagnose(robodesc.Severity.WARNING, "xacro-warning", message, where)
    return model
