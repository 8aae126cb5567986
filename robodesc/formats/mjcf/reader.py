"""MJCF → `Model`, compiled the way MuJoCo compiles it.

MuJoCo's compiler works in stages, XML -> spec (``mjSpec``) -> compiled model, and so does this
reader, one module per stage:

1. spec (prepare.py, spec.py, elements.py): splice ``<include>``s, check the schema, merge every
   ``<compiler>``, resolve ``<default>`` classes once into plain attribute values, read the assets,
   then walk ``<worldbody>`` (frames vanish into the poses of what they hold, ``<replicate>``
   expands, ``<attach>`` grafts a sub-model) into plain records (records.py); a geom's record holds
   its finished shape. Everything MuJoCo refuses is refused here, with its location.
2. build (build.py): the records into a `core.Model` (bodies, joints, frames, constraints,
   actuators, keyframes; the geoms' shapes onto their bodies). It never sees XML.
3. compile (compile.py): what MuJoCo's compiler computes: fusestatic, inertia from geoms, bounds
   and settotalmass, alignfree; then the references are checked.

The spec stage reads every file with one `LoadState` (state.py): an attached sub-model is read
with its own file's settings but into the same spec, names and counters. The stages after it get
everything through the spec. The model a user gets has no inheritance left in it: every value is
the one MuJoCo would use.

What MuJoCo compiles but silently overrides is noted on `model.diagnostics`
(`fromto-overrides-pose`, `class-attribute-ignored`; the rules are in checks.py). A mesh geom's
shape keeps its asset's name and location in `extras["mjcf"]` (`mesh`, `mesh_location`) for the
mesh check of `robodesc check`.
"""

from __future__ import annotations

from ...core.model import Model
from ...core.resources import LoadContext
from ..xml import parse_xml
from .build import build_model
from .compile import compile_model
from .spec import read_spec
from .state import LoadState


def read(data: bytes, context: LoadContext) -> Model:
    """Read MJCF text into a `Model` (the reader registered for the `mjcf` format)."""
    state = LoadState(context)
    try:
        spec = read_spec(state, parse_xml(data, context.source))
        model = build_model(spec)
        compile_model(spec, model)
        state.detach()  # the model's locations keep the files' bytes, not their parsed trees
        return model
    finally:
        state.release()  # the files' assets and scopes refer to each other: freed now, not by the collector
