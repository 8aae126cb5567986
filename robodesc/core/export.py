"""Files any 3D viewer opens: a posed scene written as glTF binary, OBJ, STL, PLY or COLLADA.

`Model.scene()` already holds every shape at its world pose; writing it out is trimesh's job.
What this module adds is what a user of a command expects from a file it writes:

* the file type comes from the extension, and an extension nobody writes is refused before any
  work, naming the ones that are written;
* a file is replaced only once its new content is complete (written beside it, then renamed), so a
  failure never leaves a half-written file or destroys the one the user had;
* what the file needs beside it is written too (an OBJ's `.mtl` and texture images), and every
  failure is a robodesc error naming the file.

GLB keeps the most (the node tree with names, materials, textures) and is what the docs suggest.
STL and PLY have no nodes: trimesh joins the posed shapes into one mesh (PLY keeps colours).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import ExportFailed, InvalidArgument, MissingDependency, RobodescError

if TYPE_CHECKING:
    import trimesh

#: Extension (lower case, with the dot) → what is written.
EXPORT_TYPES: dict[str, str] = {
    ".glb": "glTF binary: nodes, names, colours and textures in one file",
    ".obj": "Wavefront OBJ, with its .mtl and texture images beside it",
    ".stl": "binary STL: one mesh, no colours",
    ".ply": "binary PLY: one mesh with colours",
    ".dae": "COLLADA: one node per shape, with colours (needs pycollada, the meshes extra)",
}


def export_scene(scene: trimesh.Scene, path: str | os.PathLike[str]) -> list[str]:
    """Write `scene` to `path`, its type chosen by the extension (see `EXPORT_TYPES`).

    Returns every file written (the OBJ's material library and textures come after the OBJ).
    Raises `InvalidArgument` for an extension not in `EXPORT_TYPES`, `MissingDependency` when
    trimesh needs a package that is not installed, `ExportFailed` when writing fails; in every
    case an existing file at `path` is left as it was.
    """
    target = os.fspath(path)
    extension = os.path.splitext(target)[1].lower()
    if extension not in EXPORT_TYPES:
        known = ", ".join(EXPORT_TYPES)
        raise InvalidArgument(
            f"cannot write {target!r}: robodesc writes scenes as {known}",
            construct=extension or target,
            suggestion="name the output robot.glb (keeps names, colours and textures)",
        )
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ExportFailed(f"cannot write {target!r}: the folder {folder!r} does not exist", construct=target)
    try:
        files = _encode(scene, extension, os.path.basename(target))
    except RobodescError:
        raise
    except ImportError as exc:
        package = (exc.name or "pycollada").split(".")[0]
        package = "pycollada" if package == "collada" else package
        raise MissingDependency(
            f"writing {extension} files needs the package {package!r}", package=package, extra="meshes"
        ) from exc
    except Exception as exc:  # trimesh's exporters raise whatever their encoders raise
        raise ExportFailed(f"trimesh could not write {target!r}: {exc}", construct=target) from exc
    written = []
    for name, data in files:
        destination = os.path.join(os.path.dirname(target), name)  # named as the caller named the target
        write_whole(destination, data)
        written.append(destination)
    return written


def _encode(scene: trimesh.Scene, extension: str, filename: str) -> list[tuple[str, bytes]]:
    """The bytes of every file to write, the main file first, all built before anything is written."""
    encoders: dict[str, Callable[[trimesh.Scene, str], list[tuple[str, bytes]]]] = {
        ".glb": _glb,
        ".obj": _obj,
        ".stl": _single("stl"),
        ".ply": _single("ply"),
        ".dae": _dae,
    }
    return encoders[extension](scene, filename)


def _glb(scene: trimesh.Scene, filename: str) -> list[tuple[str, bytes]]:
    return [(filename, _as_bytes(scene.export(file_type="glb")))]


def _single(file_type: str) -> Callable[[trimesh.Scene, str], list[tuple[str, bytes]]]:
    def encode(scene: trimesh.Scene, filename: str) -> list[tuple[str, bytes]]:
        return [(filename, _as_bytes(scene.export(file_type=file_type)))]

    return encode


def _obj(scene: trimesh.Scene, filename: str) -> list[tuple[str, bytes]]:
    """The OBJ text naming its material library, then the library and the textures it refers to."""
    from trimesh.exchange.obj import export_obj

    stem = os.path.splitext(filename)[0]
    text, extra = export_obj(scene, include_texture=True, return_texture=True, mtl_name=f"{stem}.mtl")
    return [(filename, _as_bytes(text))] + [(name, _as_bytes(data)) for name, data in extra.items()]


def _dae(scene: trimesh.Scene, filename: str) -> list[tuple[str, bytes]]:
    """COLLADA of the posed shapes (trimesh writes a list of meshes, one node each)."""
    import collada  # noqa: F401  -- imported first so a missing pycollada is named as such
    from trimesh.exchange.dae import export_collada

    return [(filename, _as_bytes(export_collada(scene.dump(concatenate=False))))]


def _as_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def write_whole(destination: str, data: bytes) -> None:
    """Write `data` to a temporary file beside `destination`, then rename it over `destination`:
    the destination holds either its old content or all of the new one, never part of it. The file
    keeps the mode of the one it replaces (a new one: rw for the owner, readable by others), not the
    private mode of the temporary file. Failures raise `ExportFailed`."""
    folder = os.path.dirname(destination) or "."
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".robodesc-", suffix=".part")
    except OSError as exc:
        raise ExportFailed(f"cannot write in {folder!r}: {exc.strerror or exc}", construct=destination) from exc
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, _new_file_mode(destination))
        os.replace(temporary, destination)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise ExportFailed(f"cannot write {destination!r}: {exc.strerror or exc}", construct=destination) from exc


def _new_file_mode(destination: str) -> int:
    """The mode of the file being replaced, else rw for the owner and readable by others."""
    try:
        return os.stat(destination).st_mode & 0o777
    except OSError:
        return 0o644
