"""SDF -> `Model`, following libsdformat 16: the same links, joints, poses and rejections.

The work is split by stage, each a module of its own:

1. parsing, file by file (`loader` finds and caches the files of the load, `parse` reads one
   file's `<sdf>` root, `elements`, `joints`, `geometry`, `includes`, `params`, `merge` and
   `names` its elements, each given the file's `context`; `checks.lint` notes what is doubtful)
   into the parsed form (`desc`);
2. frame semantics (`graph`: relative_to and attached_to), on the parsed form;
3. building (`build`): the parsed form -> bodies, joints, frames.

A file whose top element is `<robot>` is URDF, which libsdformat also accepts: it is handed to
the URDF reader.
"""

from __future__ import annotations

import numpy as np

from ...core.diagnostics import Diagnostic
from ...core.model import Model
from ...core.resources import LoadContext
from ...core.validation import check_finite_poses
from ..xml import root_tag
from .build import Builder
from .loader import Loader
from .parse import parse_file
from .size import check_size


def read(data: bytes, context: LoadContext) -> Model:
    """Read SDF text into a `Model` (the reader registered for the `sdf` format)."""
    if root_tag(data[:4096]) == "robot" and context.source is not None and context.load_file is not None:
        return context.load_file(context.source, format="urdf")
    loader = Loader(context, parse_file)
    file_desc = loader.parse_text(data, context.source, context.base_dir)
    check_size(file_desc)  # what the includes expand to, before building it
    builder = Builder(file_desc)
    with np.errstate(all="ignore"):  # poses of absurd size overflow: refused just below, not warned about
        model = builder.build()
    if not builder.poses_bounded:  # (most models: the builder's bound shows there is nothing to find)
        check_finite_poses(model)
    seen: set[tuple[str, str, int]] = set()
    for parsed in list(loader.files.values()):  # every file of the load, each reported once
        _report(model, parsed.diagnostics, seen)
    _report(model, file_desc.diagnostics, seen)
    return model


def _report(model: Model, diagnostics: list[Diagnostic], seen: set[tuple[str, str, int]]) -> None:
    """Add what a parsed file noticed to the model, once however often the file was included."""
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.message, id(diagnostic.location))
        if key not in seen:
            seen.add(key)
            model.diagnostics.append(diagnostic)
