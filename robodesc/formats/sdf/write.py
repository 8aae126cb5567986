"""Writing a `Model` as SDFormat 1.12, whatever format it was read from (docs/formats/sdf.md).

The output is what robodesc's libsdformat-faithful reader reads back into the same kinematics:

* Names are kept. A body, joint or frame name ``a::b`` is written as element ``b`` of a nested
  model ``a`` (which the reader names ``a::b`` again). An SDF world (the reader marks its `world`
  body) is written as a `<world>` with one `<model>` per top-level scope; everything else as one
  `<model>` (MJCF worldbody children and URDF links alike).
* Every link's `<pose>` is relative to its parent link, or to the model frame (the world: models
  are written without poses) when it hangs from the world. Joint frames are written relative to
  their child link, axes in the joint frame.
* A joint value q means the same as in the source: the link pose is the source's at q = 0 and the
  joint frame is the source's joint frame seen from the child, which also carries a joint
  `reference` (MJCF ``ref``) over exactly.
* A body moved by several joints (MJCF) gets massless helper links between them; a planar joint
  becomes two prismatic joints and a revolute one, a floating joint between two links three
  prismatic joints and a ball joint (both reported as losses); a floating joint from the world is
  SDF's free link (no joint); a body welded to its parent without a joint gets a fixed joint.
* What SDF cannot hold is reported to the `WriteContext` as a `Loss` with a code (listed in
  docs/formats/sdf.md).

The tree is walked with loops over the model's bodies (parents come before children), never by
recursion; output elements nest only as deep as the name scopes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element, SubElement, indent, tostring

import numpy as np

from ...core.errors import Location, RobodescError
from ...core.geometry import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    Ellipsoid,
    Heightfield,
    Mesh,
    Plane,
    Shape,
    Sphere,
)
from ...core.kinematics import default_value, joint_motion, planar_basis, reference_value
from ...core.model import Body, Dynamics, Joint, JointType, Limits, Model
from ...core.transforms import invert_pose, matrix_to_quat
from ...core.writing import WriteContext, unique_name
from ..xml import parse_xml
from .inertia import is_valid_mass_matrix
from .spec import is_reserved_name

WORLD = "world"
_ONE_AXIS = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW)
_TWO_AXES = (JointType.UNIVERSAL, JointType.REVOLUTE2)
_WITH_POSITION_LIMITS = (JointType.REVOLUTE, JointType.PRISMATIC, JointType.SCREW, *_TWO_AXES)

#: Extension elements of other formats, by tag: the loss code a conversion to SDF reports.
_LOSS_CODES = {
    "tendon": "tendon",
    "actuator": "actuator",
    "sensor": "sensor",
    "transmission": "transmission",
    "ros2_control": "ros2-control",
    "gazebo": "gazebo-extension",
    "contact": "contact",
    "equality": "equality",
    "keyframe": "keyframe",
    "key": "keyframe",
}
#: MJCF geom attributes about contact that SDF's <surface> would need translating.
_MJCF_CONTACT = ("friction", "solref", "solimp", "condim", "contype", "conaffinity", "margin", "gap", "priority")


def write(model: Model, context: WriteContext) -> str:
    """The model as SDFormat 1.12 text; what SDF cannot hold is reported to `context`."""
    return SdfWriter(model, context).text()


# -- numbers and poses ----------------------------------------------------------------------------
def _num(value: float) -> str:
    value = float(value)
    return "0" if value == 0.0 else repr(value)


def _nums(values: Any) -> str:
    return " ".join(_num(v) for v in np.asarray(values, dtype=float).reshape(-1))


def _rpy(rotation: np.ndarray) -> tuple[float, float, float]:
    """Fixed-axis roll, pitch, yaw of a rotation (pitch by atan2: well conditioned near +-90 deg)."""
    r = rotation
    pitch = math.atan2(-r[2, 0], math.hypot(r[0, 0], r[1, 0]))
    if math.hypot(r[0, 0], r[1, 0]) < 1e-12:
        return 0.0, pitch, math.atan2(-r[0, 1], r[1, 1])
    return math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])


def _rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _is_identity(pose: np.ndarray) -> bool:
    return bool(np.array_equal(pose, np.eye(4)))


def _pose(parent: Element, pose: np.ndarray, relative_to: str | None = None) -> None:
    """A `<pose>` (left out when it is the identity in the default frame): xyz and roll pitch yaw,
    or a quaternion when roll, pitch and yaw would not give the rotation back to 1e-13."""
    if _is_identity(pose) and relative_to is None:
        return
    element = SubElement(parent, "pose")
    if relative_to is not None:
        element.set("relative_to", relative_to)
    rotation = pose[:3, :3]
    rpy = _rpy(rotation)
    if np.abs(_rpy_matrix(*rpy) - rotation).max() <= 1e-13:
        values = np.array([*pose[:3, 3], *rpy])
        values[np.abs(values) < 1e-15] = 0.0  # round-off of composed poses, not a pose anyone wrote
        element.text = _nums(values)
    else:
        w, x, y, z = matrix_to_quat(rotation)
        element.set("rotation_format", "quat_xyzw")
        element.text = _nums([*pose[:3, 3], x, y, z, w])


def _text(parent: Element, tag: str, value: Any) -> Element:
    element = SubElement(parent, tag)
    element.text = value if isinstance(value, str) else _nums(value) if np.ndim(value) else _num(value)
    return element


# -- joint motions (the model's conventions, see robodesc.core.model) ------------------------------
def _unit(v: Any) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _reference(joint: Joint) -> np.ndarray | None:
    """The joint's reference value, or None when it is the identity (the SDF zero)."""
    if joint.dof == 0:
        return None
    ref = reference_value(joint)
    return None if np.array_equal(ref, default_value(joint)) else ref


# -- the plan: what is written where ----------------------------------------------------------------
@dataclass
class Piece:
    """One SDF joint of a body's chain: a source joint, a part of one, or a helper fixed joint."""

    name: str  # the source joint's name, or a helper's (unscoped: written in `scope`)
    type: JointType
    origin: np.ndarray  # O: the joint frame in the source parent body at the reference
    pre: np.ndarray  # C: M(reference)^-1 (identity but for the first piece of a joint)
    axis: np.ndarray | None = None
    source: Joint | None = None  # the joint it writes (all of it when `whole`)
    whole: bool = True
    helper: bool = False


@dataclass
class Scope:
    """A model (or the world) being written: its elements and its nested models."""

    name: str  # full scoped name ("" for the top)
    children: dict[str, Scope] = field(default_factory=dict)
    links: list[Element] = field(default_factory=list)
    joints: list[Element] = field(default_factory=list)
    frames: list[Element] = field(default_factory=list)
    extras: list[Element] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)
    bodies: int = 0  # links written in this scope or below
    static: int = 0  # ... of which static


def _split(name: str) -> list[str]:
    return name.split("::")


def _valid_scoped(name: str) -> bool:
    parts = _split(name)
    return all(parts) and not any(is_reserved_name(p) for p in parts)


class SdfWriter:
    def __init__(self, model: Model, context: WriteContext) -> None:
        self.model = model
        self.context = context
        root = model.root if model.bodies else None
        self.world_root = root is not None and root.name == WORLD and root.parent is None
        source_sdf = model.format == "sdf"
        self.is_world = bool(
            source_sdf
            and self.world_root
            and root is not None
            and (root.extras.get("sdf") or {}).get("world")
            and all("::" in name for name in model.bodies if name != WORLD)
        )
        self.source_sdf = source_sdf
        self.top = Scope("")
        self.scopes: dict[str, Scope] = {"": self.top}
        self.body_names: dict[str, str] = {}  # source body -> written full name
        self.joint_names: dict[str, str] = {}  # source joint -> written full name (whole joints only)
        self.zero: dict[str, np.ndarray] = {}  # written link -> its pose in the world at SDF's zero
        self.anchor: str | None = None  # the helper link fixed to the world, when one is needed
        self.gearboxes = {c.name: c for c in model.constraints if c.kind == "gearbox" and c.name}
        self._plan_names()

    # -- names ---------------------------------------------------------------------------------
    def scope(self, name: str) -> Scope:
        """The scope called `name`, made (with its parents) if new."""
        found = self.scopes.get(name)
        if found is not None:
            return found
        parts = _split(name)
        current = self.top
        for i, part in enumerate(parts):
            full = "::".join(parts[: i + 1])
            child = self.scopes.get(full)
            if child is None:
                child = Scope(full)
                current.children[part] = child
                current.taken.add(part)
                self.scopes[full] = child
            current = child
        return current

    def _place(self, name: str, kind: str, location: Location) -> tuple[str, str]:
        """(scope, local name) of a body, joint or frame called `name`; renamed (with a loss) when SDF
        cannot hold the name as written."""
        if _valid_scoped(name) and not (self.is_world and kind == "link" and "::" not in name):
            parts = _split(name)
            scope_name = "::".join(parts[:-1])
            scope = self.scope(scope_name)
            local = parts[-1]
            if local not in scope.taken:
                scope.taken.add(local)
                return scope_name, local
            new = unique_name(f"{local}_{kind}", scope.taken)
        else:
            scope_name = ""
            scope = self.top
            local = name.replace("::", "__").strip("_") or kind
            if is_reserved_name(local):
                local = f"{local.strip('_')}_{kind}"
            new = unique_name(local, scope.taken)
        full = f"{scope_name}::{new}" if scope_name else new
        self.context.lose(
            "renamed",
            f"{kind} {name!r} cannot keep its name in SDF (reserved, or taken by another element of its model)",
            location=location,
            construct=name,
            instead=f"{kind} {full!r}",
        )
        return scope_name, new

    def _plan_names(self) -> None:
        model = self.model
        for body in model.bodies.values():
            if self.world_root and body.name == WORLD:
                self.body_names[WORLD] = WORLD
                continue
            scope, local = self._place(body.name, "link", body.location)
            self.body_names[body.name] = f"{scope}::{local}" if scope else local
        for joint in model.joints.values():
            if self._free(joint) or joint.type in (JointType.PLANAR,) or self._split_floating(joint):
                continue
            scope, local = self._place(joint.name, "joint", joint.location)
            self.joint_names[joint.name] = f"{scope}::{local}" if scope else local

    def _free(self, joint: Joint) -> bool:
        """A floating joint from the world: SDF's free link, no joint."""
        return joint.type is JointType.FLOATING and self.world_root and joint.parent == WORLD

    def _split_floating(self, joint: Joint) -> bool:
        return joint.type is JointType.FLOATING and not self._free(joint)

    @staticmethod
    def ref(from_scope: str, target: str) -> str | None:
        """How an element of `from_scope` names the written frame `target` (None: it cannot)."""
        if target == WORLD:
            return WORLD
        if not from_scope:
            return target
        prefix = from_scope + "::"
        return target[len(prefix) :] if target.startswith(prefix) else None

    @staticmethod
    def scope_of(full: str) -> str:
        return full.rpartition("::")[0]

    @staticmethod
    def common(*scopes: str) -> str:
        parts = [_split(s) if s else [] for s in scopes]
        out: list[str] = []
        for level in zip(*parts):
            if any(p != level[0] for p in level):
                break
            out.append(level[0])
        return "::".join(out)

    # -- the document ------------------------------------------------------------------------------
    def text(self) -> str:
        model = self.model
        for body in model.bodies.values():
            if self.world_root and body.name == WORLD:
                self._world_body(body)
            else:
                self._body(body)
        self._loop_joints()
        self._frames()
        self._extras()
        self._model_losses()
        return self._assemble()

    def _assemble(self) -> str:
        sdf = Element("sdf", version="1.12")
        name = self.model.name or "model"
        if is_reserved_name(name):
            name = f"{name.strip('_')}_model"
        top = SubElement(sdf, "world" if self.is_world else "model", name=name)
        stack: list[tuple[Element, Scope, bool]] = [(top, self.top, False)]
        while stack:
            element, scope, static_above = stack.pop()
            is_model = element.tag == "model"
            static = is_model and not static_above and scope.bodies > 0 and scope.static == scope.bodies
            if is_model and not static_above and scope.bodies == 0:
                static = True  # a model without links must be static to be valid
            if static:
                _text(element, "static", "true")
            for group in (scope.links, scope.joints, scope.frames):
                element.extend(group)
            nested = []
            for local, child in scope.children.items():
                nested.append((SubElement(element, "model", name=local), child, static or static_above))
            element.extend(scope.extras)
            stack.extend(reversed(nested))
        indent(sdf, "  ")
        return '<?xml version="1.0" ?>\n' + tostring(sdf, encoding="unicode") + "\n"

    # -- links -------------------------------------------------------------------------------------
    def _link_element(self, full: str, pose_in_parent: np.ndarray, parent: str | None, static: bool) -> Element:
        """A `<link>` named `full` in its scope, placed relative to the written link `parent` (None:
        the world), and its world pose at SDF's zero recorded."""
        scope_name = self.scope_of(full)
        scope = self.scope(scope_name)
        link = Element("link", name=full.rpartition("::")[2])
        scope.links.append(link)
        for name in [scope_name, *self._ancestors(scope_name)]:
            self.scopes[name].bodies += 1
            self.scopes[name].static += static
        if parent is None or parent == WORLD:
            world = pose_in_parent
            _pose(link, pose_in_parent)
        else:
            world = self.zero[parent] @ pose_in_parent
            relative = self.ref(scope_name, parent)
            if relative is not None:
                _pose(link, pose_in_parent, relative)
            else:  # the parent is in a scope this one cannot name: the world pose (models sit at the origin)
                _pose(link, world)
        self.zero[full] = world
        return link

    def _ancestors(self, scope: str) -> list[str]:
        out = []
        while scope:
            scope = self.scope_of(scope)
            out.append(scope)
        return out

    def _world_body(self, body: Body) -> None:
        """The world's own shapes and mass (MJCF worldbody geoms) go to a link fixed to the world."""
        if body.visuals or body.collisions or (body.inertial is not None and body.inertial.mass > 0):
            link = self._world_anchor()
            self._link_contents(link, body)

    def _world_anchor(self) -> str:
        if self.anchor is None:
            scope = "" if not self.is_world else self._first_model()
            taken = self.scope(scope).taken
            local = unique_name("worldbody", taken)
            full = f"{scope}::{local}" if scope else local
            link = self._link_element(full, np.eye(4), None, False)
            self._inertial(link, None)
            self._fixed_to(WORLD, full, f"{local}_joint")
            self.anchor = full
        return self.anchor

    def _first_model(self) -> str:
        return next(iter(self.top.children.values())).name if self.top.children else self.scope("world_model").name

    def _fixed_to(self, parent: str, child: str, wanted: str) -> None:
        """A helper fixed joint (named `wanted`, or numbered) holding `child` on `parent` where it stands."""
        self._joint(
            Piece(wanted, JointType.FIXED, np.eye(4), np.eye(4), whole=False, helper=True), parent, child, np.eye(4)
        )

    def _body(self, body: Body) -> None:
        model = self.model
        full = self.body_names[body.name]
        parent = self.body_names.get(body.parent, WORLD) if body.parent is not None else None
        chain = [model.joints[j] for j in body.joints if j in model.joints and not self._loop(model.joints[j])]
        static = body.static
        if parent is None or (not chain and parent == WORLD and (body.static or body.floating)):
            link = self._link_element(full, body.pose, None, static)  # free, static, or the root of a URDF
        elif not chain:  # welded to its parent (an MJCF body without joints)
            link = self._link_element(full, body.pose, parent, static)
            self._fixed_to(parent, full, f"{full.rpartition('::')[2]}_fixed")
        elif len(chain) == 1 and self._free(chain[0]):
            link = self._link_element(full, body.pose, None, static)
            self.context.lose(
                "floating-joint",
                f"floating joint {chain[0].name!r}: SDF's free link has no joint, so the joint's name and value"
                " are not kept",
                location=chain[0].location,
                construct=chain[0].name,
                instead=f"link {full!r} without a joint (free), at the joint's reference pose",
            )
        else:
            link = self._chain(body, full, parent, chain)
        self._link_contents(link, body)

    @staticmethod
    def _loop(joint: Joint) -> bool:
        return bool((joint.extras.get("sdf") or {}).get("loop"))

    def _pieces(self, chain: list[Joint]) -> list[Piece]:
        pieces: list[Piece] = []
        for joint in chain:
            ref = _reference(joint)
            pre = np.eye(4) if ref is None else invert_pose(joint_motion(joint, ref))
            if joint.type is JointType.PLANAR:
                axis = _unit(joint.axis)
                e1, e2 = planar_basis(axis)
                parts: list[tuple[str, JointType, np.ndarray | None]] = [
                    ("x", JointType.PRISMATIC, e1),
                    ("y", JointType.PRISMATIC, e2),
                    ("angle", JointType.REVOLUTE, axis),
                ]
                what = "two prismatic joints and a revolute joint"
            elif self._split_floating(joint):
                parts = [(c, JointType.PRISMATIC, np.eye(3)[i]) for i, c in enumerate("xyz")]
                parts.append(("rotation", JointType.BALL, None))
                what = "three prismatic joints and a ball joint"
            else:
                pieces.append(Piece(joint.name, joint.type, joint.origin, pre, source=joint))
                continue
            names = []
            for i, (suffix, kind, axis_vector) in enumerate(parts):
                piece = Piece(f"{joint.name}_{suffix}", kind, joint.origin, pre if i == 0 else np.eye(4), axis_vector)
                piece.source, piece.whole = joint, False
                pieces.append(piece)
                names.append(piece)
            self.context.lose(
                f"{joint.type.value}-joint",
                f"{joint.type.value} joint {joint.name!r} has no SDF type; its value is split over several joints",
                location=joint.location,
                construct=joint.name,
                instead=what + " (named " + ", ".join(repr(p.name) for p in names) + ") between massless helper links",
            )
        return pieces

    def _chain(self, body: Body, full: str, parent: str, chain: list[Joint]) -> Element:
        """The links and joints of a body moved by `chain`: helper links between the pieces."""
        pieces = self._pieces(chain)
        scope_name = self.scope_of(full)
        scope = self.scope(scope_name)
        previous_link, previous_origin = parent, np.eye(4)
        link = None
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            origin = piece.origin
            if last:
                child = full
                pose = invert_pose(previous_origin) @ origin @ piece.pre @ invert_pose(origin) @ body.pose
                joint_pose = invert_pose(body.pose) @ origin
                link = self._link_element(child, pose, previous_link, body.static)
            else:
                local = unique_name(f"{piece.name.rpartition('::')[2]}_link", scope.taken)
                child = f"{scope_name}::{local}" if scope_name else local
                pose = invert_pose(previous_origin) @ origin @ piece.pre
                joint_pose = np.eye(4)
                helper = self._link_element(child, pose, previous_link, body.static)
                self._inertial(helper, None)
            self._joint(piece, previous_link, child, joint_pose)
            previous_link, previous_origin = child, origin
        assert link is not None
        return link

    # -- joints ------------------------------------------------------------------------------------
    def _joint(self, piece: Piece, parent: str, child: str, pose: np.ndarray) -> None:
        source = piece.source
        if piece.whole and source is not None and source.name in self.joint_names:
            full = self.joint_names[source.name]
        else:
            wanted = piece.name
            scope_name = self.scope_of(child)
            local = unique_name(wanted.rpartition("::")[2], self.scope(scope_name).taken)
            full = f"{scope_name}::{local}" if scope_name else local
        scope_name = self.scope_of(full)
        parent_ref, child_ref = self.ref(scope_name, parent), self.ref(scope_name, child)
        if parent_ref is None or child_ref is None:  # the name's model cannot reach its links: move it
            scope_name = self.common(self.scope_of(parent) if parent != WORLD else "", self.scope_of(child))
            taken = self.scope(scope_name).taken
            local = unique_name(full.replace("::", "__"), taken)
            new = f"{scope_name}::{local}" if scope_name else local
            self.context.lose(
                "renamed",
                f"joint {full!r} connects links its model cannot name",
                location=source.location if source else Location(),
                construct=full,
                instead=f"joint {new!r}",
            )
            full = new
            parent_ref, child_ref = self.ref(scope_name, parent), self.ref(scope_name, child)
            if source is not None and piece.whole:
                self.joint_names[source.name] = full
        assert parent_ref is not None and child_ref is not None
        if parent_ref == child_ref:
            self.context.lose(
                "degenerate-joint",
                f"joint {full!r} has one link, {child!r}, as parent and child, which SDF refuses",
                location=source.location if source else Location(),
                construct=full,
            )
            return
        element = Element("joint", name=full.rpartition("::")[2], type=piece.type.value)
        _text(element, "parent", parent_ref)
        _text(element, "child", child_ref)
        if not _is_identity(pose):
            _pose(element, pose, child_ref)
        if piece.whole and source is not None:
            self._joint_details(element, source, scope_name)
        elif piece.axis is not None:
            axis = SubElement(element, "axis")
            _text(axis, "xyz", piece.axis)
        self.scope(scope_name).joints.append(element)

    def _joint_details(self, element: Element, joint: Joint, scope: str) -> None:
        kind = joint.type
        sdf = joint.extras.get("sdf") or {}
        mimics = {m.get("axis", "axis"): m for m in sdf.get("mimic", ())} if self.source_sdf else {}
        if not mimics and joint.mimic is not None:
            mimics = {
                "axis": {"joint": joint.mimic.joint, "multiplier": joint.mimic.multiplier, "offset": joint.mimic.offset}
            }
        coupled = self._coupling(joint)
        if coupled is not None and "axis" not in mimics:
            mimics["axis"] = coupled
        if kind in (*_ONE_AXIS, *_TWO_AXES, JointType.GEARBOX):
            self._axis(element, "axis", joint.axis, joint.limits, joint.dynamics, mimics.get("axis"), joint, scope)
        if kind in _TWO_AXES or (kind is JointType.GEARBOX and joint.axis2 is not None):
            kept2 = sdf.get("dynamics2")
            dynamics2 = kept2 if isinstance(kept2, Dynamics) else Dynamics()
            self._axis(element, "axis2", joint.axis2, joint.limits2, dynamics2, mimics.get("axis2"), joint, scope)
        if kind is JointType.SCREW:
            _text(element, "screw_thread_pitch", joint.pitch * 2.0 * math.pi)
        if kind is JointType.BALL and (joint.limits.lower is not None or joint.limits.upper is not None):
            self.context.lose(
                "ball-limit",
                f"ball joint {joint.name!r} has a range; an SDF ball joint has none",
                location=joint.location,
                construct=joint.name,
                instead="an unlimited ball joint",
            )
        if kind is JointType.GEARBOX:
            gearbox = self.gearboxes.get(joint.name)
            if gearbox is not None:
                _text(element, "gearbox_ratio", gearbox.coefficients[0] if gearbox.coefficients else 1.0)
                body = gearbox.elements[1] if len(gearbox.elements) > 1 else ""
                written = self.body_names.get(body, body)
                _text(element, "gearbox_reference_body", self.ref(scope, written) or written)
        if joint.dynamics.armature:
            self.context.lose(
                "armature",
                f"joint {joint.name!r} has armature {joint.dynamics.armature}; SDF joints have none",
                location=joint.location,
                construct=joint.name,
            )
        self._kept(element, joint.extras, joint.name)

    def _coupling(self, joint: Joint) -> dict | None:
        """An MJCF joint equality making this joint follow another linearly: written as `<mimic>`."""
        for constraint in self.model.constraints:
            if constraint.kind != "joint" or not constraint.elements or constraint.elements[0] != joint.name:
                continue
            coefficients = [*constraint.coefficients, 0.0, 0.0, 0.0, 0.0, 0.0][:5]
            leader = self.model.joints.get(constraint.elements[1]) if len(constraint.elements) > 1 else None
            if leader is None or any(coefficients[2:]) or joint.dof != 1 or leader.dof != 1 or joint.mimic:
                return None
            ref1 = float(np.atleast_1d(joint.reference)[0]) if np.size(joint.reference) == 1 else 0.0
            ref2 = float(np.atleast_1d(leader.reference)[0]) if np.size(leader.reference) == 1 else 0.0
            c0, c1 = coefficients[0], coefficients[1]
            return {"joint": leader.name, "multiplier": c1, "offset": ref1 + c0 - c1 * ref2, "equality": constraint}
        return None

    def _axis(
        self,
        parent: Element,
        tag: str,
        direction: np.ndarray | None,
        limits: Limits | None,
        dynamics: Dynamics,
        mimic: dict | None,
        joint: Joint,
        scope: str,
    ) -> None:
        axis = SubElement(parent, tag)
        _text(axis, "xyz", direction if direction is not None else ((0.0, 0.0, 1.0) if tag == "axis" else (0, 1.0, 0)))
        limits = limits or Limits()
        values: dict[str, float | None] = {"effort": limits.effort, "velocity": limits.velocity}
        if joint.type in _WITH_POSITION_LIMITS:  # a bound left out reads back as none (libsdformat's +-1e16)
            values["lower"], values["upper"] = limits.lower, limits.upper
        if any(v is not None for v in values.values()):
            limit = SubElement(axis, "limit")
            for key in ("lower", "upper", "effort", "velocity"):
                if values.get(key) is not None:
                    _text(limit, key, values[key])
        d = dynamics
        if d.damping or d.friction or d.spring_stiffness or d.spring_reference:
            element = SubElement(axis, "dynamics")
            _text(element, "damping", d.damping)
            _text(element, "friction", d.friction)
            _text(element, "spring_reference", d.spring_reference)
            _text(element, "spring_stiffness", d.spring_stiffness)
        if mimic is not None:
            leader = self.joint_names.get(mimic["joint"])
            name = self.ref(scope, leader) if leader is not None else None
            if name is None:
                self.context.lose(
                    "mimic",
                    f"joint {joint.name!r} mimics {mimic['joint']!r}, which SDF cannot name from the joint's model",
                    location=joint.location,
                    construct=joint.name,
                    instead="a joint that moves on its own",
                )
                return
            element = SubElement(axis, "mimic", joint=name)
            if mimic.get("leader_axis", "axis") != "axis":
                element.set("axis", mimic["leader_axis"])
            _text(element, "multiplier", mimic.get("multiplier", 1.0))
            _text(element, "offset", mimic.get("offset", 0.0))
            _text(element, "reference", mimic.get("reference", 0.0))
            equality = mimic.get("equality")
            if equality is not None:
                self.context.lose(
                    "joint-equality",
                    f"the joint equality making {joint.name!r} follow {mimic['joint']!r} is a soft constraint; "
                    "SDF's mimic is exact",
                    location=equality.location,
                    construct=equality.name or joint.name,
                    instead=f"<mimic joint={name!r}> on {joint.name!r}",
                )

    def _loop_joints(self) -> None:
        """Joints off the tree (SDF loop-closing joints, gearboxes that are not a link's tree joint)."""
        model = self.model
        for joint in model.joints.values():
            in_tree = joint.name in model.bodies[joint.child].joints if joint.child in model.bodies else False
            if in_tree and not self._loop(joint):
                continue
            parent = self.body_names.get(joint.parent, WORLD)
            child = self.body_names[joint.child]
            parent_zero = self.zero.get(parent, np.eye(4)) if parent != WORLD else np.eye(4)
            pose = invert_pose(self.zero[child]) @ parent_zero @ joint.origin
            self._joint(Piece(joint.name, joint.type, joint.origin, np.eye(4), source=joint), parent, child, pose)

    # -- link contents -------------------------------------------------------------------------------
    def _inertial(self, link: Element, body: Body | None) -> None:
        inertial = body.inertial if body is not None else None
        element = SubElement(link, "inertial")
        if inertial is None:  # massless (SDF's default would be 1 kg)
            _text(element, "mass", 0.0)
            inertia = SubElement(element, "inertia")
            for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"):
                _text(inertia, key, 0.0)
            return
        com = np.asarray(inertial.com, dtype=float)
        if np.any(com):
            _text(element, "pose", [*com, 0.0, 0.0, 0.0])
        _text(element, "mass", inertial.mass)
        i = np.asarray(inertial.inertia, dtype=float)
        if body is not None and not is_valid_mass_matrix(inertial.mass, i):
            i = _valid_inertia(i)
            self.context.lose(
                "invalid-inertia",
                f"the inertia of {body.name!r} is not one libsdformat accepts (not positive semi-definite, or its "
                "principal moments break the triangle inequality)",
                location=body.location,
                construct=body.name,
                instead="the nearest valid inertia: negative principal moments raised to 0, the largest lowered to"
                " the sum of the others",
            )
        inertia = SubElement(element, "inertia")
        for key, (r, c) in zip(
            ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"), ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))
        ):
            _text(inertia, key, i[r, c])

    def _link_contents(self, link_name: str | Element, body: Body) -> None:
        link = link_name if isinstance(link_name, Element) else self._find_link(link_name)
        if isinstance(link_name, Element) or not any(child.tag == "inertial" for child in link):
            self._inertial(link, body)
        for kind, shapes in (("visual", body.visuals), ("collision", body.collisions)):
            taken = {s.name for s in shapes if s.name}
            used: set[str] = set()
            for shape in shapes:
                name = shape.name if shape.name and shape.name not in used else unique_name(shape.name or kind, taken)
                used.add(name)
                self._shape(link, kind, name, shape, body)
        self._kept(link, body.extras, body.name)

    def _find_link(self, full: str) -> Element:
        scope = self.scope(self.scope_of(full))
        local = full.rpartition("::")[2]
        return next(link for link in scope.links if link.get("name") == local)

    def _shape(self, link: Element, kind: str, name: str, shape: Shape, body: Body) -> None:
        element = Element(kind, name=name)
        _pose(element, shape.pose)
        sdf = shape.extras.get("sdf") or {}
        geometry = self._geometry(shape, body, sdf)
        if geometry is not None:
            element.append(geometry)
        elif not (self.source_sdf and any(e.tag == "geometry" for e in shape.extras.get("xml") or ())):
            return  # nothing to draw or collide (reported as lost)
        if kind == "visual":
            self._material(element, shape, sdf)
        self._kept(element, shape.extras, body.name)
        if self.model.format == "mjcf" and any(k in _MJCF_CONTACT for k in (shape.extras.get("mjcf") or {})):
            self._contact_loss(body, shape)
        link.append(element)

    def _contact_loss(self, body: Body, shape: Shape) -> None:
        if getattr(self, "_contact_lost", False):
            return
        self._contact_lost = True
        self.context.lose(
            "contact-parameters",
            "MJCF contact parameters of geoms (friction, solref, solimp, condim, contype, ...) are not written",
            location=body.location,
            construct=shape.name or body.name,
            instead="SDF's default surface",
        )

    def _geometry(self, shape: Shape, body: Body, sdf: dict) -> Element | None:
        g = shape.geometry
        out = Element("geometry")
        if isinstance(g, Box):
            _text(SubElement(out, "box"), "size", g.size)
        elif isinstance(g, Sphere):
            _text(SubElement(out, "sphere"), "radius", g.radius)
        elif isinstance(g, (Cylinder, Capsule, Cone)):
            tag = {Cylinder: "cylinder", Capsule: "capsule", Cone: "cone"}[type(g)]
            element = SubElement(out, tag)
            _text(element, "radius", g.radius)
            _text(element, "length", g.length)
        elif isinstance(g, Ellipsoid):
            _text(SubElement(out, "ellipsoid"), "radii", g.radii)
        elif isinstance(g, Plane):
            element = SubElement(out, "plane")
            _text(element, "normal", g.normal)
            if g.size is not None:
                _text(element, "size", g.size)
            else:
                _text(element, "size", [1e6, 1e6])
                self._lose_shape("infinite-plane", shape, body, "an infinite plane", "a plane 1e6 m wide")
        elif isinstance(g, Mesh):
            if g.vertices is not None:
                self._lose_shape("inline-mesh", shape, body, "a mesh given by vertices in the description", "nothing")
                return None
            element = SubElement(out, "mesh")
            _text(element, "uri", self.context.file_reference(g.path, g.uri))
            submesh = (sdf.get("geometry") or {}).get("submesh")
            if submesh:
                sub = SubElement(element, "submesh")
                _text(sub, "name", submesh.get("name", ""))
                _text(sub, "center", "true" if submesh.get("center") else "false")
            if not np.array_equal(g.scale, np.ones(3)):
                _text(element, "scale", g.scale)
        elif isinstance(g, Heightfield):
            return self._heightmap(out, g, shape, body)
        else:
            kept = sdf.get("geometry_xml")
            if kept is not None:
                return _element(kept.xml)
            if self.source_sdf and any(extra.tag == "geometry" for extra in shape.extras.get("xml") or ()):
                return None  # written with the shape's other kept elements
            self._lose_shape("geometry", shape, body, f"a {type(g).__name__} geometry", "nothing")
            return None
        return out

    def _heightmap(self, out: Element, g: Heightfield, shape: Shape, body: Body) -> Element | None:
        if g.path is None and g.uri is None or g.file_format != "image" or g.elevation is not None and g.path is None:
            self._lose_shape("heightfield", shape, body, "a height field without an image file", "nothing")
            return None
        element = SubElement(out, "heightmap")
        _text(element, "uri", self.context.file_reference(g.path, g.uri or ""))
        if g.size is not None:
            _text(element, "size", g.size)
        if np.any(g.center):
            _text(element, "pos", g.center)
        if g.normalize != "max" or g.base:
            self._lose_shape(
                "heightfield",
                shape,
                body,
                "a height field scaled to its value range (MuJoCo), or with a base",
                "Gazebo's heightmap, which divides by the brightest pixel and has no base",
            )
        return out

    def _lose_shape(self, code: str, shape: Shape, body: Body, what: str, instead: str) -> None:
        self.context.lose(
            code,
            f"{what} ({shape.name or 'unnamed shape'} of body {body.name!r}) cannot be written in SDF",
            location=body.location,
            construct=shape.name or body.name,
            instead=instead,
        )

    def _material(self, element: Element, shape: Shape, sdf: dict) -> None:
        kept = sdf.get("material")
        if kept is not None and self.source_sdf:
            element.append(_element(kept.xml))
            return
        material = shape.material
        if material is None or (material.color is None and material.texture is None):
            return
        out = SubElement(element, "material")
        if material.color is not None:
            _text(out, "ambient", material.color)
            _text(out, "diffuse", material.color)
        if material.texture is not None:
            pbr = SubElement(SubElement(out, "pbr"), "metal")
            _text(pbr, "albedo_map", material.texture)

    # -- kept elements ---------------------------------------------------------------------------------
    def _kept(self, element: Element, extras: dict, owner: str) -> None:
        """Extension elements the SDF reader kept are written back; other formats' are lost."""
        for extra in extras.get("xml") or ():
            if self.source_sdf:
                element.append(_element(extra.xml))
            else:
                self._lose_extra(extra, owner)

    def _lose_extra(self, extra: Any, owner: str | None) -> None:
        tag = extra.tag
        self.context.lose(
            _LOSS_CODES.get(tag, "extension"),
            f"<{tag}>" + (f" of {owner!r}" if owner else "") + f" ({self.model.format}) has no SDF equivalent",
            location=extra.location,
            construct=extra.attributes.get("name") or tag,
        )

    def _extras(self) -> None:
        """Model-level extras: an SDF source's go back to their model (or world); URDF `<gazebo>`
        plugins and sensors go where libsdformat's URDF converter puts them; the rest is lost."""
        for extra in self.model.extras:
            if self.source_sdf:
                owner = extra.owner or ""
                scope = self.scopes.get(owner) or self.scope(owner)
                scope.extras.append(_element(extra.xml))
            elif self.model.format == "urdf" and extra.tag == "gazebo":
                self._gazebo(extra)
            else:
                self._lose_extra(extra, extra.owner)

    def _gazebo(self, extra: Any) -> None:
        """A URDF `<gazebo>` block: its `<plugin>`s into the model, `<sensor>`s into the referenced link."""
        element = _element(extra.xml)
        reference = element.get("reference")
        link = None
        if reference:
            written = self.body_names.get(reference)
            link = self._find_link(written) if written is not None and written != WORLD else None
        for child in list(element):
            if reference is None and child.tag == "plugin":
                self.top.extras.append(child)
            elif (
                link is not None
                and child.tag in ("sensor", "light")
                and not any(c.tag == child.tag and c.get("name") == child.get("name") for c in link)
            ):
                link.append(child)
            else:
                self.context.lose(
                    "gazebo-extension",
                    f"<{child.tag}> in <gazebo" + (f' reference="{reference}"' if reference else "") + ">"
                    " is a Gazebo URDF extension robodesc does not convert",
                    location=extra.location,
                    construct=child.tag,
                )

    def _model_losses(self) -> None:
        model = self.model
        for actuator in model.actuators:
            self.context.lose(
                "actuator",
                f"actuator {actuator.name or actuator.kind!r} ({actuator.kind}"
                + (f" on joint {actuator.joint!r}" if actuator.joint else "")
                + ") has no SDF equivalent (Gazebo drives joints with plugins)",
                location=actuator.location,
                construct=actuator.name,
            )
        for name in model.configurations:
            self.context.lose(
                "keyframe",
                f"the named configuration {name!r} has no SDF equivalent",
                construct=name,
            )
        for constraint in model.constraints:
            if constraint.kind in ("gearbox", "loop"):
                continue  # written as SDF joints
            if constraint.kind == "joint" and constraint.elements and self._coupled(constraint):
                continue  # written as <mimic>
            self.context.lose(
                "constraint",
                f"{constraint.kind} constraint {constraint.name or ', '.join(constraint.elements)!r}"
                " has no SDF equivalent",
                location=constraint.location,
                construct=constraint.name or (constraint.elements[0] if constraint.elements else None),
            )

    def _coupled(self, constraint: Any) -> bool:
        joint = self.model.joints.get(constraint.elements[0])
        coupling = self._coupling(joint) if joint is not None else None
        return (
            coupling is not None
            and coupling["equality"] is constraint
            and joint is not None
            and joint.name in self.joint_names
            and not self._loop(joint)
        )

    def _frames(self) -> None:
        for frame in self.model.frames.values():
            body = self.body_names.get(frame.body, frame.body)
            pose = frame.pose
            if body == WORLD and not (self.is_world and "::" not in frame.name):
                scope_name = self.scope_of(frame.name) if _valid_scoped(frame.name) else ""
                scope = self.scope(scope_name)
                if scope_name and scope.bodies and scope.static == scope.bodies:
                    body = "__model__"  # a static model's frame is the world's
                else:
                    body = self._world_anchor()
            scope_name, local = self._place(frame.name, "frame", frame.location)
            target = body if body in (WORLD, "__model__") else self.ref(scope_name, body)
            if target is None:
                self.context.lose(
                    "frame",
                    f"frame {frame.name!r} is attached to {frame.body!r}, which its model cannot name",
                    location=frame.location,
                    construct=frame.name,
                )
                continue
            element = Element("frame", name=local, attached_to=target)
            _pose(element, pose, target)
            self.scope(scope_name).frames.append(element)


def _valid_inertia(inertia: np.ndarray) -> np.ndarray:
    """An inertia libsdformat accepts close to `inertia`: same principal axes, moments clipped at zero and
    the largest no more than the sum of the two others."""
    symmetric = (inertia + inertia.T) / 2.0
    moments, axes = np.linalg.eigh(symmetric)
    moments = np.clip(moments, 0.0, None)
    moments[2] = min(moments[2], moments[0] + moments[1])
    fixed = axes @ np.diag(moments) @ axes.T
    if not is_valid_mass_matrix(1.0, fixed):
        fixed = np.diag(np.full(3, max(float(moments.mean()), 0.0)))
    return fixed


def _element(text: str) -> Element:
    """An element kept as XML text, parsed again (namespace prefixes kept as written)."""
    try:
        return parse_xml(text).root
    except RobodescError:  # cannot happen for text the reader rendered; kept as a comment otherwise
        from xml.etree.ElementTree import Comment

        return Comment(text.replace("--", "- -"))  # type: ignore[return-value]
