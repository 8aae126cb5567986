"""The format-neutral kinematic model every reader produces.

Plain dataclasses with numpy arrays: a `Model` holds `Body`s (inertia, shapes), `Joint`s that
connect them, `Frame`s fixed to bodies, and whatever a reader kept but does not model (`Extra`).
They are slotted (``slots=True``): a large model holds thousands of them, and without an instance
dictionary each is about 40 bytes smaller and a little quicker to build. Their attributes are their
fields; keep anything else of your own in `extras`.

How poses fit together, for every format alike:

* `Body.pose` is the body's pose in its parent body's frame with all its joints at their
  reference value (the model "as written").
* `Joint.origin` is the joint frame in the parent body's frame at the reference; `Joint.axis`
  is expressed in the joint frame. A body may be moved by several joints in sequence (MJCF).
* At configuration q the body sits at
  ``parent @ prod_i(origin_i @ M_i(ref_i)^-1 @ M_i(q_i) @ origin_i^-1) @ body.pose``,
  which for a URDF joint (origin == body.pose) is simply ``parent @ origin @ M(q)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from .arguments import name_argument
from .diagnostics import Diagnostic, Severity
from .errors import Location, UnresolvedReference, did_you_mean
from .geometry import Material, Shape
from .record import Record, brief
from .transforms import IDENTITY, invert_pose

if TYPE_CHECKING:
    import trimesh

    from .kinematics import Kinematics, Poses


class JointType(str, Enum):
    FIXED = "fixed"
    REVOLUTE = "revolute"
    CONTINUOUS = "continuous"
    PRISMATIC = "prismatic"
    FLOATING = "floating"
    PLANAR = "planar"
    BALL = "ball"
    UNIVERSAL = "universal"
    SCREW = "screw"
    REVOLUTE2 = "revolute2"
    GEARBOX = "gearbox"

    def __str__(self) -> str:
        return self.value


#: How many numbers one joint value has, per type (gearbox couples two joints and has none).
JOINT_DOF: dict[JointType, int] = {
    JointType.FIXED: 0,
    JointType.GEARBOX: 0,
    JointType.REVOLUTE: 1,
    JointType.CONTINUOUS: 1,
    JointType.PRISMATIC: 1,
    JointType.SCREW: 1,
    JointType.PLANAR: 3,
    JointType.UNIVERSAL: 2,
    JointType.REVOLUTE2: 2,
    JointType.BALL: 4,
    JointType.FLOATING: 7,
}


@dataclass(eq=False, repr=False, slots=True)
class Inertial(Record):
    """Mass, centre of mass (body frame) and the 3x3 inertia about the COM in body axes."""

    mass: float
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))


@dataclass(eq=False, repr=False, slots=True)
class Limits(Record):
    """Position and actuation limits of one axis. None means unlimited (or not given)."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    effort: float | None = None


@dataclass(eq=False, repr=False, slots=True)
class Dynamics(Record):
    damping: float = 0.0
    friction: float = 0.0
    spring_stiffness: float = 0.0
    spring_reference: float = 0.0
    armature: float = 0.0


@dataclass(eq=False, repr=False, slots=True)
class Mimic(Record):
    """This joint follows `joint`: value = multiplier * value(joint) + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(eq=False, repr=False, slots=True)
class Extra(Record):
    """Something a reader kept but does not model, with where it came from.

    `owner` is the body, joint or (SDF) nested model it was found in (None for the model level). `source` is the XML
    text, or a function that renders it: `xml` calls it on first use, so keeping large extension
    blocks costs nothing while loading.
    """

    tag: str
    source: Any = field(repr=False, compare=False)  # compared as `xml`, rendered or not
    location: Location = Location()
    owner: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def xml(self) -> str:
        """The element as XML text."""
        if callable(self.source):
            self.source = self.source()
        return self.source

    def _compared(self) -> list[Any]:
        return [*Record._compared(self), self.xml]  # not super(): the slotted class is a new class


@dataclass(eq=False, repr=False, slots=True)
class Joint(Record):
    name: str
    type: JointType
    parent: str
    child: str
    origin: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    axis2: np.ndarray | None = None
    limits: Limits = field(default_factory=Limits)
    limits2: Limits | None = None
    dynamics: Dynamics = field(default_factory=Dynamics)
    mimic: Mimic | None = None
    reference: float | np.ndarray = 0.0
    pitch: float = 0.0  # screw joints: translation along the axis per radian
    location: Location = Location()
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def dof(self) -> int:
        return JOINT_DOF[self.type]

    @property
    def is_movable(self) -> bool:
        """True when the joint has a value of its own (mimic followers and fixed joints do not)."""
        return self.dof > 0 and self.mimic is None


@dataclass(eq=False, repr=False, slots=True)
class Body(Record):
    """A rigid body. `static` and `floating` say how a simulator treats it beyond the tree:

    * `static`: it never moves, whatever acts on it (an SDF `<static>` model's links);
    * `floating`: it moves freely although no joint says so (the root link of an SDF model
      that is not static, which Gazebo simulates with six degrees of freedom).

    `extras[format]` holds what the format's reader kept but does not model.
    """

    name: str
    parent: str | None = None
    joints: tuple[str, ...] = ()  # joints from the parent, applied in this order
    pose: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    inertial: Inertial | None = None
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)
    static: bool = False
    floating: bool = False
    location: Location = Location()
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, repr=False, slots=True)
class Frame(Record):
    """A named frame rigidly attached to a body (SDF <frame>, MJCF <site>, ...)."""

    name: str
    body: str
    pose: np.ndarray = field(default_factory=lambda: IDENTITY.copy())
    location: Location = Location()
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, repr=False, slots=True)
class Actuator(Record):
    """Something that drives the model: its transmission target and gear.

    `joint` is set when the actuator drives a joint (MJCF `joint=`, a URDF transmission); other
    transmissions name their `target` (a tendon, site or body) and say which in `transmission`.
    """

    name: str | None
    kind: str  # e.g. "motor", "position", "velocity", "general"
    joint: str | None = None
    gear: float = 1.0
    transmission: str = "joint"
    target: str | None = None
    location: Location = Location()
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, repr=False, slots=True)
class Constraint(Record):
    """A kinematic coupling the tree does not express: an MJCF equality, an SDF gearbox, ...

    For a joint coupling (`kind == "joint"`), `elements` are (joint1, joint2) and
    ``q1 = c0 + c1*q2 + c2*q2^2 + c3*q2^3 + c4*q2^4`` with `coefficients` c0..c4 (MuJoCo's polycoef).
    """

    kind: str
    elements: tuple[str, ...]
    name: str | None = None
    coefficients: tuple[float, ...] = ()
    location: Location = Location()
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, repr=False, slots=True)
class Model(Record):
    """A loaded description: bodies (parents before children, root first), joints, frames.

    Kinematics are compiled on first use and cached; call `rebuild_kinematics()` after
    editing bodies, joints or frames by hand.
    """

    name: str
    bodies: dict[str, Body] = field(default_factory=dict)
    joints: dict[str, Joint] = field(default_factory=dict)
    frames: dict[str, Frame] = field(default_factory=dict)
    materials: dict[str, Material] = field(default_factory=dict)
    actuators: list[Actuator] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    configurations: dict[str, dict[str, Any]] = field(default_factory=dict)  # named joint values (keyframes)
    extras: list[Extra] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    format: str | None = None
    source: str | None = None
    _kinematics: Kinematics | None = field(default=None, init=False, repr=False, compare=False)
    # trimesh meshes of the shapes, built on the first `scene()` and shared by later ones (see core.scene)
    _meshes: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __repr__(self) -> str:
        """One line, however large the model: name, format, source, root and how many of each."""
        parts = [f"name={brief(self.name)}"]
        if self.format is not None:
            parts.append(f"format={brief(self.format)}")
        if self.source is not None:
            parts.append(f"source={brief(self.source)}")
        root = next(iter(self.bodies), None)
        parts.append(f"root={brief(root)}")
        counts: list[tuple[str, Sized]] = [("bodies", self.bodies), ("joints", self.joints), ("frames", self.frames)]
        optional: list[tuple[str, Sized]] = [
            ("materials", self.materials),
            ("actuators", self.actuators),
            ("constraints", self.constraints),
            ("configurations", self.configurations),
            ("extras", self.extras),
            ("diagnostics", self.diagnostics),
        ]
        counts += [(label, items) for label, items in optional if items]  # only those the model has
        parts += [f"{label}={len(items)}" for label, items in counts]
        return f"Model({', '.join(parts)})"

    # -- structure ---------------------------------------------------------------------------
    @property
    def root(self) -> Body:
        return next(iter(self.bodies.values()))

    def body(self, name: str) -> Body:
        """The body called `name`; an unknown name raises with a 'did you mean'."""
        name_argument(name, "name", "a body name")
        try:
            return self.bodies[name]
        except KeyError:
            raise UnresolvedReference(
                f"no body named {name!r} in model {self.name!r}",
                construct=name,
                suggestion=did_you_mean(name, self.bodies),
            ) from None

    def children(self, body: str) -> list[str]:
        self.body(body)
        return [b.name for b in self.bodies.values() if b.parent == body]

    def parent(self, body: str) -> str | None:
        return self.body(body).parent

    def ancestors(self, body: str) -> list[str]:
        """The bodies from `body`'s parent up to the root."""
        out = []
        parent = self.body(body).parent
        while parent is not None:
            out.append(parent)
            parent = self.bodies[parent].parent
        return out

    def chain(self, start: str, end: str) -> list[str]:
        """The joints passed going from body `start` to body `end` through the tree."""
        up_start = [start, *self.ancestors(start)]
        up_end = [end, *self.ancestors(end)]
        common = next(b for b in up_start if b in set(up_end))
        joints: list[str] = []
        for b in up_start[: up_start.index(common)]:
            joints.extend(reversed(self.bodies[b].joints))
        down: list[str] = []
        for b in up_end[: up_end.index(common)]:
            down[:0] = self.bodies[b].joints
        return joints + down

    def movable_joints(self) -> list[str]:
        """Joints that take a value, in configuration-vector order."""
        return self.kinematics.joint_names

    def iter_shapes(self) -> Iterator[tuple[Body, Shape, str]]:
        for body in self.bodies.values():
            for shape in body.visuals:
                yield body, shape, "visual"
            for shape in body.collisions:
                yield body, shape, "collision"

    def diagnose(
        self,
        severity: Severity,
        code: str,
        message: str,
        location: Location = Location(),
        suggestion: str | None = None,
    ) -> None:
        self.diagnostics.append(Diagnostic(severity, code, message, location, suggestion))

    # -- kinematics ------------------------------------------------------------------------
    @property
    def kinematics(self) -> Kinematics:
        """The compiled kinematic tree (compiled on first use, kept until `rebuild_kinematics()`);
        `kinematics.backend` says which evaluator `backend="auto"` uses."""
        if self._kinematics is None:
            from .kinematics import Kinematics

            self._kinematics = Kinematics(self)
        return self._kinematics

    def rebuild_kinematics(self) -> None:
        self._kinematics = None

    def forward_kinematics(
        self,
        positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
        bodies: Sequence[str] | None = None,
        *,
        frames: Sequence[str] | None = None,
        backend: str = "auto",
    ) -> Poses:
        """World pose (4x4) of every body and frame at one configuration, as a name -> pose mapping.

        `positions` maps joint names to values (joints left out sit at their reference), or is
        a vector laid out as `kinematics.layout`.

        `bodies` asks for some poses only (an end effector, a camera): only the chains from the
        root to them are computed, and the result holds just those names, in that order. Each
        name is resolved as `poses[name]` resolves it (the body of that name, else the frame);
        `frames` names frames as `poses.frame(name)` does, for a frame that shares a body's name.

        `backend` is "auto" (the compiled kernel of `robodesc[fast]` when numba is installed, see
        `kinematics.backend`), "numpy" or "numba"; all give the same poses.
        """
        return self.kinematics.forward(positions, bodies=bodies, frames=frames, backend=backend)

    def forward_kinematics_batch(
        self,
        positions: Mapping[str, Any] | np.ndarray,
        bodies: Sequence[str] | None = None,
        out: np.ndarray | None = None,
        *,
        frames: Sequence[str] | None = None,
        backend: str = "auto",
    ) -> Poses:
        """World poses at N configurations at once: an (N, nq) array or a mapping of (N,) / (N, k) arrays.

        The result's `array` is (N, K, 4, 4), K the number of bodies and frames, or of the names in
        `bodies` and `frames` when given (see `forward_kinematics`); pass `out` (that shape,
        float64) to reuse memory. Asking for a few bodies costs a fraction of the whole tree,
        and the plan for a list of names is compiled once and kept.
        """
        return self.kinematics.forward_batch(positions, out=out, bodies=bodies, frames=frames, backend=backend)

    def pose(self, name: str, positions: Mapping[str, Any] | None = None, relative_to: str | None = None) -> np.ndarray:
        """Pose of body or frame `name` in the world, or in body/frame `relative_to`."""
        name_argument(name, "name", "a body or frame name")
        if relative_to is not None:
            name_argument(relative_to, "relative_to", "a body or frame name")
        poses = self.forward_kinematics(positions)
        for wanted in (name, relative_to):
            if wanted is not None and wanted not in poses:
                raise UnresolvedReference(
                    f"no body or frame named {wanted!r} in model {self.name!r}",
                    construct=wanted,
                    suggestion=did_you_mean(wanted, poses),
                )
        if relative_to is None:
            return poses[name]
        return invert_pose(poses[relative_to]) @ poses[name]

    # -- seeing ------------------------------------------------------------------------------
    def scene(
        self,
        positions: Mapping[str, Any] | Sequence[float] | np.ndarray | None = None,
        kind: str = "visual",
        skip_missing: bool = False,
    ) -> trimesh.Scene:
        """A `trimesh.Scene` of the model at `positions`: one node per shape of `kind` ("visual" or
        "collision") at its world pose, named ``"<body>/<shape name>"`` or ``"<body>/<kind>/<i>"``.

        Mesh files are read on the first call and kept on the model, so later scenes (another
        configuration, the other kind) read no file again; `robodesc.core.scene.update_scene` moves
        an existing scene to new joint values by changing transforms only. An unreadable mesh raises
        its robodesc error unless ``skip_missing=True``, which leaves it out and lists it in
        ``scene.metadata["robodesc"]["skipped"]``. See docs/seeing.md.
        """
        from .scene import build_scene

        return build_scene(self, positions, kind=kind, skip_missing=skip_missing)
