"""Which format reads a file: the formats plugins offer, the conflicts between them, and detection.

The rule (shared/DESIGN.md) never depends on install order, `sys.path` or the working directory:

1. `format=NAME` when the caller gives one.
2. Otherwise the formats claiming the file's extension (the longest extension that any format
   claims decides, so `.urdf.xacro` beats `.xacro`). One claimant reads it. When several do,
   robodesc's own format wins and a `PluginWarning` names the others; among third-party formats
   only, the first (by plugin, then format name) whose sniffer recognises the content wins.
3. Content sniffing only when no extension decides: robodesc's formats first, then the others
   by plugin and format name.

A format *name* offered by two plugins: robodesc's own keeps it (the other is reported); between
third parties the name is unusable, and loading it names both plugins.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.errors import FormatError, Location, PluginError
from .spec import FormatSpec

#: How robodesc hears of a plugin's failure: (plugin name, what went wrong).
Report = Callable[[str, str], None]


@dataclass
class FormatTable:
    """The formats usable for one set of plugins, built once and kept until a plugin comes or goes."""

    usable: dict[str, FormatSpec] = field(default_factory=dict)
    #: format name -> every plugin offering it (the one in use first, when one is)
    conflicts: dict[str, list[str]] = field(default_factory=dict)
    #: every format offered, usable or not, in lookup order (robodesc's own first)
    offered: list[FormatSpec] = field(default_factory=list)
    builtin: frozenset[str] = frozenset()
    #: extension -> the offered formats claiming it (lookup order), and the claimed lengths, longest first:
    #: made on first use, so that finding a file's claimants is a few dict lookups, not a pass over every format
    _claims: tuple[dict[str, list[FormatSpec]], list[int]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def build(cls, offers: Iterable[FormatSpec], builtin: frozenset[str], report: Report) -> FormatTable:
        table = cls(builtin=builtin)
        table.offered = sorted(offers, key=table._rank)
        by_name: dict[str, list[FormatSpec]] = {}
        for spec in table.offered:
            by_name.setdefault(spec.name, []).append(spec)
        for name, specs in by_name.items():
            if len(specs) == 1:
                table.usable[name] = specs[0]
                continue
            plugins = [s.plugin for s in specs]
            table.conflicts[name] = plugins
            if specs[0].plugin in builtin:
                table.usable[name] = specs[0]
                for other in plugins[1:]:
                    report(other, f"offers format {name!r}, which robodesc provides itself; robodesc's is used")
            else:
                for other in plugins:
                    report(
                        other,
                        f"offers format {name!r} like plugin(s) {', '.join(p for p in plugins if p != other)}; "
                        f"the format is unusable until all but one are removed or disabled",
                    )
        return table

    def _rank(self, spec: FormatSpec) -> tuple[bool, str, str]:
        return (spec.plugin not in self.builtin, spec.plugin, spec.name)

    def get(self, name: str) -> FormatSpec | None:
        """The usable format `name`; a `PluginError` naming the plugins when they conflict over it."""
        if name in self.usable:
            return self.usable[name]
        if name in self.conflicts:
            raise PluginError(
                f"format {name!r} is offered by several plugins: " + ", ".join(self.conflicts[name]),
                construct=name,
                suggestion="uninstall or disable all but one of them (ROBODESC_DISABLE_PLUGINS=NAME)",
            )
        return None

    def extensions(self) -> tuple[str, ...]:
        """Every extension any offered format claims (lower case), usable or not."""
        return tuple(dict.fromkeys(e for spec in self.offered for e in spec.extensions))

    def shared_extensions(self) -> dict[str, list[FormatSpec]]:
        """Extensions claimed by more than one usable format -> those formats, in lookup order."""
        claims: dict[str, list[FormatSpec]] = {}
        for spec in self.offered:
            if self.usable.get(spec.name) is spec:
                for ext in spec.extensions:
                    claims.setdefault(ext, []).append(spec)
        return {ext: specs for ext, specs in claims.items() if len(specs) > 1}

    def claimants(self, path: str) -> list[FormatSpec]:
        """The offered formats claiming the longest extension of `path` that any format claims. Of one
        length, `path` ends with one string only: the claimants are the formats claiming that one."""
        if self._claims is None:
            index: dict[str, list[FormatSpec]] = {}
            for spec in self.offered:
                for ext in dict.fromkeys(spec.extensions):  # (a format claiming an extension twice is listed once)
                    if ext:
                        index.setdefault(ext, []).append(spec)
            self._claims = index, sorted({len(e) for e in index}, reverse=True)
        index, lengths = self._claims
        lower = os.path.basename(path).lower()
        for length in lengths:
            found = index.get(lower[-length:])  # (a name shorter than `length` is looked up whole)
            if found is not None:
                return list(found)
        return []

    def detect(self, path: str | None, head: bytes, report: Report) -> FormatSpec:
        """The format that reads `path` (None for text) starting with `head`, by the rule above."""
        if path is not None:
            claimants = self.claimants(path)
            readable = [s for s in claimants if self.usable.get(s.name) is s and s.read is not None]
            if len(readable) == 1:
                return readable[0]
            if readable:
                return self._choose(path, readable, head, report)
            unusable = [s for s in claimants if s.name not in self.usable]
            if unusable:  # third parties conflict over the name: the error names them
                self.get(unusable[0].name)
            write_only = [s for s in claimants if self.usable.get(s.name) is s]
            if write_only:
                raise FormatError(
                    f"format {write_only[0].name!r} (plugin {write_only[0].plugin!r}) claims "
                    f"{os.path.basename(path)} but cannot read, only write",
                    location=Location(file=path),
                )
            # left: claimants shadowed by robodesc's format of the same name; the content decides
        for spec in self.offered:
            if self.usable.get(spec.name) is spec and spec.read is not None and _sniffs(spec, head, report):
                return spec
        name = os.path.basename(path) if path else "the input"
        raise FormatError(
            f"cannot tell the format of {name}",
            location=Location(file=path),
            suggestion="pass format=NAME (one of " + ", ".join(sorted(self.usable)) + ")",
        )

    def _choose(self, path: str, claimants: list[FormatSpec], head: bytes, report: Report) -> FormatSpec:
        """Several usable formats claim the extension of `path`: robodesc's own, else the first that sniffs."""
        builtin = [s for s in claimants if s.plugin in self.builtin]
        chosen = builtin[0] if builtin else next((s for s in claimants if _sniffs(s, head, report)), None)
        ext = os.path.splitext(path)[1] or os.path.basename(path)
        listed = ", ".join(f"{s.name!r} (plugin {s.plugin!r})" for s in claimants)
        if chosen is None:
            raise FormatError(
                f"several formats claim {ext} files ({listed}) and none recognises {os.path.basename(path)}",
                location=Location(file=path),
                suggestion="pass format=NAME to choose one",
            )
        for other in claimants:
            if other is not chosen:
                report(
                    other.plugin,
                    f"format {other.name!r} claims {ext} files like format {chosen.name!r} "
                    f"(plugin {chosen.plugin!r}), which reads them; pass format={other.name!r} to use it",
                )
        return chosen


def is_fragment(spec: FormatSpec, data: bytes, report: Report) -> bool:
    """Whether `spec` calls the file `data` only a part for others to include; a `fragment` that
    raises is reported and counts as no (the file is then checked like any other)."""
    if spec.fragment is None:
        return False
    try:
        return bool(spec.fragment(data))
    except Exception as exc:  # a plugin's code: reported against its plugin
        report(spec.plugin, f"the fragment test of format {spec.name!r} failed: {type(exc).__name__}: {exc}")
        return False


def _sniffs(spec: FormatSpec, head: bytes, report: Report) -> bool:
    """Whether `spec` recognises `head`; a sniffer that raises is reported and counts as no."""
    if spec.sniff is None:
        return False
    try:
        return bool(spec.sniff(head))
    except Exception as exc:  # a plugin's sniffer: reported against its plugin, the others still run
        report(spec.plugin, f"the sniffer of format {spec.name!r} failed: {type(exc).__name__}: {exc}")
        return False
