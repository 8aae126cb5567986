"""Converting a description from one format to another: load, write, say what did not fit.

`convert` is `load` followed by the target format's writer, with what a user converting files
needs around it: the target chosen from the output's extension, mesh references that resolve from
the output's folder (or meshes copied beside it), every construct the target cannot express
returned as a `Loss`, and a strict mode that writes nothing when anything would be lost. The output
file (and each copied mesh) is replaced only once complete, so a failure leaves what was there.

It lives outside `core` because it uses the plugin registry: any installed format that reads can
be converted from, and any that writes can be converted to.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .core.errors import FormatError, LossyConversion, ResourceNotFound
from .core.export import write_whole
from .core.resources import read_file
from .core.writing import Loss, WriteContext
from .plugins import default_registry

#: Extensions no writer claims but whose format is the convention: MuJoCo's models are `.xml`.
CONVENTIONAL_EXTENSIONS = {".xml": "mjcf"}


@dataclass
class Conversion:
    """What `convert` did: the format written, every file written (the output first, then copied
    meshes), and what the target format could not express."""

    source: str
    output: str
    format: str
    losses: list[Loss] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


def target_format(output: str | os.PathLike[str], to: str | None = None, option: str = "to") -> str:
    """The format to write `output` in: `to` when given, else the writable format claiming the
    output's extension (`.xml` is MJCF, MuJoCo's convention). `option` names the argument that
    chooses a format in the caller's own terms (`to=` for `convert`, `format=` for `dump`)."""
    registry = default_registry()
    writable = {name: spec for name, spec in registry.formats().items() if spec.can_write}
    if to is not None:
        if to not in writable:
            known = ", ".join(sorted(writable)) or "none"
            raise FormatError(f"no installed format named {to!r} can be written", suggestion=f"write one of: {known}")
        return to
    lower = os.fspath(output).lower()
    claiming = [name for name, spec in writable.items() if any(lower.endswith(ext) for ext in spec.extensions)]
    if claiming:
        return claiming[0]
    conventional = CONVENTIONAL_EXTENSIONS.get(os.path.splitext(lower)[1])
    if conventional in writable:
        return conventional
    raise FormatError(
        f"cannot tell which format to write {os.fspath(output)!r} in from its extension",
        suggestion=f"pass {option}=NAME (" + ", ".join(sorted(writable)) + ")",
    )


def convert(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    to: str | None = None,
    format: str | None = None,
    search_paths: Iterable[str | os.PathLike[str]] = (),
    copy_assets: bool = False,
    strict: bool = False,
    confine: bool = False,
    args: Mapping[str, str] | None = None,
) -> Conversion:
    """Load `source` (in `format`, else found as `load` finds it, confined as `load` confines it)
    and write it to `output` in format `to` (else from `output`'s extension); `args` as for `load`.
    Returns a `Conversion` with the losses.

    Mesh references in the output are relative to its folder; with `copy_assets` the meshes are
    copied into ``<output stem>_assets/`` beside it. With `strict`, any loss raises
    `LossyConversion` and nothing is written.
    """
    from . import load  # the package's load, with plugins and resolvers

    out_path = os.fspath(output)
    target = target_format(out_path, to)
    model = load(source, format=format, search_paths=search_paths, confine=confine, args=args)
    context = WriteContext(out_path, copy_assets=copy_assets)
    text = default_registry().dumps(model, target, context=context)
    if strict and context.losses:
        raise LossyConversion(
            f"{target} cannot express {len(context.losses)} construct(s) of {os.fspath(source)!r}; nothing was written",
            losses=list(context.losses),
            suggestion="convert without strict to write it anyway, each loss listed",
        )
    folder = os.path.dirname(os.path.abspath(out_path))
    written = []
    for original, relative in context.assets.items():  # meshes first: the output last, once all it names is there
        destination = os.path.join(folder, relative)
        try:  # bounded and regular files only, as every file a description names
            data = read_file(original, kind="mesh", what="mesh", construct=original)
        except OSError as exc:
            raise ResourceNotFound(
                f"cannot copy {original!r} beside the output: {exc.strerror or exc}", construct=original
            ) from exc
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        write_whole(destination, data)
        written.append(destination)
    write_whole(out_path, text.encode("utf-8"))
    written.insert(0, out_path)
    return Conversion(os.fspath(source), out_path, target, list(context.losses), written)
