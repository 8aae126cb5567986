"""The parsed form of an SDF file: what the reader builds models from.

A file is parsed once per load into these plain objects (kept in the SDF namespace of the load's
cache, `context.cache_for("sdf")`), whatever its version: version differences are settled while
parsing (a 1.4 joint axis gets ``expressed_in="__model__"``, a pre-1.7 name collision is
renamed, ...). Names are local to their model; an `Instance` places a parsed model under a name
and pose, so a model included a thousand times is parsed once and instantiated a thousand times.

The records made per link, joint or pose are slotted: a large file makes tens of thousands, and
without a `__dict__` each is smaller and one object fewer for the cyclic collector to walk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any

import numpy as np

from ...core.diagnostics import Diagnostic
from ...core.errors import Location
from ...core.geometry import Shape
from ...core.model import Dynamics, Extra, JointType, Limits
from ...core.transforms import IDENTITY
from ..xml import to_xml
from .values import Where


def located(at: Location | Where) -> Location:
    """`at`, or the location it makes: a parsed record keeps where its elements are deferred when only an
    error would say it (a pose's `relative_to`, a joint's `<child>`), and the error makes it."""
    return at if isinstance(at, Location) else at()


@dataclass(slots=True)
class PoseRef:
    """A `<pose>`: its value and the frame it is expressed in ('' = the element's default frame)."""

    matrix: np.ndarray
    relative_to: str = ""
    location: Location | Where = field(default_factory=Location)  # a parsed <pose>'s deferred (`located`)


@dataclass(slots=True)
class Node:
    """Something kept as it was written (a sensor, a plugin, physics, ...): rendered as an `Extra`.

    Slotted: a file may keep a million of them (unknown elements are kept, not dropped). It holds its
    element (and so what is below it), never the document: its location is made by the file context,
    which lets go of the parsed tree once the file is read (`FileContext`)."""

    element: Any  # the XML element
    location: Location  # where it is written (or where a copy made by the reader stands for it: a renamed actor)

    def extra(self, owner: str | None) -> Extra:
        """The element as an `Extra` (its XML rendered on first use)."""
        return Extra(
            tag=self.element.tag,
            source=partial(to_xml, self.element),
            location=self.location,
            owner=owner,
            attributes=dict(self.element.items()),  # (attrib would give an attribute-less element a dict)
        )


#: The properties of a link or joint that notes none (most): shared and read only, as is the empty
#: tuple of what it keeps, so that a large file makes no empty dict and list per link and joint (objects
#: the cyclic collector would walk until the load is over). A parser sets its own when it has any.
NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})


def _no_properties() -> Mapping[str, Any]:
    """`NO_PROPERTIES`, as a field's default (dataclasses take no mapping as a plain default)."""
    return NO_PROPERTIES


@dataclass(slots=True)
class InertialDesc:
    mass: float
    com: np.ndarray
    inertia: np.ndarray  # about the COM, in link axes


@dataclass(slots=True)
class LinkDesc:
    name: str
    pose: PoseRef
    inertial: InertialDesc
    visuals: list[Shape]
    collisions: list[Shape]
    location: Location
    kept: Sequence[Node] = ()
    properties: Mapping[str, Any] = field(default_factory=_no_properties)
    shape_frames: bool = False  # a visual's or collision's pose is relative_to a frame: placed by the builder


@dataclass(slots=True)
class AxisDesc:
    xyz: np.ndarray
    expressed_in: str
    limits: Limits
    dynamics: Dynamics
    location: Location | Where  # a parsed <axis>'s deferred (`located`)
    mimic: tuple[str, str, float, float, float] | None = None  # joint, axis, multiplier, offset, reference
    xyz_at: Where | None = None  # where the <xyz> (its expressed_in) is, when written (made for an error only)
    mimic_location: Location | None = None  # the <mimic>, when written


@dataclass(slots=True)
class JointDesc:
    name: str
    type: JointType
    parent: str
    child: str
    pose: PoseRef
    location: Location
    axis: AxisDesc | None = None
    axis2: AxisDesc | None = None
    pitch: float = 0.0  # translation per radian (screw)
    gearbox: tuple[float, str] | None = None  # ratio, reference body
    kept: Sequence[Node] = ()
    properties: Mapping[str, Any] = field(default_factory=_no_properties)
    #: where the <parent> and <child> elements are, for the errors about them: made only for such an error (a
    #: location for each end of every joint cost a large file hundreds of objects, found again once it is read)
    parent_at: Where | None = None
    child_at: Where | None = None


@dataclass(slots=True)
class FrameDesc:
    name: str
    attached_to: str
    pose: PoseRef
    location: Location


@dataclass
class ModelDesc:
    name: str
    version: tuple[int, int]
    source: str | None
    location: Location
    static: bool = False
    canonical_link: str = ""
    placement_frame: str = ""
    pose: PoseRef = field(default_factory=lambda: PoseRef(IDENTITY.copy()))
    links: list[LinkDesc] = field(default_factory=list)
    joints: list[JointDesc] = field(default_factory=list)
    frames: list[FrameDesc] = field(default_factory=list)
    models: list[Instance] = field(default_factory=list)
    kept: list[Node] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    scope: Any = field(default=None, repr=False, compare=False)  # the frame graph, built on first use


@dataclass(slots=True)
class Instance:
    """A model placed in a parent scope (a nested `<model>` or an `<include>`)."""

    desc: ModelDesc
    name: str
    pose: PoseRef
    static: bool
    placement_frame: str
    location: Location
    kept: list[Node] = field(default_factory=list)  # plugins and the like given on the <include>
    uri: str | None = None


@dataclass
class WorldDesc:
    name: str
    version: tuple[int, int]
    source: str | None
    location: Location
    models: list[Instance] = field(default_factory=list)
    frames: list[FrameDesc] = field(default_factory=list)
    joints: list[JointDesc] = field(default_factory=list)
    kept: list[Node] = field(default_factory=list)
    node: Node | None = None  # the <world> element itself
    scope: Any = field(default=None, repr=False, compare=False)


@dataclass
class FileDesc:
    """One parsed SDF file: its top element(s) and what the parser noticed."""

    source: str | None
    version: tuple[int, int]
    worlds: list[WorldDesc] = field(default_factory=list)
    model: ModelDesc | None = None
    lights: list[Node] = field(default_factory=list)
    actors: list[Node] = field(default_factory=list)
    kept: list[Node] = field(default_factory=list)  # unknown elements of <sdf>
    diagnostics: list[Diagnostic] = field(default_factory=list)  # what the parser noticed, for model.diagnostics
