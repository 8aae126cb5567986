"""What reading one MJCF load shares across its files.

The spec stage (spec.py) reads the main file and every sub-model an ``<attach>`` grafts in; two
kinds of state run through it:

* `FileScope`, one per file read: the file's tree with its includes spliced in, its compiler
  settings, its default classes and its assets. An attached sub-model has its own, because MuJoCo
  reads it with the settings, classes and assets of its own file.
* `LoadState`, one per load: what every file read shares, so that an attached body lands in the
  same spec and its names are checked against the same ones: the files already included, which
  file each spliced element came from, the names taken so far, the unnamed-element counter, the
  sub-models already prepared, the chain of attachments in progress (a cycle is an error), and the
  findings to report. (An attach used to copy nine such fields from the reader that attached it.)

The build and compile stages get everything they need through the spec's records (records.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core.diagnostics import Diagnostic, Severity
from ...core.errors import Location
from ...core.geometry import Material
from ...core.model import Extra
from ...core.resources import LoadContext
from ..xml import Document, LocatingValues
from .records import ClassedGeom, Compiler, HfieldAsset, JointSpec

if TYPE_CHECKING:
    from .mesh_assets import MeshAsset, MeshFrame

#: A default class: element tag -> its attributes (actuator shortcuts are kept under "general").
DefaultClass = dict[str, dict[str, str]]


@dataclass
class FileScope:
    """One MJCF file as prepared for reading its bodies (see prepare.py)."""

    document: Document
    values: LocatingValues
    compiler: Compiler = field(default_factory=Compiler)
    defaults: dict[str, DefaultClass] = field(default_factory=lambda: {"main": {}})
    meshes: dict[str, MeshAsset] = field(default_factory=dict)
    hfields: dict[str, HfieldAsset] = field(default_factory=dict)
    materials: dict[str, Material] = field(default_factory=dict)  # by name as written, for the file's geoms
    submodels: dict[str, Document] = field(default_factory=dict)  # <asset><model>s, by name
    model_materials: dict[str, Material] = field(default_factory=dict)  # named ones, by (prefixed) model name
    extras: list[Extra] = field(default_factory=list)  # assets kept as written (textures, height fields, ...)
    kept_names: dict[str, set[str]] = field(default_factory=dict)  # names of textures and skins, by tag
    #: what geoms placed right in their body are made of, by (class name, the other attributes they
    #: write but name, mesh and material, whether a mesh is named) (`elements.read_geom`)
    geom_classes: dict[tuple[str, tuple[tuple[str, str], ...], bool], ClassedGeom] = field(default_factory=dict)
    #: joints placed right in their body, by (class name, the attributes they write but name), with the
    #: class attributes MuJoCo ignores on them (`elements.read_joint`)
    joint_classes: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[JointSpec, dict[str, str] | None]] = field(
        default_factory=dict
    )


@dataclass
class LoadState:
    """What every file read in one load shares."""

    context: LoadContext
    owners: dict[int, LocatingValues] = field(default_factory=dict)  # spliced element id -> the Values of its file
    #: the values reader of every file read (their locations let go of the trees in `detach`)
    files: list[LocatingValues] = field(default_factory=list)
    #: ids of the documents that had included files spliced into their tree
    spliced: set[int] = field(default_factory=set)
    included: set[str] = field(default_factory=set)  # every included file, once
    prepared: dict[int, FileScope] = field(default_factory=dict)  # sub-model documents (by id) prepared
    #: sub-model files parsed, by path: a file named by many <asset><model>s is read and parsed once
    submodel_files: dict[str, Document] = field(default_factory=dict)
    #: (sub-model file, what) being attached, outermost first (a dict: in order, and found at once)
    attaching: dict[tuple[str, str], None] = field(default_factory=dict)
    attached: set[int] = field(default_factory=set)  # <attach> elements whose keyframes were taken
    prepared_main: FileScope | None = None  # the main file's scope (attach conflicts compare with it)
    body_names: set[str] = field(default_factory=lambda: {"world"})
    joint_names: set[str] = field(default_factory=set)
    site_names: set[str] = field(default_factory=set)
    unnamed: int = 0  # elements named "<unnamed KIND N>" so far
    #: attribute values the model keeps (joints' and sites' `extras["mjcf"]`), each text once: a robot
    #: writes the same type, axis, range or class values again and again, and the parser makes a
    #: string of each one it reads
    texts: dict[str, str] = field(default_factory=dict)
    #: the numbers of attribute texts read so far (`Attributes.floats`): the same text gives the same
    #: numbers, and a robot writes its classes' masses, axes and gains again and again
    numbers: dict[str, tuple[float, ...]] = field(default_factory=dict)
    #: class attributes MuJoCo ignores: (class, tag, kind, attributes) -> (element label, location)s
    ignored: dict[tuple, list[tuple[str, Location]]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # noted while reading, in order
    #: the pose in its frame of a geom or site placed by fromto, by the fromto as written: its rotation's
    #: entries as computed and with +0 added, and its translation (`elements.geom_pose`)
    fromto_poses: dict[str, tuple[tuple[float, ...], tuple[float, ...], list[float]]] = field(default_factory=dict)
    #: rotation matrices of orientations (entries as computed and with +0 added), by (specifier, text,
    #: compiler angle and eulerseq) (`Attributes.pose`)
    rotations: dict[tuple, tuple[tuple[float, ...], tuple[float, ...]]] = field(default_factory=dict)
    #: where mesh files' vertices sit, by (scale, refpos, refquat) as written (`MeshAsset.frame`)
    mesh_frames: dict[tuple, MeshFrame] = field(default_factory=dict)

    def diagnose(
        self, severity: Severity, code: str, message: str, location: Location, suggestion: str | None = None
    ) -> None:
        self.diagnostics.append(Diagnostic(severity, code, message, location, suggestion))

    def values_of(self, document: Document) -> LocatingValues:
        """A reader of `document`'s values whose locations `detach` will let go of the tree."""
        values = LocatingValues(document, keep_located=True)  # (`detach` resolves some of them)
        self.files.append(values)
        return values

    def detach(self) -> None:
        """Point the locations made while reading at the files' bytes instead of their parsed trees,
        once the load has succeeded, so that the model does not keep the trees alive (see
        `LocatingValues.detach`). A detached location works out its element path by parsing its file
        again, which gives the tree as written; in a file that had others spliced into it, an unnamed
        element's place among its siblings counted the spliced ones, so its paths are worked out now."""
        for values in self.files:
            if id(values.document) in self.spliced:
                for location in values.located:
                    location.element  # noqa: B018 - resolved (and kept) while the spliced tree is there
            values.detach()
        self.files.clear()

    def release(self) -> None:
        """Let go of the files read, once the load is over (returned or raised). Each file's mesh
        assets refer back to their file's scope (and through it to this state), so without this the
        documents, their elements and the assets wait for Python's cyclic collector; the model keeps
        none of them."""
        for scope in (self.prepared_main, *self.prepared.values()):
            if scope is not None:
                scope.meshes.clear()
                scope.hfields.clear()
        self.prepared.clear()
        self.owners.clear()
        self.files.clear()
        self.prepared_main = None
