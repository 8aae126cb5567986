"""The MJCF writer: any model as MuJoCo 4.0 XML, in MuJoCo's idioms, with what cannot be said lost.

What it writes (docs/formats/mjcf.md, "Writing MJCF", says it for users):

* ``<compiler angle="radian" autolimits="true" inertiafromgeom="false" balanceinertia="true">``:
  every body's mass is written as an explicit ``<inertial>`` (exact, never recomputed from geoms);
  a body without one has no mass.
* A ``<worldbody>`` tree: each body at its pose in its parent (at the joints' references), its
  joints in order with ``pos``/``axis`` in the body frame (``Joint.origin`` relative to
  ``Body.pose``), ``ref`` for a non-zero reference. Fixed joints weld (no joint element). A floating
  joint is a ``<freejoint>`` when its body can stand directly in the world (a body whose parent is
  welded to the world is moved there, keeping its pose); otherwise three slides and a ball. Planar,
  universal, revolute2 and screw joints become several hinges/slides in the same body (MuJoCo lets a
  body have several joints), named ``<joint>`` then ``<joint>_<part>``.
* Mimic joints as ``<equality><joint>``, keyframes as ``<key qpos>`` in MuJoCo's qpos order,
  frames as ``<site>``, an MJCF source's actuators, equalities, tendons, sensors, contacts and other
  top-level elements written back (default classes flattened).

`qpos(model, positions)` gives the MuJoCo ``qpos`` of the written model for a configuration of the
source, which is how keyframes are written and how a test sets the written model's joints.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, SubElement, fromstring, indent, tostring

import numpy as np

from ...core.errors import InvalidValue, Location, RobodescError
from ...core.model import Body, Joint, JointType, Model
from ...core.resources import read_file
from ...core.transforms import IDENTITY, invert_pose, matrix_to_quat, quat_multiply, quat_to_matrix
from ...core.writing import WriteContext, unique_name
from ..xml import MAX_DEPTH
from .write_geoms import GeomWriter, num, nums, set_pose

#: What a massless moving body gets so that MuJoCo accepts it (its mjMINVAL is 1e-15).
TINY_MASS = 1e-6
TINY_INERTIA = 1e-10
_MINVAL = 1e-15

#: An MJCF source's joint attributes written back as they were (none is an angle or a pose).
_JOINT_PASSTHROUGH = (
    "margin",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "group",
    "actuatorfrcrange",
    "actuatorfrclimited",
    "actuatorgravcomp",
    "user",
    "springdamper",
    "springyield",
)
#: An MJCF source's site attributes written back.
_SITE_PASSTHROUGH = ("type", "size", "rgba", "group", "material", "user")
#: Top-level MJCF elements kept as extras, in the order MuJoCo's schema lists them; `texture`
#: goes into `<asset>`, `key` is written from the model's configurations.
_BEFORE_ASSETS = ("option", "size", "visual", "statistic", "extension", "custom")
_AFTER_WORLD = ("contact", "deformable", "tendon")
_LAST = ("sensor",)
#: Keys of `extras[format]` that are the readers' bookkeeping rather than something the source says.
_BOOKKEEPING = frozenset(
    {
        "model",
        "loop",
        "mimic",
        "inertial_defaults",
        "screw_thread_pitch",
        "material_locations",
        "material_location",
        "dropped_limits",
        "limit_location",
        "written_axis",
        "axis_location",
        "repeated",
    }
)
_EXTRA_CODES = {"transmission": "transmission", "gazebo": "gazebo", "plugin": "plugin", "sensor": "sensor"}


@dataclass
class _Part:
    """One joint element written: where its values come from in the source's configuration."""

    name: str | None
    size: int  # qpos entries: 1, 4 (ball) or 7 (free)
    value: Callable[[Callable[[str], np.ndarray]], np.ndarray]


def write(model: Model, context: WriteContext) -> str:
    """`model` as MJCF text; what MJCF cannot hold goes to `context.losses`."""
    return _Writer(model, context).text()


def qpos(model: Model, positions: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None) -> np.ndarray:
    """The ``qpos`` of the MJCF written for `model` at `positions` (source joint name -> value;
    joints left out at their reference), in MuJoCo's order; given a list of configurations, one
    row per configuration."""
    writer = _Writer(model, WriteContext())
    writer.text()
    if positions is None or isinstance(positions, Mapping):
        return writer.qpos(positions or {})
    return np.array([writer.qpos(p) for p in positions]).reshape(len(positions), -1)


def _unnamed(name: str) -> bool:
    return name.startswith("<unnamed")


def _quat(rotation: np.ndarray) -> np.ndarray:
    return matrix_to_quat(rotation)


def _conj(q: np.ndarray) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


def _rotate(axis: np.ndarray, angle: float) -> np.ndarray:
    from ...core.transforms import axis_angle_to_matrix

    return axis_angle_to_matrix(axis, angle)


class _Writer:
    def __init__(self, model: Model, context: WriteContext) -> None:
        self.model = model
        self.context = context
        self.lose = context.lose  # every loss goes straight to the context
        self.is_mjcf = model.format == "mjcf"
        self.parts: list[_Part] = []
        self.written_joints: dict[str, list[str | None]] = {}
        self.joint_names: set[str] = set(model.joints)
        self.body_names: set[str] = set(model.bodies)
        self.equalities: list[Element] = []
        self.grouped: dict[str, tuple[str, str, list[tuple[str, Location | None]]]] = {}
        self.uses_classes = False
        self.welded: dict[str, bool] = {}
        self.geoms = GeomWriter(model, context, self.lose)
        self.poses = model.forward_kinematics(backend="numpy")  # once: not worth loading numba
        self.compiler = self._source_compiler()
        self.degrees = self.compiler.get("angle", "degree") != "radian"
        self.raw_names: dict[str, set[str]] = {}

    # -- losses ---------------------------------------------------------------------------------
    def lose_grouped(self, code: str, what: str, name: str, instead: str, location: Location | None = None) -> None:
        """Collect one construct of a kind that many constructs of a model share (every velocity
        limit, every fixed joint): reported together, kind by kind, once the model is written."""
        self.grouped.setdefault(code, (what, instead, []))[2].append((name, location))

    def _report_grouped(self) -> None:
        """One loss per construct (each with its own location), the constructs of a kind together."""
        for code, (what, instead, named) in self.grouped.items():
            for name, location in named:
                self.lose(code, f"{what}: {name!r}", location=location, construct=name, instead=instead)

    # -- the document ---------------------------------------------------------------------------
    def text(self) -> str:
        model = self.model
        self._check_depth()
        root = Element("mujoco", model=model.name)
        compiler = SubElement(root, "compiler", angle="radian", autolimits="true")
        compiler.set("inertiafromgeom", "false")
        compiler.set("balanceinertia", "true")
        extras = self._model_extras()
        for tag in _BEFORE_ASSETS:
            root.extend(extras.pop(tag, []))
        world = Element("worldbody")
        self._tree(world)
        asset = SubElement(root, "asset")
        asset.extend(extras.pop("texture", []))
        asset.extend(self.geoms.assets())
        if not len(asset):
            root.remove(asset)
        root.append(world)
        for tag in _AFTER_WORLD:
            root.extend(extras.pop(tag, []))
        self._constraints()
        if self.equalities:
            SubElement(root, "equality").extend(self.equalities)
        self._actuators(root)
        for tag in _LAST:
            root.extend(extras.pop(tag, []))
        keys = extras.pop("key", [])
        self._keyframes(root, keys)
        for elements in extras.values():
            root.extend(elements)
        if self.uses_classes:
            self.lose(
                "default-class",
                "the source's default classes are flattened: each element is written with the values its class gave it",
                instead="explicit attributes; values the reader does not keep (e.g. geom friction) take"
                " MuJoCo's defaults",
            )
        for renamed in self.geoms.renamed:
            self.lose_grouped(
                "geom-name",
                "shapes renamed, since MuJoCo names geoms uniquely",
                renamed,
                "the geom named <body>::<shape>",
            )
        self._report_grouped()
        indent(root, space="  ")
        return tostring(root, encoding="unicode") + "\n"

    def qpos(self, positions: Mapping[str, Any]) -> np.ndarray:
        values = _SourceValues(self.model, positions)
        chunks = [np.asarray(part.value(values.get), dtype=float).reshape(-1) for part in self.parts]
        return np.concatenate(chunks) if chunks else np.zeros(0)

    # -- bodies ---------------------------------------------------------------------------------
    def _tree(self, world: Element) -> None:
        """The body tree in MuJoCo's order (preorder), with an explicit stack."""
        model = self.model
        root = model.root
        root_is_world = root.name == "world"
        children: dict[str, list[str]] = {name: [] for name in model.bodies}
        for body in model.bodies.values():
            if body.parent is not None:
                children[body.parent].append(body.name)
        welded = self.welded = self._welded_to_world()
        world_child = root.name if root_is_world else None
        free = {
            b.name
            for b in model.bodies.values()
            if b.parent is not None
            and welded.get(b.parent, False)
            and len(b.joints) == 1
            and model.joints[b.joints[0]].type is JointType.FLOATING
        }
        hoisted = [name for name in free if model.bodies[name].parent != world_child]
        hoisted.sort(key=list(model.bodies).index)
        for name in hoisted:
            children[model.bodies[name].parent].remove(name)  # type: ignore[index]
        top = children[root.name] if root_is_world else [root.name]
        top = top + hoisted
        if root_is_world:
            self._contents(root, world)
        moving = self._moving(free)
        stack = [(name, world) for name in reversed(top)]
        hoisted_set = set(hoisted)
        while stack:
            name, parent = stack.pop()
            body = model.bodies[name]
            element = SubElement(parent, "body")
            written_name = name
            if name == "world":  # MuJoCo's world body is called world
                written_name = unique_name("world_body", self.body_names)
                self.lose("body-name", "a body called 'world' is not the root", construct=name, instead=written_name)
            if not _unnamed(name):
                element.set("name", written_name)
            pose = self.poses[name] if name in hoisted_set else body.pose
            set_pose(element, np.asarray(pose, dtype=float))
            self._inertial(body, element, moving.get(name))
            self._joints(body, element, free=name in free)
            self._contents(body, element)
            stack.extend((child, element) for child in reversed(children[name]))

    def _check_depth(self) -> None:
        """MJCF writes each body inside its parent, and MuJoCo reads at most MAX_DEPTH levels of XML
        (<mujoco>, <worldbody>, the bodies, what the deepest holds): refuse a deeper tree up front."""
        depth: dict[str, int] = {}  # how deep each body is written below <worldbody> (1: right in it)
        for body in self.model.bodies.values():  # parents come before children
            if body.parent is None:
                depth[body.name] = 0 if body.name == "world" else 1
            else:
                depth[body.name] = depth[body.parent] + 1
        deepest = max(depth, key=depth.__getitem__)
        if 2 + depth[deepest] + 1 > MAX_DEPTH:
            raise InvalidValue(
                f"body {deepest!r} would be written {depth[deepest]} bodies deep: MJCF nests each body in its "
                f"parent, and MuJoCo reads at most {MAX_DEPTH} levels of XML",
                construct=deepest,
                suggestion="write URDF or SDFormat, which list links side by side",
            )

    def _floating_root(self, body: Body) -> bool:
        """A body the source lets move freely without a joint (an SDF model's root link): a free joint."""
        root = self.model.root
        return body.floating and not body.joints and body.parent == root.name and root.name == "world"

    def _welded_to_world(self) -> dict[str, bool]:
        """Bodies that never move: the root, and bodies joined to one by fixed joints only."""
        welded: dict[str, bool] = {}
        for body in self.model.bodies.values():  # parents come before children
            if body.parent is None:
                welded[body.name] = True
                continue
            rigid = all(self.model.joints[j].type is JointType.FIXED for j in body.joints) and not body.floating
            welded[body.name] = rigid and welded.get(body.parent, False)
        return welded

    def _contents(self, body: Body, element: Element) -> None:
        """A body's geoms, sites and (MJCF source) cameras and lights."""
        self.geoms.write_body_shapes(body, element, static=self.welded.get(body.name, False))
        for frame in self.model.frames.values():
            if frame.body == body.name:
                self._site(frame, element)
        for extra in body.extras.get("xml", []) if isinstance(body.extras.get("xml"), list) else []:
            if self.is_mjcf:
                element.append(self._raw(extra.xml))
            else:
                self._lose_extra(extra)
        own = body.extras.get(self.model.format or "")
        if not self.is_mjcf and isinstance(own, dict):
            self._lose_properties(own, body.name, body.location, "link")

    def _site(self, frame: Any, parent: Element) -> None:
        site = SubElement(parent, "site", name=frame.name)
        set_pose(site, np.asarray(frame.pose, dtype=float))
        own = frame.extras.get("mjcf") if self.is_mjcf else None
        if isinstance(own, dict):
            self.uses_classes |= "class" in own
            for key in _SITE_PASSTHROUGH:
                if key in own:
                    site.set(key, own[key])

    # -- inertia --------------------------------------------------------------------------------
    def _moving(self, free: set[str]) -> dict[str, np.ndarray | None]:
        """For each body that will have a joint in MuJoCo: the extra (mass, inertia) it needs so that,
        with the bodies welded below it, MuJoCo accepts it (None when it needs nothing)."""
        model = self.model
        has_joint = {
            b.name: any(model.joints[j].type is not JointType.FIXED for j in b.joints) or b.name in free
            for b in model.bodies.values()
        }
        for body in model.bodies.values():
            if self._floating_root(body):
                has_joint[body.name] = True
        children: dict[str, list[str]] = {}
        for body in model.bodies.values():
            if body.parent is not None:
                children.setdefault(body.parent, []).append(body.name)
        needs: dict[str, np.ndarray | None] = {}
        for name, moves in has_joint.items():
            if not moves:
                continue
            # MuJoCo 4.0 accepts a moving body when it, or any one body welded below it (no joint
            # in between, any depth), has a mass and inertia about every axis on its own; masses of
            # several welded bodies are not added up
            enough = False
            stack = [name]
            while stack and not enough:
                current = stack.pop()
                inertial = model.bodies[current].inertial
                if inertial is not None:
                    enough = _enough(float(inertial.mass), np.asarray(inertial.inertia, dtype=float))
                stack.extend(child for child in children.get(current, ()) if not has_joint[child])
            needs[name] = None if enough else np.array([TINY_MASS, TINY_INERTIA])
        return needs

    def _inertial(self, body: Body, element: Element, extra: np.ndarray | None) -> None:
        inertial = body.inertial
        mass = 0.0 if inertial is None else float(inertial.mass)
        com = np.zeros(3) if inertial is None else np.asarray(inertial.com, dtype=float)
        tensor = np.zeros((3, 3)) if inertial is None else np.array(inertial.inertia, dtype=float)
        if extra is not None:
            mass = mass if mass >= _MINVAL else float(extra[0])
            tensor = tensor + float(extra[1]) * np.eye(3)
            self.lose(
                "massless-body",
                f"body {body.name!r} moves but neither it nor any one body welded to it has a mass and inertia"
                " about every axis, which MuJoCo refuses",
                location=body.location,
                construct=body.name,
                instead=f"mass {num(mass)} kg and {num(float(extra[1]))} kg m^2 added to its inertia",
            )
        if mass == 0.0 and not np.any(tensor):
            return
        principal = self._valid_inertia(body, tensor)
        node = SubElement(element, "inertial", pos=nums(com))  # MuJoCo requires pos
        node.set("mass", num(mass))
        if principal is not None:
            node.set("quat", nums(_quat(principal[0])))
            node.set("diaginertia", nums(principal[1]))
            return
        off = (tensor[0, 1], tensor[0, 2], tensor[1, 2])
        if any(off):
            node.set("fullinertia", nums([tensor[0, 0], tensor[1, 1], tensor[2, 2], *off]))
        else:
            node.set("diaginertia", nums(np.diag(tensor)))

    def _valid_inertia(self, body: Body, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """None when the inertia can be written as it is; otherwise (a principal moment is not positive,
        which MuJoCo refuses for a ``fullinertia``) its principal axes (a rotation) and moments, those
        raised to a billionth of the largest (at least 1e-12)."""
        moments, axes = np.linalg.eigh((tensor + tensor.T) / 2)
        scale = max(float(np.abs(moments).max()), _MINVAL)
        floor = max(1e-9 * scale, 1e-12)
        off = (tensor[0, 1], tensor[0, 2], tensor[1, 2])
        if (any(off) and moments.min() < floor) or moments.min() < 0:
            self.lose(
                "inertia-invalid",
                f"body {body.name!r} has an inertia whose principal moments {nums(moments)} are not all positive,"
                " which MuJoCo refuses",
                location=body.location,
                construct=body.name,
                instead=f"the inertia with those moments raised to {num(floor)}",
            )
            if np.linalg.det(axes) < 0:
                axes[:, 2] = -axes[:, 2]
            return axes, np.maximum(moments, floor)
        a, b, c = sorted(moments)
        if a + b < c - 1e-12 * scale:
            self.lose(
                "inertia-balanced",
                f"body {body.name!r} has principal moments {a:.6g}, {b:.6g}, {c:.6g} violating A + B >= C,"
                " which MuJoCo refuses",
                location=body.location,
                construct=body.name,
                instead="the inertia as MuJoCo's balanceinertia makes it (the smaller moments raised)",
            )
        return None

    # -- joints ---------------------------------------------------------------------------------
    def _joints(self, body: Body, element: Element, free: bool) -> None:
        model = self.model
        if free:
            joint = model.joints[body.joints[0]]
            attrs = {} if _unnamed(joint.name) else {"name": joint.name}
            SubElement(element, "freejoint", attrs)
            self._free_part(body, joint)
            return
        if self._floating_root(body):
            name = unique_name(f"{body.name}_free", self.joint_names)
            SubElement(element, "freejoint", name=name)
            start = np.concatenate([self.poses[body.name][:3, 3], _quat(self.poses[body.name][:3, :3])])
            self.parts.append(_Part(name, 7, _constant(start)))
            return
        for joint_name in body.joints:
            joint = model.joints[joint_name]
            for tag, attrs, size, value in self._joint_parts(body, joint):
                SubElement(element, tag, attrs)
                self.parts.append(_Part(attrs.get("name"), size, value))
                self.written_joints.setdefault(joint.name, []).append(attrs.get("name"))

    def _free_part(self, body: Body, joint: Joint) -> None:
        """A free joint's qpos: the body's world pose, from the source's joint value."""
        parent = self.poses[joint.parent] if joint.parent in self.poses else IDENTITY
        origin = np.asarray(joint.origin, dtype=float)
        after = invert_pose(origin) @ np.asarray(body.pose, dtype=float)
        reference = _pose7(_flat(joint.reference, 7, np.array([0, 0, 0, 1.0, 0, 0, 0])))
        before = parent @ origin @ invert_pose(reference)

        def value(get: Callable[[str], np.ndarray]) -> np.ndarray:
            world = before @ _pose7(get(joint.name)) @ after
            return np.concatenate([world[:3, 3], _quat(world[:3, :3])])

        self.parts.append(_Part(None if _unnamed(joint.name) else joint.name, 7, value))
        self.written_joints[joint.name] = [joint.name]

    def _joint_parts(self, body: Body, joint: Joint) -> list[tuple[str, dict[str, str], int, Any]]:
        """The joint elements (tag, attributes, qpos size, value function) one source joint becomes."""
        kind = joint.type
        if kind is JointType.FIXED:
            self.lose_grouped(
                "fixed-joint",
                "fixed joints written as welded bodies (their names are not kept)",
                joint.name,
                "the child body without a joint",
                joint.location,
            )
            return []
        if kind is JointType.GEARBOX:
            self.lose(
                "gearbox-joint",
                f"gearbox joint {joint.name!r} has no MJCF counterpart",
                location=joint.location,
                construct=joint.name,
            )
            return []
        pose = np.asarray(body.pose, dtype=float)
        origin = np.asarray(joint.origin, dtype=float)
        frame = IDENTITY if np.array_equal(origin, pose) else invert_pose(pose) @ origin
        rotation, anchor = frame[:3, :3], frame[:3, 3]
        if np.allclose(rotation, np.eye(3), rtol=0.0, atol=1e-13):  # an anchor offset only (MJCF): no turn
            rotation = np.eye(3)
        axis = np.asarray(joint.axis, dtype=float)
        ref = _flat(joint.reference, joint.dof, None)
        base = {"pos": nums(anchor)} if np.any(anchor != 0) else {}
        named = not _unnamed(joint.name)
        first = {"name": joint.name} if named else {}

        def helper(suffix: str) -> dict[str, str]:
            return {"name": unique_name(f"{joint.name}_{suffix}", self.joint_names)} if named else {}

        def scalar(index: int, scale: float = 1.0) -> Any:
            return lambda get: np.array([scale * float(get(joint.name)[index])])

        if kind in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.SCREW):
            tag = "slide" if kind is JointType.PRISMATIC else "hinge"
            attrs = self._scalar_attrs(joint, first, base, tag, rotation @ axis, float(ref[0]), joint.limits)
            parts = [("joint", attrs, 1, scalar(0))]
            if kind is JointType.SCREW:
                slide = self._scalar_attrs(
                    joint,
                    helper("slide"),
                    base,
                    "slide",
                    rotation @ axis,
                    joint.pitch * float(ref[0]),
                    None,
                    dynamics=False,
                )
                parts.append(("joint", slide, 1, scalar(0, joint.pitch)))
                self._couple(slide.get("name"), attrs.get("name"), joint.pitch, 0.0, joint)
                self._lose_split(joint, "a hinge and a slide coupled by an equality (a soft constraint)")
            self._lose_limits(joint)
            return parts
        if kind is JointType.BALL:
            return [self._ball(joint, first, base, rotation, ref)]
        if kind is JointType.FLOATING:
            return self._floating(joint, first, helper, base, rotation, ref)
        if kind is JointType.PLANAR:
            from ...core.kinematics import planar_basis

            unit = axis / np.linalg.norm(axis)
            e1, e2 = planar_basis(unit)
            turn = _rotate(unit, -float(ref[2]))
            x = self._scalar_attrs(joint, first, {}, "slide", rotation @ turn @ e1, float(ref[0]), None)
            y = self._scalar_attrs(joint, helper("y"), {}, "slide", rotation @ turn @ e2, float(ref[1]), None)
            angle = self._scalar_attrs(joint, helper("angle"), base, "hinge", rotation @ axis, float(ref[2]), None)
            self._lose_split(joint, "two slides and a hinge in the body, values x, y, angle as the source's")
            return [("joint", x, 1, scalar(0)), ("joint", y, 1, scalar(1)), ("joint", angle, 1, scalar(2))]
        # universal and revolute2: R(a1, q1) R(a2, q2), both axes in the joint frame
        axis2 = np.asarray(joint.axis2 if joint.axis2 is not None else (0.0, 1.0, 0.0), dtype=float)
        turned = _rotate(axis2, -float(ref[1])) @ axis
        one = self._scalar_attrs(joint, first, base, "hinge", rotation @ turned, float(ref[0]), joint.limits)
        two = self._scalar_attrs(joint, helper("axis2"), base, "hinge", rotation @ axis2, float(ref[1]), joint.limits2)
        self._lose_split(joint, "two hinges in the body, one per axis")
        return [("joint", one, 1, scalar(0)), ("joint", two, 1, scalar(1))]

    def _scalar_attrs(
        self,
        joint: Joint,
        name: dict[str, str],
        base: dict[str, str],
        tag: str,
        axis: np.ndarray,
        ref: float,
        limits: Any,
        dynamics: bool = True,
    ) -> dict[str, str]:
        attrs = {**name, "type": tag, **base, "axis": nums(axis)}
        if ref != 0:
            attrs["ref"] = num(ref)
        if limits is not None and limits.lower is not None and limits.upper is not None:
            if limits.lower < limits.upper:
                attrs["range"] = f"{num(limits.lower)} {num(limits.upper)}"
        if dynamics:
            self._dynamics(joint, attrs)
        return attrs

    def _dynamics(self, joint: Joint, attrs: dict[str, str]) -> None:
        d = joint.dynamics
        for key, value in (("damping", d.damping), ("frictionloss", d.friction), ("armature", d.armature)):
            if value:
                attrs[key] = num(value)
        if d.spring_stiffness:
            attrs["stiffness"] = num(d.spring_stiffness)
            attrs["springref"] = num(d.spring_reference)
        own = joint.extras.get("mjcf") if self.is_mjcf else None
        if isinstance(own, dict):
            self.uses_classes |= "class" in own
            for key in _JOINT_PASSTHROUGH:
                if key in own:
                    attrs[key] = own[key]
        elif joint.limits.effort:
            attrs["actuatorfrcrange"] = f"{num(-joint.limits.effort)} {num(joint.limits.effort)}"

    def _lose_limits(self, joint: Joint) -> None:
        limits = joint.limits
        if limits.velocity:
            self.lose_grouped(
                "velocity-limit",
                "joint velocity limits have no MJCF counterpart",
                joint.name,
                "nothing",
                joint.location,
            )
        if (
            joint.type in (JointType.REVOLUTE, JointType.PRISMATIC)
            and limits.lower is not None
            and limits.upper is not None
            and limits.lower >= limits.upper
        ):
            self.lose(
                "joint-range",
                f"joint {joint.name!r} has the range [{limits.lower}, {limits.upper}], which MuJoCo cannot limit to",
                location=joint.location,
                construct=joint.name,
                instead="an unlimited joint",
            )

    def _lose_split(self, joint: Joint, instead: str) -> None:
        self.lose(
            f"{joint.type.value}-joint",
            f"MJCF has no {joint.type.value} joint ({joint.name!r})",
            location=joint.location,
            construct=joint.name,
            instead=instead,
        )

    def _ball(self, joint: Joint, first: dict, base: dict, rotation: np.ndarray, ref: np.ndarray) -> Any:
        attrs = {**first, "type": "ball", **base}
        if joint.limits.upper is not None and joint.limits.upper > 0:
            attrs["range"] = f"0 {num(joint.limits.upper)}"
        self._dynamics(joint, attrs)
        turn = _quat(rotation)
        plain = np.array_equal(rotation, np.eye(3)) and np.array_equal(ref, [1.0, 0.0, 0.0, 0.0])
        if not plain:
            self.lose(
                "joint-value-convention",
                f"ball joint {joint.name!r} turns in a frame rotated from its body's (or has a reference)",
                location=joint.location,
                construct=joint.name,
                instead="a ball in the body frame; its quaternion is the source's expressed in that frame",
            )

        def value(get: Callable[[str], np.ndarray]) -> np.ndarray:
            q = get(joint.name)
            q = q / np.linalg.norm(q)
            return quat_multiply(quat_multiply(turn, quat_multiply(_conj(ref), q)), _conj(turn))

        return ("joint", attrs, 4, value)

    def _floating(self, joint: Joint, first: dict, helper: Any, base: dict, rotation: np.ndarray, ref: Any) -> Any:
        """A floating joint that cannot be a free joint: three slides and a ball in its body."""
        ref_pose = _pose7(ref)
        slides = []
        for index, suffix in enumerate(("x", "y", "z")):
            direction = rotation @ ref_pose[:3, :3].T @ np.eye(3)[index]
            attrs = self._scalar_attrs(joint, helper(suffix), {}, "slide", direction, float(ref[index]), None)
            slides.append(("joint", attrs, 1, _component(joint.name, index)))
        ball = {**first, "type": "ball", **base}
        turn = _quat(rotation)
        ref_quat = np.asarray(ref[3:7], dtype=float)

        def value(get: Callable[[str], np.ndarray]) -> np.ndarray:
            q = np.asarray(get(joint.name)[3:7], dtype=float)
            q = q / np.linalg.norm(q)
            return quat_multiply(quat_multiply(turn, quat_multiply(_conj(ref_quat), q)), _conj(turn))

        self._lose_split(joint, "three slides and a ball (a free joint must be a child of the world body)")
        return [*slides, ("joint", ball, 4, value)]

    # -- couplings ------------------------------------------------------------------------------
    def _couple(self, follower: str | None, leader: str | None, multiplier: float, offset: float, joint: Joint) -> None:
        if follower is None or leader is None:
            self.lose("mimic", f"joint {joint.name!r} is coupled to an unnamed joint", construct=joint.name)
            return
        coefficients = [offset, multiplier, 0.0, 0.0, 0.0]
        self.equalities.append(Element("joint", joint1=follower, joint2=leader, polycoef=nums(coefficients)))

    def _constraints(self) -> None:
        model = self.model
        for joint in model.joints.values():
            if joint.mimic is None:
                continue
            follower, leader = self.written_joints.get(joint.name), self.written_joints.get(joint.mimic.joint)
            if not follower or not leader or len(follower) != 1 or len(leader) != 1:
                self.lose(
                    "mimic",
                    f"joint {joint.name!r} mimics {joint.mimic.joint!r}, which is not one MJCF joint",
                    location=joint.location,
                    construct=joint.name,
                )
                continue
            lead = model.joints[joint.mimic.joint]
            # MuJoCo couples the motions from qpos0: y - y0 = c0 + c1 (x - x0)
            offset = joint.mimic.offset + joint.mimic.multiplier * _flat(lead.reference, 1, None)[0]
            offset -= _flat(joint.reference, 1, None)[0]
            self._couple(follower[0], leader[0], joint.mimic.multiplier, float(offset), joint)
        for constraint in model.constraints:
            own = constraint.extras.get("mjcf") if self.is_mjcf else None
            if constraint.kind == "joint" and len(constraint.elements) >= 1:
                attrs = {"name": constraint.name} if constraint.name else {}
                attrs["joint1"] = constraint.elements[0]
                if len(constraint.elements) > 1:
                    attrs["joint2"] = constraint.elements[1]
                attrs["polycoef"] = nums(constraint.coefficients or (0.0, 1.0, 0.0, 0.0, 0.0))
                self.equalities.append(Element("joint", attrs))
            elif isinstance(own, dict):
                self.uses_classes |= "class" in own
                self.equalities.append(Element(constraint.kind, {k: v for k, v in own.items() if k != "class"}))
            elif constraint.kind != "gearbox":  # a gearbox is reported with its joint
                self.lose(
                    f"{constraint.kind}-constraint",
                    f"the {constraint.kind} constraint {constraint.name or ', '.join(constraint.elements)!r}"
                    " has no MJCF counterpart",
                    location=constraint.location,
                    construct=constraint.name or (constraint.elements[0] if constraint.elements else None),
                )

    def _actuators(self, root: Element) -> None:
        elements = []
        for actuator in self.model.actuators:
            own = actuator.extras.get("mjcf") if self.is_mjcf else None
            if isinstance(own, dict):
                self.uses_classes |= "class" in own
                allowed = _allowed("actuator", actuator.kind)
                kept = {k: v for k, v in own.items() if k != "class" and (allowed is None or k in allowed)}
                for key in own.keys() - kept.keys() - {"class", "_shortcut"}:
                    self.lose_grouped(
                        "actuator-attribute",
                        "actuator attributes from a default class of another"
                        " actuator type, which MuJoCo does not take on this element",
                        f"{actuator.name or actuator.kind}/{key}",
                        "nothing",
                    )
                elements.append(Element(actuator.kind, kept))
                continue
            target = self.written_joints.get(actuator.joint or "")
            if not target or target[0] is None:
                self.lose(
                    "actuator",
                    f"actuator {actuator.name or actuator.kind!r} drives no joint MJCF has",
                    location=actuator.location,
                    construct=actuator.name,
                )
                continue
            attrs = {"name": actuator.name} if actuator.name else {}
            attrs["joint"] = target[0]
            if actuator.gear != 1.0:
                attrs["gear"] = num(actuator.gear)
            elements.append(Element("motor", attrs))
            self.lose(
                "transmission",
                f"actuator {actuator.name or actuator.joint!r} ({actuator.kind}) is written as a motor on its joint",
                location=actuator.location,
                construct=actuator.name,
                instead="a <motor> with the same gear",
            )
        if elements:
            SubElement(root, "actuator").extend(elements)

    # -- keyframes and extras -------------------------------------------------------------------
    def _keyframes(self, root: Element, keys: list[Element]) -> None:
        if not self.model.configurations:
            return
        others = {key.get("name"): key for key in keys}
        keyframe = SubElement(root, "keyframe")
        for name, configuration in self.model.configurations.items():
            key = SubElement(keyframe, "key", name=name)
            key.set("qpos", nums(self.qpos(configuration)))
            for attr, text in others.get(name).attrib.items() if others.get(name) is not None else ():  # type: ignore[union-attr]
                if attr not in ("name", "qpos", "mpos", "mquat"):
                    key.set(attr, text)

    def _model_extras(self) -> dict[str, list[Element]]:
        """An MJCF source's top-level elements by tag; other formats' extensions reported lost."""
        found: dict[str, list[Element]] = {}
        for extra in self.model.extras:
            if not self.is_mjcf:
                self._lose_extra(extra)
                continue
            if extra.tag in ("compiler", "default", "mujoco"):
                continue
            element = self._raw(extra.xml)
            if extra.tag in ("key", "keyframe"):
                found.setdefault("key", []).extend([element] if extra.tag == "key" else list(element))
                continue
            found.setdefault(extra.tag, []).append(element)
        for owner in [*self.model.joints.values()]:
            for extra in owner.extras.get("xml", []) if isinstance(owner.extras.get("xml"), list) else []:
                self._lose_extra(extra)
            own = owner.extras.get(self.model.format or "")
            if not self.is_mjcf and isinstance(own, dict):
                self._lose_properties(own, owner.name, owner.location, "joint")
        return found

    def _raw(self, text: str) -> Element:
        """An MJCF source's kept element, without default classes (flattened), angles in radians."""
        element = fromstring(text)
        for node in element.iter():
            self._raw_file(node)
            name = node.get("name")
            if name is not None and node.tag in ("camera", "light"):
                taken = self.raw_names.setdefault(node.tag, set())
                if name in taken:  # cameras of replicated or attached copies keep their written names
                    node.set("name", unique_name(name, taken))
                    self.lose_grouped(
                        f"{node.tag}-name",
                        f"{node.tag}s renamed, their names being repeated",
                        name,
                        f"{node.tag}s named <name>_<n>",
                    )
                taken.add(node.get("name") or name)
            for attr in ("class", "childclass"):
                if attr in node.attrib:
                    self.uses_classes = True
                    del node.attrib[attr]
            if self.degrees:
                _to_radians(node)
        return element

    def _source_compiler(self) -> dict[str, str]:
        """The MJCF source's ``<compiler>`` settings the kept elements depend on (angle unit, asset
        folders), read from its main file; empty for other formats."""
        if not self.is_mjcf or not self.model.source:
            return {}
        files = [self.model.source]  # and the included files the kept elements came from
        located = [e.location for e in self.model.extras] + [b.location for b in self.model.bodies.values()]
        files += sorted({where.file for where in located if where.file} - {self.model.source})
        found: dict[str, str] = {}
        for file in files:
            try:
                text = read_file(file).decode("utf-8", errors="replace")
            except (OSError, RobodescError):  # gone, or no longer a file robodesc reads: nothing to keep
                continue
            self.uses_classes |= re.search(r"<default\b", text) is not None
            for element in re.findall(r"<compiler\b[^>]*>", text):
                for key, value in re.findall(r"(\w+)\s*=\s*[\"']([^\"']*)", element):
                    found[key] = value
        return found

    def _raw_file(self, node: Element) -> None:
        """A kept texture's (or other asset's) files, referred to from the output's folder."""
        import os

        for attr in ("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"):
            written = node.get(attr)
            if not written or self.model.source is None:
                continue
            path = written
            if not os.path.isabs(path):
                folder = self.compiler.get("texturedir" if node.tag == "texture" else "meshdir")
                folder = folder or self.compiler.get("assetdir", "")
                path = os.path.join(os.path.dirname(self.model.source), folder, written)
            node.set(attr, self.context.file_reference(path if os.path.exists(path) else None, written))

    def _lose_extra(self, extra: Any) -> None:
        code = _EXTRA_CODES.get(extra.tag.split(":")[-1], "extension")
        owner = f" of {extra.owner!r}" if extra.owner else ""
        self.lose(
            code,
            f"<{extra.tag}>{owner} has no MJCF counterpart",
            location=extra.location,
            construct=extra.tag,
        )

    def _lose_properties(self, own: dict, name: str, location: Location, what: str) -> None:
        for key in own:
            if key in _BOOKKEEPING:
                continue  # the readers' own notes, and values the model already holds
            self.lose_grouped(
                f"{what}-{key}".replace("_", "-"), f"{what} {key} settings have no MJCF counterpart", name, "nothing"
            )


class _SourceValues:
    """The source's joint values at one configuration: given, mimicked, or the reference."""

    def __init__(self, model: Model, positions: Mapping[str, Any]) -> None:
        self.model = model
        self.positions = positions
        self.cache: dict[str, np.ndarray] = {}

    def get(self, name: str) -> np.ndarray:
        found = self.cache.get(name)
        if found is not None:
            return found
        joint = self.model.joints[name]
        chain: list[Joint] = []
        joints = self.model.joints
        # up the leaders to a joint whose value is known (a walk stops where an earlier one went, so
        # a chain of mimics is walked once, not once per follower); a loop ends after len(joints) steps
        while (
            joint.mimic is not None
            and joint.mimic.joint in joints
            and len(chain) < len(joints)
            and (not chain or joint.name not in self.cache)
        ):
            chain.append(joint)
            joint = self.model.joints[joint.mimic.joint]
        looped = len(chain) == len(joints)
        if chain and joint.name in self.cache:
            value = self.cache[joint.name]
        elif joint.name in self.positions:
            value = np.atleast_1d(np.asarray(self.positions[joint.name], dtype=float)).reshape(-1)
        else:
            value = _flat(joint.reference, joint.dof, None)
        for follower in reversed(chain):
            assert follower.mimic is not None
            value = np.array([follower.mimic.multiplier * float(value[0]) + follower.mimic.offset])
            if not looped:  # each follower's value is what a walk from it computes
                self.cache[follower.name] = value
        if not looped:  # (in a loop, the value depends on where the walk began)
            self.cache[name] = value
        return value


def _constant(value: np.ndarray) -> Callable[[Callable[[str], np.ndarray]], np.ndarray]:
    return lambda get: value


def _component(name: str, index: int) -> Callable[[Callable[[str], np.ndarray]], np.ndarray]:
    """The value function of one component of a source joint's value."""
    return lambda get: np.array([float(get(name)[index])])


def _flat(reference: Any, size: int, default: np.ndarray | None) -> np.ndarray:
    """A joint's reference as a flat vector of its size (the identity value when unset)."""
    ref = np.atleast_1d(np.asarray(reference, dtype=float)).reshape(-1)
    if ref.size == size:
        return ref
    if default is not None:
        return default
    if size == 4:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if size == 7:
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    return np.zeros(size)


def _pose7(value: Any) -> np.ndarray:
    """A floating joint's value [x, y, z, w, qx, qy, qz] as a 4x4 pose."""
    value = np.asarray(value, dtype=float)
    pose = np.eye(4)
    pose[:3, 3] = value[:3]
    quat = value[3:7]
    pose[:3, :3] = quat_to_matrix(quat / np.linalg.norm(quat))
    return pose


def _allowed(section: str, tag: str) -> frozenset[str] | None:
    """The attributes MuJoCo's schema takes on <tag> inside <section> (None: not known)."""
    from .schema import root_schema

    node = (root_schema().children or {}).get(section)
    child = (node.children or {}).get(tag) if node is not None else None
    return None if child is None else child.attributes


def _enough(mass: float, inertia: np.ndarray) -> bool:
    """MuJoCo's test of one body's inertial: a mass, and inertia about every axis, above mjMINVAL."""
    if mass <= _MINVAL:
        return False
    if not np.isfinite(inertia).all():
        return True  # refused elsewhere, with its own reason
    return float(np.linalg.eigvalsh(inertia).min()) > _MINVAL


_ANGLE_ATTRIBUTES = ("euler",)


def _to_radians(node: Element) -> None:
    """Angles of a kept element written in degrees (euler; axisangle's angle) as radians."""
    for attr in _ANGLE_ATTRIBUTES:
        if attr in node.attrib:
            node.set(attr, nums([math.radians(float(v)) for v in node.attrib[attr].split()]))
    if "axisangle" in node.attrib:
        values = [float(v) for v in node.attrib["axisangle"].split()]
        if len(values) == 4:
            values[3] = math.radians(values[3])
            node.set("axisangle", nums(values))
