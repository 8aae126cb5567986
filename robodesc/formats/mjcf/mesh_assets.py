"""``<mesh>`` assets, read when first needed, as MuJoCo's compiler reads them.

A model may declare meshes it never uses, or uses only to draw: MuJoCo reads a mesh file when its
compiler needs the mesh (for a body's inertia, or to fit a primitive to it). So does robodesc: a
`MeshAsset` keeps its element and attributes as declared, and its vertex data, file and mesh frame
are read on first use, by the spec stage (fitting, drawing) or the compile stage (inertia), then
cached; meshes that write the same frame (most write none) share one `MeshFrame` per load.
Errors name the ``<mesh>`` element in its own file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import InvalidValue, Location, MalformedValue, MissingAttribute, ResourceNotFound
from ...core.resources import ResourceRefused
from ...core.transforms import make_pose, quat_to_matrix
from ..xml import Element
from . import meshfiles
from .attributes import Attributes
from .mesh_processing import ProcessedMesh, process_mesh
from .meshfiles import MalformedMeshFile, MeshFileUnreadable, UnsupportedMeshFileType


@dataclass(frozen=True)
class MeshFrame:
    """Where a mesh file's vertices sit in its geom's frame; one for every mesh of a load that writes
    the same scale, refpos and refquat (most write none)."""

    scale: np.ndarray  # read-only: each mesh shape takes a copy (one copy costs less than an array from numbers)
    reference: np.ndarray  # the frame (refpos, refquat) the file's vertices are written in, as a 4x4 pose
    #: the rigid pose X with ``X (scale * v) = scale * R^T (v - refpos)`` when one exists, which places the
    #: file's scaled vertices in the geom frame. MuJoCo moves vertices into the mesh frame as ``scale *
    #: R(refquat)^T (v - refpos)``. A file is drawn with `scale` and a rigid pose: exact when ``scale R^T
    #: scale^-1`` is a rotation (a uniform scale, or no refquat: every mesh seen so far); otherwise (a
    #: non-uniform scale with a refquat) no rigid pose can carry it, and the pose keeps the rotation and the
    #: refpos offset: the drawing is then approximate (docs/formats/mjcf.md says so).
    placement: np.ndarray
    #: whether `placement` has the identity's values (1 on the diagonal, +-0 elsewhere: a mesh without
    #: refpos and refquat), which leaves a `records.plain` geom pose as it is
    identity: bool


@dataclass
class MeshAsset:
    """One ``<mesh>`` of a file: what it declares, and what is read from it on first use."""

    name: str
    element: Element
    attrs: dict[str, str]  # with its default class applied
    path: str | None  # the file, resolved against meshdir/assetdir; None for inline vertex data
    read: Attributes  # reads values of the file the mesh is declared in
    _frame: MeshFrame | None = None
    _processed: ProcessedMesh | None = None
    _location: Location | None = None

    @property
    def location(self) -> Location:
        """Where the ``<mesh>`` is: one location for every geom that draws the mesh."""
        if self._location is None:
            self._location = self.read.where(self.element)
        return self._location

    def frame(self) -> MeshFrame:
        """The mesh's `MeshFrame` (its arrays read-only), worked out once per load for the scale,
        refpos and refquat as written."""
        if self._frame is None:
            attrs = self.attrs
            known = self.read.state.mesh_frames
            key = (attrs.get("scale"), attrs.get("refpos"), attrs.get("refquat"))
            found = known.get(key)
            if found is None:
                found = known[key] = self._read_frame()
            self._frame = found
        return self._frame

    def _read_frame(self) -> MeshFrame:
        read, element, attrs = self.read, self.element, self.attrs
        scale = np.array(read.floats(element, attrs, "scale", 3, [1.0, 1.0, 1.0]), dtype=float)
        refpos = np.array(read.floats(element, attrs, "refpos", 3, [0.0, 0.0, 0.0]))
        reference = make_pose(quat_to_matrix(read.refquat(element, attrs)), refpos)
        placement = _rigid_placement(scale, reference[:3, :3], refpos)
        scale.flags.writeable = reference.flags.writeable = placement.flags.writeable = False
        return MeshFrame(scale, reference, placement, placement.tolist() == _IDENTITY_ENTRIES)

    def processed(self) -> ProcessedMesh:
        """The mesh as MuJoCo processes it (read from its file on first use, then cached).

        A file that cannot be read is `ResourceNotFound`; a file read but not a valid mesh of its
        type is `MalformedValue`; a mesh MuJoCo refuses (degenerate, too few vertices, ...) is
        `InvalidValue`. Each names the mesh, its file and the <mesh> element.
        """
        if self._processed is None:
            self._processed = self._process()
        return self._processed

    def _process(self) -> ProcessedMesh:
        read, attrs, element = self.read, self.attrs, self.element
        name, path = self.name, self.path
        vertices = read.floats(element, attrs, "vertex", None, None)
        faces = read.floats(element, attrs, "face", None, None)
        source = f"file {path!r}" if vertices is None and path is not None else "its vertex data"
        try:
            if vertices is not None:  # process_mesh checks the counts, and that face indices are whole numbers
                points = np.array(vertices)
                triangles = np.array(faces) if faces is not None else None
            elif path is not None:
                limit = read.state.context.limit("mesh")
                points, triangles = meshfiles.load_mesh_file(path, limit)  # looked up on each call: one patch point
            else:
                raise read.error(
                    MissingAttribute,
                    element,
                    f"mesh {name!r} has neither a file nor vertices",
                    construct="mesh/@file",
                    suggestion='add file="part.stl" or vertex="..." to the <mesh>',
                )
            return process_mesh(
                points,
                triangles,
                scale=read.floats(element, attrs, "scale", 3, [1.0, 1.0, 1.0]),
                refpos=read.floats(element, attrs, "refpos", 3, [0.0, 0.0, 0.0]),
                refquat=read.refquat(element, attrs),
                inertia_mode=attrs.get("inertia", "legacy"),
                maxhullvert=read.integer(element, attrs, "maxhullvert", -1),
            )
        except MeshFileUnreadable as exc:
            assert path is not None  # only a file can be unreadable
            refusal = exc.__cause__
            if isinstance(refusal, ResourceRefused):  # a device, a FIFO, a file over the limit: it says why
                raise ResourceRefused(
                    f"mesh {name!r} cannot be used: {refusal.message}",
                    location=self.location,
                    construct=name,
                    suggestion=refusal.suggestion,
                ) from None
            raise ResourceNotFound(
                f"mesh {name!r} cannot be used: {exc}",
                location=self.location,
                construct=name,
                tried=[path],
                suggestion="check the file name and meshdir/assetdir in <compiler>",
            ) from None
        except (MalformedMeshFile, UnsupportedMeshFileType) as exc:
            raise read.error(
                MalformedValue,
                element,
                f"mesh {name!r} cannot be read from {source}: {exc}",
                construct=name,
                suggestion="MuJoCo reads binary STL, OBJ and MSH files: re-export the mesh as one of them",
            ) from None
        except ValueError as exc:  # MuJoCo's compiler refuses the mesh itself
            raise read.error(
                InvalidValue, element, f"mesh {name!r} ({source}) cannot be used: {exc}", construct=name
            ) from None


_IDENTITY_ENTRIES = np.eye(4).tolist()  # (compared with ==, for which -0 is 0)
_EYE3 = np.eye(3)
_EYE3.flags.writeable = False
#: np.allclose's bound for comparing with the identity (atol + rtol * |identity|, rtol = 1e-5)
_ORTHONORMAL_TOLERANCE = 1e-12 + 1e-5 * np.abs(_EYE3)


def _rigid_placement(scale: np.ndarray, rotation: np.ndarray, refpos: np.ndarray) -> np.ndarray:
    """`MeshFrame.placement` of a mesh with this scale and frame (`rotation` = R(refquat))."""
    if scale[0] == 1.0 and scale[1] == 1.0 and scale[2] == 1.0:  # the usual mesh: what follows gives R^T
        return make_pose(rotation.T, -(rotation.T @ refpos))  # (1.0 * x and x / 1.0 are x, bit for bit)
    linear = rotation.T
    if np.all(scale != 0):
        turned = (scale[:, None] * rotation.T) / scale[None, :]
        # np.allclose(turned @ turned.T, np.eye(3), atol=1e-12), element for element, without its
        # checks and temporaries (a fifth of a Menagerie load went there)
        if (np.abs(turned @ turned.T - _EYE3) <= _ORTHONORMAL_TOLERANCE).all():
            linear = turned
    return make_pose(linear, -(scale * (rotation.T @ refpos)))
