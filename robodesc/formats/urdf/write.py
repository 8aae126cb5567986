"""`Model` → URDF text, in URDF's idioms: the writer registered for the `urdf` format.

The model may come from any format. URDF has one joint per link and puts the joint frame at the
child link's frame, so the writer plans, body by body, the chain of URDF joints that reproduces
the body's pose for every joint value (model.py's formula):

    body = parent @ prod_i(origin_i @ M_i(ref_i)^-1 @ M_i(q_i) @ origin_i^-1) @ body.pose

Joint i is written with origin ``T @ origin_i @ M_i(ref_i)^-1`` (T what is left over from the
joint before), the same axis, name and values; whatever remains after the last joint
(``origin_n^-1 @ body.pose``) becomes a fixed joint from a massless helper link to the body when
it is not the identity. Joints URDF has no type for are split into single-valued ones through
helper links (universal, revolute2, ball, screw); `joint_values` maps the model's joint values
to the written joints'. Helper names come from `unique_name` and never collide with the model's.

What URDF cannot hold is reported through `WriteContext.lose` (codes in docs/formats/urdf.md,
"Writing URDF"). A URDF source's extension elements (`<gazebo>`, `<transmission>`,
`<ros2_control>`, unknown elements) are written back verbatim.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np

from ...core.errors import Location
from ...core.geometry import Box, Capsule, Cone, Cylinder, Ellipsoid, Heightfield, Material, Mesh, Plane, Shape, Sphere
from ...core.kinematics import joint_motion, reference_value
from ...core.model import Body, Extra, Joint, JointType, Limits, Mimic, Model
from ...core.transforms import invert_pose, quat_to_matrix
from ...core.writing import WriteContext, unique_name

__all__ = ["joint_values", "plan", "write"]

_IDENTITY = np.eye(4)
#: A remainder transform closer than this to the identity (in every entry) is taken as the identity,
#: so a joint placed at its body's origin (origin == body.pose, up to rounding) needs no helper link.
_EXACT = 1e-12
#: Model-level and element extras of other formats, by tag: the loss code each is reported under.
_EXTRA_CODES = {
    "tendon": "tendon",
    "sensor": "sensor",
    "contact": "contact",
    "plugin": "plugin",
    "default": "default-class",
    "equality": "constraint",
    "actuator": "actuator",
    "light": "light",
}
#: Joint types URDF writes as they are (one URDF joint each).
_DIRECT = {
    JointType.REVOLUTE: "revolute",
    JointType.CONTINUOUS: "continuous",
    JointType.PRISMATIC: "prismatic",
    JointType.FLOATING: "floating",
    JointType.PLANAR: "planar",
}
#: A large bound written for a prismatic joint without position limits (URDF needs both bounds).
UNLIMITED_PRISMATIC = 1e9


# -- the plan: which URDF joints and links stand for each body's joints ------------------------------
@dataclass
class _Step:
    """One URDF joint of a body's chain: what it is written as, and which model joint it stands for."""

    name: str
    type: str  # URDF joint type
    parent: str
    child: str
    origin: np.ndarray
    source: Joint | None = None  # the model joint (None for a helper fixed joint)
    axis: np.ndarray | None = None
    limits: Limits | None = None
    part: str = ""  # which part of a split joint: "", "1", "2", "x", "y", "z", "screw"
    mimic: tuple[str, float, float] | None = None  # leader, multiplier, offset


@dataclass
class Plan:
    """How a model is laid out in URDF: the root link, helper links and every URDF joint in order.

    `steps[body]` are the URDF joints leading to `body` (helpers first, the body's own last);
    `helpers` the massless helper links; `frame_links` the link (and fixed joint) each frame becomes.
    `parts[joint]` names the URDF joints a model joint became, with the part each stands for.
    """

    root: str
    new_root: bool  # the root link is a helper (a model with several roots)
    dropped: str | None = None  # an empty root body left out (see `_placeholder_root`)
    steps: dict[str, list[_Step]] = field(default_factory=dict)
    helpers: list[str] = field(default_factory=list)
    frame_links: dict[str, tuple[str, str]] = field(default_factory=dict)
    parts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    mimics: dict[str, tuple[str, float, float]] = field(default_factory=dict)  # from joint constraints
    lumped: list[Joint] = field(default_factory=list)  # zero-dof joints folded into a movable chain
    off_tree: list[Joint] = field(default_factory=list)


def _is_identity(pose: np.ndarray) -> bool:
    return bool(np.all(np.abs(np.asarray(pose, dtype=float) - _IDENTITY) <= _EXACT))


def _has_reference(joint: Joint) -> bool:
    """Whether the joint's reference differs from its identity value (URDF has no reference)."""
    return not _is_identity(joint_motion(joint, reference_value(joint)))


def plan(model: Model) -> Plan:
    """The URDF layout of `model`: deterministic, so `write` and `joint_values` agree on names."""
    taken = set(model.bodies) | set(model.joints) | set(model.frames)
    roots = [b for b in model.bodies.values() if b.parent is None]
    new_root = len(roots) > 1 or any(model.joints[j].dof > 0 for j in roots[0].joints)
    root = unique_name("world", taken) if new_root else roots[0].name
    dropped = None if new_root else _placeholder_root(model, roots[0])
    if dropped is not None:  # an SDF model's links hang from an empty "world": the model's root link is URDF's
        root = next(b.name for b in model.bodies.values() if b.parent == dropped)
    result = Plan(root=root, new_root=new_root, dropped=dropped)
    on_tree: set[str] = set()
    for body in model.bodies.values():
        on_tree.update(body.joints)
        if (body.parent is None and not new_root) or body.name == root:
            continue
        result.steps[body.name] = _body_steps(model, body, root, taken, result)
    result.off_tree = [j for name, j in model.joints.items() if name not in on_tree]
    for frame in model.frames.values():
        link = frame.name if frame.name not in model.bodies else unique_name(f"{frame.name}__frame", taken)
        result.frame_links[frame.name] = (link, unique_name(f"{frame.name}__fixed", taken))
    _constraint_mimics(model, result)
    return result


def _placeholder_root(model: Model, root: Body) -> str | None:
    """The root's name when it is only where one free body hangs (the world robodesc puts above an
    SDF model's links): nothing of its own, one child, joined by no joint. URDF's root link is that
    child, free as a URDF root is in Gazebo. A static body is not free: it keeps a `world` link and
    is fixed to it where it stands, as ROS users bolt a robot to the world."""
    if root.inertial is not None or root.visuals or root.collisions or root.extras.get("xml"):
        return None
    if any(frame.body == root.name for frame in model.frames.values()):
        return None
    children = [b for b in model.bodies.values() if b.parent == root.name]
    if len(children) != 1 or children[0].joints or not children[0].floating:
        return None
    return root.name


def _body_steps(model: Model, body: Body, root: str, taken: set[str], result: Plan) -> list[_Step]:
    """The URDF joints from the body's parent link to the body (through helper links)."""
    parent = body.parent if body.parent is not None else root
    joints = [model.joints[name] for name in body.joints]
    moving = [j for j in joints if j.dof > 0]
    still = [j for j in joints if j.dof == 0]
    if not moving:
        # a fixed (or gearbox) joint keeps its name; a body welded without a joint gets a helper one
        kind = "fixed"
        if still:
            name = still[0].name
            result.lumped.extend(still[1:])
        elif body.floating:  # free in the world although no joint says so (an SDF model's root link)
            kind = "floating"
            name = unique_name(f"{body.name}__floating", taken)
        else:
            name = unique_name(f"{body.name}__fixed", taken)
        step = _Step(name, kind, parent, body.name, np.asarray(body.pose, dtype=float), still[0] if still else None)
        result.parts.setdefault(name, [])
        return [step]
    result.lumped.extend(still)
    steps: list[_Step] = []
    before = _IDENTITY  # what is left between the current link and the next joint's frame
    current = parent
    for joint in moving:
        pre = np.asarray(joint.origin, dtype=float) @ np.linalg.inv(joint_motion(joint, reference_value(joint)))
        pieces = _split(joint, taken)
        origin = before @ pre
        for index, (name, kind, axis, limits, part) in enumerate(pieces):
            child = unique_name(f"{body.name}__{name}_frame", taken)
            step = _Step(name, kind, current, child, origin if index == 0 else _IDENTITY.copy(), joint, axis, limits)
            step.part = part
            if part == "screw":  # the translation follows the rotation: pitch metres per radian
                step.mimic = (pieces[0][0], float(joint.pitch), 0.0)
                step.limits = _screw_limits(joint)
            steps.append(step)
            result.parts.setdefault(joint.name, []).append((name, part))
            current = child
        before = invert_pose(np.asarray(joint.origin, dtype=float))
    rest = before @ np.asarray(body.pose, dtype=float)
    if _is_identity(rest):
        taken.discard(steps[-1].child)  # the last joint reaches the body itself
        steps[-1].child = body.name
    else:
        steps.append(_Step(unique_name(f"{body.name}__fixed", taken), "fixed", current, body.name, rest))
    result.helpers.extend(s.child for s in steps if s.child != body.name)
    return steps


def _split(joint: Joint, taken: set[str]) -> list[tuple[str, str, np.ndarray, Limits | None, str]]:
    """The single URDF joints standing for one model joint: (name, URDF type, axis, limits, part)."""
    axis = np.asarray(joint.axis, dtype=float)
    kind = joint.type
    if kind in _DIRECT:
        urdf_type = _DIRECT[kind]
        if kind is JointType.REVOLUTE and joint.limits.lower is None and joint.limits.upper is None:
            urdf_type = "continuous"
        return [(joint.name, urdf_type, axis, joint.limits, "")]
    if kind is JointType.SCREW:
        return [
            (joint.name, _revolute_type(joint.limits), axis, joint.limits, ""),
            (unique_name(f"{joint.name}__translation", taken), "prismatic", axis, None, "screw"),
        ]
    if kind in (JointType.UNIVERSAL, JointType.REVOLUTE2):
        axis2 = np.asarray(joint.axis2 if joint.axis2 is not None else (0.0, 1.0, 0.0), dtype=float)
        limits2 = joint.limits2 or Limits()
        return [
            (unique_name(f"{joint.name}__1", taken), _revolute_type(joint.limits), axis, joint.limits, "1"),
            (unique_name(f"{joint.name}__2", taken), _revolute_type(limits2), axis2, limits2, "2"),
        ]
    # a ball: rotations about the joint frame's x, then y, then z (intrinsic), unlimited
    unit = np.eye(3)
    return [
        (unique_name(f"{joint.name}__{part}", taken), "continuous", unit[k], None, part) for k, part in enumerate("xyz")
    ]


def _screw_limits(joint: Joint) -> Limits:
    """Bounds of a screw joint's translation: its rotation's bounds times the pitch (URDF needs both)."""
    lower, upper = joint.limits.lower, joint.limits.upper
    if lower is None or upper is None:
        return Limits(-UNLIMITED_PRISMATIC, UNLIMITED_PRISMATIC)
    ends = sorted((lower * joint.pitch, upper * joint.pitch))
    return Limits(ends[0], ends[1])


def _revolute_type(limits: Limits) -> str:
    return "continuous" if limits.lower is None and limits.upper is None else "revolute"


def _constraint_mimics(model: Model, result: Plan) -> None:
    """MJCF-style joint couplings (``q1 - ref1 = c0 + c1 (q2 - ref2)``) between two single URDF joints,
    as `<mimic>` on the first; nonlinear ones and other constraints are lost (see `write`)."""
    single = {name: parts[0][0] for name, parts in result.parts.items() if len(parts) == 1 and not parts[0][1]}
    leaders = {j.mimic.joint for j in model.joints.values() if j.mimic is not None}
    for constraint in model.constraints:
        coupling = _linear_coupling(model, constraint, single)
        if coupling is None:
            continue
        follower, leader, multiplier, offset = coupling
        followers = set(result.mimics)
        # yourdfpy follows independent joints only: no chains of followers
        if follower in followers or follower in leaders or leader in followers or model.joints[leader].mimic:
            continue
        result.mimics[follower] = (leader, multiplier, offset)
        leaders.add(leader)


def _linear_coupling(model: Model, constraint: Any, single: Mapping[str, str]) -> tuple[str, str, float, float] | None:
    if constraint.kind != "joint" or len(constraint.elements) != 2:
        return None
    first, second = constraint.elements
    c = list(constraint.coefficients) + [0.0] * 5
    if any(c[2:5]) or first not in single or second not in single or first == second:
        return None
    follower, leader = model.joints[first], model.joints[second]
    if follower.mimic is not None or follower.dof != 1 or leader.dof != 1:
        return None
    ref1, ref2 = float(reference_value(follower)[0]), float(reference_value(leader)[0])
    return first, second, float(c[1]), float(c[0] + ref1 - c[1] * ref2)


# -- joint values -------------------------------------------------------------------------------------
def joint_values(model: Model, positions: Mapping[str, Any], layout: Plan | None = None) -> dict[str, Any]:
    """The values of the written URDF's joints for the model's joint `positions`.

    Single-valued joints keep their name and value; a universal or revolute2 joint ``j`` becomes
    ``j__1`` and ``j__2``; a ball joint's quaternion becomes the angles of ``j__x``, ``j__y``,
    ``j__z`` (rotations about x, then y, then z of its frame); floating and planar joints keep their
    value lists. Joints left out of `positions` are left out here (URDF then takes 0). Pass the
    model's `plan` as `layout` when converting many configurations of one model."""
    layout = layout if layout is not None else plan(model)
    out: dict[str, Any] = {}
    for name, value in positions.items():
        joint = model.joints.get(name)
        parts = layout.parts.get(name)
        if joint is None or not parts:
            continue
        v = np.asarray(value, dtype=float).reshape(-1)
        if joint.type is JointType.BALL:
            for (part_name, _), angle in zip(parts, ball_angles(v)):
                out[part_name] = angle
        elif joint.type in (JointType.UNIVERSAL, JointType.REVOLUTE2):
            out[parts[0][0]], out[parts[1][0]] = float(v[0]), float(v[1])
        elif joint.dof == 1:
            out[parts[0][0]] = float(v[0])
        else:
            out[parts[0][0]] = v.tolist()
    return out


def ball_angles(quaternion: Any) -> tuple[float, float, float]:
    """Angles (a, b, c) with Rx(a) @ Ry(b) @ Rz(c) equal to the rotation of `quaternion` (w, x, y, z)."""
    r = quat_to_matrix(quaternion)
    cos_b = math.hypot(r[0, 0], r[0, 1])
    b = math.atan2(r[0, 2], cos_b)
    if cos_b > 1e-12:
        return math.atan2(-r[1, 2], r[2, 2]), b, math.atan2(-r[0, 1], r[0, 0])
    return 0.0, b, math.atan2(r[1, 0], r[1, 1])  # gimbal lock: the first angle is free


# -- text -------------------------------------------------------------------------------------------
def _number(value: float) -> str:
    """A float written so that it reads back bit for bit."""
    value = float(value)
    if value == 0.0:
        return "0"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _numbers(values: Any) -> str:
    return " ".join(_number(v) for v in np.asarray(values, dtype=float).reshape(-1))


def _rpy(rotation: np.ndarray) -> tuple[float, float, float]:
    """Fixed-axis roll, pitch, yaw of a rotation, accurate also near pitch = ±90°."""
    r = np.asarray(rotation, dtype=float)
    cos_p = math.hypot(r[0, 0], r[1, 0])
    pitch = math.atan2(-r[2, 0], cos_p)
    if cos_p > 1e-12:
        return math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])
    return 0.0, pitch, math.atan2(-r[0, 1], r[1, 1])


#: Origin numbers smaller than this (metres, radians) are rounding left over from composing poses
#: (2.2e-16 instead of 0) and are written as 0: far below the 1e-12 a written pose is faithful to.
_NOISE = 1e-15


def _origin(pose: np.ndarray) -> str | None:
    """An `<origin>` element for a pose, None for the identity."""
    pose = np.asarray(pose, dtype=float)
    xyz = np.where(np.abs(pose[:3, 3]) < _NOISE, 0.0, pose[:3, 3])
    rpy = np.array(_rpy(pose[:3, :3]))
    rpy = np.where(np.abs(rpy) < _NOISE, 0.0, rpy)
    if not np.any(xyz) and not np.any(rpy):
        return None
    attrs = f"xyz={_attr(_numbers(xyz))}"
    if np.any(rpy):
        attrs += f" rpy={_attr(_numbers(rpy))}"
    return f"<origin {attrs}/>"


def _attr(text: str) -> str:
    return quoteattr(str(text))


def _element(tag: str, **attributes: Any) -> str:
    parts = "".join(f" {key}={_attr(value)}" for key, value in attributes.items() if value is not None)
    return f"<{tag}{parts}/>"


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, depth: int, text: str | None) -> None:
        if text is not None:
            self.lines.append("  " * depth + text)


# -- the writer ---------------------------------------------------------------------------------------
def write(model: Model, context: WriteContext) -> str:
    """URDF text for `model`; what URDF cannot express is reported on `context` (never dropped silently)."""
    return _UrdfWriter(model, context).write()


class _UrdfWriter:
    def __init__(self, model: Model, context: WriteContext) -> None:
        self.model = model
        self.context = context
        self.urdf_source = model.format == "urdf"
        self.plan = plan(model)
        self.materials: dict[str, Material] = {}  # robot-level materials to write, by name
        self.material_keys: dict[tuple, str] = {}  # unnamed colours -> the name they are written under
        self.textures_lost: set[int] = set()  # materials whose texture was reported lost (once each)
        self.leading: dict[str, tuple[str, float, float]] = {}  # see _leading

    def lose(
        self, code: str, message: str, location: Location | None, construct: str | None, instead: str = "nothing"
    ) -> None:
        self.context.lose(code, message, location=location, construct=construct, instead=instead)

    # -- the document -------------------------------------------------------------------------
    def write(self) -> str:
        model = self.model
        for name, material in model.materials.items():
            self.materials[name] = material
        body_lines = _Lines()
        if self.plan.new_root:
            body_lines.add(1, _element("link", name=self.plan.root))
        last: list[_Step] = []
        for body in model.bodies.values():
            if body.name == self.plan.dropped:
                continue
            self._link(body_lines, body)
            for step in self.plan.steps.get(body.name, ()):
                if step.child != body.name:
                    body_lines.add(1, _element("link", name=step.child))
                if step.type in ("floating", "planar"):
                    last.append(step)
                else:
                    self._joint(body_lines, step)
        # joints of several values come last: yourdfpy looks a mimic's leader up by its place among the
        # moving joints, which is its place in the configuration only when no such joint comes before it
        for step in last:
            self._joint(body_lines, step)
        self._frames(body_lines)
        self._report_model_losses()
        out = _Lines()
        out.add(0, '<?xml version="1.0" encoding="utf-8"?>')
        out.add(0, f"<robot name={_attr(model.name)}>")
        for name, material in self.materials.items():
            self._material(out, name, material)
        out.lines.extend(body_lines.lines)
        if self.urdf_source:
            for extra in model.extras:
                self._verbatim(out, 1, extra)
        out.add(0, "</robot>")
        return "\n".join(out.lines) + "\n"

    def _verbatim(self, out: _Lines, depth: int, extra: Extra) -> None:
        """An element of a URDF source written back as it was read."""
        out.add(depth, extra.xml)

    # -- links ----------------------------------------------------------------------------------
    def _link(self, out: _Lines, body: Body) -> None:
        inside = _Lines()
        inertial = body.inertial
        if inertial is not None:
            inside.add(2, "<inertial>")
            com = np.asarray(inertial.com, dtype=float)
            inside.add(3, _element("origin", xyz=_numbers(com)) if np.any(com) else None)
            inside.add(3, _element("mass", value=_number(inertial.mass)))
            i = np.asarray(inertial.inertia, dtype=float)
            inside.add(
                3,
                _element(
                    "inertia",
                    ixx=_number(i[0, 0]),
                    ixy=_number(i[0, 1]),
                    ixz=_number(i[0, 2]),
                    iyy=_number(i[1, 1]),
                    iyz=_number(i[1, 2]),
                    izz=_number(i[2, 2]),
                ),
            )
            inside.add(2, "</inertial>")
        for shape in body.visuals:
            self._shape(inside, body, shape, "visual")
        for shape in body.collisions:
            self._shape(inside, body, shape, "collision")
        self._element_extras(inside, 2, body.extras, body.location, f"link {body.name!r}")
        if inside.lines:
            out.add(1, f"<link name={_attr(body.name)}>")
            out.lines.extend(inside.lines)
            out.add(1, "</link>")
        else:
            out.add(1, _element("link", name=body.name))

    def _element_extras(self, out: _Lines, depth: int, extras: dict, location: Location, owner: str) -> None:
        """Unknown child elements a reader kept: written back for a URDF source, lost otherwise."""
        for extra in extras.get("xml", ()):
            if self.urdf_source:
                self._verbatim(out, depth, extra)
            else:
                code = _EXTRA_CODES.get(extra.tag, "element")
                self.lose(
                    code,
                    f"<{extra.tag}> of {owner} ({self.model.format}) has no URDF counterpart",
                    extra.location or location,
                    extra.attributes.get("name") or extra.tag,
                )

    def _shape(self, out: _Lines, body: Body, shape: Shape, kind: str) -> None:
        """One visual or collision; a capsule becomes a cylinder and two spheres (the same solid)."""
        pieces = self._geometry(body, shape, kind)
        for index, (pose, geometry) in enumerate(pieces):
            name = shape.name if index == 0 else None
            out.add(2, f"<{kind}>" if name is None else f"<{kind} name={_attr(name)}>")
            out.add(3, _origin(pose))
            out.add(3, "<geometry>")
            out.add(4, geometry)
            out.add(3, "</geometry>")
            if kind == "visual":
                out.add(3, self._shape_material(body, shape))
            if index == 0:
                self._element_extras(out, 3, shape.extras, body.location, f"a {kind} of link {body.name!r}")
            out.add(2, f"</{kind}>")

    def _geometry(self, body: Body, shape: Shape, kind: str) -> list[tuple[np.ndarray, str]]:
        """(pose, geometry element) for each URDF shape standing for `shape`; [] when nothing can."""
        g = shape.geometry
        pose = np.asarray(shape.pose, dtype=float)
        where = f"a {kind} of link {body.name!r}"
        if isinstance(g, Box):
            return [(pose, _element("box", size=_numbers(g.size)))]
        if isinstance(g, Sphere):
            return [(pose, _element("sphere", radius=_number(g.radius)))]
        if isinstance(g, Cylinder):
            return [(pose, _element("cylinder", radius=_number(g.radius), length=_number(g.length)))]
        if isinstance(g, Capsule):
            self.lose(
                "capsule",
                f"{where} is a capsule, which urdfdom and yourdfpy do not read",
                body.location,
                shape.name or body.name,
                "a cylinder of the same radius and length and a sphere on each end (the same solid)",
            )
            half = np.eye(4)
            half[2, 3] = g.length / 2.0
            low = np.eye(4)
            low[2, 3] = -g.length / 2.0
            sphere = _element("sphere", radius=_number(g.radius))
            return [
                (pose, _element("cylinder", radius=_number(g.radius), length=_number(g.length))),
                (pose @ half, sphere),
                (pose @ low, sphere),
            ]
        if isinstance(g, Cone):
            self.lose(
                "cone",
                f"{where} is a cone",
                body.location,
                shape.name or body.name,
                "a cylinder of the same radius and length (encloses the cone)",
            )
            return [(pose, _element("cylinder", radius=_number(g.radius), length=_number(g.length)))]
        if isinstance(g, Ellipsoid):
            radius = float(np.max(np.asarray(g.radii, dtype=float)))
            self.lose(
                "ellipsoid",
                f"{where} is an ellipsoid",
                body.location,
                shape.name or body.name,
                "a sphere of its largest radius (encloses the ellipsoid)",
            )
            return [(pose, _element("sphere", radius=_number(radius)))]
        if isinstance(g, Mesh):
            if g.vertices is not None:
                self.lose(
                    "inline-mesh",
                    f"{where} is a mesh given by its vertices, not a file",
                    body.location,
                    shape.name or g.uri,
                )
                return []
            scale = np.asarray(g.scale, dtype=float)
            reference = self.context.file_reference(g.path, g.uri)
            return [
                (pose, _element("mesh", filename=reference, scale=None if np.all(scale == 1.0) else _numbers(scale)))
            ]
        if isinstance(g, Plane):
            self.lose("plane", f"{where} is a plane", body.location, shape.name or body.name)
            return []
        if isinstance(g, Heightfield):
            self.lose("heightfield", f"{where} is a height field", body.location, shape.name or g.uri or body.name)
            return []
        self.lose(
            "geometry",
            f"{where} is a {type(g).__name__}, which URDF has no shape for",
            body.location,
            shape.name or body.name,
        )
        return []

    # -- materials --------------------------------------------------------------------------------
    def _shape_material(self, body: Body, shape: Shape) -> str | None:
        """`<material name=.../>` naming a robot-level material (defined once, at the top)."""
        material = shape.material
        if material is None:
            return None
        if not self.urdf_source and material.texture is not None and id(material) not in self.textures_lost:
            self.textures_lost.add(id(material))
            self.lose(
                "texture",
                f"a visual of link {body.name!r} has a texture ({material.texture!r})",
                body.location,
                material.name or body.name,
                "its colour only",
            )
        if material.name:
            known = self.materials.get(material.name)
            if known is None:
                self.materials[material.name] = material
                return _element("material", name=material.name)
            if known is material or _same_material(known, material):
                return _element("material", name=material.name)
        if material.color is None and (material.texture is None or not self.urdf_source):
            return None
        key = (
            tuple(np.asarray(material.color, dtype=float).tolist()) if material.color is not None else None,
            material.texture if self.urdf_source else None,
            material.name,
        )
        name = self.material_keys.get(key)
        if name is None:
            wanted = material.name or f"{body.name}_material"
            name = unique_name(wanted, set(self.materials))
            self.material_keys[key] = name
            self.materials[name] = material
        return _element("material", name=name)

    def _material(self, out: _Lines, name: str, material: Material) -> None:
        color = None if material.color is None else _element("color", rgba=_numbers(material.color))
        texture = None
        if material.texture is not None and self.urdf_source:
            texture = _element("texture", filename=self._texture_reference(material.texture))
        if color is None and texture is None:
            out.add(1, _element("material", name=name))
            return
        out.add(1, f"<material name={_attr(name)}>")
        out.add(2, color)
        out.add(2, texture)
        out.add(1, "</material>")

    def _texture_reference(self, uri: str) -> str:
        """A URDF texture as written, made relative to the output when it named a local file."""
        source = self.model.source
        if "://" in uri or source is None:
            return uri
        path = uri if os.path.isabs(uri) else os.path.join(os.path.dirname(source), uri)
        return self.context.file_reference(path if os.path.isfile(path) else None, uri)

    # -- joints -----------------------------------------------------------------------------------
    def _joint(self, out: _Lines, step: _Step) -> None:
        joint = step.source
        out.add(1, f"<joint name={_attr(step.name)} type={_attr(step.type)}>")
        out.add(2, _origin(step.origin))
        out.add(2, _element("parent", link=step.parent))
        out.add(2, _element("child", link=step.child))
        if step.type in ("revolute", "continuous", "prismatic", "planar") and step.axis is not None:
            out.add(2, _element("axis", xyz=_numbers(step.axis)))
        if joint is not None:
            self._joint_details(out, step, joint)
        mimic = step.mimic or self._mimic(step)
        if mimic is not None:
            leader, multiplier, offset = mimic
            out.add(2, _element("mimic", joint=leader, multiplier=_number(multiplier), offset=_number(offset)))
        if joint is not None and step.part in ("", "1"):
            self._element_extras(out, 2, joint.extras, joint.location, f"joint {joint.name!r}")
        out.add(1, "</joint>")

    def _joint_details(self, out: _Lines, step: _Step, joint: Joint) -> None:
        """`<limit>`, `<dynamics>`, and a URDF source's `<safety_controller>` and `<calibration>`."""
        limits = step.limits
        if limits is not None and step.type != "fixed":
            self._limit(out, step, joint, limits)
        if step.part in ("", "1"):
            d = joint.dynamics
            if d.damping or d.friction:
                out.add(2, _element("dynamics", damping=_number(d.damping), friction=_number(d.friction)))
        urdf = joint.extras.get("urdf", {}) if self.urdf_source and not step.part else {}
        safety = urdf.get("safety_controller")
        if safety:
            out.add(2, _element("safety_controller", **{k: _number(v) for k, v in safety.items()}))
        calibration = urdf.get("calibration")
        if calibration is not None:
            out.add(
                2, _element("calibration", **{k: None if v is None else _number(v) for k, v in calibration.items()})
            )

    def _limit(self, out: _Lines, step: _Step, joint: Joint, limits: Limits) -> None:
        attrs: dict[str, str | None] = {}
        if step.type in ("revolute", "prismatic"):
            lower, upper = limits.lower, limits.upper
            if lower is None or upper is None:
                bound = UNLIMITED_PRISMATIC if step.type == "prismatic" else math.pi * 1e6
                self.lose(
                    "unlimited-joint",
                    f"{step.type} joint {step.name!r} has no "
                    + ("limits" if lower is None and upper is None else "lower" if lower is None else "upper")
                    + " limit; URDF needs both",
                    joint.location,
                    joint.name,
                    f"a bound of {_number(bound)}",
                )
                lower = -bound if lower is None else lower
                upper = bound if upper is None else upper
            attrs["lower"], attrs["upper"] = _number(lower), _number(upper)
        elif limits.effort is None and limits.velocity is None:
            return
        attrs["effort"] = _number(limits.effort or 0.0)
        attrs["velocity"] = _number(limits.velocity or 0.0)
        out.add(2, _element("limit", **attrs))

    def _mimic(self, step: _Step) -> tuple[str, float, float] | None:
        """The `<mimic>` of a single URDF joint: the model's (chains resolved to the leading joint, as
        yourdfpy follows only independent joints), or one a joint constraint asks for."""
        joint = step.source
        if joint is None or step.part or step.type == "fixed":
            return None
        if joint.mimic is None:
            return self.plan.mimics.get(joint.name)
        name, multiplier, offset = self._leading(joint)
        parts = self.plan.parts.get(name)
        return (parts[0][0] if parts else name), multiplier, offset

    def _leading(self, joint: Joint) -> tuple[str, float, float]:
        """The joint a follower's chain of mimics leads to (the first that follows none, or a name
        that is no joint), with the follower's value as multiplier and offset of that joint's.

        Each follower's answer is kept and composed from its leader's, so a chain of mimics is
        walked once, not once per follower. In a loop of mimics (which no reader loads and the
        kinematics refuse), the walk ends at the first joint it meets again."""
        known = self.leading
        joints = self.model.joints
        chain: list[tuple[str, Mimic]] = []  # followers whose answer is not known yet, the joint first
        met: set[str] = set()
        here: Joint | None = joint
        while here is not None and here.mimic is not None and here.name not in known and here.name not in met:
            chain.append((here.name, here.mimic))
            met.add(here.name)
            here = joints.get(here.mimic.joint)
        if not chain:
            return known[joint.name]
        composed: tuple[str, float, float] | None = None
        if here is None:  # a name that is no joint leads (it is held at 0)
            name = chain[-1][1].joint
        elif here.name in known:
            composed = known[here.name]
            name = composed[0]
        else:  # the joint the chain leads to, or (in a loop) the first joint met again
            name = here.name
        looped = here is not None and here.name in met
        for follower, mimic in reversed(chain):
            m, o = mimic.multiplier, mimic.offset
            composed = (name, m, o) if composed is None else (name, m * composed[1], m * composed[2] + o)
            if not looped:  # (in a loop, the answer depends on where the walk began)
                known[follower] = composed
        assert composed is not None  # (the chain is not empty)
        return composed

    # -- frames -----------------------------------------------------------------------------------
    def _frames(self, out: _Lines) -> None:
        """Each frame (MJCF site, SDF frame) as a massless link on a fixed joint, as ROS users do."""
        for frame in self.model.frames.values():
            link, joint = self.plan.frame_links[frame.name]
            if link != frame.name:
                self.lose(
                    "frame-renamed",
                    f"frame {frame.name!r} has the name of a body",
                    frame.location,
                    frame.name,
                    f"a link named {link!r}",
                )
            out.add(1, _element("link", name=link))
            parent = frame.body if frame.body in self.model.bodies else self.plan.root
            out.add(1, f'<joint name={_attr(joint)} type="fixed">')
            out.add(2, _origin(frame.pose))
            out.add(2, _element("parent", link=parent))
            out.add(2, _element("child", link=link))
            out.add(1, "</joint>")
            if not self.urdf_source:
                for extra in frame.extras.get("xml", ()):
                    self.lose(
                        _EXTRA_CODES.get(extra.tag, "element"),
                        f"<{extra.tag}> of frame {frame.name!r}",
                        extra.location or frame.location,
                        frame.name,
                    )

    # -- what URDF cannot hold ----------------------------------------------------------------------
    def _report_model_losses(self) -> None:
        model = self.model
        for joint in model.joints.values():
            self._joint_losses(joint)
        for joint in self.plan.lumped:
            self.lose(
                "fixed-joint-merged",
                f"joint {joint.name!r} ({joint.type}) sits in a chain of moving joints",
                joint.location,
                joint.name,
                "nothing (it does not move)",
            )
        for joint in self.plan.off_tree:
            self.lose(
                "loop-joint",
                f"joint {joint.name!r} closes a kinematic loop; URDF describes a tree",
                joint.location,
                joint.name,
            )
        roots = [b for b in model.bodies.values() if b.parent is None]
        if self.plan.dropped is not None:
            roots = [model.bodies[self.plan.root]]
        if len(roots) == 1 and not _is_identity(roots[0].pose):
            self.lose(
                "root-pose",
                f"root body {roots[0].name!r} is placed in the world; a URDF root is the world",
                roots[0].location,
                roots[0].name,
                "the root link at the origin",
            )
        for body in model.bodies.values():
            if body.static:
                self.lose(
                    "static",
                    f"link {body.name!r} is static; URDF has no static links",
                    body.location,
                    body.name,
                    "the link fixed where it stands (to the world link, or its parent)",
                )
        for actuator in model.actuators:
            self.lose(
                "actuator",
                f"{actuator.kind} actuator {actuator.name or ''!r} on {actuator.transmission} "
                f"{actuator.joint or actuator.target!r}",
                actuator.location,
                actuator.name,
            )
        for constraint in model.constraints:
            first = constraint.elements[0] if constraint.elements else None
            if constraint.kind == "joint" and first in self.plan.mimics:
                continue
            self.lose(
                "constraint",
                f"{constraint.kind} constraint {constraint.name or ''!r} between "
                + ", ".join(map(repr, constraint.elements)),
                constraint.location,
                constraint.name or first,
            )
        for name in model.configurations:
            self.lose("keyframe", f"named configuration {name!r}", None, name)
        if not self.urdf_source:
            for extra in model.extras:
                if extra.tag in ("key", "keyframe") and model.configurations:
                    continue  # reported as configurations
                code = _EXTRA_CODES.get(extra.tag, "element")
                self.lose(
                    code,
                    f"<{extra.tag}> ({model.format}) has no URDF counterpart",
                    extra.location,
                    extra.attributes.get("name") or extra.tag,
                )

    def _joint_losses(self, joint: Joint) -> None:
        kind = joint.type
        parts = self.plan.parts.get(joint.name, [])
        names = ", ".join(repr(name) for name, _ in parts)
        if kind is JointType.BALL:
            self.lose(
                "ball-joint",
                f"ball joint {joint.name!r}",
                joint.location,
                joint.name,
                f"three continuous joints {names} (angles about x, y, z; joint_values converts)",
            )
        elif kind in (JointType.UNIVERSAL, JointType.REVOLUTE2):
            self.lose(
                f"{kind.value}-joint",
                f"{kind.value} joint {joint.name!r}",
                joint.location,
                joint.name,
                f"two joints {names} through a helper link",
            )
        elif kind is JointType.SCREW:
            self.lose(
                "screw-joint",
                f"screw joint {joint.name!r}",
                joint.location,
                joint.name,
                f"revolute {names.split(', ')[0]} and a prismatic joint mimicking it (same motion)",
            )
        elif kind is JointType.GEARBOX:
            self.lose(
                "gearbox-joint",
                f"gearbox joint {joint.name!r} couples two joints",
                joint.location,
                joint.name,
                "a fixed joint",
            )
        if joint.dof > 0 and _has_reference(joint):
            self.lose(
                "joint-reference",
                f"joint {joint.name!r} stands at a non-zero reference as written; URDF joints start at 0",
                joint.location,
                joint.name,
                "the same motion at the same values (the default configuration is 0)",
            )
        d = joint.dynamics
        for code, value, what in (
            ("joint-spring", d.spring_stiffness, "a spring"),
            ("joint-armature", d.armature, "armature"),
        ):
            if value:
                self.lose(code, f"joint {joint.name!r} has {what} ({_number(value)})", joint.location, joint.name)
        if joint.mimic is not None and joint.dof != 1:
            self.lose("mimic", f"mimic of joint {joint.name!r}", joint.location, joint.name)


def _same_material(a: Material, b: Material) -> bool:
    same_color = (a.color is None and b.color is None) or (
        a.color is not None and b.color is not None and np.array_equal(np.asarray(a.color), np.asarray(b.color))
    )
    return same_color and a.texture == b.texture
