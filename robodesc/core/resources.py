"""Finding the files a description refers to: meshes, textures, included models.

The built-in rules are the ones ROS and Gazebo users rely on: `package://NAME/...` through
`search_paths`, ROS_PACKAGE_PATH and AMENT_PREFIX_PATH (and, failing those, an ancestor folder of
the description named NAME, the usual source-tree layout); `model://NAME/...` through
`search_paths` and the Gazebo resource variables; `file://`, absolute and relative paths against
the description's folder. Resolution only checks that a file exists; it never reads it.

Every file robodesc reads on a description's behalf goes through `read_file` (or, for a file a
third-party library must open itself, `check_file`): only regular files are read, never a
device, FIFO or socket (`/dev/zero` would be read until memory runs out, a FIFO blocks forever),
and never more than a size limit the caller can raise (`LoadContext.max_file_bytes`, the
``ROBODESC_MAX_FILE_BYTES`` / ``ROBODESC_MAX_MESH_BYTES`` environment variables). A load may also
be confined (`LoadContext.confine`) to the description's folder and its search paths, for services
that load untrusted descriptions: nothing outside them is opened or even stat'ed. docs/limits.md
has the user's view.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .errors import InvalidValue, Location, ResourceNotFound

PACKAGE_PATH_VARIABLES = ("ROS_PACKAGE_PATH",)
AMENT_PATH_VARIABLES = ("AMENT_PREFIX_PATH",)
MODEL_PATH_VARIABLES = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "SDF_PATH", "GAZEBO_MODEL_PATH")


def env_paths(names: Iterable[str]) -> list[str]:
    """The folders listed in the environment variables `names` (os.pathsep-separated), in order."""
    out: list[str] = []
    for name in names:
        out.extend(p for p in os.environ.get(name, "").split(os.pathsep) if p)
    return out


#: The most bytes robodesc reads from one description file (URDF, SDF, MJCF, model.config): 256 MiB,
#: far above the largest description in the public robot collections (a few MB). A limit keeps a
#: wrong path or a hostile file from filling memory; raise it where it is too low.
DEFAULT_MAX_FILE_BYTES = 256 * 2**20
#: The most bytes of one mesh, texture or height-field file: 2 GiB (scanned meshes run to hundreds of MB).
DEFAULT_MAX_MESH_BYTES = 2 * 2**30
#: The environment variables that raise (or lower) the limits for every load in the process.
LIMIT_VARIABLES = {"file": "ROBODESC_MAX_FILE_BYTES", "mesh": "ROBODESC_MAX_MESH_BYTES"}
_DEFAULT_LIMITS = {"file": DEFAULT_MAX_FILE_BYTES, "mesh": DEFAULT_MAX_MESH_BYTES}
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class ResourceRefused(ResourceNotFound):
    """A file robodesc will not read: not a regular file (a device such as /dev/zero, a FIFO, a
    socket), larger than the size limit, or outside the folders a confined load may read. Its
    diagnostic code stays `resource-not-found`: code that handles a missing file handles it too."""


def size_limit(kind: str = "file", given: int | None = None) -> int:
    """The byte limit for one file of `kind` ("file": descriptions; "mesh": meshes, textures and
    height fields): `given` when set, else the environment variable (bytes, or a number with a
    K, M, G or T suffix), else the default."""
    if given is not None:
        return given
    variable = LIMIT_VARIABLES[kind]
    text = os.environ.get(variable, "").strip().upper().removesuffix("B").removesuffix("I")
    if not text:
        return _DEFAULT_LIMITS[kind]
    number, unit = (text[:-1], text[-1]) if text[-1] in _UNITS else (text, "")
    if not number.isascii() or not number.isdigit() or len(number) > 20:
        raise ResourceRefused(
            f"{variable}={os.environ[variable]!r} is not a size in bytes",
            construct=variable,
            suggestion=f"set {variable} to a whole number of bytes, such as 512M or 2G",
        )
    return int(number) * _UNITS[unit]


#: The most elements a description may expand to once its includes, attachments and replicates are
#: expanded: far above the largest model of the public collections (a few thousand), far below what
#: takes minutes and gigabytes to build. A few small files that each include (or attach) the next
#: twice describe millions; readers count before building and refuse past the limit.
DEFAULT_MAX_ELEMENTS = 250_000
ELEMENTS_VARIABLE = "ROBODESC_MAX_ELEMENTS"


def max_elements() -> int:
    """The element limit: `ROBODESC_MAX_ELEMENTS` when set (a whole number), else `DEFAULT_MAX_ELEMENTS`."""
    text = os.environ.get(ELEMENTS_VARIABLE, "").strip().replace("_", "")
    if not text:
        return DEFAULT_MAX_ELEMENTS
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise InvalidValue(
            f"{ELEMENTS_VARIABLE}={os.environ[ELEMENTS_VARIABLE]!r} is not a whole number",
            construct=ELEMENTS_VARIABLE,
            suggestion=f"set {ELEMENTS_VARIABLE} to a number of elements such as 1000000",
        )
    return int(text)


def _file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _check_stat(
    path: str, info: os.stat_result, limit: int, kind: str, what: str, location: Location | None, construct: str | None
) -> None:
    """Refuse what `info` says is no regular file, or larger than `limit` (located at `location`, the
    element naming the file, else at the file itself); a folder is an OSError, as opening it would
    be, so callers keep reporting it as they always have."""
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if not stat.S_ISREG(info.st_mode):
        raise ResourceRefused(
            f"{what} {path} is {_file_kind(info.st_mode)}; robodesc reads only regular files",
            location=location or Location(file=path),
            construct=construct or path,
            suggestion="name a regular file (devices, FIFOs and sockets are never read)",
        )
    if info.st_size > limit:
        raise _too_large(path, f"{info.st_size} bytes", limit, kind, what, location, construct)


def _too_large(
    path: str, size: str, limit: int, kind: str, what: str, location: Location | None, construct: str | None
) -> ResourceRefused:
    return ResourceRefused(
        f"{what} {path} is {size}, more than the limit of {limit} bytes",
        location=location or Location(file=path),
        construct=construct or path,
        suggestion=f"if the file is right, raise the limit: {LIMIT_VARIABLES[kind]}=BYTES"
        f" (or LoadContext.max_{kind}_bytes)",
    )


#: How robodesc opens a file it reads: non-blocking (a FIFO swapped in after the check cannot hang
#: the open), never as a controlling terminal, binary.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def check_file(
    path: str,
    *,
    kind: str = "file",
    limit: int | None = None,
    what: str = "file",
    location: Location | None = None,
    construct: str | None = None,
) -> None:
    """Check that `path` is a regular file within the size limit, for a file another library
    (trimesh, Pillow) opens itself. Raises `ResourceRefused`, or the OSError of a missing file."""
    _check_stat(path, os.stat(path), size_limit(kind, limit), kind, what, location, construct)


def read_file(
    path: str,
    *,
    kind: str = "file",
    limit: int | None = None,
    what: str = "file",
    location: Location | None = None,
    construct: str | None = None,
) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (`size_limit(kind)` when None).

    The one way robodesc reads a file a description names: a device or FIFO is refused before it
    is opened (`open_file`), and reading stops one byte past the limit even if the file grows. Raises
    `ResourceRefused` (located at `location`), or the OSError of a file that is missing or
    unreadable, which the caller words for its own construct.
    """
    limit = size_limit(kind, limit)
    handle, size = _open_checked(path, kind, limit, what, location, construct)
    with handle:
        chunks, total, want = [], 0, size + 1
        while chunk := handle.read(min(want, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # the file grew since it was measured
                raise _too_large(path, f"over {limit} bytes", limit, kind, what, location, construct)
            want = 2**20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_head(path: str, size: int = 4096) -> bytes:
    """The first `size` bytes of the regular file `path` (to sniff its format), refusing a device or
    FIFO as `read_file` does, whatever the file's size; a folder or missing file is an OSError."""
    with open_file(path, limit=2**63) as (handle, _):
        return handle.read(size)


@contextmanager
def open_file(
    path: str,
    *,
    kind: str = "file",
    limit: int | None = None,
    what: str = "file",
    location: Location | None = None,
    construct: str | None = None,
) -> Iterator[tuple[BinaryIO, int]]:
    """The regular file `path` open for reading, and its size, for a reader that reads only part of
    it: refused (as `read_file` refuses) before it is opened, and again on the opened descriptor
    (opened non-blocking) in case the path changed in between."""
    handle, size = _open_checked(path, kind, size_limit(kind, limit), what, location, construct)
    with handle:
        yield handle, size


def _open_checked(
    path: str, kind: str, limit: int, what: str, location: Location | None, construct: str | None
) -> tuple[BinaryIO, int]:
    """`open_file`'s checks and open, as a plain call (the context manager's generator costs as much
    as the checks; `read_file`, which every load calls, closes the handle itself)."""
    _check_stat(path, os.stat(path), limit, kind, what, location, construct)
    handle = open(os.open(path, _READ_FLAGS), "rb", buffering=0)
    try:
        info = os.fstat(handle.fileno())
        _check_stat(path, info, limit, kind, what, location, construct)
    except BaseException:
        handle.close()
        raise
    return handle, info.st_size


def _inside(path: str, roots: Iterable[str]) -> bool:
    """Whether the absolute, normalised `path` is one of `roots` or below one (by name only)."""
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def confined_path(path: str, roots: list[str]) -> str | None:
    """`path` with its symbolic links followed, when it and every link on the way stay inside
    `roots` (absolute, normalised folders); None as soon as a step leaves them.

    Only names inside the roots are ever looked at (lstat, readlink): a link pointing out is
    refused from its text, without touching its target. `..` is taken by name, as the resolvers
    join paths; the path returned has no links left, so opening it opens what was checked.
    """
    path = os.path.normpath(os.path.abspath(path))
    for _hop in range(40):  # as many links as Linux follows in one path
        if not _inside(path, roots):
            return None
        root = max((r for r in roots if _inside(path, [r])), key=len)
        parts = [] if path == root else os.path.relpath(path, root).split(os.sep)
        current = root
        for index, part in enumerate(parts):
            step = os.path.join(current, part)
            if not os.path.islink(step):
                current = step
                continue
            path = os.path.normpath(os.path.join(current, os.readlink(step), *parts[index + 1 :]))
            break
        else:
            return current
    return None


def package_roots(name: str, base_dir: str | None, search_paths: Iterable[str]) -> list[str]:
    """Folders that may hold ROS package `name`, in the order they are tried."""
    out = []
    for root in [*search_paths, *env_paths(PACKAGE_PATH_VARIABLES)]:
        if os.path.basename(os.path.normpath(root)) == name:
            out.append(root)
        out.append(os.path.join(root, name))
    out.extend(os.path.join(prefix, "share", name) for prefix in env_paths(AMENT_PATH_VARIABLES))
    folder = os.path.abspath(base_dir or os.getcwd())
    while True:  # the source-tree layout: an ancestor folder named NAME, or holding NAME
        if os.path.basename(folder) == name:
            out.append(folder)
        out.append(os.path.join(folder, name))
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _is(test: Callable[[str], bool], path: str | None) -> bool:
    return path is not None and test(path)


_join = os.path.join
_normpath = os.path.normpath


def _is_file(path: str | None) -> bool:
    """`os.path.isfile(path)` (False for None), with one call fewer: a robot checks hundreds of meshes."""
    if path is None:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def resolve_path(
    uri: str,
    base_dir: str | None,
    search_paths: Iterable[str],
    cache: dict[Any, Any] | None = None,
    roots: list[str] | None = None,
) -> tuple[str | None, list[str]]:
    """(local file or None, the paths tried) for `uri`; checks that the file exists, never reads it.

    `package://NAME/rest` finds the package folder first (as `rospack find` does: the first
    folder that exists wins) and then looks for `rest` inside it only. `cache` (the resolver's
    namespace of the load's cache) remembers package folders, so a robot with hundreds of meshes
    stats each folder once. With `roots` (a confined load's `allowed_roots`) a path outside them
    is never stat'ed: it is listed as tried and skipped.

    Called once per distinct mesh URI (a robot has hundreds), so the usual case, a package whose
    folder is already found, is a join, a stat and a normalisation, without helper calls.
    """
    base = base_dir or os.getcwd()
    if uri.startswith("package://"):
        name, _, rest = uri[10:].partition("/")
        key = (name, base)
        found = cache.get(key) if cache is not None else None
        if found is None:
            folders = package_roots(name, base, search_paths)
            found = (next((r for r in folders if _is(os.path.isdir, _look(r, roots))), None), folders)
            if cache is not None:
                cache[key] = found
        root, folders = found
        if root is None:
            return None, [_join(r, rest) for r in folders]
        path = _join(root, rest)
        if _is_file(path if roots is None else confined_path(path, roots)):
            return _normpath(path), [path]
        return None, [path]
    if uri.startswith("model://"):  # model://NAME names a model folder; other URIs name files
        name, _, rest = uri[8:].partition("/")
        candidates = [_join(root, name, rest) for root in [*search_paths, *env_paths(MODEL_PATH_VARIABLES)]]
        for path in candidates:
            real = _look(path, roots)
            if _is_file(real) or _is(os.path.isdir, real):
                return _normpath(path), candidates
        return None, candidates
    if uri.startswith("file://"):
        path = uri[7:]
        candidates = [path if os.path.isabs(path) else _join(base, path)]
    elif "://" in uri:
        return None, []
    else:
        candidates = [uri if os.path.isabs(uri) else _join(base, uri)]
    path = candidates[0]
    if _is_file(_look(path, roots)):
        return _normpath(path), candidates
    return None, candidates


def _look(path: str, roots: list[str] | None) -> str | None:
    """The path to stat for `path`: itself, or in a confined load its checked real path (None when it
    may not be looked at)."""
    return path if roots is None else confined_path(path, roots)


@dataclass
class LoadContext:
    """What a reader knows about the load in progress, and the services it may call.

    `resolver` asks the plugin system (the `robodesc_resolve_uri` hook) for a local path;
    `load_file` loads another description through the plugin system (an SDF including a URDF).

    The cache lives for one top-level load and is shared with every file loaded from it (`at`,
    `load_file`). Each owner keeps its own namespace, a dict of its own from `cache_for(owner)`,
    so owners never see each other's keys: `"resolve"` holds the answers of `resolve` (per URI
    and folder), `"resolver"` the package folders the built-in resolver found, `"sdf"` the SDF
    reader's parsed files; a plugin uses its own name. `cache` maps owners to their namespaces.

    Files are read through `read` (and checked through `check` when another library opens them):
    at most `max_file_bytes` of a description and `max_mesh_bytes` of a mesh, texture or height
    field (None: the environment variable, else the default; see `size_limit`). `allowed_roots`,
    set by `confine`, confines the load: no file outside those folders is opened or stat'ed, and
    naming one is a located `ResourceRefused`. None (the default) reads wherever the description
    points, as MuJoCo and libsdformat do.

    `args` holds the caller's arguments for formats that take them (xacro's `<xacro:arg>`), so a
    reader finds them where it finds everything else about the load; other readers ignore them.
    """

    source: str | None
    base_dir: str
    search_paths: list[str] = field(default_factory=list)
    format: str | None = None
    resolver: Callable[[str, LoadContext], str | None] | None = None
    load_file: Callable[..., Any] | None = None
    cache: dict[str, dict[Any, Any]] = field(default_factory=dict)
    tried: dict[str, list[str]] = field(default_factory=dict)
    max_file_bytes: int | None = None
    max_mesh_bytes: int | None = None
    allowed_roots: list[str] | None = None
    #: arguments for formats that take them (xacro's `<xacro:arg>`): `load(..., args=)`, `--arg NAME:=VALUE`
    args: dict[str, str] = field(default_factory=dict)

    def confine(self, roots: Iterable[str | os.PathLike[str]] = ()) -> None:
        """Confine the load to the description's folder, the search paths and `roots`, from now on
        (call it before reading; files of the load share the roots). Each folder counts both as
        named and with its links resolved, since both name the same files."""
        folders = [self.base_dir, *self.search_paths, *(os.fspath(r) for r in roots)]
        named = [os.path.normpath(os.path.abspath(f)) for f in folders]
        self.allowed_roots = list(dict.fromkeys([*named, *(os.path.realpath(f) for f in named)]))

    def permitted(
        self, path: str, what: str = "file", location: Location | None = None, construct: str | None = None
    ) -> str:
        """The path to open for `path`: itself when the load is not confined; else its real path when
        that (and every link on the way) stays inside `allowed_roots`, checked without touching
        anything outside them. Raises a `ResourceRefused` at `location` otherwise."""
        if self.allowed_roots is None:
            return path
        real = confined_path(path, self.allowed_roots)
        if real is None:
            where = os.path.normpath(os.path.abspath(path))
            raise ResourceRefused(
                f"{what} {where} is outside the folders this confined load may read: " + ", ".join(self.allowed_roots),
                location=location,
                construct=construct or path,
                suggestion="keep the file below the description's folder, or add its folder to search_paths",
            )
        return real

    def limit(self, kind: str) -> int:
        """The byte limit of one file of `kind` ("file" or "mesh") in this load: the environment is read
        once per load, not once per mesh (a robot checks hundreds)."""
        given = self.max_mesh_bytes if kind == "mesh" else self.max_file_bytes
        limits = self.cache_for("limits")
        found = limits.get((kind, given))
        if found is None:
            found = limits[(kind, given)] = size_limit(kind, given)
        return found

    def read(
        self,
        path: str,
        *,
        kind: str = "file",
        what: str = "file",
        location: Location | None = None,
        construct: str | None = None,
    ) -> bytes:
        """`read_file` under this load's confinement and limits; what it raises, `location` on refusals."""
        real = self.permitted(path, what, location, construct)
        return read_file(real, kind=kind, limit=self.limit(kind), what=what, location=location, construct=construct)

    def check(
        self,
        path: str,
        *,
        kind: str = "mesh",
        what: str = "file",
        location: Location | None = None,
        construct: str | None = None,
    ) -> str:
        """`check_file` under this load's confinement and limits, for a file another library opens;
        returns the path to hand it."""
        real = self.permitted(path, what, location, construct)
        check_file(real, kind=kind, limit=self.limit(kind), what=what, location=location, construct=construct)
        return real

    def exists(self, path: str) -> bool:
        """Whether anything is at `path` (`os.path.exists`: a special file too, which `read` then
        refuses, saying what it is); a path a confined load may not look at does not exist for it,
        and is not stat'ed."""
        return _is(os.path.exists, path if self.allowed_roots is None else confined_path(path, self.allowed_roots))

    def at(self, base_dir: str) -> LoadContext:
        """This load seen from another folder (an included file's): same search paths, resolver and cache."""
        return dataclasses.replace(self, base_dir=base_dir)

    def cache_for(self, owner: str) -> dict[Any, Any]:
        """`owner`'s namespace of the load's cache: a dict only `owner` uses, made on first use."""
        found = self.cache.get(owner)
        if found is None:
            found = self.cache[owner] = {}
        return found

    def resolve(self, uri: str, location: Location | None = None) -> tuple[str | None, list[str]]:
        """Resolve `uri` once per load: (local path or None, paths tried).

        In a confined load, a URI whose every candidate lies outside the roots (`../../etc/passwd`,
        `/etc/passwd`, `model://x/../../..`), or that resolves to a file outside them, raises
        `ResourceRefused` at `location`; the path returned is then the checked real path.
        """
        answers = self.cache_for("resolve")
        key = (uri, self.base_dir)
        hit = answers.get(key)
        if hit is None:
            if self.resolver:
                hit = (self.resolver(uri, self), self.tried.get(uri, []))
            else:
                roots = self.allowed_roots
                hit = resolve_path(uri, self.base_dir, self.search_paths, self.cache_for("resolver"), roots)
            answers[key] = hit
        if self.allowed_roots is None:
            return hit
        path, tried = hit
        if path is None:
            outside = [t for t in tried if not _inside(os.path.normpath(os.path.abspath(t)), self.allowed_roots)]
            if outside and len(outside) == len(tried):
                self.permitted(outside[0], f"{uri!r} names", location, uri)
            return None, [t + " (outside the allowed folders: not looked at)" if t in outside else t for t in tried]
        return self.permitted(path, f"{uri!r} names", location, uri), tried
