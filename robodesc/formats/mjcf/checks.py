"""MJCF-specific checks for `robodesc check` (the `robodesc_checks` hook of the MJCF plugin), and
the rules the reader applies while loading to note what MuJoCo compiles but silently overrides.

The reader refuses what MuJoCo refuses (schema, unknown classes, bad values). What loads but is
doubtful is reported with these codes (docs/diagnostics.md):

A geom or site placed by ``fromto`` that also has a non-zero ``pos`` (its own or its class's) is
refused while loading, as MuJoCo refuses it ("both pos and fromto defined").
* ``fromto-overrides-pose`` (warning, noted by the reader): a geom or site with ``fromto`` that also
  writes an orientation (quat, axisangle, euler, xyaxes, zaxis); MuJoCo orients it along fromto and
  ignores the orientation.
* ``class-attribute-ignored`` (warning, noted by the reader): a default class (the element's
  ``class``, the ``childclass`` in force, or ``main``) gives an element an attribute that MuJoCo
  ignores for that element. `ignored_class_attributes` lists exactly what MuJoCo's compiler drops or
  overwrites:

  - free joints: range, limited (a free joint is never limited), axis, pos, ref, springref;
  - ball joints: axis (always 0 0 1), ref, springref (used by hinge and slide joints only);
  - mesh, sdf and hfield geoms: size (the mesh or height field sets it);
  - primitive geoms fitted to a mesh (``mesh=`` on a box, sphere, ...): size (the fit sets it);
  - geoms with no mesh to fit: fitscale;
  - geoms and sites placed by fromto: quat, axisangle, euler, xyaxes, zaxis.

  Attributes the element writes itself are its author's choice and not reported here (an orientation
  written beside fromto is ``fromto-overrides-pose``). One finding per class, element type and set
  of attributes, listing the elements, so a class used a hundred times reads as one finding.
* ``mesh-unreadable`` (error, `check`): a mesh file a shape uses that MuJoCo cannot read (an ASCII
  STL, an unknown extension, a truncated file, ...). Every file is read once per check, by MuJoCo's
  rules (`meshfiles.load_mesh_file`); loading a model never reads meshes only drawn.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import Location
from ...core.geometry import Mesh
from ...core.inertia import PRIMITIVES
from ...core.model import Model
from . import meshfiles
from .attributes import ORIENTATIONS
from .meshfiles import MalformedMeshFile, MeshFileError, UnsupportedMeshFileType

#: Geom and site types that fromto can place.
FROMTO_KINDS = ("capsule", "cylinder", "box", "ellipsoid")
#: Joint attributes MuJoCo ignores, per joint type, and why.
_JOINT_IGNORES = {
    "free": (
        ("range", "limited", "axis", "pos", "ref", "springref"),
        "free joints have no limits, axis, anchor or scalar reference",
    ),
    "ball": (("axis", "ref", "springref"), "ball joints have no axis or scalar reference"),
}
#: Every attribute `ignored_class_attributes` can name: an element that inherits none of them has
#: nothing ignored, which the reader tells without going through the rules (most inherit none).
MAYBE_IGNORED = frozenset(
    {"size", "fitscale", *ORIENTATIONS, *(name for names, _ in _JOINT_IGNORES.values() for name in names)}
)
#: How many names a finding lists before "and N more".
LISTED = 5


def listing(names: list[str]) -> str:
    """`names` joined, the first `LISTED` of them, then how many more."""
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def ignored_class_attributes(tag: str, kind: str, attrs: dict[str, str], inherited: Iterable[str]) -> dict[str, str]:
    """The `inherited` attributes (those a default class gave) that MuJoCo ignores on this element,
    each with the reason, in a stable order.

    `tag` is joint, geom or site, `kind` its type, `attrs` every attribute in force on it.
    """
    inherited = set(inherited)
    rules: list[tuple[tuple[str, ...], str]] = []
    if tag == "joint" and kind in _JOINT_IGNORES:
        rules.append(_JOINT_IGNORES[kind])
    elif tag in ("geom", "site"):
        fitted = tag == "geom" and kind in PRIMITIVES and bool(attrs.get("mesh"))
        if tag == "geom" and kind in ("mesh", "sdf", "hfield"):
            rules.append((("size",), f"the {'height field' if kind == 'hfield' else 'mesh'} sets the size"))
        elif fitted:
            rules.append((("size",), "fitting to the mesh sets the size"))
        if tag == "geom" and not fitted:
            rules.append((("fitscale",), "there is no mesh to fit"))
        if kind in FROMTO_KINDS and (attrs.get("fromto") or "").strip():
            rules.append((ORIENTATIONS, "fromto sets the orientation"))
    return {name: why for names, why in rules for name in names if name in inherited}


# -- the check -----------------------------------------------------------------------------------
_REEXPORT = "re-export the mesh as a binary STL or an OBJ"


def _suggestion(error: MeshFileError) -> str:
    if isinstance(error, UnsupportedMeshFileType):
        return "MuJoCo reads .stl (binary), .obj and .msh files: convert the mesh to one of them"
    if isinstance(error, MalformedMeshFile) and error.file_type == "stl":
        return "MuJoCo reads binary STL only: convert an ASCII STL (e.g. with trimesh or MeshLab), or re-export it"
    return _REEXPORT


@functools.lru_cache(maxsize=4096)
def _unreadable(path: str, mtime_ns: int, size: int) -> tuple[str, str] | None:
    """Why MuJoCo could not read this mesh file, and what to do about it; None when it can. Keyed on
    the file's state, so checking a folder of robots that share meshes reads each file once, and an
    edited file is read again."""
    try:
        meshfiles.load_mesh_file(path)  # looked up on each call, so a test can count the reads
    except MeshFileError as exc:
        return str(exc), _suggestion(exc)
    return None


def check(model: Model) -> list[Diagnostic]:
    """Every MJCF-specific finding on a model the MJCF reader produced: meshes MuJoCo cannot read."""
    if model.format != "mjcf":
        return []

    users: dict[str, list[str]] = {}  # mesh file -> bodies whose shapes use it
    where: dict[str, Location] = {}
    assets: dict[str, str | None] = {}
    for body, shape, _ in model.iter_shapes():
        geometry = shape.geometry
        if not isinstance(geometry, Mesh) or geometry.path is None:
            continue
        path, facts = geometry.path, shape.extras.get("mjcf", {})
        bodies = users.setdefault(path, [])
        if repr(body.name) not in bodies:
            bodies.append(repr(body.name))
        where.setdefault(path, facts.get("mesh_location") or body.location)
        assets.setdefault(path, facts.get("mesh"))
    found: list[Diagnostic] = []
    for path, bodies in users.items():  # one read per file, however many geoms use it
        try:
            state = os.stat(path)
            found_problem = _unreadable(path, state.st_mtime_ns, state.st_size)
        except OSError as exc:
            found_problem = f"cannot open the file: {exc.strerror}", _REEXPORT
        if found_problem is not None:
            reason, suggestion = found_problem
            what = f"mesh {assets[path]!r}" if assets[path] else "a mesh"
            if path not in reason:  # the reason names the file as a rule
                what += f" (file {path})"
            users_of = f"body {bodies[0]}" if len(bodies) == 1 else f"bodies {listing(bodies)}"
            found.append(
                Diagnostic(
                    Severity.ERROR,
                    "mesh-unreadable",
                    f"{what} cannot be read as MuJoCo reads it: {reason}; used by {users_of}",
                    where[path],
                    suggestion,
                )
            )
    return found


__all__ = ["FROMTO_KINDS", "check", "ignored_class_attributes", "listing"]
