"""The plugin manager: entry points, the guards around every hook, and the load/check/dump entry points.

Entry points of the `robodesc` group are loaded once, lazily, each on its own, robodesc's own
first and then the others by name, so nothing depends on install order. That happens under one
lock: threads making the process's first call together wait until every entry point is
registered, so no format table is ever built, cached or handed out from a partial set of plugins.
A plugin that fails to import, or whose hooks return something robodesc cannot use, is recorded
against its name (see `plugins()`), warned about once and left out; every other plugin keeps working.

Hooks are called through pluggy (`pm.hook.<name>`), so `tryfirst`, `trylast` and `wrapper=True`
implementations behave as pluggy documents. Each implementation is guarded where it is
registered: a foreign exception it raises becomes a `PluginCrash` naming that plugin and hook
(never a clean "bad input" error and never blamed on somebody else), and what it returns is
checked before anyone uses it.
"""

from __future__ import annotations

import gc
import os
import threading
import warnings
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

import pluggy

from ..core.arguments import (
    args_argument,
    flag_argument,
    kind,
    name_argument,
    names_argument,
    path_argument,
    paths_argument,
)
from ..core.diagnostics import Diagnostic
from ..core.errors import (
    FormatError,
    InvalidArgument,
    Location,
    PluginCrash,
    PluginError,
    ReaderCrash,
    ResourceNotFound,
    RobodescError,
    did_you_mean,
)
from ..core.model import Model
from ..core.resources import LIMIT_VARIABLES, LoadContext, ResourceRefused, read_file, read_head, size_limit
from ..core.validation import validate_structure
from . import hookspecs
from .discovery import entry_points
from .lookup import FormatTable, is_fragment
from .spec import FormatSpec, checked_specs

if TYPE_CHECKING:  # imported where they are used: a load needs neither the checks nor the writers' context
    from ..core.checks import CheckReport
    from ..core.writing import WriteContext

ENTRY_POINT_GROUP = "robodesc"
#: Plugins to leave out, comma-separated entry-point or distribution names; never imported.
DISABLE_VARIABLE = "ROBODESC_DISABLE_PLUGINS"
_SNIFF_BYTES = 4096
_BUILTIN_DISTRIBUTION = "robodesc"


class PluginWarning(UserWarning):
    """A plugin failed, returned something unusable, or lost a conflict; the other formats still work."""


@dataclass
class PluginInfo:
    """One plugin as `robodesc plugins` shows it.

    `status` is "active", "failed" (could not be loaded: `problems` says why) or "disabled".
    `problems` also lists what an active plugin did wrong (an invalid format, a crashed sniffer).
    """

    name: str
    status: str = "active"
    distribution: str | None = None
    version: str | None = None
    target: str | None = None  # the entry point's object, e.g. "robodesc.formats.urdf"
    builtin: bool = False
    hooks: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def resolves_uris(self) -> bool:
        return "robodesc_resolve_uri" in self.hooks

    @property
    def checks(self) -> bool:
        return "robodesc_checks" in self.hooks


def disabled_by_environment() -> set[str]:
    """The plugin names listed in ROBODESC_DISABLE_PLUGINS."""
    return {name.strip() for name in os.environ.get(DISABLE_VARIABLE, "").split(",") if name.strip()}


class _CollectorPause:
    """Python's cyclic garbage collector, paused while loads run.

    A load allocates tens of thousands of container objects (the parsed XML tree, the model's
    records) that all live until it ends, and none of them is garbage only the collector can free:
    a load leaves no reference cycles (tests/test_load_cycles.py). The collector runs each time 700
    more containers live than before and walks every young one, and the older generations as they
    grow: on a TIAGo-size file a dozen passes per load that free nothing, about a tenth of its time.
    Paused, it runs once after the load, over what the load kept.

    Loads may run in several threads at once and may nest: the first load to start pauses the
    collector and the last to end resumes it, and only if it was enabled when the first started (a
    program that disabled it keeps it disabled). A program that disables it from another thread
    while a load runs sees it enabled again when the load ends.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0  # loads running now, in every thread
        self._resume = False  # whether the collector was enabled when the first of them started

    def __enter__(self) -> None:
        with self._lock:
            if not self._running:
                self._resume = gc.isenabled()
                gc.disable()
            self._running += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._running -= 1
            if not self._running and self._resume:
                gc.enable()


_collector_paused = _CollectorPause()


class Registry:
    """One plugin manager, the plugins it knows and the formats they provide.

    `disabled` names plugins (entry-point or distribution names) that are never loaded; by
    default those of ROBODESC_DISABLE_PLUGINS. Loading, checking and writing take
    `disable_plugins=` to leave plugins out of one call.
    """

    def __init__(self, load_entry_points: bool = True, disabled: Iterable[str] | None = None) -> None:
        self.pm = pluggy.PluginManager("robodesc")
        self.pm.add_hookspecs(hookspecs)
        self.disabled: set[str] = set(disabled) if disabled is not None else disabled_by_environment()
        self._load_entry_points = load_entry_points
        self._entry_points_loaded = False
        self._lock = threading.RLock()  # the first use may come from several threads at once
        self._info: dict[str, PluginInfo] = {}
        self._tables: dict[frozenset[str], FormatTable] = {}

    # -- plugins -------------------------------------------------------------------------------
    def _ensure_entry_points(self) -> None:
        if self._entry_points_loaded or not self._load_entry_points:
            return
        with self._lock:
            if self._entry_points_loaded:
                return
            found = [(_entry_point_info(ep), ep) for ep in entry_points(group=ENTRY_POINT_GROUP)]
            for info, ep in sorted(found, key=lambda pair: (not pair[0].builtin, pair[0].name)):
                self._load_entry_point(info, ep)
            self._entry_points_loaded = True  # only now: other threads wait on the lock until here

    def _load_entry_point(self, info: PluginInfo, ep: Any) -> None:
        known = self._info.get(info.name)
        if known is not None:
            if (known.distribution, known.target) != (info.distribution, info.target):
                self._report(
                    info.name,
                    f"the entry point of {info.distribution or '?'} ({info.target}) was not loaded: the name is "
                    f"taken by {known.distribution or 'a plugin registered at run time'} ({known.target})",
                )
            return
        if self._is_disabled(info):
            info.status = "disabled"
            self._info[info.name] = info
            self.pm.set_blocked(info.name)
            return
        try:
            plugin = ep.load()
            self._register(plugin, info)
        except Exception as exc:  # a third party's import error must not take the others down
            info.status = "failed"
            self._info[info.name] = info
            self._report(info.name, f"cannot be loaded ({info.target}): {type(exc).__name__}: {exc}")

    def _is_disabled(self, info: PluginInfo) -> bool:
        return info.name in self.disabled or (info.distribution is not None and info.distribution in self.disabled)

    def register(self, plugin: Any, name: str | None = None) -> str:
        """Register a plugin object or module at run time; returns the name it is known by.

        A plugin that implements no robodesc hook (None, a number, hooks without `@hookimpl`) is
        refused: pluggy would register it and it would silently do nothing."""
        if plugin is None or isinstance(plugin, (str, bytes, int, float, bool)):
            raise InvalidArgument(
                f"plugin must be a module or object with @robodesc.hookimpl functions, not {kind(plugin)}",
                construct="plugin",
            )
        if name is not None:
            name_argument(name, "name", "a plugin name")
        self._ensure_entry_points()
        with self._lock:
            info = PluginInfo(name=name or "", target=getattr(plugin, "__name__", None) or type(plugin).__name__)
            if name is not None and (name in self.disabled or self.pm.is_blocked(name)):
                raise PluginError(
                    f"plugin {name!r} is disabled",
                    plugin=name,
                    suggestion=f"remove it from {DISABLE_VARIABLE}, or register it under another name",
                )
            return self._register(plugin, info)

    def _register(self, plugin: Any, info: PluginInfo) -> str:
        label = info.name or repr(plugin)
        try:
            name = self.pm.register(plugin, name=info.name or None)
        except ValueError:  # pluggy: the name or the object is registered already
            raise PluginError(
                f"cannot register plugin {label}: that name or object is registered already",
                plugin=info.name or None,
                suggestion="give the plugin a unique name, or unregister the old one first",
            ) from None
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {label} is invalid: {exc}", plugin=info.name or None) from None
        if name is None:
            raise PluginError(f"plugin {label} is disabled", plugin=info.name)
        if not self.pm.get_hookcallers(plugin):
            self.pm.unregister(plugin)
            raise InvalidArgument(
                f"plugin {label} implements no robodesc hook",
                construct="plugin",
                suggestion="mark its functions with @robodesc.hookimpl and name them after a hook, "
                "such as robodesc_formats",
            )
        info.name = name
        for caller in self.pm.get_hookcallers(plugin) or ():
            info.hooks.append(caller.name)
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    # pluggy marks `function` Final; replacing it is the point: pluggy then calls the guard
                    impl.function = self._guard(impl, caller.name)  # type: ignore[misc]
        self._info[name] = info
        self._tables.clear()
        return name

    def unregister(self, name: str) -> None:
        name_argument(name, "name", "a plugin name")
        with self._lock:
            if self.pm.get_plugin(name) is None:
                raise PluginError(
                    f"no plugin named {name!r} is registered",
                    plugin=name,
                    suggestion=did_you_mean(name, [n for n, _ in self.pm.list_name_plugin()])
                    or "see `robodesc plugins`",
                )
            self.pm.unregister(name=name)
            self._info.pop(name, None)
            self._tables.clear()

    def disable(self, name: str) -> None:
        """Leave plugin `name` (an entry-point or distribution name) out from now on, without uninstalling it."""
        with self._lock:
            self.disabled.add(name)
            for info in list(self._info.values()):
                if info.status != "disabled" and self._is_disabled(info):
                    if self.pm.get_plugin(info.name) is not None:
                        self.pm.unregister(name=info.name)
                    info.status = "disabled"
                    self.pm.set_blocked(info.name)
            self._tables.clear()

    def plugins(self) -> list[PluginInfo]:
        """Every plugin robodesc knows of: loaded, failed or disabled, with what each provides."""
        offered = self.table().offered  # runs every robodesc_formats hook, so the plugins' problems are known
        with self._lock:
            for info in self._info.values():
                info.formats = [spec.name for spec in offered if spec.plugin == info.name]
            return [self._info[name] for name in sorted(self._info, key=lambda n: (not self._info[n].builtin, n))]

    @property
    def problems(self) -> dict[str, list[str]]:
        """Plugin name -> what went wrong with it (failed imports, invalid results, crashed sniffers)."""
        return {name: info.problems for name, info in self._info.items() if info.problems}

    def _report(self, plugin: str, problem: str) -> None:
        """Record a plugin's problem and warn about it once (sniffers report from any thread)."""
        with self._lock:
            info = self._info.setdefault(plugin, PluginInfo(name=plugin))
            if problem in info.problems:
                return
            info.problems.append(problem)
        warnings.warn(f"robodesc plugin {plugin!r} {problem}", PluginWarning, stacklevel=2)

    # -- guarding hook implementations ---------------------------------------------------------
    def _guard(self, impl: Any, hook: str) -> Callable[..., Any]:
        """`impl.function` wrapped so that a foreign exception becomes a `PluginCrash` of its plugin and
        what it returns is checked. pluggy calls it exactly as it would call the original."""
        function, plugin = impl.function, impl.plugin_name

        if impl.wrapper or impl.hookwrapper:

            def guarded_wrapper(*args: Any) -> Generator[Any, Any, Any]:
                try:
                    return (yield from function(*args))
                except RobodescError:
                    raise
                except Exception as exc:
                    raise self._crash(plugin, hook, exc) from exc

            return guarded_wrapper

        check_result = _RESULT_CHECKS.get(hook)

        def guarded(*args: Any) -> Any:
            try:
                result = function(*args)
            except Exception as exc:
                if hook == "robodesc_formats":  # listing formats must survive a broken plugin
                    self._report(plugin, f"failed in robodesc_formats: {type(exc).__name__}: {exc}")
                    return None
                if isinstance(exc, RobodescError):
                    raise
                raise self._crash(plugin, hook, exc) from exc
            return check_result(self, plugin, result) if check_result else result

        return guarded

    def _crash(
        self,
        plugin: str,
        hook: str,
        exc: BaseException,
        doing: str | None = None,
        kind: type[PluginCrash] = PluginCrash,
        location: Location | None = None,
    ) -> PluginCrash:
        """The crash of `plugin` in `hook` ("read", "write" or a hook name); `doing` says it for a person."""
        info = self._info.get(plugin)
        who = "robodesc's authors" if info is not None and info.builtin else "the plugin's authors"
        return kind(
            f"plugin {plugin!r} crashed in {doing or hook}: {type(exc).__name__}: {exc}",
            plugin=plugin,
            original=exc,
            hook=hook,
            location=location,
            construct=plugin,
            suggestion=f"report this to {who}; {DISABLE_VARIABLE}={plugin} leaves the plugin out",
        )

    def _formats_result(self, plugin: str, result: Any) -> list[FormatSpec] | None:
        return checked_specs(plugin, result, self._report) or None

    def _checks_result(self, plugin: str, result: Any) -> list[Diagnostic] | None:
        if result is None:
            return None
        if not isinstance(result, (list, tuple)):
            self._report(plugin, f"robodesc_checks returned {type(result).__name__}, not a list of Diagnostic")
            return None
        kept = [d for d in result if isinstance(d, Diagnostic)]
        if len(kept) != len(result):
            bad = next(d for d in result if not isinstance(d, Diagnostic))
            self._report(plugin, f"robodesc_checks returned a {type(bad).__name__} where a Diagnostic belongs")
        return kept

    def _resolve_result(self, plugin: str, result: Any) -> str | None:
        if result is None or isinstance(result, str):
            return result
        if isinstance(result, os.PathLike):
            return os.fspath(result)
        raise PluginError(
            f"plugin {plugin!r} returned {type(result).__name__} from robodesc_resolve_uri, not a path or None",
            plugin=plugin,
            suggestion="report this to the plugin's authors",
        )

    # -- formats -------------------------------------------------------------------------------
    def _excluded(self, names: Iterable[str]) -> frozenset[str]:
        """Registered plugin names for `disable_plugins=` (entry-point or distribution names)."""
        names = names_argument(names, "disable_plugins", "plugin names")
        if not names:
            return frozenset()
        self._ensure_entry_points()
        out: set[str] = set()
        for wanted in names:
            matches = [i.name for i in self._info.values() if wanted in (i.name, i.distribution)]
            if not matches:
                raise PluginError(
                    f"no plugin named {wanted!r} to disable",
                    plugin=wanted,
                    suggestion=did_you_mean(wanted, self._info) or "see `robodesc plugins` for the names",
                )
            out.update(m for m in matches if self.pm.get_plugin(m) is not None)
        return frozenset(out)

    def _hook(self, name: str, excluded: frozenset[str]) -> Any:
        if not excluded:
            return getattr(self.pm.hook, name)
        return self.pm.subset_hook_caller(name, [self.pm.get_plugin(n) for n in excluded])

    def table(self, disable_plugins: Iterable[str] = ()) -> FormatTable:
        """The formats usable without the plugins in `disable_plugins`, with their conflicts."""
        return self._table(self._excluded(disable_plugins))

    def _table(self, excluded: frozenset[str]) -> FormatTable:
        self._ensure_entry_points()
        table = self._tables.get(excluded)
        if table is None:
            with self._lock:
                table = self._tables.get(excluded)
                if table is None:
                    offers = [spec for specs in self._hook("robodesc_formats", excluded)() for spec in specs]
                    builtin = frozenset(n for n, i in self._info.items() if i.builtin)
                    table = self._tables[excluded] = FormatTable.build(offers, builtin, self._report)
        return table

    def formats(self, disable_plugins: Iterable[str] = ()) -> dict[str, FormatSpec]:
        """The usable formats by name: a copy, so that a caller's change never reaches the shared table."""
        return dict(self.table(disable_plugins).usable)

    def get(self, name: str, disable_plugins: Iterable[str] = ()) -> FormatSpec:
        return self._get(name, self._excluded(disable_plugins))

    def _get(self, name: str, excluded: frozenset[str]) -> FormatSpec:
        name_argument(name, "format", "a format name")
        table = self._table(excluded)
        spec = table.get(name)
        if spec is not None:
            return spec
        raise FormatError(
            f"unknown format {name!r}" + self._problems_note(),
            construct=name,
            suggestion=did_you_mean(name, table.usable) or "known formats: " + ", ".join(sorted(table.usable)),
        )

    def _problems_note(self) -> str:
        """What went wrong with plugins, for errors about formats that cannot be found."""
        notes = [f"plugin {name!r} {'; '.join(problems)}" for name, problems in self.problems.items()]
        return " (" + "; ".join(notes) + ")" if notes else ""

    def detect(self, path: str | None, head: bytes, disable_plugins: Iterable[str] = ()) -> FormatSpec:
        """The format of a file: by extension, else by content (the rule is in `lookup`)."""
        return self.table(disable_plugins).detect(path, head, self._report)

    def is_fragment(self, path: str, data: bytes | None = None) -> bool:
        """Whether the format of the file `path` calls its content (`data`, else the file's) only a
        part for other files to include (`FormatSpec.fragment`); False when no format reads it. The
        whole file is read only when its format has a fragment test; an OSError is the caller's."""
        head = read_head(path, _SNIFF_BYTES) if data is None else data[:_SNIFF_BYTES]
        try:
            spec = self.detect(path, head)
        except FormatError:
            return False
        if spec.fragment is None:
            return False
        return is_fragment(spec, read_file(path) if data is None else data, self._report)

    # -- loading -------------------------------------------------------------------------------
    def load(
        self,
        path: str | os.PathLike | Any,
        format: str | None = None,
        search_paths: Iterable[str | os.PathLike[str]] = (),
        context: LoadContext | None = None,
        disable_plugins: Iterable[str] = (),
        confine: bool = False,
        args: Mapping[str, str] | None = None,
    ) -> Model:
        """See `robodesc.load`. A `context` given (a file loaded from within another load) brings its
        search paths, limits, confinement and args; `search_paths`, `confine` and `args` are then not used."""
        excluded = self._excluded(disable_plugins)  # every argument checked before the file is read
        if format is not None:
            name_argument(format, "format", "a format name")
        search_paths = paths_argument(search_paths, "search_paths")
        flag_argument(confine, "confine")
        arguments = args_argument(args)
        source, data = _read_source(path, context)
        spec = self._spec(format, source, data, excluded)
        base_dir = os.path.dirname(os.path.abspath(source)) if source else os.getcwd()
        if context is None:
            context = self._new_context(source, base_dir, search_paths, excluded, confine, arguments)
            return self._read_own(spec, data, context, excluded)
        return self._read(spec, data, context, excluded)

    def loads(
        self,
        text: str | bytes,
        format: str | None = None,
        base_dir: str | os.PathLike | None = None,
        search_paths: Iterable[str | os.PathLike[str]] = (),
        disable_plugins: Iterable[str] = (),
        confine: bool = False,
        args: Mapping[str, str] | None = None,
    ) -> Model:
        if not isinstance(text, (str, bytes, bytearray, memoryview)):
            raise InvalidArgument(
                f"text must be the description as str or bytes, not {kind(text)}",
                construct="text",
                suggestion="to read a file, call robodesc.load(path)",
            )
        # the limit of a description file holds for text too (a service passing on what it was sent);
        # a str is at least as long in UTF-8, so a longer one is refused before it is encoded
        limit = size_limit("file")
        data = b"" if len(text) > limit else _utf8(text) if isinstance(text, str) else bytes(text)
        if len(text) > limit or len(data) > limit:
            raise ResourceRefused(
                f"the text is longer than the limit of {limit} bytes for a description",
                location=Location(file="<string>"),
                construct="text",
                suggestion=f"if the text is right, raise the limit: {LIMIT_VARIABLES['file']}=BYTES",
            )
        excluded = self._excluded(disable_plugins)
        arguments = args_argument(args)
        spec = self._spec(format, None, data, excluded)
        base = os.path.abspath(path_argument(base_dir, "base_dir")) if base_dir is not None else os.getcwd()
        context = self.new_context(None, base, search_paths, excluded, confine, arguments)
        return self._read_own(spec, data, context, excluded)

    def _spec(self, format: str | None, source: str | None, data: bytes, excluded: frozenset[str]) -> FormatSpec:
        if format is not None:
            return self._get(format, excluded)
        return self._table(excluded).detect(source, data[:_SNIFF_BYTES], self._report)

    def new_context(
        self,
        source: str | None,
        base_dir: str,
        search_paths: Iterable[str | os.PathLike[str]],
        excluded: frozenset[str] = frozenset(),
        confine: bool = False,
        args: Mapping[str, str] | None = None,
    ) -> LoadContext:
        """The context of a top-level load; with `confine`, confined to `base_dir` and the search
        paths (see `LoadContext.confine`); `args` for formats that take arguments (xacro)."""
        folders = paths_argument(search_paths, "search_paths")
        arguments = args_argument(args)
        return self._new_context(source, base_dir, folders, excluded, flag_argument(confine, "confine"), arguments)

    def _new_context(
        self,
        source: str | None,
        base_dir: str,
        folders: list[str],
        excluded: frozenset[str],
        confine: bool,
        arguments: dict[str, str],
    ) -> LoadContext:
        """`new_context` with its arguments checked already (`load` checks them before reading the
        file), each a list or dict of the load's own, which the context keeps."""
        context = LoadContext(
            source=source,
            base_dir=base_dir,
            search_paths=folders,
            resolver=self._resolver(excluded),
            args=arguments,
        )
        context.load_file = lambda path, format=None: self.load(
            path, format=format, context=_child(context, path), disable_plugins=excluded
        )
        if confine:
            context.confine()
        return context

    def _resolver(self, excluded: frozenset[str]) -> Callable[[str, LoadContext], str | None]:
        """How a load asks the `robodesc_resolve_uri` hook for a path. With one implementation and no
        wrappers (the built-in resolver, unless a plugin adds its own), its guarded function is called
        directly: the same function pluggy would call, with the same guard, without pluggy's dispatch
        on every mesh of a robot."""
        hook = self._hook("robodesc_resolve_uri", excluded)
        impls = hook.get_hookimpls()
        plain = len(impls) == 1 and not (impls[0].wrapper or impls[0].hookwrapper)
        if plain and impls[0].argnames == ("uri", "context"):
            return impls[0].function  # guarded(uri, context), as pluggy calls it
        return lambda uri, context: hook(uri=uri, context=context)

    def _read_own(self, spec: FormatSpec, data: bytes, context: LoadContext, excluded: frozenset[str]) -> Model:
        """`_read` with a context made for this load. Its `load_file` refers to the context itself, and
        its cache may hold contexts of the load's other folders (which share the cache): let go of
        both afterwards, so the context (and the files it cached) are freed when the load ends, not
        when Python's cyclic collector next runs. The collector is paused while the load runs
        (`_CollectorPause`)."""
        try:
            with _collector_paused:
                return self._read(spec, data, context, excluded)
        finally:
            context.load_file = None
            context.cache.clear()

    def _read(self, spec: FormatSpec, data: bytes, context: LoadContext, excluded: frozenset[str]) -> Model:
        if spec.read is None:
            raise FormatError(f"format {spec.name!r} (plugin {spec.plugin!r}) cannot be read, only written")
        context.format = spec.name
        where = context.source or "<string>"
        origin = f"the {spec.name!r} reader of plugin {spec.plugin!r}"
        try:
            model = spec.read(data, context)
        except RobodescError:
            raise
        except Exception as exc:
            doing = f"the {spec.name!r} reader on {where}"
            location = Location(file=context.source)
            raise self._crash(spec.plugin, "read", exc, doing, ReaderCrash, location) from exc
        if not isinstance(model, Model):
            raise PluginError(
                f"{origin} returned {type(model).__name__}, not a Model",
                plugin=spec.plugin,
                construct=spec.name,
                suggestion="report this to the plugin's authors",
            )
        model.format = model.format or spec.name
        model.source = model.source or context.source
        validate_structure(model, origin)
        hook = self._hook("robodesc_model_loaded", excluded)
        if hook.get_hookimpls():  # (none but a plugin's: pluggy's dispatch would call nothing)
            hook(model=model, context=context)
        return model

    def check(
        self,
        target: str | os.PathLike[str] | BinaryIO | Model,
        *,
        strict: bool = False,
        format: str | None = None,
        search_paths: Iterable[str | os.PathLike[str]] = (),
        disable_plugins: Iterable[str] = (),
        confine: bool = False,
        args: Mapping[str, str] | None = None,
    ) -> CheckReport:
        """Load (unless given a model) and check: the reader's notes, robodesc's checks, plugins' checks.

        A file that cannot be loaded gives a report holding the error; a plugin that crashes
        raises its `PluginCrash`, since a crash says nothing about the file.
        """
        from ..core.checks import CheckReport, check_model, deduplicated, error_diagnostic

        excluded = self._excluded(disable_plugins)
        if format is not None:
            name_argument(format, "format", "a format name")
        if isinstance(target, Model):
            model, source = target, target.source
            try:
                validate_structure(model)
            except RobodescError as error:
                return CheckReport(source, [*model.diagnostics, error_diagnostic(error)], None, strict)
        else:
            if isinstance(target, (str, os.PathLike)):
                source = path_argument(target, "target")
            elif callable(getattr(target, "read", None)):
                source = getattr(target, "name", None)
            else:
                raise InvalidArgument(
                    f"target must be a path (str or pathlib.Path), a binary file object or a Model, not {kind(target)}",
                    construct="target",
                )
            try:
                model = self.load(
                    target,
                    format=format,
                    search_paths=search_paths,
                    disable_plugins=excluded,
                    confine=confine,
                    args=args,
                )
            except (PluginCrash, InvalidArgument):  # a plugin's bug or the caller's mistake: not a finding
                raise
            except RobodescError as error:
                return CheckReport(source, [error_diagnostic(error)], None, strict)
        found = list(model.diagnostics) + check_model(model)
        try:
            model.kinematics  # noqa: B018 - compiling the tree finds what forward_kinematics would trip on
        except RobodescError as error:
            found.append(error_diagnostic(error))
        for findings in self._hook("robodesc_checks", excluded)(model=model):
            found += findings
        return CheckReport(source, deduplicated(found), model, strict)

    def dumps(
        self, model: Model, format: str, disable_plugins: Iterable[str] = (), context: WriteContext | None = None
    ) -> str:
        """`model` as text in `format`. `context` says where the text will be written (for relative
        mesh references) and collects what the format cannot express; a fresh one when not given."""
        from ..core.writing import WriteContext

        if not isinstance(model, Model):
            raise InvalidArgument(f"model must be a robodesc.Model, not {kind(model)}", construct="model")
        excluded = self._excluded(disable_plugins)
        spec = self._get(format, excluded)
        if spec.write is None:
            raise FormatError(
                f"format {format!r} (plugin {spec.plugin!r}) cannot be written",
                suggestion="formats that can be written: "
                + (", ".join(n for n, f in self._table(excluded).usable.items() if f.can_write) or "none installed"),
            )
        try:
            text = spec.write(model, context if context is not None else WriteContext())
        except RobodescError:
            raise
        except Exception as exc:
            raise self._crash(spec.plugin, "write", exc, f"the {spec.name!r} writer") from exc
        if not isinstance(text, str):
            raise PluginError(
                f"the {spec.name!r} writer of plugin {spec.plugin!r} returned {type(text).__name__}, not text",
                plugin=spec.plugin,
            )
        return text


#: What each hook's result must be, checked as it leaves the plugin.
_RESULT_CHECKS: dict[str, Callable[[Registry, str, Any], Any]] = {
    "robodesc_formats": Registry._formats_result,
    "robodesc_checks": Registry._checks_result,
    "robodesc_resolve_uri": Registry._resolve_result,
}


def _entry_point_info(ep: Any) -> PluginInfo:
    dist = getattr(ep, "dist", None)
    distribution = getattr(dist, "name", None)
    builtin = distribution is not None and distribution.lower().replace("_", "-") == _BUILTIN_DISTRIBUTION
    return PluginInfo(
        name=ep.name,
        distribution=distribution,
        version=getattr(dist, "version", None),
        target=ep.value,
        builtin=builtin,
    )


def _read_source(path: Any, context: LoadContext | None = None) -> tuple[str | None, bytes]:
    """(the file's name or None, its bytes) for a path, a `pathlib.Path` or a binary file object.

    A path is read as every file a description names is: a regular file only (a FIFO would block,
    /dev/zero never ends) and within the size limit, and, for a file loaded from within another
    load (`context`), under that load's limits and confinement."""
    if isinstance(path, (str, os.PathLike)):
        source = path_argument(path, "path")
        try:
            return source, context.read(source) if context is not None else read_file(source)
        except FileNotFoundError:
            raise ResourceNotFound(
                f"no such file: {source}", tried=[os.path.abspath(source)], construct=source
            ) from None
        except IsADirectoryError:
            raise ResourceNotFound(f"{source} is a folder, not a description file", construct=source) from None
        except OSError as exc:
            raise ResourceNotFound(f"cannot read {source}: {exc.strerror or exc}", construct=source) from None
    read = getattr(path, "read", None)
    if not callable(read):
        raise InvalidArgument(
            f"path must be a path (str or pathlib.Path) or a binary file object, not {kind(path)}",
            construct="path",
            suggestion="for a description held in memory use robodesc.loads(text)"
            + (", for a path in bytes os.fsdecode(path)" if isinstance(path, (bytes, bytearray)) else ""),
        )
    limit = context.limit("file") if context is not None else size_limit("file")
    try:
        data = read(limit + 1)
    except OSError as exc:
        raise ResourceNotFound(f"cannot read {getattr(path, 'name', 'the file object')}: {exc}") from None
    except ValueError as exc:  # closed, or not open for reading
        raise InvalidArgument(f"path is a file object that cannot be read: {exc}", construct="path") from None
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidArgument(
            f"path is a file object that gave {type(data).__name__}, not bytes: open it in binary mode",
            construct="path",
            suggestion="open(path, 'rb')",
        )
    if len(data) > limit:
        raise ResourceRefused(
            f"the file object {getattr(path, 'name', '')!s:.200} holds more than the limit of {limit} bytes",
            construct="path",
            suggestion=f"if the description is right, raise the limit: {LIMIT_VARIABLES['file']}=BYTES",
        )
    name = getattr(path, "name", None)
    return (name if isinstance(name, str) and os.path.isfile(name) else None), bytes(data)


def _utf8(text: str) -> bytes:
    """`text` as UTF-8; a lone surrogate (as `os.fsdecode` or `surrogateescape` leave for bytes that
    are not UTF-8) is no Unicode character, so no description can hold it: say where it is."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        raise InvalidArgument(
            f"text holds a lone surrogate {text[exc.start]!r}, which is not Unicode text: no description can hold it",
            location=Location(line=line, column=column),
            construct="text",
            suggestion="pass the original bytes to robodesc.loads, or decode them with errors='replace'",
        ) from None


def _child(parent: LoadContext, path: str) -> LoadContext:
    """A context for a file loaded from within another load: same search paths and cache."""
    context = parent.at(os.path.dirname(os.path.abspath(os.fspath(path))))
    context.source = os.fspath(path)
    return context


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The process-wide registry that `robodesc.load` and friends use (created on first use)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Registry()
    return _default
