"""The plugin manager: entry-point loading, the format registry, and the load/dump entry points.

Entry points of the `robodesc` group are loaded once, lazily, each on its own: a plugin that fails
to import is recorded (and named in errors and in `robodesc formats`) but does not stop the
others. Two plugins providing the same format name make that one name unusable, with an error
naming both plugins.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pluggy

from ..core.checks import CheckReport, check_model, deduplicated, error_diagnostic
from ..core.diagnostics import Diagnostic, Severity
from ..core.errors import FormatError, Location, PluginError, ResourceNotFound, RobodescError, did_you_mean
from ..core.model import Model
from ..core.resources import LoadContext
from . import hookspecs
from .spec import FormatSpec

ENTRY_POINT_GROUP = "robodesc"
_SNIFF_BYTES = 4096


class PluginWarning(UserWarning):
    """A plugin could not be loaded; the other formats still work."""


class Registry:
    """One plugin manager and the formats its plugins provide."""

    def __init__(self, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager("robodesc")
        self.pm.add_hookspecs(hookspecs)
        self._load_entry_points = load_entry_points
        self._entry_points_loaded = False
        self._formats: dict[str, FormatSpec] | None = None
        self.conflicts: dict[str, list[str]] = {}
        self.broken: dict[str, str] = {}  # plugin name -> what went wrong

    # -- plugins -------------------------------------------------------------------------
    def _ensure_entry_points(self) -> None:
        if self._entry_points_loaded or not self._load_entry_points:
            return
        self._entry_points_loaded = True
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if self.pm.has_plugin(ep.name):
                continue
            try:
                self.pm.register(ep.load(), name=ep.name)
            except Exception as exc:  # a third party's import error must not take us down
                self._record_broken(ep.name, f"cannot be loaded ({ep.value}): {type(exc).__name__}: {exc}")

    def _record_broken(self, plugin: str, why: str) -> None:
        self.broken[plugin] = why
        warnings.warn(f"robodesc plugin {plugin!r} {why}", PluginWarning, stacklevel=4)

    def register(self, plugin: Any, name: str | None = None) -> str:
        self._ensure_entry_points()
        try:
            registered = self.pm.register(plugin, name=name)
        except ValueError:  # pluggy: the name or the object is registered already
            raise PluginError(
                f"cannot register plugin {name or plugin!r}: that name or object is registered already",
                suggestion="give the plugin a unique name, or unregister the old one first",
            ) from None
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {name or plugin!r} is invalid: {exc}") from None
        self._formats = None
        return registered

    def unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self._formats = None

    # -- formats -------------------------------------------------------------------------
    def formats(self) -> dict[str, FormatSpec]:
        if self._formats is not None:
            return self._formats
        self._ensure_entry_points()
        found: dict[str, FormatSpec] = {}
        self.conflicts = {}
        for impl in reversed(self.pm.hook.robodesc_formats.get_hookimpls()):
            try:
                specs = list(impl.function() or ())
            except Exception as exc:
                self._record_broken(impl.plugin_name, f"failed in robodesc_formats: {type(exc).__name__}: {exc}")
                continue
            for spec in specs:
                spec.plugin = impl.plugin_name
                if spec.name in found or spec.name in self.conflicts:
                    self.conflicts.setdefault(spec.name, [found.pop(spec.name).plugin] if spec.name in found else [])
                    self.conflicts[spec.name].append(spec.plugin)
                else:
                    found[spec.name] = spec
        self._formats = found
        return found

    def get(self, name: str) -> FormatSpec:
        formats = self.formats()
        if name in formats:
            return formats[name]
        if name in self.conflicts:
            raise PluginError(
                f"format {name!r} is provided by several plugins: " + ", ".join(self.conflicts[name]),
                construct=name,
                suggestion="uninstall or unregister all but one of them",
            )
        raise FormatError(
            f"unknown format {name!r}" + self._broken_note(),
            construct=name,
            suggestion=did_you_mean(name, formats) or "known formats: " + ", ".join(sorted(formats)),
        )

    def _broken_note(self) -> str:
        """What went wrong with plugins, for errors about formats that cannot be found."""
        notes = [f"plugins that failed to load: {k} {v}" for k, v in self.broken.items()]
        notes += [
            f"format {name!r} is claimed by several plugins ({', '.join(who)})" for name, who in self.conflicts.items()
        ]
        return " (" + "; ".join(notes) + ")" if notes else ""

    def detect(self, path: str | None, head: bytes) -> FormatSpec:
        """The format of a file: by extension when one format claims it, else by content."""
        formats = self.formats()
        candidates = list(formats.values())
        if path is not None:
            lower = path.lower()
            by_ext = [f for f in candidates if any(lower.endswith(e.lower()) for e in f.extensions)]
            if len(by_ext) == 1:
                return by_ext[0]
            if by_ext:
                candidates = by_ext + [f for f in candidates if f not in by_ext]
        for spec in candidates:
            if spec.sniff is None or spec.read is None:
                continue
            try:
                if spec.sniff(head):
                    return spec
            except Exception as exc:
                self._record_broken(spec.plugin, f"sniffer of format {spec.name!r} failed: {exc}")
        name = os.path.basename(path) if path else "the input"
        raise FormatError(
            f"cannot tell the format of {name}" + self._broken_note(),
            location=Location(file=path),
            suggestion="pass format=... (one of " + ", ".join(sorted(formats)) + ")",
        )

    # -- loading -------------------------------------------------------------------------
    def resolve_uri(self, uri: str, context: LoadContext) -> str | None:
        return self.pm.hook.robodesc_resolve_uri(uri=uri, context=context)

    def load(
        self,
        path: str | os.PathLike,
        format: str | None = None,
        search_paths: Iterable[str] = (),
        context: LoadContext | None = None,
    ) -> Model:
        source = os.fspath(path)
        try:
            data = Path(source).read_bytes()
        except FileNotFoundError:
            raise ResourceNotFound(
                f"no such file: {source}", tried=[os.path.abspath(source)], construct=source
            ) from None
        except IsADirectoryError:
            raise ResourceNotFound(f"{source} is a folder, not a description file", construct=source) from None
        except OSError as exc:
            raise ResourceNotFound(f"cannot read {source}: {exc.strerror or exc}", construct=source) from None
        spec = self.get(format) if format else self.detect(source, data[:_SNIFF_BYTES])
        base_dir = os.path.dirname(os.path.abspath(source))
        if context is None:
            context = self.new_context(source, base_dir, search_paths)
        return self._read(spec, data, context, base_dir)

    def loads(
        self,
        text: str | bytes,
        format: str | None = None,
        base_dir: str | os.PathLike | None = None,
        search_paths: Iterable[str] = (),
    ) -> Model:
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        spec = self.get(format) if format else self.detect(None, data[:_SNIFF_BYTES])
        base = os.path.abspath(os.fspath(base_dir)) if base_dir is not None else os.getcwd()
        return self._read(spec, data, self.new_context(None, base, search_paths), base)

    def new_context(self, source: str | None, base_dir: str, search_paths: Iterable[str]) -> LoadContext:
        context = LoadContext(
            source=source,
            base_dir=base_dir,
            search_paths=[os.fspath(p) for p in search_paths],
            resolver=self.resolve_uri,
        )
        context.load_file = lambda path, format=None: self.load(path, format=format, context=_child(context, path))
        return context

    def _read(self, spec: FormatSpec, data: bytes, context: LoadContext, base_dir: str) -> Model:
        if spec.read is None:
            raise FormatError(f"format {spec.name!r} (plugin {spec.plugin!r}) cannot be read, only written")
        context.format = spec.name
        where = context.source or "<string>"
        try:
            model = spec.read(data, context)
        except RobodescError:
            raise
        except RecursionError:  # a reader's last line of defence; readers limit the nesting they recurse into
            raise RobodescError(
                "the description nests too deeply to read", location=Location(file=context.source)
            ) from None
        except Exception as exc:
            raise PluginError(
                f"the {spec.name!r} reader of plugin {spec.plugin!r} failed on {where}: {type(exc).__name__}: {exc}",
                construct=spec.name,
                suggestion="report this to the plugin's authors",
            ) from exc
        if not isinstance(model, Model):
            raise PluginError(
                f"the {spec.name!r} reader of plugin {spec.plugin!r} returned {type(model).__name__}, not a Model",
                construct=spec.name,
                suggestion="report this to the plugin's authors",
            )
        model.format = model.format or spec.name
        model.source = model.source or context.source
        for impl in reversed(self.pm.hook.robodesc_model_loaded.get_hookimpls()):
            try:
                impl.function(model=model, context=context)
            except RobodescError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {impl.plugin_name!r} failed in robodesc_model_loaded on {where}: "
                    f"{type(exc).__name__}: {exc}",
                    construct=impl.plugin_name,
                    suggestion="report this to the plugin's authors, or unregister the plugin",
                ) from exc
        return model

    def check(
        self,
        target: str | os.PathLike | Model,
        *,
        strict: bool = False,
        format: str | None = None,
        search_paths: Iterable[str] = (),
    ) -> CheckReport:
        """Load (unless given a model) and check: the reader's notes, robodesc's checks, plugins' checks."""
        if isinstance(target, Model):
            model, source, found = target, target.source, list(target.diagnostics)
        else:
            source = os.fspath(target)
            try:
                model = self.load(source, format=format, search_paths=search_paths)
            except RobodescError as error:
                return CheckReport(source, [error_diagnostic(error)], None, strict)
            found = list(model.diagnostics)
        found += check_model(model)
        for impl in reversed(self.pm.hook.robodesc_checks.get_hookimpls()):
            try:
                found += list(impl.function(model=model) or ())
            except Exception as exc:
                found.append(
                    Diagnostic(
                        Severity.ERROR,
                        "plugin-check-failed",
                        f"the checks of plugin {impl.plugin_name!r} failed: {type(exc).__name__}: {exc}",
                        Location(file=source),
                        "report this to the plugin's authors",
                    )
                )
        return CheckReport(source, deduplicated(found), model, strict)

    def dumps(self, model: Model, format: str) -> str:
        spec = self.get(format)
        if spec.write is None:
            raise FormatError(
                f"format {format!r} (plugin {spec.plugin!r}) cannot be written",
                suggestion="formats that can be written: "
                + (", ".join(n for n, f in self.formats().items() if f.can_write) or "none installed"),
            )
        return spec.write(model)


def _child(parent: LoadContext, path: str) -> LoadContext:
    """A context for a file loaded from within another load: same search paths and cache."""
    context = parent.at(os.path.dirname(os.path.abspath(os.fspath(path))))
    context.source = os.fspath(path)
    return context


_default: Registry | None = None


def default_registry() -> Registry:
    """The process-wide registry that `robodesc.load` and friends use (created on first use)."""
    global _default
    if _default is None:
        _default = Registry()
    return _default
