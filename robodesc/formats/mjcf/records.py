"""The MJCF spec: a model as plain records, between the XML and `core.Model`.

MuJoCo's compiler goes XML -> spec (``mjSpec``) -> compiled model; so does robodesc's MJCF reader.
The spec stage (spec.py) writes these records: includes spliced, compiler settings and default
classes applied, ``<frame>``s folded into the poses of what they hold, ``<replicate>`` expanded,
``<attach>`` grafted, every value parsed, checked and in the units MuJoCo compiles it in. A geom's
record carries the `Shape` it gives its body, made as it is read (a shape needs nothing the rest of
the model decides), beside what its mass comes from. The build stage (build.py) turns the records
into a `core.Model` without looking at XML; the compile stage (compile.py) adds what MuJoCo's
compiler computes (inertia, fusestatic, alignfree).

The body tree keeps the document order: a body's `items` are its joints, geoms, sites, child
bodies and elements kept as written, in the order the file has them (which is the order of
`model.bodies`, `model.joints` and a body's shapes). A writer produces these records in reverse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...core.diagnostics import Diagnostic
from ...core.errors import Location
from ...core.geometry import Material, Shape
from ...core.model import Extra
from ...core.transforms import IDENTITY, make_pose, matrix_to_quat, quat_through_matrix, quat_to_matrix

if TYPE_CHECKING:
    from .mesh_processing import ProcessedMesh


class MeshSource(Protocol):
    """What the later stages read of a mesh geom's asset (the spec stage's `mesh_assets.MeshAsset`,
    which they do not import: they never read XML): its name, and the mesh as MuJoCo processes it,
    read on first use."""

    @property
    def name(self) -> str: ...

    def processed(self) -> ProcessedMesh: ...


class Locator(Protocol):
    """What locates an element of the file it came from (the spec stage's `Attributes`)."""

    def where(self, element: Any) -> Location: ...


@dataclass
class Compiler:
    """The merged `<compiler>` settings of one file, with MuJoCo's defaults."""

    degree: bool = True
    eulerseq: str = "xyz"
    meshdir: str | None = None
    texturedir: str | None = None
    assetdir: str | None = None
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    settotalmass: float = -1.0
    balanceinertia: bool = False
    alignfree: bool = False
    discardvisual: bool = False
    fusestatic: bool = False
    strippath: bool = False
    fitaabb: bool = False

    def angle(self, value: float) -> float:
        """An angle as written (degrees or radians, as `angle` says), in radians."""
        return math.radians(value) if self.degree else value


#: The entries of a 3x3 rotation matrix, row by row.
Rotation = tuple[float, ...]
IDENTITY_ROTATION: Rotation = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)  # IDENTITY's, +0 included


def pose_array(rotation: Rotation, pos: Sequence[float] | None) -> np.ndarray:
    """A 4x4 pose of rotation entries (row by row) and a translation (None: the identity's +0)."""
    x, y, z = (0.0, 0.0, 0.0) if pos is None else pos
    r = rotation
    pose = np.array((r[0], r[1], r[2], x, r[3], r[4], r[5], y, r[6], r[7], r[8], z, 0.0, 0.0, 0.0, 1.0))
    pose.shape = (4, 4)  # in place: one array, no view of another
    return pose


def placed(frame: np.ndarray, local: np.ndarray) -> np.ndarray:
    """``frame @ local``: a finite rigid pose (last row 0 0 0 1, as every pose the reader makes has)
    placed by the frame it is written in.

    Most elements sit right in their body, `frame` being IDENTITY. Each entry of ``IDENTITY @ local``
    is then local's own plus terms that are +-0, at least one of them +0 (the last row's 0 or 1 times
    a 0 of IDENTITY): that is ``local + 0.0`` (a -0 entry becomes +0), the same bits without the
    matrix product."""
    return local + 0.0 if frame is IDENTITY else frame @ local


def plain(pose: np.ndarray) -> bool:
    """Whether every entry of `pose` is finite and none is -0. Such a pose times a matrix with the
    identity's values (1 on the diagonal, +-0 elsewhere) is the pose itself, bit for bit: each entry
    of the product is the pose's own times 1 plus products of finite entries and +-0, which are +-0.
    That is the pose's entry when it is not 0; when it is +0, a sum of zeros with a +0 term is +0,
    whatever the order and whether it is fused (it is -0 only when every term is)."""
    values = pose.ravel().tolist()
    return math.isfinite(sum(values)) and not any([v == 0.0 and math.copysign(1.0, v) < 0.0 for v in values])


#: A part of a body's mass: (mass, position, orientation (w, x, y, z), principal moments) in the body.
MassPart = tuple[float, np.ndarray, np.ndarray, np.ndarray]


@dataclass
class Principal:
    """Inertia as MuJoCo stores it: mass, frame (ipos, iquat) in the body, principal moments."""

    mass: float
    pos: np.ndarray
    quat: np.ndarray
    moments: np.ndarray
    full: bool = False  # written as fullinertia: MuJoCo tests its principal moments, not a diaginertia's

    def part(self, pose: np.ndarray) -> MassPart:
        """This inertia as a (mass, pos, quat, moments) part in the frame where the body sits at `pose`."""
        if pose is IDENTITY:  # `placed`, on the rotation and the position alone: the same bits
            return self.mass, self.pos + 0.0, quat_through_matrix(self.quat), self.moments
        frame = pose @ make_pose(quat_to_matrix(self.quat), self.pos)
        return self.mass, frame[:3, 3], matrix_to_quat(frame[:3, :3]), self.moments


@dataclass
class JointSpec:
    """A ``<joint>`` or ``<freejoint>``; anchor and axis in its body's frame (a free joint has neither:
    it moves the body's own frame)."""

    name: str
    kind: str  # "free", "ball", "slide" or "hinge"
    anchor: np.ndarray
    axis: np.ndarray  # of unit length (z where a ball joint has none)
    limits: tuple[float, float] | None  # radians or metres; None when not limited
    reference: float  # ref of a hinge (radians) or slide (metres)
    spring_reference: float
    damping: float
    friction: float
    stiffness: float
    armature: float
    attributes: dict[str, str]  # as in force (defaults applied), without name and class
    location: Location
    #: where the joint came from: the ids of the <attach> and (<replicate>, copy) it was read through,
    #: then of its element; an attached file's keyframes name their joints by it (spec.py)
    trail: tuple = ()


@dataclass
class HfieldAsset:
    """An ``<hfield>`` asset as MuJoCo compiles it: its heights inline, or the file they are read from.

    `elevation` is the inline data normalised to 0..1 (smallest to 0, largest to 1, all 0 when they
    are equal or absent) with its rows turned so that row 0 lies along -y (MuJoCo stores the first
    row written along +y); None when the heights come from `path` (a PNG, or MuJoCo's binary format).
    """

    name: str
    uri: str | None  # the file as written
    path: str | None  # the file resolved against assetdir; None for inline data
    size: list[float]  # radius_x, radius_y, elevation_z, base_z
    elevation: np.ndarray | None
    location: Location


@dataclass(slots=True)
class GeomSpec:
    """A ``<geom>``: the shape it gives its body (made as the geom is read), and what its mass comes from."""

    shape: Shape
    collides: bool  # a collision shape (contype or conaffinity)
    drawn: bool  # a visual too (MuJoCo's default groups, or never colliding; not discarded)
    kind: str  # plane, hfield, sphere, capsule, ellipsoid, cylinder, box, mesh or sdf
    size: list[float]  # as MuJoCo compiles it (fromto and mesh fitting applied)
    pose: np.ndarray  # the geom frame in its body (a mesh shape's own pose places the mesh's vertices)
    mass: float | None
    density: float
    group: int
    shell: bool  # shellinertia
    mesh: MeshSource | None  # of mesh and sdf geoms: read as MuJoCo processes it, on first use
    plugin: str | None  # the plugin instance that makes the mesh (robodesc cannot: no geometry)
    locator: Locator  # with `element`, where the geom is (`location`)
    element: Any  # the <geom>

    @property
    def location(self) -> Location:
        """Where the ``<geom>`` is, made only when something is reported about it: its shape has no
        location, and nearly every geom's is never asked for (a robot's geoms are most of its elements)."""
        return self.locator.where(self.element)


@dataclass(slots=True)
class ClassedGeom:
    """What a geom's class and the attributes it writes (but its name, mesh and material) make of
    it, read once (`FileScope.geom_classes`) and shared by every geom of the class placed right in
    its body that writes the same: its type, size and pose in its body, the class attributes MuJoCo
    ignores on it, and what its mass, collisions and drawing come from.

    The first geom's record and shape hold `size` and `pose` as they are, later geoms' records take
    copies, except that a mesh-file geom's record keeps the shared `pose` (its shape has a pose of its
    own). That is safe because nothing changes them in place during a load: the compile stage reads
    them and makes new arrays. A user's model ends up with one owner per array.

    Not frozen, though nothing changes it: a frozen dataclass sets each of its 13 fields through
    `object.__setattr__`, one of those per geom read in full."""

    kind: str
    size: list[float]
    pose: np.ndarray
    ignored: dict[str, str] | None  # (`elements.note_ignored`)
    mass: float | None
    density: float
    group: int
    contype: int
    conaffinity: int
    shell: bool
    drawn: bool
    rgba: list[float] | None
    plain_pose: bool  # `plain(pose)`, for a mesh file's geom (False for the others: not needed)


@dataclass
class SiteSpec:
    """A named ``<site>``: a frame of its body."""

    name: str
    pose: np.ndarray
    attributes: dict[str, str]  # as in force, without name
    location: Location


@dataclass
class BodySpec:
    """A ``<body>`` (or the world body) and what it holds, in document order."""

    name: str
    pose: np.ndarray  # in the parent body: enclosing frames, replicate copies and attachment applied
    #: the pose written on the <body> alone as `pose_array`'s numbers (None for the world): the compile
    #: stage needs it only for a body without mass under boundmass (`written`), and an array made for
    #: every body cost more than the rest of its pose
    written_numbers: tuple[Rotation, Sequence[float] | None] | None
    location: Location
    inertial: Principal | None = None  # an <inertial>, in principal form
    items: list[BodyItem] = field(default_factory=list)
    #: `plain(pose)`, known from how the pose was made: read right in its parent body (no enclosing
    #: frame, replicate or attachment), its entries are finite numbers with +0 added. The build stage
    #: lets a first joint at the body's origin take the pose as its origin on it (False: not known)
    plain_pose: bool = False

    @property
    def written(self) -> np.ndarray | None:
        """The pose written on the <body> alone (None for the world), made anew."""
        return None if self.written_numbers is None else pose_array(*self.written_numbers)


#: What a body holds; an `Extra` is an element kept as written (camera, light, unnamed site, ...).
BodyItem = BodySpec | JointSpec | GeomSpec | SiteSpec | Extra


@dataclass
class EqualitySpec:
    tag: str  # joint, connect, weld, ...
    attributes: dict[str, str]  # defaults applied
    coefficients: tuple[float, ...] | None  # polycoef of a joint equality, completed with MuJoCo's defaults
    location: Location


@dataclass
class ActuatorSpec:
    tag: str  # general, motor, position, ...
    attributes: dict[str, str]  # defaults applied
    gear: list[float]
    location: Location


@dataclass
class KeyframeSpec:
    """A ``<key>``: of the main file, its `qpos` in the model's qpos order; of an attached file,
    `values`, the numbers of each joint it gives (by `JointSpec.trail`), since its qpos is in the
    order of that file's joints. MuJoCo completes both with qpos0 (the joints' references)."""

    name: str
    qpos: list[float]  # at most the model's qpos size
    values: dict[tuple, list[float]] | None = None  # an attached keyframe's, per joint trail
    location: Location | None = None


@dataclass
class ModelSpec:
    """A whole model as the spec stage leaves it."""

    name: str
    source: str | None
    compiler: Compiler  # the main file's: the settings the compile stage applies
    world: BodySpec
    materials: dict[str, Material] = field(default_factory=dict)
    equalities: list[EqualitySpec] = field(default_factory=list)
    actuators: list[ActuatorSpec] = field(default_factory=list)
    keyframes: list[KeyframeSpec] = field(default_factory=list)
    attached_keys: list[KeyframeSpec] = field(default_factory=list)  # of attached files, in attach order
    extras: list[Extra] = field(default_factory=list)  # model-level elements kept as written
    diagnostics: list[Diagnostic] = field(default_factory=list)
    referenced: set[str | None] = field(default_factory=set)  # names the model's sections use (for fusestatic)
    #: bodies of flexcomps with nothing pinned to them, each with an error located at its <flexcomp>
    unheld_flexes: list[tuple[str, Callable[[str], Exception]]] = field(default_factory=list)
    #: twist bodies of flexcomps in a top-level body being read, for the world body once that body is
    twist_bodies: list[BodySpec] = field(default_factory=list)
