"""Entry points of one group, found as `importlib.metadata.entry_points(group=...)` finds them,
without importing importlib.metadata where the search is plain.

Importing importlib.metadata (with email, zipfile, csv and their own imports) and listing every
distribution's entry points costs about a third of numpy's import, on every process's first
`load`. Where every distribution lies in a folder on `sys.path` and the standard path finder is
the only one that finds distributions, as in nearly every environment, the same search is a
listing of those folders and a read of each distribution's `entry_points.txt`: that is what
`entry_points` does here, with importlib.metadata's rules (folders in `sys.path` order; a
distribution's name from its `NAME-VERSION.dist-info` or `NAME.egg-info` folder, normalised; the
first distribution of a name shadows later ones). Anywhere else (zip files or eggs on the path,
another finder of distributions) it asks importlib.metadata itself.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import re
import sys
from functools import reduce
from typing import Any

_INFO_SUFFIXES = (".dist-info", ".egg-info")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")  # importlib.metadata's
#: what is read of one metadata file at most: a distribution's headers and entry points take a few kB
_MAX_READ = 1 << 20
_SEPARATORS = re.compile(r"[-_.]+")  # a distribution name normalised: runs of them are one "_"


class Distribution:
    """The distribution an entry point comes from: its `name` and `version` as its metadata
    (METADATA, or PKG-INFO for an egg) gives them, read on first use."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._headers: dict[str, str] | None = None

    def _header(self, key: str) -> str | None:
        if self._headers is None:
            self._headers = {}
            text = _read_text(self._path, "METADATA") or _read_text(self._path, "PKG-INFO") or ""
            for line in text.splitlines():
                if not line.strip():
                    break  # the headers end at the first blank line
                name, sep, value = line.partition(":")
                if sep and not line[0].isspace():
                    self._headers.setdefault(name.strip().lower(), value.strip())
        return self._headers.get(key)

    @property
    def name(self) -> str | None:
        return self._header("name")

    @property
    def version(self) -> str | None:
        return self._header("version")


class EntryPoint:
    """`name = value` in a distribution's `group` section; `load()` imports what `value` names
    ("module" or "module:attribute"), as importlib.metadata's EntryPoint.load does."""

    def __init__(self, name: str, value: str, group: str, dist: Distribution) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self) -> Any:
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"{self.value!r} is not a module or module:attribute")
        module = importlib.import_module(match.group("module"))
        return reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> list[Any]:
    """The entry points of `group`, in importlib.metadata's order."""
    found = _plain_search(group)
    if found is None:
        from importlib.metadata import entry_points as metadata_entry_points

        return list(metadata_entry_points(group=group))
    return found


def _plain_search(group: str) -> list[Any] | None:
    """The entry points of `group` where a listing of the `sys.path` folders finds every
    distribution, else None."""
    if any(
        finder is not importlib.machinery.PathFinder and getattr(finder, "find_distributions", None) is not None
        for finder in sys.meta_path
    ):
        return None  # another finder may know distributions that no folder listing shows
    seen: set[str] = set()
    found: list[Any] = []
    for root in sys.path:
        if not isinstance(root, str) or root.lower().endswith(".egg"):
            return None
        try:
            children = os.listdir(root or ".")
        except NotADirectoryError:
            return None  # a zip file: importlib.metadata reads it
        except OSError:
            continue  # a folder that is not there (or not readable) holds nothing, as for importlib.metadata
        for child in children:
            if not child.lower().endswith(_INFO_SUFFIXES):
                continue
            if not child.endswith(_INFO_SUFFIXES):
                return None  # (importlib.metadata then names it from its metadata, not from the folder)
            key = _SEPARATORS.sub("_", child.rpartition(".")[0].partition("-")[0]).lower()
            if key in seen:
                continue  # shadowed by a distribution of the same name earlier on the path
            seen.add(key)
            path = os.path.join(root, child)
            text = _read_text(path, "entry_points.txt")
            if text is not None and len(text) >= _MAX_READ:
                return None  # not read whole: importlib.metadata reads it
            if text:
                found += _section(text, group, Distribution(path))
    return found


def _section(text: str, group: str, dist: Distribution) -> list[EntryPoint]:
    """The `name = value` lines of `text`'s [group] section (comments and blank lines left out)."""
    entries = []
    section = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == group and "=" in line:
            name, value = (part.strip() for part in line.split("=", 1))
            entries.append(EntryPoint(name, value, group, dist))
    return entries


def _read_text(folder: str, name: str) -> str | None:
    """The file's text, at most `_MAX_READ` characters of it, or None when it cannot be read."""
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as file:
            return file.read(_MAX_READ)
    except (OSError, UnicodeDecodeError):
        return None
