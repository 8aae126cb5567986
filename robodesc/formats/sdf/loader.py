"""The files of one SDF load: which file an include names, each file parsed once, include loops.

libsdformat finds an included model through its URI (`model://NAME` in the model paths, `file://`
and relative paths beside the including file, a model folder through its `model.config`); this
module does the same, and keeps every parsed file in the SDF namespace of the load's cache
(`context.cache_for("sdf")`), so a model included a thousand times is read once. A URDF file
included from SDF goes to the URDF reader and comes back as a parsed model.

How one document is parsed is not this module's business: `Loader` is given that function
(`parse.parse_file`), so the modules that parse elements can reach the load's files through the
file context without importing the parser that uses them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from ...core.errors import CyclicInclude, Location, ResourceNotFound, RobodescError
from ...core.resources import MODEL_PATH_VARIABLES, LoadContext, ResourceRefused, env_paths
from ..xml import Document, named_at, parse_xml, root_tag
from .desc import FileDesc
from .spec import LATEST_VERSION, parse_version
from .urdf import model_desc_from_urdf
from .values import text_of


class ParseFile(Protocol):
    """Parses one SDF document, whose relative URIs resolve against `base_dirs`, for a loader;
    `edited`: the tree is no longer as parsed (`<experimental:params>` changed it)."""

    def __call__(self, loader: Loader, document: Document, base_dirs: list[str], edited: bool = False) -> FileDesc: ...


@dataclass
class _Pending:
    """A file of the include tree being read (`Loader._read_tree`)."""

    key: tuple[str, str | None]  # (absolute path, model folder it was found through)
    where: Location | None  # the <uri> that names it
    document: Document | None = None  # None for a URDF file
    bases: list[str] = field(default_factory=list)  # where its relative URIs resolve
    includes: Iterator[tuple[tuple[str, str | None], Location]] | None = None  # None until it is read


class Loader:
    """One top-level load: parses each file once, resolves includes, detects include cycles."""

    def __init__(self, context: LoadContext, parse: ParseFile) -> None:
        self.context = context
        self.parse = parse
        self.stack: list[str] = []  # the files being parsed, outermost first (an include loop returns to one)
        cache = context.cache_for("sdf")  # shared by every SDF file of the load, nested loads too
        #: (absolute path, model folder it was found through) -> the file's parsed form
        self.files: dict[tuple[str, str | None], FileDesc] = cache.setdefault("files", {})
        #: folder -> the load seen from that folder (relative URIs of the files there)
        self.contexts: dict[str, LoadContext] = cache.setdefault("contexts", {})
        #: (include URI, folders it resolves against) -> what `include_path` found for it: each include is
        #: resolved twice (the include tree is read ahead of the parse), a model included N times once
        self.included: dict[tuple[str, tuple[str, ...]], tuple[str, str | None]] = cache.setdefault("included", {})
        #: files that failed to read or parse, with their error (raised wherever they are included)
        self.failed: dict[tuple[str, str | None], RobodescError] = {}
        #: (path, model folder) as an include names them -> the file's key in `files` (its absolute path)
        self._keys: dict[tuple[str, str | None], tuple[str, str | None]] = {}

    # -- files -----------------------------------------------------------------------------
    def parse_text(self, data: bytes, source: str | None, base_dir: str) -> FileDesc:
        """The top-level file of the load."""
        document = parse_xml(data, source)
        if source is not None:
            self.stack.append(os.path.abspath(source))
        self._read_included(document, [base_dir])
        return self.parse(self, document, [base_dir])

    def file_desc(self, path: str, where: Location | None, folder: str | None = None) -> FileDesc:
        """The parsed form of the SDF (or URDF) file at `path`, parsed once per load.

        `folder` is the model folder the file was found through, if any: libsdformat then also
        resolves the file's own relative includes against the folder that holds the model folder.
        """
        key = self._keys.get((path, folder))
        if key is None:  # (a model included a thousand times is looked up by the path its includes give)
            key = self._keys[path, folder] = (os.path.abspath(path), folder)
        if key not in self.files and key not in self.failed:
            if key[0] in self.stack:
                chain = " -> ".join(os.path.basename(p) for p in (*self.stack[self.stack.index(key[0]) :], key[0]))
                raise CyclicInclude(
                    f"files include each other in a loop: {chain}",
                    location=where,
                    construct=key[0],
                    suggestion="remove one <include> of the loop",
                )
            self._read_tree(key, where)
        failed = self.failed.get(key)
        if failed is not None:
            raise failed
        return self.files[key]

    def _read_included(self, document: Document, base_dirs: list[str]) -> None:
        """Read the files `document` includes (and theirs) before it is parsed, see `_read_tree`."""
        for key, where in self._includes(document, base_dirs):
            if key not in self.files and key not in self.failed and key[0] not in self.stack:
                self._read_tree(key, where)

    def _read_tree(self, top: tuple[str, str | None], top_where: Location | None) -> None:
        """Parse the file `top` and every file it includes, each after the files it includes.

        Includes nest as deep as files do, so the include tree is walked with a stack, not by
        recursion: a file's includes are found in its XML first, those files are parsed (theirs
        first), and only then the file itself, whose parser then finds every include already parsed
        (`file_desc`). The parse of each file is the one a recursive reader would make, errors
        included: a file that fails is remembered with its error, raised where it is included (an
        include that cannot be found or that closes a loop is left for the parser to report).
        """
        frames: list[_Pending] = [_Pending(top, top_where)]
        while frames:
            frame = frames[-1]
            path, folder = frame.key
            if frame.includes is None:  # first visit: read the file, find what it includes
                try:
                    data = self.read(path, frame.where)
                    if root_tag(data[:4096]) != "robot":
                        with named_at(frame.where):
                            frame.document = parse_xml(data, path)
                except RobodescError as error:
                    self.failed[frame.key] = error
                    frames.pop()
                    continue
                self.stack.append(path)
                frame.bases = include_bases(path, folder)
                frame.includes = iter(self._includes(frame.document, frame.bases) if frame.document else ())
            following = next(frame.includes, None)
            if following is not None:
                key, where = following
                if key not in self.files and key not in self.failed and key[0] not in self.stack:
                    frames.append(_Pending(key, where))
                continue
            try:  # everything it includes is read: the file itself
                if frame.document is None:
                    with named_at(frame.where):  # a URDF file that is no XML names the include too
                        self.files[frame.key] = self.urdf_desc(path, frame.where)
                else:
                    self.files[frame.key] = self.parse(self, frame.document, frame.bases)
            except RobodescError as error:
                self.failed[frame.key] = error
            finally:
                self.stack.pop()
                frames.pop()

    def _includes(self, document: Document, base_dirs: list[str]) -> list[tuple[tuple[str, str | None], Location]]:
        """(file key, where its <uri> is) of each `<include>` in `document` that names a file; an
        include that does not is skipped here and reported by the parser where it meets it."""
        found: list[tuple[tuple[str, str | None], Location]] = []
        if not document.may_hold(b"include"):
            return found
        for include in document.root.iter("include"):
            uri_el = include.find("uri")
            uri = text_of(uri_el) if uri_el is not None else ""
            if not uri or uri_el is None:
                continue
            where = Location(file=document.source, node=(document, uri_el))
            try:
                path, folder = self.include_path(uri, where, base_dirs)
            except RobodescError:
                continue
            found.append(((os.path.abspath(path), folder), where))
        return found

    def read(self, path: str, where: Location | None) -> bytes:
        """The bytes of a file the load names (bounded, regular files only, confined when the load is)."""
        try:
            return self.context.read(path, what="included file", location=where, construct=path)
        except OSError as exc:
            raise ResourceNotFound(
                f"cannot read {path}: {exc.strerror or exc}", location=where, construct=path
            ) from None

    def urdf_desc(self, path: str, where: Location | None) -> FileDesc:
        """A URDF file included from SDF: loaded by the URDF reader, then seen as an SDF model."""
        if self.context.load_file is None:
            raise ResourceNotFound(
                f"{path} is a URDF file and no URDF reader is available", location=where, construct=path
            )
        model = self.context.load_file(path, format="urdf")
        desc = FileDesc(source=path, version=LATEST_VERSION, model=model_desc_from_urdf(model, path))
        desc.diagnostics = list(model.diagnostics)
        return desc

    # -- URIs ------------------------------------------------------------------------------
    def context_at(self, base_dir: str) -> LoadContext:
        if base_dir == self.context.base_dir:
            return self.context
        found = self.contexts.get(base_dir)
        if found is None:  # the same load (cache, resolver, search paths) seen from another folder
            found = self.contexts[base_dir] = self.context.at(base_dir)
        return found

    def resolve(self, uri: str, base_dirs: list[str], where: Location | None = None) -> tuple[str | None, list[str]]:
        """A local path for `uri`, as libsdformat finds includes and meshes.

        `model://NAME/rest` through the model paths; `file://` and relative paths against the
        including file's folder, and a relative path that is not there through the model paths
        too (libsdformat's find-file callback does the same).
        """
        tried: list[str] = []
        bare = "://" not in uri and not os.path.isabs(uri)
        for base_dir in base_dirs:
            path, attempts = self.context_at(base_dir).resolve(uri, where)
            tried.extend(t for t in attempts if t not in tried)
            if path is not None:
                return path, tried
        if bare and uri:
            path, attempts = self.context_at(base_dirs[0]).resolve("model://" + uri, where)
            tried.extend(t for t in attempts if t not in tried)
            if path is not None:
                return path, tried
        return None, tried

    def model_paths(self) -> list[str]:
        return [*self.context.search_paths, *env_paths(MODEL_PATH_VARIABLES)]

    def resolve_include(
        self, uri: str, base_dirs: list[str], where: Location | None = None
    ) -> tuple[str | None, list[str]]:
        """Like `resolve`, for an include URI, which may also name a model folder."""
        path, tried = self.resolve(uri, base_dirs, where)
        if path is not None:
            return path, tried
        # model folders (and files the resolver did not find): libsdformat's own lookup
        candidates: list[str] = []
        if uri.startswith("model://"):
            rest = uri[len("model://") :]
            candidates = [os.path.join(root, rest) for root in self.model_paths()]
        elif uri.startswith("file://"):
            rest = uri[len("file://") :]
            candidates = [rest] if os.path.isabs(rest) else [os.path.join(b, rest) for b in base_dirs]
        elif "://" not in uri:
            if os.path.isabs(uri):
                candidates = [uri]
            else:
                candidates = [os.path.join(b, uri) for b in base_dirs]
                candidates += [os.path.join(root, uri) for root in self.model_paths()]
        for candidate in candidates:
            if candidate not in tried:
                tried.append(candidate)
            if self.context.exists(candidate):
                return os.path.normpath(candidate), tried
        return None, tried

    def include_path(self, uri: str, where: Location, base_dirs: list[str]) -> tuple[str, str | None]:
        """(the SDF file an include URI names, the model folder it was found through or None).

        A URI naming a model folder gives the folder's best file by its model.config. What is found is
        remembered for the load (a failure is not: it is raised again, located at each include).
        """
        key = (uri, tuple(base_dirs))
        found = self.included.get(key)
        if found is None:
            found = self.included[key] = self._include_path(uri, where, base_dirs)
        return found

    def _include_path(self, uri: str, where: Location, base_dirs: list[str]) -> tuple[str, str | None]:
        path, tried = self.resolve_include(uri, base_dirs, where)
        if path is None:
            raise ResourceNotFound(
                f"cannot find the included model {uri!r}",
                tried=tried,
                location=where,
                construct=uri,
                suggestion="pass search_paths=[...] or set GZ_SIM_RESOURCE_PATH to the folder holding the model",
            )
        if os.path.isdir(path):
            return model_file_of(path, where, self.context), path
        return path, None


def include_bases(path: str, folder: str | None) -> list[str]:
    """The folders an included file's own relative URIs resolve against: its own, and (found
    through a model folder) the folder holding that model folder, as libsdformat does."""
    bases = [os.path.dirname(path)]
    if folder is not None and os.path.dirname(os.path.abspath(folder)) not in bases:
        bases.append(os.path.dirname(os.path.abspath(folder)))
    return bases


def model_file_of(folder: str, where: Location, context: LoadContext) -> str:
    """The description file a model folder names in its model.config (libsdformat's choice).

    Among the `<sdf version="...">` entries the highest version libsdformat can read wins; with
    no version at all the first entry is used.
    """
    config = os.path.join(folder, "model.config")
    if not context.exists(config):
        manifest = os.path.join(folder, "manifest.xml")
        if not context.exists(manifest):
            raise ResourceNotFound(
                f"the model folder {folder} has no model.config",
                tried=[config, manifest],
                location=where,
                construct=folder,
                suggestion="add a model.config naming the model's SDF file",
            )
        config = manifest
    try:
        with named_at(where):
            document = parse_xml(context.read(config, location=where, construct=config), config)
    except ResourceRefused:
        raise
    except (OSError, RobodescError) as exc:
        raise ResourceNotFound(f"cannot read {config}: {exc}", location=where, construct=config) from None
    entries = document.root.findall("sdf")
    best, best_version = None, (0, 0)
    for entry in entries:
        version = parse_version(entry.get("version") or "")
        if version is not None and best_version < version <= LATEST_VERSION:
            best, best_version = entry, version
    if best is None and entries:
        best = entries[0]
    if best is None or not text_of(best):
        raise ResourceNotFound(
            f"{config} names no SDF file (no <sdf> entry)",
            location=where,
            construct=config,
            suggestion='add <sdf version="1.12">model.sdf</sdf> to model.config',
        )
    return os.path.join(folder, text_of(best))
