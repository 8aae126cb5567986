"""What a writer is told and what it tells back: the output's place, and what the target cannot hold.

Every writer (`FormatSpec.write(model, context) -> str`) gets a `WriteContext`. It says where the
text will be written, so mesh references can be made relative to that folder, and collects one
`Loss` for each construct of the model the target format cannot express, with what was written
instead. Conversion (`robodesc.convert`, `robodesc convert`) prints the losses; `--strict` refuses
to write when there is any. A writer never drops something silently: it writes it, or it loses it
here.

This module knows no format; the built-in writers live in `robodesc/formats/<format>/write.py`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .errors import Location


@dataclass(frozen=True)
class Loss:
    """One construct of the model that the target format cannot express.

    `code` names the kind (``"tendon"``, ``"ball-joint"``, ``"default-class"``, ...: listed in
    docs/converting.md); `message` says what was lost; `location` is where the construct was
    written in the source description (from the model's `location` fields); `construct` names it
    (a body, joint or element); `instead` says what the output holds in its place ("nothing", "a
    cylinder of the same radius and length", ...).
    """

    code: str
    message: str
    location: Location = field(default_factory=Location)
    construct: str | None = None
    instead: str = "nothing"

    def __str__(self) -> str:
        where = self.location.file or ""
        if where and self.location.line is not None:
            where += f":{self.location.line}"
        head = f"{where}: " if where else ""
        return f"{head}{self.code}: {self.message}; written instead: {self.instead}"


class WriteContext:
    """Where a writer's text goes and what it reports.

    `path` is the file the text will be written to, or None when the text is only returned
    (`robodesc.dumps`): mesh references are then written as absolute paths. With `copy_assets`,
    a mesh file is referred to as ``<stem>_assets/<file name>`` beside the output and listed in
    `assets` (source path -> path relative to the output's folder) for the caller to copy.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, copy_assets: bool = False) -> None:
        self.path = None if path is None else os.path.abspath(os.fspath(path))
        self.copy_assets = copy_assets
        self.losses: list[Loss] = []
        self.assets: dict[str, str] = {}

    @property
    def folder(self) -> str | None:
        """The folder the output is written in (None when the text is only returned)."""
        return None if self.path is None else os.path.dirname(self.path)

    def lose(
        self,
        code: str,
        message: str,
        *,
        location: Location | None = None,
        construct: str | None = None,
        instead: str = "nothing",
    ) -> None:
        """Report one construct the target cannot express (see `Loss`)."""
        self.losses.append(Loss(code, message, location or Location(), construct, instead))

    def file_reference(self, source_path: str | None, uri: str) -> str:
        """How the output should name a file the model refers to (a mesh, a height field image).

        `source_path` is the local file the source's `uri` resolved to when loading (None when it
        was not found). The reference is relative to the output's folder, so the output works
        wherever the pair is moved together; with `copy_assets` it points at the copy in
        ``<stem>_assets/``; with no output path it is absolute. A file that was never found keeps
        the source's `uri` as written, the best a reader of the output can be given.
        """
        if source_path is None:
            return uri
        source_path = os.path.abspath(source_path)
        if self.path is None:
            return source_path
        if self.copy_assets:
            copied = self.assets.get(source_path)
            if copied is None:
                stem = os.path.splitext(os.path.basename(self.path))[0]
                taken = set(self.assets.values())
                name = os.path.basename(source_path)
                copied = f"{stem}_assets/{name}"
                counter = 2
                while copied in taken:  # two meshes of one name from different folders
                    base, ext = os.path.splitext(name)
                    copied = f"{stem}_assets/{base}_{counter}{ext}"
                    counter += 1
                self.assets[source_path] = copied
            return copied
        assert self.folder is not None
        try:
            relative = os.path.relpath(source_path, self.folder)
        except ValueError:  # another drive (Windows): no relative path exists
            return source_path
        return relative.replace(os.sep, "/")


def unique_name(wanted: str, taken: set[str]) -> str:
    """`wanted`, or `wanted_2`, `wanted_3`, ... : the first not in `taken`, which is updated.

    Writers name the helper bodies and joints a target needs (a dummy link between two joints of
    one MJCF body, ...) with this, so a helper never collides with a name of the model."""
    name, counter = wanted, 2
    while name in taken:
        name = f"{wanted}_{counter}"
        counter += 1
    taken.add(name)
    return name
